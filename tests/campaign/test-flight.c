// SPDX-License-Identifier: GPL-3.0-or-later
/* The standard flight against a scripted autopilot on simulated time:
 * the commands each autopilot gets, retries, refusals, a failsafe, and
 * a disarm in the air. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "campaign-file.h"
#include "flight.h"
#include "test-util.h"

struct sim {
	struct flight f;
	uint64_t now_us;
	uint32_t ap_ms;
	bool armed;
	uint32_t mode;
	double alt;
	uint16_t last_cmd;
	float last_p[7];
	unsigned sent;
	int answer;		/* MAV_RESULT for the next command; -1: none */
	/* Its parameters: PX4's INT32 is sent byte-wise (the int's bits
	 * in the float, written here with memcpy on a little-endian
	 * host), ArduPilot's as a float. */
	struct { const char *name; double v; uint8_t type; } p[2];
	unsigned reads, sets;
	float last_wire;
	bool keeps;		/* echoes a set with its old value */
	/* A mission upload: items kept as sent; the ACK's type, or -1 for
	 * none. */
	unsigned mis_count, mis_items;
	struct mavlink_mission_item_int mis[8];
	int mis_ack;
};

static float
wire_of(const struct sim *s, double v, uint8_t type)
{
	if (s->f.ap == CAMPAIGN_PX4 && type == MAV_PARAM_TYPE_INT32) {
		int32_t i = (int32_t)v;
		float f;
		memcpy(&f, &i, sizeof(f));
		return f;
	}
	return (float)v;
}

static void
rx(struct sim *s, uint32_t msgid, const union mavlink_msg *m)
{
	struct mavlink_frame fr = { .version = 2, .sysid = 1, .compid = 1,
				    .msgid = msgid };
	mavlink_pack_msg(msgid, m, fr.payload);
	flight_rx(&s->f, &fr, s->now_us);
}

/* The autopilot's telemetry at its clock now. */
static void
telemetry(struct sim *s)
{
	union mavlink_msg m = { .hb = {
		.type = 2, .autopilot = 3,
		.base_mode = (uint8_t)(1 | (s->armed ? 128 : 0)),
		.custom_mode = s->mode } };
	rx(s, MAVLINK_MSG_HEARTBEAT, &m);
	m = (union mavlink_msg){ .gpi = {
		.time_boot_ms = s->ap_ms,
		.alt = (int32_t)lround((584.0 + s->alt) * 1000.0),
		.relative_alt = (int32_t)lround(s->alt * 1000.0) } };
	rx(s, MAVLINK_MSG_GLOBAL_POSITION_INT, &m);
}

