/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The tlog reader through log_reader_open_fd/mem: the two bundled tlogs
 * against the figures of the logs' README, and hand-made tlogs built with
 * the project's codec (plus a small encoder here for the altitude messages
 * the codec does not know, whose CRC_EXTRA this file recomputes from the
 * field lists).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test-util.h"
#include "byte-buf.h"
#include "log-reader.h"
#include "sensor-rec.h"
#include "mavlink.h"
#include "util-endian.h"

/* ---- building tlogs ------------------------------------------------- */

#define T0_US UINT64_C(1500000000000000)	/* 2017-07-14, a Unix stamp */

struct tlog_buf {
	uint8_t *data;
	size_t len, cap;
	uint64_t stamp;		/* stamp of the next record */
	uint8_t seq;
};

static void
tb_init(struct tlog_buf *b)
{
	*b = (struct tlog_buf){ .stamp = T0_US };
}

static void
tb_append(struct tlog_buf *b, const void *p, size_t n)
{
	byte_buf_append(&b->data, &b->len, &b->cap, p, n);
}

static void
tb_stamp(struct tlog_buf *b)
{
	uint8_t st[8];

	for (int i = 0; i < 8; i++)
		st[i] = (uint8_t)(b->stamp >> (56 - 8 * i));
	tb_append(b, st, 8);
}

/* One record through the codec; returns the record's offset. */
static size_t
tb_msg(struct tlog_buf *b, int version, uint8_t sysid, uint8_t compid,
       uint32_t msgid, const union mavlink_msg *m)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 }, f[MAVLINK_MAX_FRAME];
	size_t at = b->len;

	assert_true(mavlink_pack_msg(msgid, m, pl) > 0);
	int n = mavlink_frame_encode(f, version, b->seq++, sysid, compid,
				     msgid, pl);
	assert_true(n > 0);
	tb_stamp(b);
	tb_append(b, f, (size_t)n);
	return at;
}

/* A frame built here, for messages the codec does not know: v1 or v2
 * (untruncated), optionally signed (13 signature bytes of 0x5A). */
static size_t
tb_raw(struct tlog_buf *b, int version, uint8_t sysid, uint8_t compid,
       uint32_t msgid, const uint8_t *pl, size_t len, uint8_t crc_extra,
       bool sign)
{
	uint8_t f[MAVLINK_MAX_FRAME];
	size_t hdr, at = b->len;

	if (version == 1) {
		f[0] = MAVLINK_STX_V1;
		f[1] = (uint8_t)len;
		f[2] = b->seq++;
		f[3] = sysid;
		f[4] = compid;
		f[5] = (uint8_t)msgid;
		hdr = 6;
	} else {
		f[0] = MAVLINK_STX_V2;
		f[1] = (uint8_t)len;
		f[2] = sign ? MAVLINK_IFLAG_SIGNED : 0;
		f[3] = 0;
		f[4] = b->seq++;
		f[5] = sysid;
		f[6] = compid;
		f[7] = (uint8_t)msgid;
		f[8] = (uint8_t)(msgid >> 8);
		f[9] = (uint8_t)(msgid >> 16);
		hdr = 10;
	}
	memcpy(f + hdr, pl, len);
	uint16_t crc = mavlink_crc(f + 1, hdr - 1 + len, 0xFFFF);
	crc = mavlink_crc(&crc_extra, 1, crc);
	f[hdr + len] = (uint8_t)crc;
	f[hdr + len + 1] = (uint8_t)(crc >> 8);
	size_t n = hdr + len + 2;
	if (sign) {
		memset(f + n, 0x5A, 13);
		n += 13;
	}
	tb_stamp(b);
	tb_append(b, f, n);
	return at;
}

/* ---- CRC_EXTRA of the altitude messages, from their field lists ------ */

struct field {
	const char *type, *name;
};

/* Wire order (mavlink.md §6): base fields stable-sorted by size. */
static const struct field f_gpi[] = {
	{ "uint32_t", "time_boot_ms" }, { "int32_t", "lat" },
	{ "int32_t", "lon" }, { "int32_t", "alt" },
	{ "int32_t", "relative_alt" }, { "int16_t", "vx" },
	{ "int16_t", "vy" }, { "int16_t", "vz" }, { "uint16_t", "hdg" },
	{ NULL, NULL }
};
static const struct field f_gps[] = {
	{ "uint64_t", "time_usec" }, { "int32_t", "lat" },
	{ "int32_t", "lon" }, { "int32_t", "alt" }, { "uint16_t", "eph" },
	{ "uint16_t", "epv" }, { "uint16_t", "vel" }, { "uint16_t", "cog" },
	{ "uint8_t", "fix_type" }, { "uint8_t", "satellites_visible" },
	{ NULL, NULL }
};
static const struct field f_vfr[] = {
	{ "float", "airspeed" }, { "float", "groundspeed" },
	{ "float", "alt" }, { "float", "climb" }, { "int16_t", "heading" },
	{ "uint16_t", "throttle" }, { NULL, NULL }
};
static const struct field f_sp[] = {
	{ "uint32_t", "time_boot_ms" }, { "float", "press_abs" },
	{ "float", "press_diff" }, { "int16_t", "temperature" },
	{ NULL, NULL }
};

/* The sensor messages, base fields in wire order (common.xml). */
#define IMU_FIELDS                                                       \
	{ "uint32_t", "time_boot_ms" }, { "int16_t", "xacc" },           \
	{ "int16_t", "yacc" }, { "int16_t", "zacc" },                    \
	{ "int16_t", "xgyro" }, { "int16_t", "ygyro" },                  \
	{ "int16_t", "zgyro" }, { "int16_t", "xmag" },                   \
	{ "int16_t", "ymag" }, { "int16_t", "zmag" }, { NULL, NULL }
static const struct field f_imu[] = { IMU_FIELDS };
static const struct field f_att[] = {
	{ "uint32_t", "time_boot_ms" }, { "float", "roll" },
	{ "float", "pitch" }, { "float", "yaw" }, { "float", "rollspeed" },
	{ "float", "pitchspeed" }, { "float", "yawspeed" }, { NULL, NULL }
};
static const struct field f_hrimu[] = {
	{ "uint64_t", "time_usec" }, { "float", "xacc" }, { "float", "yacc" },
	{ "float", "zacc" }, { "float", "xgyro" }, { "float", "ygyro" },
	{ "float", "zgyro" }, { "float", "xmag" }, { "float", "ymag" },
	{ "float", "zmag" }, { "float", "abs_pressure" },
	{ "float", "diff_pressure" }, { "float", "pressure_alt" },
	{ "float", "temperature" }, { "uint16_t", "fields_updated" },
	{ NULL, NULL }
};
static const struct field f_dist[] = {
	{ "uint32_t", "time_boot_ms" }, { "uint16_t", "min_distance" },
	{ "uint16_t", "max_distance" }, { "uint16_t", "current_distance" },
	{ "uint8_t", "type" }, { "uint8_t", "id" }, { "uint8_t", "orientation" },
	{ "uint8_t", "covariance" }, { NULL, NULL }
};

static uint16_t
crc_str(const char *s, uint16_t crc)
{
	return mavlink_crc((const uint8_t *)s, strlen(s), crc);
}

static uint8_t
crc_extra_of(const char *name, const struct field *f)
{
	uint16_t crc = crc_str(name, 0xFFFF);

	crc = crc_str(" ", crc);
	for (int i = 0; f[i].name; i++) {
		crc = crc_str(f[i].type, crc);
		crc = crc_str(" ", crc);
		crc = crc_str(f[i].name, crc);
		crc = crc_str(" ", crc);
	}
	return (uint8_t)((crc & 0xFF) ^ (crc >> 8));
}

static void
put_i32(uint8_t *p, int32_t v)
{
	le_put32(p, (uint32_t)v);
}

static void
put_f32(uint8_t *p, float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	le_put32(p, u);
}

static size_t
tb_gpi(struct tlog_buf *b, int version, uint8_t sysid, uint32_t ms,
       int32_t alt_mm, int32_t rel_mm)
{
	uint8_t pl[28] = { 0 };

	le_put32(pl + 0, ms);
	put_i32(pl + 4, -353627085);
	put_i32(pl + 8, 1491656122);
	put_i32(pl + 12, alt_mm);
	put_i32(pl + 16, rel_mm);
	return tb_raw(b, version, sysid, 1, 33, pl, sizeof(pl),
		      crc_extra_of("GLOBAL_POSITION_INT", f_gpi), false);
}

