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
#include "harness-cmocka.h"
#include "mavlink.h"
#include "msp-capture.h"
#include "sitl-json.h"
#include "sitl-peer.h"
#include "test-files.h"
#include "test-util.h"

static struct harness harness;
static pid_t child;

static void
path_in_tmp(char *buf, size_t len, const char *name)
{
	harness_path(&harness, buf, len, name);
}

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

static void
start(const char *conf, const char *scenario)
{
	start_with(conf, scenario ? "--scenario" : NULL, scenario);
}

/* Stop barod; its log (with the counters report). */
static char *
stop(void)
{
	assert_int_equal(harness_stop(&harness, child, NULL), 0);
	return harness_log(&harness, child);
}

static void
send_servo(int fd, unsigned port, uint32_t frame, bool wide)
{
	struct sitl_servo s = {
		.magic = wide ? SITL_SERVO_MAGIC_32 : SITL_SERVO_MAGIC_16,
		.frame_rate = 1200,
		.frame_count = frame,
		.channels = wide ? 32 : 16,
	};

	for (unsigned k = 0; k < s.channels; k++)
		s.pwm[k] = (uint16_t)(1000 + k);
	sitl_peer_send_servo(fd, port, &s);
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

static void
write_conf(const char *path, const char *source, unsigned port,
	   const char *upstream, unsigned mav_port)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "[barod]\nsource = %s\ncontrol = none\n"
		 "[sim]\nprofile = static:10\nhome_alt = 584\n"
		 "atmosphere = 1976\nSIM_BARO_RND = 0\nSIM_BAR2_RND = 0\n"
		 "[sitl]\nbind = 127.0.0.1\nport = %u\n%s%s%s"
		 "rng_2 = 1\n"
		 "[output gcs]\ntype = udp-client\n"
		 "address = 127.0.0.1:%u\n",
		 source, port, upstream ? "upstream = " : "",
		 upstream ? upstream : "", upstream ? "\n" : "", mav_port);
	write_file(path, text);
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

/* SCALED_PRESSURE count by sysid (1..2). */
static void
on_sysid(const struct mavlink_frame *f, void *user)
{
	unsigned *n = user;

	if (f->msgid == MAVLINK_MSG_SCALED_PRESSURE && f->sysid <= 2)
		n[f->sysid]++;
}

/* ------------------------------------------------------------------ */

