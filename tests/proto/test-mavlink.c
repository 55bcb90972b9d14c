/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The MAVLink codec against the facts sheet (shared/docs/mavlink.md): the
 * CRC check value, CRC_EXTRA and lengths recomputed from the field lists,
 * the section 13 vectors byte for byte, round trips of every message in
 * v1 and v2, truncation and zero-fill, and a parser fed garbage,
 * corruption and every way of splitting its input.
 */
#include <errno.h>
#include <stdlib.h>

#include "mavlink.h"
#include "util-endian.h"
#include "test-util.h"

/* ---- helpers ----------------------------------------------------- */

#define MAX_CAPTURE 4096

struct capture {
	size_t n;
	size_t bytes;		/* wire bytes of the delivered frames */
	struct mavlink_frame *f;
};

static void
capture_init(struct capture *c)
{
	c->n = 0;
	c->bytes = 0;
	c->f = calloc(MAX_CAPTURE, sizeof(*c->f));
	assert_non_null(c->f);
}

static void
on_frame(const struct mavlink_frame *f, void *user)
{
	struct capture *c = user;

	/* Delivered frames are never signed, so their size is fixed by
	 * the version and the length byte. */
	assert_true(f->version == 1 || f->version == 2);
	assert_int_equal(f->incompat_flags & MAVLINK_IFLAG_SIGNED, 0);
	c->bytes += (f->version == 2 ? 12u : 8u) + f->len;
	/* raw is the whole frame as received, valid only now. */
	assert_int_equal(f->raw_len, (f->version == 2 ? 12u : 8u) + f->len);
	assert_int_equal(f->raw[1], f->len);
	if (c->n < MAX_CAPTURE) {
		memcpy(&c->f[c->n], f, sizeof(*f));
		c->f[c->n].raw = NULL;
	}
	c->n++;
}

/* Feed all at once into a fresh parser, then flush. */
static void
parse_all(const uint8_t *buf, size_t len, struct mavlink_parser *p,
	  struct capture *c)
{
	mavlink_parser_init(p);
	capture_init(c);
	size_t n = mavlink_parser_feed(p, buf, len, on_frame, c);
	assert_int_equal(n, c->n);
	mavlink_parser_flush(p);
	assert_int_equal(p->stats.frames, c->n);
}

/* Every byte fed is in a delivered frame, garbage or dropped. */
static void
assert_bytes_add_up(const struct mavlink_parser *p, const struct capture *c,
		    size_t total)
{
	uint64_t sum = c->bytes + p->stats.garbage_bytes +
		       p->stats.dropped_bytes + p->have;

	if (sum != total)
		fail_msg("bytes: %zu in frames + %llu garbage + %llu dropped "
			 "+ %zu buffered != %zu fed", c->bytes,
			 (unsigned long long)p->stats.garbage_bytes,
			 (unsigned long long)p->stats.dropped_bytes, p->have,
			 total);
}

/* A raw frame with exactly the given length and flags, for inputs our
 * encoder would never produce.  Returns its size. */
static size_t
raw_frame(uint8_t *out, int version, uint8_t incompat, uint8_t seq,
	  uint32_t msgid, const uint8_t *payload, uint8_t len,
	  uint8_t crc_extra)
{
	size_t h;

	if (version == 1) {
		const uint8_t hdr[] = { 0xFE, len, seq, 1, 1, (uint8_t)msgid };
		memcpy(out, hdr, sizeof(hdr));
		h = sizeof(hdr);
	} else {
		const uint8_t hdr[] = { 0xFD, len, incompat, 0, seq, 1, 1,
					(uint8_t)msgid, (uint8_t)(msgid >> 8),
					(uint8_t)(msgid >> 16) };
		memcpy(out, hdr, sizeof(hdr));
		h = sizeof(hdr);
	}
	memcpy(out + h, payload, len);
	mavlink_frame_put_crc(out, h + len, crc_extra);
	size_t n = h + len + 2;
	if (version == 2 && (incompat & MAVLINK_IFLAG_SIGNED)) {
		memset(out + n, 0x5A, 13);	/* unchecked signature */
		n += 13;
	}
	return n;
}

static void
assert_hex_equal(const uint8_t *got, size_t n, const char *hex)
{
	uint8_t want[MAVLINK_MAX_FRAME];
	size_t wn = unhex(hex, want, sizeof(want));
	char got_hex[2 * MAVLINK_MAX_FRAME + 1];

	for (size_t i = 0; i < n && i < MAVLINK_MAX_FRAME; i++)
		snprintf(got_hex + 2 * i, 3, "%02x", got[i]);
	got_hex[2 * (n < MAVLINK_MAX_FRAME ? n : MAVLINK_MAX_FRAME)] = '\0';
	if (n != wn || memcmp(got, want, n) != 0)
		fail_msg("frame %s\n expected %s", got_hex, hex);
}

/* The facts sheet's section 13. */
static const char V_SP2[] =
	"fd0e00000001011d0000e803000000507d4400000000c4095cd9";
static const char V_SP1[] = "fe0e0001011de803000000507d4400000000c4090e6c";
static const char V_SP1_EXT[] =
	"fe100001011de803000000507d4400000000c4090000e055";
static const char V_HB[] = "fd0900000001bf000000000000001208000003cfa5";
static const char V_PRL[] = "fd010000000101150000002ec0";
static const char V_PV[] =
	"fd1900000001011600000000c841000000004241524f5f524154455f485a5f4d"
	"415809163b";
static const char V_HIL[] =
	"fd4100000001016b0000b168de3a000000000000000000000000000000000000"
	"0000000000000000000000000000000000000000000000607b44000000000000"
	"000000000000001e008001b15c";
static const char V_SP2_SIGNED[] =
	"fd0e01000001011d0000e803000000507d4400000000c40995500200e06f9e75"
	"1947d1a51cdc92";

static struct mavlink_scaled_pressure
sheet_sp(void)
{
	struct mavlink_scaled_pressure m;

	memset(&m, 0, sizeof(m));
	m.time_boot_ms = 1000;
	m.press_abs = 1013.25f;
	m.temperature = 2500;
	return m;
}

/* ---- CRC, CRC_EXTRA, table ------------------------------------------ */

static void
test_crc_check_value(void **state)
{
	(void)state;
	const uint8_t *s = (const uint8_t *)"123456789";
	assert_int_equal(mavlink_crc(s, 9, 0xFFFF), 0x6F91);
	/* It continues: split input gives the same CRC. */
	assert_int_equal(mavlink_crc(s + 4, 5, mavlink_crc(s, 4, 0xFFFF)),
			 0x6F91);
	assert_int_equal(mavlink_crc(s, 0, 0xFFFF), 0xFFFF);

	/* The sheet's worked example: bytes 1..23 of the v2 vector. */
	uint8_t f[64];
	unhex(V_SP2, f, sizeof(f));
	uint16_t crc = mavlink_crc(f + 1, 23, 0xFFFF);
	assert_int_equal(crc, 0xA95C);
	const uint8_t extra = 115;
	assert_int_equal(mavlink_crc(&extra, 1, crc), 0xD95C);
}

/*
 * The field lists of the sheet's section 10, in wire order (non-extension
 * fields stable-sorted by element size, then the extensions in XML
 * order), written out independently of the codec's table.
 */
struct field {
	const char *type;	/* base C type as hashed */
	const char *name;
	unsigned array;		/* 0: not an array */
	bool ext;
};

struct msg_def {
	uint32_t id;
	const char *name;
	const struct field *f;
};

#define F(t, n) { t, n, 0, false }
#define FA(t, n, a) { t, n, a, false }
#define EXT(t, n) { t, n, 0, true }
#define END { NULL, NULL, 0, false }

static const struct field f_heartbeat[] = {
	F("uint32_t", "custom_mode"), F("uint8_t", "type"),
	F("uint8_t", "autopilot"), F("uint8_t", "base_mode"),
	F("uint8_t", "system_status"),
	/* XML type uint8_t_mavlink_version, hashed as uint8_t */
	F("uint8_t", "mavlink_version"), END
};
static const struct field f_param_request_read[] = {
	F("int16_t", "param_index"), F("uint8_t", "target_system"),
	F("uint8_t", "target_component"), FA("char", "param_id", 16), END
};
static const struct field f_param_request_list[] = {
	F("uint8_t", "target_system"), F("uint8_t", "target_component"), END
};
static const struct field f_param_value[] = {
	F("float", "param_value"), F("uint16_t", "param_count"),
	F("uint16_t", "param_index"), FA("char", "param_id", 16),
	F("uint8_t", "param_type"), END
};
static const struct field f_param_set[] = {
	F("float", "param_value"), F("uint8_t", "target_system"),
	F("uint8_t", "target_component"), FA("char", "param_id", 16),
	F("uint8_t", "param_type"), END
};
static const struct field f_scaled_pressure[] = {
	F("uint32_t", "time_boot_ms"), F("float", "press_abs"),
	F("float", "press_diff"), F("int16_t", "temperature"),
	EXT("int16_t", "temperature_press_diff"), END
};
static const struct field f_command_int[] = {
	F("float", "param1"), F("float", "param2"), F("float", "param3"),
	F("float", "param4"), F("int32_t", "x"), F("int32_t", "y"),
	F("float", "z"), F("uint16_t", "command"),
	F("uint8_t", "target_system"), F("uint8_t", "target_component"),
	F("uint8_t", "frame"), F("uint8_t", "current"),
	F("uint8_t", "autocontinue"), END
};
static const struct field f_command_long[] = {
	F("float", "param1"), F("float", "param2"), F("float", "param3"),
	F("float", "param4"), F("float", "param5"), F("float", "param6"),
	F("float", "param7"), F("uint16_t", "command"),
	F("uint8_t", "target_system"), F("uint8_t", "target_component"),
	F("uint8_t", "confirmation"), END
};
static const struct field f_command_ack[] = {
	F("uint16_t", "command"), F("uint8_t", "result"),
	EXT("uint8_t", "progress"), EXT("int32_t", "result_param2"),
	EXT("uint8_t", "target_system"), EXT("uint8_t", "target_component"),
	END
};
static const struct field f_hil_sensor[] = {
	F("uint64_t", "time_usec"), F("float", "xacc"), F("float", "yacc"),
	F("float", "zacc"), F("float", "xgyro"), F("float", "ygyro"),
	F("float", "zgyro"), F("float", "xmag"), F("float", "ymag"),
	F("float", "zmag"), F("float", "abs_pressure"),
	F("float", "diff_pressure"), F("float", "pressure_alt"),
	F("float", "temperature"), F("uint32_t", "fields_updated"),
	EXT("uint8_t", "id"), END
};
/* Wire order: the XML's fields sorted by element size (stable). */
static const struct field f_hil_actuator_controls[] = {
	F("uint64_t", "time_usec"), F("uint64_t", "flags"),
	FA("float", "controls", 16), F("uint8_t", "mode"), END
};
static const struct field f_hil_gps[] = {
	F("uint64_t", "time_usec"), F("int32_t", "lat"), F("int32_t", "lon"),
	F("int32_t", "alt"), F("uint16_t", "eph"), F("uint16_t", "epv"),
	F("uint16_t", "vel"), F("int16_t", "vn"), F("int16_t", "ve"),
	F("int16_t", "vd"), F("uint16_t", "cog"), F("uint8_t", "fix_type"),
	F("uint8_t", "satellites_visible"), EXT("uint8_t", "id"),
	EXT("uint16_t", "yaw"), END
};
static const struct field f_hil_state_quaternion[] = {
	F("uint64_t", "time_usec"), FA("float", "attitude_quaternion", 4),
	F("float", "rollspeed"), F("float", "pitchspeed"),
	F("float", "yawspeed"), F("int32_t", "lat"), F("int32_t", "lon"),
	F("int32_t", "alt"), F("int16_t", "vx"), F("int16_t", "vy"),
	F("int16_t", "vz"), F("uint16_t", "ind_airspeed"),
	F("uint16_t", "true_airspeed"), F("int16_t", "xacc"),
	F("int16_t", "yacc"), F("int16_t", "zacc"), END
};
static const struct field f_statustext[] = {
	F("uint8_t", "severity"), FA("char", "text", 50),
	EXT("uint16_t", "id"), EXT("uint8_t", "chunk_seq"), END
};

