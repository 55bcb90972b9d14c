/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * baro-replay as a user runs it, for the suites that test it through its
 * binary (test-baro-replay-cli.c, test-baro-replay-logs.c): run it with
 * arguments, find the bundled scenarios and logs, read back the report
 * it wrote.  The binary, the scenarios and the logs come from the
 * environment meson gives the tests (BARO_REPLAY, SCENARIO_DIR,
 * LOGS_DIR).
 */
#ifndef BAROD_REPLAY_CLI_H
#define BAROD_REPLAY_CLI_H

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test-util.h"
#include "test-files.h"

/* The arguments of a report run that every case of a suite shares: no
 * plots, no wall-clock figures (the summaries stay byte-comparable),
 * no progress on stderr. */
#define REPLAY_RUN_QUIET "run", "--plots", "none", "--no-timing", "-q"

static inline const char *
replay_tool(void)
{
	const char *p = getenv("BARO_REPLAY");

	assert_non_null(p);
	return p;
}

/* SCENARIO_DIR/name.scn, the bundled scenario, in buf. */
static inline const char *
replay_scenario(const char *name, char *buf, size_t len)
{
	const char *dir = getenv("SCENARIO_DIR");

	assert_non_null(dir);
	snprintf(buf, len, "%s/%s.scn", dir, name);
	return buf;
}

/* The bundled logs' directory, or NULL (said on stderr) when this
 * checkout has none: the caller skips what needs them. */
static inline const char *
replay_logs_dir(void)
{
	const char *logs = getenv("LOGS_DIR");
	struct stat st;

	if (!logs || stat(logs, &st) < 0) {
		fprintf(stderr, "no LOGS_DIR with the bundled logs\n");
		return NULL;
	}
	return logs;
}

/*
 * One case's files: a fresh directory /tmp/PREFIX-XXXXXX, the input log
 * DIR/LOG_NAME and the report directory DIR/OUT_NAME in it (either name
 * may be NULL), and the bundled clean scenario.
 */
struct replay_case {
	char dir[256];
	char log[320];
	char out[320];
	char clean[512];
};

/* DIR/name into buf. */
static inline const char *
replay_case_path(const struct replay_case *c, char *buf, size_t len,
		 const char *name)
{
	int n = snprintf(buf, len, "%s/%s", c->dir, name);

	assert_true(n > 0 && (size_t)n < len);
	return buf;
}

static inline void
replay_case_make(struct replay_case *c, const char *prefix,
		 const char *log_name, const char *out_name)
{
	memset(c, 0, sizeof(*c));
	temp_dir_make(c->dir, sizeof(c->dir), prefix);
	if (log_name)
		replay_case_path(c, c->log, sizeof(c->log), log_name);
	if (out_name)
		replay_case_path(c, c->out, sizeof(c->out), out_name);
	replay_scenario("clean", c->clean, sizeof(c->clean));
}

/* Remove the directory and all in it. */
static inline void
replay_case_remove(const struct replay_case *c)
{
	assert_int_equal(temp_dir_remove(c->dir), 0);
}

/* baro-replay with args (its name excluded, NULL-terminated). */
static inline struct program_result
replay_argv(const char *const *args)
{
	const char *argv[64] = { "baro-replay" };
	size_t n = 1;

	for (; args[n - 1]; n++) {
		assert_true(n + 1 < sizeof(argv) / sizeof(argv[0]));
		argv[n] = args[n - 1];
	}
	argv[n] = NULL;
	return run_program(replay_tool(), argv, NULL);
}

/* baro-replay with the arguments up to the NULL: its status, stdout and
 * stderr. */
__attribute__((sentinel)) static inline struct program_result
replay(const char *arg, ...)
{
	const char *args[64];
	size_t n = 0;
	va_list ap;

	va_start(ap, arg);
	for (const char *a = arg; a; a = va_arg(ap, const char *)) {
		assert_true(n + 1 < sizeof(args) / sizeof(args[0]));
		args[n++] = a;
	}
	va_end(ap);
	args[n] = NULL;
	return replay_argv(args);
}

/* DIR/name (a report's summary.csv, cases/...): its text (free it). */
static inline char *
report_file(const char *dir, const char *name)
{
	char path[512];
	int n = snprintf(path, sizeof(path), "%s/%s", dir, name);

	assert_true(n > 0 && (size_t)n < sizeof(path));
	return read_file(path);
}

/* The number after key ("input,scenario,filter,metric,") in a
 * summary.csv text; NAN when the value is empty. */
static inline double
csv_value(const char *csv, const char *key)
{
	const char *p = strstr(csv, key);

	if (!p)
		fail_msg("no '%s' in summary.csv", key);
	p += strlen(key);
	if (*p == ',')
		return NAN;
	return strtod(p, NULL);
}

/* The value of metric for filter on scenario, whatever the input. */
static inline double
summary_value(const char *csv, const char *scenario,
		     const char *filter, const char *metric)
{
	char key[256];

	snprintf(key, sizeof(key), ",%s,%s,%s,", scenario, filter, metric);
	return csv_value(csv, key);
}

#endif
