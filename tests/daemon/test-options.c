/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The option table (src/daemon/config/options.c) against what is generated from
 * it and what documents it: barod(8) lists exactly its long options,
 * barod.conf(5) and the installed sample exactly its keys; the command
 * line through cli_parse and cli_load_config (malformed input, one source
 * only, options the source does not use); --check-config's printout
 * loads back to itself.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "options.h"
#include "test-files.h"
#include "test-util.h"

static char tmpdir[256];

/* ---- the documentation ------------------------------------------- */

/* A set of names, small and linear. */
struct names {
	char name[128][48];
	char extra[128][48];	/* per name: a metavar, a section */
	size_t n;
};

/* A name cut short would be compared wrongly: too long is a test error. */
static void
name_copy(char *dst, size_t len, const char *src)
{
	const size_t n = strlen(src);

	assert_true(n < len);
	memcpy(dst, src, n + 1);
}

static void
names_add(struct names *s, const char *name, const char *extra)
{
	assert_true(s->n < 128);
	name_copy(s->name[s->n], sizeof(s->name[0]), name);
	name_copy(s->extra[s->n], sizeof(s->extra[0]), extra ? extra : "");
	s->n++;
}

static ssize_t
names_find(const struct names *s, const char *name, const char *extra)
{
	for (size_t i = 0; i < s->n; i++) {
		if (strcmp(s->name[i], name) == 0 &&
		    (!extra || strcmp(s->extra[i], extra) == 0))
			return (ssize_t)i;
	}
	return -1;
}

static char *
read_env_file(const char *var)
{
	const char *path = getenv(var);

	if (!path)
		fail_msg("%s is not set", var);
	char *text = read_file(path);
	if (!text)
		fail_msg("cannot read %s", path);
	return text;
}

/* Next line of text (NUL-terminated copy in buf), or NULL at the end. */
static const char *
next_line(const char *p, char *buf, size_t len)
{
	if (!p || !*p)
		return NULL;
	size_t n = strcspn(p, "\n");
	snprintf(buf, len, "%.*s", (int)n, p);
	return p + n + (p[n] == '\n');
}

/* barod(8)'s OPTIONS items: "*-c*, *--config* _FILE_" gives config,
 * with its short name and metavar: "c FILE". */
static void
man8_options(const char *page, struct names *out)
{
	char line[512];
	bool in = false;

	for (const char *p = page; (p = next_line(p, line, sizeof(line)));) {
		if (strncmp(line, "# ", 2) == 0)
			in = strcmp(line, "# OPTIONS") == 0;
		if (!in || strncmp(line, "*-", 2) != 0)
			continue;
		/* Without the markup: "-c, --config FILE". */
		char plain[512];
		size_t n = 0;
		for (const char *c = line; *c && n < sizeof(plain) - 1; c++) {
			if (*c != '*' && *c != '_')
				plain[n++] = *c;
		}
		plain[n] = '\0';
		char shortname = 0;
		const char *s = plain;
		if (s[1] != '-') {
			shortname = s[1];
			s = strstr(s, "--");
			assert_non_null(s);
		}
		char name[48], extra[48];
		size_t l = strcspn(s + 2, " ");
		snprintf(name, sizeof(name), "%.*s", (int)l, s + 2);
		const char *meta = s + 2 + l;
		while (*meta == ' ')
			meta++;
		snprintf(extra, sizeof(extra), "%c %s", shortname ? shortname : '-',
			 meta);
		names_add(out, name, extra);
	}
}

static bool
key_char(char c)
{
	return islower((unsigned char)c) || isdigit((unsigned char)c) ||
	       c == '_' || isupper((unsigned char)c);
}

/* barod.conf(5)'s keys by section: item lines of each "# [section]"
 * chapter, whose bold words followed by " = ", ", " or " ... " name keys;
 * a _PLACEHOLDER_ at the start of an item names a family (SIM_*). */
