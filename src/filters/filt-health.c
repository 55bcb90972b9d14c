/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * health: the autopilots' sensor health rules, no smoothing.  The
 * estimate is the altitude of the last sample taken in.
 *
 * mode=ardupilot (AP_Baro_Backend::update_healthy_flag): healthy while
 * the last sample is less than timeout_ms old, pressure or temperature
 * changed less than freeze_ms ago, pressure is not 0 and temperature is
 * within +-200 C.  NaN/inf pressure never reaches the front end
 * (pressure_ok() drops it), so such a sample is rejected and does not
 * count as an update.
 *
 * mode=px4 (DataValidator): healthy unless no sample came for more than
 * timeout_ms, or more than stale_count samples in a row were identical
 * to their predecessor.  A non-finite pressure is not stored but, as in
 * DataValidator::put(), still refreshes the timeout.
 *
 * Time is the host's µs, not ArduPilot's integer ms; at whole-ms times
 * the two agree.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "filt-builtin.h"
#include "filter-params.h"

enum health_mode { MODE_ARDUPILOT, MODE_PX4 };

#define AP_TIMEOUT_MS 500u		/* BARO_TIMEOUT_MS */
#define AP_FREEZE_MS 2000u		/* BARO_DATA_CHANGE_TIMEOUT_MS */
#define AP_TEMP_LIMIT_C 200.0f
#define PX4_TIMEOUT_MS 300u		/* VehicleAirData's baro timeout */
#define PX4_STALE_COUNT 100u		/* _value_equal_count_threshold */
#define PX4_EQUAL_EPS 0.000001f

struct health_cfg {
	uint32_t mode;
	uint32_t timeout_ms;
	uint32_t freeze_ms;
	uint32_t stale_count;
};

struct health_state {
	struct health_cfg cfg;
	bool have_sample;
	uint64_t last_update_us;
	uint64_t last_change_us;	/* ardupilot */
	uint32_t equal_count;		/* px4 */
	/* The values the front end holds, as float like the autopilots. */
	float pressure_pa;
	float temperature_c;
	double alt_m;
};

static const char *const health_modes[] = { "ardupilot", "px4", NULL };

enum { P_MODE, P_TIMEOUT, P_FREEZE, P_STALE };
static const struct filter_param health_params[] = {
	[P_MODE] = { "mode", FILTER_PARAM_CHOICE,
		     offsetof(struct health_cfg, mode), 0, 0, health_modes },
	[P_TIMEOUT] = { "timeout_ms", FILTER_PARAM_UINT,
			offsetof(struct health_cfg, timeout_ms), 1, 3600000,
			NULL },
	[P_FREEZE] = { "freeze_ms", FILTER_PARAM_UINT,
		       offsetof(struct health_cfg, freeze_ms), 1, 3600000,
		       NULL },
	[P_STALE] = { "stale_count", FILTER_PARAM_UINT,
		      offsetof(struct health_cfg, stale_count), 1, 1e9, NULL },
};

static void
health_reset(void *state)
{
	struct health_state *st = state;
	struct health_cfg cfg = st->cfg;

	*st = (struct health_state){ .cfg = cfg, .alt_m = NAN };
}

