// SPDX-License-Identifier: GPL-3.0-or-later
#include "campaign-job.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <json.h>
#include <math.h>
#include <stdarg.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "campaign-labels.h"
#include "flight.h"
#include "inject.h"
#include "mavlink.h"
#include "record-labels.h"
#include "util-atomic-file.h"
#include "util-csv.h"
#include "util-strings.h"

/* A ground station's identity on the link (MAVLink's GCS range). */
#define GCS_SYSID 255
#define GCS_COMPID 190
/* No autopilot heard at all within this: it never came up. */
#define START_S 120.0
/* What a child gets between SIGTERM and SIGKILL. */
#define STOP_GRACE_S 10.0
/* baro-replay on one log. */
#define JUDGE_TIMEOUT_S 300.0
/* A ground station's heartbeat, when it sends first (udpout). */
#define GCS_HEARTBEAT_US 1000000u

struct job {
	const struct campaign_job_spec *s;
	char path[PATH_MAX];
	pid_t ap, drive;
	int ap_status, drive_status;
	bool ap_done, drive_done;
	int fd;
	struct sockaddr_in peer;
	bool have_peer;
	/* The flight sends first (gcs = udpout:...): PX4 answers the
	 * first address that sent to its port, so it heartbeats. */
	bool gcs_out;
	uint64_t next_hb_us;
	char gcs[CAMPAIGN_PATH_LEN];	/* expanded */
	struct mavlink_parser parser;
	struct flight fl;
	FILE *tel;
	uint64_t last_rx_us;
	uint8_t seq;
	char outcome[32];
	char why[512];
	/* A barod link without labels: why (the judge is not run). */
	char no_labels[640];
};

static const char *
in_dir(struct job *j, const char *leaf)
{
	snprintf(j->path, sizeof(j->path), "%s/%s", j->s->dir, leaf);
	return j->path;
}

/* Start argv (or sh -c command) with stdout and stderr into dir/out. */
static pid_t
spawn(struct job *j, const char *out, const char *const *argv,
      const char *command)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", j->s->dir, out);
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || chdir(j->s->dir) < 0)
		_exit(127);
	dup2(fd, 1);
	dup2(fd, 2);
	int nul = open("/dev/null", O_RDONLY);
	if (nul >= 0)
		dup2(nul, 0);
	/* The campaign's own dispositions stay here: an ignored SIGPIPE
	 * would be the autopilot's too. */
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	if (command)
		execl("/bin/sh", "sh", "-c", command, (char *)NULL);
	else
		execv(argv[0], (char *const *)argv);
	fprintf(stderr, "baro-campaign: %s: %s\n", command ? "/bin/sh" : argv[0],
		strerror(errno));
	_exit(127);
}

static void
reap(struct job *j)
{
	int st;
	if (j->ap > 0 && !j->ap_done && waitpid(j->ap, &st, WNOHANG) == j->ap) {
		j->ap_done = true;
		j->ap_status = st;
	}
	if (j->drive > 0 && !j->drive_done &&
	    waitpid(j->drive, &st, WNOHANG) == j->drive) {
		j->drive_done = true;
		j->drive_status = st;
	}
}

/* SIGTERM, then SIGKILL after the grace: a child and its own children
 * (a shell's), by its process group when it has one of its own. */
static void
stop_child(struct job *j, pid_t pid, bool *done)
{
	if (pid <= 0 || *done)
		return;
	kill(pid, SIGTERM);
	const uint64_t t0 = util_mono_us();
	while (!*done && (double)(util_mono_us() - t0) < STOP_GRACE_S * 1e6) {
		reap(j);
		if (!*done)
			usleep(20000);
	}
	if (!*done) {
		kill(pid, SIGKILL);
		int st;
		waitpid(pid, &st, 0);
		*done = true;
	}
}

static void
on_frame(const struct mavlink_frame *fr, void *user)
{
	struct job *j = user;
	flight_rx(&j->fl, fr, util_mono_us());
}

static void
send_msg(struct job *j, uint32_t msgid, const union mavlink_msg *m)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD], frame[MAVLINK_MAX_FRAME];
	if (!j->have_peer || mavlink_pack_msg(msgid, m, pl) == 0)
		return;
	int n = mavlink_frame_encode(frame, 2, j->seq++, GCS_SYSID, GCS_COMPID,
				     msgid, pl);
	if (n > 0)
		(void)sendto(j->fd, frame, (size_t)n, MSG_NOSIGNAL,
			     (struct sockaddr *)&j->peer, sizeof(j->peer));
}

