/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The barometer filter interface, and the C ABI for user filters.
 *
 * A filter turns a stream of barometer samples into an altitude estimate
 * and a health verdict.  The built-in filters (range, health, lowpass,
 * median, gate, raw; comp in version 2) and filters loaded from a shared
 * object implement the same struct baro_filter (or, version 2 below,
 * struct baro_filter2), so baro-replay treats them alike.
 *
 * Writing a user filter: build a shared object that includes this header
 * (installed as <barod/baro-filter.h>; `pkg-config --cflags barod-filter`
 * gives its include path, installed or from a build tree) and exports
 *
 *     const struct baro_filter *baro_filter_entry(uint32_t abi_version);
 *
 * returning a pointer to a static struct baro_filter whose abi_version
 * is BARO_FILTER_ABI_VERSION, or NULL if it cannot serve abi_version.
 * The struct and everything it points to must stay valid until the
 * object is unloaded.  Only fixed-width types and double cross the
 * boundary; no allocation crosses it (the filter frees its own state).
 *
 * Calling contract (what the host guarantees):
 *   - create() once per run, before anything else; destroy() once after.
 *   - step() with non-decreasing now_us.  in != NULL: a sample arrived at
 *     now_us (== in->time_us).  in == NULL: no sample arrived, time has
 *     moved on to now_us (the host polls at least every 50 ms of log time
 *     while samples are missing), so timeouts can fire.
 *   - reset() puts the filter back to its state just after create(), e.g.
 *     after the autopilot rebooted.
 *   - Every call is single-threaded per state; different states may be
 *     used from different threads.
 */
#ifndef BAROD_BARO_FILTER_H
#define BAROD_BARO_FILTER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BARO_FILTER_ABI_VERSION 1u

/* struct baro_filter_input.flags */
#define BARO_FILTER_IN_HAS_TEMPERATURE (1u << 0)

/* struct baro_filter_output.flags */
/* The filter considers the sensor healthy at now_us. */
#define BARO_FILTER_OUT_HEALTHY (1u << 0)
/* This sample was rejected (not used for the estimate). */
#define BARO_FILTER_OUT_REJECTED (1u << 1)

struct baro_filter_input {
	uint64_t time_us;
	double pressure_pa;	/* absolute static pressure */
	double temperature_c;	/* valid with BARO_FILTER_IN_HAS_TEMPERATURE */
	/* Altitude from this pressure relative to the ground pressure p0
	 * the host calibrated at the start of the run (the mean of the first
	 * five readings, as ArduPilot does), through the 1976 standard
	 * atmosphere: alt(p) - alt(p0); m, up. */
	double alt_m;
	uint32_t flags;
};

struct baro_filter_output {
	double alt_m;		/* the estimate; NaN when there is none yet */
	/* Innovation test ratio innov^2 / (gate^2 * S) for the sample (1 is
	 * the rejection threshold), NaN when the filter has none. */
	double test_ratio;
	uint32_t flags;
};

struct baro_filter {
	uint32_t abi_version;	/* BARO_FILTER_ABI_VERSION */
	const char *name;	/* [a-z0-9_-]+ */
	const char *description;	/* one line */
	/*
	 * Allocate and initialise a state from params, a comma-separated
	 * "key=value" list (may be empty, never NULL).  Returns 0 with
	 * *state set, or a negative errno with a one-line message in err
	 * naming the bad key or value.
	 */
	int (*create)(void **state, const char *params, char *err,
		      size_t errlen);
	void (*step)(void *state, uint64_t now_us,
		     const struct baro_filter_input *in,
		     struct baro_filter_output *out);
	void (*reset)(void *state);
	void (*destroy)(void *state);
	/* Bytes of state (for the cost report); may be NULL. */
	size_t (*state_size)(const void *state);
};

typedef const struct baro_filter *(*baro_filter_entry_fn)(uint32_t abi_version);

#define BARO_FILTER_ENTRY_SYMBOL "baro_filter_entry"

