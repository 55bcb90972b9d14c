/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * SITL JSON: the servo codec, ArduPilot's substring parser against the
 * facts sheet (TV13 and its quirks), the json-c parser, the truth
 * derivation (TV4's JSON examples), replies that both parsers read back
 * bit for bit, and insertion into upstream lines.
 */
#include <errno.h>
#include <float.h>
#include <stdlib.h>

#include "atmosphere.h"
#include "baro-sitl.h"
#include "sim-params.h"
#include "sitl-json-keys.h"
#include "sitl-json.h"
#include "test-util.h"

#define BIT(k) SITL_KEY_BIT(SITL_KEY_##k)
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Parsing must reproduce values exactly on every platform (strtod and
 * strtof round correctly), so these compare bits, not ulps. */
#define assert_float_bits(actual, expected)                                   \
	do {                                                                  \
		float a_ = (actual), e_ = (expected);                         \
		if (memcmp(&a_, &e_, sizeof(a_)) != 0)                        \
			fail_msg("%s = %.9g (%a), expected %.9g (%a)",        \
				 #actual, (double)a_, (double)a_,             \
				 (double)e_, (double)e_);                     \
	} while (0)

#define assert_double_bits(actual, expected)                                  \
	do {                                                                  \
		double a_ = (actual), e_ = (expected);                        \
		if (memcmp(&a_, &e_, sizeof(a_)) != 0)                        \
			fail_msg("%s = %.17g (%a), expected %.17g (%a)",      \
				 #actual, a_, a_, e_, e_);                    \
	} while (0)

static void
assert_vec_bits(const float *actual, const float *expected, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		assert_float_bits(actual[i], expected[i]);
}

static uint64_t
ap(const char *line, struct sitl_fdm *fdm)
{
	memset(fdm, 0, sizeof(*fdm));
	return sitl_json_ap_parse(line, fdm);
}

/* json-c's reading; the proxy's one-pass reader must agree with it on
 * every text these tests give. */
static int
jc(const char *text, struct sitl_fdm *fdm)
{
	struct sitl_fdm scanned;

	memset(fdm, 0, sizeof(*fdm));
	memset(&scanned, 0, sizeof(scanned));
	const int rc = sitl_json_parse(text, strlen(text), fdm);
	if (sitl_json_scan(text, strlen(text), &scanned) != rc)
		fail_msg("json-c and the scan disagree on: %s", text);
	assert_memory_equal(&scanned, fdm, sizeof(scanned));
	return rc;
}

/* The mandatory keys and an attitude, ahead of whatever a test adds;
 * TAIL is all of it but the timestamp. */
#define TAIL ",\"imu\":{\"gyro\":[0,0,0],\"accel_body\":[0,0,-9.81]},"     \
	     "\"attitude\":[0,0,0],\"velocity\":[1,2,3]"
#define BASE "{\"timestamp\":1" TAIL
#define BASE_MASK (BIT(TIMESTAMP) | BIT(GYRO) | BIT(ACCEL_BODY) |            \
		   BIT(ATTITUDE) | BIT(VELOCITY))

static const char tv13_basic[] =
	"{\"timestamp\":1.5,\"imu\":{\"gyro\":[0.1,0.2,0.3],"
	"\"accel_body\":[0,0,-9.81]},\"position\":[1,2,-3],"
	"\"attitude\":[0,0,1.5708],\"velocity\":[1,0,0]}";

static const char tv13_wind[] =
	"{\"timestamp\":2,\"imu\":{\"gyro\":[0,0,0],"
	"\"accel_body\":[0,0,-9.81]},\"velocity_wind\":[3,4,5],"
	"\"velocity\":[1,0,0],\"quaternion\":[1,0,0,0]}";

/* ------------------------------------------------------------------ */
/* Servo packets: little-endian, no padding, length fixed by the magic. */
static void
test_servo_layout(void **state)
{
	struct sitl_servo s = { .frame_rate = 1200, .frame_count = 0x01020304,
				.channels = 16 };
	struct sitl_servo d;
	uint8_t buf[SITL_SERVO_LEN_32];
	(void)state;

	for (unsigned i = 0; i < 16; i++)
		s.pwm[i] = (uint16_t)(1000 + 61 * i);
	assert_int_equal(sitl_servo_encode(&s, buf), SITL_SERVO_LEN_16);
	static const uint8_t head[] = { 0x1a, 0x48, 0xb0, 0x04,
					0x04, 0x03, 0x02, 0x01,
					0xe8, 0x03, 0x25, 0x04 };
	assert_memory_equal(buf, head, sizeof(head));
	assert_int_equal(buf[38] | buf[39] << 8, 1000 + 61 * 15);

	assert_int_equal(sitl_servo_decode(buf, SITL_SERVO_LEN_16, &d), 0);
	assert_int_equal(d.magic, SITL_SERVO_MAGIC_16);
	assert_int_equal(d.frame_rate, 1200);
	assert_int_equal(d.frame_count, 0x01020304);
	assert_int_equal(d.channels, 16);
	assert_memory_equal(d.pwm, s.pwm, 16 * sizeof(uint16_t));
	for (unsigned i = 16; i < 32; i++)
		assert_int_equal(d.pwm[i], 0);

	s.channels = 32;
	s.frame_count = UINT32_MAX;
	for (unsigned i = 0; i < 32; i++)
		s.pwm[i] = (uint16_t)(65535 - i);
	assert_int_equal(sitl_servo_encode(&s, buf), SITL_SERVO_LEN_32);
	assert_int_equal(buf[0] | buf[1] << 8, SITL_SERVO_MAGIC_32);
	assert_int_equal(sitl_servo_decode(buf, SITL_SERVO_LEN_32, &d), 0);
	assert_int_equal(d.magic, SITL_SERVO_MAGIC_32);
	assert_int_equal(d.channels, 32);
	assert_int_equal(d.frame_count, UINT32_MAX);
	assert_memory_equal(d.pwm, s.pwm, sizeof(s.pwm));

	/* The layout follows channels; a stale magic does not matter. */
	s.magic = SITL_SERVO_MAGIC_32;
	s.channels = 16;
	assert_int_equal(sitl_servo_encode(&s, buf), SITL_SERVO_LEN_16);
	assert_int_equal(buf[0] | buf[1] << 8, SITL_SERVO_MAGIC_16);
}

static void
test_servo_errors(void **state)
{
	uint8_t buf[SITL_SERVO_LEN_32 + 1] = { 0 };
	struct sitl_servo d;
	(void)state;

	assert_int_equal(sitl_servo_decode(buf, 0, &d), -EMSGSIZE);
	buf[0] = 0x1a;
	assert_int_equal(sitl_servo_decode(buf, 1, &d), -EMSGSIZE);
	buf[1] = 0x48;
	assert_int_equal(sitl_servo_decode(buf, 39, &d), -EMSGSIZE);
	assert_int_equal(sitl_servo_decode(buf, 41, &d), -EMSGSIZE);
	assert_int_equal(sitl_servo_decode(buf, 72, &d), -EMSGSIZE);
	assert_int_equal(sitl_servo_decode(buf, 40, &d), 0);

	buf[0] = 0x81; /* 29569 = 0x7381 */
	buf[1] = 0x73;
	assert_int_equal(sitl_servo_decode(buf, 40, &d), -EMSGSIZE);
	assert_int_equal(sitl_servo_decode(buf, 73, &d), -EMSGSIZE);
	assert_int_equal(sitl_servo_decode(buf, 72, &d), 0);

	/* Big-endian magic, or a neighbour of a real one. */
	buf[0] = 0x48;
	buf[1] = 0x1a;
	assert_int_equal(sitl_servo_decode(buf, 40, &d), -EBADMSG);
	buf[0] = 0x1b;
	buf[1] = 0x48;
	assert_int_equal(sitl_servo_decode(buf, 40, &d), -EBADMSG);
	buf[0] = 0;
	buf[1] = 0;
	assert_int_equal(sitl_servo_decode(buf, 2, &d), -EBADMSG);
}

/* A servo packet's throttle, through the wire format: encode what SITL
 * sends, decode it, derive SIM::throttle.  python3 in float32 steps.
 * pwm holds 32 channels; the first `channels` go out. */
static float
packet_throttle(enum sitl_vehicle_kind kind, const uint16_t *pwm,
		unsigned channels, uint32_t mask)
{
	struct sitl_servo s = { .channels = channels }, d;
	uint8_t buf[SITL_SERVO_LEN_32];

	memcpy(s.pwm, pwm, channels * sizeof(pwm[0]));
	size_t len = sitl_servo_encode(&s, buf);
	assert_int_equal(sitl_servo_decode(buf, len, &d), 0);
	return sitl_servo_throttle(kind, d.pwm, d.channels, mask);
}

static void
test_servo_throttle_copter(void **state)
{
	uint16_t pwm[32] = { 1000, 1500, 2000, 1250 };
	(void)state;

	/* Motor 1 at 1000 is stopped: (0.5 + 1 + 0.25) / 3 = 0.583333313. */
	assert_float_exact(packet_throttle(SITL_VEHICLE_COPTER, pwm, 16, 0xf),
			   0x1.2aaaaap-1f);
	/* The throttles: PWM 1010 is 0.00999999978 (10 / 1000.0f),
	 * 1600 is 0.600000024. */
	const uint16_t low[32] = { 1010, 1010, 1010, 1010 };
	assert_float_exact(packet_throttle(SITL_VEHICLE_COPTER, low, 16, 0xf),
			   0x1.47ae14p-7f);
	assert_float_exact(0x1.47ae14p-7f, 0.01f);
	const uint16_t hover[32] = { 1600, 1600, 1600, 1600 };
	assert_float_exact(packet_throttle(SITL_VEHICLE_COPTER, hover, 16,
					   0xf),
			   0.6f);
	/* Below 1000 (and a channel not output, 0) is a stopped motor;
	 * above 2000 is full. */
	const uint16_t odd[32] = { 900, 0, 2500, 1500 };
	assert_float_exact(packet_throttle(SITL_VEHICLE_COPTER, odd, 16, 0xf),
			   0.75f);
	/* The JSON model's mask is SIM_VIB_MOT_MASK, 0 by default: 0. */
	assert_float_exact(packet_throttle(SITL_VEHICLE_COPTER, hover, 16, 0),
			   0.0f);
	/* Mask bits past a 16-channel packet read PWM 0; a 32-channel
	 * packet carries them. */
	pwm[20] = 1800;
	assert_float_exact(packet_throttle(SITL_VEHICLE_COPTER, pwm, 16,
					   UINT32_C(1) << 20),
			   0.0f);
	assert_float_exact(packet_throttle(SITL_VEHICLE_COPTER, pwm, 32,
					   UINT32_C(1) << 20),
			   0.8f);
	/* Every motor idle at 1000: 0. */
	const uint16_t idle[32] = { 1000, 1000, 1000, 1000 };
	assert_float_exact(packet_throttle(SITL_VEHICLE_COPTER, idle, 16, 0xf),
			   0.0f);
}

static void
test_servo_throttle_plane_rover(void **state)
{
	uint16_t pwm[32] = { 1500, 1500, 1600, 1500, 1700, 1700, 1700, 1700 };
	(void)state;

	/* Plane: channel 3 when it runs, else the lift motors' mean. */
	assert_float_exact(packet_throttle(SITL_VEHICLE_PLANE, pwm, 16, 0xf0),
			   0.6f);
	pwm[2] = 1000;
	assert_float_exact(packet_throttle(SITL_VEHICLE_PLANE, pwm, 16, 0xf0),
			   0.7f);
	pwm[2] = 0;
	assert_float_exact(packet_throttle(SITL_VEHICLE_PLANE, pwm, 16, 0),
			   0.0f);

	/* Rover: |pwm3 - 1500| / 500 with pwm3 in [1000, 2000]; 0 unset. */
	static const struct {
		uint16_t pwm3;
		float thr;
	} rover[] = {
		{ 1250, 0.5f }, { 1500, 0.0f }, { 1750, 0.5f }, { 2600, 1.0f },
		{ 800, 1.0f }, { 0, 0.0f }, { 1501, 0.002f },
	};
	for (size_t i = 0; i < sizeof(rover) / sizeof(rover[0]); i++) {
		pwm[2] = rover[i].pwm3;
		assert_float_exact(packet_throttle(SITL_VEHICLE_ROVER, pwm, 16,
						   0xf),
				   rover[i].thr);
	}
}

/* ------------------------------------------------------------------ */
/* The table against the facts sheet's section 12.4, written out here
 * independently. */
static void
test_key_table(void **state)
{
	static const char *const names[SITL_KEY_COUNT][2] = {
		{ "", "timestamp" }, { "", "latitude" }, { "", "longitude" },
		{ "", "altitude" }, { "imu", "gyro" }, { "imu", "accel_body" },
		{ "", "position" }, { "", "attitude" }, { "", "quaternion" },
		{ "", "velocity" }, { "", "rng_1" }, { "", "rng_2" },
		{ "", "rng_3" }, { "", "rng_4" }, { "", "rng_5" },
		{ "", "rng_6" }, { "", "velocity_wind" },
		{ "windvane", "direction" }, { "windvane", "speed" },
		{ "", "airspeed" }, { "", "no_time_sync" },
		{ "", "no_lockstep" }, { "rc", "rc_1" }, { "rc", "rc_2" },
		{ "rc", "rc_3" }, { "rc", "rc_4" }, { "rc", "rc_5" },
		{ "rc", "rc_6" }, { "rc", "rc_7" }, { "rc", "rc_8" },
		{ "rc", "rc_9" }, { "rc", "rc_10" }, { "rc", "rc_11" },
		{ "rc", "rc_12" }, { "battery", "voltage" },
		{ "battery", "current" },
	};
	(void)state;

	assert_int_equal(SITL_KEY_COUNT, 36);
	for (unsigned k = 0; k < SITL_KEY_COUNT; k++) {
		assert_string_equal(sitl_json_keys[k].section, names[k][0]);
		assert_string_equal(sitl_json_keys[k].key, names[k][1]);
		const bool required = k == SITL_KEY_TIMESTAMP ||
				      k == SITL_KEY_GYRO ||
				      k == SITL_KEY_ACCEL_BODY ||
				      k == SITL_KEY_VELOCITY;
		assert_int_equal(sitl_json_keys[k].required, required);
	}
}

/* ------------------------------------------------------------------ */
/* TV13, first vector: the basic line. */
static void
test_ap_tv13_basic(void **state)
{
	struct sitl_fdm f;
	(void)state;

	assert_int_equal(ap(tv13_basic, &f), 0x2F1);
	assert_int_equal(f.mask, 0x2F1);
	assert_true(sitl_json_ap_accepts(f.mask));
	assert_double_bits(f.timestamp, 1.5);
	assert_vec_bits(f.gyro, (float[]){ 0.1f, 0.2f, 0.3f }, 3);
	assert_vec_bits(f.accel_body, (float[]){ 0.0f, 0.0f, -9.81f }, 3);
	assert_double_bits(f.position[0], 1.0);
	assert_double_bits(f.position[1], 2.0);
	assert_double_bits(f.position[2], -3.0);
	assert_vec_bits(f.attitude, (float[]){ 0.0f, 0.0f, 1.5708f }, 3);
	assert_vec_bits(f.velocity, (float[]){ 1.0f, 0.0f, 0.0f }, 3);
}

/* TV13, second vector: "velocity" is found inside "velocity_wind". */
static void
test_ap_tv13_velocity_wind(void **state)
{
	struct sitl_fdm f;
	(void)state;

	assert_int_equal(ap(tv13_wind, &f), 0x10331);
	assert_true(sitl_json_ap_accepts(f.mask));
	assert_vec_bits(f.velocity, (float[]){ 3.0f, 4.0f, 5.0f }, 3);
	assert_vec_bits(f.velocity_wind, (float[]){ 3.0f, 4.0f, 5.0f }, 3);
	assert_vec_bits(f.quaternion, (float[]){ 1.0f, 0.0f, 0.0f, 0.0f }, 4);
	assert_double_bits(f.timestamp, 2.0);
}

/* TV13's quirks: ".5" is 5, a space before the colon reads 0, a missing
 * mandatory key rejects the line, and the bool rules. */
static void
test_ap_tv13_quirks(void **state)
{
	struct sitl_fdm f;
	(void)state;

	assert_int_equal(ap("{\"timestamp\":1,\"imu\":{\"gyro\":[.5,0,0],"
			    "\"accel_body\":[0,0,0]},\"attitude\":[0,0,0],"
			    "\"velocity\":[-.5,0,0]}", &f),
			 BASE_MASK);
	assert_float_bits(f.gyro[0], 5.0f);
	assert_float_bits(f.velocity[0], -0.5f);

	f.timestamp = 7.0;
	assert_int_equal(sitl_json_ap_parse("{\"timestamp\" : 2.5" TAIL "}",
					    &f),
			 BASE_MASK);
	assert_double_bits(f.timestamp, 0.0);

	/* Whitespace after the colon is fine. */
	assert_int_equal(ap("{\"timestamp\": 2.5" TAIL "}", &f),
			 BASE_MASK);
	assert_double_bits(f.timestamp, 2.5);

	assert_int_equal(ap("{\"timestamp\":1,\"imu\":{\"gyro\":[0,0,0],"
			    "\"accel_body\":[0,0,0]},\"attitude\":[0,0,0]}",
			    &f),
			 0);
	assert_int_equal(f.mask, 0);
	assert_false(sitl_json_ap_accepts(0));

	assert_int_equal(ap(BASE ",\"no_time_sync\":TRUE,\"no_lockstep\":0}",
			    &f),
			 0x3002B1);
	assert_true(f.no_time_sync);
	assert_false(f.no_lockstep);
}

/* true/false as any-case prefixes, else strtoull != 0. */
static void
test_ap_bool_rules(void **state)
{
	static const struct {
		const char *text;
		bool value;
	} tv[] = {
		{ "true", true },   { "TRUE", true },    { "tRuEx", true },
		{ "false", false }, { "FALSE", false },  { "falsey", false },
		{ "1", true },      { "0", false },      { "2", true },
		{ "-1", true },     { " true", false },  { " 1", true },
		{ "yes", false },   { "0.9", false },    { "1.5", true },
		{ "", false },      { "99999999999999999999", true },
	};
	char line[256];
	struct sitl_fdm f;
	(void)state;

	for (size_t i = 0; i < ARRAY_LEN(tv); i++) {
		snprintf(line, sizeof(line), BASE ",\"no_lockstep\":%s}",
			 tv[i].text);
		memset(&f, 0, sizeof(f));
		f.no_lockstep = !tv[i].value;
		assert_int_equal(sitl_json_ap_parse(line, &f),
				 BASE_MASK | BIT(NO_LOCKSTEP));
		if (f.no_lockstep != tv[i].value)
			fail_msg("\"%s\" read as %d", tv[i].text,
				 f.no_lockstep);
	}
}

/* The array scan: start at '-' or a digit, strtod, then ',' between
 * elements. */
static void
test_ap_array_scan(void **state)
{
	static const struct {
		const char *text;
		float v[3];
	} ok[] = {
		{ "[1,2,3]", { 1, 2, 3 } },
		{ "[ 1 , 2 , 3 ]", { 1, 2, 3 } },
		{ "[.5,-.5,+5]", { 5, -0.5f, 5 } },
		{ "[1e2,-2.5E-1,0x10]", { 100, -0.25f, 16 } },
		{ "[a1,b2,c3]", { 1, 2, 3 } },
		/* Unclosed, or running on into the next key's numbers. */
		{ "[1,2,3", { 1, 2, 3 } },
		{ "[],\"x\":[7,8,9]", { 7, 8, 9 } },
		{ "[1,2,],\"x\":4", { 1, 2, 4 } },
		/* The text after a number up to ',' is skipped. */
		{ "[1abc,2 x,3]", { 1, 2, 3 } },
		/* A '-' with no number reads 0. */
		{ "[-,-x,3]", { 0, 0, 3 } },
		/* Past 3 elements nothing is read. */
		{ "[1,2,3,4]", { 1, 2, 3 } },
	};
	static const char *const bad[] = {
		"[1,2]", "[1 2 3]", "[1,2,]", "[]", "", "[1;2;3]", "[1,2]3,4",
		"[1,2 ]x,3]",
	};
	char line[256];
	struct sitl_fdm f;
	(void)state;

	for (size_t i = 0; i < ARRAY_LEN(ok); i++) {
		snprintf(line, sizeof(line), BASE ",\"velocity_wind\":%s}",
			 ok[i].text);
		assert_int_equal(ap(line, &f),
				 BASE_MASK | BIT(VELOCITY_WIND));
		assert_vec_bits(f.velocity_wind, ok[i].v, 3);
	}
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		/* The failing key ends the parse: its bit set, its value
		 * untouched, nothing after it read. */
		snprintf(line, sizeof(line),
			 BASE ",\"velocity_wind\":%s,\"no_lockstep\":true}",
			 bad[i]);
		memset(&f, 0, sizeof(f));
		f.velocity_wind[0] = 42.0f;
		assert_int_equal(sitl_json_ap_parse(line, &f),
				 BASE_MASK | BIT(VELOCITY_WIND));
		assert_float_bits(f.velocity_wind[0], 42.0f);
		assert_false(f.no_lockstep);
	}

	/* Elements go through strtod then float: a decimal just above a
	 * float tie lands exactly on it in double and rounds to even. */
	assert_int_equal(ap(BASE ",\"velocity_wind\":"
			    "[1.0000000596046447753906251,0,0]}", &f),
			 BASE_MASK | BIT(VELOCITY_WIND));
	assert_float_bits(f.velocity_wind[0], 1.0f);
	/* Vector3d keeps the double. */
	assert_int_equal(ap(BASE ",\"position\":[0.1,-1e300,4.9e-324]}", &f),
			 BASE_MASK | BIT(POSITION));
	assert_double_bits(f.position[0], 0.1);
	assert_double_bits(f.position[1], -1e300);
	assert_double_bits(f.position[2], 4.9e-324);
	assert_int_equal(ap(BASE ",\"quaternion\":[0.5,-0.5,0.25,1]}", &f),
			 BASE_MASK | BIT(QUATERNION));
	assert_vec_bits(f.quaternion, (float[]){ 0.5f, -0.5f, 0.25f, 1.0f },
			4);
}