static void
telemetry(struct job *j)
{
	struct flight_event e;
	while (flight_event_next(&j->fl, &e)) {
		if (!j->tel)
			continue;
		fprintf(j->tel, "%u,%s,%.9g,", e.ap_ms, e.what, e.value);
		csv_put_text(j->tel, e.text);
		fputc('\n', j->tel);
	}
}

static void
set_outcome(struct job *j, const char *outcome, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
set_outcome(struct job *j, const char *outcome, const char *fmt, ...)
{
	if (j->outcome[0])
		return;
	snprintf(j->outcome, sizeof(j->outcome), "%s", outcome);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(j->why, sizeof(j->why), fmt, ap);
	va_end(ap);
}

static void
describe_status(int st, char *buf, size_t len)
{
	if (WIFSIGNALED(st))
		snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(st),
			 strsignal(WTERMSIG(st)));
	else if (WEXITSTATUS(st) > 128 && WEXITSTATUS(st) < 128 + 65)
		/* The command's shell saying how its program ended. */
		snprintf(buf, len, "killed by signal %d (%s)",
			 WEXITSTATUS(st) - 128,
			 strsignal(WEXITSTATUS(st) - 128));
	else
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(st));
}

/* A ground station that sends first says it is there once a second
 * (PX4 takes the first sender to its port as its partner). */
static void
gcs_heartbeat(struct job *j, uint64_t now)
{
	if (!j->gcs_out || now < j->next_hb_us)
		return;
	j->next_hb_us = now + GCS_HEARTBEAT_US;
	union mavlink_msg m = { .hb = { .type = MAV_TYPE_GCS,
					.autopilot = MAV_AUTOPILOT_INVALID,
					.mavlink_version = 3 } };
	send_msg(j, MAVLINK_MSG_HEARTBEAT, &m);
}

/* The flight, until it is over or the autopilot is gone or silent. */
static void
fly(struct job *j)
{
	const struct campaign_job_spec *s = j->s;
	const uint64_t t0 = util_mono_us();
	uint8_t buf[4096];

	for (;;) {
		struct pollfd pf = { .fd = j->fd, .events = POLLIN };
		(void)poll(&pf, 1, 20);
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t n;
		while ((n = recvfrom(j->fd, buf, sizeof(buf), MSG_DONTWAIT,
				     (struct sockaddr *)&from, &fl)) > 0) {
			/* The autopilot is whoever sends here first. */
			if (!j->have_peer) {
				j->peer = from;
				j->have_peer = true;
			}
			j->last_rx_us = util_mono_us();
			mavlink_parser_feed(&j->parser, buf, (size_t)n,
					    on_frame, j);
			mavlink_parser_flush(&j->parser);
			fl = sizeof(from);
		}
		uint64_t now = util_mono_us();
		uint32_t msgid;
		union mavlink_msg m;
		gcs_heartbeat(j, now);
		while (flight_step(&j->fl, now, &msgid, &m) == 1)
			send_msg(j, msgid, &m);
		telemetry(j);
		if (flight_over(&j->fl))
			return;
		reap(j);
		if (j->drive_done &&
		    s->c->link == CAMPAIGN_LINK_PX4_SIM_PROXY) {
			/* barod runs until stopped: without it the autopilot
			 * has no simulator, and nothing it flies is judged. */
			char d[96];
			describe_status(j->drive_status, d, sizeof(d));
			set_outcome(j, "failed", "barod %s in phase %s: see "
				    "barod.out", d,
				    flight_phase_name(j->fl.phase));
			return;
		}
		if (j->ap_done) {
			char d[96];
			describe_status(j->ap_status, d, sizeof(d));
			set_outcome(j, "crashed", "the autopilot %s in phase %s",
				    d, flight_phase_name(j->fl.phase));
			return;
		}
		if (!j->fl.heard && (double)(now - t0) > START_S * 1e6) {
			set_outcome(j, "hung", "no autopilot heard on %s "
				    "within %.0f s", j->gcs, START_S);
			return;
		}
		if (j->fl.heard && (double)(now - j->last_rx_us) > s->hang_s * 1e6) {
			set_outcome(j, "hung", "the autopilot went silent for "
				    "%.0f s in phase %s", s->hang_s,
				    flight_phase_name(j->fl.phase));
			return;
		}
	}
}