static size_t
tb_gps(struct tlog_buf *b, uint8_t sysid, int32_t alt_mm, uint8_t fix)
{
	uint8_t pl[30] = { 0 };

	le_put64(pl + 0, T0_US);
	put_i32(pl + 16, alt_mm);
	pl[28] = fix;
	pl[29] = 9;
	return tb_raw(b, 1, sysid, 1, 24, pl, sizeof(pl),
		      crc_extra_of("GPS_RAW_INT", f_gps), false);
}

static size_t
tb_vfr(struct tlog_buf *b, uint8_t sysid, float alt)
{
	uint8_t pl[20] = { 0 };

	put_f32(pl + 8, alt);
	return tb_raw(b, 1, sysid, 1, 74, pl, sizeof(pl),
		      crc_extra_of("VFR_HUD", f_vfr), false);
}

static size_t
tb_sp(struct tlog_buf *b, int version, uint8_t sysid, uint32_t msgid,
      uint32_t ms, float hpa, int16_t cdeg)
{
	union mavlink_msg m = { .sp = { .time_boot_ms = ms, .press_abs = hpa,
					.temperature = cdeg } };
	return tb_msg(b, version, sysid, 1, msgid, &m);
}

static size_t
tb_heartbeat(struct tlog_buf *b, uint8_t sysid, uint8_t compid, uint8_t type,
	     uint8_t autopilot, uint8_t base_mode)
{
	union mavlink_msg m = { .hb = { .type = type, .autopilot = autopilot,
					.base_mode = base_mode,
					.mavlink_version = 3 } };
	return tb_msg(b, 1, sysid, compid, MAVLINK_MSG_HEARTBEAT, &m);
}

static size_t
tb_text(struct tlog_buf *b, uint8_t sysid, const char *text)
{
	union mavlink_msg m = { .st = { .severity = 6 } };

	snprintf(m.st.text, sizeof(m.st.text), "%s", text);
	return tb_msg(b, 2, sysid, 1, MAVLINK_MSG_STATUSTEXT, &m);
}

/* ---- reading --------------------------------------------------------- */

#define MAX_RECS 256

struct result {
	int open_rc, rc;
	char err[LOG_ERR_LEN];
	size_t n;
	struct log_record rec[MAX_RECS];
	uint64_t end[MAX_RECS];	/* input offset after each record */
	char chan[MAX_RECS][32];
	struct log_info info;
	char format[16];
	char types[1024];	/* ";NAME=COUNT;NAME=COUNT;" */
};

static void
add_type(const char *name, uint64_t count, void *ud)
{
	char *types = ud;
	size_t n = strlen(types);

	snprintf(types + n, 1024 - n, "%s=%" PRIu64 ";", name, count);
}

static void
read_all(const void *data, size_t len, const char *format, struct result *out)
{
	struct log_reader r;

	memset(out, 0, sizeof(*out));
	out->open_rc = log_reader_open_mem(&r, data, len, "t.tlog", format);
	if (out->open_rc == 0) {
		snprintf(out->format, sizeof(out->format), "%s", r.ops->name);
		struct log_record rec;
		while ((out->rc = log_reader_next(&r, &rec)) > 0) {
			assert_true(out->n < MAX_RECS);
			out->rec[out->n] = rec;
			out->end[out->n] = r.in.offset;
			const char *name = log_reader_channel_name(&r,
								  rec.channel);
			assert_non_null(name);
			snprintf(out->chan[out->n], sizeof(out->chan[0]), "%s",
				 name);
			out->n++;
		}
		out->info = r.info;
		out->types[0] = ';';
		log_reader_list_types(&r, add_type, out->types);
	}
	snprintf(out->err, sizeof(out->err), "%s", r.err);
	log_reader_close(&r);
}

/* ---- hand-made tlogs ------------------------------------------------ */

/*
 * A GCS heartbeat first, then the vehicle's, v1 and v2 frames, the three
 * baro instances, the altitude messages, a version string, a frame of a
 * message nobody here knows, and frames of another system that must not
 * come out.
 */
static void
build_mixed(struct tlog_buf *b)
{
	tb_init(b);
	tb_heartbeat(b, 255, 190, 6, MAV_AUTOPILOT_INVALID, 0);
	b->stamp += 1000;
	/* Before any timed frame: a reference has no time yet, dropped. */
	tb_gps(b, 1, 584000, 3);
	tb_heartbeat(b, 1, 1, 2, 3, 0x51);
	b->stamp += 1000;
	tb_sp(b, 1, 1, MAVLINK_MSG_SCALED_PRESSURE, 10000, 1013.25f, 2345);
	b->stamp += 1000;
	tb_sp(b, 2, 1, MAVLINK_MSG_SCALED_PRESSURE2, 10010, 1013.5f, -150);
	b->stamp += 1000;
	/* v2 truncates the zero temperature: zero-filled again. */
	tb_sp(b, 2, 1, MAVLINK_MSG_SCALED_PRESSURE3, 10020, 1000.0f, 0);
	b->stamp += 1000;
	tb_gpi(b, 1, 1, 10030, 584500, 12500);
	tb_gps(b, 1, 584250, 3);
	tb_gps(b, 1, 999000, 2);	/* no 3D fix: not a reference */
	tb_vfr(b, 1, 584.75f);		/* nearer alt: AMSL */
	tb_vfr(b, 1, 12.25f);		/* nearer relative_alt: HOME */
	uint8_t att[28];
	for (size_t i = 0; i < sizeof(att); i++)
		att[i] = (uint8_t)(i * 7 + 1);
	/* A message the reader has no CRC_EXTRA for (ATTITUDE has one
	 * since it is a sensor record): judged by the next record. */
	tb_raw(b, 1, 1, 1, 241, att, sizeof(att), 0x12, false);
	tb_text(b, 1, "ArduCopter V4.5.1 (abcdef01)");
	/* Another system: ignored whatever it sends. */
	tb_sp(b, 1, 2, MAVLINK_MSG_SCALED_PRESSURE, 500, 900.0f, 100);
	tb_heartbeat(b, 2, 1, 2, 3, 0xD1);
	tb_heartbeat(b, 1, 1, 2, 3, 0xD1);	/* armed */
	b->stamp += 1000;
	tb_sp(b, 1, 1, MAVLINK_MSG_SCALED_PRESSURE, 10100, 1013.0f, 2400);
	tb_heartbeat(b, 1, 1, 2, 3, 0x51);	/* disarmed */
}

/* Move the sensor records (and their channel names) out of res into
 * out, keeping the order of both; how many there were. */
static size_t
take_sensors(struct result *res, struct log_record *out, char (*chan)[32],
	     size_t cap)
{
	size_t kept = 0, taken = 0;

	for (size_t i = 0; i < res->n; i++) {
		if (old_kind(res->rec[i].kind)) {
			res->rec[kept] = res->rec[i];
			res->end[kept] = res->end[i];
			memmove(res->chan[kept], res->chan[i],
				sizeof(res->chan[0]));
			kept++;
		} else if (taken < cap) {
			out[taken] = res->rec[i];
			memcpy(chan[taken++], res->chan[i], sizeof(chan[0]));
		} else {
			taken++;
		}
	}
	res->n = kept;
	return taken;
}

