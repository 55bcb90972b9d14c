/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the MAVLink and MSP sinks share: one struct output (output.h) and
 * its publication schedule.  Private to src/daemon/sinks/.
 */
#ifndef BAROD_OUTPUT_SINK_H
#define BAROD_OUTPUT_SINK_H

#include "output.h"
#include "sink.h"

struct output_sink {
	struct sink base;
	struct output out;
	/* Publication schedule: per vehicle (each has its own physics
	 * clock) and baro instance. */
	uint64_t next_heartbeat_us;
	uint64_t next_pressure_us[CONFIG_MAX_SITL][BARO_MAX_INSTANCES];
	uint64_t next_hil_us[CONFIG_MAX_SITL][BARO_MAX_INSTANCES];
	uint64_t next_msp_us[BARO_MAX_INSTANCES];
	/* The sink's own stream (samples, HEARTBEAT; not the replies to a
	 * GCS): bytes queued so far, and their rate over the last whole
	 * second of the daemon's tick clock (sink_link_stream_rate). */
	uint64_t stream_bytes;
	uint64_t window_us, window_bytes;
	bool window_started;
	uint32_t stream_rate;
	bool over_line;		/* said: the stream is more than the line */
	unsigned fit_s;		/* ...and it has fit for so many seconds */
};

static inline struct output_sink *
output_sink_of(struct sink *k)
{
	return (struct output_sink *)k;
}

/* Allocate and open the output; logs "output DESCRIPTION". */
struct sink *output_sink_open(const struct sink_env *env,
			      const struct sink_ops *ops,
			      const struct config_output *cfg, char *err,
			      size_t errlen);
void output_sink_flush(struct sink *k);
bool output_sink_reload(struct sink *k, const struct config *next);
bool output_sink_is_output(const struct sink *k,
			   const struct config_output *cfg);
void output_sink_counts(const struct sink *k, uint64_t *sent,
			uint64_t *dropped);
void output_sink_close(struct sink *k);
void output_sink_status_begin(struct sink *k, FILE *out);
void output_sink_status_end(struct sink *k, FILE *out);

/* The rate rules every sink on an output shares (output-sink.c). */
/* A message's rate: the output's own, or the [mavlink] one. */
double sink_rate(double output_rate, double global_rate);
/* Whether a message at hz is due at now_us given its next slot (updated). */
bool sink_due(double hz, uint64_t now_us, uint64_t *next_us);

#endif