static const struct field f_system_time[] = {
	F("uint64_t", "time_unix_usec"), F("uint32_t", "time_boot_ms"), END
};
static const struct field f_global_position_int[] = {
	F("uint32_t", "time_boot_ms"), F("int32_t", "lat"),
	F("int32_t", "lon"), F("int32_t", "alt"), F("int32_t", "relative_alt"),
	F("int16_t", "vx"), F("int16_t", "vy"), F("int16_t", "vz"),
	F("uint16_t", "hdg"), END
};
static const struct field f_autopilot_version[] = {
	F("uint64_t", "capabilities"), F("uint64_t", "uid"),
	F("uint32_t", "flight_sw_version"),
	F("uint32_t", "middleware_sw_version"), F("uint32_t", "os_sw_version"),
	F("uint32_t", "board_version"), F("uint16_t", "vendor_id"),
	F("uint16_t", "product_id"),
	FA("uint8_t", "flight_custom_version", 8),
	FA("uint8_t", "middleware_custom_version", 8),
	FA("uint8_t", "os_custom_version", 8),
	{ "uint8_t", "uid2", 18, true }, END
};

static const struct field f_sys_status[] = {
	F("uint32_t", "onboard_control_sensors_present"),
	F("uint32_t", "onboard_control_sensors_enabled"),
	F("uint32_t", "onboard_control_sensors_health"),
	F("uint16_t", "load"), F("uint16_t", "voltage_battery"),
	F("int16_t", "current_battery"), F("uint16_t", "drop_rate_comm"),
	F("uint16_t", "errors_comm"), F("uint16_t", "errors_count1"),
	F("uint16_t", "errors_count2"), F("uint16_t", "errors_count3"),
	F("uint16_t", "errors_count4"), F("int8_t", "battery_remaining"),
	EXT("uint32_t", "onboard_control_sensors_present_extended"),
	EXT("uint32_t", "onboard_control_sensors_enabled_extended"),
	EXT("uint32_t", "onboard_control_sensors_health_extended"), END
};
static const struct field f_set_mode[] = {
	F("uint32_t", "custom_mode"), F("uint8_t", "target_system"),
	F("uint8_t", "base_mode"), END
};
static const struct field f_ekf_status_report[] = {
	F("float", "velocity_variance"), F("float", "pos_horiz_variance"),
	F("float", "pos_vert_variance"), F("float", "compass_variance"),
	F("float", "terrain_alt_variance"), F("uint16_t", "flags"),
	EXT("float", "airspeed_variance"), END
};
static const struct field f_estimator_status[] = {
	F("uint64_t", "time_usec"), F("float", "vel_ratio"),
	F("float", "pos_horiz_ratio"), F("float", "pos_vert_ratio"),
	F("float", "mag_ratio"), F("float", "hagl_ratio"),
	F("float", "tas_ratio"), F("float", "pos_horiz_accuracy"),
	F("float", "pos_vert_accuracy"), F("uint16_t", "flags"), END
};
static const struct field f_extended_sys_state[] = {
	F("uint8_t", "vtol_state"), F("uint8_t", "landed_state"), END
};

/* The mission protocol's, in wire order (the XML's sorted by size). */
static const struct field f_mission_count[] = {
	F("uint16_t", "count"), F("uint8_t", "target_system"),
	F("uint8_t", "target_component"), EXT("uint8_t", "mission_type"),
	EXT("uint32_t", "opaque_id"), END
};
static const struct field f_mission_request[] = {
	F("uint16_t", "seq"), F("uint8_t", "target_system"),
	F("uint8_t", "target_component"), EXT("uint8_t", "mission_type"), END
};
static const struct field f_mission_item_int[] = {
	F("float", "param1"), F("float", "param2"), F("float", "param3"),
	F("float", "param4"), F("int32_t", "x"), F("int32_t", "y"),
	F("float", "z"), F("uint16_t", "seq"), F("uint16_t", "command"),
	F("uint8_t", "target_system"), F("uint8_t", "target_component"),
	F("uint8_t", "frame"), F("uint8_t", "current"),
	F("uint8_t", "autocontinue"), EXT("uint8_t", "mission_type"), END
};
static const struct field f_mission_ack[] = {
	F("uint8_t", "target_system"), F("uint8_t", "target_component"),
	F("uint8_t", "type"), EXT("uint8_t", "mission_type"),
	EXT("uint32_t", "opaque_id"), END
};
static const struct field f_mission_item_reached[] = {
	F("uint16_t", "seq"), END
};

static const struct msg_def msg_defs[] = {
	{ 40, "MISSION_REQUEST", f_mission_request },
	{ 44, "MISSION_COUNT", f_mission_count },
	{ 46, "MISSION_ITEM_REACHED", f_mission_item_reached },
	{ 47, "MISSION_ACK", f_mission_ack },
	{ 51, "MISSION_REQUEST_INT", f_mission_request },
	{ 73, "MISSION_ITEM_INT", f_mission_item_int },
	{ 1, "SYS_STATUS", f_sys_status },
	{ 11, "SET_MODE", f_set_mode },
	{ 193, "EKF_STATUS_REPORT", f_ekf_status_report },
	{ 230, "ESTIMATOR_STATUS", f_estimator_status },
	{ 245, "EXTENDED_SYS_STATE", f_extended_sys_state },
	{ 0, "HEARTBEAT", f_heartbeat },
	{ 2, "SYSTEM_TIME", f_system_time },
	{ 33, "GLOBAL_POSITION_INT", f_global_position_int },
	{ 148, "AUTOPILOT_VERSION", f_autopilot_version },
	{ 20, "PARAM_REQUEST_READ", f_param_request_read },
	{ 21, "PARAM_REQUEST_LIST", f_param_request_list },
	{ 22, "PARAM_VALUE", f_param_value },
	{ 23, "PARAM_SET", f_param_set },
	{ 29, "SCALED_PRESSURE", f_scaled_pressure },
	{ 75, "COMMAND_INT", f_command_int },
	{ 76, "COMMAND_LONG", f_command_long },
	{ 77, "COMMAND_ACK", f_command_ack },
	{ 93, "HIL_ACTUATOR_CONTROLS", f_hil_actuator_controls },
	{ 107, "HIL_SENSOR", f_hil_sensor },
	{ 113, "HIL_GPS", f_hil_gps },
	{ 115, "HIL_STATE_QUATERNION", f_hil_state_quaternion },
	{ 137, "SCALED_PRESSURE2", f_scaled_pressure },
	{ 143, "SCALED_PRESSURE3", f_scaled_pressure },
	{ 253, "STATUSTEXT", f_statustext },
};

#define N_DEFS (sizeof(msg_defs) / sizeof(msg_defs[0]))

static unsigned
type_size(const char *type)
{
	static const struct {
		const char *t;
		unsigned size;
	} sizes[] = {
		{ "char", 1 }, { "uint8_t", 1 }, { "int8_t", 1 },
		{ "uint16_t", 2 }, { "int16_t", 2 }, { "uint32_t", 4 },
		{ "int32_t", 4 }, { "float", 4 }, { "uint64_t", 8 },
		{ "int64_t", 8 }, { "double", 8 },
	};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		if (strcmp(sizes[i].t, type) == 0)
			return sizes[i].size;
	}
	fail_msg("unknown type %s", type);
	return 0;
}

static uint16_t
crc_str(const char *s, uint16_t crc)
{
	return mavlink_crc((const uint8_t *)s, strlen(s), crc);
}

/* The sheet's section 5, with the type text given separately so the
 * test can also show the two wrong ways the sheet warns about. */
static uint8_t
crc_extra_of(const char *name, const struct field *f,
	     const char *const *type_text)
{
	uint16_t crc = crc_str(name, 0xFFFF);

	crc = crc_str(" ", crc);
	for (int i = 0; f[i].name; i++) {
		if (f[i].ext)
			continue;
		crc = crc_str(type_text ? type_text[i] : f[i].type, crc);
		crc = crc_str(" ", crc);
		crc = crc_str(f[i].name, crc);
		crc = crc_str(" ", crc);
		if (f[i].array) {
			uint8_t a = (uint8_t)f[i].array;
			crc = mavlink_crc(&a, 1, crc);
		}
	}
	return (uint8_t)((crc & 0xFF) ^ (crc >> 8));
}

static void
test_crc_extra_and_lengths(void **state)
{
	(void)state;
	for (size_t k = 0; k < N_DEFS; k++) {
		const struct msg_def *d = &msg_defs[k];
		const struct mavlink_msg_info *info = mavlink_msg_info(d->id);
		unsigned base = 0, full = 0, last = 8;
		bool in_ext = false;

		assert_non_null(info);
		assert_int_equal(info->id, d->id);
		assert_string_equal(info->name, d->name);
		for (int i = 0; d->f[i].name; i++) {
			unsigned es = type_size(d->f[i].type);
			unsigned size = es * (d->f[i].array ? d->f[i].array
							    : 1);
			/* The lists must really be in wire order. */
			if (d->f[i].ext) {
				in_ext = true;
			} else {
				assert_false(in_ext);
				assert_true(es <= last);
				last = es;
				base += size;
			}
			full += size;
		}
		uint8_t extra = crc_extra_of(d->name, d->f, NULL);
		if (extra != info->crc_extra || base != info->min_len ||
		    full != info->len)
			fail_msg("%s: CRC_EXTRA %u, lengths %u/%u computed; "
				 "table has %u, %u/%u", d->name, extra, base,
				 full, info->crc_extra, info->min_len,
				 info->len);
	}

	/* The sheet's own figures for the algorithm, and its two traps. */
	uint16_t sp = crc_str("SCALED_PRESSURE uint32_t time_boot_ms float "
			      "press_abs float press_diff int16_t "
			      "temperature ", 0xFFFF);
	assert_int_equal(sp, 0x6C1F);
	static const char *const hb_wrong[] = {
		"uint32_t", "uint8_t", "uint8_t", "uint8_t", "uint8_t",
		"uint8_t_mavlink_version",
	};
	assert_int_equal(crc_extra_of("HEARTBEAT", f_heartbeat, hb_wrong),
			 239);
	static const char *const pv_wrong[] = {
		"float", "uint16_t", "uint16_t", "char[16]", "uint8_t",
	};
	assert_int_equal(crc_extra_of("PARAM_VALUE", f_param_value, pv_wrong),
			 132);
}

/* Exactly the messages of mavlink.h are known. */
static void
test_table_ids(void **state)
{
	size_t known = 0;
	(void)state;

	for (uint32_t id = 0; id < 70000; id++) {
		const struct mavlink_msg_info *info = mavlink_msg_info(id);
		if (!info)
			continue;
		known++;
		assert_int_equal(info->id, id);
		assert_true(info->min_len >= 1);
		assert_true(info->min_len <= info->len);
	}
	assert_int_equal(known, N_DEFS);
	assert_null(mavlink_msg_info(0xFFFFFF));
	assert_null(mavlink_msg_info(UINT32_MAX));
}

