/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * MAVLink 2 signing (src/proto/mavlink-sign.c) against the facts sheet's
 * signed vector (shared/docs/mavlink.md section 13), and the receiver's
 * rules: a wrong key or a changed byte, a replayed or older timestamp, a
 * new stream more than a minute in the past, a full stream table.
 * node-mavlink checks the same both ways in test-mavlink-peer.
 */
#include <errno.h>
#include <stdlib.h>

#include "mavlink-sign.h"
#include "mavlink.h"
#include "test-util.h"

#define V_SP2 "fd0e00000001011d0000e803000000507d4400000000c4095cd9"
#define V_SP2_SIGNED                                                     \
	"fd0e01000001011d0000e803000000507d4400000000c40995500200e06f9e7519" \
	"47d1a51cdc92"
/* The vector's timestamp: Unix ms 1700000000000. */
#define V_TS 27992960000000ull

static void
secret_key(uint8_t key[MAVLINK_SIGN_KEY_LEN])
{
	mavlink_sign_key_from_passphrase("secret", 6, key);
}

/* SCALED_PRESSURE v2 as the sheet's first vector, from sysid. */
static size_t
encode_sp(uint8_t frame[MAVLINK_MAX_FRAME], uint8_t sysid, uint8_t seq)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
	struct mavlink_scaled_pressure m = {
		.time_boot_ms = 1000, .press_abs = 1013.25f, .temperature = 2500,
	};

	mavlink_pack_scaled_pressure(&m, pl);
	int n = mavlink_frame_encode(frame, 2, seq, sysid, 1,
				     MAVLINK_MSG_SCALED_PRESSURE, pl);
	assert_true(n > 0);
	return (size_t)n;
}

/* A frame changed the way an attacker would: a payload byte, then a good
 * CRC again, so only the signature can tell. */
static void
tamper(uint8_t *frame, size_t len)
{
	frame[12] ^= 0x01;
	mavlink_frame_put_crc(
		frame, len - MAVLINK_SIGNATURE_LEN - 2,
		mavlink_msg_info(MAVLINK_MSG_SCALED_PRESSURE)->crc_extra);
}

static void
test_sheet_vector(void **state)
{
	(void)state;
	uint8_t key[MAVLINK_SIGN_KEY_LEN], frame[MAVLINK_MAX_FRAME];
	uint8_t want[MAVLINK_MAX_FRAME];
	struct mavlink_signing s;

	secret_key(key);
	mavlink_signing_init(&s, key, 0);
	size_t n = encode_sp(frame, 1, 0);
	uint8_t unsigned_want[64];
	assert_int_equal(n, unhex(V_SP2, unsigned_want, sizeof(unsigned_want)));
	assert_memory_equal(frame, unsigned_want, n);

	int len = mavlink_sign_frame(&s, frame, n, 2, V_TS);
	size_t wn = unhex(V_SP2_SIGNED, want, sizeof(want));
	assert_int_equal(len, (int)wn);
	assert_memory_equal(frame, want, wn);
	assert_int_equal(s.signed_out, 1);

	/* The receiver's side of the same vector. */
	struct mavlink_signing r;
	mavlink_signing_init(&r, key, V_TS);
	assert_int_equal(mavlink_signing_check(&r, want, wn, V_TS),
			 MAVLINK_SIGN_OK);
	assert_int_equal(r.checked[MAVLINK_SIGN_OK], 1);
}

