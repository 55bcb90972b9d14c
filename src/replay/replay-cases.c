// SPDX-License-Identifier: GPL-3.0-or-later
#include "replay-cases.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aux-faults.h"
#include "log-reader.h"
#include "plot-layout.h"
#include "replay-aux.h"
#include "inject.h"
#include "record-labels.h"
#include "replay-filters.h"
#include "replay-merge.h"
#include "report-html.h"
#include "replay-metrics.h"
#include "replay-provenance.h"
#include "replay-reference.h"
#include "replay-run.h"
#include "replay-stream.h"
#include "scenario.h"
#include "truth-profile.h"
#include "util-strings.h"

#define EXIT_FAILED 1
#define EXIT_USAGE 2
#define EXIT_IO 3

#define SYNTHETIC_HOME_M 100.0

void
replay_config_defaults(struct replay_config *cfg)
{
	*cfg = (struct replay_config){
		.seed = 1,
		.plot = REPORT_PLOT_PNG,
		.synthetic = true,
		.logs_enabled = true,
		.baselines = true,
		.shard_k = 1,
		.shard_n = 1,
		.timing = true,
		.ardupilot = BARO_SITL_AP_DEFAULT,
		.case_timeout_s = 60.0,
	};
	sim_params_defaults(&cfg->params);
}

const char *
replay_default_scenario_dir(void)
{
	struct stat st;
	if (stat(BAROD_SCENARIO_DIR, &st) == 0 && S_ISDIR(st.st_mode))
		return BAROD_SCENARIO_DIR;
	return BAROD_SOURCE_SCENARIO_DIR;
}

struct scen {
	char name[REPORT_NAME_LEN];
	char path[4096];
	char *text;		/* kept to place relative times per stream */
	size_t len;
	struct scenario *sc;	/* as parsed for the synthetic stream */
	struct truth_profile profile;
	double duration_s;
	bool logs;
	unsigned reveal;	/* enum replay_input: what reveals its faults */
	unsigned baros;		/* synthetic barometers; 0: SIM_BARO_COUNT */
};

/* enum replay_input's names, for reveal= and the notes. */
static const struct {
	const char *name;
	unsigned bit;
} input_names[] = {
	{ "baro", REPLAY_IN_BARO },
	{ "baro2", REPLAY_IN_BARO2 },
	{ "accel", REPLAY_IN_ACCEL },
	{ "gps", REPLAY_IN_GPS },
	{ "range", REPLAY_IN_RANGE },
	{ "none", 0 },
};

#define N_INPUT_NAMES (sizeof(input_names) / sizeof(input_names[0]))

/* "accel, gps" for the bits in mask; "nothing" for none. */
static void
format_inputs(unsigned mask, char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < N_INPUT_NAMES; i++) {
		if (!(mask & input_names[i].bit))
			continue;
		int w = snprintf(buf + at, len - at, "%s%s", at ? ", " : "",
				 input_names[i].name);
		if (w < 0 || (size_t)w >= len - at)
			break;
		at += (size_t)w;
	}
	if (at == 0)
		snprintf(buf, len, "nothing");
}

/* reveal=a,b,... into *mask; -EINVAL naming the bad item. */
static int
parse_reveal(const char *v, unsigned *mask, const char *path)
{
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", v);
	*mask = 0;
	char *save = NULL;
	for (char *tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		size_t i = 0;
		while (i < N_INPUT_NAMES && strcmp(input_names[i].name, tok))
			i++;
		if (i == N_INPUT_NAMES) {
			fprintf(stderr, "baro-replay: %s: '# replay:' line: "
					"reveal=%s: unknown input '%s' (baro, "
					"baro2, accel, gps, range or none)\n",
				path, v, tok);
			return -EINVAL;
		}
		*mask |= input_names[i].bit;
	}
	return 0;
}

/* The "# replay: key=value ..." line, if any. */
static int
parse_directive(const char *text, struct scen *s, const char *path)
{
	const char *p = strstr(text, "# replay:");
	char err[256];

	truth_profile_parse("static:10", &s->profile, err, sizeof(err));
	s->duration_s = 60.0;
	s->logs = true;
	s->reveal = REPLAY_IN_BARO;
	s->baros = 0;
	if (!p)
		return 0;
	p += strlen("# replay:");
	const char *eol = strchr(p, '\n');
	size_t len = eol ? (size_t)(eol - p) : strlen(p);
	char line[512];
	if (len >= sizeof(line)) {
		fprintf(stderr, "baro-replay: %s: the '# replay:' line is too "
				"long\n",
			path);
		return -EINVAL;
	}
	memcpy(line, p, len);
	line[len] = '\0';
	char *save = NULL;
	for (char *tok = strtok_r(line, " \t\r", &save); tok;
	     tok = strtok_r(NULL, " \t\r", &save)) {
		char *eq = strchr(tok, '=');
		if (!eq)
			goto bad;
		*eq = '\0';
		const char *v = eq + 1;
		if (strcmp(tok, "profile") == 0) {
			if (truth_profile_parse(v, &s->profile, err,
						sizeof(err)) < 0) {
				fprintf(stderr, "baro-replay: %s: profile: "
						"%s\n",
					path, err);
				return -EINVAL;
			}
		} else if (strcmp(tok, "duration") == 0) {
			if (str_to_double(v, &s->duration_s) < 0 ||
			    !(s->duration_s > 0.0) || s->duration_s > 86400.0)
				goto bad;
		} else if (strcmp(tok, "reveal") == 0) {
			if (parse_reveal(v, &s->reveal, path) < 0)
				return -EINVAL;
		} else if (strcmp(tok, "baros") == 0) {
			/* The synthetic stream's barometers, so a scenario
			 * can fault baro 1 or 2 beside a sound baro 0. */
			uint64_t n;
			if (str_to_u64(v, &n) < 0 || n < 1 ||
			    n > BARO_MAX_INSTANCES)
				goto bad;
			s->baros = (unsigned)n;
		} else if (strcmp(tok, "logs") == 0) {
			if (strcmp(v, "yes") == 0)
				s->logs = true;
			else if (strcmp(v, "no") == 0)
				s->logs = false;
			else
				goto bad;
		} else {
			goto bad;
		}
		continue;
	bad:
		fprintf(stderr, "baro-replay: %s: '# replay:' line: bad item "
				"'%s' (profile=SPEC duration=SECONDS "
				"logs=yes|no baros=1-3 reveal=INPUT,...)\n",
			path, tok);
		return -EINVAL;
	}
	return 0;
}

int
replay_directive_parse(const char *text, const char *path,
		       struct replay_directive *d)
{
	struct scen s = { 0 };
	int rc = parse_directive(text, &s, path);
	if (rc == 0)
		*d = (struct replay_directive){
			.profile = s.profile, .duration_s = s.duration_s,
			.logs = s.logs, .reveal = s.reveal, .baros = s.baros,
		};
	return rc;
}

/*
 * Faults go into a stream (a log, or the synthetic one) through the
 * injector, whose truth is the recording: it has no throttle, so a
 * ground effect a scenario sets could never act.  Refused with
 * FILE:LINE; -p SIM_BARO_GEFF_M and --ardupilot master put it in the
 * synthetic stream itself.
 */
