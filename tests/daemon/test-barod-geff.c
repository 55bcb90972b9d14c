/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Ground effect (SIM_BARO_GEFF_M, ArduPilot master) through barod's real
 * interfaces: the height above ground at 0, 0.5, 1.999, 2 and 3 m and the
 * throttle at 0, 0.01 and 0.6, the throttle taken from what the autopilot
 * sends (SITL JSON servo packets, PX4's HIL_ACTUATOR_CONTROLS), the baro
 * read where the autopilot reads it (the JSON reply's rng_1, HIL_SENSOR).
 * Also the release setting and its refusals on each way in.
 *
 * The expected ground effect is the formula, written here apart
 * from sim/: GEFF_M * max(0, 1 - max(h_agl, 0) / 2) in float while GEFF_M
 * and the throttle are positive.  SITL's heights are whole centimetres of
 * location.alt (1.999 m is 1.99 m there), and its height above ground
 * starts at the first altitude above 0 m.
 */
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atmosphere.h"
#include "baro-sitl.h"
#include "control-client.h"
#include "mavlink.h"
#include "px4-peer.h"
#include "sitl-json.h"
#include "sitl-peer.h"
#include "test-files.h"
#include "test-util.h"
#include "truth-profile.h"

static char tmpdir[256];
static pid_t child;

#define GEFF_M 1.5f
#define HOME_M 584.0

static const double heights[] = { 0.0, 0.5, 1.999, 2.0, 3.0 };
static const float throttles[] = { 0.0f, 0.01f, 0.6f };
#define N_H (sizeof(heights) / sizeof(heights[0]))
#define N_T (sizeof(throttles) / sizeof(throttles[0]))

static void
path_in_tmp(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmpdir, name);
}

/* The formula, in float as ArduPilot (built with
 * -fsingle-precision-constant) computes it. */
static float
want_geff(float geff, float throttle, double height_agl)
{
	if (!(geff >= FLT_EPSILON && throttle >= FLT_EPSILON))
		return 0.0f;
	float h = (float)height_agl;
	if (h < 0.0f)
		h = 0.0f;
	float scale = 1.0f - h / 2.0f;
	if (scale < 0.0f)
		scale = 0.0f;
	return geff * scale;
}

/* barod with argv (NULL-terminated, argv[0] "barod"), stderr to a file. */
static void
start_argv(const char *const *argv)
{
	char log[512];

	path_in_tmp(log, sizeof(log), "barod.log");
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		dup2(fd, 1);
		execv(getenv("BAROD"), (char *const *)argv);
		_exit(127);
	}
}

static void
start(const char *conf)
{
	start_argv((const char *const[]){ "barod", "-c", conf, "-v", NULL });
	usleep(200000);
}

/* Wait for barod; its exit status and its output. */
static char *
finish(int *status)
{
	char log[512];
	int st;

	assert_int_equal(waitpid(child, &st, 0), child);
	child = 0;
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	path_in_tmp(log, sizeof(log), "barod.log");
	return read_file(log);
}

static char *
stop(void)
{
	int status;

	kill(child, SIGTERM);
	char *log = finish(&status);
	if (status != 0)
		fail_msg("barod exited %d:\n%s", status, log);
	return log;
}

/* One control socket command; the reply up to its "ok" or "error". */
static char *
control(const char *path, const char *cmd)
{
	static const struct control_wait w = { 200, 20000, true };
	static char reply[8192];

	return control_request(path, cmd, reply, sizeof(reply), &w);
}

/* ---- SITL JSON ------------------------------------------------------ */

static unsigned
free_udp_port(void)
{
	unsigned port;
	int fd = udp_loopback(&port, 0);

	close(fd);
	return port;
}

/* A servo packet whose four motors (outputs 1-4) run at throttle. */
static void
send_servo(int fd, unsigned port, uint32_t frame, float throttle)
{
	struct sitl_servo s = { .magic = SITL_SERVO_MAGIC_16,
				.frame_rate = 1000, .frame_count = frame,
				.channels = 16 };

	for (unsigned k = 0; k < 4; k++)
		s.pwm[k] = (uint16_t)lroundf(1000.0f + 1000.0f * throttle);
	for (unsigned k = 4; k < 16; k++)
		s.pwm[k] = 1500;	/* not motors: no say in the throttle */
	sitl_peer_send_servo(fd, port, &s);
}

/* ArduPilot's reading of a reply: the last complete line, accepted. */
static void
ap_read(const char *datagram, struct sitl_fdm *fdm)
{
	assert_true(sitl_json_ap_accepts(sitl_peer_ap_read(datagram, fdm)));
}

static void
write_sitl_conf(const char *path, const char *source, const char *release,
		unsigned port, const char *extra)
{
	char text[1024], sock[512];

	path_in_tmp(sock, sizeof(sock), "control");
	snprintf(text, sizeof(text),
		 "[barod]\nsource = %s\ncontrol = %s\n"
		 "[sim]\nardupilot = %s\nhome_alt = 584\n"
		 "SIM_BARO_RND = 0\nSIM_BARO_GEFF_M = %g\n%s"
		 "[sitl]\nbind = 127.0.0.1\nport = %u\nmotor_mask = 15\n"
		 "[output gcs]\ntype = udp-client\naddress = 127.0.0.1:9\n",
		 source, sock, release, (double)GEFF_M, extra, port);
	write_file(path, text);
}

