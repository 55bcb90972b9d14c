/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * baro-drive's state file: what it has changed on an autopilot, with
 * each value's start, written before a change is sent and removed once
 * everything is back, so a baro-drive that died mid-scenario is repaired
 * by the next one.
 *
 *   # baro-drive: changed on the autopilot; put back at the next start
 *   autopilot ardupilot
 *   SIM_BARO_GLITCH 0
 *
 * Pure: text in, options out; a drive out, text out.
 */
#ifndef BAROD_DRIVE_STATE_H
#define BAROD_DRIVE_STATE_H

#include <stddef.h>
#include <stdio.h>

#include "drive.h"

/* The longest state file read (the slots, with room): larger is refused. */
#define DRIVE_STATE_MAX 8192

/*
 * Parse a state file's text (len bytes, need not be NUL-terminated) for
 * autopilot ap into o->left.  0, or -EINVAL with "NAME:LINE: reason" in
 * err: a file for another autopilot, an unknown name, a value that is
 * not a finite number, a name twice, too many names, a line too long.
 */
int
drive_state_parse(const char *text, size_t len, const char *name,
		  enum drive_autopilot ap, struct drive_opts *o, char *err,
		  size_t errlen);

/* Write what d has changed (drive_dirty) as a state file; returns how
 * many values it names (0: the file is not needed). */
size_t
drive_state_write(const struct drive *d, FILE *out);

#endif
