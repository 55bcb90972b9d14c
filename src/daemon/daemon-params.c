/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The SIM_* parameters as the daemon changes them, whoever asks (the
 * control socket, MAVLink PARAM_SET, a fault injection): the check
 * against the emulator and the release, and the announcement.  Apart
 * from daemon-commands.c so the faults can check a value without
 * reaching up into the control socket's commands. */
#include <errno.h>
#include <stdio.h>

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

void
daemon_param_changed(struct daemon *d, size_t idx, float old, float now,
		     const char *source, char *text, size_t len)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD];

	param_service_value(&d->ps, idx, pl);
	daemon_send_all(d, MAVLINK_MSG_PARAM_VALUE, pl);
	snprintf(text, len, "%s %g -> %g", sim_param_info(idx)->name,
		 (double)old, (double)now);
	log_msg(&d->log, LOG_LEVEL_NOTICE, "%s (%s)", text, source);
	param_service_statustext(MAV_SEVERITY_NOTICE, text, pl);
	daemon_send_all(d, MAVLINK_MSG_STATUSTEXT, pl);
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
