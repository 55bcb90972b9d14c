/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The fault labels of a job whose faults barod made (link =
 * px4-sim-proxy), for the judge (baro-replay --labels) and the times to
 * detect, in baro-drive's record format (doc/drive.md, "The record";
 * src/replay/record-labels.h) so that one judge takes both links.
 *
 * barod's scenario runs on its physics clock, whose 0 is the
 * simulator's first HIL_SENSOR of the connection; PX4 in lockstep takes
 * its own clock from the same time_usec, so scenario time t is the
 * autopilot's t0 + t, where t0 is that first time_usec (barod logs it).
 * The labels are the scenario's own timeline, stepped here on barod's
 * engine as barod steps it (every 10 ms, the emulator's sample period):
 * each parameter it changes as an `acked` row, each overlay fault as
 * PX4's failure type on `baro`.  What they cannot say: a fault's effect
 * on the autopilot beyond what the scenario set (barod's noise is in the
 * label only when the scenario sets SIM_BARO_RND), and the 10 ms
 * between barod's sample and the step.  Pure: text out, no I/O.
 */
#ifndef BAROD_CAMPAIGN_LABELS_H
#define BAROD_CAMPAIGN_LABELS_H

#include <stddef.h>
#include <stdint.h>

/*
 * The labels of scenario text (len bytes, named name in errors) with
 * scenario time 0 at the autopilot's t0_ms, into out (len_out bytes).
 * The number of bytes written, or a negative errno with the reason in
 * err: -EINVAL a scenario that does not parse, -ENOSPC out too small.
 */
int
campaign_labels(const char *text, size_t len, const char *name,
		uint64_t t0_ms, char *out, size_t len_out, char *err,
		size_t errlen);

/*
 * From barod's log (its stderr), the simulator's time_usec at physics
 * time 0 of PX4 instance 0's latest connection: 0 and *t0_us, or
 * -ENOENT when the log never says it (PX4 never connected).
 */
int
campaign_labels_t0(const char *log, size_t len, uint64_t *t0_us);

/* What barod writes, the line campaign_labels_t0() looks for. */
#define CAMPAIGN_LABELS_T0_SAY "physics time 0 is the simulator's time_usec "

#endif
