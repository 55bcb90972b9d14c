/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "ap-peer.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "atmosphere.h"
#include "px4-failure.h"
#include "sim-params.h"

void
ap_peer_init(struct ap_peer *p, enum ap_peer_kind kind)
{
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->sysid = 1;
	p->compid = 1;
	p->speed = 1.0;
	p->time_interval_us = 0;
	mavlink_parser_init(&p->parser);
	/* A signed GCS is answered too: signing is the link's business. */
	p->parser.deliver_signed = true;
	if (kind == AP_PEER_ARDUPILOT) {
		struct sim_params d;
		sim_params_defaults(&d);
		for (size_t i = 0; i < sim_param_count(); i++) {
			const struct sim_param_info *in = sim_param_info(i);
			struct ap_peer_param *q = &p->params[p->nparams++];
			snprintf(q->name, sizeof(q->name), "%s", in->name);
			q->value = sim_param_get(&d, i);
			q->type = in->type == SIM_PARAM_FLOAT
					  ? MAV_PARAM_TYPE_REAL32
					  : MAV_PARAM_TYPE_INT8;
		}
	} else {
		p->params[0] = (struct ap_peer_param){ "SIM_BARO_OFF_P", 0.0f,
						       MAV_PARAM_TYPE_REAL32 };
		p->params[1] = (struct ap_peer_param){ "SIM_BARO_OFF_T", 0.0f,
						       MAV_PARAM_TYPE_REAL32 };
		p->params[2] = (struct ap_peer_param){ "SYS_FAILURE_EN", 0.0f,
						       MAV_PARAM_TYPE_INT32 };
		p->params[3] = (struct ap_peer_param){ "SENS_EN_BAROSIM", 1.0f,
						       MAV_PARAM_TYPE_INT32 };
		p->nparams = 4;
		ap_peer_set(p, "SYS_FAILURE_EN", 1.0f);
		p->inject_supported = true;
	}
}

static struct ap_peer_param *
find(struct ap_peer *p, const char *name)
{
	for (size_t i = 0; i < p->nparams; i++)
		if (strncmp(p->params[i].name, name, 16) == 0)
			return &p->params[i];
	return NULL;
}

/* PX4 sends INT32 parameters byte-wise in the float. */
static float
wire_value(const struct ap_peer *p, const struct ap_peer_param *q)
{
	return mavlink_param_to_wire(q->type, p->kind == AP_PEER_PX4,
				     (double)q->value);
}

static float
from_wire(const struct ap_peer *p, const struct ap_peer_param *q, float v)
{
	return (float)mavlink_param_from_wire(q->type, p->kind == AP_PEER_PX4,
					      v);
}

float
ap_peer_get(const struct ap_peer *p, const char *name)
{
	const struct ap_peer_param *q = find((struct ap_peer *)p, name);
	if (strcmp(name, "baro") == 0)
		return (float)p->inject;
	return q ? q->value : NAN;
}

void
ap_peer_set(struct ap_peer *p, const char *name, float value)
{
	struct ap_peer_param *q = find(p, name);
	if (q)
		q->value = value;
	if (strcmp(name, "SIM_BARO_OFF_P") == 0)
		p->offp_applied = value;
}

void
ap_peer_remove(struct ap_peer *p, const char *name)
{
	struct ap_peer_param *q = find(p, name);
	if (!q)
		return;
	*q = p->params[--p->nparams];
}

uint64_t
ap_peer_ms(const struct ap_peer *p)
{
	return (uint64_t)p->ap_ms;
}

static void
history(struct ap_peer *p, const char *name, float value, uint64_t ap_ms)
{
	if (p->nhistory == AP_PEER_HISTORY)
		return;
	struct ap_peer_change *c = &p->history[p->nhistory++];
	c->ap_ms = ap_ms;
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->value = value;
}

float
ap_peer_value_at(const struct ap_peer *p, const char *name, uint64_t ap_ms)
{
	float v = NAN;

	for (size_t i = 0; i < p->nhistory; i++)
		if (p->history[i].ap_ms <= ap_ms &&
		    strcmp(p->history[i].name, name) == 0)
			v = p->history[i].value;
	return v;
}

static void
queue(struct ap_peer *p, uint32_t msgid, const union mavlink_msg *m,
      uint64_t due_us)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD];

	if (p->nq == AP_PEER_QUEUE)
		return;
	memset(pl, 0, sizeof(pl));
	mavlink_pack_msg(msgid, m, pl);
	struct ap_peer_frame *f = &p->q[p->nq];
	int n = mavlink_frame_encode(f->b, 2, p->seq++, p->sysid, p->compid,
				     msgid, pl);
	if (n <= 0)
		return;
	f->len = (uint16_t)n;
	f->due_us = due_us;
	p->nq++;
}