/* The messages a scripted autopilot reports its flight with
 * (tests/harness/fake-autopilot.c), framed byte for byte as node-mavlink
 * 2.3.0 frames the same values (its `mavlink-peer.mjs encode`, run once;
 * the frames are written out so this runs without node), and read back. */
/* One message framed as node-mavlink framed it. */
struct node_frame {
	uint32_t msgid;
	uint8_t seq, sysid, compid;
	const char *hex;
};

/* m packed and framed is w's hex byte for byte, and reads back to the
 * same payload. */
static void
assert_as_node(const struct node_frame *w, const union mavlink_msg *m)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD], f[MAVLINK_MAX_FRAME];
	char hex[2 * MAVLINK_MAX_FRAME + 1];
	memset(pl, 0, sizeof(pl));
	size_t len = mavlink_pack_msg(w->msgid, m, pl);
	assert_int_equal(len, mavlink_msg_info(w->msgid)->len);
	int n = mavlink_frame_encode(f, 2, w->seq, w->sysid, w->compid,
				     w->msgid, pl);
	assert_true(n > 0);
	for (int k = 0; k < n; k++)
		snprintf(hex + 2 * k, 3, "%02x", f[k]);
	assert_string_equal(hex, w->hex);
	union mavlink_msg back;
	uint8_t payload[MAVLINK_MAX_PAYLOAD] = { 0 };
	memcpy(payload, f + 10, f[1]);
	assert_int_equal(mavlink_unpack_msg(w->msgid, payload, &back), 0);
	uint8_t again[MAVLINK_MAX_PAYLOAD];
	memset(again, 0, sizeof(again));
	mavlink_pack_msg(w->msgid, &back, again);
	assert_memory_equal(again, pl, len);
}

static void
test_flight_messages_as_node_mavlink(void **state)
{
	static const struct node_frame want[] = {
		{ MAVLINK_MSG_SYS_STATUS, 7, 1, 1,
		  "fd1f00000701010100001f202181172021810f2021817b0038316aff02"
		  "0003000400050006000700fffc5b" },
		{ MAVLINK_MSG_SET_MODE, 8, 255, 190,
		  "fd06000008ffbe0b000000000406010152b1" },
		{ MAVLINK_MSG_EKF_STATUS_REPORT, 9, 1, 1,
		  "fd1a0000090101c100000000803e0000003f000090400000003e000080"
		  "3d2f080000c03f9ebc" },
		{ MAVLINK_MSG_ESTIMATOR_STATUS, 10, 1, 1,
		  "fd2a00000a0101e60000141a99be1c0000000000803e0000003f000090"
		  "400000003e0000803d000000400000403f0000a03f1f08af7d" },
		{ MAVLINK_MSG_EXTENDED_SYS_STATE, 11, 1, 1,
		  "fd0200000b0101f500000002b36a" },
	};
	union mavlink_msg m[5];
	(void)state;

	memset(m, 0, sizeof(m));
	m[0].ss = (struct mavlink_sys_status){
		.sensors_present = 2166431775u,
		.sensors_enabled = 2166431767u,
		.sensors_health = 2166431759u,
		.load = 123, .voltage_battery = 12600, .current_battery = -150,
		.drop_rate_comm = 2, .errors_comm = 3,
		.errors_count = { 4, 5, 6, 7 }, .battery_remaining = -1,
	};
	m[1].sm = (struct mavlink_set_mode){ .custom_mode = 100925440u,
					     .target_system = 1,
					     .base_mode = 1 };
	m[2].ekf = (struct mavlink_ekf_status_report){
		.velocity_variance = 0.25f, .pos_horiz_variance = 0.5f,
		.pos_vert_variance = 4.5f, .compass_variance = 0.125f,
		.terrain_alt_variance = 0.0625f, .flags = 2095,
		.airspeed_variance = 1.5f,
	};
	m[3].es = (struct mavlink_estimator_status){
		.time_usec = 123456789012u, .vel_ratio = 0.25f,
		.pos_horiz_ratio = 0.5f, .pos_vert_ratio = 4.5f,
		.mag_ratio = 0.125f, .hagl_ratio = 0.0625f, .tas_ratio = 2.0f,
		.pos_horiz_accuracy = 0.75f, .pos_vert_accuracy = 1.25f,
		.flags = 2079,
	};
	m[4].ess = (struct mavlink_extended_sys_state){ .landed_state = 2 };
	for (size_t i = 0; i < 5; i++)
		assert_as_node(&want[i], &m[i]);
}

/* The mission protocol's messages (baro-campaign's flight uploads a
 * mission, the scripted autopilots take it), framed byte for byte as
 * node-mavlink 2.3.0's `mavlink-peer.mjs encode` frames the same values
 * (run once; MAVLink 2 trims trailing zeros), and read back. */
static void
test_mission_messages_as_node_mavlink(void **state)
{
	static const struct node_frame want[] = {
		{ MAVLINK_MSG_MISSION_COUNT, 1, 255, 190,
		  "fd04000001ffbe2c0000040001014a29" },
		{ MAVLINK_MSG_MISSION_REQUEST, 2, 1, 1,
		  "fd0400000201012800000300ffbee10d" },
		{ MAVLINK_MSG_MISSION_REQUEST_INT, 3, 1, 1,
		  "fd0400000301013300000200ffbe30ad" },
		{ MAVLINK_MSG_MISSION_ITEM_INT, 4, 255, 190,
		  "fd25000004ffbe4900000000003f00000040000000000000c0bf9efeeb"
		  "eacccee85800007441020010000101060001184b" },
		{ MAVLINK_MSG_MISSION_ACK, 5, 1, 1,
		  "fd0300000501012f0000ffbe0dd6f2" },
		{ MAVLINK_MSG_MISSION_ITEM_REACHED, 6, 1, 1,
		  "fd0100000601012e00000367b6" },
	};
	union mavlink_msg m[6];
	(void)state;

	memset(m, 0, sizeof(m));
	m[0].mc = (struct mavlink_mission_count){ .count = 4,
						  .target_system = 1,
						  .target_component = 1 };
	m[1].mr = (struct mavlink_mission_request){ .seq = 3,
						    .target_system = 255,
						    .target_component = 190 };
	m[2].mr = (struct mavlink_mission_request){ .seq = 2,
						    .target_system = 255,
						    .target_component = 190 };
	m[3].mi = (struct mavlink_mission_item_int){
		.param1 = 0.5f, .param2 = 2.0f, .param4 = -1.5f,
		.x = -353632610, .y = 1491652300, .z = 15.25f, .seq = 2,
		.command = 16, .target_system = 1, .target_component = 1,
		.frame = 6, .autocontinue = 1,
	};
	m[4].ma = (struct mavlink_mission_ack){ .target_system = 255,
						.target_component = 190,
						.type = 13 };
	m[5].mir = (struct mavlink_mission_item_reached){ .seq = 3 };
	for (size_t i = 0; i < 6; i++)
		assert_as_node(&want[i], &m[i]);
}

/* ---- the sheet's vectors -------------------------------------------- */

static void
test_vectors_encode(void **state)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD], f[MAVLINK_MAX_FRAME];
	int n;
	(void)state;

	struct mavlink_scaled_pressure sp = sheet_sp();
	assert_int_equal(mavlink_pack_scaled_pressure(&sp, pl), 16);
	n = mavlink_frame_encode(f, 2, 0, 1, 1, MAVLINK_MSG_SCALED_PRESSURE,
				 pl);
	assert_int_equal(n, 26);
	assert_hex_equal(f, (size_t)n, V_SP2);
	n = mavlink_frame_encode(f, 1, 0, 1, 1, MAVLINK_MSG_SCALED_PRESSURE,
				 pl);
	assert_int_equal(n, 22);
	assert_hex_equal(f, (size_t)n, V_SP1);

	struct mavlink_heartbeat hb;
	memset(&hb, 0, sizeof(hb));
	hb.type = MAV_TYPE_ONBOARD_CONTROLLER;
	hb.autopilot = MAV_AUTOPILOT_INVALID;
	hb.mavlink_version = 3;
	assert_int_equal(mavlink_pack_heartbeat(&hb, pl), 9);
	n = mavlink_frame_encode(f, 2, 0, 1, MAV_COMP_ID_ONBOARD_COMPUTER,
				 MAVLINK_MSG_HEARTBEAT, pl);
	assert_hex_equal(f, (size_t)n, V_HB);

	struct mavlink_param_request_list prl = { 0, 0 };
	assert_int_equal(mavlink_pack_param_request_list(&prl, pl), 2);
	n = mavlink_frame_encode(f, 2, 0, 1, 1,
				 MAVLINK_MSG_PARAM_REQUEST_LIST, pl);
	assert_int_equal(n, 13);	/* all zero: len 1, not 0 */
	assert_hex_equal(f, (size_t)n, V_PRL);

	struct mavlink_param_value pv;
	memset(&pv, 0, sizeof(pv));
	strcpy(pv.param_id, "BARO_RATE_HZ_MAX");
	pv.param_value = 25.0f;
	pv.param_type = MAV_PARAM_TYPE_REAL32;
	assert_int_equal(mavlink_pack_param_value(&pv, pl), 25);
	n = mavlink_frame_encode(f, 2, 0, 1, 1, MAVLINK_MSG_PARAM_VALUE, pl);
	assert_hex_equal(f, (size_t)n, V_PV);

	struct mavlink_hil_sensor hil;
	memset(&hil, 0, sizeof(hil));
	hil.time_usec = 987654321;
	hil.abs_pressure = 1005.5f;
	hil.fields_updated = 0x80001E00u;
	hil.id = 1;
	assert_int_equal(mavlink_pack_hil_sensor(&hil, pl), 65);
	n = mavlink_frame_encode(f, 2, 0, 1, 1, MAVLINK_MSG_HIL_SENSOR, pl);
	assert_hex_equal(f, (size_t)n, V_HIL);
}

/* The PX4 simulator sheet's vectors (px4-sim.md section 8): decoded
 * here, re-encoded byte for byte, and the fields PX4 acts on checked. */
static const char V_PX4_HIL_SENSOR[] =
	"fd3e00000001c86b0000002d31010000000000000000000000000ae81cc1000000"
	"0000000000000000003d0a573e000000003d0ad73e7cff6e44000000000000f443"
	"7d3f3d41ff1b8b30";
static const char V_PX4_ACTUATORS[] =
	"fd5100000001015d0000601d310100000000010000000000000000000000000000"
	"000000000000000000000000000000000000000000000000000000000000000000"
	"0000000000000000000000000000000000000000000000000160bc";
static const char V_PX4_HEARTBEAT[] = "fd09000000010100000000000000000c00000381d6";

static struct mavlink_frame
decode_one(const char *hex)
{
	uint8_t buf[MAVLINK_MAX_FRAME], out[MAVLINK_MAX_FRAME];
	size_t n = unhex(hex, buf, sizeof(buf));
	struct mavlink_parser p;
	struct capture c;
	struct mavlink_frame f;
	union mavlink_msg m;
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };

	parse_all(buf, n, &p, &c);
	assert_int_equal(c.n, 1);
	f = c.f[0];
	free(c.f);
	assert_int_equal(mavlink_unpack_msg(f.msgid, f.payload, &m), 0);
	mavlink_pack_msg(f.msgid, &m, pl);
	int k = mavlink_frame_encode(out, 2, f.seq, f.sysid, f.compid,
				     f.msgid, pl);
	assert_hex_equal(out, (size_t)k, hex);
	return f;
}

