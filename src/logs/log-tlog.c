// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * MAVLink telemetry logs (.tlog): no file header, then records of
 * [uint64 big-endian Unix-epoch µs, when the ground station received the
 * frame][one MAVLink v1 or v2 frame] (facts: logs-and-filters.md §3,
 * mavlink.md).
 *
 * Framing.  A record is good when its stamp lies in 2000..2100, its start
 * byte is 0xFE/0xFD, a v2 frame has no incompat flag but signing, and
 * either its CRC (with CRC_EXTRA) checks, or, for a message this reader
 * has no CRC_EXTRA for, the next record starts the same way (or the file
 * ends there).  Anything else costs one byte: the reader hunts forward
 * for the next good record, counting every byte not in a good record in
 * info->bytes_skipped and each bad record where one was expected (a
 * record-shaped start whose frame fails) in info->records_bad.  A record
 * cut off by the end of the file (no good record after it) ends the
 * stream with -ENODATA and its offset; the records before it have all
 * been returned.
 *
 * Which vehicle.  The first sender of SCALED_PRESSURE/2/3, or of a
 * HEARTBEAT from something other than a ground station (autopilot not
 * INVALID, type not GCS), is the vehicle; frames of every other
 * sysid/compid (GCS heartbeats from 255, companions) are counted in
 * list_types and otherwise ignored.
 *
 * Time.  Samples and GLOBAL_POSITION_INT use the message's time_boot_ms.
 * When time_boot_ms falls more than REBOOT_STEP_MS below the largest
 * value seen in the current boot, the autopilot rebooted: a
 * LOG_EVENT_REBOOT is emitted (value: the receive-clock gap in ms) and the
 * new boot is offset so that its first frame lands that receive-clock gap
 * after the latest time already returned, which keeps time_us increasing
 * across boots.  A smaller backwards step (messages generated at slightly
 * different times, SITL's -1000 ms step) is passed through unchanged.  A
 * fall of more than 2^31 ms is the 49.7-day wrap of the uint32 and is
 * unwrapped.  Messages without a boot time (HEARTBEAT, VFR_HUD, and
 * GPS_RAW_INT, whose time_usec is Unix time on some autopilots) take the
 * latest time returned; before any timed frame, references are dropped
 * and events carry time 0.
 *
 * Records.  SCALED_PRESSURE/2/3 -> baro instance 0/1/2 (hPa -> Pa,
 * cdegC -> °C).  GLOBAL_POSITION_INT.relative_alt -> LOG_REF_EKF, datum
 * HOME (its alt field is not AMSL before the EKF has an origin).
 * GPS_RAW_INT.alt with fix_type >= 3 -> LOG_REF_GPS, AMSL.  VFR_HUD.alt
 * -> LOG_REF_EKF: it is AMSL on current firmware and relative to home on
 * old ArduCopter, so its datum is whichever of the latest
 * GLOBAL_POSITION_INT alt/relative_alt it is closer to (HOME on a tie,
 * which is an EKF without an origin; AMSL before any).  HEARTBEAT's armed bit: ARMED/DISARMED on each change (the first
 * heartbeat only sets the state).
 *
 * Sensor records, each on its message's channel.  SCALED_IMU/2/3 ->
 * LOG_REC_IMU instance 0/1/2 (mG x 9.80665e-3 m/s^2, FRD body frame);
 * HIGHRES_IMU (m/s^2; instance = its id extension) when fields_updated
 * marks a new accelerometer; ATTITUDE (rad) -> LOG_REC_ATTITUDE; every
 * GPS_RAW_INT after the reference it may be -> LOG_REC_GPS (alt mm ->
 * m, no vertical speed: NaN; v_acc and vel_acc from the MAVLink 2
 * extensions, NaN when absent or 0); DISTANCE_SENSOR looking down
 * (orientation 25) -> a LOG_REF_RANGEFINDER reference and
 * LOG_REC_RANGE (cm -> m; signal_quality 0 unknown -> -1, 1 invalid ->
 * 0).  RAW_IMU is not read: "raw" by the standard, ArduPilot's mG by
 * practice.  Sensor messages take time_boot_ms on the boot clock
 * without driving it (see sensor_time()).
 */
#include "log-reader.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mavlink.h"
#include "util-endian.h"
#include "util-strings.h"

enum {
	STAMP_LEN = 8,
	V1_HDR = 6,
	V2_HDR = 10,
	CRC_LEN = 2,
	SIG_LEN = 13,
	RECORD_MAX = STAMP_LEN + MAVLINK_MAX_FRAME,
	/* A record and the start of the next (stamp + start byte), which
	 * decides frames whose CRC cannot be checked. */
	PEEK_LEN = RECORD_MAX + STAMP_LEN + 1,
	REBOOT_STEP_MS = 5000,
	MIN_REBOOT_GAP_US = 1000,
	/* Distinct v2 message ids (>= 256) counted by list_types. */
	MAX_WIDE_TYPES = 64,
	QUEUE_LEN = 4,
	GPS_FIX_3D = 3,
};

