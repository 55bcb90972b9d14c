/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An output: a transport (transports/: UDP client, UDP server, serial,
 * TCP) and the parser for what its peer sends back.  MAVLink outputs go
 * to a GCS address (udp-client), every peer heard from (udp-server) or a
 * flight controller's TELEM port (serial); MSP outputs
 * (MSP2_SENSOR_BAROMETER for ArduPilot's AP_Baro_MSP) over serial, a TCP
 * connection barod makes and keeps making, or UDP datagrams.  A loop
 * pass's frames leave in one system call per output at output_flush().
 * Sending never blocks: a full socket buffer, a dead peer or a full line
 * drops the frame and counts it.
 */
#ifndef BAROD_OUTPUT_H
#define BAROD_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "config.h"
#include "event-loop.h"
#include "mavlink.h"
#include "msp.h"
#include "transport.h"

#define OUTPUT_MAX_PEERS TRANSPORT_MAX_PEERS
#define OUTPUT_SERIAL_BUFFER TRANSPORT_STREAM_BUFFER
#define OUTPUT_DATAGRAM_MAX TRANSPORT_DATAGRAM_MAX
/* An MSP output queues at most this much behind a full line: ArduPilot
 * averages whatever arrives between its baro updates as current, so a
 * backlog drained late would feed it stale pressures.  512 bytes is 25
 * barometer frames, a few ticks of three baros. */
#define OUTPUT_MSP_BACKLOG 512
#define OUTPUT_RETRY_MIN_MS TRANSPORT_RETRY_MIN_MS
#define OUTPUT_RETRY_MAX_MS TRANSPORT_RETRY_MAX_MS

struct output;

typedef void (*output_frame_cb)(struct output *o,
				const struct mavlink_frame *f, void *user);

struct output {
	struct config_output cfg;
	struct event_source src;	/* the transport's fd */
	struct event_loop *loop;
	struct output_stats stats;
	/* One per connection (a TCP server's clients each send their own
	 * byte stream; transport.h's rx_peer says whose bytes came). */
	struct mavlink_parser parser[TRANSPORT_MAX_CLIENTS];
	struct msp_parser msp_in;	/* MSP outputs: what the peer sends */
	uint8_t seq;

	/* Copies of the transport's state for the daemon, current after
	 * every output_* call: msp-tcp connected; bytes a full line left
	 * waiting (EPOLLOUT). */
	bool connected;
	size_t tx_len;
	bool line_full;			/* msp: dropping, logged once */

	struct transport transport;

	output_frame_cb on_frame;
	void *user;
	/* Where the transport logs clients coming, going and refused (set
	 * after output_open; NULL: nowhere). */
	struct logger *log;
};

/*
 * Open the transport described by cfg and register it with the loop.
 * Returns 0 or a negative errno with a message in err.
 */
int
output_open(struct output *o, const struct config_output *cfg,
	    struct event_loop *loop, output_frame_cb on_frame, void *user,
	    char *err, size_t errlen);

/* During on_frame: the frame was taken, so its sender is one to keep (a
 * udp-server's peer to send to, a tcp-server's client that newcomers do
 * not replace); elsewhere nothing. */
void
output_keep_sender(struct output *o);

void
output_close(struct output *o);

static inline bool
output_is_msp(const struct output *o)
{
	return output_type_is_msp(o->cfg.type);
}

/*
 * Queue one frame for output_flush(); never blocks.  Returns 0, -EAGAIN
 * when the frame was dropped (a full backlog, a device gone), -ENOTCONN
 * when a TCP output is not connected (counted as no peer).  UDP frames
 * are counted when they are sent.
 */
int
output_send(struct output *o, const uint8_t *frame, size_t len);

/* Send what is queued in one system call: sendmmsg (each datagram to
 * each peer) or one write; a disconnected TCP output or a hung-up serial
 * device whose backoff has passed is tried again.  Call once per loop
 * pass. */
void
output_flush(struct output *o);

/* Human-readable "udp-client 127.0.0.1:14550" for logs and status. */
const char *
output_describe(const struct output *o, char *buf, size_t len);

#endif
