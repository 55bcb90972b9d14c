/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "ap-peer.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "atmosphere.h"
#include "px4-failure.h"
#include "sim-params.h"

void
ap_peer_init(struct ap_peer *p, enum ap_peer_kind kind)
{
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->sysid = 1;
	p->compid = 1;
	p->speed = 1.0;
	p->time_interval_us = 0;
	mavlink_parser_init(&p->parser);
	/* A signed GCS is answered too: signing is the link's business. */
	p->parser.deliver_signed = true;
	if (kind == AP_PEER_ARDUPILOT) {
		struct sim_params d;
		sim_params_defaults(&d);
		for (size_t i = 0; i < sim_param_count(); i++) {
			const struct sim_param_info *in = sim_param_info(i);
			struct ap_peer_param *q = &p->params[p->nparams++];
			snprintf(q->name, sizeof(q->name), "%s", in->name);
			q->value = sim_param_get(&d, i);
			q->type = in->type == SIM_PARAM_FLOAT
					  ? MAV_PARAM_TYPE_REAL32
					  : MAV_PARAM_TYPE_INT8;
		}
	} else {
		p->params[0] = (struct ap_peer_param){ "SIM_BARO_OFF_P", 0.0f,
						       MAV_PARAM_TYPE_REAL32 };
		p->params[1] = (struct ap_peer_param){ "SIM_BARO_OFF_T", 0.0f,
						       MAV_PARAM_TYPE_REAL32 };
		p->params[2] = (struct ap_peer_param){ "SYS_FAILURE_EN", 0.0f,
						       6 /* INT32 */ };
		p->params[3] = (struct ap_peer_param){ "SENS_EN_BAROSIM", 1.0f,
						       6 /* INT32 */ };
		p->nparams = 4;
		ap_peer_set(p, "SYS_FAILURE_EN", 1.0f);
		p->inject_supported = true;
	}
}

static struct ap_peer_param *
find(struct ap_peer *p, const char *name)
{
	for (size_t i = 0; i < p->nparams; i++)
		if (strncmp(p->params[i].name, name, 16) == 0)
			return &p->params[i];
	return NULL;
}

/* PX4 sends INT32 parameters byte-wise in the float. */
static float
wire_value(const struct ap_peer *p, const struct ap_peer_param *q)
{
	if (p->kind == AP_PEER_PX4 && q->type == 6) {
		int32_t i = (int32_t)q->value;
		float f;
		memcpy(&f, &i, sizeof(f));
		return f;
	}
	return q->value;
}

static float
from_wire(const struct ap_peer *p, const struct ap_peer_param *q, float v)
{
	if (p->kind == AP_PEER_PX4 && q->type == 6) {
		int32_t i;
		memcpy(&i, &v, sizeof(i));
		return (float)i;
	}
	return v;
}

float
ap_peer_get(const struct ap_peer *p, const char *name)
{
	const struct ap_peer_param *q = find((struct ap_peer *)p, name);
	if (strcmp(name, "baro") == 0)
		return (float)p->inject;
	return q ? q->value : NAN;
}

void
ap_peer_set(struct ap_peer *p, const char *name, float value)
{
	struct ap_peer_param *q = find(p, name);
	if (q)
		q->value = value;
	if (strcmp(name, "SIM_BARO_OFF_P") == 0)
		p->offp_applied = value;
}

void
ap_peer_remove(struct ap_peer *p, const char *name)
{
	struct ap_peer_param *q = find(p, name);
	if (!q)
		return;
	*q = p->params[--p->nparams];
}

uint64_t
ap_peer_ms(const struct ap_peer *p)
{
	return (uint64_t)p->ap_ms;
}

static void
history(struct ap_peer *p, const char *name, float value, uint64_t ap_ms)
{
	if (p->nhistory == AP_PEER_HISTORY)
		return;
	struct ap_peer_change *c = &p->history[p->nhistory++];
	c->ap_ms = ap_ms;
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->value = value;
}

float
ap_peer_value_at(const struct ap_peer *p, const char *name, uint64_t ap_ms)
{
	float v = NAN;

	for (size_t i = 0; i < p->nhistory; i++)
		if (p->history[i].ap_ms <= ap_ms &&
		    strcmp(p->history[i].name, name) == 0)
			v = p->history[i].value;
	return v;
}

static void
queue(struct ap_peer *p, uint32_t msgid, const union mavlink_msg *m,
      uint64_t due_us)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD];

	if (p->nq == AP_PEER_QUEUE)
		return;
	memset(pl, 0, sizeof(pl));
	mavlink_pack_msg(msgid, m, pl);
	struct ap_peer_frame *f = &p->q[p->nq];
	int n = mavlink_frame_encode(f->b, 2, p->seq++, p->sysid, p->compid,
				     msgid, pl);
	if (n <= 0)
		return;
	f->len = (uint16_t)n;
	f->due_us = due_us;
	p->nq++;
}

static void
answer(struct ap_peer *p, uint32_t msgid, const union mavlink_msg *m)
{
	queue(p, msgid, m, p->now_us + p->reply_delay_us);
}

