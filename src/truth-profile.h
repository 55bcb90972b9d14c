/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Built-in truth generators, for users without a trace: the height above
 * home as a pure function of time.
 *
 *   static:H            constant height H m
 *   climb:RATE[:H0]     H0 + RATE * t   (m/s, may be negative)
 *   step:H0:H1:T        H0 until T seconds, then H1
 *   sine:A:PERIOD[:H0]  H0 + A * sin(2 pi t / PERIOD)
 */
#ifndef BAROD_TRUTH_PROFILE_H
#define BAROD_TRUTH_PROFILE_H

#include <stddef.h>

enum truth_profile_kind {
	TRUTH_STATIC,
	TRUTH_CLIMB,
	TRUTH_STEP,
	TRUTH_SINE,
};

struct truth_profile {
	enum truth_profile_kind kind;
	double a, b, c;	/* meaning depends on kind, see truth_profile_parse */
};

/* Parse a spec such as "climb:2:10".  0, or -EINVAL with a message. */
int
truth_profile_parse(const char *spec, struct truth_profile *out, char *err,
		    size_t errlen);

/* Height above home (m) at t seconds. */
double
truth_profile_height(const struct truth_profile *p, double t_s);

#endif
