/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * barod as PX4 SITL's simulator, with this test playing PX4 through
 * barod's real TCP socket: it connects to 4560 + N as PX4's
 * simulator_mavlink does, asks for ground truth at 200 Hz, replies to
 * each HIL_SENSOR with HIL_ACTUATOR_CONTROLS and checks the lockstep,
 * the fields_updated bits, the baro fields against the AP_Baro_SITL
 * emulator run here on the same physics time, a glitch scenario at its
 * scheduled time, disconnects, restarts, a second PX4 taking over, and
 * malformed frames.  Every byte barod sent is decoded again by
 * node-mavlink (tests/harness/node-mavlink).
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

#include "atmosphere.h"
#include "baro-sitl.h"
#include "harness-cmocka.h"
#include "mavlink.h"
#include "px4-peer.h"
#include "test-files.h"
#include "test-util.h"

#define STEP_US 4000u

static struct harness harness;
static pid_t child;

static void
path_in_tmp(char *buf, size_t len, const char *name)
{
	harness_path(&harness, buf, len, name);
}

/* A TCP port that was free a moment ago, for barod to listen on. */
static unsigned
free_tcp_port(void)
{
	return harness_free_port(&harness, SOCK_STREAM, false);
}

/* barod -c conf -v [--scenario FILE] [OPTION VALUE]; back once it runs. */
static void
start_with(const char *conf, const char *scenario, const char *opt,
	   const char *val)
{
	const char *argv[10];
	int n = 0;

	argv[n++] = "-c";
	argv[n++] = conf;
	argv[n++] = "-v";
	if (scenario) {
		argv[n++] = "--scenario";
		argv[n++] = scenario;
	}
	if (opt) {
		argv[n++] = opt;
		argv[n++] = val;
	}
	argv[n] = NULL;
	child = harness_start(&harness, "barod.log", argv);
}

static void
start(const char *conf, const char *scenario)
{
	start_with(conf, scenario, NULL, NULL);
}

static char *
barod_log(void)
{
	return harness_log(&harness, child);
}

/* Wait until barod's log holds text n times. */
static void
wait_log(const char *text, int n)
{
	harness_wait_log(&harness, child, text, n);
}

static char *
stop(void)
{
	assert_int_equal(harness_stop(&harness, child, NULL), 0);
	return barod_log();
}

/* ---- the PX4 side --------------------------------------------------- */

/* PX4's simulator_mavlink: connect, retrying, as it does at start-up. */
static void
px4_connect(struct px4_peer *p, unsigned port)
{
	px4_peer_connect(p, port, 1000);
}

static void
px4_write(struct px4_peer *p, const void *buf, size_t len)
{
	assert_int_equal(send(p->fd, buf, len, MSG_NOSIGNAL), (ssize_t)len);
}

static size_t
px4_frame(struct px4_peer *p, uint8_t *out, uint32_t msgid, const uint8_t *pl)
{
	int n = mavlink_frame_encode(out, 2, p->seq++, 1, 1, msgid, pl);

	assert_true(n > 0);
	return (size_t)n;
}

/* What PX4 sends after each step: its outputs, lockstep flag, mode. */
static void
px4_controls(struct px4_peer *p, uint64_t px4_time_us)
{
	px4_peer_controls(p->fd, &p->seq, px4_time_us, 1, 0.0f);
}

/* ---- what barod sent, checked as it arrives ------------------------- */

#define MAX_STEPS 4096

struct seen {
	uint64_t steps;			/* HIL_SENSOR id 0 */
	uint64_t last_time;
	uint64_t baro1;			/* HIL_SENSOR id 1 */
	uint64_t gps, state, heartbeats, other;
	struct mavlink_hil_gps last_gps;
	double max_dz;			/* |zacc + g| seen */
	float p0[MAX_STEPS];		/* baro 0 hPa by step, NAN: none */
	/* Expected baro: the emulator here on the same physics time,
	 * clean (the scenario's glitch is checked as a difference). */
	struct baro_sitl *emu;
	float truth_alt;
	bool glitch;			/* the scenario: 5 m on baro 0 */
	struct baro_sample want1;	/* baro 1 of the current step */
	bool have1;
	unsigned glitched, clean;
};

static bool
all_finite(const float *v, int n)
{
	for (int i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			return false;
	}
	return true;
}

static bool
in_glitch(uint64_t t_us)
{
	return t_us >= 500000 && t_us < 700000;
}

static void
check_baro(struct seen *s, const struct mavlink_hil_sensor *h,
	   const struct baro_sample *want, uint64_t t_us)
{
	float alt = NAN;

	(void)atmos_1976_altitude(want->pressure_pa, &alt);
	assert_float_exact(h->abs_pressure, want->pressure_pa * 0.01f);
	assert_float_exact(h->pressure_alt, alt);
	assert_float_exact(h->temperature, want->temperature_c);
	if (h->id == 0 && s->glitch && in_glitch(t_us))
		s->glitched++;
	else
		s->clean++;
}