static int
no_ground_effect(const struct scenario *sc, const char *path, char *err,
		 size_t errlen)
{
	/* The master check answers "has no ground effect" for exactly a
	 * positive GEFF_M under a release without it. */
	const struct scenario_action *a =
		scenario_release_misfit(sc, BARO_SITL_AP_4_7, NULL, 0);

	if (a)
		return str_errorf(err, errlen, -EINVAL,
				  "%s:%u: %s: faults are injected into "
				  "recordings, which carry no throttle, "
				  "so a ground effect cannot act; give "
				  "it to the synthetic stream with -p "
				  "and --ardupilot master", path, a->line,
				  sim_param_info((size_t)a->param)->name);
	return 0;
}

static int
load_scenario_file(const char *path, struct scen *s)
{
	char err[512];
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "baro-replay: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	/* Scenario files are small (1024 lines of 1024 bytes at most). */
	static const size_t max = SCENARIO_MAX_ACTIONS * (SCENARIO_MAX_LINE + 1) * 2;
	char *text = malloc(max + 1);
	size_t len = text ? fread(text, 1, max + 1, f) : 0;
	int bad = ferror(f);
	fclose(f);
	if (!text || bad || len > max) {
		fprintf(stderr, "baro-replay: %s: %s\n", path,
			!text ? "out of memory"
			      : bad ? "read error" : "too large for a scenario");
		free(text);
		return -EINVAL;
	}
	text[len] = '\0';
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	snprintf(s->name, sizeof(s->name), "%s", base);
	char *dot = strrchr(s->name, '.');
	if (dot && strcmp(dot, ".scn") == 0)
		*dot = '\0';
	int rc = parse_directive(text, s, path);
	if (rc == 0) {
		s->sc = malloc(sizeof(*s->sc));
		/* Checked here for the synthetic stream's length, so a bad
		 * file stops the run before anything is written; relative
		 * times are placed again for each stream. */
		if (!s->sc)
			rc = -ENOMEM;
		else if ((rc = scenario_parse_for(
				  s->sc, text, len, path,
				  (uint64_t)(s->duration_s * 1000.0), err,
				  sizeof(err))) < 0 ||
			 (rc = no_ground_effect(s->sc, path, err,
						sizeof(err))) < 0)
			fprintf(stderr, "baro-replay: %s\n", err);
	}
	if (rc < 0) {
		free(text);
		free(s->sc);
		s->sc = NULL;
		return rc;
	}
	snprintf(s->path, sizeof(s->path), "%s", path);
	s->text = text;
	s->len = len;
	return 0;
}

static int
scn_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);
	return n > 4 && strcmp(d->d_name + n - 4, ".scn") == 0;
}

static int
load_scenarios(const struct replay_config *cfg, struct scen *out, size_t *n)
{
	const char *def = replay_default_scenario_dir();
	size_t npaths = cfg->nscenario_paths ? cfg->nscenario_paths : 1;

	*n = 0;
	for (size_t i = 0; i < npaths; i++) {
		const char *p = cfg->nscenario_paths ? cfg->scenario_paths[i]
						     : def;
		struct stat st;
		/* A bare name that is no file here is a bundled scenario's
		 * ("-s spike-burst"), so the same line works in any
		 * directory (meson devenv's shell starts in build/). */
		char bundled[4096];
		size_t ld = strlen(def), lp = strlen(p);
		bool ext = lp > 4 && strcmp(p + lp - 4, ".scn") == 0;
		if (stat(p, &st) < 0 && errno == ENOENT && !strchr(p, '/') &&
		    ld + 1 + lp + 5 <= sizeof(bundled)) {
			memcpy(bundled, def, ld);
			bundled[ld] = '/';
			memcpy(bundled + ld + 1, p, lp);
			memcpy(bundled + ld + 1 + lp, ext ? "" : ".scn",
			       ext ? 1 : 5);
			if (stat(bundled, &st) == 0)
				p = bundled;
		}
		if (stat(p, &st) < 0) {
			fprintf(stderr, "baro-replay: scenarios %s: %s%s\n", p,
				strerror(errno),
				strchr(p, '/') ? ""
					       : " (nor a bundled scenario: "
						 "baro-replay run --help)");
			return -ENOENT;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (*n >= REPLAY_MAX_SCENARIOS)
				return -E2BIG;
			if (load_scenario_file(p, &out[*n]) < 0)
				return -EINVAL;
			(*n)++;
			continue;
		}
		struct dirent **list;
		int m = scandir(p, &list, scn_filter, alphasort);
		if (m < 0) {
			fprintf(stderr, "baro-replay: %s: %s\n", p,
				strerror(errno));
			return -EIO;
		}
		int rc = 0;
		for (int j = 0; j < m; j++) {
			char path[4096 + 258];	/* a directory and a name */
			snprintf(path, sizeof(path), "%s/%s", p,
				 list[j]->d_name);
			if (rc == 0 && *n >= REPLAY_MAX_SCENARIOS)
				rc = -E2BIG;
			if (rc == 0 && load_scenario_file(path, &out[*n]) < 0)
				rc = -EINVAL;
			if (rc == 0)
				(*n)++;
			free(list[j]);
		}
		free(list);
		if (rc < 0)
			return rc;
		if (m == 0) {
			fprintf(stderr, "baro-replay: %s: no *.scn files\n", p);
			return -ENOENT;
		}
	}
	return 0;
}

/*
 * --labels RECORD: the record parsed into rl, and the one "scenario" of
 * the run, named after the file and its faults ("run1.glitch" for
 * run1.csv), so the threshold rules for a kind
 * ("glitch" in the scenario pattern) apply.
 * Nothing is injected, so scenario files and the synthetic stream (which
 * no autopilot flew) are refused.  0 or -EINVAL with the reason said.
 */
static int
load_record(const struct replay_config *cfg, struct record_labels *rl,
	    struct scen *s)
{
	char err[512];
	if (cfg->nscenario_paths) {
		fprintf(stderr, "baro-replay: --labels: the faults are the "
				"record's; -s would inject more on top\n");
		return -EINVAL;
	}
	if (cfg->synthetic) {
		fprintf(stderr, "baro-replay: --labels: the record is of an "
				"autopilot's run, not of the synthetic "
				"stream; give that run's log\n");
		return -EINVAL;
	}
	FILE *f = fopen(cfg->labels, "r");
	if (!f) {
		fprintf(stderr, "baro-replay: %s: %s\n", cfg->labels,
			strerror(errno));
		return -EINVAL;
	}
	/* A record is a few rows per scenario line: 16 MB is thousands of
	 * lines' worth. */
	static const size_t max = 16u << 20;
	char *text = malloc(max + 1);
	size_t len = text ? fread(text, 1, max + 1, f) : 0;
	int bad = ferror(f);
	fclose(f);
	if (!text || bad || len > max) {
		fprintf(stderr, "baro-replay: %s: %s\n", cfg->labels,
			!text ? "out of memory"
			      : bad ? "read error" : "larger than 16 MB");
		free(text);
		return -EINVAL;
	}
	if (record_labels_parse(rl, text, len, cfg->labels, err,
				sizeof(err)) < 0) {
		fprintf(stderr, "baro-replay: %s\n", err);
		free(text);
		return -EINVAL;
	}
	if (rl->after_restart)
		fprintf(stderr, "baro-replay: %s: the autopilot's clock went "
				"back (a restart): its last %zu rows are of "
				"another boot, left out\n",
			cfg->labels, rl->after_restart);
	if (rl->unacked)
		fprintf(stderr, "baro-replay: %s: %zu value%s sent and never "
				"acknowledged: not labelled\n",
			cfg->labels, rl->unacked, rl->unacked == 1 ? "" : "s");
	uint32_t all = 0;
	for (size_t i = 0; i < rl->n; i++)
		all |= rl->ch[i].label;
	char kinds[128];
	inject_label_format(all, kinds, sizeof(kinds));
	const char *base = strrchr(cfg->labels, '/');
	base = base ? base + 1 : cfg->labels;
	int bl = (int)strcspn(base, ".");
	*s = (struct scen){ .logs = true, .reveal = REPLAY_IN_BARO,
			    .text = text, .len = len };
	if (bl > 48)
		bl = 48;
	snprintf(s->name, sizeof(s->name), "%.*s.%.46s", bl, base, kinds);
	snprintf(s->path, sizeof(s->path), "%s", cfg->labels);
	return 0;
}

