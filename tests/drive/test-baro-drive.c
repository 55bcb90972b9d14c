/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * baro-drive the program against a scripted ArduPilot and PX4 over UDP,
 * as a user runs it: listening where SITL sends (udpin), a scenario run
 * to its end with its record; a SIGTERM mid-fault that puts everything
 * back; a SIGKILL mid-fault whose state file the next start repairs
 * from; signing both ways; --check and the refusals' exit statuses; the
 * record read by baro-replay --labels beside the autopilot's log of the
 * run, judging its estimate.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ap-peer.h"
#include "atmosphere.h"
#include "harness-cmocka.h"
#include "mavlink-sign.h"
#include "test-files.h"

static struct harness harness;

/* The scripted autopilot on a UDP socket, sending to baro-drive's port. */
struct srv {
	struct ap_peer ap;
	int fd;
	struct sockaddr_in to;
	bool sign;
	struct mavlink_signing signing;
	struct mavlink_parser parser;
	unsigned frames_in, signed_in;
};

static void
srv_open(struct srv *s, enum ap_peer_kind kind, unsigned port)
{
	memset(s, 0, sizeof(*s));
	ap_peer_init(&s->ap, kind);
	mavlink_parser_init(&s->parser);
	s->parser.deliver_signed = true;
	s->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	assert_true(s->fd >= 0);
	s->to = (struct sockaddr_in){ .sin_family = AF_INET,
				      .sin_port = htons((uint16_t)port),
				      .sin_addr.s_addr = htonl(0x7F000001) };
}

static void
count_frame(const struct mavlink_frame *f, void *user)
{
	struct srv *s = user;

	s->frames_in++;
	if (f->incompat_flags & MAVLINK_IFLAG_SIGNED)
		s->signed_in++;
}

/* Serve until the child exits (its code) or max_s pass (-1); with
 * signal_at_s, send it sig then. */
static int
serve(struct srv *s, pid_t pid, double max_s, double signal_at_s, int sig)
{
	uint8_t buf[AP_PEER_QUEUE * MAVLINK_MAX_FRAME];
	const uint64_t t0 = test_mono_us();
	int code;

	for (;;) {
		uint64_t now = test_mono_us();
		if (harness_exited(&harness, pid, &code))
			return code;
		if ((double)(now - t0) > max_s * 1e6)
			return -1;
		if (signal_at_s > 0 && (double)(now - t0) > signal_at_s * 1e6) {
			kill(pid, sig);
			signal_at_s = 0;
		}
		size_t n = ap_peer_step(&s->ap, now, buf, sizeof(buf));
		/* One frame per datagram, signed when asked. */
		for (size_t off = 0; off < n;) {
			size_t len = buf[off] == MAVLINK_STX_V2
					     ? 12u + buf[off + 1]
					     : 8u + buf[off + 1];
			uint8_t f[MAVLINK_MAX_FRAME];
			memcpy(f, buf + off, len);
			int flen = (int)len;
			if (s->sign)
				flen = mavlink_sign_frame(
					&s->signing, f, len, 0,
					mavlink_sign_timestamp((uint64_t)time(
						NULL) * 1000000u));
			(void)!sendto(s->fd, f, (size_t)flen, 0,
				      (struct sockaddr *)&s->to, sizeof(s->to));
			off += len;
		}
		uint8_t in[4096];
		ssize_t r;
		while ((r = recv(s->fd, in, sizeof(in), 0)) > 0) {
			mavlink_parser_feed(&s->parser, in, (size_t)r,
					    count_frame, s);
			mavlink_parser_flush(&s->parser);
			ap_peer_rx(&s->ap, in, (size_t)r, test_mono_us());
		}
		usleep(5000);
	}
}

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *text = calloc(1, 1 << 16);
	assert_non_null(text);
	(void)!fread(text, 1, (1 << 16) - 1, f);
	fclose(f);
	return text;
}

