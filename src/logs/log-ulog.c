// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * PX4 ULog (.ulg) reader.
 *
 * Formats ('F') are parsed into compact item lists: runs of bytes we do
 * not read, nested types by format index, and only the fields this reader
 * needs (per known topic), so offsets are fixed once every nested type is
 * known.  Nested types may be defined after their user, so layouts are
 * resolved lazily at the first data message and cached until another 'F'
 * arrives.
 *
 * Units and choices the files do not state:
 * - sensor_baro.pressure was hPa in PX4 v1.11 and is Pa in v1.15.  The
 *   log says neither, so the first positive pressure of the file decides
 *   for all its sensor_baro samples: <= 1200 can only be hPa (1200 Pa is
 *   about 30 km up), more can only be Pa (no sea-level pressure reaches
 *   1200 hPa).  One decision per file keeps a glitching sample from
 *   flipping the unit of the others.
 * - Times are timestamp_sample when the topic has it and it is non-zero
 *   (the v1.15 GPS topic logs it as 0), else timestamp.
 * - vehicle_air_data samples get instance = multi_id (the voted sensor is
 *   named by device id only); sensor_baro instance = multi_id.  Instances
 *   beyond BARO_MAX_INSTANCES are counted in list_types, not returned.
 * - In a SITL log (ver_hw contains "SITL") samples are flagged SIMULATED,
 *   and a temperature of exactly 0 is PX4 SITL's placeholder, not a
 *   reading, so it gets no HAS_TEMPERATURE (the record is noted
 *   LOG_NOTE_TEMP_PLACEHOLDER, so export still writes the 0 recorded).
 * - vehicle_air_data is timed by timestamp_sample (when the sensor was
 *   read), as pyulog's field of that name, not by timestamp (when the
 *   topic was published, a few ms later).
 * - GPS altitudes only with fix_type >= 3; vehicle_local_position only
 *   when z_valid (where logged); distance_sensor only facing down
 *   (orientation 25, where logged).
 * - Sensor records: sensor_combined's accelerometer_m_s2 (specific
 *   force, FRD body frame) as LOG_REC_IMU at timestamp +
 *   accelerometer_timestamp_relative, and vehicle_acceleration's xyz
 *   (bias corrected, gravity included, FRD: msg/VehicleAcceleration.msg,
 *   so the same quantity) on a channel of its own;
 *   vehicle_attitude's q as Euler 3-2-1 (LOG_REC_ATTITUDE); every
 *   vehicle_gps_position message as LOG_REC_GPS after the reference it
 *   may be (alt mm or altitude_msl_m, -vel_d_m_s when vel_ned_valid,
 *   epv, s_variance_m_s, satellites_used, fix_type; NaN/255 where the
 *   version lacks a field); distance_sensor facing down as
 *   LOG_REC_RANGE after its reference (min/max_distance,
 *   signal_quality).  Each on its topic's channel.
 * - Arming comes from actuator_armed and vehicle_status (arming_state 2)
 *   through one state, take-off/landing from vehicle_land_detected.landed;
 *   an event is a change of state, the first value only sets it.
 *   Dropouts ('O') are stamped nearly as pyulog stamps them: the largest
 *   non-zero 'timestamp' of the data messages before them, but only of
 *   topics read here (the samples' clock); another topic's counts only
 *   before any of those (mission's is from the session that stored it).
 *
 * Damage (ULog has no checksums, so only framing can be checked): a
 * header with an unknown type or a size too small for it, data for an
 * unknown msg_id or of a size its format cannot have, a non-data message
 * whose contents do not fit its type, or one whose size is proven wrong
 * by genuine messages starting inside it, counts one bad record and
 * starts a resync: reading resumes at the next sync magic or at the first
 * place where three messages in a row look genuine (older logs, like the
 * v1.9 one, have no sync messages).  The bytes passed over are counted in
 * bytes_skipped.  Appended data (incompat bit 0) resumes at its offset; a
 * partial message before it is skipped and counted the same way.  A
 * definition that cannot be parsed, and data whose format cannot be laid
 * out (an undefined nested type, a cycle), count one bad record each and
 * keep the framing.
 *
 * Errors: a message cut by the end of the file is -ENODATA ("offset N" =
 * where it starts; everything before it has been returned); -EBADMSG a
 * broken file header or flag message, -ENOTSUP a newer version or an
 * unknown incompat flag, -E2BIG an exceeded table cap (1024 formats,
 * 16384 fields in all, 1024 topic instances: some 400 KB at most; PX4
 * logs use about 100 formats).
 */
#include "log-reader.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util-endian.h"

#define ULOG_HEADER_LEN 16
#define ULOG_FLAGS_MIN 40	/* compat[8], incompat[8], appended[3] */
#define ULOG_MAX_FORMATS 1024
#define ULOG_MAX_ITEMS 16384
#define ULOG_MAX_TOPICS 1024
#define ULOG_NAME_MAX 64	/* format names, including the NUL */
#define ULOG_MAX_DEPTH 16	/* nesting of formats */
#define ULOG_MAX_APPENDED 3
#define ULOG_CHAIN 3		/* genuine-looking messages to resync on */
#define ULOG_CHAN_NAME 96
#define ULOG_MSG_IDS 65536

/* PX4's distance_sensor ROTATION_DOWNWARD_FACING. */
#define ORIENTATION_DOWN 25
/* vehicle_status.arming_state ARMING_STATE_ARMED in every PX4 version. */
#define ARMING_STATE_ARMED 2
/* sensor_combined's marker for "no new baro data in this record". */
#define RELATIVE_TIMESTAMP_INVALID INT32_MAX

static const uint8_t ulog_magic[7] = { 'U', 'L', 'o', 'g', 0x01, 0x12, 0x35 };
static const uint8_t sync_magic[8] = { 0x2f, 0x73, 0x13, 0x20,
				       0x25, 0x0c, 0xbb, 0x12 };

enum ftype {
	FT_INT8, FT_UINT8, FT_INT16, FT_UINT16, FT_INT32, FT_UINT32,
	FT_INT64, FT_UINT64, FT_FLOAT, FT_DOUBLE, FT_BOOL, FT_CHAR,
	FT_PRIM_COUNT,
	FT_RUN = FT_PRIM_COUNT,	/* bytes not read */
	FT_NESTED,
};

static const struct {
	const char *name;
	uint8_t size;
} prims[FT_PRIM_COUNT] = {
	[FT_INT8] = { "int8_t", 1 },	[FT_UINT8] = { "uint8_t", 1 },
	[FT_INT16] = { "int16_t", 2 },	[FT_UINT16] = { "uint16_t", 2 },
	[FT_INT32] = { "int32_t", 4 },	[FT_UINT32] = { "uint32_t", 4 },
	[FT_INT64] = { "int64_t", 8 },	[FT_UINT64] = { "uint64_t", 8 },
	[FT_FLOAT] = { "float", 4 },	[FT_DOUBLE] = { "double", 8 },
	[FT_BOOL] = { "bool", 1 },	[FT_CHAR] = { "char", 1 },
};

/* Fields read from known topics: two time slots, then up to
 * TOPIC_FIELDS per topic (an array element is a field: "q[0]"). */
#define TOPIC_FIELDS 8
enum slot { S_TS, S_TSS, S_A, S_B, S_C, S_D, S_E, S_F, S_G, S_H,
	    SLOT_COUNT };

enum topic_kind {
	TK_AIR = 1, TK_SBARO, TK_SCOMB, TK_GPS, TK_LPOS, TK_DIST, TK_LAND,
	TK_ARMED, TK_STATUS, TK_GT_GLOBAL, TK_GT_LOCAL, TK_ATT, TK_VACC,
};

static const struct topic_def {
	const char *name;
	enum topic_kind kind;
	/* Name channels "topic[k]" even for instance 0: a physical sensor
	 * per instance, like DataFlash's BARO[0]. */
	bool indexed;
	const char *fields[TOPIC_FIELDS];	/* S_A, S_B, ... */
} topic_defs[] = {
	{ "vehicle_air_data", TK_AIR, false,
	  { "baro_pressure_pa", "baro_temp_celcius", "baro_alt_meter" } },
	{ "sensor_baro", TK_SBARO, true, { "pressure", "temperature", NULL } },
	/* The baro inside sensor_combined (PX4 up to about 1.7), and the
	 * accelerometer, timed by timestamp +
	 * accelerometer_timestamp_relative (timestamp is the gyro's). */
	{ "sensor_combined", TK_SCOMB, false,
	  { "baro_alt_meter", "baro_temp_celcius",
	    "baro_timestamp_relative", "accelerometer_m_s2[0]",
	    "accelerometer_m_s2[1]", "accelerometer_m_s2[2]",
	    "accelerometer_timestamp_relative" } },
	{ "vehicle_gps_position", TK_GPS, false,
	  { "alt", "altitude_msl_m", "fix_type", "satellites_used",
	    "vel_d_m_s", "vel_ned_valid", "epv", "s_variance_m_s" } },
	{ "vehicle_local_position", TK_LPOS, false, { "z", "z_valid", NULL } },
	{ "distance_sensor", TK_DIST, false,
	  { "current_distance", "orientation", "min_distance",
	    "max_distance", "signal_quality" } },
	{ "vehicle_attitude", TK_ATT, false,
	  { "q[0]", "q[1]", "q[2]", "q[3]" } },
	{ "vehicle_acceleration", TK_VACC, false,
	  { "xyz[0]", "xyz[1]", "xyz[2]" } },
	{ "vehicle_land_detected", TK_LAND, false, { "landed", NULL, NULL } },
	{ "actuator_armed", TK_ARMED, false, { "armed", NULL, NULL } },
	{ "vehicle_status", TK_STATUS, false, { "arming_state", NULL, NULL } },
	{ "vehicle_global_position_groundtruth", TK_GT_GLOBAL, false,
	  { "alt", NULL, NULL } },
	{ "vehicle_local_position_groundtruth", TK_GT_LOCAL, false,
	  { "z", NULL, NULL } },
};
#define N_TOPIC_DEFS (sizeof(topic_defs) / sizeof(topic_defs[0]))

struct loc {
	uint16_t off;
	uint8_t type;
	uint8_t present;
};

enum fmt_state { FMT_UNDEF, FMT_DEFINED, FMT_RESOLVING, FMT_OK, FMT_BAD };

struct fmt {
	char name[ULOG_NAME_MAX];
	uint32_t first_item, n_items;
	uint32_t size;		/* valid in FMT_OK */
	uint32_t trailing_pad;	/* bytes D messages may leave out */
	uint8_t state;
	uint8_t def;		/* topic_defs index + 1, 0 for none */
	bool ts_first;		/* starts with uint64_t timestamp */
	struct loc loc[SLOT_COUNT];	/* valid in FMT_OK */
};

struct item {
	uint32_t count;		/* elements; bytes for FT_RUN */
	uint16_t nested;	/* format index for FT_NESTED */
	uint8_t type;		/* enum ftype */
	uint8_t slot;		/* wanted slot + 1, 0 for none */
};

struct topic {
	uint64_t count;		/* data messages read */
	uint64_t last_baro_us;	/* sensor_combined: last baro time returned */
	uint16_t fmt;
	uint8_t multi_id;
	uint8_t chan[2];	/* channel + 1: main stream, baro altitude */
};

enum { BARO_PRIO_NONE, BARO_PRIO_SCOMB, BARO_PRIO_SBARO, BARO_PRIO_AIR };

struct ulog {
	/* Tables grow on demand up to their caps, so a small file costs
	 * little and no file more than the caps. */
	struct fmt *fmts;
	unsigned n_fmts, cap_fmts;
	struct item *items;
	unsigned n_items, cap_items;
	unsigned items_from;	/* first item of the format being parsed */
	struct topic *topics;
	unsigned n_topics, cap_topics;
	uint16_t *sub;		/* msg_id -> topic index + 1; at the first 'A' */
	char chans[LOG_MAX_CHANNELS][ULOG_CHAN_NAME];
	unsigned n_chans;
	uint8_t drop_chan;	/* channel + 1 */
	uint64_t append[ULOG_MAX_APPENDED];
	unsigned n_append, i_append;
	/* The largest data timestamp of a topic the reader reads (on the
	 * samples' clock), and of any topic: dropouts are stamped by the
	 * first, by the second only before the first is known. */
	uint64_t last_us;
	uint64_t last_any_us;
	int8_t landed, armed;	/* -1 unknown */
	int8_t sbaro_hpa;	/* -1 undecided */
	bool sitl;
	bool fw_from_release;
	int baro_prio;
	struct log_record pend[2];
	unsigned n_pend, i_pend;
};

static int
err_at(char *err, size_t errlen, int rc, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, errlen, "offset %" PRIu64 ": ", off);

	if (n < 0 || (size_t)n >= errlen)
		n = 0;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return rc;
}

static void
note_bad(struct log_info *info, uint64_t off)
{
	if (info->records_bad == 0 && info->bytes_skipped == 0)
		info->first_bad_offset = off;
	info->records_bad++;
}

static void
note_skipped(struct log_info *info, uint64_t off, uint64_t n)
{
	if (n == 0)
		return;
	if (info->records_bad == 0 && info->bytes_skipped == 0)
		info->first_bad_offset = off;
	info->bytes_skipped += n;
}

static bool
is_ident(const uint8_t *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		uint8_t c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_'))
			return false;
	}
	return true;
}

