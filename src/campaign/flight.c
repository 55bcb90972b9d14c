// SPDX-License-Identifier: GPL-3.0-or-later
#include "flight.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define RETRY_US 1000000u
#define TRIES 5
/* The height within reach of the take-off altitude, and how long of
 * the autopilot's time it may take to get there. */
#define CLIMB_WITHIN_M 1.0
#define CLIMB_MS 120000u

void
flight_init(struct flight *f, const struct campaign *c)
{
	*f = (struct flight){
		.ap = c->autopilot,
		.takeoff_m = c->takeoff_m,
		.hold_s = c->hold_s,
		.land = c->land,
		.commanded_mode = UINT32_MAX,
		.reached = -1,
	};
}

const char *
flight_phase_name(enum flight_phase p)
{
	static const char *const names[] = {
		[FLIGHT_WAIT] = "wait", [FLIGHT_PARAMS] = "params",
		[FLIGHT_UPLOAD] = "upload", [FLIGHT_MODE] = "mode",
		[FLIGHT_ARM] = "arm", [FLIGHT_TAKEOFF] = "takeoff",
		[FLIGHT_CLIMB] = "climb", [FLIGHT_HOLD] = "hold",
		[FLIGHT_MISSION] = "mission",
		[FLIGHT_LAND] = "land", [FLIGHT_LANDING] = "landing",
		[FLIGHT_DONE] = "done", [FLIGHT_FAILED] = "failed",
	};
	return (unsigned)p < sizeof(names) / sizeof(*names) ? names[p] : "?";
}

const char *
flight_failure_name(enum flight_failure e)
{
	static const char *const names[] = {
		[FLIGHT_OK] = "ok", [FLIGHT_NEVER_ARMED] = "never-armed",
		[FLIGHT_REFUSED] = "refused", [FLIGHT_NO_CLIMB] = "no-climb",
		[FLIGHT_DISARMED] = "disarmed-in-air",
		[FLIGHT_MISSION_UNFINISHED] = "mission-unfinished",
	};
	return (unsigned)e < sizeof(names) / sizeof(*names) ? names[e] : "?";
}

int
flight_add_param(struct flight *f, const char *name, double value)
{
	if (f->nparams == CAMPAIGN_MAX_PARAMS)
		return -ENOSPC;
	if (!*name || strlen(name) >= CAMPAIGN_PARAM_ID_LEN)
		return -EINVAL;
	struct flight_param *q = &f->params[f->nparams++];
	*q = (struct flight_param){ .want = value };
	snprintf(q->name, sizeof(q->name), "%s", name);
	return 0;
}

int
flight_set_mission(struct flight *f, const struct campaign_waypoint *wp,
		   size_t n)
{
	if (n == 0 || n > CAMPAIGN_MAX_WAYPOINTS)
		return -EINVAL;
	memcpy(f->wp, wp, n * sizeof(*wp));
	f->nwp = n;
	return 0;
}

static void
event(struct flight *f, const char *what, double value, const char *text)
{
	if (f->nev == sizeof(f->ev) / sizeof(f->ev[0]))
		/* Oldest first: drop the newest rather than reorder. */
		return;
	struct flight_event *e = &f->ev[f->nev++];
	*e = (struct flight_event){ .ap_ms = f->ap_ms, .what = what,
				    .value = value };
	snprintf(e->text, sizeof(e->text), "%s", text ? text : "");
}

bool
flight_event_next(struct flight *f, struct flight_event *ev)
{
	if (f->nev == 0)
		return false;
	*ev = f->ev[0];
	memmove(&f->ev[0], &f->ev[1], (f->nev - 1) * sizeof(f->ev[0]));
	f->nev--;
	return true;
}

static void
phase(struct flight *f, enum flight_phase p)
{
	f->phase = p;
	f->cmd = 0;
	f->tries = 0;
	f->acked = false;
	event(f, "phase", p, flight_phase_name(p));
}

static void
failed(struct flight *f, enum flight_failure why, const char *fmt,
       const char *what)
{
	f->failure = why;
	snprintf(f->why, sizeof(f->why), fmt, what);
	phase(f, FLIGHT_FAILED);
}

