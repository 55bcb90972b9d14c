/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * MAVLink 2 message signing (../shared/docs/mavlink.md section 7; the
 * guide's message_signing.md): a 13-byte trailer of link id, a 48-bit
 * timestamp in 10 us units since 2015-01-01 00:00:00 UTC and the first
 * 48 bits of SHA-256(key || header || payload || CRC || link id ||
 * timestamp).  SHA-256 is libsodium's.
 *
 * A receiver accepts a signed frame when the signature matches and its
 * timestamp is newer than the last one of its stream (link id, sysid,
 * compid); a stream not seen before must not be more than a minute older
 * than the local timestamp, which starts at the wall clock and follows
 * the newest timestamp sent or accepted.  Pure: time is passed in.
 */
#ifndef BAROD_MAVLINK_SIGN_H
#define BAROD_MAVLINK_SIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAVLINK_SIGN_KEY_LEN 32
#define MAVLINK_SIGNATURE_LEN 13
/* Streams remembered (only frames signed with the key get this far); a
 * new one beyond this takes the place of one quiet for over
 * MAVLINK_SIGN_WINDOW, and is refused, as the C library refuses it,
 * while every one has been heard from within the window. */
#define MAVLINK_SIGN_STREAMS 16
/* The largest timestamp 48 bits carry (in the year 2104). */
#define MAVLINK_SIGN_TS_MAX 0xFFFFFFFFFFFFull
/* One minute in timestamp units (10 us). */
#define MAVLINK_SIGN_WINDOW (60ull * 100000ull)

enum mavlink_sign_result {
	MAVLINK_SIGN_OK,
	MAVLINK_SIGN_UNSIGNED,	/* no signature (or MAVLink 1) */
	MAVLINK_SIGN_BAD,	/* the signature does not match the key */
	MAVLINK_SIGN_REPLAY,	/* not newer than its stream's last frame */
	MAVLINK_SIGN_STALE,	/* a new stream over a minute in the past */
	MAVLINK_SIGN_FULL,	/* a new stream, every place in use */
};
#define MAVLINK_SIGN_RESULTS (MAVLINK_SIGN_FULL + 1)

struct mavlink_sign_stream {
	uint64_t timestamp;
	uint8_t link_id, sysid, compid;
};

struct mavlink_signing {
	uint8_t key[MAVLINK_SIGN_KEY_LEN];
	uint64_t timestamp;	/* local: newest sent or accepted */
	struct mavlink_sign_stream streams[MAVLINK_SIGN_STREAMS];
	size_t n_streams;
	uint64_t signed_out;	/* frames signed */
	uint64_t checked[MAVLINK_SIGN_RESULTS];	/* frames checked, by result */
};

/* Unix time in microseconds to a signing timestamp (0 before 2015). */
uint64_t mavlink_sign_timestamp(uint64_t unix_us);

/* A key and the local timestamp now (mavlink_sign_timestamp of the wall
 * clock); streams and counters start empty. */
void mavlink_signing_init(struct mavlink_signing *s,
			  const uint8_t key[MAVLINK_SIGN_KEY_LEN], uint64_t now);

/* Sign frame[0 .. len), a MAVLink 2 frame as mavlink_frame_encode made it
 * (unsigned), in place: the signed flag, the CRC again (it covers the
 * flag), the trailer with link_id and a timestamp newer than any used
 * before (at least now).  frame holds MAVLINK_MAX_FRAME bytes.  Returns
 * the new length, or -EINVAL for a frame that is not an unsigned v2
 * frame of a known message with len bytes, -ERANGE when the timestamp
 * would pass 48 bits (frame untouched). */
int mavlink_sign_frame(struct mavlink_signing *s, uint8_t *frame, size_t len,
		       uint8_t link_id, uint64_t now);

/* Check a received frame (raw, as mavlink_frame.raw holds it, CRC already
 * checked) at local time now; on MAVLINK_SIGN_OK its stream and the
 * local timestamp move on.  Every result is counted in s->checked. */
enum mavlink_sign_result mavlink_signing_check(struct mavlink_signing *s,
					       const uint8_t *frame,
					       size_t len, uint64_t now);

/* "ok", "unsigned", "bad-signature", "replayed", "stale", "no-room". */
const char *mavlink_sign_result_name(enum mavlink_sign_result r);

/* SHA-256 of a passphrase: the key MAVProxy's "signing setup", Mission
 * Planner and node-mavlink make from one. */
void mavlink_sign_key_from_passphrase(const char *passphrase, size_t len,
				      uint8_t key[MAVLINK_SIGN_KEY_LEN]);

#endif
