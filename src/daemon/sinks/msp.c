/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The MSP sink: MSP2_SENSOR_BAROMETER for ArduPilot's AP_Baro_MSP, the
 * instances and the vehicle the output carries, at its rate, on one MSP
 * output (serial, TCP or UDP).  An MSP line carries barometer frames
 * only: no heartbeat, no GCS messages.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "atmosphere.h"
#include "msp.h"
#include "output-sink.h"

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

/* A sample whose values are not physically possible is counted, not
 * sent. */
static void
msp_sink_sample(struct sink *k, const struct emit_ctx *ctx, const struct baro_sample *s)
{
	struct output_sink *os = output_sink_of(k);
	struct output *o = &os->out;
	const struct config_msp *m = &o->cfg.msp;
	const unsigned i = s->instance;
	struct msp_baro b;
	uint8_t frame[MSP_BARO_FRAME_LEN];

	if (i >= BARO_MAX_INSTANCES || m->map[i] < 0 ||
	    ctx->vehicle != m->vehicle ||
	    !sink_due(m->rate_hz, ctx->now_us, &os->next_msp_us[i]))
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
		log_msg(k->env->log, LOG_LEVEL_WARNING,
			"output %s: the line is full, dropping samples (each "
			"takes %d bytes; is the baud rate too low?)",
			output_describe(o, desc, sizeof(desc)),
			MSP_BARO_FRAME_LEN);
	} else if (rc == 0 && o->line_full) {
		o->line_full = false;
		log_msg(k->env->log, LOG_LEVEL_NOTICE, "output %s: sending again",
			output_describe(o, desc, sizeof(desc)));
	}
}

static void
msp_sink_restart(struct sink *k, unsigned vehicle)
{
	struct output_sink *s = output_sink_of(k);

	if (vehicle == s->out.cfg.msp.vehicle)
		memset(s->next_msp_us, 0, sizeof(s->next_msp_us));
}

static void
msp_sink_status(struct sink *k, FILE *out)
{
	const struct output_stats *st = &output_sink_of(k)->out.stats;

	output_sink_status_begin(k, out);
	fprintf(out, " invalid %" PRIu64 " lost-bytes %" PRIu64
		" connects %" PRIu64, st->frames_invalid, st->bytes_lost,
		st->connects);
	output_sink_status_end(k, out);
}

static void
msp_sink_report(struct sink *k)
{
	struct output_sink *s = output_sink_of(k);
	const struct output_stats *st = &s->out.stats;
	char desc[256];

	log_msg(k->env->log, LOG_LEVEL_INFO,
		"output %s: sent %" PRIu64 ", dropped %" PRIu64
		", not connected %" PRIu64 ", invalid %" PRIu64
		", received %" PRIu64 ", lost bytes %" PRIu64
		", connects %" PRIu64 ", hangups %" PRIu64,
		output_describe(&s->out, desc, sizeof(desc)), st->frames_sent,
		st->frames_dropped, st->frames_no_peer, st->frames_invalid,
		st->frames_received, st->bytes_lost, st->connects, st->hangups);
}

static const struct sink_ops msp_ops = {
	.name = "msp",
	.sample = msp_sink_sample,
	.flush = output_sink_flush,
	.restart = msp_sink_restart,
	.reload = output_sink_reload,
	.is_output = output_sink_is_output,
	.counts = output_sink_counts,
	.status = msp_sink_status,
	.report = msp_sink_report,
	.close = output_sink_close,
};

static struct sink *
msp_sink_open(const struct sink_env *env, const struct config_output *cfg,
	 char *err, size_t errlen)
{
	return output_sink_open(env, &msp_ops, cfg, err, errlen);
}

const struct sink_type sink_msp_type = { FORMAT_MSP, msp_sink_open };