/* 2000-01-01 and 2100-01-01 in Unix µs: a receive stamp outside is not
 * a stamp. */
#define STAMP_MIN_US UINT64_C(946684800000000)
#define STAMP_MAX_US UINT64_C(4102444800000000)

enum {
	MSG_GPS_RAW_INT = 24,
	MSG_SCALED_IMU = 26,
	MSG_ATTITUDE = 30,
	MSG_GLOBAL_POSITION_INT = 33,
	MSG_VFR_HUD = 74,
	MSG_HIGHRES_IMU = 105,
	MSG_SCALED_IMU2 = 116,
	MSG_SCALED_IMU3 = 129,
	MSG_DISTANCE_SENSOR = 132,
};

/* MAV_SENSOR_ROTATION_PITCH_270: a rangefinder looking down. */
#define MAV_SENSOR_DOWN 25
/* SCALED_IMU*: mG; ArduPilot's GRAVITY_MSS, PX4's CONSTANTS_ONE_G. */
#define STANDARD_GRAVITY 9.80665

/*
 * Altitude and sensor messages the codec does not know.  CRC_EXTRA
 * recomputed from the common.xml field lists (mavlink.md §5, checked
 * again by tests/logs/test-log-tlog.c, and against node-mavlink 2.3.0's
 * definitions) and verified on every such frame of both bundled tlogs.
 */
static const struct mavlink_msg_info extra_msgs[] = {
	{ MSG_GPS_RAW_INT, "GPS_RAW_INT", 24, 30, 52 },
	{ MSG_SCALED_IMU, "SCALED_IMU", 170, 22, 24 },
	{ MSG_ATTITUDE, "ATTITUDE", 39, 28, 28 },
	{ MSG_GLOBAL_POSITION_INT, "GLOBAL_POSITION_INT", 104, 28, 28 },
	{ MSG_VFR_HUD, "VFR_HUD", 20, 20, 20 },
	{ MSG_HIGHRES_IMU, "HIGHRES_IMU", 93, 62, 63 },
	{ MSG_SCALED_IMU2, "SCALED_IMU2", 76, 22, 24 },
	{ MSG_SCALED_IMU3, "SCALED_IMU3", 46, 22, 24 },
	{ MSG_DISTANCE_SENSOR, "DISTANCE_SENSOR", 85, 14, 39 },
};

static const struct mavlink_msg_info *
msg_info(uint32_t msgid)
{
	const struct mavlink_msg_info *info = mavlink_msg_info(msgid);

	if (info)
		return info;
	for (size_t i = 0; i < sizeof(extra_msgs) / sizeof(extra_msgs[0]); i++)
		if (extra_msgs[i].id == msgid)
			return &extra_msgs[i];
	return NULL;
}

enum stream {
	ST_SP0,
	ST_SP1,
	ST_SP2,
	ST_GPI,
	ST_GPS,
	ST_VFR,
	ST_HEARTBEAT,
	ST_REBOOT,
	ST_IMU0,
	ST_IMU1,
	ST_IMU2,
	ST_HRIMU,
	ST_ATT,
	ST_DIST,
	ST_COUNT,
};

static const char *const stream_names[ST_COUNT] = {
	[ST_SP0] = "SCALED_PRESSURE",
	[ST_SP1] = "SCALED_PRESSURE2",
	[ST_SP2] = "SCALED_PRESSURE3",
	[ST_GPI] = "GLOBAL_POSITION_INT",
	[ST_GPS] = "GPS_RAW_INT",
	[ST_VFR] = "VFR_HUD",
	[ST_HEARTBEAT] = "HEARTBEAT",
	[ST_REBOOT] = "REBOOT",
	[ST_IMU0] = "SCALED_IMU",
	[ST_IMU1] = "SCALED_IMU2",
	[ST_IMU2] = "SCALED_IMU3",
	[ST_HRIMU] = "HIGHRES_IMU",
	[ST_ATT] = "ATTITUDE",
	[ST_DIST] = "DISTANCE_SENSOR",
};

/* A good record, pointing into the input window. */
struct frame {
	uint64_t offset;	/* file offset of the record (its stamp) */
	uint64_t stamp_us;
	size_t total;		/* record length */
	uint8_t sysid, compid;
	uint32_t msgid;
	uint8_t len;
	bool v2;
	const uint8_t *payload;
};

struct wide_type {
	uint32_t msgid;
	uint64_t count;
};

struct tlog {
	bool in_sync;		/* the next byte should start a record */

	bool have_vehicle;
	uint8_t sysid, compid;

	bool have_time;
	uint32_t boot_max_ms;	/* largest time_boot_ms of this boot */
	uint64_t offset_us;	/* added to this boot's time_boot_ms */
	uint64_t now_us;	/* latest time returned */
	uint64_t last_stamp_us;	/* receive stamp of the last timed frame */