struct results {
	size_t n, cap;
	struct report_result *r;
};

static struct report_result *
results_add(struct results *res)
{
	if (res->n == res->cap) {
		size_t cap = res->cap ? res->cap * 2 : 64;
		void *p = realloc(res->r, cap * sizeof(*res->r));
		if (!p)
			return NULL;
		res->r = p;
		res->cap = cap;
	}
	struct report_result *r = &res->r[res->n++];
	report_result_init(r);
	return r;
}

struct run_ctx {
	const struct replay_config *cfg;
	struct replay_filter_set *filters;
	struct replay_thresholds *th;
	struct results res;
	struct str_pool texts;	/* the results' names and notes */
	size_t done, total;
	size_t unchecked;	/* cases whose scenario did not run */
	struct report_input *inputs;	/* one per log given */
	size_t ninputs;
	size_t ndamaged, nempty;	/* damaged logs, logs without samples */
	struct report_plotter *plotter;	/* NULL: no plots */
	bool first_case;	/* the next case is its source's first */
	const struct record_labels *labels;	/* cfg->labels, parsed */
};

/* The median sample spacing inside segments, the lag's resampling grid:
 * 10 ms for the emulator, 100 ms for most logs; a recording gap does not
 * stretch it. */
static double
typical_interval(const struct replay_stream *st)
{
	double dt = st->n > 1
			    ? (double)replay_stream_median_interval(st) * 1e-6
			    : 0.1;
	return dt < 0.001 ? 0.001 : dt > 1.0 ? 1.0 : dt;
}

/*
 * Why a scenario did not run on this stream as written, or "" when it
 * did: a verdict on faults that never happened would be a false pass.
 * A scenario with no fault action (clean, a truth step) always ran.  dt
 * is the sample spacing: the scenario's end may fall after the last
 * sample by less than one, where the next sample would have been.
 */
/* The first line of sc on a sensor st does not have (a further baro,
 * GPS, accelerometer), with the reason in why; false if none is. */
static bool
missing_sensor(const struct replay_stream *st, const struct scenario *sc,
	       char *why, size_t len)
{
	for (size_t i = 0; i < sc->count; i++) {
		const struct scenario_action *a = &sc->actions[i];
		int inst = a->instance;
		if (a->op == SCENARIO_OP_SET || a->op == SCENARIO_OP_RAMP)
			inst = sim_param_instance((size_t)a->param);
		if (inst > 0 && (size_t)inst > st->aux.nbaro) {
			snprintf(why, len, "line %u faults baro %d, which the "
				 "recording has not", a->line, inst);
			return true;
		}
		if (a->op != SCENARIO_OP_AUX)
			continue;
		enum replay_aux_kind k =
			aux_faults_sensor((enum scenario_aux)a->aux);
		if ((k == REPLAY_AUX_GPS && st->aux.ngps == 0) ||
		    (k == REPLAY_AUX_ACCEL && st->aux.nimu == 0)) {
			snprintf(why, len, "line %u's '%s' faults the %s, which "
				 "the recording has not", a->line,
				 scenario_aux_name(a->aux),
				 scenario_aux_sensor(a->aux));
			return true;
		}
	}
	return false;
}

static void
unchecked_reason(const struct replay_rows *rows, const struct replay_stream *st,
		 const struct scenario *sc, double dt, char *why, size_t len)
{
	uint64_t first_ms = UINT64_MAX;
	why[0] = '\0';
	if (missing_sensor(st, sc, why, len))
		return;
	for (size_t i = 0; i < sc->count; i++) {
		enum scenario_op op = sc->actions[i].op;
		if ((op == SCENARIO_OP_SET || op == SCENARIO_OP_RAMP ||
		     op == SCENARIO_OP_FAULT || op == SCENARIO_OP_AUX) &&
		    sc->actions[i].at_ms < first_ms)
			first_ms = sc->actions[i].at_ms;
	}
	if (first_ms == UINT64_MAX || st->n == 0)
		return;
	const uint64_t t0 = st->samples[0].time_us;
	const double length_s =
		(double)(st->samples[st->n - 1].time_us - t0) * 1e-6;
	char at[32], end[32];
	scenario_format_ms(first_ms, at, sizeof(at));
	scenario_format_ms(sc->end_ms, end, sizeof(end));
	if (rows->nwin == 0 && (double)first_ms * 1e-3 > length_s) {
		snprintf(why, len, "no fault injected: the first is due at %s "
				   "and the recording is %.3f s long",
			 at, length_s);
	} else if (rows->nwin == 0) {
		/* Due within the recording, so it fell into a gap. */
		double before = 0.0, after = length_s;
		for (size_t i = 0; i < st->n; i++) {
			double t = (double)(st->samples[i].time_us - t0) * 1e-6;
			if (t <= (double)first_ms * 1e-3) {
				before = t;
			} else {
				after = t;
				break;
			}
		}
		snprintf(why, len, "no fault injected: the first is due at %s "
				   "where the recording has no sample from "
				   "%.3f s to %.3f s",
			 at, before, after);
	} else if ((double)sc->end_ms * 1e-3 > length_s + dt + 1e-9) {
		snprintf(why, len, "cut short: the scenario runs to %s and the "
				   "recording is %.3f s long",
			 end, length_s);
	} else {
		/* Each timed fault needs a recorded sample in its window,
		 * or that part of the scenario never happened. */
		size_t k = 0;
		for (size_t i = 0; i < sc->count; i++) {
			const struct scenario_action *a = &sc->actions[i];
			if ((a->op != SCENARIO_OP_SET &&
			     a->op != SCENARIO_OP_FAULT) || a->dur_ms == 0)
				continue;
			uint64_t from = t0 + a->at_ms * 1000u;
			uint64_t to = from + a->dur_ms * 1000u;
			while (k < st->n && st->samples[k].time_us < from)
				k++;
			if (k < st->n && st->samples[k].time_us < to)
				continue;
			scenario_format_ms(a->at_ms, at, sizeof(at));
			snprintf(why, len, "line %u's fault at %s has no "
					   "recorded sample in its window",
				 a->line, at);
			return;
		}
	}
}

/*
 * The stream with no fault, run once: every filter's output on it (the
 * golden run each faulted case is compared with), and for a log the
 * accuracy reference, a zero-phase smoother of the clean recording.
 */
struct golden {
	struct replay_rows rows;
	struct replay_output *outs;	/* one per filter */
	size_t nf;
	double *ref;		/* per golden row; NULL for a synthetic
				 * stream, whose truth is the profile */
	double sigma_m;		/* the smoother's baro noise SD */
	bool ref_accel;		/* ... which also read the accelerometer */
};

static void
golden_free(struct golden *g)
{
	for (size_t k = 0; g->outs && k < g->nf; k++)
		replay_output_free(&g->outs[k]);
	free(g->outs);
	free(g->ref);
	replay_rows_free(&g->rows);
	*g = (struct golden){ 0 };
}

