/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * barod as PX4 SITL's simulator, in lockstep: this program plays PX4
 * for 1 and then 8 instances, answering each HIL_SENSOR id 0 at once
 * with HIL_ACTUATOR_CONTROLS.
 *
 *   bench-px4sim BAROD [STEPS_PER_INSTANCE]
 *
 * First as fast as replies come (speed_factor = 0): steps per second,
 * the round trip barod adds per step (median, p99: PX4's 250 Hz leaves
 * 4000 us per step for everything), and barod's CPU time per simulated
 * second (250 steps).  Then paced: the highest speed factor barod
 * sustains for every instance at once (within 5 % over 3 s), starting
 * from what the unpaced run reached and stepping down.
 */
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "barod-harness.h"
#include "bench-util.h"
#include "mavlink.h"

#define MAX_INSTANCES 8

struct px4 {
	int fd;
	struct mavlink_parser parser;
	unsigned steps;
	double last_step_at;
	uint64_t last_time;
	bool step_seen;
	uint8_t seq;
};

static void
on_frame(const struct mavlink_frame *f, void *user)
{
	struct px4 *p = user;

	if (f->msgid == MAVLINK_MSG_HIL_SENSOR && f->payload[64] == 0) {
		struct mavlink_hil_sensor h;
		mavlink_unpack_hil_sensor(f->payload, &h);
		p->last_time = h.time_usec;
		p->steps++;
		p->last_step_at = now_s();
		p->step_seen = true;
	}
}

static void
reply(struct px4 *p)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 }, f[MAVLINK_MAX_FRAME];
	struct mavlink_hil_actuator_controls a = {
		.time_usec = p->last_time,
		.flags = HIL_ACTUATOR_CONTROLS_FLAGS_LOCKSTEP,
		.mode = 1,
	};

	mavlink_pack_hil_actuator_controls(&a, pl);
	int n = mavlink_frame_encode(f, 2, p->seq++, 1, 1,
				     MAVLINK_MSG_HIL_ACTUATOR_CONTROLS, pl);
	if (send(p->fd, f, (size_t)n, MSG_NOSIGNAL) != n)
		fprintf(stderr, "bench-px4sim: short send\n");
}

/* One run of steps per instance at speed factor (0: unpaced); prints
 * the figures if print; *slowest: the lowest factor an instance
 * achieved. */
