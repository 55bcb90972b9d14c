/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The MAVLink sink: SCALED_PRESSURE{,2,3} and HIL_SENSOR per sample,
 * HEARTBEAT, and the GCS messages, each at its configured rate, to one
 * MAVLink output (UDP client or server, serial).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "atmosphere.h"
#include "mavlink-send.h"
#include "output-sink.h"

int
mavlink_send_frame(const struct mavlink_sender *how, uint8_t *seq,
		   unsigned vehicle, uint32_t msgid, const uint8_t *payload)
{
	uint8_t frame[MAVLINK_MAX_FRAME];
	int n = mavlink_frame_encode(frame, how->version, *seq,
				     (uint8_t)(how->sysid + vehicle),
				     how->compid, msgid, payload);

	/* v1 cannot carry ids above 255: count, do not crash. */
	if (n < 0)
		return -EBADMSG;
	if (how->signing) {
		/* One link id for every output: the timestamps come from one
		 * counter, so each stream's still only rises. */
		n = mavlink_sign_frame(how->signing, frame, (size_t)n, 0,
				       how->sign_now());
		if (n < 0)
			return -EBADMSG;
	}
	++*seq;
	return how->queue(how->user, frame, (size_t)n);
}

static int
queue_output(void *user, const uint8_t *frame, size_t len)
{
	struct output_sink *s = user;

	return output_send(&s->out, frame, len);
}

/* The same, counted as the sink's own stream. */
static int
queue_stream(void *user, const uint8_t *frame, size_t len)
{
	struct output_sink *s = user;

	s->stream_bytes += len;
	return output_send(&s->out, frame, len);
}

/* One frame from vehicle (sysid + vehicle) to the sink's output, signed
 * when barod has a key; stream: one of the sink's own (a sample or a
 * HEARTBEAT), not a reply. */
static void
sink_frame(struct output_sink *s, unsigned vehicle, uint32_t msgid,
	   const uint8_t *payload, bool stream)
{
	const struct sink_env *env = s->base.env;
	const struct config *c = env->cfg;
	const struct mavlink_sender how = {
		.version = c->mavlink_version,
		.sysid = c->sysid,
		.compid = c->compid,
		.signing = env->signing,
		.sign_now = env->sign_now,
		.queue = stream ? queue_stream : queue_output,
		.user = s,
	};

	if (mavlink_send_frame(&how, &s->out.seq, vehicle, msgid, payload) ==
	    -EBADMSG)
		s->out.stats.frames_dropped++;
}

void
sink_send(struct sink *k, uint32_t msgid, const uint8_t *payload)
{
	if (k->ops->message)
		k->ops->message(k, msgid, payload);
}

static const struct sink_ops mavlink_ops;

uint32_t
sink_link_bandwidth(const struct sink *k)
{
	const struct config_output *c;

	if (k->ops != &mavlink_ops)
		return 0;
	c = &((const struct output_sink *)k)->out.cfg;
	/* 8N1: ten bits a byte. */
	return c->type == OUTPUT_SERIAL ? c->baud / 10u : 0u;
}

uint32_t
sink_link_stream_rate(const struct sink *k)
{
	if (k->ops != &mavlink_ops)
		return 0;
	return ((const struct output_sink *)k)->stream_rate;
}

