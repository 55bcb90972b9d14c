/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * barod on ArduPilot's SITL JSON interface, with this test playing
 * ArduPilot: servo packets at 1200 Hz frames (resends, lost frames,
 * restarts, the 32-channel layout, garbage), replies read with
 * ArduPilot's own parse semantics (sitl_json_ap_parse), asserting what
 * ArduPilot would read.  In proxy mode the test is also the upstream
 * physics backend, and checks its text arrives byte for byte.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "atmosphere.h"
#include "baro-sitl.h"
#include "gcs-peer.h"
#include "harness-cmocka.h"
#include "mavlink.h"
#include "msp-capture.h"
#include "sitl-json.h"
#include "sitl-peer.h"
#include "test-files.h"
#include "test-util.h"

static struct harness harness;
static pid_t child;

static int
udp_socket(unsigned *port)
{
	return udp_loopback(port, 0);
}

/* barod -c conf -v, then opt and its value when opt is not NULL; back
 * once it is running. */
static void
start_with(const char *conf, const char *opt, const char *value)
{
	child = harness_start(&harness, "barod.log", (const char *[]){
		"-c", conf, "-v", opt, value, NULL });
}

/* Frame `frame` as ArduPilot sends it: 16 or (wide) 32 channels at
 * 1200 Hz. */
static struct sitl_servo
servo(uint32_t frame, bool wide)
{
	struct sitl_servo s = {
		.magic = wide ? SITL_SERVO_MAGIC_32 : SITL_SERVO_MAGIC_16,
		.frame_rate = 1200,
		.frame_count = frame,
		.channels = wide ? 32 : 16,
	};

	for (unsigned k = 0; k < s.channels; k++)
		s.pwm[k] = (uint16_t)(1000 + k);
	return s;
}

static void
send_servo(int fd, unsigned port, uint32_t frame, bool wide)
{
	struct sitl_servo s = servo(frame, wide);

	sitl_peer_send_servo(fd, port, &s);
}

#define REPLY_CAP 8192

/* One frame to the instance on port and barod's reply to it, within a
 * second, into buf (REPLY_CAP bytes). */
static void
exchange(int fd, unsigned port, uint32_t frame, bool wide, char *buf)
{
	send_servo(fd, port, frame, wide);
	assert_true(sitl_peer_receive(fd, buf, REPLY_CAP, 1000) > 0);
}

/* A reply as barod frames it: a line of its own, '\n' before and after;
 * ArduPilot's mask for it. */
static uint64_t
ap_read(const char *datagram, struct sitl_fdm *fdm)
{
	const size_t n = strlen(datagram);

	assert_true(n >= 2 && datagram[0] == '\n' && datagram[n - 1] == '\n');
	return sitl_peer_ap_read(datagram, fdm);
}

static const uint64_t vehicle_keys =
	SITL_KEY_BIT(SITL_KEY_TIMESTAMP) | SITL_KEY_BIT(SITL_KEY_GYRO) |
	SITL_KEY_BIT(SITL_KEY_ACCEL_BODY) | SITL_KEY_BIT(SITL_KEY_POSITION) |
	SITL_KEY_BIT(SITL_KEY_ATTITUDE) | SITL_KEY_BIT(SITL_KEY_VELOCITY) |
	SITL_KEY_BIT(SITL_KEY_RNG_1);

/* The test's sockets: ArduPilot's (ap), a GCS's for barod's MAVLink
 * (mav), and in proxy mode the physics backend's (up, else -1); port is
 * the one barod is to take for instance 0. */
struct rig {
	int ap, mav, up;
	unsigned mav_port, up_port, port;
};

static void
rig_open(struct rig *r, bool upstream)
{
	unsigned ap_port;

	r->ap = udp_socket(&ap_port);
	r->mav = udp_socket(&r->mav_port);
	r->up = upstream ? udp_socket(&r->up_port) : -1;
	r->port = harness_free_port(&harness, SOCK_DGRAM, false);
}

/* barod on r: source `source`, a vehicle static 10 m above home, no
 * baro noise, rng_2 on, SCALED_PRESSURE to r's GCS; then as start_with. */
static void
start_rig(const struct rig *r, const char *source, const char *opt,
	  const char *value)
{
	char conf[512], upstream[64] = "";

	if (r->up >= 0)
		snprintf(upstream, sizeof(upstream),
			 "upstream = 127.0.0.1:%u\n", r->up_port);
	harness_write(&harness, conf, sizeof(conf), "sitl.conf",
		      "[barod]\nsource = %s\ncontrol = none\n"
		      "[sim]\nprofile = static:10\nhome_alt = 584\n"
		      "atmosphere = 1976\nSIM_BARO_RND = 0\nSIM_BAR2_RND = 0\n"
		      "[sitl]\nbind = 127.0.0.1\nport = %u\n%s"
		      "rng_2 = 1\n"
		      "[output gcs]\ntype = udp-client\n"
		      "address = 127.0.0.1:%u\n",
		      source, r->port, upstream, r->mav_port);
	start_with(conf, opt, value);
}

/* Stop barod and close r's sockets; barod's log (with the counters
 * report). */
static char *
rig_stop(struct rig *r)
{
	assert_int_equal(harness_stop(&harness, child, NULL), 0);
	char *log = harness_log(&harness, child);

	close(r->ap);
	close(r->mav);
	if (r->up >= 0)
		close(r->up);
	return log;
}

