/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Daemon cost: barod runs the 100 Hz simulation of three baros publishing
 * every sample to a local UDP sink; from the outside we take its CPU time
 * over a steady window (clock_getcpuclockid: ns, not clock ticks), and
 * over its whole run (wait4 rusage), its memory in steady state
 * (/proc/PID/smaps_rollup) and its epoll wake-ups (its own report).
 * With "msp" the sink is an MSP output (msp-udp) instead of MAVLink.
 * barod runs through the barod harness, which waits for its "running:"
 * line.  Each round runs barod and the two floors back to back for the
 * same time; the figures are the rounds' medians, since a VM's cost of a
 * wake-up drifts by 20 % from one minute to the next.
 *
 *   bench-barod BAROD [SECONDS [msp]]     (rounds: $BAROD_BENCH_ROUNDS)
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "barod-harness.h"
#include "bench-util.h"

struct memory {
	long rss, pss, private_kib;
};

/* RSS counts the shared C library pages in full; PSS shares them out;
 * private is barod's own. */
static struct memory
memory_of(pid_t pid)
{
	char path[64], line[256];
	struct memory m = { -1, -1, 0 };
	long v;

	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return m;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Rss: %ld kB", &v) == 1)
			m.rss = v;
		else if (sscanf(line, "Pss: %ld kB", &v) == 1)
			m.pss = v;
		else if (sscanf(line, "Private_Clean: %ld kB", &v) == 1 ||
			 sscanf(line, "Private_Dirty: %ld kB", &v) == 1)
			m.private_kib += v;
	}
	fclose(f);
	return m;
}

/* The floor on this machine: a child doing nothing but waking on a
 * 100 Hz timerfd through epoll, as barod's loop does; with a sink, it
 * also sends one datagram of len bytes there per wake-up, as barod sends
 * one per tick (the kernel's share of publishing, which no daemon can
 * save). */
static double
bare_timer_cpu_per_s(double secs, const struct sockaddr_in *sink, size_t len)
{
	pid_t pid = fork();

	if (pid == 0) {
		uint8_t frame[1472] = { 0 };
		int s = socket(AF_INET, SOCK_DGRAM, 0);
		int ep = epoll_create1(0);
		int t = timerfd_create(CLOCK_MONOTONIC, 0);
		struct itimerspec its = { { 0, 10000000 }, { 0, 10000000 } };
		struct epoll_event ev = { .events = EPOLLIN };
		uint64_t x;
		timerfd_settime(t, 0, &its, NULL);
		epoll_ctl(ep, EPOLL_CTL_ADD, t, &ev);
		for (long i = 0; i < (long)(secs * 100); i++) {
			epoll_wait(ep, &ev, 1, -1);
			if (read(t, &x, sizeof(x)) != sizeof(x))
				_exit(1);
			if (sink && sendto(s, frame, len, MSG_DONTWAIT,
					   (const struct sockaddr *)sink,
					   sizeof(*sink)) < 0)
				_exit(1);
		}
		_exit(0);
	}
	int status;
	struct rusage ru;
	wait4(pid, &status, 0, &ru);
	return rusage_cpu_s(&ru) / secs;
}

/* A child's CPU time so far, read from outside (ns resolution, unlike
 * /proc/PID/stat's clock ticks): -1 when it cannot be read. */
