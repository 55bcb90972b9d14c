// SPDX-License-Identifier: GPL-3.0-or-later
#include "log-input.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef BAROD_HAVE_ZLIB
#include <zlib.h>
#endif

#ifdef BAROD_HAVE_ZLIB
/* Compressed bytes read from a file per refill. */
#define GZ_CHUNK 65536u

struct log_gz {
	z_stream zs;
	int fd;			/* the compressed source, or -1 for memory */
	uint8_t *zbuf;		/* compressed bytes read from fd */
	bool src_eof;		/* the compressed source is used up */
	bool member_end;	/* a gzip member ended: another may follow */
	char what[96];
};
#endif

int
log_input_init_fd(struct log_input *in, int fd)
{
	*in = (struct log_input){ .fd = fd };
	/* Twice the window, so a refill moves at most one window of bytes
	 * and reads at least one window's worth. */
	in->cap = 2 * (size_t)LOG_INPUT_WINDOW;
	in->buf = malloc(in->cap);
	if (!in->buf)
		return -ENOMEM;
	in->data = in->buf;
	return 0;
}

void
log_input_init_mem(struct log_input *in, const void *data, size_t len)
{
	*in = (struct log_input){ .fd = -1, .data = data, .avail = len,
				  .eof = 1 };
}

static void
gz_free(struct log_gz *g)
{
#ifdef BAROD_HAVE_ZLIB
	if (!g)
		return;
	inflateEnd(&g->zs);
	free(g->zbuf);
	free(g);
#else
	(void)g;
#endif
}

void
log_input_fini(struct log_input *in)
{
	gz_free(in->gz);
	in->gz = NULL;
	free(in->buf);
	in->buf = NULL;
	in->data = NULL;
	in->avail = 0;
}

#ifdef BAROD_HAVE_ZLIB
static int
gz_fail(struct log_input *in, int err, const char *what)
{
	snprintf(in->gz->what, sizeof(in->gz->what), "%s", what);
	in->error = err;
	in->eof = 1;
	return err;
}

/* Inflate into in->buf after in->avail until a window is there or the
 * source ends. */
static int
gz_refill(struct log_input *in)
{
	struct log_gz *g = in->gz;
	while (!in->eof && in->avail < LOG_INPUT_WINDOW) {
		if (g->zs.avail_in == 0 && !g->src_eof) {
			if (g->fd < 0) {
				g->src_eof = true;
			} else {
				ssize_t r = read(g->fd, g->zbuf, GZ_CHUNK);
				if (r < 0 && errno == EINTR)
					continue;
				if (r < 0)
					return gz_fail(in, -errno, "read failed");
				g->zs.next_in = g->zbuf;
				g->zs.avail_in = (uInt)r;
				g->src_eof = r == 0;
			}
		}
		if (g->member_end) {
			/* Another member, or the end (trailing zeros, as
			 * some tools pad with, end it too). */
			if (g->zs.avail_in == 0 && g->src_eof) {
				in->eof = 1;
				break;
			}
			if (g->zs.avail_in == 0)
				continue;
			if (g->zs.next_in[0] != 0x1f) {
				in->eof = 1;
				break;
			}
			if (inflateReset(&g->zs) != Z_OK)
				return gz_fail(in, -EBADMSG, "corrupt data");
			g->member_end = false;
		}
		g->zs.next_out = in->buf + in->avail;
		g->zs.avail_out = (uInt)(in->cap - in->avail);
		int zr = inflate(&g->zs, Z_NO_FLUSH);
		in->avail = in->cap - g->zs.avail_out;
		if (zr == Z_STREAM_END) {
			g->member_end = true;
			continue;
		}
		if (zr == Z_BUF_ERROR && g->zs.avail_in == 0 && g->src_eof)
			return gz_fail(in, -EPIPE,
				       "the compressed data is cut off");
		if (zr != Z_OK && zr != Z_BUF_ERROR)
			return gz_fail(in, zr == Z_MEM_ERROR ? -ENOMEM
							     : -EBADMSG,
				       g->zs.msg ? g->zs.msg : "corrupt data");
	}
	return 0;
}

#else
/* Without zlib no gzip source is ever opened (log_input_gunzip). */
static int
gz_refill(struct log_input *in)
{
	(void)in;
	return -ENOTSUP;
}
#endif