/* exchange, and ArduPilot's reading of the reply (its mask). */
static uint64_t
exchange_read(const struct rig *r, unsigned port, uint32_t frame, bool wide,
	      char *buf, struct sitl_fdm *fdm)
{
	exchange(r->ap, port, frame, wide, buf);
	return ap_read(buf, fdm);
}

/* Instance 1 (port + 10) runs ahead of instance 0: 240 frames (200 ms
 * of physics) to it, 120 (100 ms) to instance 0.  buf: instance 1's
 * last reply. */
static void
two_clocks(const struct rig *r, char *buf)
{
	for (uint32_t f = 1; f <= 240; f++) {
		exchange(r->ap, r->port + 10, f, false, buf);
		if (f > 120)
			continue;
		exchange(r->ap, r->port, f, false, buf);
	}
}

/* Instance 0's SCALED_PRESSURE: time_boot_ms and press_abs. */
struct pressure_log {
	uint32_t t[4096];
	float p[4096];
	unsigned n;
};

static void
on_pressure(const struct mavlink_frame *f, void *user)
{
	struct pressure_log *pl = user;
	struct mavlink_scaled_pressure m;

	if (f->msgid != MAVLINK_MSG_SCALED_PRESSURE || pl->n == 4096)
		return;
	mavlink_unpack_scaled_pressure(f->payload, &m);
	pl->t[pl->n] = m.time_boot_ms;
	pl->p[pl->n++] = m.press_abs;
}

/* ------------------------------------------------------------------ */

/* The scenario file baro-drive's tests drive an autopilot with
 * (tests/drive/same.scn) runs unchanged here: its glitch on baro 0 at
 * 0.5 to 2 s of physics time, its delay on baro 1 logged. */
static void
test_drive_scenario_file(void **state)
{
	char buf[REPLY_CAP];
	struct rig r;
	struct sitl_fdm fdm;
	const char *scn = getenv("DRIVE_SCN");
	(void)state;

	assert_non_null(scn);
	rig_open(&r, false);
	start_rig(&r, "sitl-json", "--scenario", scn);
	unsigned glitched = 0;
	for (uint32_t f = 1; f <= 3600; f++) {
		exchange_read(&r, r.port, f, false, buf, &fdm);
		const unsigned ms = (unsigned)(f * 1000u / 1200u);
		if (ms < 10)
			continue;
		bool g = ms >= 500 && ms < 2000;
		assert_float_exact(fdm.rng[0], g ? 25.0f : 10.0f);
		glitched += g;
	}
	assert_true(glitched >= 1795 && glitched <= 1801);
	char *log = rig_stop(&r);
	assert_non_null(strstr(log, "SIM_BARO_GLITCH 0 -> 15 for 1.5s"));
	assert_non_null(strstr(log, "SIM_BAR2_DELAY 0 -> 200 for 500ms"));
	free(log);
}

static void
test_peer(void **state)
{
	char buf[REPLY_CAP], first[REPLY_CAP], scn[512];
	struct rig r;
	struct sitl_fdm fdm;
	(void)state;

	rig_open(&r, false);
	/* 5 m more on baro 0 from 500 to 700 ms of physics time. */
	harness_write(&harness, scn, sizeof(scn), "glitch.scn",
		      "at 500ms glitch 0 5 for 200ms\n");
	start_rig(&r, "sitl-json", "--scenario", scn);

	double last_t = 0.0;
	unsigned glitched = 0;
	for (uint32_t f = 1; f <= 1200; f++) {
		/* 32 channels later */
		uint64_t mask = exchange_read(&r, r.port, f, f > 600, buf,
					      &fdm);
		assert_int_equal(mask & vehicle_keys, vehicle_keys);
		assert_true(sitl_json_ap_accepts(mask));
		/* Physics time: exactly one 1200 Hz step per new frame. */
		assert_true(fdm.timestamp > last_t);
		assert_close_abs(fdm.timestamp, f / 1200.0, 1e-9);
		last_t = fdm.timestamp;
		assert_true(fdm.position[2] == -10.0);
		assert_float_exact(fdm.accel_body[2], -ATMOS_GRAVITY_MSS);
		/* rng_1 = baro 0 above home, rng_2 = baro 1; baros sample
		 * from 10 ms on.  The first frame, at 1/1200 s, is 0 ms of
		 * scenario time too. */
		const unsigned ms = (unsigned)(f * 1000u / 1200u);
		if (ms >= 10) {
			bool g = ms >= 500 && ms < 700;
			assert_float_exact(fdm.rng[0], g ? 15.0f : 10.0f);
			assert_float_exact(fdm.rng[1], 10.0f);
			glitched += g;
		}
		/* A resend of frame 100 gets the same answer, no step. */
		if (f == 100) {
			strcpy(first, buf);
			exchange(r.ap, r.port, f, false, buf);
			assert_string_equal(buf, first);
		}
	}
	assert_true(glitched >= 235 && glitched <= 241);

	/* Lost frames: 1206 follows 1200. */
	exchange_read(&r, r.port, 1206, false, buf, &fdm);
	assert_close_abs(fdm.timestamp, 1201 / 1200.0, 1e-9);

	/* Garbage and wrong sizes get no answer, and change nothing. */
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)r.port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	const char junk[] = "this is not a servo packet";
	sendto(r.ap, junk, sizeof(junk), 0, (struct sockaddr *)&sa, sizeof(sa));
	uint8_t short_pkt[39] = { 0x1a, 0x48 };	/* magic 18458, 39 bytes */
	sendto(r.ap, short_pkt, sizeof(short_pkt), 0, (struct sockaddr *)&sa,
	       sizeof(sa));
	assert_int_equal(sitl_peer_receive(r.ap, buf, sizeof(buf), 100), 0);

	/* ArduPilot restarted: frame_count back to 1, physics from 0. */
	exchange_read(&r, r.port, 1, false, buf, &fdm);
	assert_close_abs(fdm.timestamp, 1 / 1200.0, 1e-9);

	/* barod's SCALED_PRESSURE carry the physics time: the glitch shows
	 * in exactly the samples from time_boot_ms 500 to 690. */
	struct pressure_log pl = { 0 };
	assert_int_equal(gcs_peer_drain(r.mav, 0, on_pressure, &pl), 0);
	assert_true(pl.n >= 99);
	unsigned shifted = 0;
	for (unsigned k = 0; k < pl.n; k++) {
		bool g = pl.t[k] >= 500 && pl.t[k] < 700;
		assert_int_equal(pl.t[k] % 10, 0);
		/* 5 m higher reads about 0.56 hPa lower */
		if (g) {
			assert_true(pl.p[0] - pl.p[k] > 0.5f);
			shifted++;
		} else {
			assert_float_exact(pl.p[k], pl.p[0]);
		}
	}
	assert_int_equal(shifted, 20);

	/* The restarted flight plays its scenario again from its own 0,
	 * though that scenario had finished. */
	glitched = 0;
	for (uint32_t f = 2; f <= 900; f++) {
		exchange_read(&r, r.port, f, false, buf, &fdm);
		const unsigned ms = (unsigned)(f * 1000u / 1200u);
		if (ms >= 10)
			assert_float_exact(fdm.rng[0], ms >= 500 && ms < 700
							       ? 15.0f
							       : 10.0f);
		glitched += fdm.rng[0] == 15.0f;
	}
	assert_true(glitched >= 235 && glitched <= 241);

	char *log = rig_stop(&r);
	assert_non_null(strstr(log, "resends 1"));
	assert_non_null(strstr(log, "lost 5"));
	assert_non_null(strstr(log, "restarts 1"));
	assert_non_null(strstr(log, "bad packets 2"));
	assert_non_null(strstr(log, "glitch.scn restarted"));
	free(log);
}

