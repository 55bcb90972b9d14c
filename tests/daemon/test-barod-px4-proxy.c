/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * barod --px4-sim-proxy as a child process, with this test playing both
 * ends through barod's real sockets: PX4 SITL (a TCP client of barod,
 * answering each HIL_SENSOR with HIL_ACTUATOR_CONTROLS as PX4's lockstep
 * does) and the simulator (a TCP server barod connects to, sending
 * HIL_SENSOR at 250 Hz with the baro every 5th step as Gazebo does,
 * HIL_GPS at 5 Hz).  The proxy never changes a frame's length, so each
 * side reads exactly what the other sent and compares it byte for byte:
 * everything equal except the baro fields of HIL_SENSOR, which must be
 * exactly what an AP_Baro_SITL emulator run here on the same truth
 * gives.  Rewritten frames are also decoded by node-mavlink.
 */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "atmosphere.h"
#include "baro-sitl.h"
#include "faults.h"
#include "gcs-peer.h"
#include "harness-cmocka.h"
#include "mavlink.h"
#include "mavlink-raw.h"
#include "px4-peer.h"
#include "test-files.h"
#include "test-util.h"
#include "util-endian.h"

#define TIMEOUT_MS 10000
/* Datagrams barod sent the GCS before the last step have arrived on
 * loopback by the time its answer did; a short wait covers scheduling. */
#define GCS_WAIT_MS 200
#define STEP_US 4000u
#define T0_US 1700000000000000ull	/* jMAVSim-style Unix-epoch µs */

static struct harness harness;
static pid_t child;
static char control_path[300];	/* "" = no control socket */

struct rig {
	int listen_fd;		/* the simulator's server socket */
	unsigned sim_port, px4_port;
	int sim, px4;		/* connected ends */
	int gcs;		/* UDP: barod's SCALED_PRESSURE */
	unsigned gcs_port;
	uint8_t seq_sim, seq_px4;
	unsigned baro_every;	/* baro in every Nth HIL_SENSOR; 0: 5 */
};

static void
path_in_tmp(char *buf, size_t len, const char *name)
{
	harness_path(&harness, buf, len, name);
}

/* A listener on 127.0.0.1:port (0: a free one), or -1 when it is
 * taken. */
static int
tcp_listener_at(unsigned port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int one = 1;

	assert_true(fd >= 0);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(fd, 4) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A listener on a free port, which goes into *port. */
static int
tcp_listener(unsigned *port)
{
	int fd = tcp_listener_at(0);
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);

	assert_true(fd >= 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	*port = ntohs(sa.sin_port);
	return fd;
}

static unsigned
free_tcp_port(void)
{
	return harness_free_port(&harness, SOCK_STREAM, false);
}

static bool
readable(int fd, int ms)
{
	struct pollfd p = { fd, POLLIN, 0 };

	return poll(&p, 1, ms) > 0;
}

/* The simulator's side: barod's connection, within the timeout. */
static int
accept_barod(struct rig *r)
{
	assert_true(readable(r->listen_fd, TIMEOUT_MS));
	int fd = accept(r->listen_fd, NULL, NULL);
	assert_true(fd >= 0);
	return fd;
}

/* PX4's side: connect as PX4 does, retrying until barod listens. */
static int
connect_px4(unsigned port)
{
	return px4_peer_dial(port, TIMEOUT_MS / 10);
}

static void
send_all(int fd, const uint8_t *b, size_t n)
{
	while (n) {
		ssize_t k = send(fd, b, n, MSG_NOSIGNAL);
		assert_true(k > 0);
		b += k;
		n -= (size_t)k;
	}
}

/* Exactly n bytes, or fail after the timeout. */
static void
recv_exact(int fd, uint8_t *b, size_t n)
{
	while (n) {
		if (!readable(fd, TIMEOUT_MS))
			fail_msg("%zu bytes still missing after %d ms", n,
				 TIMEOUT_MS);
		ssize_t k = recv(fd, b, n, 0);
		if (k <= 0)
			fail_msg("connection closed with %zu bytes missing", n);
		b += k;
		n -= (size_t)k;
	}
}

/* The peer closed: recv returns 0 within the timeout. */
static void
expect_eof(int fd)
{
	uint8_t b[4096];

	for (;;) {
		assert_true(readable(fd, TIMEOUT_MS));
		ssize_t k = recv(fd, b, sizeof(b), 0);
		if (k <= 0)
			return;
	}
}

/* n bytes of tx sent on `from`, as many received on `to` into rx. */
static void
relay(int from, int to, const uint8_t *tx, size_t n, uint8_t *rx)
{
	send_all(from, tx, n);
	recv_exact(to, rx, n);
}

/* A frame's HIL_SENSOR payload, unpacked. */
static void
unpack_hil_sensor(const uint8_t *frame, struct mavlink_hil_sensor *m)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };

	memcpy(pl, frame + 10, frame[1]);
	mavlink_unpack_hil_sensor(pl, m);
}

/* The simulator's truth: climbing 1 m/s from 488 m, with a little
 * deterministic wobble so every baro value differs. */
static float
sim_pressure_hpa(unsigned k)
{
	float p, t;
	float alt = 488.0f + (float)k * 0.004f + 0.05f * (float)(k % 7);

	atmos_1976_pressure_temperature(alt, &p, &t);
	return p * 0.01f;
}

static size_t
hil_sensor(struct rig *r, uint8_t *out, unsigned k, uint64_t t0)
{
	struct mavlink_hil_sensor m = {
		.time_usec = t0 + (uint64_t)k * STEP_US,
		.xacc = 0.01f * (float)(k % 3), .zacc = -9.80665f,
		.xgyro = 0.001f, .xmag = 0.21f, .zmag = 0.42f,
		.fields_updated = 0x1FF,
	};
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };

	if (k % (r->baro_every ? r->baro_every : 5) == 0) {
		m.abs_pressure = sim_pressure_hpa(k);
		m.pressure_alt = 488.0f + (float)k * 0.004f;
		m.temperature = 11.8f + 0.001f * (float)k;
		m.fields_updated |= 0x1A00;
	}
	mavlink_pack_hil_sensor(&m, pl);
	return (size_t)mavlink_frame_encode(out, 2, r->seq_sim++, 1, 200,
					    MAVLINK_MSG_HIL_SENSOR, pl);
}

