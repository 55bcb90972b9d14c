/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The drive engine against the scripted autopilots (tests/harness/
 * ap-peer.c) on simulated time: a scenario carried out by PARAM_SET and
 * MAV_CMD_INJECT_FAILURE on the autopilot's clock, at a speed-up and
 * through a pause; answers lost and late; a link lost and back; an
 * autopilot that restarts; values left behind, with and without a state
 * file; refusals.  Every run must end with the autopilot as it began.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ap-peer.h"
#include "atmosphere.h"
#include "drive-state.h"
#include "drive.h"
#include "sim-params.h"

#define STEP_US 10000u

struct rig {
	struct drive d;
	struct scenario sc;
	struct ap_peer ap;
	struct drive_opts o;
	struct mavlink_parser parser;
	uint64_t now_us;
	uint8_t seq;
	char state[4096];
	bool state_exists;
	unsigned state_writes;
	unsigned sent_sets, acked, scenario_zero;
	unsigned nseen;
	struct { char name[17]; float value; uint64_t ap_ms; } seen[16];
	uint64_t zero_ap_ms;	/* autopilot time at scenario time 0 */
	char log[16384];
	size_t log_len;
};

static void
rig_send(void *user, uint32_t msgid, const union mavlink_msg *m)
{
	struct rig *r = user;
	uint8_t pl[MAVLINK_MAX_PAYLOAD], f[MAVLINK_MAX_FRAME];

	if (msgid == MAVLINK_MSG_PARAM_SET) {
		r->sent_sets++;
		/* Write-ahead: a value away from its start goes out only
		 * once the state file names it. */
		for (size_t i = 0; i < r->d.nslots; i++) {
			const struct drive_slot *s = &r->d.slots[i];
			if (strcmp(s->name, m->ps.param_id) == 0 &&
			    s->start_known && m->ps.param_value != s->start)
				assert_non_null(strstr(r->state, s->name));
		}
	}
	memset(pl, 0, sizeof(pl));
	mavlink_pack_msg(msgid, m, pl);
	int n = mavlink_frame_encode(f, 2, r->seq++, 255, 190, msgid, pl);
	assert_true(n > 0);
	ap_peer_rx(&r->ap, f, (size_t)n, r->now_us);
}

static void
rig_log(void *user, bool error, const char *text)
{
	struct rig *r = user;
	int n = snprintf(r->log + r->log_len, sizeof(r->log) - r->log_len,
			 "%s%s\n", error ? "E: " : "", text);
	if (n > 0 && (size_t)n < sizeof(r->log) - r->log_len)
		r->log_len += (size_t)n;
}

static void
rig_record(void *user, const struct drive_row *row)
{
	struct rig *r = user;

	if (strcmp(row->event, "acked") == 0)
		r->acked++;
	if (strcmp(row->event, "seen") == 0 && r->nseen < 16) {
		snprintf(r->seen[r->nseen].name, 17, "%s", row->name);
		r->seen[r->nseen].value = (float)row->value;
		r->seen[r->nseen++].ap_ms = row->ap_ms;
	}
	if (strcmp(row->text, "scenario time 0") == 0) {
		r->scenario_zero++;
		r->zero_ap_ms = row->ap_ms;
	}
}

static int
rig_state(void *user)
{
	struct rig *r = user;
	FILE *f = fmemopen(r->state, sizeof(r->state), "w");

	assert_non_null(f);
	size_t n = drive_state_write(&r->d, f);
	fclose(f);
	r->state_exists = n > 0;
	if (!r->state_exists)
		r->state[0] = '\0';
	r->state_writes++;
	return 0;
}

static void
on_frame(const struct mavlink_frame *f, void *user)
{
	struct rig *r = user;
	drive_frame(&r->d, f, r->now_us);
}

