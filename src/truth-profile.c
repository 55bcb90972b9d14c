/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "truth-profile.h"

#include <errno.h>
#include <math.h>
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
	{ "step", TRUTH_STEP, 3, 3, "step:FROM:TO:AT_S" },
	{ "sine", TRUTH_SINE, 2, 3, "sine:AMPLITUDE:PERIOD_S[:CENTRE]" },
};

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
		double v[3] = { 0.0, 0.0, 0.0 };
		for (int i = 0; i < nargs; i++) {
			if (str_to_double(fields[i + 1], &v[i]) < 0 ||
			    !isfinite(v[i])) {
				snprintf(err, errlen,
					 "profile '%s': '%s' is not a number",
					 spec, fields[i + 1]);
				return -EINVAL;
			}
		}
		if (kinds[k].kind == TRUTH_SINE && !(v[1] > 0.0)) {
			snprintf(err, errlen,
				 "profile '%s': the period must be positive",
				 spec);
			return -EINVAL;
		}
		*out = (struct truth_profile){ kinds[k].kind, v[0], v[1], v[2] };
		return 0;
	}

	snprintf(err, errlen,
		 "unknown profile '%s' (use static, climb, step or sine)",
		 fields[0]);
	return -EINVAL;
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
		return t < p->c ? p->a : p->b;
	case TRUTH_SINE:
		return p->c + p->a * sin(2.0 * M_PI * t / p->b);
	}
	return 0.0;
}