static int
write_scenario(struct job *j, const struct campaign_vars *v)
{
	const struct campaign_job_spec *s = j->s;
	char path[PATH_MAX], err[512];
	if (s->c->scenario[0] == '/')
		snprintf(path, sizeof(path), "%s", s->c->scenario);
	else
		snprintf(path, sizeof(path), "%s/%s", s->base, s->c->scenario);
	FILE *f = fopen(path, "r");
	if (!f) {
		set_outcome(j, "failed", "%s: %s", path, strerror(errno));
		return -EINVAL;
	}
	static char tmpl[65536], text[131072];
	size_t n = fread(tmpl, 1, sizeof(tmpl) - 1, f);
	fclose(f);
	tmpl[n] = '\0';
	if (campaign_expand(tmpl, v, text, sizeof(text), err, sizeof(err)) < 0) {
		set_outcome(j, "failed", "%s: %s", path, err);
		return -EINVAL;
	}
	f = fopen(in_dir(j, "scenario.scn"), "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		set_outcome(j, "failed", "%s: %s", j->path, strerror(errno));
		return -EIO;
	}
	return 0;
}

/* "HOST:PORT" (an IPv4 address or localhost) into sa. */
static int
udp_addr(const char *s, struct sockaddr_in *sa)
{
	char host[64];
	const char *colon = strrchr(s, ':');
	char *end;
	if (!colon || colon == s || (size_t)(colon - s) >= sizeof(host))
		return -EINVAL;
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = '\0';
	unsigned long port = strtoul(colon + 1, &end, 10);
	if (*end || !colon[1] || port == 0 || port > 65535)
		return -EINVAL;
	*sa = (struct sockaddr_in){ .sin_family = AF_INET,
				    .sin_port = htons((uint16_t)port) };
	if (strcmp(host, "localhost") == 0)
		snprintf(host, sizeof(host), "127.0.0.1");
	return inet_pton(AF_INET, host, &sa->sin_addr) == 1 ? 0 : -EINVAL;
}

/* The flight's socket, as [campaign] gcs says: udpin:HOST:PORT bound
 * there (the autopilot is whoever sends first), udpout:HOST:PORT sending
 * there from a port of its own. */
