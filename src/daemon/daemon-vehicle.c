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

void
daemon_vehicles_setup(struct daemon *d, struct vehicles *fleet, unsigned n)
{
	fleet->n = n;
	for (unsigned v = 1; v < n; v++)
		baro_sitl_init(&fleet->extra[v], &d->sim.params,
			       d->cfg.atmosphere, d->cfg.seed + v);
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
		/* Live changes (GCS, baroctl, scenarios) reach every vehicle. */
		fleet->extra[v].params = d->sim.params;
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
	baro_sitl_init(daemon_vehicle_sim(d, fleet, v), &params,
		       d->cfg.atmosphere, d->cfg.seed + v);
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
