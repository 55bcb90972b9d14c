/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * baro-drive: run a scenario file on an autopilot's own simulated
 * barometer (ArduPilot's SITL without a JSON backend, PX4 SIH and gz),
 * joining its MAVLink link as a ground station (doc/drive.md).
 *
 *   baro-drive --autopilot ardupilot --scenario faults.scn
 *   baro-drive --autopilot px4 --check --scenario faults.scn
 *
 * The engine (src/drive/) decides; this file owns the socket, the
 * signals, the clock, the state file and the record.
 */
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "drive-state.h"
#include "drive.h"
#include "event-loop.h"
#include "mavlink-sign.h"
#include "signing-key.h"
#include "util-atomic-file.h"
#include "util-csv.h"
#include "util-strings.h"

enum link_kind { LINK_UDPIN, LINK_UDPOUT, LINK_TCP };

struct tool {
	struct drive d;
	struct scenario sc;
	const char *scenario_path;
	const char *state_path;
	const char *record_path;
	FILE *record;
	bool quiet;

	enum link_kind kind;
	int fd;
	int family;
	bool connected;		/* TCP */
	uint64_t retry_us;	/* TCP: next connect */
	struct sockaddr_storage peer;
	socklen_t peer_len;
	bool have_peer;
	struct mavlink_parser parser;
	uint8_t seq;
	bool sign;
	struct mavlink_signing signing;
	uint64_t now_us;
	unsigned long unsigned_dropped;
};

static uint64_t
unix_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static int
usage(FILE *out, int status)
{
	fputs("Usage: baro-drive --autopilot ardupilot|px4 --scenario FILE "
	      "[OPTION]...\n"
	      "Run a scenario on an autopilot's own simulated baro through "
	      "MAVLink.\n"
	      "  -a, --autopilot AP      ardupilot (AP_Baro_SITL, SIM_BARO_*) "
	      "or px4\n"
	      "                          (sensor_baro_sim: SIM_BARO_OFF_P, "
	      "failure injection)\n"
	      "  -s, --scenario FILE     the scenario (doc/scenario.md)\n"
	      "  -c, --connect LINK      udpin:HOST:PORT (listen; default "
	      "udpin:0.0.0.0:14550),\n"
	      "                          udpout:HOST:PORT or tcp:HOST:PORT\n"
	      "      --check             print each line's route and exit "
	      "(no autopilot)\n"
	      "      --state FILE        what was changed, for repair "
	      "(default baro-drive.state)\n"
	      "      --record FILE       CSV of what was due, sent and "
	      "acknowledged\n"
	      "      --keep-current      take values away from their defaults "
	      "as the start\n"
	      "      --signing-key FILE  sign with this 32-byte key; take "
	      "signed frames only\n"
	      "      --wait SECONDS      give up when no autopilot answers "
	      "within (default 60)\n"
	      "  -q, --quiet             errors only\n"
	      "  -h, --help              this text\n"
	      "Exit: 0 the scenario ran (or --check found every line "
	      "routable) and all is back;\n"
	      "1 something could not be put back (the state file names it); "
	      "2 refused;\n"
	      "3 aborted mid-scenario (link lost, autopilot restarted), all "
	      "back.\n",
	      out);
	return status;
}

static void
say(struct tool *t, bool error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
say(struct tool *t, bool error, const char *fmt, ...)
{
	va_list ap;

	if (t->quiet && !error)
		return;
	fputs("baro-drive: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- the engine's I/O ------------------------------------------------- */

static void
io_send(void *user, uint32_t msgid, const union mavlink_msg *m)
{
	struct tool *t = user;
	uint8_t pl[MAVLINK_MAX_PAYLOAD], frame[MAVLINK_MAX_FRAME];

	memset(pl, 0, sizeof(pl));
	if (mavlink_pack_msg(msgid, m, pl) == 0)
		return;
	int n = mavlink_frame_encode(frame, 2, t->seq++, t->d.o.sysid,
				     t->d.o.compid, msgid, pl);
	if (n < 0)
		return;
	if (t->sign) {
		n = mavlink_sign_frame(&t->signing, frame, (size_t)n, 0,
				       mavlink_sign_timestamp(unix_us()));
		if (n < 0)
			return;
	}
	if ((t->kind == LINK_UDPIN && !t->have_peer) || t->fd < 0 ||
	    (t->kind == LINK_TCP && !t->connected))
		return;
	ssize_t w = t->kind == LINK_TCP
			    ? send(t->fd, frame, (size_t)n, MSG_NOSIGNAL)
			    : sendto(t->fd, frame, (size_t)n, MSG_NOSIGNAL,
				     (struct sockaddr *)&t->peer, t->peer_len);
	(void)w;	/* a lost datagram is resent by the engine */
}

static void
io_log(void *user, bool error, const char *text)
{
	say(user, error, "%s", text);
}

static void
io_record(void *user, const struct drive_row *r)
{
	struct tool *t = user;

	if (!t->record)
		return;
	fprintf(t->record, "%llu,", (unsigned long long)r->ap_ms);
	if (r->scenario_ms >= 0)
		fprintf(t->record, "%lld", (long long)r->scenario_ms);
	fprintf(t->record, ",%u,%s,%s,%.9g,", r->line, r->event, r->name,
		r->value);
	csv_put_text(t->record, r->text);
	fputc('\n', t->record);
	fflush(t->record);
}

static int
io_state(void *user)
{
	struct tool *t = user;
	struct atomic_file af;
	char err[512];

	FILE *f = atomic_file_open(&af, t->state_path, err, sizeof(err));
	if (!f) {
		say(t, true, "%s", err);
		return -EIO;
	}
	if (drive_state_write(&t->d, f) == 0) {
		atomic_file_abort(&af);
		if (unlink(t->state_path) < 0 && errno != ENOENT) {
			say(t, true, "%s: %s", t->state_path, strerror(errno));
			return -errno;
		}
		return 0;
	}
	if (atomic_file_commit(&af, err, sizeof(err)) < 0) {
		say(t, true, "%s", err);
		return -EIO;
	}
	return 0;
}

/* ---- the link ----------------------------------------------------------- */

/* Connect t->fd to t->peer, waiting a second at most (SITL may be
 * restarting): 0 or -1 with errno. */
static int
tcp_connect(struct tool *t)
{
	const struct timeval tv = { .tv_sec = 1 };

	(void)setsockopt(t->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	return connect(t->fd, (struct sockaddr *)&t->peer, t->peer_len);
}

/* The TCP link closed (SITL restarted, say): a new socket tried every
 * second; the engine sees the silence and judges the gap when the
 * autopilot speaks again. */
static void
tcp_reconnect(struct tool *t)
{
	if (t->fd >= 0 && t->connected)
		return;
	if (t->now_us < t->retry_us)
		return;
	t->retry_us = t->now_us + 1000000u;
	if (t->fd >= 0)
		close(t->fd);
	t->fd = socket(t->family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (t->fd < 0)
		return;
	if (tcp_connect(t) == 0) {
		t->connected = true;
		mavlink_parser_init(&t->parser);
		t->parser.deliver_signed = t->sign;
		say(t, false, "TCP link connected again");
		drive_link_reset(&t->d, t->now_us);
	}
}

static int
open_link(struct tool *t, const char *spec, char *err, size_t errlen)
{
	static const struct {
		const char *prefix;
		enum link_kind kind;
	} kinds[] = {
		{ "udpin:", LINK_UDPIN },
		{ "udpout:", LINK_UDPOUT },
		{ "tcp:", LINK_TCP },
	};
	const char *rest = NULL;

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t n = strlen(kinds[i].prefix);
		if (strncmp(spec, kinds[i].prefix, n) == 0) {
			t->kind = kinds[i].kind;
			rest = spec + n;
		}
	}
	const char *colon = rest ? strrchr(rest, ':') : NULL;
	if (!colon || colon == rest || !colon[1])
		return str_errorf(err, errlen, -EINVAL,
				  "--connect '%s': expected udpin:HOST:PORT, "
				  "udpout:HOST:PORT or tcp:HOST:PORT", spec);
	char host[256];
	snprintf(host, sizeof(host), "%.*s", (int)(colon - rest), rest);
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = t->kind == LINK_TCP ? SOCK_STREAM : SOCK_DGRAM,
		.ai_flags = t->kind == LINK_UDPIN ? AI_PASSIVE : 0,
	};
	struct addrinfo *ai;
	int rc = getaddrinfo(host, colon + 1, &hints, &ai);
	if (rc != 0)
		return str_errorf(err, errlen, -EINVAL, "--connect '%s': %s",
				  spec, gai_strerror(rc));
	t->fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
	if (t->fd < 0) {
		rc = -errno;
		freeaddrinfo(ai);
		return str_errorf(err, errlen, rc, "socket: %s", strerror(-rc));
	}
	if (t->kind == LINK_UDPIN) {
		int one = 1;
		(void)setsockopt(t->fd, SOL_SOCKET, SO_REUSEADDR, &one,
				 sizeof(one));
		rc = bind(t->fd, ai->ai_addr, ai->ai_addrlen);
	} else if (t->kind == LINK_TCP) {
		memcpy(&t->peer, ai->ai_addr, ai->ai_addrlen);
		t->peer_len = ai->ai_addrlen;
		t->family = ai->ai_family;
		/* Not up yet (SITL starting) is no error: tried every second
		 * until --wait runs out. */
		t->connected = tcp_connect(t) == 0;
		rc = t->connected || errno == ECONNREFUSED ||
				     errno == ETIMEDOUT || errno == EINPROGRESS
			     ? 0
			     : -1;
		t->retry_us = 0;
	} else {
		memcpy(&t->peer, ai->ai_addr, ai->ai_addrlen);
		t->peer_len = ai->ai_addrlen;
		t->have_peer = true;
		rc = 0;
	}
	if (rc < 0) {
		rc = -errno;
		freeaddrinfo(ai);
		return str_errorf(err, errlen, rc, "--connect '%s': %s", spec,
				  strerror(-rc));
	}
	if (t->kind != LINK_TCP)
		t->connected = true;
	freeaddrinfo(ai);
	return 0;
}

static void
on_frame(const struct mavlink_frame *f, void *user)
{
	struct tool *t = user;

	if (t->sign) {
		bool is_signed = f->incompat_flags & MAVLINK_IFLAG_SIGNED;
		if (!is_signed ||
		    mavlink_signing_check(&t->signing, f->raw, f->raw_len,
					  mavlink_sign_timestamp(unix_us())) !=
			    MAVLINK_SIGN_OK) {
			t->unsigned_dropped++;
			return;
		}
	}
	drive_frame(&t->d, f, t->now_us);
}

static int
read_link(struct tool *t)
{
	uint8_t buf[4096];
	struct sockaddr_storage from;
	socklen_t from_len = sizeof(from);

	ssize_t n = recvfrom(t->fd, buf, sizeof(buf), MSG_DONTWAIT,
			     (struct sockaddr *)&from, &from_len);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	if (n == 0 && t->kind == LINK_TCP)
		return -ECONNRESET;
	if (n == 0)
		return 0;
	if (t->kind == LINK_UDPIN) {
		/* Answer whoever speaks: the autopilot, or MAVProxy. */
		memcpy(&t->peer, &from, from_len);
		t->peer_len = from_len;
		t->have_peer = true;
	}
	t->now_us = event_now_us();
	mavlink_parser_feed(&t->parser, buf, (size_t)n, on_frame, t);
	if (t->kind != LINK_TCP)
		mavlink_parser_flush(&t->parser);
	return 0;
}

/* ---- main ----------------------------------------------------------------- */

static int
load_state(struct tool *t, struct drive_opts *o)
{
	char err[512];
	char *text = NULL;
	size_t len = 0;

	FILE *f = fopen(t->state_path, "r");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		say(t, true, "%s: %s", t->state_path, strerror(errno));
		return -errno;
	}
	text = malloc(DRIVE_STATE_MAX + 1);
	if (!text) {
		fclose(f);
		return -ENOMEM;
	}
	len = fread(text, 1, DRIVE_STATE_MAX + 1, f);
	fclose(f);
	int rc = drive_state_parse(text, len, t->state_path, o->ap, o, err,
				   sizeof(err));
	free(text);
	if (rc < 0) {
		say(t, true, "%s", err);
		return rc;
	}
	if (o->nleft)
		say(t, false, "%s: an earlier run left %zu value%s changed; "
			      "they go back first",
		    t->state_path, o->nleft, o->nleft == 1 ? "" : "s");
	return 0;
}

static int
exit_status(enum drive_end e)
{
	switch (e) {
	case DRIVE_END_OK:
	case DRIVE_END_STOPPED:
		return 0;
	case DRIVE_END_FAILED:
	case DRIVE_END_NONE:
		return 1;
	case DRIVE_END_REFUSED:
		return 2;
	case DRIVE_END_ABORTED:
		return 3;
	}
	return 1;
}

int
main(int argc, char **argv)
{
	static struct tool t;	/* the scenario is large for a stack */
	struct drive_opts o;
	const char *connect_spec = "udpin:0.0.0.0:14550";
	const char *key_path = NULL;
	bool check = false, have_ap = false;
	double wait_s = 60.0;
	char err[1024];
	enum { OPT_CHECK = 256, OPT_STATE, OPT_RECORD, OPT_KEEP, OPT_KEY,
	       OPT_WAIT };
	static const struct option longs[] = {
		{ "autopilot", required_argument, NULL, 'a' },
		{ "scenario", required_argument, NULL, 's' },
		{ "connect", required_argument, NULL, 'c' },
		{ "check", no_argument, NULL, OPT_CHECK },
		{ "state", required_argument, NULL, OPT_STATE },
		{ "record", required_argument, NULL, OPT_RECORD },
		{ "keep-current", no_argument, NULL, OPT_KEEP },
		{ "signing-key", required_argument, NULL, OPT_KEY },
		{ "wait", required_argument, NULL, OPT_WAIT },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};

	drive_opts_default(&o);
	t.fd = -1;
	t.state_path = "baro-drive.state";
	for (int c; (c = getopt_long(argc, argv, "a:s:c:qh", longs, NULL)) !=
		    -1;) {
		switch (c) {
		case 'a':
			if (drive_autopilot_parse(optarg, &o.ap) < 0) {
				fprintf(stderr, "baro-drive: --autopilot "
						"'%s': use ardupilot or px4\n",
					optarg);
				return 2;
			}
			have_ap = true;
			break;
		case 's':
			t.scenario_path = optarg;
			break;
		case 'c':
			connect_spec = optarg;
			break;
		case OPT_CHECK:
			check = true;
			break;
		case OPT_STATE:
			t.state_path = optarg;
			break;
		case OPT_RECORD:
			t.record_path = optarg;
			break;
		case OPT_KEEP:
			o.keep_current = true;
			break;
		case OPT_KEY:
			key_path = optarg;
			break;
		case OPT_WAIT:
			if (str_to_double(optarg, &wait_s) < 0 || !(wait_s > 0) ||
			    wait_s > 1e6) {
				fprintf(stderr, "baro-drive: --wait '%s': "
						"seconds, more than 0\n",
					optarg);
				return 2;
			}
			break;
		case 'q':
			t.quiet = true;
			break;
		case 'h':
			return usage(stdout, 0);
		default:
			return usage(stderr, 2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "baro-drive: unexpected argument '%s'\n",
			argv[optind]);
		return 2;
	}
	if (!have_ap || !t.scenario_path) {
		fprintf(stderr, "baro-drive: --autopilot and --scenario are "
				"needed\n");
		return usage(stderr, 2);
	}

	FILE *in = fopen(t.scenario_path, "r");
	if (!in) {
		fprintf(stderr, "baro-drive: %s: %s\n", t.scenario_path,
			strerror(errno));
		return 2;
	}
	int rc = scenario_load(&t.sc, in, t.scenario_path, err, sizeof(err));
	fclose(in);
	if (rc < 0) {
		fprintf(stderr, "baro-drive: %s\n", err);
		return 2;
	}
	if (check) {
		drive_print_routes(stdout, &t.sc, t.scenario_path, o.ap);
		return drive_check(&t.sc, t.scenario_path, o.ap, err,
				   sizeof(err)) < 0
			       ? 1
			       : 0;
	}
	if (drive_check(&t.sc, t.scenario_path, o.ap, err, sizeof(err)) < 0) {
		fprintf(stderr, "baro-drive: %s\n", err);
		return 2;
	}
	if (key_path) {
		uint8_t key[SIGNING_KEY_LEN];
		if (signing_key_read(key_path, key, err, sizeof(err)) < 0) {
			fprintf(stderr, "baro-drive: %s\n", err);
			return 2;
		}
		mavlink_signing_init(&t.signing, key,
				     mavlink_sign_timestamp(unix_us()));
		t.sign = true;
	}
	if (load_state(&t, &o) < 0)
		return 2;
	if (t.record_path) {
		t.record = fopen(t.record_path, "w");
		if (!t.record) {
			fprintf(stderr, "baro-drive: %s: %s\n", t.record_path,
				strerror(errno));
			return 2;
		}
		fputs("ap_ms,scenario_ms,line,event,name,value,text\n",
		      t.record);
	}
	if (open_link(&t, connect_spec, err, sizeof(err)) < 0) {
		fprintf(stderr, "baro-drive: %s\n", err);
		return 2;
	}
	mavlink_parser_init(&t.parser);
	t.parser.deliver_signed = t.sign;

	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);

	const struct drive_io io = {
		.send = io_send,
		.log = io_log,
		.record = io_record,
		.state = io_state,
	};
	drive_init(&t.d, &t.sc, t.scenario_path, &o, &io, &t);
	const uint64_t started = event_now_us();
	unsigned signals = 0;
	while (!drive_over(&t.d)) {
		struct pollfd p[2] = {
			{ .fd = t.kind == LINK_TCP && !t.connected ? -1 : t.fd,
			  .events = POLLIN },
			{ .fd = sfd, .events = POLLIN },
		};
		int n = poll(p, 2, 50);
		t.now_us = event_now_us();
		if (n > 0 && (p[1].revents & POLLIN)) {
			struct signalfd_siginfo si;
			while (read(sfd, &si, sizeof(si)) == sizeof(si))
				signals++;
			if (signals > 1) {
				say(&t, true, "a second signal: leaving what "
					      "is not back to the state file");
				break;
			}
			say(&t, false, "stopping: putting everything back");
			drive_stop(&t.d, t.now_us);
		}
		if (n > 0 && t.fd >= 0 &&
		    (p[0].revents & (POLLIN | POLLERR | POLLHUP))) {
			int lrc = read_link(&t);
			if (lrc < 0 && t.kind == LINK_TCP) {
				say(&t, true, "the TCP link closed (%s): "
					      "connecting again every second",
				    strerror(-lrc));
				t.connected = false;
				close(t.fd);
				t.fd = -1;
				t.retry_us = t.now_us + 1000000u;
			} else if (lrc < 0) {
				say(&t, true, "the link failed: %s",
				    strerror(-lrc));
				break;
			}
		}
		if (t.kind == LINK_TCP)
			tcp_reconnect(&t);
		drive_tick(&t.d, t.now_us);
		if (t.d.phase == DRIVE_WAIT_LINK &&
		    (double)(t.now_us - started) > wait_s * 1e6) {
			say(&t, true, "no autopilot heard on %s within %g s",
			    connect_spec, wait_s);
			t.d.end = DRIVE_END_REFUSED;
			break;
		}
	}
	if (t.d.end == DRIVE_END_NONE)
		t.d.end = DRIVE_END_FAILED;
	/* What is not back stays named for the next start; a drive that
	 * changed nothing leaves an earlier run's file as it was. */
	if (t.d.touched && io_state(&t) < 0)
		t.d.end = DRIVE_END_FAILED;
	if (t.d.why[0])
		say(&t, t.d.end != DRIVE_END_OK, "%s: %s",
		    drive_end_name(t.d.end), t.d.why);
	if (t.unsigned_dropped)
		say(&t, false, "%lu frames not signed with the key dropped",
		    t.unsigned_dropped);
	if (t.record)
		fclose(t.record);
	if (t.fd >= 0)
		close(t.fd);
	return exit_status(t.d.end);
}
