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

/* Which faults were active at a sample: each fault's bit in the label. */
enum inject_label_bit {
	INJECT_BIT_GLITCH,		/* SIM_BARO_GLITCH != 0 */
	INJECT_BIT_DRIFT,		/* drift rate or integrated drift != 0 */
	INJECT_BIT_NOISE,		/* SIM_BARO_RND > 0 */
	INJECT_BIT_FREEZE,
	INJECT_BIT_DELAY,
	INJECT_BIT_DISABLE,		/* no samples */
	INJECT_BIT_GARBAGE,
	INJECT_BIT_SLOW,		/* most samples dropped */
	INJECT_BIT_INTERMITTENT,
	INJECT_BIT_WIND,		/* unused on recordings: no airspeed */
	/* The other sensors' faults (aux-faults.h), on the primary's rows
	 * while they run: the primary baro itself is untouched. */
	INJECT_BIT_GPS_OFFSET,
	INJECT_BIT_GPS_DRIFT,
	INJECT_BIT_GPS_FREEZE,
	INJECT_BIT_GPS_LOST,
	INJECT_BIT_ACCEL_BIAS,
	INJECT_BIT_ACCEL_NOISE,
	INJECT_BIT_OTHER_BARO,		/* a further baro faulted (any fault;
					   its own samples carry which) */
	INJECT_LABEL_BITS,		/* how many; inject_label_format()
					   has a name for each */
};

/* The label: a bitmask of those (0 = clean). */
enum inject_label {
	INJECT_GLITCH = 1u << INJECT_BIT_GLITCH,
	INJECT_DRIFT = 1u << INJECT_BIT_DRIFT,
	INJECT_NOISE = 1u << INJECT_BIT_NOISE,
	INJECT_FREEZE = 1u << INJECT_BIT_FREEZE,
	INJECT_DELAY = 1u << INJECT_BIT_DELAY,
	INJECT_DISABLE = 1u << INJECT_BIT_DISABLE,
	INJECT_GARBAGE = 1u << INJECT_BIT_GARBAGE,
	INJECT_SLOW = 1u << INJECT_BIT_SLOW,
	INJECT_INTERMITTENT = 1u << INJECT_BIT_INTERMITTENT,
	INJECT_WIND = 1u << INJECT_BIT_WIND,
	INJECT_GPS_OFFSET = 1u << INJECT_BIT_GPS_OFFSET,
	INJECT_GPS_DRIFT = 1u << INJECT_BIT_GPS_DRIFT,
	INJECT_GPS_FREEZE = 1u << INJECT_BIT_GPS_FREEZE,
	INJECT_GPS_LOST = 1u << INJECT_BIT_GPS_LOST,
	INJECT_ACCEL_BIAS = 1u << INJECT_BIT_ACCEL_BIAS,
	INJECT_ACCEL_NOISE = 1u << INJECT_BIT_ACCEL_NOISE,
	INJECT_OTHER_BARO = 1u << INJECT_BIT_OTHER_BARO,
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

/* The label of one instance's parameters, its drift so far and the
 * overlay's fault kind on it: the one place a fault becomes its label
 * bits, for the injector and for baro-drive's records
 * (record-labels.h). */
uint32_t
inject_label_for(const struct sim_baro_params *bp, float total_drift_m,
		 enum fault_kind overlay);

/* The faults active at time_us between samples (for gaps). */
uint32_t
inject_label_now(const struct inject *inj);

/* "glitch+freeze", "clean": as snprintf(). */
int
inject_label_format(uint32_t label, char *buf, size_t len);

#endif