static void
test_mixed(void **state)
{
	(void)state;
	struct tlog_buf b;
	struct result *res = malloc(sizeof(*res));

	build_mixed(&b);
	read_all(b.data, b.len, NULL, res);
	assert_int_equal(res->open_rc, 0);
	assert_string_equal(res->format, "tlog");
	if (res->rc != 0)
		fail_msg("%s", res->err);
	assert_int_equal(res->info.bytes_skipped, 0);
	assert_int_equal(res->info.records_bad, 0);
	assert_string_equal(res->info.firmware, "ArduCopter V4.5.1 (abcdef01)");
	assert_string_equal(res->info.baro_stream, "SCALED_PRESSURE");
	/* The two GPS_RAW_INT after the first timed frame are GPS
	 * samples too, each right after the reference it may be. */
	assert_int_equal(res->n, 12);
	assert_int_equal(res->rec[5].kind, LOG_REC_GPS);
	assert_int_equal(res->rec[6].kind, LOG_REC_GPS);
	struct log_record sens[2];
	char sens_chan[2][32];
	assert_int_equal(take_sensors(res, sens, sens_chan, 2), 2);
	for (int i = 0; i < 2; i++) {
		assert_string_equal(sens_chan[i], "GPS_RAW_INT");
		assert_int_equal(sens[i].gps.time_us, 10030000);
		assert_int_equal(sens[i].gps.nsats, 9);
		assert_true(isnan(sens[i].gps.vel_up_m_s));
		assert_true(isnan(sens[i].gps.vacc_m));
	}
	assert_int_equal(sens[0].gps.fix_type, 3);
	assert_true(sens[0].gps.alt_amsl_m == 584.25);
	assert_int_equal(sens[1].gps.fix_type, 2);
	assert_true(sens[1].gps.alt_amsl_m == 999.0);
	assert_int_equal(res->n, 10);

	const struct log_record *r = res->rec;
	assert_int_equal(r[0].kind, LOG_REC_BARO);
	assert_string_equal(res->chan[0], "SCALED_PRESSURE");
	assert_int_equal(r[0].baro.time_us, 10000000);
	assert_int_equal(r[0].baro.instance, 0);
	assert_float_exact(r[0].baro.pressure_pa, 101325.0f);
	assert_float_exact(r[0].baro.temperature_c, 23.45f);
	assert_int_equal(r[0].baro.flags,
			 BARO_SAMPLE_HEALTHY | BARO_SAMPLE_HAS_TEMPERATURE);

	assert_string_equal(res->chan[1], "SCALED_PRESSURE2");
	assert_int_equal(r[1].baro.instance, 1);
	assert_int_equal(r[1].baro.time_us, 10010000);
	assert_float_exact(r[1].baro.pressure_pa, 101350.0f);
	assert_float_exact(r[1].baro.temperature_c, -1.5f);

	assert_string_equal(res->chan[2], "SCALED_PRESSURE3");
	assert_int_equal(r[2].baro.instance, 2);
	assert_float_exact(r[2].baro.pressure_pa, 100000.0f);
	assert_float_exact(r[2].baro.temperature_c, 0.0f);
	assert_true(r[0].channel != r[1].channel &&
		    r[1].channel != r[2].channel);

	assert_int_equal(r[3].kind, LOG_REC_REFERENCE);
	assert_string_equal(res->chan[3], "GLOBAL_POSITION_INT");
	assert_int_equal(r[3].ref.source, LOG_REF_EKF);
	assert_int_equal(r[3].ref.datum, LOG_DATUM_HOME);
	assert_int_equal(r[3].ref.time_us, 10030000);
	assert_true(r[3].ref.alt_m == 12.5);

	assert_string_equal(res->chan[4], "GPS_RAW_INT");
	assert_int_equal(r[4].ref.source, LOG_REF_GPS);
	assert_int_equal(r[4].ref.datum, LOG_DATUM_AMSL);
	assert_true(r[4].ref.alt_m == 584.25);
	assert_int_equal(r[4].ref.time_us, 10030000);

	assert_string_equal(res->chan[5], "VFR_HUD");
	assert_int_equal(r[5].ref.source, LOG_REF_EKF);
	assert_int_equal(r[5].ref.datum, LOG_DATUM_AMSL);
	assert_true(r[5].ref.alt_m == 584.75);
	assert_int_equal(r[6].ref.datum, LOG_DATUM_HOME);
	assert_true(r[6].ref.alt_m == 12.25);

	assert_int_equal(r[7].kind, LOG_REC_EVENT);
	assert_int_equal(r[7].event.kind, LOG_EVENT_ARMED);
	assert_string_equal(res->chan[7], "HEARTBEAT");
	assert_int_equal(r[8].kind, LOG_REC_BARO);
	assert_int_equal(r[8].baro.time_us, 10100000);
	assert_int_equal(r[9].kind, LOG_REC_EVENT);
	assert_int_equal(r[9].event.kind, LOG_EVENT_DISARMED);
	assert_int_equal(r[9].event.time_us, 10100000);
	/* Every frame counted by type, the other system's and unknown ids
	 * included; named where the codec or the reader's table of common
	 * messages knows the id (VIBRATION is not decoded, only named). */
	assert_non_null(strstr(res->types, ";#0 HEARTBEAT=5;"));
	assert_non_null(strstr(res->types, ";#24 GPS_RAW_INT=3;"));
	assert_non_null(strstr(res->types, ";#29 SCALED_PRESSURE=3;"));
	assert_non_null(strstr(res->types, ";#241 VIBRATION=1;"));
	assert_non_null(strstr(res->types, ";#33 GLOBAL_POSITION_INT=1;"));
	assert_non_null(strstr(res->types, ";#74 VFR_HUD=2;"));
	assert_non_null(strstr(res->types, ";#137 SCALED_PRESSURE2=1;"));
	assert_non_null(strstr(res->types, ";#143 SCALED_PRESSURE3=1;"));
	assert_non_null(strstr(res->types, ";#253 STATUSTEXT=1;"));
	free(res);
	free(b.data);
}

/*
 * time_boot_ms: a small backwards step passes unchanged, a fall of more
 * than 5 s is a reboot placed the receive-clock gap after the last time,
 * the uint32 wrap is unwrapped.
 */
static void
test_reboot_and_steps(void **state)
{
	(void)state;
	struct tlog_buf b;
	struct result *res = malloc(sizeof(*res));

	tb_init(&b);
	tb_sp(&b, 1, 1, MAVLINK_MSG_SCALED_PRESSURE, 20000, 1000.0f, 2000);
	b.stamp += 100000;
	tb_sp(&b, 1, 1, MAVLINK_MSG_SCALED_PRESSURE, 20100, 1000.0f, 2000);
	b.stamp += 100000;
	/* -1000 ms, as in the SITL log: not a reboot. */
	tb_sp(&b, 1, 1, MAVLINK_MSG_SCALED_PRESSURE, 19100, 1000.0f, 2000);
	b.stamp += 100000;
	tb_sp(&b, 1, 1, MAVLINK_MSG_SCALED_PRESSURE, 26000, 1000.0f, 2000);
	/* A reboot: 7.5 s of silence on the receive clock, then the new
	 * boot at 3 s; GLOBAL_POSITION_INT notices it first. */
	b.stamp += 7500000;
	tb_gpi(&b, 1, 1, 2900, 100000, 1500);
	b.stamp += 100000;
	tb_sp(&b, 1, 1, MAVLINK_MSG_SCALED_PRESSURE, 3000, 1000.0f, 2000);
	b.stamp += 100000;
	/* Exactly 5 s back is still a step, not a reboot. */
	tb_sp(&b, 1, 1, MAVLINK_MSG_SCALED_PRESSURE, 8000, 1000.0f, 2000);
	tb_sp(&b, 1, 1, MAVLINK_MSG_SCALED_PRESSURE, 3000, 1000.0f, 2000);
	b.stamp += 100000;
	/* The wrap of the uint32 millisecond counter. */
	tb_sp(&b, 1, 1, MAVLINK_MSG_SCALED_PRESSURE, UINT32_MAX - 99, 1000.0f,
	      2000);
	b.stamp += 100000;
	tb_sp(&b, 1, 1, MAVLINK_MSG_SCALED_PRESSURE, 100, 1000.0f, 2000);

	read_all(b.data, b.len, "tlog", res);
	assert_int_equal(res->rc, 0);
	assert_int_equal(res->n, 11);
	const struct log_record *r = res->rec;
	assert_int_equal(r[0].baro.time_us, 20000000);
	assert_int_equal(r[1].baro.time_us, 20100000);
	assert_int_equal(r[2].baro.time_us, 19100000);
	assert_int_equal(r[3].baro.time_us, 26000000);

	/* The reboot event, then the reference that revealed it, at the
	 * last time plus the 7.5 s receive gap. */
	assert_int_equal(r[4].kind, LOG_REC_EVENT);
	assert_int_equal(r[4].event.kind, LOG_EVENT_REBOOT);
	assert_string_equal(res->chan[4], "REBOOT");
	assert_true(r[4].event.value == 7500.0);
	uint64_t t_boot2 = 26000000 + 7500000;
	assert_int_equal(r[4].event.time_us, t_boot2);
	assert_int_equal(r[5].kind, LOG_REC_REFERENCE);
	assert_int_equal(r[5].ref.time_us, t_boot2);
	/* The new boot keeps its own spacing. */
	assert_int_equal(r[6].baro.time_us, t_boot2 + 100000);
	assert_int_equal(r[7].baro.time_us, t_boot2 + 5100000);
	assert_int_equal(r[8].baro.time_us, t_boot2 + 100000);
	uint64_t wrap_ms = UINT64_C(0x100000000);
	assert_int_equal(r[9].baro.time_us,
			 t_boot2 + (wrap_ms - 100 - 2900) * 1000);
	assert_int_equal(r[10].baro.time_us,
			 t_boot2 + (wrap_ms + 100 - 2900) * 1000);
	free(res);
	free(b.data);
}

