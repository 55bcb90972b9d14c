// SPDX-License-Identifier: GPL-3.0-or-later
#include "campaign-run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <json.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "replay-hash.h"
#include "util-atomic-file.h"
#include "util-csv.h"
#include "util-strings.h"

#define KILL_GRACE_S 15.0

static volatile sig_atomic_t stop_signal;

static void
on_stop(int sig)
{
	stop_signal = sig;
}

/* The campaign file read, parsed and hashed; base is its directory. */
struct loaded {
	struct campaign c;
	char *text;
	size_t len;
	char hash[REPLAY_SHA256_HEX];
	char base[PATH_MAX];
};

static int
load(const char *file, struct loaded *l)
{
	char err[1024];
	FILE *f = fopen(file, "r");
	if (!f) {
		fprintf(stderr, "baro-campaign: %s: %s\n", file, strerror(errno));
		return -ENOENT;
	}
	static const size_t max = 1u << 20;
	l->text = malloc(max + 1);
	l->len = l->text ? fread(l->text, 1, max + 1, f) : 0;
	fclose(f);
	if (!l->text || l->len > max) {
		fprintf(stderr, "baro-campaign: %s: %s\n", file,
			l->text ? "larger than 1 MB" : "out of memory");
		free(l->text);
		return -EINVAL;
	}
	l->text[l->len] = '\0';
	if (campaign_parse(&l->c, l->text, l->len, file, err, sizeof(err)) < 0) {
		fprintf(stderr, "baro-campaign: %s\n", err);
		free(l->text);
		return -EINVAL;
	}
	if (replay_sha256_text(l->text, l->len, l->hash, err, sizeof(err)) < 0) {
		fprintf(stderr, "baro-campaign: %s\n", err);
		free(l->text);
		return -EIO;
	}
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s", file);
	snprintf(l->base, sizeof(l->base), "%s", dirname(tmp));
	return 0;
}

static bool
in_shard(const struct campaign_run_opts *o, size_t job)
{
	return (job - 1) % o->shard_n + 1 == o->shard_k;
}

/* Digits of a job's directory name: 4, or more for a larger matrix. */
static int
job_width(const struct campaign *c)
{
	int w = 4;
	for (size_t n = c->njobs; n >= 10000; n /= 10)
		w++;
	return w;
}

int
campaign_plan(const struct campaign_run_opts *o, FILE *out)
{
	struct loaded l;
	if (load(o->file, &l) < 0)
		return CAMPAIGN_EXIT_USAGE;
	const int w = job_width(&l.c);
	unsigned slot = (o->shard_k - 1) * o->jobs;
	size_t mine = 0;
	for (size_t k = 1; k <= l.c.njobs; k++)
		mine += in_shard(o, k);
	fprintf(out, "# %zu job%s (%zu in shard %u/%u), %u at a time; "
		     "ports %u..%u\n",
		l.c.njobs, l.c.njobs == 1 ? "" : "s", mine, o->shard_k,
		o->shard_n, o->jobs, campaign_drive_port(&l.c, slot),
		campaign_barod_port(&l.c, slot + o->jobs - 1));
	/* No slot per job: which slot a job gets depends on which of the
	 * jobs before it finish first. */
	for (size_t k = 1; k <= l.c.njobs; k++) {
		if (!in_shard(o, k))
			continue;
		char name[1024];
		campaign_job_name(&l.c, k, name, sizeof(name));
		fprintf(out, "%0*zu  %s", w, k, name);
		/* What the flight sets before arming, this job's values. */
		for (size_t i = 0; i < l.c.nparams; i++) {
			double v;
			char err[256];
			if (campaign_param_value(&l.c, i, k, &v, err,
						 sizeof(err)) == 0)
				fprintf(out, "%s%s=%.9g", i ? " " : "  [",
					l.c.params[i].name, v);
		}
		fputs(l.c.nparams ? "]\n" : "\n", out);
	}
	free(l.text);
	return ferror(out) ? CAMPAIGN_EXIT_IO : CAMPAIGN_EXIT_OK;
}

