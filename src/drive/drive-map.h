/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * How a scenario line is carried out on an autopilot's own simulated
 * barometer (baro-drive, doc/drive.md): ArduPilot's AP_Baro_SITL through
 * its SIM_BARO_* parameters, PX4's sensor_baro_sim through SIM_BARO_OFF_P
 * and MAV_CMD_INJECT_FAILURE; or why it cannot be, and what would.
 * Pure: a table and the scenario passed in.
 */
#ifndef BAROD_DRIVE_MAP_H
#define BAROD_DRIVE_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "scenario.h"

enum drive_autopilot {
	DRIVE_ARDUPILOT,
	DRIVE_PX4,
	DRIVE_AUTOPILOTS,
};

/* "ardupilot", "px4". */
const char *
drive_autopilot_name(enum drive_autopilot ap);

/* The word back to the kind; -EINVAL for another word. */
int
drive_autopilot_parse(const char *word, enum drive_autopilot *ap);

enum drive_via {
	DRIVE_VIA_NONE,		/* restore, end, px4 ok: puts things back */
	DRIVE_VIA_PARAM,	/* PARAM_SET of the same SIM_* parameter */
	DRIVE_VIA_OFFSET,	/* PX4 SIM_BARO_OFF_P: metres as pascals */
	DRIVE_VIA_INJECT,	/* MAV_CMD_INJECT_FAILURE on the baro unit */
	DRIVE_VIA_REFUSED,
};

struct drive_route {
	enum drive_via via;
	/* What carries it out ("PARAM_SET SIM_BARO_GLITCH") or, refused,
	 * why not; and what would carry it out instead (NULL: nothing). */
	char what[160];
	const char *instead;
	/* When the change acts, as far as the autopilot's source says. */
	const char *timing;
};

/* The route of one action on ap. */
void
drive_route(const struct scenario_action *a, enum drive_autopilot ap,
	    struct drive_route *r);

/*
 * Refuse a scenario with a line ap cannot carry out: 0, or -EINVAL with
 * "NAME:LINE: ACTION cannot act on AP: WHY; instead: …" in err.
 */
int
drive_check(const struct scenario *sc, const char *name,
	    enum drive_autopilot ap, char *err, size_t errlen);

/* The highest baro instance a routed line acts on; -1 for none. */
int
drive_max_instance(const struct scenario *sc, enum drive_autopilot ap);

/* Whether any line needs MAV_CMD_INJECT_FAILURE. */
bool
drive_needs_inject(const struct scenario *sc, enum drive_autopilot ap);

/* One line per action: "LINE  ROUTE  (TIMING)", or refused with why. */
void
drive_print_routes(FILE *out, const struct scenario *sc, const char *name,
		   enum drive_autopilot ap);

/* PX4's name for the pressure offset parameter. */
#define DRIVE_PX4_OFFSET_PARAM "SIM_BARO_OFF_P"
#define DRIVE_PX4_INJECT_PARAM "SYS_FAILURE_EN"
/* Whether PX4 runs sensor_baro_sim at all (SIH and gz, when 1). */
#define DRIVE_PX4_BAROSIM_PARAM "SENS_EN_BAROSIM"

#endif