static void
man5_keys(const char *page, struct names *out, struct names *sections)
{
	char line[512], section[48] = "";

	for (const char *p = page; (p = next_line(p, line, sizeof(line)));) {
		if (strncmp(line, "# ", 2) == 0) {
			section[0] = '\0';
			if (line[2] == '[') {
				size_t n = strcspn(line + 3, " ]");
				snprintf(section, sizeof(section), "%.*s",
					 (int)n, line + 3);
				names_add(sections, section, line + 2);
			}
			continue;
		}
		if (!section[0] || (line[0] != '*' && line[0] != '_'))
			continue;
		if (line[0] == '_') {
			size_t n = strspn(line + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_");
			char key[48];
			snprintf(key, sizeof(key), "%.*s", (int)n - 1, line + 1);
			names_add(out, key, section);
			continue;
		}
		for (const char *c = line; (c = strchr(c, '*'));) {
			const char *w = c + 1;
			size_t n = 0;
			while (key_char(w[n]))
				n++;
			if (w[n] != '*' || n == 0) {
				c = w;
				continue;
			}
			const char *after = w + n + 1;
			if (strncmp(after, " = ", 3) == 0 ||
			    strncmp(after, ", *", 3) == 0 ||
			    strncmp(after, " ... ", 5) == 0) {
				char key[48];
				snprintf(key, sizeof(key), "%.*s", (int)n, w);
				names_add(out, key, section);
			}
			c = after;
		}
	}
}

/* A row's keys as the documentation writes them: rng_N as its first
 * and last (rng_1 ... rng_6), SIM_* as the placeholder SIM_PARAMETER. */
static int
doc_keys(const struct opt_row *r, char keys[2][48])
{
	size_t n = strlen(r->key);

	if (n > 2 && strcmp(r->key + n - 2, "_N") == 0) {
		snprintf(keys[0], 48, "%.*s%.0f", (int)(n - 1), r->key, r->lo);
		snprintf(keys[1], 48, "%.*s%.0f", (int)(n - 1), r->key, r->hi);
		return 2;
	}
	if (r->key[n - 1] == '*') {
		snprintf(keys[0], 48, "%.*sPARAMETER", (int)(n - 1), r->key);
		return 1;
	}
	snprintf(keys[0], 48, "%s", r->key);
	return 1;
}

static void
test_man8_lists_the_options(void **state)
{
	struct names man = { 0 };
	char *page = read_env_file("BAROD_MAN8");
	(void)state;

	man8_options(page, &man);
	assert_true(man.n > 10);
	size_t named = 0;
	for (size_t i = 0; i < options_count; i++) {
		const struct opt_row *r = &options_table[i];
		char extra[48];
		if (!r->name)
			continue;
		named++;
		snprintf(extra, sizeof(extra), "%c %s%s%s",
			 r->short_name ? r->short_name : '-',
			 (r->flags & OPT_OPTIONAL) ? "[" : "",
			 r->metavar ? r->metavar : "",
			 (r->flags & OPT_OPTIONAL) ? "]" : "");
		ssize_t k = names_find(&man, r->name, NULL);
		if (k < 0)
			fail_msg("barod(8) does not document --%s", r->name);
		if (strcmp(man.extra[k], extra) != 0)
			fail_msg("barod(8) has --%s as '%s', the table as '%s'",
				 r->name, man.extra[k], extra);
	}
	for (size_t k = 0; k < man.n; k++) {
		if (!options_find_name(man.name[k]))
			fail_msg("barod(8) documents --%s, which is not an "
				 "option", man.name[k]);
	}
	assert_int_equal(man.n, named);
	free(page);
}

/* doc/barod.md's option table: the long options named in the first
 * cell of each row ("| `-c`, `--config FILE` | ..."). */
static void
md_options(const char *page, struct names *out)
{
	char line[2048];

	for (const char *p = page; (p = next_line(p, line, sizeof(line)));) {
		if (strncmp(line, "| `-", 4) != 0)
			continue;
		char *end = strstr(line + 1, " | ");
		if (end)
			*end = '\0';
		for (const char *s = line; (s = strstr(s, "`--"));) {
			char name[48];
			size_t l = strspn(s + 3, "abcdefghijklmnopqrstuvwxyz"
						 "0123456789-");
			snprintf(name, sizeof(name), "%.*s", (int)l, s + 3);
			if (names_find(out, name, NULL) < 0)
				names_add(out, name, NULL);
			s += 3 + l;
		}
	}
}

/* The user's guide lists the same long options as the table, so a new
 * option cannot reach --help and barod(8) and skip doc/barod.md. */
static void
test_md_lists_the_options(void **state)
{
	struct names md = { 0 };
	char *page = read_env_file("BAROD_MD");
	(void)state;

	md_options(page, &md);
	assert_true(md.n > 10);
	size_t named = 0;
	for (size_t i = 0; i < options_count; i++) {
		const struct opt_row *r = &options_table[i];
		if (!r->name)
			continue;
		named++;
		if (names_find(&md, r->name, NULL) < 0)
			fail_msg("doc/barod.md's option table does not list "
				 "--%s", r->name);
	}
	for (size_t k = 0; k < md.n; k++) {
		if (!options_find_name(md.name[k]))
			fail_msg("doc/barod.md lists --%s, which is not an "
				 "option", md.name[k]);
	}
	assert_int_equal(md.n, named);
	free(page);
}

static void
test_man5_lists_the_keys(void **state)
{
	struct names man = { 0 }, sections = { 0 };
	char *page = read_env_file("BAROD_MAN5");
	(void)state;

	man5_keys(page, &man, &sections);
	size_t want = 0;
	for (size_t i = 0; i < options_count; i++) {
		const struct opt_row *r = &options_table[i];
		char keys[2][48];
		if (!r->section)
			continue;
		int n = doc_keys(r, keys);
		for (int k = 0; k < n; k++, want++) {
			if (names_find(&man, keys[k], r->section) < 0)
				fail_msg("barod.conf(5) does not document %s in "
					 "[%s]", keys[k], r->section);
		}
		/* The section's chapter: [output NAME] for named ones. */
		char head[64];
		snprintf(head, sizeof(head), "[%s%s]", r->section,
			 options_section_named(r->section) ? " NAME" : "");
		if (names_find(&sections, r->section, head) < 0)
			fail_msg("barod.conf(5) has no chapter %s", head);
	}
	for (size_t k = 0; k < man.n; k++) {
		bool found = false;
		for (size_t i = 0; i < options_count && !found; i++) {
			const struct opt_row *r = &options_table[i];
			char keys[2][48];
			if (!r->section || strcmp(r->section, man.extra[k]) != 0)
				continue;
			int n = doc_keys(r, keys);
			for (int j = 0; j < n; j++)
				found |= strcmp(keys[j], man.name[k]) == 0;
		}
		if (!found)
			fail_msg("barod.conf(5) documents %s in [%s], which the "
				 "table does not have", man.name[k],
				 man.extra[k]);
	}
	assert_int_equal(man.n, want);
	for (size_t k = 0; k < sections.n; k++) {
		if (!options_section_known(sections.name[k]) &&
		    !options_section_named(sections.name[k]))
			fail_msg("barod.conf(5) has a chapter for [%s], which "
				 "is not a section", sections.name[k]);
	}
	free(page);
}

/* "The installed file is a commented sample showing every key": each
 * key appears as "key = " or "#key = " under its section's header. */
static void
test_sample_shows_every_key(void **state)
{
	char *text = read_env_file("BAROD_SAMPLE_CONF");
	char line[512];
	struct names seen = { 0 };
	(void)state;

	char section[48] = "";
	for (const char *p = text; (p = next_line(p, line, sizeof(line)));) {
		const char *l = line[0] == '#' ? line + 1 : line;
		if (l[0] == '[') {
			size_t n = strcspn(l + 1, " :]");
			snprintf(section, sizeof(section), "%.*s", (int)n, l + 1);
			continue;
		}
		size_t n = 0;
		while (key_char(l[n]))
			n++;
		if (n && strncmp(l + n, " = ", 3) == 0 && section[0]) {
			char key[48];
			snprintf(key, sizeof(key), "%.*s", (int)n, l);
			const struct opt_row *r = options_find_key(section, key);
			if (!r)
				fail_msg("barod.conf shows %s in [%s], which is "
					 "not a key", key, section);
			names_add(&seen, r->key, section);
		}
	}
	for (size_t i = 0; i < options_count; i++) {
		const struct opt_row *r = &options_table[i];
		if (r->section && names_find(&seen, r->key, r->section) < 0)
			fail_msg("barod.conf does not show %s in [%s]", r->key,
				 r->section);
	}
	free(text);
}

/* ---- the command line -------------------------------------------- */

struct run {
	int rc;
	char err[512];
	char out[8192];
	struct cli cli;
};

/* cli_parse on a NULL-terminated list (argv[0] added). */
static void
parse(struct run *r, const char *const *args)
{
	char *argv[64] = { (char *)"barod" };
	int argc = 1;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	for (; args[argc - 1]; argc++)
		argv[argc] = (char *)args[argc - 1];
	argv[argc] = NULL;
	r->err[0] = '\0';
	r->rc = cli_parse(argc, argv, &r->cli, out, r->err, sizeof(r->err));
	fclose(out);
	snprintf(r->out, sizeof(r->out), "%s", buf ? buf : "");
	free(buf);
}

#define PARSE(r, ...) parse(r, (const char *const[]){ __VA_ARGS__, NULL })

static void
expect_error(const char *const *args, const char *msg)
{
	struct run r;

	parse(&r, args);
	if (r.rc != -EINVAL || !strstr(r.err, msg))
		fail_msg("%s ...: rc %d, '%s', expected '%s'", args[0], r.rc,
			 r.err, msg);
}

#define EXPECT_ERROR(msg, ...) \
	expect_error((const char *const[]){ __VA_ARGS__, NULL }, msg)

static void
test_cli_malformed(void **state)
{
	struct run r;
	(void)state;

	EXPECT_ERROR("unknown option '--frobnicate' (see --help)", "--sim",
		     "--frobnicate");
	EXPECT_ERROR("unknown option '-x' (see --help)", "-x");
	/* The closest name, as baroctl hints. */
	EXPECT_ERROR("unknown option '--smi' (did you mean --sim? see --help)",
		     "--smi");
	EXPECT_ERROR("unknown option '--hom-alt=5' (did you mean --home-alt?",
		     "--sim", "--hom-alt=5");
	EXPECT_ERROR("unknown option '--sitl-jsno' (did you mean --sitl-json?",
		     "--sitl-jsno");
	EXPECT_ERROR("option '--sysid' needs a value", "--sysid");
	EXPECT_ERROR("option '-o' needs a value", "-o");
	EXPECT_ERROR("unexpected argument 'extra'", "--sim", "extra");
	EXPECT_ERROR("--write FILE goes with --probe", "--write", "x.conf");
	EXPECT_ERROR("--sysid: '0' is not 1..255", "--sysid", "0");
	EXPECT_ERROR("--sysid: '256' is not 1..255", "--sysid=256");
	EXPECT_ERROR("--compid: '' is not 1..255", "--compid", "");
	EXPECT_ERROR("--seed: '-1' is not 0..4294967295", "--seed", "-1");
	EXPECT_ERROR("--seed: '4294967296'", "--seed", "4294967296");
	EXPECT_ERROR("--home-alt: 'high' is not metres AMSL", "--home-alt",
		     "high");
	EXPECT_ERROR("--home-alt: 'nan'", "--home-alt", "nan");
	EXPECT_ERROR("--atmosphere: 'mars' is not simple, 1976 or water",
		     "--atmosphere", "mars");
	EXPECT_ERROR("--profile: unknown profile", "--profile", "hover");
	EXPECT_ERROR("-p: unknown parameter 'SIM_BARO_GLICH'", "-p",
		     "SIM_BARO_GLICH=1");
	EXPECT_ERROR("--param: ", "--param", "SIM_BARO_RND");
	EXPECT_ERROR("--rng: '7=0': expected N=INSTANCE with N 1..6", "--rng",
		     "7=0");
	EXPECT_ERROR("--rng: '1=3' is not a baro instance 0..2 or none",
		     "--rng", "1=3");
	EXPECT_ERROR("--sitl-instances: '9' is not 1..8", "--sitl-instances",
		     "9");
	EXPECT_ERROR("--px4-instances: '0' is not 1..8", "--px4-instances",
		     "0");
	EXPECT_ERROR("--sitl-json-proxy: 'nowhere' is not HOST:PORT",
		     "--sitl-json-proxy", "nowhere");
	EXPECT_ERROR("--px4-sim-proxy: 'h:0' is not HOST:PORT",
		     "--px4-sim-proxy", "h:0");
	EXPECT_ERROR("--duration: '0' is not a positive number of seconds",
		     "--duration", "0");
	EXPECT_ERROR("--duration: '1e10'", "--duration", "1e10");
	EXPECT_ERROR("-o: output 'tcpout:1:2': expected udp:HOST:PORT", "-o",
		     "tcpout:1:2");
	/* pymavlink reads udp:0.0.0.0:PORT as "listen"; barod would send
	 * to nowhere: refused with what to type instead. */
	EXPECT_ERROR("-o: output 'udp:0.0.0.0:14550': barod sends there, and "
		     "0.0.0.0 is nowhere to send to; to listen on port 14550 "
		     "and answer whoever sends (what MAVProxy makes of "
		     "udp:0.0.0.0:14550), use udpin:0.0.0.0:14550 or "
		     "udp-server:0.0.0.0:14550", "-o", "udp:0.0.0.0:14550");
	EXPECT_ERROR("use udpin:[::]:14550", "-o", "udpout:[::]:14550");
	EXPECT_ERROR("use udpin:0:9", "-o", "udp:0:9");
	EXPECT_ERROR("-o: output 'tcp:0.0.0.0:5760': barod connects there, "
		     "and 0.0.0.0 is nowhere to connect to; to listen on port "
		     "5760 for a GCS to connect, use tcpin:0.0.0.0:5760", "-o",
		     "tcp:0.0.0.0:5760");
	EXPECT_ERROR("'msp-udp:0.0.0.0:5760': 0.0.0.0 is nowhere to send to: "
		     "give the flight controller's address", "-o",
		     "msp-udp:0.0.0.0:5760");
	EXPECT_ERROR("--output: more than 8 outputs", "-o", "udp:h:1", "-o",
		     "udp:h:2", "-o", "udp:h:3", "-o", "udp:h:4", "-o",
		     "udp:h:5", "-o", "udp:h:6", "-o", "udp:h:7", "-o",
		     "udp:h:8", "--output", "udp:h:9");

	/* Every value the table checks is checked on the command line: a
	 * value far too long for any of them is refused, naming the
	 * option as written. */
	char junk[600];
	memset(junk, 'x', sizeof(junk) - 1);
	junk[sizeof(junk) - 1] = '\0';
	for (size_t i = 0; i < options_count; i++) {
		const struct opt_row *o = &options_table[i];
		char opt[700], want[80];
		if (!o->name || !o->metavar ||
		    ((o->flags & OPT_PROCESS) && !o->expect))
			continue;	/* a path or a file, taken as it is */
		snprintf(opt, sizeof(opt), "--%s=%s", o->name, junk);
		snprintf(want, sizeof(want), "--%s: ", o->name);
		PARSE(&r, opt);
		if (r.rc != -EINVAL || strncmp(r.err, want, strlen(want)) != 0)
			fail_msg("--%s with junk: rc %d, '%s'", o->name, r.rc,
				 r.err);
	}

	/* Accepted forms. */
	PARSE(&r, "-vv", "-v", "--probe", "3", "--log-prefix", "--duration",
	      "2.5", "--scenario", "s.scn", "-c", "x.conf", "--check-config");
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.cli.verbosity, 3);
	assert_true(r.cli.probe);
	assert_string_equal(r.cli.probe_bus, "3");
	assert_true(r.cli.log_prefix);
	assert_true(r.cli.duration_s == 2.5);
	assert_string_equal(r.cli.scenario, "s.scn");
	assert_string_equal(r.cli.config_path, "x.conf");
	assert_true(r.cli.config_required);
	assert_true(r.cli.check_config);
	PARSE(&r, "--probe=/dev/i2c-1", "-q");
	assert_int_equal(r.rc, 0);
	assert_string_equal(r.cli.probe_bus, "/dev/i2c-1");
	assert_int_equal(r.cli.verbosity, -1);
	PARSE(&r, "--probe", "-v");
	assert_int_equal(r.rc, 0);
	assert_null(r.cli.probe_bus);
	/* Parsed again from the start (getopt's state is reset). */
	PARSE(&r, "--sim", "--sysid", "9");
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.cli.n_settings, 1);
	assert_null(r.cli.probe_bus);
}

