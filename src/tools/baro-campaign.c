// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * baro-campaign: a matrix of baro faults flown against an autopilot's
 * SITL, every job judged by how the autopilot coped (doc/campaign.md).
 * A thin CLI over src/campaign.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "campaign-run.h"

static void
usage(FILE *out)
{
	fputs("Usage: baro-campaign COMMAND [OPTIONS] ...\n"
	      "Fly a matrix of baro faults against an autopilot's SITL and "
	      "judge each flight.\n"
	      "\n"
	      "Commands:\n"
	      "  plan CAMPAIGN          the jobs (of a shard), one per line\n"
	      "  run -o DIR CAMPAIGN    run the jobs not finished in DIR and "
	      "write its report\n"
	      "  merge -o DIR SHARD...  the shards' jobs into DIR, and its "
	      "report\n"
	      "  report DIR             write DIR's report again from its "
	      "results\n"
	      "\n"
	      "Options:\n"
	      "  -o, --output DIR       the campaign's directory\n"
	      "  -j, --jobs N           N jobs at a time (default 1), each "
	      "on its own ports\n"
	      "      --shard K/N        only jobs k with (k - 1) % N + 1 = K\n"
	      "      --hang S           an autopilot silent S seconds is hung "
	      "(default 15)\n"
	      "  -q, --quiet            no progress on stderr\n"
	      "  -h, --help             this text\n"
	      "  -V, --version          the version\n"
	      "\n"
	      "Exit: 0 every job ran and none failed; 1 a job failed (its "
	      "verdict, a crash,\n"
	      "a hang, a timeout); 2 bad input; 3 I/O; 128+N stopped by "
	      "signal N (rerun\n"
	      "to resume).  baro-drive, baro-replay and barod are taken "
	      "from BARO_DRIVE,\n"
	      "BARO_REPLAY and BAROD_DAEMON, else beside this program, else "
	      "PATH.\n",
	      out);
}

/* A program beside this one, else the name for PATH. */
static void
tool_path(const char *env, const char *name, char *out, size_t len)
{
	const char *e = getenv(env);
	if (e && *e) {
		snprintf(out, len, "%s", e);
		return;
	}
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		char try[PATH_MAX + 64];
		snprintf(try, sizeof(try), "%s/%s", dirname(self), name);
		if (access(try, X_OK) == 0 && strlen(try) < len) {
			snprintf(out, len, "%s", try);
			return;
		}
	}
	snprintf(out, len, "%s", name);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "shard", required_argument, NULL, 's' },
		{ "hang", required_argument, NULL, 'H' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	struct campaign_run_opts o = { .jobs = 1, .shard_k = 1, .shard_n = 1,
				       .hang_s = 15 };
	int c;

	while ((c = getopt_long(argc, argv, "o:j:qhV", longopts, NULL)) != -1) {
		char *end;
		switch (c) {
		case 'o':
			o.out = optarg;
			break;
		case 'j': {
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || !*optarg || v < 1 || v > 256) {
				fprintf(stderr, "baro-campaign: --jobs %s: a "
						"number from 1 to 256\n", optarg);
				return CAMPAIGN_EXIT_USAGE;
			}
			o.jobs = (unsigned)v;
			break;
		}
		case 's': {
			unsigned k, n;
			char tail;
			if (sscanf(optarg, "%u/%u%c", &k, &n, &tail) != 2 || n < 1 ||
			    n > 10000 || k < 1 || k > n) {
				fprintf(stderr, "baro-campaign: --shard %s: "
						"K/N with 1 <= K <= N\n", optarg);
				return CAMPAIGN_EXIT_USAGE;
			}
			o.shard_k = k;
			o.shard_n = n;
			break;
		}
		case 'H': {
			double v = strtod(optarg, &end);
			if (*end || !*optarg || !(v >= 1 && v <= 3600)) {
				fprintf(stderr, "baro-campaign: --hang %s: "
						"seconds from 1 to 3600\n", optarg);
				return CAMPAIGN_EXIT_USAGE;
			}
			o.hang_s = v;
			break;
		}
		case 'q':
			o.quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("baro-campaign %s\n", BAROD_VERSION);
			return 0;
		default:
			fprintf(stderr, "baro-campaign: see baro-campaign "
					"--help\n");
			return CAMPAIGN_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return CAMPAIGN_EXIT_USAGE;
	}
	const char *cmd = argv[optind++];
	const int nargs = argc - optind;
	tool_path("BARO_DRIVE", "baro-drive", o.tools.drive,
		  sizeof(o.tools.drive));
	tool_path("BARO_REPLAY", "baro-replay", o.tools.replay,
		  sizeof(o.tools.replay));
	/* Not BAROD: the tests' name for the program under test. */
	tool_path("BAROD_DAEMON", "barod", o.tools.barod,
		  sizeof(o.tools.barod));
	if (strcmp(cmd, "plan") == 0 || strcmp(cmd, "run") == 0) {
		if (nargs != 1) {
			fprintf(stderr, "baro-campaign: %s takes one campaign "
					"file\n", cmd);
			return CAMPAIGN_EXIT_USAGE;
		}
		o.file = argv[optind];
		if (strcmp(cmd, "plan") == 0)
			return campaign_plan(&o, stdout);
		if (!o.out) {
			fprintf(stderr, "baro-campaign: run needs -o DIR\n");
			return CAMPAIGN_EXIT_USAGE;
		}
		return campaign_run(&o);
	}
	if (strcmp(cmd, "merge") == 0) {
		if (!o.out || nargs < 1) {
			fprintf(stderr, "baro-campaign: merge -o DIR SHARD...\n");
			return CAMPAIGN_EXIT_USAGE;
		}
		return campaign_merge(o.out, (const char *const *)argv + optind,
				      (size_t)nargs);
	}
	if (strcmp(cmd, "report") == 0) {
		if (nargs != 1) {
			fprintf(stderr, "baro-campaign: report DIR\n");
			return CAMPAIGN_EXIT_USAGE;
		}
		return campaign_report(argv[optind]);
	}
	fprintf(stderr, "baro-campaign: '%s' is not a command (plan, run, "
			"merge, report)\n", cmd);
	return CAMPAIGN_EXIT_USAGE;
}
