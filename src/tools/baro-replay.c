/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * baro-replay: offline barometer filter validation.
 *
 *   baro-replay list LOG...          what each log holds
 *   baro-replay export [-c CH] LOG   its baro samples as CSV
 *   baro-replay run -o DIR [LOG...]  filters x scenarios x logs (and the
 *                                    synthetic stream) -> a report
 *   baro-replay compare BASE NEW     has a filter under test got worse?
 *
 * Exit status: 0 success, 1 a filter under test (-f) failed a threshold
 * (run; with --strict also warned, or a case was unchecked, a log
 * damaged or without baro samples; baselines never count) or the
 * log is damaged (list/export: everything before the damage was still
 * written) or (compare) a filter got worse, 2 bad usage, unreadable
 * input or reports that are not comparable, 3 I/O failure.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log-reader.h"
#include "log-segments.h"
#include "replay-cases.h"
#include "replay-compare.h"
#include "replay-merge.h"
#include "sim-params.h"
#include "util-atomic-file.h"
#include "util-strings.h"

#define EXIT_DAMAGED 1
#define EXIT_USAGE 2
#define EXIT_IO 3

static void
usage(FILE *out)
{
	fputs("Usage: baro-replay COMMAND [OPTIONS] ...\n"
	      "Replay barometer logs and synthetic fault scenarios through "
	      "filters.\n"
	      "\n"
	      "Commands:\n"
	      "  list LOG...            format, firmware, channels with "
	      "counts and spans,\n"
	      "                         sensor streams with their rates, "
	      "message types,\n"
	      "                         damage\n"
	      "  export [-c CHANNEL] [-o FILE] LOG\n"
	      "                         baro samples as CSV (every baro "
	      "channel, or one)\n"
	      "  run -o DIR [OPTIONS] [LOG...]\n"
	      "                         run filters over the logs and the "
	      "synthetic stream\n"
	      "                         under every scenario; write a report "
	      "into DIR\n"
	      "  merge -o DIR REPORT... join the reports of run --shard 1/N .. "
	      "N/N into\n"
	      "                         the report one run would have "
	      "written\n"
	      "  compare BASE NEW       list every case where a filter under "
	      "test got worse\n"
	      "                         from report BASE to report NEW; "
	      "exit 1 if one did\n"
	      "  filters                list the built-in filters\n"
	      "\n"
	      "LOG is an ArduPilot DataFlash .bin, a PX4 .ulg, a MAVLink "
	      ".tlog or a CSV\n"
	      "file (recognised by content; -F FORMAT to insist), gzip'd or "
	      "not.\n"
	      "\n"
	      "Options:\n"
	      "  -c, --channel NAME     baro channel (see list; default: the "
	      "one with most\n"
	      "                         samples)\n"
	      "  -r, --reference SRC    gps, ekf, rangefinder, truth or "
	      "log-baro-alt\n"
	      "                         (default: the first the log has, in "
	      "that order\n"
	      "                         after truth)\n"
	      "  -F, --format FORMAT    dataflash, ulog, tlog or csv\n"
	      "  -o, --output PATH      export: the CSV file (default "
	      "stdout);\n"
	      "                         run: the report directory\n"
	      "  -f, --filter [LABEL=]SPEC\n"
	      "                         a filter under test: NAME[:key=value,...]"
	      " or\n"
	      "                         plugin:PATH[:key=value,...] or "
	      "exec:COMMAND (a\n"
	      "                         child process, "
	      "doc/filter-exec.md) (repeatable); the exit\n"
	      "                         status is theirs, the built-ins not "
	      "named run beside\n"
	      "                         them as baselines.  None: every "
	      "built-in, nothing\n"
	      "                         judged, exit 0.  LABEL ([a-z0-9_.-]+)"
	      " names it in\n"
	      "                         the report (two builds of one "
	      "plugin side by side).\n"
	      "                         compare: LABEL or BASE_LABEL:NEW_LABEL,"
	      " the filters\n"
	      "                         to compare (default: every one under "
	      "test in both)\n"
	      "      --tolerance METRIC=ABS|PCT%\n"
	      "                         compare: how much worse METRIC may get"
	      " (repeatable;\n"
	      "                         default: a tenth of its rule's limit)"
	      "\n"
	      "      --json             compare: one JSON object on stdout, "
	      "not the table\n"
	      "      --no-baselines     only the filters named with -f\n"
	      "  -s, --scenarios PATH   a scenario file or a directory of "
	      "*.scn, or a bundled\n"
	      "                         scenario's name (spike, clean, ...); "
	      "repeatable;\n"
	      "                         default: the bundled set)\n"
	      "      --synthetic        run the synthetic stream also when "
	      "logs are given\n"
	      "      --no-synthetic     never run it (default when logs are "
	      "given)\n"
	      "      --synthetic-only   no logs, only the synthetic stream\n"
	      "  -t, --thresholds FILE  pass/warn/fail rules (default: the "
	      "built-in set)\n"
	      "      --labels RECORD    the logs are of the run baro-drive "
	      "drove and recorded\n"
	      "                         in RECORD: its faults label them, "
	      "nothing is injected,\n"
	      "                         judged against the run's truth; "
	      "-f autopilot judges\n"
	      "                         the autopilot's own estimate "
	      "(doc/drive.md)\n"
	      "      --seed N           noise and fault seed (default 1)\n"
	      "  -p, --param NAME=VALUE a SIM_* parameter of the synthetic "
	      "stream's emulator\n"
	      "                         (as baro-sim -p; repeatable)\n"
	      "      --ardupilot VERSION  the ArduPilot the synthetic stream's "
	      "emulator\n"
	      "                         reproduces: 4.5, 4.6, 4.7 (default) or "
	      "master\n"
	      "      --plots KIND       png, svg or none (default png): "
	      "each log's first case\n"
	      "                         and the cases where a filter under "
	      "test warns or\n"
	      "                         fails; KIND,all (all: png,all) "
	      "every case\n"
	      "      --shard K/N        run only part K of N of the inputs "
	      "(input p, the logs\n"
	      "                         as given then the synthetic stream, "
	      "is part p%N+1)\n"
	      "      --jobs N           N processes on this machine, one "
	      "report\n"
	      "      --case-timeout S   a plugin filter gets S seconds per case "
	      "(default 60);\n"
	      "                         one that crashes or runs past it fails "
	      "that case;\n"
	      "                         0: plugins run in this process (to "
	      "debug one)\n"
	      "      --no-timing        leave the time-per-sample figures out,"
	      " so reports\n"
	      "                         of equal inputs are byte-identical\n"
	      "      --strict           exit 1 also when a filter under test "
	      "warns, a case is\n"
	      "                         unchecked (its faults did not\n"
	      "                         run on the recording), a log is "
	      "damaged or has no\n"
	      "                         baro samples (a last record cut "
	      "off is a warning)\n"
	      "  -q, --quiet            no progress on stderr\n"
	      "  -h, --help             this text\n"
	      "  -V, --version          the version\n",
	      out);
}