/* The upstream's reply for physics time t: spaces after colons and an
 * rng_1 of its own, both of which must survive byte for byte. */
static int
upstream_line(char *buf, size_t cap, double t)
{
	return snprintf(buf, cap,
			"\n{\"timestamp\": %.6f, \"imu\": {\"gyro\": [0, 0, 0], "
			"\"accel_body\": [0, 0, -9.80665]}, \"position\": "
			"[1, 2, -3], \"attitude\": [0, 0, 0], \"velocity\": "
			"[0, 0, 0], \"rng_1\": 99, \"note\": \"keep  this\"}\n",
			t);
}

/* Where the servo packets barod passes on to the backend come from. */
struct sender {
	struct sockaddr_in sa;
	socklen_t len;
};

#define UPSTREAM_CAP 1024

/* The next servo packet barod passed on, within a second, into got:
 * its length. */
static ssize_t
backend_receive(const struct rig *r, uint8_t *got, size_t cap,
		struct sender *from)
{
	struct pollfd p = { r->up, POLLIN, 0 };

	assert_true(poll(&p, 1, 1000) > 0);
	from->len = sizeof(from->sa);
	return recvfrom(r->up, got, cap, 0, (struct sockaddr *)&from->sa,
			&from->len);
}

/* The backend's line for physics time t (into text, UPSTREAM_CAP bytes)
 * back to barod. */
static void
backend_reply(const struct rig *r, const struct sender *to, double t,
	      char *text)
{
	int tl = upstream_line(text, UPSTREAM_CAP, t);

	sendto(r->up, text, (size_t)tl, 0, (const struct sockaddr *)&to->sa,
	       to->len);
}

/*
 * One frame through the proxy at backend time t (s): the servo packet
 * goes up (into got, 256 bytes; its length returned), the backend's line
 * (text) comes back, barod's reply for ArduPilot into buf.
 */
static ssize_t
proxy_step(const struct rig *r, uint32_t frame, double t, uint8_t *got,
	   char *text, char *buf)
{
	struct sender from;

	send_servo(r->ap, r->port, frame, false);
	ssize_t n = backend_receive(r, got, 256, &from);
	assert_true(n > 0);
	backend_reply(r, &from, t, text);
	assert_true(sitl_peer_receive(r->ap, buf, REPLY_CAP, 1000) > 0);
	return n;
}

/* 100 frames through the proxy: each servo packet reaches the backend
 * unchanged, each reply is the backend's line behind barod's fields. */