/* Scalar floats are strtof, not (float)atof. */
static void
test_ap_float_scalars(void **state)
{
	struct sitl_fdm f;
	(void)state;

	assert_int_equal(ap(BASE ",\"rng_1\":1.0000000596046447753906251,"
			    "\"airspeed\":-0.0}", &f),
			 BASE_MASK | BIT(RNG_1) | BIT(AIRSPEED));
	assert_float_bits(f.rng[0], 1.00000012f);
	assert_float_bits(f.airspeed, -0.0f);

	/* Doubles are atof: hex, nan and inf included. */
	assert_int_equal(ap("{\"timestamp\":0x1p-2" TAIL
			    ",\"latitude\":nan,\"altitude\":-inf}", &f),
			 BASE_MASK | BIT(LATITUDE) | BIT(ALTITUDE));
	assert_double_bits(f.timestamp, 0.25);
	assert_true(isnan(f.latitude));
	assert_true(isinf(f.altitude) && f.altitude < 0);
	/* Text that is no number reads 0. */
	assert_int_equal(ap(BASE ",\"rng_2\":\"x\",\"rng_3\":}", &f),
			 BASE_MASK | BIT(RNG_1 + 1) | BIT(RNG_1 + 2));
	assert_float_bits(f.rng[1], 0.0f);
	assert_float_bits(f.rng[2], 0.0f);
}

