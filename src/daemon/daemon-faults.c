/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Faults at run time: scenario files and one-off PX4-style injections. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "px4-failure.h"

/* Whether baro instance exists: below SIM_BARO_COUNT for the emulator,
 * a configured [sensor] in hardware mode. */
bool
daemon_baro_exists(const struct daemon *d, unsigned instance)
{
	if (daemon_emulated(d))
		return instance < (unsigned)d->sim.params.baro_count;
	for (size_t i = 0; i < d->cfg.n_sensors; i++) {
		if ((unsigned)d->cfg.sensors[i].instance == instance)
			return true;
	}
	return false;
}

/* The configured sensors' instances, bit i for instance i. */
static unsigned
hw_instances(const struct daemon *d)
{
	unsigned mask = 0;

	for (unsigned i = 0; i < BARO_MAX_INSTANCES; i++) {
		if (daemon_baro_exists(d, i))
			mask |= 1u << i;
	}
	return mask;
}

static void
report_events(struct daemon *d, const struct scenario_event *ev, int n)
{
	char text[200], when[32];

	for (int i = 0; i < n; i++) {
		scenario_format_ms(ev[i].time_ms, when, sizeof(when));
		int len = snprintf(text, sizeof(text), "t=%s ", when);
		scenario_event_format(&ev[i], text + len,
				      sizeof(text) - (size_t)len);
		daemon_announce(d, MAV_SEVERITY_NOTICE, text);
	}
}

static void
scenario_free(struct daemon *d)
{
	free(d->scenario);
	free(d->run);
	d->scenario = NULL;
	d->run = NULL;
}

/* The sources' env->clock: vehicle 0's physics time, or in hardware mode
 * (from the 10 ms tick) the daemon's time since start, as there is no
 * emulator clock. */
void
daemon_scenario_clock(struct daemon *d, uint64_t since_start_ms)
{
	d->clock_ms = since_start_ms;
	daemon_scenario_step(d, (uint32_t)since_start_ms);
}

/* Before each emulator call: whatever the scenario has due by now. */
void
daemon_scenario_step(struct daemon *d, uint32_t now_ms)
{
	struct scenario_event ev[SCENARIO_EVENTS_MIN];

	(void)now_ms;
	if (!d->run || d->scenario_done)
		return;
	d->scenario_stepped = true;
	const uint64_t t = d->clock_ms - d->scenario_start_ms;
	do {
		int n = scenario_step(d->run, t, &d->sim, &d->overlay, ev,
				      SCENARIO_EVENTS_MIN);
		if (n < 0)
			break;
		report_events(d, ev, n);
	} while (scenario_run_due(d->run, t));
	if (scenario_run_finished(d->run)) {
		log_msg(&d->log, LOG_LEVEL_NOTICE, "scenario %s finished",
			d->scenario_name);
		/* Kept: a restarted simulation plays it again. */
		d->scenario_done = true;
	}
}

void
daemon_scenario_stop(struct daemon *d)
{
	struct scenario_event ev[SCENARIO_EVENTS_MIN];

	if (!d->run)
		return;
	if (d->scenario_done) {
		scenario_free(d);
		return;
	}
	/* The SITL and PX4 modes' clock is the peer's physics time: with
	 * no frame there is no t = 0, nothing was applied, and a restore
	 * "at 0 s" would read as if the scenario had run. */
	if (!d->scenario_stepped) {
		log_msg(&d->log, LOG_LEVEL_NOTICE,
			"scenario %s never started: no physics frame arrived, "
			"so its clock did not run and nothing was applied",
			d->scenario_name);
		scenario_free(d);
		return;
	}
	const uint64_t t = d->clock_ms - d->scenario_start_ms;
	int n = scenario_run_stop(d->run, t, &d->sim, &d->overlay, ev,
				  SCENARIO_EVENTS_MIN);
	if (n > 0)
		report_events(d, ev, n);
	scenario_free(d);
}

/* Load and start a scenario on the daemon's clock, replacing (and so
 * restoring) any running one.  err gets FILE:LINE: reason. */