static int
gcs_socket(struct job *j, const char *spec)
{
	const bool out = strncmp(spec, "udpout:", 7) == 0;
	struct sockaddr_in sa;
	snprintf(j->gcs, sizeof(j->gcs), "%s", spec);
	if (udp_addr(spec + (out ? 7 : 6), &sa) < 0) {
		set_outcome(j, "failed", "[campaign] gcs = %s: not "
			    "udpin:HOST:PORT or udpout:HOST:PORT with an IPv4 "
			    "address", spec);
		return -EINVAL;
	}
	j->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (out && j->fd < 0) {
		set_outcome(j, "failed", "the ground station's socket: %s",
			    strerror(errno));
		return -EIO;
	}
	if (out) {
		j->peer = sa;
		j->have_peer = true;
		j->gcs_out = true;
		return 0;
	}
	if (j->fd < 0 ||
	    bind(j->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		set_outcome(j, "failed", "the ground station's %s: %s "
			    "(another campaign, or [campaign] ports?)", spec,
			    strerror(errno));
		return -EADDRINUSE;
	}
	return 0;
}

/* The judge's labels: baro-drive's record, or the labels of barod's
 * scenario (campaign-labels.h). */
static const char *
labels_leaf(const struct campaign *c)
{
	return c->link == CAMPAIGN_LINK_DRIVE ? "record.csv" : "labels.csv";
}

/* baro-replay's verdict on the autopilot: its status and metrics. */
static void
judge(struct job *j, const char *log, json_object *res)
{
	const struct campaign_job_spec *s = j->s;
	char thr[PATH_MAX] = "", out[PATH_MAX], rec[PATH_MAX];
	snprintf(out, sizeof(out), "%s/judge", s->dir);
	snprintf(rec, sizeof(rec), "%s/%s", s->dir, labels_leaf(s->c));
	if (s->c->thresholds[0])
		snprintf(thr, sizeof(thr), "%s%s%s",
			 s->c->thresholds[0] == '/' ? "" : s->base,
			 s->c->thresholds[0] == '/' ? "" : "/",
			 s->c->thresholds);
	const char *argv[24];
	size_t n = 0;
	argv[n++] = s->tools->replay;
	argv[n++] = "run";
	argv[n++] = "--labels";
	argv[n++] = rec;
	argv[n++] = "-f";
	argv[n++] = "autopilot";
	argv[n++] = "--no-baselines";
	argv[n++] = "--no-timing";
	argv[n++] = "-q";
	if (thr[0]) {
		argv[n++] = "-t";
		argv[n++] = thr;
	}
	argv[n++] = "-o";
	argv[n++] = out;
	argv[n++] = log;
	argv[n] = NULL;
	pid_t pid = spawn(j, "judge.out", argv, NULL);
	int st = 0;
	const uint64_t t0 = util_mono_us();
	while (pid > 0 && waitpid(pid, &st, WNOHANG) == 0) {
		if ((double)(util_mono_us() - t0) > JUDGE_TIMEOUT_S * 1e6) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			break;
		}
		usleep(20000);
	}
	if (pid < 0 || !WIFEXITED(st) || WEXITSTATUS(st) > 1) {
		json_object_object_add(res, "judge", json_object_new_string(
						"baro-replay failed: see "
						"judge.out"));
		return;
	}
	char sum[PATH_MAX + 32];
	snprintf(sum, sizeof(sum), "%s/summary.json", out);
	json_object *all = json_object_from_file(sum);
	for (size_t i = 0; all && i < json_object_array_length(all); i++) {
		json_object *r = json_object_array_get_idx(all, i), *v;
		if (!json_object_object_get_ex(r, "filter", &v) ||
		    strcmp(json_object_get_string(v), "autopilot") != 0)
			continue;
		json_object_object_get_ex(r, "status", &v);
		json_object_object_add(res, "status", json_object_get(v));
		json_object *unch;
		if (json_object_object_get_ex(r, "unchecked", &unch))
			json_object_object_add(res, "unchecked",
					       json_object_get(unch));
		json_object *mm, *metrics = json_object_new_object();
		json_object_object_get_ex(r, "metrics", &mm);
		/* The ones a campaign's table shows; judge/ has the rest. */
		static const char *const keep[] = {
			"leakage_m", "recovery_max_s", "unrecovered", "rms_m",
			"max_abs_m", "faults",
		};
		for (size_t k = 0; mm && k < sizeof(keep) / sizeof(*keep); k++)
			if (json_object_object_get_ex(mm, keep[k], &v))
				json_object_object_add(metrics, keep[k],
						       json_object_get(v));
		json_object_object_add(res, "metrics", metrics);
	}
	json_object_put(all);
}

/* When the record's first fault began and its last ended (autopilot
 * ms), for the telemetry's times to detect; false without one.  It
 * began when acknowledged on ArduPilot (a PARAM_SET acts at once), when
 * its telemetry showed it on PX4 (SIM_BARO_OFF_P waits for the next
 * parameter update). */
static bool
fault_span(struct job *j, uint64_t *from_ms, uint64_t *to_ms)
{
	FILE *f = fopen(in_dir(j, labels_leaf(j->s->c)), "r");
	if (!f)
		return false;
	static char text[1 << 20];
	size_t n = fread(text, 1, sizeof(text), f);
	fclose(f);
	struct record_labels rl;
	char err[256];
	if (record_labels_parse(&rl, text, n, "record.csv", err,
				sizeof(err)) < 0)
		return false;
	bool have = false;
	for (size_t i = 0; i < rl.n; i++) {
		if (rl.ch[i].label && !have) {
			*from_ms = (j->s->c->autopilot == CAMPAIGN_ARDUPILOT
					    ? rl.fault_acked_us
					    : rl.ch[i].t_us) /
				   1000u;
			have = true;
		}
		if (have && !rl.ch[i].label)
			*to_ms = rl.ch[i].t_us / 1000u;
	}
	if (have && *to_ms < *from_ms)
		*to_ms = UINT64_MAX;
	record_labels_free(&rl);
	return have;
}

/* How long after from (autopilot ms) the autopilot first said its baro
 * was wrong: unhealthy, a height sample rejected, or a failsafe (its
 * telemetry.csv); -1 when it never did. */
