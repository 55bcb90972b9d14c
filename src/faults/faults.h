/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The fault overlay: per-instance sensor faults applied to each sample
 * after its source (the emulator, or a real chip in hardware mode).  They
 * are PX4's failure-injection types for a barometer (MAVLink FAILURE_TYPE;
 * PX4's meanings from its sensor_baro_sim module and failure_injection
 * library, doc/scenario.md):
 *
 *   off           every sample withheld (PX4: "stop publishing")
 *   stuck         the last sample read before the fault, pressure AND
 *                 temperature, repeated with each new sample's time: PX4
 *                 calls a baro stale only when both stop changing
 *   wrong         a sample that still looks reasonable: the pressure of
 *                 the altitude offset_m above the reading's own, in the
 *                 overlay's atmosphere (a glitch)
 *   delayed       each sample published delay_ms after it was read, in
 *                 order, stamped with that later time (the data is old,
 *                 its label is not: what a consumer cannot correct)
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
#include "baro-sitl.h"
#include "sim-random.h"

enum fault_kind {
	FAULT_NONE,
	FAULT_GARBAGE,
	FAULT_SLOW,
	FAULT_INTERMITTENT,
	FAULT_OFF,
	FAULT_STUCK,
	FAULT_WRONG,
	FAULT_DELAYED,
	FAULT_KINDS,	/* how many; fault_kind_name() has a name for each */
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

/* FAULT_WRONG's offset, either way: far beyond any glitch worth
 * testing, well inside every atmosphere's domain from a real reading. */
#define FAULT_WRONG_MAX_M 10000.0f

/* FAULT_DELAYED: up to this delay, with room for this many samples in
 * flight (490 ms at 260 Hz, faster than any supported chip). */
#define FAULT_DELAY_MAX_MS 1000u
#define FAULT_DELAY_SLOTS 128u

/* Most samples one fault_overlay_process() call may release. */
#define FAULT_RELEASE_MAX FAULT_DELAY_SLOTS

struct fault_spec {
	enum fault_kind kind;
	uint32_t every;		/* FAULT_SLOW only; 0 otherwise */
	float offset_m;		/* FAULT_WRONG only; 0 otherwise */
	uint32_t delay_ms;	/* FAULT_DELAYED only; 0 otherwise */
};

struct fault_state {
	struct fault_spec spec;
	struct sim_random rng;
	uint32_t count;		/* FAULT_SLOW: position in the cycle */
	bool on;		/* FAULT_INTERMITTENT: this burst publishes */
	uint32_t left;		/* FAULT_INTERMITTENT: samples left in it */
	bool have_held;		/* FAULT_STUCK: held is set */
	struct baro_sample held;
	/* FAULT_DELAYED: samples read and not yet due, oldest first at
	 * head, a ring of n. */
	uint16_t head, n;
	struct baro_sample queue[FAULT_DELAY_SLOTS];
};

struct fault_overlay {
	uint32_t seed;
	/* FAULT_WRONG moves pressures through this model. */
	enum baro_sitl_atmosphere atmosphere;
	struct fault_state inst[BARO_MAX_INSTANCES];
	/* The last sample read per instance (before any fault): what
	 * FAULT_STUCK holds when it starts. */
	struct baro_sample last[BARO_MAX_INSTANCES];
	bool have_last[BARO_MAX_INSTANCES];
};

/* No faults; seed chooses the random streams; the 1976 atmosphere. */
void
fault_overlay_init(struct fault_overlay *ov, uint32_t seed);

/* The model FAULT_WRONG uses from now on (the daemon's configured one). */
void
fault_overlay_set_atmosphere(struct fault_overlay *ov,
			     enum baro_sitl_atmosphere atmosphere);

/*
 * Start spec on instance (FAULT_NONE clears it), from the beginning of its
 * cycle even if the same fault was already active; samples a delay still
 * held are dropped (published later they would go back in time).
 * -EINVAL for an instance out of range, a FAULT_SLOW `every` outside
 * FAULT_SLOW_MIN..FAULT_SLOW_MAX, a FAULT_WRONG offset that is not finite
 * or beyond FAULT_WRONG_MAX_M, or a FAULT_DELAYED delay over
 * FAULT_DELAY_MAX_MS; nothing changes then.
 */
int
fault_overlay_set(struct fault_overlay *ov, unsigned instance,
		  struct fault_spec spec);

/* Every instance back to normal publication. */
void
fault_overlay_clear(struct fault_overlay *ov);

/*
 * One sample s read at s->time_us through its instance's fault: writes
 * the samples to publish now, in order, to out (at most max) and returns
 * how many.  Without a delay that is s itself, changed or not, or
 * nothing; FAULT_DELAYED releases every held sample due by s->time_us
 * (up to max; the rest at the next call) and keeps s.
 */
unsigned
fault_overlay_process(struct fault_overlay *ov, const struct baro_sample *s,
		      struct baro_sample *out, unsigned max);

/*
 * fault_overlay_process() for a source that publishes at most one sample
 * per sample read: *s becomes the one to publish; returns whether there
 * is one.  A dropped sample must not be passed on.
 */
bool
fault_overlay_apply(struct fault_overlay *ov, struct baro_sample *s);

/* Which field of struct fault_spec carries a kind's value. */
enum fault_value {
	FAULT_VALUE_NONE,	/* the kind takes no value */
	FAULT_VALUE_EVERY,	/* .every, a whole number of samples */
	FAULT_VALUE_OFFSET_M,	/* .offset_m, metres */
	FAULT_VALUE_DELAY_MS,	/* .delay_ms, milliseconds */
};

/*
 * The one table of the kinds' facts, a row per kind (faults.c, designated
 * by the enum): its name as messages, events and status print it, and its
 * value with the range fault_overlay_set() accepts.  Validation, equality,
 * formatting and fault_spec_make() read it, so a kind's value is
 * described once; what a kind does to a sample is the one switch in
 * fault_overlay_process(), which has no default, so a kind added to the
 * enum and not handled there does not compile (-Wswitch, -Werror).
 */
struct fault_kind_info {
	const char *name;	/* "none", "garbage", ... */
	enum fault_value value;
	double min, max;	/* the value's range; both 0 without one */
	const char *unit;	/* after the value in fault_spec_format():
				 * "", " m", " ms" */
};

/* kind's row, or NULL for a value out of the enum. */
const struct fault_kind_info *
fault_kind_info(enum fault_kind kind);

/* kind's name; "none" for a value out of the enum. */
const char *
fault_kind_name(enum fault_kind kind);

/* kind with v in the field its row names (v ignored by kinds without a
 * value; not range-checked: fault_overlay_set() does that). */
struct fault_spec
fault_spec_make(enum fault_kind kind, double v);

/* spec's value, from the field its kind's row names; 0 without one. */
double
fault_spec_value(struct fault_spec spec);

bool
fault_spec_equal(struct fault_spec a, struct fault_spec b);

/* "slow 10", "wrong 15 m", "delayed 300 ms", "garbage", "none": as
 * snprintf(). */
int
fault_spec_format(struct fault_spec spec, char *buf, size_t len);

#endif