/* The backend's line at time t with the vehicle h m above home. */
static int
backend_line(char *buf, size_t cap, double t, double h)
{
	return snprintf(buf, cap,
			"\n{\"timestamp\": %.6f, \"imu\": {\"gyro\": [0, 0, 0], "
			"\"accel_body\": [0, 0, -9.80665]}, \"position\": "
			"[0, 0, %.17g], \"attitude\": [0, 0, 0], \"velocity\": "
			"[0, 0, 0]}\n", t, -h);
}

/* What ArduPilot's SITL makes of that line: the baro's altitude and
 * location.alt's centimetres. */
static void
sitl_of_line(const char *line, float *alt, int32_t *alt_cm)
{
	struct sitl_fdm fdm;
	struct sitl_truth st = { { 0 }, 0 };

	memset(&fdm, 0, sizeof(fdm));
	assert_int_equal(sitl_json_parse(line, strlen(line), &fdm), 0);
	assert_int_equal(sitl_truth_update(&st, &fdm, HOME_M, alt), 0);
	*alt_cm = st.alt_cm;
}

/*
 * The proxy: the test is ArduPilot and the backend, so every height is
 * exact.  The first line is on the ground (584 m, SITL's first altitude
 * above 0); then each height with each throttle for 25 frames of 1 ms,
 * after which the reply's rng_1 (baro 0's height above home) is the
 * latest sample's: the truth lowered by the ground effect, or not.
 */
static void
proxy_vectors(const char *release, bool geff_acts)
{
	char conf[512], text[512], buf[8192];
	unsigned ap_port, up_port;
	int ap = udp_loopback(&ap_port, 0);
	int up = udp_loopback(&up_port, 0);
	unsigned port = free_udp_port();
	char extra[64];
	uint32_t frame = 1;
	double t = 1.0;
	unsigned checked = 0, lowered = 0;

	snprintf(extra, sizeof(extra), "[sitl]\nupstream = 127.0.0.1:%u\n",
		 up_port);
	path_in_tmp(conf, sizeof(conf), "proxy.conf");
	/* [sitl] twice: upstream first, the rest after. */
	write_sitl_conf(conf, "sitl-json-proxy", release, port, extra);
	start(conf);

	for (size_t v = 0; v <= N_H * N_T; v++) {
		/* v = 0: on the ground, motors off, to set SITL's ground */
		const double h = v ? heights[(v - 1) / N_T] : 0.0;
		const float thr = v ? throttles[(v - 1) % N_T] : 0.0f;
		float rng = NAN;
		for (int k = 0; k < 25; k++, t += 0.001) {
			struct sockaddr_in from;
			socklen_t flen = sizeof(from);
			uint8_t got[256];
			struct pollfd p = { up, POLLIN, 0 };
			struct sitl_fdm fdm;

			send_servo(ap, port, frame++, thr);
			assert_true(poll(&p, 1, 2000) > 0);
			assert_true(recvfrom(up, got, sizeof(got), 0,
					     (struct sockaddr *)&from,
					     &flen) > 0);
			int n = backend_line(text, sizeof(text), t, h);
			sendto(up, text, (size_t)n, 0,
			       (struct sockaddr *)&from, flen);
			assert_true(sitl_peer_receive(ap, buf, sizeof(buf), 2000) > 0);
			ap_read(buf, &fdm);
			rng = fdm.rng[0];
		}
		if (v == 0)
			continue;
		float alt;
		int32_t alt_cm;
		sitl_of_line(text + 1, &alt, &alt_cm);
		const double agl = baro_sitl_state_altitude(alt_cm) - 584.0;
		const float ge = geff_acts ? want_geff(GEFF_M, thr, agl) : 0.0f;
		const float want = (alt - ge) - (float)HOME_M;
		if (rng != want)
			fail_msg("%s: h %.3f m (h_agl %.17g) throttle %g: rng_1 "
				 "%.9g, want %.9g", release, h, agl,
				 (double)thr, (double)rng, (double)want);
		checked++;
		lowered += ge > 0.0f;
	}
	assert_int_equal(checked, N_H * N_T);
	/* 0, 0.5 and 1.99 m with either running throttle */
	assert_int_equal(lowered, geff_acts ? 6 : 0);

	/* baroctl status: what the vehicle's baro saw last. */
	char sock[512];
	path_in_tmp(sock, sizeof(sock), "control");
	const char *st = control(sock, "status\n");
	if (!strstr(st, "vehicle 0 throttle 0.600 h_agl 3.000 m"))
		fail_msg("status:\n%s", st);
	free(stop());
	close(ap);
	close(up);
}

static void
test_proxy_geff(void **state)
{
	(void)state;
	proxy_vectors("master", true);
}

/*
 * The peer: barod's own vehicle climbs from the ground (SITL's first
 * altitude) to the step profile's height and lands on it exactly; each
 * throttle then runs for 40 frames and rng_1 is checked against the
 * vehicle's height in the reply, as ArduPilot's SITL derives it.
 */
