/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The TCP stream framer the PX4 proxy edits HIL_SENSOR with: pass-through
 * byte for byte, the facts sheet's vector A edited into vector B
 * (../shared/docs/px4-sim.md section 8), and the C library's framing on
 * bad CRCs, signed frames, unknown incompat flags and partial frames.
 */
#include <stdlib.h>

#include "mavlink-stream.h"
#include "test-util.h"
#include "util-endian.h"

static uint8_t *
hex(const char *h, size_t *len)
{
	size_t n = strlen(h) / 2;
	uint8_t *b = malloc(n);

	assert_non_null(b);
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		assert_int_equal(sscanf(h + 2 * i, "%2x", &v), 1);
		b[i] = (uint8_t)v;
	}
	*len = n;
	return b;
}

/* A: HIL_SENSOR as a simulator sends it; B: A with the baro rewritten;
 * D: HIL_ACTUATOR_CONTROLS (unknown to the codec); E: PX4's HEARTBEAT. */
static const char *const vec_a =
	"fd3e00000001c86b0000002d31010000000000000000000000000ae81cc1000000"
	"0000000000000000003d0a573e000000003d0ad73e7cff6e44000000000000f443"
	"7d3f3d41ff1b8b30";
static const char *const vec_b =
	"fd3e00000001c86b0000002d31010000000000000000000000000ae81cc1000000"
	"0000000000000000003d0a573e000000003d0ad73e494c6f44000000002dc4ee43"
	"7d3f3d41ff1b36f9";
static const char *const vec_d =
	"fd5100000001015d0000601d310100000000010000000000000000000000000000"
	"000000000000000000000000000000000000000000000000000000000000000000"
	"0000000000000000000000000000000000000000000000000160bc";
static const char *const vec_e = "fd09000000010100000000000000000c00000381d6";

struct sink {
	uint8_t buf[8192];
	size_t n;
	unsigned edits;
	bool do_edit;
	struct mavlink_hil_sensor last;
};

static void
out(void *user, const uint8_t *data, size_t len)
{
	struct sink *s = user;

	assert_true(s->n + len <= sizeof(s->buf));
	memcpy(s->buf + s->n, data, len);
	s->n += len;
}

/* A -> B: abs_pressure 957.19196 hPa, pressure_alt 477.53262 m. */
static bool
edit_a_to_b(void *user, uint8_t *frame, size_t len, size_t hdr,
	    const struct mavlink_frame *f)
{
	struct sink *s = user;

	assert_int_equal(f->msgid, MAVLINK_MSG_HIL_SENSOR);
	assert_int_equal(len, hdr + f->len + 2);
	mavlink_unpack_hil_sensor(f->payload, &s->last);
	s->edits++;
	if (!s->do_edit)
		return false;
	le_put32(frame + hdr + 44, 0x446f4c49u);
	le_put32(frame + hdr + 52, 0x43eec42du);
	return true;
}

static void
feed_all(struct mavlink_stream *st, const uint8_t *d, size_t n, size_t chunk,
	 struct sink *s)
{
	for (size_t i = 0; i < n; i += chunk)
		mavlink_stream_feed(st, d + i, chunk < n - i ? chunk : n - i,
				    edit_a_to_b, out, s);
}

static void
test_vector_b(void **state)
{
	size_t na, nb;
	uint8_t *a = hex(vec_a, &na), *b = hex(vec_b, &nb);

	(void)state;
	for (size_t chunk = 1; chunk <= na; chunk += 13) {
		struct mavlink_stream st;
		struct sink s = { .do_edit = true };
		mavlink_stream_init(&st, MAVLINK_MSG_HIL_SENSOR);
		feed_all(&st, a, na, chunk, &s);
		assert_int_equal(s.n, nb);
		assert_memory_equal(s.buf, b, nb);
		assert_int_equal(st.stats.edited, 1);
		assert_int_equal(s.last.time_usec, 20000000u);
		assert_int_equal(s.last.fields_updated, 0x1BFF);
	}
	free(a);
	free(b);
}

