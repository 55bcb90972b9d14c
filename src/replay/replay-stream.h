/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * One barometer stream held for a replay run: the samples of one channel
 * of a log (or of the synthetic generator), the reference altitude that
 * comes with it, the log's events, and the other sensors a filter may
 * use (replay_aux: further baros, accelerometer, attitude, GPS,
 * rangefinder) on the samples' clock.  Runs need random access (filters
 * are run several times over the same stream and metrics look back and
 * forth), so unlike the readers this holds it all in memory: 32 bytes
 * per baro sample, a few MB for hours of 100 Hz data, more with a fast
 * IMU (40 bytes per sample).
 */
#ifndef BAROD_REPLAY_STREAM_H
#define BAROD_REPLAY_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "baro-sample.h"
#include "baro-sitl.h"
#include "log-reader.h"
#include "log-segments.h"
#include "scenario.h"
#include "sim-params.h"
#include "synth-sensors.h"
#include "truth-profile.h"

struct replay_point {
	uint64_t time_us;
	double alt_m;
};

/* Where a segment starts (log-segments.h): filters restart there, no
 * poll fills the time before it, and that time is never scored. */
struct replay_segment {
	size_t first;		/* index of its first sample */
	enum log_seg_break why;
	uint64_t gap_us;	/* the interval before it (see log-segments.h) */
	uint64_t log_us;	/* its first sample's time as the log has it */
};

/* Up to BARO_MAX_INSTANCES barometers: the primary one (the stream's
 * samples) and the others the recording has, each on its own clock
 * and rate, for filters that read every instance (baro-filter.h v2). */
struct replay_baro_series {
	char channel[64];
	size_t n, cap;
	struct baro_sample *s;
};

/* The other sensors, in time order on the samples' clock (segments
 * shifted as the samples are).  Empty when the recording has none. */
struct replay_aux {
	size_t nbaro;		/* further baros: 0..BARO_MAX_INSTANCES-1 */
	struct replay_baro_series baro[BARO_MAX_INSTANCES - 1];
	size_t nimu, capimu;
	struct log_imu *imu;
	size_t natt, capatt;
	struct log_attitude *att;
	size_t ngps, capgps;
	struct log_gps *gps;
	size_t nrange, caprange;
	struct log_range *range;
	/* Where each came from ("IMU", "ATT", "GPS", "RFND",
	 * "sensor_combined", ...); "" when none. */
	char imu_channel[64], att_channel[64], gps_channel[64],
		range_channel[64];
	/* Records left out, over every series above: outside the
	 * samples' segments (before the first, in a gap, after the last,
	 * or from a clock restart the samples do not have), earlier than
	 * the one before in their series (after the shift), and
	 * non-finite ones (of the series followed). */
	uint64_t dropped_outside, dropped_backwards, dropped_invalid;
};

struct replay_stream {
	char name[96];		/* "ap_copter-3.4.4...bin", "synthetic" */
	char channel[64];	/* the baro channel used */
	char reference[64];	/* "gps (GPS)", "truth", "" */
	struct log_info info;
	size_t n, cap;
	struct baro_sample *samples;
	size_t nref, capref;
	struct replay_point *ref;	/* sorted by time */
	enum log_ref_datum ref_datum;
	/* The autopilot's own altitude estimate (the log's EKF series:
	 * XKF1/NKF1/POS, vehicle_local_position, ...), sorted; none for
	 * the synthetic stream.  estimate names its channel. */
	size_t nest;
	struct replay_point *est;
	char estimate[64];
	size_t nev, capev;
	struct log_event *events;
	/* Samples left out: earlier than the one before (a reader passes
	 * small backwards steps through), non-finite or non-positive. */
	uint64_t dropped_backwards, dropped_invalid;
	/* The reader's error after the samples, if the log is damaged. */
	char damage[LOG_ERR_LEN];
	/* Segments, the first at sample 0.  A segment whose clock went
	 * back (a restart the log did not mark) is moved to start
	 * LOG_SEG_GAP_MIN_US after the one before, by shift_us, so the
	 * stream's time keeps increasing. */
	size_t nseg, capseg;
	struct replay_segment *seg;
	struct log_segmenter segmenter;
	uint64_t shift_us;
	struct replay_aux aux;
};

void
replay_stream_free(struct replay_stream *st);

/*
 * Read a whole log through r.  channel: a baro channel name, or NULL for
 * the one with the most samples.  reference: a log_ref_source name
 * ("gps", "ekf", "rangefinder", "truth", "log-baro-alt"), or NULL for the
 * first available of truth, gps, ekf, rangefinder, log-baro-alt.
 * Returns 0 (a damaged log still gives 0, with the reader's error in
 * st->damage), or a negative errno with a message in err: -ENOENT when
 * the channel or reference is not in the log, -ENODATA when the log has
 * no baro samples at all, -ENOMEM.
 *
 * aux gets the log's other sensors: the accelerometer of the lowest IMU
 * instance (the first channel with it), the attitude, the lowest GPS and
 * rangefinder instances, and up to two further barometers of the
 * primary's family in instance order (BARO[1] and BARO[2] beside
 * BARO[0]; sensor_baro[n]; SCALED_PRESSURE2/3; baro[n] of a CSV; beside a
 * fused or derived stream such as vehicle_air_data or CTUN.BarAlt, the
 * sensor_baro instances, else the BARO ones, else none).  Each is moved
 * by the samples' shift of its clock restart and kept only inside the
 * samples' segments (replay_aux says how many were left out).
 */