/* 100 ms pass: commands go out and are answered as s->answer says. */
static void
tick(struct sim *s)
{
	uint32_t id;
	union mavlink_msg m;
	s->now_us += 100000;
	s->ap_ms += 100;
	while (flight_step(&s->f, s->now_us, &id, &m) == 1) {
		if (id == MAVLINK_MSG_PARAM_REQUEST_READ ||
		    id == MAVLINK_MSG_PARAM_SET) {
			const char *name = id == MAVLINK_MSG_PARAM_SET
						   ? m.ps.param_id
						   : m.prr.param_id;
			int k = -1;
			for (int i = 0; i < 2; i++)
				if (s->p[i].name &&
				    strcmp(s->p[i].name, name) == 0)
					k = i;
			if (id == MAVLINK_MSG_PARAM_SET) {
				s->sets++;
				s->last_wire = m.ps.param_value;
			} else {
				s->reads++;
			}
			if (k < 0 || s->answer < 0)
				continue;
			if (id == MAVLINK_MSG_PARAM_SET && !s->keeps) {
				assert_int_equal(m.ps.param_type, s->p[k].type);
				float w = m.ps.param_value;
				if (s->f.ap == CAMPAIGN_PX4 &&
				    s->p[k].type == MAV_PARAM_TYPE_INT32) {
					int32_t i;
					memcpy(&i, &w, sizeof(i));
					s->p[k].v = i;
				} else {
					s->p[k].v = w;
				}
			}
			union mavlink_msg a = { .pv = {
				.param_value = wire_of(s, s->p[k].v,
						       s->p[k].type),
				.param_type = s->p[k].type } };
			strcpy(a.pv.param_id, s->p[k].name);
			rx(s, MAVLINK_MSG_PARAM_VALUE, &a);
			continue;
		}
		if (id == MAVLINK_MSG_MISSION_COUNT ||
		    id == MAVLINK_MSG_MISSION_ITEM_INT) {
			union mavlink_msg a;
			uint32_t aid = MAVLINK_MSG_MISSION_REQUEST_INT;
			if (id == MAVLINK_MSG_MISSION_COUNT) {
				s->mis_count = m.mc.count;
				s->mis_items = 0;
			} else {
				assert_int_equal(m.mi.seq, s->mis_items);
				s->mis[s->mis_items++ & 7] = m.mi;
			}
			if (s->mis_items < s->mis_count) {
				a = (union mavlink_msg){ .mr = {
					.seq = (uint16_t)s->mis_items } };
			} else {
				if (s->mis_ack < 0)
					continue;
				aid = MAVLINK_MSG_MISSION_ACK;
				a = (union mavlink_msg){ .ma = {
					.type = (uint8_t)s->mis_ack } };
			}
			rx(s, aid, &a);
			continue;
		}
		assert_int_equal(id, MAVLINK_MSG_COMMAND_LONG);
		s->last_cmd = m.cl.command;
		memcpy(s->last_p, m.cl.param, sizeof(s->last_p));
		s->sent++;
		if (s->answer < 0)
			continue;
		union mavlink_msg a = { .ca = { .command = m.cl.command,
						.result = (uint8_t)s->answer } };
		if (s->answer == MAV_RESULT_ACCEPTED) {
			if (m.cl.command == 400)
				s->armed = true;
			if (m.cl.command == 176)
				s->mode = (uint32_t)m.cl.param[1];
			if (m.cl.command == 21)
				s->mode = s->f.ap == CAMPAIGN_ARDUPILOT
						  ? 9u
						  : (6u << 24 | 4u << 16);
			if (m.cl.command == 300)
				s->mode = s->f.ap == CAMPAIGN_ARDUPILOT
						  ? 3u
						  : (4u << 24 | 4u << 16);
		}
		rx(s, MAVLINK_MSG_COMMAND_ACK, &a);
	}
	telemetry(s);
}

static void
sim_init(struct sim *s, enum campaign_autopilot ap, bool land)
{
	struct campaign c = { .autopilot = ap, .takeoff_m = 10, .hold_s = 5,
			      .land = land };
	memset(s, 0, sizeof(*s));
	flight_init(&s->f, &c);
	telemetry(s);
}

static void
test_ardupilot_flight(void **state)
{
	static struct sim s;
	(void)state;
	sim_init(&s, CAMPAIGN_ARDUPILOT, true);
	tick(&s);
	tick(&s);
	assert_int_equal(s.last_cmd, 176);	/* GUIDED first */
	assert_true(s.last_p[1] == 4.0f);
	tick(&s);
	tick(&s);
	assert_int_equal(s.last_cmd, 400);
	tick(&s);
	tick(&s);
	assert_int_equal(s.last_cmd, 22);
	assert_true(s.last_p[6] == 10.0f);	/* above home */
	assert_int_equal(s.f.phase, FLIGHT_CLIMB);
	for (int i = 0; i < 50 && s.f.phase == FLIGHT_CLIMB; i++) {
		s.alt = fmin(10.0, s.alt + 0.3);
		tick(&s);
	}
	/* Within a metre of the height. */
	assert_int_equal(s.f.phase, FLIGHT_HOLD);
	assert_true(s.alt >= 9.0 && s.alt < 9.7);
	/* Hold 5 s of its clock. */
	for (int i = 0; i < 45; i++)
		tick(&s);
	assert_int_equal(s.f.phase, FLIGHT_HOLD);
	for (int i = 0; i < 10; i++)
		tick(&s);
	assert_int_equal(s.last_cmd, 21);
	assert_int_equal(s.f.phase, FLIGHT_LANDING);
	assert_false(s.f.failsafe);	/* LAND was asked for */
	s.armed = false;
	tick(&s);
	tick(&s);
	assert_int_equal(s.f.phase, FLIGHT_DONE);
	assert_int_equal(s.f.failure, FLIGHT_OK);
	struct flight_event e;
	unsigned phases = 0;
	while (flight_event_next(&s.f, &e))
		phases += strcmp(e.what, "phase") == 0;
	assert_true(phases >= 1);
}