static double
cpu_of(pid_t pid)
{
	clockid_t clk;
	struct timespec ts;

	if (clock_getcpuclockid(pid, &clk) != 0 ||
	    clock_gettime(clk, &ts) != 0)
		return -1.0;
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void
sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

struct barod_run {
	double steady;		/* CPU s per s over the steady window */
	double whole;		/* CPU s per s from exec to exit */
	double user, sys;	/* of the whole run, per s */
	double wakeups;		/* per s, from its own report */
	struct memory mem;
};

/* One barod run: started, given a second to settle, then its CPU time
 * over secs of steady state read from outside, its memory in the middle;
 * stopped with SIGTERM (its report holds the wake-ups). */
static int
run_barod(struct harness *h, const char *out, double secs,
	  struct barod_run *r)
{
	const double t_start = now_s();
	pid_t pid = harness_start(h, "barod.log", (const char *[]){
		"--sim", "-p", "SIM_BARO_COUNT=3", "--control", "none", "-o",
		out, "-v", NULL });

	sleep_s(1.0);
	const double c0 = cpu_of(pid), t0 = now_s();
	sleep_s(secs / 2);
	r->mem = memory_of(pid);
	sleep_s(secs / 2);
	const double c1 = cpu_of(pid), t1 = now_s();

	struct rusage ru;
	int status = harness_stop(h, pid, &ru);
	const double t_end = now_s();
	if (status != 0 || c0 < 0 || c1 < 0) {
		fprintf(stderr, "bench-barod: barod failed (status %d)\n",
			status);
		return -1;
	}
	r->steady = (c1 - c0) / (t1 - t0);
	r->whole = rusage_cpu_s(&ru) / (t_end - t_start);
	r->user = timeval_s(ru.ru_utime) / (t_end - t_start);
	r->sys = timeval_s(ru.ru_stime) / (t_end - t_start);

	unsigned long long wakeups = 0;
	char *log = harness_log(h, pid);
	for (char *w = strstr(log, "wake-ups "); w;
	     w = strstr(w + 1, "wake-ups "))
		wakeups = strtoull(w + 9, NULL, 10);
	free(log);
	r->wakeups = (double)wakeups / (t_end - t_start);
	return 0;
}

static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define MAX_ROUNDS 15

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench-barod BAROD [SECONDS [msp]]\n"
			"  (rounds: $BAROD_BENCH_ROUNDS, default 3)\n");
		return 2;
	}
	const double secs = argc > 2 ? atof(argv[2]) : 10.0;
	const int msp = argc > 3 && strcmp(argv[3], "msp") == 0;
	const char *r_env = getenv("BAROD_BENCH_ROUNDS");
	const int rounds = r_env ? atoi(r_env) : 3;
	if (!(secs >= 1.0 && secs <= 3600.0) || rounds < 1 ||
	    rounds > MAX_ROUNDS) {
		fprintf(stderr, "bench-barod: SECONDS 1..3600 and "
			"BAROD_BENCH_ROUNDS 1..%d\n", MAX_ROUNDS);
		return 2;
	}

	/* A sink that never reads: the kernel drops once its buffer fills,
	 * as a GCS that went away would. */
	int sink = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	bind(sink, (struct sockaddr *)&sa, sizeof(sa));
	getsockname(sink, (struct sockaddr *)&sa, &len);

	char out[64];
	snprintf(out, sizeof(out), "%s:127.0.0.1:%u", msp ? "msp-udp" : "udp",
		 ntohs(sa.sin_port));
	/* SCALED_PRESSURE of three baros: 3 x 26 bytes a tick (MSP: 3 x 20
	 * bytes), in the one datagram barod sends per tick. */
	const size_t dgram = msp ? 60 : 78;

	struct harness h;
	if (harness_init(&h, "bench-barod", argv[1], NULL) < 0)
		return 1;
	/* The machine's state drifts (a VM's neighbours, frequency): each
	 * round measures barod and both floors back to back, and the
	 * figures are the medians of the rounds. */
	printf("barod, 3 simulated baros at 100 Hz, every sample to UDP as %s; "
	       "%d rounds of %g s:\n", msp ? "MSP" : "MAVLink", rounds, secs);
	fflush(stdout);
	struct barod_run runs[MAX_ROUNDS];
	double steady[MAX_ROUNDS], whole[MAX_ROUNDS], bare[MAX_ROUNDS],
		bare_send[MAX_ROUNDS], ratio[MAX_ROUNDS],
		ratio_send[MAX_ROUNDS];
	for (int i = 0; i < rounds; i++) {
		if (run_barod(&h, out, secs, &runs[i]) < 0) {
			harness_fini(&h);
			return 1;
		}
		steady[i] = runs[i].steady;
		whole[i] = runs[i].whole;
		bare[i] = bare_timer_cpu_per_s(secs, NULL, 0);
		bare_send[i] = bare_timer_cpu_per_s(secs, &sa, dgram);
		ratio[i] = steady[i] / bare[i];
		ratio_send[i] = steady[i] / bare_send[i];
		printf("  round %d: barod %.3f %%, bare loop %.3f %%, "
			"bare loop + datagram %.3f %%\n", i + 1,
			100.0 * steady[i], 100.0 * bare[i],
			100.0 * bare_send[i]);
		fflush(stdout);
	}
	harness_fini(&h);

	const struct barod_run *last = &runs[rounds - 1];
	printf("  medians:\n");
	printf("  cpu %.3f %% of one core in steady state, %.3f %% counting "
	       "start-up and exit (target <= 0.1 %%)\n",
	       100.0 * median(steady, rounds), 100.0 * median(whole, rounds));
	printf("  last run: user %.4f s, system %.4f s per second\n",
	       last->user, last->sys);
	printf("  wake-ups %.1f per second (timer 100 Hz)\n", last->wakeups);
	printf("  memory: RSS %ld KiB, PSS %ld KiB, private %ld KiB "
	       "(target <= 2048 KiB)\n", last->mem.rss, last->mem.pss,
	       last->mem.private_kib);
	printf("  floor: a bare 100 Hz timerfd+epoll loop costs %.3f %% of one "
	       "core here\n", 100.0 * median(bare, rounds));
	printf("  floor sending one %zu-byte datagram a tick to the same sink: "
	       "%.3f %% (%.2fx the bare loop: the kernel's share of "
	       "publishing)\n", dgram, 100.0 * median(bare_send, rounds),
	       median(bare_send, rounds) / median(bare, rounds));
	/* The bare loop alone cannot publish: the loop that sends what
	 * barod sends is the floor for barod's own work. */
	printf("  ratio: barod / loop sending the same datagram %.2fx; "
	       "barod / bare loop %.2fx (the target <= 1.5x is below the "
	       "sending loop's own %.2fx)\n", median(ratio_send, rounds),
	       median(ratio, rounds),
	       median(bare_send, rounds) / median(bare, rounds));
	return 0;
}