static int
rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

static int
rm_tree(const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS) < 0 ? -errno : 0;
}

static int
mkdir_p(const char *path)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static int
write_text(const char *path, const char *text, size_t len)
{
	char err[512];
	struct atomic_file af;
	FILE *f = atomic_file_open(&af, path, err, sizeof(err));
	if (!f) {
		fprintf(stderr, "baro-campaign: %s\n", err);
		return -EIO;
	}
	fwrite(text, 1, len, f);
	if (atomic_file_commit(&af, err, sizeof(err)) < 0) {
		fprintf(stderr, "baro-campaign: %s\n", err);
		return -EIO;
	}
	return 0;
}

static char *
read_text(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *t = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (t) {
		*len = fread(t, 1, (size_t)n, f);
		t[*len] = '\0';
	}
	fclose(f);
	return t;
}

/* DIR holds this campaign or nothing yet: the campaign written there. */
static int
claim_dir(const char *dir, const struct loaded *l)
{
	char path[PATH_MAX];
	if (mkdir_p(dir) < 0) {
		fprintf(stderr, "baro-campaign: %s: %s\n", dir, strerror(errno));
		return -EIO;
	}
	snprintf(path, sizeof(path), "%s/campaign.sha256", dir);
	size_t n;
	char *had = read_text(path, &n);
	if (had) {
		bool same = n >= REPLAY_SHA256_HEX - 1 &&
			    strncmp(had, l->hash, REPLAY_SHA256_HEX - 1) == 0;
		free(had);
		if (!same) {
			fprintf(stderr, "baro-campaign: %s holds another "
					"campaign's jobs (campaign.sha256 "
					"differs): give a new output "
					"directory\n", dir);
			return -EEXIST;
		}
		return 0;
	}
	char line[REPLAY_SHA256_HEX + 1];
	snprintf(line, sizeof(line), "%s\n", l->hash);
	snprintf(path, sizeof(path), "%s/campaign.ini", dir);
	if (write_text(path, l->text, l->len) < 0)
		return -EIO;
	snprintf(path, sizeof(path), "%s/campaign.sha256", dir);
	return write_text(path, line, strlen(line));
}

/* A finished job: its result.json is there and of this campaign. */
static bool
finished(const char *jobdir, const char *hash)
{
	char path[PATH_MAX + 128];
	snprintf(path, sizeof(path), "%s/result.json", jobdir);
	json_object *r = json_object_from_file(path), *h;
	bool ok = r && json_object_object_get_ex(r, "campaign", &h) &&
		  strcmp(json_object_get_string(h), hash) == 0;
	json_object_put(r);
	return ok;
}

struct running {
	pid_t pid;		/* 0: the slot is free */
	size_t job;
	uint64_t started_us, term_us;
	char dir[PATH_MAX + 64];
	bool timed_out;
};

static void
spec_for(struct campaign_job_spec *s, const struct loaded *l,
	 const struct campaign_run_opts *o, size_t job, unsigned slot,
	 const char *dir)
{
	*s = (struct campaign_job_spec){
		.c = &l->c, .base = l->base, .hash = l->hash, .job = job,
		.slot = slot, .dir = dir, .tools = &o->tools,
		.hang_s = o->hang_s,
	};
}

/* Job r's process group is over: sweep what is left of it, and write a
 * result when the job could not. */
