/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A small MAVLink 1/2 codec: framing, CRC-16/MCRF4XX with CRC_EXTRA,
 * v2 trailing-zero truncation and receiver zero-fill, and a byte-at-a-time
 * parser that survives garbage, truncation and CRC errors and counts them.
 * Facts: ../shared/docs/mavlink.md.  No generated headers, no globals.
 */
#ifndef BAROD_MAVLINK_H
#define BAROD_MAVLINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAVLINK_STX_V1 0xFE
#define MAVLINK_STX_V2 0xFD
#define MAVLINK_MAX_PAYLOAD 255
#define MAVLINK_MAX_FRAME 280	/* 10 header + 255 + 2 CRC + 13 signature */
#define MAVLINK_IFLAG_SIGNED 0x01

enum mavlink_msg_id {
	MAVLINK_MSG_HEARTBEAT = 0,
	MAVLINK_MSG_SYS_STATUS = 1,
	MAVLINK_MSG_SYSTEM_TIME = 2,
	MAVLINK_MSG_SET_MODE = 11,
	MAVLINK_MSG_PARAM_REQUEST_READ = 20,
	MAVLINK_MSG_PARAM_REQUEST_LIST = 21,
	MAVLINK_MSG_PARAM_VALUE = 22,
	MAVLINK_MSG_PARAM_SET = 23,
	MAVLINK_MSG_SCALED_PRESSURE = 29,
	MAVLINK_MSG_GLOBAL_POSITION_INT = 33,
	MAVLINK_MSG_MISSION_REQUEST = 40,
	MAVLINK_MSG_MISSION_COUNT = 44,
	MAVLINK_MSG_MISSION_ITEM_REACHED = 46,
	MAVLINK_MSG_MISSION_ACK = 47,
	MAVLINK_MSG_MISSION_REQUEST_INT = 51,
	MAVLINK_MSG_MISSION_ITEM_INT = 73,
	MAVLINK_MSG_COMMAND_INT = 75,
	MAVLINK_MSG_COMMAND_LONG = 76,
	MAVLINK_MSG_COMMAND_ACK = 77,
	MAVLINK_MSG_HIL_ACTUATOR_CONTROLS = 93,
	MAVLINK_MSG_HIL_SENSOR = 107,
	MAVLINK_MSG_HIL_GPS = 113,
	MAVLINK_MSG_HIL_STATE_QUATERNION = 115,
	MAVLINK_MSG_SCALED_PRESSURE2 = 137,
	MAVLINK_MSG_SCALED_PRESSURE3 = 143,
	MAVLINK_MSG_AUTOPILOT_VERSION = 148,
	MAVLINK_MSG_EKF_STATUS_REPORT = 193,	/* ardupilotmega dialect */
	MAVLINK_MSG_ESTIMATOR_STATUS = 230,
	MAVLINK_MSG_EXTENDED_SYS_STATE = 245,
	MAVLINK_MSG_STATUSTEXT = 253,
};

struct mavlink_msg_info {
	uint32_t id;
	const char *name;
	uint8_t crc_extra;
	uint8_t min_len;	/* base length: what v1 sends */
	uint8_t len;		/* with extensions */
};

/* The known messages, or NULL for an id this codec does not know. */
const struct mavlink_msg_info *
mavlink_msg_info(uint32_t msgid);

/* CRC-16/MCRF4XX over buf, continuing from crc (start with 0xFFFF). */
uint16_t
mavlink_crc(const uint8_t *buf, size_t len, uint16_t crc);

/* A frame's checksum: header and payload are f[0 .. end), the CRC covers
 * every byte after the magic, then CRC_EXTRA.  put_crc writes it at
 * f[end], f[end + 1] (after an edit, or a flag set before signing). */
uint16_t
mavlink_frame_crc(const uint8_t *f, size_t end, uint8_t crc_extra);
void
mavlink_frame_put_crc(uint8_t *f, size_t end, uint8_t crc_extra);

/*
 * Frame one message.  payload holds the message's full-length payload
 * (info->len bytes, as the pack functions below produce).  Version 2
 * truncates trailing zero bytes (keeping at least one); version 1 sends
 * the base length and needs msgid <= 255.  Returns the frame length, or
 * -EINVAL (unknown msgid, v1 with a large id, bad version), -ENOBUFS
 * never (out must hold MAVLINK_MAX_FRAME bytes).
 */