int
replay_stream_from_log(struct replay_stream *st, struct log_reader *r,
		       const char *name, const char *channel,
		       const char *reference, char *err, size_t errlen);

/* The median interval between samples inside segments (µs); 0 for fewer
 * than two samples. */
uint64_t
replay_stream_median_interval(const struct replay_stream *st);

/* "2 segments (gap of 627.9 s at 251.4 s)" into buf. */
void
replay_stream_describe_segments(const struct replay_stream *st, char *buf,
				size_t len);

/*
 * A synthetic recording: the AP_Baro_SITL emulator with params (NULL:
 * ArduPilot's defaults, 0.2 m noise) flown along profile for duration_s
 * from home_m AMSL, with the profile as the truth reference (AMSL).  The
 * emulator reproduces ArduPilot release ardupilot, in that release's
 * atmosphere, with the profile's throttle and SITL's height above ground
 * (so master's SIM_BARO_GEFF_M acts).  Deterministic for a seed.
 *
 * Baro 0 is the samples, one per 10 ms, and its noise is the same
 * whatever else the stream has (each instance runs its own emulator with
 * its own noise stream: ArduPilot's shared random() is not reproducible
 * anyway).  params' SIM_BARO_COUNT further instances (SIM_BAR2_*,
 * SIM_BAR3_*) go to aux.baro at their own rates, and the accelerometer,
 * attitude, GPS and rangefinder of synth-sensors.h with their defaults to
 * the rest of aux.  Those cost 12 kB per simulated second with one
 * further baro, 15 kB with two (IMU 8 kB, attitude 1.6 kB, baros 1.6 and
 * 2.7 kB, GPS and range 1.2 kB): 0.9 MB for a minute, 54 MB for an
 * hour, 1.3 GB for the longest, a day.
 */
int
replay_stream_synthetic(struct replay_stream *st,
			const struct truth_profile *profile,
			double duration_s, double home_m,
			const struct sim_params *params,
			enum baro_sitl_ardupilot ardupilot, uint32_t seed,
			char *err, size_t errlen);

/* Everything replay_stream_synthetic_with takes. */
struct replay_synth_config {
	const struct truth_profile *profile;
	double duration_s;
	double home_m;
	const struct sim_params *params;	/* NULL: ArduPilot's defaults */
	enum baro_sitl_ardupilot ardupilot;
	uint32_t seed;
	/* Barometers, 1..3; 0: params' SIM_BARO_COUNT. */
	unsigned nbaro;
	/* When each instance samples: every period_ms (10..1000; the
	 * emulator's timer gives at most one sample per 10 ms), the first
	 * at period_ms + phase_ms.  Defaults (replay_synth_config_init):
	 * baro 0 at 100 Hz from 10 ms as ever, baro 1 at 50 Hz 5 ms later,
	 * baro 2 at 83 Hz 7 ms later: sensors of different types on
	 * different buses, so a filter cannot assume they arrive together. */
	uint32_t baro_period_ms[BARO_MAX_INSTANCES];
	uint32_t baro_phase_ms[BARO_MAX_INSTANCES];
	struct synth_sensor_params sensors;
	/* A fault scenario for the further baros (NULL: none), its time 0
	 * at the first sample: actions on instances 1 and 2 (`glitch 1
	 * 15`, SIM_BAR2_*, `px4 stuck 2`) act here, those on instance 0
	 * do not.  Relative times must already be placed.  baro-replay
	 * gives none: its rows' injector faults every stream's further
	 * baros (replay-aux.h), and its golden run needs them clean. */
	const struct scenario *sc;
};

/* The defaults above, with synth_sensor_params_defaults(); profile,
 * duration_s and home_m still to be set. */
void
replay_synth_config_init(struct replay_synth_config *c);

/* The same from a full configuration.  -EINVAL with a message for a bad
 * duration, baro count, rate or sensor parameter; -ERANGE when the
 * profile leaves the atmosphere; -ENOMEM. */
int
replay_stream_synthetic_with(struct replay_stream *st,
			     const struct replay_synth_config *c, char *err,
			     size_t errlen);

/* Reference altitude at time_us by linear interpolation; NaN outside the
 * reference's span or across a gap longer than max_gap_us. */
double
replay_stream_ref_at(const struct replay_stream *st, uint64_t time_us,
		     uint64_t max_gap_us);

/* The same for the autopilot's estimate (est). */
double
replay_stream_est_at(const struct replay_stream *st, uint64_t time_us,
		     uint64_t max_gap_us);

#endif
