/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * baro-campaign with link = px4-sim-proxy: the scripted PX4
 * (tests/harness/fake-autopilot.c --sim-tcp) dials barod as PX4's
 * simulator_mavlink dials its simulator, barod --px4-sim-proxy dials the
 * same process's simulator side (--sim-serve), and the autopilot's baro
 * is the simulator's HIL_SENSOR pressure as barod rewrote it; the fake's
 * own baro model and SIM_* faults are out of the loop.  So the verdicts
 * (a 2 m glitch leaks into the estimate, a 20 m one is rejected and the
 * failsafe lands it) exist only if barod's scenario reached the
 * autopilot through the link, and the judge places them only if the
 * labels are on the autopilot's clock (the simulator's time starts at
 * 100 s, not at 0).  The flight connects out (gcs = udpout:...) to the
 * port the autopilot binds, as it would to PX4's 18570 + i, two jobs at
 * once.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

#include "harness-cmocka.h"
#include "test-files.h"

static struct harness harness;

/* No process this test started is left: the autopilots and the barods
 * whose command lines name this run's directory. */
static void
assert_none_left(void)
{
	static const char *const names[] = { "fake-autopilot", "barod ",
					     NULL };
	assert_none_running(harness.dir, names, "baro-campaign");
}

/* The one-job campaign ini, run into NAME/, fails its job with why in
 * summary.csv (the campaign's exit 1), and leaves nothing running. */
static void
assert_job_failed(const char *ini, const char *name, const char *why)
{
	char out[512], log[64];
	harness_path(&harness, out, sizeof(out), name);
	snprintf(log, sizeof(log), "%s.log", name);
	const char *argv[] = { "run", "-o", out, "--hang", "5", ini, NULL };
	pid_t pid = harness_spawn(&harness, log, argv);
	assert_int_equal(harness_wait_exit(&harness, pid, NULL), 1);
	char *csv = read_in(out, "summary.csv");
	assert_non_null(csv);
	print_message("%s", csv ? csv : "(missing)\n");
	assert_non_null(strstr(csv, "\n1,size=2,2,failed,fail,"));
	assert_non_null(strstr(csv, why));
	free(csv);
	assert_none_left();
}

/* Field idx (0-based) of summary.csv's row of job k. */
static double
field(const char *csv, unsigned k, int idx)
{
	char key[16];
	snprintf(key, sizeof(key), "\n%u,", k);
	const char *at = strstr(csv, key);
	assert_non_null(at);
	at++;
	for (int i = 0; i < idx; i++) {
		at = strchr(at, ',');
		assert_non_null(at);
		at++;
	}
	return *at == ',' || *at == '\n' ? -1.0 : strtod(at, NULL);
}

