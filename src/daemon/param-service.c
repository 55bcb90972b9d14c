/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "param-service.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "px4-failure.h"


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
	/* To every link, the requester's included: its frame was paid when
	 * the set was admitted.  Charged again, a set that took the link to
	 * its debt limit went unanswered, and so did each retry after it. */
	ps->paid = reply_to;
	send_value(ps, NULL, (size_t)idx);
	ps->paid = NULL;
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

/* ---- Pacing (param-service.h) ---- */

static double
link_rate(const struct param_service *ps, void *link)
{
	const uint32_t bw =
		ps->link_bandwidth ? ps->link_bandwidth(ps->user, link) : 0;
	if (!bw)
		return PARAM_SERVICE_NET_RATE;

	const uint32_t taken = ps->link_stream_rate
				       ? ps->link_stream_rate(ps->user, link)
				       : 0;
	double share = bw * PARAM_SERVICE_SHARE;
	const double left = taken < bw ? (double)(bw - taken) : 0.0;
	if (left < share)
		share = left;
	const double r = share / PARAM_SERVICE_FRAME_BYTES;

	return r < 1.0 ? 1.0 : r;
}

/* Budgets count millionths of a frame: a tick's share adds up exactly. */
#define ONE 1000000

static int64_t
link_burst(double rate)
{
	double b = rate * PARAM_SERVICE_BURST_S;

	return (int64_t)((b < PARAM_SERVICE_BURST_MIN ? PARAM_SERVICE_BURST_MIN
						       : b) * ONE);
}

/* What rate (per second) earns in dt_us, in millionths. */
static int64_t
earned(double rate, uint64_t dt_us)
{
	return (int64_t)llround(rate * (double)dt_us);
}

/* The link's entry, made with a full budget if new; NULL when the table
 * is full of links (more than barod has outputs: not expected). */
static struct param_service_link *
link_of(struct param_service *ps, void *link)
{
	struct param_service_link *free_slot = NULL;

	for (size_t i = 0; i < PARAM_SERVICE_LINKS; i++) {
		struct param_service_link *l = &ps->links[i];
		if (l->used && l->link == link)
			return l;
		if (!l->used && !free_slot)
			free_slot = l;
	}
	if (free_slot)
		*free_slot = (struct param_service_link){
			.link = link, .used = true,
			.credit = link_burst(link_rate(ps, link)),
		};
	return free_slot;
}

/* The requester's entry; a new one takes a free slot, else the one idle
 * longest without a list in flight; NULL when every slot has a list. */
static struct param_service_requester *
requester_of(struct param_service *ps, void *link, uint8_t sysid,
	     uint8_t compid)
{
	struct param_service_requester *victim = NULL;

	for (size_t i = 0; i < PARAM_SERVICE_REQUESTERS; i++) {
		struct param_service_requester *r = &ps->requesters[i];
		if (r->used && r->link == link && r->sysid == sysid &&
		    r->compid == compid)
			return r;
		if (!r->used) {
			if (!victim || victim->used)
				victim = r;
		} else if (!r->listing &&
			   (!victim ||
			    (victim->used && r->last_us < victim->last_us))) {
			victim = r;
		}
	}
	if (victim)
		*victim = (struct param_service_requester){
			.link = link, .sysid = sysid, .compid = compid,
			.used = true,
			.tokens = (int64_t)(PARAM_SERVICE_REQ_RATE * ONE),
			.last_us = ps->now_us,
		};
	return victim;
}

/* A request that is answered at once: the requester's token and room on
 * its link (which may run into debt by one burst: the lists wait). */
static bool
admit(struct param_service *ps, const struct mavlink_frame *f, void *link)
{
	struct param_service_link *l = link_of(ps, link);
	struct param_service_requester *r =
		l ? requester_of(ps, link, f->sysid, f->compid) : NULL;

	if (!r || r->tokens < ONE ||
	    l->credit <= -link_burst(link_rate(ps, link))) {
		ps->stats.requests_dropped++;
		return false;
	}
	r->tokens -= ONE;
	r->last_us = ps->now_us;
	l->credit -= ONE;
	ps->stats.requests++;
	return true;
}

bool
param_service_tell(struct param_service *ps, void *link)
{
	struct param_service_link *l;

	if (link && link == ps->paid) {
		ps->paid = NULL;
		return true;
	}
	l = link_of(ps, link);
	if (!l || l->credit <= -link_burst(link_rate(ps, link))) {
		ps->stats.untold++;
		return false;
	}
	l->credit -= ONE;
	return true;
}

/* Whom a request that is answered addresses; false for other messages. */
static bool
request_target(const struct mavlink_frame *f, uint8_t *sys, uint8_t *comp)
{
	switch (f->msgid) {
	case MAVLINK_MSG_PARAM_SET: {
		struct mavlink_param_set m;
		mavlink_unpack_param_set(f->payload, &m);
		*sys = m.target_system;
		*comp = m.target_component;
		return true;
	}
	case MAVLINK_MSG_PARAM_REQUEST_READ: {
		struct mavlink_param_request_read m;
		mavlink_unpack_param_request_read(f->payload, &m);
		*sys = m.target_system;
		*comp = m.target_component;
		return true;
	}
	case MAVLINK_MSG_COMMAND_LONG:
	case MAVLINK_MSG_COMMAND_INT: {
		struct mavlink_command_long m;
		(void)mavlink_unpack_command(f->msgid, f->payload, &m);
		*sys = m.target_system;
		*comp = m.target_component;
		return true;
	}
	default:
		return false;
	}
}