static void
test_cli_help_version(void **state)
{
	struct run r;
	(void)state;

	/* --help from the table: every long option, and it stops there. */
	PARSE(&r, "--help", "--frobnicate");
	assert_int_equal(r.rc, 1);
	assert_non_null(strstr(r.out, "Usage: barod [OPTIONS]"));
	for (size_t i = 0; i < options_count; i++) {
		char want[64];
		if (!options_table[i].name)
			continue;
		snprintf(want, sizeof(want), "--%s", options_table[i].name);
		if (!strstr(r.out, want))
			fail_msg("--help does not show %s", want);
	}
	assert_non_null(strstr(r.out, "  -p, --param NAME=VALUE   set a "));
	assert_non_null(strstr(r.out, "      --probe [BUS]        find "));
	PARSE(&r, "-V");
	assert_int_equal(r.rc, 1);
	assert_true(strncmp(r.out, "barod ", 6) == 0);
	/* An error before --help wins. */
	PARSE(&r, "--frobnicate", "--help");
	assert_int_equal(r.rc, -EINVAL);
}

static const char *const source_flags[][2] = {
	{ "--sim", NULL },
	{ "--sitl-json", NULL },
	{ "--sitl-json-proxy", "127.0.0.1:9002" },
	{ "--px4-sim", NULL },
	{ "--px4-sim-proxy", "127.0.0.1:4600" },
	{ "--hardware", NULL },
};
#define N_FLAGS (sizeof(source_flags) / sizeof(source_flags[0]))

