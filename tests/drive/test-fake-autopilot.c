/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fake-autopilot (tests/harness/fake-autopilot.c) the program, as a
 * fault-campaign tool meets it: started from its command line, flown
 * over UDP by a ground station here (arm, take off to 10 m, hold, land),
 * its baro glitched by PARAM_SET as baro-drive does (3 m leaks into the
 * estimate, 20 m is rejected: estimator flag, SYS_STATUS unhealthy,
 * STATUSTEXT, the failsafe's LAND), disarmed on touchdown, and its log
 * read by baro-replay list with its truth and estimate; PX4's mode
 * encoding and its late SIM_BARO_OFF_P; and the process faults:
 * --crash-at (SIGABRT), --hang-at (silent, still alive), --never-arm
 * (DENIED).  $BAROD is the program (the harness starts it), $BARO_REPLAY
 * baro-replay.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ap-peer.h"
#include "harness-cmocka.h"
#include "test-files.h"

static struct harness harness;

/* A ground station on a UDP port the autopilot sends to (--out). */
struct gcs {
	int fd;
	unsigned port;
	struct sockaddr_in ap;	/* where it sends from */
	bool heard;
	struct mavlink_parser parser;
	uint8_t seq;
	/* What it saw last, and in all. */
	unsigned frames, heartbeats;
	struct mavlink_heartbeat hb;
	struct mavlink_global_position_int gpi;
	bool have_gpi;
	struct mavlink_sys_status ss;
	bool have_ss;
	uint16_t est_flags;
	float est_ratio;
	bool have_est;
	uint8_t landed;
	struct mavlink_command_ack acks[32];
	unsigned nacks;
	struct mavlink_param_value pv;
	unsigned pvs;
	char text[4096];	/* every STATUSTEXT, one a line */
};

static void
gcs_open(struct gcs *g)
{
	memset(g, 0, sizeof(*g));
	mavlink_parser_init(&g->parser);
	g->port = harness_free_port(&harness, SOCK_DGRAM, false);
	g->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	assert_true(g->fd >= 0);
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)g->port),
				 .sin_addr.s_addr = htonl(0x7F000001) };
	assert_int_equal(bind(g->fd, (struct sockaddr *)&a, sizeof(a)), 0);
}

static void
gcs_close(struct gcs *g)
{
	close(g->fd);
}

static void
on_frame(const struct mavlink_frame *f, void *user)
{
	struct gcs *g = user;
	union mavlink_msg m;

	g->frames++;
	if (mavlink_unpack_msg(f->msgid, f->payload, &m) < 0)
		return;
	switch (f->msgid) {
	case MAVLINK_MSG_HEARTBEAT:
		g->hb = m.hb;
		g->heartbeats++;
		break;
	case MAVLINK_MSG_GLOBAL_POSITION_INT:
		g->gpi = m.gpi;
		g->have_gpi = true;
		break;
	case MAVLINK_MSG_SYS_STATUS:
		g->ss = m.ss;
		g->have_ss = true;
		break;
	case MAVLINK_MSG_EKF_STATUS_REPORT:
		g->est_flags = m.ekf.flags;
		g->est_ratio = m.ekf.pos_vert_variance;
		g->have_est = true;
		break;
	case MAVLINK_MSG_ESTIMATOR_STATUS:
		g->est_flags = m.es.flags;
		g->est_ratio = m.es.pos_vert_ratio;
		g->have_est = true;
		break;
	case MAVLINK_MSG_EXTENDED_SYS_STATE:
		g->landed = m.ess.landed_state;
		break;
	case MAVLINK_MSG_COMMAND_ACK:
		if (g->nacks < 32)
			g->acks[g->nacks++] = m.ca;
		break;
	case MAVLINK_MSG_PARAM_VALUE:
		g->pv = m.pv;
		g->pvs++;
		break;
	case MAVLINK_MSG_STATUSTEXT: {
		size_t l = strlen(g->text);
		snprintf(g->text + l, sizeof(g->text) - l, "%s\n", m.st.text);
		break;
	}
	}
}