int
mavlink_frame_encode(uint8_t out[MAVLINK_MAX_FRAME], int version, uint8_t seq,
		     uint8_t sysid, uint8_t compid, uint32_t msgid,
		     const uint8_t *payload);

/* A received, checked frame. */
struct mavlink_frame {
	uint8_t version;	/* 1 or 2 */
	uint8_t incompat_flags, compat_flags;
	uint8_t seq, sysid, compid;
	uint32_t msgid;
	uint8_t len;		/* payload length as received */
	/* Payload zero-filled to the message's full length (and beyond, to
	 * MAVLINK_MAX_PAYLOAD), so unpack functions may read every field. */
	uint8_t payload[MAVLINK_MAX_PAYLOAD];
	/* The frame as received, signature included (a signature covers
	 * payload bytes past the full length, which payload drops).  Points
	 * into the parser: valid only during the on_frame call. */
	const uint8_t *raw;
	size_t raw_len;
};

struct mavlink_parser_stats {
	uint64_t frames;	/* good frames delivered */
	uint64_t bad_crc;	/* CRC mismatch */
	/* CRC_EXTRA unknown: cannot check, dropped (re-scanned instead when
	 * no start byte follows, see mavlink_parser_feed) */
	uint64_t unknown_msgid;
	uint64_t bad_incompat;	/* unsupported incompat flags: dropped */
	/* signed frames: framed, counted, dropped (unless deliver_signed) */
	uint64_t signed_dropped;
	uint64_t truncated;	/* a partial frame at mavlink_parser_flush() */
	uint64_t garbage_bytes;	/* skipped hunting for STX, false STXs too */
	/* Bytes of frames framed but not delivered (unknown msgid, signed)
	 * and of partial frames discarded by flush.  Every byte fed ends up
	 * in exactly one of: a delivered frame, garbage_bytes, dropped_bytes,
	 * or the partial frame still buffered. */
	uint64_t dropped_bytes;
};

struct mavlink_parser {
	/* implementation state; zero-initialised by mavlink_parser_init */
	uint8_t buf[MAVLINK_MAX_FRAME];
	size_t have;
	size_t need;
	struct mavlink_parser_stats stats;
	/* Deliver signed frames (raw holds the signature for the caller to
	 * check, mavlink-sign.h) instead of dropping them.  Set after init. */
	bool deliver_signed;
};

void
mavlink_parser_init(struct mavlink_parser *p);

/*
 * Feed bytes.  For each good frame, calls on_frame(frame, user).  On a
 * CRC failure the parser resumes hunting at the byte after the false STX
 * (the length byte itself may be corrupt), so a good frame hidden inside
 * garbage is still found.  Returns the number of frames delivered.
 *
 * The same resumption follows an unsupported incompat flag (decided at
 * that byte).  A signed frame whose CRC checks is consumed and dropped.
 * A frame with an unknown msgid cannot be CRC-checked: when the byte
 * after it is a start byte (or flush() ends the input there) it was a
 * frame, consumed whole and dropped as the C library and node-mavlink
 * do (a GCS or autopilot streams many messages this codec does not
 * know); otherwise its STX was false and the parser resumes after it,
 * so garbage does not swallow the good frames behind it.  on_frame may
 * be NULL; it must not feed the same parser.
 */
size_t
mavlink_parser_feed(struct mavlink_parser *p, const uint8_t *data, size_t len,
		    void (*on_frame)(const struct mavlink_frame *f, void *user),
		    void *user);

/* End of a datagram or stream: a partial frame counts as truncated and is
 * discarded (UDP never continues a frame in the next datagram); a whole
 * unknown message still waiting for the byte after it is dropped as a
 * frame.  Frames hidden behind a false STX whose claimed length runs past
 * the end are lost with it. */
void
mavlink_parser_flush(struct mavlink_parser *p);

/* ---- messages: pack into a full-length payload, unpack from one ---- */

