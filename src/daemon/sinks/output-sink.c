/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The part of the MAVLink and MSP sinks that is their struct output. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output-sink.h"

static void
on_frame(struct output *o, const struct mavlink_frame *f, void *user)
{
	struct output_sink *s = user;

	if (s->base.env->frame &&
	    s->base.env->frame(s->base.env->user, &s->base, f))
		output_keep_sender(o);
}

struct sink *
output_sink_open(const struct sink_env *env, const struct sink_ops *ops,
		 const struct config_output *cfg, char *err, size_t errlen)
{
	struct output_sink *s = calloc(1, sizeof(*s));
	char desc[256];

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->base = (struct sink){ .ops = ops, .env = env };
	if (output_open(&s->out, cfg, env->loop, on_frame, s, err, errlen) < 0) {
		free(s);
		return NULL;
	}
	s->out.log = env->log;
	log_msg(env->log, LOG_LEVEL_INFO, "output %s",
		output_describe(&s->out, desc, sizeof(desc)));
	return &s->base;
}

void
output_sink_flush(struct sink *k)
{
	output_flush(&output_sink_of(k)->out);
}

bool
output_sink_is_output(const struct sink *k, const struct config_output *cfg)
{
	return config_output_equal(&((const struct output_sink *)k)->out.cfg,
				   cfg);
}

/* An output whose configuration is unchanged keeps its socket (and its
 * peers, its sequence number and its schedule). */
bool
output_sink_reload(struct sink *k, const struct config *next)
{
	for (size_t j = 0; j < next->n_outputs; j++) {
		if (output_sink_is_output(k, &next->outputs[j]))
			return true;
	}
	return false;
}

void
output_sink_counts(const struct sink *k, uint64_t *sent, uint64_t *dropped)
{
	const struct output_stats *st = &((const struct output_sink *)k)->out.stats;

	*sent += st->frames_sent;
	*dropped += st->frames_dropped;
}

void
output_sink_close(struct sink *k)
{
	struct output_sink *s = output_sink_of(k);

	output_close(&s->out);
	free(s);
}

/* baroctl status: "output DESCRIPTION sent N ..." up to the type's own
 * fields, and the end of the line. */
void
output_sink_status_begin(struct sink *k, FILE *out)
{
	struct output_sink *s = output_sink_of(k);
	const struct output_stats *st = &s->out.stats;
	char desc[256];

	fprintf(out,
		"output %s sent %" PRIu64 " dropped %" PRIu64
		" no-peer %" PRIu64 " received %" PRIu64,
		output_describe(&s->out, desc, sizeof(desc)), st->frames_sent,
		st->frames_dropped, st->frames_no_peer, st->frames_received);
}

void
output_sink_status_end(struct sink *k, FILE *out)
{
	const struct output_stats *st = &output_sink_of(k)->out.stats;

	if (st->hangups)
		fprintf(out, " hangups %" PRIu64, st->hangups);
	if (st->clients_cut || st->clients_refused)
		fprintf(out, " clients-cut %" PRIu64 " clients-refused %" PRIu64,
			st->clients_cut, st->clients_refused);
	fputc('\n', out);
}

/* The rate rules every sink on an output shares (MAVLink, MSP). */
double
sink_rate(double output_rate, double global_rate)
{
	return output_rate == RATE_UNSET ? global_rate : output_rate;
}

bool
sink_due(double hz, uint64_t now_us, uint64_t *next_us)
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