static bool
stream_is_synthetic(const struct replay_stream *st)
{
	return strncmp(st->reference, "truth", 5) == 0;
}

/* 0, or a negative errno with the message printed (-ENOMEM ends the
 * run; anything else leaves the stream's cases without a golden run). */
static int
golden_build(struct run_ctx *ctx, const struct replay_stream *st,
	     struct golden *g)
{
	char err[512];
	*g = (struct golden){ 0 };
	int rc = replay_rows_build(&g->rows, st, NULL, ctx->cfg->seed, err,
				   sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "baro-replay: %s\n", err);
		return rc;
	}
	g->nf = replay_filter_count(ctx->filters);
	g->outs = calloc(g->nf ? g->nf : 1, sizeof(*g->outs));
	if (!g->outs) {
		golden_free(g);
		return -ENOMEM;
	}
	for (size_t k = 0; k < g->nf; k++) {
		struct replay_filter_outcome how;
		rc = replay_filter_run_contained(ctx->filters, k, &g->rows,
						 &g->outs[k],
						 ctx->cfg->case_timeout_s, &how,
						 err, sizeof(err));
		if (rc < 0) {
			fprintf(stderr, "baro-replay: %s\n", err);
			golden_free(g);
			return rc;
		}
		/* A filter that did not run here has no golden output; its
		 * cases say so too. */
		if (!how.ran)
			fprintf(stderr, "baro-replay: %s %s on %s (the run "
					"without faults)\n",
				replay_filter_label(ctx->filters, k), how.what,
				st->name);
	}
	if (stream_is_synthetic(st))
		return 0;
	const size_t n = g->rows.n;
	double *z = malloc((n ? n : 1) * sizeof(*z));
	g->ref = malloc((n ? n : 1) * sizeof(*g->ref));
	if (!z || !g->ref) {
		free(z);
		golden_free(g);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		z[i] = g->rows.is_sample[i] ? g->rows.in_alt_m[i] : NAN;
	struct replay_reference_params rp;
	replay_reference_defaults(&rp);
	double *acc = replay_reference_accel(&g->rows, &rc);
	if (rc < 0) {
		free(z);
		golden_free(g);
		return rc;
	}
	g->ref_accel = acc != NULL;
	rc = replay_reference_smooth(g->rows.t_s, z, acc, g->rows.seg_start,
				     n, &rp, g->ref, &g->sigma_m);
	free(acc);
	free(z);
	if (rc == -ENOMEM) {
		golden_free(g);
		return rc;
	}
	if (rc < 0) {
		free(g->ref);
		g->ref = NULL;
	}
	return 0;
}

/* The last golden row at or before t_us (rows are in time order), or
 * SIZE_MAX before the first. */
static size_t
golden_row_at(const struct golden *g, uint64_t t_us)
{
	size_t lo = 0, hi = g->rows.n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->rows.t_us[mid] <= t_us)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 ? SIZE_MAX : lo - 1;
}

/* A log case's truth: the smoother at each sample row's time, by linear
 * interpolation between golden sample rows of one segment (a delayed or
 * shifted sample's time may fall between them); NaN elsewhere. */
static void
golden_truth(const struct golden *g, struct replay_rows *rows)
{
	for (size_t i = 0; i < rows->n; i++) {
		rows->truth_m[i] = NAN;
		if (!g->ref || !rows->is_sample[i])
			continue;
		size_t a = golden_row_at(g, rows->t_us[i]);
		if (a == SIZE_MAX)
			continue;
		while (a > 0 && !g->rows.is_sample[a])
			a--;
		if (!g->rows.is_sample[a])
			continue;
		if (g->rows.t_us[a] == rows->t_us[i]) {
			rows->truth_m[i] = g->ref[a];
			continue;
		}
		size_t b = a + 1;
		while (b < g->rows.n && !g->rows.is_sample[b])
			b++;
		if (b >= g->rows.n || g->rows.seg_start[b] ||
		    g->rows.t_us[b] - g->rows.t_us[a] > REPLAY_REF_MAX_GAP_US)
			continue;
		double w = (double)(rows->t_us[i] - g->rows.t_us[a]) /
			   (double)(g->rows.t_us[b] - g->rows.t_us[a]);
		rows->truth_m[i] = g->ref[a] + w * (g->ref[b] - g->ref[a]);
	}
}

/* Filter k's golden estimate at each of rows' times (held from its last
 * golden row), into out. */
static void
golden_output(const struct golden *g, size_t k, const struct replay_rows *rows,
	      double *out)
{
	for (size_t i = 0; i < rows->n; i++) {
		if (!g->outs[k].alt_m) {
			out[i] = NAN;
			continue;
		}
		size_t a = golden_row_at(g, rows->t_us[i]);
		out[i] = a == SIZE_MAX ? NAN : g->outs[k].alt_m[a];
	}
}

