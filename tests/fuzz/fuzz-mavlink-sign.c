/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * MAVLink 2 signing on hostile input: bytes -> parser (signed frames
 * delivered) -> mavlink_signing_check, as barod's GCS link takes them.
 * The first 8 input bytes are the receiver's clock.  Checked: a frame
 * accepted once is a replay the second time; every delivered unsigned v2
 * frame, signed here, is accepted by a fresh receiver with the key and
 * by no receiver once any one of its bytes is changed.  Any breach
 * aborts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "mavlink-sign.h"
#include "mavlink.h"

static const uint8_t key[MAVLINK_SIGN_KEY_LEN] = "barod fuzz key, 32 bytes long!!";

struct ctx {
	struct mavlink_signing rx;
	uint64_t now;
	const uint8_t *data;
	size_t size;
};

static void
sign_and_break(struct ctx *c, const struct mavlink_frame *f)
{
	uint8_t frame[MAVLINK_MAX_FRAME], bad[MAVLINK_MAX_FRAME];
	struct mavlink_signing tx, rx;

	memcpy(frame, f->raw, f->raw_len);
	mavlink_signing_init(&tx, key, c->now);
	int n = mavlink_sign_frame(&tx, frame, f->raw_len, f->seq, c->now);
	/* The one clock at which the next timestamp would not fit. */
	if (n == -ERANGE && c->now == MAVLINK_SIGN_TS_MAX &&
	    memcmp(frame, f->raw, f->raw_len) == 0)
		return;
	if (n != (int)f->raw_len + MAVLINK_SIGNATURE_LEN)
		abort();
	mavlink_signing_init(&rx, key, c->now);
	if (mavlink_signing_check(&rx, frame, (size_t)n, c->now) !=
	    MAVLINK_SIGN_OK)
		abort();
	/* One changed byte, where the input says (and to what). */
	size_t at = c->size ? c->data[f->seq % c->size] % (size_t)n : 0;
	uint8_t flip = (uint8_t)(c->size ? c->data[(f->seq + 1u) % c->size]
					  : 1);
	memcpy(bad, frame, (size_t)n);
	bad[at] ^= flip ? flip : 1;
	mavlink_signing_init(&rx, key, c->now);
	if (mavlink_signing_check(&rx, bad, (size_t)n, c->now) ==
	    MAVLINK_SIGN_OK)
		abort();
}

static void
on_frame(const struct mavlink_frame *f, void *user)
{
	struct ctx *c = user;

	const bool is_signed = f->version == 2 &&
			       (f->incompat_flags & MAVLINK_IFLAG_SIGNED);
	if (f->raw_len != (f->version == 2 ? 12u : 8u) + f->len +
			       (is_signed ? MAVLINK_SIGNATURE_LEN : 0) ||
	    f->raw[1] != f->len)
		abort();
	enum mavlink_sign_result r =
		mavlink_signing_check(&c->rx, f->raw, f->raw_len, c->now);
	if (r == MAVLINK_SIGN_OK &&
	    mavlink_signing_check(&c->rx, f->raw, f->raw_len, c->now) !=
		    MAVLINK_SIGN_REPLAY)
		abort();
	if (f->version == 2 && !is_signed) {
		if (r != MAVLINK_SIGN_UNSIGNED)
			abort();
		sign_and_break(c, f);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctx c = { .data = data, .size = size };
	struct mavlink_parser p;

	if (size < 8)
		return 0;
	for (int i = 0; i < 8; i++)
		c.now = c.now << 8 | data[i];
	c.now &= 0xFFFFFFFFFFFFull;	/* 48 bits, as on the wire */
	mavlink_signing_init(&c.rx, key, c.now);
	mavlink_parser_init(&p);
	p.deliver_signed = true;
	mavlink_parser_feed(&p, data + 8, size - 8, on_frame, &c);
	mavlink_parser_flush(&p);

	uint64_t checked = 0;
	for (int i = 0; i < MAVLINK_SIGN_RESULTS; i++)
		checked += c.rx.checked[i];
	if (checked < p.stats.frames || c.rx.n_streams > MAVLINK_SIGN_STREAMS)
		abort();
	return 0;
}
