/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * gate: baro height fusion as ArduPilot's EKF does it, reduced to a
 * 2-state Kalman filter (height, vertical velocity) driven by white-noise
 * acceleration, since a replay has no IMU.
 *
 *   R          = noise^2                      (EK3_ALT_M_NSE, m)
 *   test ratio = innov^2 / (gate^2 * (P_hh + R))   (EK3_HGT_I_GATE / 100)
 *
 * A sample with ratio >= 1 is rejected (not fused).  When no sample has
 * been accepted for more than timeout_s (the EKF's 5 s height retry time
 * without GPS vertical velocity), the next sample resets the filter to
 * it: height = measurement, velocity 0, the initial covariance, as the
 * EKF's hgtTimeout reset; a persistent step is thus taken after the
 * timeout.  That check comes before the gate, as in the EKF, so a sample
 * after a data gap longer than timeout_s also restarts the filter.
 * Healthy = a sample was accepted within timeout_s of now.
 *
 * Process noise: continuous white acceleration of spectral density
 * accel_nse^2, so Q = q [dt^3/3 dt^2/2; dt^2/2 dt]; it composes exactly,
 * whatever the sample spacing.  A poll reports the height predicted to
 * now without changing the state.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "filt-builtin.h"
#include "filter-params.h"

/* Initial vertical velocity SD (m/s): the filter starts on the first
 * sample, normally with the vehicle at rest. */
#define VEL_SD0 1.0

struct gate_cfg {
	double noise_m;
	double gate_sd;
	double accel_nse;
	double timeout_s;
};

struct gate_state {
	struct gate_cfg cfg;
	double r;		/* measurement variance */
	double q;		/* acceleration spectral density */
	uint64_t timeout_us;
	bool have;
	uint64_t t_us;		/* time of the state below */
	uint64_t last_pass_us;
	double h, v;
	double p_hh, p_hv, p_vv;
};

static const struct filter_param gate_params[] = {
	{ "noise", FILTER_PARAM_DOUBLE, offsetof(struct gate_cfg, noise_m),
	  0.1, 10.0, NULL },
	{ "gate", FILTER_PARAM_DOUBLE, offsetof(struct gate_cfg, gate_sd), 1.0,
	  100.0, NULL },
	{ "accel_nse", FILTER_PARAM_DOUBLE,
	  offsetof(struct gate_cfg, accel_nse), 0.0, 100.0, NULL },
	{ "timeout_s", FILTER_PARAM_DOUBLE,
	  offsetof(struct gate_cfg, timeout_s), 0.1, 3600.0, NULL },
};

static void
gate_reset(void *state)
{
	struct gate_state *st = state;

	st->have = false;
	st->t_us = 0;
	st->last_pass_us = 0;
	st->h = NAN;
	st->v = 0.0;
	st->p_hh = st->p_hv = st->p_vv = 0.0;
}

static int
gate_create(void **state, const char *params, char *err, size_t errlen)
{
	struct gate_cfg cfg = {
		.noise_m = 2.0,
		.gate_sd = 5.0,
		.accel_nse = 1.0,
		.timeout_s = 5.0,
	};
	int rc = filter_params_parse("gate", params, gate_params,
				     sizeof(gate_params) /
					     sizeof(gate_params[0]),
				     &cfg, NULL, err, errlen);
	if (rc < 0)
		return rc;
	struct gate_state *st = malloc(sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->cfg = cfg;
	st->r = cfg.noise_m * cfg.noise_m;
	st->q = cfg.accel_nse * cfg.accel_nse;
	st->timeout_us = (uint64_t)llround(cfg.timeout_s * 1e6);
	gate_reset(st);
	*state = st;
	return 0;
}

static uint64_t
since(uint64_t now, uint64_t then)
{
	return now > then ? now - then : 0;
}

static void
start_at(struct gate_state *st, uint64_t now_us, double z)
{
	st->have = true;
	st->t_us = now_us;
	st->last_pass_us = now_us;
	st->h = z;
	st->v = 0.0;
	st->p_hh = st->r;
	st->p_hv = 0.0;
	st->p_vv = VEL_SD0 * VEL_SD0;
}

static void
predict(struct gate_state *st, uint64_t now_us)
{
	double dt = (double)since(now_us, st->t_us) * 1e-6;
	double dt2 = dt * dt, q = st->q;

	st->h += st->v * dt;
	st->p_hh += 2.0 * dt * st->p_hv + dt2 * st->p_vv + q * dt2 * dt / 3.0;
	st->p_hv += dt * st->p_vv + q * dt2 / 2.0;
	st->p_vv += q * dt;
	st->t_us = now_us > st->t_us ? now_us : st->t_us;
}

static void
fuse(struct gate_state *st, double innov, double s)
{
	double k_h = st->p_hh / s, k_v = st->p_hv / s;
	double p_hh = st->p_hh, p_hv = st->p_hv;

	st->h += k_h * innov;
	st->v += k_v * innov;
	st->p_hh = p_hh - k_h * p_hh;
	st->p_hv = p_hv - k_h * p_hv;
	st->p_vv -= k_v * p_hv;
}

static bool
healthy(const struct gate_state *st, uint64_t now_us)
{
	return st->have && since(now_us, st->last_pass_us) <= st->timeout_us;
}

static void
gate_step(void *state, uint64_t now_us, const struct baro_filter_input *in,
	  struct baro_filter_output *out)
{
	struct gate_state *st = state;

	out->flags = 0;
	out->test_ratio = NAN;
	if (in && !isfinite(in->alt_m)) {
		out->flags |= BARO_FILTER_OUT_REJECTED;
	} else if (in && !st->have) {
		start_at(st, now_us, in->alt_m);
	} else if (in) {
		bool timed_out = since(now_us, st->last_pass_us) >
				 st->timeout_us;
		predict(st, now_us);
		double innov = in->alt_m - st->h;
		double s = st->p_hh + st->r;
		double ratio = innov * innov /
			       (st->cfg.gate_sd * st->cfg.gate_sd * s);
		out->test_ratio = ratio;
		if (timed_out) {
			start_at(st, now_us, in->alt_m);
		} else if (ratio < 1.0) {
			fuse(st, innov, s);
			st->last_pass_us = now_us;
		} else {
			/* NaN lands here too (inf - inf innovations). */
			out->flags |= BARO_FILTER_OUT_REJECTED;
		}
	}

	if (!st->have)
		out->alt_m = NAN;
	else
		out->alt_m = st->h +
			     st->v * (double)since(now_us, st->t_us) * 1e-6;
	if (healthy(st, now_us))
		out->flags |= BARO_FILTER_OUT_HEALTHY;
}

static void
gate_destroy(void *state)
{
	free(state);
}

static size_t
gate_state_size(const void *state)
{
	(void)state;
	return sizeof(struct gate_state);
}

const struct baro_filter baro_filter_gate = {
	.abi_version = BARO_FILTER_ABI_VERSION,
	.name = "gate",
	.description = "EKF-style 2-state Kalman filter with innovation gate "
		       "and height timeout; noise=2 (m), gate=5 (SD), "
		       "accel_nse=1 (m/s^2/rtHz), timeout_s=5",
	.create = gate_create,
	.step = gate_step,
	.reset = gate_reset,
	.destroy = gate_destroy,
	.state_size = gate_state_size,
};
