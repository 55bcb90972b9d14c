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
