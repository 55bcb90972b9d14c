/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * barod as PX4 SITL's simulator ("Simulator MAVLink API"): each PX4
 * instance connects to port 4560 + N and gets a level multicopter that
 * follows the profile or truth trace, with IMU, magnetometer, GPS and
 * ground truth from src/vehicles/px4-vehicle.c and the baro from the AP_Baro_SITL
 * emulator with its faults.
 *
 * Time is physics time in 4 ms steps (PX4's 250 Hz IMU).  Step k is at
 * k * 4 ms: the emulator, the scenario (instance 0) and barod's own
 * SCALED_PRESSURE run on it, so scenario time 0 is the first step.  PX4
 * sets its clock from HIL_SENSOR id 0 and takes only differences, so
 * time_usec is the step's time plus one step (never 0).  Until PX4's
 * first HIL_ACTUATOR_CONTROLS the steps run on their own (PX4 sends none
 * before its first actuator output); after it, each reply advances
 * exactly one step (lockstep).
 *
 * Pacing: physics time follows the monotonic clock times the speed
 * factor ([px4] speed_factor, --px4-speed-factor, PX4_SIM_SPEED_FACTOR;
 * 1 by default, as PX4's own simulators run), so PX4's link-loss and
 * disarm timers, which count simulated time, agree with a ground
 * station's wall clock.  Lockstep stays exact: pacing only holds a
 * reply's step until its time (a timerfd per instance), never sends a
 * step without a reply.  A step more than PACE_SLACK_US late moves the
 * schedule rather than being caught up in a burst (after a stall, or
 * while PX4 is too slow, which is measured over PACE_WINDOW_US windows
 * and reported once per connection).  Factor 0 steps as fast as PX4
 * replies, for batch runs; freewheeling then runs at 1.  A PX4 that does not reply for
 * lockstep_timeout_ms (default a second) gets the next step anyway,
 * counted as a stall, so a lost reply cannot freeze both sides.
 *
 * Over TCP a reply is late, never lost: a PX4 that was stopped answers
 * every step it was sent, the stall steps too, once it runs again.  The
 * replies to stall steps are therefore owed, and taken without a step
 * when they come, so a stall leaves the number of steps in flight as it
 * was (without this each stall added a step of actuator latency for
 * good).  Only a PX4 that goes silent again after such a reply, with
 * nothing in flight, had really lost one: then the debt is forgotten.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "atmosphere.h"
#include "peer-wait.h"
#include "mavlink.h"
#include "px4-link.h"
#include "px4-throttle.h"
#include "px4-vehicle.h"
#include "mavlink-send.h"
#include "source.h"
#include "vehicle.h"

#define STEP_US 4000u
#define GPS_PERIOD_US 100000u	/* 10 Hz: between Gazebo's 5 and jMAVSim's 20 */
#define HEARTBEAT_US 1000000u
/* A step later than this is not caught up: the schedule moves. */
#define PACE_SLACK_US 100000u
/* The achieved speed factor is measured over windows this long. */
#define PACE_WINDOW_US 2000000u
/* Held below this share of the factor over a window: reported. */
#define PACE_HELD 0.9
/* HIL_ACTUATOR_CONTROLS mode bit: PX4 is armed. */
#define MODE_ARMED 128u
#define MSG_HIL_STATE_QUATERNION_ID 115.0f

/* PX4 SITL's simulator, one per PX4 instance. */
struct px4_sim_stats {
	uint64_t steps;			/* physics steps sent */
	uint64_t controls;		/* HIL_ACTUATOR_CONTROLS received */
	uint64_t stalls;		/* steps sent without a reply */
	uint64_t late;			/* replies to stall steps: no step */
	uint64_t restarts;		/* PX4 (re)connected after a run */
	uint64_t other_frames;		/* anything else PX4 sent */
	uint64_t bad_baro;		/* baro samples not finite: not sent */
	uint64_t out_of_range;		/* heights the baro cannot take */
};

/* The peer's side of its PX4 connection; the frames sent and dropped
 * are the link's (transport.h's output_stats). */
struct px4_sim_link_stats {
	uint64_t connections;		/* accepted */
	uint64_t disconnects;		/* PX4 closed, or a socket error */
	uint64_t replaced;		/* a newer connection took over */
	uint64_t frames_in;		/* good frames delivered */
	uint64_t unencodable;		/* frames that could not be made */
};

struct px4_sim_source;

struct px4_sim {
	const struct source_env *env;
	struct px4_sim_source *src;
	unsigned index;			/* the PX4 instance, the vehicle */
	/* PX4 on port + N: a TCP server (transports/) of one client, a
	 * newer one replacing it (a restarted PX4 may connect before the
	 * old socket reports its end).  Frames are queued whole and leave
	 * at the flush, one write per loop pass. */
	struct transport_link conn;
	unsigned port;
	char peer[64];			/* "ADDR:PORT" of PX4 */
	struct mavlink_parser parser;
	uint8_t seq;
	unsigned queued;		/* frames queued since the flush */
	struct px4_sim_link_stats link;
	struct px4_vehicle vehicle;
	bool lockstep;			/* PX4's first reply came */
	bool armed;			/* PX4 says so in its replies */
	uint64_t owed;			/* stall steps whose replies are to
					 * come: each is taken without a step */
	bool took_late;			/* a reply was taken so since the
					 * last step */
	uint64_t step;			/* the next physics step */
	uint64_t connected_us;		/* wall clock of the connection */
	uint64_t last_step_us;		/* wall clock of the last step */
	/* Pacing: step anchor_step is due at anchor_us, each next one
	 * STEP_US / factor later. */
	struct event_source pace;	/* timerfd: the next step's time */
	uint64_t credits;		/* replies whose step waits for it */
	uint64_t anchor_us, anchor_step;
	double anchor_factor;
	uint64_t window_us, window_step;	/* the achieved factor's */
	double achieved;		/* over the last window; 0: none yet */
	bool slow_reported;
	uint64_t next_gps_us, next_state_us, next_hb_us;	/* physics */
	int64_t state_interval_us;	/* HIL_STATE_QUATERNION: 0 every
					 * step, < 0 never (PX4 asks) */
	float last_alt_m;		/* the baro's last truth */
	float throttle;			/* the motors', from PX4's controls */
	struct px4_sim_stats stats;
	struct peer_wait wait;		/* "waiting for PX4" until it comes */
};


struct px4_sim_source {
	struct px4_sim sims[CONFIG_MAX_SITL];
	size_t n;
	struct vehicles fleet;
};

static unsigned
index_of(const struct px4_sim *s)
{
	return s->index;
}

static double
target_height(const struct source_env *env, double t_s)
{
	return env->trace->n ? truth_trace_height(env->trace, t_s)
			     : truth_profile_height(&env->cfg->profile, t_s);
}

/* The link's queue: whole frames, or (no room in its backlog: PX4
 * stopped reading; no PX4) the frame dropped and counted, so PX4 never
 * gets a cut frame. */
static int
queue_px4(void *user, const uint8_t *frame, size_t len)
{
	struct px4_sim *s = user;
	int rc = transport_link_send(&s->conn, frame, len);

	if (rc == 0)
		s->queued++;
	return rc;
}

/* One MAVLink 2 frame (payload at full length) to PX4, through the send
 * path the MAVLink sink uses.  Unsigned: PX4's simulator link
 * (simulator_mavlink) neither signs nor checks signatures, and barod's
 * key guards what ground stations may do, not this lockstep peer. */
static void
send_px4(struct px4_sim *s, uint32_t msgid, const uint8_t *pl)
{
	const struct mavlink_sender how = {
		.version = 2,
		.sysid = s->env->cfg->sysid,
		.compid = s->env->cfg->compid,
		.queue = queue_px4,
		.user = s,
	};

	if (mavlink_send_frame(&how, &s->seq, index_of(s), msgid, pl) ==
	    -EBADMSG)
		s->link.unencodable++;
}

/* The baro fields of a HIL_SENSOR from one published sample; false when
 * a value is not one PX4 should see (a fault overlay's garbage). */
static bool
baro_fields(const struct baro_sample *b, struct mavlink_hil_sensor *h)
{
	float alt = NAN;

	(void)atmos_1976_altitude(b->pressure_pa, &alt);
	if (!(b->pressure_pa > 0.0f) || !isfinite(b->pressure_pa) ||
	    !isfinite(b->temperature_c) || !isfinite(alt))
		return false;
	h->abs_pressure = b->pressure_pa * 0.01f;
	h->pressure_alt = alt;
	h->temperature = b->temperature_c;
	h->fields_updated |= HIL_SENSOR_BARO;
	return true;
}

static void
send_gps(struct px4_sim *s, uint64_t time_usec)
{
	struct px4_position pos;
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };

	px4_vehicle_position(&s->vehicle, &pos);
	/* PX4 reads eph/epv as metres x 100 and gates EKF2 on 3 m / 5 m. */
	struct mavlink_hil_gps g = {
		.time_usec = time_usec,
		.lat = pos.lat_e7, .lon = pos.lon_e7, .alt = pos.alt_mm,
		.eph = 30, .epv = 40,
		.vel = 0,		/* ground speed: no horizontal motion */
		.vn = pos.vn_cms, .ve = pos.ve_cms, .vd = pos.vd_cms,
		.cog = 65535,		/* unknown: not moving */
		.fix_type = 3, .satellites_visible = 10,
	};
	mavlink_pack_hil_gps(&g, pl);
	send_px4(s, MAVLINK_MSG_HIL_GPS, pl);
}

static void
send_state(struct px4_sim *s, uint64_t time_usec)
{
	struct px4_position pos;
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };

	px4_vehicle_position(&s->vehicle, &pos);
	/* PX4 takes the accelerations as m/s^2 x 1000 (as Gazebo sends
	 * them), not mG; 3 g fits an int16. */
	struct mavlink_hil_state_quaternion q = {
		.time_usec = time_usec,
		.attitude_quaternion = { 1.0f, 0.0f, 0.0f, 0.0f },
		.lat = pos.lat_e7, .lon = pos.lon_e7, .alt = pos.alt_mm,
		.vx = pos.vn_cms, .vy = pos.ve_cms, .vz = pos.vd_cms,
		.ind_airspeed = pos.speed_cms, .true_airspeed = pos.speed_cms,
		.zacc = (int16_t)lrintf(-(ATMOS_GRAVITY_MSS +
					   (float)s->vehicle.accel_mss) * 1000.0f),
	};
	mavlink_pack_hil_state_quaternion(&q, pl);
	send_px4(s, MAVLINK_MSG_HIL_STATE_QUATERNION, pl);
}

