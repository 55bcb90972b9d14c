/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ArduPilot's SITL JSON physics interface (SIM_JSON), facts in
 * ../shared/docs/ardupilot-baro.md section 12:
 *
 *  - the binary servo packets SITL sends (16 or 32 channels);
 *  - ArduPilot's own reading of a JSON line: substring search, quirks and
 *    all, so tests can assert what ArduPilot would see;
 *  - the same fields read with a real JSON parser (json-c), for barod's
 *    proxy, which must not be fooled by key order;
 *  - how ArduPilot turns them into the baro's altitude and body-frame air
 *    velocity;
 *  - writing a physics reply, and inserting barod's own fields into an
 *    upstream reply without otherwise touching its text.
 *
 * Pure: buffers in, values out; no sockets, no clock, no globals.
 */
#ifndef BAROD_SIM_SITL_JSON_H
#define BAROD_SIM_SITL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "baro-sample.h"

#define SITL_SERVO_MAGIC_16 18458
#define SITL_SERVO_MAGIC_32 29569
#define SITL_SERVO_LEN_16 40
#define SITL_SERVO_LEN_32 72
#define SITL_JSON_PORT_BASE 9002	/* + 10 * instance */
#define SITL_JSON_MAX_LINE 65000	/* ArduPilot's receive buffer */

struct sitl_servo {
	uint16_t magic;
	uint16_t frame_rate;
	uint32_t frame_count;
	unsigned channels;		/* 16 or 32 */
	uint16_t pwm[32];
};

/* 0, or -EBADMSG (unknown magic) / -EMSGSIZE (length does not match the
 * magic's layout, or under the 2 bytes of a magic). */
int
sitl_servo_decode(const uint8_t *buf, size_t len, struct sitl_servo *out);

/* The bytes SITL would send; returns the length (40 or 72).  The layout
 * and the magic follow s->channels (32, else 16); s->magic is ignored. */
size_t
sitl_servo_encode(const struct sitl_servo *s, uint8_t out[SITL_SERVO_LEN_32]);

/* The vehicle classes ArduPilot's SITL derives SIM::throttle for: the
 * firmware built, not the physics model.  Copter's rule is also Sub's,
 * Heli's, Blimp's and every other vehicle but Plane and Rover. */
enum sitl_vehicle_kind {
	SITL_VEHICLE_COPTER,
	SITL_VEHICLE_PLANE,
	SITL_VEHICLE_ROVER,
};

/*
 * SIM::throttle from one frame's PWM outputs, as SITL_State's
 * _simulator_servos derives it before each physics step (the same
 * outputs go out in that step's servo packet), in float:
 *  - copter: over the motors of motor_mask, lowest bit first, the mean of
 *    constrain((pwm - 1000) / 1000, 0, 1) over those not zero (|x| >=
 *    FLT_EPSILON); 0 when none runs;
 *  - plane: channel 3's constrain((pwm - 1000) / 1000, 0, 1) when not
 *    zero, else the copter rule (a quadplane's lift motors);
 *  - rover: |constrain(pwm3, 1000, 2000) - 1500| / 500, 0 for pwm3 = 0.
 * Channels past `channels` (and past 32) read as PWM 0.  motor_mask is
 * sitl_fdm.motor_mask; the JSON model never sets Aircraft::motor_mask,
 * so there it is SIM_VIB_MOT_MASK alone (default 0: throttle 0).
 */
float
sitl_servo_throttle(enum sitl_vehicle_kind kind, const uint16_t *pwm,
		    unsigned channels, uint32_t motor_mask);

/* Bits of the received mask: ArduPilot's key table order (section 12.4). */
enum sitl_key {
	SITL_KEY_TIMESTAMP = 0,
	SITL_KEY_LATITUDE,
	SITL_KEY_LONGITUDE,
	SITL_KEY_ALTITUDE,
	SITL_KEY_GYRO,
	SITL_KEY_ACCEL_BODY,
	SITL_KEY_POSITION,
	SITL_KEY_ATTITUDE,
	SITL_KEY_QUATERNION,
	SITL_KEY_VELOCITY,
	SITL_KEY_RNG_1,		/* .. SITL_KEY_RNG_1 + 5 */
	SITL_KEY_VELOCITY_WIND = 16,
	SITL_KEY_WIND_DIRECTION,
	SITL_KEY_WIND_SPEED,
	SITL_KEY_AIRSPEED,
	SITL_KEY_NO_TIME_SYNC,
	SITL_KEY_NO_LOCKSTEP,
	SITL_KEY_RC_1,		/* .. SITL_KEY_RC_1 + 11 */
	SITL_KEY_VOLTAGE = 34,
	SITL_KEY_CURRENT,
	SITL_KEY_COUNT,
};

#define SITL_KEY_BIT(k) (UINT64_C(1) << (k))

/* One physics packet's fields; which ones came is in mask. */
struct sitl_fdm {
	uint64_t mask;
	double timestamp;		/* s */
	double latitude, longitude;	/* deg */
	double altitude;		/* m AMSL */
	float gyro[3];			/* rad/s body */
	float accel_body[3];		/* m/s^2 body */
	double position[3];		/* m NED from home */
	float attitude[3];		/* roll, pitch, yaw rad */
	float quaternion[4];		/* w, x, y, z */
	float velocity[3];		/* m/s NED */
	float rng[6];			/* m */
	float velocity_wind[3];
	float wind_direction, wind_speed, airspeed;
	bool no_time_sync, no_lockstep;
	float rc[12];
	float voltage, current;
};