static const char SCN[] = "at 0.5s glitch 0 15 for 1.5s\n"
			  "at 1s px4 delayed 1 200 for 0.5s\n"
			  "at 2.5s end\n";

struct paths {
	char scn[512], state[512], rec[512], connect[64];
	unsigned port;
};

static void
paths_make(struct paths *p, const char *tag)
{
	char name[64];

	snprintf(name, sizeof(name), "%s.scn", tag);
	harness_write(&harness, p->scn, sizeof(p->scn), name, "%s", SCN);
	snprintf(name, sizeof(name), "%s.state", tag);
	harness_path(&harness, p->state, sizeof(p->state), name);
	snprintf(name, sizeof(name), "%s.csv", tag);
	harness_path(&harness, p->rec, sizeof(p->rec), name);
	p->port = harness_free_port(&harness, SOCK_DGRAM, false);
	snprintf(p->connect, sizeof(p->connect), "udpin:127.0.0.1:%u",
		 p->port);
}

static pid_t
start(const struct paths *p, const char *log, const char *extra)
{
	const char *args[] = { "--autopilot", "ardupilot", "--scenario",
			       p->scn, "--connect", p->connect, "--state",
			       p->state, "--record", p->rec, "--wait", "20",
			       extra, NULL };
	pid_t pid = harness_spawn(&harness, log, args);
	/* Until it listens: a datagram before would be refused. */
	usleep(300000);
	return pid;
}

static void
assert_clean(const struct srv *s, const struct paths *p)
{
	assert_float_equal(ap_peer_get(&s->ap, "SIM_BARO_GLITCH"), 0.0, 0);
	assert_float_equal(ap_peer_get(&s->ap, "SIM_BAR2_DELAY"), 0.0, 0);
	assert_int_equal(access(p->state, F_OK), -1);
}

static void
test_run_to_end(void **state)
{
	static struct srv s;
	struct paths p;

	(void)state;
	paths_make(&p, "end");
	srv_open(&s, AP_PEER_ARDUPILOT, p.port);
	pid_t pid = start(&p, "end.log", NULL);
	int code = serve(&s, pid, 30.0, 0, 0);
	char *log = harness_log(&harness, pid);
	if (code != 0)
		fail_msg("exit %d: %s", code, log);
	assert_non_null(strstr(log, "ardupilot autopilot found: system 1"));
	assert_non_null(strstr(log, "autopilot version 4.6.2"));
	assert_non_null(strstr(log, "done: the scenario ran to its end"));
	free(log);
	assert_true(ap_peer_value_at(&s.ap, "SIM_BARO_GLITCH",
				     UINT64_MAX) == 0.0f);
	assert_true(!isnan(ap_peer_value_at(&s.ap, "SIM_BAR2_DELAY",
					    UINT64_MAX)));
	assert_clean(&s, &p);
	char *rec = slurp(p.rec);
	assert_non_null(rec);
	assert_true(strncmp(rec, "ap_ms,scenario_ms,line,event,name,value,"
				 "text\n", 41) == 0);
	assert_non_null(strstr(rec, ",0,0,start,SIM_BARO_GLITCH,0,\"\"\n"));
	assert_non_null(strstr(rec, ",0,0,start,SIM_BAR2_DELAY,0,\"\"\n"));
	assert_non_null(strstr(rec, ",1,acked,SIM_BARO_GLITCH,15,"));
	assert_non_null(strstr(rec, ",2,acked,SIM_BAR2_DELAY,200,"));
	assert_non_null(strstr(rec, ",1,seen,SIM_BARO_GLITCH,15,"
				    "\"SCALED_PRESSURE\"\n"));
	assert_non_null(strstr(rec, ",\"restored\"\n"));
	free(rec);
}