static size_t
hil_gps(struct rig *r, uint8_t *out, unsigned k)
{
	uint8_t pl[39] = { 0 };

	le_put64(pl, (uint64_t)k * STEP_US);
	le_put32(pl + 8, 473977420u);
	le_put32(pl + 12, 85455940u);
	le_put32(pl + 16, 488000u);
	pl[34] = 3;
	pl[35] = 10;
	return mavlink_raw_frame(out, r->seq_sim++, 1, 200, 113, 124, pl, 36);
}

static size_t
state_quaternion(struct rig *r, uint8_t *out, unsigned k, uint64_t t0)
{
	uint8_t pl[64] = { 0 };

	le_put64(pl, t0 + (uint64_t)k * STEP_US);
	le_put32(pl + 8, 0x3f800000u);		/* q = (1, 0, 0, 0) */
	le_put32(pl + 36, 473977420u);
	le_put32(pl + 40, 85455940u);
	le_put32(pl + 44, 488000u + k);
	return mavlink_raw_frame(out, r->seq_sim++, 1, 200, 115, 4, pl, 64);
}

static size_t
actuators(struct rig *r, uint8_t *out, unsigned k)
{
	uint8_t pl[81] = { 0 };

	le_put64(pl, (uint64_t)k * STEP_US);
	le_put64(pl + 8, 1);	/* HIL_ACTUATOR_CONTROLS_FLAGS_LOCKSTEP */
	pl[80] = 1;
	return mavlink_raw_frame(out, r->seq_px4++, 1, 1, 93, 47, pl, 81);
}

/* barod as a proxy for `instances` PX4s from px4_port on, to simulators
 * from sim_port on, SCALED_PRESSURE to gcs_port, extra in its [sim]
 * section, with the scenario when not NULL; back once it runs. */
static void
start_barod(unsigned px4_port, unsigned sim_port, unsigned gcs_port,
	    unsigned instances, const char *extra, const char *scenario)
{
	char conf[512], scn[512], count[32] = "";

	/* One: the default, left out. */
	if (instances > 1)
		snprintf(count, sizeof(count), "instances = %u\n", instances);
	harness_write(&harness, conf, sizeof(conf), "barod.conf",
		      "[barod]\nsource = px4-sim-proxy\ncontrol = %s\n"
		      "[sim]\natmosphere = 1976\nSIM_BARO_RND = 0\n"
		      "SIM_BAR2_RND = 0\n%s"
		      "[px4]\n%sbind = 127.0.0.1\nport = %u\n"
		      "upstream = 127.0.0.1:%u\n"
		      "[output gcs]\ntype = udp-client\n"
		      "address = 127.0.0.1:%u\n",
		      control_path[0] ? control_path : "none",
		      extra ? extra : "", count, px4_port, sim_port,
		      gcs_port);
	if (scenario)
		harness_write(&harness, scn, sizeof(scn), "faults.scn", "%s",
			      scenario);
	child = harness_start(&harness, "barod.log", (const char *[]){
		"-c", conf, "-v", scenario ? "--scenario" : NULL, scn, NULL });
}

/* barod for one PX4 on r's fresh sockets, both of its connections up. */
static void
start(struct rig *r, const char *extra_conf, const char *scenario)
{
	memset(r, 0, sizeof(*r));
	r->listen_fd = tcp_listener(&r->sim_port);
	r->px4_port = free_tcp_port();
	r->gcs = udp_loopback(&r->gcs_port, SOCK_NONBLOCK);
	start_barod(r->px4_port, r->sim_port, r->gcs_port, 1, extra_conf,
		    scenario);
	r->px4 = connect_px4(r->px4_port);
	r->sim = accept_barod(r);
}

static char *
stop(struct rig *r)
{
	int status = harness_stop(&harness, child, NULL);

	if (r->px4 >= 0)
		close(r->px4);
	if (r->sim >= 0)
		close(r->sim);
	close(r->listen_fd);
	close(r->gcs);
	char *text = harness_log(&harness, child);
	if (status != 0)
		fail_msg("barod exit status %d\n%s", status, text);
	return text;
}

/* ---- the expected baro: an emulator run here on the same truth ---- */

struct expect {
	struct baro_sitl emu;
	enum baro_sitl_atmosphere atmos;
	uint64_t t0;
	bool started;
	float glitch;		/* from glitch_at_ms to glitch_end_ms */
	uint32_t glitch_at_ms, glitch_end_ms;
	bool disable;		/* SIM_BARO_DISABLE from disable_at_ms */
	uint32_t disable_at_ms;
	/* PX4 failure types through the overlay: kind[i] over
	 * [from_ms[i], to_ms[i]). */
	struct fault_overlay ov;
	enum fault_kind ov_kind[2], ov_now;
	uint32_t ov_from[2], ov_to[2];
	/* SIM_BARO_FREEZE over [freeze_from, freeze_to): ArduPilot's, the
	 * pressure of the last stored altitude, the temperature live. */
	uint32_t freeze_from, freeze_to;
	/* The latest emulator sample and what it means for the frames
	 * until the next one (the emulator samples every 10 ms at most).
	 * A sample is the frame's own reading where the emulator left it
	 * alone (its temperature always); cur_held_temp: the overlay set
	 * the temperature (stuck, garbage). */
	bool have_cur, cur_withheld, cur_held_temp, cur_clean;
	struct baro_sample cur;
};

static int
altitude(enum baro_sitl_atmosphere atmos, float pa, float *alt)
{
	return atmos == BARO_SITL_ATMOS_1976 ? atmos_1976_altitude(pa, alt)
					     : atmos_simple_altitude(pa, alt);
}

static void
expect_init_atmos(struct expect *e, enum baro_sitl_atmosphere atmos)
{
	struct sim_params p;

	memset(e, 0, sizeof(*e));
	sim_params_defaults(&p);
	p.baro[0].rnd = 0.0f;
	p.baro[1].rnd = 0.0f;
	e->atmos = atmos;
	baro_sitl_init(&e->emu, &p, atmos, 1);
	fault_overlay_init(&e->ov, 1);
	e->glitch_at_ms = UINT32_MAX;
	e->glitch_end_ms = UINT32_MAX;
	e->disable_at_ms = UINT32_MAX;
	e->freeze_from = e->freeze_to = UINT32_MAX;
}

static void
expect_init(struct expect *e)
{
	expect_init_atmos(e, BARO_SITL_ATMOS_1976);
}

/* expect_init, with SIM_BARO_GLITCH `glitch` m from at_ms on. */
static void
expect_glitch(struct expect *e, float glitch, uint32_t at_ms)
{
	expect_init(e);
	e->glitch = glitch;
	e->glitch_at_ms = at_ms;
}

