/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A campaign's standard flight, as a ground station flies it over
 * MAVLink with commands ArduPilot and PX4 both take in COMMAND_LONG:
 * (ArduPilot: MAV_CMD_DO_SET_MODE to GUIDED first), arm
 * (MAV_CMD_COMPONENT_ARM_DISARM), take off (MAV_CMD_NAV_TAKEOFF: metres
 * above home on ArduPilot, AMSL on PX4), climb until the estimate is
 * within a metre of the height, hold for hold_s of the autopilot's own
 * time, optionally fly a short mission (uploaded before arming with the
 * mission protocol, started with MAV_CMD_MISSION_START, done at the last
 * item's MISSION_ITEM_REACHED), land (MAV_CMD_NAV_LAND) and wait for the
 * disarm on touchdown.
 * Before all that, the campaign's [params]: each read (PARAM_REQUEST_READ,
 * for its type), then set (PARAM_SET) until PARAM_VALUE echoes the value.
 * A command or parameter unanswered for a second is sent again, five
 * times at most; one refused ends the flight with why.
 *
 * It also keeps what the autopilot's telemetry says: armed, mode,
 * altitude estimate (GLOBAL_POSITION_INT), its clock, every STATUSTEXT,
 * and whether it changed mode by itself (a failsafe).  Pure: frames in,
 * messages out, time passed in.
 */
#ifndef BAROD_CAMPAIGN_FLIGHT_H
#define BAROD_CAMPAIGN_FLIGHT_H

#include <stdbool.h>
#include <stdint.h>

#include "campaign-file.h"
#include "mavlink.h"

enum flight_phase {
	FLIGHT_WAIT,		/* for a HEARTBEAT and the altitude */
	FLIGHT_PARAMS,		/* the campaign's [params], in turn */
	FLIGHT_UPLOAD,		/* the mission, if any */
	FLIGHT_MODE,		/* ArduPilot: GUIDED */
	FLIGHT_ARM,
	FLIGHT_TAKEOFF,
	FLIGHT_CLIMB,
	FLIGHT_HOLD,
	FLIGHT_MISSION,		/* flying it, if any */
	FLIGHT_LAND,
	FLIGHT_LANDING,		/* until disarmed */
	FLIGHT_DONE,
	FLIGHT_FAILED,
};

enum flight_failure {
	FLIGHT_OK,
	FLIGHT_NEVER_ARMED,	/* arming refused or unanswered */
	FLIGHT_REFUSED,		/* another command or a parameter refused */
	FLIGHT_NO_CLIMB,	/* never reached the height */
	FLIGHT_DISARMED,	/* disarmed in the air (a crash, a kill) */
	FLIGHT_MISSION_UNFINISHED,	/* its last item never reached */
};

/* One of the campaign's parameters, this job's value. */
struct flight_param {
	char name[CAMPAIGN_PARAM_ID_LEN];
	double want;
	bool known;		/* read back once: type and value before */
	uint8_t type;		/* MAV_PARAM_TYPE, as the autopilot said */
	double before;
};

/* What the flight saw happen, for the job's telemetry file. */
struct flight_event {
	uint32_t ap_ms;
	const char *what;	/* "armed", "mode", "statustext", "failsafe",
				 * "phase", "baro_health", "height_rejected",
				 * "param", "lane_switch", "mission_item"
				 * (static strings) */
	double value;
	char text[64];
};

struct flight {
	enum campaign_autopilot ap;
	double takeoff_m, hold_s;
	bool land;

	enum flight_phase phase;
	enum flight_failure failure;
	char why[160];

	/* The autopilot, once heard. */
	bool heard, have_alt;
	uint8_t sysid, compid;
	uint32_t ap_ms;		/* its clock (time_boot_ms) */
	bool armed, was_armed;
	uint32_t mode;		/* custom_mode */
	bool have_mode;
	double alt_m;		/* estimate above home */
	double home_amsl_m;
	/* What the autopilot says of its baro: SYS_STATUS's health bit,
	 * and whether its height innovation test ratio is over 1 (the
	 * sample rejected: EKF_STATUS_REPORT.pos_vert_variance on
	 * ArduPilot, ESTIMATOR_STATUS.pos_vert_ratio on PX4). */
	bool have_health, baro_healthy, have_ratio, height_rejected;
	/* A mode change the flight did not ask for. */
	bool failsafe;
	uint32_t failsafe_ms;
	uint32_t commanded_mode;	/* the last it asked for, or ~0 */

	/* Parameters to set before arming; param_at is the one at work. */
	size_t nparams, param_at;
	struct flight_param params[CAMPAIGN_MAX_PARAMS];
	/* The mission: waypoints, home's position (degE7, where the
	 * autopilot stood before arming), the upload and the run.
	 * ArduPilot's item 0 is home, its waypoints 1..n; PX4's 0..n-1. */
	size_t nwp;
	struct campaign_waypoint wp[CAMPAIGN_MAX_WAYPOINTS];
	int32_t home_lat, home_lon;
	bool have_latlon;
	bool item_due;			/* an item asked for, to send */
	uint16_t item_seq;
	int32_t reached;		/* last MISSION_ITEM_REACHED, or -1 */
	uint32_t mission_from_ms, mission_budget_ms;

	/* Estimator lane (core) switches the autopilot announced. */
	unsigned lane_switches;
	uint32_t lane_switch_ms;	/* the first one's time */

	/* The command in flight. */
	uint16_t cmd;
	unsigned tries;
	uint64_t sent_us;
	bool acked;
	uint32_t hold_from_ms, climb_from_ms;

	/* Events not yet taken (flight_event_next). */
	unsigned nev;
	struct flight_event ev[16];
};

void
flight_init(struct flight *f, const struct campaign *c);

/* Set parameter name to value before arming: 0, -ENOSPC past
 * CAMPAIGN_MAX_PARAMS, -EINVAL for a name MAVLink cannot carry. */
int
flight_add_param(struct flight *f, const char *name, double value);

/* Fly these n waypoints after the hold: 0, or -EINVAL (none, or more
 * than CAMPAIGN_MAX_WAYPOINTS). */
int
flight_set_mission(struct flight *f, const struct campaign_waypoint *wp,
		   size_t n);

/* A frame from the autopilot at wall time now_us. */
void
flight_rx(struct flight *f, const struct mavlink_frame *fr, uint64_t now_us);

/* What to send now: 1 with *msgid and *m set, 0 for nothing (call again
 * until 0).  Moves the flight on. */
int
flight_step(struct flight *f, uint64_t now_us, uint32_t *msgid,
	    union mavlink_msg *m);

/* The oldest event not yet taken: true with *ev set. */
bool
flight_event_next(struct flight *f, struct flight_event *ev);

bool
flight_over(const struct flight *f);

const char *
flight_phase_name(enum flight_phase p);

const char *
flight_failure_name(enum flight_failure e);

#endif