static void
test_sigterm_restores(void **state)
{
	static struct srv s;
	struct paths p;

	(void)state;
	paths_make(&p, "term");
	srv_open(&s, AP_PEER_ARDUPILOT, p.port);
	pid_t pid = start(&p, "term.log", NULL);
	int code = serve(&s, pid, 30.0, 1.3, SIGTERM);
	char *log = harness_log(&harness, pid);
	if (code != 0)
		fail_msg("exit %d: %s", code, log);
	assert_non_null(strstr(log, "stopping: putting everything back"));
	free(log);
	assert_true(ap_peer_value_at(&s.ap, "SIM_BARO_GLITCH", UINT64_MAX) ==
		    0.0f);
	assert_true(s.ap.sets_seen >= 2);
	assert_clean(&s, &p);
}

/* Killed mid-glitch: the state file names the glitch's start; the next
 * start puts it back before anything else. */
static void
test_sigkill_then_repair(void **state)
{
	static struct srv s;
	struct paths p;

	(void)state;
	paths_make(&p, "kill");
	srv_open(&s, AP_PEER_ARDUPILOT, p.port);
	pid_t pid = start(&p, "kill.log", NULL);
	int code = serve(&s, pid, 30.0, 1.3, SIGKILL);
	assert_int_equal(code, 128 + SIGKILL);
	assert_float_equal(ap_peer_get(&s.ap, "SIM_BARO_GLITCH"), 15.0, 0);
	char *st = slurp(p.state);
	assert_non_null(st);
	assert_non_null(strstr(st, "autopilot ardupilot\nSIM_BARO_GLITCH 0\n"));
	free(st);

	/* The same autopilot, a new baro-drive on a new port. */
	struct ap_peer ap = s.ap;
	p.port = harness_free_port(&harness, SOCK_DGRAM, false);
	snprintf(p.connect, sizeof(p.connect), "udpin:127.0.0.1:%u", p.port);
	close(s.fd);
	srv_open(&s, AP_PEER_ARDUPILOT, p.port);
	s.ap = ap;
	s.ap.nq = 0;
	pid = start(&p, "repair.log", NULL);
	code = serve(&s, pid, 30.0, 0, 0);
	char *log = harness_log(&harness, pid);
	if (code != 0)
		fail_msg("exit %d: %s", code, log);
	assert_non_null(strstr(log, "an earlier run left"));
	assert_non_null(strstr(log, "the earlier run's changes are back"));
	free(log);
	assert_clean(&s, &p);
}

/* With a key, what it sends is signed and unsigned frames are not
 * taken: an unsigned autopilot is never found. */
static void
test_signing(void **state)
{
	static struct srv s;
	struct paths p;
	char key[512];
	uint8_t k[MAVLINK_SIGN_KEY_LEN];

	(void)state;
	mavlink_sign_key_from_passphrase("drive", 5, k);
	harness_path(&harness, key, sizeof(key), "drive.key");
	int fd = open(key, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, k, sizeof(k)), (ssize_t)sizeof(k));
	close(fd);

	paths_make(&p, "signed");
	srv_open(&s, AP_PEER_ARDUPILOT, p.port);
	s.sign = true;
	mavlink_signing_init(&s.signing, k,
			     mavlink_sign_timestamp((uint64_t)time(NULL) *
						    1000000u));
	char opt[600];
	snprintf(opt, sizeof(opt), "--signing-key=%s", key);
	pid_t pid = start(&p, "signed.log", opt);
	int code = serve(&s, pid, 30.0, 0, 0);
	char *log = harness_log(&harness, pid);
	if (code != 0)
		fail_msg("exit %d: %s", code, log);
	free(log);
	assert_true(s.frames_in > 5);
	assert_int_equal(s.signed_in, s.frames_in);
	assert_clean(&s, &p);

	paths_make(&p, "unsigned");
	close(s.fd);
	srv_open(&s, AP_PEER_ARDUPILOT, p.port);
	const char *args[] = { "--autopilot", "ardupilot", "--scenario", p.scn,
			       "--connect", p.connect, "--state", p.state,
			       "--wait", "2", opt, NULL };
	pid = harness_spawn(&harness, "unsigned.log", args);
	usleep(300000);
	code = serve(&s, pid, 30.0, 0, 0);
	log = harness_log(&harness, pid);
	assert_int_equal(code, 2);
	assert_non_null(strstr(log, "no autopilot heard"));
	assert_non_null(strstr(log, "frames not signed with the key dropped"));
	free(log);
	assert_int_equal(s.ap.sets_seen, 0);
}

