/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * barod's options: one table for the configuration file and the command
 * line.  Each row is one setting: its [section] and key in barod.conf(5),
 * its long option in barod(8), the metavar and help text --help prints,
 * the parser that checks its range (once, for both), where it goes in
 * struct config (or struct config_output, struct config_sensor, struct
 * cli), and the sources it acts on.  getopt's option list, --help,
 * --check-config's printout and the "unknown key" messages all come from
 * the table (options.c; its row and value types are options-values.h);
 * the command line's pass over it is options-cli.c, the file's
 * options-file.c.  Precedence: the command line over PX4's environment
 * variables (the rows with .env) over the file over the defaults.
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

#include "options-values.h"

extern const struct opt_row options_table[];
extern const size_t options_count;

/* The row of key in section ("output" and "sensor" for the named
 * sections), of a long option, or NULL; a row's index in the table. */
const struct opt_row *options_find_key(const char *section, const char *key);
const struct opt_row *options_find_name(const char *name);
size_t options_index(const struct opt_row *r);

/* The section exists in the table: barod, sim, ... (not "output" bare:
 * [output NAME] and [sensor NAME] are named, options_section_named). */
bool options_section_known(const char *section);
bool options_section_named(const char *section);

/* For messages: "barod, sim, ..., output NAME, sensor NAME"; a section's
 * keys ("valid keys are"); "sitl-json, sitl-json-proxy" for OPT_SRC
 * bits. */
void options_section_list(char *buf, size_t len);
void options_key_list(const char *section, char *buf, size_t len);
void options_sources_text(unsigned sources, char *buf, size_t len);

/*
 * Parse value into base through r.  On error msg holds the whole message:
 * from the file "KEY = 'VALUE': expected ..." (as_typed NULL), from the
 * command line "--OPTION: 'VALUE' is not ..." (as_typed: the option as
 * the user wrote it, "-p" or "--param").
 */
int options_set(const struct opt_row *r, void *base, const char *key,
		const char *value, const char *as_typed, char *msg,
		size_t len);

/* r acts on source s (by itself, not through an alias). */
bool options_acts_on(const struct opt_row *r, enum config_source s);

/*
 * The environment rows (.env) that act on c's source, for the sources
 * with CONFIG_SRC_PX4_ENV (and any row when no source is set yet); get
 * is getenv (a test passes its own); set but empty counts as unset.
 * -EINVAL with "NAME='VALUE': expected ..." in err.
 */
int options_apply_env(struct config *c, const char *(*get)(const char *),
		      char *err, size_t errlen);

/* Record that r's value came from from (a string that outlives c), when
 * the row keeps its origin (opt_row's from). */
void options_note_origin(const struct opt_row *r, struct config *c,
			 const char *from);

/* Read an INI file (or a string, name for messages) into c, on top of
 * what it holds (options-file.c).  0, or a negative errno with
 * "FILE:LINE: reason" in err. */
int config_load_file(struct config *c, const char *path, char *err,
		     size_t errlen);
int config_load_string(struct config *c, const char *text, const char *name,
		       char *err, size_t errlen);

/* --help, from the table. */
void options_usage(FILE *out);

/* The configuration as barod.conf(5) lines, for the sections and keys
 * the configured source uses: a file that loads to the same settings. */
void options_write_config(FILE *out, const struct config *c);

/* What the file gave that the configured source does not use ("[px4]
 * port, [sensor baro0]"): a file may carry sections for several modes,
 * so these are told, not refused.  The number of them. */
size_t options_unused(const struct config *c, char *buf, size_t len);

/* --check-config: the summary line, the configuration, what is unused. */
void options_check_report(FILE *out, const struct config *c);

/* ---- the command line (options-cli.c) ---------------------------- */

#define CLI_MAX_SETTINGS 128

/* A setting from the command line, kept so SIGHUP can lay it over the
 * re-read file. */
struct cli_setting {
	const struct opt_row *row;
	const char *value;	/* in argv */
	char as_typed[32];	/* "-p" or "--param", for messages */
};

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

/* Parse argv into cli; every value is checked here.  0; 1 when --help or
 * --version was printed to out (exit 0); -EINVAL with the message in err. */
int cli_parse(int argc, char **argv, struct cli *cli, FILE *out, char *err,
	      size_t errlen);

/*
 * The configuration for this run: defaults, the file (-c FILE, or
 * /etc/barod/barod.conf when present), the command line over it, the
 * default output, resolved and validated; an option that the source
 * does not act on is refused.  0 or -errno with the message in err.
 */
int cli_load_config(const struct cli *cli, struct config *c, char *err,
		    size_t errlen);

/* The command line laid over c (config_defaults and a file already
 * there), without the file and the final checks: for the tests. */
int cli_apply(const struct cli *cli, struct config *c, char *err,
	      size_t errlen);

#endif
