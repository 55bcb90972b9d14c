/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * barod's MAVLink output as a GCS takes it, for the daemon tests: the
 * datagrams on a UDP socket parsed frame by frame.  No cmocka: what is
 * wrong is returned for the caller to assert.
 */
#ifndef GCS_PEER_H
#define GCS_PEER_H

#include <stdint.h>

#include "mavlink.h"

/*
 * Every datagram that arrives on fd until none has for wait_ms (0: those
 * already there), each frame to on_frame; the frames with a bad CRC, a
 * count.
 */
uint64_t
gcs_peer_drain(int fd, int wait_ms,
	       void (*on_frame)(const struct mavlink_frame *f, void *user),
	       void *user);

/* An on_frame: SCALED_PRESSURE counted by sysid into user, an unsigned
 * [3] (sysid 1 and 2; others not counted). */
void
gcs_peer_count_sysid(const struct mavlink_frame *f, void *user);

#endif