/* Is mode one the flight itself leads to from take-off to landing? */
static bool
expected_mode(const struct flight *f, uint32_t mode)
{
	if (f->ap == CAMPAIGN_ARDUPILOT)
		return mode == AP_COPTER_GUIDED || mode == f->commanded_mode;
	/* PX4 goes from AUTO.TAKEOFF to AUTO.LOITER by itself. */
	return mode == PX4_MODE_AUTO_TAKEOFF || mode == PX4_MODE_AUTO_LOITER ||
	       mode == f->commanded_mode;
}

static bool
in_air_phase(enum flight_phase p)
{
	return p == FLIGHT_CLIMB || p == FLIGHT_HOLD || p == FLIGHT_MISSION ||
	       p == FLIGHT_LAND;
}

static void
note_failsafe(struct flight *f, const char *why)
{
	if (f->failsafe)
		return;
	f->failsafe = true;
	f->failsafe_ms = f->ap_ms;
	event(f, "failsafe", 1, why);
}

/* Items in the upload: ArduPilot's home item 0, then the waypoints. */
static uint16_t
mission_count(const struct flight *f)
{
	return (uint16_t)(f->nwp + (f->ap == CAMPAIGN_ARDUPILOT));
}

static uint16_t
mission_first(const struct flight *f)
{
	return f->ap == CAMPAIGN_ARDUPILOT ? 1 : 0;
}

static uint16_t
mission_last(const struct flight *f)
{
	return (uint16_t)(mission_count(f) - 1);
}

/* Item seq as MISSION_ITEM_INT: NAV_WAYPOINT at its waypoint, relative
 * to home's altitude; ArduPilot's item 0 at home itself (it keeps its
 * own home there whatever is sent). */
static void
mission_item(const struct flight *f, uint16_t seq, union mavlink_msg *m)
{
	const bool home = f->ap == CAMPAIGN_ARDUPILOT && seq == 0;
	const struct campaign_waypoint w =
		home ? (struct campaign_waypoint){ .alt_m = f->home_amsl_m }
		     : f->wp[seq - mission_first(f)];
	const double lat_rad = f->home_lat * 1e-7 * M_PI / 180.0;
	*m = (union mavlink_msg){ .mi = {
		.x = f->home_lat +
		     (int32_t)lround(w.north_m / MAVLINK_M_PER_DEGE7),
		.y = f->home_lon +
		     (int32_t)lround(w.east_m /
				     (MAVLINK_M_PER_DEGE7 * cos(lat_rad))),
		.z = (float)w.alt_m,
		.seq = seq,
		.command = MAV_CMD_NAV_WAYPOINT,
		.target_system = f->sysid,
		.target_component = f->compid,
		.frame = home ? MAV_FRAME_GLOBAL
			      : MAV_FRAME_GLOBAL_RELATIVE_ALT_INT,
		.current = seq == 0,
		.autocontinue = 1,
		.mission_type = MAV_MISSION_TYPE_MISSION,
	} };
}

/* What the autopilots say when their estimator changes lane (core):
 * ArduPilot's EKF3 "EKF3 lane switch %u" (AP_NavEKF3.cpp, switchLane)
 * and EKF2 "NavEKF2: lane switch %u"; PX4's ekf2 selector "primary EKF
 * changed ..." (EKF2Selector.cpp), which reaches MAVLink only where its
 * console log is forwarded. */
static bool
is_lane_switch(const char *t)
{
	return strstr(t, "lane switch") || strcasestr(t, "primary EKF changed");
}

static bool
param_matches(const struct flight_param *q, double v)
{
	if (mavlink_param_type_integer(q->type))
		return (double)llround(q->want) == v;
	return (float)q->want == (float)v;
}

/* The answer to the read or the set of the parameter at work. */
static void
param_value(struct flight *f, const struct mavlink_param_value *pv)
{
	if (f->phase != FLIGHT_PARAMS || f->param_at >= f->nparams)
		return;
	struct flight_param *q = &f->params[f->param_at];
	char id[sizeof(pv->param_id) + 1];
	memcpy(id, pv->param_id, sizeof(pv->param_id));
	id[sizeof(pv->param_id)] = '\0';
	if (strcmp(id, q->name) != 0)
		return;
	/* PX4 carries an integer's bits in the float; ArduPilot casts. */
	const double v = mavlink_param_from_wire(
		pv->param_type, f->ap == CAMPAIGN_PX4, pv->param_value);
	if (!q->known) {
		q->known = true;
		q->type = pv->param_type;
		q->before = v;
		f->tries = 0;
		if (mavlink_param_type_integer(q->type) &&
		    q->want != floor(q->want)) {
			failed(f, FLIGHT_REFUSED, "parameter %s is a whole "
			       "number; the campaign's value is not", q->name);
			return;
		}
	}
	if (param_matches(q, v)) {
		/* A copy: the event is written into *f too. */
		char name[sizeof(q->name)];
		memcpy(name, q->name, sizeof(name));
		event(f, "param", v, name);
		f->param_at++;
		f->tries = 0;
	}
}