enum {
	MAV_TYPE_ONBOARD_CONTROLLER = 18,
	MAV_AUTOPILOT_INVALID = 8,
	MAV_STATE_ACTIVE = 4,
	MAV_COMP_ID_ONBOARD_COMPUTER = 191,
	MAV_PARAM_TYPE_UINT8 = 1,
	MAV_PARAM_TYPE_INT8 = 2,
	MAV_PARAM_TYPE_UINT16 = 3,
	MAV_PARAM_TYPE_INT16 = 4,
	MAV_PARAM_TYPE_UINT32 = 5,
	MAV_PARAM_TYPE_INT32 = 6,
	MAV_PARAM_TYPE_REAL32 = 9,
	MAV_RESULT_ACCEPTED = 0,
	MAV_RESULT_DENIED = 2,
	MAV_RESULT_UNSUPPORTED = 3,
	MAV_RESULT_FAILED = 4,
	MAV_SEVERITY_WARNING = 4,
	MAV_SEVERITY_NOTICE = 5,
	MAV_SEVERITY_INFO = 6,
	HIL_SENSOR_ACCEL = 0x7,
	HIL_SENSOR_GYRO = 0x38,
	HIL_SENSOR_MAG = 0x1C0,
	HIL_SENSOR_ABS_PRESSURE = 0x200,
	HIL_SENSOR_PRESSURE_ALT = 0x800,
	HIL_SENSOR_TEMPERATURE = 0x1000,
	/* What PX4 needs all of before it reads the baro fields. */
	HIL_SENSOR_BARO = 0x1A00,
	MAV_TYPE_GENERIC = 0,
	MAV_CMD_SET_MESSAGE_INTERVAL = 511,
	MAV_CMD_REQUEST_MESSAGE = 512,
	MAV_CMD_INJECT_FAILURE = 420,
	FAILURE_UNIT_SENSOR_BARO = 3,
	MAV_TYPE_GCS = 6,
	MAV_AUTOPILOT_ARDUPILOTMEGA = 3,
	MAV_AUTOPILOT_PX4 = 12,
	MAV_RESULT_TEMPORARILY_REJECTED = 1,
	MAV_RESULT_IN_PROGRESS = 5,
	HIL_ACTUATOR_CONTROLS_FLAGS_LOCKSTEP = 1,
};

/* What a ground station flies a vehicle with and reads back (common.xml,
 * ardupilotmega.xml): baro-campaign's flight and the tests' scripted
 * autopilot. */
enum {
	MAV_TYPE_QUADROTOR = 2,
	MAV_MODE_FLAG_CUSTOM_MODE_ENABLED = 1,
	MAV_MODE_FLAG_SAFETY_ARMED = 128,
	MAV_STATE_STANDBY = 3,
	MAV_SEVERITY_CRITICAL = 2,
	MAV_SYS_STATUS_SENSOR_ABSOLUTE_PRESSURE = 8,
	MAV_CMD_NAV_WAYPOINT = 16,
	MAV_CMD_NAV_LAND = 21,
	MAV_CMD_NAV_TAKEOFF = 22,
	MAV_CMD_DO_SET_MODE = 176,
	MAV_CMD_MISSION_START = 300,
	MAV_CMD_COMPONENT_ARM_DISARM = 400,
	MAV_FRAME_GLOBAL = 0,
	MAV_FRAME_GLOBAL_RELATIVE_ALT_INT = 6,
	MAV_MISSION_TYPE_MISSION = 0,
	MAV_MISSION_ACCEPTED = 0,
	MAV_MISSION_ERROR = 1,
	MAV_LANDED_STATE_ON_GROUND = 1,
	MAV_LANDED_STATE_IN_AIR = 2,
	MAV_LANDED_STATE_TAKEOFF = 3,
	MAV_LANDED_STATE_LANDING = 4,
	/* EKF_STATUS_FLAGS (ardupilotmega) and ESTIMATOR_STATUS_FLAGS
	 * (common) share these bits. */
	ESTIMATOR_ATTITUDE = 1,
	ESTIMATOR_VELOCITY_HORIZ = 2,
	ESTIMATOR_VELOCITY_VERT = 4,
	ESTIMATOR_POS_HORIZ_REL = 8,
	ESTIMATOR_POS_HORIZ_ABS = 16,
	ESTIMATOR_POS_VERT_ABS = 32,
	ESTIMATOR_ACCEL_ERROR = 2048,	/* common only */
};

/* Metres per 1e-7 degree of latitude (and of longitude at the equator):
 * ArduPilot's LOCATION_SCALING_FACTOR, which its missions use. */