/* An output with no estimate and no flags on n rows. */
static int
output_none(struct replay_output *o, size_t n)
{
	size_t nb = n ? n : 1;
	replay_output_free(o);
	o->alt_m = malloc(nb * sizeof(double));
	o->test_ratio = malloc(nb * sizeof(double));
	o->climb_m_s = malloc(nb * sizeof(double));
	o->flags = calloc(nb, sizeof(uint32_t));
	o->baro_flags = calloc(3 * nb, sizeof(uint32_t));
	if (!o->alt_m || !o->test_ratio || !o->climb_m_s || !o->flags ||
	    !o->baro_flags) {
		replay_output_free(o);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		o->alt_m[i] = o->test_ratio[i] = o->climb_m_s[i] = NAN;
	return 0;
}

/* The inputs filter k reads from stream st. */
static unsigned
filter_inputs(const struct run_ctx *ctx, size_t k,
	      const struct replay_stream *st)
{
	uint32_t reads = replay_filter_reads(ctx->filters, k);
	/* ... and what the recording has of what it reads. */
	unsigned in = REPLAY_IN_BARO;
	if ((reads & BARO_FILTER_READS_BAROS) && st->aux.nbaro)
		in |= REPLAY_IN_BARO2;
	if ((reads & BARO_FILTER_READS_ACCEL) && st->aux.nimu && st->aux.natt)
		in |= REPLAY_IN_ACCEL;
	if ((reads & BARO_FILTER_READS_GPS) && st->aux.ngps)
		in |= REPLAY_IN_GPS;
	if ((reads & BARO_FILTER_READS_RANGE) && st->aux.nrange)
		in |= REPLAY_IN_RANGE;
	return in;
}

static void
note_copy(char *dst, size_t len, const char *src);

/* A log of a driven run: its rows labelled from the record, and why it
 * cannot be judged (into why) when the log has not the run's truth or
 * the record is of another stretch of time.  0 or -ENOMEM. */
static int
record_case(struct run_ctx *ctx, const struct replay_stream *st,
	    struct replay_rows *rows, char *why, size_t whylen)
{
	const struct record_labels *rl = ctx->labels;
	int rc = replay_rows_relabel(rows, rl);
	if (rc < 0)
		return rc;
	if (why[0])
		return 0;
	if (!stream_is_synthetic(st)) {
		snprintf(why, whylen, "no truth in this log to judge a driven "
			 "run by (reference: %.40s); wanted DataFlash SIM, "
			 "ULog *_groundtruth or CSV truth_alt_m",
			 st->reference[0] ? st->reference : "none");
		return 0;
	}
	const uint64_t a = rows->n ? rows->t_us[0] : 0;
	const uint64_t b = rows->n ? rows->t_us[rows->n - 1] : 0;
	if (rows->n == 0 || rl->last_us < a || rl->first_us > b)
		snprintf(why, whylen, "the record (autopilot time %.3f to "
			 "%.3f s) and this log (%.3f to %.3f s) do not "
			 "overlap: a record of another run or boot?",
			 (double)rl->first_us * 1e-6,
			 (double)rl->last_us * 1e-6, (double)a * 1e-6,
			 (double)b * 1e-6);
	return 0;
}

/* One stream under one scenario: every filter, the case files, metrics. */
static int
run_case(struct run_ctx *ctx, const struct replay_stream *st,
	 const struct scen *s, const struct golden *g)
{
	const struct replay_config *cfg = ctx->cfg;
	struct replay_rows rows;
	char err[512], name[2 * REPORT_NAME_LEN];
	size_t nf = replay_filter_count(ctx->filters);
	struct plot_desc pd;	/* the script's and the PNG's */
	bool have_pd = false;

	ctx->done++;
	if (!cfg->quiet)
		fprintf(stderr, "baro-replay: [%zu/%zu] %s / %s\n", ctx->done,
			ctx->total, st->name, s->name);
	/* Times relative to the recording are placed on this one; a
	 * scenario that cannot be (out of order here) runs nothing and
	 * the case is unchecked with the parser's reason. */
	const struct scenario *sc = s->sc;
	struct scenario *placed = NULL;
	char why[REPORT_NOTE_LEN] = "";
	if (s->sc && s->sc->relative && st->n > 0) {
		placed = malloc(sizeof(*placed));
		if (!placed)
			return -ENOMEM;
		uint64_t length_ms = (st->samples[st->n - 1].time_us -
				      st->samples[0].time_us) / 1000u;
		if (scenario_parse_for(placed, s->text, s->len, s->path,
				       length_ms, err, sizeof(err)) < 0) {
			str_errorf(why, sizeof(why), 0, "the scenario does "
				   "not fit this recording: %s", err);
			sc = NULL;
		} else {
			sc = placed;
		}
	}
	int rc = replay_rows_build(&rows, st, sc, cfg->seed, err,
				   sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "baro-replay: %s\n", err);
		free(placed);
		return rc == -ENOMEM ? -ENOMEM : 0;
	}
	const bool synthetic = stream_is_synthetic(st);
	if (!synthetic)
		golden_truth(g, &rows);
	if (ctx->labels && (rc = record_case(ctx, st, &rows, why,
					     sizeof(why))) < 0) {
		replay_rows_free(&rows);
		free(placed);
		return rc;
	}
	/* Leakage and recovery need the golden run only where a fault
	 * ran. */
	const bool faulted = rows.nwin > 0;
	struct replay_output *outs = calloc(nf, sizeof(*outs));
	const char **names = calloc(nf, sizeof(*names));
	bool *under_test = calloc(nf, sizeof(*under_test));
	struct replay_filter_outcome *how = calloc(nf, sizeof(*how));
	double *gold = faulted ? malloc((rows.n ? rows.n : 1) * sizeof(*gold))
			       : NULL;
	if (!outs || !names || !under_test || !how || (faulted && !gold)) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < nf; k++) {
		names[k] = replay_filter_label(ctx->filters, k);
		under_test[k] = replay_filter_under_test(ctx->filters, k);
		rc = replay_filter_run_contained(ctx->filters, k, &rows,
						 &outs[k], cfg->case_timeout_s,
						 &how[k], err, sizeof(err));
		if (rc < 0) {
			fprintf(stderr, "baro-replay: %s\n", err);
			goto out;
		}
		if (how[k].ran)
			continue;
		fprintf(stderr, "baro-replay: %s %s on %s / %s\n", names[k],
			how[k].what, st->name, s->name);
		/* No estimate anywhere, for the case's files and plot. */
		if ((rc = output_none(&outs[k], rows.n)) < 0)
			goto out;
	}
	report_case_name(st->name, s->name, name, sizeof(name));
	char title[800];
	char refname[256];
	if (synthetic && strcmp(st->reference, "truth (profile)") != 0)
		/* A log with its simulator's truth. */
		snprintf(refname, sizeof(refname), "%s", st->reference);
	else if (synthetic)
		snprintf(refname, sizeof(refname), "the profile");
	else if (g->ref)
		snprintf(refname, sizeof(refname), "zero-phase smoother of the "
			 "clean %s%s (noise %.2f m)", st->channel,
			 g->ref_accel ? " and the accelerometer" : "",
			 g->sigma_m);
	else
		snprintf(refname, sizeof(refname), "none");
	snprintf(title, sizeof(title), "%s / %s  (channel %s, truth: %s)",
		 st->name, s->name, st->channel, refname);
	/* The pages' zoomable plots name them in their keys. */
	for (size_t i = 0; i < ctx->ninputs; i++)
		if (strcmp(ctx->inputs[i].source, st->name) == 0) {
			note_copy(ctx->inputs[i].truth,
				  sizeof(ctx->inputs[i].truth), refname);
			note_copy(ctx->inputs[i].reference,
				  sizeof(ctx->inputs[i].reference),
				  st->reference);
		}
	/* gnuplot's title is in single quotes. */
	for (char *q = title; *q; q++)
		if (*q == '\'')
			*q = '"';
	struct report_case c = {
		.dir = cfg->report_dir, .name = name, .title = title,
		.rows = &rows, .nfilters = nf, .filter_names = names,
		.outputs = outs, .under_test = under_test,
		.reference = st->reference,
		.step_t_s = synthetic && s->profile.kind == TRUTH_STEP
				    ? s->profile.c
				    : NAN,
		.plot = cfg->plot,
	};
	if ((rc = plot_layout_case(&pd, &c)) < 0)
		goto out;
	have_pd = true;
	if ((rc = report_write_case(&c, &pd, err, sizeof(err))) < 0) {
		fprintf(stderr, "baro-replay: %s\n", err);
		goto out;
	}
	const double dt = typical_interval(st);
	if (sc)
		unchecked_reason(&rows, st, sc, dt, why, sizeof(why));
	if (!why[0] && replay_rows_after_warmup(&rows) == 0)
		snprintf(why, sizeof(why), "the recording (%zu samples, "
			 "%.1f s) is shorter than a filter's warm-up (%.0f s "
			 "or %u samples)", rows.samples_out,
			 rows.n ? rows.t_s[rows.n - 1] : 0.0, REPLAY_WARMUP_S,
			 REPLAY_WARMUP_SAMPLES);
	if (why[0]) {
		ctx->unchecked++;
		fprintf(stderr, "baro-replay: %s / %s: unchecked, %s\n",
			st->name, s->name, why);
	}
	/* Timeouts at a log's 3 Hz fire between ordinary samples. */
	const double rate_hz = 1.0 / dt;
	char rate_note[128] = "";
	if (rate_hz < REPLAY_DETECT_MIN_HZ)
		snprintf(rate_note, sizeof(rate_note), "unchecked: log rate "
			 "%.1f Hz (on-board timing needs %.0f Hz)", rate_hz,
			 REPLAY_DETECT_MIN_HZ);
	struct replay_metrics_ctx mctx = {
		.reference = synthetic || g->ref,
		.step_t_s = synthetic && s->profile.kind == TRUTH_STEP
				    ? s->profile.c
				    : NAN,
		.lag_dt_s = dt,
		.lag_max_s = 2.0,
	};
	for (size_t k = 0; k < nf; k++) {
		struct report_result *r = results_add(&ctx->res);
		if (!r) {
			rc = -ENOMEM;
			goto out;
		}
		if (!(r->source = str_pool_get_cut(&ctx->texts, st->name,
						   REPORT_NAME_LEN)) ||
		    !(r->scenario = str_pool_get_cut(&ctx->texts, s->name,
						     REPORT_NAME_LEN)) ||
		    !(r->filter = str_pool_get_cut(&ctx->texts, names[k],
						   REPORT_NAME_LEN))) {
			rc = -ENOMEM;
			goto out;
		}
		r->under_test = replay_filter_under_test(ctx->filters, k);
		r->damaged = st->damage[0] != '\0';
		if (!how[k].ran) {
			/* The case fails for it, whatever else: a filter
			 * that crashes in flight has no verdict to keep. */
			if (report_result_add(r, "crashed", 1.0) < 0) {
				rc = -ENOMEM;
				goto out;
			}
			struct report_metric *m = &r->m[r->n - 1];
			m->status = REPORT_FAIL;
			if (!(m->rule = str_pool_get_cut(&ctx->texts,
							 how[k].what,
							 REPORT_NOTE_LEN))) {
				rc = -ENOMEM;
				goto out;
			}
			r->status = REPORT_FAIL;
			continue;
		}
		if (faulted && ctx->labels)
			/* No unfaulted twin of a driven run: leakage and
			 * recovery against its truth. */
			memcpy(gold, rows.truth_m, rows.n * sizeof(*gold));
		else if (faulted)
			golden_output(g, k, &rows, gold);
		mctx.golden = gold;
		mctx.per_baro = filter_inputs(ctx, k, st) & REPLAY_IN_BARO2;
		rc = replay_metrics_fill(&rows, &outs[k], &mctx, cfg->timing,
					 r, err, sizeof(err));
		if (rc < 0) {
			fprintf(stderr, "baro-replay: %s / %s / %s: %s\n",
				st->name, s->name, names[k], err);
			goto out;
		}
		r->damaged = st->damage[0] != '\0';
		if (why[0] && !(r->unchecked = str_pool_get_cut(
					&ctx->texts, why, REPORT_NOTE_LEN))) {
			rc = -ENOMEM;
			goto out;
		}
		if (why[0])
			continue;
		struct replay_judge_notes notes = { 0 };
		if (replay_filter_is_autopilot(ctx->filters, k))
			notes.flags = "not judged: the log does not say which "
				      "samples the autopilot rejected";
		unsigned in = filter_inputs(ctx, k, st);
		if (faulted && !(s->reveal & in)) {
			char a[64], b[64], note[192];
			format_inputs(in, a, sizeof(a));
			format_inputs(s->reveal, b, sizeof(b));
			if (s->reveal)
				snprintf(note, sizeof(note), "not judged: reads "
					 "%s; this fault is revealed by %s", a,
					 b);
			else
				snprintf(note, sizeof(note), "not judged: no "
					 "sensor reveals this fault");
			if (!(notes.detection = str_pool_get_cut(
				      &ctx->texts, note, REPORT_NOTE_LEN))) {
				rc = -ENOMEM;
				goto out;
			}
		}
		if (rate_note[0] &&
		    !(notes.rate = str_pool_get_cut(&ctx->texts, rate_note,
						    REPORT_NOTE_LEN))) {
			rc = -ENOMEM;
			goto out;
		}
		replay_thresholds_apply(ctx->th, r, &notes);
	}
	/* Drawn now the case's verdicts are known, while the next case
	 * runs. */
	if (report_case_drawn(&ctx->res.r[ctx->res.n - nf], nf,
			      ctx->first_case, cfg->plot_all) &&
	    cfg->plot != REPORT_PLOT_NONE &&
	    report_draw_case(&c, &pd, ctx->plotter, err, sizeof(err)) < 0)
		fprintf(stderr, "baro-replay: %s; no plot\n", err);
	ctx->first_case = false;
	rc = 0;