static void
on_sensor(struct seen *s, const struct mavlink_hil_sensor *h)
{
	assert_true(all_finite(&h->xacc, 13));
	if (h->id == 1) {
		/* baro 1 alone, after its step's id 0 frame */
		assert_int_equal(h->fields_updated, HIL_SENSOR_BARO);
		assert_int_equal(h->time_usec, s->last_time);
		if (s->emu) {
			assert_true(s->have1);
			check_baro(s, h, &s->want1, h->time_usec - STEP_US);
			s->have1 = false;
		}
		s->baro1++;
		return;
	}
	assert_int_equal(h->id, 0);
	/* Physics time: one step more than the last, from 4000 us. */
	assert_int_equal(h->time_usec, s->last_time + STEP_US);
	s->last_time = h->time_usec;
	const uint64_t k = s->steps++;
	const uint64_t t_us = h->time_usec - STEP_US;
	s->max_dz = fmax(s->max_dz, fabs((double)h->zacc + ATMOS_GRAVITY_MSS));
	const uint32_t imu = HIL_SENSOR_ACCEL | HIL_SENSOR_GYRO |
			     HIL_SENSOR_MAG;
	const bool baro = h->fields_updated & HIL_SENSOR_BARO;
	assert_true(h->fields_updated == imu ||
		    h->fields_updated == (imu | HIL_SENSOR_BARO));
	if (k < MAX_STEPS)
		s->p0[k] = baro ? h->abs_pressure : NAN;
	if (!s->emu)
		return;

	struct baro_sample out[BARO_MAX_INSTANCES];
	struct baro_sitl_truth truth = { .alt_amsl_m = s->truth_alt };
	/* The scenario's glitch, at its physics time, in the emulator
	 * here too: 5 m is about 0.56 hPa, so a glitch a step early or
	 * late, or on the wrong baro, fails the comparison. */
	s->emu->params.baro[0].glitch = s->glitch && in_glitch(t_us) ? 5.0f
								      : 0.0f;
	unsigned n = baro_sitl_update(s->emu, (uint32_t)(t_us / 1000u),
				      &truth, out);
	s->have1 = false;
	bool has0 = false;
	for (unsigned j = 0; j < n; j++) {
		if (out[j].instance == 0) {
			has0 = true;
			check_baro(s, h, &out[j], t_us);
		} else if (out[j].instance == 1) {
			s->want1 = out[j];
			s->have1 = true;
		}
	}
	/* Baro bits exactly when the emulator made a sample. */
	assert_int_equal(baro, has0);
}

/* Handle one frame; true for a HIL_SENSOR id 0 (a step). */
static bool
on_frame(struct seen *s, const struct mavlink_frame *f)
{
	union mavlink_msg m;

	assert_int_equal(f->version, 2);
	if (mavlink_unpack_msg(f->msgid, f->payload, &m) < 0) {
		s->other++;
		return false;
	}
	switch (f->msgid) {
	case MAVLINK_MSG_HIL_SENSOR:
		on_sensor(s, &m.hil);
		return m.hil.id == 0;
	case MAVLINK_MSG_HIL_GPS:
		assert_int_equal(m.gps.time_usec, s->last_time);
		assert_int_equal(m.gps.fix_type, 3);
		assert_true(m.gps.satellites_visible >= 6);
		assert_true(m.gps.eph <= 300 && m.gps.epv <= 500);
		s->last_gps = m.gps;
		s->gps++;
		return false;
	case MAVLINK_MSG_HIL_STATE_QUATERNION:
		assert_int_equal(m.hsq.time_usec, s->last_time);
		assert_true(all_finite(m.hsq.attitude_quaternion, 4));
		assert_float_exact(m.hsq.attitude_quaternion[0], 1.0f);
		s->state++;
		return false;
	case MAVLINK_MSG_HEARTBEAT:
		s->heartbeats++;
		return false;
	default:
		s->other++;
		return false;
	}
}

/* Read frames until none comes for quiet_ms; the steps seen. */
static uint64_t
drain(struct px4_peer *p, struct seen *s, int quiet_ms)
{
	struct mavlink_frame f;
	uint64_t steps = 0;

	while (px4_peer_next(p, &f, quiet_ms))
		steps += on_frame(s, &f);
	return steps;
}

/* Reply and wait for exactly the one step that answers it. */
static void
lockstep(struct px4_peer *p, struct seen *s)
{
	struct mavlink_frame f;
	const uint64_t before = s->steps;

	px4_controls(p, s->last_time - STEP_US);
	while (s->steps == before) {
		if (!px4_peer_next(p, &f, 5000))
			fail_msg("no step after PX4's reply (step %llu)",
				 (unsigned long long)before);
		on_frame(s, &f);
	}
}

