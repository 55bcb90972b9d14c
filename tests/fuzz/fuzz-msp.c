/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The MSP v2 decoder (the flight controller's side of barod's MSP
 * output).  The input is fed whole, a byte at a time and in chunks the
 * input chooses; all three must deliver the same frames and counts, every
 * byte must be accounted for, every delivered frame must encode back to
 * the same bytes, and a barometer payload must survive unpack and pack.
 * Any disagreement aborts.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "msp.h"

struct seen {
	size_t n;
	uint64_t bytes;		/* wire bytes of the delivered frames */
	uint32_t hash;		/* of every delivered frame, in order */
};

static uint32_t
fnv(uint32_t h, const void *data, size_t len)
{
	const uint8_t *p = data;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

static void
on_frame(const struct msp_frame *f, void *user)
{
	struct seen *s = user;
	uint8_t out[MSP_FRAME_MAX];

	if (f->len > MSP_PAYLOAD_MAX)
		abort();
	int n = msp_v2_encode(out, sizeof(out), f->direction, f->flags,
			      f->function, f->payload, f->len);
	if (n != MSP_V2_OVERHEAD + f->len ||
	    memcmp(out + MSP_V2_HEADER_LEN, f->payload, f->len) != 0)
		abort();
	struct msp_parser again;
	msp_parser_init(&again);
	if (msp_parser_feed(&again, out, (size_t)n, NULL, NULL) != 1)
		abort();

	struct msp_baro b;
	int rc = msp_baro_unpack(f->payload, f->len, &b);
	if ((rc == 0) != (f->len == MSP_BARO_PAYLOAD_LEN))
		abort();
	if (rc == 0) {
		uint8_t pl[MSP_BARO_PAYLOAD_LEN];
		msp_baro_pack(&b, pl);
		if (memcmp(pl, f->payload, sizeof(pl)) != 0)
			abort();
	}
	s->bytes += (uint64_t)n;
	s->hash = fnv(s->hash, out, (size_t)n);
	s->n++;
}

static void
check_accounting(const struct msp_parser *p, const struct seen *s,
		 size_t size)
{
	if (p->stats.frames != s->n ||
	    s->bytes + p->stats.garbage_bytes + p->have != size)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct seen whole = { 0 }, bytes = { 0 }, chunks = { 0 };
	static struct msp_parser pw, pb, pc;

	msp_parser_init(&pw);
	if (msp_parser_feed(&pw, data, size, on_frame, &whole) != whole.n)
		abort();
	check_accounting(&pw, &whole, size);

	msp_parser_init(&pb);
	for (size_t i = 0; i < size; i++)
		msp_parser_feed(&pb, data + i, 1, on_frame, &bytes);

	/* Chunk sizes from the data itself, so the fuzzer steers them. */
	msp_parser_init(&pc);
	for (size_t i = 0, k = 0; i < size; i += k) {
		k = 1 + data[(i * 7) % size] % 64;
		if (k > size - i)
			k = size - i;
		msp_parser_feed(&pc, data + i, k, on_frame, &chunks);
	}

	if (bytes.n != whole.n || bytes.hash != whole.hash ||
	    chunks.n != whole.n || chunks.hash != whole.hash ||
	    memcmp(&pb.stats, &pw.stats, sizeof(pw.stats)) != 0 ||
	    memcmp(&pc.stats, &pw.stats, sizeof(pw.stats)) != 0 ||
	    pb.have != pw.have || pc.have != pw.have)
		abort();

	msp_parser_flush(&pw);
	if (pw.have != 0)
		abort();
	check_accounting(&pw, &whole, size);
	return 0;
}
