/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "param-service.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAV_CMD_INJECT_FAILURE 420
#define FAILURE_UNIT_SENSOR_BARO 3

static uint8_t
mav_type(enum sim_param_type t)
{
	switch (t) {
	case SIM_PARAM_INT8:
		return MAV_PARAM_TYPE_INT8;
	case SIM_PARAM_INT16:
		return MAV_PARAM_TYPE_INT16;
	case SIM_PARAM_FLOAT:
		break;
	}
	return MAV_PARAM_TYPE_REAL32;
}

void
param_service_value(const struct param_service *ps, size_t idx,
		    uint8_t payload[MAVLINK_MAX_PAYLOAD])
{
	const struct sim_param_info *info = sim_param_info(idx);
	struct mavlink_param_value v = {
		/* ArduPilot's encoding: integers C-cast into the float. */
		.param_value = sim_param_get(ps->params, idx),
		.param_count = (uint16_t)sim_param_count(),
		.param_index = (uint16_t)idx,
		.param_type = mav_type(info->type),
	};

	snprintf(v.param_id, sizeof(v.param_id), "%s", info->name);
	memset(payload, 0, MAVLINK_MAX_PAYLOAD);
	mavlink_pack_param_value(&v, payload);
}

void
param_service_statustext(uint8_t severity, const char *text,
			 uint8_t payload[MAVLINK_MAX_PAYLOAD])
{
	struct mavlink_statustext st = { .severity = severity };

	snprintf(st.text, sizeof(st.text), "%s", text);
	memset(payload, 0, MAVLINK_MAX_PAYLOAD);
	mavlink_pack_statustext(&st, payload);
}

static void
send_value(struct param_service *ps, void *reply_to, size_t idx)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD];

	param_service_value(ps, idx, pl);
	ps->send(ps->user, reply_to, MAVLINK_MSG_PARAM_VALUE, pl);
}

static void
send_text(struct param_service *ps, void *reply_to, uint8_t severity,
	  const char *text)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD];

	param_service_statustext(severity, text, pl);
	ps->send(ps->user, reply_to, MAVLINK_MSG_STATUSTEXT, pl);
}

/* Requests may address our component or all components (0). */
static bool
for_us(const struct param_service *ps, uint8_t sys, uint8_t comp)
{
	return sys == ps->sysid && (comp == ps->compid || comp == 0);
}

static void
handle_set(struct param_service *ps, const struct mavlink_frame *f,
	   void *reply_to)
{
	struct mavlink_param_set m;
	char text[64];

	mavlink_unpack_param_set(f->payload, &m);
	/* Writes only when addressed to exactly this component. */
	if (m.target_system != ps->sysid || m.target_component != ps->compid)
		return;

	int idx = sim_param_find(m.param_id);
	if (idx < 0) {
		/* The protocol has no NAK: say why, let the GCS time out. */
		snprintf(text, sizeof(text), "barod: no %s (try %s)", m.param_id,
			 sim_param_closest(m.param_id));
		send_text(ps, reply_to, MAV_SEVERITY_WARNING, text);
		return;
	}

	if (!ps->remote_faults) {
		/* Answered as a refusal is (the value held); why goes to
		 * the ground station once, from denied. */
		if (ps->denied)
			ps->denied(ps->user, f, reply_to);
		send_value(ps, reply_to, (size_t)idx);
		return;
	}

	float old = sim_param_get(ps->params, (size_t)idx);
	struct sim_params next = *ps->params;
	int rc = sim_param_set(&next, (size_t)idx, (double)m.param_value);
	if (rc == 0 && ps->check)
		rc = ps->check(ps->user, (size_t)idx,
			       (double)sim_param_get(&next, (size_t)idx));
	if (rc == 0)
		*ps->params = next;
	if (rc < 0) {
		snprintf(text, sizeof(text), "barod: %s %g refused", m.param_id,
			 (double)m.param_value);
		send_text(ps, reply_to, MAV_SEVERITY_WARNING, text);
		/* Per the protocol: answer with the value actually held. */
		send_value(ps, reply_to, (size_t)idx);
		return;
	}
	float now = sim_param_get(ps->params, (size_t)idx);
	send_value(ps, NULL, (size_t)idx);
	if (ps->changed && memcmp(&old, &now, sizeof(old)) != 0)
		ps->changed(ps->user, (size_t)idx, old, now);
}

