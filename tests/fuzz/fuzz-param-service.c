/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A GCS datagram through barod's MAVLink input as the daemon runs it:
 * bytes -> mavlink_parser_feed -> param_service_handle, with the
 * daemon's range checks and a send callback that plays the GCS.  What
 * comes out must be true (fuzz-gcs.h), go back on the link the request
 * came on (only a changed value goes to every link), and be bounded per
 * request; the table changes only through a PARAM_SET addressed to
 * exactly barod's component, stays within its ranges, and every change
 * is reported once; MAV_CMD_INJECT_FAILURE reaches the injector only for
 * the baro unit with a whole type 0..7 and instance 0..3, and its
 * COMMAND_ACK carries what the injector answered.  Any breach aborts.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "baro-sitl.h"
#include "config.h"
#include "fuzz-gcs.h"
#include "fuzz.h"
#include "param-service.h"
#include "px4-failure.h"

#define SYSID 1
#define COMPID 191
#define MAV_CMD_INJECT_FAILURE 420

struct gcs {
	struct sim_params params;
	struct param_service ps;
	const struct mavlink_frame *f;	/* the request being handled */
	size_t replies, to_all, changes, injections;
	int ack;			/* what the injector said, or -1 */
	size_t denials;			/* remote_faults off: refusals */
	size_t lists;			/* list requests for us */
	size_t paced;			/* PARAM_VALUE sent by the tick */
	uint8_t link;			/* stands for the GCS's link */
};

static void
gcs_send(void *user, void *reply_to, uint32_t msgid, const uint8_t *payload)
{
	struct gcs *g = user;

	fuzz_check_gcs(msgid, payload, &g->params);
	if (g->f == NULL) {
		/* The tick: only a list's values, back to the asker. */
		if (msgid != MAVLINK_MSG_PARAM_VALUE || reply_to != &g->link)
			abort();
		g->paced++;
		return;
	}
	if (reply_to == NULL) {
		/* To every link: only the value a PARAM_SET changed. */
		if (msgid != MAVLINK_MSG_PARAM_VALUE ||
		    g->f->msgid != MAVLINK_MSG_PARAM_SET)
			abort();
		g->to_all++;
	} else if (reply_to != &g->link) {
		abort();
	}
	if (msgid == MAVLINK_MSG_COMMAND_ACK) {
		struct mavlink_command_long c;
		struct mavlink_command_ack a;
		mavlink_unpack_command_ack(payload, &a);
		if (mavlink_unpack_command(g->f->msgid, g->f->payload,
					   &c) < 0 ||
		    a.command != c.command || a.target_system != g->f->sysid ||
		    a.target_component != g->f->compid ||
		    (g->ack >= 0 && a.result != g->ack))
			abort();
	}
	g->replies++;
}

/* The daemon's check in emulated mode: the release's parameters, and
 * the atmosphere's domain at the home altitude. */
static int
gcs_check(void *user, size_t idx, double value)
{
	char err[200];

	(void)user;
	if (baro_sitl_ardupilot_param_check(BARO_SITL_AP_DEFAULT, idx, value,
					    err, sizeof(err)) < 0)
		return -1;
	return baro_sitl_param_check(BARO_SITL_ATMOS_1976, 584.0, idx, value,
				     err, sizeof(err));
}

static void
gcs_changed(void *user, size_t idx, float old_value, float new_value)
{
	struct gcs *g = user;
	float now = sim_param_get(&g->params, idx);

	if (idx >= sim_param_count() ||
	    memcmp(&old_value, &new_value, sizeof(old_value)) == 0 ||
	    memcmp(&now, &new_value, sizeof(now)) != 0 ||
	    g->f->msgid != MAVLINK_MSG_PARAM_SET)
		abort();
	g->changes++;
}

