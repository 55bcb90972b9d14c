/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * barod's one MAVLink send path: a frame encoded from one of barod's
 * vehicles, signed when the link signs, and handed whole to its queue.
 * The MAVLink sink sends every output's frames through it, and the PX4
 * simulator (sources/px4-sim.c) the frames it gives PX4.
 */
#ifndef BAROD_MAVLINK_SEND_H
#define BAROD_MAVLINK_SEND_H

#include <stddef.h>
#include <stdint.h>

#include "mavlink-sign.h"

struct mavlink_sender {
	int version;			/* MAVLink 1 or 2 */
	uint8_t sysid;			/* vehicle v sends as sysid + v */
	uint8_t compid;
	/* MAVLink 2 signing of every frame (sink_env's), or NULL; sign_now
	 * is its clock. */
	struct mavlink_signing *signing;
	uint64_t (*sign_now)(void);
	/* Where the frame goes, whole: 0 or a negative errno (the queue
	 * counts its own drops). */
	int (*queue)(void *user, const uint8_t *frame, size_t len);
	void *user;
};

/*
 * One frame of msgid (payload at full length) from vehicle, sequence
 * *seq (advanced for each frame made).  Returns the queue's result, or
 * -EBADMSG when no frame could be made (MAVLink 1 cannot carry an id
 * above 255; signing failed): nothing was queued, the caller counts it.
 */
int
mavlink_send_frame(const struct mavlink_sender *how, uint8_t *seq,
		   unsigned vehicle, uint32_t msgid, const uint8_t *payload);

#endif