static void
send_heartbeat(struct px4_sim *s)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
	struct mavlink_heartbeat hb = {
		.type = MAV_TYPE_GENERIC,
		.autopilot = MAV_AUTOPILOT_INVALID,
		.system_status = MAV_STATE_ACTIVE,
		.mavlink_version = 3,
	};

	mavlink_pack_heartbeat(&hb, pl);
	send_px4(s, MAVLINK_MSG_HEARTBEAT, pl);
}

/* The factor steps follow now: the configured one in lockstep; before
 * it, at least real time (PX4 starts up on it). */
static double
pace_factor(const struct px4_sim *s)
{
	const double f = s->env->cfg->px4.speed_factor;

	return !s->lockstep && !(f > 0.0) ? 1.0 : f;
}

/* From now on, the next step is due now. */
static void
reanchor(struct px4_sim *s, uint64_t now_us)
{
	s->anchor_us = now_us;
	s->anchor_step = s->step;
	s->anchor_factor = pace_factor(s);
}

static uint64_t
due_us(const struct px4_sim *s)
{
	return s->anchor_us +
	       (uint64_t)llround((double)(s->step - s->anchor_step) *
				 STEP_US / s->anchor_factor);
}

/* One timer expiry at absolute monotonic time at_us. */
static void
arm(struct px4_sim *s, uint64_t at_us)
{
	struct itimerspec its = {
		.it_value = { (time_t)(at_us / 1000000u),
			      (long)(at_us % 1000000u) * 1000 },
	};

	if (at_us == 0)	/* a zero expiry would disarm it */
		its.it_value.tv_nsec = 1000;
	(void)timerfd_settime(s->pace.fd, TFD_TIMER_ABSTIME, &its, NULL);
}