static void
gcs_pump(struct gcs *g)
{
	uint8_t in[4096];
	struct sockaddr_in from;
	socklen_t fl = sizeof(from);
	ssize_t r;

	while ((r = recvfrom(g->fd, in, sizeof(in), 0,
			     (struct sockaddr *)&from, &fl)) > 0) {
		g->ap = from;
		g->heard = true;
		mavlink_parser_feed(&g->parser, in, (size_t)r, on_frame, g);
		mavlink_parser_flush(&g->parser);
		fl = sizeof(from);
	}
}

/* Pump both (b may be NULL) for ms of wall time. */
static void
pump_for(struct gcs *a, struct gcs *b, unsigned ms)
{
	uint64_t end = test_mono_us() + ms * 1000u;
	while (test_mono_us() < end) {
		gcs_pump(a);
		if (b)
			gcs_pump(b);
		usleep(2000);
	}
}

/* Pump until cond(g) holds; false after max_ms of wall time. */
static bool
pump_until(struct gcs *g, struct gcs *other, bool (*cond)(const struct gcs *),
	   unsigned max_ms)
{
	uint64_t end = test_mono_us() + max_ms * 1000u;
	while (test_mono_us() < end) {
		gcs_pump(g);
		if (other)
			gcs_pump(other);
		if (cond(g))
			return true;
		usleep(2000);
	}
	return false;
}

static void
gcs_send(struct gcs *g, uint32_t msgid, const union mavlink_msg *m)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD], f[MAVLINK_MAX_FRAME];

	assert_true(g->heard);
	memset(pl, 0, sizeof(pl));
	mavlink_pack_msg(msgid, m, pl);
	int n = mavlink_frame_encode(f, 2, g->seq++, 255, 190, msgid, pl);
	assert_true(n > 0);
	assert_int_equal(sendto(g->fd, f, (size_t)n, 0,
				(struct sockaddr *)&g->ap, sizeof(g->ap)),
			 n);
}

static bool
heard(const struct gcs *g)
{
	return g->heartbeats > 0 && g->have_gpi && g->have_ss && g->have_est;
}

/* A command, and its COMMAND_ACK's result (-1: none within 3 s). */
static int
command(struct gcs *g, struct gcs *other, uint16_t cmd, float p1, float p2,
	float p3, float p7)
{
	union mavlink_msg m = { .cl = {
		.param = { p1, p2, p3, 0, 0, 0, p7 },
		.command = cmd,
		.target_system = 1,
		.target_component = 1,
	} };
	unsigned before = g->nacks;
	gcs_send(g, MAVLINK_MSG_COMMAND_LONG, &m);
	uint64_t end = test_mono_us() + 3000000u;
	while (test_mono_us() < end) {
		gcs_pump(g);
		if (other)
			gcs_pump(other);
		for (unsigned i = before; i < g->nacks; i++)
			if (g->acks[i].command == cmd)
				return g->acks[i].result;
		usleep(2000);
	}
	return -1;
}

static void
param_set(struct gcs *g, const char *name, float v)
{
	union mavlink_msg m = { .ps = {
		.param_value = v,
		.target_system = 1,
		.target_component = 1,
		.param_type = MAV_PARAM_TYPE_REAL32,
	} };
	snprintf(m.ps.param_id, sizeof(m.ps.param_id), "%s", name);
	unsigned before = g->pvs;
	gcs_send(g, MAVLINK_MSG_PARAM_SET, &m);
	for (int i = 0; i < 1500 && g->pvs == before; i++) {
		gcs_pump(g);
		usleep(2000);
	}
	assert_true(g->pvs > before);
	assert_string_equal(g->pv.param_id, name);
	assert_float_equal(g->pv.param_value, v, 0);
}

static double
est_m(const struct gcs *g)
{
	return g->gpi.relative_alt / 1000.0;
}

static bool
armed(const struct gcs *g)
{
	return g->hb.base_mode & MAV_MODE_FLAG_SAFETY_ARMED;
}

static bool
disarmed(const struct gcs *g)
{
	return !armed(g);
}

