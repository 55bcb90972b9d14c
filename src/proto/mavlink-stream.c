/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "mavlink-stream.h"

#include <string.h>

enum {
	V1_HEADER = 6,
	V2_HEADER = 10,
	CRC_LEN = 2,
	SIGNATURE_LEN = 13,
};

void
mavlink_stream_init(struct mavlink_stream *s, uint32_t watch_msgid)
{
	memset(s, 0, sizeof(*s));
	s->watch = watch_msgid;
}

void
mavlink_stream_reset(struct mavlink_stream *s)
{
	s->stats.discarded += s->have;
	s->have = 0;
	s->need = 0;
	s->pass = 0;
	s->header_done = false;
}

size_t
mavlink_stream_held(const struct mavlink_stream *s)
{
	return s->have;
}

static size_t
header_len(uint8_t stx)
{
	return stx == MAVLINK_STX_V2 ? V2_HEADER : V1_HEADER;
}

struct check {
	unsigned delivered;
	struct mavlink_frame f;
};

static void
on_checked(const struct mavlink_frame *f, void *user)
{
	struct check *c = user;

	if (c->delivered++ == 0)
		c->f = *f;
}

/* A complete watched frame in s->buf: checked and decoded by the codec's
 * own parser (so the CRC and zero-fill rules are the codec's), then
 * edited and re-checksummed, then passed on. */
static void
finish_watched(struct mavlink_stream *s, mavlink_stream_edit_cb edit,
	       mavlink_stream_out_cb out, void *user)
{
	struct mavlink_parser p;
	struct check c = { 0 };

	mavlink_parser_init(&p);
	mavlink_parser_feed(&p, s->buf, s->have, on_checked, &c);
	/* Only the whole frame counts: after a CRC failure the parser hunts
	 * inside it and may find a frame there, which the C library, having
	 * consumed the bytes, never would. */
	if (c.delivered == 1 && p.stats.garbage_bytes == 0 &&
	    p.have == 0) {
		const size_t hdr = header_len(s->buf[0]);
		s->stats.watched++;
		if (edit && edit(user, s->buf, s->have, hdr, &c.f)) {
			const struct mavlink_msg_info *info =
				mavlink_msg_info(s->watch);
			mavlink_frame_put_crc(s->buf, hdr + s->buf[1],
					      info->crc_extra);
			s->stats.edited++;
		}
	} else if (p.stats.signed_dropped) {
		s->stats.signed_passed++;
	} else {
		s->stats.bad_crc++;
	}
	out(user, s->buf, s->have);
	s->have = 0;
	s->header_done = false;
}

/* The header in s->buf is complete: hold a watched frame, pass any
 * other. */
static void
header_complete(struct mavlink_stream *s, mavlink_stream_out_cb out,
		void *user)
{
	const uint8_t *b = s->buf;
	size_t total = s->have + b[1] + CRC_LEN;
	uint32_t msgid;

	if (b[0] == MAVLINK_STX_V2) {
		msgid = (uint32_t)b[7] | (uint32_t)b[8] << 8 |
			(uint32_t)b[9] << 16;
		if (b[2] & MAVLINK_IFLAG_SIGNED)
			total += SIGNATURE_LEN;
	} else {
		msgid = b[5];
	}
	s->stats.frames++;
	s->held_watched = msgid == s->watch;
	if (s->held_watched || s->whole_frames) {
		s->header_done = true;
		s->need = total;
		return;
	}
	out(user, s->buf, s->have);
	s->pass = total - s->have;
	s->have = 0;
}

void
mavlink_stream_feed(struct mavlink_stream *s, const uint8_t *data, size_t len,
		    mavlink_stream_edit_cb edit, mavlink_stream_out_cb out,
		    void *user)
{
	size_t i = 0;

	s->stats.bytes += len;
	while (i < len) {
		if (s->pass) {
			size_t n = len - i < s->pass ? len - i : s->pass;
			out(user, data + i, n);
			s->pass -= n;
			i += n;
		} else if (s->have == 0) {
			size_t j = i;
			while (j < len && data[j] != MAVLINK_STX_V1 &&
			       data[j] != MAVLINK_STX_V2)
				j++;
			if (j > i) {
				s->stats.garbage_bytes += j - i;
				out(user, data + i, j - i);
				i = j;
				continue;
			}
			s->buf[0] = data[i++];
			s->have = 1;
			s->need = header_len(s->buf[0]);
			s->header_done = false;
		} else if (!s->header_done) {
			const uint8_t b = data[i++];
			s->buf[s->have++] = b;
			if (s->buf[0] == MAVLINK_STX_V2 && s->have == 3 &&
			    (b & ~MAVLINK_IFLAG_SIGNED)) {
				/* The C library gives up on the frame here
				 * and hunts from the next byte. */
				s->stats.bad_incompat++;
				s->stats.garbage_bytes += s->have;
				out(user, s->buf, s->have);
				s->have = 0;
			} else if (s->have == s->need) {
				header_complete(s, out, user);
			}
		} else {
			size_t n = s->need - s->have;
			if (n > len - i)
				n = len - i;
			memcpy(s->buf + s->have, data + i, n);
			s->have += n;
			i += n;
			if (s->have < s->need)
				continue;
			if (s->held_watched) {
				finish_watched(s, edit, out, user);
			} else {
				out(user, s->buf, s->have);
				s->have = 0;
				s->header_done = false;
			}
		}
	}
}
