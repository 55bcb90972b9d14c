/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The record sink (--record FILE.csv): every published sample in
 * baro-sim's columns, reaching the disk at least once a second, the file
 * renamed into place when barod stops cleanly.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "sample-csv.h"
#include "sink.h"
#include "util-atomic-file.h"

#define FLUSH_EVERY_US 1000000u

struct record_sink {
	struct sink base;
	struct atomic_file file;
	FILE *f;			/* NULL once stopped */
	char path[256];
	uint64_t errors;
	uint64_t last_flush_us;
};

static void
record_sink_sample(struct sink *k, const struct emit_ctx *ctx, const struct baro_sample *s)
{
	struct record_sink *r = (struct record_sink *)k;

	(void)ctx;
	if (r->f && sample_csv_write(r->f, s) < 0)
		r->errors++;
}

/* Recorded data reaches the disk at least once a second. */
static void
record_sink_heartbeat(struct sink *k, uint64_t now_us)
{
	struct record_sink *r = (struct record_sink *)k;

	if (!r->f || now_us - r->last_flush_us < FLUSH_EVERY_US)
		return;
	if (fflush(r->f) != 0)
		r->errors++;
	r->last_flush_us = now_us;
}

static bool
record_sink_reload(struct sink *k, const struct config *next)
{
	(void)k;
	(void)next;
	return true;
}

/* The file takes its name only if every sample reached it: a file with
 * holes would pass for a complete recording. */
static int
record_sink_stop(struct sink *k)
{
	struct record_sink *r = (struct record_sink *)k;
	char err[512];

	if (!r->f)
		return r->errors ? -EIO : 0;
	r->f = NULL;
	if (r->errors) {
		atomic_file_abort(&r->file);
		log_msg(k->env->log, LOG_LEVEL_ERR,
			"record %s not written: %" PRIu64 " write errors",
			r->path, r->errors);
	} else if (atomic_file_commit(&r->file, err, sizeof(err)) < 0) {
		r->errors++;
		log_msg(k->env->log, LOG_LEVEL_ERR, "record %s", err);
	}
	return r->errors ? -EIO : 0;
}

static void
record_sink_close(struct sink *k)
{
	struct record_sink *r = (struct record_sink *)k;

	if (r->f)
		atomic_file_abort(&r->file);
	free(r);
}

static const struct sink_ops record_ops = {
	.name = "record",
	.sample = record_sink_sample,
	.heartbeat = record_sink_heartbeat,
	.reload = record_sink_reload,
	.stop = record_sink_stop,
	.close = record_sink_close,
};

struct sink *
sink_record_open(const struct sink_env *env, const char *path, char *err,
		 size_t errlen)
{
	struct record_sink *r = calloc(1, sizeof(*r));

	if (!r) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (!atomic_file_open(&r->file, path, err, errlen)) {
		free(r);
		return NULL;
	}
	r->base = (struct sink){ .ops = &record_ops, .env = env };
	snprintf(r->path, sizeof(r->path), "%s", path);
	r->f = r->file.f;
	if (sample_csv_write_header(r->f) < 0)
		r->errors++;
	return &r->base;
}