void
flight_rx(struct flight *f, const struct mavlink_frame *fr, uint64_t now_us)
{
	union mavlink_msg m;
	if (mavlink_unpack_msg(fr->msgid, fr->payload, &m) < 0)
		return;
	/* The autopilot is the first system to send a HEARTBEAT that is not
	 * a ground station's. */
	if (!f->heard) {
		if (fr->msgid != MAVLINK_MSG_HEARTBEAT || m.hb.type == MAV_TYPE_GCS)
			return;
		f->heard = true;
		f->sysid = fr->sysid;
		f->compid = fr->compid;
	}
	if (fr->sysid != f->sysid || fr->compid != f->compid)
		return;
	switch (fr->msgid) {
	case MAVLINK_MSG_HEARTBEAT: {
		bool armed = m.hb.base_mode & MAV_MODE_FLAG_SAFETY_ARMED;
		if (armed != f->armed || !f->have_mode)
			event(f, "armed", armed, NULL);
		if (!f->have_mode || m.hb.custom_mode != f->mode) {
			char t[32];
			snprintf(t, sizeof(t), "0x%x", m.hb.custom_mode);
			event(f, "mode", m.hb.custom_mode, t);
			if (in_air_phase(f->phase) &&
			    !expected_mode(f, m.hb.custom_mode))
				note_failsafe(f, "mode changed by the autopilot");
		}
		f->have_mode = true;
		f->mode = m.hb.custom_mode;
		f->was_armed |= armed;
		f->armed = armed;
		break;
	}
	case MAVLINK_MSG_SYSTEM_TIME:
		f->ap_ms = m.stime.time_boot_ms;
		break;
	case MAVLINK_MSG_GLOBAL_POSITION_INT:
		f->ap_ms = m.gpi.time_boot_ms;
		f->alt_m = m.gpi.relative_alt * 1e-3;
		f->home_amsl_m = (m.gpi.alt - m.gpi.relative_alt) * 1e-3;
		f->have_alt = true;
		/* Home is where it stood before it armed. */
		if (!f->was_armed) {
			f->home_lat = m.gpi.lat;
			f->home_lon = m.gpi.lon;
			f->have_latlon = true;
		}
		break;
	case MAVLINK_MSG_MISSION_REQUEST:
	case MAVLINK_MSG_MISSION_REQUEST_INT:
		if (f->phase != FLIGHT_UPLOAD || f->acked ||
		    m.mr.mission_type != MAV_MISSION_TYPE_MISSION ||
		    m.mr.seq >= mission_count(f))
			break;
		f->item_due = true;
		f->item_seq = m.mr.seq;
		/* Progress: the count is not sent again for a second. */
		f->tries = 1;
		f->sent_us = now_us;
		break;
	case MAVLINK_MSG_MISSION_ACK:
		if (f->phase != FLIGHT_UPLOAD || f->acked ||
		    m.ma.mission_type != MAV_MISSION_TYPE_MISSION)
			break;
		if (m.ma.type == MAV_MISSION_ACCEPTED) {
			f->acked = true;
		} else {
			char t[48];
			snprintf(t, sizeof(t), "MAV_MISSION_RESULT %u",
				 m.ma.type);
			failed(f, FLIGHT_REFUSED, "mission refused (%s)", t);
		}
		break;
	case MAVLINK_MSG_MISSION_ITEM_REACHED:
		if (f->phase != FLIGHT_MISSION)
			break;
		f->reached = m.mir.seq;
		event(f, "mission_item", m.mir.seq, NULL);
		break;
	case MAVLINK_MSG_COMMAND_ACK:
		if (m.ca.command != f->cmd || f->acked)
			break;
		if (m.ca.result == MAV_RESULT_ACCEPTED ||
		    m.ca.result == MAV_RESULT_IN_PROGRESS) {
			f->acked = true;
			break;
		}
		if (f->cmd == MAV_CMD_COMPONENT_ARM_DISARM)
			failed(f, FLIGHT_NEVER_ARMED, "arming %s",
			       m.ca.result == MAV_RESULT_DENIED ? "denied"
							      : "refused");
		else
			failed(f, FLIGHT_REFUSED, "command %s refused",
			       f->cmd == MAV_CMD_NAV_TAKEOFF	  ? "take-off"
			       : f->cmd == MAV_CMD_NAV_LAND	  ? "land"
			       : f->cmd == MAV_CMD_MISSION_START ? "mission start"
								 : "set mode");
		break;
	case MAVLINK_MSG_SYS_STATUS: {
		const uint32_t b = MAV_SYS_STATUS_SENSOR_ABSOLUTE_PRESSURE;
		if (!(m.ss.sensors_present & b))
			break;
		bool ok = m.ss.sensors_health & b;
		if (!f->have_health || ok != f->baro_healthy)
			event(f, "baro_health", ok, NULL);
		f->have_health = true;
		f->baro_healthy = ok;
		break;
	}
	case MAVLINK_MSG_EKF_STATUS_REPORT:
	case MAVLINK_MSG_ESTIMATOR_STATUS: {
		float ratio = fr->msgid == MAVLINK_MSG_EKF_STATUS_REPORT
				      ? m.ekf.pos_vert_variance
				      : m.es.pos_vert_ratio;
		bool rej = ratio > 1.0f;
		if (!f->have_ratio || rej != f->height_rejected) {
			char t[32];
			snprintf(t, sizeof(t), "ratio %.2f", (double)ratio);
			event(f, "height_rejected", rej, t);
		}
		f->have_ratio = true;
		f->height_rejected = rej;
		break;
	}
	case MAVLINK_MSG_STATUSTEXT: {
		char t[sizeof(m.st.text)];
		memcpy(t, m.st.text, sizeof(t) - 1);
		t[sizeof(t) - 1] = '\0';
		event(f, "statustext", m.st.severity, t);
		if (strcasestr(t, "failsafe") && f->phase != FLIGHT_WAIT)
			note_failsafe(f, t);
		if (is_lane_switch(t)) {
			if (f->lane_switches++ == 0)
				f->lane_switch_ms = f->ap_ms;
			event(f, "lane_switch", f->lane_switches, t);
		}
		break;
	}
	case MAVLINK_MSG_PARAM_VALUE:
		param_value(f, &m.pv);
		break;
	default:
		break;
	}
}

