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
#include "log-reader.h"
#include "sim-params.h"
#include "truth-profile.h"

struct replay_point {
	uint64_t time_us;
	double alt_m;
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

/*
 * A synthetic recording: the AP_Baro_SITL emulator with params (NULL:
 * ArduPilot's defaults, 0.2 m noise; only the first baro is used) flown
 * along profile for duration_s from home_m AMSL, one sample per 10 ms,
 * with the profile as the truth reference (AMSL).  Deterministic for a
 * seed.
 */
int
replay_stream_synthetic(struct replay_stream *st,
			const struct truth_profile *profile,
			double duration_s, double home_m,
			const struct sim_params *params, uint32_t seed,
			char *err, size_t errlen);

/* Reference altitude at time_us by linear interpolation; NaN outside the
 * reference's span or across a gap longer than max_gap_us. */
double
replay_stream_ref_at(const struct replay_stream *st, uint64_t time_us,
		     uint64_t max_gap_us);

#endif
