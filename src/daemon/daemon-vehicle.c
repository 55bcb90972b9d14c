/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Vehicles on physics time, shared by every simulated source: one
 * emulator per vehicle (barod's own for vehicle 0), stepped at the
 * vehicle's clock, its samples emitted with the vehicle's index.  The
 * one set-up of vehicles 1..N-1 and the one restart path live here.
 */
#include "daemon.h"

struct baro_sitl *
daemon_vehicle_sim(struct daemon *d, struct vehicles *fleet, unsigned v)
{
	return v == 0 ? &d->sim : &fleet->extra[v];
}

static void
ground_init(struct vehicle_ground *g)
{
	baro_sitl_agl_init(&g->agl);
	g->throttle = 0.0f;
	g->height_agl_m = 0.0;
}

void
daemon_vehicles_setup(struct daemon *d, struct vehicles *fleet, unsigned n)
{
	fleet->n = n;
	for (unsigned v = 0; v < n; v++)
		ground_init(&fleet->ground[v]);
	for (unsigned v = 1; v < n; v++) {
		baro_sitl_init(&fleet->extra[v], &d->sim.params,
			       d->cfg.atmosphere, d->cfg.seed + v);
		baro_sitl_set_ardupilot(&fleet->extra[v], d->sim.ardupilot);
	}
}

double
daemon_vehicle_agl(struct vehicles *fleet, unsigned v, double altitude_m)
{
	return baro_sitl_agl_update(&fleet->ground[v].agl, altitude_m);
}

void
daemon_vehicle_ground(struct vehicles *fleet, unsigned v, double height_agl_m,
		      float throttle, struct baro_sitl_truth *truth)
{
	fleet->ground[v].throttle = throttle;
	fleet->ground[v].height_agl_m = height_agl_m;
	truth->throttle = throttle;
	truth->height_agl_m = height_agl_m;
}

void
daemon_vehicles_status(const struct vehicles *fleet, FILE *out)
{
	for (unsigned v = 0; v < fleet->n; v++)
		fprintf(out, "vehicle %u throttle %.3f h_agl %.3f m\n", v,
			(double)fleet->ground[v].throttle,
			fleet->ground[v].height_agl_m);
}

void
daemon_vehicle_clock(struct daemon *d, struct vehicles *fleet, unsigned v,
		     uint64_t now_us)
{
	if (v == 0) {
		/* Scenarios follow vehicle 0's physics clock. */
		d->clock_ms = now_us / 1000u;
		daemon_scenario_step(d, (uint32_t)d->clock_ms);
	} else {
		/* Live changes (GCS, baroctl, scenarios, a reload) reach
		 * every vehicle. */
		fleet->extra[v].params = d->sim.params;
		fleet->extra[v].atmosphere = d->sim.atmosphere;
		if (fleet->extra[v].ardupilot != d->sim.ardupilot)
			baro_sitl_set_ardupilot(&fleet->extra[v],
						d->sim.ardupilot);
	}
}

void
daemon_vehicle_restart(struct daemon *d, struct vehicles *fleet, unsigned v)
{
	if (v == 0) {
		d->clock_ms = 0;
		/* A restarted simulation replays its scenario from t = 0,
		 * from the parameters it started with. */
		daemon_scenario_restart(d);
	}
	struct sim_params params = d->sim.params;
	const enum baro_sitl_ardupilot release = d->sim.ardupilot;
	struct baro_sitl *sim = daemon_vehicle_sim(d, fleet, v);
	baro_sitl_init(sim, &params, d->cfg.atmosphere, d->cfg.seed + v);
	baro_sitl_set_ardupilot(sim, release);
	/* A new SITL process: its "first altitude above 0" is new too. */
	ground_init(&fleet->ground[v]);
	/* Rate-limited outputs start their cadence again at 0. */
	sinks_restart(&d->sinks, v);
}

unsigned
daemon_vehicle_step(struct daemon *d, struct vehicles *fleet, unsigned v,
		    uint64_t now_us, uint32_t emulator_ms,
		    const struct baro_sitl_truth *truth,
		    struct baro_sample out[BARO_MAX_INSTANCES],
		    bool published[BARO_MAX_INSTANCES], float *emulated_pa)
{
	return daemon_vehicle_step_measured(d, fleet, v, now_us, emulator_ms,
					    truth, NULL, NULL, out, published,
					    emulated_pa);
}

unsigned
daemon_vehicle_step_measured(struct daemon *d, struct vehicles *fleet,
			     unsigned v, uint64_t now_us, uint32_t emulator_ms,
			     const struct baro_sitl_truth *truth,
			     void (*measured)(struct baro_sample *s, void *user),
			     void *user,
			     struct baro_sample out[BARO_MAX_INSTANCES],
			     bool published[BARO_MAX_INSTANCES],
			     float *emulated_pa)
{
	const struct emit_ctx ctx = { .vehicle = v, .now_us = now_us };
	unsigned n = baro_sitl_update(daemon_vehicle_sim(d, fleet, v),
				      emulator_ms, truth, out);

	for (unsigned k = 0; k < n; k++) {
		out[k].time_us = now_us;
		if (measured)
			measured(&out[k], user);
		if (emulated_pa)
			emulated_pa[k] = out[k].pressure_pa;
		published[k] = daemon_emit(d, &ctx, &out[k]);
	}
	return n;
}