static double
detect_after(struct job *j, uint64_t from)
{
	FILE *f = fopen(in_dir(j, "telemetry.csv"), "r");
	char line[512];
	double d = -1;
	while (f && d < 0 && fgets(line, sizeof(line), f)) {
		char ev[32];
		unsigned long long ms;
		double v;
		if (sscanf(line, "%llu,%31[^,],%lf", &ms, ev, &v) != 3 ||
		    ms < from)
			continue;
		if ((strcmp(ev, "baro_health") == 0 && v == 0) ||
		    (strcmp(ev, "height_rejected") == 0 && v == 1) ||
		    strcmp(ev, "failsafe") == 0)
			d = (double)(ms - from) * 1e-3;
	}
	if (f)
		fclose(f);
	return d;
}

static int
write_result(const struct campaign_job_spec *s, json_object *res)
{
	char path[PATH_MAX], err[512];
	snprintf(path, sizeof(path), "%s/result.json", s->dir);
	struct atomic_file af;
	FILE *f = atomic_file_open(&af, path, err, sizeof(err));
	if (!f) {
		fprintf(stderr, "baro-campaign: %s\n", err);
		return -EIO;
	}
	fputs(json_object_to_json_string_ext(res, JSON_C_TO_STRING_PRETTY |
							  JSON_C_TO_STRING_SPACED |
							  JSON_C_TO_STRING_NOSLASHESCAPE),
	      f);
	fputc('\n', f);
	if (atomic_file_commit(&af, err, sizeof(err)) < 0) {
		fprintf(stderr, "baro-campaign: %s\n", err);
		return -EIO;
	}
	return 0;
}

static json_object *
result_head(const struct campaign_job_spec *s)
{
	json_object *res = json_object_new_object();
	char name[1024];
	campaign_job_name(s->c, s->job, name, sizeof(name));
	json_object_object_add(res, "job", json_object_new_int64((int64_t)s->job));
	json_object_object_add(res, "name", json_object_new_string(name));
	json_object_object_add(res, "campaign", json_object_new_string(s->hash));
	const char *v[CAMPAIGN_MAX_AXES];
	campaign_job_values(s->c, s->job, v);
	json_object *axes = json_object_new_object();
	for (size_t i = 0; i < s->c->naxes; i++)
		json_object_object_add(axes, s->c->axes[i].name,
				       json_object_new_string(v[i]));
	json_object_object_add(res, "axes", axes);
	return res;
}

int
campaign_job_result_failed(const struct campaign_job_spec *s,
			   const char *outcome, const char *why)
{
	json_object *res = result_head(s);
	json_object_object_add(res, "outcome", json_object_new_string(outcome));
	json_object_object_add(res, "why", json_object_new_string(why));
	json_object_object_add(res, "status", json_object_new_string("fail"));
	int rc = write_result(s, res);
	json_object_put(res);
	return rc;
}

static void
start_drive(struct job *j, const char *connect)
{
	const struct campaign_job_spec *s = j->s;
	char scn[PATH_MAX], state[PATH_MAX], rec[PATH_MAX];
	snprintf(scn, sizeof(scn), "%s/scenario.scn", s->dir);
	snprintf(state, sizeof(state), "%s/drive.state", s->dir);
	snprintf(rec, sizeof(rec), "%s/record.csv", s->dir);
	const char *dargv[] = {
		s->tools->drive, "--autopilot",
		s->c->autopilot == CAMPAIGN_PX4 ? "px4" : "ardupilot",
		"--scenario", scn, "--connect", connect, "--state",
		state, "--record", rec, "--wait", "120", NULL,
	};
	j->drive = spawn(j, "drive.out", dargv, NULL);
}

/* Words of barod_args; at most this many. */
#define BAROD_MAX_ARGS 64

/*
 * barod between the autopilot and its simulator, in j->drive's place
 * (ended the same way): one PX4 instance on sim_port + instance, on
 * loopback, dialling the upstream's port + instance, the job's scenario
 * from its physics time 0, its record, its MAVLink to {barod_port}, no
 * control socket (two jobs would share its default path).
 */
