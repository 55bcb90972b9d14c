/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * SITL JSON throughput and latency, direct and through barod.  This
 * program plays ArduPilot for INSTANCES (8) SITL instances, keeping one frame
 * in flight per instance (lockstep, as ArduPilot's SIM_JSON does) as fast
 * as replies come; a child process is the minimal physics backend (one
 * JSON line per servo packet, at once).  Modes, alternating in each round
 * so load from elsewhere on the machine hits all alike:
 *
 *  - direct: ArduPilot and the backend, no barod (the floor);
 *  - peer: barod is the backend (--sitl-json);
 *  - proxy: barod between ArduPilot and the backend (--sitl-json-proxy);
 *  - proxy + busy-poll: the same with busy_poll_us = BUSY (when given).
 *
 *   bench-sitl BAROD [FRAMES_PER_INSTANCE [ROUNDS [BUSY [WORK_US
 *              [INSTANCES]]]]]
 *
 * WORK_US (0) is the autopilot's own time per frame: before each servo
 * packet the scripted ArduPilot spins that long, as a real one runs its
 * whole loop between two physics frames.  0 is the worst case for a
 * proxy (everything it adds is most of a frame); a real ArduPilot's loop
 * at --speedup is what decides how much of it an autopilot feels.
 *
 * Prints, per round and mode, frames per second, the round trip per frame
 * (median and p99) and barod's CPU time (user and system) per frame; then
 * the medians over the rounds, the proxy's rate as a share of the direct
 * one (goal 0.9 at least) and its CPU per frame as a multiple of the
 * peer's (goal 1.3 at most: a proxied frame costs two more datagrams and
 * one more wake-up than a peer frame, so the ratio is mostly the
 * kernel's).
 */
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <errno.h>
#include <time.h>
#include <unistd.h>

#include "barod-harness.h"
#include "bench-util.h"
#include "sitl-json.h"

#define INSTANCES 8	/* at most; 8 unless told */

/* Bound to *port, or to any port when *port is 0 (then set). */
static int
udp_socket(unsigned *port)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)*port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int big = 1 << 20;

	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	getsockname(fd, (struct sockaddr *)&sa, &len);
	*port = ntohs(sa.sin_port);
	return fd;
}

static void
to(int fd, unsigned port, const void *buf, size_t len)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };

	sendto(fd, buf, len, 0, (struct sockaddr *)&sa, sizeof(sa));
}

enum mode { DIRECT, PEER, PROXY, PROXY_BUSY, N_MODES };

static const char *const mode_names[N_MODES] = {
	"direct", "peer", "proxy", "proxy + busy-poll",
};

/* The backend, in its own process as a real one is: each servo packet
 * answered at once with one JSON line whose timestamp follows its
 * frame_count, until SIGTERM. */
static void
backend(const int *up, int n_inst)
{
	char buf[2048];

	for (;;) {
		struct pollfd p[INSTANCES];
		for (int i = 0; i < n_inst; i++)
			p[i] = (struct pollfd){ up[i], POLLIN, 0 };
		if (poll(p, (nfds_t)n_inst, -1) < 0 && errno != EINTR)
			_exit(1);
		for (int k = 0; k < n_inst; k++) {
			if (!(p[k].revents & POLLIN))
				continue;
			struct sockaddr_in from;
			socklen_t flen = sizeof(from);
			ssize_t n;
			while ((n = recvfrom(up[k], buf, sizeof(buf),
					     MSG_DONTWAIT,
					     (struct sockaddr *)&from,
					     &flen)) > 0) {
				struct sitl_servo got;
				sitl_servo_decode((uint8_t *)buf, (size_t)n,
						  &got);
				int len = snprintf(
					buf, sizeof(buf),
					"\n{\"timestamp\":%.6f,\"imu\":{\"gyro\":"
					"[0,0,0],\"accel_body\":[0,0,-9.8]},"
					"\"position\":[0,0,-5],\"attitude\":"
					"[0,0,0],\"velocity\":[0,0,0]}\n",
					got.frame_count / 1200.0);
				sendto(up[k], buf, (size_t)len, 0,
				       (struct sockaddr *)&from, flen);
				flen = sizeof(from);
			}
		}
	}
}

/* The autopilot's loop: on the CPU for us microseconds. */
static void
autopilot_work(unsigned us)
{
	const double until = now_s() + us * 1e-6;

	while (us && now_s() < until)
		;
}

