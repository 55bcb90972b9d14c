/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The fault overlay: per-instance sensor faults that ArduPilot's SIM_BARx_*
 * parameters cannot express, applied to each sample after the emulator.
 * They are PX4's failure-injection types for a barometer:
 *
 *   garbage       pressure and temperature replaced by random values a
 *                 real sensor could report (FAULT_GARBAGE_* ranges); the
 *                 altitude is dropped since no altitude lies behind them
 *   slow          only one sample in every N is published
 *   intermittent  bursts of published samples alternate with bursts of
 *                 dropped ones, 1 to FAULT_BURST_MAX samples each,
 *                 starting with a gap
 *
 * Deterministic: the random values come from a private glibc-random()
 * stream per instance, reseeded from the overlay's seed and the instance
 * whenever a fault is set, so the same fault set at the same point gives
 * the same samples whatever happened before.  Pure: no I/O, no clock.
 */
#ifndef BAROD_FAULTS_H
#define BAROD_FAULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "baro-sample.h"
#include "sim-random.h"

enum fault_kind {
	FAULT_NONE,
	FAULT_GARBAGE,
	FAULT_SLOW,
	FAULT_INTERMITTENT,
};

/* FAULT_SLOW publishes one sample in every `every`. */
#define FAULT_SLOW_DEFAULT 10u
#define FAULT_SLOW_MIN 2u
#define FAULT_SLOW_MAX 1000u

/* FAULT_INTERMITTENT bursts last 1 .. FAULT_BURST_MAX samples. */
#define FAULT_BURST_MAX 50u

/* FAULT_GARBAGE's ranges: a typical MEMS barometer's (300-1100 hPa,
 * -40-85 degC), so a filter's range checks pass and only its
 * consistency checks can catch the fault. */
#define FAULT_GARBAGE_PA_MIN 30000.0f
#define FAULT_GARBAGE_PA_MAX 110000.0f
#define FAULT_GARBAGE_C_MIN -40.0f
#define FAULT_GARBAGE_C_MAX 85.0f

struct fault_spec {
	enum fault_kind kind;
	uint32_t every;		/* FAULT_SLOW only; 0 otherwise */
};

struct fault_state {
	struct fault_spec spec;
	struct sim_random rng;
	uint32_t count;		/* FAULT_SLOW: position in the cycle */
	bool on;		/* FAULT_INTERMITTENT: this burst publishes */
	uint32_t left;		/* FAULT_INTERMITTENT: samples left in it */
};

struct fault_overlay {
	uint32_t seed;
	struct fault_state inst[BARO_MAX_INSTANCES];
};

/* No faults; seed chooses the random streams. */
void
fault_overlay_init(struct fault_overlay *ov, uint32_t seed);

/*
 * Start spec on instance (FAULT_NONE clears it), from the beginning of its
 * cycle even if the same fault was already active.  -EINVAL for an
 * instance out of range or a FAULT_SLOW `every` outside
 * FAULT_SLOW_MIN..FAULT_SLOW_MAX; nothing changes then.
 */
int
fault_overlay_set(struct fault_overlay *ov, unsigned instance,
		  struct fault_spec spec);

/* Every instance back to normal publication. */
void
fault_overlay_clear(struct fault_overlay *ov);

/*
 * Apply the sample's instance's fault to it.  Returns whether to publish
 * it; a dropped sample must not be passed on (it may have been changed).
 */
bool
fault_overlay_apply(struct fault_overlay *ov, struct baro_sample *s);

/* "none", "garbage", "slow", "intermittent". */
const char *
fault_kind_name(enum fault_kind kind);

bool
fault_spec_equal(struct fault_spec a, struct fault_spec b);

/* "slow 10", "garbage", "none": as snprintf(). */
int
fault_spec_format(struct fault_spec spec, char *buf, size_t len);

#endif