/*
 * What PX4 must receive for the HIL_SENSOR frame `in`: the same frame
 * with the baro of this emulator, the CRC recomputed (with the codec's
 * own encoder, which the sender also used).  Returns whether it differs.
 */
static bool
expected_frame(struct expect *e, const uint8_t *in, size_t n, uint8_t *out)
{
	struct mavlink_hil_sensor m;
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };

	memcpy(out, in, n);
	unpack_hil_sensor(in, &m);
	if (!e->started) {
		e->t0 = m.time_usec;
		e->started = true;
	}
	const uint32_t ms = (uint32_t)((m.time_usec - e->t0) / 1000u);
	if ((m.fields_updated & 0x1A00) != 0x1A00)
		return false;
	e->emu.params.baro[0].glitch =
		ms >= e->glitch_at_ms && ms < e->glitch_end_ms ? e->glitch
							       : 0.0f;
	if (ms >= e->disable_at_ms)
		e->emu.params.baro[0].disable = 1;
	const bool frozen = ms >= e->freeze_from && ms < e->freeze_to;
	e->emu.params.baro[0].freeze = frozen;
	struct baro_sitl_truth truth = { 0 };
	assert_int_equal(altitude(e->atmos, m.abs_pressure * 100.0f,
				  &truth.alt_amsl_m), 0);
	struct baro_sample s[BARO_MAX_INSTANCES];
	unsigned got = baro_sitl_update(&e->emu, ms + BARO_SITL_PERIOD_MS,
					&truth, s);
	enum fault_kind kind = FAULT_NONE;
	for (int i = 0; i < 2; i++)
		if (ms >= e->ov_from[i] && ms < e->ov_to[i])
			kind = e->ov_kind[i];
	if (kind != e->ov_now) {
		struct fault_spec spec = {
			.kind = kind,
			.every = kind == FAULT_SLOW ? FAULT_SLOW_DEFAULT : 0,
		};
		assert_int_equal(fault_overlay_set(&e->ov, 0, spec), 0);
		e->ov_now = kind;
	}
	/* Baro 0's sample, if it took one (a disabled one does not). */
	if (got >= 1 && s[0].instance == 0) {
		s[0].temperature_c = m.temperature;
		if (s[0].alt_m == truth.alt_amsl_m)
			s[0].pressure_pa = m.abs_pressure * 100.0f;
		e->have_cur = true;
		e->cur_withheld = !fault_overlay_apply(&e->ov, &s[0]);
		e->cur_held_temp = s[0].temperature_c != m.temperature;
		e->cur_clean = !e->cur_withheld && !e->cur_held_temp &&
			       s[0].pressure_pa == m.abs_pressure * 100.0f;
		e->cur = s[0];
	}
	if (e->emu.params.baro[0].disable ||
	    (e->have_cur && e->cur_withheld)) {
		m.fields_updated &= ~0x1A00u;
	} else if (!e->have_cur || e->cur_clean) {
		return false;
	} else {
		m.abs_pressure = e->cur.pressure_pa * 0.01f;
		assert_int_equal(altitude(e->atmos, e->cur.pressure_pa,
					  &m.pressure_alt), 0);
		/* garbage: the overlay's temperature; stuck: held; else
		 * (SIM_BARO_FREEZE too) the frame's own, live. */
		if (e->cur_held_temp)
			m.temperature = e->cur.temperature_c;
	}
	mavlink_pack_hil_sensor(&m, pl);
	int k = mavlink_frame_encode(out, 2, in[4], in[5], in[6],
				     MAVLINK_MSG_HIL_SENSOR, pl);
	/* Trimming gives the same length here (fields_updated's low
	 * bytes stay non-zero), so the sender's frame and ours line up. */
	assert_int_equal((size_t)k, n);
	return true;
}

/* ---- one lockstep step --------------------------------------------- */

struct run {
	unsigned steps;
	unsigned rewritten, cleared;
	uint64_t t0;
	/* Rewritten frames, hex, for node-mavlink. */
	char *hex;
	size_t hex_len, hex_cap;
	struct mavlink_hil_sensor want[64];
	unsigned n_want;
};

static void
keep_hex(struct run *run, const uint8_t *f, size_t n)
{
	if (run->n_want >= 64)
		return;
	if (run->hex_len + 2 * n + 2 > run->hex_cap) {
		run->hex_cap = run->hex_cap * 2 + 4096;
		run->hex = realloc(run->hex, run->hex_cap);
		assert_non_null(run->hex);
	}
	for (size_t i = 0; i < n; i++)
		run->hex_len += (size_t)sprintf(run->hex + run->hex_len,
						"%02x", f[i]);
	run->hex[run->hex_len++] = '\n';
	run->hex[run->hex_len] = '\0';
	unpack_hil_sensor(f, &run->want[run->n_want++]);
}

/* PX4's HIL_ACTUATOR_CONTROLS for step k: the simulator receives it
 * unchanged. */
static void
answer(struct rig *r, unsigned k)
{
	uint8_t tx[128], rx[128];
	size_t a = actuators(r, tx, k);

	relay(r->px4, r->sim, tx, a, rx);
	assert_memory_equal(rx, tx, a);
}

/*
 * Steps [from, to): the simulator sends HIL_SENSOR (and HIL_GPS every
 * 50th step), PX4 must receive exactly the expected bytes and answers
 * with HIL_ACTUATOR_CONTROLS, which the simulator must receive exactly.
 */
static void
lockstep(struct rig *r, struct expect *e, struct run *run, unsigned from,
	 unsigned to)
{
	uint8_t tx[1024], want[1024], rx[1024];

	for (unsigned k = from; k < to; k++) {
		size_t n = hil_sensor(r, tx, k, run->t0);
		bool changed = expected_frame(e, tx, n, want);
		size_t total = n;
		if (k % 50 == 0)
			total += hil_gps(r, tx + n, k);
		if (k % 2 == 0)
			total += state_quaternion(r, tx + total, k, run->t0);
		memcpy(want + n, tx + n, total - n);
		relay(r->sim, r->px4, tx, total, rx);
		if (memcmp(rx, want, total) != 0) {
			for (size_t i = 0; i < total; i++)
				if (rx[i] != want[i])
					fail_msg("step %u: byte %zu is %02x, "
						 "expected %02x (sent %02x)",
						 k, i, rx[i], want[i], tx[i]);
		}
		if (changed) {
			if ((le_get32(want + 10 + 60) & 0x1A00) == 0)
				run->cleared++;
			else
				run->rewritten++;
			keep_hex(run, rx, n);
		}
		answer(r, k);
		run->steps++;
	}
}