/* The achieved factor, per window of lockstep; a factor PX4 cannot
 * keep up with is said once per connection. */
static void
measure(struct px4_sim *s, uint64_t wall_us)
{
	const double f = s->env->cfg->px4.speed_factor;

	if (!s->lockstep)
		return;
	if (s->window_us == 0 || wall_us < s->window_us) {
		s->window_us = wall_us;
		s->window_step = s->step;
		return;
	}
	const uint64_t dt = wall_us - s->window_us;
	if (dt < PACE_WINDOW_US)
		return;
	s->achieved = (double)((s->step - s->window_step) * STEP_US) /
		      (double)dt;
	s->window_us = wall_us;
	s->window_step = s->step;
	if (f > 0.0 && s->achieved < PACE_HELD * f && !s->slow_reported) {
		s->slow_reported = true;
		log_msg(s->env->log, LOG_LEVEL_WARNING,
			"PX4 instance %u: speed factor %g not held: %.3f "
			"achieved over %.1f s (PX4 answers too slowly)",
			s->index, f, s->achieved, (double)dt * 1e-6);
	}
}

static void step(struct px4_sim *s, uint64_t wall_us);

/* Send what is due: in lockstep one step per reply held (credits), each
 * at its time; before it, steps on the clock as PX4 reads them.  Arms
 * the timer for the next one that must wait. */