static void
param_value(struct ap_peer *p, const struct ap_peer_param *q)
{
	union mavlink_msg m = { .pv = {
		.param_value = wire_value(p, q),
		.param_count = (uint16_t)p->nparams,
		.param_index = (uint16_t)(q - p->params),
		.param_type = q->type,
	} };
	snprintf(m.pv.param_id, sizeof(m.pv.param_id), "%s", q->name);
	answer(p, MAVLINK_MSG_PARAM_VALUE, &m);
}

static void
command_ack(struct ap_peer *p, uint16_t command, uint8_t result,
	    const struct mavlink_frame *f)
{
	union mavlink_msg m = { .ca = {
		.command = command,
		.result = result,
		.target_system = f->sysid,
		.target_component = f->compid,
	} };
	answer(p, MAVLINK_MSG_COMMAND_ACK, &m);
}

static void
on_frame(const struct mavlink_frame *f, void *user)
{
	struct ap_peer *p = user;
	union mavlink_msg m;

	if (mavlink_unpack_msg(f->msgid, f->payload, &m) < 0)
		return;
	switch (f->msgid) {
	case MAVLINK_MSG_PARAM_REQUEST_READ: {
		p->reads_seen++;
		struct ap_peer_param *q = find(p, m.prr.param_id);
		if (q)
			param_value(p, q);
		break;
	}
	case MAVLINK_MSG_PARAM_SET: {
		p->sets_seen++;
		if (p->drop_sets) {
			p->drop_sets--;
			break;
		}
		struct ap_peer_param *q = find(p, m.ps.param_id);
		if (!q)
			break;
		float v = from_wire(p, q, m.ps.param_value);
		if (q->type == MAV_PARAM_TYPE_INT8)
			v = roundf(v);
		q->value = v;
		if (p->kind == AP_PEER_PX4 &&
		    strcmp(q->name, "SIM_BARO_OFF_P") == 0)
		{
			p->offp_pending = true;	/* at the next update */
			p->offp_set_ms = (uint64_t)p->ap_ms;
		}
		else
			history(p, q->name, v, (uint64_t)p->ap_ms);
		param_value(p, q);
		break;
	}
	case MAVLINK_MSG_COMMAND_LONG:
		p->commands_seen++;
		if (m.cl.command == MAV_CMD_INJECT_FAILURE) {
			const struct ap_peer_param *en =
				find(p, "SYS_FAILURE_EN");
			uint8_t r = MAV_RESULT_UNSUPPORTED;
			int type = (int)m.cl.param[1];
			if (p->kind == AP_PEER_PX4 && en && en->value != 1.0f)
				r = MAV_RESULT_DENIED;
			else if (p->kind == AP_PEER_PX4 && p->inject_supported &&
				 (int)m.cl.param[0] == FAILURE_UNIT_SENSOR_BARO &&
				 (type == PX4_FAILURE_OK || type == PX4_FAILURE_OFF ||
				  type == PX4_FAILURE_STUCK))
				r = MAV_RESULT_ACCEPTED;
			if (r == MAV_RESULT_ACCEPTED && type != p->inject) {
				p->inject = type;
				history(p, "baro", (float)type,
					(uint64_t)p->ap_ms);
			}
			command_ack(p, m.cl.command, r, f);
		} else if (m.cl.command == MAV_CMD_SET_MESSAGE_INTERVAL) {
			if ((uint32_t)m.cl.param[0] == MAVLINK_MSG_SYSTEM_TIME)
				p->time_interval_us = (uint32_t)m.cl.param[1];
			if ((uint32_t)m.cl.param[0] ==
			    MAVLINK_MSG_SCALED_PRESSURE)
				p->press_interval_us = (uint32_t)m.cl.param[1];
			command_ack(p, m.cl.command, MAV_RESULT_ACCEPTED, f);
		} else if (m.cl.command == MAV_CMD_REQUEST_MESSAGE) {
			command_ack(p, m.cl.command, MAV_RESULT_ACCEPTED, f);
			union mavlink_msg v = { .av = {
				.flight_sw_version =
					p->kind == AP_PEER_PX4 ? 0x010E00FFu
							       : 0x04060200u,
			} };
			answer(p, MAVLINK_MSG_AUTOPILOT_VERSION, &v);
		} else {
			command_ack(p, m.cl.command, MAV_RESULT_UNSUPPORTED, f);
		}
		break;
	}
}

static bool
in(uint64_t t, uint64_t from, uint64_t to)
{
	return t >= from && t < to;
}

void
ap_peer_rx(struct ap_peer *p, const uint8_t *data, size_t len,
	   uint64_t now_us)
{
	if (in(now_us, p->silent_from_us, p->silent_to_us))
		return;
	if (in(now_us, p->pause_from_us, p->pause_to_us)) {
		if (p->held_len + len <= sizeof(p->held)) {
			memcpy(p->held + p->held_len, data, len);
			p->held_len += len;
		}
		return;
	}
	p->now_us = now_us;
	mavlink_parser_feed(&p->parser, data, len, on_frame, p);
	if (!p->stream)
		mavlink_parser_flush(&p->parser);
}

