/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A forward-only byte source for log readers: a file descriptor behind a
 * fixed buffer, or a memory block (fuzzing, tests).  Readers ask for the
 * next n bytes (n <= LOG_INPUT_WINDOW) without copying, then consume
 * them, so every reader runs in constant memory whatever the file size,
 * and every error can name the file offset where it happened.
 *
 * A gzip'd source (.gz, read with zlib) is inflated on the way, so the
 * readers see the log itself; offsets are then offsets in the inflated
 * log.  Concatenated gzip members are read one after the other.
 */
#ifndef BAROD_LOG_INPUT_H
#define BAROD_LOG_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest record any format has: a ULog message is a 3-byte header
 * plus up to 65535 bytes. */
#define LOG_INPUT_WINDOW (3u + 65535u)

struct log_input {
	int fd;			/* -1 for a memory block */
	uint8_t *buf;		/* owned; 2 * LOG_INPUT_WINDOW bytes */
	size_t cap;
	const uint8_t *data;	/* the bytes not yet consumed */
	size_t avail;		/* how many of them */
	uint64_t offset;	/* file offset of data[0] */
	int eof;		/* no more bytes will come */
	int error;		/* negative errno of a failed read, else 0 */
	struct log_gz *gz;	/* inflating a gzip source; NULL: plain */
};

/* Does head (len bytes) start a gzip stream? */
bool
log_input_is_gzip(const uint8_t *head, size_t len);

/*
 * Inflate the rest of the source: the bytes not yet consumed are the
 * start of a gzip stream.  Call before anything is consumed.  0, -ENOMEM,
 * -EINVAL when already inflating.  A corrupt stream later fails reads
 * with -EBADMSG, one cut off with -EPIPE (log_input_error_text() says
 * which).
 */
int
log_input_gunzip(struct log_input *in);

/* What went wrong with a gzip source, for messages; "" otherwise. */
const char *
log_input_error_text(const struct log_input *in);

/* Read from fd (not closed by log_input_fini).  -ENOMEM. */
int
log_input_init_fd(struct log_input *in, int fd);

/* Read from a memory block, which must outlive the input. */
void
log_input_init_mem(struct log_input *in, const void *data, size_t len);

void
log_input_fini(struct log_input *in);

/*
 * Make at least n bytes available at *p (n <= LOG_INPUT_WINDOW).
 * Returns n; fewer (possibly 0) at end of input, with *p set to what is
 * left; or a negative errno if reading failed (-EINVAL for n too large).
 */
long
log_input_peek(struct log_input *in, size_t n, const uint8_t **p);

/* Consume n bytes (n <= what the last peek returned). */
void
log_input_consume(struct log_input *in, size_t n);

/*
 * Skip n bytes, which may be more than the window (reads and drops).
 * Returns 0, -ENODATA if the input ended first, or a read error.
 */
int
log_input_skip(struct log_input *in, uint64_t n);

/* File offset of the next byte to be consumed. */
static inline uint64_t
log_input_offset(const struct log_input *in)
{
	return in->offset;
}

#endif