static void
test_peer_geff(void **state)
{
	(void)state;

	for (size_t i = 0; i < N_H; i++) {
		char conf[512], buf[8192], extra[64];
		unsigned ap_port;
		int ap = udp_loopback(&ap_port, 0);
		unsigned port = free_udp_port();
		uint32_t frame = 1;
		struct sitl_fdm fdm;

		snprintf(extra, sizeof(extra), "profile = step:0:%.17g:0.05\n",
			 heights[i]);
		path_in_tmp(conf, sizeof(conf), "peer.conf");
		write_sitl_conf(conf, "sitl-json", "master", port, extra);
		start(conf);
		/* 2 s of climbing at 2 g at most: there and at rest. */
		for (int k = 0; k < 2000; k++) {
			send_servo(ap, port, frame++, 0.0f);
			assert_true(sitl_peer_receive(ap, buf, sizeof(buf), 2000) > 0);
		}
		ap_read(buf, &fdm);
		if (!(fabs(-fdm.position[2] - heights[i]) < 1e-6))
			fail_msg("peer: at %.17g m, not %.17g m",
				 -fdm.position[2], heights[i]);
		assert_true(fdm.velocity[2] == 0.0f);
		for (size_t j = 0; j < N_T; j++) {
			for (int k = 0; k < 40; k++) {
				send_servo(ap, port, frame++, throttles[j]);
				assert_true(sitl_peer_receive(ap, buf, sizeof(buf),
						    2000) > 0);
			}
			ap_read(buf, &fdm);
			/* ArduPilot's own derivation of the altitude from
			 * the reply it got. */
			struct sitl_truth st = { { 0 }, 0 };
			float alt;
			fdm.mask &= ~SITL_KEY_BIT(SITL_KEY_RNG_1);
			assert_int_equal(sitl_truth_update(&st, &fdm, HOME_M,
							   &alt), 0);
			const double agl =
				baro_sitl_state_altitude(st.alt_cm) - 584.0;
			const float want =
				(alt - want_geff(GEFF_M, throttles[j], agl)) -
				(float)HOME_M;
			if (fdm.rng[0] != want)
				fail_msg("peer h %.3f m (h_agl %.17g) throttle "
					 "%g: rng_1 %.9g, want %.9g",
					 heights[i], agl, (double)throttles[j],
					 (double)fdm.rng[0], (double)want);
		}
		free(stop());
		close(ap);
	}
}

/*
 * A JSON copter whose motor mask is left at ArduPilot's default
 * (SIM_VIB_MOT_MASK 0): its throttle is 0 whatever the outputs, so the
 * ground effect never acts, as in ArduPilot; with 4.7 the parameter
 * does not exist and a positive value is refused.
 */
static void
test_default_mask_no_throttle(void **state)
{
	char conf[512], text[1024], sock[512], buf[8192];
	unsigned ap_port;
	int ap = udp_loopback(&ap_port, 0);
	unsigned port = free_udp_port();
	struct sitl_fdm fdm;
	(void)state;

	path_in_tmp(sock, sizeof(sock), "control");
	snprintf(text, sizeof(text),
		 "[barod]\nsource = sitl-json\ncontrol = %s\n"
		 "[sim]\nardupilot = master\nSIM_BARO_RND = 0\n"
		 "SIM_BARO_GEFF_M = 1.5\n"
		 "[sitl]\nbind = 127.0.0.1\nport = %u\n"
		 "[output gcs]\ntype = udp-client\naddress = 127.0.0.1:9\n",
		 sock, port);
	path_in_tmp(conf, sizeof(conf), "nomask.conf");
	write_file(conf, text);
	start(conf);
	for (uint32_t f = 1; f <= 100; f++) {
		send_servo(ap, port, f, 0.6f);
		assert_true(sitl_peer_receive(ap, buf, sizeof(buf), 2000) > 0);
	}
	ap_read(buf, &fdm);
	/* static:0: on the ground, rng_1 0 m: no ground effect */
	assert_float_exact(fdm.rng[0], 0.0f);
	const char *st = control(sock, "status\n");
	if (!strstr(st, "vehicle 0 throttle 0.000 h_agl 0.000 m"))
		fail_msg("status:\n%s", st);
	free(stop());

	/* A plane's throttle is channel 3's, mask or not. */
	snprintf(text, sizeof(text),
		 "[barod]\nsource = sitl-json\ncontrol = %s\n"
		 "[sim]\nardupilot = master\nSIM_BARO_RND = 0\n"
		 "SIM_BARO_GEFF_M = 1.5\n"
		 "[sitl]\nbind = 127.0.0.1\nport = %u\nvehicle = plane\n"
		 "[output gcs]\ntype = udp-client\naddress = 127.0.0.1:9\n",
		 sock, port);
	write_file(conf, text);
	start(conf);
	for (uint32_t f = 1; f <= 100; f++) {
		send_servo(ap, port, f, 0.6f);
		assert_true(sitl_peer_receive(ap, buf, sizeof(buf), 2000) > 0);
	}
	ap_read(buf, &fdm);
	/* on the ground, motors running: 1.5 m low */
	assert_float_exact(fdm.rng[0], (float)(584.0f - 1.5f) - 584.0f);
	st = control(sock, "status\n");
	if (!strstr(st, "vehicle 0 throttle 0.600 h_agl 0.000 m"))
		fail_msg("status:\n%s", st);
	free(stop());
	close(ap);
}

/* ---- PX4 SITL ------------------------------------------------------- */

#define STEP_US 4000u

static unsigned
free_tcp_port(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	close(fd);
	return ntohs(sa.sin_port);
}

static void
px4_connect(struct px4_peer *p, unsigned port)
{
	px4_peer_connect(p, port, 500);
}

/* PX4's reply to a step: armed, four motors at throttle. */
static void
px4_controls(struct px4_peer *p, uint64_t t_us, float throttle)
{
	px4_peer_controls(p->fd, &p->seq, t_us, 128 | 1, throttle);
}

