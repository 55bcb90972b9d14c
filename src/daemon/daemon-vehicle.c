/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Vehicles on physics time, shared by the SITL JSON and PX4 modes: one
 * emulator per vehicle (barod's own for vehicle 0), stepped at the
 * vehicle's clock, its samples through the fault overlay (vehicle 0's
 * baros are the ones scenarios and injections address) and published
 * with the vehicle's sysid offset.
 */
#include "daemon.h"

struct baro_sitl *
daemon_vehicle_sim(struct daemon *d, unsigned v)
{
	return v == 0 ? &d->sim : &d->vehicle_sim[v];
}

void
daemon_vehicle_clock(struct daemon *d, unsigned v, uint64_t now_us)
{
	if (v == 0) {
		/* Scenarios follow vehicle 0's physics clock. */
		d->clock_ms = now_us / 1000u;
		daemon_scenario_step(d, (uint32_t)d->clock_ms);
	} else {
		/* Live changes (GCS, baroctl, scenarios) reach every vehicle. */
		d->vehicle_sim[v].params = d->sim.params;
	}
}

unsigned
daemon_vehicle_step(struct daemon *d, unsigned v, uint64_t now_us,
		    uint32_t emulator_ms, const struct baro_sitl_truth *truth,
		    struct baro_sample out[BARO_MAX_INSTANCES],
		    bool published[BARO_MAX_INSTANCES], float *emulated_pa)
{
	struct baro_sitl *sim = daemon_vehicle_sim(d, v);

	d->sysid_offset = (uint8_t)v;
	unsigned n = baro_sitl_update(sim, emulator_ms, truth, out);
	for (unsigned k = 0; k < n; k++) {
		const unsigned i = out[k].instance;

		out[k].time_us = now_us;
		if (emulated_pa)
			emulated_pa[k] = out[k].pressure_pa;
		published[k] = true;
		if (v == 0) {
			d->samples[i]++;
			published[k] = fault_overlay_apply(&d->overlay, &out[k]);
			if (!published[k])
				d->withheld[i]++;
		}
		if (!published[k])
			continue;
		d->latest[v][i] = out[k];
		d->have_latest[v][i] = true;
		daemon_publish_sample(d, &out[k], now_us);
		daemon_record(d, &out[k]);
	}
	d->sysid_offset = 0;
	return n;
}