/* PX4: no mode command, take-off AMSL, its own switch to LOITER is no
 * failsafe, an unasked AUTO.LAND is. */
static void
test_px4_failsafe(void **state)
{
	static struct sim s;
	(void)state;
	sim_init(&s, CAMPAIGN_PX4, true);
	for (int i = 0; i < 4; i++)
		tick(&s);
	assert_int_equal(s.f.phase, FLIGHT_CLIMB);
	assert_true(fabsf(s.last_p[6] - 594.0f) < 1e-3f);
	s.mode = 2u << 24 | 4u << 16;		/* AUTO.TAKEOFF */
	s.alt = 10;
	tick(&s);
	s.mode = 3u << 24 | 4u << 16;		/* AUTO.LOITER */
	tick(&s);
	assert_int_equal(s.f.phase, FLIGHT_HOLD);
	assert_false(s.f.failsafe);
	s.mode = 6u << 24 | 4u << 16;		/* AUTO.LAND, not asked */
	tick(&s);
	assert_true(s.f.failsafe);
	/* Landed by it: the flight is over, not failed (seen at the
	 * next step). */
	s.armed = false;
	tick(&s);
	tick(&s);
	assert_int_equal(s.f.phase, FLIGHT_DONE);
	assert_int_equal(s.f.failure, FLIGHT_OK);
}

static void
test_refusals_and_retries(void **state)
{
	static struct sim s;
	(void)state;
	/* Arming denied. */
	sim_init(&s, CAMPAIGN_PX4, true);
	s.answer = MAV_RESULT_DENIED;
	for (int i = 0; i < 3; i++)
		tick(&s);
	assert_int_equal(s.f.phase, FLIGHT_FAILED);
	assert_int_equal(s.f.failure, FLIGHT_NEVER_ARMED);
	assert_string_equal(s.f.why, "arming denied");
	/* Unanswered: five tries a second apart, then never armed. */
	sim_init(&s, CAMPAIGN_PX4, true);
	s.answer = -1;
	for (int i = 0; i < 80; i++)
		tick(&s);
	assert_int_equal(s.sent, 5);
	assert_int_equal(s.f.failure, FLIGHT_NEVER_ARMED);
	assert_string_equal(s.f.why, "arming unanswered");
	/* A STATUSTEXT failsafe in the air; then disarmed by it. */
	sim_init(&s, CAMPAIGN_ARDUPILOT, true);
	for (int i = 0; i < 8; i++)
		tick(&s);
	assert_int_equal(s.f.phase, FLIGHT_CLIMB);
	/* Baro health and the height test ratio become events. */
	union mavlink_msg m = { .ss = {
		.sensors_present = MAV_SYS_STATUS_SENSOR_ABSOLUTE_PRESSURE } };
	rx(&s, MAVLINK_MSG_SYS_STATUS, &m);
	assert_true(s.f.have_health && !s.f.baro_healthy);
	m = (union mavlink_msg){ .ekf = { .pos_vert_variance = 1.5f } };
	rx(&s, MAVLINK_MSG_EKF_STATUS_REPORT, &m);
	assert_true(s.f.height_rejected);
	m = (union mavlink_msg){ .es = { .pos_vert_ratio = 0.2f } };
	rx(&s, MAVLINK_MSG_ESTIMATOR_STATUS, &m);
	assert_false(s.f.height_rejected);
	struct flight_event e;
	bool health = false, rej = false;
	while (flight_event_next(&s.f, &e)) {
		health |= strcmp(e.what, "baro_health") == 0 && e.value == 0;
		rej |= strcmp(e.what, "height_rejected") == 0 && e.value == 1 &&
		       strcmp(e.text, "ratio 1.50") == 0;
	}
	assert_true(health && rej);
	m = (union mavlink_msg){ .st = { .severity = 2 } };
	strcpy(m.st.text, "EKF failsafe: LAND");
	rx(&s, MAVLINK_MSG_STATUSTEXT, &m);
	assert_true(s.f.failsafe);
	/* Disarmed in the air with no failsafe: failed. */
	sim_init(&s, CAMPAIGN_ARDUPILOT, true);
	for (int i = 0; i < 8; i++)
		tick(&s);
	s.armed = false;
	tick(&s);
	tick(&s);
	assert_int_equal(s.f.failure, FLIGHT_DISARMED);
	/* Never climbs: 120 s of its clock. */
	sim_init(&s, CAMPAIGN_ARDUPILOT, true);
	for (int i = 0; i < 1300; i++)
		tick(&s);
	assert_int_equal(s.f.failure, FLIGHT_NO_CLIMB);
}

