/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "mavlink-sign.h"

#include <errno.h>
#include <string.h>

#include <sodium.h>

#include "mavlink.h"

enum {
	V2_HEADER = 10,
	CRC_LEN = 2,
	/* In the trailer: link id, 6 timestamp bytes, 6 signature bytes. */
	TS_OFF = 1,
	SIG_OFF = 7,
	SIG_BYTES = 6,
};

/* 2015-01-01 00:00:00 UTC in Unix seconds. */
#define SIGN_EPOCH_UNIX_S 1420070400ull

uint64_t
mavlink_sign_timestamp(uint64_t unix_us)
{
	const uint64_t epoch_us = SIGN_EPOCH_UNIX_S * 1000000ull;

	return unix_us < epoch_us ? 0 : (unix_us - epoch_us) / 10u;
}

/* libsodium asks for this before any other call; it is idempotent and
 * SHA-256 does not depend on it, so a failure (no entropy yet) is not
 * fatal here. */
static void
sodium_ready(void)
{
	if (sodium_init() < 0)
		return;
}

void
mavlink_signing_init(struct mavlink_signing *s,
		     const uint8_t key[MAVLINK_SIGN_KEY_LEN], uint64_t now)
{
	sodium_ready();
	memset(s, 0, sizeof(*s));
	memcpy(s->key, key, MAVLINK_SIGN_KEY_LEN);
	s->timestamp = now;
}

void
mavlink_sign_key_from_passphrase(const char *passphrase, size_t len,
				 uint8_t key[MAVLINK_SIGN_KEY_LEN])
{
	sodium_ready();
	crypto_hash_sha256(key, (const unsigned char *)passphrase, len);
}

/* The 6 signature bytes of frame[0 .. n), n ending after the timestamp. */
static void
signature(const struct mavlink_signing *s, const uint8_t *frame, size_t n,
	  uint8_t out[SIG_BYTES])
{
	crypto_hash_sha256_state st;
	uint8_t h[crypto_hash_sha256_BYTES];

	crypto_hash_sha256_init(&st);
	crypto_hash_sha256_update(&st, s->key, MAVLINK_SIGN_KEY_LEN);
	crypto_hash_sha256_update(&st, frame, n);
	crypto_hash_sha256_final(&st, h);
	memcpy(out, h, SIG_BYTES);
	sodium_memzero(h, sizeof(h));
	sodium_memzero(&st, sizeof(st));
}

