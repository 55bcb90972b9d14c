/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * MAVLink codec throughput: frames encoded per second (pack + frame, so
 * what the daemon pays per message sent) for SCALED_PRESSURE v2 and
 * HEARTBEAT, and frames parsed per second from a buffer of mixed frames
 * fed in datagram-sized chunks, each frame unpacked; with a signing key,
 * what signing adds per frame sent and checking per frame received.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mavlink-sign.h"
#include "mavlink.h"
#include "bench-util.h"

static void
report(const char *label, unsigned long frames, double dt, unsigned sink)
{
	printf("%-32s %12.0f frames/s %8.1f ns/frame  (%lu frames%s)\n",
	       label, (double)frames / dt, dt * 1e9 / (double)frames, frames,
	       sink == 0 ? "!" : "");
}

static void
bench_encode_scaled_pressure(void)
{
	const unsigned long n = 5000000;
	uint8_t pl[MAVLINK_MAX_PAYLOAD], f[MAVLINK_MAX_FRAME];
	struct mavlink_scaled_pressure m = { 0, 1013.25f, 0.0f, 2500, 0 };
	unsigned sink = 0;

	double t0 = now_s();
	for (unsigned long k = 0; k < n; k++) {
		m.time_boot_ms = (uint32_t)k * 10u;
		m.press_abs = 1013.25f - (float)(k % 1000) * 0.01f;
		mavlink_pack_scaled_pressure(&m, pl);
		int len = mavlink_frame_encode(f, 2, (uint8_t)k, 1,
					       MAV_COMP_ID_ONBOARD_COMPUTER,
					       MAVLINK_MSG_SCALED_PRESSURE, pl);
		sink += (unsigned)len + f[len - 1];
	}
	report("encode SCALED_PRESSURE v2", n, now_s() - t0, sink);
}

static void
bench_encode_heartbeat(void)
{
	const unsigned long n = 5000000;
	uint8_t pl[MAVLINK_MAX_PAYLOAD], f[MAVLINK_MAX_FRAME];
	struct mavlink_heartbeat m = { 0, MAV_TYPE_ONBOARD_CONTROLLER,
				       MAV_AUTOPILOT_INVALID, 0,
				       MAV_STATE_ACTIVE, 3 };
	unsigned sink = 0;

	double t0 = now_s();
	for (unsigned long k = 0; k < n; k++) {
		mavlink_pack_heartbeat(&m, pl);
		int len = mavlink_frame_encode(f, 2, (uint8_t)k, 1,
					       MAV_COMP_ID_ONBOARD_COMPUTER,
					       MAVLINK_MSG_HEARTBEAT, pl);
		sink += (unsigned)len + f[len - 1];
	}
	report("encode HEARTBEAT v2", n, now_s() - t0, sink);
}

struct sink {
	unsigned long frames;
	unsigned acc;
};

static void
on_frame(const struct mavlink_frame *f, void *user)
{
	struct sink *s = user;

	s->frames++;
	if (f->msgid == MAVLINK_MSG_SCALED_PRESSURE) {
		struct mavlink_scaled_pressure m;
		mavlink_unpack_scaled_pressure(f->payload, &m);
		s->acc += (unsigned)m.temperature;
	} else if (f->msgid == MAVLINK_MSG_PARAM_SET) {
		struct mavlink_param_set m;
		mavlink_unpack_param_set(f->payload, &m);
		s->acc += (unsigned)m.param_id[0];
	} else {
		struct mavlink_heartbeat m;
		mavlink_unpack_heartbeat(f->payload, &m);
		s->acc += m.type;
	}
}