static void
job_ended(const struct loaded *l, const struct campaign_run_opts *o,
	  struct running *r, unsigned slot, int status, size_t *failed)
{
	kill(-r->pid, SIGKILL);
	struct campaign_job_spec s;
	spec_for(&s, l, o, r->job, slot, r->dir);
	if (!finished(r->dir, l->hash) && !stop_signal) {
		char why[160];
		if (r->timed_out)
			snprintf(why, sizeof(why), "stopped after the campaign's "
				 "timeout of %.0f s", l->c.timeout_s);
		else if (WIFSIGNALED(status))
			snprintf(why, sizeof(why), "the job's runner died: %s",
				 strsignal(WTERMSIG(status)));
		else
			snprintf(why, sizeof(why), "the job's runner exited "
				 "with status %d and no result",
				 WEXITSTATUS(status));
		campaign_job_result_failed(&s, r->timed_out ? "timed-out"
							    : "failed", why);
	}
	char path[PATH_MAX + 128];
	snprintf(path, sizeof(path), "%s/result.json", r->dir);
	json_object *res = json_object_from_file(path), *v;
	const char *outcome = "?", *status_s = "?";
	if (res && json_object_object_get_ex(res, "outcome", &v))
		outcome = json_object_get_string(v);
	if (res && json_object_object_get_ex(res, "status", &v))
		status_s = json_object_get_string(v);
	if (strcmp(status_s, "fail") == 0)
		(*failed)++;
	if (!o->quiet && res) {
		char name[1024];
		campaign_job_name(&l->c, r->job, name, sizeof(name));
		fprintf(stderr, "baro-campaign: job %zu (%s): %s, %s\n", r->job,
			name, outcome, status_s);
	}
	json_object_put(res);
	r->pid = 0;
}

int
campaign_run(const struct campaign_run_opts *o)
{
	struct loaded l;
	int rc = load(o->file, &l);
	if (rc < 0)
		return rc == -EIO ? CAMPAIGN_EXIT_IO : CAMPAIGN_EXIT_USAGE;
	if (claim_dir(o->out, &l) < 0) {
		free(l.text);
		return CAMPAIGN_EXIT_USAGE;
	}
	/* {dir} is where the autopilot runs (its cwd): a relative path
	 * would name another place there. */
	char out[PATH_MAX];
	if (!realpath(o->out, out)) {
		fprintf(stderr, "baro-campaign: %s: %s\n", o->out,
			strerror(errno));
		free(l.text);
		return CAMPAIGN_EXIT_IO;
	}
	const int w = job_width(&l.c);
	struct running *run = calloc(o->jobs, sizeof(*run));
	if (!run) {
		free(l.text);
		return CAMPAIGN_EXIT_IO;
	}
	struct sigaction sa = { .sa_handler = on_stop };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	size_t next = 1, done = 0, skipped = 0, failed = 0, mine = 0;
	for (size_t k = 1; k <= l.c.njobs; k++)
		mine += in_shard(o, k);
	const unsigned slot0 = (o->shard_k - 1) * o->jobs;
	for (;;) {
		/* Start jobs into free slots. */
		for (unsigned i = 0; i < o->jobs && !stop_signal; i++) {
			if (run[i].pid)
				continue;
			while (next <= l.c.njobs) {
				char dir[PATH_MAX + 64];
				snprintf(dir, sizeof(dir), "%s/jobs/%0*zu", out,
					 w, next);
				if (!in_shard(o, next)) {
					next++;
					continue;
				}
				if (finished(dir, l.hash)) {
					skipped++;
					next++;
					continue;
				}
				break;
			}
			if (next > l.c.njobs)
				break;
			struct running *r = &run[i];
			snprintf(r->dir, sizeof(r->dir), "%s/jobs/%0*zu", out,
				 w, next);
			/* What an interrupted attempt left goes. */
			if (rm_tree(r->dir) < 0 || mkdir_p(r->dir) < 0) {
				fprintf(stderr, "baro-campaign: %s: %s\n", r->dir,
					strerror(errno));
				stop_signal = SIGTERM;
				break;
			}
			r->job = next++;
			r->timed_out = false;
			r->term_us = 0;
			r->started_us = util_mono_us();
			pid_t pid = fork();
			if (pid == 0) {
				setpgid(0, 0);
				signal(SIGINT, SIG_DFL);
				signal(SIGTERM, SIG_DFL);
				struct campaign_job_spec s;
				spec_for(&s, &l, o, r->job, slot0 + i, r->dir);
				_exit(campaign_job_run(&s) < 0 ? 3 : 0);
			}
			if (pid < 0) {
				fprintf(stderr, "baro-campaign: fork: %s\n",
					strerror(errno));
				stop_signal = SIGTERM;
				break;
			}
			setpgid(pid, pid);
			r->pid = pid;
		}
		bool any = false;
		for (unsigned i = 0; i < o->jobs; i++)
			any |= run[i].pid != 0;
		if (!any)
			break;
		usleep(50000);
		const uint64_t now = util_mono_us();
		for (unsigned i = 0; i < o->jobs; i++) {
			struct running *r = &run[i];
			if (!r->pid)
				continue;
			int st;
			if (waitpid(r->pid, &st, WNOHANG) == r->pid) {
				job_ended(&l, o, r, slot0 + i, st, &failed);
				done++;
				continue;
			}
			bool late = (double)(now - r->started_us) >
				    l.c.timeout_s * 1e6;
			if ((late || stop_signal) && !r->term_us) {
				r->timed_out = late && !stop_signal;
				r->term_us = now;
				kill(-r->pid, SIGTERM);
			} else if (r->term_us && (double)(now - r->term_us) >
							 KILL_GRACE_S * 1e6) {
				kill(-r->pid, SIGKILL);
			}
		}
	}
	free(run);
	if (!o->quiet || stop_signal)
		fprintf(stderr, "baro-campaign: %zu of %zu job%s run, %zu "
				"already finished%s\n",
			done, mine, mine == 1 ? "" : "s", skipped,
			stop_signal ? "; stopped: run again to resume" : "");
	free(l.text);
	int rep = campaign_report(o->out);
	if (stop_signal)
		return 128 + stop_signal;
	if (rep != CAMPAIGN_EXIT_OK)
		return rep;
	return failed ? CAMPAIGN_EXIT_FAILED : CAMPAIGN_EXIT_OK;
}