/* PX4's first reply: barod logs that lockstep starts (the nth time
 * in its log), sends the step that answers it, and from then on only
 * steps per reply; what it freewheeled before comes first.  Returns the
 * steps drained. */
static uint64_t
engage(struct px4_peer *p, struct seen *s, int nth)
{
	px4_controls(p, 0);
	wait_log("lockstep from step", nth);
	return drain(p, s, 300);
}

/* The first HIL_SENSOR after connecting (freewheeling). */
static void
first_step(struct px4_peer *p, struct seen *s)
{
	struct mavlink_frame f;

	while (s->steps == 0) {
		if (!px4_peer_next(p, &f, 5000))
			fail_msg("no HIL_SENSOR from barod");
		on_frame(s, &f);
	}
}

/* ---- node-mavlink reads the same bytes ------------------------------ */

static void
node_check(const struct px4_peer *p, const struct seen *s)
{
	if (harness_node_peer_skip(&harness))
		return;

	const char *script = getenv("MAVLINK_PEER");
	char *hex = malloc(2 * p->raw_len + 2);

	assert_non_null(script);
	assert_non_null(hex);
	for (size_t i = 0; i < p->raw_len; i++)
		sprintf(hex + 2 * i, "%02x", p->raw[i]);
	hex[2 * p->raw_len] = '\n';
	hex[2 * p->raw_len + 1] = '\0';
	struct program_result r = run_program(
		"node", (const char *const[]){ "node", script, "decode", NULL },
		hex);
	free(hex);
	if (r.status != 0)
		fail_msg("node mavlink-peer.mjs decode: status %d (run 'npm ci "
			 "--prefix tests/harness/node-mavlink'?)\n%s", r.status, r.err);
	uint64_t sensors = 0, gps = 0, state = 0, hb = 0, lines = 0;
	uint64_t last_time = 0;
	for (char *line = r.out, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		lines++;
		if (!strstr(line, "\"crc_ok\":true"))
			fail_msg("node-mavlink: %s", line);
		if (strstr(line, "\"name\":\"HIL_SENSOR\"")) {
			const char *t = strstr(line, "\"time_usec\":");
			const char *fu = strstr(line, "\"fields_updated\":");
			assert_non_null(t);
			assert_non_null(fu);
			uint64_t tu = strtoull(t + 12, NULL, 10);
			unsigned long bits = strtoul(fu + 17, NULL, 10);
			assert_true(bits == 0x1FF || bits == 0x1BFF ||
				    bits == 0x1A00);
			if (bits != 0x1A00) {
				assert_int_equal(tu, last_time + STEP_US);
				last_time = tu;
			}
			sensors++;
		}
		gps += strstr(line, "\"name\":\"HIL_GPS\"") != NULL;
		state += strstr(line, "\"name\":\"HIL_STATE_QUATERNION\"") !=
			 NULL;
		hb += strstr(line, "\"name\":\"HEARTBEAT\"") != NULL;
	}
	program_result_free(&r);
	assert_int_equal(sensors, s->steps + s->baro1);
	assert_int_equal(gps, s->gps);
	assert_int_equal(state, s->state);
	assert_int_equal(hb, s->heartbeats);
	assert_int_equal(lines, sensors + gps + state + hb);
	assert_int_equal(p->parser.stats.bad_crc, 0);
	assert_int_equal(p->parser.stats.garbage_bytes, 0);
}

/* ------------------------------------------------------------------ */

/* One control socket command; the reply up to its "ok" line. */
static char *
control(const char *path, const char *cmd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	static char reply[8192];
	size_t n = 0;

	reply[0] = '\0';
	assert_true(strlen(path) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, path, strlen(path) + 1);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(write(fd, cmd, strlen(cmd)), (ssize_t)strlen(cmd));
	while (n + 1 < sizeof(reply) && !strstr(reply, "\nok\n")) {
		struct pollfd pf = { fd, POLLIN, 0 };
		assert_true(poll(&pf, 1, 5000) > 0);
		ssize_t k = read(fd, reply + n, sizeof(reply) - 1 - n);
		assert_true(k > 0);
		n += (size_t)k;
		reply[n] = '\0';
	}
	close(fd);
	return reply;
}

