/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The control socket without a socket: the bytes a baroctl client sends,
 * in pieces the input sizes as recv() would hand them over, go through
 * the socket's own line framing (control-lines.c) into daemon_command()
 * on a real struct daemon (the --sim source, no outputs but one that
 * catches what a GCS would hear).  Every reply must be whole lines ending
 * in exactly one "ok" or "error" line, within the reply bound; whatever
 * reaches the GCS must be a PARAM_VALUE or STATUSTEXT that tells the
 * truth (fuzz-gcs.h); the parameter table must stay within its ranges.
 *
 * The daemon is set up once per process and its mutable state put back
 * before each input, so an input means the same on every run.  "scenario
 * load NAME" reads NAME from a directory of two scenarios made at start;
 * a NAME with a '/' is not run (the fuzzer must not read the machine's
 * files, nor block on a FIFO).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "control-lines.h"
#include "daemon.h"
#include "fuzz-gcs.h"
#include "fuzz.h"
#include "source.h"

#define REPLY_MAX (CONTROL_MAX_REPLY + 1)

struct harness {
	struct daemon d;
	struct sim_baro_params baro0[BARO_MAX_INSTANCES];
	struct baro_sitl sim0;
	struct fault_overlay overlay0;
	struct sink gcs;
	char dir[64];
	FILE *out;
	char reply[REPLY_MAX];
};

static struct harness *h;

static const char *const scenarios[][2] = {
	{ "a", "at 1s set SIM_BARO_GLITCH 15 for 5s\nat 2s freeze 1 for 2s\n"
	       "at 3s ramp SIM_BARO_DRIFT 0 to 0.5 over 20s\nat 2min end\n" },
	{ "b", "at 1s px4 wrong 0 35 for 1s\nat 2s px4 slow 1 4 for 1s\n"
	       "at 3s px4 7 2 for 250ms\n" },
};

/* The GCS's side: what the daemon announces must be true. */
static void
gcs_message(struct sink *k, uint32_t msgid, const uint8_t *payload)
{
	(void)k;
	fuzz_check_gcs(msgid, payload, &h->d.sim.params);
}

static void
gcs_close(struct sink *k)
{
	(void)k;
}

static const struct sink_ops gcs_ops = {
	.name = "fuzz-gcs",
	.message = gcs_message,
	.close = gcs_close,
};

/* The scenario directory goes with the process. */
static void
cleanup(void)
{
	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
		char path[128];
		snprintf(path, sizeof(path), "%s/%s", h->dir, scenarios[i][0]);
		(void)unlink(path);
	}
	(void)rmdir(h->dir);
}

static void
setup(void)
{
	char err[256];
	struct daemon *d;

	h = calloc(1, sizeof(*h));
	if (!h)
		abort();
	d = &h->d;
	log_init(&d->log, LOG_LEVEL_ERR);
	config_defaults(&d->cfg);
	d->cfg.source = CONFIG_SOURCE_SIM;
	d->cfg.params.baro_count = 2;
	config_resolve(&d->cfg);
	d->source = source_find(d->cfg.source);
	if (!d->source || event_loop_init(&d->loop) < 0)
		abort();
	baro_sitl_init(&d->sim, &d->cfg.params, d->cfg.atmosphere,
		       d->cfg.seed);
	baro_sitl_set_ardupilot(&d->sim, d->cfg.ardupilot);
	fault_overlay_init(&d->overlay, d->cfg.seed);
	/* What daemon_param_changed reads the values through, as main()
	 * sets it (the GCS's side is fuzz-param-service's). */
	d->ps = (struct param_service){ .sysid = d->cfg.sysid,
					.compid = d->cfg.compid,
					.params = &d->sim.params };
	sinks_init(&d->sinks, &(struct sink_env){ .cfg = &d->cfg,
						  .log = &d->log,
						  .loop = &d->loop });
	h->gcs = (struct sink){ .ops = &gcs_ops, .env = &d->sinks.env };
	daemon_source_env(d);
	if (sinks_add(&d->sinks, &h->gcs) < 0 ||
	    d->source->open(&d->source_env, &d->source_state, err,
			    sizeof(err)) < 0)
		abort();
	h->sim0 = d->sim;
	h->overlay0 = d->overlay;

	snprintf(h->dir, sizeof(h->dir), "/tmp/fuzz-control-XXXXXX");
	if (!mkdtemp(h->dir))
		abort();
	atexit(cleanup);
	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
		char path[128];
		snprintf(path, sizeof(path), "%s/%s", h->dir, scenarios[i][0]);
		FILE *f = fopen(path, "w");
		if (!f || fputs(scenarios[i][1], f) < 0 || fclose(f) != 0)
			abort();
	}
	h->out = fmemopen(h->reply, sizeof(h->reply), "w");
	if (!h->out)
		abort();
	setvbuf(h->out, NULL, _IONBF, 0);
}