/* A failed array after the attitude still gives an accepted line, with
 * the failing value and everything after it left stale. */
static void
test_ap_failed_array_accepted(void **state)
{
	struct sitl_fdm f;
	(void)state;

	memset(&f, 0, sizeof(f));
	f.velocity[0] = 9.0f;
	f.attitude[2] = 1.0f;
	assert_int_equal(sitl_json_ap_parse(
				 "{\"timestamp\":1,\"imu\":{\"gyro\":[0,0,0],"
				 "\"accel_body\":[0,0,0]},\"attitude\":[0,0],"
				 "\"velocity\":[1,2,3]}", &f),
			 BIT(TIMESTAMP) | BIT(GYRO) | BIT(ACCEL_BODY) |
				 BIT(ATTITUDE));
	assert_true(sitl_json_ap_accepts(f.mask));
	assert_float_bits(f.attitude[2], 1.0f);
	assert_float_bits(f.velocity[0], 9.0f);

	/* A failed gyro ends the parse before the attitude: rejected. */
	assert_int_equal(ap("{\"timestamp\":1,\"imu\":{\"gyro\":[0,0],"
			    "\"accel_body\":[0,0,0]},\"attitude\":[0,0,0],"
			    "\"velocity\":[1,2,3]}", &f),
			 BIT(TIMESTAMP) | BIT(GYRO));
	assert_false(sitl_json_ap_accepts(f.mask));
}

/* Substring search, first match, section only as a starting point. */
static void
test_ap_substrings(void **state)
{
	struct sitl_fdm f;
	(void)state;

	/* rc_1 is found inside an earlier rc_10, and "+ 2" then lands on
	 * `":1900`, which reads 0. */
	memset(&f, 0, sizeof(f));
	f.rc[0] = 5.0f;
	assert_int_equal(sitl_json_ap_parse(
				 BASE ",\"rc\":{\"rc_10\":1900,\"rc_1\":1100}}",
				 &f),
			 BASE_MASK | BIT(RC_1) | BIT(RC_1 + 9));
	assert_float_bits(f.rc[0], 0.0f);
	assert_float_bits(f.rc[9], 1900.0f);

	/* windvane's "speed" is found inside a later "airspeed". */
	assert_int_equal(ap(BASE ",\"windvane\":{\"direction\":1.25},"
			    "\"airspeed\":7.5}", &f),
			 BASE_MASK | BIT(WIND_DIRECTION) | BIT(WIND_SPEED) |
				 BIT(AIRSPEED));
	assert_float_bits(f.wind_direction, 1.25f);
	assert_float_bits(f.wind_speed, 7.5f);

	/* The key is searched after the section's first occurrence, not
	 * inside it: a gyro before "imu" is skipped, one after it is taken
	 * even outside the imu object. */
	assert_int_equal(ap("{\"gyro\":[9,9,9],\"timestamp\":1,"
			    "\"imu\":{\"accel_body\":[0,0,0]},"
			    "\"gyro\":[1,2,3],\"attitude\":[0,0,0],"
			    "\"velocity\":[0,0,0]}", &f),
			 BASE_MASK);
	assert_vec_bits(f.gyro, (float[]){ 1, 2, 3 }, 3);

	/* The "rc" section is the first "rc" anywhere, e.g. in "source";
	 * the battery section is found even as a plain word. */
	assert_int_equal(ap(BASE ",\"source\":\"rc_2\":1500,battery "
			    "voltage\":12.5}", &f),
			 BASE_MASK | BIT(RC_1 + 1) | BIT(VOLTAGE));
	assert_float_bits(f.rc[1], 1500.0f);
	assert_float_bits(f.voltage, 12.5f);

	/* The empty section skips the first character: a key at the very
	 * start of the line is not found. */
	assert_int_equal(ap("timestamp\":1" TAIL, &f), 0);
	assert_int_equal(ap(" timestamp\":1" TAIL, &f), BASE_MASK);
}

/* Sections and keys at the very end of the line: nothing past the NUL
 * is read (ASan checks it), the text there reads as empty. */
static void
test_ap_line_end(void **state)
{
	static const char *const lines[] = {
		"", "{", "x", "imu", "\"imu", "rc", "battery", "windvane",
		"{\"timestamp",
		"{\"timestamp\"",
		"{\"timestamp\":",
		"{\"timestamp\":1,\"imu",
		"{\"timestamp\":1,\"imu\"",
		"{\"timestamp\":1,\"imu\":{\"gyro",
		"{\"timestamp\":1,\"imu\":{\"gyro\":[1,2",
		BASE ",\"rc",
		BASE ",\"rc_1",
		BASE ",\"velocity_wind\":[",
		BASE ",\"no_lockstep",
	};
	struct sitl_fdm f;
	(void)state;

	for (size_t i = 0; i < ARRAY_LEN(lines); i++) {
		/* Exactly sized copies, so ASan sees any over-read. */
		size_t n = strlen(lines[i]);
		char *line = malloc(n + 1);
		assert_non_null(line);
		memcpy(line, lines[i], n + 1);
		(void)ap(line, &f);
		free(line);
	}

	assert_int_equal(ap("", &f), 0);
	/* A key at the end has its bit, and reads the empty text. */
	memset(&f, 0, sizeof(f));
	f.rng[0] = 3.0f;
	f.no_lockstep = true;
	assert_int_equal(sitl_json_ap_parse(BASE ",\"rng_1", &f),
			 BASE_MASK | BIT(RNG_1));
	assert_float_bits(f.rng[0], 0.0f);
	assert_int_equal(sitl_json_ap_parse(BASE ",\"no_lockstep\"", &f),
			 BASE_MASK | BIT(NO_LOCKSTEP));
	assert_false(f.no_lockstep);
	assert_int_equal(sitl_json_ap_parse(BASE ",\"velocity_wind", &f),
			 BASE_MASK | BIT(VELOCITY_WIND));
	/* A section at the end finds no key after it. */
	assert_int_equal(ap(BASE ",\"rc", &f), BASE_MASK);
	assert_int_equal(ap(BASE ",rc", &f), BASE_MASK);
}

