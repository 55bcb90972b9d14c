/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Where a baro stream breaks into segments: at recording gaps and at
 * reboots.  One rule for list, export and run, so every command reports
 * the same segments for the same channel.
 *
 * Gap: an interval longer than LOG_SEG_GAP_FACTOR times the median of
 * the last LOG_SEG_WINDOW intervals (this one included) and longer than
 * LOG_SEG_GAP_MIN_US.  The floor keeps short dropouts (a second or so at
 * 10 Hz, which a filter's timeout should catch and be scored on) inside
 * a segment; logging pauses between flights (seconds to minutes) split.
 * A stream's own slow rate is never a gap: the median follows it.
 *
 * Boot: the reader said the clock restarted (LOG_EVENT_REBOOT: a tlog's
 * time_boot_ms reset, a DataFlash log's header appearing again in a
 * joined file), or the time went back by more than LOG_SEG_BACK_US
 * without the log saying so (a cut log joined to another).  Smaller
 * backward steps are jitter between message types, not a new segment.
 *
 * Pure: times are passed in, nothing is read or written.
 */
#ifndef BAROD_LOG_SEGMENTS_H
#define BAROD_LOG_SEGMENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LOG_SEG_GAP_FACTOR 5u
#define LOG_SEG_GAP_MIN_US 2000000u
#define LOG_SEG_BACK_US 1000000u
#define LOG_SEG_WINDOW 63u

enum log_seg_break {
	LOG_SEG_NONE,		/* same segment */
	LOG_SEG_FIRST,		/* the stream's first sample */
	LOG_SEG_GAP,		/* a recording gap before this sample */
	LOG_SEG_REBOOT,		/* the log says the clock restarted */
	LOG_SEG_BACKWARDS,	/* the time went back without a reboot */
};

struct log_segmenter {
	uint64_t ring[LOG_SEG_WINDOW];
	unsigned nring, pos;
	bool have;
	bool reboot_pending;
	uint64_t last_us;
	size_t segments;
};

void
log_segmenter_init(struct log_segmenter *s);

/* The log says the clock restarted: the next sample starts a segment. */
void
log_segmenter_reboot(struct log_segmenter *s);

/*
 * The next sample's time.  Returns why it starts a segment, or
 * LOG_SEG_NONE; *gap_us (may be NULL) is the interval before it (0 for
 * the first, how far back for LOG_SEG_BACKWARDS).
 */
enum log_seg_break
log_segmenter_push(struct log_segmenter *s, uint64_t t_us, uint64_t *gap_us);

/* "gap", "reboot", "time going back", "" */
const char *
log_seg_break_name(enum log_seg_break b);

/* The median of n intervals (sorted in place); 0 when n is 0. */
uint64_t
log_seg_median(uint64_t *v, size_t n);

#endif