static void
bench_parse(void)
{
	enum { FRAMES = 3000, ROUNDS = 1000 };
	uint8_t *buf = malloc(FRAMES * 40);
	size_t len = 0;
	uint8_t pl[MAVLINK_MAX_PAYLOAD];

	if (!buf)
		return;
	/* 8 SCALED_PRESSURE : 1 HEARTBEAT : 1 PARAM_SET, as a mix of what
	 * the daemon sends and receives. */
	for (int k = 0; k < FRAMES; k++) {
		memset(pl, 0, sizeof(pl));
		uint32_t id;
		if (k % 10 == 8) {
			struct mavlink_heartbeat m = { 0, 6, 8, 0, 4, 3 };
			mavlink_pack_heartbeat(&m, pl);
			id = MAVLINK_MSG_HEARTBEAT;
		} else if (k % 10 == 9) {
			struct mavlink_param_set m = { 0.5f, 1, 191,
						       "SIM_BARO_GLITCH", 9 };
			mavlink_pack_param_set(&m, pl);
			id = MAVLINK_MSG_PARAM_SET;
		} else {
			struct mavlink_scaled_pressure m = {
				(uint32_t)k * 10u, 1013.25f, 0.0f,
				(int16_t)(2500 + k % 7), 0 };
			mavlink_pack_scaled_pressure(&m, pl);
			id = MAVLINK_MSG_SCALED_PRESSURE;
		}
		len += (size_t)mavlink_frame_encode(buf + len, 2, (uint8_t)k,
						    1, 1, id, pl);
	}

	struct mavlink_parser p;
	struct sink s = { 0, 0 };
	mavlink_parser_init(&p);
	double t0 = now_s();
	for (int r = 0; r < ROUNDS; r++) {
		/* UDP-sized chunks: a datagram never splits a frame here,
		 * but the parser does not rely on that. */
		for (size_t off = 0; off < len; off += 1400) {
			size_t k = len - off < 1400 ? len - off : 1400;
			mavlink_parser_feed(&p, buf + off, k, on_frame, &s);
		}
	}
	double dt = now_s() - t0;
	report("parse + unpack (mixed v2)", s.frames, dt, s.acc);
	printf("%-32s %12.1f MB/s\n", "",
	       (double)len * ROUNDS / dt / 1e6);
	free(buf);
}

/* SCALED_PRESSURE framed and signed, as barod sends with a key; then the
 * same frames checked by a receiver (one stream, rising timestamps). */
static void
bench_sign(void)
{
	enum { N = 1000000 };
	static uint8_t frames[64][MAVLINK_MAX_FRAME];
	static int lens[64];
	uint8_t pl[MAVLINK_MAX_PAYLOAD], key[MAVLINK_SIGN_KEY_LEN] = { 1 };
	struct mavlink_scaled_pressure m = { 0, 1013.25f, 0.0f, 2500, 0 };
	struct mavlink_signing tx, rx;
	const uint64_t t0_ts = 27992960000000ull;
	unsigned sink = 0;

	mavlink_signing_init(&tx, key, t0_ts);
	double t0 = now_s();
	for (unsigned long k = 0; k < N; k++) {
		uint8_t *f = frames[k % 64];
		m.time_boot_ms = (uint32_t)k * 10u;
		mavlink_pack_scaled_pressure(&m, pl);
		int len = mavlink_frame_encode(f, 2, (uint8_t)k, 1,
					       MAV_COMP_ID_ONBOARD_COMPUTER,
					       MAVLINK_MSG_SCALED_PRESSURE, pl);
		len = mavlink_sign_frame(&tx, f, (size_t)len, 0, t0_ts);
		lens[k % 64] = len;
		sink += (unsigned)len + f[len - 1];
	}
	report("encode + sign SCALED_PRESSURE", N, now_s() - t0, sink);

	/* The last 64 signed frames, checked over and over by receivers
	 * that start again every 64 (so each check is a fresh success). */
	sink = 0;
	t0 = now_s();
	for (unsigned long k = 0; k < N; k++) {
		if (k % 64 == 0)
			mavlink_signing_init(&rx, key, t0_ts);
		const unsigned i = (unsigned)((N + k) % 64);
		sink += mavlink_signing_check(&rx, frames[i], (size_t)lens[i],
					      t0_ts) == MAVLINK_SIGN_OK;
	}
	report("check signature", N, now_s() - t0, sink);
}

int
main(void)
{
	printf("MAVLink codec benchmark\n");
	bench_encode_scaled_pressure();
	bench_encode_heartbeat();
	bench_parse();
	bench_sign();
	return 0;
}