static void
test_sign_refuses_what_it_cannot_sign(void **state)
{
	(void)state;
	uint8_t key[MAVLINK_SIGN_KEY_LEN] = { 0 }, frame[MAVLINK_MAX_FRAME];
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
	struct mavlink_signing s;

	mavlink_signing_init(&s, key, V_TS);
	/* v1 has no signature. */
	int n = mavlink_frame_encode(frame, 1, 0, 1, 1, MAVLINK_MSG_HEARTBEAT,
				     pl);
	assert_int_equal(mavlink_sign_frame(&s, frame, (size_t)n, 0, V_TS),
			 -EINVAL);
	/* Signed already, or a length that is not the frame's. */
	size_t m = encode_sp(frame, 1, 0);
	assert_int_equal(mavlink_sign_frame(&s, frame, m - 1, 0, V_TS),
			 -EINVAL);
	int len = mavlink_sign_frame(&s, frame, m, 0, V_TS);
	assert_true(len > 0);
	assert_int_equal(mavlink_sign_frame(&s, frame, m, 0, V_TS), -EINVAL);
	assert_int_equal(s.signed_out, 1);

	/* At the last timestamp 48 bits hold: refused, never wrapped. */
	mavlink_signing_init(&s, key, MAVLINK_SIGN_TS_MAX - 1);
	m = encode_sp(frame, 1, 0);
	assert_true(mavlink_sign_frame(&s, frame, m, 0, 0) > 0);
	m = encode_sp(frame, 1, 1);
	uint8_t before[MAVLINK_MAX_FRAME];
	memcpy(before, frame, m);
	assert_int_equal(mavlink_sign_frame(&s, frame, m, 0, 0), -ERANGE);
	assert_memory_equal(frame, before, m);
}

static void
test_timestamps_only_rise(void **state)
{
	(void)state;
	uint8_t key[MAVLINK_SIGN_KEY_LEN] = { 7 }, frame[MAVLINK_MAX_FRAME];
	struct mavlink_signing s, r;
	uint64_t last = 0;

	mavlink_signing_init(&s, key, V_TS);
	mavlink_signing_init(&r, key, V_TS);
	/* The wall clock steps back a minute half way: the frames still
	 * carry rising timestamps, and every one is accepted once. */
	for (int i = 0; i < 40; i++) {
		uint64_t now = i < 20 ? V_TS + (uint64_t)i
				      : V_TS - MAVLINK_SIGN_WINDOW;
		size_t n = encode_sp(frame, 1, (uint8_t)i);
		int len = mavlink_sign_frame(&s, frame, n, 0, now);
		assert_true(len > 0);
		uint64_t ts = 0;
		for (int b = 5; b >= 0; b--)
			ts = ts << 8 | frame[n + 1 + b];
		assert_true(ts > last);
		last = ts;
		assert_int_equal(mavlink_signing_check(&r, frame, (size_t)len,
						       now),
				 MAVLINK_SIGN_OK);
		assert_int_equal(mavlink_signing_check(&r, frame, (size_t)len,
						       now),
				 MAVLINK_SIGN_REPLAY);
	}
}

static void
test_receiver_refuses(void **state)
{
	(void)state;
	uint8_t key[MAVLINK_SIGN_KEY_LEN], other[MAVLINK_SIGN_KEY_LEN];
	uint8_t frame[MAVLINK_MAX_FRAME], copy[MAVLINK_MAX_FRAME];
	struct mavlink_signing s, r, wrong;

	secret_key(key);
	mavlink_sign_key_from_passphrase("secreT", 6, other);
	mavlink_signing_init(&s, key, V_TS);
	mavlink_signing_init(&r, key, V_TS);
	mavlink_signing_init(&wrong, other, V_TS);

	size_t n = encode_sp(frame, 1, 0);
	/* Unsigned. */
	assert_int_equal(mavlink_signing_check(&r, frame, n, V_TS),
			 MAVLINK_SIGN_UNSIGNED);
	int len = mavlink_sign_frame(&s, frame, n, 1, V_TS + 10);
	assert_true(len > 0);
	/* Another key. */
	assert_int_equal(mavlink_signing_check(&wrong, frame, (size_t)len,
					       V_TS),
			 MAVLINK_SIGN_BAD);
	/* One byte changed (CRC made good again), and each trailer byte. */
	memcpy(copy, frame, (size_t)len);
	tamper(copy, (size_t)len);
	assert_int_equal(mavlink_signing_check(&r, copy, (size_t)len, V_TS),
			 MAVLINK_SIGN_BAD);
	for (size_t i = n; i < (size_t)len; i++) {
		memcpy(copy, frame, (size_t)len);
		copy[i] ^= 0x80;
		assert_int_equal(mavlink_signing_check(&r, copy, (size_t)len,
						       V_TS),
				 MAVLINK_SIGN_BAD);
	}
	/* A bad frame taught the receiver nothing: the good one passes. */
	assert_int_equal(mavlink_signing_check(&r, frame, (size_t)len, V_TS),
			 MAVLINK_SIGN_OK);
	assert_int_equal(mavlink_signing_check(&r, frame, (size_t)len, V_TS),
			 MAVLINK_SIGN_REPLAY);
	assert_int_equal(r.checked[MAVLINK_SIGN_BAD], 1 + MAVLINK_SIGNATURE_LEN);
	assert_int_equal(r.checked[MAVLINK_SIGN_UNSIGNED], 1);
}