/* [params] before arming: read for the type, set until echoed; PX4's
 * integers byte-wise; an unknown name or a fraction for an integer
 * refused. */
static void
test_params(void **state)
{
	static struct sim s;
	(void)state;
	/* PX4: an INT32 and a float. */
	sim_init(&s, CAMPAIGN_PX4, true);
	s.p[0].name = "EKF2_HGT_REF";
	s.p[0].v = 1;
	s.p[0].type = MAV_PARAM_TYPE_INT32;
	s.p[1].name = "EKF2_BARO_GATE";
	s.p[1].v = 5;
	s.p[1].type = MAV_PARAM_TYPE_REAL32;
	assert_int_equal(flight_add_param(&s.f, "EKF2_HGT_REF", 2), 0);
	assert_int_equal(flight_add_param(&s.f, "EKF2_BARO_GATE", 2.5), 0);
	for (int i = 0; i < 12 && s.f.phase != FLIGHT_CLIMB; i++)
		tick(&s);
	assert_int_equal(s.f.phase, FLIGHT_CLIMB);	/* then armed */
	assert_true(s.p[0].v == 2 && s.p[1].v == 2.5);
	assert_int_equal(s.reads, 2);
	assert_int_equal(s.sets, 2);
	assert_true(s.f.params[0].known && s.f.params[0].before == 1);
	assert_int_equal(s.f.param_at, 2);
	struct flight_event e;
	unsigned echoed = 0;
	while (flight_event_next(&s.f, &e))
		echoed += strcmp(e.what, "param") == 0;
	assert_int_equal(echoed, 2);

	/* ArduPilot: an INT16 as a plain float. */
	sim_init(&s, CAMPAIGN_ARDUPILOT, true);
	s.p[0].name = "EK3_HGT_I_GATE";
	s.p[0].v = 500;
	s.p[0].type = MAV_PARAM_TYPE_INT16;
	assert_int_equal(flight_add_param(&s.f, "EK3_HGT_I_GATE", 300), 0);
	for (int i = 0; i < 10 && s.last_cmd == 0; i++)
		tick(&s);
	assert_int_equal(s.last_cmd, 176);	/* the first command: GUIDED */
	assert_true(s.p[0].v == 300);		/* after the set */
	assert_true(s.last_wire == 300.0f);

	/* Not a parameter it has: five reads, then refused. */
	sim_init(&s, CAMPAIGN_ARDUPILOT, true);
	assert_int_equal(flight_add_param(&s.f, "NO_SUCH_PARAM", 1), 0);
	for (int i = 0; i < 80; i++)
		tick(&s);
	assert_int_equal(s.reads, 5);
	assert_int_equal(s.f.failure, FLIGHT_REFUSED);
	assert_string_equal(s.f.why, "parameter NO_SUCH_PARAM: no answer "
				     "(not one of this autopilot's?)");
	assert_int_equal(s.last_cmd, 0);	/* never armed */

	/* A fraction for an integer parameter. */
	sim_init(&s, CAMPAIGN_PX4, true);
	s.p[0].name = "EKF2_HGT_REF";
	s.p[0].v = 1;
	s.p[0].type = MAV_PARAM_TYPE_INT32;
	assert_int_equal(flight_add_param(&s.f, "EKF2_HGT_REF", 1.5), 0);
	for (int i = 0; i < 5; i++)
		tick(&s);
	assert_int_equal(s.f.failure, FLIGHT_REFUSED);
	assert_string_equal(s.f.why, "parameter EKF2_HGT_REF is a whole "
				     "number; the campaign's value is not");
	assert_int_equal(s.sets, 0);

	/* Set, but the echo keeps the old value (out of its range). */
	sim_init(&s, CAMPAIGN_PX4, true);
	s.p[1].name = "EKF2_BARO_GATE";
	s.p[1].v = 5;
	s.p[1].type = MAV_PARAM_TYPE_REAL32;
	assert_int_equal(flight_add_param(&s.f, "EKF2_BARO_GATE", 9), 0);
	s.keeps = true;
	for (int i = 0; i < 80; i++)
		tick(&s);
	assert_int_equal(s.sets, 5);
	assert_int_equal(s.f.failure, FLIGHT_REFUSED);
	assert_string_equal(s.f.why, "parameter EKF2_BARO_GATE: the autopilot "
				     "did not take the value");

	/* Too many, or a name MAVLink cannot carry. */
	sim_init(&s, CAMPAIGN_PX4, true);
	assert_int_equal(flight_add_param(&s.f, "SEVENTEEN_CHARS_X", 1),
			 -EINVAL);
	for (int i = 0; i < CAMPAIGN_MAX_PARAMS; i++)
		assert_int_equal(flight_add_param(&s.f, "P", 1), 0);
	assert_int_equal(flight_add_param(&s.f, "P", 1), -ENOSPC);
}