/* Frames up to the next HIL_SENSOR id 0 (one physics step). */
static void
px4_step(struct px4_peer *p, struct mavlink_hil_sensor *h)
{
	struct mavlink_frame f;

	for (;;) {
		if (!px4_peer_next(p, &f, 5000))
			fail_msg("no HIL_SENSOR from barod");
		if (f.msgid != MAVLINK_MSG_HIL_SENSOR)
			continue;
		mavlink_unpack_hil_sensor(f.payload, h);
		if (h->id == 0)
			return;
	}
}

/* Frames until none comes for 300 ms; h is the last HIL_SENSOR id 0. */
static void
px4_drain(struct px4_peer *p, struct mavlink_hil_sensor *h)
{
	struct mavlink_frame f;
	struct mavlink_hil_sensor m;

	while (px4_peer_next(p, &f, 300)) {
		if (f.msgid != MAVLINK_MSG_HIL_SENSOR)
			continue;
		mavlink_unpack_hil_sensor(f.payload, &m);
		if (m.id == 0)
			*h = m;
	}
}

#define PX4_GEFF_M 100.0f

/*
 * The PX4 peer, one run per height (a static profile: the vehicle is
 * there from the first step, its ground is home, so h_agl is the height,
 * 1.999 m included): once in lockstep, each throttle for 150 steps, and
 * every baro the step that answers a reply carries is the truth lowered
 * by the ground effect of that reply's throttle (compared as altitudes
 * through the 1976 atmosphere, to 5 mm; GEFF_M 100 m makes 1.999 m's
 * effect 5 cm).
 */
static void
test_px4_geff(void **state)
{
	(void)state;

	for (size_t i = 0; i < N_H; i++) {
		char conf[512], text[1024], sock[512];
		unsigned port = free_tcp_port();
		struct px4_peer p;
		struct mavlink_hil_sensor h;
		unsigned compared = 0, lowered = 0;

		path_in_tmp(sock, sizeof(sock), "control");
		snprintf(text, sizeof(text),
			 "[barod]\nsource = px4-sim\ncontrol = %s\n"
			 "[sim]\nprofile = static:%.17g\nhome_alt = 488\n"
			 "ardupilot = master\nSIM_BARO_RND = 0\n"
			 "SIM_BARO_GEFF_M = %g\n"
			 "[px4]\nbind = 127.0.0.1\nport = %u\n"
			 "[output gcs]\ntype = udp-client\n"
			 "address = 127.0.0.1:9\n",
			 sock, heights[i], (double)PX4_GEFF_M, port);
		path_in_tmp(conf, sizeof(conf), "px4.conf");
		write_file(conf, text);
		start_argv((const char *const[]){ "barod", "-c", conf, "-v",
						  NULL });
		float alt_amsl;
		assert_int_equal(baro_sitl_altitude(488.0, heights[i],
						    &alt_amsl), 0);

		px4_connect(&p, port);
		px4_step(&p, &h);		/* freewheeling */
		px4_controls(&p, h.time_usec, 0.0f);
		px4_drain(&p, &h);		/* lockstep from here */
		for (size_t j = 0; j < N_T; j++) {
			const float thr = throttles[j];
			for (unsigned k = 0; k < 150; k++) {
				px4_controls(&p, h.time_usec, thr);
				px4_step(&p, &h);
				if (!(h.fields_updated & HIL_SENSOR_BARO))
					continue;
				float a = NAN;
				(void)atmos_1976_altitude(
					h.abs_pressure * 100.0f, &a);
				const float ge = want_geff(PX4_GEFF_M, thr,
							   heights[i]);
				if (!(fabsf((alt_amsl - ge) - a) <= 0.005f))
					fail_msg("px4 h %.3f m throttle %g: "
						 "baro at %.4f m, want %.4f m",
						 heights[i], (double)thr,
						 (double)a,
						 (double)(alt_amsl - ge));
				compared++;
				lowered += ge > 0.0f;
			}
		}
		/* a sample every third 4 ms step */
		if (compared < 3 * 45)
			fail_msg("px4 h %.3f m: %u baros compared", heights[i],
				 compared);
		if (i >= 3 ? lowered != 0 : lowered < 2 * 45)
			fail_msg("px4 h %.3f m: %u of %u lowered", heights[i],
				 lowered, compared);
		char want[96];
		snprintf(want, sizeof(want), "vehicle 0 throttle 0.600 h_agl "
			 "%.3f m", heights[i]);
		const char *st = control(sock, "status\n");
		if (!strstr(st, want))
			fail_msg("no '%s' in status:\n%s", want, st);
		px4_peer_close(&p);
		free(stop());
	}
}

/* A listener the proxy connects to as PX4's simulator. */
static int
tcp_listener(unsigned *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 4), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	*port = ntohs(sa.sin_port);
	return fd;
}

static void
recv_exact(int fd, uint8_t *b, size_t n)
{
	while (n) {
		struct pollfd pf = { fd, POLLIN, 0 };
		if (poll(&pf, 1, 5000) <= 0)
			fail_msg("%zu bytes missing", n);
		ssize_t k = recv(fd, b, n, 0);
		assert_true(k > 0);
		b += k;
		n -= (size_t)k;
	}
}

/*
 * The PX4 proxy: the test is PX4 (HIL_ACTUATOR_CONTROLS through barod)
 * and its simulator (HIL_SENSOR with the pressure of 488 m + h).  barod's
 * truth is the altitude of that pressure in the 1976 atmosphere, its
 * ground the first one (SITL's rule), computed here the same way; the
 * baro PX4 gets must be that altitude lowered by the ground effect of the
 * throttle PX4 last sent (to 5 mm through the pressure; GEFF_M 100 m).
 */