/*
 * ArduPilot's SIM_JSON::parse_sensors on one line (section 12.5): for each
 * key in table order, strstr for the section then the key, set the bit,
 * skip the closing quote and one character, read the value (atof, strtof,
 * the bool rules, or the custom array scan).  Returns the mask, which is 0
 * when a mandatory key is missing (ArduPilot rejects the line then); an
 * array that fails to scan ends the parse with the mask so far, its bit
 * set and its value unchanged, as ArduPilot does.  Also stored in
 * fdm->mask; values of keys not found are left as they were.  Where
 * ArduPilot would step past the line's NUL (a section or key at its very
 * end) the text there reads as empty.
 */
uint64_t
sitl_json_ap_parse(const char *line, struct sitl_fdm *fdm);

/* ArduPilot accepts a line whose mask is non-zero and has attitude or
 * quaternion. */
bool
sitl_json_ap_accepts(uint64_t mask);

/*
 * The same keys read with json-c from one JSON object (a real parser:
 * key order and substrings do not matter; sections imu, windvane, rc,
 * battery are nested objects).  Returns 0 with fdm->mask set, or -EINVAL
 * for text that is not a JSON object, or a known key with the wrong type.
 * Only whitespace may follow the object.  As in ArduPilot the mask is 0
 * when a mandatory key is missing (the values that came are still
 * stored); on -EINVAL fdm is untouched.  Values as ArduPilot's atof and
 * strtoull read them, the same with every json-c release: a number is
 * the double strtod makes of its text (99999999999999999999 is 1e20,
 * -0 is -0.0, 1e400 is inf), a number for a bool is true when its
 * integer part is not 0.  A raw control character in a string is
 * -EINVAL; raw bytes above 0x7f in strings are taken, UTF-8 or not.
 */
int
sitl_json_parse(const char *text, size_t len, struct sitl_fdm *fdm);

/*
 * The same as sitl_json_parse, in one pass over the text without
 * building a tree, for the proxy's every frame: the text must be JSON
 * (RFC 8259, plus NaN, Infinity and -Infinity as Python writes them);
 * forms json-c also takes ('names', 1., 00) are -EINVAL here.  Whatever
 * this accepts, sitl_json_parse accepts with the same result (the fuzz
 * target checks it).
 */
int
sitl_json_scan(const char *text, size_t len, struct sitl_fdm *fdm);

/*
 * What ArduPilot's SITL hands its baro for one accepted packet (section
 * 12.6): the altitude (cm-truncated as in section 4; from latitude,
 * longitude and altitude when all three came, else home - position[2])
 * and the body-frame air velocity (dcm^T * velocity from the quaternion,
 * else from attitude; unchanged when "airspeed" came).  state carries the
 * air velocity between packets.  Returns 0, -EINVAL for a mask ArduPilot
 * rejects or a non-finite altitude, -ERANGE for centimetres beyond int32.
 */
struct sitl_truth {
	float vel_air_bf[3];
	/* The last accepted packet's location.alt, centimetres: its
	 * baro_sitl_state_altitude() is what SITL's height above ground
	 * (baro_sitl_agl_update) is taken from. */
	int32_t alt_cm;
};

int
sitl_truth_update(struct sitl_truth *state, const struct sitl_fdm *fdm,
		  double home_alt_m, float *alt_amsl_m);

/* A physics reply for the peer: "\n{...}\n", compact ("k":v), keys in
 * ArduPilot's table order, with `fields` (already formatted, ending in a
 * comma, or "") inserted right after the opening brace.  Returns the
 * length (buf is NUL-terminated, so cap must exceed it), -ENOSPC, or
 * -EINVAL if a value is not finite. */
struct sitl_vehicle {
	double timestamp;
	float gyro[3];
	float accel_body[3];
	double position[3];
	float attitude[3];
	float velocity[3];
};

int
sitl_json_format_reply(char *buf, size_t cap, const struct sitl_vehicle *v,
		       const char *fields);

/* barod's own fields: rng_N for the mapped instances, then one object
 * "barod" with every instance's pressure, temperature, height above home
 * and health.  No key contains any substring ArduPilot searches for.
 * Ends in a comma, ready for insertion.  Returns the length (NUL-
 * terminated), -ENOSPC, or -EINVAL for a count above BARO_MAX_INSTANCES,
 * an rng_instance not below count, or a printed value that is not
 * finite. */
struct sitl_baro_fields {
	int rng_instance[6];		/* -1: rng_N not sent */
	unsigned count;			/* instances */
	float pressure_pa[BARO_MAX_INSTANCES];
	float temperature_c[BARO_MAX_INSTANCES];
	float height_m[BARO_MAX_INSTANCES];	/* above home */
	bool healthy[BARO_MAX_INSTANCES];
};

int
sitl_json_format_fields(char *buf, size_t cap,
			const struct sitl_baro_fields *f);

/*
 * Copy one upstream JSON object line with fields inserted right after its
 * first '{' (so ArduPilot's first-match search finds barod's rng_N before
 * any upstream one); every other byte is kept.  Returns the new length
 * (out is NUL-terminated, so cap must exceed it; line and out must not
 * overlap), -EINVAL if the line has no '{', -ENOSPC if out is too small.
 */
int
sitl_json_insert(const char *line, size_t len, const char *fields,
		 char *out, size_t cap);

#endif
