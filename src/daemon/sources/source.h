/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Sources: where samples come from.  Each source mode is one ops table in
 * its own file here and one line in registry.c; the loop, the control
 * commands, SIGHUP, the start-up line and the exit report call it through
 * these ops and never ask which mode runs.  A source keeps its state to
 * itself (allocated by open) and hands every sample to daemon_emit().
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

#include "config.h"

struct daemon;

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
	int (*open)(struct daemon *d, void **state, char *err, size_t errlen);
	void (*close)(struct daemon *d, void *state);
	/* Each 10 ms step of barod's timer (d->ticks is its count); last:
	 * the last step of this wake-up's catch-up. */
	void (*tick)(struct daemon *d, void *state, bool last);
	/* After each batch of events: what the source queued leaves. */
	void (*flush)(struct daemon *d, void *state);
	/* SIGHUP, before next replaces d->cfg. */
	void (*reload)(struct daemon *d, void *state, const struct config *next);
	void (*status)(struct daemon *d, void *state, FILE *out);
	void (*report)(struct daemon *d, void *state);
	/* For STATUS=: sensors, and those publishing.  NULL: every emulated
	 * baro counts as both. */
	void (*health)(const struct daemon *d, const void *state,
		       unsigned *sensors, unsigned *healthy);
	/* What the source waits for before its first sample ("waiting for
	 * ArduPilot (servo packets on UDP 0.0.0.0:9002)"), the text of its
	 * "waiting" log line; false once the peer has appeared (STATUS=
	 * then shows the counters). */
	bool (*waiting)(const struct daemon *d, const void *state, char *buf,
			size_t len);
	/* The start-up line's "N ... baro(s), ..." part. */
	void (*describe)(const struct daemon *d, const void *state, char *buf,
			 size_t len);
};

/* The product's sources (registry.c); NULL for a mode with none. */
const struct source_ops *source_find(enum config_source mode);

/* The emulated sources' start-up description: the count, the home and
 * the model (a user comparing with ArduPilot's own baro checks them). */
void source_describe_emulated(const struct daemon *d, const void *state,
			      char *buf, size_t len);

#endif