static void
rig_open(struct rig *r, enum ap_peer_kind kind, const char *text)
{
	char err[512];

	memset(r, 0, sizeof(*r));
	ap_peer_init(&r->ap, kind);
	drive_opts_default(&r->o);
	r->o.ap = kind == AP_PEER_PX4 ? DRIVE_PX4 : DRIVE_ARDUPILOT;
	mavlink_parser_init(&r->parser);
	int rc = scenario_parse(&r->sc, text, strlen(text), "t.scn", err,
				sizeof(err));
	if (rc < 0)
		fail_msg("%s", err);
	r->now_us = 1000000;	/* the engine's clock is not at 0 */
}

static void
rig_start(struct rig *r)
{
	const struct drive_io io = {
		.send = rig_send,
		.log = rig_log,
		.record = rig_record,
		.state = rig_state,
	};
	drive_init(&r->d, &r->sc, "t.scn", &r->o, &io, r);
}

/* Run until the drive is over or wall_s more seconds passed; with
 * stop_at_us, drive_stop() then. */
static void
rig_run(struct rig *r, double wall_s, uint64_t stop_at_us)
{
	uint8_t buf[AP_PEER_QUEUE * MAVLINK_MAX_FRAME];
	uint64_t until = r->now_us + (uint64_t)(wall_s * 1e6);

	while (!drive_over(&r->d) && r->now_us < until) {
		r->now_us += STEP_US;
		size_t n = ap_peer_step(&r->ap, r->now_us, buf, sizeof(buf));
		mavlink_parser_feed(&r->parser, buf, n, on_frame, r);
		mavlink_parser_flush(&r->parser);
		drive_tick(&r->d, r->now_us);
		if (stop_at_us && r->now_us >= stop_at_us) {
			drive_stop(&r->d, r->now_us);
			stop_at_us = 0;
		}
	}
}

/* The autopilot time at which name took value, the first time after
 * from_ms; UINT64_MAX if never. */
static uint64_t
applied(const struct rig *r, const char *name, float value, uint64_t from_ms)
{
	for (size_t i = 0; i < r->ap.nhistory; i++) {
		const struct ap_peer_change *c = &r->ap.history[i];
		if (c->ap_ms >= from_ms && strcmp(c->name, name) == 0 &&
		    c->value == value)
			return c->ap_ms;
	}
	return UINT64_MAX;
}

/* name took value within [zero + at_ms, zero + at_ms + late_ms]. */
static void
assert_applied(const struct rig *r, const char *name, float value,
	       uint64_t at_ms, uint64_t late_ms)
{
	uint64_t t = applied(r, name, value, r->zero_ap_ms + at_ms);
	if (t > r->zero_ap_ms + at_ms + late_ms)
		fail_msg("%s = %g due at scenario %llu ms: %s %llu", name,
			 (double)value, (unsigned long long)at_ms,
			 t == UINT64_MAX ? "never" : "at",
			 (unsigned long long)(t - r->zero_ap_ms));
}

/* The record's "seen" row for name = value: when the autopilot's own
 * SCALED_PRESSURE first showed the change; UINT64_MAX if none. */
static uint64_t
seen_at(const struct rig *r, const char *name, float value)
{
	for (unsigned i = 0; i < r->nseen; i++)
		if (strcmp(r->seen[i].name, name) == 0 &&
		    r->seen[i].value == value)
			return r->seen[i].ap_ms;
	return UINT64_MAX;
}

/* Every SIM_* parameter back at barod's table's default. */
static void
assert_ardupilot_clean(const struct rig *r)
{
	struct sim_params d;

	sim_params_defaults(&d);
	for (size_t i = 0; i < sim_param_count(); i++)
		if (ap_peer_get(&r->ap, sim_param_info(i)->name) !=
		    sim_param_get(&d, i))
			fail_msg("%s left at %g", sim_param_info(i)->name,
				 (double)ap_peer_get(&r->ap,
						     sim_param_info(i)->name));
	assert_false(r->state_exists);
}

