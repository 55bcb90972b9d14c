/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * baro-campaign the program against the scripted flying autopilot
 * (tests/harness/fake-autopilot.c, a process as sim_vehicle.py starts
 * one), baro-drive and baro-replay, as a user runs it:
 *
 * - a campaign of 24 jobs (glitch size x seed) with --jobs 2: every job
 *   flown and judged, the physics' verdicts (a glitch under the
 *   estimator's 5 m gate leaks into the estimate in proportion, a large
 *   one is rejected, then a failsafe lands the vehicle), the heat map;
 * - the same campaign as 3 shards run at once and merged: the same jobs,
 *   outcomes and verdicts; and the first run's jobs split as 3 shards
 *   and merged: its report byte for byte;
 * - a crashed, a hung, a never-armed and a timed-out job recorded as such
 *   while the campaign goes on, and no autopilot left running;
 * - a campaign stopped mid-way (SIGTERM) and run again: it resumes;
 * - a parameter axis (the estimator's gate, set over MAVLink before
 *   arming) that turns the same glitch from rejected to let through.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness-cmocka.h"
#include "test-files.h"

static struct harness harness;

/* A home altitude of the tests' own. */
#define HOME_MARK "1234.5"

static const char SCN_IN[] = "at 12s glitch 0 {size} for 6s\n"
			     "at 24s end\n";

/* The campaign: fake-autopilot (kind: ardupilot or px4) at 10x, the
 * axes given; flight adds to [flight]. */
static void
write_campaign_as(char *path, size_t len, const char *name, const char *kind,
		  const char *flight, const char *matrix,
		  const char *extra_cmd, double timeout_s)
{
	char scn[512];
	harness_write(&harness, scn, sizeof(scn), "glitch.scn.in", "%s",
		      SCN_IN);
	/* A free port in the range the campaign takes (up to 60000; the
	 * kernel's ephemeral ones go to 60999), slots 10 apart above it. */
	unsigned ports;
	do
		ports = harness_free_port(&harness, SOCK_DGRAM, false);
	while (ports > 59000 || ports < 20000);
	harness_write(&harness, path, len, name,
		      "[campaign]\n"
		      "autopilot = %s\n"
		      "command = %s --kind %s --instance {instance}\n"
		      "    --out 127.0.0.1:{drive_port} --out 127.0.0.1:{gcs_port}\n"
		      "    --log {dir}/ap.csv --speed 10 --home-m " HOME_MARK "\n"
		      "    %s\n"
		      "log = {dir}/ap.csv\n"
		      "timeout = %g\n"
		      "ports = %u\n"
		      "[flight]\n"
		      "takeoff_m = 10\n"
		      "hold_s = 30\n"
		      "%s"
		      "[matrix]\n"
		      "scenario = glitch.scn.in\n"
		      "%s",
		      kind, getenv("FAKE_AUTOPILOT"), kind, extra_cmd,
		      timeout_s, ports, flight, matrix);
}

static void
write_campaign(char *path, size_t len, const char *name, const char *matrix,
	       const char *extra_cmd, double timeout_s)
{
	write_campaign_as(path, len, name, "ardupilot", "", matrix, extra_cmd,
			  timeout_s);
}

static int
campaign(const char *log, const char *const *args)
{
	pid_t pid = harness_spawn(&harness, log, args);
	return harness_wait_exit(&harness, pid, NULL);
}


/* No process of this test's autopilots is left: those whose command
 * line names this run's directory. */
static void
assert_no_autopilot(void)
{
	static const char *const names[] = { "fake-autopilot", NULL };
	assert_none_running(harness.dir, names, NULL);
}

/* summary.csv's row of job k, its first n fields joined back. */
static void
row_head(const char *csv, unsigned k, int nfields, char *out, size_t len)
{
	char key[32];
	snprintf(key, sizeof(key), "\n%u,", k);
	const char *at = strstr(csv, key);
	assert_non_null(at);
	at++;
	size_t i = 0;
	int commas = 0;
	while (at[i] && at[i] != '\n' && i + 1 < len) {
		if (at[i] == ',' && ++commas == nfields)
			break;
		out[i] = at[i];
		i++;
	}
	out[i] = '\0';
}

static double
field(const char *csv, unsigned k, int idx)
{
	char head[1024];
	row_head(csv, k, idx + 1, head, sizeof(head));
	const char *c = strrchr(head, ',');
	return c && c[1] ? strtod(c + 1, NULL) : -1.0;
}