static void
answer(struct ap_peer *p, uint32_t msgid, const union mavlink_msg *m)
{
	queue(p, msgid, m, p->now_us + p->reply_delay_us);
}

static void
param_value(struct ap_peer *p, const struct ap_peer_param *q)
{
	union mavlink_msg m = { .pv = {
		.param_value = wire_value(p, q),
		.param_count = (uint16_t)p->nparams,
		.param_index = (uint16_t)(q - p->params),
		.param_type = q->type,
	} };
	snprintf(m.pv.param_id, sizeof(m.pv.param_id), "%s", q->name);
	answer(p, MAVLINK_MSG_PARAM_VALUE, &m);
}

static void
command_ack(struct ap_peer *p, uint16_t command, uint8_t result,
	    const struct mavlink_frame *f)
{
	union mavlink_msg m = { .ca = {
		.command = command,
		.result = result,
		.target_system = f->sysid,
		.target_component = f->compid,
	} };
	answer(p, MAVLINK_MSG_COMMAND_ACK, &m);
}

/* ---- flight (fake-autopilot) ------------------------------------------ */

void
ap_peer_fly(struct ap_peer *p, double home_m, uint64_t seed, bool never_arm)
{
	struct ap_peer_flight *v = &p->fly;

	memset(v, 0, sizeof(*v));
	v->on = true;
	v->home_m = home_m;
	v->never_arm = never_arm;
	v->rng = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
	v->mode = p->kind == AP_PEER_PX4 ? PX4_MODE_AUTO_LOITER
					 : AP_COPTER_STABILIZE;
	/* Its estimator's gate, a parameter as on the real one. */
	if (p->nparams + 1 < AP_PEER_PARAMS)
		p->params[p->nparams++] =
			p->kind == AP_PEER_PX4
				? (struct ap_peer_param){
					  .name = AP_PEER_EKF_GATE_PX4,
					  .value = 5.0f,
					  .type = MAV_PARAM_TYPE_REAL32 }
				: (struct ap_peer_param){
					  .name = AP_PEER_EKF_GATE_AP,
					  .value = 500.0f,
					  .type = MAV_PARAM_TYPE_INT16 };
	/* A healthy baro at home before the first step. */
	float t;
	atmos_1976_pressure_temperature((float)home_m, &v->pressure_pa, &t);
	v->baro_ok = true;
}

/* The innovation gate in metres, from the gate parameter. */
static double
gate_m(const struct ap_peer *p)
{
	double sd = p->kind == AP_PEER_PX4
			    ? (double)ap_peer_get(p, AP_PEER_EKF_GATE_PX4)
			    : 0.01 * (double)ap_peer_get(p, AP_PEER_EKF_GATE_AP);
	return fmax(isfinite(sd) ? sd : 5.0, 1.0) * AP_PEER_EKF_SD_M;
}

/* xorshift64*, then Box-Muller: the same noise for the same seed. */
static double
uniform(struct ap_peer_flight *v)
{
	v->rng ^= v->rng >> 12;
	v->rng ^= v->rng << 25;
	v->rng ^= v->rng >> 27;
	return (double)((v->rng * 2685821657736338717ull) >> 11) * 0x1p-53;
}

static double
gauss(struct ap_peer_flight *v)
{
	double u = uniform(v), w = uniform(v);
	if (u < 1e-300)
		u = 1e-300;
	return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * w);
}

static void
statustext(struct ap_peer *p, uint8_t severity, const char *text)
{
	union mavlink_msg m = { .st = { .severity = severity } };
	snprintf(m.st.text, sizeof(m.st.text), "%s", text);
	queue(p, MAVLINK_MSG_STATUSTEXT, &m, p->now_us);
}

static bool
px4(const struct ap_peer *p)
{
	return p->kind == AP_PEER_PX4;
}

static uint32_t
land_mode(const struct ap_peer *p)
{
	return px4(p) ? PX4_MODE_AUTO_LAND : AP_COPTER_LAND;
}

static bool
in_air(const struct ap_peer_flight *v)
{
	return v->armed && v->truth_m > 0.05;
}

static void
set_mode(struct ap_peer *p, uint32_t mode)
{
	struct ap_peer_flight *v = &p->fly;

	if (mode != PX4_MODE_AUTO_TAKEOFF)
		v->climbing = false;
	v->mode = mode;
}

static void
disarm(struct ap_peer *p)
{
	p->fly.armed = false;
	p->fly.climbing = false;
	statustext(p, MAV_SEVERITY_INFO, "Disarming motors");
}

/* The modes each autopilot here knows: true when mode is one. */
static bool
mode_known(const struct ap_peer *p, uint32_t mode)
{
	if (px4(p))
		return mode == PX4_MODE_POSCTL || mode == PX4_MODE_OFFBOARD ||
		       mode == PX4_MODE_AUTO_TAKEOFF ||
		       mode == PX4_MODE_AUTO_LOITER ||
		       mode == PX4_MODE_AUTO_MISSION ||
		       mode == PX4_MODE_AUTO_LAND;
	return mode == AP_COPTER_STABILIZE || mode == AP_COPTER_GUIDED ||
	       mode == AP_COPTER_AUTO || mode == AP_COPTER_LAND;
}