out:
	if (have_pd)
		plot_desc_free(&pd);
	for (size_t k = 0; outs && k < nf; k++)
		replay_output_free(&outs[k]);
	free(outs);
	free(names);
	free(under_test);
	free(how);
	free(gold);
	free(placed);
	replay_rows_free(&rows);
	return rc;
}

/* Copy a note, cut to fit. */
static void
note_copy(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);
	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static struct report_input *
input_add(struct run_ctx *ctx, const char *name)
{
	void *p = realloc(ctx->inputs, (ctx->ninputs + 1) * sizeof(*ctx->inputs));
	if (!p)
		return NULL;
	ctx->inputs = p;
	struct report_input *in = &ctx->inputs[ctx->ninputs++];
	memset(in, 0, sizeof(*in));
	snprintf(in->source, sizeof(in->source), "%s", name);
	return in;
}

static int
run_log(struct run_ctx *ctx, const char *path, const struct scen *scens,
	size_t nscen)
{
	const struct replay_config *cfg = ctx->cfg;
	struct log_reader r;
	struct replay_stream st;
	char err[512];
	size_t nlogscen = 0;
	for (size_t i = 0; i < nscen; i++)
		nlogscen += scens[i].logs;

	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "baro-replay: %s: %s\n", path, strerror(errno));
		return -ENOENT;
	}
	int rc = log_reader_open_fd(&r, fd, path, cfg->format);
	if (rc < 0) {
		fprintf(stderr, "baro-replay: %s\n", r.err);
		log_reader_close(&r);
		close(fd);
		return -EINVAL;
	}
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	struct report_input *in = input_add(ctx, base);
	if (!in) {
		log_reader_close(&r);
		close(fd);
		return -ENOMEM;
	}
	rc = replay_stream_from_log(&st, &r, base, cfg->channel, cfg->reference,
				    err, sizeof(err));
	if (rc == -ENODATA) {
		/* Said in every summary, with what baro-like data it had. */
		char like[160];
		log_reader_baro_like(&r, like, sizeof(like));
		char why[320];
		if (r.info.baro_note[0])
			snprintf(why, sizeof(why), "no barometer samples (%s)",
				 r.info.baro_note);
		else if (like[0])
			snprintf(why, sizeof(why), "no barometer samples "
				 "(baro-like messages: %s)", like);
		else
			snprintf(why, sizeof(why), "no barometer samples");
		note_copy(in->outcome, sizeof(in->outcome), why);
		fprintf(stderr, "baro-replay: %s: %s\n", path, in->outcome);
		ctx->nempty++;
	}
	char dmg[LOG_ERR_LEN + 96];
	if (rc == 0 && log_reader_damage(&r, st.damage[0] ? -1 : 0, dmg,
					 sizeof(dmg))) {
		note_copy(in->damage, sizeof(in->damage), dmg);
		in->cut_off = log_reader_cut_off(&r);
	}
	log_reader_close(&r);
	close(fd);
	if (rc < 0) {
		if (rc != -ENODATA) {
			fprintf(stderr, "baro-replay: %s\n", err);
			note_copy(in->outcome, sizeof(in->outcome), err);
			ctx->nempty++;
		}
		/* A log without baro data is reported, not fatal. */
		ctx->done += nlogscen;
		return rc == -ENOMEM ? rc : 0;
	}
	in->used = true;
	in->segments = st.nseg ? st.nseg : 1;
	snprintf(in->outcome, sizeof(in->outcome), "%zu samples of %s", st.n,
		 st.channel);
	replay_stream_describe_segments(&st, in->segment_note,
					sizeof(in->segment_note));
	if (in->cut_off) {
		/* What a log looks like after a power loss: said, not
		 * counted as damage by --strict. */
		fprintf(stderr, "baro-replay: warning: %s: its last record is "
				"cut off (%s); the %zu samples before it are "
				"used\n",
			path, in->damage, st.n);
	} else if (in->damage[0]) {
		fprintf(stderr, "baro-replay: warning: %s: damaged: %s (the %zu "
				"samples %s are used)\n",
			path, in->damage, st.n,
			st.damage[0] ? "before it" : "read around it");
		ctx->ndamaged++;
	}
	if (in->segments > 1 && !cfg->quiet)
		fprintf(stderr, "baro-replay: %s: %s; filters restart in each\n",
			path, in->segment_note);
	if (st.dropped_backwards || st.dropped_invalid)
		fprintf(stderr, "baro-replay: %s: left out %llu samples "
				"earlier than their predecessor and %llu "
				"invalid ones\n",
			st.name, (unsigned long long)st.dropped_backwards,
			(unsigned long long)st.dropped_invalid);
	ctx->first_case = true;
	struct golden g;
	rc = golden_build(ctx, &st, &g);
	if (rc < 0) {
		replay_stream_free(&st);
		ctx->done += nlogscen;
		return rc == -ENOMEM ? rc : 0;
	}
	for (size_t i = 0; i < nscen && rc == 0; i++) {
		if (!scens[i].logs)
			continue;
		rc = run_case(ctx, &st, &scens[i], &g);
	}
	golden_free(&g);
	replay_stream_free(&st);
	return rc;
}

