/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * barod --px4-sim-proxy throughput and cost.  This program is both PX4
 * (a TCP client of barod answering each HIL_SENSOR with
 * HIL_ACTUATOR_CONTROLS, PX4's lockstep) and the simulator (HIL_SENSOR
 * with the baro in every frame, HIL_GPS every 50th), one frame in flight,
 * as fast as the proxy passes them.  Runs: straight through (no barod,
 * the floor), barod with a clean emulator (frames pass untouched), barod
 * with noise and a glitch (every frame rewritten), and a paced run at
 * PX4's 250 Hz in real time for barod's CPU per simulated second with its
 * own 100 Hz timer included.  With BUSY, the clean run again with
 * busy_poll_us = BUSY.  Ends with barod's rate as a share of the
 * straight-through one and its CPU per step (goals: 40 k frames/s and
 * 10 us per step at most on the project's 2-core machine).
 *
 * ROUNDS (3) rounds alternate the lockstep runs; the medians and
 * ranges close.
 *
 *   bench-px4 BAROD [FRAMES [BUSY_POLL_US [ROUNDS]]]
 */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "atmosphere.h"
#include "barod-harness.h"
#include "bench-util.h"
#include "mavlink.h"
#include "mavlink-raw.h"

static int
listener(unsigned *port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);

	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(fd, 4) < 0)
		return -1;
	getsockname(fd, (struct sockaddr *)&sa, &len);
	*port = ntohs(sa.sin_port);
	return fd;
}

static int
dial(unsigned port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int one = 1;

	for (int i = 0; i < 500; i++) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			return fd;
		close(fd);
		usleep(10000);
	}
	return -1;
}

static int
take(int lfd)
{
	struct pollfd p = { lfd, POLLIN, 0 };
	int one = 1;

	if (poll(&p, 1, 5000) <= 0)
		return -1;
	int fd = accept(lfd, NULL, NULL);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static bool
recv_exact(int fd, uint8_t *b, size_t n)
{
	while (n) {
		ssize_t k = recv(fd, b, n, 0);
		if (k <= 0)
			return false;
		b += k;
		n -= (size_t)k;
	}
	return true;
}

enum mode { DIRECT, CLEAN, FAULTED, BUSY, PACED, PACED_BUSY, N_MODES };

struct result {
	double fps, cpu_us;	/* barod's CPU per step */
};

static int
run(struct harness *h, enum mode mode, unsigned frames, unsigned busy,
    struct result *res)
{
	static const char *const names[] = {
		"straight through (no barod)", "barod, clean emulator",
		"barod, noise + glitch (every baro frame rewritten)",
		"barod, clean emulator, busy-poll",
		"barod, paced at 250 Hz real time, noise + glitch",
		"barod, paced at 250 Hz real time, noise + glitch, busy-poll" };
	const bool polls = mode == BUSY || mode == PACED_BUSY;
	unsigned sim_port, px4_port = 0;
	int lsim = listener(&sim_port);
	pid_t pid = -1;
	char conf[512];

	if (lsim < 0)
		return 1;
	if (mode != DIRECT) {
		px4_port = harness_free_port(h, SOCK_STREAM, false);
		harness_write(h, conf, sizeof(conf), "barod.conf",
			"[barod]\nsource = px4-sim-proxy\ncontrol = none\n"
			"%s%.0u%s"
			"[sim]\natmosphere = 1976\n%s"
			"[px4]\nbind = 127.0.0.1\nport = %u\n"
			"upstream = 127.0.0.1:%u\n"
			"[output gcs]\ntype = udp-client\n"
			"address = 127.0.0.1:9\n",
			/* Only when asked: an older barod runs the rest. */
			polls ? "busy_poll_us = " : "", polls ? busy : 0u,
			polls ? "\n" : "",
			mode == CLEAN || mode == BUSY ? "SIM_BARO_RND = 0\nSIM_BAR2_RND = 0\n"
				      : "SIM_BARO_RND = 0.5\n"
					"SIM_BARO_GLITCH = 3\n",
			px4_port, sim_port);
		/* Its log in the harness's directory; back once it runs. */
		pid = harness_start(h, "barod.log", (const char *[]){
			"-c", conf, NULL });
	}
	int px4 = dial(mode == DIRECT ? sim_port : px4_port);
	int sim = take(lsim);
	if (px4 < 0 || sim < 0) {
		fprintf(stderr, "bench-px4: no connection\n");
		return 1;
	}

	double *lat = malloc(sizeof(double) * frames);
	uint8_t tx[512], rx[512], pl[MAVLINK_MAX_PAYLOAD];
	uint8_t seq = 0, aseq = 0;
	unsigned done = 0;
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	double t0 = now_s();
	for (unsigned k = 0; k < frames; k++) {
		if (mode == PACED || mode == PACED_BUSY) {
			next.tv_nsec += 4000000;
			if (next.tv_nsec >= 1000000000) {
				next.tv_nsec -= 1000000000;
				next.tv_sec++;
			}
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
					NULL);
		}
		float p, t;
		atmos_1976_pressure_temperature(488.0f + 0.004f * (float)k, &p,
						&t);
		struct mavlink_hil_sensor m = {
			.time_usec = 1000000 + (uint64_t)k * 4000u,
			.zacc = -9.80665f, .xmag = 0.21f, .zmag = 0.42f,
			.abs_pressure = p * 0.01f, .pressure_alt = 488.0f,
			.temperature = t - 273.15f, .fields_updated = 0x1BFF,
		};
		memset(pl, 0, sizeof(pl));
		mavlink_pack_hil_sensor(&m, pl);
		size_t n = (size_t)mavlink_frame_encode(tx, 2, seq++, 1, 200,
							MAVLINK_MSG_HIL_SENSOR,
							pl);
		if (k % 50 == 0) {
			memset(pl, 0, 36);
			pl[34] = 3;
			pl[35] = 10;
			n += mavlink_raw_frame(tx + n, seq++, 1, 200, 113, 124,
					       pl, 36);
		}
		double a = now_s();
		send(sim, tx, n, 0);
		if (!recv_exact(px4, rx, n))
			break;
		lat[done] = now_s() - a;
		memset(pl, 0, 81);
		pl[8] = 1;
		pl[80] = 1;
		size_t an = mavlink_raw_frame(tx, aseq++, 1, 1, 93, 47, pl,
					      81);
		send(px4, tx, an, 0);
		if (!recv_exact(sim, rx, an))
			break;
		done++;
	}
	double dt = now_s() - t0;
	double cpu = 0.0;
	if (pid > 0) {
		struct rusage ru;
		harness_stop(h, pid, &ru);
		cpu = rusage_cpu_s(&ru);
	}
	close(px4);
	close(sim);
	close(lsim);

	qsort(lat, done, sizeof(double), cmp_double);
	*res = (struct result){ done / dt, done ? 1e6 * cpu / done : 0.0 };
	printf("%s, %u HIL_SENSOR frames in lockstep:\n", names[mode], done);
	if (polls)
		printf("  busy_poll_us = %u\n", busy);
	printf("  %.0f frames/s; sensor leg median %.1f us, p99 %.1f us\n",
	       done / dt, done ? lat[done / 2] * 1e6 : 0.0,
	       done ? lat[done * 99 / 100] * 1e6 : 0.0);
	if (pid > 0)
		printf("  barod cpu %.1f us per lockstep step (a HIL_SENSOR "
		       "in, HIL_ACTUATOR_CONTROLS out), %.2f ms per 250 Hz "
		       "simulated second (%.2f%% of a core)%s\n",
		       1e6 * cpu / done, 1e3 * cpu / (done / 250.0),
		       100.0 * cpu / (done / 250.0),
		       mode >= PACED ? ", its 100 Hz timer included"
				     : ", start-up included");
	free(lat);
	return done == frames ? 0 : 1;
}