static void
test_px4_sim_proxy(void **state)
{
	char scn[512], ini[512], out[512];
	(void)state;

	harness_write(&harness, scn, sizeof(scn), "glitch.scn.in",
		      "at 12s glitch 0 {size} for 6s\nat 24s end\n");
	/* Slots 0 and 1 take instances 0 and 1: barod on sim + 0, + 1,
	 * dialling the simulators on up + 0, + 1. */
	const unsigned sim = harness_free_port(&harness, SOCK_STREAM, true);
	unsigned up;
	do
		up = harness_free_port(&harness, SOCK_STREAM, true);
	while (up == sim || up == sim + 1 || up + 1 == sim);
	unsigned ports;
	do
		ports = harness_free_port(&harness, SOCK_DGRAM, false);
	while (ports > 59000 || ports < 20000);
	harness_write(&harness, ini, sizeof(ini), "proxy.ini",
		      "[campaign]\n"
		      "autopilot = px4\n"
		      "link = px4-sim-proxy\n"
		      "upstream = 127.0.0.1:%u\n"
		      "sim_port = %u\n"
		      "barod_args = -p SIM_BARO_RND=0 --home-alt 488\n"
		      "gcs = udpout:127.0.0.1:{gcs_port}\n"
		      "command = %s --kind px4 --instance {instance}\n"
		      "    --port {gcs_port} --log {dir}/ap.csv --speed 10\n"
		      "    --home-m 488 --sim-tcp {sim_port}\n"
		      "    --sim-serve {upstream_port}\n"
		      "log = {dir}/ap.csv\n"
		      "timeout = 120\n"
		      "ports = %u\n"
		      "[flight]\n"
		      "takeoff_m = 10\n"
		      "hold_s = 30\n"
		      "[matrix]\n"
		      "scenario = glitch.scn.in\n"
		      "size = 2 20\n",
		      up, sim, getenv("FAKE_AUTOPILOT"), ports);
	harness_path(&harness, out, sizeof(out), "P");
	const char *run[] = { "run", "-o", out, "--jobs", "2", "--hang", "5",
			      ini, NULL };
	pid_t pid = harness_spawn(&harness, "p.log", run);
	/* The 20 m glitch fails the autopilot: exit 1. */
	assert_int_equal(harness_wait_exit(&harness, pid, NULL), 1);
	char *txt = read_in(out, "summary.txt"), *csv = read_in(out, "summary.csv");
	assert_non_null(txt);
	print_message("%s", txt ? txt : "(missing)\n");
	assert_non_null(strstr(txt, "2 of 2 jobs finished"));
	/* job,name,size,outcome,status,failsafe,leakage_m: under the 5 m
	 * gate the glitch leaks in full; over it, rejected until the reset
	 * (then in full too), and rejected 3 s in the air the failsafe
	 * lands it. */
	assert_non_null(strstr(csv, "\n1,size=2,2,flown,warn,no,"));
	assert_non_null(strstr(csv, "\n2,size=20,20,flown,fail,yes,"));
	double l2 = field(csv, 1, 6), l20 = field(csv, 2, 6);
	print_message("leakage 2 m %.2f, 20 m %.2f\n", l2, l20);
	assert_true(l2 > 1.6 && l2 < 2.5);
	assert_true(l20 > 15.0);

	for (unsigned k = 1; k <= 2; k++) {
		char dir[600];
		snprintf(dir, sizeof(dir), "%s/jobs/%04u", out, k);
		/* The labels begin where the autopilot's clock was at
		 * barod's physics time 0: the simulator's, past 100 s. */
		char *labels = read_in(dir, "labels.csv"), *blog = read_in(dir,
								       "barod.out");
		assert_non_null(labels);
		assert_non_null(blog);
		unsigned long long t0 = strtoull(strchr(labels, '\n') + 1, NULL,
						 10);
		print_message("job %u: labels from %llu ms\n", k, t0);
		assert_true(t0 >= 100000 && t0 < 160000);
		char say[128];
		snprintf(say, sizeof(say), "time_usec %llu", t0 * 1000u);
		/* Whole ms: the fake steps 20 ms from a whole second. */
		assert_non_null(strstr(blog, say));
		/* What barod published (its record, on its physics time)
		 * against the autopilot's truth at the same moment of its
		 * log: the glitch in the middle of the fault, none before. */
		char *rec = read_in(dir, "barod.csv"), *ap = read_in(dir, "ap.csv");
		assert_non_null(rec);
		assert_non_null(ap);
		const double size = k == 1 ? 2.0 : 20.0;
		const unsigned at_s[] = { 10, 15 };
		for (int i = 0; i < 2; i++) {
			unsigned long long ap_ms = (t0 + at_s[i] * 1000u) / 100u *
						   100u;
			char key[64];
			snprintf(key, sizeof(key), "\n%llu,", ap_ms * 1000u);
			const char *row = strstr(ap, key);
			snprintf(key, sizeof(key), "\n%llu,0,", ap_ms - t0);
			const char *brow = strstr(rec, key);
			assert_non_null(row);
			assert_non_null(brow);
			/* time_us,pressure_pa,truth_alt_m / time_ms,instance,
			 * alt_m */
			double truth = strtod(strchr(strchr(row + 1, ',') + 1,
						     ',') + 1, NULL);
			double alt = strtod(brow + strlen(key), NULL);
			print_message("job %u at %u s: barod %.2f m, truth "
				      "%.2f m\n", k, at_s[i], alt, truth);
			assert_true(fabs(alt - truth - (i ? size : 0.0)) < 0.5);
		}
		free(rec);
		free(ap);
		free(labels);
		free(blog);
	}
	free(txt);
	free(csv);
	assert_none_left();

	/* barod cannot take its port (another program listens there): the
	 * job fails at once, saying so, and the campaign goes on. */
	int taken = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)sim),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int one = 1;
	assert_true(taken >= 0);
	/* The first run's connections may linger in TIME_WAIT there. */
	assert_int_equal(setsockopt(taken, SOL_SOCKET, SO_REUSEADDR, &one,
				    sizeof(one)), 0);
	assert_int_equal(bind(taken, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(taken, 1), 0);
	assert_job_failed(ini, "Q", "barod exited with status");
	close(taken);

	/* The autopilot beside barod, not through it (its own baro model,
	 * no simulator link): flown, but failed, since no fault of
	 * barod's can have reached it. */
	char ini2[512];
	harness_write(&harness, ini2, sizeof(ini2), "direct.ini",
		      "[campaign]\n"
		      "autopilot = px4\n"
		      "link = px4-sim-proxy\n"
		      "upstream = 127.0.0.1:%u\n"
		      "sim_port = %u\n"
		      "gcs = udpout:127.0.0.1:{gcs_port}\n"
		      "command = %s --kind px4 --instance {instance}\n"
		      "    --port {gcs_port} --log {dir}/ap.csv --speed 10\n"
		      "log = {dir}/ap.csv\n"
		      "ports = %u\n"
		      "[flight]\n"
		      "hold_s = 20\n"
		      "[matrix]\n"
		      "scenario = glitch.scn.in\n"
		      "size = 2\n",
		      up, sim, getenv("FAKE_AUTOPILOT"), ports);
	assert_job_failed(ini2, "D", "no HIL_SENSOR came through barod");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		harness_unit_test(test_px4_sim_proxy, &harness),
	};
	return harness_run_tests(&harness, "baro-campaign-px4-proxy", tests);
}