static void
test_px4_sim_vectors(void **state)
{
	(void)state;
	struct mavlink_frame f = decode_one(V_PX4_HIL_SENSOR);
	struct mavlink_hil_sensor h;

	assert_int_equal(f.msgid, MAVLINK_MSG_HIL_SENSOR);
	assert_int_equal(f.compid, 200);
	mavlink_unpack_hil_sensor(f.payload, &h);
	assert_int_equal(h.time_usec, 20000000u);
	assert_true(h.zacc == -9.80665f);
	assert_true(h.pressure_alt == 488.0f);
	assert_int_equal(h.fields_updated, 0x1BFF);
	assert_int_equal(h.fields_updated & HIL_SENSOR_BARO, HIL_SENSOR_BARO);
	assert_int_equal(h.id, 0);

	f = decode_one(V_PX4_ACTUATORS);
	struct mavlink_hil_actuator_controls a;
	mavlink_unpack_hil_actuator_controls(f.payload, &a);
	assert_int_equal(a.time_usec, 19996000u);
	assert_int_equal(a.flags, HIL_ACTUATOR_CONTROLS_FLAGS_LOCKSTEP);
	assert_int_equal(a.mode, 1);
	for (int i = 0; i < 16; i++)
		assert_true(a.controls[i] == 0.0f);

	f = decode_one(V_PX4_HEARTBEAT);
	struct mavlink_heartbeat hb;
	mavlink_unpack_heartbeat(f.payload, &hb);
	assert_int_equal(hb.autopilot, 12);
	assert_int_equal(hb.mavlink_version, 3);
}

static void
parse_hex(const char *hex, struct mavlink_parser *p, struct capture *c)
{
	uint8_t buf[2 * MAVLINK_MAX_FRAME];
	size_t n = unhex(hex, buf, sizeof(buf));

	parse_all(buf, n, p, c);
	assert_bytes_add_up(p, c, n);
}

static void
assert_sheet_sp(const struct mavlink_frame *f, uint32_t msgid)
{
	struct mavlink_scaled_pressure m, want = sheet_sp();

	assert_int_equal(f->msgid, msgid);
	assert_int_equal(f->seq, 0);
	assert_int_equal(f->sysid, 1);
	assert_int_equal(f->compid, 1);
	mavlink_unpack_scaled_pressure(f->payload, &m);
	assert_memory_equal(&m, &want, sizeof(m));
}

static void
test_vectors_decode(void **state)
{
	struct mavlink_parser p;
	struct capture c;
	(void)state;

	parse_hex(V_SP2, &p, &c);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.f[0].version, 2);
	assert_int_equal(c.f[0].len, 14);
	assert_sheet_sp(&c.f[0], MAVLINK_MSG_SCALED_PRESSURE);
	free(c.f);

	parse_hex(V_SP1, &p, &c);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.f[0].version, 1);
	assert_sheet_sp(&c.f[0], MAVLINK_MSG_SCALED_PRESSURE);
	free(c.f);

	/* node-mavlink's v1 with the extension: len 16 in v1 is accepted. */
	parse_hex(V_SP1_EXT, &p, &c);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.f[0].version, 1);
	assert_int_equal(c.f[0].len, 16);
	assert_sheet_sp(&c.f[0], MAVLINK_MSG_SCALED_PRESSURE);
	free(c.f);

	parse_hex(V_HB, &p, &c);
	assert_int_equal(c.n, 1);
	struct mavlink_heartbeat hb;
	mavlink_unpack_heartbeat(c.f[0].payload, &hb);
	assert_int_equal(c.f[0].compid, 191);
	assert_int_equal(hb.type, 18);
	assert_int_equal(hb.autopilot, 8);
	assert_int_equal(hb.mavlink_version, 3);
	assert_int_equal(hb.custom_mode, 0);
	free(c.f);

	parse_hex(V_PRL, &p, &c);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.f[0].len, 1);
	struct mavlink_param_request_list prl;
	mavlink_unpack_param_request_list(c.f[0].payload, &prl);
	assert_int_equal(prl.target_system, 0);
	assert_int_equal(prl.target_component, 0);
	free(c.f);

	parse_hex(V_PV, &p, &c);
	assert_int_equal(c.n, 1);
	struct mavlink_param_value pv;
	mavlink_unpack_param_value(c.f[0].payload, &pv);
	assert_string_equal(pv.param_id, "BARO_RATE_HZ_MAX");
	assert_int_equal(pv.param_id[16], '\0');
	assert_float_exact(pv.param_value, 25.0f);
	assert_int_equal(pv.param_type, MAV_PARAM_TYPE_REAL32);
	free(c.f);

	parse_hex(V_HIL, &p, &c);
	assert_int_equal(c.n, 1);
	struct mavlink_hil_sensor hil;
	mavlink_unpack_hil_sensor(c.f[0].payload, &hil);
	assert_int_equal(hil.time_usec, 987654321);
	assert_float_exact(hil.abs_pressure, 1005.5f);
	assert_float_exact(hil.temperature, 0.0f);
	assert_int_equal(hil.fields_updated, 0x80001E00u);
	assert_int_equal(hil.id, 1);
	free(c.f);
}

/* The signed vector is framed, CRC-checked, counted and dropped, and the
 * frame after it still arrives. */
static void
test_signed_vector(void **state)
{
	uint8_t buf[128];
	struct mavlink_parser p;
	struct capture c;
	(void)state;

	size_t n = unhex(V_SP2_SIGNED, buf, sizeof(buf));
	assert_int_equal(n, 26 + 13);
	/* The CRC covers the incompat flag, not the signature. */
	uint16_t crc = mavlink_crc(buf + 1, 23, 0xFFFF);
	const uint8_t extra = 115;
	crc = mavlink_crc(&extra, 1, crc);
	assert_int_equal(buf[24] | buf[25] << 8, crc);

	n += unhex(V_SP2, buf + n, sizeof(buf) - n);
	parse_all(buf, n, &p, &c);
	assert_int_equal(c.n, 1);
	assert_sheet_sp(&c.f[0], MAVLINK_MSG_SCALED_PRESSURE);
	assert_int_equal(p.stats.signed_dropped, 1);
	assert_int_equal(p.stats.bad_crc, 0);
	assert_int_equal(p.stats.garbage_bytes, 0);
	assert_int_equal(p.stats.dropped_bytes, 39);
	assert_bytes_add_up(&p, &c, n);
	free(c.f);

	/* A changed signature is not checked; a changed payload is. */
	buf[38] ^= 0xFF;
	parse_all(buf, n, &p, &c);
	assert_int_equal(c.n, 1);
	assert_int_equal(p.stats.signed_dropped, 1);
	free(c.f);
	buf[12] ^= 0x01;
	parse_all(buf, n, &p, &c);
	assert_int_equal(c.n, 1);
	assert_int_equal(p.stats.signed_dropped, 0);
	assert_int_equal(p.stats.bad_crc, 1);
	assert_bytes_add_up(&p, &c, n);
	free(c.f);
}

static void
test_encode_errors(void **state)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 }, f[MAVLINK_MAX_FRAME];
	(void)state;

	assert_int_equal(mavlink_frame_encode(f, 0, 0, 1, 1, 0, pl), -EINVAL);
	assert_int_equal(mavlink_frame_encode(f, 3, 0, 1, 1, 0, pl), -EINVAL);
	assert_int_equal(mavlink_frame_encode(f, 2, 0, 1, 1, 24, pl), -EINVAL);
	assert_int_equal(mavlink_frame_encode(f, 1, 0, 1, 1, 300, pl),
			 -EINVAL);
	assert_int_equal(mavlink_frame_encode(f, 2, 0, 1, 1, 0x1000000, pl),
			 -EINVAL);
}

/* ---- round trips ---------------------------------------------------- */

/* One message of each type with every field non-zero and distinct. */
struct sample {
	uint32_t msgid;
	union mavlink_msg m;
};

static size_t
sample_pack(const struct sample *s, uint8_t *pl)
{
	size_t n = mavlink_pack_msg(s->msgid, &s->m, pl);

	if (n == 0)
		fail_msg("no pack for %u", s->msgid);
	return n;
}

static void
sample_unpack(uint32_t msgid, const uint8_t *pl, struct sample *s)
{
	memset(s, 0, sizeof(*s));
	s->msgid = msgid;
	if (mavlink_unpack_msg(msgid, pl, &s->m) < 0)
		fail_msg("no unpack for %u", msgid);
}

/* What a v1 receiver sees: the extension fields are not sent. */
static void
sample_drop_extensions(struct sample *s)
{
	switch (s->msgid) {
	case MAVLINK_MSG_SCALED_PRESSURE:
	case MAVLINK_MSG_SCALED_PRESSURE2:
	case MAVLINK_MSG_SCALED_PRESSURE3:
		s->m.sp.temperature_press_diff = 0;
		break;
	case MAVLINK_MSG_HIL_SENSOR:
		s->m.hil.id = 0;
		break;
	case MAVLINK_MSG_HIL_GPS:
		s->m.gps.id = 0;
		s->m.gps.yaw = 0;
		break;
	case MAVLINK_MSG_COMMAND_ACK:
		s->m.ca.progress = 0;
		s->m.ca.result_param2 = 0;
		s->m.ca.target_system = 0;
		s->m.ca.target_component = 0;
		break;
	case MAVLINK_MSG_STATUSTEXT:
		s->m.st.id = 0;
		s->m.st.chunk_seq = 0;
		break;
	}
}

static const uint32_t all_ids[] = {
	MAVLINK_MSG_HEARTBEAT, MAVLINK_MSG_PARAM_REQUEST_READ,
	MAVLINK_MSG_PARAM_REQUEST_LIST, MAVLINK_MSG_PARAM_VALUE,
	MAVLINK_MSG_PARAM_SET, MAVLINK_MSG_SCALED_PRESSURE,
	MAVLINK_MSG_COMMAND_LONG, MAVLINK_MSG_COMMAND_ACK,
	MAVLINK_MSG_COMMAND_INT, MAVLINK_MSG_HIL_SENSOR, MAVLINK_MSG_SCALED_PRESSURE2,
	MAVLINK_MSG_SCALED_PRESSURE3, MAVLINK_MSG_STATUSTEXT,
	MAVLINK_MSG_HIL_ACTUATOR_CONTROLS, MAVLINK_MSG_HIL_GPS,
	MAVLINK_MSG_HIL_STATE_QUATERNION,
};

#define N_IDS (sizeof(all_ids) / sizeof(all_ids[0]))

/* xorshift32: deterministic inputs on every run and machine. */
static uint32_t
rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* A float from random bits, but finite so == comparisons mean
 * something in messages built from it. */
static float
rnd_float(uint32_t *s)
{
	return (float)((int32_t)rnd(s) % 2000000) / 64.0f;
}

/* Not inlined: at -O3 GCC 12 mistakes the union member being written for
 * another one and reports a false -Wstringop-overflow. */
static __attribute__((noinline)) void
rnd_chars(uint32_t *s, char *out, size_t max)
{
	size_t n = rnd(s) % (max + 1);

	memset(out, 0, max + 1);
	for (size_t i = 0; i < n; i++)
		out[i] = (char)(' ' + rnd(s) % 95);
}

/* A message of the given type with random fields; with no seed, the
 * fixed sample whose every field is non-zero (16-char param_id, 50-char
 * text). */