/* Ask for item seq: PX4 with MISSION_REQUEST_INT, ArduPilot with the
 * older MISSION_REQUEST (its MissionItemProtocol's request, answered
 * with MISSION_ITEM_INT as readily). */
static void
mission_request(struct ap_peer *p, uint16_t seq)
{
	union mavlink_msg m = { .mr = { .seq = seq, .target_system = 255,
					.target_component = 190 } };
	answer(p, px4(p) ? MAVLINK_MSG_MISSION_REQUEST_INT
			 : MAVLINK_MSG_MISSION_REQUEST, &m);
}

static void
mission_ack(struct ap_peer *p, uint8_t type)
{
	union mavlink_msg m = { .ma = { .target_system = 255,
					.target_component = 190,
					.type = type } };
	answer(p, MAVLINK_MSG_MISSION_ACK, &m);
}

/* The upload: a count, then each item asked for in turn, then the ACK. */
static void
mission_upload(struct ap_peer *p, uint32_t msgid, const union mavlink_msg *m)
{
	struct ap_peer_flight *v = &p->fly;
	if (msgid == MAVLINK_MSG_MISSION_COUNT) {
		if (m->mc.mission_type != MAV_MISSION_TYPE_MISSION)
			return;
		if (m->mc.count == 0 || m->mc.count > AP_PEER_MISSION) {
			mission_ack(p, MAV_MISSION_ERROR);
			return;
		}
		v->mis_count = m->mc.count;
		v->mis_next = 0;
		v->mis_ok = false;
		mission_request(p, 0);
		return;
	}
	const struct mavlink_mission_item_int *it = &m->mi;
	if (v->mis_ok || it->seq != v->mis_next ||
	    v->mis_next >= v->mis_count) {
		if (!v->mis_ok && v->mis_next < v->mis_count)
			mission_request(p, (uint16_t)v->mis_next);
		return;
	}
	const double cos_lat = cos(AP_PEER_HOME_LAT_E7 * 1e-7 * M_PI / 180.0);
	v->mis[it->seq].north_m =
		(double)(it->x - AP_PEER_HOME_LAT_E7) * MAVLINK_M_PER_DEGE7;
	v->mis[it->seq].east_m = (double)(it->y - AP_PEER_HOME_LON_E7) *
				 MAVLINK_M_PER_DEGE7 * cos_lat;
	v->mis[it->seq].alt_m = it->frame == MAV_FRAME_GLOBAL_RELATIVE_ALT_INT
					? (double)it->z
					: (double)it->z - v->home_m;
	if (++v->mis_next == v->mis_count) {
		v->mis_ok = true;
		mission_ack(p, MAV_MISSION_ACCEPTED);
	} else {
		mission_request(p, (uint16_t)v->mis_next);
	}
}

/* A command the flight takes: its MAV_RESULT, or -1 when not one. */
static int
fly_command(struct ap_peer *p, const struct mavlink_command_long *c)
{
	struct ap_peer_flight *v = &p->fly;

	switch (c->command) {
	case MAV_CMD_COMPONENT_ARM_DISARM:
		if (c->param[0] == 1.0f) {
			if (v->never_arm) {
				statustext(p, MAV_SEVERITY_CRITICAL,
					   "PreArm: told never to arm");
				return MAV_RESULT_DENIED;
			}
			if (!v->armed) {
				v->armed = true;
				statustext(p, MAV_SEVERITY_INFO,
					   "Arming motors");
			}
			return MAV_RESULT_ACCEPTED;
		}
		/* Disarm: on the ground, or forced (21196). */
		if (in_air(v) && c->param[1] != 21196.0f)
			return MAV_RESULT_DENIED;
		if (v->armed)
			disarm(p);
		return MAV_RESULT_ACCEPTED;
	case MAV_CMD_NAV_TAKEOFF: {
		/* ArduPilot: param7 above home, in GUIDED.  PX4: param7
		 * AMSL (NaN: MIS_TAKEOFF_ALT, 2.5 m), from any mode, into
		 * AUTO.TAKEOFF. */
		double alt = c->param[6];
		if (px4(p))
			alt = isnan(c->param[6]) ? 2.5 : alt - v->home_m;
		if (!v->armed || isnan(alt) || alt <= 0.0 ||
		    (!px4(p) && v->mode != AP_COPTER_GUIDED))
			return MAV_RESULT_DENIED;
		if (px4(p))
			set_mode(p, PX4_MODE_AUTO_TAKEOFF);
		v->target_m = alt;
		v->climbing = true;
		return MAV_RESULT_ACCEPTED;
	}
	case MAV_CMD_NAV_LAND:
		if (!v->armed)
			return MAV_RESULT_DENIED;
		set_mode(p, land_mode(p));
		return MAV_RESULT_ACCEPTED;
	case MAV_CMD_MISSION_START:
		/* From param1's item (ArduPilot: never its home, 0), in
		 * the air, with a whole mission. */
		if (!in_air(v) || !v->mis_ok)
			return MAV_RESULT_DENIED;
		v->mis_at = (unsigned)c->param[0];
		if (!px4(p) && v->mis_at == 0)
			v->mis_at = 1;
		if (v->mis_at >= v->mis_count)
			return MAV_RESULT_DENIED;
		v->mis_run = true;
		set_mode(p, px4(p) ? PX4_MODE_AUTO_MISSION : AP_COPTER_AUTO);
		return MAV_RESULT_ACCEPTED;
	case MAV_CMD_DO_SET_MODE: {
		/* param1 base mode with CUSTOM_MODE_ENABLED; ArduPilot:
		 * param2 the mode number; PX4: param2 main, param3 sub. */
		uint32_t mode = px4(p) ? PX4_MODE((uint32_t)c->param[1],
						  (uint32_t)c->param[2])
				       : (uint32_t)c->param[1];
		if (!((unsigned)c->param[0] & MAV_MODE_FLAG_CUSTOM_MODE_ENABLED) ||
		    !mode_known(p, mode))
			return MAV_RESULT_DENIED;
		set_mode(p, mode);
		return MAV_RESULT_ACCEPTED;
	}
	}
	return -1;
}