static void
proxy_hundred(const struct rig *r, char *buf, char *text)
{
	struct sitl_fdm fdm;

	for (uint32_t f = 1; f <= 100; f++) {
		uint8_t sent[SITL_SERVO_LEN_32], got[256];
		struct sitl_servo s = servo(f, false);
		size_t len = sitl_servo_encode(&s, sent);
		ssize_t n = proxy_step(r, f, f * 0.001, got, text, buf);
		/* The servo packet reached the backend unchanged. */
		assert_int_equal(n, (ssize_t)len);
		assert_memory_equal(got, sent, len);

		/* Upstream text, byte for byte, behind barod's fields. */
		assert_memory_equal(buf, "\n{\"rng_1\":", 10);
		char *b = strstr(buf, "\"barod\":{");
		assert_non_null(b);
		char *e = strstr(b, "},");
		assert_non_null(e);
		assert_string_equal(e + 2, text + 2);

		/* ArduPilot reads barod's rng_1, not the upstream's 99. */
		uint64_t mask = ap_read(buf, &fdm);
		assert_int_equal(mask & vehicle_keys, vehicle_keys);
		assert_true(sitl_json_ap_accepts(mask));
		assert_float_exact(fdm.rng[0], f >= 10 ? 3.0f : 0.0f);
	}
}

static void
test_proxy(void **state)
{
	char buf[REPLY_CAP], text[UPSTREAM_CAP];
	struct rig r;
	(void)state;

	rig_open(&r, true);
	start_rig(&r, "sitl-json-proxy", NULL, NULL);
	proxy_hundred(&r, buf, text);

	/* A line that is not JSON goes through untouched, and is counted. */
	struct sender barod_up;
	uint8_t tmp[256];
	send_servo(r.ap, r.port, 101, false);
	backend_receive(&r, tmp, sizeof(tmp), &barod_up);
	sendto(r.up, "\n{oops\n", 7, 0, (struct sockaddr *)&barod_up.sa,
	       barod_up.len);
	assert_int_equal(sitl_peer_receive(r.ap, buf, sizeof(buf), 1000), 7);
	assert_string_equal(buf, "\n{oops\n");

	/* The backend restarted: its timestamp went back. */
	backend_reply(&r, &barod_up, 0.0005, text);
	assert_true(sitl_peer_receive(r.ap, buf, sizeof(buf), 1000) > 0);

	/* A silent backend: ArduPilot gets nothing, barod says so. */
	const uint64_t quiet_from = test_mono_us();
	for (int k = 0; k < 125; k++) {
		send_servo(r.ap, r.port, 102 + (uint32_t)k, false);
		usleep(20000);
	}
	assert_int_equal(sitl_peer_receive(r.ap, buf, sizeof(buf), 50), 0);
	const uint64_t quiet_us = test_mono_us() - quiet_from;

	char *log = rig_stop(&r);
	if (!strstr(log, "bad lines 1"))
		fail_msg("barod's log:\n%s", log);
	assert_non_null(strstr(log, "restarts 1"));
	assert_non_null(strstr(log, "frames 101"));
	/* Said once a second while the silence lasts, not per frame: 2.5 s
	 * of it gives two, a loaded machine's longer loop one more each
	 * second it adds. */
	unsigned said = 0;
	for (const char *p = strstr(log, "silent"); p; p = strstr(p + 1, "silent"))
		said++;
	if (said < 1 || said > quiet_us / 1000000u + 1)
		fail_msg("'silent' said %u times in %.2f s of silence:\n%s",
			 said, (double)quiet_us * 1e-6, log);
	free(log);
}

/*
 * A backend at its worst: one datagram of short JSON lines, each of
 * which gets barod's fields (a hundred bytes) inserted, so the reply
 * would be several times what it came as, then empty lines and a long
 * one.  barod must not write past its reply buffer (it did: the room
 * left went below zero as a size_t), drops what does not fit and says
 * so, and carries on with the next frame.
 */
static void
test_proxy_expanding_lines(void **state)
{
	char buf[REPLY_CAP], text[UPSTREAM_CAP], conf[768];
	struct rig r;
	(void)state;

	rig_open(&r, true);
	/* Three baros and all six rangefinders: the longest fields. */
	harness_write(&harness, conf, sizeof(conf), "sitl.conf",
		      "[barod]\nsource = sitl-json-proxy\ncontrol = none\n"
		      "[sim]\nprofile = static:10\nhome_alt = 584\n"
		      "atmosphere = 1976\nSIM_BARO_COUNT = 3\n"
		      "[sitl]\nbind = 127.0.0.1\nport = %u\n"
		      "upstream = 127.0.0.1:%u\nrng_1 = 0\nrng_2 = 1\n"
		      "rng_3 = 2\nrng_4 = 0\nrng_5 = 1\nrng_6 = 2\n"
		      "[output gcs]\ntype = udp-client\n"
		      "address = 127.0.0.1:%u\n",
		      r.port, r.up_port, r.mav_port);
	start_with(conf, NULL, NULL);
	uint8_t got[256];
	for (uint32_t f = 1; f <= 20; f++)
		proxy_step(&r, f, f * 0.001, got, text, buf);

	struct sender from;
	send_servo(r.ap, r.port, 21, false);
	assert_true(backend_receive(&r, got, sizeof(got), &from) > 0);
	enum { BIG = 64000 };
	char *dg = malloc(BIG);
	assert_non_null(dg);
	size_t n = 0;
	static const char line[] =
		"{\"timestamp\":0.021,\"imu\":{\"gyro\":[0,0,0],"
		"\"accel_body\":[0,0,0]},\"position\":[0,0,0],"
		"\"attitude\":[0,0,0],\"velocity\":[0,0,0]}\n";
	while (n + sizeof(line) < BIG - 16000) {
		memcpy(dg + n, line, sizeof(line) - 1);
		n += sizeof(line) - 1;
	}
	while (n < BIG - 8000)
		dg[n++] = '\n';
	while (n < BIG)
		dg[n++] = 'x';
	assert_int_equal(sendto(r.up, dg, n, 0, (struct sockaddr *)&from.sa,
				from.len), (ssize_t)n);
	free(dg);
	/* Too long for one datagram to ArduPilot either way: what counts
	 * is that barod lives on and answers the next frame. */
	(void)sitl_peer_receive(r.ap, buf, sizeof(buf), 200);
	struct sitl_fdm fdm;
	proxy_step(&r, 22, 0.022, got, text, buf);
	assert_true(sitl_json_ap_accepts(ap_read(buf, &fdm)));

	char *log = rig_stop(&r);
	if (!strstr(log, "frames 22,") || !strstr(log, "did not fit"))
		fail_msg("barod's log:\n%s", log);
	free(log);
}