static const char S1[] = "at 1s glitch 0 15 for 2s\n"
			 "at 2s freeze 1 for 1s\n"
			 "at 4s ramp SIM_BARO_DRIFT 0 to 0.5 over 1s\n"
			 "at 6s end\n";

static void
check_s1(const struct rig *r, uint64_t late_ms)
{
	assert_int_equal(r->d.end, DRIVE_END_OK);
	assert_int_equal(r->scenario_zero, 1);
	assert_applied(r, "SIM_BARO_GLITCH", 15.0f, 1000, late_ms);
	assert_applied(r, "SIM_BARO_GLITCH", 0.0f, 3000, late_ms);
	assert_applied(r, "SIM_BAR2_FREEZE", 1.0f, 2000, late_ms);
	assert_applied(r, "SIM_BAR2_FREEZE", 0.0f, 3000, late_ms);
	assert_applied(r, "SIM_BARO_DRIFT", 0.5f, 5000, late_ms);
	/* The ramp went through values between. */
	float mid = ap_peer_value_at(&r->ap, "SIM_BARO_DRIFT",
				     r->zero_ap_ms + 4600);
	assert_true(mid > 0.1f && mid < 0.45f);
	assert_applied(r, "SIM_BARO_DRIFT", 0.0f, 6000, late_ms);
	assert_ardupilot_clean(r);
}

static void
test_ardupilot_scenario(void **state)
{
	static struct rig r;

	(void)state;
	rig_open(&r, AP_PEER_ARDUPILOT, S1);
	rig_start(&r);
	rig_run(&r, 20.0, 0);
	/* SYSTEM_TIME every 100 ms of the autopilot's clock, one step
	 * there and back. */
	check_s1(&r, 150);
	assert_true(r.state_writes >= 2);
	assert_true(r.acked >= 5);
	/* The 15 m glitch and its end show in SCALED_PRESSURE within one
	 * of its 100 ms intervals of being applied. */
	uint64_t on = applied(&r, "SIM_BARO_GLITCH", 15.0f, 0);
	uint64_t seen = seen_at(&r, "SIM_BARO_GLITCH", 15.0f);
	assert_true(seen >= on && seen <= on + 110);
	assert_true(seen_at(&r, "SIM_BARO_GLITCH", 0.0f) != UINT64_MAX);
	/* A freeze shifts no pressure: not watched. */
	assert_true(seen_at(&r, "SIM_BAR2_FREEZE", 1.0f) == UINT64_MAX);
}

/* The parameters read before any message gave the autopilot's clock:
 * scenario time 0 is its first time_boot_ms, not 0 (CI found every
 * line due at once, the glitch set and restored together). */
static void
test_clock_after_params(void **state)
{
	static struct rig r;

	(void)state;
	rig_open(&r, AP_PEER_ARDUPILOT, S1);
	r.ap.clock_from_us = r.now_us + 3000000;
	rig_start(&r);
	rig_run(&r, 25.0, 0);
	assert_true(r.zero_ap_ms >= 2900);
	check_s1(&r, 150);
}

/* At ten times real time the same scenario takes a tenth of the wall
 * time and still lands on the autopilot's clock. */
static void
test_speedup(void **state)
{
	static struct rig r;

	(void)state;
	rig_open(&r, AP_PEER_ARDUPILOT, S1);
	r.ap.speed = 10.0;
	rig_start(&r);
	uint64_t t0 = r.now_us;
	rig_run(&r, 20.0, 0);
	/* 100 ms of SYSTEM_TIME and a 20 ms round trip at 10x. */
	check_s1(&r, 350);
	assert_true(r.now_us - t0 < 1500000);
}

/* A SITL paused for 5 s (silent, its clock still) longer than the
 * link's timeout: the scenario waits with it and goes on. */
static void
test_pause(void **state)
{
	static struct rig r;

	(void)state;
	rig_open(&r, AP_PEER_ARDUPILOT, S1);
	r.ap.pause_from_us = 3000000;
	r.ap.pause_to_us = 8000000;
	rig_start(&r);
	rig_run(&r, 30.0, 0);
	check_s1(&r, 150);
	assert_non_null(strstr(r.log, "the link is lost"));
	assert_non_null(strstr(r.log, "(paused): going on"));
}

