/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * MAVLink outputs: UDP client (send to a GCS address, hear its replies),
 * UDP server (bind, send to every peer heard from) and serial (a flight
 * controller's TELEM port).  MSP outputs (MSP2_SENSOR_BAROMETER for
 * ArduPilot's AP_Baro_MSP) over serial, a TCP connection barod makes and
 * keeps making, or UDP datagrams.  Sending never blocks: a full socket
 * buffer, a dead peer or a full serial line drops the frame and counts it.
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

#define OUTPUT_MAX_PEERS 8
#define OUTPUT_SERIAL_BUFFER 8192
/* Frames queued in one loop iteration leave as one datagram (several
 * MAVLink frames per datagram is normal on UDP), keeping syscalls, and so
 * CPU time, per tick constant.  1472 bytes fit a 1500-byte MTU. */
#define OUTPUT_DATAGRAM_MAX 1472
/* An MSP output queues at most this much behind a full line: ArduPilot
 * averages whatever arrives between its baro updates as current, so a
 * backlog drained late would feed it stale pressures.  512 bytes is 25
 * barometer frames, a few ticks of three baros. */
#define OUTPUT_MSP_BACKLOG 512
/* Reconnection (TCP) and reopening (a serial device that hung up, such
 * as a USB adapter unplugged) backoff, doubling between these. */
#define OUTPUT_RETRY_MIN_MS 100u
#define OUTPUT_RETRY_MAX_MS 2000u

struct output_stats {
	uint64_t frames_sent;
	uint64_t frames_dropped;	/* buffer full, peer gone, I/O error */
	uint64_t frames_no_peer;	/* udp-server with nobody to send to,
					 * msp-tcp not connected */
	uint64_t bytes_sent;
	uint64_t frames_received;
	/* MSP: samples not sent because their values are not physically
	 * possible (msp_baro_from_sample). */
	uint64_t frames_invalid;
	uint64_t bytes_lost;		/* backlog discarded at a disconnect
					 * or a hangup */
	uint64_t connects;		/* msp-tcp connections made */
	uint64_t hangups;		/* serial: the device went away */
};

struct output;

typedef void (*output_frame_cb)(struct output *o,
				const struct mavlink_frame *f, void *user);

struct output {
	struct config_output cfg;
	struct event_source src;
	struct event_loop *loop;
	struct output_stats stats;
	struct mavlink_parser parser;
	struct msp_parser msp_in;	/* MSP outputs: what the peer sends */
	uint8_t seq;

	bool connected;			/* msp-tcp */
	/* msp-tcp between connections, serial after a hangup: when to try
	 * again, and the next wait. */
	bool line_full;			/* msp: dropping, logged once */
	uint64_t retry_at_us;
	unsigned backoff_ms;

	struct sockaddr_storage peers[OUTPUT_MAX_PEERS];
	socklen_t peer_len[OUTPUT_MAX_PEERS];
	size_t n_peers;

	uint8_t tx[OUTPUT_SERIAL_BUFFER];	/* serial backlog */
	size_t tx_len;

	uint8_t dgram[OUTPUT_DATAGRAM_MAX];	/* UDP frames not yet sent */
	size_t dgram_len;
	unsigned dgram_frames;

	output_frame_cb on_frame;
	void *user;

	/* Publication schedule, owned by the daemon. */
	uint64_t next_heartbeat_us;
	uint64_t next_pressure_us[3];
	uint64_t next_hil_us[3];
	uint64_t next_msp_us[3];
};

/*
 * Open the transport described by cfg and register it with the loop.
 * Returns 0 or a negative errno with a message in err.
 */
int
output_open(struct output *o, const struct config_output *cfg,
	    struct event_loop *loop, output_frame_cb on_frame, void *user,
	    char *err, size_t errlen);

void
output_close(struct output *o);

static inline bool
output_is_msp(const struct output *o)
{
	return output_type_is_msp(o->cfg.type);
}

/*
 * Queue one frame; never blocks.  UDP frames wait for output_flush() (or
 * a full datagram); serial and TCP frames go to the line as soon as it
 * takes them.  Returns 0, -EAGAIN when the frame was dropped, -ENOTCONN
 * when a TCP output is not connected (counted as no peer).
 */
int
output_send(struct output *o, const uint8_t *frame, size_t len);

/* Send what is queued: one datagram per peer; a disconnected TCP output
 * whose backoff has passed connects again.  Call once per loop pass. */
void
output_flush(struct output *o);

/* Human-readable "udp-client 127.0.0.1:14550" for logs and status. */
const char *
output_describe(const struct output *o, char *buf, size_t len);

#endif