struct options {
	const char *channel;
	const char *reference;
	const char *format;
	const char *output;
	/* --synthetic 1, --no-synthetic -1, neither 0: the synthetic stream
	 * runs when no log is given. */
	int synthetic;
	unsigned jobs;		/* run --jobs: processes, 0 or 1: this one */
	struct replay_tolerance tol[REPLAY_COMPARE_MAX_TOLERANCES];
	size_t ntol;		/* compare --tolerance */
	bool json;		/* compare --json */
	struct replay_config cfg;
};

enum {
	OPT_SEED = 256,
	OPT_NO_SYNTHETIC,
	OPT_SYNTHETIC_ONLY,
	OPT_NO_TIMING,
	OPT_STRICT,
	OPT_PLOTS,
	OPT_ARDUPILOT,
	OPT_NO_BASELINES,
	OPT_SYNTHETIC,
	OPT_SHARD,
	OPT_JOBS,
	OPT_CASE_TIMEOUT,
	OPT_TOLERANCE,
	OPT_JSON,
	OPT_LABELS,
};

/* Which commands take an option: one elsewhere is a mistake worth a
 * message (`list -o x` would otherwise do nothing silently). */
enum {
	CMD_LIST = 1u << 0,
	CMD_EXPORT = 1u << 1,
	CMD_RUN = 1u << 2,
	CMD_FILTERS = 1u << 3,
	CMD_MERGE = 1u << 4,
	CMD_COMPARE = 1u << 5,
	CMD_ALL = CMD_LIST | CMD_EXPORT | CMD_RUN | CMD_FILTERS | CMD_MERGE |
		  CMD_COMPARE,
};

static const struct option longopts[] = {
	{ "channel", required_argument, NULL, 'c' },
	{ "reference", required_argument, NULL, 'r' },
	{ "format", required_argument, NULL, 'F' },
	{ "output", required_argument, NULL, 'o' },
	{ "filter", required_argument, NULL, 'f' },
	{ "scenarios", required_argument, NULL, 's' },
	{ "thresholds", required_argument, NULL, 't' },
	{ "param", required_argument, NULL, 'p' },
	{ "plots", required_argument, NULL, OPT_PLOTS },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "ardupilot", required_argument, NULL, OPT_ARDUPILOT },
	{ "synthetic", no_argument, NULL, OPT_SYNTHETIC },
	{ "no-synthetic", no_argument, NULL, OPT_NO_SYNTHETIC },
	{ "synthetic-only", no_argument, NULL, OPT_SYNTHETIC_ONLY },
	{ "no-timing", no_argument, NULL, OPT_NO_TIMING },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "no-baselines", no_argument, NULL, OPT_NO_BASELINES },
	{ "shard", required_argument, NULL, OPT_SHARD },
	{ "jobs", required_argument, NULL, OPT_JOBS },
	{ "case-timeout", required_argument, NULL, OPT_CASE_TIMEOUT },
	{ "tolerance", required_argument, NULL, OPT_TOLERANCE },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "labels", required_argument, NULL, OPT_LABELS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ 0 },
};

static unsigned
option_commands(int c)
{
	switch (c) {
	case 'o':
		return CMD_EXPORT | CMD_RUN | CMD_MERGE;
	case OPT_STRICT:
	case 'q':
		return CMD_RUN | CMD_MERGE;
	case 'c':
		return CMD_EXPORT | CMD_RUN;
	case 'F':
		return CMD_LIST | CMD_EXPORT | CMD_RUN;
	case 'f':
		return CMD_RUN | CMD_COMPARE;
	case OPT_TOLERANCE:
	case OPT_JSON:
		return CMD_COMPARE;
	case 'h':
	case 'V':
		return CMD_ALL;
	default:
		return CMD_RUN;
	}
}

/* "-o/--output", "--plots": both ways the user may have written it. */
static void
option_name(int c, char *buf, size_t len)
{
	const char *lng = NULL;
	for (const struct option *o = longopts; o->name; o++)
		if (o->val == c)
			lng = o->name;
	if (c < 256 && lng)
		snprintf(buf, len, "-%c/--%s", c, lng);
	else if (lng)
		snprintf(buf, len, "--%s", lng);
	else
		snprintf(buf, len, "-%c", c);
}

/* One line for an option getopt did not take, with a hint. */
static int
bad_option(const char *cmd, const char *arg, int c)
{
	char name[64];
	if (c == ':') {
		option_name(optopt, name, sizeof(name));
		fprintf(stderr, "baro-replay: %s: %s needs a value (see "
				"baro-replay --help)\n",
			cmd, optopt ? name : arg);
		return EXIT_USAGE;
	}
	if (optopt || strncmp(arg, "--", 2) != 0) {
		fprintf(stderr, "baro-replay: %s: unknown option '-%c' (see "
				"baro-replay --help)\n",
			cmd, optopt ? optopt : '?');
		return EXIT_USAGE;
	}
	char word[64];
	snprintf(word, sizeof(word), "%s", arg + 2);
	word[strcspn(word, "=")] = '\0';
	const char *best = NULL;
	size_t best_d = 3;	/* two edits at most, or it is no hint */
	for (const struct option *o = longopts; o->name; o++) {
		size_t d = str_edit_distance_below(word, o->name, false,
						   best_d);
		if (d < best_d) {
			best_d = d;
			best = o->name;
		}
	}
	if (best)
		fprintf(stderr, "baro-replay: %s: unknown option '--%s' (did "
				"you mean --%s? see baro-replay --help)\n",
			cmd, word, best);
	else
		fprintf(stderr, "baro-replay: %s: unknown option '--%s' (see "
				"baro-replay --help)\n",
			cmd, word);
	return EXIT_USAGE;
}