/* stop, then each string that follows (up to a NULL) must be in
 * barod's log; run's frames (when run is not NULL) are freed. */
static void
finish(struct rig *r, struct run *run, ...)
{
	char *log = stop(r);
	const char *want;
	va_list ap;

	va_start(ap, run);
	while ((want = va_arg(ap, const char *)))
		if (!strstr(log, want))
			fail_msg("barod's log lacks \"%s\":\n%s", want, log);
	va_end(ap);
	free(log);
	if (run)
		free(run->hex);
}

/* barod's own SCALED_PRESSURE (sysid 1): how many, the latest. */
struct gcs_log {
	unsigned count;
	uint32_t last_ms;
	float last_hpa;
};

static void
on_gcs(const struct mavlink_frame *f, void *user)
{
	struct gcs_log *g = user;
	struct mavlink_scaled_pressure m;

	if (f->msgid != MAVLINK_MSG_SCALED_PRESSURE)
		return;
	mavlink_unpack_scaled_pressure(f->payload, &m);
	g->count++;
	g->last_ms = m.time_boot_ms;
	g->last_hpa = m.press_abs;
}

static void
test_clean_passthrough(void **state)
{
	struct rig r;
	struct expect e;
	struct run run = { .t0 = T0_US };

	(void)state;
	expect_init(&e);
	start(&r, NULL, NULL);
	/* What PX4 sends first: HEARTBEAT (autopilot PX4) and COMMAND_LONG
	 * SET_MESSAGE_INTERVAL for HIL_STATE_QUATERNION at 200 Hz. */
	struct mavlink_heartbeat hb = { .autopilot = 12, .mavlink_version = 3 };
	struct mavlink_command_long cl = { .command = 511,
		.param = { 115, 5000 } };
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 }, tx[600], rx[600];
	mavlink_pack_heartbeat(&hb, pl);
	size_t n = (size_t)mavlink_frame_encode(tx, 2, 0, 1, 1,
						MAVLINK_MSG_HEARTBEAT, pl);
	mavlink_pack_command_long(&cl, pl);
	n += (size_t)mavlink_frame_encode(tx + n, 2, 1, 1, 1,
					  MAVLINK_MSG_COMMAND_LONG, pl);
	/* ... and bytes no parser would take, which pass all the same. */
	memcpy(tx + n, "\xfd\x01\x00", 3);
	n += 3;
	relay(r.px4, r.sim, tx, n, rx);
	assert_memory_equal(rx, tx, n);
	lockstep(&r, &e, &run, 0, 500);
	/* A clean emulator changes nothing: the whole stream is equal. */
	assert_int_equal(run.rewritten + run.cleared, 0);
	finish(&r, &run, "HIL_SENSOR 500, baro 100, rewritten 0",
	       "PX4 connects 1", NULL);
}

/* A scheduled glitch moves abs_pressure from its simulator time on;
 * barod's own SCALED_PRESSURE follows physics time; node-mavlink reads
 * the rewritten frames as we do. */
static void
test_glitch(void **state)
{
	struct rig r;
	struct expect e;
	struct run run = { .t0 = T0_US };
	struct gcs_log g = { 0 };

	(void)state;
	expect_glitch(&e, 20.0f, 1000);
	start(&r, NULL, "at 1s set SIM_BARO_GLITCH 20 for 60min\n");
	lockstep(&r, &e, &run, 0, 500);
	/* Baro frames every 20 ms; from 1000 ms on: steps 250, 255 .. 495. */
	assert_int_equal(run.rewritten, 50);
	assert_int_equal(run.cleared, 0);
	/* The first rewritten frame is 20 m up (1976 model, ~2.3 hPa). */
	assert_close_abs(run.want[0].abs_pressure, sim_pressure_hpa(250) -
			 2.3, 0.1);
	assert_int_equal(gcs_peer_drain(r.gcs, GCS_WAIT_MS, on_gcs, &g), 0);
	/* One sample per baro frame, stamped with physics time (2 s of it
	 * went by in far less wall time). */
	assert_int_equal(g.count, 100);
	assert_int_equal(g.last_ms, 495 * STEP_US / 1000);
	assert_float_exact(g.last_hpa, run.want[run.n_want - 1].abs_pressure);

	finish(&r, NULL, "rewritten 50, baro cleared 0", NULL);

	/* node-mavlink: CRCs good, fields as we expect. */
	if (harness_node_peer_skip(&harness)) {
		free(run.hex);
		return;
	}
	const char *argv[] = { "node", getenv("MAVLINK_PEER"), "decode", NULL };
	assert_non_null(argv[1]);
	struct program_result pr = run_program("node", argv, run.hex);
	if (pr.status != 0)
		fail_msg("node mavlink-peer.mjs decode: %d\n%s", pr.status,
			 pr.err);
	unsigned i = 0;
	for (char *line = strtok(pr.out, "\n"); line;
	     line = strtok(NULL, "\n"), i++) {
		json_object *o = json_tokener_parse(line), *v, *fl;
		assert_non_null(o);
		assert_true(json_object_object_get_ex(o, "crc_ok", &v));
		assert_true(json_object_get_boolean(v));
		assert_true(json_object_object_get_ex(o, "name", &v));
		assert_string_equal(json_object_get_string(v), "HIL_SENSOR");
		assert_true(json_object_object_get_ex(o, "fields", &fl));
		const struct mavlink_hil_sensor *w = &run.want[i];
		static const char *const names[] = {
			"abs_pressure", "pressure_alt", "temperature" };
		const float want_f[] = { w->abs_pressure, w->pressure_alt,
					 w->temperature };
		for (int k = 0; k < 3; k++) {
			assert_true(json_object_object_get_ex(fl, names[k], &v));
			assert_float_exact((float)json_object_get_double(v),
					   want_f[k]);
		}
		assert_true(json_object_object_get_ex(fl, "fields_updated", &v));
		assert_int_equal(json_object_get_int64(v), 0x1BFF);
		json_object_put(o);
	}
	assert_int_equal(i, run.n_want);
	program_result_free(&pr);
	free(run.hex);
}

/* The same with the legacy atmosphere (barod's default): the truth is
 * its inverse, the faulted pressure its forward model. */
static void
test_glitch_simple_atmosphere(void **state)
{
	struct rig r;
	struct expect e;
	struct run run = { .t0 = T0_US };

	(void)state;
	expect_init_atmos(&e, BARO_SITL_ATMOS_SIMPLE);
	e.glitch = 20.0f;
	e.glitch_at_ms = 200;
	start(&r, "atmosphere = simple\n",
	      "at 200ms set SIM_BARO_GLITCH 20 for 60min\n");
	lockstep(&r, &e, &run, 0, 200);
	assert_int_equal(run.rewritten, 30);	/* 200, 220 .. 780 ms */
	finish(&r, &run, NULL);
}