/* A rejected line has still written the values before the missing key,
 * as ArduPilot's parser writes straight into its state. */
static void
test_ap_rejected_writes_through(void **state)
{
	struct sitl_fdm f;
	(void)state;

	assert_int_equal(ap("{\"timestamp\":4,\"imu\":{\"gyro\":[1,2,3],"
			    "\"accel_body\":[4,5,6]},\"rng_1\":3}", &f),
			 0);
	assert_double_bits(f.timestamp, 4.0);
	assert_vec_bits(f.accel_body, (float[]){ 4, 5, 6 }, 3);
	/* Rows after the missing velocity are not read. */
	assert_float_bits(f.rng[0], 0.0f);
}

/* Every key of the table in one line, each with its own value. */
static const char full_line[] =
	"\n{\"timestamp\":10.25,\"latitude\":-35.3632621,"
	"\"longitude\":149.1652374,\"altitude\":584.07,"
	"\"imu\":{\"gyro\":[0.01,-0.02,0.03],\"accel_body\":[0.1,0.2,-9.8]},"
	"\"position\":[10.5,-20.25,-3.125],\"attitude\":[0.1,-0.2,3.1],"
	"\"quaternion\":[0.9,0.1,-0.2,0.3],\"velocity\":[5,-2,0.5],"
	"\"rng_1\":1.5,\"rng_2\":2.5,\"rng_3\":3.5,\"rng_4\":4.5,"
	"\"rng_5\":5.5,\"rng_6\":6.5,\"velocity_wind\":[1,2,3],"
	"\"windvane\":{\"direction\":1.2,\"speed\":4},\"airspeed\":12.5,"
	"\"no_time_sync\":true,\"no_lockstep\":false,"
	"\"rc\":{\"rc_1\":1001,\"rc_2\":1002,\"rc_3\":1003,\"rc_4\":1004,"
	"\"rc_5\":1005,\"rc_6\":1006,\"rc_7\":1007,\"rc_8\":1008,"
	"\"rc_9\":1009,\"rc_10\":1010,\"rc_11\":1011,\"rc_12\":1012},"
	"\"battery\":{\"voltage\":12.6,\"current\":3.2}}\n";

static void
check_full(const struct sitl_fdm *f)
{
	assert_int_equal(f->mask, (UINT64_C(1) << SITL_KEY_COUNT) - 1);
	assert_double_bits(f->timestamp, 10.25);
	assert_double_bits(f->latitude, -35.3632621);
	assert_double_bits(f->longitude, 149.1652374);
	assert_double_bits(f->altitude, 584.07);
	assert_vec_bits(f->gyro, (float[]){ 0.01f, -0.02f, 0.03f }, 3);
	assert_vec_bits(f->accel_body, (float[]){ 0.1f, 0.2f, -9.8f }, 3);
	assert_double_bits(f->position[0], 10.5);
	assert_double_bits(f->position[1], -20.25);
	assert_double_bits(f->position[2], -3.125);
	assert_vec_bits(f->attitude, (float[]){ 0.1f, -0.2f, 3.1f }, 3);
	assert_vec_bits(f->quaternion, (float[]){ 0.9f, 0.1f, -0.2f, 0.3f },
			4);
	assert_vec_bits(f->velocity, (float[]){ 5, -2, 0.5f }, 3);
	for (unsigned i = 0; i < 6; i++)
		assert_float_bits(f->rng[i], 1.5f + (float)i);
	assert_vec_bits(f->velocity_wind, (float[]){ 1, 2, 3 }, 3);
	assert_float_bits(f->wind_direction, 1.2f);
	assert_float_bits(f->wind_speed, 4.0f);
	assert_float_bits(f->airspeed, 12.5f);
	assert_true(f->no_time_sync);
	assert_false(f->no_lockstep);
	for (unsigned i = 0; i < 12; i++)
		assert_float_bits(f->rc[i], 1001.0f + (float)i);
	assert_float_bits(f->voltage, 12.6f);
	assert_float_bits(f->current, 3.2f);
}

static void
test_ap_all_keys(void **state)
{
	struct sitl_fdm f;
	(void)state;

	(void)ap(full_line, &f);
	check_full(&f);
}

/* ------------------------------------------------------------------ */
/* json-c: the same fields, from a real parser. */
static void
test_json_all_keys(void **state)
{
	struct sitl_fdm f;
	(void)state;

	assert_int_equal(jc(full_line, &f), 0);
	check_full(&f);
}

static void
test_json_tv13(void **state)
{
	struct sitl_fdm a, j;
	(void)state;

	assert_int_equal(jc(tv13_basic, &j), 0);
	assert_int_equal(ap(tv13_basic, &a), 0x2F1);
	assert_int_equal(j.mask, 0x2F1);
	assert_memory_equal(&a, &j, sizeof(a));

	/* A real parser is not fooled by key order. */
	assert_int_equal(jc(tv13_wind, &j), 0);
	assert_int_equal(j.mask, 0x10331);
	assert_vec_bits(j.velocity, (float[]){ 1, 0, 0 }, 3);
	assert_vec_bits(j.velocity_wind, (float[]){ 3, 4, 5 }, 3);

	/* Nor by a space before the colon, nor by ".5" (not JSON). */
	assert_int_equal(jc("{\"timestamp\" : 2.5" TAIL "}", &j), 0);
	assert_int_equal(j.mask, BASE_MASK);
	assert_double_bits(j.timestamp, 2.5);
	assert_int_equal(jc("{\"timestamp\":1,\"imu\":{\"gyro\":[.5,0,0]}}",
			    &j),
			 -EINVAL);

	/* Missing velocity: mask 0, as ArduPilot; the values still came. */
	assert_int_equal(jc("{\"timestamp\":3,\"imu\":{\"gyro\":[0,0,0],"
			    "\"accel_body\":[0,0,0]},\"attitude\":[0,0,1]}",
			    &j),
			 0);
	assert_int_equal(j.mask, 0);
	assert_double_bits(j.timestamp, 3.0);
	assert_float_bits(j.attitude[2], 1.0f);
	assert_false(sitl_json_ap_accepts(j.mask));
	/* Sections are objects: a top-level gyro is not the imu's. */
	assert_int_equal(jc("{\"timestamp\":3,\"gyro\":[0,0,0],\"imu\":{"
			    "\"accel_body\":[0,0,0]},\"attitude\":[0,0,1],"
			    "\"velocity\":[0,0,0]}", &j),
			 0);
	assert_int_equal(j.mask, 0);
}

static void
test_json_types(void **state)
{
	struct sitl_fdm f;
	(void)state;

	/* Bools: true/false or a number, non-zero meaning true. */
	assert_int_equal(jc(BASE ",\"no_time_sync\":1,\"no_lockstep\":false}",
			    &f),
			 0);
	assert_int_equal(f.mask, BASE_MASK | BIT(NO_TIME_SYNC) |
					 BIT(NO_LOCKSTEP));
	assert_true(f.no_time_sync);
	assert_false(f.no_lockstep);
	assert_int_equal(jc(BASE ",\"no_time_sync\":-7,\"no_lockstep\":0}",
			    &f),
			 0);
	assert_true(f.no_time_sync);
	assert_false(f.no_lockstep);

	/* Integers anywhere a number goes, and unknown keys ignored. */
	assert_int_equal(jc(BASE ",\"rng_3\":7,\"extra\":{\"rc\":[1]},"
			    "\"rc\":{\"rc_12\":2000,\"rc_13\":\"x\"}}", &f),
			 0);
	assert_int_equal(f.mask, BASE_MASK | BIT(RNG_1 + 2) | BIT(RC_1 + 11));
	assert_float_bits(f.rng[2], 7.0f);
	assert_float_bits(f.rc[11], 2000.0f);

	/* Surrounding newlines are fine; the length is respected. */
	static const char framed[] = "\r\n" BASE "}\r\n garbage";
	memset(&f, 0, sizeof(f));
	assert_int_equal(sitl_json_parse(framed, strlen(framed) - 8, &f), 0);
	assert_int_equal(f.mask, BASE_MASK);

	/* The last of duplicate keys wins (json-c). */
	assert_int_equal(jc(BASE ",\"rng_1\":1,\"rng_1\":2}", &f), 0);
	assert_float_bits(f.rng[0], 2.0f);
}