static int
parse_options(int argc, char **argv, const char *cmd, unsigned cmd_bit,
	      struct options *o)
{
	int c;
	uint64_t u;
	char err[512];

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:r:F:o:f:s:t:p:qhV", longopts,
				NULL)) != -1) {
		if (c == '?' || c == ':')
			return bad_option(cmd, argv[optind - 1], c);
		if (!(option_commands(c) & cmd_bit)) {
			char name[64];
			option_name(c, name, sizeof(name));
			fprintf(stderr, "baro-replay: %s: %s does not apply to "
					"%s (see baro-replay --help)\n",
				cmd, name, cmd);
			return EXIT_USAGE;
		}
		switch (c) {
		case 'c':
			o->channel = optarg;
			break;
		case 'r':
			o->reference = optarg;
			break;
		case 'F':
			if (!log_format_by_name(optarg)) {
				fprintf(stderr, "baro-replay: --format %s: "
						"not dataflash, ulog, tlog or "
						"csv\n",
					optarg);
				return EXIT_USAGE;
			}
			o->format = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'f':
			if (o->cfg.nfilters >= REPLAY_MAX_FILTERS) {
				fprintf(stderr, "baro-replay: at most %d "
						"filters\n",
					REPLAY_MAX_FILTERS);
				return EXIT_USAGE;
			}
			o->cfg.filters[o->cfg.nfilters++] = optarg;
			break;
		case 's':
			if (o->cfg.nscenario_paths >= REPLAY_MAX_PATHS) {
				fprintf(stderr, "baro-replay: at most %d "
						"--scenarios\n",
					REPLAY_MAX_PATHS);
				return EXIT_USAGE;
			}
			o->cfg.scenario_paths[o->cfg.nscenario_paths++] =
				optarg;
			break;
		case OPT_LABELS:
			o->cfg.labels = optarg;
			break;
		case 't':
			o->cfg.thresholds = optarg;
			break;
		case 'p':
			/* -p was the plot type before it meant a parameter
			 * as in barod and baro-sim: say so, not "unknown
			 * parameter png". */
			if (strcmp(optarg, "png") == 0 ||
			    strcmp(optarg, "svg") == 0 ||
			    strcmp(optarg, "none") == 0) {
				fprintf(stderr, "baro-replay: -p %s: -p sets a "
						"parameter (NAME=VALUE) as in "
						"barod and baro-sim; the plot "
						"type is --plots %s\n",
					optarg, optarg);
				return EXIT_USAGE;
			}
			if (sim_param_assign(&o->cfg.params, optarg, err,
					     sizeof(err)) < 0) {
				fprintf(stderr, "baro-replay: -p %s: %s\n",
					optarg, err);
				return EXIT_USAGE;
			}
			break;
		case OPT_PLOTS:
			/* KIND or KIND,all; all alone: png,all. */
			o->cfg.plot_all = strcmp(optarg, "all") == 0 ||
					  strcmp(optarg, "png,all") == 0 ||
					  strcmp(optarg, "svg,all") == 0;
			if (strcmp(optarg, "png") == 0 ||
			    strcmp(optarg, "all") == 0 ||
			    strcmp(optarg, "png,all") == 0)
				o->cfg.plot = REPORT_PLOT_PNG;
			else if (strcmp(optarg, "svg") == 0 ||
				 strcmp(optarg, "svg,all") == 0)
				o->cfg.plot = REPORT_PLOT_SVG;
			else if (strcmp(optarg, "none") == 0)
				o->cfg.plot = REPORT_PLOT_NONE;
			else {
				fprintf(stderr, "baro-replay: --plots %s: "
						"png, svg, none, all (png of "
						"every case), png,all or "
						"svg,all\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_SEED:
			if (str_to_u64(optarg, &u) < 0 || u > UINT32_MAX) {
				fprintf(stderr, "baro-replay: --seed %s: "
						"not a number 0..%u\n",
					optarg, UINT32_MAX);
				return EXIT_USAGE;
			}
			o->cfg.seed = (uint32_t)u;
			break;
		case OPT_ARDUPILOT:
			if (baro_sitl_ardupilot_parse(optarg,
						      &o->cfg.ardupilot) < 0) {
				fprintf(stderr, "baro-replay: --ardupilot %s: "
						"not " BARO_SITL_AP_CHOICES "\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_SYNTHETIC:
		case OPT_NO_SYNTHETIC:
			if (o->synthetic && o->synthetic !=
			    (c == OPT_SYNTHETIC ? 1 : -1)) {
				fprintf(stderr, "baro-replay: %s: --synthetic "
						"and --no-synthetic contradict "
						"each other\n",
					cmd);
				return EXIT_USAGE;
			}
			o->synthetic = c == OPT_SYNTHETIC ? 1 : -1;
			break;
		case OPT_SYNTHETIC_ONLY:
			o->cfg.logs_enabled = false;
			break;
		case OPT_NO_TIMING:
			o->cfg.timing = false;
			break;
		case OPT_CASE_TIMEOUT: {
			double v;
			if (str_to_double(optarg, &v) < 0 || !(v >= 0.0) ||
			    v > 86400.0) {
				fprintf(stderr, "baro-replay: --case-timeout "
						"%s: not a number of seconds "
						"from 0 to 86400\n",
					optarg);
				return EXIT_USAGE;
			}
			o->cfg.case_timeout_s = v;
			break;
		}
		case OPT_STRICT:
			o->cfg.strict = true;
			break;
		case OPT_NO_BASELINES:
			o->cfg.baselines = false;
			break;
		case OPT_SHARD: {
			unsigned k, n;
			char tail;
			if (sscanf(optarg, "%u/%u%c", &k, &n, &tail) != 2 ||
			    n < 1 || n > 100000 || k < 1 || k > n ||
			    strspn(optarg, "0123456789/") != strlen(optarg)) {
				fprintf(stderr, "baro-replay: --shard %s: K/N "
						"with 1 <= K <= N (this "
						"machine's part of N)\n",
					optarg);
				return EXIT_USAGE;
			}
			o->cfg.shard_k = k;
			o->cfg.shard_n = n;
			break;
		}
		case OPT_JOBS:
			if (str_to_u64(optarg, &u) < 0 || u < 1 || u > 256) {
				fprintf(stderr, "baro-replay: --jobs %s: a "
						"number of processes, 1..256\n",
					optarg);
				return EXIT_USAGE;
			}
			o->jobs = (unsigned)u;
			break;
		case OPT_TOLERANCE: {
			struct replay_tolerance t;
			if (o->ntol >= REPLAY_COMPARE_MAX_TOLERANCES) {
				fprintf(stderr, "baro-replay: at most %d "
						"--tolerance\n",
					REPLAY_COMPARE_MAX_TOLERANCES);
				return EXIT_USAGE;
			}
			if (replay_tolerance_parse(optarg, &t, err,
						   sizeof(err)) < 0) {
				fprintf(stderr, "baro-replay: %s\n", err);
				return EXIT_USAGE;
			}
			for (size_t i = 0; i < o->ntol; i++)
				if (strcmp(o->tol[i].metric, t.metric) == 0) {
					fprintf(stderr, "baro-replay: "
							"--tolerance %s: %s "
							"is given twice\n",
						optarg, t.metric);
					return EXIT_USAGE;
				}
			o->tol[o->ntol++] = t;
			break;
		}
		case OPT_JSON:
			o->json = true;
			break;
		case 'q':
			o->cfg.quiet = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("baro-replay %s\n", BAROD_VERSION);
			exit(0);
		}
	}
	/* A parameter the release does not have could not act. */
	for (size_t i = 0; i < sim_param_count(); i++) {
		if (baro_sitl_ardupilot_param_check(
			    o->cfg.ardupilot, i,
			    (double)sim_param_get(&o->cfg.params, i), err,
			    sizeof(err)) < 0) {
			fprintf(stderr, "baro-replay: %s: %s\n", cmd, err);
			return EXIT_USAGE;
		}
	}
	return 0;
}

static int
open_log(const char *path, const char *format, struct log_reader *r,
	 int *fd)
{
	*fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY);
	if (*fd < 0) {
		fprintf(stderr, "baro-replay: %s: %s\n", path,
			strerror(errno));
		return EXIT_USAGE;
	}
	if (log_reader_open_fd(r, *fd, path, format) < 0) {
		fprintf(stderr, "baro-replay: %s\n", r->err);
		log_reader_close(r);
		if (*fd != STDIN_FILENO)
			close(*fd);
		return EXIT_USAGE;
	}
	return 0;
}

/* What list prints per channel. */
struct chan_stats {
	bool seen;
	bool derived;		/* pressure from an altitude, not measured */
	bool above_home;	/* ... an altitude above home, not AMSL */
	enum log_record_kind kind;
	uint64_t count;
	uint64_t first_us, last_us;
	double lo, hi;
	char what[32];
	/* Baro channels: where the stream breaks (log-segments.h). */
	struct log_segmenter seg;
	char breaks[256];
	size_t nbreaks;
};

#define LIST_BREAKS 6

/* Feed a baro sample's time to its channel's segmenter; note a break. */
static enum log_seg_break
note_segment(struct chan_stats *c, uint64_t t)
{
	uint64_t gap;
	enum log_seg_break b = log_segmenter_push(&c->seg, t, &gap);
	if (b == LOG_SEG_NONE || b == LOG_SEG_FIRST)
		return b;
	size_t len = strlen(c->breaks);
	if (c->nbreaks < LIST_BREAKS && len < sizeof(c->breaks)) {
		const char *sep = c->nbreaks ? ", " : "";
		if (b == LOG_SEG_GAP)
			snprintf(c->breaks + len, sizeof(c->breaks) - len,
				 "%sgap of %.1f s at %.3f s", sep,
				 (double)gap * 1e-6, (double)t * 1e-6);
		else if (b == LOG_SEG_BACKWARDS)
			snprintf(c->breaks + len, sizeof(c->breaks) - len,
				 "%stime going back %.3f s at %.3f s", sep,
				 (double)gap * 1e-6, (double)t * 1e-6);
		else
			snprintf(c->breaks + len, sizeof(c->breaks) - len,
				 "%s%s at %.3f s", sep, log_seg_break_name(b),
				 (double)t * 1e-6);
	} else if (c->nbreaks == LIST_BREAKS && len + 5 < sizeof(c->breaks)) {
		strcat(c->breaks, ", ...");
	}
	c->nbreaks++;
	return b;
}

/* A reboot the reader reported: every baro channel breaks there. */
static void
note_reboot(struct chan_stats *cs)
{
	for (unsigned i = 0; i < LOG_MAX_CHANNELS; i++)
		log_segmenter_reboot(&cs[i].seg);
}

/* Message types the log defines but never wrote are left out. */
static void
print_type(const char *name, uint64_t count, void *ud)
{
	(void)ud;
	if (count)
		printf("    %-28s %" PRIu64 "\n", name, count);
}


#define LIST_EVENT_TIMES 8

/*
 * A sensor stream's rate: the median interval between its records,
 * from a histogram of 2 %-wide log bins (1 us to 1000 s) holding each
 * bin's count and sum, so the rate is the mean interval inside the
 * median bin: exact for a steady logger, and constant memory whatever
 * the log's length.  The median, not the mean, so gaps (a log that
 * stops while disarmed) and bursts (tlog) do not skew it.
 */
#define RATE_BINS 1047		/* ln(1e9) / ln(1.02) */

struct sensor_stats {
	uint64_t count;
	uint64_t first_us, last_us;
	uint64_t nint;		/* positive intervals counted */
	uint32_t *bin_n;
	uint64_t *bin_sum;
};

/* The kinds list shows as sensor streams, in its column order. */
static const enum log_record_kind sensor_kinds[] = {
	LOG_REC_BARO, LOG_REC_IMU, LOG_REC_ATTITUDE, LOG_REC_GPS,
	LOG_REC_RANGE,
};
#define N_SENSOR_KINDS (sizeof(sensor_kinds) / sizeof(sensor_kinds[0]))

static const char *
sensor_kind_name(enum log_record_kind k)
{
	switch (k) {
	case LOG_REC_BARO: return "baro";
	case LOG_REC_IMU: return "imu";
	case LOG_REC_ATTITUDE: return "attitude";
	case LOG_REC_GPS: return "gps";
	case LOG_REC_RANGE: return "range";
	default: return "?";
	}
}

static int
sensor_kind_index(enum log_record_kind k)
{
	for (size_t i = 0; i < N_SENSOR_KINDS; i++)
		if (sensor_kinds[i] == k)
			return (int)i;
	return -1;
}

/* -ENOMEM when the histogram cannot be had. */
static int
sensor_note(struct sensor_stats *s, uint64_t t)
{
	if (s->count == 0) {
		s->first_us = s->last_us = t;
		s->count = 1;
		return 0;
	}
	if (!s->bin_n) {
		s->bin_n = calloc(RATE_BINS, sizeof(*s->bin_n));
		s->bin_sum = calloc(RATE_BINS, sizeof(*s->bin_sum));
		if (!s->bin_n || !s->bin_sum)
			return -ENOMEM;
	}
	/* Records out of order (a tlog's bursts) give no interval. */
	if (t > s->last_us) {
		uint64_t dt = t - s->last_us;
		long k = lround(floor(log((double)dt) / log(1.02)));
		if (k < 0)
			k = 0;
		if (k >= RATE_BINS)
			k = RATE_BINS - 1;
		s->bin_n[k]++;
		s->bin_sum[k] += dt;
		s->nint++;
	}
	s->count++;
	if (t > s->last_us)
		s->last_us = t;
	if (t < s->first_us)
		s->first_us = t;
	return 0;
}

/* Median rate in Hz, NaN without an interval. */
static double
sensor_rate_hz(const struct sensor_stats *s)
{
	uint64_t seen = 0;

	for (int k = 0; s->nint && k < RATE_BINS; k++) {
		seen += s->bin_n[k];
		if (2 * seen >= s->nint)
			return 1e6 * (double)s->bin_n[k] / (double)s->bin_sum[k];
	}
	return NAN;
}

static void
sensor_free(struct sensor_stats *s)
{
	free(s->bin_n);
	free(s->bin_sum);
}

static void
print_sensors(const struct log_reader *r, const struct sensor_stats *ss)
{
	bool any = false;

	for (unsigned i = 0; i < LOG_MAX_CHANNELS; i++)
		for (size_t k = 0; k < N_SENSOR_KINDS; k++) {
			const struct sensor_stats *s =
				&ss[i * N_SENSOR_KINDS + k];
			if (!s->count)
				continue;
			if (!any)
				printf("  sensors:\n");
			any = true;
			const char *name = log_reader_channel_name(r, i);
			double hz = sensor_rate_hz(s);
			char rate[24];
			if (isfinite(hz))
				snprintf(rate, sizeof(rate), "%8.2f Hz", hz);
			else
				snprintf(rate, sizeof(rate), "%8s Hz", "-");
			printf("    %-22s %-9s %7" PRIu64 " samples  %s  "
			       "%9.3f .. %9.3f s\n",
			       name ? name : "?",
			       sensor_kind_name(sensor_kinds[k]), s->count,
			       rate, (double)s->first_us * 1e-6,
			       (double)s->last_us * 1e-6);
		}
}

/* How a derived pressure was derived, for list and export. */
static void
derived_note(const struct log_reader *r, bool above_home, char *buf,
	     size_t len)
{
	const struct log_info *info = &r->info;
	if (strcmp(r->ops->name, "csv") == 0 && above_home)
		snprintf(buf, len, "pressure derived from the recorded "
				   "altitude when the CSV was written "
				   "(pressure_derived=1), kept as written");
	else if (!above_home)
		snprintf(buf, len, "pressure derived from the recorded AMSL "
				   "altitude through the ISA atmosphere");
	else if (info->derived_ground_known)
		snprintf(buf, len, "pressure derived from the recorded "
				   "altitude for home at %.1f m AMSL (from the "
				   "first GPS fix)",
			 info->derived_ground_m);
	else
		snprintf(buf, len, "pressure derived from the recorded "
				   "altitude for an ISA ground at sea level "
				   "(the log gives no home altitude)");
}

static int
cmd_list_one(const char *path, const struct options *o)
{
	struct log_reader r;
	struct log_record rec;
	int fd, rc;
	struct chan_stats *cs = calloc(LOG_MAX_CHANNELS, sizeof(*cs));
	struct sensor_stats *ss = calloc(LOG_MAX_CHANNELS * N_SENSOR_KINDS,
					 sizeof(*ss));
	uint64_t events[LOG_EVENT_KIND_COUNT] = { 0 };
	/* The first few times of each kind, in seconds on the log's clock. */
	double ev_t[LOG_EVENT_KIND_COUNT][LIST_EVENT_TIMES];
	double ev_v[LOG_EVENT_KIND_COUNT][LIST_EVENT_TIMES];

	if (!cs || !ss) {
		free(cs);
		free(ss);
		fprintf(stderr, "baro-replay: out of memory\n");
		return EXIT_IO;
	}
	if ((rc = open_log(path, o->format, &r, &fd)) != 0) {
		free(cs);
		free(ss);
		return rc;
	}
	bool oom = false;
	while ((rc = log_reader_next(&r, &rec)) > 0) {
		if (rec.kind == LOG_REC_EVENT) {
			unsigned k = (unsigned)rec.event.kind;
			if (rec.event.kind == LOG_EVENT_REBOOT)
				note_reboot(cs);
			if (k < LOG_EVENT_KIND_COUNT) {
				if (events[k] < LIST_EVENT_TIMES) {
					ev_t[k][events[k]] =
						(double)rec.event.time_us * 1e-6;
					ev_v[k][events[k]] = rec.event.value;
				}
				events[k]++;
			}
			continue;
		}
		if (rec.channel >= LOG_MAX_CHANNELS)
			continue;
		int sk = sensor_kind_index(rec.kind);
		if (sk >= 0 && sensor_note(&ss[rec.channel * N_SENSOR_KINDS +
					       (unsigned)sk],
					   log_record_time(&rec)) < 0)
			oom = true;
		/* The channel table is of baro samples and references. */
		if (rec.kind != LOG_REC_BARO && rec.kind != LOG_REC_REFERENCE)
			continue;
		struct chan_stats *c = &cs[rec.channel];
		uint64_t t = rec.kind == LOG_REC_BARO ? rec.baro.time_us
						      : rec.ref.time_us;
		double v = rec.kind == LOG_REC_BARO ? (double)rec.baro.pressure_pa
						    : rec.ref.alt_m;
		if (!c->seen) {
			c->seen = true;
			c->kind = rec.kind;
			c->first_us = t;
			c->lo = c->hi = v;
			if (rec.kind == LOG_REC_BARO)
				snprintf(c->what, sizeof(c->what), "baro[%u] Pa",
					 rec.baro.instance);
			else
				snprintf(c->what, sizeof(c->what), "%s m",
					 log_ref_source_name(rec.ref.source));
		}
		c->count++;
		c->last_us = t;
		if (rec.kind == LOG_REC_BARO)
			note_segment(c, t);
		if (rec.kind == LOG_REC_BARO &&
		    (rec.baro.flags & LOG_SAMPLE_PRESSURE_FROM_ALT) &&
		    !c->derived) {
			c->derived = true;
			c->above_home = rec.baro.flags & LOG_SAMPLE_ALT_HOME;
			snprintf(c->what, sizeof(c->what), "baro[%u] Pa derived",
				 rec.baro.instance);
		}
		if (v < c->lo)
			c->lo = v;
		if (v > c->hi)
			c->hi = v;
	}
	printf("%s\n  format: %s\n", path, r.ops->name);
	if (r.info.firmware[0])
		printf("  firmware: %s\n", r.info.firmware);
	if (r.info.hardware[0])
		printf("  hardware: %s\n", r.info.hardware);
	printf("  channels:\n");
	for (unsigned i = 0; i < LOG_MAX_CHANNELS; i++) {
		const struct chan_stats *c = &cs[i];
		if (!c->seen)
			continue;
		const char *name = log_reader_channel_name(&r, i);
		printf("    %-22s %-18s %7" PRIu64 " samples  %9.3f .. %9.3f s"
		       "  %.2f .. %.2f\n",
		       name ? name : "?", c->what, c->count,
		       (double)c->first_us * 1e-6, (double)c->last_us * 1e-6,
		       c->lo, c->hi);
	}
	print_sensors(&r, ss);
	/* Events are on the same clock, inside it: an arming after the
	 * last baro sample is the log going on without baro records. */
	if (r.info.span_known)
		printf("  span: %.3f .. %.3f s (first to last timed record)\n",
		       (double)r.info.span_first_us * 1e-6,
		       (double)r.info.span_last_us * 1e-6);
	for (unsigned i = 0; i < LOG_MAX_CHANNELS; i++) {
		if (!cs[i].seen || cs[i].kind != LOG_REC_BARO)
			continue;
		const char *name = log_reader_channel_name(&r, i);
		size_t nseg = cs[i].seg.segments;
		printf("  %s: %zu segment%s%s%s%s\n", name ? name : "?", nseg,
		       nseg == 1 ? "" : "s", nseg > 1 ? " (" : "",
		       cs[i].breaks, nseg > 1 ? ")" : "");
	}
	for (unsigned i = 0; i < LOG_MAX_CHANNELS; i++) {
		if (!cs[i].derived)
			continue;
		const char *name = log_reader_channel_name(&r, i);
		char why[160];
		derived_note(&r, cs[i].above_home, why, sizeof(why));
		printf("  %s: the log has no pressure; %s\n", name ? name : "?",
		       why);
	}
	bool any = false;
	for (unsigned k = 0; k < LOG_EVENT_KIND_COUNT; k++) {
		if (!events[k])
			continue;
		if (!any)
			printf("  events:\n");
		any = true;
		printf("    %-22s x%-5" PRIu64 " at", log_event_kind_name(k),
		       events[k]);
		for (uint64_t j = 0; j < events[k] && j < LIST_EVENT_TIMES; j++)
			if (k == LOG_EVENT_DROPOUT)
				printf("%s %.3f (%.0f ms)", j ? "," : "",
				       ev_t[k][j], ev_v[k][j]);
			else
				printf("%s %.3f", j ? "," : "", ev_t[k][j]);
		printf(events[k] > LIST_EVENT_TIMES ? ", ... s\n" : " s\n");
	}
	printf("  message types:\n");
	log_reader_list_types(&r, print_type, NULL);
	/* The facts go with the listing on stdout, the reader's error
	 * only to stderr, so redirected output never interleaves. */
	char dmg[LOG_ERR_LEN + 96];
	int status = log_reader_damage(&r, rc, dmg, sizeof(dmg)) ? EXIT_DAMAGED
								  : 0;
	/* A FMT at odds with its format is a firmware quirk, not
	 * damage: longer loses nothing, shorter leaves a type unread. */
	if (r.info.fmt_warnings && !r.info.fmt_undecodable)
		printf("  warning: %" PRIu64 " FMT record%s disagree%s with "
		       "%s format, nothing lost (%s)\n",
		       r.info.fmt_warnings, r.info.fmt_warnings == 1 ? "" : "s",
		       r.info.fmt_warnings == 1 ? "s" : "",
		       r.info.fmt_warnings == 1 ? "its" : "their",
		       r.info.fmt_warning);
	else if (r.info.fmt_warnings)
		printf("  warning: %" PRIu64 " FMT record%s disagree%s with "
		       "%s format, %" PRIu64 " declaring fewer bytes than it: "
		       "%s records are framed by that Length and not "
		       "decoded, nothing else lost (%s)\n",
		       r.info.fmt_warnings, r.info.fmt_warnings == 1 ? "" : "s",
		       r.info.fmt_warnings == 1 ? "s" : "",
		       r.info.fmt_warnings == 1 ? "its" : "their",
		       r.info.fmt_undecodable,
		       r.info.fmt_undecodable == 1 ? "its type's" : "their types'",
		       r.info.fmt_warning);
	if (r.info.bytes_skipped || r.info.records_bad)
		printf("  damage: %" PRIu64 " bytes skipped, %" PRIu64
		       " bad records, first at offset %" PRIu64 "\n",
		       r.info.bytes_skipped, r.info.records_bad,
		       r.info.first_bad_offset);
	if (rc < 0)
		printf("  damage: reading stopped before the end of the file\n");
	if (status)
		fprintf(stderr, "baro-replay: %s: damaged: %s\n", path, dmg);
	log_reader_close(&r);
	if (fd != STDIN_FILENO)
		close(fd);
	free(cs);
	for (size_t i = 0; i < LOG_MAX_CHANNELS * N_SENSOR_KINDS; i++)
		sensor_free(&ss[i]);
	free(ss);
	if (oom) {
		fprintf(stderr, "baro-replay: %s: out of memory for the "
				"sensor rates\n", path);
		return EXIT_IO;
	}
	return status;
}

static int
cmd_list(int argc, char **argv, const struct options *o)
{
	int worst = 0;
	if (optind >= argc) {
		fprintf(stderr, "baro-replay: list: which log?\n");
		return EXIT_USAGE;
	}
	for (int i = optind; i < argc; i++) {
		int rc = cmd_list_one(argv[i], o);
		if (rc > worst)
			worst = rc;
	}
	if (fflush(stdout) != 0 || ferror(stdout))
		return EXIT_IO;
	return worst;
}

static int
cmd_export(int argc, char **argv, const struct options *o)
{
	struct log_reader r;
	struct log_record rec;
	int fd, rc;

	if (optind + 1 != argc) {
		fprintf(stderr, "baro-replay: export: one log, please\n");
		return EXIT_USAGE;
	}
	/* The log first: a missing or unreadable one leaves -o alone. */
	if ((rc = open_log(argv[optind], o->format, &r, &fd)) != 0)
		return rc;
	FILE *out = stdout;
	struct atomic_file af = { 0 };
	char err[512];
	if (o->output && strcmp(o->output, "-") != 0 &&
	    !(out = atomic_file_open(&af, o->output, err, sizeof(err)))) {
		fprintf(stderr, "baro-replay: %s\n", err);
		log_reader_close(&r);
		if (fd != STDIN_FILENO)
			close(fd);
		return EXIT_IO;
	}
	uint64_t written = 0;
	bool channel_seen = !o->channel;
	/* alt_m is the altitude the log recorded with the sample, AMSL or
	 * above home (alt_datum); pressure_derived 1: computed from it. */
	fprintf(out, "time_us,instance,pressure_pa,temperature_c,channel,"
		     "alt_m,alt_datum,pressure_derived\n");
	bool derived = false, derived_home = false;
	/* Segments per channel written, told on stderr (list shows the
	 * same); a time going back is written as recorded and said. */
	struct chan_stats *cs = calloc(LOG_MAX_CHANNELS, sizeof(*cs));
	if (!cs) {
		fprintf(stderr, "baro-replay: out of memory\n");
		log_reader_close(&r);
		if (fd != STDIN_FILENO)
			close(fd);
		if (out != stdout)
			atomic_file_abort(&af);
		return EXIT_IO;
	}
	uint64_t reboots = 0;
	while ((rc = log_reader_next(&r, &rec)) > 0) {
		if (rec.kind == LOG_REC_EVENT &&
		    rec.event.kind == LOG_EVENT_REBOOT) {
			note_reboot(cs);
			reboots++;
		}
		if (rec.kind != LOG_REC_BARO)
			continue;
		const char *name = log_reader_channel_name(&r, rec.channel);
		if (!name)
			name = "?";
		if (o->channel && strcmp(name, o->channel) != 0)
			continue;
		channel_seen = true;
		if (rec.channel < LOG_MAX_CHANNELS) {
			cs[rec.channel].seen = true;
			note_segment(&cs[rec.channel], rec.baro.time_us);
		}
		fprintf(out, "%" PRIu64 ",%u,%.9g,", rec.baro.time_us,
			rec.baro.instance, (double)rec.baro.pressure_pa);
		/* A placeholder 0 is written as recorded (a temperature of
		 * exactly 0 is a value, not a missing field). */
		if (baro_sample_has(&rec.baro, BARO_SAMPLE_HAS_TEMPERATURE) ||
		    (rec.notes & LOG_NOTE_TEMP_PLACEHOLDER))
			fprintf(out, "%.9g", (double)rec.baro.temperature_c);
		const bool amsl =
			baro_sample_has(&rec.baro, BARO_SAMPLE_HAS_ALTITUDE);
		const bool home = rec.baro.flags & LOG_SAMPLE_ALT_HOME;
		const bool from_alt =
			rec.baro.flags & LOG_SAMPLE_PRESSURE_FROM_ALT;
		derived |= from_alt;
		derived_home |= from_alt && home;
		fprintf(out, ",%s,", name);
		if (amsl || home)
			fprintf(out, "%.7g,%s", (double)rec.baro.alt_m,
				amsl ? "amsl" : "home");
		else
			fputc(',', out);
		fprintf(out, ",%d\n", from_alt ? 1 : 0);
		written++;
	}
	char dmg[LOG_ERR_LEN + 96];
	int status = log_reader_damage(&r, rc, dmg, sizeof(dmg)) ? EXIT_DAMAGED
								  : 0;
	for (unsigned i = 0; i < LOG_MAX_CHANNELS; i++) {
		if (!cs[i].seen || cs[i].seg.segments < 2)
			continue;
		const char *name = log_reader_channel_name(&r, i);
		fprintf(stderr, "baro-replay: %s: %s: %zu segments (%s)%s\n",
			argv[optind], name ? name : "?", cs[i].seg.segments,
			cs[i].breaks,
			strstr(cs[i].breaks, "time going back")
				? "; the times going back are written as "
				  "recorded"
				: "");
	}
	if (reboots)
		fprintf(stderr, "baro-replay: %s: %" PRIu64 " reboot%s: the "
				"clock after each is offset to follow on from "
				"the boot before, so time_us keeps increasing\n",
			argv[optind], reboots, reboots == 1 ? "" : "s");
	if (written == 0 && channel_seen) {
		/* Only a header: say why. */
		char like[160];
		log_reader_baro_like(&r, like, sizeof(like));
		if (r.info.baro_note[0])
			fprintf(stderr, "baro-replay: %s: no barometer samples "
					"(%s): wrote only the header\n",
				argv[optind], r.info.baro_note);
		else
			fprintf(stderr, "baro-replay: %s: no barometer samples"
					"%s%s%s: wrote only the header\n",
				argv[optind],
				like[0] ? " (baro-like messages: " : "", like,
				like[0] ? ")" : "");
	}
	free(cs);
	if (rc < 0)
		fprintf(stderr, "baro-replay: %s (%" PRIu64
				" samples before it were written)\n",
			r.err, written);
	if (!channel_seen) {
		fprintf(stderr, "baro-replay: %s has no baro channel '%s' "
				"(see baro-replay list)\n",
			argv[optind], o->channel);
		status = EXIT_USAGE;
	}
	if (derived) {
		char why[160];
		derived_note(&r, derived_home, why, sizeof(why));
		fprintf(stderr, "baro-replay: %s: note: %s\n", argv[optind],
			why);
	}
	if (r.info.bytes_skipped || r.info.records_bad)
		fprintf(stderr, "baro-replay: %s: damaged: %" PRIu64
				" bytes skipped, %" PRIu64 " bad records, the "
				"first at offset %" PRIu64 "\n",
			argv[optind], r.info.bytes_skipped,
			r.info.records_bad, r.info.first_bad_offset);
	if (r.info.fmt_warnings)
		fprintf(stderr, "baro-replay: %s: warning: %s (%s)\n",
			argv[optind], r.info.fmt_warning,
			r.info.fmt_undecodable ? "a firmware quirk, not damage"
					       : "nothing lost");
	log_reader_close(&r);
	if (fd != STDIN_FILENO)
		close(fd);
	if (out == stdout) {
		if (fflush(out) != 0 || ferror(out)) {
			fprintf(stderr, "baro-replay: writing the CSV failed\n");
			return EXIT_IO;
		}
		return status;
	}
	/* Nothing of a run that failed replaces the user's file; a
	 * damaged log still gives what came before the damage. */
	if (status == EXIT_USAGE) {
		atomic_file_abort(&af);
		return status;
	}
	if (atomic_file_commit(&af, err, sizeof(err)) < 0) {
		fprintf(stderr, "baro-replay: %s\n", err);
		return EXIT_IO;
	}
	return status;
}

/* A shard's report directory beside the output: same file system. */
static int
remove_tree(const char *dir)
{
	char sub[4096];
	snprintf(sub, sizeof(sub), "%s/cases", dir);
	DIR *d = opendir(sub);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)))
			if (e->d_name[0] != '.') {
				char f[4096 + 256];
				snprintf(f, sizeof(f), "%s/%s", sub, e->d_name);
				unlink(f);
			}
		closedir(d);
		rmdir(sub);
	}
	if ((d = opendir(dir))) {
		struct dirent *e;
		while ((e = readdir(d)))
			if (e->d_name[0] != '.') {
				char f[4096 + 256];
				snprintf(f, sizeof(f), "%s/%s", dir, e->d_name);
				unlink(f);
			}
		closedir(d);
	}
	return rmdir(dir);
}

