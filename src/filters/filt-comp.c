/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * comp: baro + accelerometer height estimation, the version-2 baseline.
 * A 3-state Kalman filter (height h, climb v, accelerometer bias b) in
 * the way ArduPilot's EKF treats the vertical axis:
 *
 *   with the accelerometer (accel block VALID, vert_accel_mss finite):
 *     h' = v,  v' = a - b + w,  b' = w_b
 *     w: white, spectral density imu_nse^2   (EK3_ACC_P_NSE)
 *     w_b: white, spectral density bias_nse^2 (EK3_ABIAS_P_NSE)
 *     a is held from its sample until the next (zero-order hold), so a
 *     prediction over any interval is the same however it is split;
 *   without it, or with samples further apart than imu_max_dt (a log's
 *     IMU at 4 Hz is single vibrating readings, not the motion between
 *     them; 0.05 s: 20 Hz): as gate, a random-acceleration model
 *     (a = 0, white acceleration of density accel_nse^2), the bias left
 *     alone.
 *
 * baro[0] is fused as gate fuses its samples: R = noise^2, test ratio
 * innov^2 / (gate^2 * (P_hh + R)), rejected at ratio >= 1, and when no
 * sample was accepted for more than timeout_s the next one restarts the
 * height (h = z, v = 0, the initial covariance; the bias is kept, being
 * a property of the sensor, not of the lost track).  HEALTHY = a sample
 * was accepted within timeout_s of now.  The other baros are not used.
 *
 * The state is predicted to now at every step, sample or not, so the
 * estimate at a poll is the prediction, as gate's.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "filt-builtin.h"
#include "filter-params.h"

/* Initial climb SD (m/s): the filter starts on the first sample,
 * normally at rest. */
#define VEL_SD0 1.0
/* Initial accelerometer bias SD (m/s^2): EK3's 0.2 m/s^2 bias limit
 * for a calibrated sensor. */
#define BIAS_SD0 0.2

struct comp_cfg {
	double noise_m;
	double gate_sd;
	double accel_nse;	/* without an accelerometer */
	double imu_nse;		/* with one */
	double bias_nse;
	double timeout_s;
	/* Longest interval between accelerometer samples worth
	 * integrating: a log's IMU at a few Hz is single vibrating
	 * readings, not the motion between them. */
	double imu_max_dt_s;
};

struct comp_state {
	struct comp_cfg cfg;
	double r;
	uint64_t timeout_us;
	bool have;		/* the height has started */
	uint64_t t_us;		/* time of the state below */
	uint64_t last_pass_us;
	double x[3];		/* h, v, b */
	double p[3][3];
	bool have_acc;		/* acc holds a usable vertical acceleration */
	double acc;
	uint64_t acc_t_us;	/* the last accelerometer sample's time */
	bool acc_seen;
};

static const struct filter_param comp_params[] = {
	{ "noise", FILTER_PARAM_DOUBLE, offsetof(struct comp_cfg, noise_m),
	  0.1, 10.0, NULL },
	{ "gate", FILTER_PARAM_DOUBLE, offsetof(struct comp_cfg, gate_sd), 1.0,
	  100.0, NULL },
	{ "accel_nse", FILTER_PARAM_DOUBLE,
	  offsetof(struct comp_cfg, accel_nse), 0.0, 100.0, NULL },
	{ "imu_nse", FILTER_PARAM_DOUBLE, offsetof(struct comp_cfg, imu_nse),
	  0.0, 10.0, NULL },
	{ "bias_nse", FILTER_PARAM_DOUBLE, offsetof(struct comp_cfg, bias_nse),
	  0.0, 1.0, NULL },
	{ "timeout_s", FILTER_PARAM_DOUBLE,
	  offsetof(struct comp_cfg, timeout_s), 0.1, 3600.0, NULL },
	{ "imu_max_dt", FILTER_PARAM_DOUBLE,
	  offsetof(struct comp_cfg, imu_max_dt_s), 0.001, 10.0, NULL },
};