static void
test_json_errors(void **state)
{
	static const char *const bad[] = {
		"",
		"[1,2,3]",
		"1",
		"\"timestamp\"",
		"{",
		"{\"timestamp\":1",
		BASE "} x",
		BASE "}{}",
		BASE ",}",
		BASE ",\"velocity_wind\":[1,2]}",
		BASE ",\"velocity_wind\":[1,2,3,4]}",
		BASE ",\"velocity_wind\":[1,\"2\",3]}",
		BASE ",\"velocity_wind\":[1,null,3]}",
		BASE ",\"velocity_wind\":5}",
		BASE ",\"quaternion\":[1,0,0]}",
		BASE ",\"rng_1\":\"3\"}",
		BASE ",\"rng_1\":null}",
		BASE ",\"rng_1\":true}",
		BASE ",\"airspeed\":[1]}",
		BASE ",\"no_lockstep\":\"true\"}",
		BASE ",\"rc\":[1000]}",
		BASE ",\"battery\":12}",
		BASE ",\"windvane\":null}",
		"{\"timestamp\":\"1\"}",
	};
	struct sitl_fdm f, before;
	(void)state;

	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		memset(&f, 0x5a, sizeof(f));
		before = f;
		if (sitl_json_parse(bad[i], strlen(bad[i]), &f) != -EINVAL)
			fail_msg("accepted: %s", bad[i]);
		assert_memory_equal(&f, &before, sizeof(f));
		if (sitl_json_scan(bad[i], strlen(bad[i]), &f) != -EINVAL)
			fail_msg("scan accepted: %s", bad[i]);
		assert_memory_equal(&f, &before, sizeof(f));
	}

	/* A NUL inside the given length is not JSON. */
	static const char nul[] = BASE "}\0 ";
	assert_int_equal(sitl_json_parse(nul, sizeof(nul) - 1, &f), -EINVAL);
	static const char nul_in[] = "{\"timestamp\":1\0}";
	assert_int_equal(sitl_json_parse(nul_in, sizeof(nul_in) - 1, &f),
			 -EINVAL);
	assert_int_equal(sitl_json_scan(nul, sizeof(nul) - 1, &f), -EINVAL);
	assert_int_equal(sitl_json_scan(nul_in, sizeof(nul_in) - 1, &f),
			 -EINVAL);
}

/* The proxy's one-pass reader: JSON as RFC 8259 has it plus Python's
 * NaN and Infinity, values as json-c gives them. */
static void
test_json_scan(void **state)
{
	struct sitl_fdm f, before;
	(void)state;

	/* Python's json.dumps writes these; json-c reads them too. */
	assert_int_equal(jc(BASE ",\"rng_1\":NaN,\"rng_2\":Infinity,"
			    "\"rng_3\":-Infinity,\"x\":[NaN]}", &f), 0);
	assert_true(isnan(f.rng[0]));
	assert_true(isinf(f.rng[1]) && f.rng[1] > 0);
	assert_true(isinf(f.rng[2]) && f.rng[2] < 0);

	/* Numbers JSON has but a double or an int64 cannot hold: each is
	 * the double strtod makes of its text, as ArduPilot's atof makes
	 * it, on every json-c release: beyond int64 and uint64 the nearest
	 * double (not int64's or uint64's end, as json-c 0.16 saturated,
	 * nor refused, as json-c 0.18 in strict mode does), "-0" is -0.0,
	 * past the double range +-inf, below it 0. */
	static const char big[] =
		BASE ",\"position\":[-0,-99999999999999999999,"
		"99999999999999999999],\"rng_1\":1e400,\"rng_2\":-0.0,"
		"\"rng_3\":-1e400,\"rng_4\":1e-400,"
		"\"rng_5\":18446744073709551616,\"altitude\":"
		"-9223372036854775809,\"latitude\":-0,\"longitude\":0}";
	struct sitl_fdm a;
	assert_int_equal(jc(big, &f), 0);
	assert_double_bits(f.position[0], -0.0);
	assert_double_bits(f.position[1], -1e20);
	assert_double_bits(f.position[2], 1e20);
	assert_float_bits(f.rng[0], INFINITY);
	assert_float_bits(f.rng[1], -0.0f);
	assert_float_bits(f.rng[2], -INFINITY);
	assert_float_bits(f.rng[3], 0.0f);
	assert_float_bits(f.rng[4], 0x1p64f);
	assert_double_bits(f.altitude, -0x1p63);
	assert_double_bits(f.latitude, -0.0);
	assert_double_bits(f.longitude, 0.0);
	/* ArduPilot's own reading of the same line gives the same. */
	assert_int_equal(ap(big, &a), f.mask);
	assert_memory_equal(&a, &f, sizeof(a));

	/* A number for a bool is ArduPilot's strtoull of its text: its
	 * integer part, non-zero meaning true. */
	static const struct {
		const char *text;
		bool value;
	} bools[] = {
		{ "0.5", false }, { "-0", false }, { "-0.9e9", false },
		{ "1e-5", true }, { "-1", true }, { "2.5", true },
		{ "99999999999999999999", true }, { "NaN", false },
		{ "-Infinity", false },
	};
	for (size_t i = 0; i < ARRAY_LEN(bools); i++) {
		char line[256];
		snprintf(line, sizeof(line), BASE ",\"no_lockstep\":%s}",
			 bools[i].text);
		assert_int_equal(jc(line, &f), 0);
		if (f.no_lockstep != bools[i].value)
			fail_msg("no_lockstep %s read as %d", bools[i].text,
				 f.no_lockstep);
		assert_int_equal(ap(line, &a), f.mask);
		assert_memory_equal(&a, &f, sizeof(a));
	}

	/* Escaped key names are the names they spell, cut at a NUL as
	 * json-c's C strings are; the last section of a name counts. */
	assert_int_equal(jc(BASE ",\"rng\\u005f1\":4,\"rng_2\\u0000x\":5}",
			    &f), 0);
	assert_float_bits(f.rng[0], 4.0f);
	assert_float_bits(f.rng[1], 5.0f);
	assert_int_equal(jc("{\"t\\u0069mestamp\":1,\"imu\":{\"gyro\":[1,1,1],"
			    "\"accel_body\":[0,0,-9]},\"imu\":{\"gyro\":[0,0,0],"
			    "\"accel_body\":[0,0,-1]},\"attitude\":[0,0,0],"
			    "\"velocity\":[0,0,0],\"s\":\"\\\"\\/\\b\\f\\n\\r\\t"
			    "\\u00e9\xc3\xa9\"}", &f), 0);
	assert_int_equal(f.mask, BASE_MASK);
	assert_float_bits(f.gyro[0], 0.0f);
	assert_float_bits(f.accel_body[2], -1.0f);
	/* A section that is not an object is an error, unless a later
	 * one of the same name is. */
	assert_int_equal(jc(BASE ",\"rc\":[1],\"rc\":{\"rc_2\":3}}", &f), 0);
	assert_float_bits(f.rc[1], 3.0f);
	assert_int_equal(jc(BASE ",\"rc\":{\"rc_2\":3},\"rc\":1}", &f),
			 -EINVAL);

	/* 31 containers deep is json-c's limit, and ours. */
	char deep[256];
	snprintf(deep, sizeof(deep), BASE ",\"d\":%.30s1%.30s}",
		 "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]");
	assert_int_equal(jc(deep, &f), 0);
	snprintf(deep, sizeof(deep), BASE ",\"d\":%.31s1%.31s}",
		 "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]");
	assert_int_equal(jc(deep, &f), -EINVAL);

	/* What json-c lets through but JSON is not: refused here, and
	 * the line passes the proxy untouched as a bad line. */
	static const char *const quirks[] = {
		"{'timestamp':1}",
		BASE ",\"rng_1\":1.}",
		BASE ",\"rng_1\":1.e5}",
		BASE ",\"rng_1\":00}",
		BASE ",\"rng_1\":-01}",
	};
	for (size_t i = 0; i < ARRAY_LEN(quirks); i++) {
		memset(&f, 0, sizeof(f));
		if (sitl_json_parse(quirks[i], strlen(quirks[i]), &f) != 0)
			fail_msg("json-c refused: %s", quirks[i]);
		memset(&f, 0x5a, sizeof(f));
		before = f;
		if (sitl_json_scan(quirks[i], strlen(quirks[i]), &f) != -EINVAL)
			fail_msg("scan accepted: %s", quirks[i]);
		assert_memory_equal(&f, &before, sizeof(f));
	}

	/* A raw control character in a string is not JSON (RFC 8259
	 * section 7): both refuse it, whichever json-c (0.16 took it in
	 * strict mode, 0.18 does not). */
	static const char *const raw_control[] = {
		BASE ",\"s\":\"tab\there\"}",
		BASE ",\"s\":\"\x01\"}",
		BASE ",\"s\x1f\":1}",
		BASE ",\"rng_1\":\"\\\x0a\"}",
	};
	for (size_t i = 0; i < ARRAY_LEN(raw_control); i++)
		assert_int_equal(jc(raw_control[i], &f), -EINVAL);

	/* Raw bytes above 0x7f, UTF-8 or not, are taken as they come
	 * (json-c 0.18's strict mode refuses them where char is signed):
	 * a name with them matches no key, unless they follow a \u0000
	 * that cuts it. */
	assert_int_equal(jc(BASE ",\"s\":\"\xc3\xa9\xff\x80\","
			    "\"rng_1\xc3\xa9\":1,\"\xffrng_2\":2,"
			    "\"rng_3\\u0000\xff\":3,\"rng_4\\u0000\\u00e9\":4,"
			    "\"rng_5\\u0100\":5}", &f), 0);
	assert_int_equal(f.mask, BASE_MASK | BIT(RNG_1 + 2) | BIT(RNG_1 + 3));
	assert_float_bits(f.rng[2], 3.0f);
	assert_float_bits(f.rng[3], 4.0f);

	/* Malformed in every place a scanner can trip. */
	static const char *const bad[] = {
		BASE ",\"x\":-}", BASE ",\"x\":1e}", BASE ",\"x\":1e+}",
		BASE ",\"x\":.5}", BASE ",\"x\":+1}", BASE ",\"x\":-NaN}",
		BASE ",\"x\":nan}", BASE ",\"x\":Inf}", BASE ",\"x\":NaNx}",
		BASE ",\"x\":tru}", BASE ",\"x\":nulll}", BASE ",\"x\":True}",
		BASE ",\"x\":\"\\x\"}", BASE ",\"x\":\"\\u12\"}",
		BASE ",\"x\":\"\\u12g4\"}", BASE ",\"x\":\"open}",
		BASE ",\"x\":[1,]}", BASE ",\"x\":[,1]}", BASE ",\"x\":[1 2]}",
		BASE ",\"x\":{\"a\":1,}}", BASE ",\"x\":{\"a\" 1}}",
		BASE ",\"x\":{1:2}}", BASE ",\"x\":1\v}", BASE ",\"x\":[}",
		BASE ",\"velocity\":[0,0,0,]}", BASE ",\"velocity\":[]}",
		BASE ",\"velocity\":[[0],0,0]}", "{\"a\":1}\f", "\v{}",
	};
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		memset(&f, 0x5a, sizeof(f));
		before = f;
		if (sitl_json_scan(bad[i], strlen(bad[i]), &f) != -EINVAL)
			fail_msg("scan accepted: %s", bad[i]);
		assert_memory_equal(&f, &before, sizeof(f));
	}
}

