/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * "Waiting for ArduPilot ..." while a simulator peer has not appeared:
 * said at start and again every PEER_WAIT_EVERY_US, so a user who
 * started barod first and the autopilot not yet (or pointed it at
 * another port) is told what barod listens for instead of silence.
 * Pure: the caller passes the time and says when the peer is there.
 */
#ifndef BAROD_PEER_WAIT_H
#define BAROD_PEER_WAIT_H

#include <stdbool.h>
#include <stdint.h>

#define PEER_WAIT_EVERY_US (10u * 1000000u)

struct peer_wait {
	uint64_t next_us;	/* when to say it again; 0: not said yet */
	bool seen;		/* the peer appeared: never again */
};

/* Whether to say "waiting" now (now_us on any monotonic clock): the
 * first call, then every PEER_WAIT_EVERY_US, until peer_wait_seen(). */
bool
peer_wait_due(struct peer_wait *w, uint64_t now_us);

void
peer_wait_seen(struct peer_wait *w);

#endif