static void
test_peer(void **state)
{
	char conf[512], buf[8192], first[8192], scn[512];
	unsigned ap_port, mav_port;
	struct sitl_fdm fdm;
	(void)state;

	int ap = udp_socket(&ap_port);
	int mav = udp_socket(&mav_port);
	unsigned port = harness_free_port(&harness, SOCK_DGRAM, false);
	path_in_tmp(conf, sizeof(conf), "peer.conf");
	path_in_tmp(scn, sizeof(scn), "glitch.scn");
	write_conf(conf, "sitl-json", port, NULL, mav_port);
	/* 5 m more on baro 0 from 500 to 700 ms of physics time. */
	write_file(scn, "at 500ms glitch 0 5 for 200ms\n");
	start(conf, scn);

	double last_t = 0.0;
	unsigned glitched = 0;
	for (uint32_t f = 1; f <= 1200; f++) {
		send_servo(ap, port, f, f > 600);	/* 32 channels later */
		ssize_t n = sitl_peer_receive(ap, buf, sizeof(buf), 1000);
		assert_true(n > 0);
		uint64_t mask = ap_read(buf, &fdm);
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
		if (f == 100)
			strcpy(first, buf);
		/* A resend of frame 100 gets the same answer, no step. */
		if (f == 100) {
			send_servo(ap, port, f, false);
			assert_true(sitl_peer_receive(ap, buf, sizeof(buf), 1000) > 0);
			assert_string_equal(buf, first);
		}
	}
	assert_true(glitched >= 235 && glitched <= 241);

	/* Lost frames: 1206 follows 1200. */
	send_servo(ap, port, 1206, false);
	assert_true(sitl_peer_receive(ap, buf, sizeof(buf), 1000) > 0);
	ap_read(buf, &fdm);
	assert_close_abs(fdm.timestamp, 1201 / 1200.0, 1e-9);

	/* Garbage and wrong sizes get no answer, and change nothing. */
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	const char junk[] = "this is not a servo packet";
	sendto(ap, junk, sizeof(junk), 0, (struct sockaddr *)&sa, sizeof(sa));
	uint8_t short_pkt[39] = { 0x1a, 0x48 };	/* magic 18458, 39 bytes */
	sendto(ap, short_pkt, sizeof(short_pkt), 0, (struct sockaddr *)&sa,
	       sizeof(sa));
	assert_int_equal(sitl_peer_receive(ap, buf, sizeof(buf), 100), 0);

	/* ArduPilot restarted: frame_count back to 1, physics from 0. */
	send_servo(ap, port, 1, false);
	assert_true(sitl_peer_receive(ap, buf, sizeof(buf), 1000) > 0);
	ap_read(buf, &fdm);
	assert_close_abs(fdm.timestamp, 1 / 1200.0, 1e-9);

	/* barod's SCALED_PRESSURE carry the physics time: the glitch shows
	 * in exactly the samples from time_boot_ms 500 to 690. */
	struct pressure_log pl = { 0 };
	struct mavlink_parser mp;
	uint8_t d[4096];
	ssize_t n;
	mavlink_parser_init(&mp);
	while ((n = recv(mav, d, sizeof(d), MSG_DONTWAIT)) > 0) {
		mavlink_parser_feed(&mp, d, (size_t)n, on_pressure, &pl);
		mavlink_parser_flush(&mp);
	}
	assert_int_equal(mp.stats.bad_crc, 0);
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
		send_servo(ap, port, f, false);
		assert_true(sitl_peer_receive(ap, buf, sizeof(buf), 1000) > 0);
		ap_read(buf, &fdm);
		const unsigned ms = (unsigned)(f * 1000u / 1200u);
		if (ms >= 10)
			assert_float_exact(fdm.rng[0], ms >= 500 && ms < 700
							       ? 15.0f
							       : 10.0f);
		glitched += fdm.rng[0] == 15.0f;
	}
	assert_true(glitched >= 235 && glitched <= 241);

	char *log = stop();
	assert_non_null(strstr(log, "resends 1"));
	assert_non_null(strstr(log, "lost 5"));
	assert_non_null(strstr(log, "restarts 1"));
	assert_non_null(strstr(log, "bad packets 2"));
	assert_non_null(strstr(log, "glitch.scn restarted"));
	free(log);
	close(ap);
	close(mav);
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