static void
test_px4_proxy_geff(void **state)
{
	char conf[512], text[1024];
	unsigned sim_port, px4_port = free_tcp_port();
	int lfd = tcp_listener(&sim_port);
	struct px4_peer p;
	struct mavlink_hil_sensor h;
	uint8_t pl[MAVLINK_MAX_PAYLOAD], f[MAVLINK_MAX_FRAME];
	uint8_t seq = 0;
	(void)state;

	snprintf(text, sizeof(text),
		 "[barod]\nsource = px4-sim-proxy\ncontrol = none\n"
		 "[sim]\nardupilot = master\nSIM_BARO_RND = 0\n"
		 "SIM_BARO_GEFF_M = %g\n"
		 "[px4]\nbind = 127.0.0.1\nport = %u\n"
		 "upstream = 127.0.0.1:%u\n"
		 "[output gcs]\ntype = udp-client\naddress = 127.0.0.1:9\n",
		 (double)PX4_GEFF_M, px4_port, sim_port);
	path_in_tmp(conf, sizeof(conf), "px4proxy.conf");
	write_file(conf, text);
	start_argv((const char *const[]){ "barod", "-c", conf, "-v", NULL });
	px4_connect(&p, px4_port);
	struct pollfd pf = { lfd, POLLIN, 0 };
	assert_true(poll(&pf, 1, 5000) > 0);
	int sim = accept(lfd, NULL, NULL);
	assert_true(sim >= 0);

	float ground = NAN;
	unsigned step = 0, checked = 0, lowered = 0;
	for (size_t v = 0; v <= N_H * N_T; v++) {
		const double hgt = v ? heights[(v - 1) / N_T] : 0.0;
		const float thr = v ? throttles[(v - 1) % N_T] : 0.0f;
		float sent_p, truth = NAN, t_c;
		atmos_1976_pressure_temperature((float)(488.0 + hgt), &sent_p,
						&t_c);
		sent_p *= 0.01f;	/* hPa, as on the wire */
		for (int k = 0; k < 25; k++, step++) {
			/* PX4's reply, through barod to the simulator */
			memset(pl, 0, sizeof(pl));
			struct mavlink_hil_actuator_controls a = {
				.time_usec = (uint64_t)step * STEP_US,
				.flags = HIL_ACTUATOR_CONTROLS_FLAGS_LOCKSTEP,
				.mode = 128 | 1,
			};
			for (int c = 0; c < 4; c++)
				a.controls[c] = thr;
			mavlink_pack_hil_actuator_controls(&a, pl);
			int n = mavlink_frame_encode(
				f, 2, p.seq++, 1, 1,
				MAVLINK_MSG_HIL_ACTUATOR_CONTROLS, pl);
			assert_int_equal(send(p.fd, f, (size_t)n, MSG_NOSIGNAL),
					 n);
			uint8_t got[MAVLINK_MAX_FRAME];
			recv_exact(sim, got, (size_t)n);
			assert_memory_equal(got, f, (size_t)n);

			/* The simulator's step */
			struct mavlink_hil_sensor m = {
				.time_usec = 1000000u + (uint64_t)step * STEP_US,
				.zacc = -9.80665f,
				.abs_pressure = sent_p,
				.temperature = 15.0f,
				.fields_updated = 0x1FF | 0x1A00,
			};
			(void)atmos_1976_altitude(sent_p * 100.0f, &truth);
			m.pressure_alt = truth;
			memset(pl, 0, sizeof(pl));
			mavlink_pack_hil_sensor(&m, pl);
			n = mavlink_frame_encode(f, 2, seq++, 1, 200,
						 MAVLINK_MSG_HIL_SENSOR, pl);
			assert_int_equal(send(sim, f, (size_t)n, MSG_NOSIGNAL),
					 n);
			px4_step(&p, &h);
		}
		if (isnan(ground))
			ground = truth;	/* above 0 m: SITL's ground */
		if (v == 0)
			continue;
		const double agl = (double)truth - (double)ground;
		const float ge = want_geff(PX4_GEFF_M, thr, agl);
		float got_alt = NAN;
		(void)atmos_1976_altitude(h.abs_pressure * 100.0f, &got_alt);
		if (!(fabsf(got_alt - (truth - ge)) <= 0.005f) ||
		    !(fabsf(h.pressure_alt - (truth - ge)) <= 0.005f))
			fail_msg("px4 proxy h %.3f m (h_agl %.6f) throttle %g: "
				 "baro at %.4f m (pressure_alt %.4f), want "
				 "%.4f m", hgt, agl, (double)thr,
				 (double)got_alt, (double)h.pressure_alt,
				 (double)(truth - ge));
		checked++;
		lowered += ge > 0.0f;
	}
	assert_int_equal(checked, N_H * N_T);
	/* 0, 0.5 and 1.999 m with either running throttle; 2 m too when
	 * the pressure's altitude comes back a hair under it */
	assert_true(lowered >= 6 && lowered <= 8);
	px4_peer_close(&p);
	close(sim);
	close(lfd);
	free(stop());
}

/* ---- the release and its refusals ---------------------------------- */

static char *
run_barod(const char *const *argv, int *status)
{
	start_argv(argv);
	return finish(status);
}