static int
run_synthetic(struct run_ctx *ctx, const struct scen *s)
{
	struct replay_stream st;
	char err[512];
	struct replay_synth_config c;
	replay_synth_config_init(&c);
	c.profile = &s->profile;
	c.duration_s = s->duration_s;
	c.home_m = SYNTHETIC_HOME_M;
	c.params = &ctx->cfg->params;
	c.ardupilot = ctx->cfg->ardupilot;
	c.seed = ctx->cfg->seed;
	c.nbaro = s->baros;
	/* No scenario here: the stream is the clean recording the golden
	 * run needs, and the rows' injector (replay-aux) faults its further
	 * baros as it does a log's.  Given to both, `glitch 1 15` came out
	 * as 30 m, and the golden run glitched. */
	c.sc = NULL;
	int rc = replay_stream_synthetic_with(&st, &c, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "baro-replay: %s: %s\n", s->name, err);
		return rc;
	}
	struct golden g;
	rc = golden_build(ctx, &st, &g);
	if (rc == 0) {
		rc = run_case(ctx, &st, s, &g);
		golden_free(&g);
	} else if (rc != -ENOMEM) {
		rc = 0;		/* said; the other cases go on */
	}
	replay_stream_free(&st);
	return rc;
}

/* Input p (the logs as given, then the synthetic stream) is this
 * shard's. */
static bool
in_shard(const struct replay_config *cfg, size_t p)
{
	return cfg->shard_n <= 1 || p % cfg->shard_n == cfg->shard_k - 1;
}

/* run.json: every input of the whole run and this report's shard of
 * them, for baro-replay merge; and what the results came from
 * (replay-provenance.h), for merge and compare to check. */