static void
command(struct flight *f, uint16_t cmd, float p1, float p2, float p7,
	union mavlink_msg *m, uint64_t now_us)
{
	*m = (union mavlink_msg){ .cl = {
		.command = cmd,
		.target_system = f->sysid,
		.target_component = f->compid,
		.confirmation = (uint8_t)(f->tries > 255 ? 255 : f->tries),
		.param = { p1, p2, 0, 0, NAN, NAN, p7 },
	} };
	if (cmd != MAV_CMD_NAV_TAKEOFF && cmd != MAV_CMD_NAV_LAND) {
		m->cl.param[4] = 0;
		m->cl.param[5] = 0;
	}
	f->cmd = cmd;
	f->tries++;
	f->sent_us = now_us;
}

/* The command of this phase, sent again until acknowledged: 1 when one
 * goes out now, 0 when waiting, and a failure after TRIES. */
static int
send_until_acked(struct flight *f, uint64_t now_us, uint16_t cmd, float p1,
		 float p2, float p7, union mavlink_msg *m)
{
	if (f->acked)
		return 0;
	if (f->tries && now_us - f->sent_us < RETRY_US)
		return 0;
	if (f->tries == TRIES) {
		if (cmd == MAV_CMD_COMPONENT_ARM_DISARM)
			failed(f, FLIGHT_NEVER_ARMED, "%s",
			       "arming unanswered");
		else
			failed(f, FLIGHT_REFUSED, "%s", "a command unanswered");
		return 0;
	}
	command(f, cmd, p1, p2, p7, m, now_us);
	return 1;
}

/* ArduPilot takes a take-off in GUIDED only; PX4 in any mode. */
static enum flight_phase
before_arming(const struct flight *f)
{
	return f->ap == CAMPAIGN_ARDUPILOT ? FLIGHT_MODE : FLIGHT_ARM;
}