int
daemon_scenario_start(struct daemon *d, const char *path, char *err, size_t errlen)
{
	struct scenario *sc = malloc(sizeof(*sc));
	struct scenario_run *run = malloc(sizeof(*run));
	FILE *f = fopen(path, "r");
	int rc;

	if (!sc || !run || !f) {
		snprintf(err, errlen, "%s: %s", path,
			 f ? "out of memory" : strerror(errno));
		rc = f ? -ENOMEM : -errno;
		goto fail;
	}
	rc = scenario_load(sc, f, path, err, errlen);
	fclose(f);
	f = NULL;
	if (rc == 0 && daemon_emulated(d)) {
		rc = scenario_check(sc, path, &d->sim.params, d->sim.atmosphere,
				    d->cfg.home_alt_m, err, errlen);
		if (rc == 0)
			rc = scenario_check_release(sc, path, d->sim.ardupilot,
						    err, errlen);
	} else if (rc == 0)
		rc = scenario_hardware(sc, path, hw_instances(d), err, errlen);
	if (rc < 0)
		goto fail;
	fault_overlay_set_atmosphere(&d->overlay, d->cfg.atmosphere);

	daemon_scenario_stop(d);
	d->scenario = sc;
	d->run = run;
	d->scenario_done = false;
	d->scenario_stepped = false;
	snprintf(d->scenario_name, sizeof(d->scenario_name), "%s", path);
	d->scenario_start_ms = d->clock_ms;
	scenario_run_init(run, sc, &d->sim, (uint32_t)d->scenario_start_ms);
	log_msg(&d->log, LOG_LEVEL_NOTICE, "scenario %s started (%zu actions)",
		path, sc->count);
	return 0;
fail:
	if (f)
		fclose(f);
	free(sc);
	free(run);
	return rc;
}

/* A PX4 type as the fault overlay's: every type on real readings, and
 * the overlay's own (px4-failure.h's PX4_HOW_FAULT) on the emulator. */
static int
inject_overlay(struct daemon *d, const struct px4_failure *px4, unsigned i,
	       double value, char *err, size_t errlen)
{
	const double v = isnan(value) ? px4->def : value;
	const struct fault_kind_info *k = fault_kind_info(px4->fault);
	const struct fault_spec spec = fault_spec_make(px4->fault, v);

	/* The range is the overlay's table's, so the message says it. */
	if (k && k->value != FAULT_VALUE_NONE &&
	    !(v >= k->min && v <= k->max)) {
		snprintf(err, errlen, "%s: %g%s is not within %g..%g%s",
			 px4->name, v, k->unit, k->min, k->max, k->unit);
		return -ERANGE;
	}
	/* wrong's model: the configured one, whatever a reload made it. */
	fault_overlay_set_atmosphere(&d->overlay, d->cfg.atmosphere);
	if (fault_overlay_set(&d->overlay, i, spec) < 0) {
		snprintf(err, errlen, "cannot set %s", px4->name);
		return -EINVAL;
	}
	return 0;
}

/*
 * Inject a PX4-style fault on one instance now, outside any scenario.
 * value: wrong = metres (default 20), delayed = ms (default 300),
 * slow = publish every Nth (default 10); NAN for the default.  "ok" puts
 * the instance's parameters back to the configured ones, clears its
 * overlay fault and forgets its drift.  In hardware mode every type acts
 * on the overlay.
 */
