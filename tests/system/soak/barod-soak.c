/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Hours of churn with nothing lost: two barods driven in lockstep as fast
 * as they answer, for SECONDS of wall time, while everything around them
 * comes and goes.
 *
 *   BAROD=build/src/daemon/barod barod-soak [SECONDS]    (default 60)
 *
 * - barod --sitl-json (source = sitl-json): this program is ArduPilot,
 *   one servo packet in flight at ArduPilot's SITL physics rate
 *   (SIM_RATE_HZ, 1200 Hz); every reply must answer the frame in flight
 *   (its timestamp exactly the physics time of that frame), once.
 * - barod --px4-sim (source = px4-sim, speed_factor 0): this program is
 *   PX4, one HIL_ACTUATOR_CONTROLS per HIL_SENSOR step; every step must
 *   come 4000 us after the last (PX4's 250 Hz lockstep) and only after
 *   a reply, and every baro sample barod counts as published must have
 *   reached this PX4 in a HIL_SENSOR.
 *
 * Around them: SIGHUP every 3 s (alternating), a status over the control
 * socket every second (it also pauses the lockstep, so the counters are
 * read at a step boundary), a scenario loaded every 2 s (and one from
 * start-up: it replays at every restart), a control client every 0.7 s
 * that vanishes (connect and close, half a command, a command not read,
 * a reply half read, a scenario load not read), a GCS (the UDP output's
 * receiver) there for 3.5 s and gone for 3.5 s, whose frames must carry
 * every MAVLink sequence number, and each peer restarting every 15 s
 * (ArduPilot: frame_count back to 1 from a new port; PX4: a new TCP
 * connection, physics from 0).
 *
 * Prints the figures every 10 s (every minute past 2 min) and at the end;
 * fails on any lost, duplicated or out-of-order step, a sample published
 * and not received, a GCS frame missing, an fd more or less than at the
 * start, heap in use (baroctl status's memory line) more than 16 kB away
 * from its figure after warm-up (a tenth of the run, at least 20 s), or
 * RSS risen further than the heap malloc holds could explain.
 *
 *   barod-soak --planted-leak LIB [SECONDS]
 *
 * runs the PX4-side barod with LIB preloaded (soak-leak.so: 1 kB/s) and
 * passes only if that leak fails the heap check and nothing else fails.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "barod-harness.h"
#include "control-client.h"
#include "gcs-peer.h"
#include "px4-peer.h"
#include "sitl-json.h"
#include "sitl-peer.h"
#include "test-util.h"

/* ArduPilot's SITL physics rate: SIM_RATE_HZ defaults to 1200 and is the
 * frame_rate of its servo packets (ardupilot-baro.md, 12). */
#define SITL_RATE_HZ 1200
/* PX4's lockstep step: HIL_SENSOR id 0 every 4000 us, its 250 Hz IMU
 * (px4-sim.md; Gazebo Classic and jMAVSim both default to it). */
#define PX4_STEP_US 4000u
/* What a peer waits for a reply before calling it lost: far beyond any
 * scheduling hiccup on a loaded machine, so only a real loss counts. */
#define REPLY_TIMEOUT_S 5.0
/* Heap in use after warm-up: what barod holds at a status is the same
 * from one to the next but for the replies other clients have not read
 * yet (a few kB); a 1 kB/s leak is 40 kB past this in a one-minute run. */
#define HEAP_SLACK_KB 16
/* glibc's per-thread cache keeps up to 7 freed blocks of each size below
 * 1 kB for the next malloc, and mallinfo2 counts them in use: how many
 * it holds is a high-water mark of its own (the most blocks of a size
 * freed before one is taken again), 486 -> 507 kB over a run here.
 * Without it the figure is what barod holds; nothing else changes. */
#define NO_TCACHE "glibc.malloc.tcache_count=0"
/* RSS is no leak measure: a page malloc holds becomes resident the
 * first time a block lands on it (barod's scenario, 104 kB, moves
 * between the heap's free spaces at every load) and MALLOC_PERTURB_
 * fills whole blocks at malloc and free, so RSS steps up once, late,
 * by up to the heap's size (68-76 kB seen, 20-30 s into a run).  It may
 * rise by what malloc holds (the status's mapped) and this much more:
 * beyond that, memory outside malloc grew. */
#define RSS_SLACK_KB 64
#define WARMUP_MIN_S 20.0

/* SIGINT or SIGTERM (a soak stopped early): the run fails and its
 * teardown stops both barods, which would otherwise outlive it.  The
 * one flag a signal handler may set. */
static volatile sig_atomic_t interrupted;

static void
on_signal(int sig)
{
	interrupted = sig;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- barod as a process: its counters, memory and fds ---------------- */

/* What baroctl status says, the figures the soak checks. */
struct status {
	uint64_t samples[3], withheld[3];
	uint64_t out_sent, out_dropped, out_no_peer;
	uint64_t frames, lost, resends, restarts, replies;	/* sitl */
	uint64_t steps, stalls, late;				/* px4 */
	bool has_heap;			/* a "memory heap" line (glibc) */
	uint64_t heap_inuse, heap_mapped;			/* bytes */
};

struct watched {
	const char *name;
	pid_t pid;
	char control[256];
	struct status st;
	long rss_first, rss_base, rss_last, rss_min, rss_max;
	long anon_first, anon_base, anon_last;	/* RssAnon */
	long heap_first, heap_base, heap_last, heap_min, heap_max; /* kB */
	long mapped_last;		/* kB malloc holds, last status */
	int fd_first, fd_last, fd_max;
	bool based;			/* rss_base taken (warm-up over) */
	bool no_heap;			/* a status without the memory line */
	unsigned rss_out, heap_out, fd_changed;	/* samples outside limits */
	uint64_t sighups, statuses, vanished, scenarios;
	uint64_t bad_replies;		/* control replies not "ok" */
};

/* VmRSS, and the part of it that is anonymous (heap, stack: where a
 * leak shows) in *anon; -1 if unreadable.  The rest is RssFile (code and
 * data of barod and its libraries, paged in as paths run first) and
 * RssShmem. */
static long
proc_rss_kb(pid_t pid, long *anon)
{
	char path[64], line[256];
	long kb = -1;

	*anon = -1;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			continue;
		if (sscanf(line, "RssAnon: %ld kB", anon) == 1)
			break;
	}
	fclose(f);
	return kb;
}

static int
proc_fds(pid_t pid)
{
	char path[64];
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* The number after " key " in line, or 0. */
static uint64_t
field(const char *line, const char *key)
{
	char k[48];

	snprintf(k, sizeof(k), " %s ", key);
	const char *p = strstr(line, k);
	return p ? strtoull(p + strlen(k), NULL, 10) : 0;
}

static void
parse_status(const char *reply, struct status *st)
{
	memset(st, 0, sizeof(*st));
	for (const char *l = reply; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : l) {
		unsigned i;
		if (sscanf(l, "baro %u ", &i) == 1 && i < 3) {
			if (strncmp(strchr(l + 5, ' '), " overlay", 8) == 0)
				st->withheld[i] = field(l, "withheld");
			else
				st->samples[i] = field(l, "samples");
		} else if (strncmp(l, "memory heap ", 12) == 0) {
			st->has_heap = true;
			st->heap_inuse = field(l, "in-use");
			st->heap_mapped = field(l, "mapped");
		} else if (strncmp(l, "output ", 7) == 0) {
			st->out_sent += field(l, "sent");
			st->out_dropped += field(l, "dropped");
			st->out_no_peer += field(l, "no-peer");
		} else if (strncmp(l, "sitl ", 5) == 0) {
			st->frames = field(l, "frames");
			st->lost = field(l, "lost");
			st->resends = field(l, "resends");
			st->restarts = field(l, "restarts");
			st->replies = field(l, "replies");
		} else if (strncmp(l, "px4 ", 4) == 0) {
			st->steps = field(l, "steps");
			st->stalls = field(l, "stalls");
			st->late = field(l, "late");
			st->restarts = field(l, "restarts");
		}
	}
}

static const struct control_wait ctl_wait = { 50, 20000, false };

/* One command, its reply required to end in "ok". */
static bool
command(struct watched *w, const char *cmd, char *reply, size_t cap)
{
	control_request(w->control, cmd, reply, cap, &ctl_wait);
	const char *last = reply + strlen(reply);
	while (last > reply && last[-1] == '\n')
		last--;
	while (last > reply && last[-1] != '\n')
		last--;
	if (strncmp(last, "ok", 2) != 0) {
		w->bad_replies++;
		fprintf(stderr, "barod-soak: %s: '%.*s' answered: %s", w->name,
			(int)strcspn(cmd, "\n"), cmd, last);
		return false;
	}
	return true;
}

/* Memory and fds now; an fd count that differs is looked at again for
 * half a second (a control client this program closed a moment ago may
 * not be closed in barod yet): only one that stays counts. */
static void
sample_proc(struct watched *w, bool warm)
{
	long anon;
	long rss = proc_rss_kb(w->pid, &anon);
	int fds = proc_fds(w->pid);
	const long heap = (long)(w->st.heap_inuse / 1024);

	w->no_heap |= !w->st.has_heap;

	if (w->rss_first == 0) {
		/* The status connection just closed may still be open in
		 * barod: the fewest fds over half a second. */
		for (int k = 0; k < 10; k++) {
			usleep(50000);
			const int again = proc_fds(w->pid);
			fds = again < fds ? again : fds;
		}
		w->rss_first = w->rss_min = w->rss_max = rss;
		w->anon_first = anon;
		w->heap_first = w->heap_min = w->heap_max = heap;
		w->fd_first = w->fd_max = fds;
	}
	for (int k = 0; k < 10 && fds != w->fd_first; k++) {
		usleep(50000);
		fds = proc_fds(w->pid);
	}
	if (fds != w->fd_first) {
		w->fd_changed++;
		fprintf(stderr, "barod-soak: %s: %d fds, %d at the start\n",
			w->name, fds, w->fd_first);
	}
	w->rss_last = rss;
	w->anon_last = anon;
	w->heap_last = heap;
	w->mapped_last = (long)(w->st.heap_mapped / 1024);
	w->fd_last = fds;
	if (fds > w->fd_max)
		w->fd_max = fds;
	if (warm && !w->based) {
		w->based = true;
		w->rss_base = w->rss_min = w->rss_max = rss;
		w->anon_base = anon;
		w->heap_base = w->heap_min = w->heap_max = heap;
	}
	if (rss > w->rss_max)
		w->rss_max = rss;
	if (rss < w->rss_min)
		w->rss_min = rss;
	if (heap > w->heap_max)
		w->heap_max = heap;
	if (heap < w->heap_min)
		w->heap_min = heap;
	if (!w->based)
		return;
	if (labs(heap - w->heap_base) > HEAP_SLACK_KB) {
		w->heap_out++;
		fprintf(stderr, "barod-soak: %s: heap in use %ld kB, %ld kB "
			"after warm-up\n", w->name, heap, w->heap_base);
	}
	if (rss - w->rss_base > RSS_SLACK_KB + w->mapped_last) {
		w->rss_out++;
		fprintf(stderr, "barod-soak: %s: rss %ld kB, %ld kB after "
			"warm-up, malloc holds %ld kB\n", w->name, rss,
			w->rss_base, w->mapped_last);
	}
}

/* A client that goes away at a bad moment, five ways in turn.  Nothing
 * is waited for: barod must cope with the close whenever it sees it. */
static void
vanish(struct watched *w, unsigned how, const char *scenario)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char cmd[320], buf[64];
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", w->control);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fail_msg("%s: control socket %s: %s", w->name, w->control,
			 strerror(errno));
	}
	switch (how % 5) {
	case 0:		/* connects, says nothing */
		break;
	case 1:		/* half a command */
		(void)!write(fd, "sta", 3);
		break;
	case 2:		/* a command, gone before the reply */
		(void)!write(fd, "status\n", 7);
		break;
	case 3: {	/* a reply read only in part */
		struct pollfd pf = { fd, POLLIN, 0 };
		(void)!write(fd, "status\n", 7);
		if (poll(&pf, 1, 5000) > 0)
			(void)!read(fd, buf, 10);
		break;
	}
	case 4:		/* a scenario load, gone before the reply */
		snprintf(cmd, sizeof(cmd), "scenario load %s\n", scenario);
		(void)!write(fd, cmd, strlen(cmd));
		break;
	}
	close(fd);
	w->vanished++;
}