static void
pump(struct px4_sim *s, uint64_t now_us)
{
	if (!transport_link_connected(&s->conn))
		return;
	if (pace_factor(s) != s->anchor_factor)
		reanchor(s, now_us);
	for (;;) {
		if (s->lockstep && s->credits == 0)
			return;	/* no reply yet */
		if (!s->lockstep && s->queued != 0) {
			/* One freewheeling step per flush, so the backlog
			 * check sees it: again right after the flush. */
			arm(s, now_us);
			return;
		}
		if (!s->lockstep && transport_link_pending(&s->conn) != 0)
			return;	/* PX4 is not reading */
		if (s->anchor_factor > 0.0) {
			const uint64_t due = due_us(s);
			if (now_us < due) {
				arm(s, due);
				return;
			}
			if (now_us - due > PACE_SLACK_US)
				reanchor(s, now_us);
		}
		if (s->lockstep)
			s->credits--;
		step(s, now_us);
	}
}

static void
on_pace(struct event_source *src, uint32_t events, void *user)
{
	struct px4_sim *s = user;
	uint64_t n;

	(void)events;
	if (read(src->fd, &n, sizeof(n)) < 0)
		return;	/* EAGAIN: nothing expired */
	pump(s, event_now_us());
}

/* One physics step: vehicle, emulator, scenario, and what PX4 gets. */
static void
step(struct px4_sim *s, uint64_t wall_us)
{
	const struct source_env *env = s->env;
	const unsigned v = index_of(s);
	const uint64_t t_us = s->step * STEP_US;
	const uint64_t time_usec = t_us + STEP_US;
	struct baro_sample out[BARO_MAX_INSTANCES];
	/* Each baro's sample of this step, if one was published. */
	const struct baro_sample *fresh[BARO_MAX_INSTANCES] = { NULL };

	px4_vehicle_step(&s->vehicle, target_height(env, (double)t_us * 1e-6),
			 s->step ? STEP_US * 1e-6 : 0.0);
	/* This vehicle's ground is home: its height is the height above
	 * ground the ground effect sees. */
	struct vehicle_input in = {
		.now_us = t_us,
		.emulator_ms = (uint32_t)(t_us / 1000u),
		.throttle = s->throttle,
		.height_agl_m = s->vehicle.height_m,
	};
	if (baro_sitl_altitude(env->cfg->home_alt_m, s->vehicle.height_m,
			       &in.truth.alt_amsl_m) < 0) {
		/* Beyond what a float altitude holds: keep the last one. */
		s->stats.out_of_range++;
		in.truth.alt_amsl_m = s->last_alt_m;
	}
	s->last_alt_m = in.truth.alt_amsl_m;
	in.truth.vel_air_bf[2] = (float)-s->vehicle.climb_ms;	/* FRD: down */

	bool published[BARO_MAX_INSTANCES];
	unsigned n = vehicle_step(env, &s->src->fleet, v, &in, out, published);
	for (unsigned k = 0; k < n; k++) {
		if (published[k] && out[k].instance < BARO_MAX_INSTANCES)
			fresh[out[k].instance] = &out[k];
	}

	/* id 0: the IMU and magnetometer every step, baro 0 when the
	 * emulator made a new sample (it samples once 10 ms have passed,
	 * as AP_Baro_SITL: every third 4 ms step). */
	struct px4_imu imu;
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
	px4_vehicle_imu(&s->vehicle, &imu);
	struct mavlink_hil_sensor h = {
		.time_usec = time_usec,
		.xacc = imu.accel[0], .yacc = imu.accel[1], .zacc = imu.accel[2],
		.xgyro = imu.gyro[0], .ygyro = imu.gyro[1], .zgyro = imu.gyro[2],
		.xmag = imu.mag[0], .ymag = imu.mag[1], .zmag = imu.mag[2],
		.fields_updated = HIL_SENSOR_ACCEL | HIL_SENSOR_GYRO |
				  HIL_SENSOR_MAG,
		.id = 0,
	};
	if (fresh[0] && !baro_fields(fresh[0], &h))
		s->stats.bad_baro++;
	mavlink_pack_hil_sensor(&h, pl);
	send_px4(s, MAVLINK_MSG_HIL_SENSOR, pl);

	/* id 1: baro 1 alone, for a PX4 that keeps its baros apart by id
	 * (one that does not writes it to both of its baros). */
	if (env->cfg->px4.hil_baros >= 2 && fresh[1]) {
		struct mavlink_hil_sensor b = { .time_usec = time_usec, .id = 1 };
		if (baro_fields(fresh[1], &b)) {
			memset(pl, 0, sizeof(pl));
			mavlink_pack_hil_sensor(&b, pl);
			send_px4(s, MAVLINK_MSG_HIL_SENSOR, pl);
		} else {
			s->stats.bad_baro++;
		}
	}

	if (t_us >= s->next_gps_us) {
		send_gps(s, time_usec);
		s->next_gps_us = t_us + GPS_PERIOD_US;
	}
	if (s->state_interval_us >= 0 && t_us >= s->next_state_us) {
		send_state(s, time_usec);
		s->next_state_us += (uint64_t)s->state_interval_us;
		if (s->next_state_us <= t_us)
			s->next_state_us = t_us + (uint64_t)s->state_interval_us;
	}
	if (t_us >= s->next_hb_us) {
		send_heartbeat(s);
		s->next_hb_us = t_us + HEARTBEAT_US;
	}
	s->step++;
	s->stats.steps++;
	s->last_step_us = wall_us;
	s->took_late = false;
	measure(s, wall_us);
}