/* ---- report -------------------------------------------------------- */

struct res {
	size_t job;
	json_object *o;
};

static int
by_job(const void *a, const void *b)
{
	const struct res *x = a, *y = b;
	return x->job < y->job ? -1 : x->job > y->job;
}

static const char *
str_of(json_object *o, const char *key)
{
	json_object *v;
	return json_object_object_get_ex(o, key, &v) && v
		       ? json_object_get_string(v)
		       : "";
}

static double
metric(json_object *o, const char *key)
{
	json_object *m, *v;
	if (!json_object_object_get_ex(o, "metrics", &m) ||
	    !json_object_object_get_ex(m, key, &v) || !v)
		return NAN;
	return json_object_get_double(v);
}

static double
top_num(json_object *o, const char *key)
{
	json_object *v;
	return json_object_object_get_ex(o, key, &v) && v
		       ? json_object_get_double(v)
		       : NAN;
}

static void
put_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.6g", v);
}

static void
html_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else
			fputc(*s, f);
	}
}

static const char *const shown[] = { "leakage_m", "recovery_max_s", "rms_m",
				     "max_abs_m" };
#define NSHOWN (sizeof(shown) / sizeof(shown[0]))

/* A heat map cell's colour: the built-in leakage rule's bands (pass up
 * to 1 m, warn to 3 m), as the judge's thresholds have them. */
static const char *
heat(double v, const char *outcome)
{
	if (strcmp(outcome, "flown") != 0)
		return "#bbb";
	if (!isfinite(v))
		return "#eee";
	return v <= 1.0 ? "#9d9" : v <= 3.0 ? "#fd8" : "#f88";
}

/* What a job's cell and row link to: its judge report when it was
 * judged, else its result (a job that never flew has no report). */