/* The vehicle is the first sender of SCALED_PRESSURE when no autopilot
 * heartbeat came first; a later autopilot of another system is ignored. */
static void
test_vehicle_by_first_pressure(void **state)
{
	(void)state;
	struct tlog_buf b;
	struct result *res = malloc(sizeof(*res));

	tb_init(&b);
	tb_heartbeat(&b, 255, 190, 6, MAV_AUTOPILOT_INVALID, 0x80);
	tb_sp(&b, 2, 7, MAVLINK_MSG_SCALED_PRESSURE2, 1000, 990.0f, 100);
	tb_heartbeat(&b, 1, 1, 2, 12, 0x80);
	tb_sp(&b, 2, 1, MAVLINK_MSG_SCALED_PRESSURE, 1000, 980.0f, 100);
	tb_sp(&b, 2, 7, MAVLINK_MSG_SCALED_PRESSURE2, 1100, 991.0f, 100);
	read_all(b.data, b.len, NULL, res);
	assert_int_equal(res->rc, 0);
	assert_int_equal(res->n, 2);
	assert_float_exact(res->rec[0].baro.pressure_pa, 99000.0f);
	assert_float_exact(res->rec[1].baro.pressure_pa, 99100.0f);
	assert_int_equal(res->rec[1].baro.instance, 1);
	/* No heartbeat from the vehicle: nothing to name the firmware. */
	assert_string_equal(res->info.firmware, "");
	free(res);
	free(b.data);
}

/* Eight SCALED_PRESSURE records alternating v1/v2, one with a signature;
 * offsets of each record in off[]. */
static void
build_plain(struct tlog_buf *b, size_t off[9])
{
	tb_init(b);
	for (int i = 0; i < 8; i++) {
		if (i == 5) {
			uint8_t pl[16] = { 0 };
			le_put32(pl, 1000 + 100 * (uint32_t)i);
			put_f32(pl + 4, 1000.0f + (float)i);
			le_put16(pl + 12, 1234);
			off[i] = tb_raw(b, 2, 1, 1, 29, pl, 14,
					crc_extra_of("SCALED_PRESSURE", f_sp),
					true);
		} else {
			off[i] = tb_sp(b, i % 2 ? 2 : 1, 1,
				       MAVLINK_MSG_SCALED_PRESSURE,
				       1000 + 100 * (uint32_t)i,
				       1000.0f + (float)i, 1234);
		}
		b->stamp += 100000;
	}
	off[8] = b->len;
}

static void
check_plain_prefix(const struct result *res, size_t n)
{
	assert_true(res->n >= n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(res->rec[i].kind, LOG_REC_BARO);
		assert_float_exact(res->rec[i].baro.pressure_pa,
				   (1000.0f + (float)i) * 100.0f);
		assert_int_equal(res->rec[i].baro.time_us,
				 (1000 + 100 * i) * 1000);
	}
}

static void
test_plain_and_signed(void **state)
{
	(void)state;
	struct tlog_buf b;
	size_t off[9];
	struct result *res = malloc(sizeof(*res));

	build_plain(&b, off);
	read_all(b.data, b.len, NULL, res);
	assert_int_equal(res->rc, 0);
	assert_int_equal(res->n, 8);
	check_plain_prefix(res, 8);
	assert_float_exact(res->rec[5].baro.temperature_c, 12.34f);
	free(res);
	free(b.data);
}

/* A cut anywhere: every record before the cut, then a clean end at a
 * record boundary or -ENODATA naming the cut record's offset. */
static void
test_truncation_every_byte(void **state)
{
	(void)state;
	struct tlog_buf b;
	size_t off[9];
	struct result *res = malloc(sizeof(*res));

	build_plain(&b, off);
	for (size_t cut = 0; cut <= b.len; cut++) {
		size_t whole = 0;
		while (whole < 8 && off[whole + 1] <= cut)
			whole++;
		read_all(b.data, cut, "tlog", res);
		assert_int_equal(res->open_rc, 0);
		assert_int_equal(res->n, whole);
		check_plain_prefix(res, whole);
		assert_int_equal(res->info.bytes_skipped, 0);
		assert_int_equal(res->info.records_bad, 0);
		if (cut == off[whole]) {
			assert_int_equal(res->rc, 0);
		} else {
			char want[64];
			assert_int_equal(res->rc, -ENODATA);
			snprintf(want, sizeof(want), "offset %zu: ", off[whole]);
			if (!strstr(res->err, want))
				fail_msg("cut %zu: '%s' lacks '%s'", cut,
					 res->err, want);
		}
	}
	free(res);
	free(b.data);
}

/* A flipped byte inside one record's frame: that record is dropped and
 * counted, the reader finds the next one. */
static void
test_bad_crc(void **state)
{
	(void)state;
	struct tlog_buf b;
	size_t off[9];
	struct result *res = malloc(sizeof(*res));

	build_plain(&b, off);
	for (size_t at = off[3] + 8; at < off[4]; at++) {
		b.data[at] ^= 0x10;
		read_all(b.data, b.len, NULL, res);
		b.data[at] ^= 0x10;
		assert_int_equal(res->rc, 0);
		assert_int_equal(res->n, 7);
		check_plain_prefix(res, 3);
		for (size_t i = 3; i < 7; i++)
			assert_float_exact(res->rec[i].baro.pressure_pa,
					   (1001.0f + (float)i) * 100.0f);
		/* Record 3 is v2: a flipped msgid byte makes an id without
		 * a known CRC, which the well-formed record after it
		 * vouches for; the sample is lost all the same. */
		size_t msgid_at = off[3] + 8 + 7;
		if (at >= msgid_at && at < msgid_at + 3) {
			assert_int_equal(res->info.bytes_skipped, 0);
			assert_int_equal(res->info.records_bad, 0);
			assert_non_null(strstr(res->types,
					       ";#29 SCALED_PRESSURE=7;"));
			continue;
		}
		assert_int_equal(res->info.first_bad_offset, off[3]);
		assert_int_equal(res->info.bytes_skipped, off[4] - off[3]);
		/* Only the start byte itself can stop it looking like a
		 * record. */
		assert_int_equal(res->info.records_bad,
				 at == off[3] + 8 ? 0 : 1);
	}
	free(res);
	free(b.data);
}

/* Junk between records, including start bytes, record-shaped starts and
 * a whole frame with a bad CRC: skipped and counted, nothing lost. */
static void
test_junk_between(void **state)
{
	(void)state;
	struct tlog_buf b, j;
	size_t off[9];
	struct result *res = malloc(sizeof(*res));

	build_plain(&b, off);
	tb_init(&j);
	static const uint8_t junk1[] = { 0xFE, 0xFD, 0x00, 0x05, 0x55, 0xFE,
					 0x09, 0xFD, 0x01, 0xFF };
	tb_append(&j, b.data, off[2]);
	tb_append(&j, junk1, sizeof(junk1));
	size_t junk_len = sizeof(junk1);
	tb_append(&j, b.data + off[2], off[5] - off[2]);
	/* A record-shaped frame with a known id and a wrong CRC, then a
	 * stamp with a start byte and a huge claimed length. */
	j.stamp = T0_US;
	size_t bad_at = j.len;
	tb_sp(&j, 1, 1, MAVLINK_MSG_SCALED_PRESSURE, 9, 1.0f, 1);
	j.data[j.len - 1] ^= 0xFF;
	tb_stamp(&j);
	static const uint8_t junk2[] = { 0xFD, 0xFF, 0x00, 0x00 };
	tb_append(&j, junk2, sizeof(junk2));
	junk_len += j.len - bad_at;
	tb_append(&j, b.data + off[5], b.len - off[5]);

	read_all(j.data, j.len, NULL, res);
	assert_int_equal(res->rc, 0);
	assert_int_equal(res->n, 8);
	check_plain_prefix(res, 8);
	assert_int_equal(res->info.bytes_skipped, junk_len);
	assert_int_equal(res->info.first_bad_offset, off[2]);
	/* The junk was not record-shaped; the bad frame was. */
	assert_int_equal(res->info.records_bad, 1);
	free(res);
	free(b.data);
	free(j.data);
}