/* A new PX4: physics from 0, the vehicle at rest, the emulator, and on
 * instance 0 the scenario, from the start. */
static void
restart(struct px4_sim *s)
{
	const struct source_env *env = s->env;
	const unsigned v = index_of(s);
	struct px4_vehicle_config vc = {
		.home_lat_deg = env->cfg->px4.home_lat_deg,
		.home_lon_deg = env->cfg->px4.home_lon_deg,
		.home_alt_m = env->cfg->home_alt_m,
		.seed = env->cfg->seed + 1000u * (v + 1u),
	};

	if (s->stats.steps)
		s->stats.restarts++;
	px4_vehicle_init(&s->vehicle, &vc);
	s->lockstep = false;
	s->armed = false;
	s->throttle = 0.0f;
	s->owed = 0;
	s->took_late = false;
	s->credits = 0;
	s->window_us = 0;
	s->achieved = 0.0;
	s->slow_reported = false;
	s->step = 0;
	s->next_gps_us = s->next_state_us = s->next_hb_us = 0;
	s->state_interval_us = 0;
	s->last_alt_m = (float)env->cfg->home_alt_m;
	vehicle_restart(env, &s->src->fleet, v);
}

/* PX4 went away (or a newer PX4 took its place): what it had not read
 * is dropped, and a partial frame must not prefix the next stream. */
static void
lost_px4(struct px4_sim *s)
{
	struct mavlink_parser_stats keep = s->parser.stats;

	/* What it had not read is the link's (bytes lost). */
	s->link.disconnects++;
	s->queued = 0;
	mavlink_parser_init(&s->parser);
	s->parser.stats = keep;
	log_msg(s->env->log, LOG_LEVEL_NOTICE,
		"PX4 instance %u: %s disconnected after %" PRIu64
		" steps (%.3f s of physics); waiting on port %u",
		index_of(s), s->peer, s->step,
		(double)s->step * STEP_US * 1e-6, s->port);
}

static void on_frame(const struct mavlink_frame *f, void *user);

/* PX4 connected (the link replaced any older connection first). */
static void
px4_up(struct px4_sim *s)
{
	const struct source_env *env = s->env;

	snprintf(s->peer, sizeof(s->peer), "%s",
		 transport_client_name(&s->conn.t, s->conn.t.rx_peer));
	s->seq = 0;
	s->queued = 0;
	s->link.connections++;
	restart(s);
	log_msg(env->log, LOG_LEVEL_NOTICE,
		"PX4 instance %u: connected from %s, physics from 0",
		index_of(s), s->peer);
	/* PX4's start-up waits for this first sample. */
	s->connected_us = event_now_us();
	reanchor(s, s->connected_us);
	pump(s, s->connected_us);
}