static void
test_proxy(void **state)
{
	char conf[512], up_addr[64], buf[8192], text[1024];
	unsigned ap_port, up_port, mav_port;
	struct sitl_fdm fdm;
	(void)state;

	int ap = udp_socket(&ap_port);
	int up = udp_socket(&up_port);
	int mav = udp_socket(&mav_port);
	unsigned port = harness_free_port(&harness, SOCK_DGRAM, false);
	snprintf(up_addr, sizeof(up_addr), "127.0.0.1:%u", up_port);
	path_in_tmp(conf, sizeof(conf), "proxy.conf");
	write_conf(conf, "sitl-json-proxy", port, up_addr, mav_port);
	start(conf, NULL);

	for (uint32_t f = 1; f <= 100; f++) {
		send_servo(ap, port, f, false);
		/* The servo packet reaches the backend unchanged. */
		struct sockaddr_in from;
		socklen_t flen = sizeof(from);
		uint8_t sent[SITL_SERVO_LEN_32], got[256];
		struct sitl_servo s = { .magic = SITL_SERVO_MAGIC_16,
					.frame_rate = 1200, .frame_count = f,
					.channels = 16 };
		for (unsigned k = 0; k < 16; k++)
			s.pwm[k] = (uint16_t)(1000 + k);
		size_t len = sitl_servo_encode(&s, sent);
		struct pollfd p = { up, POLLIN, 0 };
		assert_true(poll(&p, 1, 1000) > 0);
		ssize_t n = recvfrom(up, got, sizeof(got), 0,
				     (struct sockaddr *)&from, &flen);
		assert_int_equal(n, (ssize_t)len);
		assert_memory_equal(got, sent, len);

		int tl = upstream_line(text, sizeof(text), f * 0.001);
		sendto(up, text, (size_t)tl, 0, (struct sockaddr *)&from, flen);
		assert_true(sitl_peer_receive(ap, buf, sizeof(buf), 1000) > 0);

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

	/* A line that is not JSON goes through untouched, and is counted. */
	struct sockaddr_in barod_up;
	socklen_t blen = sizeof(barod_up);
	send_servo(ap, port, 101, false);
	struct pollfd p = { up, POLLIN, 0 };
	assert_true(poll(&p, 1, 1000) > 0);
	uint8_t tmp[256];
	recvfrom(up, tmp, sizeof(tmp), 0, (struct sockaddr *)&barod_up, &blen);
	sendto(up, "\n{oops\n", 7, 0, (struct sockaddr *)&barod_up, blen);
	assert_int_equal(sitl_peer_receive(ap, buf, sizeof(buf), 1000), 7);
	assert_string_equal(buf, "\n{oops\n");

	/* The backend restarted: its timestamp went back. */
	int tl = upstream_line(text, sizeof(text), 0.0005);
	sendto(up, text, (size_t)tl, 0, (struct sockaddr *)&barod_up, blen);
	assert_true(sitl_peer_receive(ap, buf, sizeof(buf), 1000) > 0);

	/* A silent backend: ArduPilot gets nothing, barod says so. */
	for (int k = 0; k < 125; k++) {
		send_servo(ap, port, 102 + (uint32_t)k, false);
		usleep(20000);
	}
	assert_int_equal(sitl_peer_receive(ap, buf, sizeof(buf), 50), 0);

	char *log = stop();
	if (!strstr(log, "bad lines 1"))
		fail_msg("barod's log:\n%s", log);
	assert_non_null(strstr(log, "restarts 1"));
	assert_non_null(strstr(log, "frames 101"));
	char *s1 = strstr(log, "silent");
	assert_non_null(s1);
	assert_true(strstr(s1 + 1, "silent") == NULL ||
		    strstr(strstr(s1 + 1, "silent") + 1, "silent") == NULL);
	free(log);
	close(ap);
	close(up);
	close(mav);
}

/*
 * One backend frame through the proxy at backend time t (s): the servo
 * packet goes up, the backend's line comes back; returns ArduPilot's
 * rng_1.
 */
static float
proxy_frame(int ap, int up, unsigned port, uint32_t frame, double t)
{
	char text[1024], buf[8192];
	uint8_t got[256];
	struct sockaddr_in from;
	socklen_t flen = sizeof(from);
	struct pollfd p = { up, POLLIN, 0 };
	struct sitl_fdm fdm;

	send_servo(ap, port, frame, false);
	assert_true(poll(&p, 1, 1000) > 0);
	assert_true(recvfrom(up, got, sizeof(got), 0, (struct sockaddr *)&from,
			     &flen) > 0);
	int tl = upstream_line(text, sizeof(text), t);
	sendto(up, text, (size_t)tl, 0, (struct sockaddr *)&from, flen);
	assert_true(sitl_peer_receive(ap, buf, sizeof(buf), 1000) > 0);
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
	char conf[512], up_addr[64], scn[512];
	unsigned ap_port, up_port, mav_port;

	int ap = udp_socket(&ap_port);
	int up = udp_socket(&up_port);
	int mav = udp_socket(&mav_port);
	unsigned port = harness_free_port(&harness, SOCK_DGRAM, false);
	snprintf(up_addr, sizeof(up_addr), "127.0.0.1:%u", up_port);
	path_in_tmp(conf, sizeof(conf), "epoch.conf");
	path_in_tmp(scn, sizeof(scn), "epoch.scn");
	write_conf(conf, "sitl-json-proxy", port, up_addr, mav_port);
	write_file(scn, "at 50ms glitch 0 10 for 30ms\n");
	start(conf, scn);

	uint32_t frame = 1;
	for (int run = 0; run < 2; run++) {
		int first = -1, last = -1;
		for (int k = 0; k < 150; k++) {
			/* The second run: the backend restarted, its clock
			 * back at the epoch (plus a little). */
			double t = epoch + 0.0005 * run + 0.001 * k;
			float rng = proxy_frame(ap, up, port, frame++, t);
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
	struct mavlink_parser mp;
	uint8_t d[4096];
	ssize_t n;
	mavlink_parser_init(&mp);
	while ((n = recv(mav, d, sizeof(d), MSG_DONTWAIT)) > 0) {
		mavlink_parser_feed(&mp, d, (size_t)n, on_pressure, &pl);
		mavlink_parser_flush(&mp);
	}
	assert_true(pl.n >= 20);
	for (unsigned k = 0; k < pl.n; k++) {
		if (pl.t[k] < 10 || pl.t[k] > 150 || pl.t[k] % 10 != 0)
			fail_msg("epoch %.3f: time_boot_ms %u", epoch, pl.t[k]);
	}

	char *log = stop();
	/* The log speaks scenario time, twice the same. */
	char *g = strstr(log, "t=50ms SIM_BARO_GLITCH 0 -> 10 for 30ms");
	if (!g || !strstr(g + 1, "t=50ms SIM_BARO_GLITCH 0 -> 10 for 30ms") ||
	    !strstr(log, "epoch.scn restarted") || !strstr(log, "restarts 1"))
		fail_msg("barod's log:\n%s", log);
	assert_null(strstr(log, "t=1700000"));
	free(log);
	close(ap);
	close(up);
	close(mav);
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
	char conf[512], text[1024], buf[8192];
	unsigned ap_port, mav_port;
	struct sitl_fdm fdm;
	(void)state;

	int ap = udp_socket(&ap_port);
	int mav = udp_socket(&mav_port);
	unsigned port = harness_free_port(&harness, SOCK_DGRAM, false);
	path_in_tmp(conf, sizeof(conf), "two.conf");
	snprintf(text, sizeof(text),
		 "[barod]\nsource = sitl-json\ncontrol = none\n"
		 "[sim]\nprofile = static:4\nSIM_BARO_RND = 0\n"
		 "SIM_BARO_COUNT = 1\n"
		 "[sitl]\ninstances = 2\nbind = 127.0.0.1\nport = %u\n"
		 "[output gcs]\ntype = udp-client\naddress = 127.0.0.1:%u\n",
		 port, mav_port);
	write_file(conf, text);
	start(conf, NULL);

	/* Instance 1 runs ahead of instance 0: separate clocks. */
	for (uint32_t f = 1; f <= 240; f++) {
		send_servo(ap, port + 10, f, false);
		assert_true(sitl_peer_receive(ap, buf, sizeof(buf), 1000) > 0);
		if (f > 120)
			continue;
		send_servo(ap, port, f, false);
		assert_true(sitl_peer_receive(ap, buf, sizeof(buf), 1000) > 0);
	}
	ap_read(buf, &fdm);
	assert_close_abs(fdm.timestamp, 240 / 1200.0, 1e-9);
	/* A resend to instance 0 shows its own clock, 100 ms behind. */
	send_servo(ap, port, 120, false);
	assert_true(sitl_peer_receive(ap, buf, sizeof(buf), 1000) > 0);
	ap_read(buf, &fdm);
	assert_close_abs(fdm.timestamp, 120 / 1200.0, 1e-9);
	assert_float_exact(fdm.rng[0], 4.0f);

	struct mavlink_parser mp;
	struct sysid_count { unsigned n[3]; } c = { { 0 } };
	uint8_t d[4096];
	ssize_t n;
	mavlink_parser_init(&mp);
	while ((n = recv(mav, d, sizeof(d), MSG_DONTWAIT)) > 0) {
		mavlink_parser_feed(&mp, d, (size_t)n, on_sysid, &c);
		mavlink_parser_flush(&mp);
	}
	/* 100 ms of physics for instance 0, 200 ms for instance 1. */
	assert_int_equal(c.n[1], 10);
	assert_int_equal(c.n[2], 20);

	char *log = stop();
	assert_non_null(strstr(log, "SITL instance 1: servo packets 240"));
	free(log);
	close(ap);
	close(mav);
}

/* MSP outputs in a SITL mode: each carries its own vehicle's baros on
 * that vehicle's physics clock (fault-injected baros into a real
 * flight controller, one per SITL instance). */
static void
test_msp_vehicles(void **state)
{
	char conf[512], text[1024], buf[8192];
	unsigned ap_port, u0, u1;
	struct msp_capture *c[2] = { msp_capture_new(), msp_capture_new() };
	(void)state;

	int ap = udp_socket(&ap_port);
	int fd[2] = { udp_socket(&u0), udp_socket(&u1) };
	unsigned port = harness_free_port(&harness, SOCK_DGRAM, false);
	path_in_tmp(conf, sizeof(conf), "msp.conf");
	snprintf(text, sizeof(text),
		 "[barod]\nsource = sitl-json\ncontrol = none\n"
		 "[sim]\nprofile = static:4\nSIM_BARO_COUNT = 2\n"
		 "[sitl]\ninstances = 2\nbind = 127.0.0.1\nport = %u\n"
		 "[output fc0]\ntype = msp\naddress = 127.0.0.1:%u\n"
		 "transport = udp\n"
		 "[output fc1]\ntype = msp\naddress = 127.0.0.1:%u\n"
		 "transport = udp\nvehicle = 1\ninstances = 1=3\n",
		 port, u0, u1);
	write_file(conf, text);
	start(conf, NULL);

	/* 100 ms of physics for instance 0, 200 ms for instance 1. */
	for (uint32_t f = 1; f <= 240; f++) {
		send_servo(ap, port + 10, f, false);
		assert_true(sitl_peer_receive(ap, buf, sizeof(buf), 1000) > 0);
		if (f > 120)
			continue;
		send_servo(ap, port, f, false);
		assert_true(sitl_peer_receive(ap, buf, sizeof(buf), 1000) > 0);
	}
	free(stop());
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
	close(ap);
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
	char conf[512], trace[512], text[1024], buf[8192];
	unsigned ap_port, mav_port;
	struct sitl_fdm fdm;
	(void)state;

	int ap = udp_socket(&ap_port);
	int mav = udp_socket(&mav_port);
	unsigned port = harness_free_port(&harness, SOCK_DGRAM, false);
	path_in_tmp(trace, sizeof(trace), "truth.csv");
	write_file(trace, "time_s,alt_m\n0,0\n4,20\n");
	path_in_tmp(conf, sizeof(conf), "trace.conf");
	snprintf(text, sizeof(text),
		 "[barod]\nsource = sitl-json\ncontrol = none\n"
		 "[sim]\ntruth = %s\nhome_alt = 584\nSIM_BARO_RND = 0\n"
		 "[sitl]\nbind = 127.0.0.1\nport = %u\n"
		 "[output gcs]\ntype = udp-client\naddress = 127.0.0.1:%u\n",
		 trace, port, mav_port);
	write_file(conf, text);
	start(conf, NULL);

	for (uint32_t f = 1; f <= 3000; f++) {
		send_servo(ap, port, f, false);
		assert_true(sitl_peer_receive(ap, buf, sizeof(buf), 1000) > 0);
	}
	ap_read(buf, &fdm);
	assert_close_abs(fdm.position[2], -12.5, 1e-9);
	/* the baro's altitude: whole centimetres of the same height */
	assert_close_abs(fdm.rng[0], 12.5, 0.0101);
	assert_close_abs(fdm.velocity[2], -5.0, 1e-6);	/* 5 m/s up */
	free(stop());
	close(ap);
	close(mav);
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
	char conf[512], buf[8192];
	unsigned ap_port, mav_port;
	struct sitl_fdm fdm;
	static double h[16000];
	(void)state;

	int ap = udp_socket(&ap_port);
	int mav = udp_socket(&mav_port);
	unsigned port = harness_free_port(&harness, SOCK_DGRAM, false);
	path_in_tmp(conf, sizeof(conf), "step.conf");
	write_conf(conf, "sitl-json", port, NULL, mav_port);
	start_with(conf, "--profile", "step:0:37.77:10");

	const double g = ATMOS_GRAVITY_MSS, amax = 2.0 * g;
	uint32_t arrived = 0;
	float last_rng = 0.0f;
	for (uint32_t f = 1; f < 16000; f++) {
		send_servo(ap, port, f, false);
		assert_true(sitl_peer_receive(ap, buf, sizeof(buf), 1000) > 0);
		assert_int_equal(ap_read(buf, &fdm) & vehicle_keys,
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
	free(stop());
	close(ap);
	close(mav);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		harness_unit_test(test_peer, &harness),
		harness_unit_test(test_proxy, &harness),
		harness_unit_test(test_proxy_epoch_zero, &harness),
		harness_unit_test(test_proxy_epoch_unix, &harness),
		harness_unit_test(test_two_instances, &harness),
		harness_unit_test(test_msp_vehicles, &harness),
		harness_unit_test(test_peer_truth_trace, &harness),
		harness_unit_test(test_peer_step_profile, &harness),
	};
	return harness_run_tests(&harness, "barod-sitl", tests);
}