static void
make_sample(struct sample *s, uint32_t msgid, uint32_t *seed)
{
	/* Filled in place after a memset, so padding compares equal. */
	uint32_t *g = seed;

	memset(s, 0, sizeof(*s));
	s->msgid = msgid;
	switch (msgid) {
	case MAVLINK_MSG_HEARTBEAT:
		s->m.hb.custom_mode = seed ? rnd(g) : 0xDEADBEEFu;
		s->m.hb.type = (uint8_t)(seed ? rnd(g) : 18);
		s->m.hb.autopilot = (uint8_t)(seed ? rnd(g) : 8);
		s->m.hb.base_mode = (uint8_t)(seed ? rnd(g) : 0x81);
		s->m.hb.system_status = (uint8_t)(seed ? rnd(g) : 4);
		s->m.hb.mavlink_version = (uint8_t)(seed ? rnd(g) : 3);
		break;
	case MAVLINK_MSG_SCALED_PRESSURE:
	case MAVLINK_MSG_SCALED_PRESSURE2:
	case MAVLINK_MSG_SCALED_PRESSURE3:
		s->m.sp.time_boot_ms = seed ? rnd(g) : 4000000001u;
		s->m.sp.press_abs = seed ? rnd_float(g) : 954.328125f;
		s->m.sp.press_diff = seed ? rnd_float(g) : -0.015625f;
		s->m.sp.temperature = seed ? (int16_t)rnd(g) : -1234;
		s->m.sp.temperature_press_diff = seed ? (int16_t)rnd(g)
						      : INT16_MIN;
		break;
	case MAVLINK_MSG_HIL_SENSOR: {
		struct mavlink_hil_sensor *h = &s->m.hil;
		float *fl[] = { &h->xacc, &h->yacc, &h->zacc, &h->xgyro,
				&h->ygyro, &h->zgyro, &h->xmag, &h->ymag,
				&h->zmag, &h->abs_pressure, &h->diff_pressure,
				&h->pressure_alt, &h->temperature };
		h->time_usec = 0x0123456789ABCDEFull;
		if (seed) {
			h->time_usec = (uint64_t)rnd(g) << 32;
			h->time_usec |= rnd(g);
		}
		for (int i = 0; i < 13; i++)
			*fl[i] = seed ? rnd_float(g) : (float)(i + 1) * -1.5f;
		s->m.hil.fields_updated = seed ? rnd(g) : 0x80001E00u;
		s->m.hil.id = (uint8_t)(seed ? rnd(g) : 2);
		break;
	}
	case MAVLINK_MSG_HIL_ACTUATOR_CONTROLS: {
		struct mavlink_hil_actuator_controls *a = &s->m.hac;
		a->time_usec = seed ? (uint64_t)rnd(g) << 20 : 19996000u;
		a->flags = seed ? (uint64_t)rnd(g) << 33 | rnd(g) : 1u;
		for (int i = 0; i < 16; i++)
			a->controls[i] = seed ? rnd_float(g)
					      : (float)(i - 8) / 8.0f;
		a->mode = (uint8_t)(seed ? rnd(g) : 129);
		break;
	}
	case MAVLINK_MSG_HIL_GPS: {
		struct mavlink_hil_gps *p = &s->m.gps;
		p->time_usec = seed ? (uint64_t)rnd(g) << 24 : 20000000u;
		p->lat = (int32_t)(seed ? rnd(g) : 473977420u);
		p->lon = (int32_t)(seed ? rnd(g) : 85455940u);
		p->alt = (int32_t)(seed ? rnd(g) : 0xFFFFFFF0u);
		p->eph = (uint16_t)(seed ? rnd(g) : 30);
		p->epv = (uint16_t)(seed ? rnd(g) : 40);
		p->vel = (uint16_t)(seed ? rnd(g) : 65535);
		p->vn = (int16_t)(seed ? rnd(g) : 0x8000u);
		p->ve = (int16_t)(seed ? rnd(g) : 7);
		p->vd = (int16_t)(seed ? rnd(g) : 0xFFFFu);
		p->cog = (uint16_t)(seed ? rnd(g) : 35999);
		p->fix_type = (uint8_t)(seed ? rnd(g) : 3);
		p->satellites_visible = (uint8_t)(seed ? rnd(g) : 10);
		p->id = (uint8_t)(seed ? rnd(g) : 2);
		p->yaw = (uint16_t)(seed ? rnd(g) : 36000);
		break;
	}
	case MAVLINK_MSG_HIL_STATE_QUATERNION: {
		struct mavlink_hil_state_quaternion *q = &s->m.hsq;
		int16_t *i16[] = { &q->vx, &q->vy, &q->vz, &q->xacc, &q->yacc,
				   &q->zacc };
		q->time_usec = seed ? (uint64_t)rnd(g) << 30 : 1234567890123u;
		for (int i = 0; i < 4; i++)
			q->attitude_quaternion[i] =
				seed ? rnd_float(g) : 0.5f * (float)(i + 1);
		q->rollspeed = seed ? rnd_float(g) : -0.25f;
		q->pitchspeed = seed ? rnd_float(g) : 0.125f;
		q->yawspeed = seed ? rnd_float(g) : 3.5f;
		q->lat = (int32_t)(seed ? rnd(g) : 0x80000000u);
		q->lon = (int32_t)(seed ? rnd(g) : 0x7FFFFFFFu);
		q->alt = (int32_t)(seed ? rnd(g) : 488000u);
		for (int i = 0; i < 6; i++)
			*i16[i] = (int16_t)(seed ? rnd(g) : 0x8001u + (unsigned)i);
		q->ind_airspeed = (uint16_t)(seed ? rnd(g) : 1);
		q->true_airspeed = (uint16_t)(seed ? rnd(g) : 0xFFFFu);
		break;
	}
	case MAVLINK_MSG_PARAM_REQUEST_READ:
		s->m.prr.param_index = seed ? (int16_t)rnd(g) : -1;
		s->m.prr.target_system = (uint8_t)(seed ? rnd(g) : 1);
		s->m.prr.target_component = (uint8_t)(seed ? rnd(g) : 191);
		if (seed)
			rnd_chars(g, s->m.prr.param_id, 16);
		else
			strcpy(s->m.prr.param_id, "SIM_BARO_WCF_FWD");
		break;
	case MAVLINK_MSG_PARAM_REQUEST_LIST:
		s->m.prl.target_system = (uint8_t)(seed ? rnd(g) : 7);
		s->m.prl.target_component = (uint8_t)(seed ? rnd(g) : 191);
		break;
	case MAVLINK_MSG_PARAM_VALUE:
		s->m.pv.param_value = seed ? rnd_float(g) : 0.2f;
		s->m.pv.param_count = (uint16_t)(seed ? rnd(g) : 41);
		s->m.pv.param_index = (uint16_t)(seed ? rnd(g) : 40);
		if (seed)
			rnd_chars(g, s->m.pv.param_id, 16);
		else
			strcpy(s->m.pv.param_id, "SIM_TEMP_BFACTOR");
		s->m.pv.param_type = (uint8_t)(seed ? rnd(g) : 9);
		break;
	case MAVLINK_MSG_PARAM_SET:
		s->m.ps.param_value = seed ? rnd_float(g) : -150.0f;
		s->m.ps.target_system = (uint8_t)(seed ? rnd(g) : 1);
		s->m.ps.target_component = (uint8_t)(seed ? rnd(g) : 191);
		if (seed)
			rnd_chars(g, s->m.ps.param_id, 16);
		else
			strcpy(s->m.ps.param_id, "SIM_BARO_DELAY");
		s->m.ps.param_type = (uint8_t)(seed ? rnd(g) : 4);
		break;
	case MAVLINK_MSG_COMMAND_LONG:
		for (int i = 0; i < 7; i++)
			s->m.cl.param[i] = seed ? rnd_float(g)
					       : (float)(i + 1) * 0.25f;
		s->m.cl.command = (uint16_t)(seed ? rnd(g) : 512);
		s->m.cl.target_system = (uint8_t)(seed ? rnd(g) : 1);
		s->m.cl.target_component = (uint8_t)(seed ? rnd(g) : 191);
		s->m.cl.confirmation = (uint8_t)(seed ? rnd(g) : 2);
		break;
	case MAVLINK_MSG_COMMAND_INT:
		for (int i = 0; i < 4; i++)
			s->m.ci.param[i] = seed ? rnd_float(g)
					       : (float)(i + 1) * 0.5f;
		s->m.ci.x = (int32_t)(seed ? rnd(g) : 0x80000000u);
		s->m.ci.y = (int32_t)(seed ? rnd(g) : 473977418u);
		s->m.ci.z = seed ? rnd_float(g) : -12.5f;
		s->m.ci.command = (uint16_t)(seed ? rnd(g) : 420);
		s->m.ci.target_system = (uint8_t)(seed ? rnd(g) : 1);
		s->m.ci.target_component = (uint8_t)(seed ? rnd(g) : 191);
		s->m.ci.frame = (uint8_t)(seed ? rnd(g) : 6);
		s->m.ci.current = (uint8_t)(seed ? rnd(g) : 0);
		s->m.ci.autocontinue = (uint8_t)(seed ? rnd(g) : 255);
		break;
	case MAVLINK_MSG_COMMAND_ACK:
		s->m.ca.command = (uint16_t)(seed ? rnd(g) : 241);
		s->m.ca.result = (uint8_t)(seed ? rnd(g) : 4);
		s->m.ca.progress = (uint8_t)(seed ? rnd(g) : 255);
		s->m.ca.result_param2 = (int32_t)(seed ? rnd(g) : 0x80000001u);
		s->m.ca.target_system = (uint8_t)(seed ? rnd(g) : 255);
		s->m.ca.target_component = (uint8_t)(seed ? rnd(g) : 190);
		break;
	case MAVLINK_MSG_STATUSTEXT:
		s->m.st.severity = (uint8_t)(seed ? rnd(g) : 4);
		if (seed)
			rnd_chars(g, s->m.st.text, 50);
		else
			strcpy(s->m.st.text, "baro 1: SIM_BARO_GLITCH 5 m "
					    "from t = 12.5 s onward");
		s->m.st.id = (uint16_t)(seed ? rnd(g) : 0xBEEF);
		s->m.st.chunk_seq = (uint8_t)(seed ? rnd(g) : 3);
		break;
	}
}

static void
test_round_trip(void **state)
{
	(void)state;
	uint32_t seed = 12345;

	for (int round = 0; round < 50; round++) {
		for (size_t k = 0; k < N_IDS; k++) {
			struct sample s;
			make_sample(&s, all_ids[k], round ? &seed : NULL);
			if (!round && all_ids[k] == MAVLINK_MSG_STATUSTEXT)
				assert_int_equal(strlen(s.m.st.text), 50);
			for (int v = 1; v <= 2; v++) {
				uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
				uint8_t f[MAVLINK_MAX_FRAME];
				const struct mavlink_msg_info *info =
					mavlink_msg_info(s.msgid);
				struct mavlink_parser p;
				struct capture c;
				struct sample got, want;

				assert_int_equal(sample_pack(&s, pl),
						 info->len);
				uint8_t seq = (uint8_t)(round * 24 + v);
				int n = mavlink_frame_encode(f, v, seq, 42, 191,
							     s.msgid, pl);
				assert_true(n > 0);
				/* The fixed samples end in a non-zero byte. */
				if (v == 1 || round == 0)
					assert_int_equal(f[1],
							 v == 1 ? info->min_len
								: info->len);
				parse_all(f, (size_t)n, &p, &c);
				assert_int_equal(c.n, 1);
				assert_int_equal(c.f[0].version, v);
				assert_int_equal(c.f[0].seq, seq);
				assert_int_equal(c.f[0].sysid, 42);
				assert_int_equal(c.f[0].compid, 191);
				assert_int_equal(c.f[0].msgid, s.msgid);
				sample_unpack(c.f[0].msgid, c.f[0].payload,
					      &got);
				memcpy(&want, &s, sizeof(want));
				if (v == 1)
					sample_drop_extensions(&want);
				assert_memory_equal(&got, &want, sizeof(got));
				free(c.f);
			}
		}
	}
}