static void
test_release_refusals(void **state)
{
	char conf[512], scn[512], sock[512], text[600];
	int status;
	char *out;
	(void)state;

	/* -p: the default release (4.7) has no ground effect. */
	out = run_barod((const char *const[]){ "barod", "--sim", "--control",
					       "none", "-p",
					       "SIM_BAR2_GEFF_M=1",
					       "--check-config", NULL },
			&status);
	if (status == 0 || !strstr(out, "SIM_BAR2_GEFF_M") ||
	    !strstr(out, "ArduPilot 4.7"))
		fail_msg("status %d:\n%s", status, out);
	free(out);
	/* The file, naming the release it has. */
	path_in_tmp(conf, sizeof(conf), "r.conf");
	write_file(conf, "[barod]\nsource = sitl-json\n[sim]\n"
			 "ardupilot = 4.6\nSIM_BARO_GEFF_M = 0.5\n");
	out = run_barod((const char *const[]){ "barod", "-c", conf,
					       "--check-config", NULL },
			&status);
	if (status == 0 || !strstr(out, "SIM_BARO_GEFF_M") ||
	    !strstr(out, "ArduPilot 4.6"))
		fail_msg("status %d:\n%s", status, out);
	free(out);
	/* Off (0 or negative) is no refusal; master takes it; the
	 * atmosphere follows the release unless given. */
	out = run_barod((const char *const[]){ "barod", "--sim", "-p",
					       "SIM_BARO_GEFF_M=-1",
					       "--ardupilot", "4.5",
					       "--check-config", NULL },
			&status);
	if (status != 0 || !strstr(out, "ardupilot = 4.5") ||
	    !strstr(out, "atmosphere = simple"))
		fail_msg("status %d:\n%s", status, out);
	free(out);
	out = run_barod((const char *const[]){ "barod", "--sim", "-p",
					       "SIM_BARO_GEFF_M=1",
					       "--ardupilot", "master",
					       "--atmosphere", "water",
					       "--check-config", NULL },
			&status);
	if (status != 0 || !strstr(out, "ardupilot = master") ||
	    !strstr(out, "atmosphere = water") ||
	    !strstr(out, "SIM_BARO_GEFF_M = 1"))
		fail_msg("status %d:\n%s", status, out);
	free(out);
	out = run_barod((const char *const[]){ "barod", "--sim",
					       "--ardupilot", "4.8",
					       "--check-config", NULL },
			&status);
	if (status == 0 || !strstr(out, "--ardupilot"))
		fail_msg("status %d:\n%s", status, out);
	free(out);
	/* The default: 4.7, the 1976 atmosphere. */
	out = run_barod((const char *const[]){ "barod", "--sim",
					       "--check-config", NULL },
			&status);
	if (status != 0 || !strstr(out, "ardupilot = 4.7") ||
	    !strstr(out, "atmosphere = 1976"))
		fail_msg("status %d:\n%s", status, out);
	free(out);

	/* A scenario setting or ramping GEFF under 4.7: FILE:LINE. */
	path_in_tmp(scn, sizeof(scn), "geff.scn");
	write_file(scn, "at 1s set SIM_BARO_RND 0.1\n"
			"at 2s ramp SIM_BARO_GEFF_M 0 to 1 over 1s\n");
	out = run_barod((const char *const[]){ "barod", "--sim", "--control",
					       "none", "--scenario", scn,
					       "--duration", "1", NULL },
			&status);
	snprintf(text, sizeof(text), "%s:2: SIM_BARO_GEFF_M", scn);
	if (status == 0 || !strstr(out, text))
		fail_msg("status %d:\n%s", status, out);
	free(out);

	/* baroctl set under 4.7 is refused, under master taken; status
	 * shows the --sim throttle. */
	path_in_tmp(sock, sizeof(sock), "control");
	start_argv((const char *const[]){ "barod", "--sim", "--control", sock,
					  "--throttle", "0.25", "-v", NULL });
	const char *r = control(sock, "set SIM_BARO_GEFF_M 1\n");
	if (!strstr(r, "error SIM_BARO_GEFF_M: ArduPilot 4.7"))
		fail_msg("set under 4.7: %s", r);
	r = control(sock, "set SIM_BARO_GEFF_M 0\n");
	if (!strstr(r, "ok"))
		fail_msg("set 0 under 4.7: %s", r);
	usleep(100000);
	r = control(sock, "status\n");
	if (!strstr(r, "vehicle 0 throttle 0.250 h_agl 1.000 m"))
		fail_msg("status:\n%s", r);
	free(stop());
	start_argv((const char *const[]){ "barod", "--sim", "--control", sock,
					  "--ardupilot", "master", "-v",
					  NULL });
	r = control(sock, "set SIM_BARO_GEFF_M 1\n");
	if (!strstr(r, "ok SIM_BARO_GEFF_M 0 -> 1"))
		fail_msg("set under master: %s", r);
	free(stop());
}

/*
 * --sim under master with a take-off profile: the baro reads low by the
 * ground effect while the motors run near the ground, and true on the
 * ground with them off and high up (the record file is the samples).
 */
