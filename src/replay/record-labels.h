/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Fault labels from baro-drive's record (doc/drive.md, "The record"):
 * which faults the autopilot's own simulated baro had at each moment of
 * its clock, so that its log of that run (DataFlash, ULog, tlog: their
 * time since boot is the record's ap_ms) is judged like an injected case
 * without injecting anything.
 *
 * A value counts from its `acked` row, or from its `seen` row when the
 * autopilot's telemetry showed it later (PX4 v1.14 applies
 * SIM_BARO_OFF_P at its next parameter update, up to a second on).  A
 * value never acknowledged never counts.  The label at a moment is each
 * value that differs from its `start`, through the injector's own
 * labelling (inject_label_for): SIM_BARO_GLITCH a glitch, SIM_BARO_RND a
 * noise, SIM_BAR2_* the other baro, PX4's failure types the fault each
 * stands for, PX4's SIM_BARO_OFF_P a glitch; PX4's SIM_BARO_OFF_T (the
 * temperature alone) no label.
 *
 * One boot: rows after the autopilot's clock went back (baro-drive
 * aborts and repairs on the new boot, whose log is another file) are
 * counted and left out, and the label in force then lasts to the end.
 * Pure: parses text, no I/O.
 */
#ifndef BAROD_REPLAY_RECORD_LABELS_H
#define BAROD_REPLAY_RECORD_LABELS_H

#include <stddef.h>
#include <stdint.h>

/* The header baro-drive writes, the only one taken. */
#define RECORD_LABELS_HEADER "ap_ms,scenario_ms,line,event,name,value,text"

struct record_label_change {
	uint64_t t_us;		/* from here on (autopilot time, us) */
	uint32_t label;		/* enum inject_label bits */
};

struct record_labels {
	/* The label's changes in time order, the first at the record's
	 * first row with label 0. */
	struct record_label_change *ch;
	size_t n, cap;
	uint64_t first_us, last_us;	/* the record's span */
	/* When the value that first made a fault was acknowledged (its
	 * label starts here or, seen later, then); 0: no fault. */
	uint64_t fault_acked_us;
	size_t rows;			/* rows taken */
	size_t after_restart;		/* rows left out: clock went back */
	size_t unacked;			/* values sent, never acknowledged */
};

/*
 * Parse a record's text (len bytes, NUL not needed).  path names it in
 * errors.  0, or a negative errno with "PATH:LINE: why" in err: -EINVAL
 * for a wrong header, a bad field, an unknown event, parameter or PX4
 * failure type, a value out of the parameter's range; -ENODATA for a
 * record without rows; -ENOMEM.
 */
int
record_labels_parse(struct record_labels *rl, const char *text, size_t len,
		    const char *path, char *err, size_t errlen);

/* The label in force at t_us: 0 before the first change. */
uint32_t
record_labels_at(const struct record_labels *rl, uint64_t t_us);

void
record_labels_free(struct record_labels *rl);

#endif
