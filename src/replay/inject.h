/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Fault injection on a recorded baro stream, with the emulator's own
 * fault set: every recorded sample is fed to the AP_Baro_SITL emulator as
 * its truth (the altitude behind the recorded pressure, 1976 model), with
 * the emulator's noise off, so what comes out is the recording plus
 * exactly the faults ArduPilot's SIM_BARO_* parameters make (glitch,
 * drift, noise, freeze, delay, disable), and the fault overlay adds PX4's
 * garbage, slow and intermittent.  A scenario file (doc/scenario.md)
 * changes them over time; its time 0 is the stream's first sample.
 *
 * A sample no fault touches comes out bit for bit as it went in.  Every
 * output carries a label saying which faults were active, the ground
 * truth the detection metrics need.  Pure: no I/O, no clock.
 */
#ifndef BAROD_REPLAY_INJECT_H
#define BAROD_REPLAY_INJECT_H

#include <stdbool.h>
#include <stdint.h>

#include "baro-sample.h"
#include "baro-sitl.h"
#include "faults.h"
#include "scenario.h"

/* Which faults were active at a sample (a bitmask; 0 = clean). */
enum inject_label {
	INJECT_GLITCH = 1u << 0,	/* SIM_BARO_GLITCH != 0 */
	INJECT_DRIFT = 1u << 1,		/* drift rate or integrated drift != 0 */
	INJECT_NOISE = 1u << 2,		/* SIM_BARO_RND > 0 */
	INJECT_FREEZE = 1u << 3,
	INJECT_DELAY = 1u << 4,
	INJECT_DISABLE = 1u << 5,	/* no samples */
	INJECT_GARBAGE = 1u << 6,
	INJECT_SLOW = 1u << 7,		/* most samples dropped */
	INJECT_INTERMITTENT = 1u << 8,
	INJECT_WIND = 1u << 9,		/* unused on recordings: no airspeed */
	/* The other sensors' faults (aux-faults.h), on the primary's rows
	 * while they run: the primary baro itself is untouched. */
	INJECT_GPS_OFFSET = 1u << 10,
	INJECT_GPS_DRIFT = 1u << 11,
	INJECT_GPS_FREEZE = 1u << 12,
	INJECT_GPS_LOST = 1u << 13,
	INJECT_ACCEL_BIAS = 1u << 14,
	INJECT_ACCEL_NOISE = 1u << 15,
	INJECT_OTHER_BARO = 1u << 16,	/* a further baro faulted (any
					   fault; its own samples carry
					   which) */
	INJECT_LABEL_BITS = 17,
};

struct inject {
	struct baro_sitl sim;		/* instance `instance` stands for the
					   stream */
	unsigned instance;		/* 0 unless inject_init_instance() */
	struct fault_overlay overlay;
	struct scenario_run *run;	/* NULL: no scenario */
	uint64_t t0_us;			/* time of the first sample */
	bool started;
	uint32_t last_label;
	uint64_t passthrough;	/* samples too close (< 10 ms) to fault */
	/* Freeze holds the temperature with the pressure, as a stuck
	 * sensor repeats its whole reading. */
	bool have_last;
	struct baro_sample last;
};

/*
 * No faults until a scenario (or params) say otherwise.  run may be NULL;
 * otherwise it must have been set up with scenario_run_init() on a
 * scenario that outlives the injector, against inj->sim after this call
 * (use inject_start_scenario()).  seed chooses the noise and overlay
 * streams.
 */
void
inject_init(struct inject *inj, uint32_t seed);

/*
 * The same for the recording of baro instance (0..BARO_MAX_INSTANCES-1):
 * the scenario's actions on that instance (its SIM_BARn_* parameters,
 * `px4 ... instance`) act on it, the others' do not.  Instance 0 is
 * inject_init().  For the second and third baros of a recording.
 */
void
inject_init_instance(struct inject *inj, uint32_t seed, unsigned instance);

/* Attach a scenario run (storage owned by the caller). */
void
inject_start_scenario(struct inject *inj, struct scenario_run *run,
		      const struct scenario *sc);

/*
 * Feed one recorded sample.  Returns 1 with *out set (the sample with
 * faults applied) and *label the faults active, 0 when the faults drop
 * it (*label still set), or a negative errno: -EINVAL for a sample
 * earlier than the previous one or with a non-positive pressure.
 */
int
inject_sample(struct inject *inj, const struct baro_sample *in,
	      struct baro_sample *out, uint32_t *label);

/* The faults active at time_us between samples (for gaps). */
uint32_t
inject_label_now(const struct inject *inj);

/* "glitch+freeze", "clean": as snprintf(). */
int
inject_label_format(uint32_t label, char *buf, size_t len);

#endif