static void
write_conf_extra(const char *path, const char *profile, unsigned port,
		 unsigned baros, unsigned mav_port, const char *px4_extra)
{
	char text[1024], sock[512];

	path_in_tmp(sock, sizeof(sock), "control");
	snprintf(text, sizeof(text),
		 "[barod]\nsource = px4-sim\ncontrol = %s\n"
		 "[sim]\nprofile = %s\nhome_alt = 488\natmosphere = 1976\n"
		 "seed = 7\n"
		 "[px4]\nbind = 127.0.0.1\nport = %u\nhil_baros = %u\n%s"
		 "[output gcs]\ntype = udp-client\naddress = 127.0.0.1:%u\n",
		 sock, profile, port, baros, px4_extra, mav_port);
	write_file(path, text);
}

static void
write_conf(const char *path, const char *profile, unsigned port,
	   unsigned baros, unsigned mav_port)
{
	write_conf_extra(path, profile, port, baros, mav_port, "");
}

struct sp_log {
	unsigned n, matched, glitched;
	const struct seen *s;
};

/* barod's SCALED_PRESSURE carries physics time and the HIL_SENSOR's
 * pressure for the same step. */
static void
on_gcs(const struct mavlink_frame *f, void *user)
{
	struct sp_log *l = user;
	struct mavlink_scaled_pressure m;

	if (f->msgid != MAVLINK_MSG_SCALED_PRESSURE || f->sysid != 1)
		return;
	mavlink_unpack_scaled_pressure(f->payload, &m);
	l->n++;
	const uint64_t k = (uint64_t)m.time_boot_ms * 1000u / STEP_US;
	assert_int_equal(m.time_boot_ms % 4, 0);
	if (k < l->s->steps && k < MAX_STEPS) {
		assert_float_exact(m.press_abs, l->s->p0[k]);
		l->matched++;
		l->glitched += in_glitch((uint64_t)m.time_boot_ms * 1000u);
	}
}

static void
test_lockstep(void **state)
{
	char conf[512], scn[512];
	unsigned mav_port, port = free_tcp_port();
	int mav = udp_loopback(&mav_port, 0);
	struct px4_peer p;
	struct baro_sitl emu;
	struct sim_params params;
	struct seen *s = calloc(1, sizeof(*s));
	(void)state;

	assert_non_null(s);
	path_in_tmp(conf, sizeof(conf), "lockstep.conf");
	path_in_tmp(scn, sizeof(scn), "glitch.scn");
	write_conf(conf, "static:10", port, 2, mav_port);
	write_file(scn, "at 500ms glitch 0 5 for 200ms\n");
	start(conf, scn);

	sim_params_defaults(&params);
	baro_sitl_init(&emu, &params, BARO_SITL_ATMOS_1976, 7);
	s->emu = &emu;
	s->glitch = true;
	assert_int_equal(baro_sitl_altitude(488.0, 10.0, &s->truth_alt), 0);

	px4_connect(&p, port);
	px4_peer_hello(p.fd, &p.seq);
	first_step(&p, s);
	const uint64_t freewheel = s->steps + engage(&p, s, 1);
	assert_true(freewheel >= 2);
	for (int r = 0; r < 600; r++)
		lockstep(&p, s);
	/* Nothing more without replies (barod's stall guard is 1 s). */
	assert_int_equal(drain(&p, s, 500), 0);
	assert_int_equal(s->steps, freewheel + 600);

	/* Ground truth at the 200 Hz asked for; GPS at 10 Hz. */
	const uint64_t steps = s->steps;
	assert_true(s->state >= steps * 4 / 5 - 1 &&
		    s->state <= steps * 4 / 5 + 2);
	assert_true(s->gps >= steps / 25 && s->gps <= steps / 25 + 1);
	assert_int_equal(s->last_gps.lat, 473977420);
	assert_int_equal(s->last_gps.lon, 85455940);
	assert_int_equal(s->last_gps.alt, 498000);
	assert_int_equal(s->last_gps.vd, 0);
	assert_true(s->heartbeats >= 2);
	/* AP_Baro_SITL samples once 10 ms have passed: on 4 ms steps,
	 * every third step.  Baro 1 on id 1 as often, each checked. */
	assert_true(s->baro1 >= steps / 3 - 1);
	/* 200 ms of glitch at 12 ms per sample. */
	assert_true(s->glitched >= 16 && s->glitched <= 17);
	assert_true(s->clean > 2 * s->glitched);
	assert_true(s->max_dz < 0.06);

	struct mavlink_parser mp;
	struct sp_log sl = { .s = s };
	uint8_t d[4096];
	ssize_t n;
	mavlink_parser_init(&mp);
	while ((n = recv(mav, d, sizeof(d), MSG_DONTWAIT)) > 0) {
		mavlink_parser_feed(&mp, d, (size_t)n, on_gcs, &sl);
		mavlink_parser_flush(&mp);
	}
	assert_int_equal(mp.stats.bad_crc, 0);
	assert_true(sl.matched >= steps / 3 - 1);
	assert_int_equal(sl.glitched, s->glitched);

	/* PX4 goes first: node takes a while, and a PX4 that stays
	 * connected without replying gets a step a second (a stall). */
	close(p.fd);
	wait_log("disconnected after", 1);
	node_check(&p, s);
	free(p.raw);
	char *log = stop();
	char want[128];
	snprintf(want, sizeof(want), "steps %llu, controls 601, stalls 0",
		 (unsigned long long)steps);
	if (!strstr(log, want)) {
		fprintf(stderr, "barod's log:\n%s\n", log);
		fail_msg("no '%s' in barod's log", want);
	}
	assert_non_null(strstr(log, "other frames 1,"));	/* heartbeat */
	assert_non_null(strstr(log, "lockstep from step"));
	free(log);
	free(s);
	close(mav);
}