	bool armed_known, armed;
	bool have_gpi;
	double gpi_amsl_m, gpi_rel_m;
	bool firmware_from_text;

	int chan_of[ST_COUNT];
	uint8_t stream_of[ST_COUNT];
	unsigned nchan;

	uint64_t narrow_count[256];
	struct wide_type wide[MAX_WIDE_TYPES];
	unsigned nwide;
	uint64_t wide_other;

	struct log_record queue[QUEUE_LEN];
	unsigned qhead, qlen;
};

/* A stamp in range and a start byte: the shape of a record's first nine
 * bytes, all a frame without a known CRC can be judged by. */
static bool
looks_like_start(const uint8_t *p, size_t avail)
{
	if (avail < STAMP_LEN + 1)
		return false;
	uint64_t st = be_get64(p);
	return st >= STAMP_MIN_US && st < STAMP_MAX_US &&
	       (p[STAMP_LEN] == MAVLINK_STX_V1 ||
		p[STAMP_LEN] == MAVLINK_STX_V2);
}

enum verdict {
	REC_GOOD,
	REC_BAD,
	REC_SHORT,	/* the input ends inside what would be the record */
};

/*
 * Judge the record at p (avail bytes; fewer than PEEK_LEN only at the end
 * of the input).  On REC_SHORT, *need is the length the record claims
 * (0 when not even its header is there).
 */
static enum verdict
check_record(const uint8_t *p, size_t avail, struct frame *fr, size_t *need)
{
	*need = 0;
	if (avail < STAMP_LEN + 1)
		return REC_SHORT;
	if (!looks_like_start(p, avail))
		return REC_BAD;

	const uint8_t *f = p + STAMP_LEN;
	bool v2 = f[0] == MAVLINK_STX_V2;
	size_t hdr = v2 ? V2_HDR : V1_HDR;
	if (avail < STAMP_LEN + hdr)
		return REC_SHORT;
	if (v2 && (f[2] & ~MAVLINK_IFLAG_SIGNED))
		return REC_BAD;
	size_t len = f[1];
	size_t flen = hdr + len + CRC_LEN +
		      (v2 && (f[2] & MAVLINK_IFLAG_SIGNED) ? SIG_LEN : 0);
	size_t total = STAMP_LEN + flen;
	if (avail < total) {
		*need = total;
		return REC_SHORT;
	}

	uint32_t msgid = v2 ? (uint32_t)f[7] | (uint32_t)f[8] << 8 |
				      (uint32_t)f[9] << 16
			    : f[5];
	const struct mavlink_msg_info *info = msg_info(msgid);
	if (info) {
		uint16_t crc = mavlink_frame_crc(f, hdr + len, info->crc_extra);
		if (f[hdr + len] != (uint8_t)crc ||
		    f[hdr + len + 1] != (uint8_t)(crc >> 8))
			return REC_BAD;
	} else {
		size_t rest = avail - total;
		/* Nothing after it, or too little to judge (the next
		 * record then fails as truncated). */
		if (rest >= STAMP_LEN + 1 && !looks_like_start(p + total, rest))
			return REC_BAD;
	}

	fr->stamp_us = be_get64(p);
	fr->total = total;
	fr->sysid = v2 ? f[5] : f[3];
	fr->compid = v2 ? f[6] : f[4];
	fr->msgid = msgid;
	fr->len = (uint8_t)len;
	fr->v2 = v2;
	fr->payload = f + hdr;
	return REC_GOOD;
}

static void
note_skip(struct log_info *info, uint64_t off, uint64_t n)
{
	if (info->bytes_skipped == 0 && info->records_bad == 0)
		info->first_bad_offset = off;
	info->bytes_skipped += n;
}

/*
 * Where the first good record after p starts, or 0 for none.  Only for
 * the input's tail (all of it in the window), to tell a record cut off by
 * the end of the file from junk shaped like a record's start.
 */
static size_t
find_good_in_tail(const uint8_t *p, size_t avail)
{
	for (size_t q = 1; q + STAMP_LEN + 1 <= avail; q++) {
		struct frame fr;
		size_t need;
		if (check_record(p + q, avail - q, &fr, &need) == REC_GOOD)
			return q;
	}
	return 0;
}