static void
test_cli_one_source(void **state)
{
	struct run r;
	(void)state;

	for (size_t a = 0; a < N_FLAGS; a++) {
		for (size_t b = 0; b < N_FLAGS; b++) {
			const char *args[8];
			int n = 0;
			args[n++] = source_flags[a][0];
			if (source_flags[a][1])
				args[n++] = source_flags[a][1];
			args[n++] = source_flags[b][0];
			if (source_flags[b][1])
				args[n++] = source_flags[b][1];
			args[n] = NULL;
			parse(&r, args);
			if (a == b) {
				assert_int_equal(r.rc, 0);
				continue;
			}
			char want[128];
			snprintf(want, sizeof(want), "%s and %s: one source only",
				 source_flags[a][0], source_flags[b][0]);
			if (r.rc != -EINVAL || strcmp(r.err, want) != 0)
				fail_msg("%s %s: rc %d, '%s'", source_flags[a][0],
					 source_flags[b][0], r.rc, r.err);
		}
	}
}

/* A key file of n bytes with the permission bits mode. */
static void
write_key(const char *path, size_t n, mode_t mode)
{
	char bytes[40];

	memset(bytes, 0x5a, sizeof(bytes));
	assert_true(n < sizeof(bytes));
	bytes[n] = '\0';
	write_file(path, bytes);
	assert_int_equal(chmod(path, mode), 0);
}

/* cli_load_config with the file text given (written to a temporary
 * file) and the arguments. */