struct result {
	double fps;
	double cpu_us, user_us, sys_us;	/* barod's, per frame */
};

static int
run(struct harness *h, enum mode mode, unsigned frames, unsigned busy,
    unsigned work_us, int n_inst, struct result *res)
{
	const bool proxy = mode == PROXY || mode == PROXY_BUSY;
	unsigned base = 0;
	int probe = udp_socket(&base);
	close(probe);
	base = 20000 + (base % 20000);	/* room for 10 ports per instance */

	/* The backend of instance I listens on base + 5 + 10 I. */
	const unsigned up_port = base + 5;
	int up[INSTANCES];
	for (int i = 0; i < n_inst; i++) {
		unsigned p = up_port + 10u * (unsigned)i;
		up[i] = mode != PEER ? udp_socket(&p) : -1;
	}
	pid_t child = -1;
	if (mode != PEER) {
		fflush(stdout);
		child = fork();
		if (child == 0)
			backend(up, n_inst);
	}
	pid_t pid = -1;
	if (mode != DIRECT) {
		char conf[512];
		harness_write(h, conf, sizeof(conf), "barod.conf",
			"[barod]\nsource = %s\ncontrol = none\n%s%.0u%s"
			"[sim]\nSIM_BARO_COUNT = 3\nprofile = climb:1\n"
			"[sitl]\ninstances = %d\nbind = 127.0.0.1\n"
			"port = %u\nupstream = 127.0.0.1:%u\n"
			"[output gcs]\ntype = udp-client\n"
			"address = 127.0.0.1:9\n",
			proxy ? "sitl-json-proxy" : "sitl-json",
			mode == PROXY_BUSY ? "busy_poll_us = " : "",
			mode == PROXY_BUSY ? busy : 0u,
			mode == PROXY_BUSY ? "\n" : "", n_inst, base,
			up_port);
		/* Its log in the harness's directory; back once it runs. */
		pid = harness_start(h, "barod.log", (const char *[]){
			"-c", conf, NULL });
	}
	/* Where ArduPilot sends: barod, or the backend itself. */
	const unsigned to_port = mode == DIRECT ? up_port : base;

	unsigned ap_port[INSTANCES];
	int ap[INSTANCES];
	for (int i = 0; i < n_inst; i++) {
		ap_port[i] = 0;
		ap[i] = udp_socket(&ap_port[i]);
	}

	const unsigned total = frames * (unsigned)n_inst;
	double *lat = malloc(sizeof(double) * total);
	unsigned nlat = 0;
	uint32_t next[INSTANCES];
	double sent_at[INSTANCES];
	struct sitl_servo s = { .magic = SITL_SERVO_MAGIC_16,
				.frame_rate = 1200, .channels = 16 };
	uint8_t pkt[SITL_SERVO_LEN_32];
	char buf[70000];

	double t0 = now_s();
	for (int i = 0; i < n_inst; i++) {
		next[i] = 1;
		s.frame_count = 1;
		size_t n = sitl_servo_encode(&s, pkt);
		sent_at[i] = now_s();
		to(ap[i], to_port + 10u * (unsigned)i, pkt, n);
	}
	unsigned done = 0;
	while (done < total) {
		struct pollfd p[INSTANCES];
		for (int i = 0; i < n_inst; i++)
			p[i] = (struct pollfd){ ap[i], POLLIN, 0 };
		if (poll(p, (nfds_t)n_inst, 2000) <= 0) {
			fprintf(stderr, "bench-sitl: no reply\n");
			break;
		}
		for (int i = 0; i < n_inst; i++) {
			if (!(p[i].revents & POLLIN))
				continue;
			if (recv(ap[i], buf, sizeof(buf), 0) <= 0)
				continue;
			lat[nlat++] = now_s() - sent_at[i];
			done++;
			if (next[i] >= frames)
				continue;
			autopilot_work(work_us);
			s.frame_count = ++next[i];
			size_t n = sitl_servo_encode(&s, pkt);
			sent_at[i] = now_s();
			to(ap[i], to_port + 10u * (unsigned)i, pkt, n);
		}
	}
	double dt = now_s() - t0;

	struct rusage ru = { 0 };
	if (pid > 0)
		harness_stop(h, pid, &ru);
	if (child > 0) {
		kill(child, SIGTERM);
		waitpid(child, NULL, 0);
	}
	double cpu = rusage_cpu_s(&ru);

	qsort(lat, nlat, sizeof(double), cmp_double);
	const double user = timeval_s(ru.ru_utime);
	const double sys = timeval_s(ru.ru_stime);
	*res = (struct result){ done / dt, 1e6 * cpu / done, 1e6 * user / done,
				1e6 * sys / done };
	printf("%s, %d instances in lockstep, %u frames:\n",
	       mode_names[mode], n_inst, done);
	if (mode == PROXY_BUSY)
		printf("  busy_poll_us = %u\n", busy);
	if (work_us)
		printf("  the autopilot's own work: %u us per frame\n",
		       work_us);
	printf("  %.0f frames/s\n", res->fps);
	printf("  round trip per frame: median %.1f us, p99 %.1f us\n",
	       nlat ? lat[nlat / 2] * 1e6 : 0.0,
	       nlat ? lat[nlat * 99 / 100] * 1e6 : 0.0);
	if (pid > 0)
		printf("  barod cpu %.3f ms per 1200 Hz simulated second "
		       "(%.1f us per frame: user %.1f, system %.1f)\n",
		       1e3 * cpu / (done / 1200.0), res->cpu_us, res->user_us,
		       res->sys_us);
	free(lat);
	for (int i = 0; i < n_inst; i++) {
		close(ap[i]);
		if (up[i] >= 0)
			close(up[i]);
	}
	return done == total ? 0 : 1;
}

