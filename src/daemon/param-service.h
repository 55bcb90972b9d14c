/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The MAVLink parameter and command microservices of barod's component:
 * a GCS lists, reads and sets SIM_BARO_* / SIM_BAR2_* / SIM_BAR3_* /
 * SIM_TEMP_* exactly as on ArduPilot SITL.  No I/O: replies go out
 * through the send callback, so the service is tested without sockets.
 */
#ifndef BAROD_PARAM_SERVICE_H
#define BAROD_PARAM_SERVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mavlink.h"
#include "sim-params.h"

/*
 * Pacing, as ArduPilot's GCS_MAVLINK::queued_param_send does it: a
 * PARAM_REQUEST_LIST starts a transfer that the 10 ms tick streams at the
 * link's budget, one list in flight per requester (the link it came from
 * and the requester's sysid/compid); asking again while it is in flight
 * is merged into it.  The budget of a link is 30 % of its bandwidth in
 * PARAM_VALUE frames (57600 baud: 46/s), or what the link's own stream
 * of samples leaves of it if that is less (ArduPilot sends a parameter
 * only when the UART has room for it: its streams are not delayed), or
 * PARAM_SERVICE_NET_RATE on a link without a bandwidth (UDP), with a
 * burst of PARAM_SERVICE_BURST_S of it (at least 5 frames, ArduPilot's
 * most per call without flow control), and never under one frame a
 * second.
 * Every other request that is answered (PARAM_REQUEST_READ, PARAM_SET,
 * COMMAND_LONG, COMMAND_INT) is admitted when its requester has a token
 * (PARAM_SERVICE_REQ_RATE per second, as many in a burst) and its link's
 * budget is not overdrawn by more than the burst; it then goes before
 * the lists (they wait until the link's budget is repaid).  What is not
 * admitted is dropped and counted: the protocol has the GCS ask again.
 * Both tables are bounded; see param_service_handle for a full one.
 */
#define PARAM_SERVICE_LINKS 16
#define PARAM_SERVICE_REQUESTERS 16
#define PARAM_SERVICE_NET_RATE 200.0	/* PARAM_VALUE/s, no bandwidth */
#define PARAM_SERVICE_SHARE 0.3		/* of a link's bandwidth */
#define PARAM_SERVICE_FRAME_BYTES 37	/* PARAM_VALUE in MAVLink 2 */
#define PARAM_SERVICE_BURST_S 0.1
#define PARAM_SERVICE_BURST_MIN 5.0
#define PARAM_SERVICE_REQ_RATE 20.0	/* requests/s per requester */

struct param_service_link {
	void *link;		/* a sink; NULL with used false: free */
	bool used;
	int64_t credit;		/* frames it may send now, in millionths
				 * (exact sums of ticks); < 0: owed */
	size_t rr;		/* the requester the list round starts after */
};

struct param_service_requester {
	void *link;
	uint8_t sysid, compid;
	bool used;
	bool listing;		/* a list is in flight... */
	uint16_t next;		/* ...and this index goes next */
	int64_t tokens;		/* requests it may make now, millionths */
	uint64_t last_us;	/* its last request (the eviction order) */
};

struct param_service_stats {
	uint64_t lists;		/* PARAM_REQUEST_LIST started */
	uint64_t lists_merged;	/* asked again while one was in flight */
	uint64_t lists_refused;	/* no room in the requester table */
	uint64_t lists_done;
	uint64_t values_listed;	/* PARAM_VALUE sent by lists */
	uint64_t requests;	/* other requests admitted */
	uint64_t requests_dropped;	/* over a budget: not answered */
	uint64_t untold;	/* told-to-all frames a link had no budget for */
};

struct param_service {
	uint8_t sysid, compid;
	struct sim_params *params;	/* the live emulator's table */

	/* Send a full-length payload; reply_to is the link the request came
	 * from, or NULL for every link (PARAM_VALUE after a change). */
	void (*send)(void *user, void *reply_to, uint32_t msgid,
		     const uint8_t *payload);
	/* Whether a value that passed the table's range may be set (0) or
	 * is refused (negative); NULL: every such value may. */
	int (*check)(void *user, size_t idx, double value);
	/* A parameter changed through MAVLink (for STATUSTEXT and logs). */
	void (*changed)(void *user, size_t idx, float old_value,
			float new_value);
	/* MAV_CMD_INJECT_FAILURE on the baro unit: a PX4 failure type
	 * (px4-failure.h), instance 1..3 or 0 for all; returns a
	 * MAV_RESULT.  NULL: the command is unsupported. */
	uint8_t (*inject)(void *user, unsigned type, unsigned instance);
	/* Whether a ground station may change faults (PARAM_SET of SIM_*,
	 * MAV_CMD_INJECT_FAILURE): [faults] remote.  When false such a
	 * request is answered as refused (the held value, COMMAND_ACK
	 * DENIED) and denied is told, with the request's frame. */
	bool remote_faults;
	void (*denied)(void *user, const struct mavlink_frame *f,
		       void *reply_to);
	void *user;

	/* ---- Pacing: no link gets more than its budget (see below) ---- */
	/* The link's bandwidth in bytes/s (a serial line's baud / 10), or 0
	 * when it has none to speak of (UDP); NULL: none has. */
	uint32_t (*link_bandwidth)(void *user, void *link);
	/* The bytes/s the link's own stream (samples, HEARTBEAT) takes of
	 * that bandwidth; NULL: none. */
	uint32_t (*link_stream_rate)(void *user, void *link);
	uint64_t now_us;	/* the last param_service_tick's time */
	bool ticked;
	/* While a PARAM_SET's PARAM_VALUE is told to every link: the link
	 * it came from, whose frame of budget admit already took. */
	void *paid;
	struct param_service_link links[PARAM_SERVICE_LINKS];
	struct param_service_requester requesters[PARAM_SERVICE_REQUESTERS];
	struct param_service_stats stats;
};

/* Handle one received frame; frames not for us are ignored.  A list
 * when the requester table is full of lists in flight is refused
 * (counted; the GCS asks again); a new requester otherwise takes the
 * slot of the one idle longest. */
void
param_service_handle(struct param_service *ps, const struct mavlink_frame *f,
		     void *reply_to);

/* The 10 ms tick at now_us (barod's clock): budgets refill, lists
 * stream. */
void
param_service_tick(struct param_service *ps, uint64_t now_us);

/* The link is gone (an output closed by a reload): its transfers end. */
void
param_service_forget(struct param_service *ps, void *link);

/* Whether a frame told to every link (a set's PARAM_VALUE, an
 * announcement) goes to link: it costs the link a frame of budget, as a
 * request's reply does, and a link overdrawn by its burst misses it
 * (counted in untold).  A PARAM_SET's own link always has its
 * PARAM_VALUE, at no further cost: the request paid for its answer.
 * Without this a flood of PARAM_SET on one link, paced by that link's
 * budget, would fill every other link, a serial line's samples crowded
 * out. */
bool
param_service_tell(struct param_service *ps, void *link);

/* Lists in flight now. */
size_t
param_service_listing(const struct param_service *ps);

/* PARAM_VALUE payload for parameter idx (also used after local changes). */
void
param_service_value(const struct param_service *ps, size_t idx,
		    uint8_t payload[MAVLINK_MAX_PAYLOAD]);

/* A STATUSTEXT payload with text (truncated to 50 characters). */
void
param_service_statustext(uint8_t severity, const char *text,
			 uint8_t payload[MAVLINK_MAX_PAYLOAD]);

#endif
