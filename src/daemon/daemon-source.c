/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The daemon's side of the sources: the one source_env every source
 * gets (sources/source.h), built here from struct daemon, and what its
 * callbacks do.  Its pointers are into the daemon, whose configuration a
 * reload replaces in place, so the environment stays current by itself.
 */
#include "daemon.h"

static bool
env_emit(void *user, const struct emit_ctx *ctx, struct baro_sample *s)
{
	return daemon_emit(user, ctx, s);
}

static void
env_clock(void *user, uint64_t now_ms)
{
	daemon_scenario_clock(user, now_ms);
}

static void
env_restart(void *user, unsigned vehicle)
{
	struct daemon *d = user;

	if (vehicle == 0) {
		d->clock_ms = 0;
		/* A restarted simulation replays its scenario from t = 0,
		 * from the parameters it started with. */
		daemon_scenario_restart(d);
	}
	/* Rate-limited outputs start their cadence again at 0. */
	sinks_restart(&d->sinks, vehicle);
}

void
daemon_source_env(struct daemon *d)
{
	d->source_env = (struct source_env){
		.cfg = &d->cfg,
		.trace = &d->trace,
		.log = &d->log,
		.loop = &d->loop,
		.sim = &d->sim,
		.samples = d->samples,
		.emit = env_emit,
		.clock = env_clock,
		.restart = env_restart,
		.user = d,
	};
}