static const char *
job_link(const char *dir, int w, size_t job)
{
	char path[PATH_MAX + 64];
	struct stat st;
	snprintf(path, sizeof(path), "%s/jobs/%0*zu/judge/index.html", dir, w,
		 job);
	return stat(path, &st) == 0 ? "judge/index.html" : "result.json";
}

static int
write_reports(const char *dir, const struct loaded *l, struct res *r,
	      size_t n)
{
	char path[PATH_MAX], err[512];
	const struct campaign *c = &l->c;
	const int w = job_width(c);
	struct atomic_file af;

	snprintf(path, sizeof(path), "%s/summary.csv", dir);
	FILE *f = atomic_file_open(&af, path, err, sizeof(err));
	if (!f)
		goto bad;
	fprintf(f, "job,name");
	for (size_t a = 0; a < c->naxes; a++)
		fprintf(f, ",%s", c->axes[a].name);
	fprintf(f, ",outcome,status,failsafe");
	for (size_t m = 0; m < NSHOWN; m++)
		fprintf(f, ",%s", shown[m]);
	fprintf(f, ",detect_after_s,failsafe_after_s,lane_switches,"
		   "lane_switch_after_s,why\n");
	size_t counts[5] = { 0 };
	for (size_t i = 0; i < n; i++) {
		json_object *o = r[i].o, *axes, *v;
		fprintf(f, "%zu,%s", r[i].job, str_of(o, "name"));
		json_object_object_get_ex(o, "axes", &axes);
		for (size_t a = 0; a < c->naxes; a++)
			fprintf(f, ",%s", axes && json_object_object_get_ex(
						   axes, c->axes[a].name, &v)
						  ? json_object_get_string(v)
						  : "");
		fprintf(f, ",%s,%s,%s", str_of(o, "outcome"), str_of(o, "status"),
			strcmp(str_of(o, "failsafe"), "true") == 0 ? "yes"
								   : "no");
		for (size_t m = 0; m < NSHOWN; m++) {
			fputc(',', f);
			put_num(f, metric(o, shown[m]));
		}
		fputc(',', f);
		put_num(f, top_num(o, "detect_after_s"));
		fputc(',', f);
		put_num(f, top_num(o, "failsafe_after_s"));
		fputc(',', f);
		put_num(f, top_num(o, "lane_switches"));
		fputc(',', f);
		put_num(f, top_num(o, "lane_switch_after_s"));
		fputc(',', f);
		const char *why = str_of(o, "why");
		fputc('"', f);
		for (; *why; why++)
			fputs(*why == '"' ? "\"\"" : (char[]){ *why, 0 }, f);
		fputs("\"\n", f);
		const char *st = str_of(o, "status");
		counts[strcmp(st, "pass") == 0	 ? 0
		       : strcmp(st, "warn") == 0 ? 1
		       : strcmp(st, "fail") == 0 ? 2
						 : 3]++;
	}
	if (atomic_file_commit(&af, err, sizeof(err)) < 0)
		goto bad;

	snprintf(path, sizeof(path), "%s/summary.txt", dir);
	if (!(f = atomic_file_open(&af, path, err, sizeof(err))))
		goto bad;
	fprintf(f, "baro-campaign: %zu of %zu jobs finished: %zu pass, %zu "
		   "warn, %zu fail, %zu not judged\n",
		n, c->njobs, counts[0], counts[1], counts[2], counts[3]);
	fprintf(f, "%-*s  %-36s %-16s %-6s %-4s %9s %9s %9s\n", w, "job",
		"name", "outcome", "status", "fs", "leak_m", "recov_s",
		"detect_s");
	for (size_t i = 0; i < n; i++) {
		json_object *o = r[i].o;
		double lk = metric(o, "leakage_m"), rc = metric(o,
							       "recovery_max_s");
		double dt = top_num(o, "detect_after_s");
		char a[32] = "-", b[32] = "-", dd[32] = "-";
		if (isfinite(lk))
			snprintf(a, sizeof(a), "%.3f", lk);
		if (isfinite(rc))
			snprintf(b, sizeof(b), "%.2f", rc);
		if (isfinite(dt))
			snprintf(dd, sizeof(dd), "%.2f", dt);
		fprintf(f, "%0*zu  %-36.36s %-16.16s %-6.6s %-4s %9s %9s %9s\n",
			w, r[i].job, str_of(o, "name"), str_of(o, "outcome"),
			str_of(o, "status"),
			strcmp(str_of(o, "failsafe"), "true") == 0 ? "yes"
								   : "no",
			a, b, dd);
	}
	if (atomic_file_commit(&af, err, sizeof(err)) < 0)
		goto bad;

	/* The page: heat maps of the worst leakage over the first two
	 * axes (the worst over the others), then every job. */
	snprintf(path, sizeof(path), "%s/index.html", dir);
	if (!(f = atomic_file_open(&af, path, err, sizeof(err))))
		goto bad;
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8"
	      "\"><title>baro-campaign</title><style>body{font:14px sans-serif;"
	      "margin:1em}table{border-collapse:collapse;margin:1em 0}td,th{"
	      "border:1px solid #999;padding:3px 8px;text-align:right}th{"
	      "background:#eee}a{color:inherit}</style></head><body>\n", f);
	fprintf(f, "<h1>baro-campaign</h1>\n<p id=\"counts\">%zu of %zu jobs "
		   "finished: %zu pass, %zu warn, %zu fail, %zu not judged. "
		   "Colours: worst height error during a fault (leakage_m) "
		   "against the run's truth: up to 1 m, up to 3 m, more; grey: "
		   "not flown to the end.</p>\n",
		n, c->njobs, counts[0], counts[1], counts[2], counts[3]);
	if (c->naxes >= 1) {
		const struct campaign_axis *ra = &c->axes[0];
		const struct campaign_axis *ca = c->naxes >= 2 ? &c->axes[1]
							       : NULL;
		fprintf(f, "<h2 id=\"heat\">worst leakage_m: ");
		html_text(f, ra->name);
		if (ca) {
			fputs(" &times; ", f);
			html_text(f, ca->name);
		}
		fputs("</h2>\n<table><tr><th></th>", f);
		size_t ncol = ca ? ca->n : 1;
		for (size_t j = 0; j < ncol; j++) {
			fputs("<th>", f);
			html_text(f, ca ? ca->values[j] : "");
			fputs("</th>", f);
		}
		fputs("</tr>\n", f);
		for (size_t i = 0; i < ra->n; i++) {
			fputs("<tr><th>", f);
			html_text(f, ra->values[i]);
			fputs("</th>", f);
			for (size_t j = 0; j < ncol; j++) {
				double worst = NAN;
				size_t at = 0;
				const char *out = "flown";
				size_t cnt = 0;
				for (size_t k = 0; k < n; k++) {
					const char *v[CAMPAIGN_MAX_AXES];
					campaign_job_values(c, r[k].job, v);
					if (strcmp(v[0], ra->values[i]) != 0 ||
					    (ca && strcmp(v[1], ca->values[j]) != 0))
						continue;
					cnt++;
					const char *oc = str_of(r[k].o, "outcome");
					double lk = metric(r[k].o, "leakage_m");
					if (strcmp(oc, "flown") != 0) {
						out = oc;
						at = r[k].job;
					} else if (strcmp(out, "flown") == 0 &&
						   (isnan(worst) || lk > worst)) {
						worst = lk;
						at = r[k].job;
					}
				}
				if (!cnt) {
					fputs("<td>&ndash;</td>", f);
					continue;
				}
				fprintf(f, "<td style=\"background:%s\"><a href="
					   "\"jobs/%0*zu/%s\">",
					heat(worst, out), w, at,
					job_link(dir, w, at));
				if (strcmp(out, "flown") != 0)
					html_text(f, out);
				else if (isfinite(worst))
					fprintf(f, "%.2f", worst);
				else
					fputs("n/a", f);
				fputs("</a></td>", f);
			}
			fputs("</tr>\n", f);
		}
		fputs("</table>\n", f);
	}
	fputs("<h2 id=\"jobs\">jobs</h2>\n<table><tr><th>job</th><th>name</th>"
	      "<th>outcome</th><th>status</th><th>failsafe</th>", f);
	for (size_t m = 0; m < NSHOWN; m++)
		fprintf(f, "<th>%s</th>", shown[m]);
	fputs("<th>detect_after_s</th><th>failsafe_after_s</th>"
	      "<th>lane_switches</th><th>lane_switch_after_s</th><th>why</th>"
	      "</tr>\n", f);
	for (size_t i = 0; i < n; i++) {
		json_object *o = r[i].o;
		fprintf(f, "<tr id=\"job%zu\"><td><a href=\"jobs/%0*zu/%s\">"
			   "%0*zu</a></td><td>",
			r[i].job, w, r[i].job, job_link(dir, w, r[i].job), w,
			r[i].job);
		html_text(f, str_of(o, "name"));
		fputs("</td><td>", f);
		html_text(f, str_of(o, "outcome"));
		fprintf(f, "</td><td>%s</td><td>%s</td>", str_of(o, "status"),
			strcmp(str_of(o, "failsafe"), "true") == 0 ? "yes"
								   : "no");
		for (size_t m = 0; m < NSHOWN; m++) {
			double v = metric(o, shown[m]);
			if (isfinite(v))
				fprintf(f, "<td>%.3f</td>", v);
			else
				fputs("<td></td>", f);
		}
		static const char *const times[] = {
			"detect_after_s", "failsafe_after_s", "lane_switches",
			"lane_switch_after_s"
		};
		for (size_t m = 0; m < sizeof(times) / sizeof(*times); m++) {
			double v = top_num(o, times[m]);
			if (!isfinite(v))
				fputs("<td></td>", f);
			else if (m == 2)
				fprintf(f, "<td>%.0f</td>", v);
			else
				fprintf(f, "<td>%.2f</td>", v);
		}
		fputs("<td style=\"text-align:left\">", f);
		html_text(f, str_of(o, "why"));
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n</body></html>\n", f);
	if (atomic_file_commit(&af, err, sizeof(err)) < 0)
		goto bad;
	return 0;
bad:
	fprintf(stderr, "baro-campaign: %s\n", err);
	return -EIO;
}

