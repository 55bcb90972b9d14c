/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * PX4's simulator link as the simulator sees it: PX4 SITL (its
 * simulator_mavlink module) connects as a TCP client to port 4560 + its
 * instance and speaks MAVLink 2 in both directions.  This listens,
 * accepts one PX4 at a time (a new connection replaces the old one: a
 * restarted PX4 may connect before the old socket reports its end),
 * frames the byte stream, and queues outgoing frames without ever
 * blocking.  What the frames mean is the caller's business.
 */
#ifndef BAROD_PX4_PEER_LINK_H
#define BAROD_PX4_PEER_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event-loop.h"
#include "mavlink.h"

#define PX4_LINK_TX_MAX 65536

struct px4_peer_link_stats {
	uint64_t connections;		/* accepted */
	uint64_t disconnects;		/* PX4 closed, or a socket error */
	uint64_t replaced;		/* a newer connection took over */
	uint64_t bytes_in;
	uint64_t frames_in;		/* good frames delivered */
	uint64_t frames_out;
	uint64_t frames_dropped;	/* no PX4, or the queue was full */
};

struct px4_peer_link;

typedef void (*px4_link_frame_cb)(void *user, struct px4_peer_link *l,
				  const struct mavlink_frame *f);
/* PX4 connected (true) or went away (false). */
typedef void (*px4_link_state_cb)(void *user, struct px4_peer_link *l,
				  bool connected);

struct px4_peer_link {
	unsigned instance;
	unsigned port;
	struct event_loop *loop;
	struct event_source listen_src;
	struct event_source conn_src;	/* fd -1 when nobody is connected */
	char peer[64];			/* "ADDR:PORT" of PX4 */
	struct mavlink_parser parser;
	uint8_t seq;
	size_t tx_len;
	uint8_t tx[PX4_LINK_TX_MAX];
	struct px4_peer_link_stats stats;
	px4_link_frame_cb on_frame;
	px4_link_state_cb on_state;
	void *user;
};

/* Listen on bind_host:port.  -errno with the reason in err. */
int
px4_peer_link_open(struct px4_peer_link *l, const char *bind_host,
		   unsigned port, unsigned instance, struct event_loop *loop,
		   px4_link_frame_cb on_frame, px4_link_state_cb on_state,
		   void *user, char *err, size_t errlen);

void
px4_peer_link_close(struct px4_peer_link *l);

static inline bool
px4_peer_link_connected(const struct px4_peer_link *l)
{
	return l->conn_src.fd >= 0;
}

/* Queue one MAVLink 2 frame (payload at full length).  Returns 0, or
 * -ENOTCONN / -ENOBUFS when it was dropped (counted). */
int
px4_peer_link_send(struct px4_peer_link *l, uint8_t sysid, uint8_t compid,
		   uint32_t msgid, const uint8_t *payload);

/* Write what is queued; the rest waits for the socket (EPOLLOUT). */
void
px4_peer_link_flush(struct px4_peer_link *l);

/* Drop the connection (PX4 must connect again). */
void
px4_peer_link_disconnect(struct px4_peer_link *l);

#endif
