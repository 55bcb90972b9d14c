/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An example version-2 user filter (doc/filter-abi.md shows it whole and
 * the tests check the two agree): a second-order complementary filter.
 * The accelerometer's vertical acceleration carries height and climb
 * forward between barometer samples; each sample of baro[0] pulls them
 * towards its altitude, with a time constant of tau seconds.  Without an
 * accelerometer (or its attitude) the climb is held instead.
 *
 * Build: cc $(pkg-config --cflags barod-filter) -shared -fPIC \
 *            -o libexample2.so example-filter2.c -lm
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <barod/baro-filter.h>

struct compl {
	double tau;		/* s */
	int have;		/* height started */
	uint64_t t_us;		/* time of h and v */
	uint64_t baro_us;	/* last baro[0] sample used */
	double h, v;		/* m, m/s up */
	double acc;		/* held vertical acceleration, m/s^2 up */
};

static int
compl_create(void **state, const char *params, char *err, size_t errlen)
{
	double tau = 2.0;

	if (strncmp(params, "tau=", 4) == 0) {
		char *end;
		tau = strtod(params + 4, &end);
		if (end == params + 4 || *end != '\0' || !(tau > 0.0) ||
		    !isfinite(tau)) {
			snprintf(err, errlen, "tau='%s' is not a time in s",
				 params + 4);
			return -EINVAL;
		}
	} else if (params[0] != '\0') {
		snprintf(err, errlen, "unknown parameter in '%s' (known: tau)",
			 params);
		return -EINVAL;
	}
	struct compl *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->tau = tau;
	*state = c;
	return 0;
}

static void
compl_step(void *state, const struct baro_filter_frame *in,
	   struct baro_filter_output2 *out)
{
	struct compl *c = state;
	const struct baro_filter_baro *b = &in->baro[0];
	const struct baro_filter_accel *a = &in->accel;

	/* Carry the state to now with the acceleration held since the
	 * last accelerometer sample. */
	if (c->have && in->now_us > c->t_us) {
		double dt = (double)(in->now_us - c->t_us) * 1e-6;
		c->h += c->v * dt + 0.5 * c->acc * dt * dt;
		c->v += c->acc * dt;
		c->t_us = in->now_us;
	}
	/* A fresh accelerometer sample acts from now on; without the
	 * attitude its vertical part is unknown, so the climb is held. */
	if (a->flags & BARO_FILTER_SENSOR_FRESH)
		c->acc = (a->flags & BARO_FILTER_ACCEL_HAS_ATTITUDE) &&
				 isfinite(a->vert_accel_mss)
			 ? a->vert_accel_mss
			 : 0.0;
	if (!(a->flags & BARO_FILTER_SENSOR_VALID))
		c->acc = 0.0;

	if ((b->flags & BARO_FILTER_SENSOR_FRESH) && !isfinite(b->alt_m)) {
		out->flags |= BARO_FILTER_OUT_REJECTED;
		out->baro_flags[0] |= BARO_FILTER_BARO_OUT_REJECTED;
	} else if (b->flags & BARO_FILTER_SENSOR_FRESH) {
		if (!c->have) {
			c->have = 1;
			c->h = b->alt_m;
			c->v = 0.0;
			c->t_us = in->now_us;
		} else {
			/* k1 = 2/tau, k2 = 1/tau^2: critically damped. */
			double dt = (double)(in->now_us - c->baro_us) * 1e-6;
			if (dt > c->tau)
				dt = c->tau;
			double e = b->alt_m - c->h;
			c->h += 2.0 / c->tau * dt * e;
			c->v += dt / (c->tau * c->tau) * e;
		}
		c->baro_us = in->now_us;
	}
	if (!c->have)
		return;	/* out stays "nothing" */
	out->alt_m = c->h;
	out->climb_m_s = c->v;
	/* Healthy while baro[0] spoke within the last second. */
	if (in->now_us - c->baro_us <= 1000000u) {
		out->flags |= BARO_FILTER_OUT_HEALTHY;
		out->baro_flags[0] |= BARO_FILTER_BARO_OUT_HEALTHY;
	}
	out->baro_flags[0] |= BARO_FILTER_BARO_OUT_SELECTED;
}

static void
compl_reset(void *state)
{
	struct compl *c = state;
	double tau = c->tau;

	memset(c, 0, sizeof(*c));
	c->tau = tau;
}

static void
compl_destroy(void *state)
{
	free(state);
}

static size_t
compl_state_size(const void *state)
{
	(void)state;
	return sizeof(struct compl);
}

static const struct baro_filter2 compl_filter = {
	.abi_version = BARO_FILTER2_ABI_VERSION,
	.name = "complementary",
	.description = "baro + accelerometer complementary filter, tau s",
	.create = compl_create,
	.step = compl_step,
	.reset = compl_reset,
	.destroy = compl_destroy,
	.state_size = compl_state_size,
	/* What it reads beyond baro[0]: it is judged on the faults an
	 * accelerometer reveals (0 would be every sensor). */
	.reads = BARO_FILTER_READS_ACCEL,
};

/* C++: extern "C". */
const struct baro_filter2 *
baro_filter2_entry(uint32_t abi_version);

const struct baro_filter2 *
baro_filter2_entry(uint32_t abi_version)
{
	return abi_version == BARO_FILTER2_ABI_VERSION ? &compl_filter : NULL;
}
