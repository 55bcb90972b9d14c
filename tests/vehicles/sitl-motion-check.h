/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What every frame of barod's built-in SITL vehicle must satisfy, checked
 * on the reply text ArduPilot reads and on the state it came from: every
 * number finite, speed, specific force and height within the limits of
 * src/vehicles/sitl-motion.h, and position, velocity and acceleration agreeing
 * with the previous frame.  Shared by the unit test and the fuzz target.
 */
#ifndef BAROD_TEST_SITL_MOTION_CHECK_H
#define BAROD_TEST_SITL_MOTION_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "atmosphere.h"
#include "sitl-json.h"
#include "sitl-motion.h"

#define MOTION_OVERSHOOT_M                                                 \
	(SITL_MOTION_MAX_SPEED * SITL_MOTION_MAX_SPEED /                   \
	 (2.0 * SITL_MOTION_MAX_ACCEL) + 1.0)

/* NULL when frame m (after prev, which may be unstarted) is sane; else
 * what is wrong, in msg. */
static inline const char *
motion_check(const struct sitl_motion *prev, const struct sitl_motion *m,
	     const struct sitl_vehicle *v, char *msg, size_t msglen)
{
	char reply[4096];
	struct sitl_fdm fdm;
	const double g = (double)ATMOS_GRAVITY_MSS;
	const uint64_t keys = SITL_KEY_BIT(SITL_KEY_TIMESTAMP) |
			      SITL_KEY_BIT(SITL_KEY_ACCEL_BODY) |
			      SITL_KEY_BIT(SITL_KEY_POSITION) |
			      SITL_KEY_BIT(SITL_KEY_VELOCITY);

	if (!isfinite(v->timestamp))
		return NULL;	/* no frame at a non-finite time */
	int n = sitl_json_format_reply(reply, sizeof(reply), v, "");
	if (n < 0) {
		snprintf(msg, msglen, "reply not formatted (%d)", n);
		return msg;
	}
	memset(&fdm, 0, sizeof(fdm));
	/* ArduPilot reads from after the leading newline. */
	if ((sitl_json_ap_parse(reply + 1, &fdm) & keys) != keys) {
		snprintf(msg, msglen, "ArduPilot cannot read: %.200s", reply);
		return msg;
	}
	for (int i = 0; i < 3; i++) {
		if (!isfinite(fdm.position[i]) || !isfinite(fdm.velocity[i]) ||
		    !isfinite(fdm.accel_body[i])) {
			snprintf(msg, msglen, "not finite: %.200s", reply);
			return msg;
		}
	}
	const double vz = (double)fdm.velocity[2];
	const double fz = (double)fdm.accel_body[2];
	const double h = -fdm.position[2];
	if (fabs(vz) > SITL_MOTION_MAX_SPEED * (1 + 1e-6) ||
	    fz < -g - SITL_MOTION_MAX_ACCEL - 1e-5 ||
	    fz > -g + SITL_MOTION_MAX_ACCEL + 1e-5 ||
	    h < SITL_MOTION_MIN_HEIGHT - MOTION_OVERSHOOT_M ||
	    h > SITL_MOTION_MAX_HEIGHT + MOTION_OVERSHOOT_M) {
		snprintf(msg, msglen, "beyond the limits: %.200s", reply);
		return msg;
	}
	/* What was sent is the state, which follows from the last one. */
	if (fdm.position[2] != -m->h || fdm.velocity[2] != (float)-m->v) {
		snprintf(msg, msglen, "reply is not the state: %.200s", reply);
		return msg;
	}
	if (prev->started && m->t > prev->t) {
		const double dt = m->t - prev->t;
		if (fabs((m->h - prev->h) - m->v * dt) >
			    1e-9 * (1.0 + fabs(m->h)) ||
		    fabs((m->v - prev->v) - m->a * dt) >
			    1e-9 * (1.0 + fabs(m->v))) {
			snprintf(msg, msglen,
				 "inconsistent: h %.17g -> %.17g, v %.17g -> "
				 "%.17g, a %.17g, dt %.17g", prev->h, m->h,
				 prev->v, m->v, m->a, dt);
			return msg;
		}
	} else if (prev->started && memcmp(prev, m, sizeof(*m)) != 0) {
		snprintf(msg, msglen, "moved without time advancing");
		return msg;
	}
	return NULL;
}

#endif