static int
refill(struct log_input *in)
{
	if (in->data != in->buf) {
		memmove(in->buf, in->data, in->avail);
		in->data = in->buf;
	}
	if (in->gz)
		return gz_refill(in);
	while (!in->eof && in->avail < in->cap) {
		ssize_t r = read(in->fd, in->buf + in->avail,
				 in->cap - in->avail);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			in->error = -errno;
			in->eof = 1;
			return in->error;
		}
		if (r == 0) {
			in->eof = 1;
			break;
		}
		in->avail += (size_t)r;
		/* One read per refill keeps pipes responsive; the loop
		 * only repeats on a short read from a regular file. */
		if (in->avail >= LOG_INPUT_WINDOW)
			break;
	}
	return 0;
}

long
log_input_peek(struct log_input *in, size_t n, const uint8_t **p)
{
	if (n > LOG_INPUT_WINDOW)
		return -EINVAL;
	/* A gzip stream that breaks still gives every byte inflated
	 * before the break; the error comes when they are used up. */
	bool partial = in->gz && in->avail > 0;
	if (in->avail < n && !in->eof) {
		int r = refill(in);
		partial = in->gz && in->avail > 0;
		if (r < 0 && !partial)
			return r;
	}
	if (in->avail < n && in->error && !partial)
		return in->error;
	*p = in->data;
	return (long)(in->avail < n ? in->avail : n);
}

void
log_input_consume(struct log_input *in, size_t n)
{
	if (n > in->avail)
		n = in->avail;
	in->data += n;
	in->avail -= n;
	in->offset += n;
}

int
log_input_skip(struct log_input *in, uint64_t n)
{
	while (n > 0) {
		const uint8_t *p;
		size_t want = n > LOG_INPUT_WINDOW ? LOG_INPUT_WINDOW
						   : (size_t)n;
		long got = log_input_peek(in, want, &p);
		if (got < 0)
			return (int)got;
		if (got == 0)
			return -ENODATA;
		log_input_consume(in, (size_t)got);
		n -= (uint64_t)got;
	}
	return 0;
}

bool
log_input_is_gzip(const uint8_t *head, size_t len)
{
	/* ID1 ID2 and CM 8 (deflate), the only method gzip defines. */
	return len >= 3 && head[0] == 0x1f && head[1] == 0x8b && head[2] == 8;
}

int
log_input_gunzip(struct log_input *in)
{
#ifndef BAROD_HAVE_ZLIB
	/* A build without zlib (a cross build whose mirror had none) says
	 * so rather than reading the compressed bytes as a log. */
	(void)in;
	return -ENOTSUP;
#else
	if (in->gz)
		return -EINVAL;
	struct log_gz *g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	/* 16 + MAX_WBITS: a gzip header and trailer, not raw zlib. */
	if (inflateInit2(&g->zs, 16 + MAX_WBITS) != Z_OK) {
		free(g);
		return -ENOMEM;
	}
	g->fd = in->fd;
	uint8_t *out = malloc(2 * (size_t)LOG_INPUT_WINDOW);
	if (g->fd >= 0)
		g->zbuf = malloc(GZ_CHUNK > in->avail ? GZ_CHUNK : in->avail);
	if (!out || (g->fd >= 0 && !g->zbuf)) {
		free(out);
		gz_free(g);
		return -ENOMEM;
	}
	if (g->fd >= 0) {
		/* What was read already is the stream's start. */
		memcpy(g->zbuf, in->data, in->avail);
		g->zs.next_in = g->zbuf;
		g->src_eof = in->eof;
		free(in->buf);
	} else {
		/* Memory: inflate straight from the block. */
		g->zs.next_in = (uint8_t *)(uintptr_t)in->data;
		g->src_eof = true;
	}
	g->zs.avail_in = (uInt)in->avail;
	in->gz = g;
	in->buf = out;
	in->cap = 2 * (size_t)LOG_INPUT_WINDOW;
	in->data = in->buf;
	in->avail = 0;
	in->offset = 0;
	in->eof = 0;
	in->error = 0;
	return 0;
#endif
}

const char *
log_input_error_text(const struct log_input *in)
{
#ifdef BAROD_HAVE_ZLIB
	return in->gz && in->error ? in->gz->what : "";
#else
	(void)in;
	return "";
#endif
}