/* ---- the GCS that comes and goes ------------------------------------- */

struct gcs {
	int fd;			/* -1: not there */
	unsigned port;
	bool have_seq;
	uint8_t seq;
	uint64_t frames, pressure, gaps, back, bad_crc, appearances;
};

static void
gcs_frame(const struct mavlink_frame *f, void *user)
{
	struct gcs *g = user;

	/* One sequence per output: any number skipped is a frame lost
	 * between barod and its GCS, one going back a duplicate. */
	if (g->have_seq && f->seq != (uint8_t)(g->seq + 1)) {
		const uint8_t ahead = (uint8_t)(f->seq - g->seq - 1);
		if (ahead < 128)
			g->gaps += ahead;
		else
			g->back++;
	}
	g->have_seq = true;
	g->seq = f->seq;
	g->frames++;
	g->pressure += f->msgid == MAVLINK_MSG_SCALED_PRESSURE ||
		       f->msgid == MAVLINK_MSG_SCALED_PRESSURE2 ||
		       f->msgid == MAVLINK_MSG_SCALED_PRESSURE3;
}

static void
gcs_toggle(struct gcs *g)
{
	if (g->fd >= 0) {
		g->bad_crc += gcs_peer_drain(g->fd, 0, gcs_frame, g);
		close(g->fd);
		g->fd = -1;
		return;
	}
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)g->port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int big = 4 << 20;
	g->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	/* Room for a second of output, so a busy machine loses nothing
	 * on this side (FORCE as root, else capped by rmem_max). */
	if (setsockopt(g->fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)))
		setsockopt(g->fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	if (bind(g->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		fail_msg("GCS port %u: %s", g->port, strerror(errno));
	g->have_seq = false;
	g->appearances++;
}

/* ---- ArduPilot ------------------------------------------------------- */

struct sitl_drv {
	int fd;			/* ArduPilot's socket, a new one per restart */
	unsigned port;		/* barod's */
	uint32_t frame;		/* frame_count of the frame in flight */
	double t;		/* its physics time, summed as barod sums it */
	bool in_flight;
	double sent_at;
	uint64_t answered, requests, extra, wrong, timeouts, restarts;
	uint64_t abandoned;	/* in flight when this ArduPilot restarted */
	uint64_t with_baro;	/* replies carrying barod's baro fields */
	double sim_s;		/* physics answered, over all restarts */
};

static void
sitl_send(struct sitl_drv *a)
{
	struct sitl_servo s = { .magic = SITL_SERVO_MAGIC_16,
				.frame_rate = SITL_RATE_HZ,
				.frame_count = a->frame, .channels = 16 };

	for (int k = 0; k < 4; k++)
		s.pwm[k] = 1500;
	sitl_peer_send_servo(a->fd, a->port, &s);
	a->sent_at = now_s();
	a->in_flight = true;
}

static void
sitl_next(struct sitl_drv *a)
{
	a->frame++;
	a->t += 1.0 / SITL_RATE_HZ;
	a->requests++;
	sitl_send(a);
}

static void
sitl_restart(struct sitl_drv *a)
{
	if (a->fd >= 0)
		close(a->fd);
	a->abandoned += a->in_flight;
	a->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_true(a->fd >= 0);
	a->frame = 0;
	a->t = 0.0;
	a->in_flight = false;
	a->restarts++;
}

/* The reply to the frame in flight, or one nobody asked for. */
static void
sitl_reply(struct sitl_drv *a, const char *buf)
{
	struct sitl_fdm fdm;

	if (!a->in_flight) {
		a->extra++;
		fprintf(stderr, "barod-soak: sitl: a reply with no frame in "
			"flight (frame %u)\n", a->frame);
		return;
	}
	uint64_t mask = sitl_peer_ap_read(buf, &fdm);
	if (!sitl_json_ap_accepts(mask) || fdm.timestamp != a->t) {
		a->wrong++;
		fprintf(stderr, "barod-soak: sitl: frame %u at %.17g s "
			"answered with %.17g s (mask %#" PRIx64 ")\n", a->frame,
			a->t, fdm.timestamp, mask);
	}
	a->with_baro += strstr(buf, "\"barod\":{") != NULL;
	a->in_flight = false;
	a->answered++;
	a->sim_s += 1.0 / SITL_RATE_HZ;
}

/* ---- PX4 ------------------------------------------------------------- */

struct px4_drv {
	struct px4_peer p;
	unsigned port;
	uint8_t seq;
	bool connected, replied_once;
	bool owed;		/* a step came that this PX4 has not answered */
	uint64_t time_us;	/* the last step's time_usec */
	bool have_time;
	uint64_t steps, controls, extra, jumps, restarts, baro0;
	uint64_t abandoned;	/* owed when this PX4 restarted */
	uint64_t freewheel;	/* steps before its first reply (1x clock) */
	double sim_s;
};

static void
px4_connect(struct px4_drv *x)
{
	px4_peer_connect(&x->p, x->port, 500);
	x->p.discard_raw = true;
	x->connected = true;
	x->replied_once = x->owed = x->have_time = false;
	px4_peer_hello(x->p.fd, &x->seq);
}

static void
px4_frame(struct px4_drv *x, const struct mavlink_frame *f)
{
	struct mavlink_hil_sensor h;

	if (f->msgid != MAVLINK_MSG_HIL_SENSOR)
		return;
	mavlink_unpack_hil_sensor(f->payload, &h);
	if (h.id != 0)
		return;
	/* Before PX4's first reply barod steps on its own clock (at 1x);
	 * after it, a step only for a reply. */
	if (x->owed && !x->replied_once)
		x->freewheel++;
	if (x->owed && x->replied_once) {
		x->extra++;
		fprintf(stderr, "barod-soak: px4: step at %" PRIu64 " us "
			"before the reply to the one at %" PRIu64 " us\n",
			h.time_usec, x->time_us);
	}
	if (x->have_time && h.time_usec != x->time_us + PX4_STEP_US) {
		x->jumps++;
		fprintf(stderr, "barod-soak: px4: step at %" PRIu64 " us after "
			"%" PRIu64 " us\n", h.time_usec, x->time_us);
	}
	if ((h.fields_updated & 0x1A00u) == 0x1A00u)
		x->baro0++;
	x->time_us = h.time_usec;
	x->have_time = x->owed = true;
	x->steps++;
	x->sim_s += PX4_STEP_US * 1e-6;
}

/* Everything there is on the connection now. */
static void
px4_drain(struct px4_drv *x)
{
	struct mavlink_frame f;

	while (px4_peer_next(&x->p, &f, 0))
		px4_frame(x, &f);
	if (x->p.eof)
		fail_msg("px4: barod closed the connection");
}

static void
px4_answer(struct px4_drv *x)
{
	if (!x->owed)
		return;
	px4_peer_controls(x->p.fd, &x->seq, x->time_us, 1, 0.5f);
	x->owed = false;
	x->replied_once = true;
	x->controls++;
}

/* Until a step is owed: then barod holds still (lockstep), every frame
 * of that step is here and its counters can be compared with ours. */
static void
px4_settle(struct px4_drv *x)
{
	struct mavlink_frame f;
	const double until = now_s() + REPLY_TIMEOUT_S;

	while (!x->owed && now_s() < until) {
		if (px4_peer_next(&x->p, &f, 100))
			px4_frame(x, &f);
		else if (x->p.eof)
			fail_msg("px4: barod closed the connection");
	}
	if (!x->owed)
		fail_msg("px4: no step for %.0f s after a reply",
			 REPLY_TIMEOUT_S);
	px4_drain(x);
}

/* The first step answered at once: until then barod steps on its own
 * clock, which would fill the peer's queue while this program waits on
 * something else. */
static void
px4_start(struct px4_drv *x)
{
	px4_connect(x);
	px4_settle(x);
	px4_answer(x);
}

/* ---- the run --------------------------------------------------------- */

struct soak {
	struct harness h;
	double seconds, warmup, t0;
	struct watched w[2];	/* sitl, px4 */
	struct gcs gcs[2];
	struct sitl_drv sitl;
	struct px4_drv px4;
	char scenario[256];
	const char *leak_lib;	/* preloaded into the PX4 side, or NULL */
	uint64_t published_missing;	/* px4: published, never received */
	uint64_t bad_crc;
	bool stopping;		/* no new steps: the last ones drain */
};

static void
write_configs(struct soak *s, char *sitl_conf, char *px4_conf, size_t len)
{
	char ctl[256];

	harness_path(&s->h, ctl, sizeof(ctl), "sitl.control");
	harness_write(&s->h, sitl_conf, len, "sitl.conf",
		"[barod]\nsource = sitl-json\ncontrol = %s\n"
		"[sim]\nSIM_BARO_COUNT = 2\nprofile = sine:20:60:30\n"
		"[sitl]\ninstances = 1\nbind = 127.0.0.1\nport = %u\n"
		"[output gcs]\ntype = udp-client\naddress = 127.0.0.1:%u\n",
		ctl, s->sitl.port, s->gcs[0].port);
	harness_path(&s->h, ctl, sizeof(ctl), "px4.control");
	harness_write(&s->h, px4_conf, len, "px4.conf",
		"[barod]\nsource = px4-sim\ncontrol = %s\n"
		"[sim]\nSIM_BARO_COUNT = 2\nprofile = sine:20:60:30\n"
		"[px4]\ninstances = 1\nbind = 127.0.0.1\nport = %u\n"
		"speed_factor = 0\nlockstep_timeout_ms = %u\n"
		"[output gcs]\ntype = udp-client\naddress = 127.0.0.1:%u\n",
		ctl, s->px4.port, (unsigned)(REPLY_TIMEOUT_S * 2000),
		s->gcs[1].port);
	/* 15 s of physics, every fault kind that publishes what it
	 * samples or withholds it countably; loaded again every 2 s. */
	harness_write(&s->h, s->scenario, sizeof(s->scenario), "churn.scn",
		"at 1s set SIM_BARO_GLITCH 3 for 2s\n"
		"at 2s freeze 1 for 1s\n"
		"at 4s ramp SIM_BARO_DRIFT 0 to 0.5 over 5s\n"
		"at 6s px4 intermittent 0 for 1s\n"
		"at 8s set SIM_BARO_RND 1 for 2s\n"
		"at 12s restore\n"
		"at 15s end\n");
}

static void
read_status(struct soak *s, int k)
{
	char reply[8192];
	struct watched *w = &s->w[k];

	if (k == 1)
		px4_settle(&s->px4);
	if (!command(w, "status\n", reply, sizeof(reply)))
		return;
	w->statuses++;
	parse_status(reply, &w->st);
	if (k == 1) {
		/* Every baro-0 sample barod published went into a step PX4
		 * has had (the step barod now waits on included). */
		const uint64_t pub = w->st.samples[0] - w->st.withheld[0];
		if (pub != s->px4.baro0 + s->published_missing) {
			fprintf(stderr, "barod-soak: px4: %" PRIu64 " baro-0 "
				"samples published, %" PRIu64 " received\n",
				pub, s->px4.baro0);
			s->published_missing = pub - s->px4.baro0;
		}
	}
	sample_proc(w, now_s() - s->t0 >= s->warmup);
}

static double
sim_hours(const struct soak *s)
{
	return (s->sitl.sim_s + s->px4.sim_s) / 3600.0;
}

static void
report(const struct soak *s, bool final)
{
	const double wall = now_s() - s->t0;

	printf("%s %.0f s wall: %.2f simulated h (sitl %.2f h, %.2f M "
	       "frames; px4 %.2f h, %.2f M steps), %.3f simulated h per wall "
	       "minute\n", final ? "== after" : "--", wall, sim_hours(s),
	       s->sitl.sim_s / 3600.0, s->sitl.answered * 1e-6,
	       s->px4.sim_s / 3600.0, s->px4.steps * 1e-6,
	       sim_hours(s) / (wall / 60.0));
	for (int k = 0; k < 2; k++) {
		const struct watched *w = &s->w[k];
		const struct gcs *g = &s->gcs[k];
		printf("  %-4s heap in use first %ld last %ld kB (after "
		       "warm-up %ld, min %ld, max %ld; malloc holds %ld), rss "
		       "first %ld last %ld kB (after warm-up %ld, min %ld, max "
		       "%ld; anonymous %ld, %ld, %ld), fds first %d last %d "
		       "max %d\n", w->name, w->heap_first, w->heap_last,
		       w->based ? w->heap_base : 0L, w->heap_min, w->heap_max,
		       w->mapped_last, w->rss_first, w->rss_last,
		       w->based ? w->rss_base : 0L, w->rss_min, w->rss_max,
		       w->anon_first, w->based ? w->anon_base : 0L,
		       w->anon_last, w->fd_first, w->fd_last, w->fd_max);
		printf("       samples produced %" PRIu64 ", published %" PRIu64
		       "; output frames sent %" PRIu64 " (no peer %" PRIu64
		       ", dropped %" PRIu64 "); GCS got %" PRIu64 " frames (%"
		       PRIu64 " SCALED_PRESSURE*), %" PRIu64 " missing, %"
		       PRIu64 " repeated\n",
		       w->st.samples[0] + w->st.samples[1] + w->st.samples[2],
		       w->st.samples[0] + w->st.samples[1] + w->st.samples[2] -
			       w->st.withheld[0] - w->st.withheld[1] -
			       w->st.withheld[2],
		       w->st.out_sent, w->st.out_no_peer, w->st.out_dropped,
		       g->frames, g->pressure, g->gaps, g->back);
	}
	printf("  sitl lockstep: %" PRIu64 " frames sent, %" PRIu64
	       " answered (%" PRIu64 " with baro fields), %" PRIu64
	       " left in flight by a restart, %" PRIu64
	       " unasked, %" PRIu64 " wrong, %" PRIu64 " timed out; barod "
	       "counted %" PRIu64 " lost, %" PRIu64 " resends, %" PRIu64
	       " restarts\n", s->sitl.requests, s->sitl.answered,
	       s->sitl.with_baro, s->sitl.abandoned, s->sitl.extra, s->sitl.wrong,
	       s->sitl.timeouts, s->w[0].st.lost, s->w[0].st.resends,
	       s->w[0].st.restarts);
	printf("  px4 lockstep: %" PRIu64 " steps, %" PRIu64 " replies (%"
	       PRIu64 " steps left unanswered by a restart), %" PRIu64
	       " unasked, %" PRIu64 " off the 4 ms grid; baro-0 "
	       "samples received %" PRIu64 " (%" PRIu64 " published never "
	       "received); barod counted %" PRIu64 " stalls, %" PRIu64
	       " late, %" PRIu64 " restarts\n", s->px4.steps,
	       s->px4.controls, s->px4.abandoned, s->px4.extra, s->px4.jumps, s->px4.baro0,
	       s->published_missing, s->w[1].st.stalls, s->w[1].st.late,
	       s->w[1].st.restarts);
	printf("  churn: SIGHUP %" PRIu64 "+%" PRIu64 ", status %" PRIu64
	       "+%" PRIu64 ", clients vanished %" PRIu64 "+%" PRIu64
	       ", scenario loads %" PRIu64 "+%" PRIu64 ", GCS appearances %"
	       PRIu64 "+%" PRIu64 ", peer restarts %" PRIu64 "+%" PRIu64
	       " (sitl+px4)\n", s->w[0].sighups, s->w[1].sighups,
	       s->w[0].statuses, s->w[1].statuses, s->w[0].vanished,
	       s->w[1].vanished, s->w[0].scenarios, s->w[1].scenarios,
	       s->gcs[0].appearances, s->gcs[1].appearances,
	       s->sitl.restarts, s->px4.restarts);
	fflush(stdout);
}

/* What failed, one line each; the count of them. */
static int
verdict(const struct soak *s)
{
	int bad = 0;
#define CHECK(cond, ...)                                                      \
	do {                                                                  \
		if (!(cond)) {                                                \
			printf("FAIL: " __VA_ARGS__);                        \
			printf("\n");                                         \
			bad++;                                                \
		}                                                             \
	} while (0)
	CHECK(s->sitl.extra == 0 && s->sitl.wrong == 0 &&
	      s->sitl.timeouts == 0 && s->w[0].st.lost == 0,
	      "sitl: steps lost, duplicated or out of order");
	CHECK(s->px4.extra == 0 && s->px4.jumps == 0 &&
	      s->w[1].st.stalls == 0 && s->w[1].st.late == 0,
	      "px4: steps lost, duplicated or out of order");
	CHECK(s->sitl.requests == s->sitl.answered + s->sitl.abandoned +
			s->sitl.in_flight,
	      "sitl: %" PRIu64 " frames sent, %" PRIu64 " answered, %" PRIu64
	      " abandoned at restarts", s->sitl.requests, s->sitl.answered,
	      s->sitl.abandoned);
	CHECK(s->px4.steps == s->px4.controls + s->px4.abandoned +
			s->px4.freewheel + s->px4.owed,
	      "px4: %" PRIu64 " steps, %" PRIu64 " replies, %" PRIu64
	      " abandoned at restarts, %" PRIu64 " before the first reply",
	      s->px4.steps, s->px4.controls, s->px4.abandoned,
	      s->px4.freewheel);
	CHECK(s->published_missing == 0,
	      "px4: published samples that never reached PX4");
	for (int k = 0; k < 2; k++) {
		const struct watched *w = &s->w[k];
		const struct gcs *g = &s->gcs[k];
		CHECK(g->gaps == 0 && g->back == 0 && g->bad_crc == 0,
		      "%s: GCS frames missing, repeated or corrupt", w->name);
		CHECK(g->pressure > 0, "%s: the GCS got no SCALED_PRESSURE",
		      w->name);
		CHECK(w->fd_changed == 0, "%s: open fds changed (%d at the "
		      "start, %d at the end)", w->name, w->fd_first,
		      w->fd_last);
		CHECK(w->based, "%s: the run ended before warm-up", w->name);
		CHECK(w->bad_replies == 0, "%s: control commands refused",
		      w->name);
		CHECK(!w->no_heap, "%s: baroctl status has no memory line "
		      "(barod built without mallinfo2)", w->name);
		/* With a leak planted the PX4 side must fail on its heap;
		 * its RSS grows with the leak too, so is not judged. */
		if (k == 1 && s->leak_lib) {
			CHECK(w->heap_out > 0, "%s: the planted leak went "
			      "unnoticed: heap in use %ld kB after warm-up, "
			      "%ld at the end", w->name, w->heap_base,
			      w->heap_last);
			continue;
		}
		CHECK(w->heap_out == 0, "%s: heap in use beyond %d kB of %ld "
		      "kB after warm-up (min %ld, max %ld): a leak",
		      w->name, HEAP_SLACK_KB, w->heap_base, w->heap_min,
		      w->heap_max);
		CHECK(w->rss_out == 0, "%s: rss beyond %d kB more than malloc "
		      "holds over %ld kB after warm-up (min %ld, max %ld): "
		      "memory outside malloc grew", w->name, RSS_SLACK_KB,
		      w->rss_base, w->rss_min, w->rss_max);
	}
	CHECK(s->bad_crc == 0, "GCS frames with a bad CRC");
#undef CHECK
	return bad;
}

/* Replies and steps waiting, answered; a frame in flight too long is
 * sent again (ArduPilot resends after 1.1 s) and counted. */
static void
pump(struct soak *s, int ms)
{
	struct pollfd p[4] = {
		{ s->sitl.fd, POLLIN, 0 },
		{ s->px4.p.fd, POLLIN, 0 },
		{ s->gcs[0].fd, POLLIN, 0 },
		{ s->gcs[1].fd, POLLIN, 0 },
	};
	char buf[8192];

	if (poll(p, 4, ms) < 0 && errno != EINTR)
		fail_msg("poll: %s", strerror(errno));
	if (p[0].revents & POLLIN) {
		if (sitl_peer_receive(s->sitl.fd, buf, sizeof(buf), 0) > 0)
			sitl_reply(&s->sitl, buf);
	}
	if (!s->sitl.in_flight) {
		if (!s->stopping)
			sitl_next(&s->sitl);
	} else if (now_s() - s->sitl.sent_at > REPLY_TIMEOUT_S) {
		s->sitl.timeouts++;
		fprintf(stderr, "barod-soak: sitl: frame %u unanswered for "
			"%.0f s, sent again\n", s->sitl.frame, REPLY_TIMEOUT_S);
		sitl_send(&s->sitl);
	}
	if (p[1].revents & (POLLIN | POLLHUP))
		px4_drain(&s->px4);
	if (!s->stopping)
		px4_answer(&s->px4);
	for (int k = 0; k < 2; k++) {
		if (p[2 + k].revents & POLLIN)
			s->bad_crc += gcs_peer_drain(s->gcs[k].fd, 0,
						     gcs_frame, &s->gcs[k]);
	}
}

static void
alive(struct soak *s)
{
	for (int k = 0; k < 2; k++) {
		int code;
		if (harness_exited(&s->h, s->w[k].pid, &code)) {
			char *log = harness_log(&s->h, s->w[k].pid);
			fail_msg("%s barod exited (%d):\n%s", s->w[k].name,
				 code, log);
		}
	}
}

static void
soak(void **state)
{
	struct soak *s = *state;
	char sitl_conf[256], px4_conf[256];

	s->sitl.port = harness_free_port(&s->h, SOCK_DGRAM, false);
	s->px4.port = harness_free_port(&s->h, SOCK_STREAM, false);
	s->gcs[0].port = harness_free_port(&s->h, SOCK_DGRAM, false);
	s->gcs[1].port = harness_free_port(&s->h, SOCK_DGRAM, false);
	s->gcs[0].fd = s->gcs[1].fd = s->sitl.fd = -1;
	write_configs(s, sitl_conf, px4_conf, sizeof(sitl_conf));
	s->w[0].name = "sitl";
	s->w[1].name = "px4";
	harness_path(&s->h, s->w[0].control, sizeof(s->w[0].control),
		     "sitl.control");
	harness_path(&s->h, s->w[1].control, sizeof(s->w[1].control),
		     "px4.control");
	s->w[0].pid = harness_start(&s->h, "sitl.log", (const char *[]){
		"-c", sitl_conf, "--scenario", s->scenario, NULL });
	/* The leak in the PX4 side only: the child inherits the setting. */
	if (s->leak_lib && setenv("LD_PRELOAD", s->leak_lib, 1) < 0)
		fail_msg("LD_PRELOAD: %s", strerror(errno));
	s->w[1].pid = harness_start(&s->h, "px4.log", (const char *[]){
		"-c", px4_conf, "--scenario", s->scenario, NULL });
	if (s->leak_lib)
		unsetenv("LD_PRELOAD");

	sitl_restart(&s->sitl);
	s->sitl.restarts = 0;
	px4_start(&s->px4);
	s->t0 = now_s();
	for (int k = 0; k < 2; k++)
		read_status(s, k);

	/* Each event on its own period, offset so they do not bunch. */
	double next_status = s->t0 + 1.0, next_hup = s->t0 + 1.5,
	       next_client = s->t0 + 0.35, next_gcs = s->t0 + 0.5,
	       next_scn = s->t0 + 0.8, next_sitl_rs = s->t0 + 7.5,
	       next_px4_rs = s->t0 + 15.0;
	const double print_every = s->seconds > 120 ? 60.0 : 10.0;
	double next_print = s->t0 + print_every;
	unsigned hups = 0, clients = 0, scns = 0;
	char reply[512], cmd[320];

	for (;;) {
		const double now = now_s();
		if (now - s->t0 >= s->seconds)
			break;
		if (interrupted) {
			report(s, true);
			fail_msg("stopped by signal %d after %.0f s",
				 (int)interrupted, now - s->t0);
		}
		pump(s, 50);
		if (now >= next_status) {
			alive(s);
			for (int k = 0; k < 2; k++)
				read_status(s, k);
			next_status += 1.0;
		}
		if (now >= next_hup) {
			struct watched *w = &s->w[hups++ % 2];
			kill(w->pid, SIGHUP);
			w->sighups++;
			next_hup += 1.5;
		}
		if (now >= next_client) {
			vanish(&s->w[clients % 2], clients / 2, s->scenario);
			clients++;
			next_client += 0.35;
		}
		if (now >= next_gcs) {
			for (int k = 0; k < 2; k++)
				gcs_toggle(&s->gcs[k]);
			next_gcs += 3.5;
		}
		if (now >= next_scn) {
			struct watched *w = &s->w[scns++ % 2];
			snprintf(cmd, sizeof(cmd), "scenario load %s\n",
				 s->scenario);
			if (command(w, cmd, reply, sizeof(reply)))
				w->scenarios++;
			next_scn += 1.0;
		}
		if (now >= next_sitl_rs) {
			sitl_restart(&s->sitl);
			next_sitl_rs += 15.0;
		}
		if (now >= next_px4_rs) {
			/* The counters up to the last step of this run. */
			read_status(s, 1);
			px4_peer_close(&s->px4.p);
			s->px4.abandoned += s->px4.owed;
			s->px4.restarts++;
			px4_start(&s->px4);
			next_px4_rs += 15.0;
		}
		if (now >= next_print) {
			report(s, false);
			next_print += print_every;
		}
	}
	/* The last steps answered and counted, then the final figures. */
	s->stopping = true;
	while (s->sitl.in_flight && now_s() - s->sitl.sent_at < REPLY_TIMEOUT_S)
		pump(s, 50);
	alive(s);
	for (int k = 0; k < 2; k++)
		read_status(s, k);
	for (int k = 0; k < 2; k++) {
		if (s->gcs[k].fd >= 0)
			gcs_toggle(&s->gcs[k]);
	}
	report(s, true);
	for (int k = 0; k < 2; k++) {
		const int code = harness_stop(&s->h, s->w[k].pid, NULL);
		if (code != 0) {
			char *log = harness_log(&s->h, s->w[k].pid);
			printf("FAIL: %s barod exited %d:\n%s", s->w[k].name,
			       code, log);
			free(log);
			fail();
		}
	}
	px4_peer_close(&s->px4.p);
	close(s->sitl.fd);
	if (verdict(s) > 0)
		fail_msg("the soak failed");
	if (s->leak_lib)
		printf("PASS: the planted leak failed the heap check, and "
		       "nothing else failed\n");
	else
		printf("PASS: nothing lost, duplicated or leaked\n");
}

static struct soak the_soak;

static int
setup(void **state)
{
	*state = &the_soak;
	return harness_init(&the_soak.h, "barod-soak", NULL, test_fail);
}

static int
teardown(void **state)
{
	struct soak *s = *state;

	harness_kill_all(&s->h);
	return harness_fini(&s->h);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(soak, setup, teardown),
	};
	char *end = NULL;

	if (argc > 2 && strcmp(argv[1], "--planted-leak") == 0) {
		the_soak.leak_lib = argv[2];
		argv += 2;
		argc -= 2;
	}
	double secs = argc > 1 ? strtod(argv[1], &end) : 60.0;

	if (argc > 2 || (end && *end) || !(secs >= 25.0 && secs <= 86400.0)) {
		fprintf(stderr, "usage: barod-soak [--planted-leak LIB] "
			"[SECONDS] (25 to 86400; default 60; BAROD names the "
			"binary)\n");
		return 2;
	}
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* For the barods this program starts (glibc read this program's
	 * own tunables at its start); any given to it are kept. */
	const char *tunables = getenv("GLIBC_TUNABLES");
	char both[512];
	snprintf(both, sizeof(both), "%s%s" NO_TCACHE, tunables ? tunables : "",
		 tunables ? ":" : "");
	setenv("GLIBC_TUNABLES", both, 1);
	the_soak.seconds = secs;
	the_soak.warmup = fmax(WARMUP_MIN_S, secs / 10.0);
	return cmocka_run_group_tests_name("barod-soak", tests, NULL, NULL);
}
