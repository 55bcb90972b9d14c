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

#include "log-reader.h"
#include "replay-filters.h"
#include "replay-metrics.h"
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
		.timing = true,
	};
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
	struct scenario *sc;
	struct truth_profile profile;
	double duration_s;
	bool logs;
};

/* The "# replay: key=value ..." line, if any. */
static int
parse_directive(const char *text, struct scen *s, const char *path)
{
	const char *p = strstr(text, "# replay:");
	char err[256];

	truth_profile_parse("static:10", &s->profile, err, sizeof(err));
	s->duration_s = 60.0;
	s->logs = true;
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
				"logs=yes|no)\n",
			path, tok);
		return -EINVAL;
	}
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
		if (!s->sc)
			rc = -ENOMEM;
		else if ((rc = scenario_parse(s->sc, text, len, path, err,
					      sizeof(err))) < 0)
			fprintf(stderr, "baro-replay: %s\n", err);
	}
	free(text);
	if (rc < 0) {
		free(s->sc);
		s->sc = NULL;
	}
	return rc;
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
		if (stat(p, &st) < 0) {
			fprintf(stderr, "baro-replay: scenarios %s: %s\n", p,
				strerror(errno));
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
			char path[4096];
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
	memset(r, 0, sizeof(*r));
	return r;
}

struct run_ctx {
	const struct replay_config *cfg;
	struct replay_filter_set *filters;
	struct replay_thresholds *th;
	struct results res;
	size_t done, total;
	bool plot_warned;
};

/* The mean sample spacing, the lag's resampling grid: 10 ms for the
 * emulator, 100 ms for most logs. */
static double
typical_interval(const struct replay_rows *rows)
{
	double first = NAN, last = NAN;
	size_t n = 0;
	for (size_t i = 0; i < rows->n; i++)
		if (rows->is_sample[i]) {
			if (n == 0)
				first = rows->t_s[i];
			last = rows->t_s[i];
			n++;
		}
	double dt = n > 1 ? (last - first) / (double)(n - 1) : 0.1;
	return dt < 0.001 ? 0.001 : dt > 1.0 ? 1.0 : dt;
}

/* One stream under one scenario: every filter, the case files, metrics. */
static int
run_case(struct run_ctx *ctx, const struct replay_stream *st,
	 const struct scen *s)
{
	const struct replay_config *cfg = ctx->cfg;
	struct replay_rows rows;
	char err[512], name[2 * REPORT_NAME_LEN];
	size_t nf = replay_filter_count(ctx->filters);

	ctx->done++;
	if (!cfg->quiet)
		fprintf(stderr, "baro-replay: [%zu/%zu] %s / %s\n", ctx->done,
			ctx->total, st->name, s->name);
	int rc = replay_rows_build(&rows, st, s->sc, cfg->seed, err,
				   sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "baro-replay: %s\n", err);
		return rc == -ENOMEM ? -ENOMEM : 0;
	}
	struct replay_output *outs = calloc(nf, sizeof(*outs));
	const char **names = calloc(nf, sizeof(*names));
	if (!outs || !names) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < nf; k++) {
		names[k] = replay_filter_label(ctx->filters, k);
		rc = replay_filter_run(ctx->filters, k, &rows, &outs[k], err,
				       sizeof(err));
		if (rc < 0) {
			fprintf(stderr, "baro-replay: %s\n", err);
			goto out;
		}
	}
	report_case_name(st->name, s->name, name, sizeof(name));
	char title[512];
	snprintf(title, sizeof(title), "%s / %s  (channel %s, truth: %s)",
		 st->name, s->name, st->channel,
		 strncmp(st->reference, "truth", 5) == 0
			 ? "profile"
			 : "clean recording");
	/* gnuplot's title is in single quotes. */
	for (char *q = title; *q; q++)
		if (*q == '\'')
			*q = '"';
	struct report_case c = {
		.dir = cfg->report_dir, .name = name, .title = title,
		.rows = &rows, .nfilters = nf, .filter_names = names,
		.outputs = outs, .plot = cfg->plot,
	};
	if ((rc = report_write_case(&c, err, sizeof(err))) < 0) {
		fprintf(stderr, "baro-replay: %s\n", err);
		goto out;
	}
	if (cfg->plot != REPORT_PLOT_NONE && !ctx->plot_warned) {
		int prc = report_plot_case(cfg->report_dir, name, cfg->plot,
					   err, sizeof(err));
		if (prc < 0) {
			fprintf(stderr, "baro-replay: %s\n", err);
			/* Once is enough when gnuplot is missing. */
			ctx->plot_warned = prc == -ENOENT;
		}
	}
	const bool synthetic = strncmp(st->reference, "truth", 5) == 0;
	struct replay_metrics_ctx mctx = {
		.synthetic_truth = synthetic,
		.step_t_s = synthetic && s->profile.kind == TRUTH_STEP
				    ? s->profile.c
				    : NAN,
		.lag_dt_s = typical_interval(&rows),
		.lag_max_s = 2.0,
	};
	for (size_t k = 0; k < nf; k++) {
		struct report_result *r = results_add(&ctx->res);
		if (!r) {
			rc = -ENOMEM;
			goto out;
		}
		snprintf(r->source, sizeof(r->source), "%s", st->name);
		snprintf(r->scenario, sizeof(r->scenario), "%s", s->name);
		snprintf(r->filter, sizeof(r->filter), "%s", names[k]);
		rc = replay_metrics_fill(&rows, &outs[k], &mctx, cfg->timing,
					 r, err, sizeof(err));
		if (rc < 0) {
			fprintf(stderr, "baro-replay: %s / %s / %s: %s\n",
				st->name, s->name, names[k], err);
			goto out;
		}
		replay_thresholds_apply(ctx->th, r);
	}
	rc = 0;