/* Towards the mission item at work: 5 m/s across, 2 m/s up, 1 m/s
 * down; reached within 0.3 m across and 0.1 m up or down. */
static void
mission_tick(struct ap_peer *p, double dt)
{
	struct ap_peer_flight *v = &p->fly;
	const double dn = v->mis[v->mis_at].north_m - v->north_m,
		     de = v->mis[v->mis_at].east_m - v->east_m,
		     dh = v->mis[v->mis_at].alt_m - v->truth_m;
	const double d = hypot(dn, de), step = AP_PEER_MISSION_MPS * dt;
	if (d > step) {
		v->north_m += dn / d * step;
		v->east_m += de / d * step;
	} else {
		v->north_m += dn;
		v->east_m += de;
	}
	const double vz = dh > 0 ? fmin(2.0, dh / dt) : fmax(-1.0, dh / dt);
	v->truth_m += vz * dt;
	v->vz_mps = vz;
	if (d > 0.3 || fabs(dh) > 0.1)
		return;
	union mavlink_msg m = { .mir = { .seq = (uint16_t)v->mis_at } };
	queue(p, MAVLINK_MSG_MISSION_ITEM_REACHED, &m, p->now_us);
	if (++v->mis_at == v->mis_count) {
		v->mis_run = false;
		v->vz_mps = 0;
		/* PX4 loiters after its last item; ArduPilot holds there
		 * in AUTO. */
		if (px4(p))
			set_mode(p, PX4_MODE_AUTO_LOITER);
	}
}

