/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * TCP for PX4's "Simulator MAVLink API": PX4 SITL instance N connects as
 * a client to its simulator on TCP 4560 + N.  This module is the socket
 * side shared by barod's PX4 modes: a listener that accepts PX4, an
 * outgoing connection (to a real simulator, for the proxy), and for each
 * connected stream a non-blocking writer whose backlog is bounded
 * (bytes that do not fit are dropped and counted, never waited for).
 * MAVLink framing is the caller's (src/proto/mavlink-stream.h).
 */
#ifndef BAROD_PX4_LINK_H
#define BAROD_PX4_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event-loop.h"

#define PX4_SIM_PORT_BASE 4560
/* A second of 250 Hz HIL_SENSOR and HIL_GPS many times over. */
#define PX4_TX_MAX (256u * 1024u)

struct px4_conn_stats {
	uint64_t bytes_in;
	uint64_t bytes_out;	/* written to the socket */
	uint64_t dropped_bytes;	/* did not fit the bounded backlog */
	uint64_t overflows;	/* sends that lost bytes */
};

struct px4_conn;

struct px4_conn_ops {
	void (*data)(struct px4_conn *c, const uint8_t *buf, size_t len,
		     void *user);
	/* An outgoing connection completed. */
	void (*connected)(struct px4_conn *c, void *user);
	/* The peer closed (err 0) or the socket failed (-errno); the
	 * connection is already closed when this runs. */
	void (*closed)(struct px4_conn *c, int err, void *user);
};

struct px4_conn {
	struct event_loop *loop;
	struct event_source src;	/* fd -1: closed */
	bool connecting;
	uint8_t *tx;			/* the backlog, PX4_TX_MAX bytes */
	size_t tx_len;
	struct px4_conn_stats stats;
	const struct px4_conn_ops *ops;
	void *user;
};

/* Take over a connected (or connecting) stream socket; on failure
 * (-ENOMEM, or the loop's error) it is closed. */
int
px4_conn_open(struct px4_conn *c, struct event_loop *loop, int fd,
	      bool connecting, const struct px4_conn_ops *ops, void *user);

bool
px4_conn_is_open(const struct px4_conn *c);

/* Bytes written but not yet taken by the socket: a caller that must not
 * cut a frame checks it against PX4_TX_MAX before sending. */
static inline size_t
px4_conn_backlog(const struct px4_conn *c)
{
	return c->tx_len;
}

/* Queue bytes; never blocks.  Bytes beyond the backlog's bound are
 * dropped and counted.  Nothing happens on a closed connection. */
void
px4_conn_send(struct px4_conn *c, const uint8_t *buf, size_t len);

void
px4_conn_close(struct px4_conn *c);

/*
 * Start a non-blocking TCP connection to HOST:PORT (TCP_NODELAY, as PX4
 * sets).  Returns the socket, or a negative errno with the reason in err;
 * completion (or failure) arrives through px4_conn_open's callbacks.
 */
int
px4_tcp_connect(const char *hostport, char *err, size_t errlen);

struct px4_listener {
	struct event_loop *loop;
	struct event_source src;
	/* A new connection's socket (non-blocking, TCP_NODELAY). */
	void (*accepted)(struct px4_listener *l, int fd, void *user);
	void *user;
};

int
px4_listen(struct px4_listener *l, struct event_loop *loop, const char *host,
	   unsigned port,
	   void (*accepted)(struct px4_listener *l, int fd, void *user),
	   void *user, char *err, size_t errlen);

void
px4_listener_close(struct px4_listener *l);

#endif