static void
test_new_stream_window(void **state)
{
	(void)state;
	uint8_t key[MAVLINK_SIGN_KEY_LEN] = { 1, 2, 3 };
	uint8_t frame[MAVLINK_MAX_FRAME];
	struct mavlink_signing old, r;
	const uint64_t now = V_TS + 1000000;

	mavlink_signing_init(&r, key, now);
	/* A sender whose clock is 61 s behind: refused as stale. */
	mavlink_signing_init(&old, key, now - MAVLINK_SIGN_WINDOW - 100000);
	size_t n = encode_sp(frame, 9, 0);
	int len = mavlink_sign_frame(&old, frame, n, 0, 0);
	assert_int_equal(mavlink_signing_check(&r, frame, (size_t)len, now),
			 MAVLINK_SIGN_STALE);
	/* 59 s behind: a new stream inside the window. */
	mavlink_signing_init(&old, key, now - MAVLINK_SIGN_WINDOW + 100000);
	n = encode_sp(frame, 9, 0);
	len = mavlink_sign_frame(&old, frame, n, 0, 0);
	assert_int_equal(mavlink_signing_check(&r, frame, (size_t)len, now),
			 MAVLINK_SIGN_OK);
}

static void
test_stream_table_full(void **state)
{
	(void)state;
	uint8_t key[MAVLINK_SIGN_KEY_LEN] = { 4 };
	uint8_t frame[MAVLINK_MAX_FRAME];
	struct mavlink_signing s, r;

	mavlink_signing_init(&s, key, V_TS);
	mavlink_signing_init(&r, key, V_TS);
	for (unsigned id = 1; id <= MAVLINK_SIGN_STREAMS + 1; id++) {
		size_t n = encode_sp(frame, (uint8_t)id, 0);
		int len = mavlink_sign_frame(&s, frame, n, 0, V_TS);
		assert_int_equal(mavlink_signing_check(&r, frame, (size_t)len,
						       V_TS),
				 id <= MAVLINK_SIGN_STREAMS ? MAVLINK_SIGN_OK
							    : MAVLINK_SIGN_FULL);
	}
	/* The streams it has go on. */
	size_t n = encode_sp(frame, 1, 1);
	int len = mavlink_sign_frame(&s, frame, n, 0, V_TS);
	assert_int_equal(mavlink_signing_check(&r, frame, (size_t)len, V_TS),
			 MAVLINK_SIGN_OK);

	/* Stream 2's first frame, kept to replay later. */
	uint8_t old2[MAVLINK_MAX_FRAME];
	struct mavlink_signing s2;
	mavlink_signing_init(&s2, key, V_TS);
	n = encode_sp(old2, 2, 0);
	const int len2 = mavlink_sign_frame(&s2, old2, n, 0, V_TS - 50);

	/* Over a minute on, with sysid 1 still talking and 2..16 quiet: a
	 * new stream takes the place of the one heard from longest ago.
	 * Before, it was refused (no-room) for as long as barod ran. */
	const uint64_t later = V_TS + MAVLINK_SIGN_WINDOW + 200000u;
	n = encode_sp(frame, 1, 2);
	len = mavlink_sign_frame(&s, frame, n, 0, later - 100000u);
	assert_int_equal(mavlink_signing_check(&r, frame, (size_t)len, later),
			 MAVLINK_SIGN_OK);
	n = encode_sp(frame, 40, 0);
	len = mavlink_sign_frame(&s, frame, n, 0, later);
	assert_int_equal(mavlink_signing_check(&r, frame, (size_t)len, later),
			 MAVLINK_SIGN_OK);
	/* Forgetting a stream opens no replay: its old frames are a new
	 * stream over a minute old. */
	assert_int_equal(mavlink_signing_check(&r, old2, (size_t)len2, later),
			 MAVLINK_SIGN_STALE);
	assert_int_equal(r.n_streams, MAVLINK_SIGN_STREAMS);
	/* Every place heard from within the window: refused again. */
	for (unsigned id = 41; id < 41 + MAVLINK_SIGN_STREAMS; id++) {
		n = encode_sp(frame, (uint8_t)id, 0);
		len = mavlink_sign_frame(&s, frame, n, 0, later);
		(void)mavlink_signing_check(&r, frame, (size_t)len, later);
	}
	n = encode_sp(frame, 99, 0);
	len = mavlink_sign_frame(&s, frame, n, 0, later);
	assert_int_equal(mavlink_signing_check(&r, frame, (size_t)len, later),
			 MAVLINK_SIGN_FULL);
}