/* One 20 ms step of the autopilot's clock. */
static void
fly_tick(struct ap_peer *p)
{
	struct ap_peer_flight *v = &p->fly;
	const double dt = 0.02;

	v->ticks++;
	/* Physics. */
	if (v->armed) {
		if (v->mode == land_mode(p)) {
			v->truth_m -= 1.0 * dt;
			if (v->truth_m <= 0.0) {
				v->truth_m = 0.0;
				statustext(p, MAV_SEVERITY_INFO,
					   "Land complete");
				disarm(p);
			}
		} else if (v->mis_run &&
			   v->mode == (px4(p) ? PX4_MODE_AUTO_MISSION
					      : AP_COPTER_AUTO)) {
			mission_tick(p, dt);
		} else if (v->climbing) {
			v->truth_m += 2.0 * dt;
			if (v->truth_m >= v->target_m) {
				v->truth_m = v->target_m;
				v->climbing = false;
				if (px4(p))
					set_mode(p, PX4_MODE_AUTO_LOITER);
			}
		}
	}
	/* The baro.  ArduPilot (AP_Baro_SITL, the first baro): GLITCH
	 * lifts the altitude it reads, DRIFT (m/s) integrates into it,
	 * DISABLE stops it, FREEZE holds its last reading; RND is not
	 * modelled (the noise is the seeded 0.1 m).  PX4: the offset adds
	 * pascals (once sensor_baro_sim has taken it), the injected failure
	 * stops it (off) or holds its last reading (stuck). */
	double noise = 0.1 * gauss(v);
	float glitch = 0.0f;
	bool hold = false;
	if (px4(p)) {
		v->baro_ok = p->inject != PX4_FAILURE_OFF;
		hold = p->inject == PX4_FAILURE_STUCK;
	} else {
		glitch = ap_peer_get(p, "SIM_BARO_GLITCH");
		v->drift_m += (double)ap_peer_get(p, "SIM_BARO_DRIFT") * dt;
		v->baro_ok = ap_peer_get(p, "SIM_BARO_DISABLE") == 0.0f;
		hold = ap_peer_get(p, "SIM_BARO_FREEZE") != 0.0f;
	}
	float pa, t;
	atmos_1976_pressure_temperature(
		(float)(v->home_m + v->truth_m + noise + v->drift_m) + glitch,
		&pa, &t);
	if (v->ext_baro)
		pa = v->ext_pa;
	if (px4(p))
		pa += p->offp_applied;
	if (v->baro_ok && !hold)
		v->pressure_pa = pa;
	/* The estimate: a first-order filter on the baro behind a gate. */
	if (v->baro_ok) {
		float alt;
		atmos_1976_altitude(v->pressure_pa, &alt);
		double baro = (double)alt - v->home_m;
		if (!v->est_init) {
			v->est_m = baro;
			v->est_init = true;
		}
		v->innov_m = baro - v->est_m;
		if (fabs(v->innov_m) > gate_m(p)) {
			if (!v->rejecting)
				statustext(p, MAV_SEVERITY_WARNING,
					   "EKF: baro rejected");
			v->rejecting = true;
			v->reject_s += dt;
			if (v->reject_s >= AP_PEER_EKF_RESET_S - 1e-9) {
				statustext(p, MAV_SEVERITY_WARNING,
					   "EKF: height reset to baro");
				/* ArduPilot's EKF3 names the core it moves
				 * to (AP_NavEKF3.cpp, switchLane). */
				if (!px4(p))
					statustext(p, MAV_SEVERITY_CRITICAL,
						   "EKF3 lane switch 1");
				v->est_m = baro;
				v->innov_m = 0.0;
				v->rejecting = false;
				v->reject_s = 0.0;
				v->failsafe_done = false;
			}
		} else {
			v->est_m += v->innov_m * dt / AP_PEER_EKF_TAU_S;
			v->rejecting = false;
			v->reject_s = 0.0;
			v->failsafe_done = false;
		}
	}
	if (v->rejecting && !v->failsafe_done &&
	    v->reject_s > AP_PEER_EKF_FAILSAFE_S && in_air(v)) {
		v->failsafe_done = true;
		statustext(p, MAV_SEVERITY_CRITICAL, "EKF failsafe: LAND");
		set_mode(p, land_mode(p));
	}
	if (v->on_sample && v->ticks % 5 == 0)
		v->on_sample(v->user, v->ticks * 20000u, v->pressure_pa,
			     v->home_m + v->truth_m, v->home_m + v->est_m);
}

static uint8_t
landed_state(const struct ap_peer_flight *v)
{
	if (!in_air(v))
		return MAV_LANDED_STATE_ON_GROUND;
	if (v->climbing)
		return MAV_LANDED_STATE_TAKEOFF;
	return MAV_LANDED_STATE_IN_AIR;
}

/* HEARTBEAT 1 Hz, GLOBAL_POSITION_INT 10 Hz, SYS_STATUS and the
 * estimator's status 2 Hz, EXTENDED_SYS_STATE 1 Hz. */