/* ======================================================================
 * Version 2: every sensor an altitude filter uses.
 *
 * A version-2 filter sees, at each step, the latest sample of every
 * barometer instance, of the accelerometer (with the attitude), of the
 * GPS and of the rangefinder, each with its own time and flags, and
 * returns an altitude, a climb rate and a verdict per barometer.
 *
 * A shared object serves version 2 by exporting
 *
 *     const struct baro_filter2 *baro_filter2_entry(uint32_t abi_version);
 *
 * returning a static struct baro_filter2 whose abi_version is
 * BARO_FILTER2_ABI_VERSION, or NULL if it cannot serve abi_version.  The
 * host looks for baro_filter2_entry first and falls back to version 1's
 * baro_filter_entry (when the object has no baro_filter2_entry, or it
 * returns NULL), so version-1 objects keep working unchanged and a run
 * may mix both.
 *
 * Calling contract (beyond version 1's, which holds):
 *   - step() is called once per event of the recording, in time order:
 *     each sample of any sensor (BARO_FILTER_SENSOR_FRESH in its block
 *     says which), and polls while the primary barometer (baro[0]) is
 *     silent.  A host may make several blocks fresh in one step when
 *     their samples share a timestamp; baro-replay steps each sample on
 *     its own, the other sensors' before baro[0]'s at the same time.
 *   - Each sensor block holds that sensor's latest sample and keeps it
 *     between its samples (time_us says how old it is); VALID is clear
 *     until the sensor's first sample of the segment, and for a sensor
 *     the recording does not have.
 *   - The host scores the output of the step at each primary-barometer
 *     sample and poll; steps at other sensors' samples are the filter's
 *     to use (propagation, fusion) and are not scored.
 * ==================================================================== */

#define BARO_FILTER2_ABI_VERSION 2u
#define BARO_FILTER2_ENTRY_SYMBOL "baro_filter2_entry"
#define BARO_FILTER_MAX_BAROS 3

/* Every sensor block's flags. */
#define BARO_FILTER_SENSOR_VALID (1u << 0)	/* holds a sample */
#define BARO_FILTER_SENSOR_FRESH (1u << 1)	/* ... that arrived this step */
/* struct baro_filter_baro.flags */
#define BARO_FILTER_BARO_HAS_TEMPERATURE (1u << 8)
/* struct baro_filter_accel.flags */
#define BARO_FILTER_ACCEL_HAS_ATTITUDE (1u << 8)	/* roll/pitch/yaw and
							   vert_accel valid */
/* struct baro_filter_gps.flags */
#define BARO_FILTER_GPS_HAS_VEL (1u << 8)	/* vel_up_m_s valid */
#define BARO_FILTER_GPS_3D_FIX (1u << 9)	/* fix type 3D or better */
/* struct baro_filter_range.flags */
#define BARO_FILTER_RANGE_IN_RANGE (1u << 8)	/* within min..max */

struct baro_filter_baro {
	uint64_t time_us;	/* of this sample */
	uint32_t flags;		/* VALID, FRESH, HAS_TEMPERATURE */
	uint32_t reserved;
	double pressure_pa;	/* absolute static pressure */
	double temperature_c;
	/* As version 1's alt_m: relative to this instance's own ground
	 * pressure (the mean of its first five readings), m, up. */
	double alt_m;
};

struct baro_filter_accel {
	uint64_t time_us;
	uint32_t flags;		/* VALID, FRESH, HAS_ATTITUDE */
	uint32_t reserved;
	/* What the accelerometer measures (specific force) in the body
	 * frame, forward-right-down, m/s^2: level and at rest about
	 * (0, 0, -9.80665). */
	double specific_force[3];
	/* The attitude at time_us (the latest the recording has), Euler
	 * angles 3-2-1 as ArduPilot and MAVLink give them, rad. */
	double roll_rad, pitch_rad, yaw_rad;
	/* Earth-frame vertical acceleration, up, gravity removed, m/s^2:
	 * -(R * specific_force).z - 9.80665 with R body-to-NED from the
	 * attitude.  The host derives it; NaN without attitude. */
	double vert_accel_mss;
};