/* PX4 restarts (physics from 0), a second PX4 takes over, and garbage
 * on the stream costs nothing but itself. */
/* The scenario file baro-drive's tests drive an autopilot with
 * (tests/drive/same.scn) runs unchanged here: its 15 m glitch on baro
 * 0 from 0.5 to 2 s of PX4's lockstep time, its delay on baro 1
 * logged. */
static void
test_drive_scenario_file(void **state)
{
	char conf[256];
	const unsigned port = free_tcp_port();
	const unsigned mav_port =
		harness_free_port(&harness, SOCK_DGRAM, false);
	const char *scn = getenv("DRIVE_SCN");
	struct px4_peer p;
	struct seen *s = calloc(1, sizeof(*s));
	(void)state;

	assert_non_null(s);
	assert_non_null(scn);
	path_in_tmp(conf, sizeof(conf), "same.conf");
	write_conf(conf, "static:10", port, 2, mav_port);
	start(conf, scn);
	px4_connect(&p, port);
	px4_peer_hello(p.fd, &p.seq);
	first_step(&p, s);
	const uint64_t freewheel = s->steps + engage(&p, s, 1);
	while (s->steps < 760)
		lockstep(&p, s);
	/* Baro 0's mean before, during and after the glitch (step k at
	 * 4 ms * k of physics time). */
	double sum[3] = { 0 };
	unsigned n[3] = { 0 };
	for (uint64_t k = freewheel; k < 750 && k < MAX_STEPS; k++) {
		const uint64_t ms = 4 * k;
		if (isnan(s->p0[k]) || ms < 100 || (ms > 450 && ms < 600) ||
		    (ms > 1950 && ms < 2100))
			continue;
		const int w = ms < 500 ? 0 : ms < 2000 ? 1 : 2;
		sum[w] += s->p0[k];
		n[w]++;
	}
	assert_true(n[0] > 10 && n[1] > 100 && n[2] > 50);
	/* 15 m higher: about 1.7 hPa less at 500 m. */
	assert_true(sum[0] / n[0] - sum[1] / n[1] > 1.5);
	assert_true(fabs(sum[0] / n[0] - sum[2] / n[2]) < 0.05);
	px4_peer_close(&p);
	char *log = stop();
	assert_non_null(strstr(log, "SIM_BARO_GLITCH 0 -> 15 for 1.5s"));
	assert_non_null(strstr(log, "SIM_BAR2_DELAY 0 -> 200 for 500ms"));
	free(log);
	free(s);
}

