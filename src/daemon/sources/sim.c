/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * --sim: the AP_Baro_SITL emulator on barod's own 100 Hz clock, the truth
 * from the profile or a truth trace.  One vehicle; its physics time is
 * barod's ticks.
 */
#include <errno.h>
#include <stdlib.h>

#include "daemon.h"
#include "source.h"

struct sim_source {
	struct vehicles fleet;
};

static int
sim_open(struct daemon *d, void **state, char *err, size_t errlen)
{
	struct sim_source *s = calloc(1, sizeof(*s));

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	daemon_vehicles_setup(d, &s->fleet, 1);
	*state = s;
	return 0;
}

static void
sim_close(struct daemon *d, void *state)
{
	(void)d;
	free(state);
}

/* One 10 ms step of the simulation at d->ticks. */
static void
sim_tick(struct daemon *d, void *state, bool last)
{
	struct sim_source *s = state;
	struct baro_sample out[BARO_MAX_INSTANCES];
	bool published[BARO_MAX_INSTANCES];
	struct baro_sitl_truth truth = { 0 };
	const uint64_t now_us = d->ticks * TICK_MS * 1000u;

	(void)last;
	const double t = (double)d->ticks * TICK_MS * 1e-3;
	double h = d->trace.n ? truth_trace_height(&d->trace, t)
			      : truth_profile_height(&d->cfg.profile, t);
	float thr = d->trace.n ? truth_trace_throttle(&d->trace, t)
			       : (float)truth_profile_throttle(&d->cfg.profile, t);
	int32_t alt_cm = 0;
	if (baro_sitl_altitude_cm(d->cfg.home_alt_m, h, &alt_cm) == 0)
		truth.alt_amsl_m = baro_sitl_alt_from_cm(alt_cm);
	/* Each tick is a physics step: SITL's height above ground follows
	 * every one. */
	daemon_vehicle_ground(
		&s->fleet, 0,
		daemon_vehicle_agl(&s->fleet, 0,
				   baro_sitl_state_altitude(alt_cm)),
		thr, &truth);

	daemon_vehicle_clock(d, &s->fleet, 0, now_us);
	(void)daemon_vehicle_step(d, &s->fleet, 0, now_us,
				  (uint32_t)(now_us / 1000u), &truth, out,
				  published, NULL);
}

static void
sim_status(struct daemon *d, void *state, FILE *out)
{
	struct sim_source *s = state;

	(void)d;
	daemon_vehicles_status(&s->fleet, out);
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