static void
split_into_shards(const char *from, const char *const *shards, int n)
{
	for (int s = 0; s < n; s++) {
		char cmd[2048];
		snprintf(cmd, sizeof(cmd), "mkdir -p %s/jobs && cp %s/campaign.ini "
			 "%s/campaign.sha256 %s/", shards[s], from, from, shards[s]);
		assert_int_equal(system(cmd), 0);
	}
	for (unsigned k = 1; k <= 24; k++) {
		char cmd[2048];
		snprintf(cmd, sizeof(cmd), "cp -r %s/jobs/%04u %s/jobs/", from, k,
			 shards[(k - 1) % n]);
		assert_int_equal(system(cmd), 0);
	}
}

static void
test_matrix_jobs_shards(void **state)
{
	char ini[512], a[512], s[3][512], m[512], m2[512], t[3][512];
	(void)state;

	write_campaign(ini, sizeof(ini), "sweep.ini",
		       "size = 0.5 2 4 8 20 30\nseed = 1..4\n", "--seed {seed}",
		       120);
	harness_path(&harness, a, sizeof(a), "A");
	const char *run[] = { "run", "-o", a, "--jobs", "2", "--hang", "5",
			      ini, NULL };
	int code = campaign("a.log", run);
	char *txt = read_in(a, "summary.txt"), *csv = read_in(a, "summary.csv");
	print_message("%s", txt ? txt : "(no summary.txt)");
	/* Large glitches fail the autopilot: exit 1, every job flown. */
	assert_int_equal(code, 1);
	assert_non_null(txt);
	assert_non_null(strstr(txt, "24 of 24 jobs finished"));
	for (unsigned k = 1; k <= 24; k++) {
		char head[512];
		row_head(csv, k, 6, head, sizeof(head));
		if (!strstr(head, ",flown,"))
			fail_msg("job %u: %s", k, head);
	}
	/* leakage_m is the 7th column after the 2 axes: job, name, size,
	 * seed, outcome, status, failsafe, leakage_m. */
	/* Sizes clear of the leakage rule's edges (1 m and 3 m), so each
	 * verdict is the physics', not the noise's. */
	for (unsigned seed = 1; seed <= 4; seed++) {
		double l05 = field(csv, 0 * 4 + seed, 7);
		double l2 = field(csv, 1 * 4 + seed, 7);
		double l4 = field(csv, 2 * 4 + seed, 7);
		double l20 = field(csv, 4 * 4 + seed, 7);
		print_message("seed %u: leakage 0.5 m %.2f, 2 m %.2f, 4 m %.2f, "
			      "20 m %.2f\n", seed, l05, l2, l4, l20);
		/* Under the gate the glitch leaks in full; over it, rejected
		 * until the reset, then in full too. */
		assert_true(l05 > 0.3 && l05 < 0.8);
		assert_true(l2 > 1.6 && l2 < 2.5);
		assert_true(l4 > 3.5 && l4 < 4.6);
		assert_true(l20 > 15.0);
	}
	assert_non_null(strstr(csv, ",0.5,1,flown,pass,no,"));
	assert_non_null(strstr(csv, ",2,1,flown,warn,no,"));
	assert_non_null(strstr(csv, ",4,1,flown,fail,no,"));
	/* Rejected for 3 s in the air: the failsafe lands it. */
	assert_non_null(strstr(csv, ",20,1,flown,fail,yes,"));
	/* Its telemetry: a 20 m glitch detected (baro unhealthy, height
	 * rejected) within a second of its own time, the failsafe 3 s
	 * after; 0.5 m never. */
	for (unsigned seed = 1; seed <= 4; seed++) {
		double d20 = field(csv, 4 * 4 + seed, 11);
		double f20 = field(csv, 4 * 4 + seed, 12);
		print_message("seed %u: 20 m detected after %.2f s, failsafe "
			      "after %.2f s\n", seed, d20, f20);
		assert_true(d20 >= 0.0 && d20 < 1.0);
		/* The record's times are its last telemetry frame's, up
		 * to 0.1 s behind (2.90 s seen). */
		assert_true(f20 > 2.5 && f20 < 4.0);
		assert_true(field(csv, seed, 11) < 0);
	}
	char *html = read_in(a, "index.html");
	assert_non_null(html);
	assert_non_null(strstr(html, "worst leakage_m: size &times; seed"));
	assert_non_null(strstr(html, "href=\"jobs/0024/judge/index.html\""));
	free(html);
	assert_no_autopilot();

	/* The same campaign as three shards at once, merged. */
	pid_t pids[3];
	for (int k = 0; k < 3; k++) {
		char name[32], shard[16];
		snprintf(name, sizeof(name), "S%d", k + 1);
		harness_path(&harness, s[k], sizeof(s[k]), name);
		snprintf(shard, sizeof(shard), "%d/3", k + 1);
		const char *args[] = { "run", "-o", s[k], "--shard", shard,
				       "--hang", "5", "-q", ini, NULL };
		snprintf(name, sizeof(name), "s%d.log", k + 1);
		pids[k] = harness_spawn(&harness, name, args);
	}
	for (int k = 0; k < 3; k++)
		assert_int_equal(harness_wait_exit(&harness, pids[k], NULL), 1);
	harness_path(&harness, m, sizeof(m), "M");
	const char *merge[] = { "merge", "-o", m, s[0], s[1], s[2], NULL };
	assert_int_equal(campaign("m.log", merge), 0);
	char *mcsv = read_in(m, "summary.csv");
	assert_non_null(mcsv);
	/* Same jobs, outcomes and verdicts; the numbers are another
	 * flight's. */
	for (unsigned k = 1; k <= 24; k++) {
		char h1[512], h2[512];
		row_head(csv, k, 7, h1, sizeof(h1));
		row_head(mcsv, k, 7, h2, sizeof(h2));
		assert_string_equal(h1, h2);
		double d = field(csv, k, 7) - field(mcsv, k, 7);
		assert_true(d > -0.5 && d < 0.5);
	}
	free(mcsv);

	/* The first run's own results as three shards: merged, its report
	 * byte for byte. */
	for (int k = 0; k < 3; k++) {
		char name[32];
		snprintf(name, sizeof(name), "T%d", k + 1);
		harness_path(&harness, t[k], sizeof(t[k]), name);
	}
	split_into_shards(a, (const char *const[]){ t[0], t[1], t[2] }, 3);
	harness_path(&harness, m2, sizeof(m2), "M2");
	const char *merge2[] = { "merge", "-o", m2, t[0], t[1], t[2], NULL };
	assert_int_equal(campaign("m2.log", merge2), 0);
	static const char *const files[] = { "summary.csv", "summary.txt",
					     "index.html" };
	for (size_t i = 0; i < 3; i++) {
		char *x = read_in(a, files[i]), *y = read_in(m2, files[i]);
		assert_non_null(x);
		assert_non_null(y);
		assert_string_equal(x, y);
		free(x);
		free(y);
	}
	/* A shard twice, or another campaign, is refused. */
	char m3[512];
	harness_path(&harness, m3, sizeof(m3), "M3");
	const char *twice[] = { "merge", "-o", m3, t[0], t[0], NULL };
	assert_int_equal(campaign("m3.log", twice), 2);
	char *log = read_in(harness.dir, "m3.log");
	assert_non_null(strstr(log, "is in"));
	free(log);
	free(txt);
	free(csv);
}