/* The next good record: 1, 0 at the end, or a negative errno. */
static int
read_record(struct tlog *t, struct log_input *in, struct log_info *info,
	    struct frame *fr, char *err, size_t errlen)
{
	for (;;) {
		const uint8_t *p;
		long got = log_input_peek(in, PEEK_LEN, &p);
		uint64_t off = log_input_offset(in);
		if (got < 0)
			return str_errorf(err, errlen, (int)got,
				    "offset %" PRIu64 ": read failed: %s", off,
				    strerror((int)-got));
		if (got == 0)
			return 0;

		size_t need, skip = 1;
		enum verdict v = check_record(p, (size_t)got, fr, &need);
		if (v == REC_GOOD) {
			fr->offset = off;
			log_input_consume(in, fr->total);
			t->in_sync = true;
			return 1;
		}
		if (v == REC_SHORT) {
			/* The window holds the rest of the file. */
			skip = find_good_in_tail(p, (size_t)got);
			if (skip == 0 && (t->in_sync || (size_t)got > STAMP_LEN))
				return str_errorf(err, errlen, -ENODATA,
					    "offset %" PRIu64 ": file ends "
					    "inside a record (%ld bytes of %s%zu)",
					    off, got, need ? "" : "at least ",
					    need ? need : (size_t)STAMP_LEN + 1);
			if (skip == 0)	/* a short tail behind junk */
				skip = (size_t)got;
		}
		if (t->in_sync && looks_like_start(p, (size_t)got)) {
			if (info->bytes_skipped == 0 && info->records_bad == 0)
				info->first_bad_offset = off;
			info->records_bad++;
		}
		t->in_sync = false;
		note_skip(info, off, skip);
		log_input_consume(in, skip);
	}
}

static void
count_type(struct tlog *t, uint32_t msgid)
{
	if (msgid < 256) {
		t->narrow_count[msgid]++;
		return;
	}
	for (unsigned i = 0; i < t->nwide; i++)
		if (t->wide[i].msgid == msgid) {
			t->wide[i].count++;
			return;
		}
	if (t->nwide < MAX_WIDE_TYPES)
		t->wide[t->nwide++] = (struct wide_type){ msgid, 1 };
	else
		t->wide_other++;
}

static uint16_t
channel(struct tlog *t, enum stream st)
{
	if (t->chan_of[st] < 0) {
		t->chan_of[st] = (int)t->nchan;
		t->stream_of[t->nchan++] = (uint8_t)st;
	}
	return (uint16_t)t->chan_of[st];
}

/* At most two records per frame (a reboot and a sample), so the queue
 * never fills. */
static struct log_record *
push(struct tlog *t, enum log_record_kind kind, enum stream st)
{
	struct log_record *r = &t->queue[(t->qhead + t->qlen) % QUEUE_LEN];

	t->qlen++;
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->channel = channel(t, st);
	return r;
}

static void
push_event(struct tlog *t, enum stream st, uint64_t time_us,
	   enum log_event_kind kind, double value)
{
	struct log_record *r = push(t, LOG_REC_EVENT, st);

	r->event = (struct log_event){ .time_us = time_us, .kind = kind,
				       .value = value };
}

static struct log_reference *
push_ref(struct tlog *t, enum stream st, uint64_t time_us,
	 enum log_ref_source src, enum log_ref_datum datum, double alt_m)
{
	struct log_record *r = push(t, LOG_REC_REFERENCE, st);

	r->ref = (struct log_reference){ .time_us = time_us, .source = src,
					 .datum = datum, .alt_m = alt_m };
	return &r->ref;
}

/* A vehicle frame's time_boot_ms on the output clock (see the top). */
static uint64_t
boot_time(struct tlog *t, uint32_t ms, uint64_t stamp_us)
{
	if (!t->have_time) {
		t->have_time = true;
		t->boot_max_ms = ms;
	} else if (ms < t->boot_max_ms) {
		uint32_t back = t->boot_max_ms - ms;
		if (back > UINT32_C(0x80000000)) {
			t->offset_us += UINT64_C(0x100000000) * 1000u;
			t->boot_max_ms = ms;
		} else if (back > REBOOT_STEP_MS) {
			uint64_t gap = stamp_us > t->last_stamp_us
					       ? stamp_us - t->last_stamp_us
					       : 0;
			if (gap < MIN_REBOOT_GAP_US)
				gap = MIN_REBOOT_GAP_US;
			/* now_us >= offset + boot_max_ms * 1000 > ms * 1000,
			 * so the new offset stays positive. */
			t->offset_us = t->now_us + gap - (uint64_t)ms * 1000u;
			t->boot_max_ms = ms;
			push_event(t, ST_REBOOT, t->now_us + gap,
				   LOG_EVENT_REBOOT, (double)gap / 1000.0);
		}
	} else {
		t->boot_max_ms = ms;
	}
	t->last_stamp_us = stamp_us;
	uint64_t us = t->offset_us + (uint64_t)ms * 1000u;
	if (us > t->now_us)
		t->now_us = us;
	return us;
}

static void
set_firmware_from_heartbeat(struct log_info *info,
			    const struct mavlink_heartbeat *hb)
{
	const char *name = NULL;

	if (hb->autopilot == MAV_AUTOPILOT_ARDUPILOTMEGA) {
		switch (hb->type) {
		case 1: case 19: case 20: case 21: case 22: case 23:
		case 24: case 25:
			name = "ArduPlane";
			break;
		case 2: case 3: case 4: case 13: case 14: case 15: case 29:
			name = "ArduCopter";
			break;
		case 10: case 11:
			name = "ArduRover";
			break;
		case 12:
			name = "ArduSub";
			break;
		default:
			name = "ArduPilot";
			break;
		}
		snprintf(info->firmware, sizeof(info->firmware), "%s", name);
	} else if (hb->autopilot == MAV_AUTOPILOT_PX4) {
		snprintf(info->firmware, sizeof(info->firmware), "PX4");
	} else {
		snprintf(info->firmware, sizeof(info->firmware),
			 "MAV_AUTOPILOT %u, MAV_TYPE %u", hb->autopilot,
			 hb->type);
	}
}