/* PX4's failure types that ArduPilot's parameters cannot express go
 * through barod's overlay: `slow` withholds nine samples in ten (their
 * frames lose the baro bits), `garbage` writes the overlay's random
 * pressure and temperature. */
static void
test_px4_failure_types(void **state)
{
	struct rig r;
	struct expect e;
	struct run run = { .t0 = T0_US };

	(void)state;
	expect_init(&e);
	e.ov_kind[0] = FAULT_SLOW;
	e.ov_from[0] = 200;
	e.ov_to[0] = 400;
	e.ov_kind[1] = FAULT_GARBAGE;
	e.ov_from[1] = 600;
	e.ov_to[1] = 800;
	start(&r, NULL, "at 200ms px4 slow 0 for 200ms\n"
			"at 600ms px4 garbage 0 for 200ms\n"
			"at 10min end\n");
	lockstep(&r, &e, &run, 0, 250);
	assert_int_equal(run.cleared, 9);	/* 220 .. 380 ms */
	assert_int_equal(run.rewritten, 10);	/* 600 .. 780 ms */
	finish(&r, &run, "rewritten 10, baro cleared 9", NULL);
}

/* PX4's `stuck` is the overlay's: the last sample before it, pressure
 * and temperature, held, so PX4's stale check can see it (PX4's own
 * `failure baro stuck` holds both). */
static void
test_stuck(void **state)
{
	struct rig r;
	struct expect e;
	struct run run = { .t0 = T0_US };

	(void)state;
	expect_init(&e);
	e.ov_kind[0] = FAULT_STUCK;
	e.ov_from[0] = 200;
	e.ov_to[0] = 500;
	start(&r, NULL, "at 200ms px4 stuck 0 for 300ms\nat 10min end\n");
	lockstep(&r, &e, &run, 0, 200);
	assert_int_equal(run.rewritten, 15);	/* 200 .. 480 ms */
	/* Every rewritten frame has the same pressure and temperature. */
	for (unsigned i = 1; i < run.n_want; i++) {
		assert_float_exact(run.want[i].abs_pressure,
				   run.want[0].abs_pressure);
		assert_float_exact(run.want[i].temperature,
				   run.want[0].temperature);
	}
	finish(&r, &run, NULL);
}

/* --record holds what PX4 received: each recorded sample's temperature
 * is the frame's bit for bit, its pressure PX4's (abs_pressure x 100) bit
 * for bit where no fault touched the frame, and where one did the
 * pressure barod wrote in hPa (PX4's hPa-to-Pa rounding aside: one
 * float step).  Clean, glitched, stuck (PX4's), frozen (ArduPilot's,
 * temperature live) and garbage frames. */
static void
test_record_what_px4_got(void **state)
{
	struct rig r;
	char rec[512], extra[700];
	uint8_t tx[1024], rx[1024];
	enum { STEPS = 400 };
	static struct {
		bool baro;
		float pa, temp;
		bool rewritten;
	} got[STEPS];

	(void)state;
	path_in_tmp(rec, sizeof(rec), "proxy-record.csv");
	snprintf(extra, sizeof(extra), "[barod]\nrecord = %s\n[sim]\n", rec);
	start(&r, extra, "at 200ms glitch 0 5 for 200ms\n"
			 "at 500ms px4 stuck 0 for 200ms\n"
			 "at 800ms freeze 0 for 200ms\n"
			 "at 1100ms px4 garbage 0 for 200ms\n"
			 "at 10min end\n");
	for (unsigned k = 0; k < STEPS; k++) {
		size_t n = hil_sensor(&r, tx, k, T0_US);
		relay(r.sim, r.px4, tx, n, rx);
		struct mavlink_hil_sensor m;
		unpack_hil_sensor(rx, &m);
		got[k].baro = (m.fields_updated & 0x1A00) == 0x1A00;
		got[k].pa = m.abs_pressure * 100.0f;	/* as PX4 reads it */
		got[k].temp = m.temperature;
		got[k].rewritten = memcmp(rx, tx, n) != 0;
		answer(&r, k);
	}
	free(stop(&r));

	char *csv = read_file(rec);
	unsigned rows = 0, rewritten = 0, held = 0;
	float stuck_pa = NAN, stuck_temp = NAN;
	for (char *line = strchr(csv, '\n'); line && line[1];
	     line = strchr(line + 1, '\n')) {
		unsigned long long ms;
		unsigned inst;
		char alt[32];
		float pa, temp;
		if (sscanf(line + 1, "%llu,%u,%31[^,],%f,%f", &ms, &inst, alt,
			   &pa, &temp) != 5 &&
		    sscanf(line + 1, "%llu,%u,,%f,%f", &ms, &inst, &pa,
			   &temp) != 4)
			fail_msg("record line: %.60s", line + 1);
		if (inst != 0)
			continue;
		assert_int_equal(ms % 4, 0);
		const unsigned k = (unsigned)(ms / 4);
		assert_true(k < STEPS);
		assert_true(got[k].baro);
		assert_float_exact(temp, got[k].temp);
		if (got[k].rewritten) {
			rewritten++;
			assert_true(float_ulps(pa, got[k].pa) <= 1);
		} else {
			assert_float_exact(pa, got[k].pa);
		}
		if (ms >= 520 && ms < 700) {
			if (isnan(stuck_pa)) {
				stuck_pa = pa;
				stuck_temp = temp;
			}
			assert_float_exact(pa, stuck_pa);
			assert_float_exact(temp, stuck_temp);
			held++;
		}
		rows++;
	}
	free(csv);
	/* A baro frame every 20 ms, a sample in each. */
	assert_true(rows >= STEPS / 5 - 2);
	assert_true(rewritten >= 30);
	assert_true(held >= 8);
}

/* The baro in every 250 Hz frame, as jMAVSim sends it: the emulator
 * samples every 12 ms (the first frame 10 ms or more after the last),
 * and the frames in between carry its latest sample. */
