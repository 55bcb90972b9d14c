/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Transports: how an output's bytes reach its peer and come back.  One
 * ops table per kind (UDP client, UDP server, serial line, TCP
 * connection), chosen by the output's type; the output above it only
 * encodes frames and parses what comes back.
 *
 * Sending is batched: queue() keeps a loop pass's frames and flush()
 * hands them to the kernel in one system call (sendmmsg for UDP, one
 * datagram per peer and per 1472 bytes; one write for a byte stream).
 * Nothing blocks: a full socket buffer, a dead peer or a full line drops
 * the frame and counts it.
 *
 * Adding a transport: one file defining a struct transport_ops, its wire
 * in config.h's enum output_wire and in transport_ops_for()
 * (transports.c, the registry, which also declares every ops table), its
 * source in meson.build, and the output types that use it (rows of
 * config.c's output table).  This file and transport.c are what the
 * transports share; they know none of them.
 *
 * The outputs are not the only users: barod's PX4 links (PX4 connecting
 * to barod as its simulator, barod connecting to a simulator for the
 * proxy) are a TCP server and a TCP client, and its SITL JSON links
 * (ArduPilot's servo packets, the proxy's physics backend) a UDP server
 * and a UDP client, each with its own policy (struct transport_opts);
 * their owners take the connection events (TRANSPORT_RX_UP,
 * TRANSPORT_RX_DOWN) the outputs ignore, and the SITL links send each
 * reply at once (ops->send) rather than at the loop pass's flush.
 */
#ifndef BAROD_TRANSPORT_H
#define BAROD_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "config.h"
#include "event-loop.h"

#define TRANSPORT_MAX_PEERS 8
/* 1472 bytes fit a 1500-byte MTU; several MAVLink frames per datagram
 * is normal on UDP. */
#define TRANSPORT_DATAGRAM_MAX 1472
/* Datagrams one flush sends in its one sendmmsg: a parameter list or a
 * burst of status texts fits without an early flush. */
#define TRANSPORT_DATAGRAMS 8
#define TRANSPORT_STREAM_BUFFER 8192
/* Reads one readiness event may make (512-byte reads of a stream)
 * before the loop gets back to its timer: a peer that sends faster than
 * barod parses is read on the next pass (the socket stays readable) and
 * the kernel drops the excess, rather than the loop draining it forever
 * while samples wait. */
#define TRANSPORT_READ_BUDGET 64
/* UDP reads one batch per readiness event, for the same reason: one
 * recvmmsg of up to this many datagrams of TRANSPORT_RX_DATAGRAM bytes
 * (larger ones arrive cut, and the parser resyncs), or of one when
 * opts.datagram_max is larger.  Level-triggered epoll wakes the loop
 * again while more wait; a lockstep peer's one datagram costs one call,
 * never a second that finds the socket empty. */
#define TRANSPORT_RX_BATCH 16
#define TRANSPORT_RX_DATAGRAM 2048
/* Reconnection (TCP) and reopening (a serial device that hung up, such
 * as a USB adapter unplugged) backoff, doubling between these. */
#define TRANSPORT_RETRY_MIN_MS 100u
#define TRANSPORT_RETRY_MAX_MS 2000u
/* A TCP server (tcpin:) takes at most this many clients at once, and
 * keeps at most TRANSPORT_CLIENT_BACKLOG bytes for each: a client that
 * stops reading is cut off when its backlog is full, never waited for. */
#define TRANSPORT_MAX_CLIENTS 8
#define TRANSPORT_CLIENT_BACKLOG 4096

/* An output's counters (its status line and exit report).  The transport
 * keeps all of them but frames_invalid, which the encoder above counts;
 * named for the outputs that show them. */