/*
 * run --jobs N: N processes, each running --shard K/N into a directory
 * of its own beside the output, then merged into it as baro-replay
 * merge does: the same report as one process writes.
 */
static int
run_jobs(const struct options *o)
{
	unsigned n = o->jobs;
	char (*dirs)[4200] = calloc(n, sizeof(*dirs));
	pid_t *pids = calloc(n, sizeof(*pids));
	const char **names = calloc(n, sizeof(*names));
	int status = 0;
	unsigned made = 0, started = 0;
	if (!dirs || !pids || !names) {
		fprintf(stderr, "baro-replay: out of memory\n");
		status = EXIT_IO;
		goto out;
	}
	/* The output first: refused (not a report) before any work. */
	char perr[512];
	int prc = report_prepare(o->output, perr, sizeof(perr));
	if (prc < 0) {
		fprintf(stderr, "baro-replay: %s\n", perr);
		status = prc == -EEXIST ? EXIT_USAGE : EXIT_IO;
		goto out;
	}
	/* Left empty, as merge takes an empty directory. */
	char cases[4200];
	snprintf(cases, sizeof(cases), "%s/cases", o->output);
	rmdir(cases);
	char base[4096];
	snprintf(base, sizeof(base), "%s", o->output);
	for (size_t l = strlen(base); l > 1 && base[l - 1] == '/'; l--)
		base[l - 1] = '\0';
	for (; made < n; made++) {
		snprintf(dirs[made], sizeof(dirs[made]), "%s.shard%u-XXXXXX",
			 base, made + 1);
		if (!mkdtemp(dirs[made])) {
			fprintf(stderr, "baro-replay: %s: %s\n", dirs[made],
				strerror(errno));
			status = EXIT_IO;
			goto out;
		}
		names[made] = dirs[made];
	}
	fflush(NULL);
	for (; started < n; started++) {
		pid_t pid = fork();
		if (pid < 0) {
			fprintf(stderr, "baro-replay: fork: %s\n",
				strerror(errno));
			status = EXIT_IO;
			break;
		}
		if (pid == 0) {
			struct replay_config c = o->cfg;
			c.shard_k = started + 1;
			c.shard_n = n;
			c.report_dir = dirs[started];
			c.plot_jobs = 1;
			c.no_table = true;	/* judged once, merged */
			_exit(replay_cases_run(&c));
		}
		pids[started] = pid;
	}
	for (unsigned j = 0; j < started; j++) {
		int st;
		while (waitpid(pids[j], &st, 0) < 0 && errno == EINTR)
			;
		int rc = WIFEXITED(st) ? WEXITSTATUS(st) : EXIT_IO;
		/* 1 is a verdict, judged again on the merged report. */
		if (rc > 1 && rc > status)
			status = rc;
	}
	if (status == 0) {
		struct replay_merge_config mc = {
			.out = o->output, .dirs = names, .ndirs = n,
			.strict = o->cfg.strict, .quiet = o->cfg.quiet,
		};
		status = replay_merge(&mc);
	}
out:
	for (unsigned j = 0; j < made; j++)
		remove_tree(dirs[j]);
	free(dirs);
	free(pids);
	free(names);
	return status;
}