/* The process fails; the campaign goes on. */
static void
test_crash_hang_never_arm(void **state)
{
	char ini[512], out[512];
	(void)state;

	write_campaign(ini, sizeof(ini), "faults.ini",
		       "size = 2\n"
		       "fault = --seed=9 --crash-at=14 --hang-at=14 --never-arm\n",
		       "{fault}", 120);
	harness_path(&harness, out, sizeof(out), "F");
	const char *run[] = { "run", "-o", out, "--jobs", "2", "--hang", "3",
			      ini, NULL };
	assert_int_equal(campaign("f.log", run), 1);
	char *csv = read_in(out, "summary.csv");
	print_message("%s", csv ? csv : "(missing)\n");
	assert_non_null(strstr(csv, "1,size=2 fault=--seed=9,2,--seed=9,flown,"));
	assert_non_null(strstr(csv, "2,size=2 fault=--crash-at=14,2,"
				    "--crash-at=14,crashed,fail,"));
	assert_non_null(strstr(csv, "the autopilot killed by signal 6"));
	assert_non_null(strstr(csv, "3,size=2 fault=--hang-at=14,2,"
				    "--hang-at=14,hung,fail,"));
	assert_non_null(strstr(csv, "4,size=2 fault=--never-arm,2,"
				    "--never-arm,never-armed,fail,"));
	assert_non_null(strstr(csv, "arming denied"));
	free(csv);
	assert_no_autopilot();
	/* Every link of the page resolves: a job never judged links to
	 * its result, not to a report it does not have. */
	char *html = read_in(out, "index.html");
	assert_non_null(html);
	assert_non_null(strstr(html, "href=\"jobs/0004/result.json\""));
	unsigned links = 0;
	for (const char *h = html; (h = strstr(h, "href=\"")); links++) {
		h += 6;
		char rel[256], path[1024];
		size_t k = strcspn(h, "\"#");
		snprintf(rel, sizeof(rel), "%.*s", (int)k, h);
		snprintf(path, sizeof(path), "%s/%s", out, rel);
		if (access(path, F_OK) != 0)
			fail_msg("index.html links to %s, which is not there",
				 rel);
	}
	assert_true(links >= 8);
	free(html);

	/* A job past the campaign's timeout: stopped, recorded, ended. */
	write_campaign(ini, sizeof(ini), "timeout.ini", "size = 2\n",
		       "--hang-at=3", 4);
	harness_path(&harness, out, sizeof(out), "T");
	const char *run2[] = { "run", "-o", out, "--hang", "600", ini, NULL };
	assert_int_equal(campaign("t.log", run2), 1);
	csv = read_in(out, "summary.csv");
	assert_non_null(strstr(csv, ",timed-out,fail,"));
	assert_non_null(strstr(csv, "stopped after the campaign's timeout of "
				    "4 s"));
	free(csv);
	assert_no_autopilot();
}