/* An empty datagram from the backend is nothing ArduPilot could use: it
 * is not passed on, nor counted as a reply (which would also hide a
 * silent backend); the next real answer goes through. */
static void
test_proxy_empty_datagram(void **state)
{
	char buf[REPLY_CAP], text[UPSTREAM_CAP];
	struct rig r;
	uint8_t got[256];
	struct sender from;
	(void)state;

	rig_open(&r, true);
	start_rig(&r, "sitl-json-proxy", NULL, NULL);
	proxy_step(&r, 1, 0.001, got, text, buf);
	send_servo(r.ap, r.port, 2, false);
	assert_true(backend_receive(&r, got, sizeof(got), &from) > 0);
	assert_int_equal(sendto(r.up, "", 0, 0, (struct sockaddr *)&from.sa,
				from.len), 0);
	struct pollfd p = { r.ap, POLLIN, 0 };
	if (poll(&p, 1, 200) > 0)
		fail_msg("ArduPilot got a datagram of %zd bytes",
			 recv(r.ap, buf, sizeof(buf), 0));
	backend_reply(&r, &from, 0.002, text);
	assert_true(sitl_peer_receive(r.ap, buf, REPLY_CAP, 1000) > 0);
	char *log = rig_stop(&r);
	if (!strstr(log, "replies 2,"))
		fail_msg("barod's log:\n%s", log);
	free(log);
}

/* A backend that never answers at all: barod's warning counts the
 * silence from ArduPilot's first servo packet, so after 5 s of it the
 * last warning says more than 2.5 s (it said "1.x s" every second, the
 * time since one second before the latest servo packet).  The warnings
 * come once a second, none skipped: the silence was looked at only once
 * a second, so timer jitter pushed about every other warning a second
 * late (a gap of 2.0 s between two of them). */
static void
test_proxy_backend_never_answers(void **state)
{
	struct rig r;
	(void)state;

	rig_open(&r, true);
	start_rig(&r, "sitl-json-proxy", NULL, NULL);
	/* 5 s at least. */
	for (uint32_t f = 1; f <= 250; f++) {
		send_servo(r.ap, r.port, f, false);
		usleep(20000);
	}
	char *log = rig_stop(&r);
	double s = 0.0, prev = 0.0;
	unsigned warnings = 0;
	for (const char *p = strstr(log, "silent for "); p;
	     p = strstr(p + 1, "silent for ")) {
		if (sscanf(p, "silent for %lf s", &s) != 1)
			fail_msg("barod's log:\n%s", log);
		if (warnings++ > 0 && s - prev > 1.5)
			fail_msg("%.1f s between two warnings:\n%s",
				 s - prev, log);
		prev = s;
	}
	if (warnings < 3 || s < 2.5)
		fail_msg("barod's log:\n%s", log);
	free(log);
}

/* Busy-polling for the answers changes nothing that is delivered. */
static void
test_proxy_busy_poll(void **state)
{
	char buf[REPLY_CAP], text[UPSTREAM_CAP];
	struct rig r;
	unsigned long long spins = 0;

	(void)state;
	rig_open(&r, true);
	start_rig(&r, "sitl-json-proxy", "--busy-poll", "300");
	proxy_hundred(&r, buf, text);
	char *log = rig_stop(&r);
	const char *bp = strstr(log, "busy-polls ");
	if (!bp || sscanf(bp, "busy-polls %llu", &spins) != 1 || spins == 0 ||
	    !strstr(log, "frames 100"))
		fail_msg("barod's log:\n%s", log);
	free(log);
}

/* proxy_step, and ArduPilot's rng_1. */
static float
proxy_frame(const struct rig *r, uint32_t frame, double t)
{
	char text[UPSTREAM_CAP], buf[REPLY_CAP];
	uint8_t got[256];
	struct sitl_fdm fdm;

	proxy_step(r, frame, t, got, text, buf);
	assert_true(sitl_json_ap_accepts(ap_read(buf, &fdm)));
	return fdm.rng[0];
}

/*
 * Scenario time starts at the backend's first frame, whatever its epoch
 * (0, or Unix time as ArduPilot's C++ example backend stamps), and again
 * after the backend's clock goes back.  The glitch runs from 50 to 80 ms
 * of scenario time on 1 kHz frames; the baro samples every 10 ms, so the
 * first glitched reply comes 50 to 60 ms after the first frame and the
 * last one 79 to 88 ms after it.  SCALED_PRESSURE's time_boot_ms counts
 * from the first frame too, 10 ms apart, never near 32 bits.
 */