/* Lost PARAM_SETs are sent again; answers later than the retry time
 * bring duplicates, which change nothing. */
static void
test_lost_and_late_answers(void **state)
{
	static struct rig r;

	(void)state;
	rig_open(&r, AP_PEER_ARDUPILOT, S1);
	r.ap.drop_sets = 3;
	rig_start(&r);
	rig_run(&r, 30.0, 0);
	check_s1(&r, 2200);
	assert_true(r.ap.sets_seen >= r.acked + 3);

	rig_open(&r, AP_PEER_ARDUPILOT, S1);
	r.ap.reply_delay_us = 700000;
	rig_start(&r);
	rig_run(&r, 30.0, 0);
	check_s1(&r, 1600);
}

/* The link goes silent for 4.5 s while the autopilot runs on: what was
 * due then came late, so everything goes back and the run is aborted. */
static void
test_link_lost(void **state)
{
	static struct rig r;

	(void)state;
	rig_open(&r, AP_PEER_ARDUPILOT, S1);
	r.ap.silent_from_us = 3500000;
	r.ap.silent_to_us = 8000000;
	rig_start(&r);
	rig_run(&r, 30.0, 0);
	assert_int_equal(r.d.end, DRIVE_END_ABORTED);
	assert_non_null(strstr(r.d.why, "the link was lost for"));
	assert_ardupilot_clean(&r);
}

/* An autopilot that restarts mid-scenario keeps its stored parameters:
 * they go back. */
static void
test_restart(void **state)
{
	static struct rig r;

	(void)state;
	rig_open(&r, AP_PEER_ARDUPILOT, S1);
	r.ap.restart_at_us = 3500000;
	rig_start(&r);
	rig_run(&r, 30.0, 0);
	assert_int_equal(r.d.end, DRIVE_END_ABORTED);
	assert_non_null(strstr(r.d.why, "restarted"));
	assert_ardupilot_clean(&r);
}

/* Two lines due at once: the state file names each value before its
 * change goes out (rig_send asserts it), not only the first. */
static void
test_two_at_once(void **state)
{
	static struct rig r;

	(void)state;
	rig_open(&r, AP_PEER_ARDUPILOT,
		 "at 1s glitch 0 5 for 1s\nat 1s freeze 1 for 1s\n"
		 "at 1s noise 1 0.5 for 1s\n");
	rig_start(&r);
	rig_run(&r, 20.0, 0);
	assert_int_equal(r.d.end, DRIVE_END_OK);
	assert_applied(&r, "SIM_BARO_GLITCH", 5.0f, 1000, 150);
	assert_applied(&r, "SIM_BAR2_FREEZE", 1.0f, 1000, 150);
	assert_applied(&r, "SIM_BAR2_RND", 0.5f, 1000, 150);
	assert_ardupilot_clean(&r);
}

/* A stop (a signal) puts everything back. */
static void
test_stop(void **state)
{
	static struct rig r;

	(void)state;
	rig_open(&r, AP_PEER_ARDUPILOT, S1);
	rig_start(&r);
	rig_run(&r, 30.0, 3800000);
	assert_int_equal(r.d.end, DRIVE_END_STOPPED);
	assert_true(applied(&r, "SIM_BARO_GLITCH", 15.0f, 0) != UINT64_MAX);
	assert_ardupilot_clean(&r);
}

/* A value away from its default that no state file explains is refused
 * before anything is sent; --keep-current takes it as the start. */
