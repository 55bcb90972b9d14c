/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The command line: getopt over the option table, and the file and the
 * command line merged into one configuration. */
#include "options.h"
#include "signing-key.h"

#include "util-strings.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* getopt_long's list and short-option string, from the table. */
struct getopt_tables {
	struct option longopts[CONFIG_ROWS_MAX + 1];
	char shortopts[64];
};

static void
build_getopt(struct getopt_tables *t)
{
	size_t n = 0, s = 0;

	t->shortopts[s++] = ':';	/* a missing value is ':' */
	for (size_t i = 0; i < options_count; i++) {
		const struct opt_row *r = &options_table[i];
		if (!r->name)
			continue;
		int has = !r->metavar		      ? no_argument
			  : (r->flags & OPT_OPTIONAL) ? optional_argument
						      : required_argument;
		/* The row's index, past every character a short option
		 * can be. */
		t->longopts[n++] = (struct option){ r->name, has, NULL,
						    256 + (int)i };
		if (r->short_name) {
			t->shortopts[s++] = r->short_name;
			if (r->metavar)
				t->shortopts[s++] = ':';
		}
	}
	t->longopts[n] = (struct option){ NULL, 0, NULL, 0 };
	t->shortopts[s] = '\0';
}

static const struct opt_row *
row_of_short(int c)
{
	for (size_t i = 0; i < options_count; i++) {
		if (options_table[i].short_name == c)
			return &options_table[i];
	}
	return NULL;
}

/* Add one option (row r, value v) to cli, checked on the side config
 * the command line builds up as it goes (so -o counts to 8 outputs, and
 * a bad value is reported before anything is read). */
static int
take(struct cli *cli, struct config *scratch, const struct opt_row *r,
     const char *value, const char *as_typed, char *err, size_t errlen)
{
	const bool source = r->flags & OPT_SOURCE;
	struct cli_setting *s;

	if (r->flags & OPT_PROCESS)
		return options_set(r, cli, NULL, value, as_typed, err, errlen);
	if (source && cli->source.row && cli->source.row != r)
		return str_errorf(err, errlen, -EINVAL, "--%s and --%s: one "
				  "source only", cli->source.row->name, r->name);
	if (!source && cli->n_settings == CLI_MAX_SETTINGS)
		return str_errorf(err, errlen, -E2BIG, "more than %d options",
				  CLI_MAX_SETTINGS);
	if (options_set(r, scratch, NULL, value, as_typed, err, errlen) < 0)
		return -EINVAL;
	s = source ? &cli->source : &cli->settings[cli->n_settings++];
	*s = (struct cli_setting){ r, value, "" };
	snprintf(s->as_typed, sizeof(s->as_typed), "%s", as_typed);
	return 0;
}

/* "unknown option '--smi' (did you mean --sim? ...)": the closest long
 * option within two edits, as baroctl and baro-replay hint. */
static int
unknown_option(const char *typed, char *err, size_t errlen)
{
	const char *best = NULL;
	size_t best_d = 3;
	char word[64];

	if (strncmp(typed, "--", 2) == 0) {
		snprintf(word, sizeof(word), "%s", typed + 2);
		word[strcspn(word, "=")] = '\0';
		for (size_t i = 0; i < options_count; i++) {
			const char *name = options_table[i].name;
			size_t d = name ? str_edit_distance(word, name, false)
					: SIZE_MAX;
			if (d < best_d) {
				best_d = d;
				best = name;
			}
		}
	}
	if (best)
		return str_errorf(err, errlen, -EINVAL, "unknown option '%s' "
				  "(did you mean --%s? see --help)", typed,
				  best);
	return str_errorf(err, errlen, -EINVAL,
			  "unknown option '%s' (see --help)", typed);
}

int
cli_parse(int argc, char **argv, struct cli *cli, FILE *out, char *err,
	  size_t errlen)
{
	struct getopt_tables t;
	struct config *scratch = malloc(sizeof(*scratch));
	int c, rc = 0;

	if (!scratch)
		return str_errorf(err, errlen, -ENOMEM, "out of memory");
	config_defaults(scratch);
	memset(cli, 0, sizeof(*cli));
	build_getopt(&t);
	opterr = 0;
	optind = 0;	/* GNU: start over, also for a second parse */
	while (rc == 0 &&
	       (c = getopt_long(argc, argv, t.shortopts, t.longopts, NULL)) !=
		       -1) {
		const struct opt_row *r =
			c >= 256 ? &options_table[c - 256] : row_of_short(c);
		if (c == ':') {
			rc = str_errorf(err, errlen, -EINVAL,
					"option '%s' needs a value",
					argv[optind - 1]);
			break;
		}
		if (!r || c == '?') {
			rc = unknown_option(argv[optind - 1], err, errlen);
			break;
		}
		/* getopt takes only --probe=BUS; --probe BUS too. */
		if ((r->flags & OPT_OPTIONAL) && optarg == NULL &&
		    optind < argc && argv[optind][0] != '-')
			optarg = argv[optind++];
		/* Messages name the option as it was written. */
		char as_typed[sizeof(cli->source.as_typed)];
		if (c >= 256)
			snprintf(as_typed, sizeof(as_typed), "--%s", r->name);
		else
			snprintf(as_typed, sizeof(as_typed), "-%c", c);
		rc = take(cli, scratch, r, optarg, as_typed, err, errlen);
		if (rc == 0 && (r->flags & OPT_EXIT))
			break;
	}
	free(scratch);
	if (rc < 0)
		return rc;
	if (cli->help) {
		options_usage(out);
		return 1;
	}
	if (cli->version) {
		fprintf(out, "barod %s\n", BAROD_VERSION);
		return 1;
	}
	if (optind < argc)
		return str_errorf(err, errlen, -EINVAL,
				  "unexpected argument '%s'", argv[optind]);
	if (cli->probe_write && !cli->probe)
		return str_errorf(err, errlen, -EINVAL,
				  "--write FILE goes with --probe: barod "
				  "--probe --write %s", cli->probe_write);
	return 0;
}

