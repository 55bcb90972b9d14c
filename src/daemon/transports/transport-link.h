/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A transport a source owns (the PX4 links: PX4 connecting to barod as
 * its simulator, the proxy's connection to the real simulator; the SITL
 * JSON links: ArduPilot's servo packets, the proxy's physics backend),
 * rather than an output's: the transport, its event source, its counters and
 * its address in one object, bound once, so the source only says what
 * to open and takes what comes back (rx: bytes, and the connection
 * events TRANSPORT_RX_UP / TRANSPORT_RX_DOWN).  It must not move while
 * open: the transport points into it.
 */
#ifndef BAROD_TRANSPORT_LINK_H
#define BAROD_TRANSPORT_LINK_H

#include "transport.h"

struct transport_link {
	struct transport t;
	struct event_source src;
	struct output_stats stats;
	struct config_output cfg;	/* name and address only */
};

/* Before open (and after close): nothing to close. */
void
transport_link_init(struct transport_link *l);

/*
 * Open ops (transports.h: transport_tcp, transport_udp_server, ...) on
 * address (HOST:PORT)
 * with opts and backlog bytes (0: the transport's default), named name
 * in messages.  0, or a negative errno with a message in err.
 */
int
transport_link_open(struct transport_link *l, const struct transport_ops *ops,
		    struct event_loop *loop, const char *name,
		    const char *address, const struct transport_opts *opts,
		    size_t backlog, transport_rx_cb rx, void *user, char *err,
		    size_t errlen);

void
transport_link_close(struct transport_link *l);

static inline bool
transport_link_is_open(const struct transport_link *l)
{
	return l->t.ops != NULL;
}

/* A peer is connected (a TCP client's connect completed, a server has a
 * client). */
static inline bool
transport_link_connected(const struct transport_link *l)
{
	return l->t.ops && l->t.connected;
}

/* Queue bytes, whole or not at all (dropped and counted); never blocks.
 * 0, -EAGAIN (no room), -ENOTCONN (no peer). */
int
transport_link_send(struct transport_link *l, const uint8_t *buf, size_t len);

/* The same, sent at once rather than at the next flush (a lockstep
 * peer waits for it): UDP sends the message as one datagram of up to
 * 64 KiB with one system call, the others queue and flush.  Errors as
 * transport_ops.send. */
int
transport_link_send_now(struct transport_link *l, const uint8_t *buf,
			size_t len);

/* During rx of a UDP server opened with opts.answer_accepted: answer
 * this datagram's sender, and only it, from now on. */
static inline void
transport_link_answer_sender(struct transport_link *l)
{
	datagram_answer_sender(&l->t);
}

/* Hand what is queued to the kernel (one system call); a TCP client
 * whose retry is due connects again. */
void
transport_link_flush(struct transport_link *l);

/* Bytes queued or waiting for the socket to take them. */
size_t
transport_link_pending(const struct transport_link *l);

#endif