/* ---- truncation, zero-fill, odd lengths ----------------------------- */

static void
test_truncation(void **state)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD], f[MAVLINK_MAX_FRAME];
	struct mavlink_parser p;
	struct capture c;
	(void)state;

	struct mavlink_scaled_pressure sp = sheet_sp(), got;
	sp.temperature_press_diff = 0x0100;
	mavlink_pack_scaled_pressure(&sp, pl);
	assert_int_equal(mavlink_frame_encode(f, 2, 0, 1, 1, 29, pl), 28);
	assert_int_equal(f[1], 16);

	sp.temperature_press_diff = 0;
	mavlink_pack_scaled_pressure(&sp, pl);
	assert_int_equal(mavlink_frame_encode(f, 2, 0, 1, 1, 29, pl), 26);
	assert_int_equal(f[1], 14);

	/* Zeros inside stay: press_diff and temperature's low byte. */
	sp.temperature = 0x0100;
	mavlink_pack_scaled_pressure(&sp, pl);
	assert_int_equal(mavlink_frame_encode(f, 2, 0, 1, 1, 29, pl), 26);
	assert_int_equal(f[1], 14);
	assert_int_equal(f[10 + 12], 0);
	sp.temperature = 0x0001;	/* high byte 0: cut inside the field */
	mavlink_pack_scaled_pressure(&sp, pl);
	int n = mavlink_frame_encode(f, 2, 0, 1, 1, 29, pl);
	assert_int_equal(f[1], 13);
	parse_all(f, (size_t)n, &p, &c);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.f[0].len, 13);
	mavlink_unpack_scaled_pressure(c.f[0].payload, &got);
	assert_int_equal(got.temperature, 1);
	free(c.f);

	/* The sheet's "len 12 if temperature were also 0" holds when
	 * press_diff is not 0; in its vector press_diff is 0, so 8. */
	sp.temperature = 0;
	sp.press_diff = 0.5f;
	mavlink_pack_scaled_pressure(&sp, pl);
	n = mavlink_frame_encode(f, 2, 0, 1, 1, 29, pl);
	assert_int_equal(f[1], 12);
	parse_all(f, (size_t)n, &p, &c);
	mavlink_unpack_scaled_pressure(c.f[0].payload, &got);
	assert_int_equal(c.n, 1);
	assert_int_equal(got.temperature, 0);
	assert_float_exact(got.press_abs, 1013.25f);
	assert_float_exact(got.press_diff, 0.5f);
	free(c.f);
	sp.press_diff = 0.0f;
	mavlink_pack_scaled_pressure(&sp, pl);
	n = mavlink_frame_encode(f, 2, 0, 1, 1, 29, pl);
	assert_int_equal(f[1], 8);
	parse_all(f, (size_t)n, &p, &c);
	mavlink_unpack_scaled_pressure(c.f[0].payload, &got);
	assert_int_equal(c.n, 1);
	assert_float_exact(got.press_abs, 1013.25f);
	assert_float_exact(got.press_diff, 0.0f);
	free(c.f);

	/* v1 never truncates. */
	assert_int_equal(mavlink_frame_encode(f, 1, 0, 1, 1, 29, pl), 22);
	assert_int_equal(f[1], 14);

	/* All zero: one byte stays. */
	memset(&sp, 0, sizeof(sp));
	mavlink_pack_scaled_pressure(&sp, pl);
	n = mavlink_frame_encode(f, 2, 0, 1, 1, 29, pl);
	assert_int_equal(n, 13);
	assert_int_equal(f[1], 1);
	parse_all(f, (size_t)n, &p, &c);
	assert_int_equal(c.n, 1);
	free(c.f);

	struct mavlink_command_ack ca;
	memset(&ca, 0, sizeof(ca));
	ca.command = 512;
	mavlink_pack_command_ack(&ca, pl);
	assert_int_equal(mavlink_frame_encode(f, 2, 0, 1, 1, 77, pl), 14);
	assert_int_equal(f[1], 2);
}

/* Receivers zero-fill whatever length arrives, and deliver at most the
 * full length of a longer frame while checking its CRC over all of it. */
static void
test_zero_fill_and_odd_lengths(void **state)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD], f[MAVLINK_MAX_FRAME];
	struct mavlink_parser p;
	struct capture c;
	struct mavlink_scaled_pressure got;
	(void)state;

	struct mavlink_scaled_pressure sp = sheet_sp();
	sp.temperature = -2;		/* fe ff */
	sp.temperature_press_diff = 0x0A0B;
	mavlink_pack_scaled_pressure(&sp, pl);

	/* v2 cut by a sender inside temperature: the high byte reads 0. */
	size_t n = raw_frame(f, 2, 0, 0, 29, pl, 13, 115);
	parse_all(f, n, &p, &c);
	assert_int_equal(c.n, 1);
	mavlink_unpack_scaled_pressure(c.f[0].payload, &got);
	assert_int_equal(got.temperature, 0x00FE);
	assert_int_equal(got.temperature_press_diff, 0);
	assert_float_exact(got.press_abs, 1013.25f);
	for (size_t i = 13; i < MAVLINK_MAX_PAYLOAD; i++)
		assert_int_equal(c.f[0].payload[i], 0);
	free(c.f);

	/* v2 not truncated: trailing zeros present are fine. */
	memset(pl + 14, 0, 2);
	n = raw_frame(f, 2, 0, 0, 29, pl, 16, 115);
	parse_all(f, n, &p, &c);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.f[0].len, 16);
	free(c.f);

	/* Longer than the full length: CRC over all 20, 16 delivered. */
	memset(pl + 14, 0, MAVLINK_MAX_PAYLOAD - 14);
	pl[14] = 0x0B;
	pl[15] = 0x0A;
	memset(pl + 16, 0xAA, 4);
	n = raw_frame(f, 2, 0, 0, 29, pl, 20, 115);
	parse_all(f, n, &p, &c);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.f[0].len, 20);
	mavlink_unpack_scaled_pressure(c.f[0].payload, &got);
	assert_int_equal(got.temperature, -2);
	assert_int_equal(got.temperature_press_diff, 0x0A0B);
	for (size_t i = 16; i < MAVLINK_MAX_PAYLOAD; i++)
		assert_int_equal(c.f[0].payload[i], 0);
	free(c.f);
	f[n - 4] ^= 0x01;		/* one of the extra bytes */
	parse_all(f, n, &p, &c);
	assert_int_equal(c.n, 0);
	assert_int_equal(p.stats.bad_crc, 1);
	free(c.f);

	/* The longest possible frame: len 255. */
	memset(pl, 0x11, sizeof(pl));
	n = raw_frame(f, 2, 0, 0, 29, pl, 255, 115);
	assert_int_equal(n, 267);
	parse_all(f, n, &p, &c);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.f[0].payload[15], 0x11);
	assert_int_equal(c.f[0].payload[16], 0);
	free(c.f);

	/* v1 shorter than the base length (and len 0) also zero-fill. */
	struct mavlink_heartbeat hb = { 0x01020304u, 18, 8, 1, 4, 3 }, hgot;
	mavlink_pack_heartbeat(&hb, pl);
	n = raw_frame(f, 1, 0, 9, 0, pl, 5, 50);
	parse_all(f, n, &p, &c);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.f[0].version, 1);
	assert_int_equal(c.f[0].seq, 9);
	mavlink_unpack_heartbeat(c.f[0].payload, &hgot);
	assert_int_equal(hgot.custom_mode, 0x01020304u);
	assert_int_equal(hgot.type, 18);
	assert_int_equal(hgot.autopilot, 0);
	assert_int_equal(hgot.mavlink_version, 0);
	free(c.f);
	n = raw_frame(f, 2, 0, 0, 0, pl, 0, 50);
	assert_int_equal(n, 12);
	parse_all(f, n, &p, &c);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.f[0].len, 0);
	free(c.f);

	/* Compat flags are not understood and not needed: ignored. */
	hb.custom_mode = 7;
	mavlink_pack_heartbeat(&hb, pl);
	int k = mavlink_frame_encode(f, 2, 0, 1, 1, 0, pl);
	f[3] = 0x80;
	uint16_t crc = mavlink_crc(f + 1, (size_t)k - 3, 0xFFFF);
	const uint8_t extra = 50;
	crc = mavlink_crc(&extra, 1, crc);
	f[k - 2] = (uint8_t)crc;
	f[k - 1] = (uint8_t)(crc >> 8);
	parse_all(f, (size_t)k, &p, &c);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.f[0].compat_flags, 0x80);
	free(c.f);
}

static void
test_param_id_16_chars(void **state)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD];
	(void)state;

	/* The caller's buffer has no NUL at all: only 16 bytes are read. */
	struct mavlink_param_set ps, got;
	memset(&ps, 0, sizeof(ps));
	memset(ps.param_id, 'Q', sizeof(ps.param_id));
	memset(pl, 0xEE, sizeof(pl));
	assert_int_equal(mavlink_pack_param_set(&ps, pl), 23);
	for (int i = 0; i < 16; i++)
		assert_int_equal(pl[6 + i], 'Q');
	assert_int_equal(pl[22], 0);
	assert_int_equal(pl[23], 0xEE);	/* nothing past the payload */
	mavlink_unpack_param_set(pl, &got);
	assert_int_equal(strlen(got.param_id), 16);
	assert_int_equal(got.param_id[16], '\0');

	/* Shorter: NUL-padded on the wire, bytes after a NUL ignored. */
	struct mavlink_param_request_read prr, rgot;
	memset(&prr, 0, sizeof(prr));
	strcpy(prr.param_id, "SIM_BARO_RND");
	memset(pl, 0xEE, sizeof(pl));
	mavlink_pack_param_request_read(&prr, pl);
	for (int i = 12; i < 16; i++)
		assert_int_equal(pl[4 + i], 0);
	pl[4 + 14] = 'X';
	mavlink_unpack_param_request_read(pl, &rgot);
	assert_string_equal(rgot.param_id, "SIM_BARO_RND");
	for (int i = 12; i < 17; i++)
		assert_int_equal(rgot.param_id[i], 0);

	/* STATUSTEXT: 50 chars, no NUL on the wire. */
	struct mavlink_statustext st, sgot;
	memset(&st, 0, sizeof(st));
	memset(st.text, 'a', 50);
	mavlink_pack_statustext(&st, pl);
	assert_int_equal(pl[50], 'a');
	assert_int_equal(pl[51], 0);
	mavlink_unpack_statustext(pl, &sgot);
	assert_int_equal(strlen(sgot.text), 50);
	strcpy(st.text, "hi");
	mavlink_pack_statustext(&st, pl);
	for (int i = 3; i < 51; i++)
		assert_int_equal(pl[i], 0);
}

/* ---- parser robustness ---------------------------------------------- */

/* The robustness tests build their streams in buffers of this size. */
#define STREAM_CAP 4096