static bool
at_10m(const struct gcs *g)
{
	return fabs(est_m(g) - 10.0) <= 1.0;
}

static bool
leaked_3m(const struct gcs *g)
{
	return est_m(g) > 12.5;
}

static bool
rejecting(const struct gcs *g)
{
	return (g->est_flags & AP_PEER_EKF_BARO_REJECTED) &&
	       !(g->est_flags & ESTIMATOR_POS_VERT_ABS) &&
	       !(g->ss.sensors_health &
		 MAV_SYS_STATUS_SENSOR_ABSOLUTE_PRESSURE) &&
	       strstr(g->text, "EKF: baro rejected");
}

static bool
failsafe(const struct gcs *g)
{
	return strstr(g->text, "EKF failsafe: LAND") &&
	       (g->hb.custom_mode == AP_COPTER_LAND ||
		g->hb.custom_mode == PX4_MODE_AUTO_LAND);
}

static bool
reset_onto_baro(const struct gcs *g)
{
	return strstr(g->text, "EKF: height reset to baro") != NULL;
}

static pid_t
spawn(const char *log_name, const char *kind, const struct gcs *a,
      const struct gcs *b, const char *csv, const char *e1, const char *e2)
{
	char out1[32], out2[32];
	snprintf(out1, sizeof(out1), "127.0.0.1:%u", a->port);
	const char *args[20] = { "--kind", kind, "--instance", "3", "--out",
				 out1, "--log", csv };
	int n = 8;
	if (b) {
		snprintf(out2, sizeof(out2), "127.0.0.1:%u", b->port);
		args[n++] = "--out";
		args[n++] = out2;
	}
	if (e1)
		args[n++] = e1;
	if (e2)
		args[n++] = e2;
	args[n] = NULL;
	return harness_spawn(&harness, log_name, args);
}

/* The log as baro-replay list reads it, with the truth and the
 * estimate as channels; the truth's highest row. */
static double
check_log(const char *csv)
{
	const char *replay = getenv("BARO_REPLAY");
	assert_non_null(replay);
	struct program_result r = run_program(
		replay, (const char *[]){ "baro-replay", "list", csv, NULL },
		NULL);
	if (r.status != 0)
		fail_msg("baro-replay list: %d\n%s%s", r.status, r.out, r.err);
	print_message("%s", r.out);
	assert_non_null(strstr(r.out, "truth_alt_m[0]"));
	assert_non_null(strstr(r.out, "ekf_alt_m[0]"));
	assert_non_null(strstr(r.out, "baro[0]"));
	program_result_free(&r);

	FILE *f = fopen(csv, "r");
	assert_non_null(f);
	char line[256];
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "time_us,pressure_pa,truth_alt_m,"
				  "ekf_alt_m\n");
	unsigned long long t, last = 0;
	double pa, truth, ekf, top = -1e9;
	unsigned rows = 0;
	while (fscanf(f, "%llu,%lf,%lf,%lf\n", &t, &pa, &truth, &ekf) == 4) {
		/* 10 Hz of its clock. */
		assert_int_equal(t, last + 100000u);
		last = t;
		assert_true(pa > 90000.0 && pa < 100000.0);
		if (truth > top)
			top = truth;
		rows++;
	}
	assert_true(feof(f));
	fclose(f);
	assert_true(rows > 50);
	return top;
}

/* The whole flight on ArduPilot, at four times real time; a second
 * ground station (the flight driver beside baro-drive) sees it all. */
