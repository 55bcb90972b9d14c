/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * barod as a process: signals, recording, the control socket with baroctl,
 * SIGHUP reload, UDP server and serial outputs, configuration errors.
 * Frames are decoded with barod's own codec here; test-barod-udp.mjs
 * cross-checks them with node-mavlink.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mavlink.h"
#include "test-files.h"
#include "test-util.h"

static char tmpdir[256];

/* Every barod started, so a failed assertion does not leave one running
 * (it would hold the test's output open and hang the run). */
static pid_t children[16];
static size_t n_children;

static void
msleep(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void
path_in_tmp(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmpdir, name);
}

/* Start barod with args; stderr and stdout go to a file in tmpdir. */
static pid_t
start_barod(const char *const *args, const char *log_name)
{
	const char *bin = getenv("BAROD");
	const char *argv[48] = { "barod" };
	int n = 1;
	char log[512];

	assert_non_null(bin);
	for (; args[n - 1]; n++)
		argv[n] = args[n - 1];
	argv[n] = NULL;
	path_in_tmp(log, sizeof(log), log_name);

	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		dup2(fd, 1);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	if (n_children < 16)
		children[n_children++] = pid;
	return pid;
}

static int
wait_exit(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	for (size_t i = 0; i < n_children; i++) {
		if (children[i] == pid)
			children[i] = 0;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

struct capture {
	struct mavlink_parser parser;
	unsigned v1_frames;
	unsigned hil;
	struct mavlink_hil_sensor last_hil;
	unsigned count[256];	/* by msgid & 0xff */
	unsigned frames;
	int last_seq;
	unsigned seq_gaps;
	float last_press_abs[3];
	uint32_t last_time[3];
	struct mavlink_param_value last_pv;
	char last_text[51];
	/* Instance 0's samples in order, for checks on barod's own clock. */
	float press0[1024];
	uint32_t time0[1024];
	unsigned n0;
};

static void
on_frame(const struct mavlink_frame *f, void *user)
{
	struct capture *c = user;

	if (c->last_seq >= 0 && f->seq != ((c->last_seq + 1) & 0xff))
		c->seq_gaps++;
	c->last_seq = f->seq;
	c->frames++;
	c->count[f->msgid & 0xff]++;
	c->v1_frames += f->version == 1;
	if (f->msgid == MAVLINK_MSG_PARAM_VALUE)
		mavlink_unpack_param_value(f->payload, &c->last_pv);
	if (f->msgid == MAVLINK_MSG_STATUSTEXT) {
		struct mavlink_statustext st;
		mavlink_unpack_statustext(f->payload, &st);
		memcpy(c->last_text, st.text, sizeof(c->last_text));
	}
	if (f->msgid == MAVLINK_MSG_HIL_SENSOR) {
		c->hil++;
		mavlink_unpack_hil_sensor(f->payload, &c->last_hil);
	}
	int i = f->msgid == MAVLINK_MSG_SCALED_PRESSURE	   ? 0
		: f->msgid == MAVLINK_MSG_SCALED_PRESSURE2 ? 1
		: f->msgid == MAVLINK_MSG_SCALED_PRESSURE3 ? 2
							   : -1;
	if (i >= 0) {
		struct mavlink_scaled_pressure m;
		mavlink_unpack_scaled_pressure(f->payload, &m);
		c->last_press_abs[i] = m.press_abs;
		c->last_time[i] = m.time_boot_ms;
		if (i == 0 && c->n0 < 1024) {
			c->press0[c->n0] = m.press_abs;
			c->time0[c->n0++] = m.time_boot_ms;
		}
	}
}

static void
capture_init(struct capture *c)
{
	memset(c, 0, sizeof(*c));
	mavlink_parser_init(&c->parser);
	c->last_seq = -1;
}

/* Read whatever datagrams are waiting. */
static void
drain(int fd, struct capture *c)
{
	uint8_t buf[2048];
	ssize_t n;

	while ((n = recv(fd, buf, sizeof(buf), 0)) > 0) {
		mavlink_parser_feed(&c->parser, buf, (size_t)n, on_frame, c);
		mavlink_parser_flush(&c->parser);
	}
}

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Drain for ms milliseconds of wall time. */
static void
capture_for(int fd, struct capture *c, unsigned ms)
{
	const uint64_t end = now_ms() + ms;

	for (uint64_t t = now_ms(); t < end; t = now_ms()) {
		struct pollfd p = { fd, POLLIN, 0 };
		poll(&p, 1, (int)(end - t));
		drain(fd, c);
	}
}

/* ------------------------------------------------------------------ */

static void
test_sigterm_completes_record(void **state)
{
	char record[512], out[64];
	unsigned port;
	struct capture cap;
	(void)state;

	int fd = udp_loopback(&port, SOCK_NONBLOCK);
	snprintf(out, sizeof(out), "udp:127.0.0.1:%u", port);
	path_in_tmp(record, sizeof(record), "record.csv");
	capture_init(&cap);

	for (int sig = 0; sig < 2; sig++) {
		pid_t pid = start_barod((const char *[]){
			"--sim", "--control", "none", "-o", out, "--record",
			record, NULL }, "sigterm.log");
		capture_for(fd, &cap, 700);
		kill(pid, sig == 0 ? SIGTERM : SIGINT);
		assert_int_equal(wait_exit(pid), 0);
		capture_for(fd, &cap, 100);

		char *text = read_file(record);
		int lines = count_lines(text);
		size_t len = strlen(text);
		/* Complete: whole lines only, one per sample published. */
		assert_true(len > 0 && text[len - 1] == '\n');
		assert_true(lines > 40);
		unsigned published = cap.count[MAVLINK_MSG_SCALED_PRESSURE] +
				     cap.count[MAVLINK_MSG_SCALED_PRESSURE2];
		assert_int_equal((unsigned)(lines - 1), published);
		assert_int_equal(cap.seq_gaps, 0);
		free(text);
		capture_init(&cap);
	}
	close(fd);
}

static int
run_baroctl(const char *sock, const char *a1, const char *a2, const char *a3,
	    char *out, size_t outlen)
{
	char cmd[4096];
	int len = snprintf(cmd, sizeof(cmd), "%s -s %s %s %s %s 2>&1",
			   getenv("BAROCTL"), sock, a1, a2 ? a2 : "",
			   a3 ? a3 : "");

	assert_true(len > 0 && (size_t)len < sizeof(cmd));
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	size_t n = fread(out, 1, outlen - 1, p);
	out[n] = '\0';
	int status = pclose(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void
test_control_socket(void **state)
{
	char sock[512], out[64], reply[4096];
	unsigned port;
	struct capture cap;
	struct stat st;
	(void)state;

	int fd = udp_loopback(&port, SOCK_NONBLOCK);
	snprintf(out, sizeof(out), "udp:127.0.0.1:%u", port);
	path_in_tmp(sock, sizeof(sock), "control");
	capture_init(&cap);
	pid_t pid = start_barod((const char *[]){
		"--sim", "--control", sock, "-o", out, "-p", "SIM_BARO_RND=0",
		"--duration", "5", NULL }, "control.log");
	capture_for(fd, &cap, 500);

	/* Owner-only by default. */
	assert_int_equal(stat(sock, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);

	assert_int_equal(run_baroctl(sock, "status", NULL, NULL, reply,
				     sizeof(reply)), 0);
	assert_non_null(strstr(reply, "baro 0 healthy"));
	assert_non_null(strstr(reply, "baro 1 healthy"));
	assert_non_null(strstr(reply, "sent "));

	assert_int_equal(run_baroctl(sock, "get", "SIM_BARO_GLITCH", NULL,
				     reply, sizeof(reply)), 0);
	assert_string_equal(reply, "SIM_BARO_GLITCH 0\n");
	assert_int_equal(run_baroctl(sock, "get", NULL, NULL, reply,
				     sizeof(reply)), 0);
	assert_int_equal(count_lines(reply), 41);

	float before = cap.last_press_abs[0];
	assert_int_equal(run_baroctl(sock, "set", "SIM_BARO_GLITCH", "100",
				     reply, sizeof(reply)), 0);
	assert_non_null(strstr(reply, "SIM_BARO_GLITCH 0 -> 100"));
	capture_init(&cap);
	capture_for(fd, &cap, 200);
	/* 100 m higher: about 12 hPa less. */
	assert_true(before - cap.last_press_abs[0] > 11.5f);
	assert_true(cap.count[MAVLINK_MSG_STATUSTEXT & 0xff] == 0 ||
		    cap.count[MAVLINK_MSG_STATUSTEXT & 0xff] == 1);

	assert_int_equal(run_baroctl(sock, "set", "SIM_BARO_GLICH", "1", reply,
				     sizeof(reply)), 1);
	assert_non_null(strstr(reply, "did you mean SIM_BARO_GLITCH"));
	assert_int_equal(run_baroctl(sock, "set", "SIM_BARO_COUNT", "9", reply,
				     sizeof(reply)), 1);
	assert_non_null(strstr(reply, "out of range"));
	assert_int_equal(run_baroctl(sock, "frobnicate", NULL, NULL, reply,
				     sizeof(reply)), 2);
	assert_non_null(strstr(reply, "unknown command"));

	kill(pid, SIGTERM);
	assert_int_equal(wait_exit(pid), 0);
	/* The socket goes away with barod. */
	assert_int_equal(stat(sock, &st), -1);
	assert_int_equal(run_baroctl(sock, "status", NULL, NULL, reply,
				     sizeof(reply)), 2);
	assert_non_null(strstr(reply, "is barod running?"));
	close(fd);
}

/* PX4-style injections and scenarios through baroctl. */
static void
test_faults_through_control(void **state)
{
	char sock[512], out[64], reply[4096], scn[512];
	unsigned port;
	struct capture cap;
	(void)state;

	int fd = udp_loopback(&port, SOCK_NONBLOCK);
	snprintf(out, sizeof(out), "udp:127.0.0.1:%u", port);
	path_in_tmp(sock, sizeof(sock), "control-faults");
	pid_t pid = start_barod((const char *[]){
		"--sim", "--control", sock, "-o", out, "-p", "SIM_BARO_RND=0",
		"-p", "SIM_BAR2_RND=0", "--duration", "8", NULL }, "faults.log");
	capture_init(&cap);
	capture_for(fd, &cap, 300);
	const float normal = cap.last_press_abs[0];

	/* slow: instance 0 publishes every 10th sample, instance 1 all.
	 * Frames already queued when the command lands are let through
	 * first; then, on barod's clock, instance 0 comes every 100 ms. */
	assert_int_equal(run_baroctl(sock, "inject", "slow", "0", reply,
				     sizeof(reply)), 0);
	capture_for(fd, &cap, 200);
	capture_init(&cap);
	capture_for(fd, &cap, 1000);
	unsigned p0 = cap.count[MAVLINK_MSG_SCALED_PRESSURE];
	unsigned p1 = cap.count[MAVLINK_MSG_SCALED_PRESSURE2];
	assert_true(p0 >= 5 && p1 >= 50);
	for (unsigned k = 1; k < cap.n0; k++)
		assert_int_equal(cap.time0[k] - cap.time0[k - 1], 100);
	assert_int_equal(run_baroctl(sock, "status", NULL, NULL, reply,
				     sizeof(reply)), 0);
	assert_non_null(strstr(reply, "baro 0 overlay slow"));

	/* wrong 30 m: 30 m higher reads about 3.5 hPa lower. */
	assert_int_equal(run_baroctl(sock, "inject", "wrong", "0 30", reply,
				     sizeof(reply)), 0);
	assert_int_equal(run_baroctl(sock, "inject", "ok", "0", reply,
				     sizeof(reply)), 0);
	capture_init(&cap);
	capture_for(fd, &cap, 300);
	assert_true(cap.count[MAVLINK_MSG_SCALED_PRESSURE] >= 25);
	assert_float_exact(cap.last_press_abs[0], normal);

	assert_int_equal(run_baroctl(sock, "inject", "broken", "0", reply,
				     sizeof(reply)), 1);
	assert_non_null(strstr(reply, "unknown fault 'broken'"));
	assert_int_equal(run_baroctl(sock, "inject", "off", "7", reply,
				     sizeof(reply)), 1);

	/* A scenario on barod's clock: 50 m from 300 to 700 ms, then back. */
	path_in_tmp(scn, sizeof(scn), "glitch.scn");
	write_file(scn, "# test\nat 300ms glitch 0 50 for 400ms\n");
	assert_int_equal(run_baroctl(sock, "scenario load", scn, NULL, reply,
				     sizeof(reply)), 0);
	capture_init(&cap);
	capture_for(fd, &cap, 1500);
	/* On barod's clock: exactly 40 samples (400 ms) glitched, one run,
	 * and the normal pressure before and after it. */
	unsigned glitched = 0, first = 0, last = 0;
	for (unsigned k = 0; k < cap.n0; k++) {
		if (normal - cap.press0[k] > 5.0f) {
			if (!glitched)
				first = k;
			last = k;
			glitched++;
		} else {
			assert_float_exact(cap.press0[k], normal);
		}
	}
	assert_int_equal(glitched, 40);
	assert_int_equal(last - first + 1, 40);
	assert_true(first > 0 && last + 1 < cap.n0);
	assert_true(cap.count[MAVLINK_MSG_STATUSTEXT & 0xff] >= 2);

	write_file(scn, "at 1s glitch 0 50 for 1s\nat 0s restore\n");
	assert_int_equal(run_baroctl(sock, "scenario load", scn, NULL, reply,
				     sizeof(reply)), 1);
	assert_non_null(strstr(reply, "glitch.scn:2:"));
	assert_int_equal(run_baroctl(sock, "scenario", "stop", NULL, reply,
				     sizeof(reply)), 0);

	kill(pid, SIGTERM);
	assert_int_equal(wait_exit(pid), 0);
	close(fd);

	/* A bad --scenario stops barod at start-up with FILE:LINE. */
	write_file(scn, "at 1s frobnicate 0\n");
	pid = start_barod((const char *[]){ "--sim", "--control", "none",
					    "--scenario", scn, NULL },
			  "badscn.log");
	assert_int_equal(wait_exit(pid), 2);
	char log[512];
	path_in_tmp(log, sizeof(log), "badscn.log");
	char *l = read_file(log);
	assert_non_null(strstr(l, "glitch.scn:1:"));
	free(l);
}

/* Per-message rates from the file, HIL_SENSOR, MAVLink 1. */
static void
test_rates_hil_and_v1(void **state)
{
	char conf[512], text[1024];
	unsigned pa, pb;
	struct capture ca, cb;
	(void)state;

	int fa = udp_loopback(&pa, SOCK_NONBLOCK), fb = udp_loopback(&pb, SOCK_NONBLOCK);
	path_in_tmp(conf, sizeof(conf), "rates.conf");
	snprintf(text, sizeof(text),
		 "[barod]\nsource = sim\ncontrol = none\n"
		 "[sim]\nSIM_BARO_RND = 0\nSIM_BARO_COUNT = 1\n"
		 "profile = static:100\n"
		 "[mavlink]\nscaled_pressure_hz = 10\nhil_sensor_hz = all\n"
		 "[output a]\ntype = udp-client\naddress = 127.0.0.1:%u\n"
		 "[output b]\ntype = udp-client\naddress = 127.0.0.1:%u\n"
		 "scaled_pressure_hz = 0\nhil_sensor_hz = 0\nheartbeat_hz = 5\n",
		 pa, pb);
	write_file(conf, text);
	capture_init(&ca);
	capture_init(&cb);
	pid_t pid = start_barod((const char *[]){ "-c", conf, "--duration",
						  "2", NULL }, "rates.log");
	assert_int_equal(wait_exit(pid), 0);
	drain(fa, &ca);
	drain(fb, &cb);

	/* a: SCALED_PRESSURE at 10 Hz on barod's clock, HIL_SENSOR at 100. */
	assert_true(ca.n0 >= 19 && ca.n0 <= 21);
	for (unsigned k = 1; k < ca.n0; k++)
		assert_int_equal(ca.time0[k] - ca.time0[k - 1], 100);
	assert_int_equal(ca.hil, 200);
	assert_int_equal(ca.last_hil.id, 0);
	assert_int_equal(ca.last_hil.fields_updated, 0x1A00);
	assert_float_exact(ca.last_hil.abs_pressure, ca.last_press_abs[0]);
	assert_close_abs(ca.last_hil.pressure_alt, 100.0, 0.01);
	assert_int_equal(ca.count[MAVLINK_MSG_HEARTBEAT], 2);
	/* b: heartbeats only, 5 Hz. */
	assert_int_equal(cb.count[MAVLINK_MSG_HEARTBEAT], 10);
	assert_int_equal(cb.frames, 10);

	/* protocol = 1: every frame goes out as MAVLink 1. */
	snprintf(text, sizeof(text),
		 "[barod]\nsource = sim\ncontrol = none\n"
		 "[mavlink]\nprotocol = 1\n"
		 "[output a]\ntype = udp-client\naddress = 127.0.0.1:%u\n",
		 pa);
	write_file(conf, text);
	capture_init(&ca);
	pid = start_barod((const char *[]){ "-c", conf, "--duration", "0.5",
					    NULL }, "v1.log");
	assert_int_equal(wait_exit(pid), 0);
	drain(fa, &ca);
	assert_true(ca.frames >= 100);
	assert_int_equal(ca.v1_frames, ca.frames);
	close(fa);
	close(fb);
}

/* SIGHUP re-reads the file: an unchanged output keeps its socket (its
 * sequence continues without a gap), a changed one moves, SIM_* values
 * changed in the file apply. */
static void
test_sighup_reload(void **state)
{
	char conf[512], text[1024];
	unsigned pa, pb, pc;
	struct capture ca, cb, cc;
	(void)state;

	int fa = udp_loopback(&pa, SOCK_NONBLOCK), fb = udp_loopback(&pb, SOCK_NONBLOCK),
	    fc = udp_loopback(&pc, SOCK_NONBLOCK);
	path_in_tmp(conf, sizeof(conf), "reload.conf");
	snprintf(text, sizeof(text),
		 "[barod]\nsource = sim\ncontrol = none\n"
		 "[sim]\nSIM_BARO_RND = 0\nSIM_BARO_COUNT = 1\n"
		 "[output a]\ntype = udp-client\naddress = 127.0.0.1:%u\n"
		 "[output b]\ntype = udp-client\naddress = 127.0.0.1:%u\n",
		 pa, pb);
	write_file(conf, text);
	capture_init(&ca);
	capture_init(&cb);
	capture_init(&cc);

	pid_t pid = start_barod((const char *[]){ "-c", conf, NULL },
				"reload.log");
	capture_for(fa, &ca, 400);
	drain(fb, &cb);
	float before = ca.last_press_abs[0];
	assert_true(cb.frames > 20);

	snprintf(text, sizeof(text),
		 "[barod]\nsource = sim\ncontrol = none\n"
		 "[sim]\nSIM_BARO_RND = 0\nSIM_BARO_COUNT = 1\n"
		 "SIM_BARO_GLITCH = 50\n"
		 "[output a]\ntype = udp-client\naddress = 127.0.0.1:%u\n"
		 "[output b]\ntype = udp-client\naddress = 127.0.0.1:%u\n",
		 pa, pc);
	write_file(conf, text);
	kill(pid, SIGHUP);
	msleep(100);
	drain(fb, &cb);
	unsigned b_frames = cb.frames;
	capture_for(fa, &ca, 400);
	drain(fc, &cc);
	drain(fb, &cb);

	assert_int_equal(ca.seq_gaps, 0);	/* a kept its socket */
	assert_int_equal(cb.frames, b_frames);	/* b is gone */
	assert_true(cc.frames > 20);		/* c took its place */
	assert_true(before - ca.last_press_abs[0] > 5.0f);	/* 50 m */
	assert_int_equal(ca.count[MAVLINK_MSG_STATUSTEXT & 0xff], 1);
	assert_int_equal(ca.count[MAVLINK_MSG_PARAM_VALUE & 0xff], 1);

	/* A broken file on reload keeps the running configuration. */
	write_file(conf, "[barod]\nsource = nothing\n");
	kill(pid, SIGHUP);
	capture_init(&ca);
	capture_for(fa, &ca, 300);
	assert_true(ca.frames > 20);

	kill(pid, SIGTERM);
	assert_int_equal(wait_exit(pid), 0);
	char log[512];
	path_in_tmp(log, sizeof(log), "reload.log");
	char *l = read_file(log);
	/* The file's change is told like a GCS's or baroctl's. */
	assert_non_null(strstr(l, "SIM_BARO_GLITCH 0 -> 50 (configuration)"));
	assert_null(strstr(l, "SIM_BARO_RND 0 -> 0"));
	assert_non_null(strstr(l, "reload.conf:2: source = 'nothing'"));
	assert_non_null(strstr(l, "keeping the running configuration"));
	free(l);
	close(fa);
	close(fb);
	close(fc);
}

static void
test_udp_server(void **state)
{
	unsigned port;
	char out[64];
	struct capture cap;
	(void)state;

	/* Find a free port, then let barod bind it. */
	int probe = udp_loopback(&port, SOCK_NONBLOCK);
	close(probe);
	snprintf(out, sizeof(out), "udp-server:127.0.0.1:%u", port);
	pid_t pid = start_barod((const char *[]){ "--sim", "--control", "none",
						  "-o", out, "--duration", "2",
						  NULL }, "server.log");
	msleep(300);

	/* A client makes itself known with any MAVLink frame. */
	unsigned myport;
	int fd = udp_loopback(&myport, SOCK_NONBLOCK);
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 }, frame[MAVLINK_MAX_FRAME];
	struct mavlink_heartbeat hb = { .type = 6, .autopilot = 8,
					.mavlink_version = 3 };
	mavlink_pack_heartbeat(&hb, pl);
	int n = mavlink_frame_encode(frame, 2, 0, 255, 190,
				     MAVLINK_MSG_HEARTBEAT, pl);
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	assert_int_equal(sendto(fd, frame, (size_t)n, 0,
				(struct sockaddr *)&sa, sizeof(sa)), n);
	capture_init(&cap);
	capture_for(fd, &cap, 500);
	assert_true(cap.count[MAVLINK_MSG_SCALED_PRESSURE] > 30);
	assert_int_equal(wait_exit(pid), 0);

	char log[512];
	path_in_tmp(log, sizeof(log), "server.log");
	close(fd);
}

static void
test_serial_pty(void **state)
{
	struct capture cap;
	char out[128];
	(void)state;

	int master = posix_openpt(O_RDWR | O_NOCTTY);
	assert_true(master >= 0);
	assert_int_equal(grantpt(master), 0);
	assert_int_equal(unlockpt(master), 0);
	snprintf(out, sizeof(out), "serial:%s:921600", ptsname(master));
	pid_t pid = start_barod((const char *[]){ "--sim", "--control", "none",
						  "-o", out, "--duration", "1",
						  NULL }, "serial.log");
	capture_init(&cap);
	uint8_t buf[4096];
	/* Read until barod has exited and the line is quiet. */
	const uint64_t deadline = now_ms() + 5000;
	int status = -1;
	for (;;) {
		struct pollfd p = { master, POLLIN, 0 };
		int ready = poll(&p, 1, 50);
		if (ready > 0) {
			ssize_t n = read(master, buf, sizeof(buf));
			if (n > 0) {
				mavlink_parser_feed(&cap.parser, buf, (size_t)n,
						    on_frame, &cap);
				continue;
			}
		}
		if (status < 0 && waitpid(pid, &status, WNOHANG) == pid)
			continue;
		if (status >= 0 || now_ms() > deadline)
			break;
	}
	assert_true(status >= 0);
	children[--n_children] = 0;
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_true(cap.count[MAVLINK_MSG_HEARTBEAT] >= 1);
	assert_true(cap.count[MAVLINK_MSG_SCALED_PRESSURE] > 50);
	assert_int_equal(cap.parser.stats.bad_crc, 0);
	assert_int_equal(cap.seq_gaps, 0);
	close(master);
}

/* A serial line nobody reads: the loop keeps time (it never blocks on
 * the line) and every frame is either sent or counted as dropped. */
static void
test_blocked_serial_counts_drops(void **state)
{
	char conf[512], text[512], log[512];
	unsigned long long sent = 0, dropped = 0;
	(void)state;

	int master = posix_openpt(O_RDWR | O_NOCTTY);
	assert_true(master >= 0);
	assert_int_equal(grantpt(master), 0);
	assert_int_equal(unlockpt(master), 0);
	path_in_tmp(conf, sizeof(conf), "blocked.conf");
	snprintf(text, sizeof(text),
		 "[barod]\nsource = sim\ncontrol = none\n"
		 "[sim]\nSIM_BARO_COUNT = 3\n"
		 "[mavlink]\nhil_sensor_hz = all\n"
		 "[output fc]\ntype = serial\ndevice = %s\nbaud = 921600\n",
		 ptsname(master));
	write_file(conf, text);
	const uint64_t t0 = now_ms();
	pid_t pid = start_barod((const char *[]){ "-c", conf, "--duration",
						  "4", "-v", NULL },
				"blocked.log");
	assert_int_equal(wait_exit(pid), 0);
	/* 4 s of simulation in about 4 s of wall time. */
	assert_true(now_ms() - t0 < 5500);

	path_in_tmp(log, sizeof(log), "blocked.log");
	char *l = read_file(log);
	char *r = strstr(l, "output fc serial");
	r = r ? strstr(r + 1, "output fc serial") : NULL;
	assert_non_null(r);
	assert_int_equal(sscanf(strstr(r, "sent"), "sent %llu, dropped %llu",
				&sent, &dropped), 2);
	free(l);
	/* 4 heartbeats, 400 SCALED_PRESSURE* and 400 HIL_SENSOR per baro. */
	assert_int_equal(sent + dropped, 4 + 3 * 400 * 2);
	assert_true(dropped > 0);
	close(master);
}

static void
test_config_errors(void **state)
{
	char conf[512], log[512];
	(void)state;

	path_in_tmp(conf, sizeof(conf), "bad.conf");
	path_in_tmp(log, sizeof(log), "bad.log");
	write_file(conf, "[barod]\nsource = sim\n\n[sim]\nSIM_BAR2_DELAY = x\n");
	pid_t pid = start_barod((const char *[]){ "-c", conf, NULL }, "bad.log");
	assert_int_equal(wait_exit(pid), 2);
	char *l = read_file(log);
	assert_non_null(strstr(l, "bad.conf:5: SIM_BAR2_DELAY: 'x' is not a "
				  "number"));
	free(l);

	pid = start_barod((const char *[]){ "-c", conf, "--check-config", NULL },
			  "bad.log");
	assert_int_equal(wait_exit(pid), 2);

	write_file(conf, "[barod]\nsource = sim\n");
	pid = start_barod((const char *[]){ "-c", conf, "--check-config", NULL },
			  "good.log");
	assert_int_equal(wait_exit(pid), 0);
	path_in_tmp(log, sizeof(log), "good.log");
	l = read_file(log);
	/* ArduPilot 4.6's atmosphere by default; sea-level home. */
	assert_non_null(strstr(l, "home 0.00 m AMSL, atmosphere 1976"));
	free(l);

	/* The SITL modes default to ArduPilot's home (CMAC, 584 m), and
	 * an explicit home or model wins. */
	pid = start_barod((const char *[]){ "--sitl-json", "--check-config",
					    "-c", "/dev/null", NULL },
			  "good.log");
	assert_int_equal(wait_exit(pid), 0);
	l = read_file(log);
	assert_non_null(strstr(l, "source sitl-json"));
	assert_non_null(strstr(l, "home 584.00 m AMSL, atmosphere 1976"));
	free(l);
	pid = start_barod((const char *[]){ "--sitl-json-proxy", "127.0.0.1:9012",
					    "--home-alt", "12.5", "--atmosphere",
					    "simple", "--check-config", "-c",
					    "/dev/null", NULL },
			  "good.log");
	assert_int_equal(wait_exit(pid), 0);
	l = read_file(log);
	assert_non_null(strstr(l, "home 12.50 m AMSL, atmosphere simple"));
	free(l);
	path_in_tmp(log, sizeof(log), "bad.log");

	pid = start_barod((const char *[]){ "-c", "/nonexistent.conf", NULL },
			  "bad.log");
	assert_int_equal(wait_exit(pid), 2);
	pid = start_barod((const char *[]){ "--sim", "-o", "tcp:1:2", NULL },
			  "bad.log");
	assert_int_equal(wait_exit(pid), 2);
	/* No source at all. */
	pid = start_barod((const char *[]){ "-c", "/dev/null", NULL },
			  "bad.log");
	assert_int_equal(wait_exit(pid), 2);
	l = read_file(log);
	assert_non_null(strstr(l, "no source"));
	free(l);

	/* The first error in the file is the one reported. */
	write_file(conf, "[barod]\nsource = sim\nnot ini\n[sim]\nfoo = 1\n");
	pid = start_barod((const char *[]){ "-c", conf, NULL }, "bad.log");
	assert_int_equal(wait_exit(pid), 2);
	l = read_file(log);
	assert_non_null(strstr(l, "bad.conf:3: syntax error"));
	free(l);

	/* An unknown option is one line naming it, not the usage. */
	pid = start_barod((const char *[]){ "--sim", "--frobnicate", NULL },
			  "bad.log");
	assert_int_equal(wait_exit(pid), 2);
	l = read_file(log);
	assert_string_equal(l, "barod: unknown option '--frobnicate' (see "
			       "--help)\n");
	free(l);
}

static void
test_version(void **state)
{
	char cmd[600], out[128];
	(void)state;

	snprintf(cmd, sizeof(cmd), "%s --version", getenv("BAROD"));
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	size_t n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	assert_int_equal(pclose(p), 0);
	assert_string_equal(out, "barod " BAROD_VERSION "\n");
}

/* Wait (up to 10 s) until baroctl status gets an answer on sock. */
static void
wait_control(const char *sock)
{
	char reply[4096];

	for (int i = 0; i < 200; i++) {
		if (run_baroctl(sock, "status", NULL, NULL, reply,
				sizeof(reply)) == 0)
			return;
		msleep(50);
	}
	fail_msg("no barod answered on %s", sock);
}

/* How many names in dir start with prefix. */
static int
count_entries(const char *dir, const char *prefix)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(dp);
	while ((e = readdir(dp)) != NULL)
		n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	closedir(dp);
	return n;
}

/* A second barod on a live control socket is refused and changes
 * nothing; a socket left by a killed barod is taken over.  Record files
 * take their name only when barod stops cleanly. */
static void
test_one_barod_per_socket(void **state)
{
	char sock[512], rec_a[512], rec_b[512], log[512], reply[4096];
	struct stat st;
	(void)state;

	path_in_tmp(sock, sizeof(sock), "control-one");
	path_in_tmp(rec_a, sizeof(rec_a), "rec-a.csv");
	path_in_tmp(rec_b, sizeof(rec_b), "rec-b.csv");
	path_in_tmp(log, sizeof(log), "second.log");
	write_file(rec_a, "keep a\n");
	write_file(rec_b, "keep b\n");

	pid_t a = start_barod((const char *[]){
		"--sim", "--control", sock, "-o", "udp:127.0.0.1:9",
		"--record", rec_a, NULL }, "first.log");
	wait_control(sock);

	pid_t b = start_barod((const char *[]){
		"--sim", "--control", sock, "-o", "udp:127.0.0.1:9",
		"--record", rec_b, NULL }, "second.log");
	assert_int_equal(wait_exit(b), 2);
	char *l = read_file(log);
	assert_non_null(strstr(l, "another barod is answering on it"));
	assert_int_equal(count_lines(l), 1);
	free(l);
	/* The refused barod touched neither the socket nor its record. */
	assert_int_equal(run_baroctl(sock, "status", NULL, NULL, reply,
				     sizeof(reply)), 0);
	l = read_file(rec_b);
	assert_string_equal(l, "keep b\n");
	free(l);
	assert_int_equal(count_entries(tmpdir, ".rec-b.csv"), 0);
	/* The running one writes aside: the old file is whole meanwhile. */
	l = read_file(rec_a);
	assert_string_equal(l, "keep a\n");
	free(l);
	assert_int_equal(count_entries(tmpdir, ".rec-a.csv."), 1);

	/* Killed: its socket stays behind, nobody listening; its
	 * unfinished record never takes the name. */
	kill(a, SIGKILL);
	assert_int_equal(wait_exit(a), 128 + SIGKILL);
	assert_int_equal(stat(sock, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	l = read_file(rec_a);
	assert_string_equal(l, "keep a\n");
	free(l);

	pid_t c = start_barod((const char *[]){
		"--sim", "--control", sock, "-o", "udp:127.0.0.1:9",
		"--record", rec_b, "--duration", "3", NULL }, "third.log");
	wait_control(sock);
	assert_int_equal(wait_exit(c), 0);
	assert_int_equal(stat(sock, &st), -1);
	l = read_file(rec_b);
	assert_true(strncmp(l, "time_ms,instance,", 17) == 0);
	assert_int_equal(count_lines(l), 1 + 2 * 300);
	free(l);
	assert_int_equal(count_entries(tmpdir, ".rec-b.csv"), 0);
}

/* Two barods started together on one path: one gets the socket, the
 * other is refused, never both running with one unreachable. */
static void
test_two_barods_at_once(void **state)
{
	char sock[512], reply[4096];
	struct stat st;
	(void)state;

	path_in_tmp(sock, sizeof(sock), "control-race");
	for (int round = 0; round < 5; round++) {
		pid_t p[2];
		for (int k = 0; k < 2; k++)
			p[k] = start_barod((const char *[]){
				"--sim", "--control", sock, "-o",
				"udp:127.0.0.1:9", NULL },
				k ? "race-b.log" : "race-a.log");
		int refused = -1, status;
		for (int i = 0; i < 400 && refused < 0; i++) {
			for (int k = 0; k < 2 && refused < 0; k++) {
				if (waitpid(p[k], &status, WNOHANG) == p[k])
					refused = k;
			}
			msleep(25);
		}
		if (refused < 0)
			fail_msg("round %d: both barods run on one socket",
				 round);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 2);
		for (size_t i = 0; i < n_children; i++) {
			if (children[i] == p[refused])
				children[i] = 0;
		}
		assert_int_equal(run_baroctl(sock, "status", NULL, NULL, reply,
					     sizeof(reply)), 0);
		kill(p[!refused], SIGTERM);
		assert_int_equal(wait_exit(p[!refused]), 0);
		assert_int_equal(stat(sock, &st), -1);
	}
}

/* Send one frame from a GCS (255/190) to barod's udp-server at port. */
static void
gcs_send(int fd, unsigned port, uint32_t msgid, const uint8_t *pl)
{
	uint8_t frame[MAVLINK_MAX_FRAME];
	static uint8_t seq;
	int n = mavlink_frame_encode(frame, 2, seq++, 255, 190, msgid, pl);
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };

	assert_int_equal(sendto(fd, frame, (size_t)n, 0,
				(struct sockaddr *)&sa, sizeof(sa)), n);
}

/* A GCS's PARAM_SET outside the atmosphere's domain is refused as one
 * outside the table's range is: a STATUSTEXT and the value held. */
static void
test_mavlink_param_domain(void **state)
{
	unsigned port, myport;
	char out[64];
	struct capture cap;
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
	(void)state;

	int probe = udp_loopback(&port, SOCK_NONBLOCK);
	close(probe);
	snprintf(out, sizeof(out), "udp-server:127.0.0.1:%u", port);
	pid_t pid = start_barod((const char *[]){
		"--sim", "--control", "none", "-o", out, "-p",
		"SIM_BARO_RND=0", NULL }, "param-domain.log");
	int fd = udp_loopback(&myport, SOCK_NONBLOCK);
	struct mavlink_heartbeat hb = { .type = 6, .autopilot = 8,
					.mavlink_version = 3 };
	mavlink_pack_heartbeat(&hb, pl);
	capture_init(&cap);
	/* Until barod has bound its port and taken us as its peer. */
	for (int i = 0; i < 100 && cap.count[MAVLINK_MSG_SCALED_PRESSURE] < 5;
	     i++) {
		gcs_send(fd, port, MAVLINK_MSG_HEARTBEAT, pl);
		capture_for(fd, &cap, 100);
	}
	assert_true(cap.count[MAVLINK_MSG_SCALED_PRESSURE] >= 5);
	const float before = cap.last_press_abs[0];

	struct mavlink_param_set ps = { .param_value = 1e9f,
					.target_system = 1,
					.target_component = 191,
					.param_id = "SIM_BARO_GLITCH",
					.param_type = 9 };
	mavlink_pack_param_set(&ps, pl);
	capture_init(&cap);
	gcs_send(fd, port, MAVLINK_MSG_PARAM_SET, pl);
	for (int i = 0; i < 50 && !cap.count[MAVLINK_MSG_PARAM_VALUE]; i++)
		capture_for(fd, &cap, 100);
	assert_int_equal(cap.count[MAVLINK_MSG_PARAM_VALUE], 1);
	assert_string_equal(cap.last_pv.param_id, "SIM_BARO_GLITCH");
	assert_float_exact(cap.last_pv.param_value, 0.0f);
	assert_non_null(strstr(cap.last_text, "SIM_BARO_GLITCH 1e+09 refused"));
	capture_for(fd, &cap, 200);
	assert_close_abs(cap.last_press_abs[0], before, 0.05);

	/* In the domain: taken. */
	ps.param_value = 100.0f;
	mavlink_pack_param_set(&ps, pl);
	capture_init(&cap);
	gcs_send(fd, port, MAVLINK_MSG_PARAM_SET, pl);
	for (int i = 0; i < 50 && !cap.count[MAVLINK_MSG_PARAM_VALUE]; i++)
		capture_for(fd, &cap, 100);
	assert_float_exact(cap.last_pv.param_value, 100.0f);
	capture_for(fd, &cap, 200);
	assert_true(before - cap.last_press_abs[0] > 11.5f);

	/* A baro SIM_BARO_COUNT leaves out: taken, and the log says so. */
	snprintf(ps.param_id, sizeof(ps.param_id), "SIM_BAR3_GLITCH");
	mavlink_pack_param_set(&ps, pl);
	capture_init(&cap);
	gcs_send(fd, port, MAVLINK_MSG_PARAM_SET, pl);
	for (int i = 0; i < 50 && !cap.count[MAVLINK_MSG_PARAM_VALUE]; i++)
		capture_for(fd, &cap, 100);
	assert_float_exact(cap.last_pv.param_value, 100.0f);
	kill(pid, SIGTERM);
	assert_int_equal(wait_exit(pid), 0);
	close(fd);
	char log[512];
	path_in_tmp(log, sizeof(log), "param-domain.log");
	char *l = read_file(log);
	assert_non_null(strstr(l, "SIM_BAR3_GLITCH 0 -> 100 (MAVLink)"));
	assert_non_null(strstr(l, "SIM_BAR3_GLITCH acts only on baro instance "
				  "2, which SIM_BARO_COUNT 2 leaves out"));
	free(l);
}

/* Faults and values that could not act are refused (or, for a set on a
 * baro that SIM_BARO_COUNT may still add, warned about), at start-up and
 * through baroctl. */
static void
test_faults_that_cannot_act(void **state)
{
	char sock[512], scn[512], log[512], reply[4096], want[600];
	(void)state;

	path_in_tmp(sock, sizeof(sock), "control-act");
	path_in_tmp(scn, sizeof(scn), "cannot-act.scn");
	path_in_tmp(log, sizeof(log), "act.log");

	pid_t pid = start_barod((const char *[]){
		"--sim", "--control", "none", "-o", "udp:127.0.0.1:9", "-p",
		"SIM_BARO_GLITCH=1e9", NULL }, "act.log");
	assert_int_equal(wait_exit(pid), 2);
	char *l = read_file(log);
	assert_non_null(strstr(l, "SIM_BARO_GLITCH: 1e+09 is out of range "
				  "[-5000, 86000]"));
	free(l);
	pid = start_barod((const char *[]){
		"--sim", "--control", "none", "-o", "udp:127.0.0.1:9",
		"--atmosphere", "water", "--home-alt", "-100", "-p",
		"SIM_BAR2_GLITCH=120", NULL }, "act.log");
	assert_int_equal(wait_exit(pid), 2);
	l = read_file(log);
	assert_non_null(strstr(l, "SIM_BAR2_GLITCH: 120 is out of range "
				  "[-10900, 110] (the water atmosphere"));
	free(l);

	pid = start_barod((const char *[]){
		"--sim", "-p", "SIM_BAR3_GLITCH=5", "--check-config", NULL },
		"act.log");
	assert_int_equal(wait_exit(pid), 0);
	l = read_file(log);
	assert_non_null(strstr(l, "SIM_BAR3_GLITCH acts only on baro instance "
				  "2, which SIM_BARO_COUNT 2 leaves out"));
	free(l);

	write_file(scn, "at 1s glitch 0 5 for 1s\nat 2s px4 stuck 2 for 1s\n");
	pid = start_barod((const char *[]){
		"--sim", "--control", "none", "-o", "udp:127.0.0.1:9",
		"--scenario", scn, NULL }, "act.log");
	assert_int_equal(wait_exit(pid), 2);
	l = read_file(log);
	snprintf(want, sizeof(want), "%s:2: baro instance 2 does not exist "
				     "(SIM_BARO_COUNT is 2)", scn);
	assert_non_null(strstr(l, want));
	free(l);

	pid = start_barod((const char *[]){
		"--sim", "--control", sock, "-o", "udp:127.0.0.1:9", NULL },
		"act-run.log");
	wait_control(sock);
	assert_int_equal(run_baroctl(sock, "scenario", "load", scn, reply,
				     sizeof(reply)), 1);
	assert_non_null(strstr(reply, want));
	write_file(scn, "\nat 1s set SIM_BARO_GLITCH 1e9 for 1s\n");
	assert_int_equal(run_baroctl(sock, "scenario", "load", scn, reply,
				     sizeof(reply)), 1);
	snprintf(want, sizeof(want), "%s:2: SIM_BARO_GLITCH: 1e+09 is out of "
				     "range", scn);
	assert_non_null(strstr(reply, want));

	assert_int_equal(run_baroctl(sock, "set", "SIM_BARO_GLITCH", "1e9",
				     reply, sizeof(reply)), 1);
	assert_non_null(strstr(reply, "SIM_BARO_GLITCH: 1e+09 is out of range "
				      "[-5000, 86000] (the 1976 atmosphere"));
	assert_int_equal(run_baroctl(sock, "inject", "wrong", "0 -9000", reply,
				     sizeof(reply)), 1);
	assert_non_null(strstr(reply, "SIM_BARO_GLITCH: -9000 is out of "
				      "range"));
	assert_int_equal(run_baroctl(sock, "inject", "stuck", "2", reply,
				     sizeof(reply)), 1);
	assert_non_null(strstr(reply, "no baro instance '2' (0..1)"));
	assert_int_equal(run_baroctl(sock, "get", "SIM_BARO_GLITCH", NULL,
				     reply, sizeof(reply)), 0);
	assert_string_equal(reply, "SIM_BARO_GLITCH 0\n");

	/* Kept, with a word: SIM_BARO_COUNT may add the baro later. */
	assert_int_equal(run_baroctl(sock, "set", "SIM_BAR3_GLITCH", "5",
				     reply, sizeof(reply)), 0);
	assert_non_null(strstr(reply, "warning: baro instance 2 does not "
				      "exist (SIM_BARO_COUNT is 2): "
				      "SIM_BAR3_GLITCH acts only once it is "
				      "raised\nSIM_BAR3_GLITCH 0 -> 5\n"));
	assert_int_equal(run_baroctl(sock, "set", "SIM_BAR2_GLITCH", "5",
				     reply, sizeof(reply)), 0);
	assert_null(strstr(reply, "warning"));
	kill(pid, SIGTERM);
	assert_int_equal(wait_exit(pid), 0);
}

static int
kill_children(void **state)
{
	(void)state;
	for (size_t i = 0; i < n_children; i++) {
		if (children[i] > 0) {
			kill(children[i], SIGKILL);
			waitpid(children[i], NULL, 0);
		}
	}
	n_children = 0;
	return 0;
}

static int
setup(void **state)
{
	(void)state;
	temp_dir_make(tmpdir, sizeof(tmpdir), "barod-test");
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	return temp_dir_remove(tmpdir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_sigterm_completes_record, kill_children),
		cmocka_unit_test_teardown(test_control_socket, kill_children),
		cmocka_unit_test_teardown(test_faults_through_control,
					  kill_children),
		cmocka_unit_test_teardown(test_rates_hil_and_v1, kill_children),
		cmocka_unit_test_teardown(test_sighup_reload, kill_children),
		cmocka_unit_test_teardown(test_udp_server, kill_children),
		cmocka_unit_test_teardown(test_serial_pty, kill_children),
		cmocka_unit_test_teardown(test_blocked_serial_counts_drops,
					  kill_children),
		cmocka_unit_test_teardown(test_config_errors, kill_children),
		cmocka_unit_test_teardown(test_one_barod_per_socket,
					  kill_children),
		cmocka_unit_test(test_version),
		cmocka_unit_test_teardown(test_faults_that_cannot_act,
					  kill_children),
		cmocka_unit_test_teardown(test_mavlink_param_domain,
					  kill_children),
		cmocka_unit_test_teardown(test_two_barods_at_once,
					  kill_children),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