/* A parameter axis: the flight sets the estimator's gate before it arms,
 * and the same 8 m glitch is rejected under a 3 m gate (detected, a
 * failsafe, the reset announced as a lane switch) and let through under a
 * 10 m one (it leaks in full, nothing flagged). */
static void
test_params_axis(void **state)
{
	char ini[512], out[512];
	(void)state;

	write_campaign(ini, sizeof(ini), "gate.ini",
		       "size = 8\ngate = 300 1000\n"
		       "[params]\nEK3_HGT_I_GATE = {gate}\n", "", 120);
	harness_path(&harness, out, sizeof(out), "G");
	const char *run[] = { "run", "-o", out, "--jobs", "2", "--hang", "5",
			      ini, NULL };
	assert_int_equal(campaign("g.log", run), 1);
	char *csv = read_in(out, "summary.csv");
	assert_non_null(csv);
	print_message("%s", csv ? csv : "(missing)\n");
	/* job,name,size,gate,outcome,status,failsafe,leakage_m,... */
	assert_non_null(strstr(csv, "\n1,size=8 gate=300,8,300,flown,"));
	assert_non_null(strstr(csv, "\n2,size=8 gate=1000,8,1000,flown,fail,"
				    "no,"));
	double l300 = field(csv, 1, 7), l1000 = field(csv, 2, 7);
	double d300 = field(csv, 1, 11), d1000 = field(csv, 2, 11);
	double fs300 = field(csv, 1, 12);
	double ln300 = field(csv, 1, 13), ln1000 = field(csv, 2, 13);
	double la300 = field(csv, 1, 14);
	print_message("gate 3 m: leakage %.2f, detected %.2f s, failsafe "
		      "%.2f s, %g lane switches (first %.2f s); gate 10 m: "
		      "leakage %.2f, detected %.2f, %g lane switches\n", l300,
		      d300, fs300, ln300, la300, l1000, d1000, ln1000);
	assert_true(d300 >= 0.0 && d300 < 1.0);
	assert_true(fs300 > 2.5 && fs300 < 4.0);
	/* The first reset 5 s into the rejection; another when the
	 * glitch's end is rejected in turn. */
	assert_true(ln300 >= 1 && la300 > 4.5 && la300 < 6.0);
	assert_true(l1000 > 7.0 && l1000 < 9.0);
	assert_true(d1000 < 0);		/* never flagged */
	assert_true(ln1000 == 0);
	assert_non_null(strstr(csv, "\n1,size=8 gate=300,8,300,flown,fail,yes,"));
	free(csv);
	/* What the autopilot echoed, and what it had. */
	char *res = read_in(out, "jobs/0001/result.json");
	assert_non_null(res);
	/* Pretty-printed: compared without its blanks. */
	size_t n = 0;
	for (const char *c = res; *c; c++)
		if (*c != ' ' && *c != '\n' && *c != '\t')
			res[n++] = *c;
	res[n] = '\0';
	if (!strstr(res, "\"params\":{\"EK3_HGT_I_GATE\":{\"set\":true,"
			 "\"before\":500"))
		fail_msg("no parameter in %s", res);
	free(res);
	char *tel = read_in(out, "jobs/0002/telemetry.csv");
	assert_non_null(tel);
	const char *at = strstr(tel, ",param,1000,");
	assert_non_null(at);
	const char *nl = strchr(at, '\n'), *nm = strstr(at, "EK3_HGT_I_GATE");
	assert_true(nm && (!nl || nm < nl));	/* on that line */
	free(tel);
	assert_no_autopilot();
}

/* A short mission after the hold, on both autopilots: uploaded before
 * arming, flown in AUTO to its last item, then the landing; the glitch
 * judged as in any flight. */