static void
mavlink_sink_message(struct sink *k, uint32_t msgid, const uint8_t *payload)
{
	sink_frame(output_sink_of(k), 0, msgid, payload, false);
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

static void
mavlink_sink_sample(struct sink *k, const struct emit_ctx *ctx, const struct baro_sample *smp)
{
	struct output_sink *s = output_sink_of(k);
	const struct config *c = k->env->cfg;
	const struct config_rates *r = &s->out.cfg.rates;
	const unsigned i = smp->instance;
	const unsigned v = ctx->vehicle < CONFIG_MAX_SITL ? ctx->vehicle : 0;
	uint8_t sp[MAVLINK_MAX_PAYLOAD] = { 0 };
	uint8_t hil[MAVLINK_MAX_PAYLOAD] = { 0 };

	if (i >= BARO_MAX_INSTANCES)
		return;
	const bool want_sp = sink_due(sink_rate(r->scaled_pressure_hz,
						c->rates.scaled_pressure_hz),
				      ctx->now_us, &s->next_pressure_us[v][i]);
	const bool want_hil = sink_due(sink_rate(r->hil_sensor_hz,
						 c->rates.hil_sensor_hz),
				       ctx->now_us, &s->next_hil_us[v][i]);
	if (want_sp) {
		struct mavlink_scaled_pressure m = {
			.time_boot_ms = (uint32_t)(ctx->now_us / 1000u),
			.press_abs = smp->pressure_pa * 0.01f,
			.temperature = cdeg(smp->temperature_c),
		};
		mavlink_pack_scaled_pressure(&m, sp);
		sink_frame(s, ctx->vehicle, pressure_msgid[i], sp, true);
	}
	if (want_hil) {
		float alt = NAN;
		(void)atmos_1976_altitude(smp->pressure_pa, &alt);
		struct mavlink_hil_sensor h = {
			.time_usec = ctx->now_us,
			.abs_pressure = smp->pressure_pa * 0.01f,
			.pressure_alt = alt,
			.temperature = smp->temperature_c,
			.fields_updated = HIL_SENSOR_ABS_PRESSURE |
					  HIL_SENSOR_PRESSURE_ALT |
					  HIL_SENSOR_TEMPERATURE,
			.id = (uint8_t)i,
		};
		mavlink_pack_hil_sensor(&h, hil);
		sink_frame(s, ctx->vehicle, MAVLINK_MSG_HIL_SENSOR, hil, true);
	}
}

/* Whole seconds in a row a line must carry the samples again before the
 * episode ends: a stream near the line's rate (18 samples one second, 19
 * the next) is over it one second in two, and the warning must not come
 * back every other second. */
#define OVER_LINE_FIT_S 5u

/* A serial line slower than the samples drops some every second (the
 * counters have them): say so once per episode, with what would fit. */
static void
say_over_line(struct output_sink *s)
{
	const uint32_t bw = sink_link_bandwidth(&s->base);
	char desc[256];

	if (!bw)
		return;
	const bool over = s->stream_rate > bw;
	if (s->over_line && !over && ++s->fit_s < OVER_LINE_FIT_S)
		return;
	s->fit_s = 0;
	if (over == s->over_line)
		return;
	s->over_line = over;
	if (over)
		log_msg(s->base.env->log, LOG_LEVEL_WARNING,
			"output %s: the samples ask %" PRIu32 " bytes/s of a "
			"line that carries %" PRIu32 " (baud / 10): some are "
			"dropped; raise the baud rate or lower "
			"scaled_pressure_hz / hil_sensor_hz",
			output_describe(&s->out, desc, sizeof(desc)),
			s->stream_rate, bw);
	else
		log_msg(s->base.env->log, LOG_LEVEL_NOTICE,
			"output %s: the line carries the samples again",
			output_describe(&s->out, desc, sizeof(desc)));
}

static void
mavlink_sink_heartbeat(struct sink *k, uint64_t now_us)
{
	struct output_sink *s = output_sink_of(k);
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
	struct mavlink_heartbeat hb = {
		.type = MAV_TYPE_ONBOARD_CONTROLLER,
		.autopilot = MAV_AUTOPILOT_INVALID,
		.system_status = MAV_STATE_ACTIVE,
		.mavlink_version = 3,
	};

	/* Every tick: the stream's rate over each whole second. */
	if (!s->window_started) {
		s->window_started = true;
		s->window_us = now_us;
		s->window_bytes = s->stream_bytes;
	} else if (now_us - s->window_us >= 1000000u) {
		const uint64_t b = (s->stream_bytes - s->window_bytes) *
				   1000000u / (now_us - s->window_us);
		s->stream_rate = b > UINT32_MAX ? UINT32_MAX : (uint32_t)b;
		s->window_us = now_us;
		s->window_bytes = s->stream_bytes;
		say_over_line(s);
	}
	if (!sink_due(sink_rate(s->out.cfg.rates.heartbeat_hz,
				k->env->cfg->rates.heartbeat_hz),
		      now_us, &s->next_heartbeat_us))
		return;
	mavlink_pack_heartbeat(&hb, pl);
	sink_frame(s, 0, MAVLINK_MSG_HEARTBEAT, pl, true);
}

/* Rate-limited messages start their cadence again at the vehicle's
 * physics time 0. */
static void
mavlink_sink_restart(struct sink *k, unsigned vehicle)
{
	struct output_sink *s = output_sink_of(k);

	if (vehicle >= CONFIG_MAX_SITL)
		return;
	memset(s->next_pressure_us[vehicle], 0,
	       sizeof(s->next_pressure_us[vehicle]));
	memset(s->next_hil_us[vehicle], 0, sizeof(s->next_hil_us[vehicle]));
}

static void
mavlink_sink_status(struct sink *k, FILE *out)
{
	output_sink_status_begin(k, out);
	output_sink_status_end(k, out);
}

static void
mavlink_sink_report(struct sink *k)
{
	struct output_sink *s = output_sink_of(k);
	const struct output_stats *st = &s->out.stats;
	char desc[256];

	log_msg(k->env->log, LOG_LEVEL_INFO,
		"output %s: sent %" PRIu64 ", dropped %" PRIu64
		", no peer %" PRIu64 ", received %" PRIu64
		", hangups %" PRIu64,
		output_describe(&s->out, desc, sizeof(desc)), st->frames_sent,
		st->frames_dropped, st->frames_no_peer, st->frames_received,
		st->hangups);
	if (st->clients_cut || st->clients_refused)
		log_msg(k->env->log, LOG_LEVEL_INFO,
			"output %s: clients cut off %" PRIu64 ", refused %" PRIu64,
			s->out.cfg.name, st->clients_cut, st->clients_refused);
}

static const struct sink_ops mavlink_ops = {
	.name = "mavlink",
	.sample = mavlink_sink_sample,
	.heartbeat = mavlink_sink_heartbeat,
	.message = mavlink_sink_message,
	.flush = output_sink_flush,
	.restart = mavlink_sink_restart,
	.reload = output_sink_reload,
	.is_output = output_sink_is_output,
	.counts = output_sink_counts,
	.status = mavlink_sink_status,
	.report = mavlink_sink_report,
	.close = output_sink_close,
};

static struct sink *
mavlink_sink_open(const struct sink_env *env, const struct config_output *cfg,
	     char *err, size_t errlen)
{
	return output_sink_open(env, &mavlink_ops, cfg, err, errlen);
}

const struct sink_type sink_mavlink_type = { FORMAT_MAVLINK, mavlink_sink_open };