static void
test_sim_takeoff(void **state)
{
	char rec[512];
	(void)state;

	path_in_tmp(rec, sizeof(rec), "takeoff.csv");
	int status;
	char *out = run_barod(
		(const char *const[]){ "barod", "--sim", "--control", "none",
				       "--ardupilot", "master", "-p",
				       "SIM_BARO_RND=0", "-p",
				       "SIM_BARO_GEFF_M=2", "--profile",
				       "takeoff:10:2:1:0.6", "--home-alt",
				       "100", "--record", rec, "--duration",
				       "13", NULL },
		&status);
	if (status != 0)
		fail_msg("status %d:\n%s", status, out);
	free(out);
	char *csv = read_file(rec);
	struct truth_profile prof;
	char err[128];
	assert_int_equal(truth_profile_parse("takeoff:10:2:1:0.6", &prof, err,
					     sizeof(err)), 0);
	unsigned rows = 0, low = 0;
	for (char *line = strchr(csv, '\n'); line && line[1];
	     line = strchr(line + 1, '\n')) {
		unsigned long long t_ms;
		int inst;
		float pa, tc, alt;
		if (sscanf(line + 1, "%llu,%d,%f,%f,%f", &t_ms, &inst, &alt, &pa,
			   &tc) != 5 || inst != 0)
			continue;
		const double t = (double)t_ms * 1e-3;
		const double hgt = truth_profile_height(&prof, t);
		const float thr = (float)truth_profile_throttle(&prof, t);
		/* home is 100 m: SITL's ground, h_agl the height */
		int32_t cm;
		assert_int_equal(baro_sitl_altitude_cm(100.0, hgt, &cm), 0);
		const float truth = baro_sitl_alt_from_cm(cm);
		const float want =
			truth - want_geff(2.0f, thr,
					  baro_sitl_state_altitude(cm) - 100.0);
		if (alt != want)
			fail_msg("t %.3f s: baro %.9g m, want %.9g m", t,
				 (double)alt, (double)want);
		rows++;
		low += want < truth;
	}
	assert_true(rows > 1200);
	assert_true(low > 100);
	free(csv);
}

/* SIGHUP with another release: taken, unless a live value (one baroctl
 * set) is a parameter that release does not have. */
static void
test_reload_release(void **state)
{
	char conf[512], sock[512], text[700], log[512];
	(void)state;

	path_in_tmp(sock, sizeof(sock), "control");
	path_in_tmp(conf, sizeof(conf), "reload.conf");
	path_in_tmp(log, sizeof(log), "barod.log");
	const char *fmt = "[barod]\nsource = sim\ncontrol = %s\n"
			  "[sim]\nardupilot = %s\n";
	snprintf(text, sizeof(text), fmt, sock, "4.7");
	write_file(conf, text);
	start(conf);
	const char *r = control(sock, "set SIM_BARO_GEFF_M 1\n");
	if (!strstr(r, "error SIM_BARO_GEFF_M: ArduPilot 4.7"))
		fail_msg("set under 4.7: %s", r);

	snprintf(text, sizeof(text), fmt, sock, "master");
	write_file(conf, text);
	kill(child, SIGHUP);
	char *l = NULL;
	for (int i = 0; i < 100; i++) {
		usleep(20000);
		free(l);
		l = read_file(log);
		if (strstr(l, "configuration reloaded"))
			break;
	}
	if (!strstr(l, "reload: ArduPilot 4.7 -> master"))
		fail_msg("log:\n%s", l);
	free(l);
	r = control(sock, "set SIM_BARO_GEFF_M 1\n");
	if (!strstr(r, "ok SIM_BARO_GEFF_M 0 -> 1"))
		fail_msg("set under master: %s", r);

	/* Back to 4.6 with GEFF_M live at 1: kept at master, said why. */
	snprintf(text, sizeof(text), fmt, sock, "4.6");
	write_file(conf, text);
	kill(child, SIGHUP);
	l = NULL;
	for (int i = 0; i < 100; i++) {
		usleep(20000);
		free(l);
		l = read_file(log);
		char *first = strstr(l, "configuration reloaded");
		if (first && strstr(first + 1, "configuration reloaded"))
			break;
	}
	if (!strstr(l, "reload: SIM_BARO_GEFF_M: ArduPilot 4.6 has no "
		       "ground-effect model") ||
	    !strstr(l, "(live value); still ArduPilot master"))
		fail_msg("log:\n%s", l);
	free(l);
	r = control(sock, "set SIM_BARO_GEFF_M 2\n");
	if (!strstr(r, "ok SIM_BARO_GEFF_M 1 -> 2"))
		fail_msg("set still under master: %s", r);
	free(stop());
}

/* ---- PARAM_SET / PARAM_VALUE ----------------------------------------- */

struct gcs_seen {
	unsigned values, texts, pressures;
	struct mavlink_param_value pv;
	char text[64];
	float press_abs;
};

static void
on_gcs(const struct mavlink_frame *f, void *user)
{
	struct gcs_seen *g = user;
	union mavlink_msg m;

	if (mavlink_unpack_msg(f->msgid, f->payload, &m) < 0)
		return;
	if (f->msgid == MAVLINK_MSG_PARAM_VALUE) {
		g->pv = m.pv;
		g->values++;
	} else if (f->msgid == MAVLINK_MSG_STATUSTEXT) {
		snprintf(g->text, sizeof(g->text), "%.50s", m.st.text);
		g->texts++;
	} else if (f->msgid == MAVLINK_MSG_SCALED_PRESSURE) {
		g->press_abs = m.sp.press_abs;
		g->pressures++;
	}
}

static void
gcs_read(int fd, struct gcs_seen *g, int ms)
{
	struct mavlink_parser mp;
	uint8_t d[4096];

	mavlink_parser_init(&mp);
	for (int waited = 0; waited < ms; waited += 10) {
		struct pollfd pf = { fd, POLLIN, 0 };
		if (poll(&pf, 1, 10) <= 0)
			continue;
		ssize_t n = recv(fd, d, sizeof(d), 0);
		if (n > 0) {
			mavlink_parser_feed(&mp, d, (size_t)n, on_gcs, g);
			mavlink_parser_flush(&mp);
		}
	}
}

