/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * baro-replay's run: every filter over every (stream, scenario) case,
 * metrics per run, thresholds, and the report.  Streams are the logs
 * given and the synthetic one; scenarios are doc/scenario.md files whose
 * comment line
 *
 *   # replay: profile=sine:2:20:10 duration=60 logs=no
 *
 * says which truth profile and duration the synthetic stream flies for
 * it (defaults: static:10, 60 s) and whether it applies to logs.
 */
#ifndef BAROD_REPLAY_CASES_H
#define BAROD_REPLAY_CASES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "baro-sitl.h"
#include "report.h"
#include "sim-params.h"
#include "truth-profile.h"

#define REPLAY_MAX_FILTERS 32
#define REPLAY_MAX_PATHS 256
#define REPLAY_MAX_SCENARIOS 256

struct replay_config {
	const char *report_dir;
	const char *filters[REPLAY_MAX_FILTERS];	/* specs */
	size_t nfilters;	/* under test; 0: every built-in, none under
				   test (an exploratory run, exit 0) */
	bool baselines;		/* the built-ins not named run beside them */
	const char *scenario_paths[REPLAY_MAX_PATHS];	/* files or dirs */
	size_t nscenario_paths;			/* 0: the bundled set */
	/* The logs, as many as given: an archive of thousands (the
	 * strings stay the caller's). */
	const char *const *logs;
	size_t nlogs;
	const char *thresholds;			/* NULL: built-in rules */
	/* A baro-drive record (record-labels.h): the logs are of the run
	 * it drove, their faults its labels, nothing injected, judged
	 * against the run's truth.  NULL: scenarios as ever. */
	const char *labels;
	const char *channel, *reference, *format;
	uint32_t seed;
	enum report_plot plot;
	bool plot_all;		/* every case's plot, not report_case_drawn()'s */
	bool synthetic;		/* run the synthetic stream */
	bool logs_enabled;	/* run the logs */
	bool timing;		/* report time per sample */
	bool quiet;
	bool strict;		/* unchecked cases, damaged logs: exit 1 */
	/* Run only this shard's inputs: input p (the logs in the order
	 * given, then the synthetic stream) belongs to shard p % shard_n + 1.
	 * 1 of 1: all.  baro-replay merge joins the shards' reports. */
	unsigned shard_k, shard_n;
	unsigned plot_jobs;	/* gnuplot processes; 0: one per CPU */
	/* A plugin filter's time per case, in a child process: past it,
	 * or crashed, that case fails (replay_filter_run_contained). */
	double case_timeout_s;
	bool no_table;		/* no verdict table on stdout (a shard of
				   run --jobs) */
	struct sim_params params;	/* the synthetic stream's emulator */
	enum baro_sitl_ardupilot ardupilot;	/* ... and the release it
						 * reproduces */
};

void
replay_config_defaults(struct replay_config *cfg);

/* The inputs a filter reads, and those that reveal a scenario's faults
 * (its '# replay: reveal=' list): recall, latency and leakage are judged
 * only for a filter that reads one of them. */
enum replay_input {
	REPLAY_IN_BARO = 1u << 0,	/* the primary baro alone */
	REPLAY_IN_BARO2 = 1u << 1,	/* a second baro */
	REPLAY_IN_ACCEL = 1u << 2,
	REPLAY_IN_GPS = 1u << 3,
	REPLAY_IN_RANGE = 1u << 4,
};

/* A scenario file's "# replay: profile=SPEC duration=S logs=yes|no
 * baros=1-3 reveal=INPUT,..." line, with its defaults (static:10, 60 s,
 * logs, SIM_BARO_COUNT baros: 0, reveal baro) when text has none. */
struct replay_directive {
	struct truth_profile profile;
	double duration_s;	/* (0, 86400] */
	bool logs;
	unsigned reveal;	/* enum replay_input bits */
	unsigned baros;		/* 1..3, 0: SIM_BARO_COUNT */
};

/* 0, or -EINVAL with the bad item said on stderr as "PATH: ...". */
int
replay_directive_parse(const char *text, const char *path,
		       struct replay_directive *d);

/* Run everything and write the report.  Returns the exit status: 0, 1 if
 * a filter under test failed a threshold (with strict: or warned, or a
 * case was unchecked, or a log damaged or without samples), 2 for bad
 * input, 3 for I/O failure.  Baselines never change it. */
int
replay_cases_run(const struct replay_config *cfg);

/* What decides the exit status beside the filters' verdicts. */
struct replay_verdict_opts {
	bool strict;
	bool table;		/* the filter table on stdout and why a 1 on
				   stderr (not for a shard of run --jobs) */
	size_t unchecked;	/* cases whose faults did not run */
	size_t ndamaged, nempty;	/* inputs damaged, without samples */
	/* Filters named under test (-f); with none of them in res, the
	 * status is 1 and stderr says why.  0: do not check (merge). */
	size_t named;
};

/* The exit status of a report's runs: 1 when a filter under test failed
 * or none named ran (strict: or warned, or o's counts are not all 0),
 * else 0; the table of filter verdicts on stdout, why a 1 on stderr. */
int
replay_verdict(const struct report_result *res, size_t n,
	       const struct replay_verdict_opts *o);

/* The built-in filters, one per line with their descriptions. */
int
replay_list_filters(FILE *out);

/* The bundled scenario directory: installed, else the source tree's. */
const char *
replay_default_scenario_dir(void);

#endif
