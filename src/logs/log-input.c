// SPDX-License-Identifier: GPL-3.0-or-later
#include "log-input.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

void
log_input_fini(struct log_input *in)
{
	free(in->buf);
	in->buf = NULL;
	in->data = NULL;
	in->avail = 0;
}

static int
refill(struct log_input *in)
{
	if (in->data != in->buf) {
		memmove(in->buf, in->data, in->avail);
		in->data = in->buf;
	}
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
	if (in->avail < n && !in->eof) {
		int r = refill(in);
		if (r < 0)
			return r;
	}
	if (in->avail < n && in->error)
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
