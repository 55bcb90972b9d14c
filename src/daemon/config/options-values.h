/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The option table's row and its value kinds: a kind parses a value into
 * the row's field by its rule (the rules themselves are config-values.h's)
 * and prints it back, so a row is data: its kind, its field, its range.
 * The table and what is generated from it are options.h's.
 */
#ifndef BAROD_OPTIONS_VALUES_H
#define BAROD_OPTIONS_VALUES_H

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
	OPT_SOURCE = 1u << 1,	/* --sim, --hardware ...: one at most */
	/* Command line only, for this run of the process (struct cli):
	 * not a setting laid over the file again on SIGHUP. */
	OPT_PROCESS = 1u << 2,
	OPT_OPTIONAL = 1u << 3,	/* the value may be left out: --probe */
	OPT_MSP = 1u << 4,	/* [output NAME]: type = msp only */
	OPT_OUTPUT_TYPE = 1u << 5,	/* settles the MSP transport later */
	/* A list the command line replaces as a whole (-o): the first
	 * option clears what the file gave; offset is its count. */
	OPT_LIST = 1u << 6,
	OPT_EXIT = 1u << 7,	/* ends the parse (--help, --version) */
};

struct opt_row;

/* A row's own parser, for what no kind is (the command line's -v, -c):
 * 0, or -EINVAL with why set (or left empty for "expected ..."). */
typedef int (*opt_parse_fn)(const struct opt_row *r, void *base,
			    const char *value, char *why, size_t whylen);

/* What a row's field holds; the range is the row's lo..hi. */
enum opt_kind {
	OPT_CUSTOM,		/* the row's parse only */
	OPT_UINT,		/* any integer width */
	OPT_UINT_SET,		/* same; 0 (the driver's default) not printed */
	OPT_POW2,		/* a power of two; 0 not printed */
	OPT_PORT,		/* a port with room for port + N above it */
	OPT_OCTAL,		/* permissions up to hi */
	OPT_DOUBLE,		/* NaN not printed */
	OPT_RATE,		/* all (every sample) or Hz; RATE_UNSET not printed */
	OPT_SPEED_FACTOR,	/* config_parse_speed_factor */
	OPT_STRING,		/* at least lo characters that fit the field */
	OPT_ABS_PATH,		/* a string starting with / */
	OPT_ADDRESS,		/* HOST:PORT */
	OPT_CHOICE,		/* one of choices; printed as the first match */
	OPT_BAUD,
	OPT_BUS,		/* N or a /dev path */
	OPT_I2C_ADDRESS,
	OPT_FLAG,		/* no value: the bool field becomes true */
	OPT_ARG,		/* a const char * to the command line's text */
	OPT_SOURCE_NAME,	/* [barod] source */
	OPT_SOURCE_FLAG,	/* --sim ...: arg; the proxies' value: upstream */
	OPT_PROFILE,		/* a struct truth_profile */
	OPT_THROTTLE,		/* a throttle term, kept as text */
	OPT_ARDUPILOT,		/* enum baro_sitl_ardupilot */
	OPT_RNG,		/* rng_N (file), N=INSTANCE (command line) */
	OPT_SIM_PARAM,		/* SIM_NAME = V (file), SIM_NAME=V (-p) */
	OPT_OUTPUT_SPEC,	/* -o SPEC: one more output */
	OPT_MSP_MAP,		/* an MSP output's instances */
	OPT_DRIVER,
	OPT_GPIO_LINE,		/* CHIPLABEL:LINENAME; arg 1: the drdy line */
};

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
	enum opt_kind kind;
	opt_parse_fn parse;	/* OPT_CUSTOM's */
	size_t offset, size;	/* the field's place and size */
	double lo, hi;		/* range, for the kinds that take one */
	const char *expect;	/* for messages; NULL: "LO..HI" */
	const struct opt_choice *choices;	/* NULL-name terminated */
	unsigned sources;	/* OPT_SRC bits it acts on */
	unsigned flags;		/* enum opt_flags */
	int arg;		/* the kind's or the parser's argument */
	/* Printed only when the string at this offset of base is set
	 * (baud with a device, drdy_active with a drdy line); 0: always
	 * (offset 0 is a section's name, always set). */
	size_t shown_if;
	/* Outside its own sources this option stands for that one
	 * (--sitl-instances in the PX4 modes is --px4-instances). */
	const char *alias;
	/* An environment variable that sets it too, above the file and
	 * below the command line (options_apply_env), in the sources with
	 * CONFIG_SRC_PX4_ENV: PX4's variables, read as PX4 reads them. */
	const char *env;
	/* Where the value came from ("default", "barod.conf", the variable
	 * or "--option") is written to the const char * at this offset of
	 * struct config, for the start-up log; 0: not recorded.  env_from
	 * names the variable there when two share the field. */
	size_t from;
	const char *env_from;
};

/* Check value and store it at base + r->offset (base: struct config,
 * config_output, config_sensor or cli, by the row's section).  key is
 * the file's key (a pattern row such as rng_N needs it) or NULL from the
 * command line.  0, or -EINVAL with why set to a reason, or left empty
 * for the row's "expected ..." text. */
int opt_parse_value(const struct opt_row *r, void *base, const char *key,
		    const char *value, char *why, size_t whylen);

/* Print the row's "key = value" lines for base (none when unset). */
void opt_format_value(const struct opt_row *r, const void *base, FILE *out);

/* What a value of r must be, for messages: r->expect, else "LO..HI". */
const char *opt_expect(const struct opt_row *r, char *buf, size_t len);

#endif