static void
test_left_behind(void **state)
{
	static struct rig r;

	(void)state;
	rig_open(&r, AP_PEER_ARDUPILOT, S1);
	ap_peer_set(&r.ap, "SIM_BARO_GLITCH", 15.0f);
	rig_start(&r);
	rig_run(&r, 10.0, 0);
	assert_int_equal(r.d.end, DRIVE_END_REFUSED);
	assert_non_null(strstr(r.d.why, "SIM_BARO_GLITCH is 15 on the "
					"autopilot, not its default 0"));
	assert_int_equal(r.sent_sets, 0);

	rig_open(&r, AP_PEER_ARDUPILOT, S1);
	ap_peer_set(&r.ap, "SIM_BARO_GLITCH", 15.0f);
	r.o.keep_current = true;
	rig_start(&r);
	rig_run(&r, 20.0, 0);
	assert_int_equal(r.d.end, DRIVE_END_OK);
	/* The glitch line sets 15 over 15; its end puts back 15. */
	assert_float_equal(ap_peer_get(&r.ap, "SIM_BARO_GLITCH"), 15.0, 0);
	assert_float_equal(ap_peer_get(&r.ap, "SIM_BAR2_FREEZE"), 0.0, 0);
}

/* baro-drive dies mid-glitch: its state file says what to put back, and
 * the next start does so before its own scenario runs. */
static void
test_crash_and_repair(void **state)
{
	static struct rig r;
	static struct ap_peer ap;
	char text[4096], err[512];

	(void)state;
	rig_open(&r, AP_PEER_ARDUPILOT, S1);
	rig_start(&r);
	rig_run(&r, 2.5, 0);	/* the glitch is on, then nothing more */
	assert_float_equal(ap_peer_get(&r.ap, "SIM_BARO_GLITCH"), 15.0, 0);
	assert_true(r.state_exists);
	assert_non_null(strstr(r.state, "autopilot ardupilot\n"));
	assert_non_null(strstr(r.state, "SIM_BARO_GLITCH 0\n"));
	snprintf(text, sizeof(text), "%s", r.state);
	ap = r.ap;
	uint64_t now = r.now_us;

	rig_open(&r, AP_PEER_ARDUPILOT, S1);
	r.ap = ap;
	r.now_us = now;
	r.ap.nq = 0;
	assert_int_equal(drive_state_parse(text, strlen(text), "s", DRIVE_ARDUPILOT,
					   &r.o, err, sizeof(err)),
			 0);
	assert_true(r.o.nleft >= 1);
	rig_start(&r);
	rig_run(&r, 20.0, 0);
	assert_non_null(strstr(r.log, "putting back what an earlier run"));
	assert_int_equal(r.d.end, DRIVE_END_OK);
	/* Back to 0 before the new run's time 0. */
	assert_true(applied(&r, "SIM_BARO_GLITCH", 0.0f, 0) <= r.zero_ap_ms);
	check_s1(&r, 150);
}

static void
test_unknown_parameter(void **state)
{
	static struct rig r;

	(void)state;
	rig_open(&r, AP_PEER_ARDUPILOT, "at 1s set SIM_BARO_WCF_FWD 2 for 1s\n");
	ap_peer_remove(&r.ap, "SIM_BARO_WCF_FWD");
	rig_start(&r);
	rig_run(&r, 20.0, 0);
	assert_int_equal(r.d.end, DRIVE_END_REFUSED);
	assert_non_null(strstr(r.d.why, "did not answer a read of "
					"SIM_BARO_WCF_FWD"));
	assert_int_equal(r.sent_sets, 0);
}

/* A line on a baro the autopilot does not have is refused; the count
 * acts at boot, so a scenario may not set it. */
static void
test_baro_count(void **state)
{
	static struct rig r;

	(void)state;
	rig_open(&r, AP_PEER_ARDUPILOT, "at 1s freeze 2 for 1s\n");
	rig_start(&r);
	rig_run(&r, 10.0, 0);
	assert_int_equal(r.d.end, DRIVE_END_REFUSED);
	assert_non_null(strstr(r.d.why, "acts on baro 2 and the autopilot "
					"has SIM_BARO_COUNT 2"));
	assert_int_equal(r.sent_sets, 0);

	rig_open(&r, AP_PEER_ARDUPILOT, "at 1s freeze 2 for 1s\n");
	ap_peer_set(&r.ap, "SIM_BARO_COUNT", 3.0f);
	rig_start(&r);
	rig_run(&r, 10.0, 0);
	assert_int_equal(r.d.end, DRIVE_END_OK);
	assert_applied(&r, "SIM_BAR3_FREEZE", 1.0f, 1000, 150);
}

