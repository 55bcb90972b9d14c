/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * --sim: the AP_Baro_SITL emulator on barod's own 100 Hz clock, the truth
 * from the profile or a truth trace.  One vehicle; its physics time is
 * barod's ticks.
 */
#include <errno.h>
#include <stdlib.h>

#include "source.h"
#include "vehicle.h"

struct sim_source {
	struct vehicles fleet;
};

static int
sim_open(const struct source_env *env, void **state, char *err,
	 size_t errlen)
{
	struct sim_source *s = calloc(1, sizeof(*s));

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	vehicles_setup(env, &s->fleet, 1);
	*state = s;
	return 0;
}

static void
sim_close(const struct source_env *env, void *state)
{
	(void)env;
	free(state);
}

/* One 10 ms step of the simulation at tick count ticks. */
static void
sim_tick(const struct source_env *env, void *state, uint64_t ticks, bool last)
{
	struct sim_source *s = state;
	struct baro_sample out[BARO_MAX_INSTANCES];
	bool published[BARO_MAX_INSTANCES];
	const struct truth_trace *trace = env->trace;
	const uint64_t now_us = ticks * TICK_MS * 1000u;

	(void)last;
	const double t = (double)ticks * TICK_MS * 1e-3;
	double h = trace->n ? truth_trace_height(trace, t)
			    : truth_profile_height(&env->cfg->profile, t);
	float thr = trace->n
			    ? truth_trace_throttle(trace, t)
			    : (float)truth_profile_throttle(&env->cfg->profile, t);
	int32_t alt_cm = 0;
	struct vehicle_input in = {
		.now_us = now_us,
		.emulator_ms = (uint32_t)(now_us / 1000u),
		.throttle = thr,
		/* Each tick is a physics step: SITL's height above ground
		 * follows every one. */
		.sitl_agl = true,
	};
	if (baro_sitl_altitude_cm(env->cfg->home_alt_m, h, &alt_cm) == 0)
		in.truth.alt_amsl_m = baro_sitl_alt_from_cm(alt_cm);
	in.sitl_altitude_m = baro_sitl_state_altitude(alt_cm);
	(void)vehicle_step(env, &s->fleet, 0, &in, out, published);
}

static void
sim_status(const struct source_env *env, void *state, FILE *out)
{
	struct sim_source *s = state;

	(void)env;
	vehicles_status(&s->fleet, out);
}

const struct source_ops source_sim = {
	.name = "sim",
	.flags = SOURCE_EMULATED,
	.open = sim_open,
	.close = sim_close,
	.tick = sim_tick,
	.status = sim_status,
	.describe = source_describe_emulated,
};
