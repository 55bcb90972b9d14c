/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The MAVLink receive path: bytes -> parser -> unpack, as the daemon sees
 * a UDP stream.  The input is fed two ways (all at once, and in chunks
 * sized by the input itself, which reach 1-byte pieces wherever an input
 * byte says so: a separate byte-at-a-time pass cost a third of the time
 * and found nothing the chunks do not); both must agree, every byte must
 * be accounted for, and every delivered frame must re-encode into one
 * the parser accepts again.  Any disagreement aborts.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "mavlink.h"

#define MAX_KEEP 64

struct seen {
	size_t n;
	uint64_t bytes;		/* wire bytes of the delivered frames */
	uint32_t hash;		/* of every delivered frame, in order */
	/* The first frames, or NULL: only the whole-input feed keeps them
	 * (re-encoded after), so the others need no 19 kB to clear. */
	struct mavlink_frame *keep;
	size_t max_keep;
};

/* Unpack whatever arrived: the unpackers read the zero-filled payload
 * at fixed offsets, so this is where an out-of-bounds read would show. */
static void
unpack_any(const struct mavlink_frame *f)
{
	union mavlink_msg m;

	/* Only known messages are delivered. */
	if (mavlink_unpack_msg(f->msgid, f->payload, &m) < 0)
		abort();
	/* Unpacked strings stay terminated whatever the bytes were. */
	switch (f->msgid) {
	case MAVLINK_MSG_PARAM_REQUEST_READ:
		if (m.prr.param_id[16] != '\0')
			abort();
		break;
	case MAVLINK_MSG_PARAM_VALUE:
		if (strlen(m.pv.param_id) > 16)
			abort();
		break;
	case MAVLINK_MSG_PARAM_SET:
		if (strlen(m.ps.param_id) > 16)
			abort();
		break;
	case MAVLINK_MSG_STATUSTEXT:
		if (strlen(m.st.text) > 50)
			abort();
		break;
	default:
		break;
	}
}

static void
on_frame(const struct mavlink_frame *f, void *user)
{
	struct seen *s = user;
	/* A frame the chunked feed delivers must hash like the whole
	 * feed's (the copy and raw bytes below), so the frame checks run
	 * on the whole feed's frames only, once per frame. */
	if (!s->keep)
		goto hash;
	const struct mavlink_msg_info *info = mavlink_msg_info(f->msgid);

	if (!info || (f->version != 1 && f->version != 2) ||
	    f->incompat_flags != 0)
		abort();
	for (size_t i = info->len; i < MAVLINK_MAX_PAYLOAD; i++) {
		if (f->payload[i] != 0)
			abort();
	}
	unpack_any(f);
	if (f->raw_len != (f->version == 2 ? 12u : 8u) + f->len ||
	    f->raw[1] != f->len)
		abort();
hash:
	s->bytes += (f->version == 2 ? 12u : 8u) + f->len;
	/* raw points into the parser that delivered it: its bytes are
	 * the frame's, its address is not. */
	struct mavlink_frame copy = *f;
	copy.raw = NULL;
	s->hash = fuzz_fnv(s->hash, &copy, sizeof(copy));
	s->hash = fuzz_fnv(s->hash, f->raw, f->raw_len);
	if (s->n < s->max_keep)
		s->keep[s->n] = copy;
	s->n++;
}

static void
check_accounting(const struct mavlink_parser *p, const struct seen *s,
		 size_t size)
{
	if (p->stats.frames != s->n ||
	    s->bytes + p->stats.garbage_bytes + p->stats.dropped_bytes +
			    p->have != size)
		abort();
}

/* A delivered frame, packed again from what it said, parses again to
 * the same header and (within the message's length) payload. */
static void
reencode(const struct mavlink_frame *f)
{
	const struct mavlink_msg_info *info = mavlink_msg_info(f->msgid);
	uint8_t out[MAVLINK_MAX_FRAME];
	struct mavlink_parser p;
	struct mavlink_frame again;
	struct seen s = { .keep = &again, .max_keep = 1 };

	int n = mavlink_frame_encode(out, f->version, f->seq, f->sysid,
				     f->compid, f->msgid, f->payload);
	if (n < 0)
		abort();
	mavlink_parser_init(&p);
	mavlink_parser_feed(&p, out, (size_t)n, on_frame, &s);
	if (s.n != 1 || s.keep[0].msgid != f->msgid ||
	    s.keep[0].seq != f->seq || s.keep[0].sysid != f->sysid)
		abort();
	size_t len = f->version == 1 ? info->min_len : info->len;
	if (memcmp(s.keep[0].payload, f->payload, len) != 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct mavlink_frame keep[MAX_KEEP];
	struct seen whole = { .keep = keep, .max_keep = MAX_KEEP };
	struct seen chunks = { 0 };
	struct mavlink_parser pw, pc;

	mavlink_parser_init(&pw);
	if (mavlink_parser_feed(&pw, data, size, on_frame, &whole) != whole.n)
		abort();
	check_accounting(&pw, &whole, size);

	/* Chunk sizes from the data itself, so the fuzzer steers them. */
	mavlink_parser_init(&pc);
	for (size_t i = 0, k = 0; i < size; i += k) {
		k = fuzz_chunk(data, size, i);
		mavlink_parser_feed(&pc, data + i, k, on_frame, &chunks);
	}

	if (chunks.n != whole.n || chunks.hash != whole.hash ||
	    memcmp(&pc.stats, &pw.stats, sizeof(pw.stats)) != 0)
		abort();

	for (size_t i = 0; i < whole.n && i < MAX_KEEP; i++)
		reencode(&whole.keep[i]);

	mavlink_parser_flush(&pw);
	if (pw.have != 0)
		abort();
	check_accounting(&pw, &whole, size);
	return 0;
}