static void
test_wrong_autopilot(void **state)
{
	static struct rig r;

	(void)state;
	rig_open(&r, AP_PEER_ARDUPILOT, "at 1s glitch 0 5 for 1s\n");
	r.o.ap = DRIVE_PX4;
	rig_start(&r);
	rig_run(&r, 5.0, 0);
	assert_int_equal(r.d.end, DRIVE_END_REFUSED);
	assert_non_null(strstr(r.d.why, "is ardupilot (HEARTBEAT autopilot "
					"3), not px4"));
}

static const char S_PX4[] = "at 1s glitch 0 15 for 2s\n"
			    "at 4s px4 off 0 for 1s\n"
			    "at 5.5s px4 stuck 0 for 1s\n";

static void
test_px4_scenario(void **state)
{
	static struct rig r;
	float p0, p1, t;

	(void)state;
	rig_open(&r, AP_PEER_PX4, S_PX4);
	rig_start(&r);
	rig_run(&r, 20.0, 0);
	assert_int_equal(r.d.end, DRIVE_END_OK);
	assert_non_null(strstr(r.log, "PX4 takes SIM_BARO_OFF_P at its next "
				      "parameter update"));
	/* 15 m at the vehicle's 584 m as pascals, applied at PX4's next
	 * parameter update (within a second). */
	atmos_1976_pressure_temperature(584.0f, &p0, &t);
	atmos_1976_pressure_temperature(599.0f, &p1, &t);
	float want = p1 - p0;
	assert_true(want < -170.0f && want > -185.0f);
	float got = ap_peer_value_at(&r.ap, "SIM_BARO_OFF_P",
				     r.zero_ap_ms + 2500);
	assert_float_equal(got, want, 1e-3);
	assert_applied(&r, "SIM_BARO_OFF_P", 0.0f, 3000, 1200);
	/* PX4 took the offset at its next parameter update, after the
	 * acknowledgement: the record's "seen" is when its pressure
	 * showed it, not when the PARAM_VALUE came. */
	uint64_t on = applied(&r, "SIM_BARO_OFF_P", want, 0);
	uint64_t seen = seen_at(&r, "SIM_BARO_OFF_P", want);
	assert_true(on % 1000 < 20 && on >= r.zero_ap_ms + 1000);
	assert_true(seen >= on && seen <= on + 110);
	assert_applied(&r, "baro", PX4_FAILURE_OFF, 4000, 150);
	assert_applied(&r, "baro", PX4_FAILURE_OK, 5000, 150);
	assert_applied(&r, "baro", PX4_FAILURE_STUCK, 5500, 150);
	assert_applied(&r, "baro", PX4_FAILURE_OK, 6500, 150);
	assert_float_equal(ap_peer_get(&r.ap, "SIM_BARO_OFF_P"), 0.0, 0);
	assert_int_equal(r.ap.inject, 0);
	assert_false(r.state_exists);
}