/* Unknown message ids are judged by the record after them. */
static void
test_unknown_ids(void **state)
{
	(void)state;
	struct tlog_buf b;
	struct result *res = malloc(sizeof(*res));
	uint8_t pl[40];

	for (size_t i = 0; i < sizeof(pl); i++)
		pl[i] = (uint8_t)(0xA0 + i);
	tb_init(&b);
	tb_raw(&b, 2, 1, 1, 0x12345, pl, sizeof(pl), 0x77, false);
	tb_sp(&b, 1, 1, MAVLINK_MSG_SCALED_PRESSURE, 5000, 950.0f, 0);
	tb_raw(&b, 1, 1, 1, 200, pl, 10, 0x77, false);
	size_t last = b.len;
	/* An unknown frame ends the file: good. */
	tb_raw(&b, 2, 1, 1, 0x12346, pl, 3, 0x77, false);
	read_all(b.data, b.len, NULL, res);
	assert_int_equal(res->rc, 0);
	assert_int_equal(res->n, 1);
	assert_int_equal(res->info.bytes_skipped, 0);
	assert_non_null(strstr(res->types, ";#200=1;"));
	assert_non_null(strstr(res->types, ";#74565=1;"));
	assert_non_null(strstr(res->types, ";#74566=1;"));

	/* An unknown frame followed by junk: not a record. */
	static const uint8_t junk[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	tb_append(&b, junk, sizeof(junk));
	read_all(b.data, b.len, NULL, res);
	assert_int_equal(res->rc, 0);
	assert_int_equal(res->n, 1);
	assert_int_equal(res->info.bytes_skipped, b.len - last);
	assert_int_equal(res->info.records_bad, 1);
	assert_int_equal(res->info.first_bad_offset, last);
	free(res);
	free(b.data);
}

/* Inputs with nothing usable end cleanly, in bounded time. */
static void
test_garbage(void **state)
{
	(void)state;
	struct result *res = malloc(sizeof(*res));
	size_t n = 20000;
	uint8_t *buf = calloc(1, n);

	read_all(buf, 0, NULL, res);
	assert_int_equal(res->open_rc, -EPROTONOSUPPORT);
	read_all(buf, 0, "tlog", res);
	assert_int_equal(res->open_rc, 0);
	assert_int_equal(res->rc, 0);
	assert_int_equal(res->n, 0);

	memset(buf, 0xFE, n);
	read_all(buf, n, "tlog", res);
	assert_int_equal(res->rc, 0);
	assert_int_equal(res->n, 0);
	assert_int_equal(res->info.bytes_skipped, n);

	/* Record-shaped starts everywhere, each claiming 255 bytes. */
	struct tlog_buf b;
	tb_init(&b);
	while (b.len + 12 < n) {
		static const uint8_t hdr[] = { 0xFD, 0xFF, 0x00, 0x00 };
		tb_stamp(&b);
		tb_append(&b, hdr, sizeof(hdr));
	}
	read_all(b.data, b.len, NULL, res);
	assert_string_equal(res->format, "tlog");
	assert_int_equal(res->n, 0);
	/* Whatever is left at the end is a record cut short. */
	assert_int_equal(res->rc, -ENODATA);
	assert_int_equal(res->info.records_bad, 1);

	/* An unsupported incompat flag is not a frame. */
	free(b.data);
	tb_init(&b);
	size_t bad = tb_sp(&b, 2, 1, MAVLINK_MSG_SCALED_PRESSURE, 1, 1.0f, 0);
	b.data[bad + 10] = 0x02;
	tb_sp(&b, 2, 1, MAVLINK_MSG_SCALED_PRESSURE, 2, 2.0f, 0);
	read_all(b.data, b.len, "tlog", res);
	assert_int_equal(res->rc, 0);
	assert_int_equal(res->n, 1);
	assert_int_equal(res->rec[0].baro.time_us, 2000);
	assert_int_equal(res->info.records_bad, 1);

	/* Text is not a tlog. */
	const char *text = "time_s,pressure_pa\n0,101325\n";
	read_all(text, strlen(text), NULL, res);
	assert_string_not_equal(res->format, "tlog");
	free(b.data);
	free(buf);
	free(res);
}

/* A pressure that is not a number drops the sample and is counted. */
static void
test_non_finite_pressure(void **state)
{
	(void)state;
	struct tlog_buf b;
	struct result *res = malloc(sizeof(*res));

	tb_init(&b);
	tb_sp(&b, 1, 1, MAVLINK_MSG_SCALED_PRESSURE, 1000, 1000.0f, 0);
	size_t at = tb_sp(&b, 1, 1, MAVLINK_MSG_SCALED_PRESSURE, 1100, NAN, 0);
	tb_sp(&b, 1, 1, MAVLINK_MSG_SCALED_PRESSURE, 1200, INFINITY, 0);
	tb_sp(&b, 1, 1, MAVLINK_MSG_SCALED_PRESSURE, 1300, 1001.0f, 0);
	read_all(b.data, b.len, NULL, res);
	assert_int_equal(res->rc, 0);
	assert_int_equal(res->n, 2);
	assert_int_equal(res->info.records_bad, 2);
	assert_int_equal(res->info.first_bad_offset, at);
	free(res);
	free(b.data);
}

/* ---- the bundled logs ------------------------------------------------ */

/* LOGS_DIR/name into path, or skip when the logs are not there (a clean
 * clone without /work/shared): only the file-based tests need them. */
static void
need_log(char *path, size_t len, const char *name)
{
	const char *dir = getenv("LOGS_DIR");
	struct stat st;

	if (!dir || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		skip_because("LOGS_DIR unset or missing: %s not tested", name);
	}
	snprintf(path, len, "%s/%s", dir, name);
	if (stat(path, &st) != 0) {
		skip_because("%s missing: not tested", path);
	}
}

struct stats {
	int rc;
	char err[LOG_ERR_LEN];
	struct log_info info;
	char types[2048];
	size_t baro, before_reboot, reboots, backsteps, other_instance;
	uint64_t first_us, last_us, max_back_us;
	bool reboot_in_order;	/* event after the last sample before it,
				   first sample after it not earlier */
	uint64_t reboot_us;
	float pmin, pmax, tmin, tmax;
	size_t gpi, gps, vfr, vfr_home, vfr_amsl, armed, disarmed;
	bool arming_alternates;
	double gpi_min, gpi_max;
	/* The sensor records, and every channel's name. */
	struct log_record *sens;
	size_t nsens, capsens;
	char chan[LOG_MAX_CHANNELS][40];
};

static void
sensor_stats(struct stats *s, const struct log_record *rec)
{
	if (s->nsens == s->capsens) {
		s->capsens = s->capsens ? 2 * s->capsens : 1024;
		s->sens = realloc(s->sens, s->capsens * sizeof(*s->sens));
		assert_non_null(s->sens);
	}
	s->sens[s->nsens++] = *rec;
}

static const char *
stats_chan(const void *ctx, unsigned channel)
{
	const struct stats *s = ctx;
	return channel < LOG_MAX_CHANNELS ? s->chan[channel] : "?";
}

static void
add_type_big(const char *name, uint64_t count, void *ud)
{
	char *types = ud;
	size_t n = strlen(types);

	snprintf(types + n, 2048 - n, "%s=%" PRIu64 ";", name, count);
}

static void
read_stats(const char *path, struct stats *s)
{
	struct log_reader r;
	struct log_record rec;
	int fd = open(path, O_RDONLY);
	bool last_armed = false, any_arming = false;

	assert_true(fd >= 0);
	memset(s, 0, sizeof(*s));
	s->pmin = s->tmin = 1e30f;
	s->pmax = s->tmax = -1e30f;
	s->gpi_min = 1e30;
	s->gpi_max = -1e30;
	s->reboot_in_order = true;
	s->arming_alternates = true;
	assert_int_equal(log_reader_open_fd(&r, fd, path, NULL), 0);
	assert_string_equal(r.ops->name, "tlog");
	while ((s->rc = log_reader_next(&r, &rec)) > 0) {
		const char *ch = log_reader_channel_name(&r, rec.channel);
		assert_non_null(ch);
		if (rec.kind == LOG_REC_BARO) {
			const struct baro_sample *b = &rec.baro;
			assert_string_equal(ch, "SCALED_PRESSURE");
			if (s->baro == 0)
				s->first_us = b->time_us;
			else if (b->time_us < s->last_us) {
				s->backsteps++;
				if (s->last_us - b->time_us > s->max_back_us)
					s->max_back_us = s->last_us - b->time_us;
			}
			if (s->reboots > 0 && s->baro == s->before_reboot &&
			    b->time_us < s->reboot_us)
				s->reboot_in_order = false;
			s->last_us = b->time_us;
			s->baro++;
			s->other_instance += b->instance != 0;
			s->pmin = fminf(s->pmin, b->pressure_pa);
			s->pmax = fmaxf(s->pmax, b->pressure_pa);
			s->tmin = fminf(s->tmin, b->temperature_c);
			s->tmax = fmaxf(s->tmax, b->temperature_c);
		} else if (rec.kind == LOG_REC_REFERENCE) {
			if (strcmp(ch, "GLOBAL_POSITION_INT") == 0) {
				s->gpi++;
				s->gpi_min = fmin(s->gpi_min, rec.ref.alt_m);
				s->gpi_max = fmax(s->gpi_max, rec.ref.alt_m);
			} else if (strcmp(ch, "GPS_RAW_INT") == 0) {
				s->gps++;
			} else if (strcmp(ch, "VFR_HUD") == 0) {
				s->vfr++;
				s->vfr_home += rec.ref.datum == LOG_DATUM_HOME;
				s->vfr_amsl += rec.ref.datum == LOG_DATUM_AMSL;
			}
		} else if (rec.kind != LOG_REC_EVENT) {
			sensor_stats(s, &rec);
		} else if (rec.event.kind == LOG_EVENT_REBOOT) {
			s->reboots++;
			s->before_reboot = s->baro;
			s->reboot_us = rec.event.time_us;
			if (s->baro > 0 && rec.event.time_us <= s->last_us)
				s->reboot_in_order = false;
		} else if (rec.event.kind == LOG_EVENT_ARMED ||
			   rec.event.kind == LOG_EVENT_DISARMED) {
			bool armed = rec.event.kind == LOG_EVENT_ARMED;
			if (any_arming && armed == last_armed)
				s->arming_alternates = false;
			any_arming = true;
			last_armed = armed;
			s->armed += armed;
			s->disarmed += !armed;
		}
	}
	snprintf(s->err, sizeof(s->err), "%s", r.err);
	s->info = r.info;
	s->types[0] = ';';
	log_reader_list_types(&r, add_type_big, s->types);
	for (unsigned c = 0; c < LOG_MAX_CHANNELS; c++) {
		const char *name = log_reader_channel_name(&r, c);
		snprintf(s->chan[c], sizeof(s->chan[c]), "%s", name ? name : "");
	}
	log_reader_close(&r);
	close(fd);
}

static void
assert_type(const struct stats *s, const char *entry)
{
	if (!strstr(s->types, entry))
		fail_msg("'%s' not in %s", entry, s->types);
}

/*
 * README: ArduCopter (HEARTBEAT type 2, autopilot 3), MAVLink 1, GCS
 * heartbeats mixed in; SCALED_PRESSURE x2855, all CRCs good, press_abs
 * 954.03..955.56 hPa, temperature 13.9..28.6 degC; time_boot_ms resets
 * once: 640 samples, then 2215; GLOBAL_POSITION_INT x2833 (relative alt
 * -1.8..13.3 m), GPS_RAW_INT x2858, VFR_HUD x2815.
 */
static void
test_cmac(void **state)
{
	(void)state;
	char path[4096];

	/* Before the allocation: a missing log skips the test here. */
	need_log(path, sizeof(path), "mav_arducopter_cmac_2015.tlog");
	struct stats *s = malloc(sizeof(*s));
	read_stats(path, s);

	/* The file (2723840 bytes) ends 19 bytes into a 25-byte GCS
	 * heartbeat record (found with an independent throwaway parser):
	 * every record before it, then the cut named. */
	assert_int_equal(s->rc, -ENODATA);
	if (!strstr(s->err, "offset 2723821: "))
		fail_msg("%s", s->err);

	assert_int_equal(s->baro, 2855);
	assert_int_equal(s->other_instance, 0);
	assert_int_equal(s->reboots, 1);
	assert_int_equal(s->before_reboot, 640);
	assert_int_equal(s->baro - s->before_reboot, 2215);
	assert_true(s->reboot_in_order);
	assert_int_equal(s->backsteps, 0);
	assert_true(fabsf(s->pmin - 95403.0f) < 1.0f);
	assert_true(fabsf(s->pmax - 95556.0f) < 1.0f);
	assert_true(fabsf(s->tmin - 13.9f) < 0.06f);
	assert_true(fabsf(s->tmax - 28.6f) < 0.06f);

	assert_int_equal(s->gpi, 2833);
	assert_true(fabs(s->gpi_min + 1.8) < 0.06);
	assert_true(fabs(s->gpi_max - 13.3) < 0.06);
	assert_int_equal(s->vfr, 2815);
	/* This firmware sends VFR_HUD.alt relative to home. */
	assert_int_equal(s->vfr_home, 2815);
	assert_true(s->gps > 0 && s->gps <= 2858);
	assert_true(s->armed > 0);
	assert_true(s->arming_alternates);

	assert_type(s, ";#29 SCALED_PRESSURE=2855;");
	assert_type(s, ";#33 GLOBAL_POSITION_INT=2833;");
	assert_type(s, ";#24 GPS_RAW_INT=2858;");
	assert_type(s, ";#74 VFR_HUD=2815;");
	assert_int_equal(s->info.bytes_skipped, 0);
	assert_int_equal(s->info.records_bad, 0);
	assert_string_equal(s->info.firmware, "ArduCopter");
	free(s->sens);
	free(s);
}

/*
 * README: ArduPlane quadplane in SITL, SCALED_PRESSURE x794 over 207.6 s
 * (the receive clock), press_abs 938.21..944.76 hPa, temperature fixed at
 * 35.00 degC, one -1000 ms step in time_boot_ms; GLOBAL_POSITION_INT
 * x807, GPS_RAW_INT x799, VFR_HUD x878.
 */
static void
test_sitl(void **state)
{
	(void)state;
	char path[4096];

	/* Before the allocation: a missing log skips the test here. */
	need_log(path, sizeof(path), "mav_arduplane-quadplane_sitl.tlog");
	struct stats *s = malloc(sizeof(*s));
	read_stats(path, s);
	if (s->rc != 0)
		fail_msg("%s", s->err);
	assert_int_equal(s->baro, 794);
	assert_int_equal(s->reboots, 0);
	/* The step passes through unchanged, as the only one. */
	assert_int_equal(s->backsteps, 1);
	assert_int_equal(s->max_back_us, 1000000);
	/* On the autopilot's clock the span differs from the receive
	 * clock's 207.6 s by the 1 s step and the bursts' delivery. */
	double span = (double)(s->last_us - s->first_us) / 1e6;
	if (!(span > 207.1 && span < 208.7))
		fail_msg("span %.3f s", span);
	assert_true(fabsf(s->pmin - 93821.0f) < 1.0f);
	assert_true(fabsf(s->pmax - 94476.0f) < 1.0f);
	assert_float_exact(s->tmin, 35.0f);
	assert_float_exact(s->tmax, 35.0f);
	assert_int_equal(s->gpi, 807);
	assert_int_equal(s->vfr, 878);
	assert_int_equal(s->vfr_amsl, 878);
	assert_true(s->gps > 0 && s->gps <= 799);
	assert_type(s, ";#29 SCALED_PRESSURE=794;");
	assert_type(s, ";#33 GLOBAL_POSITION_INT=807;");
	assert_type(s, ";#24 GPS_RAW_INT=799;");
	assert_type(s, ";#74 VFR_HUD=878;");
	assert_int_equal(s->info.bytes_skipped, 0);
	assert_int_equal(s->info.records_bad, 0);
	assert_true(strncmp(s->info.firmware, "ArduPlane V", 11) == 0);
	free(s->sens);
	free(s);
}

static bool
rec_equal(const struct log_record *a, const struct log_record *b)
{
	if (a->kind != b->kind || a->channel != b->channel)
		return false;
	switch (a->kind) {
	case LOG_REC_BARO:
		return a->baro.time_us == b->baro.time_us &&
		       a->baro.instance == b->baro.instance &&
		       a->baro.flags == b->baro.flags &&
		       a->baro.pressure_pa == b->baro.pressure_pa &&
		       a->baro.temperature_c == b->baro.temperature_c;
	case LOG_REC_REFERENCE:
		return a->ref.time_us == b->ref.time_us &&
		       a->ref.source == b->ref.source &&
		       a->ref.datum == b->ref.datum &&
		       a->ref.alt_m == b->ref.alt_m;
	case LOG_REC_EVENT:
		return a->event.time_us == b->event.time_us &&
		       a->event.kind == b->event.kind;
	case LOG_REC_IMU:
	case LOG_REC_ATTITUDE:
	case LOG_REC_GPS:
	case LOG_REC_RANGE:
		return sensor_rec_equal(a, b);
	}
	return false;
}

struct run {
	size_t n, cap;
	struct log_record *rec;
	uint64_t *end;
	int rc;
	char err[LOG_ERR_LEN];
	struct log_info info;
};

static void
run_mem(const uint8_t *data, size_t len, struct run *out)
{
	struct log_reader r;
	struct log_record rec;

	out->n = 0;
	assert_int_equal(log_reader_open_mem(&r, data, len, "cut", "tlog"), 0);
	while ((out->rc = log_reader_next(&r, &rec)) > 0) {
		if (out->n == out->cap) {
			out->cap = out->cap * 2 + 1024;
			out->rec = realloc(out->rec,
					   out->cap * sizeof(*out->rec));
			out->end = realloc(out->end,
					   out->cap * sizeof(*out->end));
			assert_true(out->rec && out->end);
		}
		out->rec[out->n] = rec;
		out->end[out->n++] = r.in.offset;
	}
	snprintf(out->err, sizeof(out->err), "%s", r.err);
	out->info = r.info;
	log_reader_close(&r);
}

static uint8_t *
load(const char *path, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0 && fstat(fd, &st) == 0);
	*len = (size_t)st.st_size;
	uint8_t *data = malloc(*len);
	assert_non_null(data);
	assert_int_equal(read(fd, data, *len), (ssize_t)*len);
	close(fd);
	return data;
}