static void
on_px4(void *user, enum transport_rx what, const uint8_t *buf, size_t len)
{
	struct px4_sim *s = user;

	switch (what) {
	case TRANSPORT_RX_DATA:
		mavlink_parser_feed(&s->parser, buf, len, on_frame, s);
		break;
	case TRANSPORT_RX_UP:
		px4_up(s);
		break;
	case TRANSPORT_RX_DOWN:
		if (s->conn.t.error == -ECONNABORTED) {
			s->link.replaced++;	/* a newer PX4 connected */
		} else {
			mavlink_parser_flush(&s->parser);
		}
		lost_px4(s);
		break;
	case TRANSPORT_RX_END:
	case TRANSPORT_RX_RESET:
		/* A new connection starts with restart()'s parser. */
		break;
	}
}

static void
on_command(struct px4_sim *s, const struct mavlink_frame *f)
{
	struct mavlink_command_long c;

	mavlink_unpack_command_long(f->payload, &c);
	/* PX4 asks for ground truth at 200 Hz right after connecting. */
	if (c.command != MAV_CMD_SET_MESSAGE_INTERVAL ||
	    c.param[0] != MSG_HIL_STATE_QUATERNION_ID) {
		s->stats.other_frames++;
		return;
	}
	const float us = c.param[1];
	if (us < 0.0f)
		s->state_interval_us = -1;
	else if (us < (float)STEP_US)	/* 0 = default: every step */
		s->state_interval_us = 0;
	else if (us <= 60e6f)
		s->state_interval_us = (int64_t)us;
	s->next_state_us = s->step * STEP_US;
}

static void
on_frame(const struct mavlink_frame *f, void *user)
{
	struct px4_sim *s = user;
	struct mavlink_hil_actuator_controls a;

	s->link.frames_in++;
	switch (f->msgid) {
	case MAVLINK_MSG_HIL_ACTUATOR_CONTROLS:
		mavlink_unpack_hil_actuator_controls(f->payload, &a);
		s->stats.controls++;
		/* A non-finite motor output keeps the last throttle. */
		(void)px4_actuator_throttle(a.controls, a.mode,
					    (uint16_t)s->env->cfg->px4.motor_mask,
					    &s->throttle);
		if (!s->lockstep) {
			log_msg(s->env->log, LOG_LEVEL_INFO,
				"PX4 instance %u: lockstep from step %" PRIu64
				" at speed factor %g",
				index_of(s), s->step, s->env->cfg->px4.speed_factor);
			s->lockstep = true;
			reanchor(s, event_now_us());
		}
		if (((a.mode & MODE_ARMED) != 0) != s->armed) {
			s->armed = !s->armed;
			log_msg(s->env->log, LOG_LEVEL_INFO,
				"PX4 instance %u: %s", index_of(s),
				s->armed ? "armed" : "disarmed");
		}
		if (s->owed) {
			/* The answer to a stall step: already taken. */
			s->owed--;
			s->stats.late++;
			s->took_late = true;
			break;
		}
		s->credits++;
		pump(s, event_now_us());
		break;
	case MAVLINK_MSG_COMMAND_LONG:
		on_command(s, f);
		break;
	default:
		s->stats.other_frames++;
		break;
	}
}

/* "waiting for PX4 on TCP HOST:PORT": the log line's and STATUS='s
 * common part, so both say the same. */
static int
wait_text(const struct px4_sim *s, char *buf, size_t len)
{
	return snprintf(buf, len, "waiting for PX4 on TCP %s:%u",
			s->env->cfg->px4.bind, s->port);
}

/* "Waiting for PX4" until it first connects: at start, then every 10 s
 * (peer-wait.h). */
static void
say_waiting(struct px4_sim *s, uint64_t now_us)
{
	char what[96];

	if (s->link.connections > 0) {
		peer_wait_seen(&s->wait);
		return;
	}
	if (!peer_wait_due(&s->wait, now_us))
		return;
	wait_text(s, what, sizeof(what));
	log_msg(s->env->log, LOG_LEVEL_NOTICE,
		"PX4 instance %u: %s (make px4_sitl none_iris, or px4 -i %u)",
		s->index, what, s->index);
}

/* STATUS= while a PX4 instance has never connected: the first one's
 * wait, and how many more wait. */
