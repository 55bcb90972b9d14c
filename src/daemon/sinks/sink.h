/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Sinks: where published samples go.  One sink per configured output
 * (MAVLink or MSP, on the output.h transports) and one for the record
 * file.  The emit path (daemon-emit.c) hands each sample to every sink in
 * order; the loop hands them heartbeats, flushes and restarts.  A sink
 * knows nothing of struct daemon: it gets the configuration, the log and
 * the loop through its environment, so it is tested alone.
 *
 * Adding an output type is one file here with its ops table and one line
 * in sinks.c's table.
 */
#ifndef BAROD_SINK_H
#define BAROD_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "driver.h"
#include "emit.h"
#include "event-loop.h"
#include "log.h"
#include "mavlink-sign.h"
#include "mavlink.h"

struct sink;

/* What every sink may use, shared and owned by the daemon.  cfg points
 * at the running configuration (replaced in place by a reload). */
struct sink_env {
	const struct config *cfg;
	struct logger *log;
	struct event_loop *loop;
	/* A MAVLink frame received by a sink (a GCS's request); true when
	 * it is taken (its sender, on a udp-server, becomes a peer). */
	bool (*frame)(void *user, struct sink *from,
		      const struct mavlink_frame *f);
	/* A sink a reload closes, just before it goes (its requests'
	 * replies must not outlive it); NULL: nobody asks. */
	void (*closing)(void *user, struct sink *k);
	void *user;
	/* MAVLink 2 signing of every frame sent, or NULL; sign_now is its
	 * clock (mavlink_sign_timestamp of the wall clock). */
	struct mavlink_signing *signing;
	uint64_t (*sign_now)(void);
};

struct sink_ops {
	const char *name;
	/* One published sample. */
	void (*sample)(struct sink *k, const struct emit_ctx *ctx,
		       const struct baro_sample *s);
	/* Every 10 ms tick, on barod's clock. */
	void (*heartbeat)(struct sink *k, uint64_t now_us);
	/* A message to the GCS (STATUSTEXT, PARAM_VALUE), from vehicle 0. */
	void (*message)(struct sink *k, uint32_t msgid, const uint8_t *payload);
	/* After each batch of events: what was queued leaves. */
	void (*flush)(struct sink *k);
	/* Vehicle v's simulation restarted at physics time 0. */
	void (*restart)(struct sink *k, unsigned vehicle);
	/* SIGHUP: true if the sink goes on under next, false if it is to be
	 * closed (the set opens what next has that no sink kept). */
	bool (*reload)(struct sink *k, const struct config *next);
	/* Whether this sink stands for output cfg (reload's matching). */
	bool (*is_output)(const struct sink *k, const struct config_output *cfg);
	/* Frames this sink sent and dropped, added to the totals. */
	void (*counts)(const struct sink *k, uint64_t *sent,
		       uint64_t *dropped);
	void (*status)(struct sink *k, FILE *out);	/* baroctl status */
	void (*report)(struct sink *k);			/* exit report */
	/* The loop ended: finish what is pending; < 0 if the sink's data
	 * is incomplete (barod then exits with a failure). */
	int (*stop)(struct sink *k);
	void (*close)(struct sink *k);		/* frees k */
};

struct sink {
	const struct sink_ops *ops;
	const struct sink_env *env;
};

/* An output format (config.c's output table names each type's): how a
 * sink for one configured output opens.  NULL and a message in err on
 * failure. */
struct sink_type {
	enum output_format format;
	struct sink *(*open)(const struct sink_env *env,
			     const struct config_output *cfg, char *err,
			     size_t errlen);
};

/* The sink type that makes format's frames (sinks.c's list), or NULL. */
const struct sink_type *sink_type_for(enum output_format format);

/* The record file (sample_csv columns), renamed into place by stop(). */
struct sink *sink_record_open(const struct sink_env *env, const char *path,
			      char *err, size_t errlen);

/* A MAVLink frame to the one sink a request came from (the param
 * service's reply_to); sinks without MAVLink ignore it. */
void sink_send(struct sink *k, uint32_t msgid, const uint8_t *payload);

/* The bytes per second the sink's line carries (a serial output's baud
 * / 10), 0 when it has no such bound (UDP, or not a MAVLink output). */
uint32_t sink_link_bandwidth(const struct sink *k);

/* The bytes per second the sink's own stream (samples and HEARTBEAT)
 * took over the last whole second, 0 before one has passed or when it is
 * not a MAVLink output: what is left of the line is what a GCS's replies
 * may use without delaying the samples. */
uint32_t sink_link_stream_rate(const struct sink *k);


/* ------------------------------------------------------------------ */
/* The set of sinks, in order: the outputs as configured, then the record
 * file.  Every call goes to each sink that has the op. */

#define SINKS_MAX (CONFIG_MAX_OUTPUTS + 1)

struct sinks {
	struct sink_env env;
	struct sink *list[SINKS_MAX];
	size_t n;
};

void sinks_init(struct sinks *set, const struct sink_env *env);
/* Append k (taken over; closed by sinks_close). */
int sinks_add(struct sinks *set, struct sink *k);
/* Open a sink for each of c's outputs, logging "output DESCRIPTION". */
int sinks_open_outputs(struct sinks *set, const struct config *c);
void sinks_sample(struct sinks *set, const struct emit_ctx *ctx,
		  const struct baro_sample *s);
void sinks_heartbeat(struct sinks *set, uint64_t now_us);
void sinks_flush(struct sinks *set);
void sinks_restart(struct sinks *set, unsigned vehicle);
/* SIGHUP: sinks next keeps go on untouched (in their order), the others
 * are closed, next's new outputs opened after them. */
void sinks_reload(struct sinks *set, const struct config *next);
void sinks_status(struct sinks *set, FILE *out);
void sinks_report(struct sinks *set);
/* Returns < 0 if any sink's stop did. */
int sinks_stop(struct sinks *set);
void sinks_close(struct sinks *set);
/* Outputs counted for the log and STATUS=: frames sent and dropped. */
void sinks_frames(const struct sinks *set, uint64_t *sent, uint64_t *dropped);
/* How many sinks are outputs (the reload's log line). */
size_t sinks_outputs(const struct sinks *set);

#endif