static size_t
append_hex(uint8_t *buf, size_t n, const char *hex)
{
	return n + unhex(hex, buf + n, STREAM_CAP - n);
}

static size_t
append(uint8_t *buf, size_t n, const void *data, size_t len)
{
	memcpy(buf + n, data, len);
	return n + len;
}

static void
test_garbage(void **state)
{
	uint8_t buf[STREAM_CAP];
	size_t n = 0, garbage = 0;
	struct mavlink_parser p;
	struct capture c;
	uint32_t seed = 99;
	(void)state;

	static const char text[] = "hello, world\r\n$GPGGA,1234\r\n";
	n = append(buf, n, text, sizeof(text));
	garbage += sizeof(text);
	n = append_hex(buf, n, V_SP2);
	for (int i = 0; i < 300; i++) {
		uint8_t b = (uint8_t)rnd(&seed);
		if (b == 0xFD || b == 0xFE)
			b = 0;
		buf[n++] = b;
	}
	garbage += 300;
	n = append_hex(buf, n, V_HB);
	n = append_hex(buf, n, V_SP1);
	n = append(buf, n, "\0\0\0", 3);
	garbage += 3;

	parse_all(buf, n, &p, &c);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.f[0].msgid, 29);
	assert_int_equal(c.f[1].msgid, 0);
	assert_int_equal(c.f[2].version, 1);
	assert_int_equal(p.stats.garbage_bytes, garbage);
	assert_int_equal(p.stats.bad_crc + p.stats.bad_incompat +
				 p.stats.unknown_msgid + p.stats.truncated,
			 0);
	assert_bytes_add_up(&p, &c, n);
	free(c.f);
}

static void
test_false_stx(void **state)
{
	uint8_t buf[STREAM_CAP];
	size_t n;
	struct mavlink_parser p;
	struct capture c;
	(void)state;

	/* A v2 STX whose incompat byte is impossible: rejected at once. */
	n = append_hex(buf, 0, "fd0503");
	n = append_hex(buf, n, V_SP2);
	parse_all(buf, n, &p, &c);
	assert_int_equal(c.n, 1);
	assert_int_equal(p.stats.bad_incompat, 1);
	assert_int_equal(p.stats.garbage_bytes, 3);
	free(c.f);

	/* A v1 header claiming 20 bytes with a known msgid swallows most
	 * of the real frame; its CRC fails and the real frame is found in
	 * the re-scanned bytes. */
	n = append_hex(buf, 0, "fe140001011d");
	n = append_hex(buf, n, V_SP2);
	parse_all(buf, n, &p, &c);
	assert_int_equal(c.n, 1);
	assert_sheet_sp(&c.f[0], 29);
	assert_int_equal(p.stats.bad_crc, 1);
	assert_int_equal(p.stats.garbage_bytes, 6);
	assert_bytes_add_up(&p, &c, n);
	free(c.f);

	/* Nested: a long false frame holding a short false frame holding
	 * the real one, then filler.  The short one starts and fails inside
	 * the re-scanned bytes. */
	n = append_hex(buf, 0, "fe300001011d");
	n = append_hex(buf, n, "fe000001011d0000");
	n = append_hex(buf, n, V_SP2);
	memset(buf + n, 0x55, 40);
	n += 40;
	parse_all(buf, n, &p, &c);
	assert_int_equal(c.n, 1);
	assert_sheet_sp(&c.f[0], 29);
	assert_int_equal(p.stats.bad_crc, 2);
	assert_int_equal(p.stats.garbage_bytes, n - 26);
	free(c.f);

	/* A false v2 header, known msgid, whose claimed frame runs past the
	 * real one: the candidate starts in re-scanned bytes and fails on
	 * fresh input. */
	n = append_hex(buf, 0, "fe300001011d");
	n = append_hex(buf, n, "fd400000000101" "1d0000");
	n = append_hex(buf, n, V_HB);
	memset(buf + n, 0x55, 80);
	n += 80;
	parse_all(buf, n, &p, &c);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.f[0].msgid, 0);
	assert_int_equal(p.stats.bad_crc, 2);
	assert_bytes_add_up(&p, &c, n);
	free(c.f);
}

static void
test_corrupted_crc_and_length(void **state)
{
	uint8_t buf[STREAM_CAP];
	size_t n, first;
	struct mavlink_parser p;
	struct capture c;
	(void)state;

	first = append_hex(buf, 0, V_SP2);
	n = append_hex(buf, first, V_HB);
	buf[first - 1] ^= 0x40;		/* CRC high byte */
	parse_all(buf, n, &p, &c);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.f[0].msgid, 0);
	assert_int_equal(p.stats.bad_crc, 1);
	assert_int_equal(p.stats.garbage_bytes, first);
	free(c.f);

	for (int delta = -14; delta <= 40; delta++) {
		if (delta == 0)
			continue;
		first = append_hex(buf, 0, V_SP2);
		n = append_hex(buf, first, V_HB);
		n = append_hex(buf, n, V_PV);
		memset(buf + n, 0, 64);	/* a long len must not hide V_PV */
		n += 64;
		buf[1] = (uint8_t)(buf[1] + delta);
		parse_all(buf, n, &p, &c);
		assert_int_equal(c.n, 2);
		assert_int_equal(c.f[0].msgid, 0);
		assert_int_equal(c.f[1].msgid, 22);
		assert_int_equal(p.stats.bad_crc, 1);
		assert_int_equal(p.stats.garbage_bytes, first + 64);
		assert_bytes_add_up(&p, &c, n);
		free(c.f);
	}
}

static void
test_truncated_and_flush(void **state)
{
	uint8_t buf[256];
	size_t n;
	struct mavlink_parser p;
	struct capture c;
	(void)state;

	n = unhex(V_HIL, buf, sizeof(buf));
	mavlink_parser_init(&p);
	capture_init(&c);
	mavlink_parser_flush(&p);	/* nothing buffered: nothing counted */
	assert_int_equal(p.stats.truncated, 0);

	assert_int_equal(mavlink_parser_feed(&p, buf, 40, on_frame, &c), 0);
	mavlink_parser_flush(&p);
	assert_int_equal(p.stats.truncated, 1);
	assert_int_equal(p.stats.dropped_bytes, 40);

	/* The parser starts afresh: the rest alone is garbage, then a
	 * frame split over two feeds arrives whole. */
	assert_int_equal(mavlink_parser_feed(&p, buf + 40, n - 40, on_frame,
					     &c), 0);
	assert_int_equal(p.stats.frames, 0);
	assert_int_equal(mavlink_parser_feed(&p, buf, 1, on_frame, &c), 0);
	assert_int_equal(mavlink_parser_feed(&p, buf + 1, n - 1, on_frame,
					     &c), 1);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.f[0].msgid, 107);
	mavlink_parser_flush(&p);
	assert_int_equal(p.stats.truncated, 1);
	assert_bytes_add_up(&p, &c, 40 + (n - 40) + n);

	/* Only the header's first byte, then a flush. */
	assert_int_equal(mavlink_parser_feed(&p, buf, 1, on_frame, &c), 0);
	mavlink_parser_flush(&p);
	assert_int_equal(p.stats.truncated, 2);
	assert_int_equal(p.have, 0);
	free(c.f);
}

static void
test_unknown_msgid(void **state)
{
	uint8_t buf[STREAM_CAP], pl[64];
	size_t n;
	struct mavlink_parser p;
	struct capture c;
	(void)state;

	/* GPS_RAW_INT (24) is valid MAVLink this codec does not know; its
	 * payload holds what look like STX bytes, yet it is dropped whole. */
	memset(pl, 0xFD, 43);
	n = raw_frame(buf, 2, 0, 0, 24, pl, 30, 24);
	size_t unknown = n;
	n = append_hex(buf, n, V_SP2);
	n += raw_frame(buf + n, 1, 0, 0, 4, pl, 14, 237);
	unknown += 22;
	n = append_hex(buf, n, V_HB);
	parse_all(buf, n, &p, &c);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.f[0].msgid, 29);
	assert_int_equal(c.f[1].msgid, 0);
	assert_int_equal(p.stats.unknown_msgid, 2);
	assert_int_equal(p.stats.dropped_bytes, unknown);
	assert_int_equal(p.stats.garbage_bytes, 0);
	assert_int_equal(p.stats.bad_crc, 0);
	free(c.f);

	/* A false v1 STX in garbage with an unknown msgid claims 48 bytes,
	 * two good frames among them; the byte after its claim is not a
	 * start byte, so it was no frame and they are found. */
	n = append_hex(buf, 0, "fe3000010104");
	n = append_hex(buf, n, V_SP2);
	n = append_hex(buf, n, V_HB);
	memset(buf + n, 0x00, 9);
	n += 9;
	parse_all(buf, n, &p, &c);
	assert_int_equal(c.n, 2);
	assert_int_equal(p.stats.unknown_msgid, 1);
	assert_int_equal(p.stats.garbage_bytes, 6 + 9);
	assert_int_equal(p.stats.dropped_bytes, 0);
	free(c.f);

	/* The same decision across feeds: the unknown frame waits for the
	 * next call's first byte. */
	n = raw_frame(buf, 2, 0, 0, 24, pl, 30, 24);
	size_t n2 = append_hex(buf, n, V_SP2);
	mavlink_parser_init(&p);
	capture_init(&c);
	assert_int_equal(mavlink_parser_feed(&p, buf, n, on_frame, &c), 0);
	assert_int_equal(p.stats.unknown_msgid, 1);
	assert_int_equal(mavlink_parser_feed(&p, buf + n, n2 - n, on_frame,
					     &c), 1);
	assert_int_equal(p.stats.dropped_bytes, n);
	/* An unknown frame ending a datagram is a frame, not truncated. */
	assert_int_equal(mavlink_parser_feed(&p, buf, n, on_frame, &c), 0);
	mavlink_parser_flush(&p);
	assert_int_equal(p.stats.truncated, 0);
	assert_int_equal(p.stats.dropped_bytes, 2 * n);
	assert_bytes_add_up(&p, &c, n2 + n);
	free(c.f);
}

static void
test_bad_incompat(void **state)
{
	uint8_t buf[STREAM_CAP], pl[64];
	size_t n;
	struct mavlink_parser p;
	struct capture c;
	(void)state;

	struct mavlink_scaled_pressure sp = sheet_sp();
	mavlink_pack_scaled_pressure(&sp, pl);
	for (int bit = 1; bit < 8; bit++) {
		/* A correct CRC over an unknown flag: still dropped. */
		n = raw_frame(buf, 2, (uint8_t)(1u << bit), 0, 29, pl, 14,
			      115);
		size_t bad = n;
		n = append_hex(buf, n, V_SP2);
		parse_all(buf, n, &p, &c);
		assert_int_equal(c.n, 1);
		assert_int_equal(p.stats.bad_incompat, 1);
		assert_int_equal(p.stats.garbage_bytes, bad);
		assert_bytes_add_up(&p, &c, n);
		free(c.f);
	}
}

/* Feeding a byte at a time, all at once or in any chunks gives the same
 * frames and stats. */