/* ArduPilot's SITL without MAVProxy serves TCP 5760.  It restarts
 * mid-glitch, dropping the connection: baro-drive connects again, sees
 * the restart on the autopilot's clock and puts everything back (exit 3:
 * aborted, nothing left). */
static void
test_tcp_restart(void **state)
{
	static struct srv s;
	struct paths p;
	uint8_t buf[AP_PEER_QUEUE * MAVLINK_MAX_FRAME];

	(void)state;
	paths_make(&p, "tcp");
	p.port = harness_free_port(&harness, SOCK_STREAM, false);
	snprintf(p.connect, sizeof(p.connect), "tcp:127.0.0.1:%u", p.port);
	srv_open(&s, AP_PEER_ARDUPILOT, p.port);
	close(s.fd);
	s.ap.stream = true;
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int one = 1;
	assert_int_equal(setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one,
				    sizeof(one)),
			 0);
	assert_int_equal(bind(lfd, (struct sockaddr *)&s.to, sizeof(s.to)), 0);
	assert_int_equal(listen(lfd, 4), 0);

	pid_t pid = start(&p, "tcp.log", NULL);
	const uint64_t t0 = test_mono_us();
	int conn = -1, code = -1, accepts = 0;
	bool dropped = false;
	for (;;) {
		uint64_t now = test_mono_us();
		if (harness_exited(&harness, pid, &code))
			break;
		assert_true(now - t0 < 30000000u);
		bool down = dropped && now < s.ap.restart_at_us;
		if (conn < 0 && !down) {
			conn = accept4(lfd, NULL, NULL,
				       SOCK_NONBLOCK | SOCK_CLOEXEC);
			if (conn >= 0) {
				accepts++;
				mavlink_parser_init(&s.ap.parser);
				s.ap.parser.deliver_signed = true;
			}
		}
		size_t n = ap_peer_step(&s.ap, now, buf, sizeof(buf));
		if (conn >= 0 && n)
			(void)!send(conn, buf, n, MSG_NOSIGNAL);
		uint8_t in[4096];
		ssize_t r;
		while (conn >= 0 && (r = recv(conn, in, sizeof(in), 0)) > 0)
			ap_peer_rx(&s.ap, in, (size_t)r, test_mono_us());
		/* The glitch is on: SITL goes down for half a second. */
		if (!dropped && conn >= 0 &&
		    ap_peer_get(&s.ap, "SIM_BARO_GLITCH") == 15.0f) {
			dropped = true;
			close(conn);
			conn = -1;
			s.ap.restart_at_us = now + 500000;
		}
		usleep(5000);
	}
	if (conn >= 0)
		close(conn);
	close(lfd);
	char *log = harness_log(&harness, pid);
	if (code != 3)
		fail_msg("exit %d: %s", code, log);
	assert_non_null(strstr(log, "the TCP link closed"));
	assert_non_null(strstr(log, "TCP link connected again"));
	assert_non_null(strstr(log, "aborted: the connection to the "
				    "autopilot dropped mid-scenario"));
	free(log);
	assert_true(dropped);
	assert_int_equal(accepts, 2);
	assert_clean(&s, &p);
}

/* The file the drive ran (tests/drive/same.scn, the SCN above) is one
 * barod --sim and baro-sim run unchanged; test-barod-sitl and
 * test-barod-px4sim run it in --sitl-json and --px4-sim. */
