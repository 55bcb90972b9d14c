/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Sources: where samples come from.  Each source mode is one ops table in
 * its own file here and one line in registry.c; the loop, the control
 * commands, SIGHUP, the start-up line and the exit report call it through
 * these ops and never ask which mode runs.  A source keeps its state to
 * itself (allocated by open) and hands every sample to env->emit.
 *
 * A source knows nothing of struct daemon: what it may use is its
 * environment below (as a sink has sink_env), so a source is written and
 * tested against this header alone.  The simulated sources step their
 * vehicles through vehicle.h, on the same environment.
 *
 * Every op but open and close may be NULL: the source has nothing to do
 * there.
 */
#ifndef BAROD_SOURCE_H
#define BAROD_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "baro-sample.h"
#include "baro-sitl.h"
#include "config.h"
#include "emit.h"
#include "event-loop.h"
#include "log.h"
#include "truth-trace.h"

/* barod's timer: the tick op runs once per step of this many ms. */
#define TICK_MS 10u

/* What every source may use, owned by whoever opens it (the daemon
 * builds one, daemon-source.c; a test builds its own).  It outlives the
 * source, which may keep the pointer. */
struct source_env {
	/* The running configuration: replaced in place by a reload, so
	 * after the reload op the source reads next through it. */
	const struct config *cfg;
	/* The truth trace of cfg->truth_path, n == 0 without one (the
	 * simulated sources then follow cfg->profile). */
	const struct truth_trace *trace;
	struct logger *log;
	struct event_loop *loop;	/* the source's fds are watched here */
	/* Vehicle 0's AP_Baro_SITL emulator: the one SIM_* parameters, the
	 * GCS, baroctl, scenarios and injections act on (SOURCE_EMULATED
	 * sources; vehicle.h's vehicles 1.. follow its parameters). */
	struct baro_sitl *sim;
	/* Vehicle 0's samples made so far, per baro instance (the
	 * [BARO_MAX_INSTANCES] counters emit keeps), for status lines. */
	const uint64_t *samples;

	/* Every sample of every source: s may be changed in place (the
	 * fault overlay); returns whether it was published (false:
	 * withheld), so a source that needs its latest published sample
	 * keeps it from here. */
	bool (*emit)(void *user, const struct emit_ctx *ctx,
		     struct baro_sample *s);
	/* The simulation clock reached now_ms: vehicle 0's physics time,
	 * or in hardware mode the time since start.  Scenarios step on it
	 * (and may change sim's parameters before the next sample). */
	void (*clock)(void *user, uint64_t now_ms);
	/* Vehicle v's simulation starts again at physics time 0, before
	 * its emulator does: for vehicle 0 the clock and the scenario from
	 * t = 0 (sim's parameters back to the scenario's start), and the
	 * outputs' rate schedules for v. */
	void (*restart)(void *user, unsigned vehicle);
	void *user;			/* the callbacks' */
};

enum source_flags {
	/* The AP_Baro_SITL emulator makes the samples: SIM_* parameters,
	 * the scenarios' emulator lines and the emulator injections act. */
	SOURCE_EMULATED = 1u << 0,
};

struct source_ops {
	const char *name;		/* config_source_name()'s */
	unsigned flags;			/* enum source_flags */
	/* Start; *state is the source's own.  On failure err says why and
	 * close is still called (it undoes any part). */
	int (*open)(const struct source_env *env, void **state, char *err,
		    size_t errlen);
	void (*close)(const struct source_env *env, void *state);
	/* Each TICK_MS step of barod's timer, ticks its count since start
	 * (the first step is 1); last: the last step of this wake-up's
	 * catch-up. */
	void (*tick)(const struct source_env *env, void *state,
		     uint64_t ticks, bool last);
	/* After each batch of events: what the source queued leaves. */
	void (*flush)(const struct source_env *env, void *state);
	/* SIGHUP, before next replaces *env->cfg. */
	void (*reload)(const struct source_env *env, void *state,
		       const struct config *next);
	void (*status)(const struct source_env *env, void *state, FILE *out);
	void (*report)(const struct source_env *env, void *state);
	/* For STATUS=: sensors, and those publishing.  NULL: every emulated
	 * baro counts as both. */
	void (*health)(const struct source_env *env, const void *state,
		       unsigned *sensors, unsigned *healthy);
	/* What the source waits for before its first sample ("waiting for
	 * ArduPilot (servo packets on UDP 0.0.0.0:9002)"), the text of its
	 * "waiting" log line; false once the peer has appeared (STATUS=
	 * then shows the counters). */
	bool (*waiting)(const struct source_env *env, const void *state,
			char *buf, size_t len);
	/* The start-up line's "N ... baro(s), ..." part. */
	void (*describe)(const struct source_env *env, const void *state,
			 char *buf, size_t len);
};

/* The product's sources (registry.c); NULL for a mode with none. */
const struct source_ops *source_find(enum config_source mode);

#endif