static int
start_barod(struct job *j, const struct campaign_vars *v)
{
	const struct campaign_job_spec *s = j->s;
	const struct campaign *c = s->c;
	const unsigned i = campaign_instance(c, s->slot);
	char conf[PATH_MAX], scn[PATH_MAX], rec[PATH_MAX], up[128], out[64],
		err[512];
	static char args[CAMPAIGN_TEXT_LEN * 2];

	if (campaign_expand(c->barod_args, v, args, sizeof(args), err,
			    sizeof(err)) < 0) {
		set_outcome(j, "failed", "[campaign] barod_args: %s", err);
		return -EINVAL;
	}
	if (c->sim_port + i > 65535 || c->upstream_port + i > 65535) {
		set_outcome(j, "failed", "instance %u: port %u + %u or %u + %u "
			    "is beyond 65535", i, c->sim_port, i,
			    c->upstream_port, i);
		return -ERANGE;
	}
	snprintf(conf, sizeof(conf), "%s/barod.conf", s->dir);
	FILE *f = fopen(conf, "we");
	if (!f || fprintf(f, "# baro-campaign job %zu: PX4 instance %u\n"
			     "[px4]\ninstances = 1\nbind = 127.0.0.1\n"
			     "port = %u\n", s->job, i, c->sim_port + i) < 0 ||
	    fclose(f) != 0) {
		set_outcome(j, "failed", "%s: %s", conf, strerror(errno));
		return -EIO;
	}
	snprintf(scn, sizeof(scn), "%s/scenario.scn", s->dir);
	snprintf(rec, sizeof(rec), "%s/barod.csv", s->dir);
	snprintf(up, sizeof(up), "%s:%u", c->upstream_host,
		 c->upstream_port + i);
	snprintf(out, sizeof(out), "udp:127.0.0.1:%u",
		 campaign_barod_port(c, s->slot));
	const char *argv[16 + BAROD_MAX_ARGS] = {
		s->tools->barod, "-c", conf, "--px4-sim-proxy", up,
		"--scenario", scn, "--record", rec, "--control", "none",
		"-o", out,
	};
	size_t n = 13;
	for (char *save = NULL, *w = strtok_r(args, " \t", &save); w;
	     w = strtok_r(NULL, " \t", &save)) {
		if (n == 13 + BAROD_MAX_ARGS) {
			set_outcome(j, "failed", "[campaign] barod_args: more "
				    "than %d words", BAROD_MAX_ARGS);
			return -E2BIG;
		}
		argv[n++] = w;
	}
	argv[n] = NULL;
	j->drive = spawn(j, "barod.out", argv, NULL);
	if (j->drive < 0) {
		set_outcome(j, "failed", "barod: %s", strerror(errno));
		return -EAGAIN;
	}
	return 0;
}

/* labels.csv from the scenario, with its time 0 where barod's log says
 * the autopilot's clock was at barod's physics time 0; without that
 * line (PX4 never connected) no labels, and the judge says so. */
static void
write_labels(struct job *j)
{
	static char log[1 << 20], scn[65536], text[1 << 20];
	char err[512];
	size_t nlog = 0, nscn = 0;
	FILE *f = fopen(in_dir(j, "barod.out"), "r");
	if (f) {
		nlog = fread(log, 1, sizeof(log), f);
		fclose(f);
	}
	uint64_t t0_us;
	if (campaign_labels_t0(log, nlog, &t0_us) < 0) {
		/* Whatever the autopilot flew, barod's faults never
		 * reached it: a job to fail, not one to pass unjudged. */
		set_outcome(j, "failed", "no HIL_SENSOR came through barod "
			    "(barod.out never says its physics time 0): did "
			    "the autopilot connect to the simulator "
			    "directly?");
		snprintf(j->no_labels, sizeof(j->no_labels), "no labels: "
			 "barod never carried the simulator link");
		return;
	}
	f = fopen(in_dir(j, "scenario.scn"), "r");
	if (!f) {
		snprintf(j->no_labels, sizeof(j->no_labels), "no labels: "
			 "scenario.scn: %s", strerror(errno));
		return;
	}
	nscn = fread(scn, 1, sizeof(scn), f);
	fclose(f);
	int n = campaign_labels(scn, nscn, "scenario.scn", t0_us / 1000u, text,
				sizeof(text), err, sizeof(err));
	if (n < 0) {
		snprintf(j->no_labels, sizeof(j->no_labels), "no labels: "
			 "%.512s", err);
		return;
	}
	f = fopen(in_dir(j, "labels.csv"), "we");
	if (!f || fwrite(text, 1, (size_t)n, f) != (size_t)n)
		fprintf(stderr, "baro-campaign: %s: %s\n", j->path,
			strerror(errno));
	if (f)
		fclose(f);
}