static void
test_same_file_everywhere(void **state)
{
	const char *barod = getenv("BAROD_DAEMON");
	const char *baro_sim = getenv("BARO_SIM");
	const char *scn = getenv("DRIVE_SCN");

	(void)state;
	assert_non_null(barod);
	assert_non_null(baro_sim);
	assert_non_null(scn);
	char *text = slurp(scn);
	assert_non_null(text);
	assert_string_equal(text, SCN);
	free(text);
	struct program_result r = run_program(
		barod,
		(const char *[]){ "barod", "--sim", "--control", "none", "-o",
				  "udp:127.0.0.1:9", "--scenario", scn,
				  "--duration", "3", "-v", NULL },
		NULL);
	if (r.status != 0)
		fail_msg("barod: %d: %s", r.status, r.err);
	assert_non_null(strstr(r.err, "SIM_BARO_GLITCH 0 -> 15 for 1.5s"));
	assert_non_null(strstr(r.err, "SIM_BAR2_DELAY 0 -> 200 for 500ms"));
	program_result_free(&r);
	r = run_program(baro_sim,
			(const char *[]){ "baro-sim", "-g", "static:0",
					  "--duration", "3", "--scenario", scn,
					  NULL },
			NULL);
	if (r.status != 0)
		fail_msg("baro-sim: %d: %s", r.status, r.err);
	assert_true(strlen(r.out) > 1000);
	program_result_free(&r);
}

static int
run_quick(const char *const *args, char **out)
{
	pid_t pid = harness_spawn(&harness, "quick.log", args);
	int code = harness_wait_exit(&harness, pid, NULL);
	*out = harness_log(&harness, pid);
	return code;
}

static void
test_check_and_refusals(void **state)
{
	char scn[512], bad[512];
	char *out;

	(void)state;
	harness_write(&harness, scn, sizeof(scn), "mixed.scn",
		      "at 1s glitch 0 15 for 2s\nat 2s freeze 0 for 1s\n");
	const char *ap[] = { "--autopilot", "ardupilot", "--check",
			     "--scenario", scn, NULL };
	assert_int_equal(run_quick(ap, &out), 0);
	assert_non_null(strstr(out, "mixed.scn:1: PARAM_SET SIM_BARO_GLITCH; "
				    "acts at the next AP_Baro_SITL update"));
	assert_non_null(strstr(out, "mixed.scn:2: PARAM_SET SIM_BARO_FREEZE"));
	free(out);
	const char *px4[] = { "--autopilot", "px4", "--check", "--scenario",
			      scn, NULL };
	assert_int_equal(run_quick(px4, &out), 1);
	assert_non_null(strstr(out, "mixed.scn:1: PARAM_SET SIM_BARO_OFF_P"));
	assert_non_null(strstr(out, "mixed.scn:2: refused: sensor_baro_sim "
				    "has no freeze"));
	free(out);
	/* Refused at load, before any link: exit 2 naming the line. */
	const char *run[] = { "--autopilot", "px4", "--scenario", scn,
			      "--connect", "udpin:127.0.0.1:9", NULL };
	assert_int_equal(run_quick(run, &out), 2);
	assert_non_null(strstr(out, "mixed.scn:2: cannot act on px4's own "
				    "simulated baro: sensor_baro_sim has no "
				    "freeze; instead:"));
	free(out);
	harness_write(&harness, bad, sizeof(bad), "bad.scn", "at 1s melt 0\n");
	const char *b[] = { "--autopilot", "px4", "--scenario", bad, NULL };
	assert_int_equal(run_quick(b, &out), 2);
	assert_non_null(strstr(out, "bad.scn:1:"));
	free(out);
	const char *u[] = { "--autopilot", "inav", "--scenario", bad, NULL };
	assert_int_equal(run_quick(u, &out), 2);
	assert_non_null(strstr(out, "--autopilot 'inav': use ardupilot or px4"));
	free(out);
	const char *c[] = { "--autopilot", "px4", "--scenario", scn,
			    "--connect", "udp:1.2.3.4", NULL };
	harness_write(&harness, scn, sizeof(scn), "ok.scn",
		      "at 1s glitch 0 15 for 2s\n");
	assert_int_equal(run_quick(c, &out), 2);
	assert_non_null(strstr(out, "expected udpin:HOST:PORT"));
	free(out);
}