static void
test_chunking(void **state)
{
	uint8_t *buf = malloc(65536);
	size_t n = 0;
	uint32_t seed = 7;
	(void)state;

	assert_non_null(buf);
	for (int i = 0; i < 400; i++) {
		uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
		struct sample s;
		make_sample(&s, all_ids[rnd(&seed) % N_IDS], &seed);
		sample_pack(&s, pl);
		int k = mavlink_frame_encode(buf + n, 1 + (int)(rnd(&seed) % 2),
					     (uint8_t)i, 1, 1, s.msgid, pl);
		assert_true(k > 0);
		uint32_t r = rnd(&seed);
		if (r % 7 == 0) {	/* corrupt a byte */
			size_t at = n + rnd(&seed) % (uint32_t)k;
			buf[at] ^= (uint8_t)(1u << (r % 8));
		}
		n += (size_t)k;
		if (r % 5 == 0) {	/* garbage, STX bytes included */
			for (uint32_t g = rnd(&seed) % 20; g > 0; g--) {
				uint32_t x = rnd(&seed);
				buf[n++] = (uint8_t)(r % 3 ? x : 0xFD + x % 2);
			}
		}
	}

	struct mavlink_parser whole, bytes, chunks;
	struct capture cw, cb, cc;
	parse_all(buf, n, &whole, &cw);
	assert_true(cw.n > 300);

	mavlink_parser_init(&bytes);
	capture_init(&cb);
	for (size_t i = 0; i < n; i++)
		mavlink_parser_feed(&bytes, buf + i, 1, on_frame, &cb);
	mavlink_parser_flush(&bytes);

	mavlink_parser_init(&chunks);
	capture_init(&cc);
	for (size_t i = 0; i < n;) {
		size_t k = 1 + rnd(&seed) % 300;
		if (k > n - i)
			k = n - i;
		mavlink_parser_feed(&chunks, buf + i, k, on_frame, &cc);
		i += k;
	}
	mavlink_parser_flush(&chunks);

	assert_int_equal(cb.n, cw.n);
	assert_int_equal(cc.n, cw.n);
	assert_memory_equal(cb.f, cw.f, cw.n * sizeof(*cw.f));
	assert_memory_equal(cc.f, cw.f, cw.n * sizeof(*cw.f));
	assert_memory_equal(&bytes.stats, &whole.stats, sizeof(whole.stats));
	assert_memory_equal(&chunks.stats, &whole.stats, sizeof(whole.stats));
	assert_bytes_add_up(&whole, &cw, n);
	free(cw.f);
	free(cb.f);
	free(cc.f);
	free(buf);
}

/*
 * Random streams of every message, randomly corrupted (flips, inserted
 * and deleted bytes, garbage), fed in random chunks and as UDP-like
 * datagrams with a flush after each.  Nothing may crash (the ASan build
 * checks bounds); every byte is accounted for; every delivered frame is
 * one that was sent, in order; and untouched frames nearly all arrive.
 */
struct sent {
	uint32_t msgid;
	uint8_t seq, version;
	bool corrupted;
	uint8_t payload[MAVLINK_MAX_PAYLOAD];	/* as a receiver sees it */
};

static void
test_random_corruption(void **state)
{
	enum { FRAMES = 3000 };
	uint8_t *buf = malloc(FRAMES * 300);
	size_t *ends = calloc(FRAMES, sizeof(size_t));
	struct sent *sent = calloc(FRAMES, sizeof(*sent));
	uint32_t seed = 2024;
	size_t n = 0;
	(void)state;

	assert_non_null(buf);
	assert_non_null(ends);
	assert_non_null(sent);
	for (int i = 0; i < FRAMES; i++) {
		uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
		struct sample s;
		make_sample(&s, all_ids[rnd(&seed) % N_IDS], &seed);
		const struct mavlink_msg_info *info = mavlink_msg_info(s.msgid);
		int v = 1 + (int)(rnd(&seed) % 2);
		sample_pack(&s, pl);
		int k = mavlink_frame_encode(buf + n, v, (uint8_t)i, 1, 1,
					     s.msgid, pl);
		struct sent *e = &sent[i];
		e->msgid = s.msgid;
		e->seq = (uint8_t)i;
		e->version = (uint8_t)v;
		memcpy(e->payload, pl, v == 1 ? info->min_len : info->len);

		uint32_t r = rnd(&seed) % 16;
		if (r == 0) {
			buf[n + rnd(&seed) % (uint32_t)k] ^=
				(uint8_t)(1u << rnd(&seed) % 8);
			e->corrupted = true;
		} else if (r == 1 && k > 1) {	/* delete a byte */
			size_t at = rnd(&seed) % (uint32_t)k;
			memmove(buf + n + at, buf + n + at + 1,
				(size_t)k - at - 1);
			k--;
			e->corrupted = true;
		} else if (r == 2) {		/* insert an STX */
			size_t at = rnd(&seed) % (uint32_t)k;
			memmove(buf + n + at + 1, buf + n + at, (size_t)k - at);
			buf[n + at] = (uint8_t)(0xFD + rnd(&seed) % 2);
			k++;
			e->corrupted = true;
		}
		n += (size_t)k;
		if (rnd(&seed) % 8 == 0) {
			for (uint32_t g = rnd(&seed) % 30; g > 0; g--)
				buf[n++] = (uint8_t)rnd(&seed);
		}
		ends[i] = n;
	}

	for (int mode = 0; mode < 2; mode++) {
		struct mavlink_parser p;
		struct capture c;
		size_t returned = 0;

		mavlink_parser_init(&p);
		capture_init(&c);
		for (size_t i = 0, f = 0; i < n;) {
			size_t k;
			if (mode == 0) {
				k = 1 + rnd(&seed) % 512;
				if (k > n - i)
					k = n - i;
			} else {
				/* datagrams of 1-4 frames */
				f += 1 + rnd(&seed) % 4;
				if (f > FRAMES)
					f = FRAMES;
				k = ends[f - 1] - i;
			}
			returned += mavlink_parser_feed(&p, buf + i, k,
							on_frame, &c);
			i += k;
			if (mode == 1)
				mavlink_parser_flush(&p);
		}
		mavlink_parser_flush(&p);

		assert_int_equal(returned, c.n);
		assert_int_equal(p.stats.frames, c.n);
		assert_bytes_add_up(&p, &c, n);

		size_t j = 0, clean = 0, clean_got = 0;
		for (size_t d = 0; d < c.n && d < MAX_CAPTURE; d++) {
			const struct mavlink_frame *fr = &c.f[d];
			const struct mavlink_msg_info *info =
				mavlink_msg_info(fr->msgid);
			while (j < FRAMES &&
			       (sent[j].msgid != fr->msgid ||
				sent[j].seq != fr->seq ||
				sent[j].version != fr->version ||
				memcmp(sent[j].payload, fr->payload,
				       info->len) != 0))
				j++;
			if (j == FRAMES)
				fail_msg("mode %d: delivered frame %zu (msgid "
					 "%u seq %u) was never sent", mode, d,
					 fr->msgid, fr->seq);
			clean_got += !sent[j].corrupted;
			j++;
		}
		for (size_t i = 0; i < FRAMES; i++)
			clean += !sent[i].corrupted;
		print_message("mode %d: %zu of %zu clean frames, %zu "
			      "delivered; crc %llu incompat %llu unknown "
			      "%llu truncated %llu garbage %llu\n",
			      mode, clean_got, clean, c.n,
			      (unsigned long long)p.stats.bad_crc,
			      (unsigned long long)p.stats.bad_incompat,
			      (unsigned long long)p.stats.unknown_msgid,
			      (unsigned long long)p.stats.truncated,
			      (unsigned long long)p.stats.garbage_bytes);
		assert_true(clean_got * 100 >= clean * 95);
		free(c.f);
	}
	free(sent);
	free(ends);
	free(buf);
}

/* Inputs made of start and length bytes only: each candidate claims a
 * long frame and fails, so every byte is re-scanned many times.  No frame,
 * and (under ASan) no access out of bounds. */
static void
test_adversarial_lengths(void **state)
{
	static const char *const patterns[] = {
		"fd", "fe", "fdff", "feff", "fdff01",
		/* v2, len 255, a known msgid: 267-byte candidates */
		"fdff00000000001d0000",
		/* v1, len 255, an unknown msgid: waits, then re-scanned */
		"feff00000002",
	};
	uint8_t buf[STREAM_CAP];
	(void)state;

	for (size_t k = 0; k < sizeof(patterns) / sizeof(patterns[0]); k++) {
		struct mavlink_parser p;
		struct capture c;
		uint8_t pat[16];
		size_t plen = unhex(patterns[k], pat, sizeof(pat));

		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = pat[i % plen];
		parse_all(buf, sizeof(buf), &p, &c);
		assert_int_equal(c.n, 0);
		assert_bytes_add_up(&p, &c, sizeof(buf));
		free(c.f);
	}
}

/* Parameter values on the wire: PX4's byte-wise integers (the int's
 * little-endian bytes, then zeros), ArduPilot's plain floats. */
static void
test_param_wire(void **state)
{
	(void)state;
	static const struct {
		uint8_t type;
		double v;
		uint8_t b[4];
	} cases[] = {
		{ MAV_PARAM_TYPE_INT32, -1, { 0xff, 0xff, 0xff, 0xff } },
		{ MAV_PARAM_TYPE_INT32, 300, { 0x2c, 0x01, 0, 0 } },
		{ MAV_PARAM_TYPE_UINT32, 4000000000.0, { 0x00, 0x28, 0x6b, 0xee } },
		{ MAV_PARAM_TYPE_INT16, -2, { 0xfe, 0xff, 0, 0 } },
		{ MAV_PARAM_TYPE_UINT16, 65535, { 0xff, 0xff, 0, 0 } },
		{ MAV_PARAM_TYPE_INT8, -128, { 0x80, 0, 0, 0 } },
		{ MAV_PARAM_TYPE_UINT8, 200, { 200, 0, 0, 0 } },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		float w = mavlink_param_to_wire(cases[i].type, true, cases[i].v);
		uint8_t pl[4];
		le_put_f32(pl, w);
		assert_memory_equal(pl, cases[i].b, 4);
		assert_true(mavlink_param_from_wire(cases[i].type, true, w) ==
			    cases[i].v);
		assert_true(mavlink_param_type_integer(cases[i].type));
	}
	/* A float is a float either way; ArduPilot casts integers. */
	assert_true(mavlink_param_to_wire(MAV_PARAM_TYPE_REAL32, true, 2.5) ==
		    2.5f);
	assert_false(mavlink_param_type_integer(MAV_PARAM_TYPE_REAL32));
	assert_true(mavlink_param_to_wire(MAV_PARAM_TYPE_INT16, false, 500) ==
		    500.0f);
	assert_true(mavlink_param_from_wire(MAV_PARAM_TYPE_INT32, false,
					    7.0f) == 7.0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc_check_value),
		cmocka_unit_test(test_crc_extra_and_lengths),
		cmocka_unit_test(test_flight_messages_as_node_mavlink),
		cmocka_unit_test(test_px4_sim_vectors),
		cmocka_unit_test(test_table_ids),
		cmocka_unit_test(test_vectors_encode),
		cmocka_unit_test(test_vectors_decode),
		cmocka_unit_test(test_signed_vector),
		cmocka_unit_test(test_encode_errors),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_zero_fill_and_odd_lengths),
		cmocka_unit_test(test_param_id_16_chars),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_false_stx),
		cmocka_unit_test(test_corrupted_crc_and_length),
		cmocka_unit_test(test_truncated_and_flush),
		cmocka_unit_test(test_unknown_msgid),
		cmocka_unit_test(test_bad_incompat),
		cmocka_unit_test(test_chunking),
		cmocka_unit_test(test_random_corruption),
		cmocka_unit_test(test_adversarial_lengths),
		cmocka_unit_test(test_param_wire),
		cmocka_unit_test(test_mission_messages_as_node_mavlink),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