static void
test_baro_every_frame(void **state)
{
	struct rig r;
	struct expect e;
	struct run run = { .t0 = T0_US };

	(void)state;
	expect_glitch(&e, 8.0f, 100);
	start(&r, NULL, "at 100ms set SIM_BARO_GLITCH 8 for 60min\n");
	r.baro_every = 1;
	lockstep(&r, &e, &run, 0, 100);
	/* Samples at 0, 12 .. 96 ms are clean; the one at 108 ms is the
	 * first glitched, and every frame from it on carries a glitch:
	 * steps 27 .. 99. */
	assert_int_equal(run.rewritten, 73);
	finish(&r, &run, "HIL_SENSOR 100, baro 100, rewritten 73", NULL);
}

/* Busy-polling for PX4's and the simulator's answers changes nothing
 * PX4 gets: the glitched run again, every byte as expected. */
static void
test_busy_poll(void **state)
{
	struct rig r;
	struct expect e;
	struct run run = { .t0 = T0_US };

	(void)state;
	expect_glitch(&e, 8.0f, 100);
	start(&r, "[barod]\nbusy_poll_us = 300\n",
	      "at 100ms set SIM_BARO_GLITCH 8 for 60min\n");
	r.baro_every = 1;
	lockstep(&r, &e, &run, 0, 100);
	assert_int_equal(run.rewritten, 73);
	finish(&r, &run, "HIL_SENSOR 100, baro 100, rewritten 73",
	       "busy-polls ", NULL);
}

/* The busy-poll waits for the answer to a frame passed on, never for
 * one to half a frame: a HIL_SENSOR the simulator writes in two halves
 * costs one poll (after its second half), as a whole one does, and PX4's
 * controls one more.  Before, each half started a poll: 3 per step. */
static void
test_busy_poll_split_frames(void **state)
{
	struct rig r;
	struct run run = { .t0 = T0_US };
	uint8_t tx[256], rx[256];
	const unsigned steps = 20;
	unsigned long long polls = 0;

	(void)state;
	start(&r, "[barod]\nbusy_poll_us = 1000\n", NULL);
	for (unsigned k = 0; k < steps; k++) {
		size_t n = hil_sensor(&r, tx, k, run.t0);
		send_all(r.sim, tx, n / 2);
		/* Past the poll barod started for PX4's last controls, so
		 * the half is read alone. */
		usleep(3000);
		send_all(r.sim, tx + n / 2, n - n / 2);
		/* The frame whole (its baro may carry the emulator's
		 * noise: the other tests check the bytes). */
		recv_exact(r.px4, rx, n);
		assert_memory_equal(rx, tx, 10);
		answer(&r, k);
	}
	char *log = stop(&r);
	const char *bp = strstr(log, "busy-polls ");
	unsigned long long hits = 0, us = 0, skipped = 0;
	if (!bp || sscanf(bp, "busy-polls %llu (%llu answered within %llu "
			      "us), %llu skipped", &polls, &hits, &us,
			  &skipped) != 4)
		fail_msg("no busy-polls count in barod's log:\n%s", log);
	/* One answer expected per frame each way (the first HIL_SENSOR has
	 * no controls before it): polled, or skipped for a side whose
	 * answers came too late on a slow machine. */
	if (polls + skipped < steps || polls + skipped > 2 * steps)
		fail_msg("%llu busy-polls and %llu skipped for %u steps of "
			 "split frames, expected %u..%u in all", polls, skipped,
			 steps, steps, 2 * steps);
	free(log);
}

/* A disabled baro: the frames stay (IMU and clock) without baro bits. */
static void
test_disable(void **state)
{
	struct rig r;
	struct expect e;
	struct run run = { .t0 = T0_US };
	struct gcs_log g = { 0 };

	(void)state;
	expect_init(&e);
	e.disable_at_ms = 500;
	start(&r, NULL, "at 500ms set SIM_BARO_DISABLE 1 for 60min\n");
	lockstep(&r, &e, &run, 0, 300);
	assert_int_equal(run.rewritten, 0);
	assert_int_equal(run.cleared, 35);	/* steps 125, 130 .. 295 */
	assert_int_equal(gcs_peer_drain(r.gcs, GCS_WAIT_MS, on_gcs, &g), 0);
	assert_int_equal(g.count, 25);		/* steps 0 .. 120 */
	finish(&r, &run, "baro cleared 35", NULL);
}

/* Simulator restart, PX4 restart, time going back: each detected,
 * counted, logged, and the emulator and scenario start again. */
static void
test_restarts(void **state)
{
	struct rig r;
	struct expect e;
	struct run run = { .t0 = T0_US };

	(void)state;
	start(&r, NULL, "at 200ms set SIM_BARO_GLITCH 10 for 100ms\n"
			 "at 10min end\n");
	for (int round = 0; round < 4; round++) {
		expect_glitch(&e, 10.0f, 200);
		e.glitch_end_ms = 300;
		run.rewritten = 0;
		lockstep(&r, &e, &run, 0, 100);
		assert_int_equal(run.rewritten, 5);	/* 200 .. 280 ms */
		switch (round) {
		case 0:	/* the simulator goes away and comes back */
			close(r.sim);
			r.sim = accept_barod(&r);
			run.t0 = 0;
			break;
		case 1:	/* PX4 goes: barod lets the simulator go too */
			close(r.px4);
			expect_eof(r.sim);
			close(r.sim);
			r.px4 = connect_px4(r.px4_port);
			r.sim = accept_barod(&r);
			run.t0 = 777000;
			break;
		case 2:	/* the same connection, time back to 0 */
			run.t0 = 0;
			break;
		default:
			break;
		}
	}
	finish(&r, &run,
	       "restarts 3, PX4 connects 2, PX4 disconnects 1, simulator "
	       "connects 3, simulator disconnects 1",
	       "simulator connection lost: physics restarted",
	       "HIL_SENSOR time went back", NULL);
}

/* PX4 first, the simulator later: barod holds PX4's connection and
 * retries until the simulator listens; what PX4 sent meanwhile is
 * counted, not queued for a simulator that did not exist. */
static void
test_simulator_late(void **state)
{
	struct rig r;
	struct expect e;
	struct run run = { .t0 = T0_US };
	uint8_t tx[600];

	(void)state;
	start(&r, NULL, NULL);
	/* Take the simulator away before PX4 says anything, and let
	 * barod find it gone at least once. */
	close(r.sim);
	close(r.listen_fd);
	size_t n = actuators(&r, tx, 0);
	usleep(700000);
	send_all(r.px4, tx, n);
	usleep(300000);
	r.listen_fd = tcp_listener_at(r.sim_port);
	assert_true(r.listen_fd >= 0);
	r.sim = accept_barod(&r);
	expect_init(&e);
	lockstep(&r, &e, &run, 0, 50);
	char *log = stop(&r);
	assert_non_null(strstr(log, "simulator connects 2, simulator "
				    "disconnects 1"));
	/* One outage, one line, however many refused retries. */
	const char *first = strstr(log, "disconnected (closed); reconnecting");
	assert_non_null(first);
	assert_null(strstr(first + 1, "disconnected"));
	assert_null(strstr(log, "Connection refused"));
	assert_non_null(strstr(log, "unsent PX4 bytes 93"));
	free(log);
	free(run.hex);
}

