/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "truth-profile.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util-strings.h"

static const struct {
	const char *name;
	enum truth_profile_kind kind;
	int min_args, max_args;
	const char *usage;
} kinds[] = {
	{ "static", TRUTH_STATIC, 1, 1, "static:HEIGHT" },
	{ "climb", TRUTH_CLIMB, 1, 2, "climb:RATE[:START]" },
	{ "step", TRUTH_STEP, 3, 4, "step:FROM:TO:AT_S[:RISE_S]" },
	{ "sine", TRUTH_SINE, 2, 3, "sine:AMPLITUDE:PERIOD_S[:CENTRE]" },
	{ "takeoff", TRUTH_TAKEOFF, 3, 4, "takeoff:HEIGHT:RATE:HOLD_S[:THROTTLE]" },
};

#define TAKEOFF_DEFAULT_THROTTLE 0.5

/* takeoff's constraints: a flight that climbs, and a throttle that runs
 * the motors.  NULL if fine, else what is wrong. */
static const char *
takeoff_problem(const double v[4])
{
	if (!(v[0] > 0.0))
		return "the height must be positive";
	if (!(v[1] > 0.0))
		return "the rate must be positive";
	if (!(v[2] >= 0.0))
		return "the hold time must not be negative";
	if (!(v[3] > 0.0 && v[3] <= 1.0))
		return "the throttle must be above 0 and at most 1";
	/* Keep every phase boundary a finite number of seconds. */
	if (v[0] / v[1] > 1e9 || v[2] > 1e9)
		return "the flight is too long";
	return NULL;
}

int
truth_profile_parse(const char *spec, struct truth_profile *out, char *err,
		    size_t errlen)
{
	char buf[256];
	char *fields[5];
	int n = 0;

	if (strlen(spec) >= sizeof(buf)) {
		snprintf(err, errlen, "profile spec too long");
		return -EINVAL;
	}
	strcpy(buf, spec);
	for (char *p = buf;;) {
		if (n == (int)(sizeof(fields) / sizeof(fields[0]))) {
			snprintf(err, errlen, "profile '%s': too many fields",
				 spec);
			return -EINVAL;
		}
		fields[n++] = p;
		char *colon = strchr(p, ':');
		if (!colon)
			break;
		*colon = '\0';
		p = colon + 1;
	}

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		if (strcmp(fields[0], kinds[k].name) != 0)
			continue;
		int nargs = n - 1;
		if (nargs < kinds[k].min_args || nargs > kinds[k].max_args) {
			snprintf(err, errlen, "profile '%s': expected %s", spec,
				 kinds[k].usage);
			return -EINVAL;
		}
		double v[4] = { 0.0, 0.0, 0.0, TAKEOFF_DEFAULT_THROTTLE };
		for (int i = 0; i < nargs; i++) {
			if (str_to_double(fields[i + 1], &v[i]) < 0 ||
			    !isfinite(v[i])) {
				snprintf(err, errlen,
					 "profile '%s': '%s' is not a number",
					 spec, fields[i + 1]);
				return -EINVAL;
			}
		}
		if (kinds[k].kind == TRUTH_STEP) {
			if (nargs < 4)
				v[3] = 0.0;
			if (!(v[3] >= 0.0) || v[3] > 1e6) {
				snprintf(err, errlen, "profile '%s': the rise "
					 "time must be 0 to 1e6 s", spec);
				return -EINVAL;
			}
		}
		if (kinds[k].kind == TRUTH_SINE && !(v[1] > 0.0)) {
			snprintf(err, errlen,
				 "profile '%s': the period must be positive",
				 spec);
			return -EINVAL;
		}
		if (kinds[k].kind == TRUTH_TAKEOFF && takeoff_problem(v)) {
			snprintf(err, errlen, "profile '%s': %s", spec,
				 takeoff_problem(v));
			return -EINVAL;
		}
		*out = (struct truth_profile){ .kind = kinds[k].kind,
					       .a = v[0], .b = v[1],
					       .c = v[2], .d = v[3] };
		return 0;
	}

	snprintf(err, errlen,
		 "unknown profile '%s' (use static, climb, step, sine or "
		 "takeoff)",
		 fields[0]);
	return -EINVAL;
}

/* takeoff: H = a, RATE = b, HOLD = c, THROTTLE = d. */
static double
takeoff_liftoff(void)
{
	return TRUTH_TAKEOFF_IDLE_S + TRUTH_TAKEOFF_SPOOL_S;
}

static double
takeoff_touchdown(const struct truth_profile *p)
{
	return takeoff_liftoff() + 2.0 * (p->a / p->b) + p->c;
}

static double
takeoff_height(const struct truth_profile *p, double t)
{
	const double up = takeoff_liftoff();
	const double top = up + p->a / p->b;
	const double down = top + p->c;
	const double land = takeoff_touchdown(p);

	if (t <= up || t >= land)
		return 0.0;
	if (t < top)
		return p->b * (t - up);
	if (t <= down)
		return p->a;
	return fmax(0.0, p->a - p->b * (t - down));
}

double
truth_profile_height(const struct truth_profile *p, double t)
{
	switch (p->kind) {
	case TRUTH_STATIC:
		return p->a;
	case TRUTH_CLIMB:
		return p->b + p->a * t;
	case TRUTH_STEP:
		if (t < p->c)
			return p->a;
		if (!(p->d > 0.0) || t >= p->c + p->d)
			return p->b;
		/* A raised cosine: velocity and acceleration stay finite,
		 * as a vehicle's do (an accelerometer can follow it). */
		return p->a + (p->b - p->a) *
				      (1.0 - cos(M_PI * (t - p->c) / p->d)) / 2.0;
	case TRUTH_SINE:
		return p->c + p->a * sin(2.0 * M_PI * t / p->b);
	case TRUTH_TAKEOFF:
		return takeoff_height(p, t);
	}
	return 0.0;
}

int
truth_profile_parse_throttle(const char *spec, struct truth_profile *p,
			     char *err, size_t errlen)
{
	static const char airborne[] = "airborne:";
	const bool is_airborne =
		strncmp(spec, airborne, sizeof(airborne) - 1) == 0;
	const char *num = is_airborne ? spec + sizeof(airborne) - 1 : spec;
	double v;

	if (str_to_double(num, &v) < 0 || !isfinite(v) || v < 0.0 ||
	    v > 1.0) {
		snprintf(err, errlen,
			 "throttle '%s': expected T or airborne:T, T a number "
			 "from 0 to 1", spec);
		return -EINVAL;
	}
	p->throttle_mode = is_airborne ? TRUTH_THROTTLE_AIRBORNE
				       : TRUTH_THROTTLE_CONSTANT;
	p->throttle = v;
	return 0;
}

double
truth_profile_throttle(const struct truth_profile *p, double t)
{
	switch (p->throttle_mode) {
	case TRUTH_THROTTLE_CONSTANT:
		return p->throttle;
	case TRUTH_THROTTLE_AIRBORNE:
		return truth_profile_height(p, t) > 0.0 ? p->throttle : 0.0;
	case TRUTH_THROTTLE_PROFILE:
		break;
	}
	if (p->kind != TRUTH_TAKEOFF)
		return 0.0;
	const double on = TRUTH_TAKEOFF_IDLE_S;
	const double off = takeoff_touchdown(p) + TRUTH_TAKEOFF_SPOOL_S;
	return t >= on && t < off ? p->d : 0.0;
}
