/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Every write of the SIM_* parameters, whoever asks (the control
 * socket, MAVLink PARAM_SET, a fault injection, a reload): the check
 * against the emulator and the release, the write, and the
 * announcement (PARAM_VALUE, STATUSTEXT, the log).  One file, so the
 * control commands, the faults and the loop reach the same rules. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon.h"

int
daemon_param_check(const struct daemon *d, size_t idx, double value,
		   char *err, size_t errlen)
{
	/* Refused rather than stored: nothing would read it. */
	if (!daemon_emulated(d)) {
		if (err)
			snprintf(err, errlen, "%s acts on the emulator: "
				 "hardware mode reads real sensors (faults: "
				 "inject or a scenario's px4 lines)",
				 sim_param_info(idx)->name);
		return -EPERM;
	}
	int rc = baro_sitl_ardupilot_param_check(d->sim.ardupilot, idx, value,
						 err, errlen);
	if (rc < 0)
		return rc;
	return baro_sitl_param_check(d->sim.atmosphere, d->cfg.home_alt_m, idx,
				     value, err, errlen);
}

/* "NAME OLD -> NEW" in text, to the log (saying who changed it) and as
 * a STATUSTEXT to every ground station. */
static void
announce(struct daemon *d, size_t idx, float old, float now,
	 const char *source, char *text, size_t len)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD];

	snprintf(text, len, "%s %g -> %g", sim_param_info(idx)->name,
		 (double)old, (double)now);
	log_msg(&d->log, LOG_LEVEL_NOTICE, "%s (%s)", text, source);
	param_service_statustext(MAV_SEVERITY_NOTICE, text, pl);
	daemon_send_all(d, MAVLINK_MSG_STATUSTEXT, pl);
}

void
daemon_param_changed(struct daemon *d, size_t idx, float old, float now,
		     const char *source, char *text, size_t len)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD];

	param_service_value(&d->ps, idx, pl);
	daemon_send_all(d, MAVLINK_MSG_PARAM_VALUE, pl);
	announce(d, idx, old, now, source, text, len);
}

bool
daemon_param_inert_warning(struct daemon *d, size_t idx)
{
	const int inst = sim_param_instance(idx);

	if (!daemon_emulated(d) || inst < d->sim.params.baro_count)
		return false;
	log_msg(&d->log, LOG_LEVEL_WARNING,
		"%s acts only on baro instance %d, which SIM_BARO_COUNT %d "
		"leaves out", sim_param_info(idx)->name, inst,
		d->sim.params.baro_count);
	return true;
}

int
daemon_param_service_check(void *user, size_t idx, double value)
{
	struct daemon *d = user;
	char err[200];
	int rc = daemon_param_check(d, idx, value, err, sizeof(err));

	/* The STATUSTEXT only says "refused"; the log says why. */
	if (rc < 0)
		log_msg(&d->log, LOG_LEVEL_WARNING, "PARAM_SET refused: %s",
			err);
	return rc;
}

void
daemon_param_service_changed(void *user, size_t idx, float old_value,
			     float new_value)
{
	struct daemon *d = user;
	char text[96];

	/* The PARAM_SET's requester has its PARAM_VALUE from the param
	 * service already. */
	announce(d, idx, old_value, new_value, "MAVLink", text, sizeof(text));
	daemon_param_inert_warning(d, idx);
}

/* A reload that names another ArduPilot: taken unless a live value (one
 * the GCS or baroctl set) is a parameter that release does not have. */
static void
reload_release(struct daemon *d, struct config *next)
{
	char err[200];

	for (size_t i = 0; i < sim_param_count(); i++) {
		if (baro_sitl_ardupilot_param_check(
			    next->ardupilot, i,
			    (double)sim_param_get(&d->sim.params, i), err,
			    sizeof(err)) < 0) {
			log_msg(&d->log, LOG_LEVEL_WARNING,
				"reload: %s (live value); still ArduPilot %s",
				err, baro_sitl_ardupilot_name(d->sim.ardupilot));
			next->ardupilot = d->sim.ardupilot;
			return;
		}
	}
	log_msg(&d->log, LOG_LEVEL_NOTICE, "reload: ArduPilot %s -> %s",
		baro_sitl_ardupilot_name(d->sim.ardupilot),
		baro_sitl_ardupilot_name(next->ardupilot));
	baro_sitl_set_ardupilot(&d->sim, next->ardupilot);
}

void
daemon_params_reload(struct daemon *d, struct config *next)
{
	for (size_t i = 0; i < sim_param_count(); i++) {
		float was = sim_param_get(&d->cfg.params, i);
		float now = sim_param_get(&next->params, i);
		if (memcmp(&was, &now, sizeof(was)) == 0)
			continue;
		/* Told as a GCS or baroctl change is: the value live until
		 * now may be one they set. */
		float live = sim_param_get(&d->sim.params, i);
		char text[96];
		if (sim_param_set(&d->sim.params, i, (double)now) == 0 &&
		    memcmp(&live, &now, sizeof(live)) != 0) {
			daemon_param_changed(d, i, live, now, "configuration",
					     text, sizeof(text));
			(void)daemon_param_inert_warning(d, i);
		}
	}
	d->sim.atmosphere = next->atmosphere;
	if (next->ardupilot != d->sim.ardupilot)
		reload_release(d, next);
}