static void
fly_streams(struct ap_peer *p, uint64_t ap_us)
{
	struct ap_peer_flight *v = &p->fly;
	const uint32_t ms = (uint32_t)(ap_us / 1000u);

	if (ap_us >= p->next_hb_us) {
		p->next_hb_us = ap_us + 1000000u;
		union mavlink_msg m = { .hb = {
			.custom_mode = v->mode,
			.type = MAV_TYPE_QUADROTOR,
			.autopilot = px4(p) ? MAV_AUTOPILOT_PX4
					    : MAV_AUTOPILOT_ARDUPILOTMEGA,
			.base_mode = (uint8_t)(MAV_MODE_FLAG_CUSTOM_MODE_ENABLED |
					       (v->armed ? MAV_MODE_FLAG_SAFETY_ARMED
							 : 0)),
			.system_status = v->armed ? MAV_STATE_ACTIVE
						  : MAV_STATE_STANDBY,
			.mavlink_version = 3,
		} };
		queue(p, MAVLINK_MSG_HEARTBEAT, &m, p->now_us);
		union mavlink_msg e = { .ess = {
			.landed_state = landed_state(v) } };
		queue(p, MAVLINK_MSG_EXTENDED_SYS_STATE, &e, p->now_us);
	}
	if (ap_us >= p->next_pos_us) {
		p->next_pos_us = ap_us + 100000u;
		double vz = !v->armed ? 0.0
			    : v->mode == land_mode(p) ? 1.0
			    : v->climbing ? -2.0
			    : v->mis_run ? -v->vz_mps : 0.0;
		const double cos_lat = cos(AP_PEER_HOME_LAT_E7 * 1e-7 * M_PI /
					   180.0);
		union mavlink_msg m = { .gpi = {
			.time_boot_ms = ms,
			.lat = AP_PEER_HOME_LAT_E7 +
			       (int32_t)lround(v->north_m / MAVLINK_M_PER_DEGE7),
			.lon = AP_PEER_HOME_LON_E7 +
			       (int32_t)lround(v->east_m /
					       (MAVLINK_M_PER_DEGE7 * cos_lat)),
			.alt = (int32_t)lround((v->home_m + v->est_m) * 1000.0),
			.relative_alt = (int32_t)lround(v->est_m * 1000.0),
			.vz = (int16_t)lround(vz * 100.0),
			.hdg = 65535,
		} };
		queue(p, MAVLINK_MSG_GLOBAL_POSITION_INT, &m, p->now_us);
	}
	if (ap_us >= v->next_status_us) {
		v->next_status_us = ap_us + 500000u;
		/* gyro, accel, mag, baro, GPS */
		const uint32_t sensors = 1u | 2u | 4u |
					 MAV_SYS_STATUS_SENSOR_ABSOLUTE_PRESSURE |
					 32u;
		bool baro_bad = v->rejecting || !v->baro_ok;
		union mavlink_msg s = { .ss = {
			.sensors_present = sensors,
			.sensors_enabled = sensors,
			.sensors_health =
				baro_bad ? sensors &
						   ~(uint32_t)MAV_SYS_STATUS_SENSOR_ABSOLUTE_PRESSURE
					 : sensors,
			.load = 250,
			.voltage_battery = 12600,
			.current_battery = -1,
			.battery_remaining = -1,
		} };
		queue(p, MAVLINK_MSG_SYS_STATUS, &s, p->now_us);
		uint16_t flags = ESTIMATOR_ATTITUDE | ESTIMATOR_VELOCITY_HORIZ |
				 ESTIMATOR_VELOCITY_VERT |
				 ESTIMATOR_POS_HORIZ_REL |
				 ESTIMATOR_POS_HORIZ_ABS;
		if (v->rejecting)
			flags |= AP_PEER_EKF_BARO_REJECTED;
		else
			flags |= ESTIMATOR_POS_VERT_ABS;
		float ratio = (float)(fabs(v->innov_m) / gate_m(p));
		union mavlink_msg e;
		memset(&e, 0, sizeof(e));
		if (px4(p)) {
			e.es.time_usec = ap_us;
			e.es.pos_vert_ratio = ratio;
			e.es.pos_vert_accuracy = 0.5f;
			e.es.flags = flags;
			queue(p, MAVLINK_MSG_ESTIMATOR_STATUS, &e, p->now_us);
		} else {
			e.ekf.pos_vert_variance = ratio;
			e.ekf.flags = flags;
			queue(p, MAVLINK_MSG_EKF_STATUS_REPORT, &e, p->now_us);
		}
	}
}

