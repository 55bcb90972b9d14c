/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Driving an autopilot's own simulated barometer through MAVLink as a
 * ground station would (baro-drive, doc/drive.md): find the autopilot,
 * read what the scenario will touch, run the scenario on the autopilot's
 * clock (its time_boot_ms, so speed-ups and pauses are followed), and
 * move the autopilot towards what the scenario wants now, each change
 * acknowledged (PARAM_VALUE, COMMAND_ACK) or sent again; at the end, on
 * a stop, after a lost link or an autopilot restart, everything goes
 * back to its start.
 *
 * The engine is pure: frames in with the time they arrived, messages out
 * through drive_io, the caller owns sockets, files and clocks.  What it
 * has changed is always known (drive_dirty()), so the caller can keep a
 * state file a later run repairs from.
 */
#ifndef BAROD_DRIVE_H
#define BAROD_DRIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "drive-map.h"
#include "faults.h"
#include "mavlink.h"
#include "px4-failure.h"
#include "scenario.h"

/* Every SIM_* parameter, PX4's offset and the injection fit. */
#define DRIVE_MAX_SLOTS 64
#define DRIVE_NAME_LEN 16

enum drive_phase {
	DRIVE_WAIT_LINK,	/* no autopilot heard yet */
	DRIVE_READ,		/* start values, SYS_FAILURE_EN, injection */
	DRIVE_REPAIR,		/* putting back what a run before left */
	DRIVE_RUN,		/* the scenario on the autopilot's clock */
	DRIVE_RESTORE,		/* putting everything back */
	DRIVE_DONE,		/* over: see result */
};

/* How a drive ended (drive_result), in the order of exit statuses. */
enum drive_end {
	DRIVE_END_NONE,		/* not over */
	DRIVE_END_OK,		/* the scenario ran and everything is back */
	DRIVE_END_STOPPED,	/* stopped (a signal); everything back */
	DRIVE_END_ABORTED,	/* link lost or autopilot restarted
				 * mid-scenario; everything back */
	DRIVE_END_REFUSED,	/* refused before the scenario started */
	DRIVE_END_FAILED,	/* could not put something back */
};

struct drive_slot {
	enum drive_via via;	/* PARAM, OFFSET or INJECT */
	char name[DRIVE_NAME_LEN + 1];	/* parameter id; INJECT: "baro" */
	int param;		/* SIM_* table index behind it, or -1 */
	uint8_t type;		/* MAV_PARAM_TYPE as the autopilot said */
	bool known;		/* the autopilot's value (have) is known */
	bool start_known;
	bool from_state;	/* start came from the state file */
	float start;		/* before barod: what goes back */
	float want;		/* what the scenario wants now */
	float have;		/* what the autopilot last said it has */
	bool inflight;
	float sent;
	uint64_t sent_us;
	unsigned tries;
	uint64_t sent_ap_ms;
	unsigned line;		/* scenario line behind want (0: none) */
};

/* One row of the truth record: what was due, sent, acknowledged. */
struct drive_row {
	uint64_t ap_ms;		/* autopilot time_boot_ms */
	int64_t scenario_ms;	/* -1 outside the run */
	unsigned line;
	const char *event;	/* "start" (a value's start, at time 0),
				 * "due", "sent", "acked", "seen", "note" */
	const char *name;	/* parameter or "baro"; "" for a note */
	double value;
	const char *text;
};

struct drive_io {
	void (*send)(void *user, uint32_t msgid, const union mavlink_msg *m);
	void (*log)(void *user, bool error, const char *text);
	void (*record)(void *user, const struct drive_row *row);
	/* What barod has changed (drive_dirty) changed: write the state
	 * file (or remove it when nothing is), before the change is sent. */
	int (*state)(void *user);
};

/* A pressure change smaller than this is not watched for: noise and
 * motion would hide it.  One watched for and not seen within the time
 * below gets a note in the record. */
#define DRIVE_SEEN_MIN_PA 20.0
#define DRIVE_SEEN_WITHIN_MS 5000u

struct drive_watch {
	bool on;
	char name[DRIVE_NAME_LEN + 1];
	unsigned line;
	double value;
	double expect_pa;	/* the shift the change should show */
	double base_pa;		/* the pressure when it was sent */
	uint64_t from_ms;
};