static bool
px4sim_waiting(const struct source_env *env, const void *state, char *buf,
	       size_t len)
{
	const struct px4_sim_source *src = state;
	const struct px4_sim *first = NULL;
	size_t more = 0;

	(void)env;
	for (size_t v = 0; v < src->n; v++) {
		if (src->sims[v].link.connections > 0)
			continue;
		if (!first)
			first = &src->sims[v];
		else
			more++;
	}
	if (!first)
		return false;
	int n = src->n > 1 ? snprintf(buf, len, "instance %u ", first->index)
			   : 0;
	if (n < 0 || (size_t)n >= len)
		return true;
	int m = wait_text(first, buf + n, len - (size_t)n);
	if (more && m >= 0 && (size_t)(n + m) < len)
		snprintf(buf + n + m, len - (size_t)(n + m),
			 " (and %zu more instance%s)", more,
			 more == 1 ? "" : "s");
	return true;
}

/* From the 10 ms timer, once per wake-up: step a stalled lockstep, and
 * freewheel on if PX4 had stopped reading. */
static void
px4sim_tick(const struct source_env *env, void *state, uint64_t ticks,
	    bool last)
{
	struct px4_sim_source *src = state;
	const uint64_t wall_us = event_now_us();

	(void)ticks;
	if (!last)
		return;
	for (size_t v = 0; v < src->n; v++) {
		struct px4_sim *s = &src->sims[v];
		say_waiting(s, wall_us);
		if (!transport_link_connected(&s->conn))
			continue;
		if (s->lockstep && s->credits == 0) {
			if (wall_us - s->last_step_us >=
			    1000u * (uint64_t)env->cfg->px4.lockstep_timeout_ms) {
				s->stats.stalls++;
				/* Silent again right after a late reply was
				 * taken: nothing was in flight, PX4 waits
				 * for this step, so it owes no reply. */
				if (s->took_late)
					s->owed = 0;
				else
					s->owed++;
				step(s, wall_us);
			}
			continue;
		}
		pump(s, wall_us);
	}
}

static void
px4sim_flush(const struct source_env *env, void *state)
{
	struct px4_sim_source *src = state;

	(void)env;
	for (size_t v = 0; v < src->n; v++) {
		struct px4_sim *s = &src->sims[v];
		transport_link_flush(&s->conn);
		s->queued = 0;
	}
}

static int
px4sim_open(const struct source_env *env, void **state, char *err,
	    size_t errlen)
{
	const struct config_px4 *c = &env->cfg->px4;
	struct px4_sim_source *src = calloc(1, sizeof(*src));

	if (!src) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	*state = src;
	vehicles_setup(env, &src->fleet, c->instances);
	for (unsigned v = 0; v < env->cfg->px4.instances; v++) {
		struct px4_sim *s = &src->sims[v];
		s->env = env;
		s->src = src;
		s->index = v;
		s->port = c->port + v;
		transport_link_init(&s->conn);
		s->pace.fd = timerfd_create(CLOCK_MONOTONIC,
					    TFD_NONBLOCK | TFD_CLOEXEC);
		s->pace.cb = on_pace;
		s->pace.user = s;
		if (s->pace.fd < 0 ||
		    event_loop_add(env->loop, &s->pace, EPOLLIN) < 0) {
			const int rc = -errno;
			snprintf(err, errlen, "PX4 instance %u: pacing timer: %s",
				 v, strerror(errno));
			if (s->pace.fd >= 0)
				close(s->pace.fd);
			s->pace.fd = -1;
			return rc;
		}
		mavlink_parser_init(&s->parser);
		char why[200], name[32], addr[160];
		snprintf(name, sizeof(name), "px4-%u", v);
		snprintf(addr, sizeof(addr), strchr(c->bind, ':') ? "[%s]:%u"
								  : "%s:%u",
			 c->bind, s->port);
		int rc = transport_link_open(&s->conn, &transport_tcp_server,
					     env->loop, name, addr, &px4_link_px4_side,
					     PX4_TX_MAX, on_px4, s, why,
					     sizeof(why));
		if (rc < 0) {
			snprintf(err, errlen, "PX4 instance %u: %s", v, why);
			event_loop_remove(env->loop, &s->pace);
			close(s->pace.fd);
			return rc;
		}
		src->n++;
		log_msg(env->log, LOG_LEVEL_INFO,
			"PX4 instance %u: simulator on TCP %s:%u", v, c->bind,
			c->port + v);
		say_waiting(s, event_now_us());
	}
	if (c->speed_factor > 0.0)
		log_msg(env->log, LOG_LEVEL_NOTICE,
			"PX4: speed factor %g (%s): physics follows the wall "
			"clock; PX4 must see the same PX4_SIM_SPEED_FACTOR",
			c->speed_factor, c->speed_factor_from);
	else
		log_msg(env->log, LOG_LEVEL_NOTICE,
			"PX4: speed factor 0 (%s): as fast as PX4 replies",
			c->speed_factor_from);
	/* One rule in the PX4 modes, as PX4's own simulators: the option,
	 * else PX4_HOME_*, else barod.conf, else Zurich at 488 m. */
	log_msg(env->log, LOG_LEVEL_NOTICE,
		"PX4: home %.7f, %.7f (%s), %.2f m AMSL (%s)",
		c->home_lat_deg, c->home_lon_deg, c->home_latlon_from,
		env->cfg->home_alt_m,
		env->cfg->home_alt_from ? env->cfg->home_alt_from : "default");
	return 0;
}

