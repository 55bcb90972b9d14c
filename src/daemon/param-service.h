/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The MAVLink parameter and command microservices of barod's component:
 * a GCS lists, reads and sets SIM_BARO_* / SIM_BAR2_* / SIM_BAR3_* /
 * SIM_TEMP_* exactly as on ArduPilot SITL.  No I/O: replies go out
 * through the send callback, so the service is tested without sockets.
 */
#ifndef BAROD_PARAM_SERVICE_H
#define BAROD_PARAM_SERVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mavlink.h"
#include "sim-params.h"

struct param_service {
	uint8_t sysid, compid;
	struct sim_params *params;	/* the live emulator's table */

	/* Send a full-length payload; reply_to is the link the request came
	 * from, or NULL for every link (PARAM_VALUE after a change). */
	void (*send)(void *user, void *reply_to, uint32_t msgid,
		     const uint8_t *payload);
	/* Whether a value that passed the table's range may be set (0) or
	 * is refused (negative); NULL: every such value may. */
	int (*check)(void *user, size_t idx, double value);
	/* A parameter changed through MAVLink (for STATUSTEXT and logs). */
	void (*changed)(void *user, size_t idx, float old_value,
			float new_value);
	/* MAV_CMD_INJECT_FAILURE on the baro unit: PX4 failure type 0..7,
	 * instance 1..3 or 0 for all; returns a MAV_RESULT.  NULL: the
	 * command is unsupported. */
	uint8_t (*inject)(void *user, unsigned type, unsigned instance);
	/* Whether a ground station may change faults (PARAM_SET of SIM_*,
	 * MAV_CMD_INJECT_FAILURE): [faults] remote.  When false such a
	 * request is answered as refused (the held value, COMMAND_ACK
	 * DENIED) and denied is told, with the request's frame. */
	bool remote_faults;
	void (*denied)(void *user, const struct mavlink_frame *f,
		       void *reply_to);
	void *user;
};

/* Handle one received frame; frames not for us are ignored. */
void
param_service_handle(struct param_service *ps, const struct mavlink_frame *f,
		     void *reply_to);

/* PARAM_VALUE payload for parameter idx (also used after local changes). */
void
param_service_value(const struct param_service *ps, size_t idx,
		    uint8_t payload[MAVLINK_MAX_PAYLOAD]);

/* A STATUSTEXT payload with text (truncated to 50 characters). */
void
param_service_statustext(uint8_t severity, const char *text,
			 uint8_t payload[MAVLINK_MAX_PAYLOAD]);

#endif