/* "ArduCopter V3.4.4", "APM:Copter V3.2.1", "PX4 v1.11": a firmware name,
 * then a version word. */
static bool
is_version_text(const char *s)
{
	if (strncmp(s, "Ardu", 4) != 0 && strncmp(s, "APM:", 4) != 0 &&
	    strncmp(s, "PX4", 3) != 0)
		return false;
	for (const char *p = s; (p = strchr(p, ' ')) != NULL; p++)
		if ((p[1] == 'V' || p[1] == 'v') && p[2] >= '0' && p[2] <= '9')
			return true;
	return false;
}

/*
 * A sensor message short of its base fields in a MAVLink 1 frame (which
 * never truncates) would read zeros as values: a bad record.  MAVLink 2
 * drops trailing zero bytes, so its short frames are whole.
 */
static bool
sensor_frame_whole(const struct frame *fr, struct log_info *info)
{
	const struct mavlink_msg_info *mi = msg_info(fr->msgid);

	if (fr->v2 || !mi || fr->len >= mi->min_len)
		return true;
	if (info->bytes_skipped == 0 && info->records_bad == 0)
		info->first_bad_offset = fr->offset;
	info->records_bad++;
	return false;
}

/*
 * A sensor message's time_boot_ms on the output clock, without moving
 * it: only the samples and GLOBAL_POSITION_INT drive the boot clock (so
 * the records they give are as before).  False before any timed frame,
 * and for a time from a boot the clock has not reached yet (a reboot's
 * first frames before its first sample).
 */
static bool
sensor_time(const struct tlog *t, uint32_t ms, uint64_t *us)
{
	if (!t->have_time ||
	    (ms < t->boot_max_ms && t->boot_max_ms - ms > REBOOT_STEP_MS))
		return false;
	*us = t->offset_us + (uint64_t)ms * 1000u;
	return true;
}

/* SCALED_IMU/2/3: mG, FRD body frame (what the accelerometer reads). */
static void
on_scaled_imu(struct tlog *t, const struct frame *fr, const uint8_t *pl)
{
	uint64_t us;

	if (!sensor_time(t, le_get32(pl + 0), &us))
		return;
	unsigned inst = fr->msgid == MSG_SCALED_IMU ? 0
		      : fr->msgid == MSG_SCALED_IMU2 ? 1 : 2;
	struct log_record *r = push(t, LOG_REC_IMU, ST_IMU0 + inst);
	r->imu = (struct log_imu){ .time_us = us, .instance = (uint8_t)inst };
	for (int i = 0; i < 3; i++)
		r->imu.accel[i] = (int16_t)le_get16(pl + 4 + 2 * i) *
				  (STANDARD_GRAVITY / 1000.0);
}

/* HIGHRES_IMU: m/s^2, FRD; time_usec since boot.  Only when
 * fields_updated says the accelerometer is new (bits 0-2), else it is
 * the last sample again. */
static void
on_highres_imu(struct tlog *t, const struct frame *fr, const uint8_t *pl)
{
	uint64_t usec = le_get64(pl + 0), us;

	if (!(le_get16(pl + 60) & 0x7) || usec / 1000u > UINT32_MAX ||
	    !sensor_time(t, (uint32_t)(usec / 1000u), &us))
		return;
	struct log_record *r = push(t, LOG_REC_IMU, ST_HRIMU);
	r->imu = (struct log_imu){
		.time_us = us + usec % 1000u,
		/* id is an extension: 0 in a frame without it. */
		.instance = fr->len > 62 ? pl[62] : 0,
		.accel = { le_get_f32(pl + 8), le_get_f32(pl + 12),
			   le_get_f32(pl + 16) },
	};
}

static void
on_attitude(struct tlog *t, const uint8_t *pl)
{
	uint64_t us;

	if (!sensor_time(t, le_get32(pl + 0), &us))
		return;
	struct log_record *r = push(t, LOG_REC_ATTITUDE, ST_ATT);
	r->att = (struct log_attitude){ .time_us = us,
					.roll_rad = le_get_f32(pl + 4),
					.pitch_rad = le_get_f32(pl + 8),
					.yaw_rad = le_get_f32(pl + 12) };
}

/* An extension field's accuracy in mm as m: NaN when the frame stops
 * before it (MAVLink 1) or says 0 (unknown). */
static double
accuracy_m(const struct frame *fr, const uint8_t *pl, size_t off)
{
	uint32_t v = le_get32(pl + off);

	return fr->len >= off + 4 && v ? v / 1000.0 : NAN;
}