static void
test_reconnect_and_garbage(void **state)
{
	char conf[512];
	unsigned mav_port, port = free_tcp_port();
	int mav = udp_loopback(&mav_port, 0);
	struct px4_peer a, b, c;
	struct seen *s = calloc(1, sizeof(*s));
	(void)state;

	assert_non_null(s);
	path_in_tmp(conf, sizeof(conf), "reconnect.conf");
	write_conf(conf, "static:0", port, 1, mav_port);
	start(conf, NULL);

	px4_connect(&a, port);
	first_step(&a, s);
	engage(&a, s, 1);
	for (int r = 0; r < 20; r++)
		lockstep(&a, s);

	/* Garbage, a frame with a bad CRC, one claiming 255 bytes of
	 * nonsense, an unknown message: no step, no harm. */
	uint8_t junk[600], pl[MAVLINK_MAX_PAYLOAD] = { 0 }, f[MAVLINK_MAX_FRAME];
	size_t n = 0;
	memcpy(junk, "not mavlink at all", 18);
	n = 18;
	struct mavlink_hil_actuator_controls ac = { .time_usec = 1, .mode = 1 };
	mavlink_pack_hil_actuator_controls(&ac, pl);
	size_t fl = px4_frame(&a, f, MAVLINK_MSG_HIL_ACTUATOR_CONTROLS, pl);
	f[fl - 1] ^= 0x5A;
	memcpy(junk + n, f, fl);
	n += fl;
	junk[n++] = MAVLINK_STX_V2;
	junk[n++] = 255;
	memset(junk + n, 0x55, 265);
	n += 265;
	px4_write(&a, junk, n);
	assert_int_equal(drain(&a, s, 300), 0);
	for (int r = 0; r < 5; r++)
		lockstep(&a, s);
	assert_int_equal(s->last_time, (s->steps) * STEP_US);

	/* PX4 stops and starts again: physics from 0. */
	px4_peer_close(&a);
	wait_log("disconnected after", 1);
	memset(s, 0, sizeof(*s));
	px4_connect(&b, port);
	first_step(&b, s);
	assert_int_equal(s->last_time, STEP_US);
	engage(&b, s, 2);
	lockstep(&b, s);

	/* A second PX4 on the same port takes over; the first is closed. */
	memset(s, 0, sizeof(*s));
	px4_connect(&c, port);
	first_step(&c, s);
	assert_int_equal(s->last_time, STEP_US);
	struct mavlink_frame fr;
	while (px4_peer_next(&b, &fr, 5000))
		;
	assert_true(b.eof);
	px4_peer_close(&b);
	px4_peer_close(&c);
	wait_log("disconnected after", 3);

	char *log = stop();
	if (!strstr(log, "connections 3, disconnects 3, replaced 1, "
			 "restarts 2,"))
		fail_msg("barod's log:\n%s", log);
	/* The bad CRC and the 255-byte frame; the text as garbage. */
	const char *bf = strstr(log, "bad frames ");
	assert_non_null(bf);
	assert_true(strtoul(bf + 11, NULL, 10) >= 2);
	const char *gb = strstr(log, "garbage bytes ");
	assert_non_null(gb);
	assert_true(strtoul(gb + 14, NULL, 10) >= 18);
	free(log);
	free(s);
	close(mav);
}

/* A 20 m step in the profile: the vehicle gets there as fast as 2 g and
 * 30 m/s allow, and every value on the way is physically possible. */
static void
test_step_profile(void **state)
{
	char conf[512];
	unsigned mav_port, port = free_tcp_port();
	int mav = udp_loopback(&mav_port, 0);
	struct px4_peer p;
	struct seen *s = calloc(1, sizeof(*s));
	(void)state;

	assert_non_null(s);
	path_in_tmp(conf, sizeof(conf), "step.conf");
	write_conf(conf, "step:0:20:0.2", port, 1, mav_port);
	start(conf, NULL);

	px4_connect(&p, port);
	first_step(&p, s);
	engage(&p, s, 1);
	int32_t last_alt = 0;
	while (s->steps < 1000) {
		lockstep(&p, s);
		if (s->gps) {
			/* up, never past the target */
			assert_true(s->last_gps.alt >= last_alt);
			assert_true(s->last_gps.alt <= 508000);
			last_alt = s->last_gps.alt;
		}
	}
	/* 2 g plus the accelerometer's noise, never more. */
	assert_true(s->max_dz > 19.0 && s->max_dz < 19.6133 + 0.06);
	assert_int_equal(s->last_gps.alt, 508000);
	assert_int_equal(s->last_gps.vd, 0);
	/* The baro agrees: about 20 m lower pressure than at the start. */
	float p_end = NAN, p_start = NAN;
	for (uint64_t k = 0; k < s->steps && k < MAX_STEPS; k++) {
		if (!isnan(s->p0[k])) {
			if (isnan(p_start))
				p_start = s->p0[k];
			p_end = s->p0[k];
		}
	}
	assert_true(p_start - p_end > 2.2f && p_start - p_end < 2.5f);

	char sock[512], want[256];
	path_in_tmp(sock, sizeof(sock), "control");
	snprintf(want, sizeof(want),
		 "px4 0 connected port %u physics 4.000 s lockstep yes armed no "
		 "steps %llu controls ", port, (unsigned long long)s->steps);
	const char *st = control(sock, "status\n");
	if (!strstr(st, want))
		fail_msg("no '%s' in status:\n%s", want, st);
	px4_peer_close(&p);
	free(stop());
	free(s);
	close(mav);
}

static void
count_frame(const struct mavlink_frame *f, void *user)
{
	(void)f;
	++*(uint64_t *)user;
}

/* A PX4 that keeps replying but stops reading: barod neither blocks
 * nor cuts a frame; what does not fit its backlog is dropped in whole
 * frames and counted. */