struct baro_filter_gps {
	uint64_t time_us;
	uint32_t flags;		/* VALID, FRESH, HAS_VEL, 3D_FIX */
	uint32_t reserved;
	double alt_amsl_m;	/* as the receiver reports it */
	/* The same relative to the GPS altitude at the start of the
	 * recording segment (the first 3D fix), so on baro alt_m's datum
	 * up to the ground's height error; m, up. */
	double alt_m;
	double vel_up_m_s;	/* valid with HAS_VEL */
	double vacc_m;		/* vertical accuracy (1 sigma); NaN: unknown */
	double vel_acc_m_s;	/* speed accuracy; NaN: unknown */
};

struct baro_filter_range {
	uint64_t time_us;
	uint32_t flags;		/* VALID, FRESH, IN_RANGE */
	uint32_t reserved;
	double distance_m;	/* along the sensor's axis (down) */
	double min_m, max_m;	/* the sensor's range; NaN: unknown */
};

struct baro_filter_frame {
	uint64_t now_us;	/* non-decreasing */
	uint32_t nbaro;		/* instances the recording has, 1..3 */
	uint32_t reserved;
	struct baro_filter_baro baro[BARO_FILTER_MAX_BAROS];
	struct baro_filter_accel accel;
	struct baro_filter_gps gps;
	struct baro_filter_range range;
};

/* struct baro_filter_output2.baro_flags[i] */
#define BARO_FILTER_BARO_OUT_HEALTHY (1u << 0)	/* the filter trusts it */
#define BARO_FILTER_BARO_OUT_REJECTED (1u << 1)	/* its sample this step
						   was not used */
#define BARO_FILTER_BARO_OUT_SELECTED (1u << 2)	/* the one (or one of the
						   ones) the estimate uses */

struct baro_filter_output2 {
	double alt_m;		/* the estimate on baro[0]'s datum; NaN: none */
	double climb_m_s;	/* up; NaN: none */
	double test_ratio;	/* as version 1; NaN: none */
	/* BARO_FILTER_OUT_HEALTHY / _REJECTED, as version 1: the health of
	 * the altitude estimate, and whether baro[0]'s sample this step
	 * was rejected. */
	uint32_t flags;
	uint32_t baro_flags[BARO_FILTER_MAX_BAROS];
};

struct baro_filter2 {
	uint32_t abi_version;	/* BARO_FILTER2_ABI_VERSION */
	const char *name;	/* [a-z0-9_-]+ */
	const char *description;	/* one line */
	int (*create)(void **state, const char *params, char *err,
		      size_t errlen);
	/* out arrives set to "nothing" (NaN, NaN, NaN, no flags). */
	void (*step)(void *state, const struct baro_filter_frame *in,
		     struct baro_filter_output2 *out);
	void (*reset)(void *state);
	void (*destroy)(void *state);
	size_t (*state_size)(const void *state);	/* may be NULL */
	/*
	 * The sensors beyond baro[0] the filter reads (BARO_FILTER_READS_*),
	 * or 0 for every one the recording has.  baro-replay judges a
	 * filter's detection only on faults a sensor it reads can reveal
	 * (a drift: GPS), so a filter that says it reads GPS is asked to
	 * catch the drift.
	 */
	uint32_t reads;
};

#define BARO_FILTER_READS_BAROS (1u << 0)	/* baro[1], baro[2] */
#define BARO_FILTER_READS_ACCEL (1u << 1)
#define BARO_FILTER_READS_GPS (1u << 2)
#define BARO_FILTER_READS_RANGE (1u << 3)

typedef const struct baro_filter2 *(*baro_filter2_entry_fn)(
	uint32_t abi_version);

#ifdef __cplusplus
}
#endif

#endif
