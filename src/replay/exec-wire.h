/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The exec-filter protocol's bytes (doc/filter-exec.md): encoding what
 * the host sends and parsing what the filter answers, with no I/O, so
 * the parsers can be fuzzed and tested on their own.
 *
 * Little-endian throughout; doubles are IEEE 754 binary64.
 *
 *   host -> filter  hello   "BRFX" u32 version u32 frame_size
 *                           u32 output_size                     (16 bytes)
 *   filter -> host  hello   "BRFX" u32 version u32 reads
 *                           u32 name_len NAME                   (16 + len)
 *   host -> filter  'F' u32 n FRAME*n      a batch of n >= 1 frames
 *   filter -> host  'O' u32 n OUTPUT*n     its outputs, the same n, in order
 *   host -> filter  'R'                    reset: the next frame starts a
 *                                          case or a segment
 *   filter -> host  'E' u32 len MESSAGE    an error (instead of a hello or
 *                                          an 'O'); the filter then exits
 *
 * A frame is struct baro_filter_frame's 304 bytes in its field order
 * (baro-filter.h: every field at its natural offset, reserved fields
 * zero); an output is alt_m, climb_m_s, test_ratio (f64) then flags and
 * baro_flags[3] (u32): 40 bytes.
 */
#ifndef BAROD_EXEC_WIRE_H
#define BAROD_EXEC_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "baro-filter.h"

#define EXEC_WIRE_MAGIC "BRFX"
#define EXEC_WIRE_VERSION 1u
#define EXEC_WIRE_FRAME_SIZE 304u
#define EXEC_WIRE_OUTPUT_SIZE 40u
#define EXEC_WIRE_HOST_HELLO_SIZE 16u
/* Frames per batch at most: 1.2 MB of frames, 160 kB of outputs, so a
 * filter may read a whole batch before it answers. */
#define EXEC_WIRE_BATCH_MAX 4096u
/* A batch's header ('F' or 'O', u32 n) and the 'R' message. */
#define EXEC_WIRE_HEADER_SIZE 5u
/* Names as the built-ins': [a-z0-9_-]{1,63}. */
#define EXEC_WIRE_NAME_MAX 63u
/* Longer 'E' messages are refused rather than buffered. */
#define EXEC_WIRE_ERROR_MAX 4096u

/* The host's hello into p (EXEC_WIRE_HOST_HELLO_SIZE bytes). */
void
exec_wire_put_host_hello(uint8_t *p);

/* One frame's wire form into p (EXEC_WIRE_FRAME_SIZE bytes). */
void
exec_wire_put_frame(uint8_t *p, const struct baro_filter_frame *f);

/* A batch header, 'F' and n, into p (EXEC_WIRE_HEADER_SIZE bytes). */
void
exec_wire_put_batch_header(uint8_t *p, uint32_t n);

/* One output from its wire form (EXEC_WIRE_OUTPUT_SIZE bytes). */
void
exec_wire_get_output(const uint8_t *p, struct baro_filter_output2 *o);

/* The filter's hello. */
struct exec_wire_hello {
	uint32_t reads;		/* BARO_FILTER_READS_*; 0: all */
	char name[EXEC_WIRE_NAME_MAX + 1];
};

/*
 * The parsers take the bytes received so far (buf, len) and return the
 * length of the complete message at its start, 0 when more bytes are
 * needed (nothing said is wrong yet), or a negative errno with one line
 * in err: -ECANCELED the filter's 'E' (err holds its message, made
 * printable), -EPROTO anything else that is not what was due.
 */
int
exec_wire_parse_hello(const uint8_t *buf, size_t len,
		      struct exec_wire_hello *h, char *err, size_t errlen);

/*
 * The answer to a batch of n frames: an 'O' of exactly n outputs,
 * decoded into out[n] when complete.  A wrong count is refused as soon
 * as the header is in.  n is 1..EXEC_WIRE_BATCH_MAX (else -EINVAL).
 */
int
exec_wire_parse_outputs(const uint8_t *buf, size_t len, uint32_t n,
			struct baro_filter_output2 *out, char *err,
			size_t errlen);

#endif