static bool
token_is(const uint8_t *s, size_t n, const char *word)
{
	return strlen(word) == n && memcmp(s, word, n) == 0;
}

/* Text from the log, cut at a NUL, unprintable bytes replaced. */
static void
copy_text(char *dst, size_t cap, const char *prefix, const uint8_t *s,
	  size_t n)
{
	size_t k = (size_t)snprintf(dst, cap, "%s", prefix);

	for (size_t i = 0; i < n && s[i] != '\0' && k + 1 < cap; i++)
		dst[k++] = (s[i] >= 0x20 && s[i] < 0x7f) ? (char)s[i] : '?';
	dst[k] = '\0';
}

/* Room for element n in *arr of *cap elements, growing up to max:
 * 0, -E2BIG at the cap, -ENOMEM. */
static int
grow(void **arr, unsigned *cap, unsigned n, unsigned max, size_t elem)
{
	if (n < *cap)
		return 0;
	if (n >= max)
		return -E2BIG;
	unsigned want = *cap ? *cap * 2 : 16;
	if (want > max)
		want = max;
	void *p = realloc(*arr, (size_t)want * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = want;
	return 0;
}

static unsigned
topic_of(const struct ulog *u, uint16_t msg_id)
{
	return u->sub ? u->sub[msg_id] : 0;
}

/* ---- formats ---- */

static int
fmt_find(const struct ulog *u, const uint8_t *name, size_t n)
{
	for (unsigned i = 0; i < u->n_fmts; i++)
		if (strlen(u->fmts[i].name) == n &&
		    memcmp(u->fmts[i].name, name, n) == 0)
			return (int)i;
	return -1;
}

/* Index of the format named name, adding an undefined one (a nested type
 * used before its definition).  -E2BIG at the cap, -ENOMEM. */
static int
fmt_get(struct ulog *u, const uint8_t *name, size_t n)
{
	int i = fmt_find(u, name, n);

	if (i >= 0)
		return i;
	int rc = grow((void **)&u->fmts, &u->cap_fmts, u->n_fmts,
		      ULOG_MAX_FORMATS, sizeof(*u->fmts));
	if (rc < 0)
		return rc;
	struct fmt *f = &u->fmts[u->n_fmts];
	*f = (struct fmt){ .state = FMT_UNDEF };
	memcpy(f->name, name, n);
	f->name[n] = '\0';
	for (unsigned d = 0; d < N_TOPIC_DEFS; d++)
		if (strcmp(topic_defs[d].name, f->name) == 0)
			f->def = (uint8_t)(d + 1);
	return (int)u->n_fmts++;
}

static int
add_item(struct ulog *u, struct item it)
{
	/* Adjacent unread bytes of one format merge into one run. */
	if (it.type == FT_RUN && u->n_items > u->items_from) {
		struct item *last = &u->items[u->n_items - 1];
		if (last->type == FT_RUN && last->count <= UINT32_MAX - it.count) {
			last->count += it.count;
			return 0;
		}
	}
	int rc = grow((void **)&u->items, &u->cap_items, u->n_items,
		      ULOG_MAX_ITEMS, sizeof(*u->items));
	if (rc < 0)
		return rc;
	u->items[u->n_items++] = it;
	return 0;
}

static int
wanted_slot(const struct fmt *f, const uint8_t *name, size_t n)
{
	if (token_is(name, n, "timestamp"))
		return S_TS;
	if (token_is(name, n, "timestamp_sample"))
		return S_TSS;
	if (!f->def)
		return -1;
	const struct topic_def *d = &topic_defs[f->def - 1];
	for (int k = 0; k < TOPIC_FIELDS; k++)
		if (d->fields[k] && token_is(name, n, d->fields[k]))
			return S_A + k;
	return -1;
}

/* Elements beyond this are never wanted ("q[3]" is the last). */
#define WANTED_ELEMENTS 4

/* An array of a known topic, element by element: a wanted one is a
 * field of its own, the rest unread bytes. */
static int
add_elements(struct ulog *u, unsigned fi, enum ftype type,
	     const uint8_t *name, size_t nlen, uint32_t count)
{
	for (uint32_t i = 0; i < count; i++) {
		char el[ULOG_NAME_MAX + 16];
		int slot = -1;
		if (i < WANTED_ELEMENTS && nlen < ULOG_NAME_MAX) {
			int n = snprintf(el, sizeof(el), "%.*s[%u]", (int)nlen,
					 (const char *)name, i);
			slot = wanted_slot(&u->fmts[fi], (const uint8_t *)el,
					   (size_t)n);
		}
		/* "timestamp[0]" is no time field. */
		int rc = slot < S_A
			? add_item(u, (struct item){ .type = FT_RUN,
						     .count = prims[type].size })
			: add_item(u, (struct item){ .type = (uint8_t)type,
						     .count = 1,
						     .slot = (uint8_t)(slot + 1) });
		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * One field "type name" or "type[n] name" of format f into items.
 * Returns 0, 1 for a malformed field, -E2BIG at a cap.
 */
static int
parse_field(struct ulog *u, unsigned fi, const uint8_t *s, size_t n,
	    uint32_t *pad, bool *ts_first, bool first)
{
	const uint8_t *sp = memchr(s, ' ', n);
	if (!sp)
		return 1;
	size_t tlen = (size_t)(sp - s);
	const uint8_t *name = sp + 1;
	size_t nlen = n - tlen - 1;
	if (!is_ident(name, nlen))
		return 1;

	uint32_t count = 1;
	bool array = false;
	const uint8_t *br = memchr(s, '[', tlen);
	if (br) {
		size_t blen = (size_t)(br - s);
		if (s[tlen - 1] != ']' || tlen - blen < 3)
			return 1;
		count = 0;
		for (const uint8_t *c = br + 1; c < s + tlen - 1; c++) {
			if (*c < '0' || *c > '9' || count > 65535)
				return 1;
			count = count * 10 + (uint32_t)(*c - '0');
		}
		if (count == 0 || count > 65535)
			return 1;
		tlen = blen;
		array = true;
	}
	if (!is_ident(s, tlen))
		return 1;

	int type = -1;
	for (int t = 0; t < FT_PRIM_COUNT; t++)
		if (token_is(s, tlen, prims[t].name))
			type = t;
	if (first)
		*ts_first = type == FT_UINT64 && !array &&
			    token_is(name, nlen, "timestamp");
	if (type < 0) {
		if (tlen >= ULOG_NAME_MAX)
			return 1;
		int ni = fmt_get(u, s, tlen);
		if (ni < 0)
			return ni;
		*pad = 0;
		return add_item(u, (struct item){ .type = FT_NESTED,
						  .nested = (uint16_t)ni,
						  .count = count });
	}
	uint32_t bytes = prims[type].size * count;
	if (nlen > 8 && memcmp(name, "_padding", 8) == 0) {
		*pad += bytes;
		return add_item(u, (struct item){ .type = FT_RUN,
						  .count = bytes });
	}
	*pad = 0;
	if (array && type != FT_CHAR && u->fmts[fi].def)
		return add_elements(u, fi, (enum ftype)type, name, nlen, count);
	int slot = array || type == FT_CHAR ? -1
		 : wanted_slot(&u->fmts[fi], name, nlen);
	if (slot < 0)
		return add_item(u, (struct item){ .type = FT_RUN,
						  .count = bytes });
	return add_item(u, (struct item){ .type = (uint8_t)type, .count = 1,
					  .slot = (uint8_t)(slot + 1) });
}

/* Any new definition may change the layout of every format using it. */
static void
invalidate_layouts(struct ulog *u)
{
	for (unsigned i = 0; i < u->n_fmts; i++)
		if (u->fmts[i].state == FMT_OK || u->fmts[i].state == FMT_BAD)
			u->fmts[i].state = FMT_DEFINED;
}

/*
 * 'F' "name:type field;type field;...".  Returns 0, 1 for a malformed
 * definition (ignored, counted bad), negative at a cap with err set.
 */
static int
parse_format(struct ulog *u, const uint8_t *s, size_t n, uint64_t off,
	     char *err, size_t errlen)
{
	const uint8_t *colon = memchr(s, ':', n);
	if (!colon)
		return 1;
	size_t nlen = (size_t)(colon - s);
	if (!is_ident(s, nlen) || nlen >= ULOG_NAME_MAX)
		return 1;
	int fi = fmt_get(u, s, nlen);
	if (fi < 0)
		return err_at(err, errlen, fi, off, fi == -E2BIG
			      ? "more than %d formats (types)"
			      : "out of memory (%d formats)", ULOG_MAX_FORMATS);

	unsigned mark = u->n_items;
	u->items_from = mark;
	uint32_t pad = 0;
	bool ts_first = false, first = true;
	const uint8_t *p = colon + 1, *end = s + n;
	/* A NUL ends the text (some writers pad with it). */
	const uint8_t *nul = memchr(p, '\0', (size_t)(end - p));
	if (nul)
		end = nul;
	while (p < end) {
		const uint8_t *semi = memchr(p, ';', (size_t)(end - p));
		size_t flen = semi ? (size_t)(semi - p) : (size_t)(end - p);
		if (flen > 0) {
			int rc = parse_field(u, (unsigned)fi, p, flen, &pad,
					     &ts_first, first);
			first = false;
			if (rc != 0) {
				u->n_items = mark;
				if (rc == -ENOMEM)
					return err_at(err, errlen, rc, off,
						      "out of memory");
				if (rc < 0)
					return err_at(err, errlen, rc, off,
						      "format '%s': more than %d fields in all formats",
						      u->fmts[fi].name,
						      ULOG_MAX_ITEMS);
				return 1;
			}
		}
		p += flen + (semi ? 1 : 0);
	}
	if (first) {
		u->n_items = mark;
		return 1;
	}
	struct fmt *f = &u->fmts[fi];
	f->first_item = mark;
	f->n_items = u->n_items - mark;
	f->trailing_pad = pad;
	f->ts_first = ts_first;
	invalidate_layouts(u);
	f->state = FMT_DEFINED;
	return 0;
}

/* Size and wanted-field offsets of format fi; false if it cannot be laid
 * out (undefined nested type, a cycle, too deep, larger than a message). */
static bool
resolve(struct ulog *u, unsigned fi, unsigned depth)
{
	struct fmt *f = &u->fmts[fi];

	if (f->state == FMT_OK)
		return true;
	if (f->state != FMT_DEFINED || depth > ULOG_MAX_DEPTH)
		return false;
	f->state = FMT_RESOLVING;
	uint64_t off = 0;
	struct loc loc[SLOT_COUNT] = { 0 };
	for (uint32_t i = 0; i < f->n_items; i++) {
		const struct item *it = &u->items[f->first_item + i];
		uint64_t bytes;
		if (it->type == FT_RUN) {
			bytes = it->count;
		} else if (it->type == FT_NESTED) {
			if (!resolve(u, it->nested, depth + 1)) {
				f->state = FMT_BAD;
				return false;
			}
			bytes = (uint64_t)u->fmts[it->nested].size * it->count;
		} else {
			bytes = prims[it->type].size;
			loc[it->slot - 1] = (struct loc){
				.off = (uint16_t)off, .type = it->type,
				.present = 1 };
		}
		off += bytes;
		/* A D message holds at most 65533 payload bytes. */
		if (off > 65533) {
			f->state = FMT_BAD;
			return false;
		}
	}
	f->size = (uint32_t)off;
	memcpy(f->loc, loc, sizeof(loc));
	f->state = FMT_OK;
	return true;
}

/* ---- field access ---- */

static bool
get_f64(const struct fmt *f, unsigned slot, const uint8_t *pl, size_t len,
	double *v)
{
	const struct loc *l = &f->loc[slot];

	if (!l->present || (size_t)l->off + prims[l->type].size > len)
		return false;
	const uint8_t *q = pl + l->off;
	switch (l->type) {
	case FT_INT8: *v = (int8_t)q[0]; break;
	case FT_UINT8: case FT_BOOL: case FT_CHAR: *v = q[0]; break;
	case FT_INT16: *v = (int16_t)le_get16(q); break;
	case FT_UINT16: *v = le_get16(q); break;
	case FT_INT32: *v = (int32_t)le_get32(q); break;
	case FT_UINT32: *v = le_get32(q); break;
	case FT_INT64: *v = (double)(int64_t)le_get64(q); break;
	case FT_UINT64: *v = (double)le_get64(q); break;
	case FT_FLOAT: {
		uint32_t b = le_get32(q);
		float x;
		memcpy(&x, &b, sizeof(x));
		*v = x;
		break;
	}
	case FT_DOUBLE: {
		uint64_t b = le_get64(q);
		memcpy(v, &b, sizeof(*v));
		break;
	}
	default:
		return false;
	}
	return true;
}

static bool
get_u64(const struct fmt *f, unsigned slot, const uint8_t *pl, size_t len,
	uint64_t *v)
{
	const struct loc *l = &f->loc[slot];

	if (!l->present || (size_t)l->off + prims[l->type].size > len)
		return false;
	const uint8_t *q = pl + l->off;
	switch (l->type) {
	case FT_UINT64: *v = le_get64(q); return true;
	case FT_INT64: {
		int64_t x = (int64_t)le_get64(q);
		if (x < 0)
			return false;
		*v = (uint64_t)x;
		return true;
	}
	case FT_UINT32: *v = le_get32(q); return true;
	default:
		return false;
	}
}

static bool
is_integer(const struct fmt *f, unsigned slot)
{
	return f->loc[slot].type != FT_FLOAT && f->loc[slot].type != FT_DOUBLE;
}

/* timestamp_sample when logged and set, else timestamp. */
static bool
sample_time(const struct fmt *f, const uint8_t *pl, size_t len, uint64_t *t)
{
	if (get_u64(f, S_TSS, pl, len, t) && *t != 0)
		return true;
	return get_u64(f, S_TS, pl, len, t);
}

/* ---- channels and records ---- */

static void
topic_name(const struct ulog *u, const struct topic *t, char *buf,
	   size_t len)
{
	const struct fmt *f = &u->fmts[t->fmt];
	bool indexed = f->def && topic_defs[f->def - 1].indexed;

	if (indexed || t->multi_id > 0)
		snprintf(buf, len, "%s[%u]", f->name, t->multi_id);
	else
		snprintf(buf, len, "%s", f->name);
}

/* Channel of topic ti's stream `which` (0 main, 1 baro altitude); -1
 * once LOG_MAX_CHANNELS are taken. */
static int
channel(struct ulog *u, unsigned ti, unsigned which)
{
	struct topic *t = &u->topics[ti];

	if (t->chan[which])
		return t->chan[which] - 1;
	if (u->n_chans == LOG_MAX_CHANNELS)
		return -1;
	char name[ULOG_NAME_MAX + 8];
	topic_name(u, t, name, sizeof(name));
	snprintf(u->chans[u->n_chans], ULOG_CHAN_NAME, "%s%s", name,
		 which ? ".baro_alt_meter" : "");
	t->chan[which] = (uint8_t)(u->n_chans + 1);
	return (int)u->n_chans++;
}

static struct log_record *
push(struct ulog *u, int chan, enum log_record_kind kind)
{
	if (chan < 0 || u->n_pend == 2)
		return NULL;
	struct log_record *r = &u->pend[u->n_pend++];
	*r = (struct log_record){ .kind = kind, .channel = (uint16_t)chan };
	return r;
}

static void
push_ref(struct ulog *u, unsigned ti, unsigned which, uint64_t t,
	 enum log_ref_source src, enum log_ref_datum datum, double alt)
{
	struct log_record *r = push(u, channel(u, ti, which),
				    LOG_REC_REFERENCE);
	if (r)
		r->ref = (struct log_reference){
			.time_us = t, .source = src, .datum = datum,
			.instance = u->topics[ti].multi_id, .alt_m = alt };
}

static void
push_event(struct ulog *u, int chan, uint64_t t, enum log_event_kind kind,
	   double value)
{
	struct log_record *r = push(u, chan, LOG_REC_EVENT);
	if (r)
		r->event = (struct log_event){ .time_us = t, .kind = kind,
					       .value = value };
}

static void
push_baro(struct ulog *u, unsigned ti, struct baro_sample *s, bool has_temp,
	  int prio, struct log_info *info)
{
	static const char *const streams[] = {
		[BARO_PRIO_SCOMB] = "sensor_combined",
		[BARO_PRIO_SBARO] = "sensor_baro",
		[BARO_PRIO_AIR] = "vehicle_air_data",
	};
	uint8_t inst = u->topics[ti].multi_id;

	if (inst >= BARO_MAX_INSTANCES)
		return;
	s->instance = inst;
	s->flags |= BARO_SAMPLE_HEALTHY;
	if (u->sitl)
		s->flags |= BARO_SAMPLE_SIMULATED;
	bool placeholder = has_temp && u->sitl && s->temperature_c == 0.0f;
	if (has_temp && !placeholder)
		s->flags |= BARO_SAMPLE_HAS_TEMPERATURE;
	else
		s->temperature_c = 0.0f;
	struct log_record *r = push(u, channel(u, ti, 0), LOG_REC_BARO);
	if (!r)
		return;
	r->baro = *s;
	if (placeholder)
		r->notes |= LOG_NOTE_TEMP_PLACEHOLDER;
	if (prio > u->baro_prio) {
		u->baro_prio = prio;
		snprintf(info->baro_stream, sizeof(info->baro_stream), "%s",
			 streams[prio]);
	}
}

static void
set_state(struct ulog *u, int8_t *state, bool now, unsigned ti, uint64_t t,
	  enum log_event_kind on, enum log_event_kind off)
{
	int8_t v = now ? 1 : 0;

	if (*state >= 0 && *state != v)
		push_event(u, channel(u, ti, 0), t, now ? on : off, 0.0);
	*state = v;
}

/* sensor_combined's baro (PX4 up to about 1.7): only records that
 * carry a new reading. */
static void
scomb_baro(struct ulog *u, unsigned ti, const struct fmt *f,
	   const uint8_t *pl, size_t len, uint64_t t, struct log_info *info)
{
	double a, b, c;

	if (get_f64(f, S_A, pl, len, &a)) {
		if (get_f64(f, S_C, pl, len, &c)) {
			/* Only records that carry a new baro reading. */
			int64_t rel = (int64_t)c;
			if (c == RELATIVE_TIMESTAMP_INVALID ||
			    (rel < 0 && t < (uint64_t)-rel)) {
				if (!info->baro_note[0])
					snprintf(info->baro_note,
						 sizeof(info->baro_note),
						 "sensor_combined has "
						 "baro_alt_meter%s but "
						 "no valid "
						 "baro_timestamp_relative",
						 f->loc[S_B].present
							 ? " and "
							   "baro_temp_celcius"
							 : "");
				return;
			}
			t = rel < 0 ? t - (uint64_t)-rel
				    : t + (uint64_t)rel;
			if (t == u->topics[ti].last_baro_us)
				return;
			u->topics[ti].last_baro_us = t;
		}
		struct baro_sample s = {
			.time_us = t,
			.pressure_pa = (float)log_pressure_from_alt(a),
			.alt_m = (float)a,
			.flags = BARO_SAMPLE_HAS_ALTITUDE |
				 LOG_SAMPLE_PRESSURE_FROM_ALT,
		};
		bool has_temp = get_f64(f, S_B, pl, len, &b);
		s.temperature_c = has_temp ? (float)b : 0.0f;
		push_baro(u, ti, &s, has_temp, BARO_PRIO_SCOMB, info);
	}
}

/* An accelerometer sample of topic ti (its multi_id the instance). */
static void
push_imu(struct ulog *u, unsigned ti, uint64_t t, const double a[3])
{
	struct log_record *r = push(u, channel(u, ti, 0), LOG_REC_IMU);
	if (r)
		r->imu = (struct log_imu){
			.time_us = t, .instance = u->topics[ti].multi_id,
			.accel = { a[0], a[1], a[2] } };
}

/* sensor_combined's accelerometer: specific force, FRD body frame
 * (PX4 msg/SensorCombined.msg), at timestamp +
 * accelerometer_timestamp_relative. */
static void
scomb_imu(struct ulog *u, unsigned ti, const struct fmt *f,
	  const uint8_t *pl, size_t len)
{
	uint64_t t;
	double acc[3], rel;

	if (!get_u64(f, S_TS, pl, len, &t) ||
	    !get_f64(f, S_D, pl, len, &acc[0]) ||
	    !get_f64(f, S_E, pl, len, &acc[1]) ||
	    !get_f64(f, S_F, pl, len, &acc[2]))
		return;
	if (get_f64(f, S_G, pl, len, &rel)) {
		int64_t r = (int64_t)rel;
		if (rel == RELATIVE_TIMESTAMP_INVALID ||
		    (r < 0 && t < (uint64_t)-r))
			return;
		t = r < 0 ? t - (uint64_t)-r : t + (uint64_t)r;
	}
	push_imu(u, ti, t, acc);
}

/* vehicle_acceleration: "bias corrected acceleration (including
 * gravity) in the FRD body frame" (PX4 msg/VehicleAcceleration.msg):
 * specific force already, as sensor_combined's. */
static void
vacc_record(struct ulog *u, unsigned ti, const struct fmt *f,
	    const uint8_t *pl, size_t len, uint64_t t)
{
	double a[3];

	for (unsigned i = 0; i < 3; i++)
		if (!get_f64(f, S_A + i, pl, len, &a[i]))
			return;
	push_imu(u, ti, t, a);
}

/* A field's value, or NaN when the topic's version lacks it. */
static double
f64_or_nan(const struct fmt *f, unsigned slot, const uint8_t *pl,
	   size_t len)
{
	double v;

	return get_f64(f, slot, pl, len, &v) ? v : NAN;
}

/* The GPS topic: the reference as before (3D fixes), then a sample of
 * every fix.  alt is int32 mm before PX4 1.14, altitude_msl_m a double
 * after; vel_d_m_s is down, valid with vel_ned_valid. */
static void
gps_records(struct ulog *u, unsigned ti, const struct fmt *f,
	    const uint8_t *pl, size_t len, uint64_t t)
{
	double alt = NAN, fix = NAN, v;
	bool has_alt = true;

	if (get_f64(f, S_B, pl, len, &v))
		alt = v;
	else if (get_f64(f, S_A, pl, len, &v))
		alt = is_integer(f, S_A) ? v / 1000.0 : v;
	else
		has_alt = false;
	bool has_fix = get_f64(f, S_C, pl, len, &fix);
	if (!(has_fix && fix < 3) && has_alt)
		push_ref(u, ti, 0, t, LOG_REF_GPS, LOG_DATUM_AMSL, alt);
	double sats = f64_or_nan(f, S_D, pl, len);
	double vel_ok = f64_or_nan(f, S_F, pl, len);
	double vd = vel_ok == 0 ? NAN : f64_or_nan(f, S_E, pl, len);
	struct log_record *r = push(u, channel(u, ti, 0), LOG_REC_GPS);
	if (!r)
		return;
	r->gps = (struct log_gps){
		.time_us = t,
		.instance = u->topics[ti].multi_id,
		.fix_type = has_fix && fix >= 0 && fix <= 255 ? (uint8_t)fix : 0,
		.nsats = sats >= 0 && sats <= 255 ? (uint8_t)sats : 255,
		.alt_amsl_m = alt,
		.vel_up_m_s = -vd,
		.vacc_m = f64_or_nan(f, S_G, pl, len),
		.vel_acc_m_s = f64_or_nan(f, S_H, pl, len),
	};
}

/* distance_sensor facing down (or not saying): the reference as
 * before, then the sample with its limits and signal_quality (-1
 * unknown, 0 invalid .. 100). */
static void
dist_records(struct ulog *u, unsigned ti, const struct fmt *f,
	     const uint8_t *pl, size_t len, uint64_t t)
{
	double d, o, q;

	if ((get_f64(f, S_B, pl, len, &o) && o != ORIENTATION_DOWN) ||
	    !get_f64(f, S_A, pl, len, &d))
		return;
	push_ref(u, ti, 0, t, LOG_REF_RANGEFINDER, LOG_DATUM_GROUND, d);
	struct log_record *r = push(u, channel(u, ti, 0), LOG_REC_RANGE);
	if (!r)
		return;
	bool has_q = get_f64(f, S_E, pl, len, &q) && q >= -1 && q <= 100;
	r->range = (struct log_range){
		.time_us = t,
		.instance = u->topics[ti].multi_id,
		.distance_m = d,
		.min_m = f64_or_nan(f, S_C, pl, len),
		.max_m = f64_or_nan(f, S_D, pl, len),
		.quality = has_q ? (int8_t)q : -1,
	};
}

/*
 * vehicle_attitude's q (w, x, y, z: body to NED) as Euler 3-2-1, the
 * way PX4's matrix::Euler takes them from the rotation matrix, in
 * double from the logged floats.
 */
static void
att_record(struct ulog *u, unsigned ti, const struct fmt *f,
	   const uint8_t *pl, size_t len, uint64_t t)
{
	double q[4];

	for (unsigned i = 0; i < 4; i++)
		if (!get_f64(f, S_A + i, pl, len, &q[i]))
			return;
	double a = q[0], b = q[1], c = q[2], d = q[3];
	double r00 = a * a + b * b - c * c - d * d;
	double r10 = 2.0 * (b * c + a * d);
	double r20 = 2.0 * (b * d - a * c);
	double r21 = 2.0 * (c * d + a * b);
	double r22 = a * a - b * b - c * c + d * d;
	/* A q a little off unit length must not leave asin's domain. */
	double s = -r20 > 1.0 ? 1.0 : -r20 < -1.0 ? -1.0 : -r20;
	struct log_record *r = push(u, channel(u, ti, 0), LOG_REC_ATTITUDE);
	if (r)
		r->att = (struct log_attitude){
			.time_us = t,
			.roll_rad = atan2(r21, r22),
			.pitch_rad = asin(s),
			.yaw_rad = atan2(r10, r00),
		};
}

/* The records one data message of a known topic gives. */
static void
decode(struct ulog *u, unsigned ti, const struct fmt *f, const uint8_t *pl,
       size_t len, struct log_info *info)
{
	uint64_t t;
	double a, b, c;

	if (!sample_time(f, pl, len, &t))
		return;
	switch (topic_defs[f->def - 1].kind) {
	case TK_AIR: {
		bool has_alt = get_f64(f, S_C, pl, len, &c);
		if (get_f64(f, S_A, pl, len, &a)) {
			struct baro_sample s = { .time_us = t,
						 .pressure_pa = (float)a };
			bool has_temp = get_f64(f, S_B, pl, len, &b);
			s.temperature_c = has_temp ? (float)b : 0.0f;
			if (has_alt) {
				s.alt_m = (float)c;
				s.flags |= BARO_SAMPLE_HAS_ALTITUDE;
			}
			push_baro(u, ti, &s, has_temp, BARO_PRIO_AIR, info);
		}
		if (has_alt)
			push_ref(u, ti, 1, t, LOG_REF_LOG_BARO_ALT,
				 LOG_DATUM_AMSL, c);
		break;
	}
	case TK_SBARO:
		if (get_f64(f, S_A, pl, len, &a)) {
			if (u->sbaro_hpa < 0 && isfinite(a) && a > 0.0)
				u->sbaro_hpa = a <= 1200.0;
			if (u->sbaro_hpa == 1)
				a *= 100.0;
			struct baro_sample s = { .time_us = t,
						 .pressure_pa = (float)a };
			bool has_temp = get_f64(f, S_B, pl, len, &b);
			s.temperature_c = has_temp ? (float)b : 0.0f;
			push_baro(u, ti, &s, has_temp, BARO_PRIO_SBARO, info);
		}
		break;
	case TK_SCOMB:
		scomb_baro(u, ti, f, pl, len, t, info);
		scomb_imu(u, ti, f, pl, len);
		break;
	case TK_GPS:
		gps_records(u, ti, f, pl, len, t);
		break;
	case TK_ATT:
		att_record(u, ti, f, pl, len, t);
		break;
	case TK_VACC:
		vacc_record(u, ti, f, pl, len, t);
		break;
	case TK_LPOS:
		if (get_f64(f, S_B, pl, len, &b) && b == 0)
			break;
		if (get_f64(f, S_A, pl, len, &a))
			push_ref(u, ti, 0, t, LOG_REF_EKF, LOG_DATUM_HOME, -a);
		break;
	case TK_DIST:
		dist_records(u, ti, f, pl, len, t);
		break;
	case TK_LAND:
		if (get_f64(f, S_A, pl, len, &a))
			set_state(u, &u->landed, a != 0, ti, t,
				  LOG_EVENT_LANDED, LOG_EVENT_TAKEOFF);
		break;
	case TK_ARMED:
		if (get_f64(f, S_A, pl, len, &a))
			set_state(u, &u->armed, a != 0, ti, t,
				  LOG_EVENT_ARMED, LOG_EVENT_DISARMED);
		break;
	case TK_STATUS:
		if (get_f64(f, S_A, pl, len, &a))
			set_state(u, &u->armed, a == ARMING_STATE_ARMED, ti, t,
				  LOG_EVENT_ARMED, LOG_EVENT_DISARMED);
		break;
	case TK_GT_GLOBAL:
		if (get_f64(f, S_A, pl, len, &a))
			push_ref(u, ti, 0, t, LOG_REF_TRUTH, LOG_DATUM_AMSL, a);
		break;
	case TK_GT_LOCAL:
		if (get_f64(f, S_A, pl, len, &a))
			push_ref(u, ti, 0, t, LOG_REF_TRUTH, LOG_DATUM_HOME, -a);
		break;
	}
}

/* ---- message checks ---- */

/* Smallest payload of each message type; 0 for a type not allowed after
 * the flag bits. */
static unsigned
min_size(uint8_t type)
{
	switch (type) {
	case 'F': return 2;
	case 'I': case 'P': return 1;
	case 'M': case 'Q': return 2;
	case 'A': return 4;
	case 'R': case 'D': case 'O': return 2;
	case 'L': return 9;
	case 'C': return 11;
	case 'S': return 8;
	default: return 0;
	}
}

static bool
header_ok(uint8_t type, size_t size)
{
	unsigned m = min_size(type);
	return m > 0 && size >= m;
}

enum dcheck { D_OK, D_UNBOUND, D_BADSIZE, D_UNRESOLVED };

/* Does a data message of `size` bytes fit the format of msg_id? */
static enum dcheck
check_data(struct ulog *u, uint16_t msg_id, size_t size)
{
	unsigned ti = topic_of(u, msg_id);

	if (ti == 0)
		return D_UNBOUND;
	struct topic *t = &u->topics[ti - 1];
	if (!resolve(u, t->fmt, 0))
		return D_UNRESOLVED;
	const struct fmt *f = &u->fmts[t->fmt];
	size_t len = size - 2;
	if (len > f->size || len + f->trailing_pad < f->size)
		return D_BADSIZE;
	return D_OK;
}

/* "type name" as info and parameter keys have it: a field type
 * (optionally an array) and a name of printable characters. */
static bool
key_ok(const uint8_t *key, size_t klen)
{
	const uint8_t *sp = memchr(key, ' ', klen);
	if (!sp || sp + 1 == key + klen)
		return false;
	size_t tlen = (size_t)(sp - key);
	const uint8_t *br = memchr(key, '[', tlen);
	if (br) {
		if (key[tlen - 1] != ']' || (size_t)(br - key) + 2 >= tlen)
			return false;
		for (const uint8_t *c = br + 1; c < key + tlen - 1; c++)
			if (*c < '0' || *c > '9')
				return false;
		tlen = (size_t)(br - key);
	}
	bool known = false;
	for (int t = 0; t < FT_PRIM_COUNT; t++)
		known |= token_is(key, tlen, prims[t].name);
	for (const uint8_t *c = sp + 1; c < key + klen; c++)
		if (*c <= ' ' || *c >= 0x7f)
			return false;
	return known;
}

/* Log text: no control characters but tab, line ends and escape (PX4
 * colours its messages). */
static bool
text_ok(const uint8_t *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 && s[i] != '\t' && s[i] != '\n' &&
		    s[i] != '\r' && s[i] != 0x1b)
			return false;
	return true;
}

/* Text checked per message while resyncing: enough to tell, and no
 * more, as the scan tries every byte position. */
#define ULOG_PEEK_TEXT 64

/*
 * Is the payload q of a non-data message what its type says?  Used on
 * every such message (their sizes are not known in advance), all of its
 * text, and on every message of a resync chain, only the first
 * ULOG_PEEK_TEXT bytes of text there.
 */
static bool
content_ok(const struct ulog *u, uint8_t type, const uint8_t *q, size_t size,
	   bool whole)
{
	size_t lim = whole || size < ULOG_PEEK_TEXT ? size : ULOG_PEEK_TEXT;

	switch (type) {
	case 'S':
		return memcmp(q, sync_magic, sizeof(sync_magic)) == 0;
	case 'O':
		return size == 2;
	case 'R':
		return size == 2 && topic_of(u, le_get16(q)) != 0;
	case 'L':
		return q[0] >= '0' && q[0] <= '7' && text_ok(q + 9, lim - 9);
	case 'C':
		return q[0] >= '0' && q[0] <= '7' && text_ok(q + 11, lim - 11);
	case 'A':
		return size - 3 < ULOG_NAME_MAX && is_ident(q + 3, size - 3);
	case 'F': {
		size_t head = size < ULOG_NAME_MAX ? size : ULOG_NAME_MAX;
		const uint8_t *colon = memchr(q, ':', head);
		return colon && is_ident(q, (size_t)(colon - q)) &&
		       text_ok(q, lim);
	}
	case 'I': case 'P':
		return 1u + q[0] <= size && key_ok(q + 1, q[0]);
	case 'M': case 'Q':
		return 2u + q[1] <= size && key_ok(q + 2, q[1]);
	default:
		return false;
	}
}

/*
 * Length of the message at p if it looks genuine enough to resync on, 0
 * if not, -1 if more bytes are needed to tell.  added: a msg_id an 'A'
 * earlier in the chain binds, or -1.
 */
static long
plausible(struct ulog *u, const uint8_t *p, size_t n, bool at_end,
	  long added)
{
	if (n < 3)
		return at_end ? 0 : -1;
	size_t size = le_get16(p);
	uint8_t type = p[2];
	if (!header_ok(type, size))
		return 0;
	if (n < 3 + size)
		return at_end ? 0 : -1;
	const uint8_t *q = p + 3;
	bool ok;
	if (type == 'D')
		ok = le_get16(q) == added ||
		     check_data(u, le_get16(q), size) == D_OK;
	else
		ok = content_ok(u, type, q, size, false);
	return ok ? (long)(3 + size) : 0;
}

enum cand { C_REJECT, C_ACCEPT, C_MORE };

/* Can reading resume at p?  *skip is set to the bytes to drop first (the
 * sync magic when found without its header). */
static enum cand
candidate(struct ulog *u, const uint8_t *p, size_t n, bool at_end,
	  size_t *skip)
{
	*skip = 0;
	if (n >= sizeof(sync_magic)) {
		if (memcmp(p, sync_magic, sizeof(sync_magic)) == 0) {
			*skip = sizeof(sync_magic);
			return C_ACCEPT;
		}
	} else if (!at_end && memcmp(p, sync_magic, n) == 0) {
		return C_MORE;
	}
	size_t pos = 0;
	long added = -1;
	for (int k = 0; k < ULOG_CHAIN; k++) {
		if (pos == n && at_end)
			return k > 0 ? C_ACCEPT : C_REJECT;
		long len = plausible(u, p + pos, n - pos, at_end, added);
		if (len < 0)
			return C_MORE;
		if (len == 0)
			return C_REJECT;
		if (k == 0 && p[2] == 'S')
			return C_ACCEPT;
		if (p[pos + 2] == 'A')
			added = le_get16(p + pos + 4);
		pos += (size_t)len;
	}
	return C_ACCEPT;
}

/* Does reading resume at some p[i], from <= i < to, of the n bytes seen? */
static bool
resumes_within(struct ulog *u, const uint8_t *p, size_t from, size_t to,
	       size_t n, bool at_end)
{
	for (size_t i = from; i < to; i++) {
		size_t skip;
		if (candidate(u, p + i, n - i, at_end, &skip) == C_ACCEPT)
			return true;
	}
	return false;
}

/* Stop before the next appended-data boundary, if any. */
static uint64_t
boundary(const struct ulog *u)
{
	return u->i_append < u->n_append ? u->append[u->i_append] : UINT64_MAX;
}

/*
 * The message at the input is damaged: count it and skip to where
 * messages look genuine again (or the end, or an appended-data boundary).
 * Returns 1, or a negative errno from reading.
 */
static int
resync(struct ulog *u, struct log_input *in, struct log_info *info,
       char *err, size_t errlen)
{
	uint64_t start = log_input_offset(in);

	note_bad(info, start);
	log_input_consume(in, 1);
	info->bytes_skipped++;
	for (;;) {
		const uint8_t *p;
		long got = log_input_peek(in, LOG_INPUT_WINDOW, &p);
		if (got < 0)
			return err_at(err, errlen, (int)got,
				      log_input_offset(in), "read failed: %s",
				      strerror((int)-got));
		bool at_end = (size_t)got < LOG_INPUT_WINDOW;
		size_t n = (size_t)got;
		uint64_t left = boundary(u) - log_input_offset(in);
		if (left < n) {
			n = (size_t)left;
			at_end = true;
		}
		if (n == 0)
			return 1;
		size_t i = 0, skip = 0;
		enum cand c = C_REJECT;
		for (; i < n; i++) {
			c = candidate(u, p + i, n - i, at_end, &skip);
			if (c == C_ACCEPT || (c == C_MORE && i > 0))
				break;
		}
		if (i == n)
			skip = 0;
		log_input_consume(in, i + skip);
		info->bytes_skipped += i + skip;
		if (c == C_ACCEPT && i < n)
			return 1;
	}
}

/* ---- messages ---- */

static void
on_info(struct ulog *u, const uint8_t *q, size_t size, struct log_info *info,
	uint64_t off)
{
	size_t klen = q[0];
	if (1 + klen > size) {
		note_bad(info, off);
		return;
	}
	const uint8_t *key = q + 1, *val = key + klen;
	size_t vlen = size - 1 - klen;
	const uint8_t *sp = memchr(key, ' ', klen);
	if (!sp)
		return;
	size_t tlen = (size_t)(sp - key);
	const uint8_t *name = sp + 1;
	size_t nlen = klen - tlen - 1;
	bool text = tlen > 5 && memcmp(key, "char[", 5) == 0;

	if (token_is(name, nlen, "ver_sw_release") &&
	    token_is(key, tlen, "uint32_t") && vlen >= 4) {
		uint32_t v = le_get32(val);
		unsigned tt = v & 0xff;
		const char *tag = tt == 255 ? "" : tt >= 192 ? " rc"
				: tt >= 128 ? " beta" : tt >= 64 ? " alpha"
				: " dev";
		if (v >> 8 == 0)
			return;
		snprintf(info->firmware, sizeof(info->firmware),
			 "PX4 v%u.%u.%u%s", v >> 24, (v >> 16) & 0xff,
			 (v >> 8) & 0xff, tag);
		u->fw_from_release = true;
	} else if (token_is(name, nlen, "ver_sw") && text) {
		if (!u->fw_from_release)
			copy_text(info->firmware, sizeof(info->firmware),
				  "PX4 ", val, vlen);
	} else if (token_is(name, nlen, "ver_hw") && text) {
		copy_text(info->hardware, sizeof(info->hardware), "", val,
			  vlen);
		u->sitl = strstr(info->hardware, "SITL") != NULL;
	}
}

static int
on_add(struct ulog *u, const uint8_t *q, size_t size, struct log_info *info,
       uint64_t off, char *err, size_t errlen)
{
	uint8_t multi_id = q[0];
	uint16_t msg_id = le_get16(q + 1);
	const uint8_t *name = q + 3;
	size_t nlen = size - 3;

	if (nlen >= ULOG_NAME_MAX || !is_ident(name, nlen)) {
		note_bad(info, off);
		return 0;
	}
	int fi = fmt_get(u, name, nlen);
	if (fi < 0)
		return err_at(err, errlen, fi, off, fi == -E2BIG
			      ? "more than %d formats (types)"
			      : "out of memory (%d formats)", ULOG_MAX_FORMATS);
	if (!u->sub && !(u->sub = calloc(ULOG_MSG_IDS, sizeof(*u->sub))))
		return err_at(err, errlen, -ENOMEM, off, "out of memory");
	unsigned ti;
	for (ti = 0; ti < u->n_topics; ti++)
		if (u->topics[ti].fmt == fi &&
		    u->topics[ti].multi_id == multi_id)
			break;
	if (ti == u->n_topics) {
		int rc = grow((void **)&u->topics, &u->cap_topics,
			      u->n_topics, ULOG_MAX_TOPICS, sizeof(*u->topics));
		if (rc < 0)
			return err_at(err, errlen, rc, off, rc == -E2BIG
				      ? "more than %d logged topics"
				      : "out of memory (%d topics)",
				      ULOG_MAX_TOPICS);
		u->topics[u->n_topics++] = (struct topic){
			.fmt = (uint16_t)fi, .multi_id = multi_id };
	}
	u->sub[msg_id] = (uint16_t)(ti + 1);
	return 0;
}

static void
on_data(struct ulog *u, const uint8_t *q, size_t size, struct log_info *info,
	uint64_t off)
{
	unsigned ti = topic_of(u, le_get16(q)) - 1;
	struct topic *t = &u->topics[ti];
	const struct fmt *f = &u->fmts[t->fmt];
	const uint8_t *pl = q + 2;
	size_t len = size - 2;

	t->count++;
	if (f->state != FMT_OK) {
		/* Layout unknown (undefined nested type, a cycle, or too
		 * large): the message is framed but unreadable. */
		note_bad(info, off);
		return;
	}
	/* As pyulog stamps dropouts: the largest non-zero timestamp so
	 * far (a topic logging 0 does not reset it), but only of topics
	 * read for samples, references and events: a mission's timestamp
	 * is from the session that stored it (1194 s in a bundled log
	 * spanning 20..27 s). */
	if (f->ts_first && len >= 8) {
		uint64_t ts = le_get64(pl);
		uint64_t *last = f->def ? &u->last_us : &u->last_any_us;
		if (ts != 0 && ts > *last)
			*last = ts;
	}
	if (f->def)
		decode(u, ti, f, pl, len, info);
}

/* The header at p + need, after a message of `type` at p. */
static bool
next_header_ok(const struct ulog *u, const uint8_t *p, size_t need,
	       size_t got, uint8_t type)
{
	const uint8_t *nx = p + need;
	if (!header_ok(nx[2], le_get16(nx)))
		return false;
	if (nx[2] != 'D' || got < need + 5)
		return true;
	uint16_t id = le_get16(nx + 3);
	/* An 'A' binds the id the data after it uses. */
	return topic_of(u, id) != 0 ||
	       (type == 'A' && le_get16(p + 4) == id);
}

/*
 * One message (or one resync).  Returns 1 to go on, 0 at the end, or a
 * negative errno with err set.
 */
static int
step(struct ulog *u, struct log_input *in, struct log_info *info, char *err,
     size_t errlen)
{
	uint64_t off = log_input_offset(in);
	const uint8_t *p;
	long got;

	while (u->i_append < u->n_append && off >= u->append[u->i_append])
		u->i_append++;
	got = log_input_peek(in, 3, &p);
	if (got < 0)
		return err_at(err, errlen, (int)got, off, "read failed: %s",
			      strerror((int)-got));
	if (got == 0 && boundary(u) != UINT64_MAX)
		return err_at(err, errlen, -ENODATA, off,
			      "file ends before the appended data at offset %" PRIu64,
			      boundary(u));
	if (got == 0)
		return 0;
	if (got < 3)
		return err_at(err, errlen, -ENODATA, off,
			      "truncated message header (%ld of 3 bytes)", got);
	size_t size = le_get16(p);
	uint8_t type = p[2];
	size_t need = 3 + size;

	if (off + need > boundary(u)) {
		/* The logger appended data here; what precedes it may end
		 * in a partial message. */
		uint64_t gap = boundary(u) - off;
		int rc = log_input_skip(in, gap);
		if (rc < 0)
			return err_at(err, errlen, rc, off,
				      "file ends before the appended data at offset %" PRIu64,
				      boundary(u));
		note_skipped(info, off, gap);
		return 1;
	}
	if (!header_ok(type, size))
		return resync(u, in, info, err, errlen);

	/* Non-data messages are checked by the header after them too: their
	 * size has nothing else to be checked against. */
	size_t want = type == 'D' ? need : need + 5;
	if (want > LOG_INPUT_WINDOW)
		want = LOG_INPUT_WINDOW;
	got = log_input_peek(in, want, &p);
	if (got < 0)
		return err_at(err, errlen, (int)got, off, "read failed: %s",
			      strerror((int)-got));
	if (type == 'D' && got >= 5) {
		enum dcheck dc = check_data(u, le_get16(p + 3), size);
		if (dc == D_UNBOUND || dc == D_BADSIZE)
			return resync(u, in, info, err, errlen);
	}
	if ((size_t)got < need) {
		/* Only a data message's size is known to be right; another
		 * one reaching past the end is a cut file unless genuine
		 * messages follow inside what it claims. */
		if (type != 'D' && resumes_within(u, p, 3, (size_t)got, (size_t)got,
						    true))
			return resync(u, in, info, err, errlen);
		return err_at(err, errlen, -ENODATA, off,
			      "truncated '%c' message: %zu of %zu bytes before the end",
			      type, (size_t)got, need);
	}
	if (type != 'D') {
		if (!content_ok(u, type, p + 3, size, true))
			return resync(u, in, info, err, errlen);
		/* A header after it that makes no sense means this size
		 * is wrong if genuine messages start inside what it claims;
		 * if none do, the damage comes after it, for the next step. */
		if ((size_t)got >= need + 3 && off + need < boundary(u) &&
		    !next_header_ok(u, p, need, (size_t)got, type) &&
		    resumes_within(u, p, 3, need, (size_t)got, false))
			return resync(u, in, info, err, errlen);
	}

	const uint8_t *q = p + 3;
	switch (type) {
	case 'D':
		on_data(u, q, size, info, off);
		break;
	case 'F': {
		int rc = parse_format(u, q, size, off, err, errlen);
		if (rc < 0)
			return rc;
		if (rc > 0)
			note_bad(info, off);
		break;
	}
	case 'A': {
		int rc = on_add(u, q, size, info, off, err, errlen);
		if (rc < 0)
			return rc;
		break;
	}
	case 'R':
		if (u->sub)
			u->sub[le_get16(q)] = 0;
		break;
	case 'I':
		on_info(u, q, size, info, off);
		break;
	case 'O': {
		if (!u->drop_chan && u->n_chans < LOG_MAX_CHANNELS) {
			snprintf(u->chans[u->n_chans], ULOG_CHAN_NAME,
				 "dropout");
			u->drop_chan = (uint8_t)(++u->n_chans);
		}
		push_event(u, (int)u->drop_chan - 1,
			   u->last_us ? u->last_us : u->last_any_us,
			   LOG_EVENT_DROPOUT, le_get16(q));
		break;
	}
	default:	/* S, M, P, Q, L, C: nothing a baro replay needs */
		break;
	}
	log_input_consume(in, need);
	return 1;
}

/* ---- format ops ---- */

static bool
sniff(const uint8_t *head, size_t len)
{
	return len >= sizeof(ulog_magic) &&
	       memcmp(head, ulog_magic, sizeof(ulog_magic)) == 0;
}

static void
close_(void *priv)
{
	struct ulog *u = priv;

	if (!u)
		return;
	free(u->fmts);
	free(u->items);
	free(u->topics);
	free(u->sub);
	free(u);
}

/* The optional flag bits message right after the header. */
static int
read_flags(struct ulog *u, struct log_input *in, char *err, size_t errlen)
{
	uint64_t off = log_input_offset(in);
	const uint8_t *p;
	long got = log_input_peek(in, 3, &p);

	if (got < 3 || p[2] != 'B')
		return 0;
	size_t size = le_get16(p);
	if (size < ULOG_FLAGS_MIN)
		return err_at(err, errlen, -EBADMSG, off,
			      "flag bits message of %zu bytes, expected at least %d",
			      size, ULOG_FLAGS_MIN);
	got = log_input_peek(in, 3 + size, &p);
	if (got < 0)
		return err_at(err, errlen, (int)got, off, "read failed: %s",
			      strerror((int)-got));
	if ((size_t)got < 3 + size)
		return err_at(err, errlen, -ENODATA, off,
			      "truncated flag bits message: %ld of %zu bytes",
			      got, 3 + size);
	const uint8_t *incompat = p + 3 + 8;
	for (unsigned i = 0; i < 8; i++) {
		/* Bit 0 of byte 0 (appended data) is the only one known. */
		uint8_t unknown = incompat[i] & (i == 0 ? 0xfe : 0xff);
		if (unknown) {
			unsigned bit = 0;
			while (!(unknown & (1u << bit)))
				bit++;
			return err_at(err, errlen, -ENOTSUP, off + 11 + i,
				      "unknown incompatible flag bit %u (byte %u = 0x%02x): the log needs a newer reader",
				      i * 8 + bit, i, incompat[i]);
		}
	}
	if (incompat[0] & 1) {
		uint64_t data_start = off + 3 + size;
		for (unsigned i = 0; i < ULOG_MAX_APPENDED; i++) {
			uint64_t a = le_get64(p + 3 + 16 + 8 * i);
			if (a < data_start)
				continue;
			/* Keep them sorted for the boundary checks. */
			unsigned k = u->n_append++;
			while (k > 0 && u->append[k - 1] > a) {
				u->append[k] = u->append[k - 1];
				k--;
			}
			u->append[k] = a;
		}
	}
	log_input_consume(in, 3 + size);
	return 0;
}

static int
open_(void **priv, struct log_input *in, struct log_info *info, char *err,
      size_t errlen)
{
	const uint8_t *p;
	long got = log_input_peek(in, ULOG_HEADER_LEN, &p);

	(void)info;
	*priv = NULL;
	if (got < 0)
		return err_at(err, errlen, (int)got, 0, "read failed: %s",
			      strerror((int)-got));
	if (!sniff(p, (size_t)got))
		return err_at(err, errlen, -EBADMSG, 0,
			      "not a ULog file (no \"ULog\" magic)");
	if (got < ULOG_HEADER_LEN)
		return err_at(err, errlen, -ENODATA, 0,
			      "file header truncated (%ld of %d bytes)", got,
			      ULOG_HEADER_LEN);
	if (p[7] > 1)
		return err_at(err, errlen, -ENOTSUP, 7,
			      "ULog version %u is not supported (0 or 1)", p[7]);
	log_input_consume(in, ULOG_HEADER_LEN);

	struct ulog *u = calloc(1, sizeof(*u));
	if (!u)
		return err_at(err, errlen, -ENOMEM, 0, "out of memory");
	u->landed = u->armed = u->sbaro_hpa = -1;
	int rc = read_flags(u, in, err, errlen);
	if (rc < 0) {
		close_(u);
		return rc;
	}
	*priv = u;
	return 0;
}

static int
next(void *priv, struct log_input *in, struct log_record *rec,
     struct log_info *info, char *err, size_t errlen)
{
	struct ulog *u = priv;

	for (;;) {
		if (u->i_pend < u->n_pend) {
			*rec = u->pend[u->i_pend++];
			return 1;
		}
		u->n_pend = u->i_pend = 0;
		int rc = step(u, in, info, err, errlen);
		if (rc <= 0)
			return rc;
	}
}

static void
list_types(void *priv, log_type_cb cb, void *ud)
{
	struct ulog *u = priv;
	char name[ULOG_CHAN_NAME];

	for (unsigned i = 0; i < u->n_topics; i++) {
		topic_name(u, &u->topics[i], name, sizeof(name));
		cb(name, u->topics[i].count, ud);
	}
}

static const char *
channel_name(void *priv, unsigned channel_)
{
	struct ulog *u = priv;

	return channel_ < u->n_chans ? u->chans[channel_] : NULL;
}

const struct log_format_ops log_format_ulog = {
	.name = "ulog", .sniff = sniff, .open = open_, .next = next,
	.list_types = list_types, .channel_name = channel_name,
	.close = close_,
};
