/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Vehicles on physics time, shared by every simulated source: one
 * emulator per vehicle (env->sim for vehicle 0), stepped at the
 * vehicle's clock, its samples emitted with the vehicle's index.  The
 * one physics step, the one set-up of vehicles 1..N-1 and the one
 * restart path live here.
 */
#include "vehicle.h"

struct baro_sitl *
vehicle_sim(const struct source_env *env, struct vehicles *fleet, unsigned v)
{
	return v == 0 ? env->sim : &fleet->extra[v];
}

static void
ground_init(struct vehicle_ground *g)
{
	baro_sitl_agl_init(&g->agl);
	g->throttle = 0.0f;
	g->height_agl_m = 0.0;
}

void
vehicles_setup(const struct source_env *env, struct vehicles *fleet,
	       unsigned n)
{
	fleet->n = n;
	for (unsigned v = 0; v < n; v++)
		ground_init(&fleet->ground[v]);
	for (unsigned v = 1; v < n; v++) {
		baro_sitl_init(&fleet->extra[v], &env->sim->params,
			       env->cfg->atmosphere, env->cfg->seed + v);
		baro_sitl_set_ardupilot(&fleet->extra[v], env->sim->ardupilot);
	}
}

void
vehicles_status(const struct vehicles *fleet, FILE *out)
{
	for (unsigned v = 0; v < fleet->n; v++)
		fprintf(out, "vehicle %u throttle %.3f h_agl %.3f m\n", v,
			(double)fleet->ground[v].throttle,
			fleet->ground[v].height_agl_m);
}

void
vehicle_clock(const struct source_env *env, struct vehicles *fleet,
	      unsigned v, uint64_t now_us)
{
	if (v == 0) {
		/* Scenarios follow vehicle 0's physics clock. */
		env->clock(env->user, now_us / 1000u);
	} else {
		/* Live changes (GCS, baroctl, scenarios, a reload) reach
		 * every vehicle. */
		const struct baro_sitl *v0 = env->sim;
		fleet->extra[v].params = v0->params;
		fleet->extra[v].atmosphere = v0->atmosphere;
		if (fleet->extra[v].ardupilot != v0->ardupilot)
			baro_sitl_set_ardupilot(&fleet->extra[v],
						v0->ardupilot);
	}
}

void
vehicle_restart(const struct source_env *env, struct vehicles *fleet,
		unsigned v)
{
	/* First: a restarted scenario puts vehicle 0's parameters back to
	 * those it started with, which the new emulator takes. */
	env->restart(env->user, v);
	struct sim_params params = env->sim->params;
	const enum baro_sitl_ardupilot release = env->sim->ardupilot;
	struct baro_sitl *sim = vehicle_sim(env, fleet, v);
	baro_sitl_init(sim, &params, env->cfg->atmosphere, env->cfg->seed + v);
	baro_sitl_set_ardupilot(sim, release);
	/* A new SITL process: its "first altitude above 0" is new too. */
	ground_init(&fleet->ground[v]);
}

/*
 * The order: the clock first, because a scenario line due at now_us may
 * change SIM_* parameters, and this step's samples must be made with
 * them (ArduPilot applies a parameter before the next timer call).  The
 * ground and the height above it next: baro_sitl_agl_update reads only
 * the altitude and its own state, never the parameters or the scenario,
 * so whether it runs before or after the clock changes no output (sim.c
 * ran it before, px4-sim.c and sitl-json.c after: the bit-exact tests
 * against ArduPilot's vectors pass either way); it must only precede the
 * emulator, whose ground effect reads the height.  The emulator last.
 */
unsigned
vehicle_step(const struct source_env *env, struct vehicles *fleet, unsigned v,
	     const struct vehicle_input *in,
	     struct baro_sample out[BARO_MAX_INSTANCES],
	     bool published[BARO_MAX_INSTANCES])
{
	const struct emit_ctx ctx = { .vehicle = v, .now_us = in->now_us };
	struct vehicle_ground *g = &fleet->ground[v];
	struct baro_sitl_truth truth = in->truth;

	vehicle_clock(env, fleet, v, in->now_us);

	g->height_agl_m = in->sitl_agl
				  ? baro_sitl_agl_update(&g->agl,
							 in->sitl_altitude_m)
				  : in->height_agl_m;
	g->throttle = in->throttle;
	truth.height_agl_m = g->height_agl_m;
	truth.throttle = in->throttle;

	unsigned n = baro_sitl_update(vehicle_sim(env, fleet, v),
				      in->emulator_ms, &truth, out);
	for (unsigned k = 0; k < n; k++) {
		out[k].time_us = in->now_us;
		if (in->measured)
			in->measured(&out[k], in->measured_user);
		published[k] = env->emit(env->user, &ctx, &out[k]);
	}
	return n;
}

void
source_describe_emulated(const struct source_env *env, const void *state,
			 char *buf, size_t len)
{
	(void)state;
	snprintf(buf, len, "%d simulated baro(s), home %.2f m AMSL, "
			   "atmosphere %s",
		 env->cfg->params.baro_count, env->cfg->home_alt_m,
		 baro_sitl_atmosphere_name(env->cfg->atmosphere));
}