static void
proxy_epoch(double epoch)
{
	char scn[512];
	struct rig r;

	rig_open(&r, true);
	harness_write(&harness, scn, sizeof(scn), "epoch.scn",
		      "at 50ms glitch 0 10 for 30ms\n");
	start_rig(&r, "sitl-json-proxy", "--scenario", scn);

	uint32_t frame = 1;
	for (int run = 0; run < 2; run++) {
		int first = -1, last = -1;
		for (int k = 0; k < 150; k++) {
			/* The second run: the backend restarted, its clock
			 * back at the epoch (plus a little). */
			double t = epoch + 0.0005 * run + 0.001 * k;
			float rng = proxy_frame(&r, frame++, t);
			if (rng == 13.0f) {
				if (first < 0)
					first = k;
				last = k;
			} else if (rng != 0.0f || run > 0 || k >= 10) {
				/* 0 only before the first sample */
				assert_float_exact(rng, 3.0f);
			}
		}
		if (first < 50 || first >= 60 || last < 79 || last >= 89)
			fail_msg("epoch %.3f run %d: glitched from frame %d to "
				 "%d", epoch, run, first, last);
	}

	/* Baro 0's SCALED_PRESSURE, on the same clock. */
	struct pressure_log pl = { 0 };
	assert_int_equal(gcs_peer_drain(r.mav, 0, on_pressure, &pl), 0);
	assert_true(pl.n >= 20);
	for (unsigned k = 0; k < pl.n; k++) {
		if (pl.t[k] < 10 || pl.t[k] > 150 || pl.t[k] % 10 != 0)
			fail_msg("epoch %.3f: time_boot_ms %u", epoch, pl.t[k]);
	}

	char *log = rig_stop(&r);
	/* The log speaks scenario time, twice the same. */
	char *g = strstr(log, "t=50ms SIM_BARO_GLITCH 0 -> 10 for 30ms");
	if (!g || !strstr(g + 1, "t=50ms SIM_BARO_GLITCH 0 -> 10 for 30ms") ||
	    !strstr(log, "epoch.scn restarted") || !strstr(log, "restarts 1"))
		fail_msg("barod's log:\n%s", log);
	assert_null(strstr(log, "t=1700000"));
	free(log);
}

static void
test_proxy_epoch_zero(void **state)
{
	(void)state;
	proxy_epoch(0.0);
}

static void
test_proxy_epoch_unix(void **state)
{
	(void)state;
	proxy_epoch(1.7e9);
}

/* Several ArduPilot instances (-I0, -I1) in one barod: each on its own
 * port, each its own vehicle and physics clock, sysid 1 and 2. */
static void
test_two_instances(void **state)
{
	char conf[512], buf[REPLY_CAP];
	struct rig r;
	struct sitl_fdm fdm;
	(void)state;

	rig_open(&r, false);
	harness_write(&harness, conf, sizeof(conf), "two.conf",
		      "[barod]\nsource = sitl-json\ncontrol = none\n"
		      "[sim]\nprofile = static:4\nSIM_BARO_RND = 0\n"
		      "SIM_BARO_COUNT = 1\n"
		      "[sitl]\ninstances = 2\nbind = 127.0.0.1\nport = %u\n"
		      "[output gcs]\ntype = udp-client\n"
		      "address = 127.0.0.1:%u\n",
		      r.port, r.mav_port);
	start_with(conf, NULL, NULL);

	/* Instance 1 runs ahead of instance 0: separate clocks. */
	two_clocks(&r, buf);
	ap_read(buf, &fdm);
	assert_close_abs(fdm.timestamp, 240 / 1200.0, 1e-9);
	/* A resend to instance 0 shows its own clock, 100 ms behind. */
	exchange_read(&r, r.port, 120, false, buf, &fdm);
	assert_close_abs(fdm.timestamp, 120 / 1200.0, 1e-9);
	assert_float_exact(fdm.rng[0], 4.0f);

	unsigned by_sysid[3] = { 0 };
	assert_int_equal(gcs_peer_drain(r.mav, 0, gcs_peer_count_sysid,
					by_sysid), 0);
	/* 100 ms of physics for instance 0, 200 ms for instance 1. */
	assert_int_equal(by_sysid[1], 10);
	assert_int_equal(by_sysid[2], 20);

	char *log = rig_stop(&r);
	assert_non_null(strstr(log, "SITL instance 1: servo packets 240"));
	free(log);
}

/* MSP outputs in a SITL mode: each carries its own vehicle's baros on
 * that vehicle's physics clock (fault-injected baros into a real
 * flight controller, one per SITL instance). */