static double
median_of(struct result *r, unsigned n, size_t field)
{
	double v[16];

	for (unsigned i = 0; i < n; i++)
		v[i] = *(const double *)((const char *)&r[i] + field);
	qsort(v, n, sizeof(double), cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int
main(int argc, char **argv)
{
	struct result r[N_MODES][16];
	int rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: bench-sitl BAROD [FRAMES [ROUNDS "
				"[BUSY_POLL_US [WORK_US [INSTANCES]]]]]\n");
		return 2;
	}
	unsigned frames = argc > 2 ? (unsigned)atoi(argv[2]) : 20000;
	unsigned rounds = argc > 3 ? (unsigned)atoi(argv[3]) : 3;
	unsigned busy = argc > 4 ? (unsigned)atoi(argv[4]) : 0;
	unsigned work_us = argc > 5 ? (unsigned)atoi(argv[5]) : 0;
	int n_inst = argc > 6 ? atoi(argv[6]) : INSTANCES;
	if (rounds < 1 || rounds > 16) {
		fprintf(stderr, "bench-sitl: 1 to 16 rounds\n");
		return 2;
	}
	if (n_inst < 1 || n_inst > INSTANCES) {
		fprintf(stderr, "bench-sitl: 1 to %d instances\n", INSTANCES);
		return 2;
	}
	const int modes = busy ? N_MODES : PROXY_BUSY;
	struct harness h;
	if (harness_init(&h, "bench-sitl", argv[1], NULL) < 0)
		return 1;
	for (unsigned k = 0; k < rounds; k++) {
		printf("round %u of %u\n", k + 1, rounds);
		for (int m = 0; m < modes; m++)
			rc |= run(&h, (enum mode)m, frames, busy, work_us,
				  n_inst, &r[m][k]);
		printf("\n");
	}
	harness_fini(&h);
	const size_t fps = offsetof(struct result, fps);
	const size_t cpu = offsetof(struct result, cpu_us);
	const size_t user = offsetof(struct result, user_us);
	const size_t sys = offsetof(struct result, sys_us);
	printf("medians over %u rounds", rounds);
	if (work_us)
		printf(", the autopilot working %u us per frame", work_us);
	printf(":\n");
	for (int m = 0; m < modes; m++) {
		printf("  %-18s %7.0f frames/s", mode_names[m],
		       median_of(r[m], rounds, fps));
		if (m != DIRECT)
			printf(", barod cpu %.1f us per frame (user %.1f, "
			       "system %.1f)", median_of(r[m], rounds, cpu),
			       median_of(r[m], rounds, user),
			       median_of(r[m], rounds, sys));
		printf("\n");
	}
	for (int m = PROXY; m < modes; m++) {
		printf("  %s/direct frames/s: %.2f (goal >= 0.9)\n",
		       mode_names[m], median_of(r[m], rounds, fps) /
					      median_of(r[DIRECT], rounds, fps));
		printf("  %s/peer cpu per frame: %.2f (goal <= 1.3)\n",
		       mode_names[m], median_of(r[m], rounds, cpu) /
					      median_of(r[PEER], rounds, cpu));
	}
	return rc;
}