static enum flight_phase
after_params(const struct flight *f)
{
	return f->nwp ? FLIGHT_UPLOAD : before_arming(f);
}

/* The mission's upload: MISSION_COUNT, an item for each request, until
 * MISSION_ACK.  With no request for a second the count goes again (the
 * upload starts over), TRIES times at most. */
static int
step_upload(struct flight *f, uint64_t now_us, uint32_t *msgid,
	    union mavlink_msg *m)
{
	if (f->acked) {
		event(f, "mission_uploaded", f->nwp, NULL);
		phase(f, before_arming(f));
		return 0;
	}
	if (f->item_due) {
		f->item_due = false;
		*msgid = MAVLINK_MSG_MISSION_ITEM_INT;
		mission_item(f, f->item_seq, m);
		return 1;
	}
	if (f->tries && now_us - f->sent_us < RETRY_US)
		return 0;
	if (f->tries == TRIES) {
		failed(f, FLIGHT_REFUSED, "%s", "mission upload unanswered");
		return 0;
	}
	*msgid = MAVLINK_MSG_MISSION_COUNT;
	*m = (union mavlink_msg){ .mc = {
		.count = mission_count(f),
		.target_system = f->sysid,
		.target_component = f->compid,
		.mission_type = MAV_MISSION_TYPE_MISSION,
	} };
	f->tries++;
	f->sent_us = now_us;
	return 1;
}

/* The time the mission may take, of the autopilot's clock: its legs at
 * 1 m/s, from the hold, plus 30 s. */
static uint32_t
mission_budget_ms(const struct flight *f)
{
	double n = 0, e = 0, h = f->takeoff_m, d = 0;
	for (size_t i = 0; i < f->nwp; i++) {
		d += sqrt(pow(f->wp[i].north_m - n, 2) +
			  pow(f->wp[i].east_m - e, 2) +
			  pow(f->wp[i].alt_m - h, 2));
		n = f->wp[i].north_m;
		e = f->wp[i].east_m;
		h = f->wp[i].alt_m;
	}
	return (uint32_t)((d + 30.0) * 1000.0);
}

/* The parameter at work: read it (for its type), then set it, each
 * sent again after a second, TRIES times at most. */
static int
step_params(struct flight *f, uint64_t now_us, uint32_t *msgid,
	    union mavlink_msg *m)
{
	if (f->param_at == f->nparams) {
		phase(f, after_params(f));
		return 0;
	}
	const struct flight_param *q = &f->params[f->param_at];
	if (f->tries && now_us - f->sent_us < RETRY_US)
		return 0;
	if (f->tries == TRIES) {
		failed(f, FLIGHT_REFUSED,
		       q->known ? "parameter %s: the autopilot did not take "
				  "the value"
				: "parameter %s: no answer (not one of this "
				  "autopilot's?)",
		       q->name);
		return 0;
	}
	if (!q->known) {
		*msgid = MAVLINK_MSG_PARAM_REQUEST_READ;
		*m = (union mavlink_msg){ .prr = {
			.target_system = f->sysid,
			.target_component = f->compid,
			.param_index = -1,
		} };
		memcpy(m->prr.param_id, q->name, strlen(q->name));
	} else {
		*msgid = MAVLINK_MSG_PARAM_SET;
		*m = (union mavlink_msg){ .ps = {
			.param_value = mavlink_param_to_wire(
				q->type, f->ap == CAMPAIGN_PX4, q->want),
			.target_system = f->sysid,
			.target_component = f->compid,
			.param_type = q->type,
		} };
		memcpy(m->ps.param_id, q->name, strlen(q->name));
	}
	f->tries++;
	f->sent_us = now_us;
	return 1;
}