struct output_stats {
	uint64_t frames_sent;
	uint64_t frames_dropped;	/* buffer full, peer gone, I/O error */
	uint64_t frames_no_peer;	/* udp-server with nobody to send to,
					 * msp-tcp not connected */
	uint64_t bytes_sent;
	uint64_t bytes_dropped;		/* in the frames dropped */
	uint64_t frames_received;
	/* MSP: samples not sent because their values are not physically
	 * possible (msp_baro_from_sample). */
	uint64_t frames_invalid;
	uint64_t bytes_lost;		/* backlog discarded at a disconnect
					 * or a hangup */
	uint64_t connects;		/* msp-tcp connections made */
	uint64_t hangups;		/* serial: the device went away */
	uint64_t clients_refused;	/* tcp-server: over TRANSPORT_MAX_CLIENTS */
	uint64_t clients_cut;		/* tcp-server: stopped reading */
};

/* What the transport tells the parser above about received bytes. */
enum transport_rx {
	TRANSPORT_RX_DATA,	/* buf, n: bytes as they came */
	TRANSPORT_RX_END,	/* a datagram ended: no frame continues */
	TRANSPORT_RX_RESET,	/* the line or connection is new */
	/* A connection is up: a TCP client's connect completed, a TCP
	 * server took a client (rx_peer). */
	TRANSPORT_RX_UP,
	/* A connection ended, or a connect failed: t->error is 0 when the
	 * peer closed, -ECONNABORTED when barod ended it (a server's client
	 * replaced or cut off), else the socket's -errno. */
	TRANSPORT_RX_DOWN,
};

/* The connection bytes come from, when a transport has several (a TCP
 * server's clients, each its own byte stream): t->rx_peer is set before
 * each rx call, below TRANSPORT_MAX_CLIENTS; 0 for the others. */

typedef void (*transport_rx_cb)(void *user, enum transport_rx what,
				const uint8_t *buf, size_t n);

struct transport;

struct transport_ops {
	/* Open the socket or device and register it; a TCP transport only
	 * starts connecting.  0 or a negative errno with a message. */
	int (*open)(struct transport *t, char *err, size_t errlen);
	void (*close)(struct transport *t);
	/* Take one whole frame for the next flush; counts it.  0, -EAGAIN
	 * when it was dropped, -ENOTCONN when there is no connection. */
	int (*queue)(struct transport *t, const uint8_t *frame, size_t len);
	/* Hand what is queued to the kernel (one system call), and reopen
	 * or reconnect once the backoff has passed. */
	void (*flush)(struct transport *t);
	/* Send one message at once, past the queue (what is queued leaves
	 * first): a datagram of any size the socket takes, to every peer,
	 * in one system call for one peer.  Counted as queue and flush
	 * count (one frame).  0, -ENOTCONN with no peer (counted as no
	 * peer) or no socket, or the failed send's negative errno (counted
	 * as dropped).  NULL: queue and flush do it. */
	int (*send)(struct transport *t, const uint8_t *msg, size_t len);
	/* src's epoll events. */
	void (*on_event)(struct transport *t, uint32_t events);
	/* "ADDRESS" or "DEVICE BAUD baud", with its state.  Given the
	 * embedding object's cfg and src: it is const, so not bound. */
	void (*describe)(const struct transport *t,
			 const struct config_output *cfg,
			 const struct event_source *src, char *buf,
			 size_t len);
	/* Bytes waiting in barod for the line to take them (after a
	 * flush: what a full line left); NULL: never any. */
	size_t (*pending)(const struct transport *t);
	/* During rx, with opts.learn_accepted: the owner took what the
	 * peer being delivered sent, so it is one to keep (a UDP server's
	 * peer to send to; a TCP server's client no newcomer replaces).
	 * NULL: nothing to learn. */
	void (*keep_sender)(struct transport *t);
};

struct transport_datagram {
	struct sockaddr_storage peers[TRANSPORT_MAX_PEERS];
	socklen_t peer_len[TRANSPORT_MAX_PEERS];
	size_t n_peers;
	struct {
		uint16_t len;
		uint16_t frames;
		uint8_t data[TRANSPORT_DATAGRAM_MAX];
	} q[TRANSPORT_DATAGRAMS];
	unsigned n;			/* datagrams queued, the last open */
	/* Received datagrams: rx_slots of rx_size bytes, allocated at
	 * open; the sender of the one being delivered (during rx). */
	uint8_t *rx_buf;
	size_t rx_size;
	unsigned rx_slots;
	const struct sockaddr_storage *from;
	socklen_t from_len;
};

