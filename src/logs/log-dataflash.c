// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * ArduPilot DataFlash (.bin) reader.
 *
 * Framing: records are A3 95 <type> <payload>, with every type's total
 * length given by an FMT record (type 128, itself fixed at 89 bytes).
 * Nothing in a record says how long it is, so the FMT table is the only
 * way to walk the file: a FMT is used only when its format characters
 * are all known and its name is 1-4 letters, digits or '_'.  Any other
 * FMT is counted in records_bad and ignored, so its type stays unknown.
 * A FMT whose Length differs from its format's size is a firmware quirk,
 * not damage: its records are framed by the Length, as the writer framed
 * them, and it is counted in info->fmt_warnings.  Longer (3.4.4 logs
 * carry a BAR3 FMT with Length 33, "QffcfI" 29 bytes): the bytes past
 * the format are ignored.  Shorter (a Copter log's EKF5 FMT: Length 28,
 * "QBhhhcccCCfff" 40 bytes): the columns cannot be placed, so the type
 * is undecodable (info->fmt_undecodable), its records skipped whole, as
 * pymavlink does.  Only a Length that cannot frame a record (under 3
 * bytes) or a format past 255 bytes makes the FMT bad.  Bytes that do
 * not start a record of a known type
 * are skipped one at a time (bytes_skipped, first_bad_offset).  A record
 * cut off by the end of the file is an error (-ENODATA, naming its
 * offset) returned after every record before it; so is a header cut off
 * (A3 or A3 95 as the last bytes).  Corrupt bytes never stop the reader.
 *
 * Messages are found by name and columns by label, never by id or
 * position: ids differ between logs and columns were added over the
 * years.  Time is TimeUS (us), or TimeMS (ms) in 2014-era logs, whose GPS
 * record has the boot time in T (its TimeMS is the GPS time of week).  A
 * record without a time column (EV, ERR in 2014 logs) takes the time of
 * the last record that had one; before any had, the first one's (held
 * back until it comes, like the CTUN records below).
 *
 * Scaling: c/C/e/E are x0.01 and L x1e-7 by their format character; an
 * FMTU multiplier on such a column states the same scaling again and is
 * not applied.  On every other numeric column the FMTU multiplier (MULT
 * value, or the documented constants when MULT is absent) is applied,
 * except '-' (not applicable) and '?' (unknown).
 *
 * What comes out:
 *  - BARO, BAR2, BAR3 (any layout: with or without the I column, TimeUS
 *    or TimeMS): baro samples on channels "BARO[i]" (BAR2 and BAR3 are
 *    instances 1 and 2, so one sensor has one name across firmware
 *    versions); HEALTHY unless the Health column says 0 or the pressure
 *    is not a positive number; AltAMSL, when logged, as alt_m, else Alt
 *    with LOG_SAMPLE_ALT_HOME (AP_Baro logs get_altitude(), relative to
 *    the ground pressure of its calibration: ArduPilot's
 *    libraries/AP_Baro/AP_Baro_Logging.cpp).  BARO.Alt also comes out as
 *    a LOG_REF_LOG_BARO_ALT reference ("BARO[i].Alt", datum HOME).
 *  - CTUN.BAlt / CTUN.BarAlt: 2014 logs define BARO but never write it,
 *    and the stream cannot be read twice (it may be a pipe), so the
 *    choice is made in the stream.  From the first CTUN record, while no
 *    baro record has been seen, records are held back in a fixed queue.
 *    A baro record before the 8th CTUN (or before the queue fills, or
 *    the file ends or breaks) settles it: CTUN is the autopilot's baro
 *    altitude, a LOG_REF_LOG_BARO_ALT reference (datum HOME).  Otherwise
 *    every CTUN record, the held ones first, becomes a baro sample on
 *    channel "CTUN.BarAlt" (the column's own name), the altitude as
 *    recorded in alt_m (LOG_SAMPLE_ALT_HOME: above home, not AMSL) and
 *    pressure from log_pressure_from_alt() at home's altitude AMSL: the
 *    first 3D GPS fix's altitude less the CTUN altitude then, or sea
 *    level when no fix comes before the queue fills (log_info says
 *    which); LOG_SAMPLE_PRESSURE_FROM_ALT, HEALTHY unless the altitude
 *    gives no positive pressure; baro records
 *    appearing after that still come out as samples.  Records keep file
 *    order either way.
 *  - GPS (GPS2 = instance 1): Alt (AMSL) as reference "GPS[i]", only with
 *    a 3D fix (Status >= 3); then, for every GPS record whatever its
 *    fix, a LOG_REC_GPS on the same channel: fix_type = Status (AP_GPS's
 *    0 none .. 6 RTK fixed), NSats, Alt, vel_up = -VZ (AP_GPS logs
 *    velocity().z, NED), and vacc_m = VAcc, vel_acc_m_s = SAcc from the
 *    GPA (GPA2) AP_GPS writes right after it with the same TimeUS.  The
 *    sample waits one record for that GPA: a GPS not directly followed
 *    by its instance's GPA (2014 logs have none) has NaN accuracies.
 *  - IMU, IMU2, IMU3 (instance by name, or I since 4.0) and ACC, ACC1..3
 *    (the batch sampler's, when logged): AccX..Z as LOG_REC_IMU on
 *    "IMU[i]" / "ACC[i]", specific force in m/s^2, FRD body frame; an
 *    ACC sample at its SampleUS when that is set.
 *  - ATT: Roll, Pitch, Yaw (degrees; centidegrees before 4.0, scaled by
 *    their 'c'/'C' format) as LOG_REC_ATTITUDE in rad on "ATT", yaw
 *    0..360 deg taken to -pi..pi as MAVLink's ATTITUDE has it; DesRoll
 *    etc. are not read.
 *  - EKF: NKF1.PD (EKF2) and XKF1.PD (EKF3), core 0 only (the C column
 *    where logged), as alt = -PD, datum HOME (the EKF origin).  POS.Alt
 *    is not used: it is the same solution moved to AMSL, and a second
 *    EKF channel with another datum would only invite mixing them.
 *  - RFND: Dist (or Dist1, the first rangefinder) as datum GROUND on
 *    "RFND[i]", skipped when the log says it is not facing down
 *    (Orient != 25) or not Good (Stat != 4); then every reading facing
 *    down as LOG_REC_RANGE: distance_m (the 'C' column scaled to m by
 *    its format), quality 0 when not Good, else Quality (4.x) or -1;
 *    min/max NaN (they are parameters, not logged).
 *  - EV 10/11/28/18/60: armed, disarmed, take-off, landed, EKF altitude
 *    reset (value = the id); ERR subsystem 18 (baro): code 0 healthy,
 *    else unhealthy (value = the code).
 *  - Joined logs (cat a.bin b.bin): every log starts with the FMT of
 *    FMT (type 128), so one after data records starts another boot: a
 *    LOG_EVENT_REBOOT (value: the offset in ms) at its first timed
 *    record, and its times are offset to start DF_BOOT_GAP_US after the
 *    latest time returned (not at all if they already do), so time
 *    keeps increasing as in the tlog reader.  Only the joined parts'
 *    times change; a single log's are as recorded.
 *  - info: firmware from the first MSG of the form "<name> V<digit>..."
 *    or "<name> v<digit>..." (ArduRover v2.46beta2)
 *    (without the trailing " (git hash)"), hardware from the MSG of the
 *    form "<board> XXXXXXXX XXXXXXXX XXXXXXXX" (board id words).
 *
 * Memory: one table of 256 types, a 1024-record queue and 64 channel
 * names, whatever the file.
 */
#include "log-reader.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util-endian.h"

#define DF_H1 0xA3
#define DF_H2 0x95
#define DF_FMT_TYPE 128
#define DF_FMT_LEN 89
#define DF_MAX_FIELDS 16
#define DF_SLOTS 6
#define DF_SUBS 8		/* channel keys per type: instance, 4 + instance */
/* Records held back while the CTUN choice or the ground is undecided:
 * the decision points count only the records of the kinds read before
 * the sensor kinds existed (DF_HOLD_LIMIT), so an IMU logging at
 * 400 Hz does not settle them sooner than a log without one; the queue
 * itself has room for the sensor records in between. */
#define DF_HOLD_LIMIT 128
#define DF_QUEUE 1024
#define DF_FALLBACK_CTUN 8	/* CTUN records without BARO before CTUN is the baro */
#define DF_PEEK 256		/* more than any record (Length is a uint8) */
#define DF_NAME_LEN 32
#define DF_BASE_LEN 16		/* so "BASE[i].Alt" fits DF_NAME_LEN */
/* Where a joined log's next boot starts after the last time returned:
 * the real pause is not in the file; this one is long enough that the
 * break stays a gap (log-segments.h) when the samples are exported and
 * read back. */
#define DF_BOOT_GAP_US 10000000u

enum df_role {
	ROLE_NONE,
	ROLE_FMT,
	ROLE_FMTU,
	ROLE_MULT,
	ROLE_MSG,
	ROLE_BARO,
	ROLE_CTUN,
	ROLE_GPS,
	ROLE_EKF,
	ROLE_RFND,
	ROLE_EV,
	ROLE_ERR,
	ROLE_IMU,
	ROLE_ATT,
	ROLE_GPA,
	ROLE_SIM,
};

/* Column slots per role, in the order of df_role_def.cols. */
enum { S_BARO_I, S_BARO_ALT, S_BARO_AMSL, S_BARO_PRESS, S_BARO_TEMP,
       S_BARO_HEALTH };
enum { S_GPS_I, S_GPS_STATUS, S_GPS_ALT, S_GPS_NSATS, S_GPS_VZ };
enum { S_EKF_CORE, S_EKF_PD };
enum { S_RFND_I, S_RFND_DIST, S_RFND_STAT, S_RFND_ORIENT, S_RFND_QUALITY };
enum { S_IMU_I, S_IMU_X, S_IMU_Y, S_IMU_Z, S_IMU_SAMPLE };
enum { S_ATT_ROLL, S_ATT_PITCH, S_ATT_YAW };
enum { S_GPA_I, S_GPA_VACC, S_GPA_SACC };
enum { S_SIM_ALT };

/*
 * A message the reader uses.  Column names: "A|B" accepts either label,
 * a leading '!' marks a column the message is useless without, a leading
 * '$' a text column (all others must be numeric).
 */
struct df_role_def {
	const char *name;
	enum df_role role;
	uint8_t inst_base;
	const char *cols[DF_SLOTS];
};

static const struct df_role_def role_defs[] = {
	{ "BARO", ROLE_BARO, 0,
	  { "I", "Alt", "AltAMSL", "!Press", "Temp", "Health" } },
	{ "BAR2", ROLE_BARO, 1,
	  { "I", "Alt", "AltAMSL", "!Press", "Temp", "Health" } },
	{ "BAR3", ROLE_BARO, 2,
	  { "I", "Alt", "AltAMSL", "!Press", "Temp", "Health" } },
	{ "CTUN", ROLE_CTUN, 0, { "!BAlt|BarAlt" } },
	{ "GPS", ROLE_GPS, 0, { "I", "!Status", "!Alt", "NSats", "VZ" } },
	{ "GPS2", ROLE_GPS, 1, { "I", "!Status", "!Alt", "NSats", "VZ" } },
	{ "GPA", ROLE_GPA, 0, { "I", "VAcc", "SAcc" } },
	{ "GPA2", ROLE_GPA, 1, { "I", "VAcc", "SAcc" } },
	/* IMU2/IMU3 and ACC1..3 name the instance in older logs; IMU and
	 * ACC carry it in I since 4.0 (IMU's AccX..Z are the same
	 * samples ACC logs at the full rate, when batch logging is on). */
	{ "IMU", ROLE_IMU, 0, { "I", "!AccX", "!AccY", "!AccZ" } },
	{ "IMU2", ROLE_IMU, 1, { "I", "!AccX", "!AccY", "!AccZ" } },
	{ "IMU3", ROLE_IMU, 2, { "I", "!AccX", "!AccY", "!AccZ" } },
	{ "ACC", ROLE_IMU, 0, { "I", "!AccX", "!AccY", "!AccZ", "SampleUS" } },
	{ "ACC1", ROLE_IMU, 0, { "I", "!AccX", "!AccY", "!AccZ", "SampleUS" } },
	{ "ACC2", ROLE_IMU, 1, { "I", "!AccX", "!AccY", "!AccZ", "SampleUS" } },
	{ "ACC3", ROLE_IMU, 2, { "I", "!AccX", "!AccY", "!AccZ", "SampleUS" } },
	{ "ATT", ROLE_ATT, 0, { "!Roll", "!Pitch", "!Yaw" } },
	{ "NKF1", ROLE_EKF, 0, { "C", "!PD" } },
	{ "XKF1", ROLE_EKF, 0, { "C", "!PD" } },
	/* SITL's truth (AP_Logger's SIM: "Simulated altitude", AMSL), for
	 * judging the autopilot's estimate of a run baro-drive drove. */
	{ "SIM", ROLE_SIM, 0, { "!Alt" } },
	{ "RFND", ROLE_RFND, 0,
	  { "Instance", "!Dist|Dist1", "Stat|Stat1", "Orient|Orient1",
	    "Quality" } },
	{ "EV", ROLE_EV, 0, { "!Id" } },
	{ "ERR", ROLE_ERR, 0, { "!Subsys", "!ECode" } },
	{ "MSG", ROLE_MSG, 0, { "!$Message" } },
	{ "FMTU", ROLE_FMTU, 0, { "!FmtType", "!$MultIds" } },
	{ "MULT", ROLE_MULT, 0, { "!Id", "!Mult" } },
};

struct df_type {
	uint8_t length;		/* 0: not defined */
	uint8_t nfields;
	uint8_t role;		/* enum df_role */
	uint8_t inst_base;
	int8_t time_field;	/* -1: none */
	bool time_ms;
	char name[5];
	char format[DF_MAX_FIELDS + 1];
	uint8_t off[DF_MAX_FIELDS];	/* from the record's first byte */
	int8_t slot[DF_SLOTS];		/* field index, -1: not logged */
	char mults[DF_MAX_FIELDS];	/* FMTU multiplier ids, 0: none */
	char chan_base[DF_BASE_LEN];	/* "BARO", "NKF1.PD", "CTUN.BarAlt" */
	int8_t chan_slot[DF_SUBS];	/* index into names, -1: not yet */
	uint64_t count;
};

enum df_state {
	DF_WAIT,	/* neither CTUN nor a baro record yet */
	DF_HOLD,	/* CTUN seen, no baro record: holding records back */
	DF_BARO,	/* baro records present: CTUN is a reference */
	DF_FALLBACK,	/* no baro records: CTUN is the baro */
};

struct df_queued {
	struct log_record rec;
	int8_t slot;		/* channel name index */
	bool ctun;		/* CTUN altitude awaiting the decision */
	bool unplaced;		/* CTUN sample awaiting the ground altitude */
	bool untimed;		/* before any timed record: time unknown */
};

struct df_reader {
	struct df_type types[256];
	double mult_val[128];
	bool mult_set[128];

	enum df_state state;
	unsigned ctun_held;
	/* CTUN.BarAlt is above home: its pressure is derived for the
	 * home's altitude AMSL, the first GPS fix's altitude less the CTUN
	 * altitude then.  Samples wait in the queue for it; sea level when
	 * the queue fills or the log ends first. */
	bool ground_decided;
	double ground_m;
	double last_ctun_alt;
	struct df_queued q[DF_QUEUE];
	unsigned qhead, qn;
	unsigned q_old;		/* queued records of the pre-sensor kinds */

	/* A GPS sample waits one record for the GPA AP_GPS writes right
	 * after it (same TimeUS), which has its accuracies. */
	bool gps_pending;
	struct log_record gps_rec;
	struct df_type *gps_type;

	/* Channel names in order of creation; numbers are given in order of
	 * first appearance in the output, which can differ while records
	 * are held. */
	char names[LOG_MAX_CHANNELS][DF_NAME_LEN];
	int16_t number_of[LOG_MAX_CHANNELS];	/* -1: not returned yet */
	int8_t slot_of[LOG_MAX_CHANNELS];	/* by number */
	unsigned nnames, nnumbers;

	uint64_t now_us;
	bool time_seen;
	/* Joined logs: a FMT of FMT after data starts another boot. */
	bool data_seen, boot_pending;
	uint64_t offset_us;	/* added to this boot's times */
	uint64_t max_us;	/* latest time returned */
	bool firmware_set, hardware_set;
	bool at_end;
	int pending_rc;		/* error to return once the queue is empty */
	char pending_err[LOG_ERR_LEN];
};

/* ------------------------------------------------------------------ */
/* Format characters */

static int
fmt_size(char c)
{
	switch (c) {
	case 'b': case 'B': case 'M':
		return 1;
	case 'h': case 'H': case 'c': case 'C': case 'g':
		return 2;
	case 'i': case 'I': case 'f': case 'n': case 'e': case 'E': case 'L':
		return 4;
	case 'q': case 'Q': case 'd':
		return 8;
	case 'N':
		return 16;
	case 'Z': case 'a':
		return 64;
	default:
		return -1;
	}
}

static bool
fmt_numeric(char c)
{
	return c != 'n' && c != 'N' && c != 'Z' && c != 'a';
}

static bool
fmt_text(char c)
{
	return c == 'n' || c == 'N' || c == 'Z';
}

static double
half_to_double(uint16_t h)
{
	int e = (h >> 10) & 0x1f;
	double m = h & 0x3ff;
	double v;

	if (e == 0)
		v = ldexp(m, -24);
	else if (e == 31)
		v = m != 0 ? NAN : INFINITY;
	else
		v = ldexp(m + 1024.0, e - 25);
	return (h & 0x8000) ? -v : v;
}

/* The raw value of a numeric field, scaled only as its format character
 * says (c/C/e/E x0.01, L x1e-7). */
static double
field_raw(const struct df_type *t, int f, const uint8_t *rec)
{
	const uint8_t *p = rec + t->off[f];
	float fl;
	double d;
	uint32_t u32;
	uint64_t u64;

	switch (t->format[f]) {
	case 'b':
		return (int8_t)p[0];
	case 'B': case 'M':
		return p[0];
	case 'h':
		return (int16_t)le_get16(p);
	case 'H':
		return le_get16(p);
	case 'c':
		return (int16_t)le_get16(p) * 0.01;
	case 'C':
		return le_get16(p) * 0.01;
	case 'g':
		return half_to_double(le_get16(p));
	case 'i':
		return (int32_t)le_get32(p);
	case 'I':
		return le_get32(p);
	case 'e':
		return (int32_t)le_get32(p) * 0.01;
	case 'E':
		return le_get32(p) * 0.01;
	case 'L':
		return (int32_t)le_get32(p) * 1e-7;
	case 'f':
		u32 = le_get32(p);
		memcpy(&fl, &u32, sizeof(fl));
		return fl;
	case 'q':
		return (double)(int64_t)le_get64(p);
	case 'Q':
		return (double)le_get64(p);
	case 'd':
		u64 = le_get64(p);
		memcpy(&d, &u64, sizeof(d));
		return d;
	default:
		return NAN;
	}
}

/* Multiplier for an FMTU id: the log's MULT value, else the documented
 * constant; 1 for '-', '?' and ids nobody defined. */
static double
mult_of(const struct df_reader *s, char id)
{
	double builtin = 0.0;

	switch (id) {
	case '0': builtin = 1.0; break;
	case 'A': builtin = 1e-1; break;
	case 'B': builtin = 1e-2; break;
	case 'C': builtin = 1e-3; break;
	case 'F': builtin = 1e-6; break;
	case 'G': builtin = 1e-7; break;
	case '-': case '?': case 0:
		return 1.0;
	default:
		break;
	}
	if ((unsigned char)id < 128 && s->mult_set[(unsigned char)id]) {
		double v = s->mult_val[(unsigned char)id];
		if (!isfinite(v) || v == 0.0)
			return 1.0;
		/* MULT stores float-rounded constants (0.01 as
		 * 0.0099999998); keep the exact decimal they stand for. */
		if (builtin != 0.0 && fabs(v / builtin - 1.0) < 1e-6)
			return builtin;
		return v;
	}
	return builtin != 0.0 ? builtin : 1.0;
}

/* The value of a numeric field in its unit. */
static double
field_value(const struct df_reader *s, const struct df_type *t, int f,
	    const uint8_t *rec)
{
	double v = field_raw(t, f, rec);
	switch (t->format[f]) {
	case 'c': case 'C': case 'e': case 'E': case 'L':
		return v;
	default:
		return v * mult_of(s, t->mults[f]);
	}
}

static bool
slot_value(const struct df_reader *s, const struct df_type *t, int slot,
	   const uint8_t *rec, double *v)
{
	if (t->slot[slot] < 0)
		return false;
	*v = field_value(s, t, t->slot[slot], rec);
	return true;
}

/* An identifier column (instance, status, event id): raw integer. */
static long
slot_int(const struct df_type *t, int slot, const uint8_t *rec, long dflt)
{
	if (t->slot[slot] < 0)
		return dflt;
	double v = field_raw(t, t->slot[slot], rec);
	if (!(v >= -1e9 && v <= 1e9))
		return -1;
	return (long)v;
}

static uint64_t
record_time(const struct df_type *t, const uint8_t *rec)
{
	int f = t->time_field;
	const uint8_t *p = rec + t->off[f];
	int64_t sv = 0;
	uint64_t v;

	switch (t->format[f]) {
	case 'Q': v = le_get64(p); break;
	case 'q': sv = (int64_t)le_get64(p); v = (uint64_t)sv; break;
	case 'I': v = le_get32(p); break;
	case 'i': sv = (int32_t)le_get32(p); v = (uint64_t)sv; break;
	case 'H': v = le_get16(p); break;
	case 'h': sv = (int16_t)le_get16(p); v = (uint64_t)sv; break;
	case 'b': sv = (int8_t)p[0]; v = (uint64_t)sv; break;
	default: v = p[0]; break;
	}
	/* A negative time is damage: 0 keeps it at the start, not at the
	 * end of time. */
	if (sv < 0)
		v = 0;
	if (t->time_ms)
		return v > UINT64_MAX / 1000u ? UINT64_MAX : v * 1000u;
	return v;
}

/* ------------------------------------------------------------------ */
/* FMT */

/* Copy a NUL-padded text field of n bytes; false if it holds anything
 * but printable ASCII before the first NUL. */
static bool
copy_text(char *dst, size_t dstlen, const uint8_t *src, size_t n)
{
	size_t i;
	bool ok = true;

	size_t k = 0;

	for (i = 0; i < n && src[i]; i++) {
		bool printable = src[i] >= 0x20 && src[i] <= 0x7e;
		if (!printable)
			ok = false;
		if (k + 1 < dstlen)
			dst[k++] = printable ? (char)src[i] : '?';
	}
	dst[k] = '\0';
	return ok;
}

static bool
name_ok(const char *name)
{
	if (!name[0])
		return false;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		      (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	return true;
}

/* Field index of the column labelled by one of the '|'-separated
 * names in want; -1 if none. */
static int
find_column(const char *columns, const char *want)
{
	const char *w = want;

	while (*w) {
		size_t wl = strcspn(w, "|");
		const char *c = columns;
		int idx = 0;

		for (;;) {
			size_t cl = strcspn(c, ",");
			if (cl == wl && memcmp(c, w, wl) == 0)
				return idx;
			if (!c[cl])
				break;
			c += cl + 1;
			idx++;
		}
		w += wl;
		if (*w == '|')
			w++;
	}
	return -1;
}

static void
bind_role(struct df_type *t, const char *columns)
{
	const struct df_role_def *def = NULL;

	t->role = ROLE_NONE;
	t->inst_base = 0;
	for (int i = 0; i < DF_SLOTS; i++)
		t->slot[i] = -1;
	for (size_t i = 0; i < sizeof(role_defs) / sizeof(role_defs[0]); i++)
		if (strcmp(role_defs[i].name, t->name) == 0)
			def = &role_defs[i];
	if (!def)
		return;
	for (int i = 0; i < DF_SLOTS && def->cols[i]; i++) {
		const char *want = def->cols[i];
		bool required = false, text = false;

		if (*want == '!') {
			required = true;
			want++;
		}
		if (*want == '$') {
			text = true;
			want++;
		}
		int f = find_column(columns, want);
		if (f >= t->nfields)
			f = -1;
		if (f >= 0 && (text ? !fmt_text(t->format[f])
				    : !fmt_numeric(t->format[f])))
			f = -1;
		if (f < 0 && required) {
			for (int k = 0; k < DF_SLOTS; k++)
				t->slot[k] = -1;
			return;
		}
		t->slot[i] = (int8_t)f;
	}
	t->role = (uint8_t)def->role;
	t->inst_base = def->inst_base;

	/* Built aside: t->name and t->chan_base live in the same struct. */
	char base[DF_BASE_LEN];
	switch (def->role) {
	case ROLE_CTUN: {
		const char *c = columns;
		for (int k = 0; k < t->slot[0]; k++)
			c += strcspn(c, ",") + 1;
		int cl = (int)strcspn(c, ",");
		snprintf(base, sizeof(base), "CTUN.%.*s", cl > 10 ? 10 : cl, c);
		break;
	}
	case ROLE_EKF:
		snprintf(base, sizeof(base), "%s.PD", t->name);
		break;
	case ROLE_BARO:
		snprintf(base, sizeof(base), "BARO");
		break;
	case ROLE_GPS:
		snprintf(base, sizeof(base), "GPS");
		break;
	case ROLE_IMU:
		/* One name per sensor across firmware versions, as BARO. */
		snprintf(base, sizeof(base), "%.3s", t->name);
		break;
	default:
		snprintf(base, sizeof(base), "%s", t->name);
		break;
	}
	memcpy(t->chan_base, base, sizeof(base));
}

static void
bind_time(struct df_type *t, const char *columns)
{
	int f = find_column(columns, "TimeUS");

	t->time_ms = false;
	if (f < 0) {
		/* 2014 GPS: TimeMS is the GPS time of week, T the boot time. */
		f = find_column(columns, t->role == ROLE_GPS ? "T" : "TimeMS");
		t->time_ms = true;
	}
	if (f >= t->nfields || (f >= 0 && !strchr("bBhHiIqQ", t->format[f])))
		f = -1;
	t->time_field = (int8_t)f;
}

static void
note_bad(struct log_info *info, uint64_t offset)
{
	if (info->bytes_skipped == 0 && info->records_bad == 0)
		info->first_bad_offset = offset;
	info->records_bad++;
}

static void
define_type(struct df_reader *s, const uint8_t *rec, uint64_t offset,
	    struct log_info *info)
{
	const uint8_t *b = rec + 3;
	uint8_t type = b[0], length = b[1];
	char name[5], format[DF_MAX_FIELDS + 1], columns[65];
	int sum = 3;

	bool ok = copy_text(name, sizeof(name), b + 2, 4) && name_ok(name);
	ok = copy_text(format, sizeof(format), b + 6, 16) && ok;
	ok = copy_text(columns, sizeof(columns), b + 22, 64) && ok;
	for (const char *p = format; ok && *p; p++) {
		int sz = fmt_size(*p);
		if (sz < 0)
			ok = false;
		sum += sz;
	}
	/* FMT itself is fixed: the framing depends on it. */
	if (ok && type == DF_FMT_TYPE &&
	    (strcmp(format, "BBnNZ") != 0 || length != DF_FMT_LEN))
		ok = false;
	/* No record of under 3 bytes (its header) can be framed, and no
	 * format past 255 bytes can be written (Length is a byte). */
	if (ok && (length < 3 || sum > 255))
		ok = false;
	if (!ok) {
		note_bad(info, offset);
		return;
	}
	if (type == DF_FMT_TYPE)
		return;
	const bool undecodable = sum > length;
	if (sum != length) {
		/* A firmware quirk: the writer framed its records by the
		 * Length, so they are read by it.  Longer (Copter 3.4's
		 * BAR3): the bytes past the format are ignored; shorter
		 * (an EKF5): the columns cannot be placed, so the records
		 * are skipped whole and the type is not decoded. */
		if (info->fmt_warnings++ == 0)
			snprintf(info->fmt_warning, sizeof(info->fmt_warning),
				 "offset %" PRIu64 ": FMT of %s (type %u) "
				 "declares %u bytes, its format %s is %d%s",
				 offset, name, type, length, format, sum,
				 undecodable ? ": its records are not decoded"
					     : "");
		info->fmt_undecodable += undecodable;
	}

	struct df_type *t = &s->types[type];
	bool same = t->length == length && strcmp(t->name, name) == 0 &&
		    strcmp(t->format, format) == 0;
	if (t->length && !same) {
		/* Redefined: its old channels and FMTU no longer apply. */
		t->count = 0;
		memset(t->mults, 0, sizeof(t->mults));
	}
	if (!same)
		for (int i = 0; i < DF_SUBS; i++)
			t->chan_slot[i] = -1;
	t->length = length;
	memcpy(t->name, name, sizeof(name));
	memcpy(t->format, format, sizeof(format));
	t->nfields = (uint8_t)strlen(format);
	unsigned off = 3;
	for (int i = 0; i < t->nfields; i++) {
		t->off[i] = (uint8_t)off;
		off += (unsigned)fmt_size(format[i]);
	}
	if (undecodable) {
		/* Framed, counted, never read: no field lies where the
		 * format says. */
		t->nfields = 0;
		t->role = ROLE_NONE;
		t->inst_base = 0;
		for (int i = 0; i < DF_SLOTS; i++)
			t->slot[i] = -1;
		t->time_field = -1;
		return;
	}
	bind_role(t, columns);
	bind_time(t, columns);
}

/* A log's double (or a float from garbage) as a sample's float: out of
 * range saturates to infinity instead of being undefined. */
static float
to_float(double v)
{
	if (v > FLT_MAX)
		return INFINITY;
	if (v < -FLT_MAX)
		return -INFINITY;
	return (float)v;
}

/* ------------------------------------------------------------------ */
/* Output queue and channels */

static int8_t
channel_slot(struct df_reader *s, struct df_type *t, unsigned sub)
{
	char name[DF_NAME_LEN];

	if (t->chan_slot[sub] >= 0)
		return t->chan_slot[sub];
	switch (t->role) {
	case ROLE_BARO:
		if (sub >= 4)
			snprintf(name, sizeof(name), "%s[%u].Alt", t->chan_base,
				 sub - 4);
		else
			snprintf(name, sizeof(name), "%s[%u]", t->chan_base,
				 sub);
		break;
	case ROLE_GPS: case ROLE_RFND: case ROLE_IMU:
		snprintf(name, sizeof(name), "%s[%u]", t->chan_base, sub);
		break;
	default:
		snprintf(name, sizeof(name), "%s", t->chan_base);
		break;
	}
	for (unsigned i = 0; i < s->nnames; i++)
		if (strcmp(s->names[i], name) == 0)
			return t->chan_slot[sub] = (int8_t)i;
	if (s->nnames >= LOG_MAX_CHANNELS)
		return -1;
	memcpy(s->names[s->nnames], name, sizeof(name));
	s->number_of[s->nnames] = -1;
	return t->chan_slot[sub] = (int8_t)s->nnames++;
}

static void
push(struct df_reader *s, struct df_type *t, unsigned sub,
     const struct log_record *rec, bool ctun)
{
	int8_t slot = channel_slot(s, t, sub);

	/* Past LOG_MAX_CHANNELS: counted in list_types, not returned. */
	if (slot < 0 || s->qn >= DF_QUEUE)
		return;
	struct df_queued *e = &s->q[(s->qhead + s->qn++) % DF_QUEUE];
	if (rec->kind < LOG_REC_IMU)
		s->q_old++;
	e->rec = *rec;
	e->slot = slot;
	e->ctun = ctun;
	e->unplaced = rec->kind == LOG_REC_BARO &&
		      (rec->baro.flags & LOG_SAMPLE_PRESSURE_FROM_ALT) &&
		      (rec->baro.flags & LOG_SAMPLE_ALT_HOME) &&
		      !s->ground_decided;
	e->untimed = !s->time_seen;
}

/* The pressure of a CTUN sample at the ground altitude decided. */
static void
place_ctun(const struct df_reader *s, struct baro_sample *b)
{
	b->pressure_pa = to_float(log_pressure_from_alt(s->ground_m +
							 (double)b->alt_m));
	/* Above the model's atmosphere (0 Pa) or absurdly below it. */
	if (isfinite(b->pressure_pa) && b->pressure_pa > 0.0f)
		b->flags |= BARO_SAMPLE_HEALTHY;
}

static struct baro_sample
ctun_sample(const struct df_reader *s, uint64_t time_us, double alt_m)
{
	struct baro_sample b = {
		.time_us = time_us,
		.instance = 0,
		.flags = LOG_SAMPLE_PRESSURE_FROM_ALT | LOG_SAMPLE_ALT_HOME,
		.alt_m = to_float(alt_m),
		/* The ISA ground the pressure was computed for; no
		 * HAS_TEMPERATURE, so nothing reads it as measured. */
		.temperature_c = 15.0f,
	};
	if (s->ground_decided)
		place_ctun(s, &b);
	return b;
}

/* The ground is known (known) or given up for sea level: every waiting
 * CTUN sample gets its pressure. */
static void
decide_ground(struct df_reader *s, bool known, double ground_m,
	      struct log_info *info)
{
	s->ground_decided = true;
	s->ground_m = known ? ground_m : 0.0;
	info->derived_ground_known = known;
	info->derived_ground_m = s->ground_m;
	for (unsigned i = 0; i < s->qn; i++) {
		struct df_queued *e = &s->q[(s->qhead + i) % DF_QUEUE];
		if (!e->unplaced)
			continue;
		place_ctun(s, &e->rec.baro);
		e->unplaced = false;
	}
}

static void
decide(struct df_reader *s, enum df_state to, struct log_info *info,
       const char *ctun_chan)
{
	if (to == DF_FALLBACK) {
		for (unsigned i = 0; i < s->qn; i++) {
			struct df_queued *e = &s->q[(s->qhead + i) % DF_QUEUE];
			if (!e->ctun)
				continue;
			double alt = e->rec.ref.alt_m;
			uint64_t t = e->rec.ref.time_us;
			e->rec.kind = LOG_REC_BARO;
			e->rec.baro = ctun_sample(s, t, alt);
			e->unplaced = !s->ground_decided;
		}
		snprintf(info->baro_stream, sizeof(info->baro_stream), "%s",
			 ctun_chan);
	} else {
		snprintf(info->baro_stream, sizeof(info->baro_stream), "BARO");
	}
	for (unsigned i = 0; i < s->qn; i++)
		s->q[(s->qhead + i) % DF_QUEUE].ctun = false;
	s->state = to;
}

/* Held CTUN records name their channel; find it for the decision. */
static const char *
held_ctun_channel(const struct df_reader *s)
{
	for (unsigned i = 0; i < s->qn; i++) {
		const struct df_queued *e = &s->q[(s->qhead + i) % DF_QUEUE];
		if (e->ctun)
			return s->names[(int)e->slot];
	}
	return "CTUN";
}

static void
pop(struct df_reader *s, struct log_record *rec)
{
	struct df_queued *e = &s->q[s->qhead];
	s->qhead = (s->qhead + 1) % DF_QUEUE;
	s->qn--;
	if (e->rec.kind < LOG_REC_IMU)
		s->q_old--;
	if (s->number_of[(int)e->slot] < 0) {
		s->number_of[(int)e->slot] = (int16_t)s->nnumbers;
		s->slot_of[s->nnumbers++] = e->slot;
	}
	*rec = e->rec;
	rec->channel = (uint16_t)s->number_of[(int)e->slot];
}

/* ------------------------------------------------------------------ */
/* Records */

/*
 * Records without a time column take the time of the last record with
 * one.  Those before any (the first EV of a 2014 log precedes every
 * timed record) are held and get the time of the first timed record,
 * the nearest the log can tell.
 */
static void
set_untimed(struct df_reader *s, uint64_t time)
{
	for (unsigned i = 0; i < s->qn; i++) {
		struct df_queued *e = &s->q[(s->qhead + i) % DF_QUEUE];
		if (!e->untimed)
			continue;
		e->untimed = false;
		switch (e->rec.kind) {
		case LOG_REC_BARO: e->rec.baro.time_us = time; break;
		case LOG_REC_REFERENCE: e->rec.ref.time_us = time; break;
		case LOG_REC_EVENT: e->rec.event.time_us = time; break;
		case LOG_REC_IMU: e->rec.imu.time_us = time; break;
		case LOG_REC_ATTITUDE: e->rec.att.time_us = time; break;
		case LOG_REC_GPS: e->rec.gps.time_us = time; break;
		case LOG_REC_RANGE: e->rec.range.time_us = time; break;
		}
	}
}

static void
emit_ref(struct df_reader *s, struct df_type *t, unsigned sub, uint64_t time,
	 enum log_ref_source src, enum log_ref_datum datum, unsigned inst,
	 double alt)
{
	if (!isfinite(alt))
		return;
	struct log_record r = { .kind = LOG_REC_REFERENCE };
	r.ref = (struct log_reference){ .time_us = time, .source = src,
					.datum = datum,
					.instance = (uint8_t)inst,
					.alt_m = alt };
	push(s, t, sub, &r, false);
}

static void
emit_event(struct df_reader *s, struct df_type *t, uint64_t time,
	   enum log_event_kind kind, double value)
{
	struct log_record r = { .kind = LOG_REC_EVENT };
	r.event = (struct log_event){ .time_us = time, .kind = kind,
				      .value = value };
	push(s, t, 0, &r, false);
}

static void
on_baro(struct df_reader *s, struct df_type *t, const uint8_t *rec,
	uint64_t time, uint64_t offset, struct log_info *info)
{
	long i = slot_int(t, S_BARO_I, rec, 0);
	double press = NAN, temp, alt, amsl;

	if (i < 0 || t->inst_base + i >= BARO_MAX_INSTANCES) {
		note_bad(info, offset);
		return;
	}
	unsigned inst = (unsigned)(t->inst_base + i);
	slot_value(s, t, S_BARO_PRESS, rec, &press);

	struct log_record r = { .kind = LOG_REC_BARO };
	r.baro = (struct baro_sample){ .time_us = time,
				       .instance = (uint8_t)inst,
				       .pressure_pa = to_float(press) };
	if (isfinite(r.baro.pressure_pa) && r.baro.pressure_pa > 0.0f &&
	    slot_int(t, S_BARO_HEALTH, rec, 1) != 0)
		r.baro.flags |= BARO_SAMPLE_HEALTHY;
	if (slot_value(s, t, S_BARO_TEMP, rec, &temp) && isfinite(temp)) {
		r.baro.temperature_c = to_float(temp);
		r.baro.flags |= BARO_SAMPLE_HAS_TEMPERATURE;
	}
	if (slot_value(s, t, S_BARO_AMSL, rec, &amsl) && isfinite(amsl)) {
		r.baro.alt_m = to_float(amsl);
		r.baro.flags |= BARO_SAMPLE_HAS_ALTITUDE;
	} else if (slot_value(s, t, S_BARO_ALT, rec, &alt) && isfinite(alt)) {
		/* AP_Baro logs get_altitude(): above the ground pressure
		 * of its last calibration, i.e. home. */
		r.baro.alt_m = to_float(alt);
		r.baro.flags |= LOG_SAMPLE_ALT_HOME;
	}
	if (s->state == DF_WAIT || s->state == DF_HOLD)
		decide(s, DF_BARO, info, NULL);
	push(s, t, inst, &r, false);
	if (slot_value(s, t, S_BARO_ALT, rec, &alt))
		emit_ref(s, t, 4 + inst, time, LOG_REF_LOG_BARO_ALT,
			 LOG_DATUM_HOME, inst, alt);
}

static void
on_ctun(struct df_reader *s, struct df_type *t, const uint8_t *rec,
	uint64_t time, struct log_info *info)
{
	double alt = field_value(s, t, t->slot[0], rec);

	if (!isfinite(alt))
		return;
	s->last_ctun_alt = alt;
	if (s->state == DF_FALLBACK) {
		struct log_record r = { .kind = LOG_REC_BARO };
		r.baro = ctun_sample(s, time, alt);
		push(s, t, 0, &r, false);
		return;
	}
	bool hold = s->state != DF_BARO;
	if (hold)
		s->state = DF_HOLD;
	struct log_record r = { .kind = LOG_REC_REFERENCE };
	r.ref = (struct log_reference){ .time_us = time,
					.source = LOG_REF_LOG_BARO_ALT,
					.datum = LOG_DATUM_HOME,
					.alt_m = alt };
	push(s, t, 0, &r, hold);
	if (hold && ++s->ctun_held >= DF_FALLBACK_CTUN)
		decide(s, DF_FALLBACK, info, t->chan_base);
}

static bool
is_hex8(const char *p)
{
	for (int i = 0; i < 8; i++)
		if (!((p[i] >= '0' && p[i] <= '9') ||
		      (p[i] >= 'A' && p[i] <= 'F') ||
		      (p[i] >= 'a' && p[i] <= 'f')))
			return false;
	return true;
}

static void
on_msg(struct df_reader *s, struct df_type *t, const uint8_t *rec,
       struct log_info *info)
{
	int f = t->slot[0];
	char text[65];
	size_t n = (size_t)fmt_size(t->format[f]);

	copy_text(text, sizeof(text), rec + t->off[f], n);
	size_t w = strcspn(text, " ");
	if (w == 0 || !text[w])
		return;
	const char *rest = text + w + 1;
	/* "ArduCopter V4.6.2", "APM:Plane V3.1.0", "ArduRover v2.46beta2"
	 * (Rover's 2.x wrote a small v). */
	if (!s->firmware_set && (rest[0] == 'V' || rest[0] == 'v') &&
	    rest[1] >= '0' && rest[1] <= '9') {
		size_t len = strlen(text);
		const char *paren = strstr(text, " (");
		if (paren)
			len = (size_t)(paren - text);
		snprintf(info->firmware, sizeof(info->firmware), "%.*s",
			 (int)len, text);
		s->firmware_set = true;
	} else if (!s->hardware_set && strlen(rest) >= 26 && is_hex8(rest) &&
		   rest[8] == ' ' && is_hex8(rest + 9) && rest[17] == ' ' &&
		   is_hex8(rest + 18)) {
		snprintf(info->hardware, sizeof(info->hardware), "%.*s",
			 (int)w, text);
		s->hardware_set = true;
	}
}

static void
on_fmtu(struct df_reader *s, struct df_type *t, const uint8_t *rec)
{
	long type = slot_int(t, 0, rec, -1);
	int f = t->slot[1];

	if (type < 0 || type > 255)
		return;
	struct df_type *d = &s->types[type];
	size_t n = (size_t)fmt_size(t->format[f]);
	if (n > DF_MAX_FIELDS)
		n = DF_MAX_FIELDS;
	memset(d->mults, 0, sizeof(d->mults));
	for (size_t i = 0; i < n && rec[t->off[f] + i]; i++)
		d->mults[i] = (char)rec[t->off[f] + i];
}

static void
on_mult(struct df_reader *s, struct df_type *t, const uint8_t *rec)
{
	long id = slot_int(t, 0, rec, -1);
	double v = field_raw(t, t->slot[1], rec);

	if (id <= 0x20 || id >= 0x7f)
		return;
	s->mult_val[id] = v;
	s->mult_set[id] = true;
}

static void
flush_gps(struct df_reader *s)
{
	if (!s->gps_pending)
		return;
	s->gps_pending = false;
	push(s, s->gps_type, s->gps_rec.gps.instance, &s->gps_rec, false);
}

static bool
instance_of(const struct df_type *t, int slot, const uint8_t *rec,
	    unsigned *inst)
{
	long i = slot_int(t, slot, rec, 0);

	if (i < 0 || t->inst_base + i >= DF_SUBS)
		return false;
	*inst = (unsigned)(t->inst_base + i);
	return true;
}

/* A value, or NaN when the column is not logged. */
static double
slot_or_nan(const struct df_reader *s, const struct df_type *t, int slot,
	    const uint8_t *rec)
{
	double v;

	return slot_value(s, t, slot, rec, &v) ? v : NAN;
}

/* Every GPS record: the reference as before (3D fixes only), then the
 * sample whatever its fix, held for its GPA. */
static void
on_gps(struct df_reader *s, struct df_type *t, const uint8_t *rec,
       uint64_t time, struct log_info *info)
{
	unsigned n;
	double v;

	if (!instance_of(t, S_GPS_I, rec, &n))
		return;
	long status = slot_int(t, S_GPS_STATUS, rec, 0);
	bool has_alt = slot_value(s, t, S_GPS_ALT, rec, &v) && isfinite(v);
	if (status >= 3 && has_alt) {
		emit_ref(s, t, n, time, LOG_REF_GPS, LOG_DATUM_AMSL, n, v);
		if (!s->ground_decided)
			decide_ground(s, true,
				      v - (isfinite(s->last_ctun_alt)
						   ? s->last_ctun_alt
						   : 0.0),
				      info);
	}
	long sats = slot_int(t, S_GPS_NSATS, rec, 255);
	/* AP_GPS logs velocity().z: NED, down positive. */
	double vz = slot_or_nan(s, t, S_GPS_VZ, rec);
	s->gps_rec = (struct log_record){ .kind = LOG_REC_GPS };
	s->gps_rec.gps = (struct log_gps){
		.time_us = time,
		.instance = (uint8_t)n,
		.fix_type = (uint8_t)(status < 0 || status > 255 ? 0 : status),
		.nsats = (uint8_t)(sats < 0 || sats > 255 ? 255 : sats),
		.alt_amsl_m = has_alt ? v : NAN,
		.vel_up_m_s = -vz,
		.vacc_m = NAN,
		.vel_acc_m_s = NAN,
	};
	s->gps_type = t;
	s->gps_pending = true;
}

static void
on_gpa(struct df_reader *s, struct df_type *t, const uint8_t *rec)
{
	unsigned n;

	if (!s->gps_pending || !instance_of(t, S_GPA_I, rec, &n) ||
	    n != s->gps_rec.gps.instance)
		return;
	s->gps_rec.gps.vacc_m = slot_or_nan(s, t, S_GPA_VACC, rec);
	s->gps_rec.gps.vel_acc_m_s = slot_or_nan(s, t, S_GPA_SACC, rec);
	flush_gps(s);
}

static void
on_imu(struct df_reader *s, struct df_type *t, const uint8_t *rec,
       uint64_t time)
{
	unsigned n;

	if (!instance_of(t, S_IMU_I, rec, &n))
		return;
	/* ACC's TimeUS is when the batch was written, SampleUS when the
	 * sample was taken (on the same clock, so a joined boot's offset
	 * applies). */
	double sample = slot_or_nan(s, t, S_IMU_SAMPLE, rec);
	if (sample > 0 && sample < 0x1p53)
		time = (uint64_t)sample + s->offset_us;
	struct log_record r = { .kind = LOG_REC_IMU };
	r.imu = (struct log_imu){
		.time_us = time,
		.instance = (uint8_t)n,
		.accel = { slot_or_nan(s, t, S_IMU_X, rec),
			   slot_or_nan(s, t, S_IMU_Y, rec),
			   slot_or_nan(s, t, S_IMU_Z, rec) },
	};
	push(s, t, n, &r, false);
}

/* ATT is in degrees (centidegrees with 'c' formats before 4.0, which
 * the format character already scaled); yaw 0..360 becomes
 * -pi..pi like MAVLink's ATTITUDE. */
static void
on_att(struct df_reader *s, struct df_type *t, const uint8_t *rec,
       uint64_t time)
{
	const double rad = M_PI / 180.0;
	double yaw = slot_or_nan(s, t, S_ATT_YAW, rec) * rad;

	if (yaw > M_PI)
		yaw -= 2.0 * M_PI;
	struct log_record r = { .kind = LOG_REC_ATTITUDE };
	r.att = (struct log_attitude){
		.time_us = time,
		.roll_rad = slot_or_nan(s, t, S_ATT_ROLL, rec) * rad,
		.pitch_rad = slot_or_nan(s, t, S_ATT_PITCH, rec) * rad,
		.yaw_rad = yaw,
	};
	push(s, t, 0, &r, false);
}

/* The reference as before (facing down and Good), then the sample of
 * every downward reading; quality 0 when the status is not Good. */
static void
on_rfnd(struct df_reader *s, struct df_type *t, const uint8_t *rec,
	uint64_t time)
{
	long n = slot_int(t, S_RFND_I, rec, 0);
	double v;

	if (n < 0 || n >= DF_SUBS || slot_int(t, S_RFND_ORIENT, rec, 25) != 25 ||
	    !slot_value(s, t, S_RFND_DIST, rec, &v))
		return;
	bool good = slot_int(t, S_RFND_STAT, rec, 4) == 4;
	if (good)
		emit_ref(s, t, (unsigned)n, time, LOG_REF_RANGEFINDER,
			 LOG_DATUM_GROUND, (unsigned)n, v);
	long q = good ? slot_int(t, S_RFND_QUALITY, rec, -1) : 0;
	struct log_record r = { .kind = LOG_REC_RANGE };
	r.range = (struct log_range){
		.time_us = time,
		.instance = (uint8_t)n,
		.distance_m = v,
		.min_m = NAN,
		.max_m = NAN,
		.quality = (int8_t)(q < -1 || q > 100 ? -1 : q),
	};
	push(s, t, (unsigned)n, &r, false);
}

static void
on_record(struct df_reader *s, struct df_type *t, const uint8_t *rec,
	  uint64_t offset, struct log_info *info)
{
	uint64_t time;
	double v;
	long n;

	t->count++;
	s->data_seen = true;
	if (t->role != ROLE_GPA)
		flush_gps(s);
	if (t->time_field >= 0) {
		uint64_t raw = record_time(t, rec);
		if (s->boot_pending) {
			/* The new boot follows on after the old one. */
			uint64_t base = s->max_us + DF_BOOT_GAP_US;
			s->offset_us = raw >= base ? 0 : base - raw;
			s->boot_pending = false;
			emit_event(s, t, raw + s->offset_us, LOG_EVENT_REBOOT,
				   (double)s->offset_us * 1e-3);
		}
		s->now_us = raw + s->offset_us;
		if (s->now_us > s->max_us)
			s->max_us = s->now_us;
		log_info_span(info, s->now_us);
		if (!s->time_seen)
			set_untimed(s, s->now_us);
		s->time_seen = true;
	}
	time = s->now_us;

	switch ((enum df_role)t->role) {
	case ROLE_BARO:
		on_baro(s, t, rec, time, offset, info);
		break;
	case ROLE_CTUN:
		on_ctun(s, t, rec, time, info);
		break;
	case ROLE_GPS:
		on_gps(s, t, rec, time, info);
		break;
	case ROLE_GPA:
		on_gpa(s, t, rec);
		break;
	case ROLE_IMU:
		on_imu(s, t, rec, time);
		break;
	case ROLE_ATT:
		on_att(s, t, rec, time);
		break;
	case ROLE_EKF:
		if (slot_int(t, S_EKF_CORE, rec, 0) == 0 &&
		    slot_value(s, t, S_EKF_PD, rec, &v))
			emit_ref(s, t, 0, time, LOG_REF_EKF, LOG_DATUM_HOME, 0,
				 -v);
		break;
	case ROLE_RFND:
		on_rfnd(s, t, rec, time);
		break;
	case ROLE_SIM:
		if (slot_value(s, t, S_SIM_ALT, rec, &v))
			emit_ref(s, t, 0, time, LOG_REF_TRUTH, LOG_DATUM_AMSL,
				 0, v);
		break;
	case ROLE_EV:
		n = slot_int(t, 0, rec, -1);
		switch (n) {
		case 10: emit_event(s, t, time, LOG_EVENT_ARMED, 10); break;
		case 11: emit_event(s, t, time, LOG_EVENT_DISARMED, 11); break;
		case 28: emit_event(s, t, time, LOG_EVENT_TAKEOFF, 28); break;
		case 18: emit_event(s, t, time, LOG_EVENT_LANDED, 18); break;
		case 60:
			emit_event(s, t, time, LOG_EVENT_EKF_ALT_RESET, 60);
			break;
		default: break;
		}
		break;
	case ROLE_ERR:
		if (slot_int(t, 0, rec, -1) == 18) {
			n = slot_int(t, 1, rec, 0);
			emit_event(s, t, time,
				   n ? LOG_EVENT_BARO_UNHEALTHY
				     : LOG_EVENT_BARO_HEALTHY, (double)n);
		}
		break;
	case ROLE_MSG:
		on_msg(s, t, rec, info);
		break;
	case ROLE_FMTU:
		on_fmtu(s, t, rec);
		break;
	case ROLE_MULT:
		on_mult(s, t, rec);
		break;
	case ROLE_FMT:
	case ROLE_NONE:
		break;
	}
}

static void
skip_bytes(struct log_input *in, struct log_info *info, size_t n)
{
	if (info->bytes_skipped == 0 && info->records_bad == 0)
		info->first_bad_offset = log_input_offset(in);
	info->bytes_skipped += n;
	log_input_consume(in, n);
}

static int
set_error(struct df_reader *s, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->pending_err, sizeof(s->pending_err), fmt, ap);
	va_end(ap);
	s->pending_rc = rc;
	return rc;
}

/* Read one record or skip junk.  1: progress, 0: end of file, < 0: the
 * error is in s->pending_*. */
static int
step(struct df_reader *s, struct log_input *in, struct log_info *info)
{
	const uint8_t *p;
	uint64_t offset = log_input_offset(in);
	long got = log_input_peek(in, DF_PEEK, &p);

	if (got < 0)
		return set_error(s, (int)got, "offset %" PRIu64 ": read failed: %s",
				 offset, strerror((int)-got));
	if (got == 0)
		return 0;
	if (got < 3 && p[0] == DF_H1 && (got < 2 || p[1] == DF_H2))
		return set_error(s, -ENODATA,
				 "offset %" PRIu64 ": record header cut off at end of file (%ld of 3 bytes)",
				 offset, got);
	if (got < 3 || p[0] != DF_H1 || p[1] != DF_H2 ||
	    !s->types[p[2]].length) {
		/* Resync: the next byte that may start a header. */
		const uint8_t *h = memchr(p + 1, DF_H1, (size_t)got - 1);
		skip_bytes(in, info, h ? (size_t)(h - p) : (size_t)got);
		return 1;
	}
	struct df_type *t = &s->types[p[2]];
	if (got < t->length)
		return set_error(s, -ENODATA,
				 "offset %" PRIu64 ": %s record cut off at end of file (%ld of %u bytes)",
				 offset, t->name, got, t->length);
	if (p[2] == DF_FMT_TYPE) {
		t->count++;
		/* Every log starts with the FMT of FMT: after data it is
		 * another log joined on (cat a.bin b.bin). */
		if (p[3] == DF_FMT_TYPE && s->data_seen) {
			s->boot_pending = true;
			s->data_seen = false;
		}
		define_type(s, p, offset, info);
	} else {
		on_record(s, t, p, offset, info);
	}
	log_input_consume(in, t->length);
	return 1;
}

/* ------------------------------------------------------------------ */
/* Format operations */

static bool
sniff(const uint8_t *head, size_t len)
{
	return len >= 3 && head[0] == DF_H1 && head[1] == DF_H2 &&
	       head[2] == DF_FMT_TYPE;
}

static int
open_(void **priv, struct log_input *in, struct log_info *info, char *err,
      size_t errlen)
{
	(void)in;
	(void)info;
	struct df_reader *s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->last_ctun_alt = NAN;
	for (int i = 0; i < 256; i++) {
		s->types[i].time_field = -1;
		for (int k = 0; k < DF_SUBS; k++)
			s->types[i].chan_slot[k] = -1;
	}
	struct df_type *fmt = &s->types[DF_FMT_TYPE];
	fmt->length = DF_FMT_LEN;
	fmt->role = ROLE_FMT;
	memcpy(fmt->name, "FMT", 4);
	memcpy(fmt->format, "BBnNZ", 6);
	fmt->nfields = 5;
	for (int i = 0; i < DF_SLOTS; i++)
		fmt->slot[i] = -1;
	*priv = s;
	return 0;
}

static int
next(void *priv, struct log_input *in, struct log_record *rec,
     struct log_info *info, char *err, size_t errlen)
{
	struct df_reader *s = priv;

	for (;;) {
		bool held = s->state == DF_HOLD ||
			    (s->qn > 0 && (s->q[s->qhead].untimed ||
					   s->q[s->qhead].unplaced));
		if (held && (s->pending_rc || s->at_end ||
			     s->q_old + 2 > DF_HOLD_LIMIT ||
			     s->qn + 4 > DF_QUEUE)) {
			/* No baro record in all that: CTUN is the baro. */
			if (s->state == DF_HOLD)
				decide(s, DF_FALLBACK, info,
				       held_ctun_channel(s));
			/* No GPS fix in all that: sea level, said so. */
			else if (s->q[s->qhead].unplaced)
				decide_ground(s, false, 0.0, info);
			set_untimed(s, s->now_us);
			continue;
		}
		if (s->qn > 0 && !held) {
			pop(s, rec);
			return 1;
		}
		if (s->pending_rc) {
			snprintf(err, errlen, "%s", s->pending_err);
			return s->pending_rc;
		}
		if (s->at_end)
			return 0;
		int rc = step(s, in, info);
		if (rc <= 0)
			flush_gps(s);
		if (rc == 0)
			s->at_end = true;
	}
}

static void
list_types(void *priv, log_type_cb cb, void *ud)
{
	struct df_reader *s = priv;

	for (int i = 0; i < 256; i++)
		if (s->types[i].length)
			cb(s->types[i].name, s->types[i].count, ud);
}

static const char *
channel_name(void *priv, unsigned channel)
{
	struct df_reader *s = priv;

	if (channel >= s->nnumbers)
		return NULL;
	return s->names[(int)s->slot_of[channel]];
}

static void
close_(void *priv)
{
	free(priv);
}

const struct log_format_ops log_format_dataflash = {
	.name = "dataflash", .sniff = sniff, .open = open_, .next = next,
	.list_types = list_types, .channel_name = channel_name,
	.close = close_,
};