int
flight_step(struct flight *f, uint64_t now_us, uint32_t *msgid,
	    union mavlink_msg *m)
{
	*msgid = MAVLINK_MSG_COMMAND_LONG;
	if (f->was_armed && !f->armed && in_air_phase(f->phase) &&
	    f->phase != FLIGHT_LAND) {
		/* Down: by its own failsafe, the flight's end; otherwise
		 * something the flight never asked for. */
		if (f->failsafe)
			phase(f, FLIGHT_DONE);
		else
			failed(f, FLIGHT_DISARMED, "%s", "disarmed in the air");
		return 0;
	}
	switch (f->phase) {
	case FLIGHT_WAIT:
		if (f->heard && f->have_alt && f->have_mode)
			phase(f, f->nparams ? FLIGHT_PARAMS : after_params(f));
		return 0;
	case FLIGHT_PARAMS:
		return step_params(f, now_us, msgid, m);
	case FLIGHT_UPLOAD:
		if (!f->have_latlon) {
			failed(f, FLIGHT_REFUSED, "%s", "a mission, but no "
			       "position in GLOBAL_POSITION_INT");
			return 0;
		}
		return step_upload(f, now_us, msgid, m);
	case FLIGHT_MODE:
		f->commanded_mode = AP_COPTER_GUIDED;
		if (f->acked && f->mode == AP_COPTER_GUIDED) {
			phase(f, FLIGHT_ARM);
			return 0;
		}
		return send_until_acked(f, now_us, MAV_CMD_DO_SET_MODE,
					MAV_MODE_FLAG_CUSTOM_MODE_ENABLED, AP_COPTER_GUIDED, 0, m);
	case FLIGHT_ARM:
		if (f->acked && f->armed) {
			phase(f, FLIGHT_TAKEOFF);
			return 0;
		}
		return send_until_acked(f, now_us, MAV_CMD_COMPONENT_ARM_DISARM, 1, 0, 0, m);
	case FLIGHT_TAKEOFF: {
		if (f->acked) {
			f->climb_from_ms = f->ap_ms;
			phase(f, FLIGHT_CLIMB);
			return 0;
		}
		/* ArduPilot: metres above home; PX4: AMSL. */
		double alt = f->ap == CAMPAIGN_ARDUPILOT
				     ? f->takeoff_m
				     : f->home_amsl_m + f->takeoff_m;
		return send_until_acked(f, now_us, MAV_CMD_NAV_TAKEOFF, 0, 0,
					(float)alt, m);
	}
	case FLIGHT_CLIMB:
		if (f->alt_m >= f->takeoff_m - CLIMB_WITHIN_M) {
			f->hold_from_ms = f->ap_ms;
			phase(f, FLIGHT_HOLD);
		} else if (f->ap_ms - f->climb_from_ms > CLIMB_MS) {
			failed(f, FLIGHT_NO_CLIMB, "%s", "never reached the "
			       "take-off height");
		}
		return 0;
	case FLIGHT_HOLD:
		if ((double)(f->ap_ms - f->hold_from_ms) < f->hold_s * 1000.0)
			return 0;
		if (f->nwp) {
			f->mission_from_ms = f->ap_ms;
			f->mission_budget_ms = mission_budget_ms(f);
			phase(f, FLIGHT_MISSION);
		} else {
			phase(f, f->land ? FLIGHT_LAND : FLIGHT_DONE);
		}
		return 0;
	case FLIGHT_MISSION:
		f->commanded_mode = f->ap == CAMPAIGN_ARDUPILOT
					    ? AP_COPTER_AUTO
					    : PX4_MODE_AUTO_MISSION;
		if (!f->acked)
			return send_until_acked(f, now_us, MAV_CMD_MISSION_START,
						mission_first(f),
						mission_last(f), 0, m);
		if (f->reached == mission_last(f)) {
			phase(f, f->land ? FLIGHT_LAND : FLIGHT_DONE);
		} else if (f->ap_ms - f->mission_from_ms > f->mission_budget_ms) {
			char t[64];
			snprintf(t, sizeof(t), "%d of %zu", f->reached < 0 ? 0
				 : f->reached - mission_first(f) + 1, f->nwp);
			failed(f, FLIGHT_MISSION_UNFINISHED, "mission unfinished:"
			       " %s waypoints reached", t);
		}
		return 0;
	case FLIGHT_LAND:
		f->commanded_mode = f->ap == CAMPAIGN_ARDUPILOT ? AP_COPTER_LAND
								: PX4_MODE_AUTO_LAND;
		if (f->acked) {
			phase(f, FLIGHT_LANDING);
			return 0;
		}
		return send_until_acked(f, now_us, MAV_CMD_NAV_LAND, 0, 0, NAN, m);
	case FLIGHT_LANDING:
		if (!f->armed)
			phase(f, FLIGHT_DONE);
		return 0;
	case FLIGHT_DONE:
	case FLIGHT_FAILED:
		return 0;
	}
	return 0;
}

bool
flight_over(const struct flight *f)
{
	return f->phase == FLIGHT_DONE || f->phase == FLIGHT_FAILED;
}