/* Median, min and max of field f over n results. */
static void
spread(const struct result *r, unsigned n, size_t f, double out[3])
{
	double v[16];

	for (unsigned i = 0; i < n; i++)
		v[i] = *(const double *)((const char *)&r[i] + f);
	qsort(v, n, sizeof(double), cmp_double);
	out[0] = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
	out[1] = v[0];
	out[2] = v[n - 1];
}

int
main(int argc, char **argv)
{
	static const char *const short_names[N_MODES] = {
		"straight", "clean", "faulted", "busy-poll", "paced",
		"paced, busy-poll" };

	if (argc < 2) {
		fprintf(stderr, "usage: bench-px4 BAROD [FRAMES [BUSY_POLL_US "
				"[ROUNDS]]]\n");
		return 2;
	}
	unsigned frames = argc > 2 ? (unsigned)atoi(argv[2]) : 50000;
	unsigned busy = argc > 3 ? (unsigned)atoi(argv[3]) : 0;
	unsigned rounds = argc > 4 ? (unsigned)atoi(argv[4]) : 3;
	if (rounds < 1 || rounds > 16) {
		fprintf(stderr, "bench-px4: 1 to 16 rounds\n");
		return 2;
	}
	struct result r[N_MODES][16] = { { { 0 } } };
	int rc = 0;
	struct harness h;
	if (harness_init(&h, "bench-px4", argv[1], NULL) < 0)
		return 1;
	/* Rounds alternate the modes, so load from elsewhere on the
	 * machine hits all alike. */
	for (unsigned k = 0; k < rounds; k++) {
		printf("round %u of %u\n", k + 1, rounds);
		for (int m = DIRECT; m <= BUSY; m++) {
			if (m == BUSY && !busy)
				continue;
			rc |= run(&h, (enum mode)m, frames, busy, &r[m][k]);
			printf("\n");
		}
	}
	/* Ten simulated seconds at the speed PX4 really runs. */
	rc |= run(&h, PACED, 2500, 0, &r[PACED][0]);
	/* ... where PX4 answers after milliseconds, so every poll is
	 * spent in full: busy_poll_us's cost at its worst. */
	if (busy) {
		printf("\n");
		rc |= run(&h, PACED_BUSY, 2500, busy, &r[PACED_BUSY][0]);
	}
	harness_fini(&h);
	printf("\nmedians (min-max) over %u rounds, lockstep:\n", rounds);
	double st[3], fps[3], cpu[3];
	spread(r[DIRECT], rounds, offsetof(struct result, fps), st);
	printf("  %-9s %6.0f frames/s (%.0f-%.0f)\n", short_names[DIRECT],
	       st[0], st[1], st[2]);
	for (int m = CLEAN; m <= BUSY; m++) {
		if (m == BUSY && !busy)
			continue;
		spread(r[m], rounds, offsetof(struct result, fps), fps);
		spread(r[m], rounds, offsetof(struct result, cpu_us), cpu);
		printf("  %-9s %6.0f frames/s (%.0f-%.0f; %.2f of straight "
		       "through; goal >= 40000), barod cpu %.1f us per step "
		       "(%.1f-%.1f; goal <= 10)\n", short_names[m], fps[0],
		       fps[1], fps[2], fps[0] / st[0], cpu[0], cpu[1], cpu[2]);
	}
	return rc;
}