#define MAVLINK_M_PER_DEGE7 0.011131884502145034

/* Flight modes as HEARTBEAT.custom_mode carries them.  ArduPilot Copter:
 * the mode number.  PX4 (src/modules/commander/px4_custom_mode.h, union
 * px4_custom_mode: reserved 16 bits, then main_mode, then sub_mode, so
 * main << 16 | sub << 24): main modes POSCTL 3, AUTO 4, OFFBOARD 6; AUTO
 * sub modes TAKEOFF 2, LOITER 3, MISSION 4, LAND 6. */
#define AP_COPTER_STABILIZE 0u
#define AP_COPTER_AUTO 3u
#define AP_COPTER_GUIDED 4u
#define AP_COPTER_LAND 9u
#define PX4_MODE(main, sub) ((uint32_t)(main) << 16 | (uint32_t)(sub) << 24)
#define PX4_MODE_POSCTL PX4_MODE(3, 0)
#define PX4_MODE_OFFBOARD PX4_MODE(6, 0)
#define PX4_MODE_AUTO_TAKEOFF PX4_MODE(4, 2)
#define PX4_MODE_AUTO_LOITER PX4_MODE(4, 3)
#define PX4_MODE_AUTO_MISSION PX4_MODE(4, 4)
#define PX4_MODE_AUTO_LAND PX4_MODE(4, 6)

struct mavlink_heartbeat {
	uint32_t custom_mode;
	uint8_t type, autopilot, base_mode, system_status, mavlink_version;
};

/* The fields up to battery_remaining; the *_extended extensions are
 * sent as zeros and not read. */
struct mavlink_sys_status {
	uint32_t sensors_present, sensors_enabled, sensors_health;
	uint16_t load;			/* d% */
	uint16_t voltage_battery;	/* mV */
	int16_t current_battery;	/* cA */
	uint16_t drop_rate_comm, errors_comm;
	uint16_t errors_count[4];
	int8_t battery_remaining;	/* %, -1 unknown */
};

struct mavlink_set_mode {
	uint32_t custom_mode;
	uint8_t target_system, base_mode;
};

/* ArduPilot's: the variances are its innovation test ratios. */
struct mavlink_ekf_status_report {
	float velocity_variance, pos_horiz_variance, pos_vert_variance;
	float compass_variance, terrain_alt_variance;
	uint16_t flags;
	float airspeed_variance;	/* extension */
};

/* PX4's: the ratios are innovation test ratios (> 1: rejected). */
struct mavlink_estimator_status {
	uint64_t time_usec;
	float vel_ratio, pos_horiz_ratio, pos_vert_ratio, mag_ratio;
	float hagl_ratio, tas_ratio, pos_horiz_accuracy, pos_vert_accuracy;
	uint16_t flags;
};

struct mavlink_extended_sys_state {
	uint8_t vtol_state, landed_state;
};

struct mavlink_system_time {
	uint64_t time_unix_usec;
	uint32_t time_boot_ms;
};

struct mavlink_global_position_int {
	uint32_t time_boot_ms;
	int32_t lat, lon;	/* degE7 */
	int32_t alt;		/* mm AMSL */
	int32_t relative_alt;	/* mm above home */
	int16_t vx, vy, vz;	/* cm/s, NED */
	uint16_t hdg;		/* cdeg, 65535 unknown */
};

/* The fields a ground station reads; the rest are left out. */
struct mavlink_autopilot_version {
	uint64_t capabilities;
	uint64_t uid;
	uint32_t flight_sw_version;	/* major, minor, patch, type: MSB first */
	uint32_t middleware_sw_version, os_sw_version, board_version;
	uint16_t vendor_id, product_id;
};

/* SCALED_PRESSURE, SCALED_PRESSURE2 and SCALED_PRESSURE3 share a layout. */
struct mavlink_scaled_pressure {
	uint32_t time_boot_ms;
	float press_abs;	/* hPa */
	float press_diff;	/* hPa */
	int16_t temperature;	/* cdegC */
	int16_t temperature_press_diff;	/* cdegC, 0 = none */
};

struct mavlink_hil_sensor {
	uint64_t time_usec;
	float xacc, yacc, zacc, xgyro, ygyro, zgyro, xmag, ymag, zmag;
	float abs_pressure;	/* hPa */
	float diff_pressure;	/* hPa */
	float pressure_alt;	/* m */
	float temperature;	/* degC */
	uint32_t fields_updated;
	uint8_t id;
};