int
main(int argc, char **argv)
{
	struct options o = { 0 };

	replay_config_defaults(&o.cfg);
	if (argc < 2) {
		fprintf(stderr, "baro-replay: which command? (list, export, "
				"run, merge, compare, filters; see "
				"baro-replay --help)\n");
		return EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
		printf("baro-replay %s\n", BAROD_VERSION);
		return 0;
	}
	static const struct {
		const char *name;
		unsigned bit;
	} cmds[] = {
		{ "list", CMD_LIST },
		{ "export", CMD_EXPORT },
		{ "run", CMD_RUN },
		{ "filters", CMD_FILTERS },
		{ "merge", CMD_MERGE },
		{ "compare", CMD_COMPARE },
	};
	unsigned bit = 0;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (strcmp(cmd, cmds[i].name) == 0)
			bit = cmds[i].bit;
	if (!bit) {
		fprintf(stderr, "baro-replay: unknown command '%s' (list, "
				"export, run, merge, compare, filters; see "
				"baro-replay --help)\n",
			cmd);
		return EXIT_USAGE;
	}
	/* Options follow the command: getopt starts after it. */
	argv++;
	argc--;
	int rc = parse_options(argc, argv, cmd, bit, &o);
	if (rc != 0)
		return rc;
	if (strcmp(cmd, "list") == 0)
		return cmd_list(argc, argv, &o);
	if (strcmp(cmd, "export") == 0)
		return cmd_export(argc, argv, &o);
	if (strcmp(cmd, "filters") == 0) {
		if (optind < argc) {
			fprintf(stderr, "baro-replay: filters: takes no "
					"arguments ('%s')\n",
				argv[optind]);
			return EXIT_USAGE;
		}
		return replay_list_filters(stdout) < 0 ? EXIT_IO : 0;
	}
	if (strcmp(cmd, "run") == 0) {
		if (!o.output) {
			fprintf(stderr, "baro-replay: run: -o DIR is "
					"required\n");
			return EXIT_USAGE;
		}
		o.cfg.report_dir = o.output;
		o.cfg.channel = o.channel;
		o.cfg.reference = o.reference;
		o.cfg.format = o.format;
		o.cfg.logs = (const char *const *)&argv[optind];
		o.cfg.nlogs = (size_t)(argc - optind);
		/* Logs given: they are the run, the synthetic stream only
		 * when asked for; none: the synthetic stream is the run. */
		o.cfg.synthetic = o.synthetic ? o.synthetic > 0
					      : o.cfg.nlogs == 0 ||
							!o.cfg.logs_enabled;
		if (o.jobs > 1 && o.cfg.shard_n > 1) {
			fprintf(stderr, "baro-replay: run: --jobs splits this "
					"machine's inputs itself; give it or "
					"--shard, not both\n");
			return EXIT_USAGE;
		}
		if (o.jobs > 1)
			return run_jobs(&o);
		return replay_cases_run(&o.cfg);
	}
	if (strcmp(cmd, "merge") == 0) {
		if (!o.output || optind >= argc) {
			fprintf(stderr, "baro-replay: merge: -o DIR and the "
					"shard reports to merge, please\n");
			return EXIT_USAGE;
		}
		struct replay_merge_config mc = {
			.out = o.output,
			.dirs = (const char *const *)&argv[optind],
			.ndirs = (size_t)(argc - optind),
			.strict = o.cfg.strict,
			.quiet = o.cfg.quiet,
		};
		return replay_merge(&mc);
	}
	if (strcmp(cmd, "compare") == 0) {
		if (argc - optind != 2) {
			fprintf(stderr, "baro-replay: compare: two reports, "
					"BASE and NEW, please\n");
			return EXIT_USAGE;
		}
		struct replay_compare_config cc = {
			.base = argv[optind], .new_dir = argv[optind + 1],
			.tol = o.tol, .ntol = o.ntol,
			.filters = o.cfg.filters, .nfilters = o.cfg.nfilters,
			.json = o.json,
		};
		return replay_compare(&cc);
	}
	return EXIT_USAGE;	/* not reached: the command was checked */
}
