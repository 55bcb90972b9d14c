/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The SITL JSON modes: each ArduPilot instance is a vehicle with its own
 * emulator stepped on that instance's physics time.  Its samples are
 * published (sysid + instance) and recorded like any others, and go back
 * into the JSON replies as rng_N and barod's own fields.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"

static unsigned
vehicle_of(const struct daemon *d, const struct sitl_link *l)
{
	return (unsigned)(l - d->links);
}

static bool
on_step(void *user, struct sitl_link *l, uint64_t now_us,
	const struct baro_sitl_truth *truth, struct sitl_baro_fields *f)
{
	struct daemon *d = user;
	const unsigned v = vehicle_of(d, l);
	struct baro_sitl *sim = daemon_vehicle_sim(d, v);
	struct baro_sample out[BARO_MAX_INSTANCES];

	/* Instance 0's physics clock starts at its first frame. */
	daemon_vehicle_clock(d, v, now_us);

	bool published[BARO_MAX_INSTANCES];
	const unsigned n = daemon_vehicle_step(d, v, now_us, (uint32_t)(now_us / 1000u),
					       truth, out, published, NULL);

	/* What goes into the reply: the latest published sample of each
	 * baro (they come at 100 Hz, physics frames faster). */
	const unsigned last_count = f->count;
	f->count = (unsigned)sim->params.baro_count;
	for (unsigned i = 0; i < f->count; i++) {
		const struct baro_sample *s = &d->latest[v][i];
		f->healthy[i] = d->have_latest[v][i] &&
				baro_sitl_healthy(sim, i);
		f->pressure_pa[i] = s->pressure_pa;
		f->temperature_c[i] = s->temperature_c;
		f->height_m[i] = baro_sample_has(s, BARO_SAMPLE_HAS_ALTITUDE)
					 ? s->alt_m - (float)d->cfg.home_alt_m
					 : 0.0f;
	}
	/* Only a new sample, or the instance count, changes the fields. */
	return n > 0 || f->count != last_count;
}

static void
on_restart(void *user, struct sitl_link *l)
{
	struct daemon *d = user;
	const unsigned v = vehicle_of(d, l);

	if (v == 0) {
		d->clock_ms = 0;
		/* A restarted simulation replays its scenario from t = 0,
		 * from the parameters it started with. */
		daemon_scenario_restart(d);
	}
	struct sim_params params = d->sim.params;
	baro_sitl_init(daemon_vehicle_sim(d, v), &params, d->cfg.atmosphere,
		       d->cfg.seed + v);
	memset(d->have_latest[v], 0, sizeof(d->have_latest[v]));
}

static void
on_log(void *user, struct sitl_link *l, int level, const char *text)
{
	struct daemon *d = user;

	(void)l;
	log_msg(&d->log, (enum log_level)level, "%s", text);
}

int
daemon_sitl_open(struct daemon *d, char *err, size_t errlen)
{
	const struct config_sitl *c = &d->cfg.sitl;

	for (unsigned v = 0; v < c->instances; v++) {
		struct sitl_link_config lc = {
			.mode = d->cfg.source == CONFIG_SOURCE_SITL_PROXY
					? SITL_PROXY
					: SITL_PEER,
			.instance = v,
			.port = c->port + 10u * v,
			.home_alt_m = d->cfg.home_alt_m,
			.profile = d->cfg.profile,
			.trace = d->trace.n ? &d->trace : NULL,
		};
		snprintf(lc.bind_host, sizeof(lc.bind_host), "%s", c->bind);
		memcpy(lc.rng_instance, c->rng, sizeof(lc.rng_instance));
		if (lc.mode == SITL_PROXY) {
			/* Instance N's backend listens 10 N ports up. */
			const char *colon = strrchr(c->upstream, ':');
			unsigned port = (unsigned)atoi(colon + 1) + 10u * v;
			snprintf(lc.upstream, sizeof(lc.upstream), "%.*s:%u",
				 (int)(colon - c->upstream), c->upstream, port);
		}
		if (v > 0)
			baro_sitl_init(&d->vehicle_sim[v], &d->sim.params,
				       d->cfg.atmosphere, d->cfg.seed + v);
		int rc = sitl_link_open(&d->links[v], &lc, &d->loop, on_step,
					on_restart, on_log, d, err, errlen);
		if (rc < 0)
			return rc;
		d->n_links++;
		log_msg(&d->log, LOG_LEVEL_INFO,
			"SITL instance %u: %s on %s:%u%s%s", v,
			lc.mode == SITL_PROXY ? "proxy" : "JSON physics peer",
			lc.bind_host, lc.port,
			lc.mode == SITL_PROXY ? ", upstream " : "",
			lc.mode == SITL_PROXY ? lc.upstream : "");
	}
	return 0;
}

void
daemon_sitl_close(struct daemon *d)
{
	for (size_t v = 0; v < d->n_links; v++)
		sitl_link_close(&d->links[v]);
	d->n_links = 0;
}

void
daemon_sitl_check(struct daemon *d, uint64_t wall_us)
{
	for (size_t v = 0; v < d->n_links; v++)
		sitl_link_check(&d->links[v], wall_us);
}