static void
handle_list(struct param_service *ps, const struct mavlink_frame *f,
	    void *reply_to)
{
	struct mavlink_param_request_list m;

	mavlink_unpack_param_request_list(f->payload, &m);
	if (!for_us(ps, m.target_system, m.target_component))
		return;
	struct param_service_requester *r =
		link_of(ps, reply_to)
			? requester_of(ps, reply_to, f->sysid, f->compid)
			: NULL;
	if (!r) {
		ps->stats.lists_refused++;
		return;
	}
	r->last_us = ps->now_us;
	if (r->listing) {
		ps->stats.lists_merged++;
		return;
	}
	/* The tick sends it, at the link's pace. */
	r->listing = true;
	r->next = 0;
	ps->stats.lists++;
}

/* One round over the link's lists, starting after the last one served;
 * false when it has none. */
static bool
list_one(struct param_service *ps, struct param_service_link *l)
{
	for (size_t k = 1; k <= PARAM_SERVICE_REQUESTERS; k++) {
		size_t i = (l->rr + k) % PARAM_SERVICE_REQUESTERS;
		struct param_service_requester *r = &ps->requesters[i];
		if (!r->used || !r->listing || r->link != l->link)
			continue;
		l->rr = i;
		send_value(ps, l->link, r->next);
		ps->stats.values_listed++;
		if (++r->next >= sim_param_count()) {
			r->listing = false;
			ps->stats.lists_done++;
		}
		return true;
	}
	return false;
}

void
param_service_tick(struct param_service *ps, uint64_t now_us)
{
	uint64_t dt = ps->ticked && now_us > ps->now_us ? now_us - ps->now_us
							: 0;

	/* More than a second (a stall) earns no more than a second does:
	 * the budgets are full by then anyway. */
	if (dt > 1000000u)
		dt = 1000000u;
	const int64_t req_max = (int64_t)(PARAM_SERVICE_REQ_RATE * ONE);

	ps->now_us = now_us;
	ps->ticked = true;
	for (size_t i = 0; i < PARAM_SERVICE_REQUESTERS; i++) {
		struct param_service_requester *r = &ps->requesters[i];
		r->tokens += earned(PARAM_SERVICE_REQ_RATE, dt);
		if (r->tokens > req_max)
			r->tokens = req_max;
	}
	for (size_t i = 0; i < PARAM_SERVICE_LINKS; i++) {
		struct param_service_link *l = &ps->links[i];
		if (!l->used)
			continue;
		const double rate = link_rate(ps, l->link);
		const int64_t burst = link_burst(rate);
		l->credit += earned(rate, dt);
		if (l->credit > burst)
			l->credit = burst;
		while (l->credit >= ONE && list_one(ps, l))
			l->credit -= ONE;
	}
}

void
param_service_forget(struct param_service *ps, void *link)
{
	for (size_t i = 0; i < PARAM_SERVICE_LINKS; i++) {
		if (ps->links[i].used && ps->links[i].link == link)
			ps->links[i] = (struct param_service_link){ 0 };
	}
	for (size_t i = 0; i < PARAM_SERVICE_REQUESTERS; i++) {
		struct param_service_requester *r = &ps->requesters[i];
		if (r->used && r->link == link) {
			/* Not done, not refused: cut short. */
			*r = (struct param_service_requester){ 0 };
		}
	}
}

size_t
param_service_listing(const struct param_service *ps)
{
	size_t n = 0;

	for (size_t i = 0; i < PARAM_SERVICE_REQUESTERS; i++)
		n += ps->requesters[i].used && ps->requesters[i].listing;
	return n;
}

static void
handle_command(struct param_service *ps, const struct mavlink_frame *f,
	       void *reply_to)
{
	struct mavlink_command_long m;
	uint8_t pl[MAVLINK_MAX_PAYLOAD];

	/* COMMAND_INT as well: PX4 takes MAV_CMD_INJECT_FAILURE either way,
	 * and ArduPilot's GCS_Common.cpp answers both; unanswered, a GCS
	 * that sends COMMAND_INT retries and times out. */
	(void)mavlink_unpack_command(f->msgid, f->payload, &m);
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
		else if (!(type >= 0 && type < PX4_FAILURE_TYPES && inst >= 0 &&
			   inst <= 3) ||
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
	uint8_t sys, comp;

	/* Whatever is answered at once costs its requester a token and its
	 * link a frame of budget (param-service.h); what is for another
	 * system costs nothing. */
	if (request_target(f, &sys, &comp) && for_us(ps, sys, comp) &&
	    !admit(ps, f, reply_to))
		return;
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
	case MAVLINK_MSG_COMMAND_INT:
		handle_command(ps, f, reply_to);
		break;
	default:
		break;
	}
}
