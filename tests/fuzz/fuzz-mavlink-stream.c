/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The PX4 proxy's TCP stream framer (mavlink-stream.c).  The input is
 * fed whole, a byte at a time, and in chunks the input chooses; all must
 * give the same output.  Passed through without edits, the output is the
 * input.  With every HIL_SENSOR edited (baro bytes changed), the output
 * has the input's length, differs only inside the frames edited, and
 * framed again gives the same frames with every edited one checking
 * (its CRC was recomputed).  Holding every frame whole (whole_frames)
 * changes when bytes leave, never which.  Any disagreement aborts.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "mavlink-stream.h"

#define OUT_MAX (1u << 20)

struct sink {
	uint8_t *buf;
	size_t n;
	size_t edits;
	/* Offsets of edited frames in the output, to check the rest. */
	size_t at[256], len[256];
	const uint8_t *cur;	/* the framer's buffer while editing */
};

static void
out(void *user, const uint8_t *data, size_t len)
{
	struct sink *s = user;

	if (s->n + len > OUT_MAX)
		abort();
	if (s->cur == data && s->edits && s->edits <= 256 &&
	    s->len[s->edits - 1] == 0) {
		s->at[s->edits - 1] = s->n;
		s->len[s->edits - 1] = len;
	}
	memcpy(s->buf + s->n, data, len);
	s->n += len;
}

static bool
edit(void *user, uint8_t *frame, size_t len, size_t hdr,
     const struct mavlink_frame *f)
{
	struct sink *s = user;

	if (f->msgid != MAVLINK_MSG_HIL_SENSOR || hdr + f->len + 2 != len ||
	    (f->version == 2 && (f->incompat_flags & MAVLINK_IFLAG_SIGNED)))
		abort();
	for (size_t i = 44; i < 60 && i < f->len; i++)
		frame[hdr + i] ^= 0x5A;
	if (s->edits < 256) {
		s->cur = frame;
		s->len[s->edits] = 0;
	}
	s->edits++;
	return true;
}

static bool
no_edit(void *user, uint8_t *frame, size_t len, size_t hdr,
	const struct mavlink_frame *f)
{
	(void)user;
	(void)frame;
	(void)len;
	(void)hdr;
	(void)f;
	return false;
}

static void
run(const uint8_t *data, size_t size, size_t chunking, bool editing,
    struct sink *s, struct mavlink_stream *st, bool whole)
{
	mavlink_stream_init(st, MAVLINK_MSG_HIL_SENSOR);
	st->whole_frames = whole;
	s->n = 0;
	s->edits = 0;
	for (size_t i = 0, k = 0; i < size; i += k) {
		k = chunking == 0   ? size - i
		    : chunking == 1 ? 1
				    : fuzz_chunk(data, size, i);
		mavlink_stream_feed(st, data + i, k, editing ? edit : no_edit,
				    out, s);
	}
	/* Every byte fed is out, or held waiting for the rest. */
	if (s->n + mavlink_stream_held(st) != size)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t b0[OUT_MAX], b1[OUT_MAX], b2[OUT_MAX], b3[OUT_MAX],
		b4[OUT_MAX];
	static struct sink s0, s1, s2, s3, s4;
	struct mavlink_stream t0, t1, t2, t3, t4;

	if (size > OUT_MAX / 2)
		return 0;
	s0.buf = b0;
	s1.buf = b1;
	s2.buf = b2;
	s3.buf = b3;
	s4.buf = b4;

	run(data, size, 0, false, &s0, &t0, false);
	if (memcmp(s0.buf, data, s0.n) != 0)
		abort();

	run(data, size, 0, true, &s1, &t1, false);
	run(data, size, 1, true, &s2, &t2, false);
	run(data, size, 2, true, &s3, &t3, false);
	run(data, size, 2, true, &s4, &t4, true);
	/* Whole frames: the same bytes, short of a partial frame held. */
	if (s4.n > s1.n || memcmp(s4.buf, s1.buf, s4.n) != 0 ||
	    t4.stats.frames != t1.stats.frames ||
	    t4.stats.edited != t1.stats.edited)
		abort();
	if (s1.n != s0.n || s2.n != s1.n || s3.n != s1.n ||
	    memcmp(s1.buf, s2.buf, s1.n) != 0 ||
	    memcmp(s1.buf, s3.buf, s1.n) != 0 ||
	    memcmp(&t1.stats, &t2.stats, sizeof(t1.stats)) != 0 ||
	    memcmp(&t1.stats, &t3.stats, sizeof(t1.stats)) != 0 ||
	    t1.stats.edited != t1.stats.watched || s1.edits != t1.stats.edited)
		abort();

	/* Only edited frames differ from the input. */
	size_t e = 0;
	for (size_t i = 0; i < s1.n; i++) {
		while (e < s1.edits && e < 256 && i >= s1.at[e] + s1.len[e])
			e++;
		bool inside = e < s1.edits && e < 256 && i >= s1.at[e] &&
			      i < s1.at[e] + s1.len[e];
		if (!inside && s1.buf[i] != data[i])
			abort();
	}

	/* Framed again (with the partial frame still held): the same
	 * frames, each edited one good. */
	struct sink again = { .buf = b2 };
	struct mavlink_stream t;
	memcpy(s1.buf + s1.n, t1.buf, t1.have);
	run(s1.buf, s1.n + t1.have, 0, false, &again, &t, false);
	if (t.stats.frames != t1.stats.frames ||
	    t.stats.watched != t1.stats.watched ||
	    t.stats.bad_crc != t1.stats.bad_crc ||
	    t.stats.garbage_bytes != t1.stats.garbage_bytes)
		abort();

	mavlink_stream_reset(&t1);
	if (mavlink_stream_held(&t1) != 0)
		abort();
	return 0;
}