struct mavlink_hil_actuator_controls {
	uint64_t time_usec;
	uint64_t flags;
	float controls[16];
	uint8_t mode;
};

struct mavlink_hil_gps {
	uint64_t time_usec;
	int32_t lat, lon;	/* degE7 */
	int32_t alt;		/* mm AMSL */
	uint16_t eph, epv;	/* PX4 reads them as cm */
	uint16_t vel;		/* ground speed, cm/s */
	int16_t vn, ve, vd;	/* cm/s */
	uint16_t cog;		/* cdeg, 65535 unknown */
	uint8_t fix_type, satellites_visible;
	uint8_t id;		/* extension */
	uint16_t yaw;		/* extension, cdeg, 0 unknown */
};

struct mavlink_hil_state_quaternion {
	uint64_t time_usec;
	float attitude_quaternion[4];	/* w, x, y, z */
	float rollspeed, pitchspeed, yawspeed;	/* rad/s */
	int32_t lat, lon;	/* degE7 */
	int32_t alt;		/* mm */
	int16_t vx, vy, vz;	/* cm/s, NED */
	uint16_t ind_airspeed, true_airspeed;	/* cm/s */
	int16_t xacc, yacc, zacc;	/* mG (PX4 reads m/s^2 x 1000) */
};

/* param_id: up to 16 chars; 17 bytes so a 16-char name stays a C string. */
struct mavlink_param_request_read {
	int16_t param_index;
	uint8_t target_system, target_component;
	char param_id[17];
};

struct mavlink_param_request_list {
	uint8_t target_system, target_component;
};

struct mavlink_param_value {
	float param_value;
	uint16_t param_count, param_index;
	char param_id[17];
	uint8_t param_type;
};

struct mavlink_param_set {
	float param_value;
	uint8_t target_system, target_component;
	char param_id[17];
	uint8_t param_type;
};

struct mavlink_command_long {
	float param[7];
	uint16_t command;
	uint8_t target_system, target_component, confirmation;
};

/* The same command with x/y as scaled integers (lat/lon 1e7) and a
 * frame; no confirmation field (it is never resent as such). */
struct mavlink_command_int {
	float param[4];
	int32_t x, y;
	float z;
	uint16_t command;
	uint8_t target_system, target_component, frame, current,
		autocontinue;
};

/* The mission protocol (upload: COUNT, then a REQUEST(_INT) for each
 * ITEM_INT, then an ACK; in flight ITEM_REACHED). */
struct mavlink_mission_count {
	uint16_t count;
	uint8_t target_system, target_component;
	uint8_t mission_type;		/* extension */
	uint32_t opaque_id;		/* extension */
};

/* MISSION_REQUEST (legacy) and MISSION_REQUEST_INT: the same fields. */
struct mavlink_mission_request {
	uint16_t seq;
	uint8_t target_system, target_component;
	uint8_t mission_type;		/* extension */
};

struct mavlink_mission_item_int {
	float param1, param2, param3, param4;
	int32_t x, y;			/* degE7 in a global frame */
	float z;
	uint16_t seq, command;
	uint8_t target_system, target_component, frame, current,
		autocontinue;
	uint8_t mission_type;		/* extension */
};

struct mavlink_mission_ack {
	uint8_t target_system, target_component, type;
	uint8_t mission_type;		/* extension */
	uint32_t opaque_id;		/* extension */
};

struct mavlink_mission_item_reached {
	uint16_t seq;
};

struct mavlink_command_ack {
	uint16_t command;
	uint8_t result, progress;
	int32_t result_param2;
	uint8_t target_system, target_component;
};

struct mavlink_statustext {
	uint8_t severity;
	char text[51];		/* up to 50 chars, not NUL-terminated on the wire */
	uint16_t id;
	uint8_t chunk_seq;
};