struct transport_stream {
	struct sockaddr_storage addr;	/* TCP: resolved at open */
	socklen_t addr_len;
	bool is_socket;
	size_t max;			/* backlog limit: buf's size */
	size_t len;
	uint8_t *buf;			/* allocated by stream_init */
};

/* How a transport behaves where the outputs' defaults do not fit (the PX4
 * links, which are one peer in lockstep rather than a GCS among several);
 * all zero: the outputs' behaviour.  Set before open. */
struct transport_opts {
	/* TCP client: reconnect at this fixed interval rather than the
	 * doubling backoff. */
	unsigned retry_ms;
	/* TCP client: frames queued while the connect is in progress leave
	 * when it completes, rather than counting as no peer. */
	bool queue_connecting;
	/* TCP server: at most this many clients (0: TRANSPORT_MAX_CLIENTS). */
	unsigned max_clients;
	/* TCP server: a connection beyond max_clients replaces the oldest
	 * client rather than being refused (a restarted PX4 connects before
	 * its old socket is seen to close). */
	bool newest_wins;
	/* TCP server: a client whose backlog is full loses the frame
	 * (counted), not its connection. */
	bool keep_full_clients;
	/* TCP: the kernel's send buffer in bytes (SO_SNDBUF, which the
	 * kernel doubles); 0: a short one (4096) for outputs' samples.
	 * Never the kernel's autotuned default: it grows to megabytes, so
	 * a peer that stops reading would later get seconds of stale
	 * frames before the live ones (and barod's own backlog bound,
	 * which drops whole frames, would never be reached). */
	unsigned sndbuf;
	/* UDP: the largest datagram read whole (0: TRANSPORT_RX_DATAGRAM);
	 * above it, one datagram per read. */
	size_t datagram_max;
	/* UDP server: one peer, chosen by the owner: the sender of a
	 * datagram it accepts during rx (datagram_answer_sender), not
	 * every sender (ArduPilot's SIM_JSON: replies go where the last
	 * valid servo packet came from; a stray datagram changes nothing). */
	bool answer_accepted;
	/* UDP server: a sender joins the peers only when the owner takes a
	 * datagram of it during rx (ops.keep_sender), so datagrams barod
	 * does not take (garbage; unsigned frames when it has a signing
	 * key) cannot push a ground station out of the table.  TCP server:
	 * with every place taken, a newcomer replaces the oldest client
	 * that has sent nothing barod took, so clients that connect and
	 * stay silent cannot lock a ground station out; one that has sent
	 * something barod took keeps its place. */
	bool learn_accepted;
	/* UDP server: no SO_REUSEADDR, so the bind fails while another
	 * socket holds the port (two barods on one SITL port would split
	 * ArduPilot's packets between them, silently). */
	bool exclusive_port;
	/* UDP client: the socket is connected to the peer: only its
	 * datagrams are read, a refused send fails (counted), and each
	 * send skips the route lookup (the SITL proxy's backend). */
	bool only_peer;
};

struct tcp_server_client;

struct transport_tcp_server {
	struct tcp_server_client *clients;	/* TRANSPORT_MAX_CLIENTS */
	size_t n_clients;
	uint64_t accepted;			/* clients ever taken */
};

struct transport {
	const struct transport_ops *ops;
	struct event_loop *loop;

	/* The embedding object's, bound by it before each call: it may
	 * have moved since (barod's reload moves its outputs). */
	const struct config_output *cfg;
	struct event_source *src;	/* fd, -1 while closed */
	struct output_stats *stats;
	transport_rx_cb rx;
	void *rx_user;
	unsigned rx_peer;		/* see above */
	/* The event source that fired (on_event): a TCP server's listener
	 * is src, its clients have their own. */
	struct event_source *fired;
	struct logger *log;		/* NULL: no log (tests) */
	/* Byte streams and a TCP server's clients: at most this much waits
	 * in barod (0: TRANSPORT_STREAM_BUFFER, TRANSPORT_CLIENT_BACKLOG),
	 * set before open. */
	size_t backlog_max;
	struct transport_opts opts;
	/* TRANSPORT_RX_DOWN's reason, see there. */
	int error;

