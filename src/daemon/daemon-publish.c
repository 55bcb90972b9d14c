/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Publishing samples as MAVLink and MSP, and recording them. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "atmosphere.h"
#include "sample-csv.h"

static double
rate_of(double output_rate, double global_rate)
{
	return output_rate == RATE_UNSET ? global_rate : output_rate;
}

void
daemon_send(struct daemon *d, struct output *o, uint32_t msgid,
	     const uint8_t *payload)
{
	uint8_t frame[MAVLINK_MAX_FRAME];

	/* An MSP line carries barometer frames only. */
	if (output_is_msp(o))
		return;
	int n = mavlink_frame_encode(frame, d->cfg.mavlink_version, o->seq,
				     (uint8_t)(d->cfg.sysid + d->sysid_offset),
				     d->cfg.compid, msgid, payload);

	if (n < 0) {
		/* v1 cannot carry ids above 255: count, do not crash. */
		o->stats.frames_dropped++;
		return;
	}
	o->seq++;
	(void)output_send(o, frame, (size_t)n);
}

/* Whatever the events queued leaves now, one datagram per output. */
void
daemon_flush(void *user)
{
	struct daemon *d = user;

	for (size_t i = 0; i < d->n_outputs; i++)
		output_flush(&d->outputs[i]);
	daemon_px4sim_flush(d);
}

void
daemon_send_all(struct daemon *d, uint32_t msgid, const uint8_t *payload)
{
	for (size_t i = 0; i < d->n_outputs; i++)
		daemon_send(d, &d->outputs[i], msgid, payload);
}

/* Is a message due at now_us for a rate, given its next slot? */
static bool
due(double hz, uint64_t now_us, uint64_t *next_us)
{
	if (hz == RATE_EVERY_SAMPLE)
		return true;
	if (!(hz > 0.0) || now_us < *next_us)
		return false;
	uint64_t period = (uint64_t)(1e6 / hz);
	/* Keep the cadence from the first message on; after a gap (a rate
	 * change, a stall) restart it from now rather than bursting. */
	*next_us = (*next_us != 0 && *next_us + period > now_us)
			   ? *next_us + period
			   : now_us + period;
	return true;
}

static const uint32_t pressure_msgid[BARO_MAX_INSTANCES] = {
	MAVLINK_MSG_SCALED_PRESSURE,
	MAVLINK_MSG_SCALED_PRESSURE2,
	MAVLINK_MSG_SCALED_PRESSURE3,
};

static int16_t
cdeg(float t_c)
{
	float v = t_c * 100.0f;

	/* C truncation as ArduPilot, clamped to stay defined. */
	if (!(v > -32768.0f))
		return INT16_MIN;
	if (v > 32767.0f)
		return INT16_MAX;
	return (int16_t)v;
}

/* Without a measured temperature: the 1976 standard atmosphere's at the
 * sample's pressure altitude, a value ArduPilot's altitude and EAS2TAS
 * maths can use (it clamps baro temperatures at 35 C anyway). */
static float
standard_temperature_c(float pressure_pa)
{
	float alt, p, t_k;

	if (atmos_1976_altitude(pressure_pa, &alt) < 0)
		return NAN;
	atmos_1976_pressure_temperature(alt, &p, &t_k);
	return t_k - ATMOS_C_TO_KELVIN;
}

/* One sample to one MSP output: the instances and the vehicle it
 * carries, at its rate; a sample whose values are not physically
 * possible is counted, not sent. */
