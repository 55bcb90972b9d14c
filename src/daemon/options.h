/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * barod's options: one table for the configuration file and the command
 * line.  Each row is one setting: its [section] and key in barod.conf(5),
 * its long option in barod(8), the metavar and help text --help prints,
 * the parser that checks its range (once, for both), where it goes in
 * struct config (or struct config_output, struct config_sensor, struct
 * cli), and the sources it acts on.  getopt's option list, --help,
 * --check-config's printout and the "unknown key" messages all come from
 * the table (options.c; its value types are options-values.c); the
 * command line's pass over it is options-cli.c, the file's is config.c.
 *
 * Adding an option: its field in struct config (and its default in
 * config_defaults), one row below in options.c, its item in barod(8)
 * when it has a long option and in barod.conf(5) and the sample
 * barod.conf when it has a key; test-options fails until the three
 * documents list it, and asks for a test value for a new long option.
 */
#ifndef BAROD_OPTIONS_H
#define BAROD_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "config.h"

/* The sources an option acts on: one bit per enum config_source. */
#define OPT_SRC(s) (1u << (s))
#define OPT_SRC_SITL (OPT_SRC(CONFIG_SOURCE_SITL_JSON) | \
		      OPT_SRC(CONFIG_SOURCE_SITL_PROXY))
#define OPT_SRC_PX4 (OPT_SRC(CONFIG_SOURCE_PX4_SIM) | \
		     OPT_SRC(CONFIG_SOURCE_PX4_PROXY))
/* Every source with the AP_Baro_SITL emulator (SIM_* parameters). */
#define OPT_SRC_EMULATED (OPT_SRC(CONFIG_SOURCE_SIM) | OPT_SRC_SITL | \
			  OPT_SRC_PX4)
#define OPT_SRC_ALL (OPT_SRC_EMULATED | OPT_SRC(CONFIG_SOURCE_HARDWARE))
/* Sources whose truth is barod's own vehicle (--profile, --truth). */
#define OPT_SRC_OWN_TRUTH (OPT_SRC(CONFIG_SOURCE_SIM) | \
			   OPT_SRC(CONFIG_SOURCE_SITL_JSON) | \
			   OPT_SRC(CONFIG_SOURCE_PX4_SIM))

enum opt_flags {
	/* The parser's reason is the whole message ("unknown profile
	 * ..."), not "KEY = 'VALUE': expected ...". */
	OPT_WHOLE_MSG = 1u << 0,
	/* A source flag (--sim, --hardware ...): at most one is given. */
	OPT_SOURCE = 1u << 1,
	/* Command line only, for this run of the process (struct cli):
	 * not a setting laid over the file again on SIGHUP. */
	OPT_PROCESS = 1u << 2,
	/* The value may be left out: --probe [BUS]. */
	OPT_OPTIONAL = 1u << 3,
	/* [output NAME]: applies to type = msp only. */
	OPT_MSP = 1u << 4,
	/* [output NAME] type: settles the MSP transport later. */
	OPT_OUTPUT_TYPE = 1u << 5,
	/* A list the command line replaces as a whole (-o): the first
	 * option clears what the file gave; offset is its count. */
	OPT_LIST = 1u << 6,
	/* The option ends the parse (--help, --version). */
	OPT_EXIT = 1u << 7,
};

struct opt_row;

/*
 * Check value and store it at base + r->offset (base: struct config,
 * config_output, config_sensor or cli, by the row's section).  key is
 * the file's key (a pattern row such as rng_N needs it) or NULL from the
 * command line.  0, or -EINVAL with why set to a reason, or left empty
 * for the row's "expected ..." text.
 */
typedef int (*opt_parse_fn)(const struct opt_row *r, void *base,
			    const char *key, const char *value, char *why,
			    size_t whylen);
/* Print the row's "key = value" lines for base (none when unset). */
typedef void (*opt_format_fn)(const struct opt_row *r, const void *base,
			      FILE *out);

struct opt_choice {
	const char *name;
	int value;
};

struct opt_row {
	const char *section;	/* barod, sim, sitl, px4, mavlink, output,
				 * sensor; NULL: command line only */
	const char *key;	/* the file's key; rng_N, SIM_* are
				 * patterns */
	const char *name;	/* long option; NULL: the file only */
	char short_name;
	const char *metavar;	/* NULL: takes no value */
	const char *help;	/* --help; lines after the first start
				 * under the first */
	opt_parse_fn parse;
	opt_format_fn format;	/* NULL: not printed */
	size_t offset, size;	/* the field's place and size */
	double lo, hi;		/* range, for the parsers that take one */
	const char *expect;	/* for messages: "1..255" */
	const struct opt_choice *choices;	/* NULL-name terminated */
	unsigned sources;	/* OPT_SRC bits it acts on */
	unsigned flags;		/* enum opt_flags */
	int arg;		/* source flags: the source */
	/* Outside its own sources this option stands for that one
	 * (--sitl-instances in the PX4 modes is --px4-instances). */
	const char *alias;
};

