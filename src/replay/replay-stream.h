/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * One barometer stream held for a replay run: the samples of one channel
 * of a log (or of the synthetic generator), the reference altitude that
 * comes with it, and the log's events.  Runs need random access (filters
 * are run several times over the same stream and metrics look back and
 * forth), so unlike the readers this holds the channel in memory: 24
 * bytes per sample, a few MB for hours of 100 Hz data.
 */
#ifndef BAROD_REPLAY_STREAM_H
#define BAROD_REPLAY_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "baro-sample.h"
#include "baro-sitl.h"
#include "log-reader.h"
#include "log-segments.h"
#include "sim-params.h"
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
 * ArduPilot's defaults, 0.2 m noise; only the first baro is used) flown
 * along profile for duration_s from home_m AMSL, one sample per 10 ms,
 * with the profile as the truth reference (AMSL).  The emulator
 * reproduces ArduPilot release ardupilot, in that release's atmosphere,
 * with the profile's throttle and SITL's height above ground (so master's
 * SIM_BARO_GEFF_M acts).  Deterministic for a seed.
 */
int
replay_stream_synthetic(struct replay_stream *st,
			const struct truth_profile *profile,
			double duration_s, double home_m,
			const struct sim_params *params,
			enum baro_sitl_ardupilot ardupilot, uint32_t seed,
			char *err, size_t errlen);

/* Reference altitude at time_us by linear interpolation; NaN outside the
 * reference's span or across a gap longer than max_gap_us. */
double
replay_stream_ref_at(const struct replay_stream *st, uint64_t time_us,
		     uint64_t max_gap_us);

#endif