int
daemon_inject(struct daemon *d, unsigned type, unsigned i, double value, char *err,
       size_t errlen)
{
	const struct px4_failure *px4 = px4_failure_of(type);
	const struct fault_spec none = { .kind = FAULT_NONE };
	char text[120];
	int rc;

	if (i >= BARO_MAX_INSTANCES || !px4) {
		snprintf(err, errlen, "no instance %u or fault type %u", i, type);
		return -EINVAL;
	}
	struct sim_baro_params *b = &d->sim.params.baro[i];
	if (px4->fault == FAULT_DELAYED && !isnan(value) &&
	    !(value >= 0 && value <= SCENARIO_DELAY_MAX_MS)) {
		snprintf(err, errlen, "%s: %g ms is not 0..%d", px4->name,
			 value, SCENARIO_DELAY_MAX_MS);
		return -EINVAL;
	}
	/* The overlay kinds' ranges are checked from faults.c's table
	 * (inject_overlay()); delayed's is the emulator's buffer, in every
	 * mode as for a scenario's line. */
	/* stuck, garbage, slow and intermittent are overlay faults in any
	 * mode: PX4's stuck holds the whole sample, temperature too, which
	 * SIM_BARO_FREEZE (ArduPilot's meaning) does not. */
	if (!daemon_emulated(d) && px4->how != PX4_HOW_FAULT) {
		rc = inject_overlay(d, px4, i, value, err, errlen);
		if (rc < 0)
			return rc;
		goto announce;
	}
	switch (px4->how) {
	case PX4_HOW_CLEAR:
		*b = d->cfg.params.baro[i];
		baro_sitl_reset_drift(&d->sim, i, (uint32_t)d->clock_ms);
		(void)fault_overlay_set(&d->overlay, i, none);
		break;
	case PX4_HOW_PARAM: {
		/* The emulator's own parameter with PX4's meaning, the field
		 * and default from px4-failure.c's row: no type by number. */
		const double v = isnan(value) || !px4->takes_value ? px4->def
								   : value;
		int idx = sim_param_of(i, px4->field);
		if (idx < 0) {
			snprintf(err, errlen, "cannot set %s", px4->name);
			return -EINVAL;
		}
		if (daemon_param_check(d, (size_t)idx, v, err, errlen) < 0)
			return -ERANGE;
		if (sim_param_set(&d->sim.params, (size_t)idx, v) < 0) {
			snprintf(err, errlen, "%s: %g is out of range for %s",
				 px4->name, v, sim_param_info((size_t)idx)->name);
			return -ERANGE;
		}
		break;
	}
	case PX4_HOW_FAULT:
		rc = inject_overlay(d, px4, i, value, err, errlen);
		if (rc < 0)
			return rc;
		break;
	}
announce:
	snprintf(text, sizeof(text), "inject %s on baro %u", px4->name, i);
	daemon_announce(d, MAV_SEVERITY_WARNING, text);
	return 0;
}

/* MAV_CMD_INJECT_FAILURE for the baro unit; PX4 numbers instances from 1
 * and uses 0 for all of them. */
uint8_t
daemon_mavlink_inject(void *user, unsigned type, unsigned instance)
{
	struct daemon *d = user;
	char err[128];
	unsigned lo = instance == 0 ? 0 : instance - 1;
	unsigned hi = instance == 0 ? (daemon_emulated(d)
					       ? (unsigned)d->sim.params.baro_count
					       : BARO_MAX_INSTANCES)
				    : instance;

	if (!px4_failure_of(type) || instance > BARO_MAX_INSTANCES)
		return MAV_RESULT_DENIED;
	/* Hardware mode: a baro no sensor reads cannot fail; "all" means
	 * the configured ones. */
	if (!daemon_emulated(d) && instance > 0 &&
	    !daemon_baro_exists(d, instance - 1))
		return MAV_RESULT_FAILED;
	for (unsigned i = lo; i < hi; i++) {
		if (!daemon_emulated(d) && !daemon_baro_exists(d, i))
			continue;
		if (daemon_inject(d, type, i, NAN, err, sizeof(err)) < 0)
			return MAV_RESULT_FAILED;
	}
	return MAV_RESULT_ACCEPTED;
}

void
daemon_scenario_restart(struct daemon *d)
{
	if (!d->run)
		return;
	d->scenario_done = false;
	d->sim.params = d->run->start;
	fault_overlay_clear(&d->overlay);
	d->scenario_start_ms = d->clock_ms;
	scenario_run_init(d->run, d->scenario, &d->sim,
			  (uint32_t)d->scenario_start_ms);
	log_msg(&d->log, LOG_LEVEL_NOTICE, "scenario %s restarted",
		d->scenario_name);
}