	uint32_t events;		/* what src is registered for */
	bool connected;			/* TCP; UDP with opts.only_peer */
	/* TCP between connections, serial after a hangup: when to try
	 * again, and the next wait. */
	uint64_t retry_at_us;
	unsigned backoff_ms;

	union {
		struct transport_datagram dgram;
		struct transport_stream stream;
		struct transport_tcp_server server;
	} u;
};

/* ---- Shared by the transports ---- */

/* Register, change or drop (0) src's epoll events; no system call when
 * they are what they were. */
int
transport_watch(struct transport *t, uint32_t events);

/* Take fd as src's and watch it for events; on failure fd is closed and
 * err says why (-errno). */
int
transport_attach(struct transport *t, int fd, uint32_t events, char *err,
		 size_t errlen);

/* Unregister and close src's fd, if open. */
void
transport_close_fd(struct transport *t);

/* Schedule the next attempt after the backoff, and double it (or after
 * opts.retry_ms). */
void
transport_retry_later(struct transport *t);

/* barod's one address resolver (getaddrinfo, numeric port): every
 * socket barod opens to or for a peer (outputs, the PX4 links, the SITL
 * links) gets its address here.  transport_resolve splits "host:port" /
 * "[v6]:port"; transport_resolve_host takes them apart.  0, or -EINVAL /
 * -EADDRNOTAVAIL with a message naming the address. */
int
transport_resolve(const char *address, int socktype, bool passive,
		  struct sockaddr_storage *ss, socklen_t *len, char *err,
		  size_t errlen);
int
transport_resolve_host(const char *host, const char *port, int socktype,
		       bool passive, struct sockaddr_storage *ss,
		       socklen_t *len, char *err, size_t errlen);

/* A TCP server's client's "HOST:PORT" (rx_peer), "" when none. */
const char *
transport_client_name(const struct transport *t, unsigned peer);

/* UDP (datagram.c): queue into datagrams, send them with sendmmsg to
 * every peer, read what peers send. */
int
datagram_open(struct transport *t, bool server, char *err, size_t errlen);
/* Close the socket and free the receive buffer. */
void
datagram_close(struct transport *t);
int
datagram_queue(struct transport *t, const uint8_t *frame, size_t len);
void
datagram_flush(struct transport *t);
int
datagram_send(struct transport *t, const uint8_t *msg, size_t len);
/* One batch; a server learns every sender as a peer unless
 * opts.answer_accepted or opts.learn_accepted. */
void
datagram_readable(struct transport *t, bool server);
/* During rx, with opts.answer_accepted: the datagram being delivered is
 * from the one peer to answer from now on. */
void
datagram_answer_sender(struct transport *t);
/* During rx, with opts.learn_accepted: the datagram being delivered is
 * from a peer to send to (the oldest is forgotten when the table is
 * full). */
void
datagram_learn_sender(struct transport *t);
void
datagram_describe(const struct transport *t, const struct config_output *cfg,
		  const struct event_source *src, char *buf, size_t len);

/* Byte streams (stream.c): a backlog of whole frames written in one
 * call per flush, and what the peer sends. */
/* Allocate the backlog (once; kept across reconnects); -ENOMEM. */
int
stream_init(struct transport *t, bool is_socket);
/* Close the fd and free the backlog (the transport's close). */
void
stream_close(struct transport *t);
int
stream_queue(struct transport *t, const uint8_t *frame, size_t len);
/* Write the backlog once.  0, or a negative errno when the line or
 * connection failed (other than "not now"). */
int
stream_write(struct transport *t);
/* Read what there is.  0; -EPIPE when the peer closed (end of stream),
 * another negative errno when the line or connection failed: either way
 * it is gone. */
int
stream_read(struct transport *t);
/* The same on another event source of t's (a TCP server's client). */
int
stream_read_src(struct transport *t, const struct event_source *src);
/* Forget the backlog, counted as lost. */
void
stream_discard(struct transport *t);
size_t
stream_pending(const struct transport *t);

#endif
