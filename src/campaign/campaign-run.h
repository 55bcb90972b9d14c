/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * baro-campaign's commands over a campaign file and its output directory
 * (doc/campaign.md):
 *
 *   DIR/campaign.ini      the campaign as run, and campaign.sha256: a
 *                         rerun with another campaign is refused
 *   DIR/jobs/NNNN/        one directory per job (campaign-job.h)
 *   DIR/summary.csv/.txt  every finished job's outcome and metrics, and
 *   DIR/index.html        the matrix as tables and heat maps, each cell
 *                         linked to its job's judge report
 *
 * run: the jobs of this shard (job k is in shard (k - 1) % N + 1), N at
 * a time, each in a process group of its own ended with everything in
 * it when the job ends, times out or the tool is stopped; a job with a
 * result is skipped, so a rerun resumes.  Slots (ports, instances) are
 * numbered from (K - 1) * jobs, so the shards of one machine do not
 * meet.  merge: the shards' jobs into one directory and its report,
 * byte for byte what one run with the same results writes.
 */
#ifndef BAROD_CAMPAIGN_RUN_H
#define BAROD_CAMPAIGN_RUN_H

#include <stdbool.h>
#include <stdio.h>

#include "campaign-job.h"

enum { CAMPAIGN_EXIT_OK = 0, CAMPAIGN_EXIT_FAILED = 1,
       CAMPAIGN_EXIT_USAGE = 2, CAMPAIGN_EXIT_IO = 3 };

struct campaign_run_opts {
	const char *file;	/* the campaign */
	const char *out;	/* DIR */
	unsigned jobs;		/* at a time, >= 1 */
	unsigned shard_k, shard_n;	/* 1 of 1: all */
	double hang_s;		/* an autopilot silent this long is hung */
	bool quiet;
	struct campaign_tools tools;
};

/* plan: one line per job of the shard: number, slot, name. */
int
campaign_plan(const struct campaign_run_opts *o, FILE *out);

int
campaign_run(const struct campaign_run_opts *o);

/* merge -o DIR SHARD...; report DIR. */
int
campaign_merge(const char *out, const char *const *dirs, size_t n);

int
campaign_report(const char *dir);

#endif