/* ------------------------------------------------------------------ */
/* Truth: TV13's first vector is 3 m above home, through the same
 * centimetre step as every other altitude. */
static void
test_truth_tv13_altitude(void **state)
{
	struct sitl_fdm f;
	struct sitl_truth t = { 0 };
	float alt, expect;
	(void)state;

	assert_int_equal(ap(tv13_basic, &f), 0x2F1);
	assert_int_equal(sitl_truth_update(&t, &f, 584.0, &alt), 0);
	assert_int_equal(baro_sitl_altitude(584.0, 3.0, &expect), 0);
	assert_float_bits(alt, expect);
	assert_float_bits(alt, 587.0f);

	/* TV7's quantisation through position[2]. */
	static const struct {
		double z;
		float m; /* the decimal metres of ArduPilot's centimetres */
		int32_t cm;
	} tv[] = {
		{ -10.0, 594.00f, 59400 },  { -10.004, 594.00f, 59400 },
		{ -10.0099, 594.00f, 59400 }, { 0.005, 583.99f, 58399 },
		{ 0.0149, 583.98f, 58398 },
		/* 151.49 m: the float product 15149 * 0.01f is an ulp low. */
		{ 432.51, 151.49f, 15149 },
	};
	assert_int_equal(t.alt_cm, 58700);
	/* SITL's height above ground follows the packets' centimetres: the
	 * first (587 m) is its ground. */
	struct baro_sitl_agl agl;
	baro_sitl_agl_init(&agl);
	assert_true(baro_sitl_agl_update(&agl, baro_sitl_state_altitude(
						       t.alt_cm)) == 0.0);
	for (size_t i = 0; i < ARRAY_LEN(tv); i++) {
		f.position[2] = tv[i].z;
		assert_int_equal(sitl_truth_update(&t, &f, 584.0, &alt), 0);
		assert_float_bits(alt, tv[i].m);
		assert_int_equal(t.alt_cm, tv[i].cm);
		assert_true(baro_sitl_agl_update(
				    &agl, baro_sitl_state_altitude(t.alt_cm)) ==
			    (double)tv[i].cm * 0.01 - 587.0);
	}

	f.position[2] = -3e7;
	assert_int_equal(sitl_truth_update(&t, &f, 584.0, &alt), -ERANGE);
	f.position[2] = NAN;
	assert_int_equal(sitl_truth_update(&t, &f, 584.0, &alt), -EINVAL);
	assert_int_equal(t.alt_cm, 15149);	/* a refused packet: unchanged */
}

/* Latitude, longitude and altitude all present: the JSON altitude,
 * truncated to centimetres, whatever home and position say. */
static void
test_truth_location(void **state)
{
	struct sitl_fdm f;
	struct sitl_truth t = { 0 };
	float alt = 0.0f;
	(void)state;

	assert_int_equal(ap(BASE ",\"latitude\":-35.36,\"longitude\":149.16,"
			    "\"altitude\":584.079,\"position\":[0,0,-100]}",
			    &f),
			 BASE_MASK | BIT(LATITUDE) | BIT(LONGITUDE) |
				 BIT(ALTITUDE) | BIT(POSITION));
	assert_int_equal(sitl_truth_update(&t, &f, 10.0, &alt), 0);
	assert_float_bits(alt, 584.07f);

	/* Toward zero below sea level too. */
	f.altitude = -1.239;
	assert_int_equal(sitl_truth_update(&t, &f, 10.0, &alt), 0);
	assert_float_bits(alt, -1.23f);

	/* Without all three it is home - position[2]. */
	f.mask &= ~BIT(LONGITUDE);
	assert_int_equal(sitl_truth_update(&t, &f, 10.0, &alt), 0);
	assert_float_bits(alt, 110.0f);

	f.mask |= BIT(LONGITUDE);
	f.altitude = 2.2e7;
	assert_int_equal(sitl_truth_update(&t, &f, 10.0, &alt), -ERANGE);
	f.altitude = -2.2e7;
	assert_int_equal(sitl_truth_update(&t, &f, 10.0, &alt), -ERANGE);
	f.altitude = INFINITY;
	assert_int_equal(sitl_truth_update(&t, &f, 10.0, &alt), -EINVAL);
	f.altitude = NAN;
	assert_int_equal(sitl_truth_update(&t, &f, 10.0, &alt), -EINVAL);
}

/* TV4's JSON examples, and the pressure they give. */
static void
test_truth_tv4(void **state)
{
	struct sitl_fdm f;
	struct sitl_truth t = { 0 };
	struct sim_params p;
	float alt;
	(void)state;

	sim_params_defaults(&p);
	struct sim_baro_params *bp = &p.baro[0];
	bp->wcf_fwd = 0.2f;
	bp->wcf_bak = 0.1f;
	bp->wcf_rgt = 0.3f;
	bp->wcf_lft = -0.4f;
	bp->wcf_up = 0.05f;
	bp->wcf_dn = -0.15f;

	memset(&f, 0, sizeof(f));
	f.mask = BASE_MASK;
	f.attitude[2] = (float)(M_PI / 2.0);
	f.velocity[0] = 10.0f;
	assert_int_equal(sitl_truth_update(&t, &f, 584.0, &alt), 0);
	assert_close_abs(t.vel_air_bf[0], 0.0, 1e-5);
	assert_close_abs(t.vel_air_bf[1], -10.0, 1e-5);
	assert_close_abs(t.vel_air_bf[2], 0.0, 1e-5);
	assert_close_abs(baro_sitl_wind_correction(
				 baro_sitl_wind_error(bp, t.vel_air_bf),
				 atmos_1976_density_ratio(584.0f)),
			 -23.1557, 1e-4);

	memset(&f, 0, sizeof(f));
	f.mask = BASE_MASK;
	f.attitude[1] = (float)(10.0 * M_PI / 180.0);
	f.velocity[0] = 20.0f;
	f.velocity[2] = 1.0f;
	assert_int_equal(sitl_truth_update(&t, &f, 0.0, &alt), 0);
	assert_close_abs(t.vel_air_bf[0], 19.52251, 1e-5);
	assert_close_abs(t.vel_air_bf[1], 0.0, 1e-6);
	assert_close_abs(t.vel_air_bf[2], 4.45777, 1e-5);
	assert_close_abs(baro_sitl_wind_correction(
				 baro_sitl_wind_error(bp, t.vel_air_bf),
				 atmos_1976_density_ratio(0.0f)),
			 47.2968, 1e-4);
}

/* Quaternion before attitude, not normalised; airspeed freezes the air
 * velocity; velocity_wind never enters. */
static void
test_truth_quaternion_airspeed(void **state)
{
	struct sitl_fdm f;
	struct sitl_truth t = { 0 };
	float alt;
	(void)state;

	memset(&f, 0, sizeof(f));
	f.mask = BASE_MASK | BIT(QUATERNION) | BIT(VELOCITY_WIND);
	f.attitude[2] = 1.0f;
	f.quaternion[0] = 1.0f;
	f.velocity[0] = 3.0f;
	f.velocity[1] = -4.0f;
	f.velocity[2] = 0.5f;
	f.velocity_wind[0] = 100.0f;
	assert_int_equal(sitl_truth_update(&t, &f, 0.0, &alt), 0);
	assert_vec_bits(t.vel_air_bf, f.velocity, 3);

	/* (0, 2, 0, 0): b.y = c.z = 1 - 2 * 4 = -7. */
	f.quaternion[0] = 0.0f;
	f.quaternion[1] = 2.0f;
	f.velocity[0] = 1.0f;
	f.velocity[1] = 1.0f;
	f.velocity[2] = 1.0f;
	assert_int_equal(sitl_truth_update(&t, &f, 0.0, &alt), 0);
	assert_vec_bits(t.vel_air_bf, (float[]){ 1, -7, -7 }, 3);

	/* A unit quaternion for yaw 90 degrees agrees with the Euler path
	 * to rounding. */
	f.quaternion[0] = (float)cos(M_PI / 4.0);
	f.quaternion[1] = 0.0f;
	f.quaternion[3] = (float)sin(M_PI / 4.0);
	f.velocity[0] = 10.0f;
	f.velocity[1] = 0.0f;
	f.velocity[2] = 0.0f;
	assert_int_equal(sitl_truth_update(&t, &f, 0.0, &alt), 0);
	assert_close_abs(t.vel_air_bf[0], 0.0, 1e-5);
	assert_close_abs(t.vel_air_bf[1], -10.0, 1e-5);

	const float kept[3] = { t.vel_air_bf[0], t.vel_air_bf[1],
				t.vel_air_bf[2] };
	f.mask |= BIT(AIRSPEED);
	f.velocity[0] = -50.0f;
	f.position[2] = -2.0;
	assert_int_equal(sitl_truth_update(&t, &f, 0.0, &alt), 0);
	assert_vec_bits(t.vel_air_bf, kept, 3);
	assert_float_bits(alt, 2.0f);

	/* Lines ArduPilot rejects change nothing. */
	f.mask = BIT(TIMESTAMP) | BIT(VELOCITY);
	assert_int_equal(sitl_truth_update(&t, &f, 0.0, &alt), -EINVAL);
	f.mask = 0;
	assert_int_equal(sitl_truth_update(&t, &f, 0.0, &alt), -EINVAL);
	assert_vec_bits(t.vel_air_bf, kept, 3);
}