/* The SITL log cut and damaged at spread-out points: what came before the
 * damage comes out unchanged. */
static void
test_sitl_damaged(void **state)
{
	(void)state;
	char path[4096];
	size_t len;
	struct run full = { 0 }, part = { 0 };

	need_log(path, sizeof(path), "mav_arduplane-quadplane_sitl.tlog");
	uint8_t *data = load(path, &len);
	run_mem(data, len, &full);
	assert_int_equal(full.rc, 0);

	for (int k = 0; k <= 40; k++) {
		size_t cut = len / 40 * (size_t)k + (size_t)k * 7 % 13;
		if (cut > len)
			cut = len;
		run_mem(data, cut, &part);
		size_t want = 0;
		while (want < full.n && full.end[want] <= cut)
			want++;
		assert_int_equal(part.n, want);
		for (size_t i = 0; i < want; i++)
			assert_true(rec_equal(&part.rec[i], &full.rec[i]));
		if (part.rc == -ENODATA) {
			unsigned long long at;
			const char *o = strstr(part.err, "offset ");
			assert_non_null(o);
			assert_int_equal(sscanf(o, "offset %llu", &at), 1);
			assert_true(at < cut && cut - at < 8 + 280);
			assert_true(want == 0 || at >= full.end[want - 1]);
		} else {
			assert_int_equal(part.rc, 0);
		}
	}

	for (int k = 1; k < 40; k++) {
		size_t at = len / 40 * (size_t)k + (size_t)k * 11 % 17;
		data[at] ^= 0xFF;
		run_mem(data, len, &part);
		data[at] ^= 0xFF;
		assert_int_equal(part.rc, 0);
		size_t same = 0;
		while (same < full.n && full.end[same] <= at)
			same++;
		assert_true(part.n >= same);
		for (size_t i = 0; i < same; i++)
			assert_true(rec_equal(&part.rec[i], &full.rec[i]));
		/* At most the damaged record is lost. */
		size_t baro = 0;
		for (size_t i = 0; i < part.n; i++)
			baro += part.rec[i].kind == LOG_REC_BARO;
		assert_true(baro >= 793 && baro <= 794);
	}
	free(full.rec);
	free(full.end);
	free(part.rec);
	free(part.end);
	free(data);
}