static void
test_mission_flown(void **state)
{
	static const char *const kinds[] = { "ardupilot", "px4" };
	(void)state;

	for (int i = 0; i < 2; i++) {
		char ini[512], out[512], name[32], log[32];
		snprintf(name, sizeof(name), "mission-%s.ini", kinds[i]);
		snprintf(log, sizeof(log), "mission-%s.log", kinds[i]);
		write_campaign_as(ini, sizeof(ini), name, kinds[i],
				  "mission = 30:0:20 30:30:10\n", "size = 0.5\n",
				  "", 120);
		harness_path(&harness, out, sizeof(out), kinds[i]);
		const char *run[] = { "run", "-o", out, "--hang", "5", ini,
				      NULL };
		int code = campaign(log, run);
		char *res = read_in(out, "jobs/0001/result.json");
		char *tel = read_in(out, "jobs/0001/telemetry.csv");
		assert_non_null(res);
		assert_non_null(tel);
		size_t n = 0;
		for (const char *c = res; *c; c++)
			if (*c != ' ' && *c != '\n')
				res[n++] = *c;
		res[n] = '\0';
		print_message("%s: exit %d, %s\n", kinds[i], code, res);
		assert_int_equal(code, 0);
		assert_non_null(strstr(res, "\"outcome\":\"flown\""));
		assert_non_null(strstr(res, "\"mission_reached\":2,"
					    "\"mission_waypoints\":2"));
		assert_non_null(strstr(res, "\"failsafe\":false"));
		/* Phases in order, the items reached on the autopilot's
		 * clock (ArduPilot's from 1: its item 0 is home). */
		const char *up = strstr(tel, ",phase,2,"),
			   *mis = strstr(tel, ",phase,8,"),
			   *it = strstr(tel, i == 0 ? ",mission_item,2,"
						    : ",mission_item,1,"),
			   *land = strstr(tel, ",phase,9,");
		assert_true(up && mis && it && land);
		assert_true(up < mis && mis < it && it < land);
		free(res);
		free(tel);
	}
	assert_no_autopilot();
}

/* Stopped mid-way, it resumes: finished jobs are not run again. */
static void
test_stop_and_resume(void **state)
{
	char ini[512], out[512];
	(void)state;

	write_campaign(ini, sizeof(ini), "resume.ini",
		       "size = 0.2 0.3 0.4 0.5\n", "", 120);
	harness_path(&harness, out, sizeof(out), "R");
	const char *run[] = { "run", "-o", out, "--hang", "5", ini, NULL };
	pid_t pid = harness_spawn(&harness, "r1.log", run);
	/* Until the first job has its result. */
	char res[1024];
	snprintf(res, sizeof(res), "%s/jobs/0001/result.json", out);
	int early;
	for (int i = 0; i < 600 && access(res, F_OK) != 0; i++) {
		if (harness_exited(&harness, pid, &early))
			fail_msg("baro-campaign exited %d before its first "
				 "result", early);
		usleep(100000);
	}
	assert_int_equal(access(res, F_OK), 0);
	kill(pid, SIGTERM);
	assert_int_equal(harness_wait_exit(&harness, pid, NULL), 128 + SIGTERM);
	assert_no_autopilot();
	char *log = harness_log(&harness, pid);
	assert_non_null(strstr(log, "stopped: run again to resume"));
	free(log);
	/* Again: the finished job is skipped, the rest run. */
	pid = harness_spawn(&harness, "r2.log", run);
	assert_int_equal(harness_wait_exit(&harness, pid, NULL), 0);
	log = harness_log(&harness, pid);
	assert_non_null(strstr(log, "already finished"));
	assert_null(strstr(log, "job 1 (size=0.2)"));
	assert_non_null(strstr(log, "job 4 (size=0.5): flown, pass"));
	free(log);
	char *txt = read_in(out, "summary.txt");
	assert_non_null(strstr(txt, "4 of 4 jobs finished"));
	free(txt);
	/* Another campaign into the same directory: refused. */
	write_campaign(ini, sizeof(ini), "other.ini", "size = 9\n", "", 120);
	const char *other[] = { "run", "-o", out, ini, NULL };
	assert_int_equal(campaign("r3.log", other), 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		harness_unit_test(test_matrix_jobs_shards, &harness),
		harness_unit_test(test_crash_hang_never_arm, &harness),
		harness_unit_test(test_stop_and_resume, &harness),
		harness_unit_test(test_params_axis, &harness),
		harness_unit_test(test_mission_flown, &harness),
	};
	return harness_run_tests(&harness, "baro-campaign", tests);
}