/* GPS_RAW_INT: the reference as before (3D fixes), then a sample of
 * every frame.  It has no vertical speed. */
static void
on_gps_raw(struct tlog *t, const struct frame *fr, const uint8_t *pl,
	   struct log_info *info)
{
	if (!t->have_time)
		return;
	double alt = le_get_i32(pl + 16) / 1000.0;
	if (pl[28] >= GPS_FIX_3D)
		push_ref(t, ST_GPS, t->now_us, LOG_REF_GPS, LOG_DATUM_AMSL,
			 alt);
	/* The reference as it always was; the sample only whole. */
	if (!sensor_frame_whole(fr, info))
		return;
	struct log_record *r = push(t, LOG_REC_GPS, ST_GPS);
	r->gps = (struct log_gps){
		.time_us = t->now_us,
		.fix_type = pl[28],
		.nsats = pl[29],	/* 255 unknown, as log_gps has it */
		.alt_amsl_m = alt,
		.vel_up_m_s = NAN,
		.vacc_m = accuracy_m(fr, pl, 38),
		.vel_acc_m_s = accuracy_m(fr, pl, 42),
	};
}

/* DISTANCE_SENSOR looking down: a rangefinder reference, then the
 * sample (cm -> m; signal_quality 0 unknown -> -1, 1 invalid -> 0). */
static void
on_distance(struct tlog *t, const struct frame *fr, const uint8_t *pl)
{
	uint64_t us;

	if (pl[12] != MAV_SENSOR_DOWN || !sensor_time(t, le_get32(pl), &us))
		return;
	double d = le_get16(pl + 8) / 100.0;
	push_ref(t, ST_DIST, us, LOG_REF_RANGEFINDER, LOG_DATUM_GROUND, d)
		->instance = pl[11];
	uint8_t q = fr->len > 38 ? pl[38] : 0;
	struct log_record *r = push(t, LOG_REC_RANGE, ST_DIST);
	r->range = (struct log_range){
		.time_us = us,
		.instance = pl[11],
		.distance_m = d,
		.min_m = le_get16(pl + 4) / 100.0,
		.max_m = le_get16(pl + 6) / 100.0,
		.quality = q == 0 ? -1 : q == 1 ? 0 : (int8_t)(q > 100 ? 100 : q),
	};
}

static void
on_frame(struct tlog *t, const struct frame *fr, struct log_info *info)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
	union mavlink_msg m;

	count_type(t, fr->msgid);
	/* Zero-filled to the full length (v2 truncation, v1 extensions). */
	memcpy(pl, fr->payload, fr->len);
	bool decoded = mavlink_unpack_msg(fr->msgid, pl, &m) == 0;

	bool sp = fr->msgid == MAVLINK_MSG_SCALED_PRESSURE ||
		  fr->msgid == MAVLINK_MSG_SCALED_PRESSURE2 ||
		  fr->msgid == MAVLINK_MSG_SCALED_PRESSURE3;
	if (!t->have_vehicle) {
		bool claims = sp || (fr->msgid == MAVLINK_MSG_HEARTBEAT &&
				     decoded &&
				     m.hb.autopilot != MAV_AUTOPILOT_INVALID &&
				     m.hb.type != MAV_TYPE_GCS);
		if (!claims)
			return;
		t->have_vehicle = true;
		t->sysid = fr->sysid;
		t->compid = fr->compid;
	}
	if (fr->sysid != t->sysid || fr->compid != t->compid)
		return;

	if (sp) {
		float pa = m.sp.press_abs * 100.0f;
		if (!isfinite(pa)) {
			if (info->bytes_skipped == 0 && info->records_bad == 0)
				info->first_bad_offset = fr->offset;
			info->records_bad++;
			return;
		}
		uint64_t us = boot_time(t, m.sp.time_boot_ms, fr->stamp_us);
		enum stream st = fr->msgid == MAVLINK_MSG_SCALED_PRESSURE ? ST_SP0
			: fr->msgid == MAVLINK_MSG_SCALED_PRESSURE2 ? ST_SP1
								   : ST_SP2;
		struct log_record *r = push(t, LOG_REC_BARO, st);
		r->baro = (struct baro_sample){
			.time_us = us,
			.instance = (uint8_t)(st - ST_SP0),
			.flags = BARO_SAMPLE_HEALTHY |
				 BARO_SAMPLE_HAS_TEMPERATURE,
			.pressure_pa = pa,
			.temperature_c = (float)m.sp.temperature / 100.0f,
		};
		return;
	}

	switch (fr->msgid) {
	case MSG_GLOBAL_POSITION_INT: {
		uint32_t ms = le_get32(pl + 0);
		t->gpi_amsl_m = le_get_i32(pl + 12) / 1000.0;
		t->gpi_rel_m = le_get_i32(pl + 16) / 1000.0;
		t->have_gpi = true;
		uint64_t us = boot_time(t, ms, fr->stamp_us);
		push_ref(t, ST_GPI, us, LOG_REF_EKF, LOG_DATUM_HOME,
			 t->gpi_rel_m);
		break;
	}
	case MSG_GPS_RAW_INT:
		on_gps_raw(t, fr, pl, info);
		break;
	case MSG_SCALED_IMU:
	case MSG_SCALED_IMU2:
	case MSG_SCALED_IMU3:
		if (sensor_frame_whole(fr, info))
			on_scaled_imu(t, fr, pl);
		break;
	case MSG_HIGHRES_IMU:
		if (sensor_frame_whole(fr, info))
			on_highres_imu(t, fr, pl);
		break;
	case MSG_ATTITUDE:
		if (sensor_frame_whole(fr, info))
			on_attitude(t, pl);
		break;
	case MSG_DISTANCE_SENSOR:
		if (sensor_frame_whole(fr, info))
			on_distance(t, fr, pl);
		break;
	case MSG_VFR_HUD: {
		double alt = le_get_f32(pl + 8);
		if (!t->have_time || !isfinite(alt))
			break;
		enum log_ref_datum d = LOG_DATUM_AMSL;
		if (t->have_gpi &&
		    fabs(alt - t->gpi_rel_m) <= fabs(alt - t->gpi_amsl_m))
			d = LOG_DATUM_HOME;
		push_ref(t, ST_VFR, t->now_us, LOG_REF_EKF, d, alt);
		break;
	}
	case MAVLINK_MSG_HEARTBEAT: {
		if (!t->firmware_from_text && info->firmware[0] == '\0')
			set_firmware_from_heartbeat(info, &m.hb);
		bool armed = (m.hb.base_mode & MAV_MODE_FLAG_SAFETY_ARMED) != 0;
		if (t->armed_known && armed != t->armed)
			push_event(t, ST_HEARTBEAT, t->now_us,
				   armed ? LOG_EVENT_ARMED : LOG_EVENT_DISARMED,
				   0.0);
		t->armed_known = true;
		t->armed = armed;
		break;
	}
	case MAVLINK_MSG_STATUSTEXT:
		if (!t->firmware_from_text && is_version_text(m.st.text)) {
			snprintf(info->firmware, sizeof(info->firmware), "%s",
				 m.st.text);
			t->firmware_from_text = true;
		}
		break;
	default:
		break;
	}
}