static void
test_msp_vehicles(void **state)
{
	char conf[512], buf[REPLY_CAP];
	unsigned u0, u1;
	struct rig r;
	struct msp_capture *c[2] = { msp_capture_new(), msp_capture_new() };
	(void)state;

	rig_open(&r, false);
	int fd[2] = { udp_socket(&u0), udp_socket(&u1) };
	harness_write(&harness, conf, sizeof(conf), "msp.conf",
		      "[barod]\nsource = sitl-json\ncontrol = none\n"
		      "[sim]\nprofile = static:4\nSIM_BARO_COUNT = 2\n"
		      "[sitl]\ninstances = 2\nbind = 127.0.0.1\nport = %u\n"
		      "[output fc0]\ntype = msp\naddress = 127.0.0.1:%u\n"
		      "transport = udp\n"
		      "[output fc1]\ntype = msp\naddress = 127.0.0.1:%u\n"
		      "transport = udp\nvehicle = 1\ninstances = 1=3\n",
		      r.port, u0, u1);
	start_with(conf, NULL, NULL);

	/* 100 ms of physics for instance 0, 200 ms for instance 1. */
	two_clocks(&r, buf);
	free(rig_stop(&r));
	for (int v = 0; v < 2; v++) {
		ssize_t n;
		while ((n = recv(fd[v], buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
			msp_capture_feed(c[v], (uint8_t *)buf, (size_t)n);
			msp_parser_flush(&c[v]->parser);
		}
		assert_int_equal(c[v]->not_baro, 0);
	}
	/* Vehicle 0: both baros, ten samples each. */
	assert_int_equal(c[0]->n, 20);
	/* Vehicle 1: its baro 1 only, as MSP instance 3, twenty samples on
	 * its own clock, 10 ms apart. */
	assert_int_equal(c[1]->n, 20);
	for (size_t k = 0; k < c[1]->n; k++) {
		const struct msp_baro *b = &c[1]->b[k];
		assert_int_equal(b->instance, 3);
		assert_true(b->pressure_pa > 90000.0f &&
			    b->pressure_pa < 102000.0f);
		if (k > 0)
			assert_in_range(b->time_ms - c[1]->b[k - 1].time_ms, 9,
					11);
	}
	assert_in_range(c[1]->b[19].time_ms, 190, 200);
	unsigned per[2] = { 0 };
	for (size_t k = 0; k < c[0]->n; k++) {
		assert_true(c[0]->b[k].instance < 2);
		per[c[0]->b[k].instance]++;
		assert_true(c[0]->b[k].time_ms <= 100);
	}
	assert_int_equal(per[0], 10);
	assert_int_equal(per[1], 10);
	close(fd[0]);
	close(fd[1]);
	free(c[0]);
	free(c[1]);
}

/* The peer's vehicle follows a CSV truth trace: from rest it cannot
 * take the trace's 5 m/s at once, but catches up within a second and
 * then flies it exactly. */
static void
test_peer_truth_trace(void **state)
{
	char conf[512], trace[512], buf[REPLY_CAP];
	struct rig r;
	struct sitl_fdm fdm;
	(void)state;

	rig_open(&r, false);
	harness_write(&harness, trace, sizeof(trace), "truth.csv",
		      "time_s,alt_m\n0,0\n4,20\n");
	harness_write(&harness, conf, sizeof(conf), "trace.conf",
		      "[barod]\nsource = sitl-json\ncontrol = none\n"
		      "[sim]\ntruth = %s\nhome_alt = 584\nSIM_BARO_RND = 0\n"
		      "[sitl]\nbind = 127.0.0.1\nport = %u\n"
		      "[output gcs]\ntype = udp-client\n"
		      "address = 127.0.0.1:%u\n",
		      trace, r.port, r.mav_port);
	start_with(conf, NULL, NULL);

	for (uint32_t f = 1; f <= 3000; f++)
		exchange(r.ap, r.port, f, false, buf);
	ap_read(buf, &fdm);
	assert_close_abs(fdm.position[2], -12.5, 1e-9);
	/* the baro's altitude: whole centimetres of the same height */
	assert_close_abs(fdm.rng[0], 12.5, 0.0101);
	assert_close_abs(fdm.velocity[2], -5.0, 1e-6);	/* 5 m/s up */
	free(rig_stop(&r));
}

/*
 * The crash: `--profile step:0:37.77:10` made barod send an
 * infinite-looking velocity and acceleration at the step, and ArduPilot
 * stopped on a floating point exception.  Now the vehicle climbs as
 * quickly as its limits allow (2 g, 50 m/s: 2.775 s for 37.77 m), every
 * reply consistent and finite, and the baro (rng_1) follows the height
 * actually flown, never more than one 10 ms sample behind.
 */
static void
test_peer_step_profile(void **state)
{
	char buf[REPLY_CAP];
	struct rig r;
	struct sitl_fdm fdm;
	static double h[16000];
	(void)state;

	rig_open(&r, false);
	start_rig(&r, "sitl-json", "--profile", "step:0:37.77:10");

	const double g = ATMOS_GRAVITY_MSS, amax = 2.0 * g;
	uint32_t arrived = 0;
	float last_rng = 0.0f;
	for (uint32_t f = 1; f < 16000; f++) {
		assert_int_equal(exchange_read(&r, r.port, f, false, buf,
					       &fdm) & vehicle_keys,
				 vehicle_keys);
		h[f] = -fdm.position[2];
		const double vz = fdm.velocity[2], fz = fdm.accel_body[2];
		if (!isfinite(h[f]) || !isfinite(vz) || !isfinite(fz) ||
		    fabs(vz) > 50.0 || fz < -g - amax - 1e-4 ||
		    fz > -g + amax + 1e-4 || h[f] < -1e-9 ||
		    h[f] > 37.77 + 1e-9)
			fail_msg("frame %u: %s", f, buf);
		/* The position moved by the velocity sent. */
		if (f > 1 && fabs((h[f] - h[f - 1]) * 1200.0 + vz) > 1e-3)
			fail_msg("frame %u: height %.9f after %.9f, vz %.9f",
				 f, h[f], h[f - 1], vz);
		/* The baro samples every 12th frame what was flown. */
		const float rng = fdm.rng[0];
		if (f >= 12 && (rng < last_rng ||
				rng > h[f] + 0.01 || rng < h[f - 12] - 0.01))
			fail_msg("frame %u: rng_1 %.9g for heights %.9f .. "
				 "%.9f", f, (double)rng, h[f - 12], h[f]);
		last_rng = rng;
		if (!arrived && h[f] == 37.77)
			arrived = f;
	}
	/* 12.775 s, and the braking a few ms longer to land exactly */
	assert_true(arrived >= 15329 && arrived <= 15348);
	assert_float_exact(fdm.velocity[2], 0.0f);
	assert_float_exact(fdm.accel_body[2], -ATMOS_GRAVITY_MSS);
	assert_close_abs(fdm.rng[0], 37.77, 0.0101);
	free(rig_stop(&r));
}

/* barod --sitl-json with no ArduPilot: it says what it waits for (at
 * start, as NOTICE, so without -v too), and a scenario whose clock never
 * ran says so at exit instead of reporting "t=0s restore" and "scenario
 * over" as if it had played. */
static void
test_peer_waiting(void **state)
{
	struct rig r;
	char scn[512], want[160];
	(void)state;

	rig_open(&r, false);
	harness_write(&harness, scn, sizeof(scn), "wait.scn",
		      "at 0s glitch 0 15 for 5s\nat 10s end\n");
	start_rig(&r, "sitl-json", "--scenario", scn);
	snprintf(want, sizeof(want), "SITL instance 0: waiting for ArduPilot "
		 "(servo packets on UDP 127.0.0.1:%u;", r.port);
	harness_wait_log(&harness, child, want, 1);
	char *log = rig_stop(&r);
	assert_non_null(strstr(log, "scenario "));
	assert_non_null(strstr(log, "never started: no physics frame "
				    "arrived"));
	assert_null(strstr(log, "t=0s"));
	assert_null(strstr(log, "scenario over"));
	free(log);

	/* Once ArduPilot is there, no more waiting, and the scenario's
	 * clock runs: its stop restores as before. */
	rig_open(&r, false);
	start_rig(&r, "sitl-json", "--scenario", scn);
	char buf[REPLY_CAP];
	for (uint32_t f = 1; f <= 12; f++)
		exchange(r.ap, r.port, f, false, buf);
	log = rig_stop(&r);
	assert_null(strstr(log, "never started"));
	assert_non_null(strstr(log, "t=0s SIM_BARO_GLITCH 0 -> 15"));
	const char *p = strstr(log, "waiting for ArduPilot");
	assert_non_null(p);
	assert_null(strstr(p + 1, "waiting for ArduPilot"));
	free(log);
}

/* STATUS= (what systemctl status shows) says the same wait as the log
 * while no ArduPilot came, then the counters as soon as it is there:
 * through barod's own sd_notify datagrams, on a socket standing in for
 * systemd's. */
static void
test_peer_waiting_status(void **state)
{
#ifdef BAROD_HAVE_SYSTEMD
	struct rig r;
	char path[108], want[160], buf[512];
	(void)state;

	int fd = notify_socket_open(path, sizeof(path));
	rig_open(&r, false);
	start_rig(&r, "sitl-json", NULL, NULL);
	unsetenv("NOTIFY_SOCKET");
	snprintf(want, sizeof(want), "READY=1\nSTATUS=sitl-json: waiting for "
		 "ArduPilot (servo packets on UDP 127.0.0.1:%u)", r.port);
	if (!notify_socket_wait(fd, want, buf, sizeof(buf), 5000))
		fail_msg("no '%s' from barod", want);
	/* Still waiting a tick later (the periodic STATUS= says so). */
	snprintf(want, sizeof(want), "STATUS=sitl-json: waiting for "
		 "ArduPilot (servo packets on UDP 127.0.0.1:%u)", r.port);
	if (!notify_socket_wait(fd, want, buf, sizeof(buf), 3000))
		fail_msg("no '%s' from barod", want);
	char reply[REPLY_CAP];
	for (uint32_t f = 1; f <= 12; f++)
		exchange(r.ap, r.port, f, false, reply);
	/* The peer's arrival is said at once, not after the 5 s throttle. */
	if (!notify_socket_wait(fd, " healthy, ", buf, sizeof(buf), 2500))
		fail_msg("no counters in STATUS= after ArduPilot came");
	assert_non_null(strstr(buf, "STATUS=sitl-json: "));
	assert_null(strstr(buf, "waiting"));
	free(rig_stop(&r));
	close(fd);
	unlink(path);
#else
	(void)state;
	skip_because("built without libsystemd: no sd_notify STATUS= "
		     "to watch");
#endif
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		harness_unit_test(test_peer, &harness),
		harness_unit_test(test_drive_scenario_file, &harness),
		harness_unit_test(test_proxy, &harness),
		harness_unit_test(test_proxy_expanding_lines, &harness),
		harness_unit_test(test_proxy_backend_never_answers, &harness),
		harness_unit_test(test_proxy_empty_datagram, &harness),
		harness_unit_test(test_proxy_busy_poll, &harness),
		harness_unit_test(test_proxy_epoch_zero, &harness),
		harness_unit_test(test_proxy_epoch_unix, &harness),
		harness_unit_test(test_two_instances, &harness),
		harness_unit_test(test_msp_vehicles, &harness),
		harness_unit_test(test_peer_truth_trace, &harness),
		harness_unit_test(test_peer_step_profile, &harness),
		harness_unit_test(test_peer_waiting, &harness),
		harness_unit_test(test_peer_waiting_status, &harness),
	};
	return harness_run_tests(&harness, "barod-sitl", tests);
}
