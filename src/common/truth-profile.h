/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Built-in truth generators, for users without a trace: the height above
 * home as a pure function of time.
 *
 *   static:H            constant height H m
 *   climb:RATE[:H0]     H0 + RATE * t   (m/s, may be negative)
 *   step:H0:H1:T[:R]    H0 until T seconds, then H1; with R > 0 a smooth
 *                       change over R seconds (a raised cosine), as a
 *                       vehicle climbs
 *   sine:A:PERIOD[:H0]  H0 + A * sin(2 pi t / PERIOD)
 *   takeoff:H:RATE:HOLD[:THR]
 *                       a flight: on the ground with motors off for 1 s,
 *                       spooling up at throttle THR (default 0.5) for 1 s,
 *                       climbing at RATE m/s to H, holding HOLD s,
 *                       descending at RATE to the ground, motors on for
 *                       1 s more, then off
 *
 * The throttle (0..1, the motors' mean output, which drives the
 * emulator's ground effect) is 0 except for takeoff, unless a throttle
 * term replaces it (truth_profile_parse_throttle):
 *   T                   T all the time
 *   airborne:T          T while the height is above 0 m, else 0
 */
#ifndef BAROD_TRUTH_PROFILE_H
#define BAROD_TRUTH_PROFILE_H

#include <stddef.h>

enum truth_profile_kind {
	TRUTH_STATIC,
	TRUTH_CLIMB,
	TRUTH_STEP,
	TRUTH_SINE,
	TRUTH_TAKEOFF,
};

enum truth_throttle_mode {
	TRUTH_THROTTLE_PROFILE,		/* the profile's own: takeoff's, or 0 */
	TRUTH_THROTTLE_CONSTANT,
	TRUTH_THROTTLE_AIRBORNE,
};

struct truth_profile {
	enum truth_profile_kind kind;
	double a, b, c, d;	/* meaning depends on kind, see truth_profile_parse */
	enum truth_throttle_mode throttle_mode;
	double throttle;	/* 0..1, for CONSTANT and AIRBORNE */
};

/* takeoff's phases: motors off, then spooling on the ground, each this
 * long (s); the motors also run this long after touchdown. */
#define TRUTH_TAKEOFF_IDLE_S 1.0
#define TRUTH_TAKEOFF_SPOOL_S 1.0

/* Parse a spec such as "climb:2:10".  0, or -EINVAL with a message. */
int
truth_profile_parse(const char *spec, struct truth_profile *out, char *err,
		    size_t errlen);

/* Height above home (m) at t seconds. */
double
truth_profile_height(const struct truth_profile *p, double t_s);

/* Replace p's throttle with a term "T" or "airborne:T" (T from 0 to 1).
 * 0, or -EINVAL with a message. */
int
truth_profile_parse_throttle(const char *spec, struct truth_profile *p,
			     char *err, size_t errlen);

/* The throttle (0..1) at t seconds. */
double
truth_profile_throttle(const struct truth_profile *p, double t_s);

#endif
