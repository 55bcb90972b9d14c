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

#endif
