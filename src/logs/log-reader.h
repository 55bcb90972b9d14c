/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Flight-log readers: ArduPilot DataFlash (.bin), PX4 ULog (.ulg),
 * MAVLink telemetry logs (.tlog) and CSV, each turned into one stream of
 * records in file order:
 *
 *   LOG_REC_BARO       a barometer sample (struct baro_sample); pressure
 *                      is always in Pa, whatever unit the log used
 *   LOG_REC_REFERENCE  an independent altitude to compare with (GPS, EKF,
 *                      rangefinder, a simulator's truth)
 *   LOG_REC_EVENT      arming, take-off, landing, reboots, dropouts
 *   LOG_REC_IMU        an accelerometer sample (specific force, body frame)
 *   LOG_REC_ATTITUDE   the vehicle's attitude (roll, pitch, yaw)
 *   LOG_REC_GPS        a GNSS fix: altitude, vertical velocity, accuracies
 *   LOG_REC_RANGE      a rangefinder distance
 *
 * A message that is both a reference and a sensor sample (a GPS fix, a
 * rangefinder reading) gives both records, the reference first.
 *
 * Streaming and constant memory: a reader holds one record's bytes and
 * its format tables, never the file.  A damaged file gives every record
 * before the damage, then a negative errno from log_reader_next() with a
 * message naming the byte offset and what was wrong.
 *
 * Each format is one file (log-dataflash.c, log-ulog.c, log-tlog.c,
 * log-csv.c) implementing struct log_format_ops; log-reader.c picks one
 * by content (magic bytes), or by name when the caller insists.
 */
#ifndef BAROD_LOG_READER_H
#define BAROD_LOG_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "baro-sample.h"
#include "log-input.h"

#define LOG_ERR_LEN 256

enum log_record_kind {
	LOG_REC_BARO,
	LOG_REC_REFERENCE,
	LOG_REC_EVENT,
	LOG_REC_IMU,
	LOG_REC_ATTITUDE,
	LOG_REC_GPS,
	LOG_REC_RANGE,
};

/* An accelerometer sample: what it measures (specific force), body frame
 * forward-right-down, m/s^2; level at rest about (0, 0, -9.80665). */
struct log_imu {
	uint64_t time_us;
	uint8_t instance;
	double accel[3];
};

/* Euler angles 3-2-1, rad (DataFlash ATT and MAVLink ATTITUDE give them;
 * a ULog quaternion is converted). */
struct log_attitude {
	uint64_t time_us;
	double roll_rad, pitch_rad, yaw_rad;
};

struct log_gps {
	uint64_t time_us;
	uint8_t instance;
	uint8_t fix_type;	/* 0-1 none, 2 2D, 3 3D, 4+ DGPS/RTK */
	uint8_t nsats;		/* 255: unknown */
	double alt_amsl_m;
	double vel_up_m_s;	/* NaN: the log has none */
	double vacc_m;		/* vertical accuracy; NaN: unknown */
	double vel_acc_m_s;	/* speed accuracy; NaN: unknown */
};

struct log_range {
	uint64_t time_us;
	uint8_t instance;
	double distance_m;
	double min_m, max_m;	/* NaN: unknown */
	int8_t quality;		/* 0..100, -1 unknown (PX4 signal_quality) */
};

enum log_ref_source {
	LOG_REF_GPS,		/* GNSS altitude AMSL */
	LOG_REF_EKF,		/* the autopilot's fused altitude */
	LOG_REF_RANGEFINDER,	/* distance to ground */
	LOG_REF_TRUTH,		/* a simulator's true altitude */
	LOG_REF_LOG_BARO_ALT,	/* the autopilot's own baro altitude (BARO.Alt,
				   vehicle_air_data.baro_alt_meter, VFR_HUD) */
	LOG_REF_SOURCE_COUNT,
};

enum log_ref_datum {
	LOG_DATUM_AMSL,		/* metres above mean sea level */
	LOG_DATUM_HOME,		/* metres above the origin / home / ground */
	LOG_DATUM_GROUND,	/* metres above the ground below (rangefinder) */
};

struct log_reference {
	uint64_t time_us;	/* on the same clock as the baro samples */
	enum log_ref_source source;
	enum log_ref_datum datum;
	uint8_t instance;
	double alt_m;		/* up */
};

enum log_event_kind {
	LOG_EVENT_ARMED,
	LOG_EVENT_DISARMED,
	LOG_EVENT_TAKEOFF,	/* NOT_LANDED, landed -> false */
	LOG_EVENT_LANDED,	/* LAND_COMPLETE, landed -> true */
	LOG_EVENT_REBOOT,	/* the autopilot's clock restarted (tlog) */
	LOG_EVENT_DROPOUT,	/* the logger lost data (ULog 'O'); value = ms */
	LOG_EVENT_BARO_UNHEALTHY,	/* ERR subsystem 18 code != 0 */
	LOG_EVENT_BARO_HEALTHY,		/* ERR subsystem 18 code 0 */
	LOG_EVENT_EKF_ALT_RESET,
	LOG_EVENT_KIND_COUNT,
};

struct log_event {
	uint64_t time_us;
	enum log_event_kind kind;
	double value;
};

struct log_record {
	enum log_record_kind kind;
	/* Which stream of the log this record belongs to, numbered by the
	 * reader from 0 in order of first appearance; its name (what a user
	 * passes to --channel) comes from log_reader_channel_name(), e.g.
	 * "BARO[0]", "BAR2", "CTUN.BarAlt", "vehicle_air_data",
	 * "sensor_baro[1]", "SCALED_PRESSURE2", "GPS", "XKF1.PD", "RFND",
	 * "distance_sensor", "EV".  Events may use any channel. */
	uint16_t channel;
	uint8_t notes;		/* enum log_record_notes */
	union {
		struct baro_sample baro;
		struct log_reference ref;
		struct log_event event;
		struct log_imu imu;
		struct log_attitude att;
		struct log_gps gps;
		struct log_range range;
	};
};

/* What a record says about how it was read, beyond its fields. */
enum log_record_notes {
	/* The sample's temperature_c is the 0 the log recorded, which is a
	 * placeholder rather than a reading (PX4 SITL): no HAS_TEMPERATURE,
	 * so nothing uses it, but export writes it as recorded. */
	LOG_NOTE_TEMP_PLACEHOLDER = 1u << 0,
};

/* Flags the readers add to baro_sample.flags (beyond baro-sample.h's). */
enum log_sample_flags {
	/* The log had no pressure, only the autopilot's baro altitude
	 * (e.g. CTUN.BarAlt in 2014 ArduCopter logs): pressure_pa was
	 * computed from it with log_pressure_from_alt(). */
	LOG_SAMPLE_PRESSURE_FROM_ALT = 1u << 8,
	/* alt_m is the log's altitude above home (CTUN.BarAlt, a
	 * DataFlash BARO.Alt) as recorded, not AMSL, so HAS_ALTITUDE is
	 * not set. */
	LOG_SAMPLE_ALT_HOME = 1u << 9,
};

/* What the whole file says about itself, filled in as it is read. */
struct log_info {
	char firmware[64];	/* "ArduCopter V3.4.4-rc1", "PX4 v1.11.2 dev" */
	char hardware[64];	/* "PX4v2", "CUBEPILOT_CUBEORANGE" */
	char baro_stream[64];	/* what the samples come from: "BARO",
				   "CTUN.BarAlt", "vehicle_air_data",
				   "sensor_baro", "SCALED_PRESSURE" */
	uint64_t bytes_skipped;	/* resynchronisation over unknown bytes */
	uint64_t records_bad;	/* frames dropped (bad CRC, bad layout) */
	/* File offset of the first skipped byte or bad record, so the tool
	 * can say where the damage starts; valid when either count is > 0. */
	uint64_t first_bad_offset;
	/* Pressures derived from an altitude above home were derived for
	 * home at derived_ground_m AMSL (from the log's GPS) when
	 * derived_ground_known, else at sea level. */
	bool derived_ground_known;
	double derived_ground_m;
	/* Why baro-like data gave no samples, when a reader can tell
	 * ("sensor_combined has baro_alt_meter but no valid
	 * baro_timestamp_relative"); "" otherwise. */
	char baro_note[128];
	/* Format definitions that disagree with themselves, a firmware
	 * quirk rather than damage (a DataFlash FMT whose Length is not its
	 * format's size: its records are framed by the declared Length).
	 * fmt_undecodable of them declare fewer bytes than the format:
	 * their types' records are skipped whole, not decoded. */
	uint64_t fmt_warnings;
	uint64_t fmt_undecodable;
	/* The recording's span on the samples' clock: the first and last
	 * time of every record returned (a dropout's derived time aside)
	 * and of the timed records a reader reads without returning
	 * (DataFlash's ORGN, PARM, ...).  Valid when span_known. */
	bool span_known;
	uint64_t span_first_us, span_last_us;
	char fmt_warning[192];	/* the first, for messages */
};

/* A record's time, whatever its kind. */
static inline uint64_t
log_record_time(const struct log_record *r)
{
	switch (r->kind) {
	case LOG_REC_BARO: return r->baro.time_us;
	case LOG_REC_REFERENCE: return r->ref.time_us;
	case LOG_REC_EVENT: return r->event.time_us;
	case LOG_REC_IMU: return r->imu.time_us;
	case LOG_REC_ATTITUDE: return r->att.time_us;
	case LOG_REC_GPS: return r->gps.time_us;
	case LOG_REC_RANGE: return r->range.time_us;
	}
	return 0;
}

/* Widen info's span to take time t. */
static inline void
log_info_span(struct log_info *info, uint64_t t)
{
	if (!info->span_known || t < info->span_first_us)
		info->span_first_us = t;
	if (!info->span_known || t > info->span_last_us)
		info->span_last_us = t;
	info->span_known = true;
}

/* Most channels a reader numbers; records of further ones are counted in
 * list_types but not returned. */
#define LOG_MAX_CHANNELS 64

/* Called once per message type with how many records of it were read so
 * far; name is the format's own ("BARO", "sensor_baro[1]", "#29"). */
typedef void (*log_type_cb)(const char *name, uint64_t count, void *ud);

struct log_format_ops {
	const char *name;	/* "dataflash", "ulog", "tlog", "csv" */
	/* Does this look like the format?  head is the file's first bytes
	 * (up to 64; fewer for a short file). */
	bool (*sniff)(const uint8_t *head, size_t len);
	/* Allocate state and read any header.  Negative errno with a
	 * message in err. */
	int (*open)(void **priv, struct log_input *in, struct log_info *info,
		    char *err, size_t errlen);
	/* Next record: 1, 0 at the end, negative errno with a message in
	 * err ("offset N: ..."). */
	int (*next)(void *priv, struct log_input *in, struct log_record *rec,
		    struct log_info *info, char *err, size_t errlen);
	void (*list_types)(void *priv, log_type_cb cb, void *ud);
	/* Name of a channel returned earlier; NULL for an unknown one. */
	const char *(*channel_name)(void *priv, unsigned channel);
	void (*close)(void *priv);
};

extern const struct log_format_ops log_format_dataflash;
extern const struct log_format_ops log_format_ulog;
extern const struct log_format_ops log_format_tlog;
extern const struct log_format_ops log_format_csv;

struct log_reader {
	const struct log_format_ops *ops;
	void *priv;
	struct log_input in;
	struct log_info info;
	const char *name;	/* file name for messages; not owned */
	bool failed;
	int error;		/* the negative errno that failed it */
	char err[LOG_ERR_LEN];
};

/*
 * Open a reader on fd (not closed by log_reader_close).  format is a
 * format name, or NULL to choose by content.  Returns 0, or a negative
 * errno with a message in r->err (-EPROTONOSUPPORT: not a known format).
 * Call log_reader_close() in either case.
 */
int
log_reader_open_fd(struct log_reader *r, int fd, const char *name,
		   const char *format);

/* The same over a memory block (fuzz targets, tests). */
int
log_reader_open_mem(struct log_reader *r, const void *data, size_t len,
		    const char *name, const char *format);

/*
 * Next record: 1 with *rec set, 0 at the end of the file, or a negative
 * errno with "NAME: offset N: reason" in r->err.  After an error the
 * reader stays at the error (every later call returns it again).
 */
int
log_reader_next(struct log_reader *r, struct log_record *rec);

void
log_reader_close(struct log_reader *r);

/*
 * Whether the log is damaged (bytes skipped, records dropped, or reading
 * stopped with rc < 0 before the end), with a one-line description
 * ("12 bytes skipped, 2 bad records, the first at offset 6675; reading
 * stopped: offset 81918: ...") in buf.  One rule for every command.
 */
bool
log_reader_damage(const struct log_reader *r, int rc, char *buf, size_t len);

/*
 * Did reading stop only at a last record cut off by the end of the file
 * (what a log looks like after a power loss), with no damage before it?
 * Then the damage log_reader_damage() describes is that cut alone.
 */
bool
log_reader_cut_off(const struct log_reader *r);

/*
 * Message types whose names look like a barometer's ("BARO", "BAR2",
 * "sensor_baro", "vehicle_air_data", "SCALED_PRESSURE", "#29" ...) with
 * their counts, "BARO x0, BAR2 x0"; "" when none.  For saying what a log
 * without baro samples did have.
 */
void
log_reader_baro_like(const struct log_reader *r, char *buf, size_t len);

/* Name of a channel the reader has returned a record of, or NULL. */
const char *
log_reader_channel_name(const struct log_reader *r, unsigned channel);

/* Every message type seen so far with its count (see log_type_cb). */
void
log_reader_list_types(const struct log_reader *r, log_type_cb cb, void *ud);

const struct log_format_ops *
log_format_by_name(const char *name);

/* Names for messages and the CSV/JSON outputs. */
const char *
log_ref_source_name(enum log_ref_source s);

const char *
log_event_kind_name(enum log_event_kind k);

/*
 * Pressure (Pa) at alt_m above a ground at ISA sea-level conditions
 * (101325 Pa, 288.15 K), the inverse of the altitude formula ArduPilot's
 * AP_Baro uses; for logs that kept only an altitude.
 */
double
log_pressure_from_alt(double alt_m);

#endif