static void
test_ardupilot_flight(void **state)
{
	static struct gcs g, g2;
	char csv[512];

	(void)state;
	gcs_open(&g);
	gcs_open(&g2);
	harness_path(&harness, csv, sizeof(csv), "ap.csv");
	pid_t pid = spawn("ap.log", "ardupilot", &g, &g2, csv, "--speed", "4");
	assert_true(pump_until(&g, &g2, heard, 5000));
	assert_int_equal(g.hb.type, MAV_TYPE_QUADROTOR);
	assert_int_equal(g.hb.autopilot, MAV_AUTOPILOT_ARDUPILOTMEGA);
	assert_int_equal(g.hb.custom_mode, AP_COPTER_STABILIZE);
	assert_false(armed(&g));
	assert_true(g.ss.sensors_health &
		    MAV_SYS_STATUS_SENSOR_ABSOLUTE_PRESSURE);
	assert_true(g.est_flags & ESTIMATOR_POS_VERT_ABS);
	assert_int_equal(g.landed, MAV_LANDED_STATE_ON_GROUND);
	/* Home at 584 m: alt is home plus the estimate. */
	assert_true(fabs(g.gpi.alt / 1000.0 - 584.0 - est_m(&g)) < 0.01);
	assert_true(fabs(est_m(&g)) < 0.5);

	/* Disarmed, or not in GUIDED: no takeoff. */
	assert_int_equal(command(&g, &g2, MAV_CMD_NAV_TAKEOFF, 0, 0, 0, 10),
			 MAV_RESULT_DENIED);
	assert_int_equal(command(&g, &g2, MAV_CMD_COMPONENT_ARM_DISARM, 1, 0,
				 0, 0),
			 MAV_RESULT_ACCEPTED);
	assert_int_equal(command(&g, &g2, MAV_CMD_NAV_TAKEOFF, 0, 0, 0, 10),
			 MAV_RESULT_DENIED);
	union mavlink_msg sm = { .sm = { .custom_mode = AP_COPTER_GUIDED,
					 .target_system = 1,
					 .base_mode = 1 } };
	unsigned before = g.nacks;
	gcs_send(&g, MAVLINK_MSG_SET_MODE, &sm);
	pump_for(&g, &g2, 1500);
	assert_true(g.nacks > before);
	assert_int_equal(g.acks[g.nacks - 1].command, MAVLINK_MSG_SET_MODE);
	assert_int_equal(g.acks[g.nacks - 1].result, MAV_RESULT_ACCEPTED);
	assert_int_equal(g.hb.custom_mode, AP_COPTER_GUIDED);
	assert_true(armed(&g));
	/* An unknown mode is refused. */
	assert_int_equal(command(&g, &g2, MAV_CMD_DO_SET_MODE, 1, 17, 0, 0),
			 MAV_RESULT_DENIED);
	assert_int_equal(command(&g, &g2, MAV_CMD_NAV_TAKEOFF, 0, 0, 0, 10),
			 MAV_RESULT_ACCEPTED);
	/* 2 m/s to 10 m: 5 s of its clock. */
	assert_true(pump_until(&g, &g2, at_10m, 6000));
	pump_for(&g, &g2, 750);	/* it holds */
	assert_true(at_10m(&g));
	assert_int_equal(g.landed, MAV_LANDED_STATE_IN_AIR);
	assert_true(armed(&g));

	/* 3 m: inside the gate, it leaks into the estimate. */
	param_set(&g, "SIM_BARO_GLITCH", 3.0f);
	assert_true(pump_until(&g, &g2, leaked_3m, 3000));
	pump_for(&g, &g2, 500);
	print_message("3 m glitch: estimate %.2f m, test ratio %.2f\n",
		      est_m(&g), (double)g.est_ratio);
	assert_true(est_m(&g) < 14.0);
	assert_false(g.est_flags & AP_PEER_EKF_BARO_REJECTED);
	assert_true(g.ss.sensors_health &
		    MAV_SYS_STATUS_SENSOR_ABSOLUTE_PRESSURE);
	assert_null(strstr(g.text, "rejected"));

	/* 20 m: rejected, the estimate holds; the failsafe lands it after
	 * 3 s, and after 5 s it resets onto the baro. */
	double held = est_m(&g);
	param_set(&g, "SIM_BARO_GLITCH", 20.0f);
	assert_true(pump_until(&g, &g2, rejecting, 3000));
	assert_true(g.est_ratio > 1.0f);
	assert_true(fabs(est_m(&g) - held) < 1.0);
	assert_true(pump_until(&g, &g2, failsafe, 3000));
	assert_true(armed(&g));
	assert_true(pump_until(&g, &g2, reset_onto_baro, 3000));
	pump_for(&g, &g2, 300);
	/* The estimate now reads the glitched baro: truth (< 10 m,
	 * descending) plus 20 m. */
	print_message("after the reset: estimate %.2f m\n", est_m(&g));
	assert_true(est_m(&g) > 20.0);

	/* The glitch ends (rejected again, then reset), it lands. */
	param_set(&g, "SIM_BARO_GLITCH", 0.0f);
	assert_int_equal(command(&g, &g2, MAV_CMD_COMPONENT_ARM_DISARM, 0, 0,
				 0, 0),
			 MAV_RESULT_DENIED);	/* in the air */
	assert_int_equal(command(&g, &g2, MAV_CMD_NAV_LAND, 0, 0, 0, 0),
			 MAV_RESULT_ACCEPTED);
	/* At 1 m/s from at most 10 m: 10 s of its clock. */
	assert_true(pump_until(&g, &g2, disarmed, 5000));
	pump_for(&g, &g2, 1200);
	assert_int_equal(g.landed, MAV_LANDED_STATE_ON_GROUND);
	assert_int_equal(g.hb.custom_mode, AP_COPTER_LAND);
	assert_non_null(strstr(g.text, "Land complete"));
	assert_int_equal(command(&g, &g2, MAV_CMD_NAV_LAND, 0, 0, 0, 0),
			 MAV_RESULT_DENIED);	/* disarmed */

	/* The other ground station saw the same: streams, the acks to
	 * this one's commands, the STATUSTEXTs. */
	assert_true(g2.heartbeats >= g.heartbeats - 1);
	assert_true(g2.nacks >= 8);
	assert_non_null(strstr(g2.text, "EKF failsafe: LAND"));
	assert_true(g2.pvs >= 3);
	assert_false(armed(&g2));

	assert_int_equal(harness_stop(&harness, pid, NULL), 0);
	char *log = harness_log(&harness, pid);
	assert_non_null(strstr(log, "fake-autopilot: ardupilot instance 3 on "
				    "127.0.0.1:"));
	free(log);
	double top = check_log(csv);
	assert_true(fabs(top - 594.0) < 0.05);
	gcs_close(&g);
	gcs_close(&g2);
}