/* The reader's CRC_EXTRA for the altitude messages is the one the field
 * lists give: frames built with it decode (test_mixed), and the algorithm
 * gives the sheet's value for a message whose CRC_EXTRA it states. */
static void
test_crc_extra_algorithm(void **state)
{
	(void)state;
	assert_int_equal(crc_extra_of("SCALED_PRESSURE", f_sp), 115);
}

/*
 * Sensor records of the bundled tlogs: counts and first/last records,
 * decoded once with node-mavlink 2.3.0's message definitions (field
 * offsets, CRC_EXTRA checked with its x25crc) by a throwaway script
 * (not kept), taking frames as this reader's framing rules do and
 * timing them by time_boot_ms (GPS_RAW_INT by the latest
 * SCALED_PRESSURE/GLOBAL_POSITION_INT time): SCALED_IMU2 mG x
 * 9.80665e-3, ATTITUDE as sent, GPS_RAW_INT alt mm / 1000 (MAVLink 1:
 * no v_acc, vel_acc).  Times are of the first boot; a log's later boot
 * is offset as its last SCALED_PRESSURE sample is (last_sp_ms).
 */
static const struct sensor_expect sens_cmac[] = {
	{ "GPS_RAW_INT", LOG_REC_GPS, 2858,
	  { .kind = LOG_REC_GPS, .gps = { 44917000, 0, 1, 0, 588.59, NAN, NAN, NAN } },
	  { .kind = LOG_REC_GPS, .gps = { 816251000, 0, 3, 7, 587.94, NAN, NAN, NAN } } },
	{ "ATTITUDE", LOG_REC_ATTITUDE, 2829,
	  { .kind = LOG_REC_ATTITUDE, .att = { 44918000, 0.013193592429161072, -0.00010097026824951172, -1.4815903902053833 } },
	  { .kind = LOG_REC_ATTITUDE, .att = { 816291000, -0.007908130064606667, 0.02732868492603302, -1.5433307886123657 } } },
	{ "SCALED_IMU2", LOG_REC_IMU, 2850,
	  { .kind = LOG_REC_IMU, .imu = { 45641000, 1, { 0.3138128, -0.18632635, -9.50264385 } } },
	  { .kind = LOG_REC_IMU, .imu = { 816251000, 1, { 0.83356525, -0.48052585000000003, -9.80665 } } } },
};

static const struct sensor_expect sens_quadplane[] = {
	{ "GPS_RAW_INT", LOG_REC_GPS, 799,
	  { .kind = LOG_REC_GPS, .gps = { 608582000, 0, 6, 10, 587.85, NAN, NAN, NAN } },
	  { .kind = LOG_REC_GPS, .gps = { 816977000, 0, 6, 10, 586.64, NAN, NAN, NAN } } },
	{ "ATTITUDE", LOG_REC_ATTITUDE, 888,
	  { .kind = LOG_REC_ATTITUDE, .att = { 608582000, -0.024653663858771324, 0.002518675522878766, 2.4500322341918945 } },
	  { .kind = LOG_REC_ATTITUDE, .att = { 817077000, -0.0019467021338641644, 0.028988825157284737, 0.7769299149513245 } } },
	{ "SCALED_IMU2", LOG_REC_IMU, 795,
	  { .kind = LOG_REC_IMU, .imu = { 608821000, 1, { 0.24516625, -0.0980665, -9.79684335 } } },
	  { .kind = LOG_REC_IMU, .imu = { 816977000, 1, { 0.32361945000000003, 0.0, -9.7870367 } } } },
};

static void
check_tlog_sensors(const char *file, const struct sensor_expect *want,
		   size_t nwant, uint32_t last_sp_ms)
{
	char path[4096], msg[160];

	need_log(path, sizeof(path), file);
	struct stats *s = malloc(sizeof(*s));
	assert_non_null(s);
	read_stats(path, s);
	struct sensor_expect *w = malloc(nwant * sizeof(*w));
	assert_non_null(w);
	memcpy(w, want, nwant * sizeof(*w));
	uint64_t offset = s->last_us - (uint64_t)last_sp_ms * 1000u;
	for (size_t i = 0; i < nwant; i++)
		switch (w[i].kind) {
		case LOG_REC_IMU: w[i].last.imu.time_us += offset; break;
		case LOG_REC_ATTITUDE: w[i].last.att.time_us += offset; break;
		case LOG_REC_GPS: w[i].last.gps.time_us += offset; break;
		default: break;
		}
	sensor_check(s->sens, s->nsens, stats_chan, s, w, nwant, msg,
		     sizeof(msg));
	if (msg[0])
		fail_msg("%s: %s", file, msg);
	free(w);
	free(s->sens);
	free(s);
}

