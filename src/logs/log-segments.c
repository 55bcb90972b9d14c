// SPDX-License-Identifier: GPL-3.0-or-later
#include "log-segments.h"

#include <stdlib.h>
#include <string.h>

void
log_segmenter_init(struct log_segmenter *s)
{
	memset(s, 0, sizeof(*s));
}

void
log_segmenter_reboot(struct log_segmenter *s)
{
	s->reboot_pending = true;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

uint64_t
log_seg_median(uint64_t *v, size_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return n % 2 ? v[n / 2] : v[n / 2 - 1] / 2 + v[n / 2] / 2 +
				  (v[n / 2 - 1] % 2 + v[n / 2] % 2) / 2;
}

enum log_seg_break
log_segmenter_push(struct log_segmenter *s, uint64_t t_us, uint64_t *gap_us)
{
	uint64_t dummy;
	if (!gap_us)
		gap_us = &dummy;
	*gap_us = 0;
	if (!s->have) {
		s->have = true;
		s->reboot_pending = false;
		s->last_us = t_us;
		s->segments = 1;
		return LOG_SEG_FIRST;
	}
	if (s->reboot_pending) {
		s->reboot_pending = false;
		*gap_us = t_us > s->last_us ? t_us - s->last_us : 0;
		s->last_us = t_us;
		s->segments++;
		return LOG_SEG_REBOOT;
	}
	if (t_us < s->last_us) {
		uint64_t back = s->last_us - t_us;
		if (back <= LOG_SEG_BACK_US)
			return LOG_SEG_NONE;	/* jitter: last_us stays */
		*gap_us = back;
		s->last_us = t_us;
		s->segments++;
		return LOG_SEG_BACKWARDS;
	}
	uint64_t dt = t_us - s->last_us;
	s->last_us = t_us;
	s->ring[s->pos] = dt;
	s->pos = (s->pos + 1) % LOG_SEG_WINDOW;
	if (s->nring < LOG_SEG_WINDOW)
		s->nring++;
	uint64_t tmp[LOG_SEG_WINDOW];
	memcpy(tmp, s->ring, s->nring * sizeof(*tmp));
	uint64_t med = log_seg_median(tmp, s->nring);
	if (dt > LOG_SEG_GAP_MIN_US && dt / LOG_SEG_GAP_FACTOR >= med &&
	    dt > med * LOG_SEG_GAP_FACTOR) {
		*gap_us = dt;
		s->segments++;
		return LOG_SEG_GAP;
	}
	return LOG_SEG_NONE;
}

const char *
log_seg_break_name(enum log_seg_break b)
{
	switch (b) {
	case LOG_SEG_GAP:
		return "gap";
	case LOG_SEG_REBOOT:
		return "reboot";
	case LOG_SEG_BACKWARDS:
		return "time going back";
	case LOG_SEG_NONE:
	case LOG_SEG_FIRST:
		break;
	}
	return "";
}
