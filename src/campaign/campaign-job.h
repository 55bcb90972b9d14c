/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * One job of a campaign, in its own directory:
 *
 *   scenario.scn    the matrix's scenario template for this job
 *   autopilot.out   the autopilot's own output (its command, from dir)
 *   drive.out       baro-drive's, with record.csv (what was set when on
 *                   the autopilot's clock) and drive.state
 *   telemetry.csv   what the flight saw: phases, mode and arming
 *                   changes, STATUSTEXTs, failsafes, on the autopilot's
 *                   clock
 *   judge/          baro-replay's report on the autopilot's log with the
 *                   record as its labels and -f autopilot (plots)
 *   result.json     the outcome and the metrics, written last and
 *                   atomically: a job with one is finished
 *
 * With link = px4-sim-proxy, barod instead of baro-drive:
 *
 *   barod.conf      its [px4] section: the instance's port, on loopback
 *   barod.out       its log, which says the simulator's time_usec at its
 *                   physics time 0
 *   barod.csv       its record: every sample it published
 *   labels.csv      the scenario's faults on the autopilot's clock, in
 *                   the record's format (campaign-labels.h), the judge's
 *                   labels in place of record.csv
 *
 * The autopilot and baro-drive (or barod) run as children in this
 * process's group (the caller made it a group leader) and are ended when
 * the job ends, baro-drive first so that it puts back what it set, barod
 * first so that its record is whole.
 */
#ifndef BAROD_CAMPAIGN_JOB_H
#define BAROD_CAMPAIGN_JOB_H

#include <limits.h>
#include <stddef.h>

#include "campaign-file.h"

/* The programs a job runs. */
struct campaign_tools {
	char drive[PATH_MAX];	/* baro-drive */
	char replay[PATH_MAX];	/* baro-replay */
	char barod[PATH_MAX];	/* barod (link = px4-sim-proxy) */
};

struct campaign_job_spec {
	const struct campaign *c;
	const char *base;	/* the campaign file's directory */
	const char *hash;	/* the campaign's, into the result */
	size_t job;		/* 1..njobs */
	unsigned slot;
	const char *dir;	/* the job's directory (exists) */
	const struct campaign_tools *tools;
	double hang_s;		/* autopilot silent this long: hung */
};

/* Outcomes a result says (result.json "outcome"). */
#define CAMPAIGN_OUTCOMES                                                    \
	"flown, crashed, hung, never-armed, refused, no-climb, "             \
	"disarmed-in-air, no-log, timed-out, failed"

/*
 * Run the job and write its result.json.  0, or a negative errno when
 * not even a result could be written (said on stderr).  Meant to run in
 * a child the caller forked and made a process-group leader.
 */
int
campaign_job_run(const struct campaign_job_spec *s);

/* A result written by the caller for a job that could not write its own
 * (it timed out, or its runner died): outcome and why. */
int
campaign_job_result_failed(const struct campaign_job_spec *s,
			   const char *outcome, const char *why);

#endif