static void
test_tlog_sensors(void **state)
{
	(void)state;
	check_tlog_sensors("mav_arducopter_cmac_2015.tlog", sens_cmac,
			   sizeof(sens_cmac) / sizeof(sens_cmac[0]), 816251);
	check_tlog_sensors("mav_arduplane-quadplane_sitl.tlog", sens_quadplane,
			   sizeof(sens_quadplane) / sizeof(sens_quadplane[0]),
			   816977);
}

/* Every sensor message, built with CRC_EXTRA computed here from the
 * field lists: values, units, channels, and what is dropped. */
static void
test_sensor_messages(void **state)
{
	(void)state;
	struct tlog_buf b;
	struct result *res = malloc(sizeof(*res));
	uint8_t pl[64];

	tb_init(&b);
	/* Before any timed frame: no time, dropped. */
	memset(pl, 0, sizeof(pl));
	tb_raw(&b, 1, 1, 1, 26, pl, 22, crc_extra_of("SCALED_IMU", f_imu),
	       false);
	tb_sp(&b, 1, 1, MAVLINK_MSG_SCALED_PRESSURE, 20000, 1000.0f, 2000);
	static const uint8_t imu_ids[] = { 26, 116, 129 };
	static const char *const imu_names[] = { "SCALED_IMU", "SCALED_IMU2",
						 "SCALED_IMU3" };
	for (int k = 0; k < 3; k++) {
		memset(pl, 0, sizeof(pl));
		le_put32(pl, 20001 + (uint32_t)k);
		le_put16(pl + 4, (uint16_t)(int16_t)(10 + k));
		le_put16(pl + 6, (uint16_t)(int16_t)-20);
		le_put16(pl + 8, (uint16_t)(int16_t)-1000);
		tb_raw(&b, 1, 1, 1, imu_ids[k], pl, 22,
		       crc_extra_of(imu_names[k], f_imu), false);
	}
	/* HIGHRES_IMU: new accelerometer (bit 0), then only the gyro. */
	for (int k = 0; k < 2; k++) {
		memset(pl, 0, sizeof(pl));
		le_put64(pl, 20005250 + (uint64_t)k);
		put_f32(pl + 8, 0.5f);
		put_f32(pl + 12, -0.25f);
		put_f32(pl + 16, -9.75f);
		le_put16(pl + 60, k ? 0x38 : 0x01);
		pl[62] = 2;
		tb_raw(&b, 2, 1, 1, 105, pl, 63,
		       crc_extra_of("HIGHRES_IMU", f_hrimu), false);
	}
	memset(pl, 0, sizeof(pl));
	le_put32(pl, 20010);
	put_f32(pl + 4, 0.125f);
	put_f32(pl + 8, -0.5f);
	put_f32(pl + 12, 3.0f);
	tb_raw(&b, 1, 1, 1, 30, pl, 28, crc_extra_of("ATTITUDE", f_att), false);
	/* The same with a wrong CRC_EXTRA: a bad record, nothing read. */
	tb_raw(&b, 1, 1, 1, 30, pl, 28, 0x12, false);
	/* DISTANCE_SENSOR looking down (25), then forward (0). */
	for (int k = 0; k < 2; k++) {
		memset(pl, 0, sizeof(pl));
		le_put32(pl, 20020);
		le_put16(pl + 4, 20);
		le_put16(pl + 6, 4000);
		le_put16(pl + 8, 1234);
		pl[11] = 1;
		pl[12] = k ? 0 : 25;
		pl[38] = 80;
		tb_raw(&b, 2, 1, 1, 132, pl, 39,
		       crc_extra_of("DISTANCE_SENSOR", f_dist), false);
	}
	/* MAVLink 2 GPS_RAW_INT with v_acc and vel_acc (mm, mm/s). */
	memset(pl, 0, sizeof(pl));
	put_i32(pl + 16, 123456);
	pl[28] = 3;
	pl[29] = 12;
	le_put32(pl + 38, 1500);
	le_put32(pl + 42, 250);
	tb_raw(&b, 2, 1, 1, 24, pl, 46, crc_extra_of("GPS_RAW_INT", f_gps),
	       false);

	/* MAVLink 1 frames short of their base fields, their CRC good: a
	 * bad record each, not zeros read as values. */
	memset(pl, 0, sizeof(pl));
	le_put32(pl, 20030);
	tb_raw(&b, 1, 1, 1, 30, pl, 20, crc_extra_of("ATTITUDE", f_att), false);
	tb_raw(&b, 1, 1, 1, 116, pl, 12, crc_extra_of("SCALED_IMU2", f_imu),
	       false);

	read_all(b.data, b.len, NULL, res);
	if (res->rc != 0)
		fail_msg("%s", res->err);
	assert_int_equal(res->info.records_bad, 3);
	struct log_record s[12];
	char ch[12][32];
	assert_int_equal(take_sensors(res, s, ch, 12), 7);
	/* The references: the baro sample's, the rangefinder, the GPS. */
	assert_int_equal(res->n, 3);
	assert_int_equal(res->rec[1].ref.source, LOG_REF_RANGEFINDER);
	assert_int_equal(res->rec[1].ref.datum, LOG_DATUM_GROUND);
	assert_int_equal(res->rec[1].ref.instance, 1);
	assert_true(res->rec[1].ref.alt_m == 12.34);
	assert_int_equal(res->rec[2].ref.source, LOG_REF_GPS);

	for (int k = 0; k < 3; k++) {
		assert_string_equal(ch[k], imu_names[k]);
		assert_int_equal(s[k].kind, LOG_REC_IMU);
		assert_int_equal(s[k].imu.instance, k);
		assert_int_equal(s[k].imu.time_us, 20001000 + 1000 * k);
		assert_true(s[k].imu.accel[0] == (10 + k) * (9.80665 / 1000.0));
		assert_true(s[k].imu.accel[2] == -1000 * (9.80665 / 1000.0));
	}
	assert_string_equal(ch[3], "HIGHRES_IMU");
	assert_int_equal(s[3].imu.time_us, 20005250);
	assert_int_equal(s[3].imu.instance, 2);
	assert_true(s[3].imu.accel[0] == 0.5 && s[3].imu.accel[1] == -0.25 &&
		    s[3].imu.accel[2] == -9.75);
	assert_string_equal(ch[4], "ATTITUDE");
	assert_int_equal(s[4].att.time_us, 20010000);
	assert_true(s[4].att.roll_rad == 0.125 && s[4].att.pitch_rad == -0.5 &&
		    s[4].att.yaw_rad == 3.0);
	assert_string_equal(ch[5], "DISTANCE_SENSOR");
	assert_int_equal(s[5].kind, LOG_REC_RANGE);
	assert_int_equal(s[5].range.time_us, 20020000);
	assert_int_equal(s[5].range.instance, 1);
	assert_true(s[5].range.distance_m == 12.34);
	assert_true(s[5].range.min_m == 0.2 && s[5].range.max_m == 40.0);
	assert_int_equal(s[5].range.quality, 80);
	assert_string_equal(ch[6], "GPS_RAW_INT");
	assert_int_equal(s[6].kind, LOG_REC_GPS);
	assert_int_equal(s[6].gps.fix_type, 3);
	assert_int_equal(s[6].gps.nsats, 12);
	assert_true(s[6].gps.alt_amsl_m == 123.456);
	assert_true(s[6].gps.vacc_m == 1.5 && s[6].gps.vel_acc_m_s == 0.25);
	assert_true(isnan(s[6].gps.vel_up_m_s));
	free(res);
	free(b.data);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc_extra_algorithm),
		cmocka_unit_test(test_mixed),
		cmocka_unit_test(test_reboot_and_steps),
		cmocka_unit_test(test_vehicle_by_first_pressure),
		cmocka_unit_test(test_plain_and_signed),
		cmocka_unit_test(test_truncation_every_byte),
		cmocka_unit_test(test_bad_crc),
		cmocka_unit_test(test_junk_between),
		cmocka_unit_test(test_unknown_ids),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_non_finite_pressure),
		cmocka_unit_test(test_cmac),
		cmocka_unit_test(test_tlog_sensors),
		cmocka_unit_test(test_sensor_messages),
		cmocka_unit_test(test_sitl),
		cmocka_unit_test(test_sitl_damaged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