/* Garbage, bad CRCs, partial baro bits, an oversized HIL_SENSOR and a
 * frame cut by a disconnect: passed on as they are (PX4's parser sees
 * what it would have seen), never a crash, the stream goes on. */
static void
test_malformed(void **state)
{
	struct rig r;
	struct expect e;
	struct run run = { .t0 = T0_US };
	uint8_t tx[1024], rx[1024], want[1024];

	(void)state;
	expect_glitch(&e, 20.0f, 0);
	start(&r, NULL, "at 0s set SIM_BARO_GLITCH 20 for 60min\n");
	lockstep(&r, &e, &run, 0, 10);
	assert_int_equal(run.rewritten, 2);

	/* Garbage (no start byte in it), then a HIL_SENSOR with a bad CRC,
	 * then one with only ABS_PRESSURE of the three baro bits. */
	size_t n = 0;
	for (; n < 300; n++)
		tx[n] = (uint8_t)(n * 7 % 250);
	size_t k = hil_sensor(&r, tx + n, 10, run.t0);
	tx[n + k - 1] ^= 0x40;
	n += k;
	struct mavlink_hil_sensor m = { .time_usec = run.t0 + 11 * STEP_US,
		.abs_pressure = 950.0f, .fields_updated = 0x3F | 0x200 };
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
	mavlink_pack_hil_sensor(&m, pl);
	n += (size_t)mavlink_frame_encode(tx + n, 2, r.seq_sim++, 1, 200,
					  MAVLINK_MSG_HIL_SENSOR, pl);
	/* And a baro frame whose pressure has no altitude (0 hPa). */
	m.time_usec = run.t0 + 12 * STEP_US;
	m.abs_pressure = 0.0f;
	m.fields_updated = 0x1BFF;
	mavlink_pack_hil_sensor(&m, pl);
	n += (size_t)mavlink_frame_encode(tx + n, 2, r.seq_sim++, 1, 200,
					  MAVLINK_MSG_HIL_SENSOR, pl);
	relay(r.sim, r.px4, tx, n, rx);
	assert_memory_equal(rx, tx, n);

	/* Oversized: LEN 255, the bytes past the message non-zero, CRC
	 * good.  PX4's C library takes it (reading the first 65 bytes);
	 * barod rewrites the baro in place and keeps the rest. */
	k = hil_sensor(&r, tx, 15, run.t0);
	assert_true(expected_frame(&e, tx, k, want));
	uint8_t big[300] = { 0 };
	memcpy(big, tx, 10);
	memcpy(big + 10, tx + 10, tx[1]);
	for (size_t i = 10 + 65; i < 10 + 255; i++)
		big[i] = (uint8_t)(i | 1);
	big[1] = 255;
	uint16_t crc = mavlink_crc(big + 1, 9 + 255, 0xFFFF);
	const uint8_t extra = 108;
	crc = mavlink_crc(&extra, 1, crc);
	big[265] = (uint8_t)crc;
	big[266] = (uint8_t)(crc >> 8);
	relay(r.sim, r.px4, big, 267, rx);
	assert_memory_equal(rx, big, 10 + 44);
	assert_memory_equal(rx + 10 + 44, want + 10 + 44, 16);
	assert_memory_equal(rx + 10 + 60, big + 10 + 60, 255 - 60);
	crc = mavlink_crc(rx + 1, 9 + 255, 0xFFFF);
	crc = mavlink_crc(&extra, 1, crc);
	assert_int_equal(rx[265] | rx[266] << 8, crc);

	/* The stream goes on in lockstep. */
	lockstep(&r, &e, &run, 16, 40);

	/* Half a HIL_SENSOR, then the simulator dies: the half is held
	 * back (PX4 must not get a frame that never ends), and the next
	 * simulator connection starts clean. */
	k = hil_sensor(&r, tx, 40, run.t0);
	send_all(r.sim, tx, k / 2);
	close(r.sim);
	r.sim = accept_barod(&r);
	expect_glitch(&e, 20.0f, 0);
	run.t0 = 0;
	lockstep(&r, &e, &run, 0, 20);
	finish(&r, &run, "bad CRC 1, signed 0, bad baro 1",
	       "abs_pressure is not an air pressure", NULL);
}

/* The simulator dies in the middle of a frame barod does not edit (a
 * HIL_GPS): PX4 must not get its first half either (it would take the
 * next simulator's first frame as the rest of it), and the next
 * connection starts clean, as after half a HIL_SENSOR. */
static void
test_simulator_dies_mid_frame(void **state)
{
	struct rig r;
	struct expect e;
	struct run run = { .t0 = T0_US };
	uint8_t tx[256], rx[16];

	(void)state;
	expect_init(&e);
	start(&r, NULL, NULL);
	lockstep(&r, &e, &run, 0, 10);
	size_t k = hil_gps(&r, tx, 10);
	send_all(r.sim, tx, k / 2);
	close(r.sim);
	r.sim = accept_barod(&r);
	if (readable(r.px4, 200)) {
		ssize_t n = recv(r.px4, rx, sizeof(rx), MSG_DONTWAIT);
		fail_msg("PX4 got %zd bytes of a frame that never ends", n);
	}
	expect_init(&e);
	run.t0 = 0;
	lockstep(&r, &e, &run, 0, 20);
	/* The half frame is counted where the exit report shows it. */
	char lost[64];
	snprintf(lost, sizeof(lost), "lost bytes %zu\n", k / 2);
	finish(&r, &run, "simulator disconnects 1", lost, NULL);
}

static void
baroctl(const char *args, char *out, size_t cap)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "%s -s %s %s 2>&1", getenv("BAROCTL"),
		 control_path, args);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	size_t n = fread(out, 1, cap - 1, p);
	out[n] = '\0';
	int status = pclose(p);
	if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		fail_msg("baroctl %s: %s", args, out);
}

/* A live parameter change (baroctl, as a GCS's PARAM_SET would) acts on
 * the next baro frame; the status line counts what the proxy did. */
