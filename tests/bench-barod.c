/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Daemon cost: barod runs the 100 Hz simulation of three baros publishing
 * every sample to a local UDP sink for a while; from the outside we take
 * its CPU time (wait4 rusage), its resident memory in steady state
 * (/proc/PID/status VmRSS) and its epoll wake-ups (its own report).
 * With "msp" the sink is an MSP output (msp-udp) instead of MAVLink.
 *
 *   bench-barod BAROD [SECONDS [msp]]
 */
#include <netinet/in.h>
#include <signal.h>
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

static double
cpu_s(const struct rusage *ru)
{
	return (double)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) +
	       (double)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) * 1e-6;
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
	return cpu_s(&ru) / secs;
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench-barod BAROD [SECONDS [msp]]\n");
		return 2;
	}
	const double secs = argc > 2 ? atof(argv[2]) : 20.0;
	const int msp = argc > 3 && strcmp(argv[3], "msp") == 0;

	/* A sink that never reads: the kernel drops once its buffer fills,
	 * as a GCS that went away would. */
	int sink = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	bind(sink, (struct sockaddr *)&sa, sizeof(sa));
	getsockname(sink, (struct sockaddr *)&sa, &len);

	char out[64], dur[32], log[] = "/tmp/bench-barod-XXXXXX";
	snprintf(out, sizeof(out), "%s:127.0.0.1:%u", msp ? "msp-udp" : "udp",
		 ntohs(sa.sin_port));
	snprintf(dur, sizeof(dur), "%g", secs);
	int logfd = mkstemp(log);

	pid_t pid = fork();
	if (pid == 0) {
		dup2(logfd, 2);
		execl(argv[1], "barod", "--sim", "-p", "SIM_BARO_COUNT=3",
		      "--control", "none", "-o", out, "--duration", dur, "-v",
		      (char *)NULL);
		_exit(127);
	}
	usleep((useconds_t)(secs * 0.5e6));
	struct memory mem = memory_of(pid);

	int status;
	struct rusage ru;
	wait4(pid, &status, 0, &ru);
	double cpu = cpu_s(&ru);

	unsigned long long wakeups = 0;
	char line[512];
	FILE *f = fdopen(logfd, "r");
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		char *w = strstr(line, "wake-ups ");
		if (w)
			wakeups = strtoull(w + 9, NULL, 10);
	}
	fclose(f);
	unlink(log);

	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "bench-barod: barod failed\n");
		return 1;
	}
	printf("barod, 3 simulated baros at 100 Hz, every sample to UDP as %s, "
	       "%g s:\n", msp ? "MSP" : "MAVLink", secs);
	printf("  cpu %.4f s per simulated second = %.3f %% of one core "
	       "(target <= 0.1 %%)\n", cpu / secs, 100.0 * cpu / secs);
	printf("  of which user %.4f s, system %.4f s per simulated second\n",
	       ((double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6) /
		       secs,
	       ((double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6) /
		       secs);
	printf("  wake-ups %.1f per second (timer 100 Hz)\n",
	       (double)wakeups / secs);
	printf("  memory: RSS %ld KiB (peak %ld), PSS %ld KiB, private %ld KiB "
	       "(target <= 2048 KiB)\n", mem.rss, ru.ru_maxrss, mem.pss,
	       mem.private_kib);
	/* The floors run after barod, each as long (at most 10 s), so
	 * that the figures share the machine's state as far as they can. */
	const double fsecs = secs < 10 ? secs : 10;
	double floor = bare_timer_cpu_per_s(fsecs, NULL, 0);
	/* SCALED_PRESSURE of three baros: 3 x 26 bytes a tick (MSP: 3 x 20
	 * bytes), as barod sends them. */
	const size_t dgram = msp ? 60 : 78;
	double floor_send = bare_timer_cpu_per_s(fsecs, &sa, dgram);
	printf("  floor: a bare 100 Hz timerfd+epoll loop costs %.3f %% of one "
	       "core here\n", 100.0 * floor);
	printf("  floor sending one %zu-byte datagram a tick to the same sink: "
	       "%.3f %%\n", dgram, 100.0 * floor_send);
	printf("  ratio: barod / bare loop %.2fx (target <= 1.5x); barod / "
	       "loop sending a datagram a tick %.2fx\n", cpu / secs / floor,
	       cpu / secs / floor_send);
	return 0;
}