int
campaign_report(const char *dir)
{
	char path[PATH_MAX];
	struct loaded l;
	snprintf(path, sizeof(path), "%s/campaign.ini", dir);
	if (load(path, &l) < 0)
		return CAMPAIGN_EXIT_USAGE;
	snprintf(path, sizeof(path), "%s/jobs", dir);
	struct res *r = calloc(l.c.njobs ? l.c.njobs : 1, sizeof(*r));
	size_t n = 0;
	DIR *d = opendir(path);
	struct dirent *e;
	while (r && d && (e = readdir(d))) {
		char *end;
		unsigned long k = strtoul(e->d_name, &end, 10);
		if (*end || !k || k > l.c.njobs || n == l.c.njobs)
			continue;
		char rp[2 * PATH_MAX];
		snprintf(rp, sizeof(rp), "%s/%s/result.json", path, e->d_name);
		json_object *o = json_object_from_file(rp);
		if (!o)
			continue;
		if (strcmp(str_of(o, "campaign"), l.hash) != 0) {
			json_object_put(o);
			continue;
		}
		r[n++] = (struct res){ .job = k, .o = o };
	}
	if (d)
		closedir(d);
	int rc = CAMPAIGN_EXIT_IO;
	if (r) {
		qsort(r, n, sizeof(*r), by_job);
		rc = write_reports(dir, &l, r, n) < 0 ? CAMPAIGN_EXIT_IO
						      : CAMPAIGN_EXIT_OK;
		for (size_t i = 0; i < n; i++)
			json_object_put(r[i].o);
	}
	free(r);
	free(l.text);
	return rc;
}