static void
px4sim_close(const struct source_env *env, void *state)
{
	struct px4_sim_source *src = state;

	if (!src)
		return;
	for (size_t v = 0; v < src->n; v++) {
		struct px4_sim *s = &src->sims[v];
		event_loop_remove(env->loop, &s->pace);
		close(s->pace.fd);
		transport_link_close(&s->conn);
	}
	free(src);
}

/* baroctl status: one line per PX4 instance. */
static void
px4sim_status(const struct source_env *env, void *state, FILE *out)
{
	struct px4_sim_source *src = state;

	const uint64_t now = event_now_us();
	for (size_t v = 0; v < src->n; v++) {
		const struct px4_sim *s = &src->sims[v];
		const bool on = transport_link_connected(&s->conn);
		fprintf(out,
			"px4 %zu %s port %u physics %.3f s lockstep %s armed %s "
			"steps %" PRIu64 " controls %" PRIu64 " stalls %" PRIu64
			" late %" PRIu64 " restarts %" PRIu64
			" bad-frames %" PRIu64,
			v, on ? "connected" : "waiting", s->port,
			on ? (double)s->step * STEP_US * 1e-6 : 0.0,
			on && s->lockstep ? "yes" : "no",
			on && s->armed ? "yes" : "no", s->stats.steps,
			s->stats.controls, s->stats.stalls, s->stats.late,
			s->stats.restarts, s->parser.stats.bad_crc +
				s->parser.stats.unknown_msgid);
		/* Wall time at the same instant as physics, so the factor
		 * PX4 ran at is measured on barod's own clocks. */
		fprintf(out,
			" speed-factor %g achieved %.3f%s wall %.3f pending %"
			PRIu64 "\n", env->cfg->px4.speed_factor, s->achieved,
			s->slow_reported ? " (not held)" : "",
			on ? (double)(now - s->connected_us) * 1e-6 : 0.0,
			s->credits);
	}
	vehicles_status(&src->fleet, out);
}

static void
px4sim_report(const struct source_env *env, void *state)
{
	struct px4_sim_source *src = state;

	for (size_t v = 0; v < src->n; v++) {
		const struct px4_sim *s = &src->sims[v];
		const struct px4_sim_link_stats *l = &s->link;
		const struct mavlink_parser_stats *p = &s->parser.stats;
		log_msg(env->log, LOG_LEVEL_INFO,
			"PX4 instance %zu: connections %" PRIu64
			", disconnects %" PRIu64 ", replaced %" PRIu64
			", restarts %" PRIu64 ", steps %" PRIu64
			", controls %" PRIu64 ", stalls %" PRIu64
			", late %" PRIu64 ", other frames %" PRIu64 ", frames out %" PRIu64
			", dropped %" PRIu64 ", bad frames %" PRIu64
			", garbage bytes %" PRIu64 ", bad baro %" PRIu64
			", out of range %" PRIu64,
			v, l->connections, l->disconnects, l->replaced,
			s->stats.restarts, s->stats.steps, s->stats.controls,
			s->stats.stalls, s->stats.late, s->stats.other_frames,
			s->conn.stats.frames_sent,
			l->unencodable + s->conn.stats.frames_dropped +
				s->conn.stats.frames_no_peer,
			p->bad_crc + p->unknown_msgid +
						   p->bad_incompat + p->truncated,
			p->garbage_bytes, s->stats.bad_baro,
			s->stats.out_of_range);
	}
}

const struct source_ops source_px4_sim = {
	.name = "px4-sim",
	.flags = SOURCE_EMULATED,
	.open = px4sim_open,
	.close = px4sim_close,
	.tick = px4sim_tick,
	.flush = px4sim_flush,
	.status = px4sim_status,
	.report = px4sim_report,
	.waiting = px4sim_waiting,
	.describe = source_describe_emulated,
};