static int
load_with(struct config *c, const char *file, const char *const *args,
	  char *err, size_t errlen)
{
	struct run r;
	char path[320];
	const char *argv[40] = { "-c", path };
	int n = 2;

	snprintf(path, sizeof(path), "%s/test.conf", tmpdir);
	write_file(path, file);
	for (; *args; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	parse(&r, argv);
	if (r.rc != 0)
		fail_msg("parse: %s", r.err);
	err[0] = '\0';
	return cli_load_config(&r.cli, c, err, errlen);
}

#define LOAD(c, file, err, ...) \
	load_with(c, file, (const char *const[]){ __VA_ARGS__, NULL }, err, \
		  sizeof(err))

/* Every option of the table on every source: accepted where it acts,
 * refused with the sources it acts on everywhere else. */
static void
test_cli_sources(void **state)
{
	static const struct {
		const char *name, *value;
	} values[] = {
		{ "profile", "climb:1" },      { "truth", "t.csv" },
		{ "home-alt", "10" },	       { "atmosphere", "simple" },
		{ "ardupilot", "4.5" },
		{ "throttle", "0.5" },
		{ "seed", "5" },	       { "param", "SIM_BARO_RND=0.5" },
		{ "sitl-instances", "2" },     { "rng", "2=1" },
		{ "px4-instances", "2" },      { "sysid", "7" },
		{ "px4-speed-factor", "2" },
		{ "compid", "8" },	       { "control", "none" },
		{ "busy-poll", "20" },
		{ "record", "r.csv" },	       { "output", "udp:127.0.0.1:9" },
		{ "remote-faults", "no" },
	};
	char key_path[320];
	/* A sensor for the hardware source; the others leave it unused. */
	const char *file = "[sensor a]\nbus = 1\naddress = 0x76\n";
	struct config c;
	char err[512];
	size_t tried = 0;
	(void)state;

	/* A key barod takes: 32 bytes, owner only. */
	snprintf(key_path, sizeof(key_path), "%s/sources.key", tmpdir);
	write_key(key_path, 32, 0600);
	for (size_t i = 0; i < options_count; i++) {
		const struct opt_row *o = &options_table[i];
		if (!o->name || (o->flags & (OPT_PROCESS | OPT_SOURCE)))
			continue;
		const char *value = NULL;
		for (size_t k = 0; k < sizeof(values) / sizeof(values[0]); k++) {
			if (strcmp(values[k].name, o->name) == 0)
				value = values[k].value;
		}
		if (strcmp(o->name, "signing-key") == 0)
			value = key_path;
		if (!value)
			fail_msg("no test value for --%s", o->name);
		for (size_t s = 0; s < N_FLAGS; s++, tried++) {
			char opt[64];
			snprintf(opt, sizeof(opt), "--%s", o->name);
			const char *args[6] = { source_flags[s][0] };
			int n = 1;
			if (source_flags[s][1])
				args[n++] = source_flags[s][1];
			args[n++] = opt;
			args[n++] = value;
			args[n] = NULL;
			int rc = load_with(&c, file, args, err, sizeof(err));
			const struct opt_row *alias =
				o->alias ? options_find_name(o->alias) : NULL;
			bool acts = options_acts_on(o, c.source) ||
				    (alias && options_acts_on(alias, c.source));
			if (acts && rc != 0)
				fail_msg("%s %s %s: %s", args[0], opt, value, err);
			if (!acts && (rc != -EINVAL ||
				      !strstr(err, "not used by source")))
				fail_msg("%s %s %s accepted: rc %d '%s'", args[0],
					 opt, value, rc, err);
		}
	}
	assert_true(tried > 50);

	/* The message says what it is for. */
	assert_int_equal(LOAD(&c, "", err, "--hardware", "-p",
			      "SIM_BARO_RND=1"), -EINVAL);
	assert_string_equal(err, "-p: not used by source hardware (only by sim, "
				 "sitl-json, sitl-json-proxy, px4-sim, "
				 "px4-sim-proxy)");
	/* The source may come from the file. */
	assert_int_equal(LOAD(&c, "[barod]\nsource = sim\n", err, "--rng",
			      "1=0"), -EINVAL);
	assert_string_equal(err, "--rng: not used by source sim (only by "
				 "sitl-json, sitl-json-proxy)");
	/* ... and the command line's wins over it. */
	assert_int_equal(LOAD(&c, "[barod]\nsource = sim\n", err, "--sitl-json",
			      "--rng", "1=2"), 0);
	assert_int_equal(c.sitl.rng[0], 2);
}

/* MAVProxy's and pymavlink's udpin:/udpout: (mavutil.mavlink_connection)
 * on -o and as [output] types; --check-config prints barod's names. */
static void
test_mavproxy_spellings(void **state)
{
	struct config c;
	char err[512];
	(void)state;

	assert_int_equal(LOAD(&c, "", err, "--sim", "-o", "udpin:0.0.0.0:14550",
			      "-o", "udpout:127.0.0.1:14551"), 0);
	assert_int_equal(c.n_outputs, 2);
	assert_int_equal(c.outputs[0].type, OUTPUT_UDP_SERVER);
	assert_string_equal(c.outputs[0].address, "0.0.0.0:14550");
	assert_int_equal(c.outputs[1].type, OUTPUT_UDP_CLIENT);
	assert_string_equal(c.outputs[1].address, "127.0.0.1:14551");

	assert_int_equal(LOAD(&c, "[output gcs]\ntype = udpin\n"
				  "address = 0.0.0.0:14550\n"
				  "[output qgc]\ntype = udpout\n"
				  "address = 10.0.0.2:14550\n", err, "--sim"), 0);
	assert_int_equal(c.outputs[0].type, OUTPUT_UDP_SERVER);
	assert_int_equal(c.outputs[1].type, OUTPUT_UDP_CLIENT);
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	options_write_config(out, &c);
	fclose(out);
	assert_non_null(strstr(buf, "[output gcs]\ntype = udp-server\n"));
	assert_non_null(strstr(buf, "[output qgc]\ntype = udp-client\n"));
	free(buf);

	/* A client with nowhere to send, from the file. */
	assert_int_equal(LOAD(&c, "[output gcs]\ntype = udp-client\n"
				  "address = 0.0.0.0:14550\n", err, "--sim"),
			 -EINVAL);
	assert_non_null(strstr(err, "[output gcs]: type = udp-client sends to "
				    "its address, and 0.0.0.0:14550 is nowhere"));
	assert_non_null(strstr(err, "use type = udp-server"));
	assert_int_equal(LOAD(&c, "[output gcs]\ntype = udpout\n"
				  "address = [::]:14550\n", err, "--sim"),
			 -EINVAL);
	/* Listening there is fine, and so is any address to send to. */
	assert_int_equal(LOAD(&c, "", err, "--sim", "-o", "udp-server:[::]:1",
			      "-o", "udp:0.0.0.1:2", "-o", "udp:localhost:3"),
			 0);
	/* And TCP: tcp: connects, tcpin: listens; as types, tcp and tcpin
	 * or barod's tcp-client and tcp-server. */
	assert_int_equal(LOAD(&c, "", err, "--sim", "-o", "tcpin:0.0.0.0:5760",
			      "-o", "tcp:127.0.0.1:5761"), 0);
	assert_int_equal(c.n_outputs, 2);
	assert_int_equal(c.outputs[0].type, OUTPUT_TCP_SERVER);
	assert_int_equal(c.outputs[1].type, OUTPUT_TCP_CLIENT);
	assert_string_equal(c.outputs[1].address, "127.0.0.1:5761");
	assert_int_equal(LOAD(&c, "[output gcs]\ntype = tcpin\n"
				  "address = [::]:5760\n"
				  "[output up]\ntype = tcp\n"
				  "address = 10.0.0.2:5760\n"
				  "[output b]\ntype = tcp-server\n"
				  "address = 127.0.0.1:5762\n", err, "--sim"), 0);
	assert_int_equal(c.outputs[0].type, OUTPUT_TCP_SERVER);
	assert_int_equal(c.outputs[1].type, OUTPUT_TCP_CLIENT);
	assert_int_equal(c.outputs[2].type, OUTPUT_TCP_SERVER);
	buf = NULL;
	out = open_memstream(&buf, &len);
	options_write_config(out, &c);
	fclose(out);
	assert_non_null(strstr(buf, "[output gcs]\ntype = tcp-server\n"));
	assert_non_null(strstr(buf, "[output up]\ntype = tcp-client\n"));
	free(buf);
	/* Still no guessing at spellings nobody uses: the list of those
	 * that work. */
	assert_int_equal(LOAD(&c, "[output gcs]\ntype = tcpout\n"
				  "address = 1.2.3.4:5\n", err, "--sim"),
			 -EINVAL);
	assert_non_null(strstr(err, "tcp-client, tcp-server or msp (or udpout, "
				    "udpin, tcp, tcpin)"));
}

static void
test_cli_over_file(void **state)
{
	struct config c;
	char err[512];
	(void)state;

	/* --sitl-instances stands for --px4-instances in the PX4 modes,
	 * unless that is given too. */
	assert_int_equal(LOAD(&c, "", err, "--px4-sim", "--sitl-instances",
			      "3"), 0);
	assert_int_equal(c.px4.instances, 3);
	assert_int_equal(LOAD(&c, "", err, "--px4-sim-proxy", "h:1",
			      "--px4-instances", "2", "--sitl-instances", "3"),
			 0);
	assert_int_equal(c.px4.instances, 2);
	assert_string_equal(c.px4.upstream, "h:1");
	assert_int_equal(LOAD(&c, "", err, "--sitl-json", "--sitl-instances",
			      "4"), 0);
	assert_int_equal(c.sitl.instances, 4);
	assert_int_equal(c.px4.instances, 1);
	assert_int_equal(LOAD(&c, "", err, "--sitl-json-proxy", "h:9",
			      "--sitl-instances", "4"), 0);
	assert_string_equal(c.sitl.upstream, "h:9");

	/* The command line over the file, the file over the defaults. */
	const char *file = "[barod]\nsource = sim\nsysid = 5\ncompid = 6\n"
			   "[sim]\nseed = 9\nSIM_BARO_RND = 0.25\n"
			   "[output a]\ntype = udp-client\naddress = h:1\n"
			   "[output b]\ntype = serial\ndevice = /dev/x\n";
	assert_int_equal(LOAD(&c, file, err, "--sysid", "7", "-p",
			      "SIM_BARO_GLITCH=3"), 0);
	assert_int_equal(c.sysid, 7);
	assert_int_equal(c.compid, 6);
	assert_int_equal(c.seed, 9);
	assert_float_exact(c.params.baro[0].rnd, 0.25f);
	assert_float_exact(c.params.baro[0].glitch, 3.0f);
	assert_int_equal(c.n_outputs, 2);
	assert_true(c.home_alt_m == 0.0);
	/* -o replaces the file's outputs as a whole. */
	assert_int_equal(LOAD(&c, file, err, "-o", "udp:127.0.0.1:9", "-o",
			      "msp-tcp:127.0.0.1:5760"), 0);
	assert_int_equal(c.n_outputs, 2);
	assert_string_equal(c.outputs[0].name, "udp:127.0.0.1:9");
	assert_int_equal(c.outputs[1].type, OUTPUT_MSP_TCP);
	/* No output anywhere: the ground-station default. */
	assert_int_equal(LOAD(&c, "[barod]\nsource = sim\n", err, "--seed",
			      "2"), 0);
	assert_int_equal(c.n_outputs, 1);
	assert_string_equal(c.outputs[0].address, "127.0.0.1:14550");
	/* The file's errors, then the final checks. */
	assert_int_equal(LOAD(&c, "[barod]\nsysid = 0\n", err, "--sim"),
			 -EINVAL);
	assert_non_null(strstr(err, "test.conf:2: sysid = '0': expected "
				    "1..255"));
	assert_int_equal(LOAD(&c, "", err, "--seed", "2"), -EINVAL);
	assert_non_null(strstr(err, "no source"));
}

/* ---- generated from the table ------------------------------------ */

static void
test_unknown_key_lists(void **state)
{
	struct config c;
	char err[1024];
	(void)state;

	config_defaults(&c);
	assert_int_equal(config_load_string(&c, "[barod]\nfoo = 1\n", "t.conf",
					    err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "t.conf:2: unknown key 'foo' in [barod]; "
				    "valid keys are source, sysid, compid, "));
	/* Each key of the section, as the table has it. */
	for (size_t i = 0; i < options_count; i++) {
		const struct opt_row *r = &options_table[i];
		char want[64];
		if (!r->section || strcmp(r->section, "barod") != 0)
			continue;
		snprintf(want, sizeof(want), " %s%s", r->key,
			 i + 1 < options_count &&
					 options_table[i + 1].section &&
					 strcmp(options_table[i + 1].section,
						"barod") == 0
				 ? ","
				 : "");
		if (!strstr(err, want))
			fail_msg("'%s' not in: %s", want, err);
	}
	config_defaults(&c);
	assert_int_equal(config_load_string(&c, "[sitl]\nrng_0 = 1\n", "t.conf",
					    err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "t.conf:2: unknown key 'rng_0' in [sitl]; "
				    "valid keys are instances, "));
	assert_non_null(strstr(err, ", rng_1..rng_6"));
	config_defaults(&c);
	assert_int_equal(config_load_string(&c, "[sim]\nrnd = 1\n", "t.conf",
					    err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "valid keys are profile, throttle, truth, "
				    "home_alt, ardupilot, atmosphere, seed, "
				    "SIM_*"));
	config_defaults(&c);
	assert_int_equal(config_load_string(&c, "[output:x]\nfoo = 1\n",
					    "t.conf", err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "unknown key 'foo' in [output x]; valid "
				    "keys are type, address, device, baud, "));
	config_defaults(&c);
	assert_int_equal(config_load_string(&c, "[output]\ntype = serial\n",
					    "t.conf", err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "t.conf:2: unknown section [output] (barod, "
				 "sim, sitl, px4, mavlink, faults, output NAME, "
				 "sensor NAME)");
	/* Every key of every section, and nothing more, is accepted. */
	for (size_t i = 0; i < options_count; i++) {
		const struct opt_row *r = &options_table[i];
		if (!r->section)
			continue;
		assert_ptr_equal(options_find_key(r->section, r->key[0] == 'r' &&
						      strchr(r->key, 'N')
						      ? "rng_6" : r->key), r);
	}
	assert_null(options_find_key("sitl", "rng_7"));
	assert_null(options_find_key("sitl", "rng_"));
	assert_null(options_find_key("px4", "rng_1"));
	assert_null(options_find_key("sim", "SIM"));
}

/* --check-config's printout is a configuration file that loads to the
 * same settings (printed again, the same text). */
static void
roundtrip(const char *text, const char *const *args)
{
	struct config a, b;
	char err[512];
	char *one = NULL, *two = NULL;
	size_t l1 = 0, l2 = 0;

	if (load_with(&a, text, args, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	FILE *f = open_memstream(&one, &l1);
	options_write_config(f, &a);
	fclose(f);
	if (load_with(&b, one, (const char *const[]){ NULL }, err,
		      sizeof(err)) != 0)
		fail_msg("%s in:\n%s", err, one);
	f = open_memstream(&two, &l2);
	options_write_config(f, &b);
	fclose(f);
	if (strcmp(one, two) != 0)
		fail_msg("printed:\n%s\nreloaded and printed:\n%s", one, two);
	free(one);
	free(two);
}

static void
test_check_config_roundtrip(void **state)
{
	struct config c;
	char err[512], *buf = NULL;
	size_t len = 0;
	(void)state;

	roundtrip("[barod]\nsource = sim\nsysid = 42\ncontrol = /tmp/x\n"
		  "control_mode = 0660\nrecord = /tmp/r.csv\n"
		  "[sim]\nprofile = sine:2.5:10:3\nhome_alt = 584.25\n"
		  "atmosphere = simple\nseed = 7\nSIM_BARO_COUNT = 3\n"
		  "SIM_BAR3_GLITCH = -4.5\nSIM_TEMP_BFACTOR = 1.2\n"
		  "[mavlink]\nprotocol = 1\nheartbeat_hz = 0.5\n"
		  "[output gcs]\ntype = udp-client\naddress = 127.0.0.1:14550\n"
		  "scaled_pressure_hz = 5\n"
		  "[output fc]\ntype = serial\ndevice = /dev/ttyAMA0\n"
		  "baud = 921600\n"
		  "[output m]\ntype = msp\ndevice = /dev/s0\n"
		  "instances = 2=0, 0=3\nrate_hz = 20\n"
		  "[output t]\ntype = msp\naddress = 127.0.0.1:5763\n"
		  "transport = udp\n",
		  (const char *const[]){ NULL });
	roundtrip("[barod]\nsource = sitl-json-proxy\n"
		  "[sitl]\ninstances = 3\nbind = ::1\nport = 9102\n"
		  "upstream = 127.0.0.1:9202\nrng_1 = none\nrng_3 = 2\n"
		  "[output m]\ntype = msp\naddress = h:5760\nvehicle = 2\n",
		  (const char *const[]){ NULL });
	roundtrip("", (const char *const[]){ "--px4-sim", "--px4-instances",
					     "2", "--profile", "climb:1", NULL });
	roundtrip("[barod]\nsource = px4-sim\n[px4]\nhome_lat = -33.5\n"
		  "home_lon = 151.25\nhil_baros = 2\nlockstep_timeout_ms = 20\n",
		  (const char *const[]){ NULL });
	roundtrip("[barod]\nsource = hardware\n"
		  "[sensor baro0]\nbus = 1\naddress = 0x76\ndriver = bmp388\n"
		  "osr_p = 16\nosr_t = 2\niir = 4\nrate_hz = 25\nmode = forced\n"
		  "instance = 2\ndrdy = c:GPIO17\ndrdy_active = low\n"
		  "drdy_drive = open-drain\npower = c:GPIO27\n"
		  "power_off_ms = 250\n"
		  "[sensor kernel]\niio = /sys/bus/iio/devices/iio:device0\n",
		  (const char *const[]){ NULL });

	/* What the source does not use is listed, not printed. */
	assert_int_equal(LOAD(&c, "[barod]\nsource = sim\n[px4]\nport = 4600\n"
				  "[sitl]\nrng_2 = 1\n[sensor a]\nbus = 1\n"
				  "address = 0x76\n", err, "--seed", "3"), 0);
	assert_int_equal(options_unused(&c, err, sizeof(err)), 3);
	assert_string_equal(err, "[sitl] rng_1..rng_6, [px4] port, [sensor a]");
	FILE *f = open_memstream(&buf, &len);
	options_check_report(f, &c);
	fclose(f);
	const char head[] = "configuration OK: source sim, 1 output(s), sysid 1 "
			    "compid 191, home 0.00 m AMSL, atmosphere 1976\n"
			    "# not used by source sim: [sitl] rng_1..rng_6, "
			    "[px4] port, [sensor a]\n\n[barod]\nsource = sim\n";
	assert_true(strncmp(buf, head, strlen(head)) == 0);
	assert_non_null(strstr(buf, "\n[sim]\n"));
	assert_null(strstr(buf, "\n[px4]"));
	assert_null(strstr(buf, "\n[sitl]"));
	assert_null(strstr(buf, "\n[sensor"));
	assert_non_null(strstr(buf, "seed = 3\n"));
	free(buf);
	/* Nothing unused: nothing said. */
	assert_int_equal(LOAD(&c, "[barod]\nsource = px4-sim\n[px4]\n"
				  "port = 4600\n", err, "--seed", "3"), 0);
	assert_int_equal(options_unused(&c, err, sizeof(err)), 0);
}

/* The key file is refused unless it is 32 bytes that only its owner may
 * read, and signing needs MAVLink 2. */
static void
test_signing_key_file(void **state)
{
	struct config c;
	char err[512], path[320];
	(void)state;

	snprintf(path, sizeof(path), "%s/k.key", tmpdir);
	write_key(path, 32, 0600);
	assert_int_equal(LOAD(&c, "", err, "--sim", "--signing-key", path), 0);
	assert_true(c.signing);
	assert_int_equal(c.signing_key[0], 0x5a);
	assert_int_equal(c.signing_key[31], 0x5a);

	write_key(path, 32, 0640);
	assert_int_equal(LOAD(&c, "", err, "--sim", "--signing-key", path),
			 -EINVAL);
	assert_non_null(strstr(err, "mode 0640"));
	assert_non_null(strstr(err, "chmod 600"));
	write_key(path, 32, 0604);
	assert_int_equal(LOAD(&c, "", err, "--sim", "--signing-key", path),
			 -EINVAL);
	write_key(path, 31, 0600);
	assert_int_equal(LOAD(&c, "", err, "--sim", "--signing-key", path),
			 -EINVAL);
	assert_non_null(strstr(err, "fewer than 32"));
	write_key(path, 33, 0600);
	assert_int_equal(LOAD(&c, "", err, "--sim", "--signing-key", path),
			 -EINVAL);
	assert_non_null(strstr(err, "more than 32"));
	write_key(path, 32, 0600);
	assert_int_equal(LOAD(&c, "[mavlink]\nprotocol = 1\n", err, "--sim",
			      "--signing-key", path),
			 -EINVAL);
	assert_non_null(strstr(err, "MAVLink 2"));
	assert_int_equal(LOAD(&c, "", err, "--sim", "--signing-key",
			      "/nonexistent/k.key"),
			 -EINVAL);
	assert_non_null(strstr(err, "/nonexistent/k.key"));
	/* No key: no signing. */
	assert_int_equal(LOAD(&c, "", err, "--sim"), 0);
	assert_false(c.signing);
}

/* Remote fault injection: on by default when simulated, off on real
 * sensors, either way when set. */
static void
test_remote_faults_default(void **state)
{
	const char *hw = "[sensor a]\nbus = 1\naddress = 0x76\n";
	struct config c;
	char err[512];
	(void)state;

	assert_int_equal(LOAD(&c, "", err, "--sim"), 0);
	assert_true(config_remote_faults(&c));
	assert_int_equal(LOAD(&c, "", err, "--sitl-json"), 0);
	assert_true(config_remote_faults(&c));
	assert_int_equal(LOAD(&c, hw, err, "--hardware"), 0);
	assert_false(config_remote_faults(&c));
	assert_int_equal(LOAD(&c, "[faults]\nremote = yes\n", err,
			      "--hardware"),
			 -EINVAL);	/* no [sensor]: refused for that */
	char file[256];
	snprintf(file, sizeof(file), "%s[faults]\nremote = yes\n", hw);
	assert_int_equal(LOAD(&c, file, err, "--hardware"), 0);
	assert_true(config_remote_faults(&c));
	assert_int_equal(LOAD(&c, "", err, "--sim", "--remote-faults", "no"),
			 0);
	assert_false(config_remote_faults(&c));
	assert_int_equal(LOAD(&c, "[faults]\nremote = maybe\n", err, "--sim"),
			 -EINVAL);
	assert_non_null(strstr(err, "auto, yes or no"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_man8_lists_the_options),
		cmocka_unit_test(test_man5_lists_the_keys),
		cmocka_unit_test(test_md_lists_the_options),
		cmocka_unit_test(test_sample_shows_every_key),
		cmocka_unit_test(test_cli_malformed),
		cmocka_unit_test(test_cli_help_version),
		cmocka_unit_test(test_cli_one_source),
		cmocka_unit_test(test_cli_sources),
		cmocka_unit_test(test_cli_over_file),
		cmocka_unit_test(test_mavproxy_spellings),
		cmocka_unit_test(test_unknown_key_lists),
		cmocka_unit_test(test_check_config_roundtrip),
		cmocka_unit_test(test_signing_key_file),
		cmocka_unit_test(test_remote_faults_default),
	};

	temp_dir_make(tmpdir, sizeof(tmpdir), "barod-options");
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	temp_dir_remove(tmpdir);
	return rc;
}