struct drive_left {
	char name[DRIVE_NAME_LEN + 1];
	float start;
};

struct drive_opts {
	enum drive_autopilot ap;	/* expected; checked against HEARTBEAT */
	uint8_t sysid, compid;		/* ours */
	bool keep_current;		/* take values away from their
					 * defaults as the start */
	uint64_t retry_us;		/* resend an unanswered change */
	unsigned max_tries;
	uint64_t link_timeout_us;	/* silence that counts as lost */
	/* What a run before left changed (the state file). */
	size_t nleft;
	struct drive_left left[DRIVE_MAX_SLOTS];
};

/* retry 500 ms, 10 tries, link lost after 3 s, us 255/190. */
void
drive_opts_default(struct drive_opts *o);

struct drive {
	struct drive_opts o;
	const struct scenario *sc;
	const char *name;
	struct drive_io io;
	void *user;

	enum drive_phase phase;
	enum drive_end end;
	char why[512];		/* the end's reason */
	uint8_t target_sys, target_comp;
	bool lost;
	bool gap_check;		/* the link is back: judge the gap */
	uint64_t gap_from_ms;	/* the autopilot's clock when it went */
	bool touched;		/* a change was sent */
	uint64_t last_rx_us, last_hb_us, read_us;
	unsigned read_tries;
	bool have_ap_ms;
	uint64_t ap_ms;		/* the autopilot's clock */
	uint64_t start_ap_ms;	/* scenario time 0 */
	/* Ready to run before any message gave the autopilot's clock:
	 * scenario time 0 is its first time_boot_ms, not 0. */
	bool run_pending;
	bool have_alt;
	double alt_m;		/* AMSL, GLOBAL_POSITION_INT */
	double offset_pa;	/* PX4: the glitch as pascals */
	bool have_press[BARO_MAX_INSTANCES];
	double press[BARO_MAX_INSTANCES];	/* Pa, SCALED_PRESSURE/2/3 */
	struct drive_watch watch[BARO_MAX_INSTANCES];
	bool inject;		/* the scenario needs injection */
	int failure_en;		/* PX4 SYS_FAILURE_EN: -1 unknown */
	int probe;		/* injection probe: -1 open, 0 ok */
	bool probe_sent;
	int barosim;		/* PX4 SENS_EN_BAROSIM: -1 unknown */
	int baro_count;		/* ArduPilot SIM_BARO_COUNT: -1 unknown */
	int max_inst;		/* highest baro a line acts on */
	uint32_t version;	/* AUTOPILOT_VERSION flight_sw_version */

	size_t nslots;
	struct drive_slot slots[DRIVE_MAX_SLOTS];

	struct baro_sitl shadow;
	struct fault_overlay overlay;
	struct scenario_run run;
};

/* Set up a drive of sc (which must outlive it); the scenario must have
 * passed drive_check() for o->ap.  Sends nothing yet. */
void
drive_init(struct drive *d, const struct scenario *sc, const char *name,
	   const struct drive_opts *o, const struct drive_io *io, void *user);

/* A frame from the link, at now_us (monotonic). */
void
drive_frame(struct drive *d, const struct mavlink_frame *f, uint64_t now_us);

/* Time passes: heartbeats, resends, the link's timeout.  Call at least
 * every 100 ms. */
void
drive_tick(struct drive *d, uint64_t now_us);

/* The caller's connection to the autopilot was made again (TCP): unlike
 * silence on a datagram link, which a paused SITL makes too, a dropped
 * connection means the autopilot's end went away, so a run is over:
 * everything back, then DRIVE_END_ABORTED. */
void
drive_link_reset(struct drive *d, uint64_t now_us);

/* Stop (a signal): everything back, then DRIVE_END_STOPPED. */
void
drive_stop(struct drive *d, uint64_t now_us);

static inline bool
drive_over(const struct drive *d)
{
	return d->phase == DRIVE_DONE;
}

/* Whether slot i is away from its start on the autopilot, or on its way
 * there: what a state file must name. */
bool
drive_dirty(const struct drive_slot *s);

const char *
drive_end_name(enum drive_end e);

#endif
