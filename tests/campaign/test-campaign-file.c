// SPDX-License-Identifier: GPL-3.0-or-later
/* Campaign files: what a job is, what a template says, and every kind of
 * mistake refused with its line and reason. */
#include <errno.h>
#include <string.h>

#include "campaign-file.h"
#include "campaign-labels.h"
#include "record-labels.h"
#include "test-util.h"

static const char GOOD[] =
	"[campaign]\n"
	"autopilot = px4\n"
	"command = px4 -i {instance} --gcs {gcs_port}\n"
	"    --drive {drive_port} --dir {dir} --seed {seed}\n"
	"log = {dir}/log/*.ulg\n"
	"timeout = 90\n"
	"ports = 20000\n"
	"instance = 2\n"
	"[flight]\n"
	"takeoff_m = 12.5\n"
	"hold_s = 30\n"
	"land = no\n"
	"[matrix]\n"
	"scenario = s.scn.in\n"
	"kind = glitch drift\n"
	"size = 5, 10 20\n"
	"seed = 1..3\n"
	"[judge]\n"
	"thresholds = t.txt\n";

static int
parse(struct campaign *c, const char *text, char *err, size_t len)
{
	err[0] = '\0';
	return campaign_parse(c, text, strlen(text), "c.ini", err, len);
}

static void
test_good(void **state)
{
	static struct campaign c;
	char err[512], out[512], name[128];
	(void)state;

	assert_int_equal(parse(&c, GOOD, err, sizeof(err)), 0);
	assert_int_equal(c.autopilot, CAMPAIGN_PX4);
	assert_int_equal(c.njobs, 2 * 3 * 3);
	assert_int_equal(c.naxes, 3);
	assert_string_equal(c.axes[1].values[1], "10");
	assert_string_equal(c.axes[2].values[2], "3");
	assert_true(c.takeoff_m == 12.5 && c.hold_s == 30 && !c.land);
	assert_true(c.timeout_s == 90);
	/* Last axis fastest: job 1 is the first of each, job 18 the last. */
	assert_int_equal(campaign_job_name(&c, 1, name, sizeof(name)), 0);
	assert_string_equal(name, "kind=glitch size=5 seed=1");
	campaign_job_name(&c, 5, name, sizeof(name));
	assert_string_equal(name, "kind=glitch size=10 seed=2");
	campaign_job_name(&c, 18, name, sizeof(name));
	assert_string_equal(name, "kind=drift size=20 seed=3");
	/* A continued line joins with a space; slots 10 ports apart. */
	struct campaign_vars v = { .c = &c, .job = 17, .slot = 3,
				   .dir = "/j/17" };
	assert_int_equal(campaign_expand(c.command, &v, out, sizeof(out), err,
					 sizeof(err)), 0);
	assert_string_equal(out, "px4 -i 5 --gcs 20031 --drive 20030 --dir "
				 "/j/17 --seed 2");
	assert_int_equal(campaign_expand("{{x} {job}", &v, out, sizeof(out),
					 err, sizeof(err)), 0);
	assert_string_equal(out, "{x} 17");
	assert_int_equal(campaign_expand("{nope}", &v, out, sizeof(out), err,
					 sizeof(err)), -EINVAL);
	assert_int_equal(campaign_expand("{job", &v, out, sizeof(out), err,
					 sizeof(err)), -EINVAL);
	assert_int_equal(campaign_expand("{dir}{dir}", &v, out, 8, err,
					 sizeof(err)), -ENOSPC);
}

static void
expect_error(const char *text, const char *msg)
{
	static struct campaign c;
	char err[512];
	int rc = parse(&c, text, err, sizeof(err));
	if (rc != -EINVAL || !strstr(err, msg))
		fail_msg("got %d '%s', wanted '%s'", rc, err, msg);
}

#define BASE "[campaign]\ncommand = x\nlog = y\n[matrix]\nscenario = s\n"