static void
test_slow_reader(void **state)
{
	char conf[512], sock[512];
	unsigned mav_port, port = free_tcp_port();
	int mav = udp_loopback(&mav_port, 0);
	struct px4_peer p;
	struct seen *s = calloc(1, sizeof(*s));
	(void)state;

	assert_non_null(s);
	path_in_tmp(conf, sizeof(conf), "slow.conf");
	path_in_tmp(sock, sizeof(sock), "control");
	/* As fast as PX4 replies: paced, 80,000 replies take 320 s. */
	write_conf_extra(conf, "static:0", port, 1, mav_port,
			 "speed_factor = 0\n");
	start(conf, NULL);

	/* No SO_RCVBUF here: a window shrunk for the flood and widened
	 * for the drain never reopened promptly, so the drain crawled at
	 * 8 KiB per 200 ms zero-window probe: 11 s on a quiet machine, and
	 * the likely cause of a CI run that hit meson's 90 s.  The kernel
	 * buffers (barod's send buffer, fixed at PX4_KERNEL_TX, and this
	 * side's default 128 KiB while it does not read) still hold far
	 * less than the 12 MB asked for; barod dropped some 89,000 frames
	 * here. */
	px4_connect(&p, port);
	first_step(&p, s);
	engage(&p, s, 1);
	/* Some 12 MB of steps asked for: more than TCP's buffers and
	 * barod's 256 KiB backlog hold. */
	for (int k = 0; k < 80000; k++)
		px4_controls(&p, (uint64_t)k * STEP_US);
	const char *st = control(sock, "status\n");
	if (!strstr(st, "px4 0 connected "))
		fail_msg("barod did not answer while PX4 was not reading:\n%s",
			 st);
	/* Everything barod kept, through a parser of our own: every byte
	 * read parses, so no frame was cut. */
	struct mavlink_parser rx;
	uint64_t frames = 0;
	struct pollfd pf = { p.fd, POLLIN, 0 };
	uint8_t buf[65536];
	ssize_t n;
	mavlink_parser_init(&rx);
	/* Until barod has been quiet for 800 ms: under the sanitizers it
	 * may still be working through the 80,000 replies for a while, and
	 * past its 1 s stall guard it would send a step again. */
	while (poll(&pf, 1, 800) > 0 &&
	       (n = recv(p.fd, buf, sizeof(buf), 0)) > 0)
		mavlink_parser_feed(&rx, buf, (size_t)n, count_frame, &frames);
	assert_true(frames > 1000);
	/* One more step after the backlog emptied: a frame cut short
	 * before it would swallow its start. */
	const uint64_t before = frames;
	px4_controls(&p, 80000u * STEP_US);
	while (poll(&pf, 1, 800) > 0 &&
	       (n = recv(p.fd, buf, sizeof(buf), 0)) > 0)
		mavlink_parser_feed(&rx, buf, (size_t)n, count_frame, &frames);
	mavlink_parser_flush(&rx);
	assert_true(frames > before);
	assert_int_equal(rx.stats.bad_crc, 0);
	assert_int_equal(rx.stats.garbage_bytes, 0);
	assert_int_equal(rx.stats.unknown_msgid, 0);
	assert_int_equal(rx.stats.truncated, 0);
	px4_peer_close(&p);
	wait_log("disconnected after", 1);

	char *log = stop();
	const char *dr = strstr(log, "frames out ");
	assert_non_null(dr);
	dr = strstr(dr, ", dropped ");
	assert_non_null(dr);
	if (strtoull(dr + 10, NULL, 10) == 0)
		fail_msg("nothing dropped:\n%s", log);
	free(log);
	free(s);
	close(mav);
}

/* One PX4 instance count for both PX4 modes: --px4-instances, and
 * --sitl-instances (what the peer used before) as its alias, serve PX4
 * instance 1 on port + 1 with its own vehicle. */
