/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The log tests' comparison of the sensor records (IMU, attitude, GPS,
 * range), field by field: a reader builds them from compound literals,
 * so their padding bytes are not theirs to compare.  A NaN field (what
 * the log lacks) equals a NaN.
 */
#ifndef BAROD_TEST_SENSOR_REC_H
#define BAROD_TEST_SENSOR_REC_H

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "log-reader.h"

static inline bool
same_value(double a, double b)
{
	return a == b || (isnan(a) && isnan(b));
}

static inline bool
sensor_rec_equal(const struct log_record *a, const struct log_record *b)
{
	switch (a->kind) {
	case LOG_REC_IMU:
		return a->imu.time_us == b->imu.time_us &&
		       a->imu.instance == b->imu.instance &&
		       same_value(a->imu.accel[0], b->imu.accel[0]) &&
		       same_value(a->imu.accel[1], b->imu.accel[1]) &&
		       same_value(a->imu.accel[2], b->imu.accel[2]);
	case LOG_REC_ATTITUDE:
		return a->att.time_us == b->att.time_us &&
		       same_value(a->att.roll_rad, b->att.roll_rad) &&
		       same_value(a->att.pitch_rad, b->att.pitch_rad) &&
		       same_value(a->att.yaw_rad, b->att.yaw_rad);
	case LOG_REC_GPS:
		return a->gps.time_us == b->gps.time_us &&
		       a->gps.instance == b->gps.instance &&
		       a->gps.fix_type == b->gps.fix_type &&
		       a->gps.nsats == b->gps.nsats &&
		       same_value(a->gps.alt_amsl_m, b->gps.alt_amsl_m) &&
		       same_value(a->gps.vel_up_m_s, b->gps.vel_up_m_s) &&
		       same_value(a->gps.vacc_m, b->gps.vacc_m) &&
		       same_value(a->gps.vel_acc_m_s, b->gps.vel_acc_m_s);
	case LOG_REC_RANGE:
		return a->range.time_us == b->range.time_us &&
		       a->range.instance == b->range.instance &&
		       same_value(a->range.distance_m, b->range.distance_m) &&
		       same_value(a->range.min_m, b->range.min_m) &&
		       same_value(a->range.max_m, b->range.max_m) &&
		       a->range.quality == b->range.quality;
	default:
		return false;
	}
}

/* Records of the kinds read before the sensor kinds existed. */
static inline bool
old_kind(enum log_record_kind k)
{
	return k == LOG_REC_BARO || k == LOG_REC_REFERENCE ||
	       k == LOG_REC_EVENT;
}

/*
 * What a bundled log should give on one sensor stream: its count and
 * its first and last records, decoded independently (each test says
 * how).  Attitude from trigonometry may differ in the last bits
 * between C libraries, so it is compared to 1e-12 rad; every other
 * field exactly.
 */
struct sensor_expect {
	const char *chan;
	enum log_record_kind kind;
	size_t n;
	struct log_record first, last;
};

static inline bool
sensor_rec_matches(const struct log_record *got,
		   const struct log_record *want)
{
	if (got->kind != want->kind)
		return false;
	if (got->kind != LOG_REC_ATTITUDE)
		return sensor_rec_equal(got, want);
	return got->att.time_us == want->att.time_us &&
	       fabs(got->att.roll_rad - want->att.roll_rad) < 1e-12 &&
	       fabs(got->att.pitch_rad - want->att.pitch_rad) < 1e-12 &&
	       fabs(got->att.yaw_rad - want->att.yaw_rad) < 1e-12;
}

/*
 * Check the records recs[0..n) (channel names chan_name(channel)) on
 * every stream of want against it, and that no other stream has sensor
 * records.  A message naming the stream on the first difference, else
 * "" (msg holds len bytes).
 */
static inline void
sensor_check(const struct log_record *recs, size_t n,
	     const char *(*chan_name)(const void *ctx, unsigned channel),
	     const void *ctx, const struct sensor_expect *want, size_t nwant,
	     char *msg, size_t len)
{
	msg[0] = '\0';
	for (size_t w = 0; w < nwant && !msg[0]; w++) {
		size_t seen = 0;
		const struct log_record *first = NULL, *last = NULL;
		for (size_t i = 0; i < n; i++) {
			if (recs[i].kind != want[w].kind ||
			    strcmp(chan_name(ctx, recs[i].channel),
				   want[w].chan) != 0)
				continue;
			if (!first)
				first = &recs[i];
			last = &recs[i];
			seen++;
		}
		if (seen != want[w].n)
			snprintf(msg, len, "%s kind %d: %zu records, want %zu",
				 want[w].chan, (int)want[w].kind, seen,
				 want[w].n);
		else if (seen && !sensor_rec_matches(first, &want[w].first))
			snprintf(msg, len, "%s kind %d: first record differs",
				 want[w].chan, (int)want[w].kind);
		else if (seen && !sensor_rec_matches(last, &want[w].last))
			snprintf(msg, len, "%s kind %d: last record differs",
				 want[w].chan, (int)want[w].kind);
	}
	for (size_t i = 0; i < n && !msg[0]; i++) {
		if (old_kind(recs[i].kind))
			continue;
		bool known = false;
		for (size_t w = 0; w < nwant; w++)
			known |= recs[i].kind == want[w].kind &&
				 strcmp(chan_name(ctx, recs[i].channel),
					want[w].chan) == 0;
		if (!known)
			snprintf(msg, len, "unexpected kind %d on %s",
				 (int)recs[i].kind,
				 chan_name(ctx, recs[i].channel));
	}
}

#endif