static bool
baro_unhealthy(const struct gcs *g)
{
	return !(g->ss.sensors_health & MAV_SYS_STATUS_SENSOR_ABSOLUTE_PRESSURE);
}

static bool
baro_healthy(const struct gcs *g)
{
	return !baro_unhealthy(g);
}

static bool
drifted_2m(const struct gcs *g)
{
	return est_m(g) > 2.0;
}

/* ArduPilot's other SIM_BARO_* knobs, on the ground: DISABLE leaves the
 * baro unhealthy and the estimate where it was; DRIFT walks the
 * estimate (slowly: never past the gate); FREEZE holds the pressure the
 * log shows. */
static void
test_ardupilot_baro_params(void **state)
{
	static struct gcs g;
	char csv[512];

	(void)state;
	gcs_open(&g);
	harness_path(&harness, csv, sizeof(csv), "params.csv");
	pid_t pid = spawn("params.log", "ardupilot", &g, NULL, csv, "--speed",
			  "4");
	assert_true(pump_until(&g, NULL, heard, 5000));
	assert_true(baro_healthy(&g));
	param_set(&g, "SIM_BARO_DISABLE", 1.0f);
	assert_true(pump_until(&g, NULL, baro_unhealthy, 2000));
	assert_false(g.est_flags & AP_PEER_EKF_BARO_REJECTED);
	param_set(&g, "SIM_BARO_DISABLE", 0.0f);
	assert_true(pump_until(&g, NULL, baro_healthy, 2000));
	/* 1 m/s: past 2 m within 3 s of its clock, never rejected. */
	param_set(&g, "SIM_BARO_DRIFT", 1.0f);
	assert_true(pump_until(&g, NULL, drifted_2m, 2000));
	assert_false(g.est_flags & AP_PEER_EKF_BARO_REJECTED);
	assert_null(strstr(g.text, "rejected"));
	param_set(&g, "SIM_BARO_DRIFT", 0.0f);
	param_set(&g, "SIM_BARO_FREEZE", 1.0f);
	pump_for(&g, NULL, 1000);
	assert_int_equal(harness_stop(&harness, pid, NULL), 0);

	/* The last two seconds of its clock: one pressure, frozen. */
	FILE *f = fopen(csv, "r");
	assert_non_null(f);
	char line[256];
	double pa[400];
	size_t n = 0;
	assert_non_null(fgets(line, sizeof(line), f));
	while (n < 400 && fgets(line, sizeof(line), f)) {
		unsigned long long t;
		double tr, ekf;
		assert_int_equal(sscanf(line, "%llu,%lf,%lf,%lf", &t, &pa[n],
					&tr, &ekf),
				 4);
		n++;
	}
	fclose(f);
	assert_true(n > 40);
	for (size_t i = n - 20; i < n; i++)
		assert_float_equal(pa[i], pa[n - 1], 0);
	/* ... and before the freeze it moved (noise, drift). */
	bool moved = false;
	for (size_t i = 1; i < n - 20; i++)
		moved |= pa[i] != pa[i - 1];
	assert_true(moved);
	gcs_close(&g);
}