/* Every other message, and HIL_SENSOR left alone, pass byte for byte. */
static void
test_passthrough(void **state)
{
	size_t na, nd, ne;
	uint8_t *a = hex(vec_a, &na), *d = hex(vec_d, &nd),
		*e = hex(vec_e, &ne);
	uint8_t in[2048];
	size_t n = 0;

	(void)state;
	memcpy(in + n, e, ne), n += ne;
	memcpy(in + n, "\x01\x02garbage", 9), n += 9;
	memcpy(in + n, a, na), n += na;
	memcpy(in + n, d, nd), n += nd;
	memcpy(in + n, a, na), n += na;
	for (size_t chunk = 1; chunk < n; chunk *= 3) {
		struct mavlink_stream st;
		struct sink s = { .do_edit = false };
		mavlink_stream_init(&st, MAVLINK_MSG_HIL_SENSOR);
		feed_all(&st, in, n, chunk, &s);
		assert_int_equal(s.n, n);
		assert_memory_equal(s.buf, in, n);
		assert_int_equal(s.edits, 2);
		assert_int_equal(st.stats.frames, 4);
		assert_int_equal(st.stats.garbage_bytes, 9);
		assert_int_equal(st.stats.edited, 0);
	}
	free(a);
	free(d);
	free(e);
}

/* A HEARTBEAT arriving in pieces is passed as soon as it is framed; a
 * HIL_SENSOR is held until its last byte. */
static void
test_latency(void **state)
{
	size_t na, ne;
	uint8_t *a = hex(vec_a, &na), *e = hex(vec_e, &ne);
	struct mavlink_stream st;
	struct sink s = { .do_edit = true };

	(void)state;
	mavlink_stream_init(&st, MAVLINK_MSG_HIL_SENSOR);
	mavlink_stream_feed(&st, e, 12, edit_a_to_b, out, &s);
	assert_int_equal(s.n, 12);
	mavlink_stream_feed(&st, e + 12, ne - 12, edit_a_to_b, out, &s);
	assert_int_equal(s.n, ne);
	mavlink_stream_feed(&st, a, na - 1, edit_a_to_b, out, &s);
	assert_int_equal(s.n, ne);
	assert_int_equal(mavlink_stream_held(&st), na - 1);
	/* The connection ends: the partial frame is dropped, counted. */
	mavlink_stream_reset(&st);
	assert_int_equal(st.stats.discarded, na - 1);
	mavlink_stream_feed(&st, a, na, edit_a_to_b, out, &s);
	assert_int_equal(s.n, ne + na);
	assert_int_equal(s.edits, 1);
	free(a);
	free(e);
}

/* whole_frames (the proxy's simulator side): a HEARTBEAT arriving in
 * pieces is held until its last byte too, passed in one piece, and a
 * connection that ends in the middle of one passed none of it. */
static void
test_whole_frames(void **state)
{
	size_t ne, nd;
	uint8_t *e = hex(vec_e, &ne), *d = hex(vec_d, &nd);
	struct mavlink_stream st;
	struct sink s = { .do_edit = true };

	(void)state;
	mavlink_stream_init(&st, MAVLINK_MSG_HIL_SENSOR);
	st.whole_frames = true;
	mavlink_stream_feed(&st, e, 12, edit_a_to_b, out, &s);
	assert_int_equal(s.n, 0);
	assert_int_equal(mavlink_stream_held(&st), 12);
	mavlink_stream_feed(&st, e + 12, ne - 12, edit_a_to_b, out, &s);
	assert_int_equal(s.n, ne);
	assert_memory_equal(s.buf, e, ne);
	/* Garbage still leaves at once; half a frame is dropped. */
	mavlink_stream_feed(&st, (const uint8_t *)"xy", 2, edit_a_to_b, out,
			    &s);
	mavlink_stream_feed(&st, d, nd / 2, edit_a_to_b, out, &s);
	assert_int_equal(s.n, ne + 2);
	mavlink_stream_reset(&st);
	assert_int_equal(st.stats.discarded, nd / 2);
	mavlink_stream_feed(&st, d, nd, edit_a_to_b, out, &s);
	assert_int_equal(s.n, ne + 2 + nd);
	assert_memory_equal(s.buf + ne + 2, d, nd);
	assert_int_equal(s.edits, 0);
	free(e);
	free(d);
}