static int
write_manifest(const struct replay_config *cfg,
	       const struct replay_filter_set *filters, const struct scen *scens,
	       size_t nscen, char *err, size_t errlen)
{
	size_t n = (cfg->logs_enabled ? cfg->nlogs : 0) + (cfg->synthetic ? 1 : 0);
	const char **names = calloc(n ? n : 1, sizeof(*names));
	struct replay_provenance_scenario *ps =
		calloc(nscen ? nscen : 1, sizeof(*ps));
	if (!names || !ps) {
		free(names);
		free(ps);
		return str_errorf(err, errlen, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; cfg->logs_enabled && i < cfg->nlogs; i++) {
		const char *base = strrchr(cfg->logs[i], '/');
		names[i] = base ? base + 1 : cfg->logs[i];
	}
	if (cfg->synthetic)
		names[n - 1] = "synthetic";
	for (size_t i = 0; i < nscen; i++)
		ps[i] = (struct replay_provenance_scenario){
			.name = scens[i].name, .text = scens[i].text,
			.len = scens[i].len,
		};
	struct replay_provenance_src src = {
		.cfg = cfg, .filters = filters, .scens = ps, .nscens = nscen,
		.input_names = names, .ninputs = n,
	};
	struct replay_manifest m = {
		.inputs = names, .ninputs = n,
		.shard_k = cfg->shard_n > 1 ? cfg->shard_k : 1,
		.shard_n = cfg->shard_n > 1 ? cfg->shard_n : 1,
		.plot = cfg->plot, .plot_all = cfg->plot_all,
	};
	int rc = replay_provenance_build(&m.prov, &src, err, errlen);
	if (rc == 0)
		rc = replay_manifest_write(cfg->report_dir, &m, err, errlen);
	json_object_put(m.prov);
	free(names);
	free(ps);
	return rc;
}

/*
 * The exit status from the filters under test alone: the baselines'
 * verdicts are in the table for comparison, and a raw pass-through
 * failing its detection checks is what it is for.  The table goes to
 * stdout; the reason for a 1 to stderr.
 */
int
replay_verdict(const struct report_result *res, size_t n,
	       const struct replay_verdict_opts *o)
{
	struct report_filter_tally *t = calloc(n ? n : 1, sizeof(*t));
	if (!t) {
		fprintf(stderr, "baro-replay: out of memory\n");
		return EXIT_IO;
	}
	size_t nt = report_tally_filters(res, n, t, n);
	size_t ntest = 0;
	for (size_t k = 0; k < nt; k++)
		ntest += t[k].under_test;
	if (o->named && ntest == 0) {
		/* Named with -f, yet no input gave them a case: that is not
		 * an exploratory run, and not a pass. */
		fprintf(stderr, "baro-replay: the %zu filter%s under test "
				"(-f) ran on no case: no input had barometer "
				"samples to judge them on\n",
			o->named, o->named == 1 ? "" : "s");
		free(t);
		return EXIT_FAILED;
	}
	if (o->table)
		report_print_verdicts(stdout, t, nt);
	size_t failed = 0, warned = 0;
	for (size_t k = 0; k < nt; k++) {
		if (!t[k].under_test)
			continue;
		enum report_status v = report_filter_verdict(&t[k]);
		if (v == REPORT_FAIL || (o->strict && v == REPORT_WARN)) {
			if (o->table)
				fprintf(stderr, "baro-replay: %s %s %zu of its "
						"%zu runs%s\n",
					t[k].filter,
					v == REPORT_FAIL ? "failed" : "warned on",
					t[k].counts[v], t[k].runs,
					v == REPORT_WARN ? " (--strict)" : "");
			failed += v == REPORT_FAIL;
			warned += v == REPORT_WARN;
		}
	}
	free(t);
	int status = failed || warned ? EXIT_FAILED : 0;
	if (o->strict && (o->unchecked || o->ndamaged || o->nempty)) {
		fprintf(stderr, "baro-replay: --strict: %zu cases unchecked, "
				"%zu inputs damaged, %zu inputs without "
				"barometer samples\n",
			o->unchecked, o->ndamaged, o->nempty);
		status = EXIT_FAILED;
	}
	if (fflush(stdout) != 0 || ferror(stdout))
		return EXIT_IO;
	return status;
}

int
replay_cases_run(const struct replay_config *cfg)
{
	struct run_ctx ctx = { .cfg = cfg };
	struct scen *scens = calloc(REPLAY_MAX_SCENARIOS, sizeof(*scens));
	size_t nscen = 0;
	char err[512];
	int status = EXIT_USAGE;

	if (!scens) {
		fprintf(stderr, "baro-replay: out of memory\n");
		return EXIT_IO;
	}
	struct record_labels labels = { 0 };
	if (cfg->labels) {
		if (load_record(cfg, &labels, scens) < 0)
			goto out;
		nscen = 1;
		ctx.labels = &labels;
	} else if (load_scenarios(cfg, scens, &nscen) < 0) {
		goto out;
	}
	if (replay_filter_set_open(&ctx.filters, cfg->filters, cfg->nfilters,
				   cfg->baselines, err, sizeof(err)) < 0) {
		fprintf(stderr, "baro-replay: %s\n", err);
		goto out;
	}
	if (replay_thresholds_load(&ctx.th, cfg->thresholds, err,
				   sizeof(err)) < 0) {
		fprintf(stderr, "baro-replay: %s\n", err);
		goto out;
	}
	if (!cfg->logs_enabled && !cfg->synthetic) {
		fprintf(stderr, "baro-replay: nothing to run\n");
		goto out;
	}
	if (cfg->logs_enabled && cfg->nlogs == 0 && !cfg->synthetic) {
		fprintf(stderr, "baro-replay: run: no logs given\n");
		goto out;
	}
	/* Every log readable and recognised before anything is written, so
	 * a typo in a name leaves no report directory behind (a shard's
	 * own logs: every shard of a run checks its part). */
	for (size_t i = 0; cfg->logs_enabled && i < cfg->nlogs; i++) {
		if (!in_shard(cfg, i))
			continue;
		struct log_reader r;
		int fd = open(cfg->logs[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "baro-replay: %s: %s\n", cfg->logs[i],
				strerror(errno));
			goto out;
		}
		int rc = log_reader_open_fd(&r, fd, cfg->logs[i], cfg->format);
		if (rc < 0)
			fprintf(stderr, "baro-replay: %s\n", r.err);
		log_reader_close(&r);
		close(fd);
		if (rc < 0)
			goto out;
	}
	int prc = report_prepare(cfg->report_dir, err, sizeof(err));
	if (prc < 0) {
		fprintf(stderr, "baro-replay: %s\n", err);
		status = prc == -EEXIST ? EXIT_USAGE : EXIT_IO;
		goto out;
	}
	size_t nlogscen = 0;
	for (size_t i = 0; i < nscen; i++)
		nlogscen += scens[i].logs;
	size_t nlogs_here = 0;
	for (size_t i = 0; cfg->logs_enabled && i < cfg->nlogs; i++)
		nlogs_here += in_shard(cfg, i);
	ctx.total = nlogs_here * nlogscen +
		    (cfg->synthetic &&
				     in_shard(cfg, cfg->logs_enabled ? cfg->nlogs : 0)
			     ? nscen
			     : 0);
	/* SVG: one gnuplot per core, drawing while the cases run (a PNG
	 * is drawn in-process as its case ends). */
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned pj = cfg->plot_jobs ? cfg->plot_jobs
		      : cpus < 1 ? 1 : (unsigned)cpus;
	if (report_plotter_open(&ctx.plotter, cfg->report_dir, cfg->plot, pj,
				err, sizeof(err)) < 0)
		fprintf(stderr, "baro-replay: %s; no plots\n", err);

	int rc = 0;
	for (size_t i = 0; cfg->logs_enabled && i < cfg->nlogs && rc >= 0; i++)
		if (in_shard(cfg, i))
			rc = run_log(&ctx, cfg->logs[i], scens, nscen);
	if (rc == -ENOENT || rc == -EINVAL) {
		status = EXIT_USAGE;
		goto out;
	}
	const size_t synth_at = cfg->logs_enabled ? cfg->nlogs : 0;
	ctx.first_case = true;	/* the synthetic stream's cases: one source */
	for (size_t i = 0; cfg->synthetic && in_shard(cfg, synth_at) &&
			   i < nscen && rc >= 0; i++)
		rc = run_synthetic(&ctx, &scens[i]);
	if (rc < 0) {
		status = rc == -ENOMEM ? EXIT_IO : EXIT_USAGE;
		goto out;
	}
	if (ctx.plotter) {
		int plrc = report_plotter_close(ctx.plotter, err, sizeof(err));
		ctx.plotter = NULL;
		if (plrc < 0)
			fprintf(stderr, "baro-replay: %s\n", err);
	}
	if (report_write_summary(cfg->report_dir, ctx.res.r, ctx.res.n,
				 ctx.inputs, ctx.ninputs, err,
				 sizeof(err)) < 0) {
		fprintf(stderr, "baro-replay: %s\n", err);
		status = EXIT_IO;
		goto out;
	}
	if (write_manifest(cfg, ctx.filters, scens, nscen, err,
			   sizeof(err)) < 0 ||
	    report_write_html(cfg->report_dir, ctx.res.r, ctx.res.n,
			      ctx.inputs, ctx.ninputs, cfg->plot,
			      cfg->plot_all, err, sizeof(err)) < 0) {
		fprintf(stderr, "baro-replay: %s\n", err);
		status = EXIT_IO;
		goto out;
	}
	size_t counts[REPORT_FAIL + 1] = { 0 };
	for (size_t i = 0; i < ctx.res.n; i++)
		counts[ctx.res.r[i].status]++;
	if (!cfg->quiet)
		fprintf(stderr, "baro-replay: %zu runs: %zu pass, %zu warn, "
				"%zu fail, %zu unchecked; report in "
				"%s/summary.txt\n",
			ctx.res.n, counts[REPORT_PASS], counts[REPORT_WARN],
			counts[REPORT_FAIL], counts[REPORT_NONE],
			cfg->report_dir);
	for (size_t i = 0; i < ctx.ninputs; i++)
		if (ctx.inputs[i].damage[0])
			fprintf(stderr, "baro-replay: %s: %s: %s\n",
				ctx.inputs[i].cut_off
					? "input cut off at its end, used up "
					  "to the cut"
					: "damaged input, used up to the damage",
				ctx.inputs[i].source, ctx.inputs[i].damage);
	struct replay_verdict_opts vo = {
		/* A shard of run --jobs records --strict in its run.json
		 * (merge checks the shards agree) but leaves judging, and
		 * saying why, to the merge. */
		.strict = cfg->strict && !cfg->no_table,
		.table = !cfg->no_table,
		.unchecked = ctx.unchecked, .ndamaged = ctx.ndamaged,
		/* A shard of run --jobs may hold no case; the merge judges. */
		.nempty = ctx.nempty, .named = cfg->no_table ? 0 : cfg->nfilters,
	};
	status = replay_verdict(ctx.res.r, ctx.res.n, &vo);
out:
	for (size_t i = 0; i < nscen; i++) {
		free(scens[i].sc);
		free(scens[i].text);
	}
	free(scens);
	record_labels_free(&labels);
	replay_filter_set_close(ctx.filters);
	for (size_t i = 0; i < ctx.res.n; i++)
		report_result_free(&ctx.res.r[i]);
	free(ctx.res.r);
	str_pool_free(&ctx.texts);
	replay_thresholds_free(ctx.th);
	free(ctx.inputs);
	if (ctx.plotter)
		report_plotter_close(ctx.plotter, err, sizeof(err));
	return status;
}

int
replay_list_filters(FILE *out)
{
	return replay_filter_list(out);
}