static void
comp_reset(void *state)
{
	struct comp_state *st = state;

	st->have = false;
	st->t_us = 0;
	st->last_pass_us = 0;
	st->x[0] = NAN;
	st->x[1] = st->x[2] = 0.0;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			st->p[i][j] = 0.0;
	st->have_acc = false;
	st->acc = 0.0;
	st->acc_t_us = 0;
	st->acc_seen = false;
}

static int
comp_create(void **state, const char *params, char *err, size_t errlen)
{
	struct comp_cfg cfg = {
		.noise_m = 2.0,
		.gate_sd = 5.0,
		.accel_nse = 1.0,
		.imu_nse = 0.35,
		.bias_nse = 0.003,
		.timeout_s = 5.0,
		.imu_max_dt_s = 0.05,
	};
	int rc = filter_params_parse("comp", params, comp_params,
				     sizeof(comp_params) /
					     sizeof(comp_params[0]),
				     &cfg, NULL, err, errlen);
	if (rc < 0)
		return rc;
	struct comp_state *st = malloc(sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->cfg = cfg;
	st->r = cfg.noise_m * cfg.noise_m;
	st->timeout_us = (uint64_t)llround(cfg.timeout_s * 1e6);
	comp_reset(st);
	*state = st;
	return 0;
}

static uint64_t
since(uint64_t now, uint64_t then)
{
	return now > then ? now - then : 0;
}

/* Height and climb restart at z; the bias and its variance stay. */
static void
start_at(struct comp_state *st, uint64_t now_us, double z)
{
	double p_bb = st->have ? st->p[2][2] : BIAS_SD0 * BIAS_SD0;

	st->have = true;
	st->t_us = now_us;
	st->last_pass_us = now_us;
	st->x[0] = z;
	st->x[1] = 0.0;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			st->p[i][j] = 0.0;
	st->p[0][0] = st->r;
	st->p[1][1] = VEL_SD0 * VEL_SD0;
	st->p[2][2] = p_bb;
}

/* x, P forward to now_us: P = F P F' + Q. */
static void
predict(struct comp_state *st, uint64_t now_us)
{
	double dt = (double)since(now_us, st->t_us) * 1e-6;
	if (dt <= 0.0)
		return;
	double dt2 = dt * dt;
	/* Without an accelerometer the bias does not act on the motion. */
	double fb = st->have_acc ? 1.0 : 0.0;
	double a = st->have_acc ? st->acc - st->x[2] : 0.0;
	double f[3][3] = {
		{ 1.0, dt, -0.5 * dt2 * fb },
		{ 0.0, 1.0, -dt * fb },
		{ 0.0, 0.0, 1.0 },
	};
	double fp[3][3], np[3][3];

	st->x[0] += st->x[1] * dt + 0.5 * a * dt2;
	st->x[1] += a * dt;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			fp[i][j] = f[i][0] * st->p[0][j] +
				   f[i][1] * st->p[1][j] +
				   f[i][2] * st->p[2][j];
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			np[i][j] = fp[i][0] * f[j][0] + fp[i][1] * f[j][1] +
				   fp[i][2] * f[j][2];
	/* White acceleration of density q on (h, v), exactly integrated. */
	double q = st->have_acc ? st->cfg.imu_nse * st->cfg.imu_nse
				: st->cfg.accel_nse * st->cfg.accel_nse;
	np[0][0] += q * dt2 * dt / 3.0;
	np[0][1] += q * dt2 / 2.0;
	np[1][0] += q * dt2 / 2.0;
	np[1][1] += q * dt;
	np[2][2] += st->cfg.bias_nse * st->cfg.bias_nse * dt;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			st->p[i][j] = np[i][j];
	st->t_us = now_us;
}

/* Fuse a height measurement with innovation innov, S = P_hh + R. */
static void
fuse(struct comp_state *st, double innov, double s)
{
	double k[3], ph[3];

	for (int i = 0; i < 3; i++) {
		ph[i] = st->p[0][i];
		k[i] = st->p[i][0] / s;
	}
	for (int i = 0; i < 3; i++) {
		st->x[i] += k[i] * innov;
		for (int j = 0; j < 3; j++)
			st->p[i][j] -= k[i] * ph[j];
	}
}

static void
take_accel(struct comp_state *st, const struct baro_filter_accel *a)
{
	bool valid = a->flags & BARO_FILTER_SENSOR_VALID;
	/* Integrated only at a rate that follows the motion: the interval
	 * from the previous sample, so the first one waits for a second. */
	bool dense = valid && st->acc_seen && a->time_us >= st->acc_t_us &&
		     (double)(a->time_us - st->acc_t_us) * 1e-6 <=
			     st->cfg.imu_max_dt_s;
	if (valid) {
		st->acc_seen = true;
		st->acc_t_us = a->time_us;
	}
	bool usable = dense &&
		      (a->flags & BARO_FILTER_ACCEL_HAS_ATTITUDE) &&
		      isfinite(a->vert_accel_mss);

	/* A bias learned with the accelerometer means nothing to the
	 * random-acceleration model and back: its cross terms go. */
	if (usable != st->have_acc)
		for (int i = 0; i < 2; i++)
			st->p[i][2] = st->p[2][i] = 0.0;
	st->have_acc = usable;
	st->acc = usable ? a->vert_accel_mss : 0.0;
}

static void
comp_step(void *state, const struct baro_filter_frame *in,
	  struct baro_filter_output2 *out)
{
	struct comp_state *st = state;
	const struct baro_filter_baro *b = &in->baro[0];
	uint64_t now = in->now_us;

	out->flags = 0;
	out->test_ratio = NAN;
	/* The acceleration held so far carries the state to now; a fresh
	 * accelerometer sample acts from now on. */
	if (st->have)
		predict(st, now);
	if (!(in->accel.flags & BARO_FILTER_SENSOR_VALID) ||
	    (in->accel.flags & BARO_FILTER_SENSOR_FRESH))
		take_accel(st, &in->accel);

	if (b->flags & BARO_FILTER_SENSOR_FRESH) {
		if (!isfinite(b->alt_m)) {
			out->flags |= BARO_FILTER_OUT_REJECTED;
		} else if (!st->have) {
			start_at(st, now, b->alt_m);
		} else {
			bool timed_out = since(now, st->last_pass_us) >
					 st->timeout_us;
			double innov = b->alt_m - st->x[0];
			double s = st->p[0][0] + st->r;
			double ratio = innov * innov /
				       (st->cfg.gate_sd * st->cfg.gate_sd * s);
			out->test_ratio = ratio;
			if (timed_out) {
				start_at(st, now, b->alt_m);
			} else if (ratio < 1.0) {
				fuse(st, innov, s);
				st->last_pass_us = now;
			} else {
				out->flags |= BARO_FILTER_OUT_REJECTED;
			}
		}
	}
	if (st->have) {
		out->alt_m = st->x[0];
		out->climb_m_s = st->x[1];
		if (since(now, st->last_pass_us) <= st->timeout_us)
			out->flags |= BARO_FILTER_OUT_HEALTHY;
	}
	out->baro_flags[0] = (out->flags & BARO_FILTER_OUT_HEALTHY
				      ? BARO_FILTER_BARO_OUT_HEALTHY
				      : 0u) |
			     (out->flags & BARO_FILTER_OUT_REJECTED
				      ? BARO_FILTER_BARO_OUT_REJECTED
				      : 0u) |
			     (st->have ? BARO_FILTER_BARO_OUT_SELECTED : 0u);
}

static void
comp_destroy(void *state)
{
	free(state);
}

static size_t
comp_state_size(const void *state)
{
	(void)state;
	return sizeof(struct comp_state);
}

const struct baro_filter2 baro_filter_comp = {
	.abi_version = BARO_FILTER2_ABI_VERSION,
	.name = "comp",
	.description = "baro + accelerometer 3-state Kalman filter (height, "
		       "climb, accel bias) with gate's innovation gate and "
		       "timeout; noise=2, gate=5, accel_nse=1 (no IMU), "
		       "imu_nse=0.35, bias_nse=0.003, timeout_s=5, "
		       "imu_max_dt=0.05",
	.reads = BARO_FILTER_READS_ACCEL,
	.create = comp_create,
	.step = comp_step,
	.reset = comp_reset,
	.destroy = comp_destroy,
	.state_size = comp_state_size,
};