/* The Euler path in ArduPilot's float order, exactly. */
static void
test_truth_euler_order(void **state)
{
	struct sitl_fdm f;
	struct sitl_truth t = { 0 };
	float alt;
	(void)state;

	memset(&f, 0, sizeof(f));
	f.mask = BASE_MASK;
	f.attitude[0] = 0.3f;
	f.attitude[1] = -0.7f;
	f.attitude[2] = 2.1f;
	f.velocity[0] = 12.5f;
	f.velocity[1] = -3.25f;
	f.velocity[2] = 0.75f;
	assert_int_equal(sitl_truth_update(&t, &f, 0.0, &alt), 0);

	const float cp = cosf(-0.7f), sp = sinf(-0.7f);
	const float sr = sinf(0.3f), cr = cosf(0.3f);
	const float sy = sinf(2.1f), cy = cosf(2.1f);
	const float ax = cp * cy, ay = (sr * sp * cy) - (cr * sy),
		    az = (cr * sp * cy) + (sr * sy);
	const float bx = cp * sy, by = (sr * sp * sy) + (cr * cy),
		    bz = (cr * sp * sy) - (sr * cy);
	const float cx = -sp, cyy = sr * cp, cz = cr * cp;
	const float *v = f.velocity;
	assert_float_bits(t.vel_air_bf[0], ax * v[0] + bx * v[1] + cx * v[2]);
	assert_float_bits(t.vel_air_bf[1], ay * v[0] + by * v[1] + cyy * v[2]);
	assert_float_bits(t.vel_air_bf[2], az * v[0] + bz * v[1] + cz * v[2]);
}

/* ------------------------------------------------------------------ */
/* Replies and barod's fields. */
static const struct sitl_vehicle vehicle = {
	.timestamp = 1234567.8901234567,
	.gyro = { 0.1f, -0.0f, 1e-45f },
	.accel_body = { -9.80665f, FLT_MAX, -FLT_MIN },
	.position = { 1e-300, -0.0, -12345.678901234567 },
	.attitude = { 3.14159274f, -1.57079637f, 123456.789f },
	.velocity = { 1e-10f, -33.3333321f, 7.0f },
};

static const struct sitl_baro_fields baro_fields = {
	.rng_instance = { 0, 1, 2, -1, 2, 0 },
	.count = 3,
	.pressure_pa = { 94503.8203f, 94390.375f, 101325.0f },
	.temperature_c = { 31.139368f, -0.0f, 1e-30f },
	.height_m = { 3.25f, -0.0f, 0.1f },
	.healthy = { true, false, true },
};

static void
check_vehicle(const struct sitl_fdm *f)
{
	assert_double_bits(f->timestamp, vehicle.timestamp);
	assert_vec_bits(f->gyro, vehicle.gyro, 3);
	assert_vec_bits(f->accel_body, vehicle.accel_body, 3);
	for (unsigned i = 0; i < 3; i++)
		assert_double_bits(f->position[i], vehicle.position[i]);
	assert_vec_bits(f->attitude, vehicle.attitude, 3);
	assert_vec_bits(f->velocity, vehicle.velocity, 3);
	for (unsigned k = 0; k < 6; k++) {
		const int i = baro_fields.rng_instance[k];
		if (i >= 0)
			assert_float_bits(f->rng[k], baro_fields.height_m[i]);
	}
}

static void
test_reply_round_trip(void **state)
{
	char fields[512], reply[1024];
	struct sitl_fdm a, j;
	(void)state;

	int fl = sitl_json_format_fields(fields, sizeof(fields), &baro_fields);
	assert_true(fl > 0);
	int n = sitl_json_format_reply(reply, sizeof(reply), &vehicle, fields);
	assert_true(n > 0);
	assert_int_equal(strlen(reply), n);
	assert_memory_equal(reply, "\n{\"rng_1\":", 10);
	assert_string_equal(reply + n - 2, "}\n");
	assert_null(strchr(reply, ' '));
	assert_ptr_equal(strchr(reply + 1, '\n'), reply + n - 1);

	const uint64_t rng = BIT(RNG_1) | BIT(RNG_1 + 1) | BIT(RNG_1 + 2) |
			     BIT(RNG_1 + 4) | BIT(RNG_1 + 5);
	const uint64_t mask = BIT(TIMESTAMP) | BIT(GYRO) | BIT(ACCEL_BODY) |
			      BIT(POSITION) | BIT(ATTITUDE) | BIT(VELOCITY) |
			      rng;
	assert_int_equal(ap(reply, &a), mask);
	assert_true(sitl_json_ap_accepts(a.mask));
	check_vehicle(&a);

	assert_int_equal(sitl_json_parse(reply, (size_t)n, &j), 0);
	assert_int_equal(j.mask, mask);
	check_vehicle(&j);

	/* ArduPilot sees the line without its newlines. */
	reply[n - 1] = '\0';
	assert_int_equal(ap(reply + 1, &a), mask);
	check_vehicle(&a);

	/* Without fields: the vehicle alone. */
	n = sitl_json_format_reply(reply, sizeof(reply), &vehicle, NULL);
	assert_true(n > 0);
	assert_int_equal(ap(reply, &a), mask & ~rng);
	assert_memory_equal(reply, "\n{\"timestamp\":1234567.8901234567,", 33);
	assert_int_equal(sitl_json_format_reply(reply, sizeof(reply), &vehicle,
						""),
			 n);
}

/* Exact text, compact, keys in table order. */
static void
test_reply_text(void **state)
{
	const struct sitl_vehicle v = {
		.timestamp = 0.5,
		.gyro = { 0, 0.25f, -1 },
		.accel_body = { 0, 0, -9.75f },
		.position = { 1, -2, 3.5 },
		.attitude = { 0, 0, 1.5f },
		.velocity = { 10, 0, -0.0f },
	};
	char buf[512];
	(void)state;

	int n = sitl_json_format_reply(buf, sizeof(buf), &v, "\"a\":1,");
	assert_int_equal(n, strlen(buf));
	assert_string_equal(buf,
			    "\n{\"a\":1,\"timestamp\":0.5,\"imu\":{\"gyro\":"
			    "[0,0.25,-1],\"accel_body\":[0,0,-9.75]},"
			    "\"position\":[1,-2,3.5],\"attitude\":[0,0,1.5],"
			    "\"velocity\":[10,0,-0.0]}\n");
}

static void
test_reply_errors(void **state)
{
	char buf[1024];
	struct sitl_vehicle v = vehicle;
	(void)state;

	int n = sitl_json_format_reply(buf, sizeof(buf), &v, "\"x\":1,");
	assert_true(n > 0);
	char want[1024];
	memcpy(want, buf, (size_t)n + 1);
	/* Every capacity up to the length plus the NUL is too small. */
	for (int cap = 0; cap <= n; cap++) {
		memset(buf, 'z', sizeof(buf));
		assert_int_equal(sitl_json_format_reply(buf, (size_t)cap, &v,
							"\"x\":1,"),
				 -ENOSPC);
		assert_int_equal(buf[cap], 'z');
	}
	assert_int_equal(sitl_json_format_reply(buf, (size_t)n + 1, &v,
						"\"x\":1,"),
			 n);
	assert_string_equal(buf, want);

	v.gyro[1] = NAN;
	assert_int_equal(sitl_json_format_reply(buf, sizeof(buf), &v, ""),
			 -EINVAL);
	v = vehicle;
	v.position[2] = -INFINITY;
	assert_int_equal(sitl_json_format_reply(buf, sizeof(buf), &v, ""),
			 -EINVAL);
	v = vehicle;
	v.timestamp = NAN;
	assert_int_equal(sitl_json_format_reply(buf, sizeof(buf), &v, ""),
			 -EINVAL);
	v = vehicle;
	v.velocity[2] = INFINITY;
	assert_int_equal(sitl_json_format_reply(buf, sizeof(buf), &v, ""),
			 -EINVAL);
}

static void
test_fields_text(void **state)
{
	struct sitl_baro_fields f = {
		.rng_instance = { -1, 0, -1, -1, -1, -1 },
		.count = 2,
		.pressure_pa = { 94503.8203f, 95000 },
		.temperature_c = { 25, -1.5f },
		.height_m = { 3.25f, 0 },
		.healthy = { true, false },
	};
	char buf[256];
	(void)state;

	int n = sitl_json_format_fields(buf, sizeof(buf), &f);
	assert_int_equal(n, strlen(buf));
	assert_string_equal(buf,
			    "\"rng_2\":3.25,\"barod\":{\"n\":2,"
			    "\"pa\":[94503.8203,95000],\"degc\":[25,-1.5],"
			    "\"hm\":[3.25,0],\"ok\":[1,0]},");

	f.count = 0;
	f.rng_instance[1] = -1;
	n = sitl_json_format_fields(buf, sizeof(buf), &f);
	assert_int_equal(n, strlen(buf));
	assert_string_equal(buf, "\"barod\":{\"n\":0,\"pa\":[],\"degc\":[],"
				 "\"hm\":[],\"ok\":[]},");

	f.count = 4;
	assert_int_equal(sitl_json_format_fields(buf, sizeof(buf), &f),
			 -EINVAL);
	f.count = 2;
	f.rng_instance[5] = 2;
	assert_int_equal(sitl_json_format_fields(buf, sizeof(buf), &f),
			 -EINVAL);
	f.rng_instance[5] = 1;
	f.height_m[1] = NAN;
	assert_int_equal(sitl_json_format_fields(buf, sizeof(buf), &f),
			 -EINVAL);
	f.height_m[1] = 1;
	f.pressure_pa[0] = INFINITY;
	assert_int_equal(sitl_json_format_fields(buf, sizeof(buf), &f),
			 -EINVAL);
	f.pressure_pa[0] = 1;
	/* Values past count are not printed, so need not be finite. */
	f.temperature_c[2] = NAN;
	n = sitl_json_format_fields(buf, sizeof(buf), &f);
	assert_true(n > 0);
	for (int cap = 0; cap <= n; cap++)
		assert_int_equal(sitl_json_format_fields(buf, (size_t)cap, &f),
				 -ENOSPC);
	assert_int_equal(sitl_json_format_fields(buf, (size_t)n + 1, &f), n);
}

