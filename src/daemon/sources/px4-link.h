/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * PX4's "Simulator MAVLink API" on transports/: PX4 SITL instance N
 * connects as a client to its simulator on TCP 4560 + N.  Both PX4 modes
 * listen for PX4 with a TCP server of one client (transport_tcp_server),
 * and the proxy connects to the real simulator with a TCP client
 * (transport_tcp); these are the policies they open them with.  Framing
 * is the source's (the peer parses with the codec's parser, the proxy
 * passes bytes on through mavlink-stream).
 */
#ifndef BAROD_PX4_LINK_H
#define BAROD_PX4_LINK_H

#include "transport-link.h"
#include "transports.h"

/* barod's backlog per PX4 stream: a second of 250 Hz HIL_SENSOR and
 * HIL_GPS many times over; what does not fit is dropped whole and
 * counted, never waited for. */
#define PX4_TX_MAX (256u * 1024u)
/* The kernel's send buffer per PX4 stream (SO_SNDBUF; the kernel
 * doubles it): many steps' frames, far below autotuning's megabytes. */
#define PX4_KERNEL_TX (64u * 1024u)

/* PX4's side: one PX4 per port, the newest connection the live one (a
 * restarted PX4 may connect before its old socket is seen to close), a
 * PX4 that stops reading losing frames rather than its connection, and
 * a kernel send buffer of PX4_KERNEL_TX: lockstep keeps one step's
 * frames in flight, and a PX4 that stops reading then finds at most
 * that much stale physics queued ahead of the live frames (the
 * kernel's autotuned default grows to megabytes: minutes of it at the
 * rate a stalled reader drains). */
static const struct transport_opts px4_link_px4_side = {
	.max_clients = 1,
	.newest_wins = true,
	.keep_full_clients = true,
	.sndbuf = PX4_KERNEL_TX,
};

/* The proxy's simulator: tried twice a second while PX4 is connected
 * (PX4 waits in lockstep meanwhile, so sooner buys nothing, and a
 * restarting simulator takes seconds); what PX4 sends while the connect
 * is in progress goes out when it completes. */
static const struct transport_opts px4_link_sim_side = {
	.retry_ms = 500,
	.queue_connecting = true,
	.sndbuf = PX4_KERNEL_TX,
};

#endif