/* Any known message, for code that handles several by msgid. */
union mavlink_msg {
	struct mavlink_heartbeat hb;
	struct mavlink_system_time stime;
	struct mavlink_global_position_int gpi;
	struct mavlink_autopilot_version av;
	struct mavlink_scaled_pressure sp;	/* SCALED_PRESSURE/2/3 */
	struct mavlink_hil_sensor hil;
	struct mavlink_hil_actuator_controls hac;
	struct mavlink_hil_gps gps;
	struct mavlink_hil_state_quaternion hsq;
	struct mavlink_param_request_read prr;
	struct mavlink_param_request_list prl;
	struct mavlink_param_value pv;
	struct mavlink_param_set ps;
	struct mavlink_command_int ci;
	struct mavlink_command_long cl;
	struct mavlink_command_ack ca;
	struct mavlink_mission_count mc;
	struct mavlink_mission_request mr;	/* REQUEST and REQUEST_INT */
	struct mavlink_mission_item_int mi;
	struct mavlink_mission_ack ma;
	struct mavlink_mission_item_reached mir;
	struct mavlink_statustext st;
	struct mavlink_sys_status ss;
	struct mavlink_set_mode sm;
	struct mavlink_ekf_status_report ekf;
	struct mavlink_estimator_status es;
	struct mavlink_extended_sys_state ess;
};

/* Pack or unpack by msgid through the functions below: the full length,
 * or 0 / -ENOENT for an id this codec does not know. */
size_t
mavlink_pack_msg(uint32_t msgid, const union mavlink_msg *m, uint8_t *pl);

int
mavlink_unpack_msg(uint32_t msgid, const uint8_t *pl, union mavlink_msg *m);

/* Each pack writes the full-length payload (info->len bytes) and returns
 * that length; each unpack reads a zero-filled payload. */
size_t mavlink_pack_heartbeat(const struct mavlink_heartbeat *m, uint8_t *pl);
void mavlink_unpack_heartbeat(const uint8_t *pl, struct mavlink_heartbeat *m);
size_t mavlink_pack_system_time(const struct mavlink_system_time *m,
				uint8_t *pl);
void mavlink_unpack_system_time(const uint8_t *pl,
				struct mavlink_system_time *m);
size_t mavlink_pack_global_position_int(
	const struct mavlink_global_position_int *m, uint8_t *pl);
void mavlink_unpack_global_position_int(
	const uint8_t *pl, struct mavlink_global_position_int *m);
size_t mavlink_pack_autopilot_version(
	const struct mavlink_autopilot_version *m, uint8_t *pl);
void mavlink_unpack_autopilot_version(
	const uint8_t *pl, struct mavlink_autopilot_version *m);
size_t mavlink_pack_scaled_pressure(const struct mavlink_scaled_pressure *m,
				    uint8_t *pl);
void mavlink_unpack_scaled_pressure(const uint8_t *pl,
				    struct mavlink_scaled_pressure *m);
size_t mavlink_pack_hil_sensor(const struct mavlink_hil_sensor *m, uint8_t *pl);
void mavlink_unpack_hil_sensor(const uint8_t *pl, struct mavlink_hil_sensor *m);
size_t mavlink_pack_hil_actuator_controls(
	const struct mavlink_hil_actuator_controls *m, uint8_t *pl);
void mavlink_unpack_hil_actuator_controls(
	const uint8_t *pl, struct mavlink_hil_actuator_controls *m);
size_t mavlink_pack_hil_gps(const struct mavlink_hil_gps *m, uint8_t *pl);
void mavlink_unpack_hil_gps(const uint8_t *pl, struct mavlink_hil_gps *m);
size_t mavlink_pack_hil_state_quaternion(
	const struct mavlink_hil_state_quaternion *m, uint8_t *pl);
void mavlink_unpack_hil_state_quaternion(
	const uint8_t *pl, struct mavlink_hil_state_quaternion *m);
size_t mavlink_pack_param_request_read(
	const struct mavlink_param_request_read *m, uint8_t *pl);
void mavlink_unpack_param_request_read(const uint8_t *pl,
				       struct mavlink_param_request_read *m);
size_t mavlink_pack_param_request_list(
	const struct mavlink_param_request_list *m, uint8_t *pl);
void mavlink_unpack_param_request_list(const uint8_t *pl,
				       struct mavlink_param_request_list *m);
size_t mavlink_pack_param_value(const struct mavlink_param_value *m,
				uint8_t *pl);
void mavlink_unpack_param_value(const uint8_t *pl,
				struct mavlink_param_value *m);