static bool
sniff(const uint8_t *head, size_t len)
{
	struct frame fr;
	size_t need;

	/* The first record must be good as far as the head shows it: a
	 * frame cut off by the head's end passes on its shape alone. */
	enum verdict v = check_record(head, len, &fr, &need);
	return v == REC_GOOD || (v == REC_SHORT && looks_like_start(head, len));
}

static int
open_(void **priv, struct log_input *in, struct log_info *info, char *err,
      size_t errlen)
{
	(void)in;
	struct tlog *t = calloc(1, sizeof(*t));
	if (!t)
		return str_errorf(err, errlen, -ENOMEM, "out of memory");
	t->in_sync = true;
	for (int i = 0; i < ST_COUNT; i++)
		t->chan_of[i] = -1;
	snprintf(info->baro_stream, sizeof(info->baro_stream),
		 "SCALED_PRESSURE");
	*priv = t;
	return 0;
}

static int
next(void *priv, struct log_input *in, struct log_record *rec,
     struct log_info *info, char *err, size_t errlen)
{
	struct tlog *t = priv;

	while (t->qlen == 0) {
		/* Set by read_record on success only; gcc 14 -O3 cannot
		 * see that through the inlined on_frame (issue 36). */
		struct frame fr = { 0 };
		int rc = read_record(t, in, info, &fr, err, errlen);
		if (rc <= 0)
			return rc;
		/* fr.payload points into the input's window: consumed, but
		 * in place until the next peek. */
		on_frame(t, &fr, info);
	}
	*rec = t->queue[t->qhead];
	t->qhead = (t->qhead + 1) % QUEUE_LEN;
	t->qlen--;
	return 1;
}

/*
 * Names of messages this reader does not decode, for list_types only
 * (common.xml and ardupilotmega.xml ids that autopilot tlogs carry).
 */
