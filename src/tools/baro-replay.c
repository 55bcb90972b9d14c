/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * baro-replay: offline barometer filter validation.
 *
 *   baro-replay list LOG...          what each log holds
 *   baro-replay export [-c CH] LOG   its baro samples as CSV
 *   baro-replay run -o DIR [LOG...]  filters x scenarios x logs (and the
 *                                    synthetic stream) -> a report
 *
 * Exit status: 0 success, 1 a threshold failed (run) or the log is
 * damaged (list/export: everything before the damage was still
 * written), 2 bad usage or unreadable input, 3 I/O failure.
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
#include <unistd.h>

#include "log-reader.h"
#include "replay-cases.h"
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
	      "                         message types, damage\n"
	      "  export [-c CHANNEL] [-o FILE] LOG\n"
	      "                         baro samples as CSV (every baro "
	      "channel, or one)\n"
	      "  run -o DIR [OPTIONS] [LOG...]\n"
	      "                         run filters over the logs and the "
	      "synthetic stream\n"
	      "                         under every scenario; write a report "
	      "into DIR\n"
	      "  filters                list the built-in filters\n"
	      "\n"
	      "LOG is an ArduPilot DataFlash .bin, a PX4 .ulg, a MAVLink "
	      ".tlog or a CSV\n"
	      "file (recognised by content; -F FORMAT to insist).\n"
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
	      "  -f, --filter SPEC      NAME[:key=value,...] or "
	      "plugin:PATH[:key=value,...]\n"
	      "                         (repeatable; default: every "
	      "built-in)\n"
	      "  -s, --scenarios PATH   a scenario file or a directory of "
	      "*.scn (repeatable;\n"
	      "                         default: the bundled set)\n"
	      "      --no-synthetic     logs only\n"
	      "      --synthetic-only   no logs, only the synthetic stream\n"
	      "  -t, --thresholds FILE  pass/warn/fail rules (default: the "
	      "built-in set)\n"
	      "      --seed N           noise and fault seed (default 1)\n"
	      "  -p, --plots KIND       png, svg or none (default png)\n"
	      "      --no-timing        leave the time-per-sample figures out,"
	      " so reports\n"
	      "                         of equal inputs are byte-identical\n"
	      "      --strict           exit 1 when a case is unchecked (its "
	      "faults did not\n"
	      "                         run on the recording) or a log is "
	      "damaged\n"
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
	struct replay_config cfg;
};

enum {
	OPT_SEED = 256,
	OPT_NO_SYNTHETIC,
	OPT_SYNTHETIC_ONLY,
	OPT_NO_TIMING,
	OPT_STRICT,
};