static int
health_create(void **state, const char *params, char *err, size_t errlen)
{
	struct health_cfg cfg = { .mode = MODE_ARDUPILOT };
	uint32_t given;
	int rc = filter_params_parse("health", params, health_params,
				     sizeof(health_params) /
					     sizeof(health_params[0]),
				     &cfg, &given, err, errlen);
	if (rc < 0)
		return rc;
	if (cfg.mode == MODE_ARDUPILOT && (given & (1u << P_STALE))) {
		snprintf(err, errlen, "health: stale_count applies only to "
			 "mode=px4 (ardupilot detects a freeze by freeze_ms)");
		return -EINVAL;
	}
	if (cfg.mode == MODE_PX4 && (given & (1u << P_FREEZE))) {
		snprintf(err, errlen, "health: freeze_ms applies only to "
			 "mode=ardupilot (px4 detects a freeze by "
			 "stale_count)");
		return -EINVAL;
	}
	if (!(given & (1u << P_TIMEOUT)))
		cfg.timeout_ms = cfg.mode == MODE_PX4 ? PX4_TIMEOUT_MS
						      : AP_TIMEOUT_MS;
	if (!(given & (1u << P_FREEZE)))
		cfg.freeze_ms = AP_FREEZE_MS;
	if (!(given & (1u << P_STALE)))
		cfg.stale_count = PX4_STALE_COUNT;

	struct health_state *st = malloc(sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->cfg = cfg;
	health_reset(st);
	*state = st;
	return 0;
}

/* Time since then; 0 if the host's clock went backwards. */
static uint64_t
since(uint64_t now, uint64_t then)
{
	return now > then ? now - then : 0;
}

/* ArduPilot's is_equal() for floats. */
static bool
ap_equal(float a, float b)
{
	return fabsf(a - b) < FLT_EPSILON;
}

static void
take_ardupilot(struct health_state *st, uint64_t now_us,
	       const struct baro_filter_input *in, float p, float t)
{
	if (!st->have_sample || !ap_equal(st->pressure_pa, p) ||
	    !ap_equal(st->temperature_c, t))
		st->last_change_us = now_us;
	st->pressure_pa = p;
	st->temperature_c = t;
	st->last_update_us = now_us;
	st->have_sample = true;
	st->alt_m = in->alt_m;
}

static void
take_px4(struct health_state *st, uint64_t now_us,
	 const struct baro_filter_input *in, float p, float t)
{
	if (st->have_sample && fabsf(st->pressure_pa - p) < PX4_EQUAL_EPS &&
	    fabsf(st->temperature_c - t) < PX4_EQUAL_EPS)
		st->equal_count++;
	else
		st->equal_count = 0;
	st->pressure_pa = p;
	st->temperature_c = t;
	st->last_update_us = now_us;
	st->have_sample = true;
	st->alt_m = in->alt_m;
}

static bool
healthy(const struct health_state *st, uint64_t now_us)
{
	if (!st->have_sample)
		return false;
	uint64_t age = since(now_us, st->last_update_us);
	uint64_t timeout = (uint64_t)st->cfg.timeout_ms * 1000u;

	if (st->cfg.mode == MODE_PX4)
		return age <= timeout && st->equal_count <= st->cfg.stale_count;
	return age < timeout &&
	       since(now_us, st->last_change_us) <
		       (uint64_t)st->cfg.freeze_ms * 1000u &&
	       !(fabsf(st->pressure_pa) < FLT_EPSILON) &&
	       !(st->temperature_c < -AP_TEMP_LIMIT_C ||
		 st->temperature_c > AP_TEMP_LIMIT_C);
}

static void
health_step(void *state, uint64_t now_us, const struct baro_filter_input *in,
	    struct baro_filter_output *out)
{
	struct health_state *st = state;

	out->flags = 0;
	if (in) {
		float p = (float)in->pressure_pa;
		/* Without a temperature the front end keeps the last one. */
		float t = (in->flags & BARO_FILTER_IN_HAS_TEMPERATURE)
				  ? (float)in->temperature_c
				  : st->temperature_c;
		if (!isfinite(p)) {
			out->flags |= BARO_FILTER_OUT_REJECTED;
			if (st->cfg.mode == MODE_PX4 && st->have_sample)
				st->last_update_us = now_us;
		} else if (st->cfg.mode == MODE_PX4) {
			take_px4(st, now_us, in, p, t);
		} else {
			take_ardupilot(st, now_us, in, p, t);
		}
	}
	if (healthy(st, now_us))
		out->flags |= BARO_FILTER_OUT_HEALTHY;
	out->alt_m = st->alt_m;
	out->test_ratio = NAN;
}

static void
health_destroy(void *state)
{
	free(state);
}

static size_t
health_state_size(const void *state)
{
	(void)state;
	return sizeof(struct health_state);
}

const struct baro_filter baro_filter_health = {
	.abi_version = BARO_FILTER_ABI_VERSION,
	.name = "health",
	.description = "autopilot sensor health rules; mode=ardupilot "
		       "(timeout_ms=500, freeze_ms=2000) or mode=px4 "
		       "(timeout_ms=300, stale_count=100)",
	.create = health_create,
	.step = health_step,
	.reset = health_reset,
	.destroy = health_destroy,
	.state_size = health_state_size,
};
