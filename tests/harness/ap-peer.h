/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A scripted autopilot as a ground station meets it over MAVLink, for
 * the baro-drive tests: ArduPilot's SITL (SIM_BARO_* parameters, the
 * PARAM_VALUE echo of a PARAM_SET, MAV_CMD_INJECT_FAILURE unsupported)
 * or PX4's SIH (SIM_BARO_OFF_P applied only at PX4's next once-a-second
 * parameter update, SYS_FAILURE_EN, baro off and stuck by failure
 * injection when told it has them), on a clock of its own that runs at a
 * speed-up, pauses, restarts, and a link that drops frames, answers late
 * or goes silent.  Bytes in, bytes out; the caller carries them (a
 * socket or a direct call) and says what time it is.  No cmocka: what it
 * saw is kept for the caller to assert.
 */
#ifndef AP_PEER_H
#define AP_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mavlink.h"

#define AP_PEER_PARAMS 64
#define AP_PEER_HISTORY 512
#define AP_PEER_QUEUE 256
#define AP_PEER_HELD 16384

enum ap_peer_kind { AP_PEER_ARDUPILOT, AP_PEER_PX4 };


/* The estimator status bit set while the baro is rejected (with
 * ESTIMATOR_POS_VERT_ABS cleared): ESTIMATOR_ACCEL_ERROR in
 * ESTIMATOR_STATUS, which PX4's EKF2 raises (bad_acc_vertical) when its
 * height and vertical velocity innovations fail together; a bit
 * ArduPilot's EKF_STATUS_FLAGS leaves free (it has 1..1024, 32768). */
#define AP_PEER_EKF_BARO_REJECTED 2048u

/* The estimator's gate and timings (seconds, metres).  The gate is a
 * parameter of the autopilot's own name, in standard deviations of a
 * 1 m baro height noise: ArduPilot's EK3_HGT_I_GATE (SD x 100, default
 * 500; EKF3 uses max(0.01 x it, 1)) and PX4's EKF2_BARO_GATE (SD,
 * default 5, at least 1). */
#define AP_PEER_EKF_SD_M 1.0
/* Where it stands: ArduPilot's CMAC home (degE7), and how many mission
 * items it keeps. */
#define AP_PEER_HOME_LAT_E7 (-353632610)
#define AP_PEER_HOME_LON_E7 1491652300
#define AP_PEER_MISSION 32
/* Its speeds in a mission: horizontal, and up (down: 1 m/s). */
#define AP_PEER_MISSION_MPS 5.0
#define AP_PEER_EKF_GATE_AP "EK3_HGT_I_GATE"
#define AP_PEER_EKF_GATE_PX4 "EKF2_BARO_GATE"
#define AP_PEER_EKF_TAU_S 0.5
#define AP_PEER_EKF_RESET_S 5.0
#define AP_PEER_EKF_FAILSAFE_S 3.0

/*
 * A vehicle that flies (fake-autopilot), off unless ap_peer_fly() is
 * called: arm, take off, hold, land over MAVLink commands; its true
 * height climbs at 2 m/s, descends at 1 m/s and disarms on touchdown;
 * its baro reads the truth plus the SIM_* faults and seeded noise; a
 * baro-driven height estimate with an innovation gate.  Every 20 ms of
 * the autopilot's clock.
 */
struct ap_peer_flight {
	bool on, never_arm;
	double home_m;		/* AMSL */
	uint64_t rng;
	bool armed;
	uint32_t mode;		/* HEARTBEAT.custom_mode */
	double truth_m;		/* above home */
	double target_m;	/* what a takeoff climbs to, above home */
	bool climbing;
	double est_m;		/* the estimate, above home */
	bool est_init;
	float pressure_pa;	/* the baro's last reading */
	/* The raw reading comes from outside (fake-autopilot --sim-tcp:
	 * the simulator's HIL_SENSOR, through barod) instead of the truth
	 * with its SIM_* faults and noise; PX4's own offset and injected
	 * failures still act on it, as they do in PX4. */
	bool ext_baro;
	float ext_pa;
	bool baro_ok;		/* read this tick (baro off: no) */
	double drift_m;		/* ArduPilot's SIM_BARO_DRIFT so far */
	double innov_m;
	bool rejecting, failsafe_done;
	double reject_s;	/* continuous rejection so far */
	uint64_t ticks;		/* 20 ms steps of the autopilot's clock */
	uint64_t next_status_us, next_slow_us;
	/* The mission (MISSION_COUNT .. MISSION_ACK, then flown after
	 * MAV_CMD_MISSION_START): each item's place from home. */
	unsigned mis_count, mis_next, mis_at;
	bool mis_ok, mis_run;
	struct { double north_m, east_m, alt_m; } mis[AP_PEER_MISSION];
	double north_m, east_m;		/* the vehicle, from home */
	double vz_mps;			/* up, this tick */
	/* Each 100 ms of the autopilot's clock: time_us, the baro's
	 * pressure, the truth and the estimate (AMSL). */
	void (*on_sample)(void *user, uint64_t time_us, float pressure_pa,
			  double truth_amsl_m, double ekf_amsl_m);
	void *user;
};

