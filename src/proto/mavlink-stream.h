/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A MAVLink byte stream (TCP) passed through with one message editable.
 *
 * The stream is framed the way the MAVLink C library's mavlink_parse_char
 * frames it (PX4's simulator_mavlink uses that): a start byte, the
 * header's length, the frame; after a frame, or after a byte that cannot
 * continue a header, hunting resumes at the next byte.  Frames of the
 * watched message are held until complete so they can be edited and get
 * a new CRC; every other byte leaves as soon as it is framed, unchanged
 * and in order, whatever it is (unknown messages, bad CRCs, garbage).  So
 * the output is the input byte for byte apart from edited frames, and a
 * frame is edited exactly when the C library would deliver it.
 * With whole_frames every frame is held until complete, so a stream that
 * ends mid-frame has passed none of that frame.
 *
 * Pure: no I/O, no allocation; bytes leave through the caller's callback.
 */
#ifndef BAROD_MAVLINK_STREAM_H
#define BAROD_MAVLINK_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mavlink.h"

struct mavlink_stream_stats {
	uint64_t bytes;		/* fed */
	uint64_t frames;	/* framed, any message (CRC unchecked) */
	uint64_t watched;	/* watched frames with a good CRC */
	uint64_t edited;	/* ... that the edit callback changed */
	uint64_t bad_crc;	/* watched frames whose CRC failed: passed */
	uint64_t signed_passed;	/* signed watched frames: passed unedited,
				 * an edit would break the signature */
	uint64_t bad_incompat;	/* v2 headers with unknown incompat flags */
	uint64_t garbage_bytes;	/* outside any frame */
	uint64_t discarded;	/* held bytes dropped by mavlink_stream_reset */
};

/*
 * A complete watched frame with a good CRC.  frame[0 .. len) is the frame
 * as received; f is it decoded (payload zero-filled).  The callback may
 * change payload bytes in place, frame[hdr .. hdr + f->len), and returns
 * true if it did: the CRC is then recomputed.  It must not change the
 * header or the length.
 */
typedef bool (*mavlink_stream_edit_cb)(void *user, uint8_t *frame, size_t len,
				       size_t hdr,
				       const struct mavlink_frame *f);
/* Bytes to pass on, in order. */
typedef void (*mavlink_stream_out_cb)(void *user, const uint8_t *data,
				      size_t len);

struct mavlink_stream {
	uint32_t watch;		/* msgid held for editing */
	uint8_t buf[MAVLINK_MAX_FRAME];	/* header, or a watched frame */
	size_t have;		/* bytes in buf */
	size_t need;		/* header or frame length being collected */
	size_t pass;		/* bytes of an unwatched frame still to pass */
	bool header_done;
	bool held_watched;	/* the frame in buf is the watched one */
	/* Every frame held until complete, not only the watched one (set
	 * after init): a connection that ends mid-frame then passed none
	 * of it, so the receiver never takes the next stream's first
	 * bytes as its rest. */
	bool whole_frames;
	struct mavlink_stream_stats stats;
};

void
mavlink_stream_init(struct mavlink_stream *s, uint32_t watch_msgid);

void
mavlink_stream_feed(struct mavlink_stream *s, const uint8_t *data, size_t len,
		    mavlink_stream_edit_cb edit, mavlink_stream_out_cb out,
		    void *user);

/* The connection ended: a partial frame held back is dropped (counted),
 * and the next byte starts a new stream. */
void
mavlink_stream_reset(struct mavlink_stream *s);

/* Bytes held back waiting for the rest of a header or watched frame (any
 * frame with whole_frames). */
size_t
mavlink_stream_held(const struct mavlink_stream *s);

#endif