static void
on_frame(const struct mavlink_frame *f, void *user)
{
	struct ap_peer *p = user;
	union mavlink_msg m;

	if (mavlink_unpack_msg(f->msgid, f->payload, &m) < 0)
		return;
	switch (f->msgid) {
	case MAVLINK_MSG_PARAM_REQUEST_READ: {
		p->reads_seen++;
		struct ap_peer_param *q = find(p, m.prr.param_id);
		if (q)
			param_value(p, q);
		break;
	}
	case MAVLINK_MSG_PARAM_SET: {
		p->sets_seen++;
		if (p->drop_sets) {
			p->drop_sets--;
			break;
		}
		struct ap_peer_param *q = find(p, m.ps.param_id);
		if (!q)
			break;
		float v = from_wire(p, q, m.ps.param_value);
		if (mavlink_param_type_integer(q->type))
			v = roundf(v);
		q->value = v;
		if (p->kind == AP_PEER_PX4 &&
		    strcmp(q->name, "SIM_BARO_OFF_P") == 0)
		{
			p->offp_pending = true;	/* at the next update */
			p->offp_set_ms = (uint64_t)p->ap_ms;
		}
		else
			history(p, q->name, v, (uint64_t)p->ap_ms);
		param_value(p, q);
		break;
	}
	case MAVLINK_MSG_MISSION_COUNT:
	case MAVLINK_MSG_MISSION_ITEM_INT:
		if (p->fly.on)
			mission_upload(p, f->msgid, &m);
		break;
	case MAVLINK_MSG_SET_MODE:
		if (!p->fly.on)
			break;
		/* ArduPilot answers SET_MODE with a COMMAND_ACK of 11. */
		command_ack(p, MAVLINK_MSG_SET_MODE,
			    (m.sm.base_mode & MAV_MODE_FLAG_CUSTOM_MODE_ENABLED) &&
					    mode_known(p, m.sm.custom_mode)
				    ? MAV_RESULT_ACCEPTED
				    : MAV_RESULT_DENIED,
			    f);
		if ((m.sm.base_mode & MAV_MODE_FLAG_CUSTOM_MODE_ENABLED) &&
		    mode_known(p, m.sm.custom_mode))
			set_mode(p, m.sm.custom_mode);
		break;
	case MAVLINK_MSG_COMMAND_INT:
		if (p->fly.on) {
			struct mavlink_command_long c;
			mavlink_unpack_command(f->msgid, f->payload, &c);
			p->commands_seen++;
			int r = fly_command(p, &c);
			command_ack(p, c.command,
				    r < 0 ? MAV_RESULT_UNSUPPORTED : (uint8_t)r,
				    f);
		}
		break;
	case MAVLINK_MSG_COMMAND_LONG:
		p->commands_seen++;
		int fr = p->fly.on ? fly_command(p, &m.cl) : -1;
		if (fr >= 0) {
			command_ack(p, m.cl.command, (uint8_t)fr, f);
		} else if (m.cl.command == MAV_CMD_INJECT_FAILURE) {
			const struct ap_peer_param *en =
				find(p, "SYS_FAILURE_EN");
			uint8_t r = MAV_RESULT_UNSUPPORTED;
			int type = (int)m.cl.param[1];
			if (p->kind == AP_PEER_PX4 && en && en->value != 1.0f)
				r = MAV_RESULT_DENIED;
			else if (p->kind == AP_PEER_PX4 && p->inject_supported &&
				 (int)m.cl.param[0] == FAILURE_UNIT_SENSOR_BARO &&
				 (type == PX4_FAILURE_OK || type == PX4_FAILURE_OFF ||
				  type == PX4_FAILURE_STUCK))
				r = MAV_RESULT_ACCEPTED;
			if (r == MAV_RESULT_ACCEPTED && type != p->inject) {
				p->inject = type;
				history(p, "baro", (float)type,
					(uint64_t)p->ap_ms);
			}
			command_ack(p, m.cl.command, r, f);
		} else if (m.cl.command == MAV_CMD_SET_MESSAGE_INTERVAL) {
			if ((uint32_t)m.cl.param[0] == MAVLINK_MSG_SYSTEM_TIME)
				p->time_interval_us = (uint32_t)m.cl.param[1];
			if ((uint32_t)m.cl.param[0] ==
			    MAVLINK_MSG_SCALED_PRESSURE)
				p->press_interval_us = (uint32_t)m.cl.param[1];
			command_ack(p, m.cl.command, MAV_RESULT_ACCEPTED, f);
		} else if (m.cl.command == MAV_CMD_REQUEST_MESSAGE) {
			command_ack(p, m.cl.command, MAV_RESULT_ACCEPTED, f);
			union mavlink_msg v = { .av = {
				.flight_sw_version =
					p->kind == AP_PEER_PX4 ? 0x010E00FFu
							       : 0x04060200u,
			} };
			answer(p, MAVLINK_MSG_AUTOPILOT_VERSION, &v);
		} else {
			command_ack(p, m.cl.command, MAV_RESULT_UNSUPPORTED, f);
		}
		break;
	}
}

static bool
in(uint64_t t, uint64_t from, uint64_t to)
{
	return t >= from && t < to;
}

void
ap_peer_rx(struct ap_peer *p, const uint8_t *data, size_t len,
	   uint64_t now_us)
{
	if (in(now_us, p->silent_from_us, p->silent_to_us))
		return;
	if (in(now_us, p->pause_from_us, p->pause_to_us)) {
		if (p->held_len + len <= sizeof(p->held)) {
			memcpy(p->held + p->held_len, data, len);
			p->held_len += len;
		}
		return;
	}
	p->now_us = now_us;
	mavlink_parser_feed(&p->parser, data, len, on_frame, p);
	if (!p->stream)
		mavlink_parser_flush(&p->parser);
}