/*
 * The record as fault labels (baro-replay --labels) beside the log the
 * autopilot wrote of the same run: a CSV on its clock with what its
 * simulated baro read (ap-peer's own history of when each value took
 * effect: PX4 takes SIM_BARO_OFF_P up to a second after acknowledging
 * it), the simulator's truth and its altitude estimate.  An estimate
 * that follows the glitch fails, one that holds the truth passes, and
 * the label starts where the fault did on the autopilot, not at the
 * acknowledgement.
 */
static void
write_log(const struct ap_peer *ap, const char *path, bool follows,
	  uint64_t end_ms)
{
	const bool px4 = ap->kind == AP_PEER_PX4;
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "time_us,pressure_pa,truth_alt_m,ekf_alt_m\n");
	for (uint64_t ms = 10; ms <= end_ms; ms += 10) {
		float up = px4 ? 0.0f
			       : ap_peer_value_at(ap, "SIM_BARO_GLITCH", ms);
		float offp = px4 ? ap_peer_value_at(ap, "SIM_BARO_OFF_P", ms)
				 : 0.0f;
		if (isnan(up))
			up = 0.0f;
		if (isnan(offp))
			offp = 0.0f;
		float pa, t;
		/* A little noise, the same every run. */
		double noise = 0.1 * sin((double)ms * 0.0137);
		atmos_1976_pressure_temperature((float)(584.0 + noise) + up,
						&pa, &t);
		pa += offp;
		/* The glitch as the baro shows it: ~15 m either way. */
		double seen = px4 ? (offp != 0.0f ? -offp / 11.34 : 0.0) : up;
		double est = 584.0 + (follows ? seen : 0.02 * sin(ms * 0.001));
		fprintf(f, "%llu,%.3f,584.000,%.3f\n",
			(unsigned long long)ms * 1000u, (double)pa, est);
	}
	assert_int_equal(fclose(f), 0);
}

/* The first row of the case's CSV labelled with a fault: its t_s
 * (from the stream's first sample). */
static double
first_fault_s(const char *dir)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "cat %s/cases/*.csv", dir);
	FILE *f = popen(cmd, "r");
	assert_non_null(f);
	char line[4096];
	double t = NAN;
	int col = -1;
	while (fgets(line, sizeof(line), f)) {
		if (col < 0) {
			/* The header: which column is "fault". */
			int c = 0;
			for (char *tok = strtok(line, ",\n"); tok;
			     tok = strtok(NULL, ",\n"), c++)
				if (strcmp(tok, "fault") == 0)
					col = c;
			assert_true(col >= 0);
			continue;
		}
		char *fields[64];
		int n = 0;
		for (char *q = line, *tok; n < 64 && (tok = strsep(&q, ",\n"));)
			fields[n++] = tok;
		/* The label's bits: 0 is clean. */
		if (n > col && strtoul(fields[col], NULL, 10) != 0 &&
		    isnan(t))
			t = strtod(fields[0], NULL);
	}
	pclose(f);
	return t;
}