static void
test_px4_injection_refused(void **state)
{
	static struct rig r;

	(void)state;
	rig_open(&r, AP_PEER_PX4, S_PX4);
	ap_peer_set(&r.ap, "SYS_FAILURE_EN", 0.0f);
	rig_start(&r);
	rig_run(&r, 10.0, 0);
	assert_int_equal(r.d.end, DRIVE_END_REFUSED);
	assert_non_null(strstr(r.d.why, "SYS_FAILURE_EN is 0"));

	rig_open(&r, AP_PEER_PX4, "at 1s glitch 0 5 for 1s\n");
	ap_peer_set(&r.ap, "SENS_EN_BAROSIM", 0.0f);
	rig_start(&r);
	rig_run(&r, 10.0, 0);
	assert_int_equal(r.d.end, DRIVE_END_REFUSED);
	assert_non_null(strstr(r.d.why, "sensor_baro_sim is not running"));
	assert_int_equal(r.sent_sets, 0);

	rig_open(&r, AP_PEER_PX4, S_PX4);
	r.ap.inject_supported = false;
	rig_start(&r);
	rig_run(&r, 10.0, 0);
	assert_int_equal(r.d.end, DRIVE_END_REFUSED);
	assert_non_null(strstr(r.d.why, "with result 3, not ACCEPTED"));
	assert_int_equal(r.sent_sets, 0);
}

/* Each line either has a route or is refused with why and what instead. */
static void
test_routes(void **state)
{
	static const struct {
		const char *line;
		enum drive_autopilot ap;
		const char *want;	/* in drive_check's error; NULL: ok */
	} cases[] = {
		{ "at 1s glitch 0 15 for 1s", DRIVE_ARDUPILOT, NULL },
		{ "at 1s freeze 2 for 1s", DRIVE_ARDUPILOT, NULL },
		{ "at 1s set SIM_TEMP_START 30 for 1s", DRIVE_ARDUPILOT, NULL },
		{ "at 1s px4 delayed 1 200 for 1s", DRIVE_ARDUPILOT, NULL },
		{ "at 1s set SIM_BARO_COUNT 3 for 1s", DRIVE_ARDUPILOT,
		  "acts at ArduPilot's next boot" },
		{ "at 1s px4 stuck 0 for 1s", DRIVE_ARDUPILOT,
		  "has no 'stuck' (it is barod's fault overlay); instead: "
		  "'freeze I'" },
		{ "at 1s px4 garbage 0 for 1s", DRIVE_ARDUPILOT, "has no 'garbage'" },
		{ "at 1s gps drift 0.2 for 1s", DRIVE_ARDUPILOT, "faults the GPS" },
		{ "at 1s glitch 0 15 for 1s", DRIVE_PX4, NULL },
		{ "at 1s px4 wrong 0 10 for 1s", DRIVE_PX4, NULL },
		{ "at 1s disable 0 for 1s", DRIVE_PX4, NULL },
		{ "at 1s px4 stuck 0 for 1s", DRIVE_PX4, NULL },
		{ "at 1s px4 ok 0", DRIVE_PX4, NULL },
		{ "at 1s freeze 0 for 1s", DRIVE_PX4,
		  "sensor_baro_sim has no freeze; instead: 'px4 stuck 0'" },
		{ "at 1s drift 0 0.5 for 1s", DRIVE_PX4, "drift rate is fixed at 0" },
		{ "at 1s noise 0 1 for 1s", DRIVE_PX4, "fixed at 1 Pa RMS" },
		{ "at 1s delay 0 100 for 1s", DRIVE_PX4, "has no delay" },
		{ "at 1s glitch 1 15 for 1s", DRIVE_PX4, "one baro (instance 0)" },
		{ "at 1s px4 slow 0 for 1s", DRIVE_PX4, "off and stuck only" },
		{ "at 1s ramp SIM_BARO_GLITCH 0 to 5 over 5s", DRIVE_PX4,
		  "as steps about a second apart" },
		{ "at 1s set SIM_BARO_WCF_FWD 1 for 1s", DRIVE_PX4,
		  "no counterpart of SIM_BARO_WCF_FWD" },
		{ "at 1s set SIM_TEMP_START 30 for 1s", DRIVE_PX4,
		  "PX4 has no counterpart of SIM_TEMP_START" },
	};
	static struct scenario sc;
	char err[1024];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(scenario_parse(&sc, cases[i].line,
						strlen(cases[i].line), "r.scn",
						err, sizeof(err)),
				 0);
		int rc = drive_check(&sc, "r.scn", cases[i].ap, err,
				     sizeof(err));
		if (!cases[i].want) {
			if (rc != 0)
				fail_msg("%s: %s", cases[i].line, err);
			continue;
		}
		assert_int_equal(rc, -EINVAL);
		if (!strstr(err, cases[i].want))
			fail_msg("%s: '%s' lacks '%s'", cases[i].line, err,
				 cases[i].want);
		assert_non_null(strstr(err, "r.scn:1: cannot act on"));
	}
}