struct ap_peer_param {
	char name[17];
	float value;
	uint8_t type;
};

/* One change the autopilot made, at its own time. */
struct ap_peer_change {
	uint64_t ap_ms;		/* when it took effect (PX4: late) */
	char name[17];		/* "baro" for an injection */
	float value;
};

struct ap_peer {
	enum ap_peer_kind kind;
	uint8_t sysid, compid;

	/* The script. */
	double speed;			/* autopilot ms per wall ms */
	/* A SITL's clock moves only as its loop runs: a host that held
	 * the process off longer than this (us of wall time) adds only
	 * this much; 0: any.  What keeps a loaded machine from making a
	 * 10x SITL jump seconds, which a real one does not. */
	uint64_t max_step_us;
	/* Nothing with its time_boot_ms (SYSTEM_TIME, GLOBAL_POSITION_INT,
	 * SCALED_PRESSURE) before this wall time: a ground station that
	 * has read its parameters before it knows its clock. */
	uint64_t clock_from_us;
	uint64_t pause_from_us, pause_to_us;	/* the clock stands still */
	uint64_t restart_at_us;		/* time_boot_ms back to 0 (0: no) */
	uint64_t silent_from_us, silent_to_us;	/* nothing in or out */
	uint64_t reply_delay_us;	/* every answer this late */
	unsigned drop_sets;		/* the first N PARAM_SETs unanswered */
	bool inject_supported;		/* PX4: baro off/stuck act */
	bool stream;			/* TCP: a frame may span two reads */

	/* State. */
	uint64_t last_wall_us;
	double ap_ms;
	bool restarted;
	uint64_t next_hb_us, next_time_us, next_pos_us;
	uint32_t time_interval_us;	/* SYSTEM_TIME, once asked */
	uint32_t press_interval_us;	/* SCALED_PRESSURE(2), once asked */
	uint64_t next_press_us;
	size_t nparams;
	struct ap_peer_param params[AP_PEER_PARAMS];
	/* PX4: the offset sensor_baro_sim uses (taken at the next whole
	 * second of the autopilot's clock after a change). */
	float offp_applied;
	bool offp_pending;
	uint64_t offp_set_ms;
	int inject;			/* FAILURE_TYPE in force, baro */
	unsigned sets_seen, reads_seen, commands_seen;
	size_t nhistory;
	struct ap_peer_change history[AP_PEER_HISTORY];

	struct ap_peer_flight fly;

	struct mavlink_parser parser;
	uint8_t seq;
	uint64_t now_us;	/* wall time of the call being handled */
	/* Answers due out, in order of due time. */
	size_t nq;
	struct ap_peer_frame {
		uint64_t due_us;
		uint16_t len;
		uint8_t b[MAVLINK_MAX_FRAME];
	} q[AP_PEER_QUEUE];
	/* Bytes that came while the clock was paused: handled after. */
	size_t held_len;
	uint8_t held[AP_PEER_HELD];
};

/* An autopilot with its SIM_* parameters at barod's table's defaults
 * (ArduPilot) or SIM_BARO_OFF_P 0 and SYS_FAILURE_EN 1 (PX4), speed 1,
 * answering at once. */
void
ap_peer_init(struct ap_peer *p, enum ap_peer_kind kind);

/* Make it fly (above): home_m AMSL, noise from seed; never_arm denies
 * every arming.  ArduPilot starts in STABILIZE, PX4 in AUTO.LOITER. */
void
ap_peer_fly(struct ap_peer *p, double home_m, uint64_t seed, bool never_arm);

/* A parameter's value now, or NAN when it has none. */
float
ap_peer_get(const struct ap_peer *p, const char *name);

/* Set a parameter as the user would (no history). */
void
ap_peer_set(struct ap_peer *p, const char *name, float value);

/* Remove a parameter: reads and sets of it go unanswered. */
void
ap_peer_remove(struct ap_peer *p, const char *name);

/* The autopilot's clock now. */
uint64_t
ap_peer_ms(const struct ap_peer *p);

/* Bytes from the ground station, at wall time now_us. */
void
ap_peer_rx(struct ap_peer *p, const uint8_t *data, size_t len,
	   uint64_t now_us);

/* Time passes to now_us: the clock, streams and answers now due are
 * written to out (at most cap bytes, whole frames); returns the bytes.
 * Each call's bytes are one datagram's worth of frames. */
size_t
ap_peer_step(struct ap_peer *p, uint64_t now_us, uint8_t *out, size_t cap);

/* The last change of name in the history at or before ap_ms; NAN if
 * none. */
float
ap_peer_value_at(const struct ap_peer *p, const char *name, uint64_t ap_ms);

#endif