static uint8_t
gcs_inject(void *user, unsigned type, unsigned instance)
{
	struct gcs *g = user;
	struct mavlink_command_long c;

	if (mavlink_unpack_command(g->f->msgid, g->f->payload, &c) < 0)
		abort();
	if (type >= PX4_FAILURE_TYPES || instance > 3 ||
	    c.command != MAV_CMD_INJECT_FAILURE ||
	    c.param[0] != 3.0f || c.param[1] != (float)type ||
	    c.param[2] != (float)instance)
		abort();
	g->injections++;
	/* The injector's answer varies with the request. */
	g->ack = (type + instance) % 3 == 0 ? MAV_RESULT_FAILED
					    : MAV_RESULT_ACCEPTED;
	return (uint8_t)g->ack;
}

/* [faults] remote off: a PARAM_SET or an injection for us, refused. */
static void
gcs_denied(void *user, const struct mavlink_frame *f, void *reply_to)
{
	struct gcs *g = user;

	if (g->ps.remote_faults || f != g->f || reply_to != &g->link ||
	    (f->msgid != MAVLINK_MSG_PARAM_SET &&
	     f->msgid != MAVLINK_MSG_COMMAND_LONG &&
	     f->msgid != MAVLINK_MSG_COMMAND_INT))
		abort();
	g->denials++;
}

static bool
set_for_us(const struct mavlink_frame *f)
{
	struct mavlink_param_set m;

	if (f->msgid != MAVLINK_MSG_PARAM_SET)
		return false;
	mavlink_unpack_param_set(f->payload, &m);
	return m.target_system == SYSID && m.target_component == COMPID;
}

static void
on_frame(const struct mavlink_frame *f, void *user)
{
	struct gcs *g = user;
	struct sim_params before = g->params;

	g->f = f;
	g->replies = g->to_all = g->changes = g->injections = 0;
	g->ack = -1;
	g->denials = 0;
	if (f->msgid == MAVLINK_MSG_PARAM_REQUEST_LIST)
		g->lists++;
	param_service_handle(&g->ps, f, &g->link);
	g->f = NULL;
	/* Refused: nothing changed, nothing injected, told at most once. */
	if (!g->ps.remote_faults &&
	    (g->injections || g->changes || g->denials > 1))
		abort();

	bool changed = memcmp(&before, &g->params, sizeof(before)) != 0;
	if (changed && !set_for_us(f))
		abort();
	/* A change is announced to all links and reported once. */
	if (changed != (g->changes == 1) || g->changes > 1 ||
	    (changed && g->to_all != 1))
		abort();
	/* Bounded: a list is the table once, anything else two lines. */
	if (g->replies > (f->msgid == MAVLINK_MSG_PARAM_REQUEST_LIST
				  ? sim_param_count()
				  : 2u))
		abort();
	if (g->injections > 1)
		abort();
	fuzz_check_params(&g->params);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct gcs g;
	static struct sim_params defaults;
	struct mavlink_parser p;

	if (!defaults.baro_count)
		sim_params_defaults(&defaults);
	g.params = defaults;
	g.ps = (struct param_service){
		.sysid = SYSID, .compid = COMPID, .params = &g.params,
		.send = gcs_send, .check = gcs_check, .changed = gcs_changed,
		.inject = gcs_inject, .denied = gcs_denied, .user = &g,
		/* The first byte steers [faults] remote: a v2 start byte
		 * (0xFD) has it on, a v1 one (0xFE) off. */
		.remote_faults = size > 0 && (data[0] & 1),
	};
	g.lists = g.paced = 0;
	/* One datagram: what a frame left unfinished is dropped. */
	mavlink_parser_init(&p);
	mavlink_parser_feed(&p, data, size, on_frame, &g);
	mavlink_parser_flush(&p);
	/* Then the 10 ms tick streams what lists were asked for: at most
	 * the table once per list, nothing without one. */
	for (uint64_t t = 10000; t <= 2000000; t += 10000)
		param_service_tick(&g.ps, t);
	if (g.paced > g.lists * sim_param_count())
		abort();
	return 0;
}