/* The row a setting acts through for source s: itself, or what it
 * stands for there (--sitl-instances in the PX4 modes); NULL when the
 * source has no use for it. */
static const struct opt_row *
acting_row(const struct cli *cli, const struct opt_row *r,
	   enum config_source s)
{
	if (s == CONFIG_SOURCE_NONE || options_acts_on(r, s))
		return r;
	if (!r->alias)
		return NULL;
	const struct opt_row *a = options_find_name(r->alias);
	if (!a || !options_acts_on(a, s))
		return NULL;
	/* Given itself, the real option wins. */
	for (size_t i = 0; i < cli->n_settings; i++) {
		if (cli->settings[i].row == a)
			return r;
	}
	return a;
}

static const char *
getenv_const(const char *name)
{
	return getenv(name);
}

int
cli_apply(const struct cli *cli, struct config *c, char *err, size_t errlen)
{
	char what[160];
	int rc;

	if (cli->source.row &&
	    (rc = options_set(cli->source.row, c, NULL, cli->source.value,
			      cli->source.as_typed, err, errlen)) < 0)
		return rc;
	/* What cannot act is refused: an option for another source. */
	for (size_t i = 0; i < cli->n_settings; i++) {
		const struct cli_setting *s = &cli->settings[i];
		if (acting_row(cli, s->row, c->source))
			continue;
		options_sources_text(s->row->sources, what, sizeof(what));
		return str_errorf(err, errlen, -EINVAL,
				  "%s: not used by source %s (only by %s)",
				  s->as_typed, config_source_name(c->source),
				  what);
	}
	/* PX4's environment, as PX4's own simulators read it: above the
	 * file, below the options. */
	if ((rc = options_apply_env(c, getenv_const, err, errlen)) < 0)
		return rc;
	/* -o replaces the file's outputs, as a whole. */
	for (size_t i = 0; i < cli->n_settings; i++) {
		const struct opt_row *r = cli->settings[i].row;
		if (r->flags & OPT_LIST)
			memset((char *)c + r->offset, 0, r->size);
	}
	for (size_t i = 0; i < cli->n_settings; i++) {
		const struct cli_setting *s = &cli->settings[i];
		const struct opt_row *r = acting_row(cli, s->row, c->source);
		if ((rc = options_set(r, c, NULL, s->value, s->as_typed, err,
				      errlen)) < 0)
			return rc;
		/* s->as_typed lives as long as cli: the daemon's. */
		options_note_origin(r, c, s->as_typed);
	}
	return 0;
}

int
cli_load_config(const struct cli *cli, struct config *c, char *err,
		size_t errlen)
{
	config_defaults(c);
	const char *path = cli->config_path ? cli->config_path
					    : CONFIG_DEFAULT_PATH;
	if (cli->config_required || access(path, F_OK) == 0) {
		int rc = config_load_file(c, path, err, errlen);
		if (rc < 0)
			return rc;
	}
	int rc = cli_apply(cli, c, err, errlen);
	if (rc < 0)
		return rc;
	/* The ground-station convention: QGroundControl, MAVProxy and
	 * mavlink-router listen on 14550 with no setup. */
	if (c->n_outputs == 0) {
		struct config_output *o = &c->outputs[c->n_outputs++];
		config_output_defaults(o);
		strcpy(o->name, "gcs");
		o->type = OUTPUT_UDP_CLIENT;
		strcpy(o->address, "127.0.0.1:14550");
	}
	config_resolve(c);
	int rc2 = config_validate(c, err, errlen);
	if (rc2 < 0)
		return rc2;
	/* With the configuration, so --check-config and a reload refuse
	 * a key barod could not use. */
	c->signing = false;
	if (c->signing_key_path[0]) {
		if (signing_key_read(c->signing_key_path, c->signing_key, err,
				     errlen) < 0)
			return -EINVAL;
		c->signing = true;
	}
	return 0;
}