/* ---- merge --------------------------------------------------------- */

static const char *copy_from, *copy_to;

static int
copy_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)ftw;
	char dst[PATH_MAX * 2];
	snprintf(dst, sizeof(dst), "%s%s", copy_to, path + strlen(copy_from));
	if (flag == FTW_D)
		return mkdir(dst, 0755) < 0 && errno != EEXIST ? -1 : 0;
	if (flag != FTW_F)
		return 0;
	int in = open(path, O_RDONLY | O_CLOEXEC);
	int out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		       sb->st_mode & 0777);
	int rc = in >= 0 && out >= 0 ? 0 : -1;
	char buf[65536];
	ssize_t k;
	while (rc == 0 && (k = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)k) != k)
			rc = -1;
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) < 0)
		rc = -1;
	return rc;
}

int
campaign_merge(const char *out, const char *const *dirs, size_t n)
{
	char path[PATH_MAX];
	struct loaded l = { 0 };
	for (size_t i = 0; i < n; i++) {
		struct loaded s;
		snprintf(path, sizeof(path), "%s/campaign.ini", dirs[i]);
		if (load(path, &s) < 0)
			return CAMPAIGN_EXIT_USAGE;
		if (i == 0) {
			l = s;
			continue;
		}
		bool same = strcmp(s.hash, l.hash) == 0;
		free(s.text);
		if (!same) {
			fprintf(stderr, "baro-campaign: merge: %s is of "
					"another campaign than %s\n",
				dirs[i], dirs[0]);
			free(l.text);
			return CAMPAIGN_EXIT_USAGE;
		}
	}
	struct stat st;
	snprintf(path, sizeof(path), "%s/jobs", out);
	if (stat(path, &st) == 0) {
		fprintf(stderr, "baro-campaign: merge: %s has jobs already: "
				"merge into a new directory\n", out);
		free(l.text);
		return CAMPAIGN_EXIT_USAGE;
	}
	if (claim_dir(out, &l) < 0 || mkdir_p(path) < 0) {
		free(l.text);
		return CAMPAIGN_EXIT_IO;
	}
	const int w = job_width(&l.c);
	size_t have = 0;
	for (size_t k = 1; k <= l.c.njobs; k++) {
		char from[PATH_MAX], to[PATH_MAX];
		const char *src = NULL;
		for (size_t i = 0; i < n; i++) {
			snprintf(from, sizeof(from), "%s/jobs/%0*zu", dirs[i],
				 w, k);
			if (!finished(from, l.hash))
				continue;
			if (src) {
				fprintf(stderr, "baro-campaign: merge: job %zu "
						"is in %s and %s\n",
					k, src, dirs[i]);
				free(l.text);
				return CAMPAIGN_EXIT_USAGE;
			}
			src = dirs[i];
		}
		if (!src)
			continue;
		snprintf(from, sizeof(from), "%s/jobs/%0*zu", src, w, k);
		snprintf(to, sizeof(to), "%s/jobs/%0*zu", out, w, k);
		copy_from = from;
		copy_to = to;
		if (nftw(from, copy_entry, 16, FTW_PHYS) != 0) {
			fprintf(stderr, "baro-campaign: merge: copying %s: %s\n",
				from, strerror(errno));
			free(l.text);
			return CAMPAIGN_EXIT_IO;
		}
		have++;
	}
	if (have < l.c.njobs)
		fprintf(stderr, "baro-campaign: merge: %zu of %zu jobs have a "
				"result\n",
			have, l.c.njobs);
	free(l.text);
	return campaign_report(out);
}