static const struct {
	uint8_t id;
	const char *name;
} known_names[] = {
	{ 0, "HEARTBEAT" },
	{ 1, "SYS_STATUS" },
	{ 2, "SYSTEM_TIME" },
	{ 4, "PING" },
	{ 11, "SET_MODE" },
	{ 20, "PARAM_REQUEST_READ" },
	{ 21, "PARAM_REQUEST_LIST" },
	{ 22, "PARAM_VALUE" },
	{ 23, "PARAM_SET" },
	{ 24, "GPS_RAW_INT" },
	{ 25, "GPS_STATUS" },
	{ 26, "SCALED_IMU" },
	{ 27, "RAW_IMU" },
	{ 28, "RAW_PRESSURE" },
	{ 29, "SCALED_PRESSURE" },
	{ 30, "ATTITUDE" },
	{ 31, "ATTITUDE_QUATERNION" },
	{ 32, "LOCAL_POSITION_NED" },
	{ 33, "GLOBAL_POSITION_INT" },
	{ 34, "RC_CHANNELS_SCALED" },
	{ 35, "RC_CHANNELS_RAW" },
	{ 36, "SERVO_OUTPUT_RAW" },
	{ 39, "MISSION_ITEM" },
	{ 40, "MISSION_REQUEST" },
	{ 42, "MISSION_CURRENT" },
	{ 43, "MISSION_REQUEST_LIST" },
	{ 44, "MISSION_COUNT" },
	{ 46, "MISSION_ITEM_REACHED" },
	{ 47, "MISSION_ACK" },
	{ 49, "GPS_GLOBAL_ORIGIN" },
	{ 62, "NAV_CONTROLLER_OUTPUT" },
	{ 65, "RC_CHANNELS" },
	{ 66, "REQUEST_DATA_STREAM" },
	{ 69, "MANUAL_CONTROL" },
	{ 70, "RC_CHANNELS_OVERRIDE" },
	{ 73, "MISSION_ITEM_INT" },
	{ 74, "VFR_HUD" },
	{ 76, "COMMAND_LONG" },
	{ 77, "COMMAND_ACK" },
	{ 83, "ATTITUDE_TARGET" },
	{ 85, "POSITION_TARGET_LOCAL_NED" },
	{ 87, "POSITION_TARGET_GLOBAL_INT" },
	{ 105, "HIGHRES_IMU" },
	{ 107, "HIL_SENSOR" },
	{ 109, "RADIO_STATUS" },
	{ 111, "TIMESYNC" },
	{ 116, "SCALED_IMU2" },
	{ 124, "GPS2_RAW" },
	{ 125, "POWER_STATUS" },
	{ 129, "SCALED_IMU3" },
	{ 132, "DISTANCE_SENSOR" },
	{ 136, "TERRAIN_REPORT" },
	{ 137, "SCALED_PRESSURE2" },
	{ 141, "ALTITUDE" },
	{ 142, "RESOURCE_REQUEST" },
	{ 143, "SCALED_PRESSURE3" },
	{ 147, "BATTERY_STATUS" },
	{ 148, "AUTOPILOT_VERSION" },
	{ 150, "SENSOR_OFFSETS" },
	{ 152, "MEMINFO" },
	{ 158, "MOUNT_STATUS" },
	{ 162, "FENCE_STATUS" },
	{ 163, "AHRS" },
	{ 164, "SIMSTATE" },
	{ 165, "HWSTATUS" },
	{ 166, "RADIO" },
	{ 168, "WIND" },
	{ 173, "RANGEFINDER" },
	{ 174, "AIRSPEED_AUTOCAL" },
	{ 178, "AHRS2" },
	{ 181, "BATTERY2" },
	{ 182, "AHRS3" },
	{ 193, "EKF_STATUS_REPORT" },
	{ 194, "PID_TUNING" },
	{ 230, "ESTIMATOR_STATUS" },
	{ 241, "VIBRATION" },
	{ 242, "HOME_POSITION" },
	{ 245, "EXTENDED_SYS_STATE" },
	{ 253, "STATUSTEXT" },
};

static void
report_type(uint32_t msgid, uint64_t count, log_type_cb cb, void *ud)
{
	const struct mavlink_msg_info *info = msg_info(msgid);
	const char *known = info ? info->name : NULL;
	char name[48];

	for (size_t i = 0; !known && i < sizeof(known_names) /
						sizeof(known_names[0]);
	     i++)
		if (known_names[i].id == msgid)
			known = known_names[i].name;
	if (known)
		snprintf(name, sizeof(name), "#%" PRIu32 " %s", msgid, known);
	else
		snprintf(name, sizeof(name), "#%" PRIu32, msgid);
	cb(name, count, ud);
}

static void
list_types(void *priv, log_type_cb cb, void *ud)
{
	const struct tlog *t = priv;

	for (uint32_t id = 0; id < 256; id++)
		if (t->narrow_count[id] > 0)
			report_type(id, t->narrow_count[id], cb, ud);
	for (unsigned i = 0; i < t->nwide; i++)
		report_type(t->wide[i].msgid, t->wide[i].count, cb, ud);
	if (t->wide_other > 0)
		cb("(other ids)", t->wide_other, ud);
}

static const char *
channel_name(void *priv, unsigned ch)
{
	const struct tlog *t = priv;

	return ch < t->nchan ? stream_names[t->stream_of[ch]] : NULL;
}

static void
close_(void *priv)
{
	free(priv);
}

const struct log_format_ops log_format_tlog = {
	.name = "tlog", .sniff = sniff, .open = open_, .next = next,
	.list_types = list_types, .channel_name = channel_name,
	.close = close_,
};
