/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * PX4's failure types for a sensor: MAVLink's FAILURE_TYPE, numbered as
 * MAV_CMD_INJECT_FAILURE's param2 and PX4's vehicle_command carry them,
 * with their names and how barod carries each out on a baro.  The one
 * table of them: the scenario verb `px4 TYPE`, the control socket's
 * inject (baroctl), MAV_CMD_INJECT_FAILURE and the messages that list
 * the types all read it.  Pure.
 */
#ifndef BAROD_PX4_FAILURE_H
#define BAROD_PX4_FAILURE_H

#include <stdbool.h>
#include <stddef.h>

#include "faults.h"

/* MAVLink's FAILURE_TYPE (common.xml), in its numbers. */
enum px4_failure_type {
	PX4_FAILURE_OK = 0,
	PX4_FAILURE_OFF = 1,
	PX4_FAILURE_STUCK = 2,
	PX4_FAILURE_GARBAGE = 3,
	PX4_FAILURE_WRONG = 4,
	PX4_FAILURE_SLOW = 5,
	PX4_FAILURE_DELAYED = 6,
	PX4_FAILURE_INTERMITTENT = 7,
	PX4_FAILURE_TYPES,	/* how many */
};

/*
 * How a type acts on an emulated baro.  On real readings every type is
 * its overlay fault (.fault).  stuck is the overlay's in every source:
 * PX4 holds pressure and temperature (and calls a baro stale only when
 * both stop), while SIM_BARO_FREEZE is ArduPilot's (pressure from the
 * last stored altitude, temperature live).
 */
enum px4_failure_how {
	PX4_HOW_CLEAR,		/* the instance back to its start */
	PX4_HOW_PARAM,		/* the emulator's parameter with PX4's
				 * meaning (.field) */
	PX4_HOW_FAULT,		/* the fault overlay's (.fault) */
};

struct px4_failure {
	const char *name;	/* "ok", "off", ... as PX4's failure command
				 * spells them */
	enum px4_failure_how how;
	size_t field;		/* PARAM: in struct sim_baro_params */
	enum fault_kind fault;	/* the overlay's: FAULT, and PARAM on real
				 * readings */
	bool takes_value;
	double def;		/* the value when none is given */
};

/* type's row, or NULL if there is no such type. */
const struct px4_failure *
px4_failure_of(unsigned type);

/* type's name, or NULL if there is no such type. */
const char *
px4_failure_name(unsigned type);

/* The type named name (exactly: lower case), or -1. */
int
px4_failure_by_name(const char *name);

/* Every name in type order with sep between them ("ok off ... intermittent"
 * for " "): as snprintf(). */
int
px4_failure_names(char *buf, size_t len, const char *sep);

#endif
