/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * barod --px4-sim against a scripted PX4 that behaves like the real one
 * at its worst: it connects to 4560 + N, sends its heartbeat and asks for
 * ground truth, answers nothing until its first actuator output exists
 * (the first steps stay unanswered, as they do with PX4 v1.14), then
 * answers every HIL_SENSOR id 0 with HIL_ACTUATOR_CONTROLS, sends a
 * heartbeat a second, and can stop dead (kill -STOP: it neither reads
 * nor answers) and resume late, answering everything it was sent.
 *
 * Everything is measured through barod's sockets: its control socket's
 * status (physics and wall time, steps, controls, stalls) and the
 * frames on the PX4 connection.  Timed assertions are tolerances over
 * many seconds, taken from barod's own clocks, so a loaded machine
 * shifts them little.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "control-client.h"
#include "harness-cmocka.h"
#include "mavlink.h"
#include "px4-peer.h"
#include "test-files.h"
#include "test-util.h"

#define STEP_US 4000u
/* Steps PX4 leaves unanswered at start-up (before its first output). */
#define SILENT_STEPS 10u

static struct harness harness;
static pid_t child;

static void
path_in_tmp(char *buf, size_t len, const char *name)
{
	harness_path(&harness, buf, len, name);
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Two consecutive TCP ports that were free a moment ago. */
static unsigned
free_ports(void)
{
	return harness_free_port(&harness, SOCK_STREAM, true);
}

/* barod -c conf -v [ARGS...], ready, with env (NAME=VALUE strings,
 * NULL-ended; or NULL) in its environment, which holds none of PX4's
 * variables otherwise (main() clears them). */
static void
start(const char *conf, const char *const *args, const char *const *env)
{
	const char *argv[16];
	char names[8][64];
	int n = 0, ne = 0;

	argv[n++] = "-c";
	argv[n++] = conf;
	argv[n++] = "-v";
	for (; args && *args && n < 15; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	for (; env && *env && ne < 8; env++, ne++) {
		const char *eq = strchr(*env, '=');
		assert_non_null(eq);
		snprintf(names[ne], sizeof(names[ne]), "%.*s",
			 (int)(eq - *env), *env);
		assert_int_equal(setenv(names[ne], eq + 1, 1), 0);
	}
	/* Forked with them; ours goes back to none. */
	child = harness_spawn(&harness, "barod.log", argv);
	for (int i = 0; i < ne; i++)
		unsetenv(names[i]);
	harness_wait_ready(&harness, child);
}

static char *
stop(void)
{
	const int status = harness_stop(&harness, child, NULL);
	char *log = harness_log(&harness, child);

	child = 0;
	if (status != 0)
		fail_msg("barod failed (%d):\n%s", status, log);
	return log;
}

static void
write_conf(const char *path, const char *profile, unsigned port,
	   const char *px4_extra)
{
	char text[1024], sock[512];

	path_in_tmp(sock, sizeof(sock), "control");
	snprintf(text, sizeof(text),
		 "[barod]\nsource = px4-sim\ncontrol = %s\n"
		 "[sim]\nprofile = %s\natmosphere = 1976\nseed = 7\n"
		 "SIM_BARO_COUNT = 2\n"
		 "[px4]\nbind = 127.0.0.1\nport = %u\n%s"
		 "[output gcs]\ntype = udp-client\naddress = 127.0.0.1:9\n",
		 sock, profile, port, px4_extra ? px4_extra : "");
	write_file(path, text);
}

/* One control socket command; the reply up to its "ok" line. */
static char *
control(const char *cmd)
{
	static const struct control_wait w = { 500, 10000, false };
	static char reply[8192];
	char path[512];

	path_in_tmp(path, sizeof(path), "control");
	return control_request(path, cmd, reply, sizeof(reply), &w);
}

/* barod's status line of PX4 instance v. */
struct px4_status {
	double physics_s, wall_s, factor, achieved;
	uint64_t steps, controls, stalls, late, pending;
	bool lockstep;
};

static double
field(const char *line, const char *key)
{
	char k[64];
	snprintf(k, sizeof(k), " %s ", key);
	const char *p = strstr(line, k);
	if (!p)
		fail_msg("no '%s' in status line:\n%s", key, line);
	return strtod(p + strlen(k), NULL);
}

static struct px4_status
status_of(unsigned v)
{
	char want[32];
	const char *st = control("status\n");
	snprintf(want, sizeof(want), "px4 %u ", v);
	const char *line = strstr(st, want);
	if (!line)
		fail_msg("no '%s' in status:\n%s", want, st);
	char copy[1024];
	size_t len = strcspn(line, "\n");
	assert_true(len < sizeof(copy));
	memcpy(copy, line, len);
	copy[len] = '\0';
	struct px4_status s = {
		.physics_s = field(copy, "physics"),
		.steps = (uint64_t)field(copy, "steps"),
		.controls = (uint64_t)field(copy, "controls"),
		.stalls = (uint64_t)field(copy, "stalls"),
		.late = (uint64_t)field(copy, "late"),
		.lockstep = strstr(copy, " lockstep yes ") != NULL,
	};
	if (strstr(copy, " pending ")) {
		s.pending = (uint64_t)field(copy, "pending");
		s.wall_s = field(copy, "wall");
		s.factor = field(copy, "speed-factor");
		s.achieved = field(copy, "achieved");
	}
	return s;
}

/* Steps PX4 was sent and owes an answer for; pending: answers barod
 * holds until their step's time comes. */
static int64_t
gap(const struct px4_status *s)
{
	return (int64_t)s->steps - (int64_t)s->controls + (int64_t)s->pending;
}

/* ---- the scripted PX4 ------------------------------------------------ */

struct px4 {
	int fd;
	struct mavlink_parser parser;
	uint8_t seq;
	bool eof;
	uint64_t sensors;		/* HIL_SENSOR id 0 received */
	uint64_t replies;
	uint64_t last_time;		/* of the last id 0 */
	bool time_ok;			/* id 0 times one step apart */
	double next_hb;			/* wall clock */
	unsigned think_us;		/* a slow PX4: this long per step */
	struct mavlink_hil_gps gps;	/* the last HIL_GPS */
	uint64_t gps_count;
	/* The baro fields of every baro-flagged id 0 (for stuck). */
	float *press, *temp;
	size_t nbaro, capbaro;
};

static void
px4_heartbeat(struct px4 *p)
{
	px4_peer_heartbeat(p->fd, &p->seq);
	p->next_hb = now_s() + 1.0;
}

static void
px4_connect(struct px4 *p, unsigned port)
{
	memset(p, 0, sizeof(*p));
	p->time_ok = true;
	mavlink_parser_init(&p->parser);
	p->fd = px4_peer_dial(port, 1000);
	px4_peer_hello(p->fd, &p->seq);
	p->next_hb = now_s() + 1.0;
}

static void
px4_close(struct px4 *p)
{
	close(p->fd);
	free(p->press);
	free(p->temp);
	p->press = p->temp = NULL;
}

static void
on_frame(const struct mavlink_frame *f, void *user)
{
	struct px4 *p = user;
	struct mavlink_hil_sensor h;

	if (f->msgid == MAVLINK_MSG_HIL_GPS) {
		mavlink_unpack_hil_gps(f->payload, &p->gps);
		p->gps_count++;
	}
	if (f->msgid != MAVLINK_MSG_HIL_SENSOR)
		return;
	mavlink_unpack_hil_sensor(f->payload, &h);
	if (h.id != 0)
		return;
	if (p->sensors && h.time_usec != p->last_time + STEP_US)
		p->time_ok = false;
	p->last_time = h.time_usec;
	p->sensors++;
	if ((h.fields_updated & 0x1A00u) == 0x1A00u) {
		if (p->nbaro == p->capbaro) {
			p->capbaro = p->capbaro ? 2 * p->capbaro : 1024;
			p->press = realloc(p->press, p->capbaro * sizeof(float));
			p->temp = realloc(p->temp, p->capbaro * sizeof(float));
			assert_non_null(p->press);
			assert_non_null(p->temp);
		}
		p->press[p->nbaro] = h.abs_pressure;
		p->temp[p->nbaro++] = h.temperature;
	}
	/* PX4 answers each step once its outputs exist. */
	if (p->sensors > SILENT_STEPS) {
		if (p->think_us)
			usleep(p->think_us);
		px4_peer_controls(p->fd, &p->seq, h.time_usec - STEP_US, 1,
				  0.0f);
		p->replies++;
	}
}

/* Run the PX4s for seconds: read, answer, heartbeats. */
static void
run_px4(struct px4 *const *ps, unsigned n, double seconds)
{
	const double end = now_s() + seconds;
	uint8_t buf[65536];

	for (double t = now_s(); t < end; t = now_s()) {
		struct pollfd pf[8];
		for (unsigned i = 0; i < n; i++) {
			pf[i] = (struct pollfd){ ps[i]->fd, POLLIN, 0 };
			if (t >= ps[i]->next_hb)
				px4_heartbeat(ps[i]);
		}
		int ms = (int)((end - t) * 1000.0) + 1;
		if (poll(pf, n, ms > 20 ? 20 : ms) <= 0)
			continue;
		for (unsigned i = 0; i < n; i++) {
			if (!(pf[i].revents & (POLLIN | POLLHUP)))
				continue;
			ssize_t r = recv(ps[i]->fd, buf, sizeof(buf), 0);
			if (r <= 0) {
				ps[i]->eof = true;
				continue;
			}
			mavlink_parser_feed(&ps[i]->parser, buf, (size_t)r,
					    on_frame, ps[i]);
		}
	}
}

static void
run_one(struct px4 *p, double seconds)
{
	struct px4 *ps[1] = { p };

	run_px4(ps, 1, seconds);
}

/* ---- the tests -------------------------------------------------------- */

/* kill -STOP PX4 for 3.5 s, then -CONT: barod's stall guard sends a
 * step a second meanwhile; PX4 answers every one of them late, and
 * within a second of resuming the steps in flight are as many as
 * before the stall: no step for good per stall, never two steps for
 * one answer. */
static void
test_stall_gap_returns(void **state)
{
	char conf[512];
	const unsigned port = free_ports();
	struct px4 p;
	(void)state;

	path_in_tmp(conf, sizeof(conf), "stall.conf");
	write_conf(conf, "static:5", port, NULL);
	start(conf, NULL, NULL);
	px4_connect(&p, port);
	run_one(&p, 2.0);
	const struct px4_status before = status_of(0);
	assert_true(before.lockstep);
	assert_int_equal(before.stalls, 0);

	/* Stopped: nothing read, nothing answered. */
	usleep(3500000);
	const struct px4_status during = status_of(0);
	assert_true(during.stalls >= 3);

	run_one(&p, 1.0);
	const struct px4_status after = status_of(0);
	print_message("stall: gap %lld before, %lld after 1 s (stalls %llu, "
		      "late %llu)\n", (long long)gap(&before),
		      (long long)gap(&after),
		      (unsigned long long)after.stalls,
		      (unsigned long long)after.late);
	assert_int_equal(gap(&after), gap(&before));
	assert_int_equal(after.stalls, during.stalls);
	assert_int_equal(after.late, after.stalls);
	assert_true(after.steps > during.steps + 100);
	assert_true(p.time_ok);

	/* A second, longer stall changes nothing either. */
	usleep(5200000);
	run_one(&p, 1.0);
	const struct px4_status again = status_of(0);
	assert_int_equal(gap(&again), gap(&before));
	assert_true(again.stalls >= after.stalls + 5);
	assert_int_equal(again.late, again.stalls);
	px4_close(&p);
	char *log = stop();
	assert_non_null(strstr(log, "late "));
	free(log);
}

/* A PX4 that really lost an answer (nothing in flight, waiting for a
 * step) is not starved by the debt of an earlier stall: after one more
 * stall step it runs again. */
static void
test_stall_lost_reply(void **state)
{
	char conf[512];
	const unsigned port = free_ports();
	struct px4 p;
	(void)state;

	path_in_tmp(conf, sizeof(conf), "lost.conf");
	write_conf(conf, "static:5", port, "lockstep_timeout_ms = 300\n");
	start(conf, NULL, NULL);
	px4_connect(&p, port);
	run_one(&p, 1.0);
	/* Stopped past the guard; then everything in flight is read and
	 * thrown away unanswered, as a PX4 that lost its answers. */
	usleep(700000);
	uint8_t buf[65536];
	while (recv(p.fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
	const struct px4_status lost = status_of(0);
	assert_true(lost.stalls >= 2);
	/* From here it answers everything: barod must not wait for owed
	 * answers that never come longer than a guard or two. */
	const uint64_t sensors = p.sensors;
	run_one(&p, 2.0);
	const struct px4_status later = status_of(0);
	assert_true(p.sensors > sensors + 100);
	assert_true(later.stalls <= lost.stalls + 2);
	px4_close(&p);
	free(stop());
}


/* The factor PX4 ran at over seconds, from two status lines of barod:
 * physics and wall time side by side, both on barod's clocks. */
static double
achieved(struct px4 *p, double seconds, struct px4_status *start,
	 struct px4_status *end)
{
	const struct px4_status a = status_of(0);
	run_one(p, seconds);
	const struct px4_status b = status_of(0);
	if (start)
		*start = a;
	if (end)
		*end = b;
	assert_true(b.wall_s > a.wall_s);
	return (b.physics_s - a.physics_s) / (b.wall_s - a.wall_s);
}

/* By default physics follows the wall clock (1x, as PX4's own
 * simulators): within 5 % over 10 s, lockstep exact all along. */
static void
test_pacing_real_time(void **state)
{
	char conf[512];
	const unsigned port = free_ports();
	struct px4 p;
	struct px4_status begin, end;
	(void)state;

	path_in_tmp(conf, sizeof(conf), "pace1.conf");
	write_conf(conf, "static:5", port, NULL);
	start(conf, NULL, NULL);
	px4_connect(&p, port);
	run_one(&p, 1.5);
	const double f = achieved(&p, 10.0, &begin, &end);
	print_message("pacing 1x: %.4f achieved over 10 s (status: %.3f)\n",
		      f, end.achieved);
	assert_true(end.lockstep);
	assert_true(fabs(f - 1.0) <= 0.05);
	assert_true(fabs(end.achieved - 1.0) <= 0.05);
	assert_true(end.factor == 1.0);
	assert_int_equal(end.stalls, 0);
	assert_true(p.time_ok);
	/* Lockstep stays exact: every reply one step, none without, so the
	 * steps in flight do not change over the 10 s.  How many there are
	 * was settled before lockstep: the silent steps, the one PX4 is
	 * answering, and any barod freewheeled on while the first answer
	 * was on its way (seen: one more under ASan beside a second CI
	 * root). */
	print_message("steps in flight: %lld before, %lld after 10 s\n",
		      (long long)gap(&begin), (long long)gap(&end));
	assert_int_equal(gap(&end), gap(&begin));
	assert_in_range(gap(&begin), SILENT_STEPS + 1, SILENT_STEPS + 4);
	px4_close(&p);
	char *log = stop();
	assert_null(strstr(log, "not held"));
	free(log);
}

/* --px4-speed-factor 4: within 10 %; PX4_SIM_SPEED_FACTOR in barod's
 * environment sets it as PX4 reads it, the option wins over it, and a
 * bad value is refused naming the variable. */
static void
test_pacing_factor(void **state)
{
	char conf[512];
	const unsigned port = free_ports();
	struct px4 p;
	struct px4_status end;
	(void)state;

	path_in_tmp(conf, sizeof(conf), "pace4.conf");
	write_conf(conf, "static:5", port, "speed_factor = 3\n");
	start(conf, (const char *const[]){ "--px4-speed-factor", "4", NULL },
	      (const char *const[]){ "PX4_SIM_SPEED_FACTOR=2", NULL });
	px4_connect(&p, port);
	run_one(&p, 1.5);
	const double f = achieved(&p, 10.0, NULL, &end);
	print_message("pacing 4x: %.4f achieved over 10 s (status: %.3f)\n",
		      f, end.achieved);
	assert_true(end.factor == 4.0);
	assert_true(fabs(f - 4.0) <= 0.4);
	assert_int_equal(end.stalls, 0);
	assert_true(p.time_ok);
	px4_close(&p);
	free(stop());

	/* The environment over the file. */
	start(conf, NULL, (const char *const[]){ "PX4_SIM_SPEED_FACTOR=2", NULL });
	px4_connect(&p, port);
	run_one(&p, 0.5);
	assert_true(status_of(0).factor == 2.0);
	px4_close(&p);
	char *log = stop();
	assert_non_null(strstr(log, "speed factor 2"));
	free(log);

	/* Refused, naming what was wrong. */
	struct program_result r = run_program(
		getenv("BAROD"),
		(const char *const[]){ "barod", "-c", conf, "--check-config",
				       NULL },
		NULL);
	assert_int_equal(r.status, 0);
	program_result_free(&r);
	setenv("PX4_SIM_SPEED_FACTOR", "fast", 1);
	r = run_program(getenv("BAROD"),
			(const char *const[]){ "barod", "-c", conf,
					       "--check-config", NULL },
			NULL);
	unsetenv("PX4_SIM_SPEED_FACTOR");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "PX4_SIM_SPEED_FACTOR='fast'"));
	program_result_free(&r);
	r = run_program(getenv("BAROD"),
			(const char *const[]){ "barod", "-c", conf,
					       "--px4-speed-factor", "-1",
					       "--check-config", NULL },
			NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--px4-speed-factor: '-1'"));
	program_result_free(&r);
}

/* Factor 0: as fast as PX4 replies (batch runs), far above 1x even on
 * a loaded machine. */
static void
test_pacing_unpaced(void **state)
{
	char conf[512];
	const unsigned port = free_ports();
	struct px4 p;
	(void)state;

	path_in_tmp(conf, sizeof(conf), "pace0.conf");
	write_conf(conf, "static:5", port, "speed_factor = 0\n");
	start(conf, NULL, NULL);
	px4_connect(&p, port);
	run_one(&p, 1.0);
	const double f = achieved(&p, 3.0, NULL, NULL);
	print_message("unpaced: %.2f achieved\n", f);
	assert_true(f > 3.0);
	px4_close(&p);
	free(stop());
}

/* A PX4 too slow for the factor: barod says so once, with the factor
 * it achieved, in its log and its status; lockstep stays exact. */
static void
test_pacing_not_held(void **state)
{
	char conf[512];
	const unsigned port = free_ports();
	struct px4 p;
	(void)state;

	path_in_tmp(conf, sizeof(conf), "slowpx4.conf");
	write_conf(conf, "static:5", port, "speed_factor = 8\n");
	start(conf, NULL, NULL);
	px4_connect(&p, port);
	/* 8x needs a reply every 0.5 ms; this PX4 takes 2 ms over each
	 * step (at most 2x). */
	p.think_us = 2000;
	run_one(&p, 6.0);
	const struct px4_status st = status_of(0);
	print_message("not held: %.3f achieved of 8\n", st.achieved);
	assert_true(st.achieved > 0.0 && st.achieved < 2.2);
	assert_true(st.lockstep);
	assert_true(p.time_ok);
	char *line = control("status\n");
	assert_non_null(strstr(line, "(not held)"));
	px4_close(&p);
	char *log = stop();
	const char *w = strstr(log, "speed factor 8 not held: ");
	assert_non_null(w);
	assert_null(strstr(w + 1, "speed factor 8 not held: "));
	free(log);
}

/* Whether the last n baro samples PX4 got are one sample repeated. */
static bool
held(const struct px4 *p, size_t n, bool *temp_moved)
{
	assert_true(p->nbaro >= n);
	const size_t k0 = p->nbaro - n;
	bool same = true;
	*temp_moved = false;
	for (size_t k = k0; k < p->nbaro; k++) {
		same &= p->press[k] == p->press[k0] && p->temp[k] == p->temp[k0];
		*temp_moved |= p->temp[k] != p->temp[k0];
	}
	return same;
}

/* PX4's stuck (baroctl inject stuck, a scenario's px4 stuck) holds the
 * whole sample PX4 receives, temperature too, so PX4 can call it STALE;
 * SIM_BARO_FREEZE keeps ArduPilot's meaning (pressure held, temperature
 * live). */
static void
test_stuck_holds_both(void **state)
{
	char conf[512], scn[512];
	const unsigned port = free_ports();
	struct px4 p;
	bool moved;
	(void)state;

	path_in_tmp(conf, sizeof(conf), "stuck.conf");
	path_in_tmp(scn, sizeof(scn), "stuck.scn");
	write_conf(conf, "climb:2", port, NULL);
	write_file(scn, "at 3s px4 stuck 0 for 2s\n"
			"at 6s freeze 0 for 2s\n");
	start(conf, (const char *const[]){ "--scenario", scn, NULL }, NULL);
	px4_connect(&p, port);

	/* Climbing: every sample differs (25 samples in 300 ms). */
	run_one(&p, 2.0);
	assert_false(held(&p, 25, &moved));
	/* baroctl inject stuck 0 */
	assert_non_null(strstr(control("inject stuck 0\n"), "ok stuck on baro 0"));
	run_one(&p, 0.6);
	assert_true(held(&p, 40, &moved));
	assert_non_null(strstr(control("inject ok 0\n"), "ok ok on baro 0"));
	run_one(&p, 0.3);
	assert_false(held(&p, 20, &moved));
	/* The scenario's px4 stuck over physics [3 s, 5 s). */
	while (status_of(0).physics_s < 4.5)
		run_one(&p, 0.1);
	assert_true(held(&p, 80, &moved));
	/* freeze: pressure held, temperature live. */
	while (status_of(0).physics_s < 7.8)
		run_one(&p, 0.1);
	const size_t n = 120, k0 = p.nbaro - n;
	for (size_t k = k0; k < p.nbaro; k++)
		assert_true(p.press[k] == p.press[k0]);
	assert_false(held(&p, n, &moved));
	assert_true(moved);
	assert_true(p.time_ok);
	px4_close(&p);
	char *log = stop();
	assert_non_null(strstr(log, "inject stuck on baro 0"));
	free(log);
}

/* Home in the PX4 modes, one rule as PX4's own simulators: --home-alt,
 * else PX4_HOME_LAT / PX4_HOME_LON / PX4_HOME_ALT, else barod.conf,
 * else Zurich at 488 m; the start-up log says which. */
static void
test_home(void **state)
{
	char conf[512];
	const unsigned port = free_ports();
	struct px4 p;
	(void)state;

	path_in_tmp(conf, sizeof(conf), "home.conf");
	write_conf(conf, "static:10", port, NULL);

	/* Nothing set: PX4's default home, 10 m above it. */
	start(conf, NULL, NULL);
	px4_connect(&p, port);
	run_one(&p, 0.5);
	assert_true(p.gps_count > 0);
	assert_int_equal(p.gps.lat, 473977420);
	assert_int_equal(p.gps.lon, 85455940);
	assert_int_equal(p.gps.alt, 498000);
	px4_close(&p);
	char *log = stop();
	assert_non_null(strstr(log, "PX4: home 47.3977420, 8.5455940 (default, "
				    "PX4's Zurich), 488.00 m AMSL (default)"));
	free(log);

	/* The environment, as Gazebo Classic and SIH read it. */
	static const char *const env[] = { "PX4_HOME_LAT=-35.363261",
					   "PX4_HOME_LON=149.165230",
					   "PX4_HOME_ALT=584", NULL };
	start(conf, NULL, env);
	px4_connect(&p, port);
	run_one(&p, 0.5);
	assert_int_equal(p.gps.lat, -353632610);
	assert_int_equal(p.gps.lon, 1491652300);
	assert_int_equal(p.gps.alt, 594000);
	px4_close(&p);
	log = stop();
	assert_non_null(strstr(log, "(PX4_HOME_LAT/LON), 584.00 m AMSL "
				    "(PX4_HOME_ALT)"));
	free(log);

	/* The option over the environment. */
	start(conf, (const char *const[]){ "--home-alt", "100", NULL }, env);
	px4_connect(&p, port);
	run_one(&p, 0.5);
	assert_int_equal(p.gps.alt, 110000);
	px4_close(&p);
	log = stop();
	assert_non_null(strstr(log, "100.00 m AMSL (--home-alt)"));
	free(log);

	/* A bad value is refused, named. */
	setenv("PX4_HOME_LAT", "north", 1);
	struct program_result r = run_program(
		getenv("BAROD"),
		(const char *const[]){ "barod", "-c", conf, "--check-config",
				       NULL },
		NULL);
	unsetenv("PX4_HOME_LAT");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "PX4_HOME_LAT='north'"));
	program_result_free(&r);
}

static void
count_sysid(const struct mavlink_frame *f, void *user)
{
	unsigned *counts = user;

	if (f->msgid == MAVLINK_MSG_SCALED_PRESSURE && f->sysid < 4)
		counts[f->sysid]++;
}

/* barod's SCALED_PRESSURE on a GCS socket, counted per sysid. */
static void
count_sysids(int fd, unsigned counts[4])
{
	struct mavlink_parser mp;
	uint8_t buf[65536];
	ssize_t n;

	mavlink_parser_init(&mp);
	while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		mavlink_parser_feed(&mp, buf, (size_t)n, count_sysid, counts);
		mavlink_parser_flush(&mp);
	}
}