static unsigned
count_substr(const char *s, const char *sub)
{
	unsigned n = 0;

	for (const char *p = s; (p = strstr(p, sub)) != NULL; p++)
		n++;
	return n;
}

/* No ArduPilot key or section name anywhere in barod's fields but the
 * rng_N meant for it: ArduPilot searches the whole line. */
static void
test_fields_invisible_to_ardupilot(void **state)
{
	static const char *const names[] = {
		"timestamp", "latitude", "longitude", "altitude", "imu",
		"gyro", "accel_body", "position", "attitude", "quaternion",
		"velocity", "velocity_wind", "windvane", "direction", "speed",
		"airspeed", "no_time_sync", "no_lockstep", "rc", "rc_1",
		"rc_2", "rc_3", "rc_4", "rc_5", "rc_6", "rc_7", "rc_8",
		"rc_9", "rc_10", "rc_11", "rc_12", "battery", "voltage",
		"current",
	};
	static const int maps[][6] = {
		{ 0, 1, 2, 0, 1, 2 },
		{ -1, -1, -1, -1, -1, -1 },
		{ 2, -1, 1, -1, 0, -1 },
	};
	static const float values[] = { 0.0f,     -0.0f,   1e-45f,
					 FLT_MAX,  -FLT_MAX, 1e30f,
					 -1e-30f,  94503.82f, 123.456f };
	char buf[512];
	(void)state;

	for (size_t m = 0; m < ARRAY_LEN(maps); m++) {
		for (size_t v = 0; v < ARRAY_LEN(values); v++) {
			struct sitl_baro_fields f = { .count = 3 };
			for (unsigned i = 0; i < 3; i++) {
				f.pressure_pa[i] = values[v];
				f.temperature_c[i] = values[(v + i) %
							    ARRAY_LEN(values)];
				f.height_m[i] = values[(v + 2 * i) %
						       ARRAY_LEN(values)];
				f.healthy[i] = (i + v) % 2 != 0;
			}
			memcpy(f.rng_instance, maps[m], sizeof(f.rng_instance));
			assert_true(sitl_json_format_fields(buf, sizeof(buf),
							    &f) > 0);
			for (size_t k = 0; k < ARRAY_LEN(names); k++) {
				if (strstr(buf, names[k]))
					fail_msg("\"%s\" in %s", names[k], buf);
			}
			for (unsigned k = 0; k < 6; k++) {
				char key[8];
				snprintf(key, sizeof(key), "rng_%u", k + 1);
				assert_int_equal(count_substr(buf, key),
						 maps[m][k] >= 0 ? 1 : 0);
			}
			unsigned mapped = 0;
			for (unsigned k = 0; k < 6; k++)
				mapped += maps[m][k] >= 0;
			assert_int_equal(count_substr(buf, "rng_"), mapped);
		}
	}
}

/* ------------------------------------------------------------------ */
/* Insertion: our text right after the first '{', all else untouched. */
static void
check_insert(const char *line, size_t len, const char *fields)
{
	char out[1024];
	const char *brace = memchr(line, '{', len);
	const size_t head = (size_t)(brace - line) + 1;
	const size_t flen = strlen(fields);

	assert_non_null(brace);
	int n = sitl_json_insert(line, len, fields, out, sizeof(out));
	assert_int_equal(n, len + flen);
	assert_memory_equal(out, line, head);
	assert_memory_equal(out + head, fields, flen);
	assert_memory_equal(out + head + flen, line + head, len - head);
	assert_int_equal(out[n], '\0');

	for (size_t cap = 0; cap <= len + flen; cap++)
		assert_int_equal(sitl_json_insert(line, len, fields, out, cap),
				 -ENOSPC);
	assert_int_equal(sitl_json_insert(line, len, fields, out,
					  len + flen + 1),
			 n);
}

static void
test_insert_bytes(void **state)
{
	static const char *const lines[] = {
		"{}",
		"\n{\"timestamp\":1}\n",
		"  { \"timestamp\" :1 ,\t\"imu\" : { \"gyro\" :[ 1,2 ,3] } }",
		"{\"a\":1}{\"b\":2}\r\n",
		"\r\n{\"a\":{\"b\":{}}}\r\n",
		"garbage before { and } after",
		"{{{",
	};
	(void)state;

	for (size_t i = 0; i < ARRAY_LEN(lines); i++) {
		check_insert(lines[i], strlen(lines[i]), "\"rng_1\":2,");
		check_insert(lines[i], strlen(lines[i]), "");
	}
	/* Bytes past a NUL inside the length are kept too. */
	static const char nul[] = "{\"a\":1}\0{\"b\":2}";
	check_insert(nul, sizeof(nul) - 1, "\"rng_1\":2,");
	/* Only the length given is looked at. */
	check_insert("{\"a\":1}{", 7, "\"x\":1,");

	char out[64];
	assert_int_equal(sitl_json_insert("no brace", 8, "\"x\":1,", out,
					  sizeof(out)),
			 -EINVAL);
	assert_int_equal(sitl_json_insert("{", 0, "\"x\":1,", out,
					  sizeof(out)),
			 -EINVAL);
	assert_int_equal(sitl_json_insert("{}", 2, NULL, out, sizeof(out)),
			 2);
	assert_string_equal(out, "{}");
}

/* An upstream rng_1 loses to ours in ArduPilot's first-match search;
 * everything else reads as before. */
static void
test_insert_upstream_rng(void **state)
{
	static const char upstream[] =
		"\n{ \"timestamp\":7.5, \"rng_1\":99.5, \"imu\":{\"gyro\":"
		"[1,2,3],\"accel_body\":[4,5,6]},\"attitude\":[0,0,1], "
		"\"velocity\":[1,0,0],\"rng_4\":44}\r\n";
	char fields[512], out[1024];
	struct sitl_fdm before, after, j;
	(void)state;

	int fl = sitl_json_format_fields(fields, sizeof(fields), &baro_fields);
	assert_true(fl > 0);
	int n = sitl_json_insert(upstream, strlen(upstream), fields, out,
				 sizeof(out));
	assert_int_equal(n, strlen(upstream) + (size_t)fl);

	const uint64_t m0 = ap(upstream, &before);
	assert_int_equal(m0, BASE_MASK | BIT(RNG_1) | BIT(RNG_1 + 3));
	assert_float_bits(before.rng[0], 99.5f);

	const uint64_t m1 = ap(out, &after);
	assert_int_equal(m1, m0 | BIT(RNG_1 + 1) | BIT(RNG_1 + 2) |
				     BIT(RNG_1 + 4) | BIT(RNG_1 + 5));
	assert_float_bits(after.rng[0], baro_fields.height_m[0]);
	assert_float_bits(after.rng[1], baro_fields.height_m[1]);
	assert_float_bits(after.rng[2], baro_fields.height_m[2]);
	assert_float_bits(after.rng[3], 44.0f);
	assert_float_bits(after.rng[4], baro_fields.height_m[2]);
	assert_float_bits(after.rng[5], baro_fields.height_m[0]);
	memcpy(after.rng, before.rng, sizeof(after.rng));
	after.mask = before.mask;
	assert_memory_equal(&before, &after, sizeof(before));

	/* json-c sees two rng_1 keys and keeps the last, upstream's: the
	 * proxy must not rely on it for our own values. */
	assert_int_equal(sitl_json_parse(out, (size_t)n, &j), 0);
	assert_float_bits(j.rng[0], 99.5f);
	assert_float_bits(j.rng[1], baro_fields.height_m[1]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_servo_layout),
		cmocka_unit_test(test_servo_errors),
		cmocka_unit_test(test_servo_throttle_copter),
		cmocka_unit_test(test_servo_throttle_plane_rover),
		cmocka_unit_test(test_key_table),
		cmocka_unit_test(test_ap_tv13_basic),
		cmocka_unit_test(test_ap_tv13_velocity_wind),
		cmocka_unit_test(test_ap_tv13_quirks),
		cmocka_unit_test(test_ap_bool_rules),
		cmocka_unit_test(test_ap_array_scan),
		cmocka_unit_test(test_ap_float_scalars),
		cmocka_unit_test(test_ap_failed_array_accepted),
		cmocka_unit_test(test_ap_substrings),
		cmocka_unit_test(test_ap_line_end),
		cmocka_unit_test(test_ap_rejected_writes_through),
		cmocka_unit_test(test_ap_all_keys),
		cmocka_unit_test(test_json_all_keys),
		cmocka_unit_test(test_json_tv13),
		cmocka_unit_test(test_json_types),
		cmocka_unit_test(test_json_errors),
		cmocka_unit_test(test_json_scan),
		cmocka_unit_test(test_truth_tv13_altitude),
		cmocka_unit_test(test_truth_location),
		cmocka_unit_test(test_truth_tv4),
		cmocka_unit_test(test_truth_quaternion_airspeed),
		cmocka_unit_test(test_truth_euler_order),
		cmocka_unit_test(test_reply_round_trip),
		cmocka_unit_test(test_reply_text),
		cmocka_unit_test(test_reply_errors),
		cmocka_unit_test(test_fields_text),
		cmocka_unit_test(test_fields_invisible_to_ardupilot),
		cmocka_unit_test(test_insert_bytes),
		cmocka_unit_test(test_insert_upstream_rng),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