static bool
glitch_back_to_0(const struct gcs *g)
{
	return strstr(g->text, "EKF: baro rejected") &&
	       strcmp(g->pv.param_id, "SIM_BARO_GLITCH") == 0 &&
	       g->pv.param_value == 0.0f;
}

/* The campaign's shape: a flight driver (here) on one --out, baro-drive
 * on the other (udpin) running a scenario on the autopilot's clock: its
 * 20 m glitch is rejected in flight, and baro-drive puts it back. */
static void
test_driven_by_baro_drive(void **state)
{
	static struct gcs g, bd;
	char csv[512], scn[512], rec[512], state_path[512], connect[64];

	(void)state;
	gcs_open(&g);
	gcs_open(&bd);	/* only its port: baro-drive binds it */
	close(bd.fd);
	harness_path(&harness, csv, sizeof(csv), "driven.csv");
	harness_write(&harness, scn, sizeof(scn), "driven.scn",
		      "at 1s glitch 0 20 for 2s\nat 4s end\n");
	harness_path(&harness, rec, sizeof(rec), "driven-record.csv");
	harness_path(&harness, state_path, sizeof(state_path),
		     "driven.state");
	snprintf(connect, sizeof(connect), "udpin:127.0.0.1:%u", bd.port);
	/* At 1x: baro-drive takes 3 s of the autopilot's silence for a lost
	 * link, which at 2x a loaded machine (two CI roots' sanitizer
	 * stages at once) once gave it. */
	pid_t ap = spawn("driven-ap.log", "ardupilot", &g, &bd, csv,
			 "--speed", "1");
	assert_true(pump_until(&g, NULL, heard, 5000));
	assert_int_equal(command(&g, NULL, MAV_CMD_DO_SET_MODE, 1,
				 AP_COPTER_GUIDED, 0, 0),
			 MAV_RESULT_ACCEPTED);
	assert_int_equal(command(&g, NULL, MAV_CMD_COMPONENT_ARM_DISARM, 1, 0,
				 0, 0),
			 MAV_RESULT_ACCEPTED);
	assert_int_equal(command(&g, NULL, MAV_CMD_NAV_TAKEOFF, 0, 0, 0, 10),
			 MAV_RESULT_ACCEPTED);
	assert_true(pump_until(&g, NULL, at_10m, 15000));

	const char *fake = harness.barod;
	harness.barod = getenv("BARO_DRIVE");
	assert_non_null(harness.barod);
	const char *args[] = { "--autopilot", "ardupilot", "--scenario", scn,
			       "--connect", connect, "--state", state_path,
			       "--record", rec, "--wait", "20", NULL };
	pid_t drive = harness_spawn(&harness, "driven-drive.log", args);
	harness.barod = fake;
	if (!pump_until(&g, NULL, glitch_back_to_0, 40000)) {
		char *dl = harness_log(&harness, drive);
		fail_msg("no rejection and restore within 40 s; STATUSTEXTs:\n"
			 "%s\nbaro-drive:\n%s", g.text, dl);
	}
	int code = harness_wait_exit(&harness, drive, NULL);
	char *log = harness_log(&harness, drive);
	if (code != 0)
		fail_msg("baro-drive: exit %d\n%s", code, log);
	assert_non_null(strstr(log, "done: the scenario ran to its end"));
	free(log);
	/* Rejected, not leaked: the estimate held near 10 m. */
	assert_true(fabs(est_m(&g) - 10.0) < 1.5);
	assert_true(armed(&g));
	assert_int_equal(harness_stop(&harness, ap, NULL), 0);
	check_log(csv);
	gcs_close(&g);
}