static void
put48(uint8_t *b, uint64_t v)
{
	for (int i = 0; i < 6; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t
get48(const uint8_t *b)
{
	uint64_t v = 0;

	for (int i = 5; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

int
mavlink_sign_frame(struct mavlink_signing *s, uint8_t *frame, size_t len,
		   uint8_t link_id, uint64_t now)
{
	if (len < V2_HEADER + CRC_LEN || frame[0] != MAVLINK_STX_V2 ||
	    frame[2] != 0 || len != (size_t)V2_HEADER + frame[1] + CRC_LEN)
		return -EINVAL;
	const struct mavlink_msg_info *info = mavlink_msg_info(
		(uint32_t)frame[7] | (uint32_t)frame[8] << 8 |
		(uint32_t)frame[9] << 16);
	if (!info)
		return -EINVAL;
	/* Every frame newer than the last, whatever the wall clock does;
	 * 48 bits last until 2104, and do not wrap to the past then. */
	const uint64_t ts = now > s->timestamp ? now : s->timestamp + 1;
	if (ts > MAVLINK_SIGN_TS_MAX)
		return -ERANGE;

	/* The flag is covered by the CRC: set it, then checksum again. */
	frame[2] = MAVLINK_IFLAG_SIGNED;
	mavlink_frame_put_crc(frame, len - CRC_LEN, info->crc_extra);

	s->timestamp = ts;
	uint8_t *t = frame + len;
	t[0] = link_id;
	put48(t + TS_OFF, s->timestamp);
	signature(s, frame, len + SIG_OFF, t + SIG_OFF);
	s->signed_out++;
	return (int)(len + MAVLINK_SIGNATURE_LEN);
}

static enum mavlink_sign_result
check(struct mavlink_signing *s, const uint8_t *frame, size_t len,
      uint64_t now)
{
	if (len < V2_HEADER + CRC_LEN + MAVLINK_SIGNATURE_LEN ||
	    frame[0] != MAVLINK_STX_V2 || !(frame[2] & MAVLINK_IFLAG_SIGNED) ||
	    len != (size_t)V2_HEADER + frame[1] + CRC_LEN +
			   MAVLINK_SIGNATURE_LEN)
		return MAVLINK_SIGN_UNSIGNED;

	const uint8_t *t = frame + len - MAVLINK_SIGNATURE_LEN;
	uint8_t want[SIG_BYTES];
	signature(s, frame, len - SIG_BYTES, want);
	/* Constant time: no timing tells how many bytes were right. */
	if (sodium_memcmp(want, t + SIG_OFF, SIG_BYTES) != 0)
		return MAVLINK_SIGN_BAD;

	const uint8_t link = t[0], sysid = frame[5], compid = frame[6];
	const uint64_t ts = get48(t + TS_OFF);
	struct mavlink_sign_stream *st = NULL;
	for (size_t i = 0; i < s->n_streams; i++) {
		struct mavlink_sign_stream *x = &s->streams[i];
		if (x->link_id == link && x->sysid == sysid &&
		    x->compid == compid) {
			st = x;
			break;
		}
	}
	if (st) {
		if (ts <= st->timestamp)
			return MAVLINK_SIGN_REPLAY;
	} else {
		/* The local timestamp never runs behind the wall clock. */
		uint64_t local = now > s->timestamp ? now : s->timestamp;
		if (ts + MAVLINK_SIGN_WINDOW < local)
			return MAVLINK_SIGN_STALE;
		if (s->n_streams < MAVLINK_SIGN_STREAMS) {
			st = &s->streams[s->n_streams++];
		} else {
			/* Full: a stream quiet for longer than the window
			 * makes room.  Forgetting it opens no replay: any
			 * frame of its would be a new stream over a minute
			 * old, refused as stale.  Without this, 16 streams
			 * in a long flight (link ids change as ground
			 * stations reconnect) refused every new one until
			 * barod restarted. */
			st = &s->streams[0];
			for (size_t i = 1; i < s->n_streams; i++)
				if (s->streams[i].timestamp < st->timestamp)
					st = &s->streams[i];
			if (st->timestamp + MAVLINK_SIGN_WINDOW >= local)
				return MAVLINK_SIGN_FULL;
		}
		*st = (struct mavlink_sign_stream){ 0, link, sysid, compid };
	}
	st->timestamp = ts;
	if (ts > s->timestamp)
		s->timestamp = ts;
	return MAVLINK_SIGN_OK;
}

enum mavlink_sign_result
mavlink_signing_check(struct mavlink_signing *s, const uint8_t *frame,
		      size_t len, uint64_t now)
{
	enum mavlink_sign_result r = check(s, frame, len, now);

	s->checked[r]++;
	return r;
}

const char *
mavlink_sign_result_name(enum mavlink_sign_result r)
{
	static const char *const names[MAVLINK_SIGN_RESULTS] = {
		[MAVLINK_SIGN_OK] = "ok",
		[MAVLINK_SIGN_UNSIGNED] = "unsigned",
		[MAVLINK_SIGN_BAD] = "bad-signature",
		[MAVLINK_SIGN_REPLAY] = "replayed",
		[MAVLINK_SIGN_STALE] = "stale",
		[MAVLINK_SIGN_FULL] = "no-room",
	};

	return (unsigned)r < MAVLINK_SIGN_RESULTS ? names[r] : "?";
}