static void
test_live_params(void **state)
{
	struct rig r;
	struct expect e;
	struct run run = { .t0 = T0_US };
	char out[4096];

	(void)state;
	path_in_tmp(control_path, sizeof(control_path), "barod.sock");
	expect_init(&e);
	start(&r, NULL, NULL);
	lockstep(&r, &e, &run, 0, 100);
	assert_int_equal(run.rewritten, 0);
	baroctl("set SIM_BARO_GLITCH 15", out, sizeof(out));
	e.glitch = 15.0f;
	e.glitch_at_ms = 100 * STEP_US / 1000;
	lockstep(&r, &e, &run, 100, 200);
	assert_int_equal(run.rewritten, 20);
	baroctl("status", out, sizeof(out));
	if (!strstr(out, "px4 0 physics 0.796 s hil-sensor 200 baro 40 "
			 "rewritten 20 baro-cleared 0 restarts 0 px4-connects 1 "
			 "simulator-connects 1 bad-crc 0 dropped-bytes 0"))
		fail_msg("status:\n%s", out);
	control_path[0] = '\0';
	finish(&r, &run, NULL);
}

/* Two listeners on consecutive ports. */
static void
listener_pair(int fd[2], unsigned *port)
{
	for (int i = 0; i < 100; i++) {
		fd[0] = tcp_listener(port);
		fd[1] = tcp_listener_at(*port + 1);
		if (fd[1] >= 0)
			return;
		close(fd[0]);
	}
	fail_msg("no two consecutive free ports");
}

/* Two PX4 instances in one barod: instance 1 on port + 1 talks to the
 * simulator on upstream + 1, with its own emulator on its own clock,
 * following the same scenario; its SCALED_PRESSURE come as sysid 2. */
static void
test_two_instances(void **state)
{
	struct rig r[2];
	struct expect e[2];
	struct run run[2] = { { .t0 = T0_US }, { .t0 = 5000000 } };
	int lsim[2], lpx4[2];
	unsigned sim_port, px4_port, gcs_port;

	(void)state;
	listener_pair(lsim, &sim_port);
	listener_pair(lpx4, &px4_port);
	close(lpx4[0]);
	close(lpx4[1]);
	int gcs = udp_loopback(&gcs_port, SOCK_NONBLOCK);
	start_barod(px4_port, sim_port, gcs_port, 2, NULL,
		    "at 100ms set SIM_BARO_GLITCH 5 for 60min\n");
	for (int v = 0; v < 2; v++) {
		memset(&r[v], 0, sizeof(r[v]));
		r[v].listen_fd = lsim[v];
		r[v].px4 = connect_px4(px4_port + (unsigned)v);
		r[v].sim = accept_barod(&r[v]);
		r[v].gcs = v == 0 ? gcs : -1;
		expect_init(&e[v]);
		e[v].glitch = 5.0f;
	}
	/* Vehicle 0's clock runs the scenario (as with SITL instances):
	 * when vehicle 1 starts, the glitch is already on. */
	e[0].glitch_at_ms = 100;
	e[1].glitch_at_ms = 0;
	lockstep(&r[0], &e[0], &run[0], 0, 100);
	lockstep(&r[1], &e[1], &run[1], 0, 100);
	assert_int_equal(run[0].rewritten, 15);	/* 100, 120 .. 380 ms */
	assert_int_equal(run[1].rewritten, 20);

	unsigned by_sysid[3] = { 0 };
	assert_int_equal(gcs_peer_drain(gcs, GCS_WAIT_MS, gcs_peer_count_sysid,
					by_sysid), 0);
	assert_int_equal(by_sysid[1], 20);
	assert_int_equal(by_sysid[2], 20);

	r[1].gcs = -1;
	close(r[1].px4);
	close(r[1].sim);
	close(r[1].listen_fd);
	r[1].px4 = r[1].sim = -1;
	finish(&r[0], &run[0], "PX4 instance 1: HIL_SENSOR 100, baro 20, "
	       "rewritten 20", NULL);
	free(run[1].hex);
}

/* Bad command lines: a clear message and exit status 2 (1 for a port
 * that cannot be listened on), never a half-started proxy. */
static void
test_cli(void **state)
{
	static const struct {
		const char *args[6];
		int status;
		const char *msg;
	} cases[] = {
		{ { "--px4-sim-proxy", "nowhere" }, 2, "is not HOST:PORT" },
		{ { "--px4-sim-proxy", "127.0.0.1:4600", "--px4-instances",
		    "9" }, 2, "--px4-instances: '9' is not 1..8" },
		{ { "--px4-sim-proxy", "127.0.0.1:65535", "--px4-instances",
		    "2" }, 1, "room for 2 instances" },
		{ { "--px4-sim-proxy", "127.0.0.1:4600", "--check-config" }, 0,
		  "configuration OK: source px4-sim-proxy" },
	};
	char conf[512];

	(void)state;
	path_in_tmp(conf, sizeof(conf), "empty.conf");
	write_file(conf, "[barod]\ncontrol = none\n");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *argv[12] = { "barod", "-c", conf, "-q" };
		int n = 4;
		for (int k = 0; k < 6 && cases[i].args[k]; k++)
			argv[n++] = cases[i].args[k];
		argv[n] = NULL;
		struct program_result pr = run_program(getenv("BAROD"), argv,
						       NULL);
		if (pr.status != cases[i].status ||
		    (!strstr(pr.err, cases[i].msg) &&
		     !strstr(pr.out, cases[i].msg)))
			fail_msg("case %zu: status %d\nstdout: %s\nstderr: %s",
				 i, pr.status, pr.out, pr.err);
		program_result_free(&pr);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		harness_unit_test(test_clean_passthrough, &harness),
		harness_unit_test(test_glitch, &harness),
		harness_unit_test(test_glitch_simple_atmosphere, &harness),
		harness_unit_test(test_baro_every_frame, &harness),
		harness_unit_test(test_busy_poll, &harness),
		harness_unit_test(test_busy_poll_split_frames, &harness),
		harness_unit_test(test_disable, &harness),
		harness_unit_test(test_stuck, &harness),
		harness_unit_test(test_record_what_px4_got, &harness),
		harness_unit_test(test_px4_failure_types, &harness),
		harness_unit_test(test_restarts, &harness),
		harness_unit_test(test_simulator_late, &harness),
		harness_unit_test(test_malformed, &harness),
		harness_unit_test(test_simulator_dies_mid_frame, &harness),
		harness_unit_test(test_live_params, &harness),
		harness_unit_test(test_two_instances, &harness),
		harness_unit_test(test_cli, &harness),
	};
	return harness_run_tests(&harness, "barod-px4-proxy", tests);
}