struct got {
	int n;
	size_t raw_len;
	uint8_t raw[MAVLINK_MAX_FRAME];
};

static void
on_frame(const struct mavlink_frame *f, void *user)
{
	struct got *g = user;

	g->n++;
	g->raw_len = f->raw_len;
	memcpy(g->raw, f->raw, f->raw_len);
}

static void
test_parser_delivers_signed_when_asked(void **state)
{
	(void)state;
	uint8_t buf[MAVLINK_MAX_FRAME];
	size_t n = unhex(V_SP2_SIGNED, buf, sizeof(buf));
	struct mavlink_parser p;
	struct got g = { 0 };

	mavlink_parser_init(&p);
	mavlink_parser_feed(&p, buf, n, on_frame, &g);
	assert_int_equal(g.n, 0);
	assert_int_equal(p.stats.signed_dropped, 1);

	mavlink_parser_init(&p);
	p.deliver_signed = true;
	/* Byte by byte: raw is the whole frame however it arrived. */
	for (size_t i = 0; i < n; i++)
		mavlink_parser_feed(&p, buf + i, 1, on_frame, &g);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.raw_len, n);
	assert_memory_equal(g.raw, buf, n);
	assert_int_equal(p.stats.signed_dropped, 0);
}

static void
test_timestamp_epoch(void **state)
{
	(void)state;
	assert_int_equal(mavlink_sign_timestamp(1700000000000ull * 1000),
			 V_TS);
	assert_int_equal(mavlink_sign_timestamp(1420070400ull * 1000000), 0);
	assert_int_equal(mavlink_sign_timestamp(0), 0);
	assert_string_equal(mavlink_sign_result_name(MAVLINK_SIGN_REPLAY),
			    "replayed");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sheet_vector),
		cmocka_unit_test(test_sign_refuses_what_it_cannot_sign),
		cmocka_unit_test(test_timestamps_only_rise),
		cmocka_unit_test(test_receiver_refuses),
		cmocka_unit_test(test_new_stream_window),
		cmocka_unit_test(test_stream_table_full),
		cmocka_unit_test(test_parser_delivers_signed_when_asked),
		cmocka_unit_test(test_timestamp_epoch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