out:
	for (size_t k = 0; outs && k < nf; k++)
		replay_output_free(&outs[k]);
	free(outs);
	free(names);
	replay_rows_free(&rows);
	return rc;
}

static int
run_log(struct run_ctx *ctx, const char *path, const struct scen *scens,
	size_t nscen)
{
	const struct replay_config *cfg = ctx->cfg;
	struct log_reader r;
	struct replay_stream st;
	char err[512];

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
	rc = replay_stream_from_log(&st, &r, base ? base + 1 : path,
				    cfg->channel, cfg->reference, err,
				    sizeof(err));
	log_reader_close(&r);
	close(fd);
	if (rc < 0) {
		fprintf(stderr, "baro-replay: %s\n", err);
		/* A log without baro data is reported, not fatal. */
		ctx->done += nscen;
		return rc == -ENOMEM ? rc : 0;
	}
	if (st.damage[0])
		fprintf(stderr, "baro-replay: warning: %s (the %zu samples "
				"before it are used)\n",
			st.damage, st.n);
	if (st.dropped_backwards || st.dropped_invalid)
		fprintf(stderr, "baro-replay: %s: left out %llu samples "
				"earlier than their predecessor and %llu "
				"invalid ones\n",
			st.name, (unsigned long long)st.dropped_backwards,
			(unsigned long long)st.dropped_invalid);
	for (size_t i = 0; i < nscen && rc == 0; i++) {
		if (!scens[i].logs)
			continue;
		rc = run_case(ctx, &st, &scens[i]);
	}
	replay_stream_free(&st);
	return rc;
}

static int
run_synthetic(struct run_ctx *ctx, const struct scen *s)
{
	struct replay_stream st;
	char err[512];
	int rc = replay_stream_synthetic(&st, &s->profile, s->duration_s,
					 SYNTHETIC_HOME_M, ctx->cfg->seed, err,
					 sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "baro-replay: %s: %s\n", s->name, err);
		return rc;
	}
	rc = run_case(ctx, &st, s);
	replay_stream_free(&st);
	return rc;
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
	if (load_scenarios(cfg, scens, &nscen) < 0)
		goto out;
	if (replay_filter_set_open(&ctx.filters, cfg->filters, cfg->nfilters,
				   err, sizeof(err)) < 0) {
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
	if (report_prepare(cfg->report_dir, err, sizeof(err)) < 0) {
		fprintf(stderr, "baro-replay: %s\n", err);
		status = EXIT_IO;
		goto out;
	}
	size_t nlogscen = 0;
	for (size_t i = 0; i < nscen; i++)
		nlogscen += scens[i].logs;
	ctx.total = (cfg->logs_enabled ? cfg->nlogs * nlogscen : 0) +
		    (cfg->synthetic ? nscen : 0);

	int rc = 0;
	for (size_t i = 0; cfg->logs_enabled && i < cfg->nlogs && rc >= 0; i++)
		rc = run_log(&ctx, cfg->logs[i], scens, nscen);
	if (rc == -ENOENT || rc == -EINVAL) {
		status = EXIT_USAGE;
		goto out;
	}
	for (size_t i = 0; cfg->synthetic && i < nscen && rc >= 0; i++)
		rc = run_synthetic(&ctx, &scens[i]);
	if (rc < 0) {
		status = rc == -ENOMEM ? EXIT_IO : EXIT_USAGE;
		goto out;
	}
	if (report_write_summary(cfg->report_dir, ctx.res.r, ctx.res.n, err,
				 sizeof(err)) < 0) {
		fprintf(stderr, "baro-replay: %s\n", err);
		status = EXIT_IO;
		goto out;
	}
	size_t fails = 0, warns = 0;
	for (size_t i = 0; i < ctx.res.n; i++) {
		fails += ctx.res.r[i].status == REPORT_FAIL;
		warns += ctx.res.r[i].status == REPORT_WARN;
	}
	if (!cfg->quiet)
		fprintf(stderr, "baro-replay: %zu runs, %zu failed, %zu "
				"warned; report in %s/summary.txt\n",
			ctx.res.n, fails, warns, cfg->report_dir);
	status = fails ? EXIT_FAILED : 0;
out:
	for (size_t i = 0; i < nscen; i++)
		free(scens[i].sc);
	free(scens);
	replay_filter_set_close(ctx.filters);
	replay_thresholds_free(ctx.th);
	free(ctx.res.r);
	return status;
}

int
replay_list_filters(FILE *out)
{
	return replay_filter_list(out);
}