/* Back to the state setup() left: the emulator and its parameters, the
 * overlay, no scenario, the counters. */
static void
reset(void)
{
	struct daemon *d = &h->d;

	daemon_scenario_stop(d);
	d->sim = h->sim0;
	d->overlay = h->overlay0;
	memset(d->samples, 0, sizeof(d->samples));
	memset(d->withheld, 0, sizeof(d->withheld));
}

/* A reply is lines, none with a NUL byte, the last one alone "ok..." or
 * "error...". */
static void
check_reply(const char *r, size_t n)
{
	size_t start = 0;

	if (n == 0 || n >= REPLY_MAX - 1 || r[n - 1] != '\n' ||
	    memchr(r, '\0', n))
		abort();
	for (size_t i = 0; i < n; i++) {
		if (r[i] != '\n')
			continue;
		const char *l = r + start;
		bool final = strncmp(l, "ok", 2) == 0 ||
			     strncmp(l, "error", 5) == 0;
		if (final != (i == n - 1))
			abort();
		start = i + 1;
	}
}

/* "scenario load NAME": NAME in the harness's directory, or not run. */
static bool
rewrite(const char *text, char *buf, size_t len)
{
	char copy[CONTROL_MAX_LINE + 1];
	char *argv[4], *save = NULL;
	int argc = 0;

	snprintf(copy, sizeof(copy), "%s", text);
	for (char *t = strtok_r(copy, " \t", &save); t && argc < 4;
	     t = strtok_r(NULL, " \t", &save))
		argv[argc++] = t;
	if (argc != 3 || strcmp(argv[0], "scenario") != 0 ||
	    strcmp(argv[1], "load") != 0) {
		snprintf(buf, len, "%s", text);
		return true;
	}
	if (strchr(argv[2], '/'))
		return false;
	snprintf(buf, len, "scenario load %s/%s", h->dir, argv[2]);
	return true;
}

static bool
on_line(void *user, const char *text)
{
	char line[CONTROL_MAX_LINE + 128];

	(void)user;
	if (strlen(text) >= CONTROL_MAX_LINE)
		abort();
	if (!rewrite(text, line, sizeof(line)))
		return true;
	rewind(h->out);
	daemon_command(&h->d, line, h->out);
	long n = ftell(h->out);
	if (n < 0)
		abort();
	check_reply(h->reply, (size_t)n);
	fuzz_check_params(&h->d.sim.params);
	return true;
}

static bool
on_refuse(void *user, const char *text, size_t len)
{
	(void)user;
	check_reply(text, len);
	return true;
}

static const struct control_line_ops ops = {
	.line = on_line,
	.refuse = on_refuse,
};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char in[CONTROL_MAX_LINE + 1];
	size_t have = 0;

	if (!h)
		setup();
	reset();
	for (size_t i = 0, k = 0; i < size; i += k) {
		/* recv() fills at most what is free in the buffer. */
		k = fuzz_chunk(data, size, i);
		if (k > CONTROL_MAX_LINE - have)
			k = CONTROL_MAX_LINE - have;
		memcpy(in + have, data + i, k);
		have += k;
		enum control_lines_result r =
			control_lines_take(in, &have, &ops, NULL);
		if (have > CONTROL_MAX_LINE ||
		    (r == CONTROL_LINES_TOO_LONG) != (have == CONTROL_MAX_LINE))
			abort();
		if (r == CONTROL_LINES_TOO_LONG)
			break;	/* the socket hangs up */
	}
	return 0;
}