static void
drive_and_judge(enum ap_peer_kind kind)
{
	static struct srv s;
	struct paths p;
	const bool px4 = kind == AP_PEER_PX4;
	const char *tag = px4 ? "judge-px4" : "judge-ap";

	paths_make(&p, tag);
	harness_write(&harness, p.scn, sizeof(p.scn), "judge.scn",
		      "at 8s glitch 0 15 for 4s\nat 16s end\n");
	srv_open(&s, kind, p.port);
	/* SITL at four times real time: the record is on its clock. */
	s.ap.speed = 4.0;
	const char *args[] = { "--autopilot", px4 ? "px4" : "ardupilot",
			       "--scenario", p.scn, "--connect", p.connect,
			       "--state", p.state, "--record", p.rec, "--wait",
			       "20", NULL };
	pid_t pid = harness_spawn(&harness, "judge.log", args);
	usleep(300000);
	int code = serve(&s, pid, 30.0, 0, 0);
	char *log = harness_log(&harness, pid);
	if (code != 0)
		fail_msg("exit %d: %s", code, log);
	free(log);
	/* When the glitch took effect on the autopilot, and its log's end
	 * a few seconds after the drive's. */
	const char *name = px4 ? "SIM_BARO_OFF_P" : "SIM_BARO_GLITCH";
	uint64_t on_ms = 0, end_ms = ap_peer_ms(&s.ap) + 4000;
	for (size_t i = 0; i < s.ap.nhistory; i++)
		if (strcmp(s.ap.history[i].name, name) == 0 &&
		    s.ap.history[i].value != 0.0f && !on_ms)
			on_ms = s.ap.history[i].ap_ms;
	assert_true(on_ms > 0);

	const char *replay = getenv("BARO_REPLAY");
	assert_non_null(replay);
	for (int follows = 0; follows < 2; follows++) {
		char csv[512], dir[512], leaf[64];
		snprintf(leaf, sizeof(leaf), "%s-%s.csv", tag,
			 follows ? "follows" : "holds");
		harness_path(&harness, csv, sizeof(csv), leaf);
		write_log(&s.ap, csv, follows, end_ms);
		snprintf(leaf, sizeof(leaf), "%s-%d.report", tag, follows);
		harness_path(&harness, dir, sizeof(dir), leaf);
		struct program_result r = run_program(
			replay,
			(const char *[]){ "baro-replay", "run", "--labels",
					  p.rec, "-f", "autopilot",
					  "--no-baselines", "--plots", "none",
					  "-q", "-o", dir, csv, NULL },
			NULL);
		print_message("%s %s: exit %d\n%s%s", tag,
			      follows ? "follows" : "holds", r.status, r.out,
			      r.err);
		/* Physics: following a 15 m glitch leaks it, holding the
		 * truth does not. */
		assert_int_equal(r.status, follows ? 1 : 0);
		assert_non_null(strstr(r.out, "autopilot"));
		program_result_free(&r);
		char sum[600];
		snprintf(sum, sizeof(sum), "%s/summary.txt", dir);
		char *text = slurp(sum);
		assert_non_null(text);
		/* Named after the record and its fault. */
		assert_non_null(strstr(text, px4 ? "judge-px4.glitch"
						 : "judge-ap.glitch"));
		/* ... failed for what leaked, nothing else. */
		if (follows)
			assert_non_null(strstr(text, "fail [leakage_m <= 1 "
						     "warn 3 fail: fail]"));
		free(text);
		/* The label starts where the fault did (within one
		 * SCALED_PRESSURE period at 10 Hz, at 4x), however late
		 * after its acknowledgement that was. */
		double t0_s = 0.010;	/* the log's first sample */
		double lab = first_fault_s(dir) + t0_s;
		print_message("%s: fault on the autopilot at %.3f s, "
			      "labelled from %.3f s\n", tag, on_ms * 1e-3,
			      lab);
		assert_true(fabs(lab - (double)on_ms * 1e-3) <= 0.45);
	}
}

static void
test_record_judges_ardupilot(void **state)
{
	(void)state;
	drive_and_judge(AP_PEER_ARDUPILOT);
}

static void
test_record_judges_px4(void **state)
{
	(void)state;
	drive_and_judge(AP_PEER_PX4);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		harness_unit_test(test_run_to_end, &harness),
		harness_unit_test(test_sigterm_restores, &harness),
		harness_unit_test(test_sigkill_then_repair, &harness),
		harness_unit_test(test_signing, &harness),
		harness_unit_test(test_tcp_restart, &harness),
		harness_unit_test(test_same_file_everywhere, &harness),
		harness_unit_test(test_check_and_refusals, &harness),
		harness_unit_test(test_record_judges_ardupilot, &harness),
		harness_unit_test(test_record_judges_px4, &harness),
	};
	return harness_run_tests(&harness, "baro-drive", tests);
}