static void
test_refused(void **state)
{
	(void)state;
	expect_error("", "[campaign] command is missing");
	expect_error("[campaign]\ncommand = x\n", "[campaign] log is missing");
	expect_error("[campaign]\ncommand = x\nlog = y\n",
		     "[matrix] scenario is missing");
	expect_error(BASE "[campaign]\nautopilot = inav\n",
		     "c.ini:7: [campaign] autopilot = inav: wanted ardupilot "
		     "or px4");
	expect_error(BASE "[campaign]\nlink = sitl-json\n",
		     "c.ini:7: [campaign] link = sitl-json: barod as the "
		     "physics peer flies its own --profile");
	expect_error(BASE "[campaign]\nlink = px4-sim\n",
		     "link = px4-sim: barod as the physics peer");
	expect_error(BASE "[campaign]\nlink = sitl-json-proxy\n",
		     "link = sitl-json-proxy: ArduPilot's JSON interface "
		     "carries no pressure");
	expect_error(BASE "[campaign]\nlink = mavlink\n",
		     "link = mavlink: wanted drive or px4-sim-proxy");
	expect_error(BASE "[campaign]\ntimeout = 0\n",
		     "timeout = 0: wanted a number from 1 to 86400");
	expect_error(BASE "[campaign]\nports = 80\n",
		     "ports = 80: wanted a whole number from 1024 to 60000");
	expect_error(BASE "[flight]\nland = maybe\n",
		     "land = maybe: wanted yes or no");
	expect_error(BASE "[flight]\nspeed = 3\n",
		     "[flight] speed: not a key here (takeoff_m, hold_s, land, "
		     "mission)");
	expect_error(BASE "[plan]\na = 1\n", "[plan]: not a section");
	expect_error(BASE "[campaign]\ncommand = z\n",
		     "c.ini:7: [campaign] command is given twice (line 2)");
	expect_error(BASE "size = 1 2\nsize = 3\n",
		     "c.ini:7: [matrix] size is given twice");
	expect_error(BASE "Size = 1\n", "[matrix] 'Size': an axis is named");
	expect_error(BASE "dir = 1\n", "[matrix] 'dir': an axis is named");
	expect_error(BASE "size = 3..1\n", "'3..1' is not a range");
	expect_error(BASE "size = 1..100\n", "'1..100' is not a range");
	expect_error(BASE "size = 1 1\n", "value '1' is given twice");
	expect_error(BASE "size = a/b\n", "value 'a/b' has a brace, quote, "
					  "slash");
	expect_error(BASE "size = {x}\n", "value '{x}' has a brace");
	expect_error("[campaign]\ncommand = x {size}\nlog = y\n[matrix]\n"
		     "scenario = s\n",
		     "c.ini:2: [campaign] command: {size} is neither a matrix "
		     "axis");
	expect_error("[campaign]\ncommand = x {size\nlog = y\n[matrix]\n"
		     "scenario = s\n",
		     "[campaign] command: '{' without its '}'");
	expect_error(BASE "this is not ini\n", "c.ini:6: syntax error");
	static const char nul[] = BASE "a = 1\0b\n";
	static struct campaign c;
	char err[256];
	assert_int_equal(campaign_parse(&c, nul, sizeof(nul) - 1, "c.ini", err,
					sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "a NUL byte"));
	char big[8192];
	snprintf(big, sizeof(big), BASE "a = ");
	size_t n = strlen(big);
	memset(big + n, 'x', 7000);
	big[n + 7000] = '\0';
	expect_error(big, "c.ini:6: longer than");
	/* Parameters. */
	expect_error(BASE "[params]\nEK3-GATE = 1\n",
		     "c.ini:7: [params] 'EK3-GATE': not a parameter name");
	expect_error(BASE "[params]\nA_VERY_LONG_PARAM_ID = 1\n",
		     "'A_VERY_LONG_PARAM_ID': not a parameter name (1 to 16");
	expect_error(BASE "[params]\nX = 1\nX = 2\n",
		     "c.ini:8: [params] X is given twice");
	expect_error(BASE "[params]\nX = 1\n  2\n",
		     "[params] X is given over two lines");
	expect_error(BASE "[params]\nX = high\n",
		     "c.ini:7: [params] X = high: job 1 () gives 'high', not "
		     "a number");
	expect_error(BASE "[params]\nX = {gate}\n[matrix]\ngate = 3 wide\n",
		     "c.ini:7: [params] X = {gate}: job 2 (gate=wide) gives "
		     "'wide', not a number");
	expect_error(BASE "[params]\nX = {gat}\n[matrix]\ngate = 3\n",
		     "c.ini:7: [params] X: {gat} is neither a matrix axis");
	expect_error(BASE "[params]\nX = 1e999\n", "gives '1e999', not a "
		     "number");
	expect_error(BASE "[params]\nA=1\nB=1\nC=1\nD=1\nE=1\nF=1\nG=1\n"
		     "H=1\nI=1\nJ=1\nK=1\nL=1\nM=1\nN=1\nO=1\nP=1\nQ=1\n",
		     "c.ini:23: [params]: more than 16 parameters");
	/* Missions. */
	expect_error(BASE "[flight]\nmission = 1:2\n",
		     "c.ini:7: [flight] mission: '1:2' is not NORTH:EAST:ALT");
	expect_error(BASE "[flight]\nmission = 1:2:x\n", "'1:2:x' is not");
	expect_error(BASE "[flight]\nmission = 0:0:0.5\n",
		     "'0:0:0.5': wanted within 10000 m of home and 1 to 1000");
	expect_error(BASE "[flight]\nmission = 20000:0:10\n", "'20000:0:10': "
		     "wanted within");
	expect_error(BASE "[flight]\nmission = 0:0:{h}\n[matrix]\nh = 5 0\n",
		     "c.ini:7: [flight] mission: '0:0:0': wanted");
	expect_error(BASE "[flight]\nmission = 0:0:{hh}\n",
		     "[flight] mission: {hh} is neither");
	expect_error(BASE "[flight]\nmission = 1:1:5 1:1:5 1:1:5 1:1:5 1:1:5 "
		     "1:1:5 1:1:5 1:1:5 1:1:5 1:1:5 1:1:5 1:1:5 1:1:5 1:1:5 "
		     "1:1:5 1:1:5 1:1:5\n", "more than 16 waypoints");
	/* Stepped ranges. */
	expect_error(BASE "size = 1..2/0\n", "'1..2/0' is not a range "
		     "A..B/STEP");
	expect_error(BASE "size = 2..1/0.5\n", "'2..1/0.5' is not a range");
	expect_error(BASE "size = 0..100/1\n", "'0..100/1' is not a range");
	expect_error(BASE "size = 0..1/x\n", "'0..1/x' is not a range");
	expect_error(BASE "size = 1..2/0.5 1.5\n", "value '1.5' is given "
		     "twice");
	/* Nine axes: one too many. */
	expect_error(BASE "a=1\nb=1\nc=1\nd=1\ne=1\nf=1\ng=1\nh=1\ni=1\n",
		     "more than 8 axes");
}