static void
gcs_send(int fd, unsigned port, uint32_t msgid, const uint8_t *pl)
{
	uint8_t frame[MAVLINK_MAX_FRAME];
	static uint8_t seq;
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int n = mavlink_frame_encode(frame, 2, seq++, 255, 190, msgid, pl);

	assert_true(n > 0);
	assert_int_equal(sendto(fd, frame, (size_t)n, 0,
				(struct sockaddr *)&sa, sizeof(sa)), n);
}

/* A GCS sets SIM_BARO_GEFF_M: refused under 4.7 (the value held comes
 * back, and a STATUSTEXT), taken under master, where with --throttle on
 * the ground (SITL's h_agl 1 m at sea level) press_abs rises by the
 * 0.25 m it takes off; PARAM_VALUE names the new parameters and counts
 * the table. */
static void
param_set_under(const char *release)
{
	unsigned port, myport;
	char out[64];
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
	struct gcs_seen g = { 0 };
	const bool master = strcmp(release, "master") == 0;

	int probe = udp_loopback(&port, 0);
	close(probe);
	snprintf(out, sizeof(out), "udp-server:127.0.0.1:%u", port);
	start_argv((const char *const[]){ "barod", "--sim", "--control",
					  "none", "-o", out, "-p",
					  "SIM_BARO_RND=0", "--throttle", "0.5",
					  "--ardupilot", release, "-v", NULL });
	int fd = udp_loopback(&myport, 0);
	struct mavlink_heartbeat hb = { .type = 6, .autopilot = 8,
					.mavlink_version = 3 };
	mavlink_pack_heartbeat(&hb, pl);
	for (int i = 0; i < 100 && g.pressures < 5; i++) {
		gcs_send(fd, port, MAVLINK_MSG_HEARTBEAT, pl);
		gcs_read(fd, &g, 100);
	}
	assert_true(g.pressures >= 5);
	const float before = g.press_abs;

	struct mavlink_param_request_read rr = { .param_index = -1,
						 .target_system = 1,
						 .target_component = 191,
						 .param_id = "SIM_BAR3_GEFF_M" };
	memset(pl, 0, sizeof(pl));
	mavlink_pack_param_request_read(&rr, pl);
	g.values = 0;
	gcs_send(fd, port, MAVLINK_MSG_PARAM_REQUEST_READ, pl);
	for (int i = 0; i < 30 && !g.values; i++)
		gcs_read(fd, &g, 100);
	assert_int_equal(g.values, 1);
	assert_string_equal(g.pv.param_id, "SIM_BAR3_GEFF_M");
	assert_int_equal(g.pv.param_count, sim_param_count());
	assert_float_exact(g.pv.param_value, 0.0f);

	struct mavlink_param_set ps = { .param_value = 0.5f,
					.target_system = 1,
					.target_component = 191,
					.param_id = "SIM_BARO_GEFF_M",
					.param_type = 9 };
	memset(pl, 0, sizeof(pl));
	mavlink_pack_param_set(&ps, pl);
	g.values = g.texts = 0;
	gcs_send(fd, port, MAVLINK_MSG_PARAM_SET, pl);
	for (int i = 0; i < 30 && !g.values; i++)
		gcs_read(fd, &g, 100);
	assert_int_equal(g.values, 1);
	assert_string_equal(g.pv.param_id, "SIM_BARO_GEFF_M");
	assert_float_exact(g.pv.param_value, master ? 0.5f : 0.0f);
	gcs_read(fd, &g, 300);
	if (master) {
		/* 0.5 x (1 - 1 m / 2 m) = 0.25 m lower near sea level:
		 * about 3 Pa more */
		if (!(g.press_abs - before > 0.027f &&
		      g.press_abs - before < 0.033f))
			fail_msg("press_abs %.4f hPa after %.4f",
				 (double)g.press_abs, (double)before);
	} else {
		assert_non_null(strstr(g.text, "SIM_BARO_GEFF_M 0.5 refused"));
		assert_float_exact(g.press_abs, before);
	}
	close(fd);
	char *log = stop();
	if (!master && !strstr(log, "PARAM_SET refused: SIM_BARO_GEFF_M: "
				   "ArduPilot 4.7"))
		fail_msg("log:\n%s", log);
	free(log);
}

static void
test_param_set(void **state)
{
	(void)state;
	param_set_under("4.7");
	param_set_under("master");
}

static int
kill_child(void **state)
{
	(void)state;
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		child = 0;
	}
	return 0;
}

static int
setup(void **state)
{
	(void)state;
	temp_dir_make(tmpdir, sizeof(tmpdir), "barod-geff");
	return 0;
}

static int
teardown(void **state)
{
	kill_child(state);
	return temp_dir_remove(tmpdir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_proxy_geff, kill_child),
		cmocka_unit_test_teardown(test_peer_geff, kill_child),
		cmocka_unit_test_teardown(test_default_mask_no_throttle,
					  kill_child),
		cmocka_unit_test_teardown(test_px4_geff, kill_child),
		cmocka_unit_test_teardown(test_px4_proxy_geff, kill_child),
		cmocka_unit_test_teardown(test_release_refusals, kill_child),
		cmocka_unit_test_teardown(test_sim_takeoff, kill_child),
		cmocka_unit_test_teardown(test_param_set, kill_child),
		cmocka_unit_test_teardown(test_reload_release, kill_child),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
