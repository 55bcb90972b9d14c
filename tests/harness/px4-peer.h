/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A scripted PX4 for the daemon tests: it connects to barod's
 * simulator port (4560 + N) as PX4's simulator_mavlink does, queues the
 * frames barod sends (keeping every byte, for node-mavlink), and sends
 * what PX4 sends: its hello, heartbeats and HIL_ACTUATOR_CONTROLS.
 * Failures are cmocka failures.
 */
#ifndef PX4_PEER_H
#define PX4_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mavlink.h"

#define PX4_PEER_QUEUE 64

struct px4_peer {
	int fd;
	bool eof;
	struct mavlink_parser parser;
	struct mavlink_frame q[PX4_PEER_QUEUE];
	unsigned head, n;
	uint8_t seq;
	/* Set after px4_peer_connect to keep no copy: the soak's hours of
	 * frames would not fit. */
	bool discard_raw;
	/* Everything barod sent (unless discard_raw). */
	uint8_t *raw;
	size_t raw_len, raw_cap;
};

/* A TCP connection to 127.0.0.1:port (TCP_NODELAY, close-on-exec),
 * tried every 10 ms up to tries times as PX4 retries at start-up. */
int
px4_peer_dial(unsigned port, int tries);

/* p connected to port (px4_peer_dial), its queue empty. */
void
px4_peer_connect(struct px4_peer *p, unsigned port, int tries);

void
px4_peer_close(struct px4_peer *p);

/* The next frame from barod within ms; false on timeout or EOF. */
bool
px4_peer_next(struct px4_peer *p, struct mavlink_frame *f, int ms);

/* One frame from system 2, component 1, sequence *seq (then advanced),
 * written whole to fd. */
void
px4_peer_send(int fd, uint8_t *seq, uint32_t msgid, const uint8_t *pl);

/* PX4's heartbeat (autopilot PX4, MAVLink 2). */
void
px4_peer_heartbeat(int fd, uint8_t *seq);

/* What PX4 sends right after connecting: a heartbeat, and a request for
 * HIL_STATE_QUATERNION every 5000 us. */
void
px4_peer_hello(int fd, uint8_t *seq);

/* PX4's reply to a step: lockstep, mode, the first four controls at
 * throttle. */
void
px4_peer_controls(int fd, uint8_t *seq, uint64_t px4_time_us, uint8_t mode,
		  float throttle);

#endif