static void
test_params_and_steps(void **state)
{
	static struct campaign c;
	char err[512];
	double v;
	(void)state;

	static const char text[] =
		BASE "[params]\nEK3_HGT_I_GATE = {gate}\nEKF2_baro_gate = 2.5\n"
		"[matrix]\nsize = 0.5..2/0.5\nfine = 0.1..0.3/0.1\n"
		"gate = 300 1000\n";
	assert_int_equal(parse(&c, text, err, sizeof(err)), 0);
	assert_int_equal(c.nparams, 2);
	assert_string_equal(c.params[0].name, "EK3_HGT_I_GATE");
	assert_string_equal(c.params[1].name, "EKF2_baro_gate");
	/* The shortest decimals, whatever 0.1 * 3 rounds to in binary. */
	assert_int_equal(c.axes[0].n, 4);
	assert_string_equal(c.axes[0].values[0], "0.5");
	assert_string_equal(c.axes[0].values[3], "2");
	assert_int_equal(c.axes[1].n, 3);
	assert_string_equal(c.axes[1].values[2], "0.3");
	assert_int_equal(c.njobs, 4 * 3 * 2);
	/* Job 1 has gate 300, job 2 gate 1000; the fixed one is fixed. */
	assert_int_equal(campaign_param_value(&c, 0, 1, &v, err, sizeof(err)),
			 0);
	assert_true(v == 300);
	assert_int_equal(campaign_param_value(&c, 0, 2, &v, err, sizeof(err)),
			 0);
	assert_true(v == 1000);
	assert_int_equal(campaign_param_value(&c, 1, 24, &v, err, sizeof(err)),
			 0);
	assert_true(v == 2.5);

	/* A mission, one of its heights an axis. */
	static const char mis[] =
		BASE "[flight]\nmission = 100:0:{h} -20.5:30:5\n[matrix]\n"
		"h = 15 25\n";
	struct campaign_waypoint wp[CAMPAIGN_MAX_WAYPOINTS];
	size_t n;
	assert_int_equal(parse(&c, mis, err, sizeof(err)), 0);
	assert_int_equal(campaign_mission(&c, 2, wp, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 2);
	assert_true(wp[0].north_m == 100 && wp[0].alt_m == 25);
	assert_true(wp[1].north_m == -20.5 && wp[1].east_m == 30 &&
		    wp[1].alt_m == 5);
	/* None: no mission. */
	assert_int_equal(parse(&c, BASE, err, sizeof(err)), 0);
	assert_int_equal(campaign_mission(&c, 1, wp, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
}

/* link = px4-sim-proxy: its options, its names, its mistakes. */
#define PROXY "[campaign]\nautopilot = px4\nlink = px4-sim-proxy\n" \
	      "command = x\nlog = y\n[matrix]\nscenario = s\n[campaign]\n"

static void
test_links(void **state)
{
	static struct campaign c;
	char err[512], out[512];
	(void)state;

	assert_int_equal(parse(&c, PROXY "upstream = sim.local:4600\n"
				  "instance = 1\nports = 20000\n"
				  "barod_args = -p SIM_BARO_RND=0 --seed {job}\n"
				  "gcs = udpout:127.0.0.1:{px4_gcs_port}\n",
			       err, sizeof(err)), 0);
	assert_int_equal(c.link, CAMPAIGN_LINK_PX4_SIM_PROXY);
	assert_string_equal(c.upstream_host, "sim.local");
	assert_int_equal(c.upstream_port, 4600);
	assert_int_equal(c.sim_port, 4560);
	/* Slot 2: instance 3; PX4's ports of instance 3; the slot's. */
	struct campaign_vars v = { .c = &c, .job = 7, .slot = 2, .dir = "/j" };
	assert_int_equal(campaign_expand("{sim_port} {upstream_port} "
					 "{px4_gcs_port} {px4_offboard_port} "
					 "{barod_port} {gcs_port}",
					 &v, out, sizeof(out), err,
					 sizeof(err)), 0);
	assert_string_equal(out, "4563 4603 18573 14583 20022 20021");
	assert_int_equal(campaign_expand(c.gcs, &v, out, sizeof(out), err,
					 sizeof(err)), 0);
	assert_string_equal(out, "udpout:127.0.0.1:18573");
	assert_int_equal(campaign_expand(c.barod_args, &v, out, sizeof(out),
					 err, sizeof(err)), 0);
	assert_string_equal(out, "-p SIM_BARO_RND=0 --seed 7");
	/* The defaults: the flight and baro-drive listen on the slot's. */
	assert_int_equal(parse(&c, BASE, err, sizeof(err)), 0);
	assert_int_equal(c.link, CAMPAIGN_LINK_DRIVE);
	assert_string_equal(c.gcs, "udpin:127.0.0.1:{gcs_port}");
	assert_string_equal(c.drive_connect, "udpin:127.0.0.1:{drive_port}");
	/* A drive that connects out, for PX4's offboard port. */
	assert_int_equal(parse(&c, BASE "[campaign]\ndrive_connect = "
				  "udpout:127.0.0.1:{px4_offboard_port}\n",
			       err, sizeof(err)), 0);

	expect_error(PROXY, "c.ini: [campaign] upstream is missing");
	expect_error(PROXY "upstream = 4600\n",
		     "c.ini:9: [campaign] upstream = 4600: wanted HOST:PORT");
	expect_error(PROXY "upstream = h:0\n", "upstream = h:0: wanted");
	expect_error(PROXY "upstream = h:65001\n", "upstream = h:65001: "
						    "wanted");
	expect_error(PROXY "upstream = h:46x\n", "upstream = h:46x: wanted");
	expect_error(PROXY "upstream = h:1\nsim_port = 80\n",
		     "c.ini:10: [campaign] sim_port = 80: wanted a whole "
		     "number from 1024 to 65000");
	expect_error(PROXY "upstream = h:1\nbarod_args = {nope}\n",
		     "c.ini:10: [campaign] barod_args: {nope} is neither");
	expect_error(PROXY "upstream = h:1\ndrive_connect = udpin:h:1\n",
		     "c.ini:10: [campaign] drive_connect: link = "
		     "px4-sim-proxy runs no baro-drive");
	expect_error("[campaign]\nlink = px4-sim-proxy\ncommand = x\n"
		     "log = y\nupstream = h:1\n[matrix]\nscenario = s\n",
		     "c.ini:2: [campaign] link = px4-sim-proxy: PX4's "
		     "simulator link, wanted autopilot = px4");
	expect_error(BASE "[campaign]\nupstream = h:1\n",
		     "c.ini:7: [campaign] upstream: only with link = "
		     "px4-sim-proxy");
	expect_error(BASE "[campaign]\nsim_port = 5000\n",
		     "c.ini:7: [campaign] sim_port: only with link");
	expect_error(BASE "[campaign]\nbarod_args = -v\n",
		     "c.ini:7: [campaign] barod_args: only with link");
	expect_error(BASE "[campaign]\ngcs = 127.0.0.1:14550\n",
		     "c.ini:7: [campaign] gcs = 127.0.0.1:14550: wanted "
		     "udpin:HOST:PORT (listen) or udpout:HOST:PORT");
	expect_error(BASE "[campaign]\ngcs = tcp:h:1\n",
		     "gcs = tcp:h:1: wanted udpin");
	expect_error(BASE "[campaign]\ngcs = udpout:h:{port}\n",
		     "c.ini:7: [campaign] gcs: {port} is neither");
	expect_error(BASE "[campaign]\ndrive_connect = serial:/dev/x\n",
		     "drive_connect = serial:/dev/x: wanted udpin:HOST:PORT "
		     "(listen) or udpout:HOST:PORT (send first) or "
		     "tcp:HOST:PORT");
	expect_error(BASE "sim_port = 1\n",
		     "[matrix] 'sim_port': an axis is named");
}

/* A barod link's labels: the scenario's timeline on the autopilot's
 * clock, read back by the judge's own parser. */
static void
test_labels(void **state)
{
	static char out[8192];
	char err[256];
	(void)state;

	static const char scn[] = "at 10s glitch 0 5 for 2s\n"
				  "at 20s px4 stuck 0 for 1s\n"
				  "at 30s end\n";
	int n = campaign_labels(scn, strlen(scn), "s.scn", 101020, out,
				sizeof(out), err, sizeof(err));
	assert_true(n > 0);
	assert_non_null(strstr(out, "101020,0,0,start,SIM_BARO_GLITCH,0,"));
	assert_non_null(strstr(out, "111020,10000,1,acked,SIM_BARO_GLITCH,5,"));
	assert_non_null(strstr(out, "113020,12000,1,acked,SIM_BARO_GLITCH,0,"));
	assert_non_null(strstr(out, "121020,20000,2,acked,baro,2,"));
	struct record_labels rl;
	assert_int_equal(record_labels_parse(&rl, out, (size_t)n, "labels.csv",
					     err, sizeof(err)), 0);
	assert_int_equal(record_labels_at(&rl, 111000000u), 0);
	assert_true(record_labels_at(&rl, 111020000u) != 0);
	assert_int_equal(record_labels_at(&rl, 113020000u), 0);
	assert_true(record_labels_at(&rl, 121500000u) != 0);
	assert_int_equal(record_labels_at(&rl, 122500000u), 0);
	assert_true(rl.fault_acked_us == 111020000u);
	record_labels_free(&rl);

	assert_int_equal(campaign_labels(scn, strlen(scn), "s.scn", 0, out, 64,
					 err, sizeof(err)), -ENOSPC);
	assert_int_equal(campaign_labels("at x glitch\n", 12, "s.scn", 0, out,
					 sizeof(out), err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "s.scn:1"));

	/* The latest connection's time 0 counts. */
	static const char log[] =
		"barod: PX4 instance 0: " CAMPAIGN_LABELS_T0_SAY "5000\n"
		"barod: PX4 instance 0: new PX4: physics restarted\n"
		"barod: PX4 instance 0: " CAMPAIGN_LABELS_T0_SAY "9000000\n";
	uint64_t t0 = 0;
	assert_int_equal(campaign_labels_t0(log, strlen(log), &t0), 0);
	assert_true(t0 == 9000000u);
	assert_int_equal(campaign_labels_t0("barod: started\n", 15, &t0),
			 -ENOENT);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_params_and_steps),
		cmocka_unit_test(test_links),
		cmocka_unit_test(test_labels),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