/* Two PX4 instances (px4 -i 0 on port, -i 1 on port + 1) in one barod,
 * in lockstep at once: each paced on its own, a stall of one leaves the
 * other running at 1x and its gap comes back, a stuck fault on vehicle
 * 0 leaves vehicle 1 moving, and each vehicle's SCALED_PRESSURE comes
 * with its own sysid (1 + N). */
static void
test_two_instances(void **state)
{
	char conf[512], text[1024], sock[512];
	const unsigned port = free_ports();
	unsigned gcs_port;
	const int gcs = udp_loopback(&gcs_port, 0);
	struct px4 a, b;
	struct px4 *both[2] = { &a, &b }, *first[1] = { &a };
	(void)state;

	path_in_tmp(conf, sizeof(conf), "two.conf");
	path_in_tmp(sock, sizeof(sock), "control");
	snprintf(text, sizeof(text),
		 "[barod]\nsource = px4-sim\ncontrol = %s\n"
		 "[sim]\nprofile = climb:2\natmosphere = 1976\nseed = 7\n"
		 "[px4]\ninstances = 2\nbind = 127.0.0.1\nport = %u\n"
		 "[output gcs]\ntype = udp-client\naddress = 127.0.0.1:%u\n",
		 sock, port, gcs_port);
	write_file(conf, text);
	start(conf, NULL, NULL);
	px4_connect(&a, port);
	px4_connect(&b, port + 1);
	run_px4(both, 2, 1.5);

	/* Both paced at 1x, each on its own timer. */
	struct px4_status a0 = status_of(0), b0 = status_of(1);
	run_px4(both, 2, 6.0);
	struct px4_status a1 = status_of(0), b1 = status_of(1);
	const double fa = (a1.physics_s - a0.physics_s) / (a1.wall_s - a0.wall_s);
	const double fb = (b1.physics_s - b0.physics_s) / (b1.wall_s - b0.wall_s);
	print_message("two instances: %.4f and %.4f achieved over 6 s\n", fa,
		      fb);
	assert_true(fabs(fa - 1.0) <= 0.05 && fabs(fb - 1.0) <= 0.05);
	assert_true(a1.lockstep && b1.lockstep);

	/* Instance 1 stops dead for 2.5 s; instance 0 runs on. */
	const int64_t gap_b = gap(&b1);
	run_px4(first, 1, 2.5);
	struct px4_status a2 = status_of(0), b2 = status_of(1);
	assert_int_equal(a2.stalls, 0);
	assert_true(b2.stalls >= 2);
	assert_true(a2.physics_s - a1.physics_s > 2.3);
	run_px4(both, 2, 1.0);
	struct px4_status b3 = status_of(1);
	assert_int_equal(gap(&b3), gap_b);
	assert_int_equal(b3.late, b3.stalls);
	assert_int_equal(status_of(0).stalls, 0);

	/* PX4's stuck on vehicle 0: vehicle 1 keeps moving. */
	assert_non_null(strstr(control("inject stuck 0\n"), "ok stuck"));
	run_px4(both, 2, 0.6);
	bool moved;
	assert_true(held(&a, 40, &moved));
	assert_false(held(&b, 40, &moved));
	assert_true(a.time_ok && b.time_ok);

	/* A ground station tells the vehicles apart by sysid. */
	unsigned counts[4] = { 0 };
	count_sysids(gcs, counts);
	assert_true(counts[1] > 0 && counts[2] > 0);
	px4_close(&a);
	px4_close(&b);
	free(stop());
	close(gcs);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		harness_unit_test(test_stall_gap_returns, &harness),
		harness_unit_test(test_stall_lost_reply, &harness),
		harness_unit_test(test_pacing_real_time, &harness),
		harness_unit_test(test_pacing_factor, &harness),
		harness_unit_test(test_pacing_unpaced, &harness),
		harness_unit_test(test_pacing_not_held, &harness),
		harness_unit_test(test_stuck_holds_both, &harness),
		harness_unit_test(test_home, &harness),
		harness_unit_test(test_two_instances, &harness),
	};

	signal(SIGPIPE, SIG_IGN);
	/* The tests set PX4's variables themselves. */
	unsetenv("PX4_SIM_SPEED_FACTOR");
	unsetenv("PX4_HOME_LAT");
	unsetenv("PX4_HOME_LON");
	unsetenv("PX4_HOME_ALT");
	return harness_run_tests(&harness, "barod-px4live", tests);
}
