/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "drive-map.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include "px4-failure.h"
#include "sim-params.h"
#include "util-strings.h"

static const char *const ap_names[DRIVE_AUTOPILOTS] = {
	[DRIVE_ARDUPILOT] = "ardupilot",
	[DRIVE_PX4] = "px4",
};

const char *
drive_autopilot_name(enum drive_autopilot ap)
{
	return (unsigned)ap < DRIVE_AUTOPILOTS ? ap_names[ap] : "?";
}

int
drive_autopilot_parse(const char *word, enum drive_autopilot *ap)
{
	for (unsigned i = 0; i < DRIVE_AUTOPILOTS; i++) {
		if (strcmp(word, ap_names[i]) == 0) {
			*ap = (enum drive_autopilot)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* Where the PX4 facts come from: PX4-Autopilot
 * src/modules/simulation/sensor_baro_sim/SensorBaroSim.cpp (v1.14 reads
 * SIM_BARO_OFF_P/OFF_T on parameter_update and publishes at 20 Hz; the
 * version after 0148665 also takes off and stuck from failure
 * injection, nothing else). */
#define PX4_PROXY "barod --px4-sim-proxy in front of a MAVLink simulator " \
		  "(jMAVSim, Gazebo Classic), where barod's emulator makes " \
		  "the baro"
#define AP_PROXY "barod in the sensor path: --sitl-json as the JSON " \
		 "backend, or as proxy in front of one"

static const char AP_TIMING[] =
	"the next AP_Baro_SITL update after the PARAM_VALUE (it reads "
	"SIM_* on every update)";
static const char PX4_OFFSET_TIMING[] =
	"late: sensor_baro_sim takes parameters on PX4's parameter_update "
	"(v1.14: within about 1 s), then at its next 20 Hz cycle";
static const char PX4_INJECT_TIMING[] =
	"sensor_baro_sim's next 20 Hz cycle after the COMMAND_ACK (PX4 "
	"versions whose sensor_baro_sim reads failure injection)";

/* PX4's sensor_baro_sim has one knob per emulator field at most. */
static const struct px4_field {
	size_t field;
	enum drive_via via;
	const char *why;
	const char *instead;
} px4_fields[] = {
	{ offsetof(struct sim_baro_params, glitch), DRIVE_VIA_OFFSET, NULL,
	  NULL },
	{ offsetof(struct sim_baro_params, disable), DRIVE_VIA_INJECT, NULL,
	  NULL },
	{ offsetof(struct sim_baro_params, freeze), DRIVE_VIA_REFUSED,
	  "sensor_baro_sim has no freeze",
	  "'px4 stuck 0' (failure injection), or " PX4_PROXY },
	{ offsetof(struct sim_baro_params, drift), DRIVE_VIA_REFUSED,
	  "sensor_baro_sim's drift rate is fixed at 0", PX4_PROXY },
	{ offsetof(struct sim_baro_params, rnd), DRIVE_VIA_REFUSED,
	  "sensor_baro_sim's noise is fixed at 1 Pa RMS", PX4_PROXY },
	{ offsetof(struct sim_baro_params, delay), DRIVE_VIA_REFUSED,
	  "sensor_baro_sim has no delay", PX4_PROXY },
};

static void
refuse(struct drive_route *r, const char *instead, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
refuse(struct drive_route *r, const char *instead, const char *fmt, ...)
{
	va_list ap;

	r->via = DRIVE_VIA_REFUSED;
	r->instead = instead;
	r->timing = NULL;
	va_start(ap, fmt);
	vsnprintf(r->what, sizeof(r->what), fmt, ap);
	va_end(ap);
}

static void
route_ardupilot(const struct scenario_action *a, struct drive_route *r)
{
	if (a->op == SCENARIO_OP_FAULT) {
		refuse(r,
		       a->fault.kind == FAULT_STUCK
			       ? "'freeze I' (SIM_BARx_FREEZE holds the "
				 "altitude, not pressure and temperature), or "
				 AP_PROXY
			       : AP_PROXY,
		       "ArduPilot's simulated baro has no '%s' (it is "
		       "barod's fault overlay)", fault_kind_name(a->fault.kind));
		return;
	}
	if (strcmp(sim_param_info((size_t)a->param)->name, "SIM_BARO_COUNT") ==
	    0) {
		refuse(r,
		       "set it before SITL starts (param set SIM_BARO_COUNT "
		       "N, then reboot)",
		       "SIM_BARO_COUNT acts at ArduPilot's next boot (AP_Baro "
		       "registers its SITL baros at start)");
		return;
	}
	r->via = DRIVE_VIA_PARAM;
	r->timing = AP_TIMING;
	snprintf(r->what, sizeof(r->what), "PARAM_SET %s",
		 sim_param_info((size_t)a->param)->name);
}

static void
route_px4(const struct scenario_action *a, struct drive_route *r)
{
	int inst = a->op == SCENARIO_OP_FAULT
			   ? a->instance
			   : sim_param_instance((size_t)a->param);

	if (inst != 0) {
		const char *why = inst < 0 ? "PX4 has no counterpart of %s"
					   : "sensor_baro_sim publishes one "
					     "baro (instance 0), not %s";
		refuse(r, PX4_PROXY, why,
		       a->op == SCENARIO_OP_FAULT
			       ? "baro 1 or 2"
			       : sim_param_info((size_t)a->param)->name);
		return;
	}
	if (a->op == SCENARIO_OP_FAULT) {
		if (a->fault.kind != FAULT_STUCK) {
			refuse(r, PX4_PROXY,
			       "sensor_baro_sim carries out failure types off "
			       "and stuck only, not '%s'",
			       fault_kind_name(a->fault.kind));
			return;
		}
		r->via = DRIVE_VIA_INJECT;
		r->timing = PX4_INJECT_TIMING;
		snprintf(r->what, sizeof(r->what),
			 "MAV_CMD_INJECT_FAILURE baro stuck");
		return;
	}
	size_t field = sim_param_field((size_t)a->param);
	const char *name = sim_param_info((size_t)a->param)->name;
	for (size_t i = 0; i < sizeof(px4_fields) / sizeof(px4_fields[0]);
	     i++) {
		const struct px4_field *f = &px4_fields[i];
		if (f->field != field)
			continue;
		if (f->via == DRIVE_VIA_REFUSED) {
			refuse(r, f->instead, "%s", f->why);
			return;
		}
		if (a->op == SCENARIO_OP_RAMP) {
			refuse(r, PX4_PROXY,
			       "a ramp of %s would reach sensor_baro_sim as "
			       "steps about a second apart", name);
			return;
		}
		r->via = f->via;
		if (f->via == DRIVE_VIA_OFFSET) {
			r->timing = PX4_OFFSET_TIMING;
			snprintf(r->what, sizeof(r->what),
				 "PARAM_SET " DRIVE_PX4_OFFSET_PARAM " (the "
				 "metres as pascals at the vehicle's altitude)");
		} else {
			r->timing = PX4_INJECT_TIMING;
			snprintf(r->what, sizeof(r->what),
				 "MAV_CMD_INJECT_FAILURE baro %s",
				 px4_failure_name(a->value != 0.0
							  ? PX4_FAILURE_OFF
							  : PX4_FAILURE_OK));
		}
		return;
	}
	refuse(r, PX4_PROXY, "sensor_baro_sim has no counterpart of %s",
	       name);
}

void
drive_route(const struct scenario_action *a, enum drive_autopilot ap,
	    struct drive_route *r)
{
	memset(r, 0, sizeof(*r));
	switch (a->op) {
	case SCENARIO_OP_CLEAR:
	case SCENARIO_OP_RESTORE:
	case SCENARIO_OP_END:
		if (ap == DRIVE_PX4 && a->op == SCENARIO_OP_CLEAR &&
		    a->instance != 0) {
			refuse(r, PX4_PROXY,
			       "sensor_baro_sim publishes one baro "
			       "(instance 0), not baro %d", a->instance);
			return;
		}
		r->via = DRIVE_VIA_NONE;
		r->timing = ap == DRIVE_PX4 ? PX4_OFFSET_TIMING : AP_TIMING;
		snprintf(r->what, sizeof(r->what),
			 "what the scenario changed, back to its start");
		return;
	case SCENARIO_OP_AUX:
		refuse(r, "baro-replay",
		       "'%s' faults the %s, which barod does not reach",
		       scenario_aux_name(a->aux),
		       scenario_aux_sensor(a->aux));
		return;
	case SCENARIO_OP_SET:
	case SCENARIO_OP_RAMP:
	case SCENARIO_OP_FAULT:
		break;
	}
	if (ap == DRIVE_ARDUPILOT)
		route_ardupilot(a, r);
	else
		route_px4(a, r);
}

int
drive_check(const struct scenario *sc, const char *name,
	    enum drive_autopilot ap, char *err, size_t errlen)
{
	for (size_t i = 0; i < sc->count; i++) {
		struct drive_route r;
		drive_route(&sc->actions[i], ap, &r);
		if (r.via != DRIVE_VIA_REFUSED)
			continue;
		return str_errorf(err, errlen, -EINVAL,
				  "%s:%u: cannot act on %s's own simulated "
				  "baro: %s%s%s",
				  name, sc->actions[i].line,
				  drive_autopilot_name(ap), r.what,
				  r.instead ? "; instead: " : "",
				  r.instead ? r.instead : "");
	}
	return 0;
}

int
drive_max_instance(const struct scenario *sc, enum drive_autopilot ap)
{
	int max = -1;

	for (size_t i = 0; i < sc->count; i++) {
		const struct scenario_action *a = &sc->actions[i];
		struct drive_route r;
		drive_route(a, ap, &r);
		if (r.via == DRIVE_VIA_REFUSED)
			continue;
		int inst = a->op == SCENARIO_OP_FAULT || a->op == SCENARIO_OP_CLEAR
				   ? a->instance
			   : a->param >= 0 ? sim_param_instance((size_t)a->param)
					   : -1;
		if (inst > max)
			max = inst;
	}
	return max;
}

bool
drive_needs_inject(const struct scenario *sc, enum drive_autopilot ap)
{
	for (size_t i = 0; i < sc->count; i++) {
		struct drive_route r;
		drive_route(&sc->actions[i], ap, &r);
		if (r.via == DRIVE_VIA_INJECT)
			return true;
	}
	return false;
}

void
drive_print_routes(FILE *out, const struct scenario *sc, const char *name,
		   enum drive_autopilot ap)
{
	fprintf(out, "# %s on %s's own simulated baro\n", name,
		drive_autopilot_name(ap));
	for (size_t i = 0; i < sc->count; i++) {
		struct drive_route r;
		drive_route(&sc->actions[i], ap, &r);
		if (r.via == DRIVE_VIA_REFUSED)
			fprintf(out, "%s:%u: refused: %s%s%s\n", name,
				sc->actions[i].line, r.what,
				r.instead ? "; instead: " : "",
				r.instead ? r.instead : "");
		else
			fprintf(out, "%s:%u: %s; acts at %s\n", name,
				sc->actions[i].line, r.what, r.timing);
	}
}