static void
publish_msp(struct daemon *d, struct output *o, const struct baro_sample *s,
	    uint64_t now_us)
{
	const struct config_msp *m = &o->cfg.msp;
	const unsigned i = s->instance;
	struct msp_baro b;
	uint8_t frame[MSP_BARO_FRAME_LEN];

	if (i >= BARO_MAX_INSTANCES || m->map[i] < 0 ||
	    d->sysid_offset != m->vehicle ||
	    !due(m->rate_hz, now_us, &o->next_msp_us[i]))
		return;
	float fallback = baro_sample_has(s, BARO_SAMPLE_HAS_TEMPERATURE)
				 ? 0.0f
				 : standard_temperature_c(s->pressure_pa);
	if (msp_baro_from_sample(s, (unsigned)m->map[i], fallback, &b) < 0 ||
	    msp_baro_frame(&b, frame) < 0) {
		o->stats.frames_invalid++;
		return;
	}
	/* A line too slow for the samples (20 bytes each: 576 a second at
	 * 115200 baud) drops many a second: say so once per episode, the
	 * counters have the rest. */
	int rc = output_send(o, frame, sizeof(frame));
	char desc[256];
	if (rc == -EAGAIN && !o->line_full) {
		o->line_full = true;
		log_msg(&d->log, LOG_LEVEL_WARNING,
			"output %s: the line is full, dropping samples (each "
			"takes %d bytes; is the baud rate too low?)",
			output_describe(o, desc, sizeof(desc)),
			MSP_BARO_FRAME_LEN);
	} else if (rc == 0 && o->line_full) {
		o->line_full = false;
		log_msg(&d->log, LOG_LEVEL_NOTICE, "output %s: sending again",
			output_describe(o, desc, sizeof(desc)));
	}
}

void
daemon_publish_sample(struct daemon *d, const struct baro_sample *s, uint64_t now_us)
{
	uint8_t sp[MAVLINK_MAX_PAYLOAD] = { 0 };
	uint8_t hil[MAVLINK_MAX_PAYLOAD] = { 0 };
	const unsigned i = s->instance;

	struct mavlink_scaled_pressure m = {
		.time_boot_ms = (uint32_t)(now_us / 1000u),
		.press_abs = s->pressure_pa * 0.01f,
		.temperature = cdeg(s->temperature_c),
	};
	mavlink_pack_scaled_pressure(&m, sp);

	float alt = NAN;
	(void)atmos_1976_altitude(s->pressure_pa, &alt);
	struct mavlink_hil_sensor h = {
		.time_usec = now_us,
		.abs_pressure = s->pressure_pa * 0.01f,
		.pressure_alt = alt,
		.temperature = s->temperature_c,
		.fields_updated = HIL_SENSOR_ABS_PRESSURE |
				  HIL_SENSOR_PRESSURE_ALT |
				  HIL_SENSOR_TEMPERATURE,
		.id = (uint8_t)i,
	};
	mavlink_pack_hil_sensor(&h, hil);

	for (size_t k = 0; k < d->n_outputs; k++) {
		struct output *o = &d->outputs[k];
		const struct config_rates *r = &o->cfg.rates;
		if (output_is_msp(o)) {
			publish_msp(d, o, s, now_us);
			continue;
		}
		if (due(rate_of(r->scaled_pressure_hz,
				d->cfg.rates.scaled_pressure_hz),
			now_us, &o->next_pressure_us[i]))
			daemon_send(d, o, pressure_msgid[i], sp);
		if (due(rate_of(r->hil_sensor_hz, d->cfg.rates.hil_sensor_hz),
			now_us, &o->next_hil_us[i]))
			daemon_send(d, o, MAVLINK_MSG_HIL_SENSOR, hil);
	}
}

void
daemon_publish_heartbeat(struct daemon *d, uint64_t now_us)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
	struct mavlink_heartbeat hb = {
		.type = MAV_TYPE_ONBOARD_CONTROLLER,
		.autopilot = MAV_AUTOPILOT_INVALID,
		.system_status = MAV_STATE_ACTIVE,
		.mavlink_version = 3,
	};

	mavlink_pack_heartbeat(&hb, pl);
	for (size_t k = 0; k < d->n_outputs; k++) {
		struct output *o = &d->outputs[k];
		if (due(rate_of(o->cfg.rates.heartbeat_hz,
				d->cfg.rates.heartbeat_hz),
			now_us, &o->next_heartbeat_us))
			daemon_send(d, o, MAVLINK_MSG_HEARTBEAT, pl);
	}
}

void
daemon_record(struct daemon *d, const struct baro_sample *s)
{
	if (d->record && sample_csv_write(d->record, s) < 0)
		d->record_errors++;
}

void
daemon_announce(struct daemon *d, uint8_t severity, const char *text)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD];

	log_msg(&d->log, LOG_LEVEL_NOTICE, "%s", text);
	param_service_statustext(severity, text, pl);
	daemon_send_all(d, MAVLINK_MSG_STATUSTEXT, pl);
}