int
campaign_job_run(const struct campaign_job_spec *s)
{
	static struct job j;
	char cmd[CAMPAIGN_TEXT_LEN * 2], logpat[PATH_MAX], err[512];
	const struct campaign_vars v = { .c = s->c, .job = s->job,
					 .slot = s->slot, .dir = s->dir };

	j = (struct job){ .s = s, .fd = -1 };
	/* Where the job's wall time goes (timing.json, kept out of the
	 * result so that results compare): setting up, flying (from the
	 * autopilot's start), stopping, judging. */
	uint64_t t_start = util_mono_us(), t_spawned = t_start, t_flown = t_start,
		 t_stopped = t_start;
	mavlink_parser_init(&j.parser);
	flight_init(&j.fl, s->c);
	for (size_t i = 0; i < s->c->nparams && !j.outcome[0]; i++) {
		double pv;
		if (campaign_param_value(s->c, i, s->job, &pv, err,
					 sizeof(err)) < 0)
			set_outcome(&j, "failed", "%s", err);
		else if (flight_add_param(&j.fl, s->c->params[i].name, pv) < 0)
			set_outcome(&j, "failed", "[params] %s: not a "
				    "parameter the flight can set",
				    s->c->params[i].name);
	}
	if (s->c->mission[0] && !j.outcome[0]) {
		struct campaign_waypoint wp[CAMPAIGN_MAX_WAYPOINTS];
		size_t nwp;
		if (campaign_mission(s->c, s->job, wp, &nwp, err,
				     sizeof(err)) < 0 ||
		    flight_set_mission(&j.fl, wp, nwp) < 0)
			set_outcome(&j, "failed", "%s", err);
	}
	/* The tool's own SIGTERM stops the job as its end does. */
	if (campaign_expand(s->c->command, &v, cmd, sizeof(cmd), err,
			    sizeof(err)) < 0 ||
	    campaign_expand(s->c->log, &v, logpat, sizeof(logpat), err,
			    sizeof(err)) < 0)
		set_outcome(&j, "failed", "%s", err);
	char gcs[CAMPAIGN_PATH_LEN], connect[CAMPAIGN_PATH_LEN];
	const bool proxy = s->c->link == CAMPAIGN_LINK_PX4_SIM_PROXY;
	if (!j.outcome[0] &&
	    (campaign_expand(s->c->gcs, &v, gcs, sizeof(gcs), err,
			     sizeof(err)) < 0 ||
	     campaign_expand(s->c->drive_connect, &v, connect,
			     sizeof(connect), err, sizeof(err)) < 0))
		set_outcome(&j, "failed", "%s", err);
	if (!j.outcome[0] && write_scenario(&j, &v) == 0 &&
	    gcs_socket(&j, gcs) == 0 && (!proxy || start_barod(&j, &v) == 0)) {
		j.tel = fopen(in_dir(&j, "telemetry.csv"), "we");
		if (j.tel)
			fputs("ap_ms,event,value,text\n", j.tel);
		j.ap = spawn(&j, "autopilot.out", NULL, cmd);
		if (!proxy)
			start_drive(&j, connect);
		t_spawned = util_mono_us();
		fly(&j);
		t_flown = util_mono_us();
		if (!j.outcome[0] && j.fl.phase == FLIGHT_FAILED)
			set_outcome(&j, flight_failure_name(j.fl.failure), "%s",
				    j.fl.why);
		/* baro-drive ends with its scenario; then it is stopped,
		 * putting back what it set, before the autopilot goes.
		 * barod runs until stopped, its record then written whole. */
		const uint64_t t0 = util_mono_us();
		while (!proxy && !j.drive_done && !j.ap_done &&
		       util_mono_us() - t0 < 5000000u) {
			reap(&j);
			usleep(20000);
		}
		stop_child(&j, j.drive, &j.drive_done);
		stop_child(&j, j.ap, &j.ap_done);
		t_stopped = util_mono_us();
		if (j.tel)
			fclose(j.tel);
		if (proxy)
			write_labels(&j);
	}
	if (j.fd >= 0)
		close(j.fd);

	json_object *res = result_head(s);
	glob_t g = { 0 };
	const char *log = NULL;
	if (!j.outcome[0] || strcmp(j.outcome, "crashed") == 0 ||
	    strcmp(j.outcome, "hung") == 0) {
		if (glob(logpat, 0, NULL, &g) == 0 && g.gl_pathc)
			log = g.gl_pathv[g.gl_pathc - 1];	/* newest name */
		if (!log && !j.outcome[0])
			set_outcome(&j, "no-log", "no log at %s", logpat);
	}
	if (!j.outcome[0])
		set_outcome(&j, "flown", "%s", "");
	json_object_object_add(res, "outcome", json_object_new_string(j.outcome));
	json_object_object_add(res, "why", json_object_new_string(j.why));
	json_object_object_add(res, "phase", json_object_new_string(
					      flight_phase_name(j.fl.phase)));
	json_object_object_add(res, "failsafe",
			       json_object_new_boolean(j.fl.failsafe));
	if (j.fl.nparams) {
		/* What the autopilot echoed, and what it had before. */
		json_object *ps = json_object_new_object();
		for (size_t i = 0; i < j.fl.nparams; i++) {
			const struct flight_param *q = &j.fl.params[i];
			json_object *o = json_object_new_object();
			json_object_object_add(o, "set", json_object_new_boolean(
							      i < j.fl.param_at));
			if (q->known)
				json_object_object_add(
					o, "before",
					json_object_new_double(q->before));
			json_object_object_add(o, "value",
					       json_object_new_double(q->want));
			json_object_object_add(ps, q->name, o);
		}
		json_object_object_add(res, "params", ps);
	}
	if (j.fl.nwp) {
		/* Waypoints reached, counted from the first. */
		int first = s->c->autopilot == CAMPAIGN_ARDUPILOT ? 1 : 0;
		json_object_object_add(
			res, "mission_reached",
			json_object_new_int(j.fl.reached < first
						    ? 0
						    : j.fl.reached - first + 1));
		json_object_object_add(res, "mission_waypoints",
				       json_object_new_int((int)j.fl.nwp));
	}
	json_object_object_add(res, "lane_switches",
			       json_object_new_int((int)j.fl.lane_switches));
	uint64_t from = 0, to = 0;
	if (fault_span(&j, &from, &to)) {
		if (j.fl.failsafe && j.fl.failsafe_ms >= from)
			json_object_object_add(
				res, "failsafe_after_s",
				json_object_new_double(
					(double)(j.fl.failsafe_ms - from) * 1e-3));
		if (j.fl.lane_switches && j.fl.lane_switch_ms >= from)
			json_object_object_add(
				res, "lane_switch_after_s",
				json_object_new_double(
					(double)(j.fl.lane_switch_ms - from) *
					1e-3));
		double d = detect_after(&j, from);
		if (d >= 0)
			json_object_object_add(res, "detect_after_s",
					       json_object_new_double(d));
	}
	if (log && j.no_labels[0])
		json_object_object_add(res, "judge",
				       json_object_new_string(j.no_labels));
	else if (log)
		judge(&j, log, res);
	json_object *st;
	if (!json_object_object_get_ex(res, "status", &st))
		json_object_object_add(res, "status", json_object_new_string(
					      strcmp(j.outcome, "flown") == 0
						      ? "none"
						      : "fail"));
	else if (strcmp(j.outcome, "flown") != 0)
		/* Judged up to a crash or hang, and failed for it. */
		json_object_object_add(res, "status",
				       json_object_new_string("fail"));
	globfree(&g);
	const uint64_t t_judged = util_mono_us();
	FILE *tf = fopen(in_dir(&j, "timing.json"), "w");
	if (tf) {
		fprintf(tf, "{ \"setup_s\": %.3f, \"fly_s\": %.3f, "
			    "\"stop_s\": %.3f, \"judge_s\": %.3f, "
			    "\"wall_s\": %.3f }\n",
			(double)(t_spawned - t_start) * 1e-6,
			(double)(t_flown - t_spawned) * 1e-6,
			(double)(t_stopped - t_flown) * 1e-6,
			(double)(t_judged - t_stopped) * 1e-6,
			(double)(t_judged - t_start) * 1e-6);
		fclose(tf);
	}
	int rc = write_result(s, res);
	json_object_put(res);
	return rc;
}