static void
streams(struct ap_peer *p)
{
	uint64_t ms = (uint64_t)p->ap_ms;
	uint64_t ap_us = (uint64_t)(p->ap_ms * 1000.0);

	if (ap_us >= p->next_hb_us) {
		p->next_hb_us = ap_us + 1000000u;
		union mavlink_msg m = { .hb = {
			.type = 2,	/* quadrotor */
			.autopilot = p->kind == AP_PEER_PX4
					     ? MAV_AUTOPILOT_PX4
					     : MAV_AUTOPILOT_ARDUPILOTMEGA,
			.system_status = MAV_STATE_ACTIVE,
			.mavlink_version = 3,
		} };
		queue(p, MAVLINK_MSG_HEARTBEAT, &m, p->now_us);
	}
	if (ap_us >= p->next_pos_us) {
		p->next_pos_us = ap_us + 250000u;
		union mavlink_msg m = { .gpi = {
			.time_boot_ms = (uint32_t)ms,
			.alt = 584000,
			.relative_alt = 0,
		} };
		queue(p, MAVLINK_MSG_GLOBAL_POSITION_INT, &m, p->now_us);
	}
	if (p->press_interval_us && ap_us >= p->next_press_us) {
		p->next_press_us = ap_us + p->press_interval_us;
		/* What each baro reads at the vehicle's 584 m: ArduPilot's
		 * glitch lifts its altitude, PX4's offset adds pascals once
		 * sensor_baro_sim has taken it. */
		for (unsigned i = 0; i < 2; i++) {
			float pa, t;
			const char *g = i ? "SIM_BAR2_GLITCH" : "SIM_BARO_GLITCH";
			float up = p->kind == AP_PEER_ARDUPILOT
					   ? ap_peer_get(p, g)
					   : 0.0f;
			atmos_1976_pressure_temperature(584.0f + up, &pa, &t);
			if (p->kind == AP_PEER_PX4)
				pa += p->offp_applied;
			union mavlink_msg m = { .sp = {
				.time_boot_ms = (uint32_t)ms,
				.press_abs = pa / 100.0f,
				.temperature = 2000,
			} };
			queue(p, i ? MAVLINK_MSG_SCALED_PRESSURE2
				   : MAVLINK_MSG_SCALED_PRESSURE,
			      &m, p->now_us);
			if (p->kind == AP_PEER_PX4)
				break;
		}
	}
	if (p->time_interval_us && ap_us >= p->next_time_us) {
		p->next_time_us = ap_us + p->time_interval_us;
		union mavlink_msg m = { .stime = { .time_boot_ms =
							   (uint32_t)ms } };
		queue(p, MAVLINK_MSG_SYSTEM_TIME, &m, p->now_us);
	}
}

size_t
ap_peer_step(struct ap_peer *p, uint64_t now_us, uint8_t *out, size_t cap)
{
	size_t n = 0;

	if (p->last_wall_us == 0)
		p->last_wall_us = now_us;
	bool paused = in(now_us, p->pause_from_us, p->pause_to_us);
	if (!paused)
		p->ap_ms += (double)(now_us - p->last_wall_us) / 1000.0 *
			    p->speed;
	p->last_wall_us = now_us;
	p->now_us = now_us;
	if (paused)
		return 0;	/* a paused SITL's loop sends nothing */
	if (p->held_len) {
		size_t len = p->held_len;
		p->held_len = 0;
		mavlink_parser_feed(&p->parser, p->held, len, on_frame, p);
		mavlink_parser_flush(&p->parser);
	}
	if (p->restart_at_us && !p->restarted && now_us >= p->restart_at_us) {
		p->restarted = true;
		p->ap_ms = 0.0;
		p->next_hb_us = p->next_pos_us = p->next_time_us = 0;
		p->next_press_us = 0;
		p->time_interval_us = 0;
		p->press_interval_us = 0;
		if (p->inject) {
			p->inject = 0;	/* PX4 forgets an injection */
			history(p, "baro", 0.0f, 0);
		}
	}
	/* PX4 v1.14's sensor_baro_sim sees a parameter change at its next
	 * parameter_update, here the next whole second. */
	if (p->offp_pending &&
	    (uint64_t)p->ap_ms / 1000u > p->offp_set_ms / 1000u) {
		p->offp_pending = false;
		p->offp_applied = ap_peer_get(p, "SIM_BARO_OFF_P");
		history(p, "SIM_BARO_OFF_P", p->offp_applied,
			(uint64_t)p->ap_ms);
	}
	streams(p);
	bool silent = in(now_us, p->silent_from_us, p->silent_to_us);
	size_t k = 0;
	for (size_t i = 0; i < p->nq; i++) {
		struct ap_peer_frame *f = &p->q[i];
		if (f->due_us > now_us || n + f->len > cap) {
			p->q[k++] = *f;
			continue;
		}
		if (!silent) {
			memcpy(out + n, f->b, f->len);
			n += f->len;
		}
	}
	p->nq = k;
	return n;
}