extern const struct opt_row options_table[];
extern const size_t options_count;

/* The row of key in section ("output" and "sensor" for the named
 * sections), or NULL. */
const struct opt_row *
options_find_key(const char *section, const char *key);

/* The row of a long option, or NULL. */
const struct opt_row *
options_find_name(const char *name);

/* The section exists in the table: barod, sim, ... (not "output" bare:
 * [output NAME] and [sensor NAME] are named). */
bool
options_section_known(const char *section);

/* Named sections: [output NAME], [sensor NAME]. */
bool
options_section_named(const char *section);

/* "barod, sim, sitl, px4, mavlink, output NAME, sensor NAME". */
void
options_section_list(char *buf, size_t len);

/* The keys of a section, comma-separated, for "valid keys are". */
void
options_key_list(const char *section, char *buf, size_t len);

/*
 * Parse value into base through r.  On error msg holds the whole message:
 * from the file "KEY = 'VALUE': expected ..." (as_typed NULL), from the
 * command line "--OPTION: 'VALUE' is not ..." (as_typed: the option as
 * the user wrote it, "-p" or "--param").
 */
int
options_set(const struct opt_row *r, void *base, const char *key,
	    const char *value, const char *as_typed, char *msg, size_t len);

/* r acts on source s (by itself, not through an alias). */
bool
options_acts_on(const struct opt_row *r, enum config_source s);

/* "sitl-json, sitl-json-proxy" for OPT_SRC bits. */
void
options_sources_text(unsigned sources, char *buf, size_t len);

/* The row's index in options_table (for struct config's given bits). */
size_t
options_index(const struct opt_row *r);

/* --help, from the table. */
void
options_usage(FILE *out);

/*
 * The configuration as barod.conf(5) lines, for the sections and keys
 * the configured source uses: a file that loads to the same settings.
 */
void
options_write_config(FILE *out, const struct config *c);

/*
 * What the file gave that the configured source does not use ("[px4]
 * port, [sensor baro0]"): a file may carry sections for several modes,
 * so these are told, not refused.  The number of them.
 */
size_t
options_unused(const struct config *c, char *buf, size_t len);

/* --check-config: the summary line, the configuration, what is unused. */
void
options_check_report(FILE *out, const struct config *c);

/* ---- the command line (options-cli.c) ---------------------------- */

#define CLI_MAX_SETTINGS 128

/* A setting from the command line, kept so SIGHUP can lay it over the
 * re-read file. */
struct cli_setting {
	const struct opt_row *row;
	const char *value;	/* in argv */
	char as_typed[32];	/* "-p" or "--param", for messages */
};

/* Command-line settings, kept so SIGHUP can lay them over the re-read file. */
struct cli {
	const char *config_path;
	bool config_required;
	bool check_config;
	bool probe;
	const char *probe_bus;		/* --probe BUS, NULL: every bus */
	const char *probe_write;	/* --write FILE, NULL: stdout */
	const char *scenario;
	double duration_s;
	int verbosity;
	bool log_prefix;		/* --log-prefix: "<N>" on every line */
	bool help, version;		/* asked for; printed by cli_parse */
	struct cli_setting source;	/* the source flag, row NULL: none */
	struct cli_setting settings[CLI_MAX_SETTINGS];
	size_t n_settings;
};

/*
 * Parse argv into cli; every value is checked here.  0; 1 when --help or
 * --version was printed to out (exit 0); -EINVAL with the message in err.
 */
int
cli_parse(int argc, char **argv, struct cli *cli, FILE *out, char *err,
	  size_t errlen);

/*
 * The configuration for this run: defaults, the file (-c FILE, or
 * /etc/barod/barod.conf when present), the command line over it, the
 * default output, resolved and validated; an option that the source
 * does not act on is refused.  0 or -errno with the message in err.
 */
int
cli_load_config(const struct cli *cli, struct config *c, char *err,
		size_t errlen);

/* The command line laid over c (config_defaults and a file already
 * there), without the file and the final checks: for the tests. */
int
cli_apply(const struct cli *cli, struct config *c, char *err, size_t errlen);

#endif
