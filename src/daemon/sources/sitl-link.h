/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * barod on ArduPilot's SITL JSON interface, one link per SITL instance
 * (ArduPilot's -I N, servo packets on port 9002 + 10 N):
 *
 *  - peer: barod is the physics backend; each new servo frame advances a
 *    built-in vehicle by 1/frame_rate and is answered with one JSON line;
 *  - proxy: servo packets go upstream unchanged to an existing physics
 *    backend, its JSON replies come back with barod's fields inserted.
 *
 * Either way the physics timestamp is the emulator's clock.  The link
 * owns its transports (a UDP server for ArduPilot, answering whoever sent
 * the last valid servo packet; a connected UDP client for the proxy's
 * backend; each reply sent at once) and the frame bookkeeping; the daemon
 * steps the emulator through the step callback.
 */
#ifndef BAROD_SITL_LINK_H
#define BAROD_SITL_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "baro-sitl.h"
#include "event-loop.h"
#include "sitl-json.h"
#include "sitl-motion.h"
#include "transport-link.h"
#include "truth-profile.h"
#include "truth-trace.h"

enum sitl_mode {
	SITL_PEER,
	SITL_PROXY,
};

struct sitl_link_stats {
	uint64_t servo_packets;		/* valid servo packets received */
	uint64_t bad_packets;		/* wrong magic or size, frame_rate 0 */
	uint64_t frames;		/* new frames stepped */
	uint64_t resends;		/* same frame_count again */
	uint64_t lost_frames;		/* gaps in frame_count */
	uint64_t restarts;		/* frame_count or timestamp went back */
	uint64_t replies;		/* JSON datagrams sent to ArduPilot */
	uint64_t upstream_lines;	/* proxy: JSON lines from upstream */
	uint64_t bad_lines;		/* proxy: lines we could not read */
	uint64_t send_errors;
};

struct sitl_link;

/*
 * Step the simulation of this link to physics time now_us with truth, and
 * update the fields to put into the reply; return whether they changed
 * (baros sample at 100 Hz, physics frames come faster).  Called once per
 * new frame.  now_us is the backend's physics time, moved to start at
 * the first frame (since start or the last restart) when that frame is
 * not already within the first 10 ms (see step_daemon).
 */
typedef bool (*sitl_step_cb)(void *user, struct sitl_link *link,
			     uint64_t now_us,
			     const struct baro_sitl_truth *truth,
			     struct sitl_baro_fields *fields);
/* The physics restarted (ArduPilot or the backend): reset the vehicle. */
typedef void (*sitl_restart_cb)(void *user, struct sitl_link *link);
typedef void (*sitl_log_cb)(void *user, struct sitl_link *link, int level,
			    const char *text);

struct sitl_link_config {
	enum sitl_mode mode;
	unsigned instance;		/* ArduPilot's -I */
	char bind_host[64];		/* where ArduPilot's packets arrive */
	unsigned port;			/* 9002 + 10 * instance by default */
	char upstream[128];		/* proxy: HOST:PORT of this instance */
	double home_alt_m;		/* ArduPilot's home altitude */
	struct truth_profile profile;	/* peer: the vehicle's height, */
	const struct truth_trace *trace;/* or this trace when not NULL */
	int rng_instance[6];		/* rng_N -> baro instance, -1 none */
	/* SIM::throttle from the servo packets (sitl_servo_throttle). */
	enum sitl_vehicle_kind vehicle;
	uint32_t motor_mask;
};

struct sitl_link {
	struct sitl_link_config cfg;
	struct sitl_link_stats stats;
	struct event_loop *loop;
	struct transport_link ap;	/* ArduPilot's side */
	struct transport_link up;	/* proxy: the backend's */
	/* proxy: whether each side answers within --busy-poll */
	struct event_spin spin_up, spin_ap;

	bool have_frame;
	uint32_t last_frame;
	uint64_t physics_us;		/* the physics time, µs */
	uint64_t epoch_us;		/* taken off physics_us */
	bool have_epoch;		/* ... since start or restart */
	double physics_s;		/* peer: the same, summed exactly */
	double last_timestamp;		/* proxy: upstream's, s */
	bool have_timestamp;
	uint64_t last_servo_us;		/* wall clock, for the silence check */
	uint64_t first_servo_us;	/* ... and of the first servo packet */
	uint64_t last_reply_us;
	uint64_t last_warn_us;
	struct sitl_truth truth;
	/* SIM::throttle of the latest servo packet: ArduPilot derives it
	 * from the outputs it sends for the next physics step. */
	float throttle;
	struct sitl_vehicle vehicle;	/* peer: the last state sent */
	struct sitl_motion motion;	/* peer: the vehicle flown */

	char *tx;			/* proxy: the reply to ArduPilot */
	char reply[4096];		/* peer: the last reply, for resends */
	int reply_len;
	struct sitl_baro_fields fields;	/* latest */
	char fields_text[1024];		/* ... formatted, reused until they
					 * change: printing floats is most of
					 * a frame's cost */
	bool fields_valid;
	struct sitl_fdm fdm;		/* proxy: ArduPilot keeps values a
					 * line does not repeat; so do we */

	sitl_step_cb step;
	sitl_restart_cb restart;
	sitl_log_cb log;
	void *user;
	uint64_t warned_bad;		/* rate limit: last warning wall time */
};

/* Not moved while open (its transports point into it). */
int
sitl_link_open(struct sitl_link *l, const struct sitl_link_config *cfg,
	       struct event_loop *loop, sitl_step_cb step,
	       sitl_restart_cb restart, sitl_log_cb log, void *user, char *err,
	       size_t errlen);

void
sitl_link_close(struct sitl_link *l);

/* Once a second from the daemon's timer: report a silent upstream. */
void
sitl_link_check(struct sitl_link *l, uint64_t wall_us);

#endif