static int
parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "channel", required_argument, NULL, 'c' },
		{ "reference", required_argument, NULL, 'r' },
		{ "format", required_argument, NULL, 'F' },
		{ "output", required_argument, NULL, 'o' },
		{ "filter", required_argument, NULL, 'f' },
		{ "scenarios", required_argument, NULL, 's' },
		{ "thresholds", required_argument, NULL, 't' },
		{ "plots", required_argument, NULL, 'p' },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "no-synthetic", no_argument, NULL, OPT_NO_SYNTHETIC },
		{ "synthetic-only", no_argument, NULL, OPT_SYNTHETIC_ONLY },
		{ "no-timing", no_argument, NULL, OPT_NO_TIMING },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	int c;
	uint64_t u;

	while ((c = getopt_long(argc, argv, "c:r:F:o:f:s:t:p:qhV", longopts,
				NULL)) != -1) {
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
		case 't':
			o->cfg.thresholds = optarg;
			break;
		case 'p':
			if (strcmp(optarg, "png") == 0)
				o->cfg.plot = REPORT_PLOT_PNG;
			else if (strcmp(optarg, "svg") == 0)
				o->cfg.plot = REPORT_PLOT_SVG;
			else if (strcmp(optarg, "none") == 0)
				o->cfg.plot = REPORT_PLOT_NONE;
			else {
				fprintf(stderr, "baro-replay: --plots %s: "
						"png, svg or none\n",
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
		case OPT_NO_SYNTHETIC:
			o->cfg.synthetic = false;
			break;
		case OPT_SYNTHETIC_ONLY:
			o->cfg.logs_enabled = false;
			break;
		case OPT_NO_TIMING:
			o->cfg.timing = false;
			break;
		case OPT_STRICT:
			o->cfg.strict = true;
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
		default:
			usage(stderr);
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
	enum log_record_kind kind;
	uint64_t count;
	uint64_t first_us, last_us;
	double lo, hi;
	char what[32];
};

static void
print_type(const char *name, uint64_t count, void *ud)
{
	(void)ud;
	printf("    %-28s %" PRIu64 "\n", name, count);
}

static int
cmd_list_one(const char *path, const struct options *o)
{
	struct log_reader r;
	struct log_record rec;
	int fd, rc;
	struct chan_stats *cs = calloc(LOG_MAX_CHANNELS, sizeof(*cs));
	uint64_t events[LOG_EVENT_KIND_COUNT] = { 0 };

	if (!cs) {
		fprintf(stderr, "baro-replay: out of memory\n");
		return EXIT_IO;
	}
	if ((rc = open_log(path, o->format, &r, &fd)) != 0) {
		free(cs);
		return rc;
	}
	while ((rc = log_reader_next(&r, &rec)) > 0) {
		if (rec.kind == LOG_REC_EVENT) {
			if ((unsigned)rec.event.kind < LOG_EVENT_KIND_COUNT)
				events[rec.event.kind]++;
			continue;
		}
		if (rec.channel >= LOG_MAX_CHANNELS)
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
	bool any = false;
	for (unsigned k = 0; k < LOG_EVENT_KIND_COUNT; k++)
		if (events[k]) {
			printf("%s %s x%" PRIu64, any ? "," : "  events:",
			       log_event_kind_name(k), events[k]);
			any = true;
		}
	if (any)
		putchar('\n');
	printf("  message types:\n");
	log_reader_list_types(&r, print_type, NULL);
	int status = 0;
	if (r.info.bytes_skipped || r.info.records_bad)
		printf("  damage: %" PRIu64 " bytes skipped, %" PRIu64
		       " bad records, first at offset %" PRIu64 "\n",
		       r.info.bytes_skipped, r.info.records_bad,
		       r.info.first_bad_offset);
	if (rc < 0) {
		printf("  error: %s\n", r.err);
		fprintf(stderr, "baro-replay: %s\n", r.err);
		status = EXIT_DAMAGED;
	}
	log_reader_close(&r);
	if (fd != STDIN_FILENO)
		close(fd);
	free(cs);
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
	fprintf(out, "time_us,instance,pressure_pa,temperature_c,channel\n");
	while ((rc = log_reader_next(&r, &rec)) > 0) {
		if (rec.kind != LOG_REC_BARO)
			continue;
		const char *name = log_reader_channel_name(&r, rec.channel);
		if (!name)
			name = "?";
		if (o->channel && strcmp(name, o->channel) != 0)
			continue;
		channel_seen = true;
		fprintf(out, "%" PRIu64 ",%u,%.9g,", rec.baro.time_us,
			rec.baro.instance, (double)rec.baro.pressure_pa);
		if (baro_sample_has(&rec.baro, BARO_SAMPLE_HAS_TEMPERATURE))
			fprintf(out, "%.9g", (double)rec.baro.temperature_c);
		fprintf(out, ",%s\n", name);
		written++;
	}
	int status = 0;
	if (rc < 0) {
		fprintf(stderr, "baro-replay: %s (%" PRIu64
				" samples before it were written)\n",
			r.err, written);
		status = EXIT_DAMAGED;
	}
	if (!channel_seen) {
		fprintf(stderr, "baro-replay: %s has no baro channel '%s' "
				"(see baro-replay list)\n",
			argv[optind], o->channel);
		status = EXIT_USAGE;
	}
	if (r.info.bytes_skipped || r.info.records_bad)
		fprintf(stderr, "baro-replay: %s: damaged: %" PRIu64
				" bytes skipped, %" PRIu64 " bad records, the "
				"first at offset %" PRIu64 "\n",
			argv[optind], r.info.bytes_skipped,
			r.info.records_bad, r.info.first_bad_offset);
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

int
main(int argc, char **argv)
{
	struct options o = { 0 };

	replay_config_defaults(&o.cfg);
	if (argc < 2) {
		usage(stderr);
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
	/* Options follow the command: getopt starts after it. */
	argv++;
	argc--;
	int rc = parse_options(argc, argv, &o);
	if (rc != 0)
		return rc;
	if (strcmp(cmd, "list") == 0)
		return cmd_list(argc, argv, &o);
	if (strcmp(cmd, "export") == 0)
		return cmd_export(argc, argv, &o);
	if (strcmp(cmd, "filters") == 0)
		return replay_list_filters(stdout) < 0 ? EXIT_IO : 0;
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
		for (int i = optind; i < argc; i++) {
			if (o.cfg.nlogs >= REPLAY_MAX_PATHS) {
				fprintf(stderr, "baro-replay: at most %d "
						"logs\n",
					REPLAY_MAX_PATHS);
				return EXIT_USAGE;
			}
			o.cfg.logs[o.cfg.nlogs++] = argv[i];
		}
		return replay_cases_run(&o.cfg);
	}
	fprintf(stderr, "baro-replay: unknown command '%s' (list, export, "
			"run, filters)\n",
		cmd);
	return EXIT_USAGE;
}