/* PX4: its mode encoding, takeoff to an AMSL altitude, DO_SET_MODE,
 * SIM_BARO_OFF_P (taken at its next whole second) rejected, land. */
static void
test_px4_flight(void **state)
{
	static struct gcs g;
	char csv[512];

	(void)state;
	gcs_open(&g);
	harness_path(&harness, csv, sizeof(csv), "px4.csv");
	pid_t pid = spawn("px4.log", "px4", &g, NULL, csv, "--speed", "4");
	assert_true(pump_until(&g, NULL, heard, 5000));
	assert_int_equal(g.hb.autopilot, MAV_AUTOPILOT_PX4);
	assert_int_equal(g.hb.custom_mode, 0x03040000u);	/* AUTO.LOITER */
	assert_int_equal(command(&g, NULL, MAV_CMD_NAV_TAKEOFF, 0, 0, 0, 594),
			 MAV_RESULT_DENIED);
	/* DO_SET_MODE main 3 (POSCTL), then back to AUTO.LOITER. */
	assert_int_equal(command(&g, NULL, MAV_CMD_DO_SET_MODE, 1, 3, 0, 0),
			 MAV_RESULT_ACCEPTED);
	pump_for(&g, NULL, 400);
	assert_int_equal(g.hb.custom_mode, 0x00030000u);
	assert_int_equal(command(&g, NULL, MAV_CMD_DO_SET_MODE, 1, 4, 3, 0),
			 MAV_RESULT_ACCEPTED);
	assert_int_equal(command(&g, NULL, MAV_CMD_COMPONENT_ARM_DISARM, 1, 0,
				 0, 0),
			 MAV_RESULT_ACCEPTED);
	/* 594 m AMSL: 10 m above home. */
	assert_int_equal(command(&g, NULL, MAV_CMD_NAV_TAKEOFF, 0, 0, 0, 594),
			 MAV_RESULT_ACCEPTED);
	pump_for(&g, NULL, 400);
	assert_int_equal(g.hb.custom_mode, 0x02040000u);	/* AUTO.TAKEOFF */
	assert_true(pump_until(&g, NULL, at_10m, 6000));
	pump_for(&g, NULL, 600);
	assert_int_equal(g.hb.custom_mode, 0x03040000u);	/* AUTO.LOITER */
	assert_true(at_10m(&g));

	/* -300 Pa: about 25 m up, past the gate. */
	param_set(&g, "SIM_BARO_OFF_P", -300.0f);
	assert_true(pump_until(&g, NULL, rejecting, 3000));
	assert_true(fabs(est_m(&g) - 10.0) < 1.0);
	assert_true(pump_until(&g, NULL, failsafe, 3000));
	assert_int_equal(g.hb.custom_mode, 0x06040000u);	/* AUTO.LAND */
	param_set(&g, "SIM_BARO_OFF_P", 0.0f);
	assert_true(pump_until(&g, NULL, disarmed, 5000));
	assert_int_equal(harness_stop(&harness, pid, NULL), 0);
	double top = check_log(csv);
	assert_true(fabs(top - 594.0) < 0.05);
	gcs_close(&g);
}