static int
run(struct harness *h, int instances, unsigned steps, double factor,
    bool print, double *slowest)
{
	const unsigned base =
		20000 + harness_free_port(h, SOCK_STREAM, false) % 20000;
	char conf[512];
	harness_write(h, conf, sizeof(conf), "barod.conf",
		"[barod]\nsource = px4-sim\ncontrol = none\n"
		"[sim]\nSIM_BARO_COUNT = 2\nprofile = climb:1\n"
		"[px4]\ninstances = %d\nbind = 127.0.0.1\nport = %u\n"
		"hil_baros = 2\nspeed_factor = %g\n"
		"[output gcs]\ntype = udp-client\naddress = 127.0.0.1:9\n",
		instances, base, factor);
	/* Its log in the harness's directory; back once it listens. */
	pid_t pid = harness_start(h, "barod.log", (const char *[]){
		"-c", conf, NULL });

	struct px4 px[MAX_INSTANCES];
	for (int i = 0; i < instances; i++) {
		memset(&px[i], 0, sizeof(px[i]));
		mavlink_parser_init(&px[i].parser);
		px[i].fd = harness_dial_tcp(base + (unsigned)i, 500);
		if (px[i].fd < 0) {
			fprintf(stderr, "bench-px4sim: barod not listening\n");
			harness_kill(h, pid);
			return 1;
		}
	}

	const unsigned total = steps * (unsigned)instances;
	double *lat = malloc(sizeof(double) * total);
	double sent_at[MAX_INSTANCES] = { 0 };
	unsigned nlat = 0, done = 0;
	uint8_t buf[65536];
	double t0 = now_s();
	while (done < total) {
		struct pollfd p[MAX_INSTANCES];
		for (int i = 0; i < instances; i++)
			p[i] = (struct pollfd){ px[i].fd, POLLIN, 0 };
		if (poll(p, (nfds_t)instances, 2000) <= 0) {
			fprintf(stderr, "bench-px4sim: no step\n");
			break;
		}
		for (int i = 0; i < instances; i++) {
			if (!(p[i].revents & POLLIN))
				continue;
			ssize_t n = recv(px[i].fd, buf, sizeof(buf), 0);
			if (n <= 0)
				continue;
			px[i].step_seen = false;
			const unsigned before = px[i].steps;
			mavlink_parser_feed(&px[i].parser, buf, (size_t)n,
					    on_frame, &px[i]);
			if (!px[i].step_seen)
				continue;
			done += px[i].steps - before;
			if (sent_at[i] > 0.0)
				lat[nlat++] = now_s() - sent_at[i];
			if (px[i].steps >= steps)
				continue;
			sent_at[i] = now_s();
			reply(&px[i]);
		}
	}
	double dt = now_s() - t0;

	struct rusage ru;
	harness_stop(h, pid, &ru);
	double cpu = rusage_cpu_s(&ru);

	/* Each instance from its first to its last step: the steps
	 * freewheeled before lockstep are few and on the same clock. */
	*slowest = 1e9;
	for (int i = 0; i < instances; i++) {
		const double f = px[i].steps > 1 && px[i].last_step_at > t0
					 ? (px[i].steps - 1) * 0.004 /
						   (px[i].last_step_at - t0)
					 : 0.0;
		if (f < *slowest)
			*slowest = f;
	}
	qsort(lat, nlat, sizeof(double), cmp_double);
	if (print) {
	printf("px4-sim, %d instance%s in lockstep, %u steps:\n", instances,
	       instances > 1 ? "s" : "", done);
	printf("  %.0f steps/s (%.0fx PX4's 250 Hz real time)\n", done / dt,
	       done / dt / 250.0);
	printf("  round trip per step: median %.1f us, p99 %.1f us "
	       "(of 4000 us per 250 Hz step)\n",
	       nlat ? lat[nlat / 2] * 1e6 : 0.0,
	       nlat ? lat[nlat * 99 / 100] * 1e6 : 0.0);
	printf("  barod cpu %.3f ms per simulated second (%.1f us per step)\n",
	       1e3 * cpu / (done / 250.0), 1e6 * cpu / done);
	}
	free(lat);
	for (int i = 0; i < instances; i++)
		close(px[i].fd);
	return done == total ? 0 : 1;
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench-px4sim BAROD [STEPS]\n");
		return 2;
	}
	unsigned steps = argc > 2 ? (unsigned)atoi(argv[2]) : 20000;
	struct harness h;
	if (harness_init(&h, "bench-px4sim", argv[1], NULL) < 0)
		return 1;
	int rc = 0;
	for (int n = 1; n <= MAX_INSTANCES; n += MAX_INSTANCES - 1) {
		double ceiling, got = 0.0;
		rc |= run(&h, n, steps, 0.0, true, &ceiling);
		/* Paced: a whole factor at or below the ceiling, 3 s per
		 * try, 20 % less each time it is not held. */
		double f = floor(ceiling);
		for (int k = 0; k < 6 && f >= 1.0; k++) {
			const unsigned paced = (unsigned)(f * 250.0 * 3.0);
			rc |= run(&h, n, paced, f, false, &got);
			if (got >= 0.95 * f)
				break;
			f = floor(f * 0.8);
		}
		printf("  highest speed factor sustained, %d instance%s: %g "
		       "(slowest instance %.2f)\n\n", n, n > 1 ? "s" : "",
		       f >= 1.0 ? f : 0.0, got);
	}
	harness_fini(&h);
	return rc;
}