static void
reached(struct sim *s, uint16_t seq)
{
	union mavlink_msg m = { .mir = { .seq = seq } };
	rx(s, MAVLINK_MSG_MISSION_ITEM_REACHED, &m);
}

/* A mission: uploaded before arming (ArduPilot's item 0 its home),
 * started after the hold, done at the last item; then the landing. */
static void
test_mission(void **state)
{
	static struct sim s;
	(void)state;
	const struct campaign_waypoint wp[2] = {
		{ .north_m = 100, .east_m = 0, .alt_m = 20 },
		{ .north_m = 100, .east_m = 50, .alt_m = 5 },
	};
	for (int ap = 0; ap < 2; ap++) {
		const bool ardu = ap == 0;
		sim_init(&s, ardu ? CAMPAIGN_ARDUPILOT : CAMPAIGN_PX4, true);
		assert_int_equal(flight_set_mission(&s.f, wp, 2), 0);
		for (int i = 0; i < 20 && s.f.phase != FLIGHT_CLIMB; i++)
			tick(&s);
		assert_int_equal(s.f.phase, FLIGHT_CLIMB);
		/* Uploaded whole before the first command. */
		assert_int_equal(s.mis_count, ardu ? 3 : 2);
		assert_int_equal(s.mis_items, s.mis_count);
		const struct mavlink_mission_item_int *w1 = &s.mis[ardu ? 1 : 0],
						       *w2 = &s.mis[ardu ? 2 : 1];
		if (ardu)
			assert_int_equal(s.mis[0].frame, 0);	/* home */
		assert_int_equal(w1->frame, 6);
		assert_int_equal(w1->command, 16);
		assert_true(w1->z == 20.0f && w2->z == 5.0f);
		/* 100 m north of 0,0 is 8983 degE7 (ArduPilot's scale);
		 * 50 m east on the equator 4492. */
		assert_int_equal(w1->x, 8983);
		assert_int_equal(w1->y, 0);
		assert_int_equal(w2->y, 4492);
		s.alt = 10;
		for (int i = 0; i < 60 && s.f.phase != FLIGHT_MISSION; i++)
			tick(&s);
		assert_int_equal(s.f.phase, FLIGHT_MISSION);
		tick(&s);
		assert_int_equal(s.last_cmd, 300);
		assert_true(s.last_p[0] == (ardu ? 1.0f : 0.0f));
		assert_true(s.last_p[1] == (ardu ? 2.0f : 1.0f));
		/* AUTO is the mode it asked for: no failsafe. */
		tick(&s);
		assert_false(s.f.failsafe);
		reached(&s, ardu ? 1 : 0);
		tick(&s);
		assert_int_equal(s.f.phase, FLIGHT_MISSION);
		reached(&s, ardu ? 2 : 1);
		tick(&s);
		tick(&s);
		assert_int_equal(s.last_cmd, 21);
		assert_int_equal(s.f.phase, FLIGHT_LANDING);
	}
	/* Refused upload. */
	sim_init(&s, CAMPAIGN_PX4, true);
	s.mis_ack = 1;
	assert_int_equal(flight_set_mission(&s.f, wp, 2), 0);
	for (int i = 0; i < 10; i++)
		tick(&s);
	assert_int_equal(s.f.failure, FLIGHT_REFUSED);
	assert_string_equal(s.f.why, "mission refused (MAV_MISSION_RESULT 1)");
	assert_int_equal(s.last_cmd, 0);	/* never armed */
	/* Never finished: its budget (legs at 1 m/s, 30 s more). */
	sim_init(&s, CAMPAIGN_PX4, true);
	assert_int_equal(flight_set_mission(&s.f, wp, 2), 0);
	s.alt = 10;
	for (int i = 0; i < 3000 && !flight_over(&s.f); i++)
		tick(&s);
	assert_int_equal(s.f.failure, FLIGHT_MISSION_UNFINISHED);
	assert_string_equal(s.f.why, "mission unfinished: 0 of 2 waypoints "
				     "reached");
	/* Its budget: 100.5 m + 52.2 m of legs at 1 m/s, and 30 s. */
	assert_int_equal(s.f.mission_budget_ms, 182700);
	assert_int_equal(flight_set_mission(&s.f, wp, 0), -EINVAL);
}

/* Lane switches announced in STATUSTEXT are counted, the first timed. */
static void
test_lane_switch(void **state)
{
	static struct sim s;
	(void)state;
	sim_init(&s, CAMPAIGN_ARDUPILOT, true);
	for (int i = 0; i < 8; i++)
		tick(&s);
	static const char *const texts[] = {
		"EKF3 IMU0 is using GPS", "EKF3 lane switch 1",
		"NavEKF2: lane switch 0", "primary EKF changed 0 (filter fault) -> 1",
	};
	for (size_t i = 0; i < 4; i++) {
		union mavlink_msg m = { .st = { .severity = 2 } };
		strcpy(m.st.text, texts[i]);
		tick(&s);
		rx(&s, MAVLINK_MSG_STATUSTEXT, &m);
		if (i == 1)
			assert_int_equal(s.f.lane_switch_ms, s.ap_ms);
	}
	assert_int_equal(s.f.lane_switches, 3);
	assert_false(s.f.failsafe);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ardupilot_flight),
		cmocka_unit_test(test_px4_failsafe),
		cmocka_unit_test(test_refusals_and_retries),
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_lane_switch),
		cmocka_unit_test(test_mission),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