static void
handle_read(struct param_service *ps, const struct mavlink_frame *f,
	    void *reply_to)
{
	struct mavlink_param_request_read m;

	mavlink_unpack_param_request_read(f->payload, &m);
	if (!for_us(ps, m.target_system, m.target_component))
		return;

	int idx = m.param_index;
	if (idx == -1)
		idx = sim_param_find(m.param_id);
	if (idx < 0 || (size_t)idx >= sim_param_count()) {
		char text[64];
		if (m.param_index == -1)
			snprintf(text, sizeof(text), "barod: no %s",
				 m.param_id);
		else
			snprintf(text, sizeof(text),
				 "barod: no parameter index %d", m.param_index);
		send_text(ps, reply_to, MAV_SEVERITY_WARNING, text);
		return;
	}
	send_value(ps, reply_to, (size_t)idx);
}

static void
handle_list(struct param_service *ps, const struct mavlink_frame *f,
	    void *reply_to)
{
	struct mavlink_param_request_list m;

	mavlink_unpack_param_request_list(f->payload, &m);
	if (!for_us(ps, m.target_system, m.target_component))
		return;
	for (size_t i = 0; i < sim_param_count(); i++)
		send_value(ps, reply_to, i);
}

static void
handle_command(struct param_service *ps, const struct mavlink_frame *f,
	       void *reply_to)
{
	struct mavlink_command_long m;
	uint8_t pl[MAVLINK_MAX_PAYLOAD];

	mavlink_unpack_command_long(f->payload, &m);
	if (!for_us(ps, m.target_system, m.target_component))
		return;

	struct mavlink_command_ack ack = {
		.command = m.command,
		.result = MAV_RESULT_UNSUPPORTED,
		.target_system = f->sysid,
		.target_component = f->compid,
	};
	if (m.command == MAV_CMD_INJECT_FAILURE && ps->inject) {
		/* Only the baro unit exists here; say so honestly. */
		const float unit = m.param[0], type = m.param[1],
			    inst = m.param[2];
		if (unit != FAILURE_UNIT_SENSOR_BARO)
			ack.result = MAV_RESULT_UNSUPPORTED;
		else if (!ps->remote_faults) {
			/* PX4 without SYS_FAILURE_EN answers the same. */
			ack.result = MAV_RESULT_DENIED;
			if (ps->denied)
				ps->denied(ps->user, f, reply_to);
		}
		else if (!(type >= 0 && type <= 7 && inst >= 0 && inst <= 3) ||
			 type != truncf(type) || inst != truncf(inst))
			ack.result = MAV_RESULT_DENIED;
		else
			ack.result = ps->inject(ps->user, (unsigned)type,
						(unsigned)inst);
	}
	memset(pl, 0, sizeof(pl));
	mavlink_pack_command_ack(&ack, pl);
	ps->send(ps->user, reply_to, MAVLINK_MSG_COMMAND_ACK, pl);
}

void
param_service_handle(struct param_service *ps, const struct mavlink_frame *f,
		     void *reply_to)
{
	switch (f->msgid) {
	case MAVLINK_MSG_PARAM_SET:
		handle_set(ps, f, reply_to);
		break;
	case MAVLINK_MSG_PARAM_REQUEST_READ:
		handle_read(ps, f, reply_to);
		break;
	case MAVLINK_MSG_PARAM_REQUEST_LIST:
		handle_list(ps, f, reply_to);
		break;
	case MAVLINK_MSG_COMMAND_LONG:
		handle_command(ps, f, reply_to);
		break;
	default:
		break;
	}
}