static void
test_instances_option(void **state)
{
	static const char *const opts[] = { "--px4-instances",
					    "--sitl-instances" };
	(void)state;

	for (size_t k = 0; k < 2; k++) {
		char conf[512], sock[512], want[128];
		unsigned mav_port, port = harness_free_port(&harness, SOCK_STREAM, true);
		int mav = udp_loopback(&mav_port, 0);
		struct px4_peer p;
		struct seen *s = calloc(1, sizeof(*s));

		assert_non_null(s);
		path_in_tmp(conf, sizeof(conf), "instances.conf");
		write_conf(conf, "static:0", port, 1, mav_port);
		start_with(conf, NULL, opts[k], "2");
		wait_log("simulator on TCP", 2);

		px4_connect(&p, port + 1);
		first_step(&p, s);
		engage(&p, s, 1);
		lockstep(&p, s);
		path_in_tmp(sock, sizeof(sock), "control");
		snprintf(want, sizeof(want), "px4 1 connected port %u ",
			 port + 1);
		const char *st = control(sock, "status\n");
		if (!strstr(st, want))
			fail_msg("%s: no '%s' in status:\n%s", opts[k], want,
				 st);
		snprintf(want, sizeof(want), "px4 0 waiting port %u ", port);
		if (!strstr(st, want))
			fail_msg("%s: no '%s' in status:\n%s", opts[k], want,
				 st);
		px4_peer_close(&p);
		/* Each instance said what it waits for at start; the one
		 * PX4 came to, not again. */
		char *log = stop();
		snprintf(want, sizeof(want), "PX4 instance 0: waiting for PX4 "
			 "on TCP 127.0.0.1:%u", port);
		assert_non_null(strstr(log, want));
		snprintf(want, sizeof(want), "PX4 instance 1: waiting for PX4 "
			 "on TCP 127.0.0.1:%u", port + 1);
		const char *w = strstr(log, want);
		assert_non_null(w);
		assert_null(strstr(w + 1, want));
		free(log);
		free(s);
		close(mav);
	}
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* STATUS= (systemctl status) says what the log says while PX4 has not
 * come, then the counters once it has: barod's own sd_notify datagrams
 * on a socket standing in for systemd's. */
static void
test_waiting_status(void **state)
{
#ifdef BAROD_HAVE_SYSTEMD
	char conf[512], path[108], want[160], buf[512];
	unsigned mav_port, port = harness_free_port(&harness, SOCK_STREAM, false);
	int mav = udp_loopback(&mav_port, 0);
	struct px4_peer p;
	struct seen *s = calloc(1, sizeof(*s));
	(void)state;

	assert_non_null(s);
	int fd = notify_socket_open(path, sizeof(path));
	path_in_tmp(conf, sizeof(conf), "status.conf");
	write_conf(conf, "static:0", port, 1, mav_port);
	start_with(conf, NULL, NULL, NULL);
	unsetenv("NOTIFY_SOCKET");
	snprintf(want, sizeof(want), "STATUS=px4-sim: waiting for PX4 on TCP "
		 "127.0.0.1:%u", port);
	if (!notify_socket_wait(fd, want, buf, sizeof(buf), 5000))
		fail_msg("no '%s' from barod", want);
	wait_log("waiting for PX4 on TCP", 1);
	px4_connect(&p, port);
	first_step(&p, s);
	if (!notify_socket_wait(fd, " healthy, ", buf, sizeof(buf), 2500))
		fail_msg("no counters in STATUS= after PX4 came");
	assert_non_null(strstr(buf, "STATUS=px4-sim: "));
	px4_peer_close(&p);
	free(stop());
	close(fd);
	unlink(path);
	free(s);
	close(mav);
#else
	(void)state;
	skip_because("built without libsystemd: no sd_notify STATUS= "
		     "to watch");
#endif
}

/* A PX4 that stops replying gets the next step after
 * lockstep_timeout_ms, never sooner, and the lockstep goes on. */
static void
test_stall(void **state)
{
	char conf[512], sock[512];
	unsigned mav_port, port = free_tcp_port();
	int mav = udp_loopback(&mav_port, 0);
	struct px4_peer p;
	struct mavlink_frame f;
	struct seen *s = calloc(1, sizeof(*s));
	(void)state;

	assert_non_null(s);
	path_in_tmp(conf, sizeof(conf), "stall.conf");
	write_conf_extra(conf, "static:0", port, 1, mav_port,
			 "lockstep_timeout_ms = 500\n");
	start(conf, NULL);
	px4_connect(&p, port);
	first_step(&p, s);
	engage(&p, s, 1);
	lockstep(&p, s);

	for (int k = 0; k < 3; k++) {
		const uint64_t before = s->steps;
		const double t0 = now_s();
		while (s->steps == before) {
			if (!px4_peer_next(&p, &f, 5000))
				fail_msg("no step after a stall");
			on_frame(s, &f);
		}
		assert_true(now_s() - t0 >= 0.49);
		assert_int_equal(s->steps, before + 1);
	}
	lockstep(&p, s);

	path_in_tmp(sock, sizeof(sock), "control");
	/* 3, or one more if this program was too slow once. */
	const char *st = control(sock, "status\n");
	const char *sn = strstr(st, "stalls ");
	if (!sn || strtoul(sn + 7, NULL, 10) < 3)
		fail_msg("not 3 stalls in status:\n%s", st);
	close(p.fd);
	free(p.raw);
	free(stop());
	free(s);
	close(mav);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		harness_unit_test(test_lockstep, &harness),
		harness_unit_test(test_drive_scenario_file, &harness),
		harness_unit_test(test_reconnect_and_garbage, &harness),
		harness_unit_test(test_step_profile, &harness),
		harness_unit_test(test_stall, &harness),
		harness_unit_test(test_instances_option, &harness),
		harness_unit_test(test_waiting_status, &harness),
		harness_unit_test(test_slow_reader, &harness),
	};
	return harness_run_tests(&harness, "barod-px4sim", tests);
}