static void
streams(struct ap_peer *p)
{
	uint64_t ms = (uint64_t)p->ap_ms;
	uint64_t ap_us = (uint64_t)(p->ap_ms * 1000.0);

	if (p->fly.on)
		fly_streams(p, ap_us);
	/* A link that carries no time yet: a heartbeat and answers only. */
	const bool clock = p->now_us >= p->clock_from_us;
	if (!p->fly.on && ap_us >= p->next_hb_us) {
		p->next_hb_us = ap_us + 1000000u;
		union mavlink_msg m = { .hb = {
			.type = 2,	/* quadrotor */
			.autopilot = p->kind == AP_PEER_PX4
					     ? MAV_AUTOPILOT_PX4
					     : MAV_AUTOPILOT_ARDUPILOTMEGA,
			.system_status = MAV_STATE_ACTIVE,
			.mavlink_version = 3,
		} };
		queue(p, MAVLINK_MSG_HEARTBEAT, &m, p->now_us);
	}
	if (!p->fly.on && clock && ap_us >= p->next_pos_us) {
		p->next_pos_us = ap_us + 250000u;
		union mavlink_msg m = { .gpi = {
			.time_boot_ms = (uint32_t)ms,
			.alt = 584000,
			.relative_alt = 0,
		} };
		queue(p, MAVLINK_MSG_GLOBAL_POSITION_INT, &m, p->now_us);
	}
	if (clock && p->press_interval_us && ap_us >= p->next_press_us) {
		p->next_press_us = ap_us + p->press_interval_us;
		/* What each baro reads at the vehicle's 584 m: ArduPilot's
		 * glitch lifts its altitude, PX4's offset adds pascals once
		 * sensor_baro_sim has taken it. */
		for (unsigned i = 0; i < 2; i++) {
			float pa, t;
			const char *g = i ? "SIM_BAR2_GLITCH" : "SIM_BARO_GLITCH";
			float up = p->kind == AP_PEER_ARDUPILOT
					   ? ap_peer_get(p, g)
					   : 0.0f;
			atmos_1976_pressure_temperature(584.0f + up, &pa, &t);
			if (p->kind == AP_PEER_PX4)
				pa += p->offp_applied;
			if (p->fly.on && i == 0)
				pa = p->fly.pressure_pa;
			union mavlink_msg m = { .sp = {
				.time_boot_ms = (uint32_t)ms,
				.press_abs = pa / 100.0f,
				.temperature = 2000,
			} };
			queue(p, i ? MAVLINK_MSG_SCALED_PRESSURE2
				   : MAVLINK_MSG_SCALED_PRESSURE,
			      &m, p->now_us);
			if (p->kind == AP_PEER_PX4)
				break;
		}
	}
	if (clock && p->time_interval_us && ap_us >= p->next_time_us) {
		p->next_time_us = ap_us + p->time_interval_us;
		union mavlink_msg m = { .stime = { .time_boot_ms =
							   (uint32_t)ms } };
		queue(p, MAVLINK_MSG_SYSTEM_TIME, &m, p->now_us);
	}
}

size_t
ap_peer_step(struct ap_peer *p, uint64_t now_us, uint8_t *out, size_t cap)
{
	size_t n = 0;

	if (p->last_wall_us == 0)
		p->last_wall_us = now_us;
	bool paused = in(now_us, p->pause_from_us, p->pause_to_us);
	uint64_t dt = now_us - p->last_wall_us;
	if (p->max_step_us && dt > p->max_step_us)
		dt = p->max_step_us;
	if (!paused)
		p->ap_ms += (double)dt / 1000.0 * p->speed;
	p->last_wall_us = now_us;
	p->now_us = now_us;
	if (paused)
		return 0;	/* a paused SITL's loop sends nothing */
	if (p->held_len) {
		size_t len = p->held_len;
		p->held_len = 0;
		mavlink_parser_feed(&p->parser, p->held, len, on_frame, p);
		mavlink_parser_flush(&p->parser);
	}
	if (p->restart_at_us && !p->restarted && now_us >= p->restart_at_us) {
		p->restarted = true;
		p->ap_ms = 0.0;
		p->next_hb_us = p->next_pos_us = p->next_time_us = 0;
		p->next_press_us = 0;
		p->time_interval_us = 0;
		p->press_interval_us = 0;
		if (p->inject) {
			p->inject = 0;	/* PX4 forgets an injection */
			history(p, "baro", 0.0f, 0);
		}
	}
	/* PX4 v1.14's sensor_baro_sim sees a parameter change at its next
	 * parameter_update, here the next whole second. */
	if (p->offp_pending &&
	    (uint64_t)p->ap_ms / 1000u > p->offp_set_ms / 1000u) {
		p->offp_pending = false;
		p->offp_applied = ap_peer_get(p, "SIM_BARO_OFF_P");
		history(p, "SIM_BARO_OFF_P", p->offp_applied,
			(uint64_t)p->ap_ms);
	}
	while (p->fly.on && (double)(p->fly.ticks + 1) * 20.0 <= p->ap_ms)
		fly_tick(p);
	streams(p);
	bool silent = in(now_us, p->silent_from_us, p->silent_to_us);
	size_t k = 0;
	for (size_t i = 0; i < p->nq; i++) {
		struct ap_peer_frame *f = &p->q[i];
		if (f->due_us > now_us || n + f->len > cap) {
			p->q[k++] = *f;
			continue;
		}
		if (!silent) {
			memcpy(out + n, f->b, f->len);
			n += f->len;
		}
	}
	p->nq = k;
	return n;
}