size_t mavlink_pack_param_set(const struct mavlink_param_set *m, uint8_t *pl);
void mavlink_unpack_param_set(const uint8_t *pl, struct mavlink_param_set *m);
size_t mavlink_pack_command_long(const struct mavlink_command_long *m,
				 uint8_t *pl);
void mavlink_unpack_command_long(const uint8_t *pl,
				 struct mavlink_command_long *m);
size_t mavlink_pack_command_int(const struct mavlink_command_int *m,
				uint8_t *pl);
void mavlink_unpack_command_int(const uint8_t *pl,
				struct mavlink_command_int *m);
/* A COMMAND_LONG or COMMAND_INT payload as one command, as PX4's
 * MavlinkReceiver makes one vehicle_command of either: a COMMAND_INT's
 * param1..4 and z go to param[0..3] and param[6], its x and y to
 * param[4..5] divided by 1e7, and confirmation is 0.  -ENOENT for any
 * other message. */
int mavlink_unpack_command(uint32_t msgid, const uint8_t *pl,
			   struct mavlink_command_long *m);
size_t mavlink_pack_command_ack(const struct mavlink_command_ack *m,
				uint8_t *pl);
void mavlink_unpack_command_ack(const uint8_t *pl,
				struct mavlink_command_ack *m);
size_t mavlink_pack_mission_count(const struct mavlink_mission_count *m,
				  uint8_t *pl);
void mavlink_unpack_mission_count(const uint8_t *pl,
				  struct mavlink_mission_count *m);
size_t mavlink_pack_mission_request(const struct mavlink_mission_request *m,
				    uint8_t *pl);
void mavlink_unpack_mission_request(const uint8_t *pl,
				    struct mavlink_mission_request *m);
size_t mavlink_pack_mission_item_int(const struct mavlink_mission_item_int *m,
				     uint8_t *pl);
void mavlink_unpack_mission_item_int(const uint8_t *pl,
				     struct mavlink_mission_item_int *m);
size_t mavlink_pack_mission_ack(const struct mavlink_mission_ack *m,
				uint8_t *pl);
void mavlink_unpack_mission_ack(const uint8_t *pl,
				struct mavlink_mission_ack *m);
size_t mavlink_pack_mission_item_reached(
	const struct mavlink_mission_item_reached *m, uint8_t *pl);
void mavlink_unpack_mission_item_reached(
	const uint8_t *pl, struct mavlink_mission_item_reached *m);
size_t mavlink_pack_statustext(const struct mavlink_statustext *m, uint8_t *pl);
void mavlink_unpack_statustext(const uint8_t *pl, struct mavlink_statustext *m);
size_t mavlink_pack_sys_status(const struct mavlink_sys_status *m, uint8_t *pl);
void mavlink_unpack_sys_status(const uint8_t *pl, struct mavlink_sys_status *m);
size_t mavlink_pack_set_mode(const struct mavlink_set_mode *m, uint8_t *pl);
void mavlink_unpack_set_mode(const uint8_t *pl, struct mavlink_set_mode *m);
size_t mavlink_pack_ekf_status_report(
	const struct mavlink_ekf_status_report *m, uint8_t *pl);
void mavlink_unpack_ekf_status_report(const uint8_t *pl,
				      struct mavlink_ekf_status_report *m);
size_t mavlink_pack_estimator_status(const struct mavlink_estimator_status *m,
				     uint8_t *pl);
void mavlink_unpack_estimator_status(const uint8_t *pl,
				     struct mavlink_estimator_status *m);
size_t mavlink_pack_extended_sys_state(
	const struct mavlink_extended_sys_state *m, uint8_t *pl);
void mavlink_unpack_extended_sys_state(const uint8_t *pl,
				       struct mavlink_extended_sys_state *m);

/* A parameter's value as PARAM_VALUE / PARAM_SET carry it.  PX4 says
 * MAV_PROTOCOL_CAPABILITY_PARAM_ENCODE_BYTEWISE: an integer parameter's
 * bits sit in the float's four bytes (bytewise true); ArduPilot sends
 * every value as a float (C cast).  REAL32 is a float either way. */
bool mavlink_param_type_integer(uint8_t type);
float mavlink_param_to_wire(uint8_t type, bool bytewise, double value);
double mavlink_param_from_wire(uint8_t type, bool bytewise, float wire);

#endif