static void
test_state_file(void **state)
{
	static const struct {
		const char *text;
		const char *want;	/* NULL: parses */
	} cases[] = {
		{ "", NULL },
		{ "# nothing\n\n", NULL },
		{ "autopilot ardupilot\nSIM_BARO_GLITCH 0\nbaro 0\n", NULL },
		{ "SIM_BARO_GLITCH 0\n", "no 'autopilot' line" },
		{ "autopilot px4\nSIM_BARO_OFF_P 0\n", "left by a drive of px4" },
		{ "autopilot inav\n", "unknown autopilot 'inav'" },
		{ "autopilot ardupilot\nSIM_BARO_GLICH 0\n",
		  "'SIM_BARO_GLICH' is no parameter" },
		{ "autopilot ardupilot\nSIM_BARO_GLITCH nan\n",
		  "'nan' is not a value" },
		{ "autopilot ardupilot\nSIM_BARO_GLITCH 1e39\n",
		  "is not a value" },
		{ "autopilot ardupilot\nSIM_BARO_GLITCH 0 1\n",
		  ":2: expected NAME VALUE" },
		{ "autopilot ardupilot\nSIM_BARO_GLITCH 0\nSIM_BARO_GLITCH 1\n",
		  ":3: SIM_BARO_GLITCH named twice" },
		{ "autopilot ardupilot\nSIM_BARO_GLITCH\n",
		  "expected NAME VALUE" },
	};
	struct drive_opts o;
	char err[512];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		drive_opts_default(&o);
		int rc = drive_state_parse(cases[i].text, strlen(cases[i].text),
					   "st", DRIVE_ARDUPILOT, &o, err,
					   sizeof(err));
		if (!cases[i].want) {
			if (rc != 0)
				fail_msg("'%s': %s", cases[i].text, err);
			continue;
		}
		assert_int_equal(rc, -EINVAL);
		if (!strstr(err, cases[i].want))
			fail_msg("'%s': '%s' lacks '%s'", cases[i].text, err,
				 cases[i].want);
	}
	/* A NUL, a long line, a huge file. */
	drive_opts_default(&o);
	assert_int_equal(drive_state_parse("autopilot\0px4\n", 14, "st",
					   DRIVE_ARDUPILOT, &o, err,
					   sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "a NUL byte"));
	static char big[DRIVE_STATE_MAX + 2];
	memset(big, 'a', sizeof(big));
	assert_int_equal(drive_state_parse(big, 300, "st", DRIVE_ARDUPILOT,
					   &o, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "line too long"));
	assert_int_equal(drive_state_parse(big, sizeof(big), "st",
					   DRIVE_ARDUPILOT, &o, err,
					   sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "more than a state file holds"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ardupilot_scenario),
		cmocka_unit_test(test_clock_after_params),
		cmocka_unit_test(test_speedup),
		cmocka_unit_test(test_pause),
		cmocka_unit_test(test_lost_and_late_answers),
		cmocka_unit_test(test_link_lost),
		cmocka_unit_test(test_restart),
		cmocka_unit_test(test_two_at_once),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_left_behind),
		cmocka_unit_test(test_crash_and_repair),
		cmocka_unit_test(test_unknown_parameter),
		cmocka_unit_test(test_baro_count),
		cmocka_unit_test(test_wrong_autopilot),
		cmocka_unit_test(test_px4_scenario),
		cmocka_unit_test(test_px4_injection_refused),
		cmocka_unit_test(test_routes),
		cmocka_unit_test(test_state_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