/* Frames PX4's parser would drop are passed as they are, not edited. */
static void
test_bad_frames(void **state)
{
	size_t na;
	uint8_t *a = hex(vec_a, &na);
	uint8_t in[1024];
	size_t n = 0;

	(void)state;
	/* Bad CRC. */
	memcpy(in + n, a, na);
	in[n + na - 1] ^= 0x01;
	n += na;
	/* Signed: incompat 0x01 and 13 signature bytes; the CRC is good
	 * (it covers the flag), a signature PX4 does not check. */
	{
		uint8_t f[MAVLINK_MAX_FRAME];
		memcpy(f, a, na);
		f[2] = MAVLINK_IFLAG_SIGNED;
		uint16_t crc = mavlink_crc(f + 1, na - 3, 0xFFFF);
		const uint8_t extra = 108;
		crc = mavlink_crc(&extra, 1, crc);
		f[na - 2] = (uint8_t)crc;
		f[na - 1] = (uint8_t)(crc >> 8);
		memset(f + na, 0xAB, 13);
		memcpy(in + n, f, na + 13);
		n += na + 13;
	}
	/* Unknown incompat flag: the C library abandons the frame at that
	 * byte and hunts from the next, which here is a real frame. */
	memcpy(in + n, "\xfd\x3e\x04", 3);
	n += 3;
	memcpy(in + n, a, na);
	n += na;

	struct mavlink_stream st;
	struct sink s = { .do_edit = true };
	mavlink_stream_init(&st, MAVLINK_MSG_HIL_SENSOR);
	feed_all(&st, in, n, 7, &s);
	assert_int_equal(s.n, n);
	assert_int_equal(st.stats.bad_crc, 1);
	assert_int_equal(st.stats.signed_passed, 1);
	assert_int_equal(st.stats.bad_incompat, 1);
	assert_int_equal(st.stats.edited, 1);
	/* Everything up to the last frame unchanged; that one edited. */
	assert_memory_equal(s.buf, in, n - na);
	size_t nb;
	uint8_t *b = hex(vec_b, &nb);
	assert_memory_equal(s.buf + n - na, b, nb);
	free(a);
	free(b);
}

static void
on_decoded(const struct mavlink_frame *f, void *user)
{
	assert_int_equal(f->version, 1);
	mavlink_unpack_hil_sensor(f->payload, user);
}

/* MAVLink 1 frames (64 bytes, no id, never trimmed) get a v1 CRC. */
static void
test_v1(void **state)
{
	struct mavlink_hil_sensor m = {
		.time_usec = 1234, .abs_pressure = 1000.0f,
		.pressure_alt = 110.0f, .temperature = 15.0f,
		.fields_updated = 0x1A00,
	};
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 }, fr[MAVLINK_MAX_FRAME];
	struct mavlink_stream st;
	struct sink s = { .do_edit = true };
	struct mavlink_parser p;

	(void)state;
	mavlink_pack_hil_sensor(&m, pl);
	int n = mavlink_frame_encode(fr, 1, 7, 1, 200,
				     MAVLINK_MSG_HIL_SENSOR, pl);
	assert_int_equal(n, 6 + 64 + 2);
	mavlink_stream_init(&st, MAVLINK_MSG_HIL_SENSOR);
	mavlink_stream_feed(&st, fr, (size_t)n, edit_a_to_b, out, &s);
	assert_int_equal(st.stats.edited, 1);
	assert_int_equal(s.n, (size_t)n);
	assert_memory_equal(s.buf, fr, 6);

	/* The codec accepts the new CRC and reads the new pressure. */
	mavlink_parser_init(&p);
	assert_int_equal(mavlink_parser_feed(&p, s.buf, s.n, on_decoded, &m),
			 1);
	assert_float_exact(m.abs_pressure, 957.19196f);
	assert_int_equal(m.fields_updated, 0x1A00);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vector_b),
		cmocka_unit_test(test_passthrough),
		cmocka_unit_test(test_latency),
		cmocka_unit_test(test_whole_frames),
		cmocka_unit_test(test_bad_frames),
		cmocka_unit_test(test_v1),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