/* --crash-at: it ends by SIGABRT at that time of its clock. */
static void
test_crash_at(void **state)
{
	static struct gcs g;
	char csv[512];

	(void)state;
	gcs_open(&g);
	harness_path(&harness, csv, sizeof(csv), "crash.csv");
	uint64_t t0 = test_mono_us();
	pid_t pid = spawn("crash.log", "ardupilot", &g, NULL, csv,
			  "--crash-at", "1.5");
	assert_true(pump_until(&g, NULL, heard, 5000));
	int code = harness_wait_exit(&harness, pid, NULL);
	double took = (double)(test_mono_us() - t0) * 1e-6;
	assert_int_equal(code, 128 + SIGABRT);
	assert_true(took >= 1.4);
	char *log = harness_log(&harness, pid);
	assert_non_null(strstr(log, "crashing at"));
	free(log);
	gcs_close(&g);
}

/* --hang-at: alive, but nothing more comes; SIGTERM still ends it. */
static void
test_hang_at(void **state)
{
	static struct gcs g;
	char csv[512];
	int code;

	(void)state;
	gcs_open(&g);
	harness_path(&harness, csv, sizeof(csv), "hang.csv");
	pid_t pid = spawn("hang.log", "ardupilot", &g, NULL, csv, "--hang-at",
			  "1");
	assert_true(pump_until(&g, NULL, heard, 5000));
	pump_for(&g, NULL, 1500);
	unsigned frames = g.frames;
	assert_true(frames > 10);
	/* Nothing answers either. */
	assert_int_equal(command(&g, NULL, MAV_CMD_COMPONENT_ARM_DISARM, 1, 0,
				 0, 0),
			 -1);
	pump_for(&g, NULL, 500);
	assert_int_equal(g.frames, frames);
	assert_false(harness_exited(&harness, pid, &code));
	assert_int_equal(harness_stop(&harness, pid, NULL), 0);
	gcs_close(&g);
}

/* --never-arm: arming is DENIED, with a PreArm message. */
static void
test_never_arm(void **state)
{
	static struct gcs g;
	char csv[512];

	(void)state;
	gcs_open(&g);
	harness_path(&harness, csv, sizeof(csv), "never.csv");
	pid_t pid = spawn("never.log", "px4", &g, NULL, csv, "--never-arm",
			  NULL);
	assert_true(pump_until(&g, NULL, heard, 5000));
	assert_int_equal(command(&g, NULL, MAV_CMD_COMPONENT_ARM_DISARM, 1, 0,
				 0, 0),
			 MAV_RESULT_DENIED);
	pump_for(&g, NULL, 1200);
	assert_false(armed(&g));
	assert_non_null(strstr(g.text, "PreArm: told never to arm"));
	assert_int_equal(harness_stop(&harness, pid, NULL), 0);
	gcs_close(&g);
}

/* Bad command lines: exit 2 saying why. */
static void
test_usage(void **state)
{
	(void)state;
	const char *a[] = { "--kind", "inav", "--instance", "0", "--out",
			    "127.0.0.1:9", "--log", "/dev/null", NULL };
	pid_t pid = harness_spawn(&harness, "usage.log", a);
	assert_int_equal(harness_wait_exit(&harness, pid, NULL), 2);
	char *log = harness_log(&harness, pid);
	assert_non_null(strstr(log, "--kind 'inav'"));
	free(log);
	const char *b[] = { "--kind", "px4", "--instance", "0", "--out",
			    "nowhere", "--log", "/dev/null", NULL };
	pid = harness_spawn(&harness, "usage2.log", b);
	assert_int_equal(harness_wait_exit(&harness, pid, NULL), 2);
	log = harness_log(&harness, pid);
	assert_non_null(strstr(log, "expected HOST:PORT"));
	free(log);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		harness_unit_test(test_ardupilot_flight, &harness),
		harness_unit_test(test_ardupilot_baro_params, &harness),
		harness_unit_test(test_driven_by_baro_drive, &harness),
		harness_unit_test(test_px4_flight, &harness),
		harness_unit_test(test_crash_at, &harness),
		harness_unit_test(test_hang_at, &harness),
		harness_unit_test(test_never_arm, &harness),
		harness_unit_test(test_usage, &harness),
	};
	return harness_run_tests(&harness, "fake-autopilot", tests);
}
