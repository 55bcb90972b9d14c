/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Campaign files: any bytes give 0 or -EINVAL with "NAME:" said, never a
 * crash.  A parsed campaign has at least one job, each job's name is
 * found again from its values, and its command, log, barod_args, gcs and
 * drive_connect templates expand (every {name} in them was checked) for
 * the first and the last job; a barod link has its upstream.
 * A broken invariant aborts, which the fuzzer reports.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "campaign-file.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct campaign c;
	char err[1024] = "", out[4 * CAMPAIGN_TEXT_LEN], name[1024];

	int rc = campaign_parse(&c, (const char *)data, size, "f.ini", err,
				sizeof(err));
	if (rc < 0) {
		fuzz_check(rc == -EINVAL);
		fuzz_check(strncmp(err, "f.ini", 5) == 0);
		return 0;
	}
	fuzz_check(c.njobs >= 1 && c.njobs <= CAMPAIGN_MAX_JOBS);
	fuzz_check(c.command[0] && c.log[0] && c.scenario[0]);
	const size_t jobs[] = { 1, c.njobs };
	for (size_t i = 0; i < 2; i++) {
		struct campaign_vars v = { .c = &c, .job = jobs[i], .slot = 7,
					   .dir = "/d" };
		fuzz_check(campaign_expand(c.command, &v, out, sizeof(out), err,
					   sizeof(err)) == 0);
		fuzz_check(campaign_expand(c.log, &v, out, sizeof(out), err,
					   sizeof(err)) == 0);
		/* The link's templates were checked too; gcs and
		 * drive_connect say how they connect. */
		fuzz_check(campaign_expand(c.barod_args, &v, out, sizeof(out),
					   err, sizeof(err)) == 0);
		fuzz_check(campaign_expand(c.gcs, &v, out, sizeof(out), err,
					   sizeof(err)) == 0);
		fuzz_check(strncmp(out, "udp", 3) == 0);
		fuzz_check(campaign_expand(c.drive_connect, &v, out,
					   sizeof(out), err, sizeof(err)) == 0);
		fuzz_check(c.link == CAMPAIGN_LINK_DRIVE || c.upstream_host[0]);
		fuzz_check(campaign_job_name(&c, jobs[i], name,
					     sizeof(name)) == 0);
		const char *vals[CAMPAIGN_MAX_AXES];
		campaign_job_values(&c, jobs[i], vals);
		for (size_t a = 0; a < c.naxes; a++)
			fuzz_check(strstr(name, vals[a]) != NULL);
	}
	return 0;
}
