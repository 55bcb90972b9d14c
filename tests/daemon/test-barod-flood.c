/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Floods through barod's real loop (issue 25, part 3): `barod --sim` with
 * a UDP output to this test's GCS socket, and a second socket flooding
 * barod's source port with PARAM_REQUEST_LIST (one sysid, then every
 * sysid), COMMAND_LONG, garbage and 64 KiB datagrams; an msp-tcp peer
 * that never reads, then one that sends a frame that never ends; a
 * control-socket client that never reads; PARAM_SET, each told to a
 * 115200-baud serial output read at the line's rate.  Under each, no
 * published sample may be missing (SCALED_PRESSURE's time_boot_ms advances by
 * exactly 10 ms, at least 99 % of the samples the window's wall time is
 * worth arrive), the replies barod sends for the flood stay within the
 * link's budget, nothing goes back to the flooder, and RSS stays flat.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "control-client.h"
#include "gcs-peer.h"
#include "harness-cmocka.h"
#include "mavlink.h"
#include "param-service.h"
#include "sim-params.h"
#include "test-files.h"

#define FLOOD_MS 2500u
/* RSS after a warm-up pass may grow this much over the floods (the
 * soak's bound): barod allocates nothing per request (fixed tables); a
 * leak of one byte per flooded datagram (10^5 and more of them) would
 * exceed it. */
#define RSS_FLAT_KB 64
/* Without a warm-up (the stream peers: each phase is a new peer): pages
 * first touched under load, measured at 108-144 kB. */
#define RSS_SLACK_KB 256

/* Under AddressSanitizer freed memory waits in its quarantine (the
 * control socket's replies, say), so RSS says nothing about leaks there:
 * the bound is checked in plain builds, LeakSanitizer checks the rest. */
#if defined(__SANITIZE_ADDRESS__)
#define RSS_MEANINGFUL false
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RSS_MEANINGFUL false
#endif
#endif
#ifndef RSS_MEANINGFUL
#define RSS_MEANINGFUL true
#endif

static struct harness harness;

static void
assert_rss_flat(long before, long after, long slack)
{
	printf("# RSS %ld -> %ld kB%s\n", before, after,
	       RSS_MEANINGFUL ? "" : " (sanitizer build: not checked)");
	if (RSS_MEANINGFUL && after - before > slack)
		fail_msg("RSS grew %ld kB, more than %ld", after - before,
			 slack);
}

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* What the GCS saw. */
struct gcs_view {
	bool have;
	uint32_t last_ms, first_ms;
	uint64_t pressures;	/* SCALED_PRESSURE (baro 0) */
	uint64_t gaps;		/* steps not 10 ms */
	uint32_t worst_step;
	uint64_t values, acks, texts;
	uint64_t value_bytes;
};

static void
on_gcs_frame(const struct mavlink_frame *f, void *user)
{
	struct gcs_view *v = user;

	switch (f->msgid) {
	case MAVLINK_MSG_SCALED_PRESSURE:
		;
		uint32_t t;
		memcpy(&t, f->payload, sizeof(t));	/* time_boot_ms */
		if (!v->have) {
			v->first_ms = t;
		} else if (t - v->last_ms != 10u) {
			v->gaps++;
			if (t - v->last_ms > v->worst_step)
				v->worst_step = t - v->last_ms;
		}
		v->have = true;
		v->last_ms = t;
		v->pressures++;
		break;
	case MAVLINK_MSG_PARAM_VALUE:
		v->values++;
		v->value_bytes += 12u + f->len;	/* MAVLink 2 framing */
		break;
	case MAVLINK_MSG_COMMAND_ACK:
		v->acks++;
		break;
	case MAVLINK_MSG_STATUSTEXT:
		v->texts++;
		break;
	default:
		break;
	}
}

struct rig {
	pid_t pid;
	int gcs;		/* the GCS: barod's UDP output */
	int flood;		/* the flooder, connected to barod's port */
	unsigned gcs_port;
	char control[100];	/* a socket path fits sun_path */
	struct gcs_view v;
};

static long
rss_kb(pid_t pid)
{
	char path[64], line[256];
	long kb = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* barod --sim with the GCS output (and extra), its source port learnt
 * from its first datagram, the flooder connected to it. */
static void drain(struct rig *r, unsigned wait_ms);

static void
rig_start(struct rig *r, const char *extra_opt, const char *extra)
{
	struct sockaddr_in from;
	socklen_t flen = sizeof(from);
	char out[64];
	uint8_t buf[2048];
	int big = 1 << 21;

	memset(r, 0, sizeof(*r));
	r->gcs = udp_loopback(&r->gcs_port, 0);
	/* The flood's replies and 100 samples/s must not be lost here. */
	(void)setsockopt(r->gcs, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	snprintf(out, sizeof(out), "udp:127.0.0.1:%u", r->gcs_port);
	harness_path(&harness, r->control, sizeof(r->control), "ctl");
	r->pid = harness_start(&harness, "barod.log", (const char *[]){
		"--sim", "-o", out, "--control", r->control, "-v",
		extra_opt ? extra_opt : extra, extra_opt ? extra : NULL,
		NULL });
	struct pollfd pf = { r->gcs, POLLIN, 0 };
	assert_int_equal(poll(&pf, 1, 5000), 1);
	assert_true(recvfrom(r->gcs, buf, sizeof(buf), 0,
			     (struct sockaddr *)&from, &flen) > 0);
	r->flood = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	assert_true(r->flood >= 0);
	(void)setsockopt(r->flood, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	assert_int_equal(connect(r->flood, (struct sockaddr *)&from, flen), 0);
	/* Settle, then watch from a clean start. */
	drain(r, 300);
	memset(&r->v, 0, sizeof(r->v));
}

/* What has arrived, then what arrives for wait_ms more (barod never
 * falls quiet: gcs_peer_drain's own wait would not end). */
static void
drain(struct rig *r, unsigned wait_ms)
{
	const uint64_t end = now_ms() + wait_ms;

	do {
		struct pollfd pf = { r->gcs, POLLIN, 0 };
		uint64_t now = now_ms();
		(void)poll(&pf, 1, now < end ? (int)(end - now) : 0);
		assert_int_equal(gcs_peer_drain(r->gcs, 0, on_gcs_frame,
						&r->v),
				 0);
	} while (now_ms() < end);
}

/* baroctl status's "mavlink requests" line: its numbers. */
struct req_status {
	uint64_t requests, dropped, lists, merged, refused, done, in_flight,
		values;
};

static struct req_status
req_status(const struct rig *r)
{
	char reply[4096];
	struct req_status st;

	control_request(r->control, "status\n", reply, sizeof(reply),
			&(struct control_wait){ 50, 20000, false });
	const char *line = strstr(reply, "mavlink requests ");
	assert_non_null(line);
	assert_int_equal(sscanf(line,
				"mavlink requests %" SCNu64 " dropped %" SCNu64
				" lists %" SCNu64 " merged %" SCNu64
				" refused %" SCNu64 " done %" SCNu64
				" in-flight %" SCNu64 " values %" SCNu64,
				&st.requests, &st.dropped, &st.lists,
				&st.merged, &st.refused, &st.done,
				&st.in_flight, &st.values),
			 8);
	return st;
}

/* Until the lists a flood started are done (at most 10 s). */
static void
settle(struct rig *r)
{
	for (int i = 0; i < 100 && req_status(r).in_flight; i++)
		drain(r, 100);
	assert_int_equal(req_status(r).in_flight, 0);
	drain(r, 50);
}

/* What one flood datagram is; k counts them. */
typedef size_t (*make_fn)(uint8_t *buf, size_t cap, uint64_t k);

static size_t
frame_of(uint8_t *buf, uint8_t sysid, uint32_t msgid, const uint8_t *pl,
	 uint8_t seq)
{
	int n = mavlink_frame_encode(buf, 2, seq, sysid, 190, msgid, pl);

	assert_true(n > 0);
	return (size_t)n;
}

static size_t
make_list_one(uint8_t *buf, size_t cap, uint64_t k)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
	struct mavlink_param_request_list m = { 1, 191 };

	(void)cap;
	mavlink_pack_param_request_list(&m, pl);
	return frame_of(buf, 255, MAVLINK_MSG_PARAM_REQUEST_LIST, pl,
			(uint8_t)k);
}

static size_t
make_list_many(uint8_t *buf, size_t cap, uint64_t k)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
	struct mavlink_param_request_list m = { 1, 191 };

	(void)cap;
	mavlink_pack_param_request_list(&m, pl);
	return frame_of(buf, (uint8_t)(1 + k % 255),
			MAVLINK_MSG_PARAM_REQUEST_LIST, pl, (uint8_t)k);
}

/* A command barod does not support: answered UNSUPPORTED (read-only),
 * from sysids cycling so every one has a fresh bucket. */
static size_t
make_command(uint8_t *buf, size_t cap, uint64_t k)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
	struct mavlink_command_long m = { .command = 512, .target_system = 1,
					  .target_component = 191 };

	(void)cap;
	mavlink_pack_command_long(&m, pl);
	return frame_of(buf, (uint8_t)(1 + k % 40), MAVLINK_MSG_COMMAND_LONG,
			pl, (uint8_t)k);
}

/* Reads for names that do not exist: a STATUSTEXT each if answered. */
static size_t
make_unknown_read(uint8_t *buf, size_t cap, uint64_t k)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
	struct mavlink_param_request_read m = { .param_index = -1,
						.target_system = 1,
						.target_component = 191 };

	(void)cap;
	snprintf(m.param_id, sizeof(m.param_id), "NO_%" PRIu64, k);
	mavlink_pack_param_request_read(&m, pl);
	return frame_of(buf, (uint8_t)(1 + k % 40),
			MAVLINK_MSG_PARAM_REQUEST_READ, pl, (uint8_t)k);
}

static uint64_t lcg = 0x2545f4914f6cdd1dull;

static uint8_t
rnd8(void)
{
	lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
	return (uint8_t)(lcg >> 56);
}

/* Bytes with frame starts sprinkled in (the parser's worst case: each
 * 0xFD begins a frame that then fails). */
static size_t
make_garbage(uint8_t *buf, size_t cap, uint64_t k)
{
	size_t n = 1 + (k * 7919u) % 300u;

	if (n > cap)
		n = cap;
	for (size_t i = 0; i < n; i++)
		buf[i] = i % 17 == 0 ? 0xfd : rnd8();
	return n;
}

static size_t
make_oversized(uint8_t *buf, size_t cap, uint64_t k)
{
	(void)k;
	for (size_t i = 0; i < cap; i++)
		buf[i] = i % 64 == 0 ? 0xfd : rnd8();
	return cap;	/* 65507: the most IPv4 UDP carries */
}

struct flood_result {
	uint64_t sent;		/* datagrams the kernel took */
	uint64_t ms;		/* the window's wall time */
	uint64_t back;		/* datagrams the flooder got back */
};

/* Flood for ms while watching the GCS; then 300 ms for what is in
 * flight. */
static struct flood_result
flood(struct rig *r, make_fn make, size_t size, unsigned ms)
{
	static uint8_t buf[65536];
	struct flood_result res = { 0 };
	const uint64_t t0 = now_ms();
	uint64_t k = 0;

	while (now_ms() - t0 < ms) {
		for (int i = 0; i < 64; i++) {
			size_t n = make(buf, size, k++);
			if (send(r->flood, buf, n, MSG_DONTWAIT) == (ssize_t)n)
				res.sent++;
		}
		drain(r, 0);
		while (recv(r->flood, buf, sizeof(buf), MSG_DONTWAIT) > 0)
			res.back++;
	}
	drain(r, 300);
	while (recv(r->flood, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		res.back++;
	/* The samples counted are the whole watch's. */
	res.ms = now_ms() - t0;
	return res;
}

/* No published sample missing over the window: time_boot_ms in exact
 * 10 ms steps, and at least 99 % of what its wall time is worth. */
static void
assert_stream_whole(const struct rig *r, const struct flood_result *res,
		    const char *what)
{
	const struct gcs_view *v = &r->v;
	const uint64_t want = res->ms / 10u;

	printf("# %s: %" PRIu64 " datagrams in %" PRIu64 " ms; SCALED_PRESSURE"
	       " %" PRIu64 " (wall time worth %" PRIu64 "), gaps %" PRIu64
	       " (worst %u ms); PARAM_VALUE %" PRIu64 " (%" PRIu64
	       " bytes), COMMAND_ACK %" PRIu64 ", STATUSTEXT %" PRIu64
	       "; back to the flooder %" PRIu64 "\n",
	       what, res->sent, res->ms, v->pressures, want, v->gaps,
	       v->worst_step, v->values, v->value_bytes, v->acks, v->texts,
	       res->back);
	if (v->gaps)
		fail_msg("%s: %" PRIu64 " gaps in time_boot_ms (worst %u ms)",
			 what, v->gaps, v->worst_step);
	if (v->pressures * 100u < want * 99u)
		fail_msg("%s: %" PRIu64 " samples, under 99 %% of %" PRIu64,
			 what, v->pressures, want);
	assert_true(res->sent > 0);
	/* UDP output: the replies go to the GCS, never to whoever asked. */
	assert_int_equal(res->back, 0);
}

/* The link's budget: one burst, then PARAM_SERVICE_NET_RATE a second,
 * twice (requests may overdraw it by a burst; lists repay it), for every
 * reply barod's param service sends. */
static void
assert_replies_bounded(const struct rig *r, const struct flood_result *res,
		       const char *what)
{
	const double burst = PARAM_SERVICE_NET_RATE * PARAM_SERVICE_BURST_S;
	const double bound = 2.0 * burst + PARAM_SERVICE_NET_RATE *
						   (double)res->ms * 1e-3;
	const uint64_t replies = r->v.values + r->v.acks + r->v.texts;

	if ((double)replies > bound)
		fail_msg("%s: %" PRIu64 " replies, over the link's budget "
			 "%.0f", what, replies, bound);
}

static void
rig_stop(struct rig *r)
{
	assert_int_equal(harness_stop(&harness, r->pid, NULL), 0);
	close(r->gcs);
	close(r->flood);
}

/* The figure: 100 PARAM_REQUEST_LIST from a socket barod never
 * heard of, and what reaches the GCS within a second. */
static void
test_hundred_lists(void **state)
{
	struct rig r;
	uint8_t buf[MAVLINK_MAX_FRAME];

	(void)state;
	rig_start(&r, NULL, NULL);
	for (uint64_t k = 0; k < 100; k++) {
		size_t n = make_list_one(buf, sizeof(buf), k);
		assert_int_equal(send(r.flood, buf, n, 0), (ssize_t)n);
	}
	drain(&r, 1000);
	printf("# 100 PARAM_REQUEST_LIST (%zu bytes): %" PRIu64
	       " PARAM_VALUE (%" PRIu64 " bytes) within 1 s\n",
	       100 * make_list_one(buf, sizeof(buf), 0), r.v.values,
	       r.v.value_bytes);
	/* Merged into one list while it is in flight. */
	assert_int_equal(r.v.values, sim_param_count());
	struct req_status st = req_status(&r);
	assert_int_equal(st.lists, 1);
	assert_int_equal(st.merged, 99);
	assert_int_equal(st.done, 1);
	rig_stop(&r);
}

static void
test_udp_floods(void **state)
{
	static const struct {
		const char *what;
		make_fn make;
		size_t size;
		bool answered;	/* the param service replies to it */
	} kinds[] = {
		{ "PARAM_REQUEST_LIST, one sysid", make_list_one, 64, true },
		{ "PARAM_REQUEST_LIST, 255 sysids", make_list_many, 64, true },
		{ "COMMAND_LONG", make_command, 64, true },
		{ "PARAM_REQUEST_READ, unknown names", make_unknown_read, 64,
		  true },
		{ "garbage", make_garbage, 300, false },
		{ "64 KiB datagrams", make_oversized, 65507, false },
	};
	struct rig r;

	(void)state;
	rig_start(&r, NULL, NULL);
	/* A short pass first: what it grows by is pages touched for the
	 * first time (108 kB measured), not a leak; passes after it grow
	 * by nothing (measured over three). */
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		settle(&r);
		(void)flood(&r, kinds[i].make, kinds[i].size, 200);
	}
	const long rss0 = rss_kb(r.pid);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		settle(&r);
		memset(&r.v, 0, sizeof(r.v));
		struct flood_result res =
			flood(&r, kinds[i].make, kinds[i].size, FLOOD_MS);
		assert_stream_whole(&r, &res, kinds[i].what);
		assert_replies_bounded(&r, &res, kinds[i].what);
		if (!kinds[i].answered)
			assert_int_equal(r.v.values + r.v.acks + r.v.texts, 0);
	}
	const long rss1 = rss_kb(r.pid);
	assert_rss_flat(rss0, rss1, RSS_FLAT_KB);

	struct req_status st = req_status(&r);
	printf("# mavlink requests %" PRIu64 " dropped %" PRIu64
	       " lists %" PRIu64 " merged %" PRIu64 " refused %" PRIu64
	       " done %" PRIu64 " values %" PRIu64 "\n",
	       st.requests, st.dropped, st.lists, st.merged, st.refused,
	       st.done, st.values);
	assert_true(st.dropped > 0);
	assert_true(st.merged > 0);
	assert_true(st.refused > 0);
	rig_stop(&r);
	char *log = harness_log(&harness, r.pid);
	assert_non_null(strstr(log, "requests dropped over their budget"));
	free(log);
}

/* An msp-tcp flight controller that stops reading, then one that sends
 * a frame that never ends (as fast as it can), and a control-socket
 * client that never reads its replies. */
static void
test_stream_peers(void **state)
{
	struct rig r;
	unsigned port = 0;
	int lis = tcp_loopback(&port, 4096);
	char out[64];
	static uint8_t junk[65536];

	(void)state;
	snprintf(out, sizeof(out), "msp-tcp:127.0.0.1:%u", port);
	rig_start(&r, "-o", out);
	const long rss0 = rss_kb(r.pid);
	struct pollfd pf = { lis, POLLIN, 0 };
	assert_int_equal(poll(&pf, 1, 5000), 1);
	int fc = accept(lis, NULL, NULL);
	assert_true(fc >= 0);

	/* Never reads: barod's MSP frames fill the socket, then drop. */
	memset(&r.v, 0, sizeof(r.v));
	uint64_t t0 = now_ms();
	while (now_ms() - t0 < FLOOD_MS)
		drain(&r, 50);
	struct flood_result res = { .sent = 1, .ms = now_ms() - t0 };
	assert_stream_whole(&r, &res, "msp-tcp peer that never reads");

	/* An MSP v2 request whose header announces 65535 bytes, and then
	 * bytes for ever (barod still never read from). */
	memset(&r.v, 0, sizeof(r.v));
	const uint8_t head[] = { '$', 'X', '<', 0, 0x01, 0x10, 0xff, 0xff };
	(void)fcntl(fc, F_SETFL, O_NONBLOCK);
	assert_int_equal(send(fc, head, sizeof(head), 0), (ssize_t)sizeof(head));
	memset(junk, 0x55, sizeof(junk));
	uint64_t bytes = 0;
	t0 = now_ms();
	while (now_ms() - t0 < FLOOD_MS) {
		ssize_t n = send(fc, junk, sizeof(junk), MSG_DONTWAIT);
		if (n > 0)
			bytes += (uint64_t)n;
		drain(&r, 0);
		char sink[4096];
		while (recv(fc, sink, sizeof(sink), MSG_DONTWAIT) > 0)
			;
	}
	drain(&r, 50);
	res = (struct flood_result){ .sent = bytes, .ms = now_ms() - t0 };
	assert_stream_whole(&r, &res, "msp-tcp peer sending a frame that "
				      "never ends (bytes)");

	/* A control client that asks and never reads. */
	memset(&r.v, 0, sizeof(r.v));
	int c = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	memcpy(sa.sun_path, r.control, sizeof(r.control));
	assert_int_equal(connect(c, (struct sockaddr *)&sa, sizeof(sa)), 0);
	uint64_t asked = 0;
	t0 = now_ms();
	while (now_ms() - t0 < FLOOD_MS) {
		if (send(c, "status\n", 7, MSG_DONTWAIT | MSG_NOSIGNAL) == 7)
			asked++;
		drain(&r, 1);
	}
	drain(&r, 50);
	res = (struct flood_result){ .sent = asked, .ms = now_ms() - t0 };
	assert_stream_whole(&r, &res, "control client that never reads");
	close(c);

	const long rss1 = rss_kb(r.pid);
	assert_rss_flat(rss0, rss1, RSS_SLACK_KB);
	char reply[4096];
	control_request(r.control, "status\n", reply, sizeof(reply),
			&(struct control_wait){ 50, 20000, false });
	printf("# %s", reply);
	close(fc);
	close(lis);
	rig_stop(&r);
}

/* A PARAM_SET, SIM_BARO_GLITCH 1 and 2 in turn (each a change: a
 * PARAM_VALUE and a STATUSTEXT to every output), from sysids cycling so
 * every one has a fresh bucket. */
static size_t
make_set(uint8_t *buf, size_t cap, uint64_t k)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
	struct mavlink_param_set m = { .param_value = (float)(1 + k % 2),
				       .target_system = 1,
				       .target_component = 191,
				       .param_id = "SIM_BARO_GLITCH",
				       .param_type = 9 };

	(void)cap;
	mavlink_pack_param_set(&m, pl);
	return frame_of(buf, (uint8_t)(1 + k % 40), MAVLINK_MSG_PARAM_SET, pl,
			(uint8_t)k);
}

/* Long enough for the broadcasts to fill what a 115200-baud line's
 * kernel buffer (a pty's: about 16 kB) and barod's backlog hold. */
#define SET_FLOOD_MS 4000u

/* A serial line's far end: the pty's master, read no faster than the
 * line's baud rate carries (8N1: ten bits a byte), as a flight
 * controller's TELEM port takes it. */
struct line {
	int fd;
	unsigned bytes_per_s;
	uint64_t t0, taken;
	struct mavlink_parser parser;
	struct gcs_view v;
};

static void
line_open(struct line *l, unsigned baud, char *spec, size_t len)
{
	memset(l, 0, sizeof(*l));
	l->fd = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK);
	assert_true(l->fd >= 0);
	assert_int_equal(fcntl(l->fd, F_SETFD, FD_CLOEXEC), 0);
	assert_int_equal(grantpt(l->fd), 0);
	assert_int_equal(unlockpt(l->fd), 0);
	l->bytes_per_s = baud / 10u;
	mavlink_parser_init(&l->parser);
	snprintf(spec, len, "serial:%s:%u", ptsname(l->fd), baud);
}

/* What the line has carried by now; all there is when !paced. */
static void
line_read(struct line *l, bool paced)
{
	uint8_t buf[4096];
	const uint64_t now = now_ms();

	if (!l->t0)
		l->t0 = now;
	for (;;) {
		size_t want = sizeof(buf);
		if (paced) {
			uint64_t owed = (now - l->t0) * l->bytes_per_s / 1000u;
			if (owed <= l->taken)
				return;
			if (owed - l->taken < want)
				want = (size_t)(owed - l->taken);
		}
		ssize_t n = read(l->fd, buf, want);
		if (n <= 0)
			return;
		l->taken += (uint64_t)n;
		mavlink_parser_feed(&l->parser, buf, (size_t)n, on_gcs_frame,
				    &l->v);
	}
}

/* A flood of PARAM_SET on the UDP output (the simulator takes remote
 * changes by default), and a 57600-baud serial output on a line that
 * carries the samples with room to spare: every set's PARAM_VALUE and
 * STATUSTEXT go to every output, but on the line they may only take
 * room the samples do not need.  No SCALED_PRESSURE may go missing on
 * it. */
static void
test_set_flood_spares_the_line(void **state)
{
	static uint8_t buf[2048];
	struct line l;
	struct rig r;
	char spec[128], reply[4096];
	uint64_t k = 0, sent = 0;

	(void)state;
	line_open(&l, 115200, spec, sizeof(spec));
	rig_start(&r, "-o", spec);
	const uint64_t t0 = now_ms();
	while (now_ms() - t0 < SET_FLOOD_MS) {
		for (int i = 0; i < 16; i++) {
			size_t n = make_set(buf, sizeof(buf), k++);
			if (send(r.flood, buf, n, MSG_DONTWAIT) == (ssize_t)n)
				sent++;
		}
		drain(&r, 1);
		line_read(&l, true);
	}
	/* The line's backlog comes as fast as it may now: a sample lost
	 * shows as a step in time_boot_ms, wherever it was. */
	for (uint64_t t1 = now_ms(); now_ms() - t1 < 1500;) {
		drain(&r, 5);
		line_read(&l, true);
	}
	control_request(r.control, "status\n", reply, sizeof(reply),
			&(struct control_wait){ 50, 20000, false });
	rig_stop(&r);
	line_read(&l, false);
	close(l.fd);
	const char *out = strstr(reply, "serial");
	printf("# %" PRIu64 " PARAM_SET; the line: SCALED_PRESSURE %" PRIu64
	       ", gaps %" PRIu64 " (worst %u ms), PARAM_VALUE %" PRIu64
	       ", STATUSTEXT %" PRIu64 "; the GCS: PARAM_VALUE %" PRIu64
	       "\n# %.*s\n", sent, l.v.pressures, l.v.gaps, l.v.worst_step,
	       l.v.values, l.v.texts, r.v.values,
	       out ? (int)strcspn(out, "\n") : 0, out ? out : "");
	/* The flood was taken and reached the line. */
	assert_true(r.v.values > SET_FLOOD_MS / 10u);
	assert_true(l.v.values > 0);
	if (l.v.gaps)
		fail_msg("the line lost samples to the flood's replies: %" PRIu64
			 " gaps in time_boot_ms (worst %u ms)", l.v.gaps,
			 l.v.worst_step);
	assert_true(l.v.pressures * 10u >= SET_FLOOD_MS);
}

/* A ground station on a 57600-baud telemetry radio asks for the
 * parameter list (as QGroundControl and Mission Planner do on every
 * connect), once a second for 5 s.  Two baros' samples at 100 Hz take
 * about 90 % of such a line; the list may take only what they leave,
 * not the 30 % a quiet line gives it.  No SCALED_PRESSURE may go
 * missing or be held back, and the list still arrives. */
static void
test_list_on_a_full_line(void **state)
{
	uint8_t buf[MAVLINK_MAX_FRAME];
	struct line l;
	struct rig r;
	char spec[128], reply[4096];
	uint64_t asked = 0;

	(void)state;
	line_open(&l, 57600, spec, sizeof(spec));
	rig_start(&r, "-o", spec);
	const uint64_t t0 = now_ms();
	uint64_t next = t0;
	while (now_ms() - t0 < 5000u) {
		if (now_ms() >= next) {
			size_t n = make_list_one(buf, sizeof(buf), asked++);
			assert_int_equal(write(l.fd, buf, n), (ssize_t)n);
			next += 1000u;
		}
		drain(&r, 1);
		line_read(&l, true);
	}
	for (uint64_t t1 = now_ms(); now_ms() - t1 < 3000;) {
		drain(&r, 5);
		line_read(&l, true);
	}
	/* What the line carried last against what barod had made by then:
	 * the samples' delay. */
	const uint32_t carried_ms = l.v.last_ms;
	line_read(&l, false);
	const uint32_t lag_ms = l.v.last_ms - carried_ms;
	control_request(r.control, "status\n", reply, sizeof(reply),
			&(struct control_wait){ 50, 20000, false });
	rig_stop(&r);
	line_read(&l, false);
	close(l.fd);
	const char *out = strstr(reply, "serial");
	printf("# %" PRIu64 " lists asked; the line: SCALED_PRESSURE %" PRIu64
	       ", gaps %" PRIu64 " (worst %u ms), PARAM_VALUE %" PRIu64
	       ", samples %u ms late at the end\n# %.*s\n", asked,
	       l.v.pressures, l.v.gaps, l.v.worst_step, l.v.values, lag_ms,
	       out ? (int)strcspn(out, "\n") : 0, out ? out : "");
	if (l.v.gaps)
		fail_msg("the line lost samples to the list: %" PRIu64
			 " gaps in time_boot_ms (worst %u ms)", l.v.gaps,
			 l.v.worst_step);
	/* The list took the line's room: the samples came 1050 ms late at
	 * the end (and later with every list); now about 100 ms. */
	if (lag_ms > 400u)
		fail_msg("the list delayed the samples: %u ms late", lag_ms);
	assert_true(l.v.values >= sim_param_count());
}

/* A 9600-baud line cannot carry two baros at 100 Hz (about 5200
 * bytes/s against 960): barod says so once, with the figures and what
 * to change, rather than only counting what it drops. */
static void
test_line_too_slow(void **state)
{
	struct line l;
	struct rig r;
	char spec[128];

	(void)state;
	line_open(&l, 9600, spec, sizeof(spec));
	rig_start(&r, "-o", spec);
	for (uint64_t t0 = now_ms(); now_ms() - t0 < 2500u;) {
		drain(&r, 5);
		line_read(&l, true);
	}
	char *log = harness_log(&harness, r.pid);
	rig_stop(&r);
	close(l.fd);
	const char *w = strstr(log, "bytes/s of a line that carries 960");
	if (!w || strstr(w + 1, "bytes/s of a line that carries") ||
	    !strstr(log, "raise the baud rate"))
		fail_msg("barod's log:\n%s", log);
	free(log);
}

/* How many times needle is in hay. */
static int
count_of(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* Reads the line at its rate for ms, or until barod's log holds until
 * (if not NULL); its log after. */
static char *
line_watch(struct line *l, pid_t pid, unsigned ms, const char *until)
{
	char *log = NULL;

	for (uint64_t t0 = now_ms(); now_ms() - t0 < ms;) {
		usleep(20000);
		line_read(l, true);
		free(log);
		log = harness_log(&harness, pid);
		if (until && strstr(log, until))
			break;
	}
	return log;
}

/* Samples at 18.5 Hz from two baros ask 957 and 1009 bytes/s of a
 * 9600-baud line (960) in turn, 983 on average: the line is over, one
 * episode.  Before, barod said so and then "carries the samples again"
 * every other second (three warnings in 6 s); now once, and the line
 * carrying them again is said once they fit for a while (a reload to
 * 5 Hz). */
static void
test_line_warning_steady(void **state)
{
	static const char *over = "bytes/s of a line that carries 960";
	static const char *again = "the line carries the samples again";
	struct line l;
	char spec[128], conf[256];

	(void)state;
	line_open(&l, 9600, spec, sizeof(spec));
	harness_write(&harness, conf, sizeof(conf), "steady.conf",
		      "[barod]\ncontrol = none\n"
		      "[mavlink]\nscaled_pressure_hz = 18.5\n");
	const pid_t pid = harness_start(&harness, "steady.log", (const char *[]){
		"--sim", "-c", conf, "-o", spec, "-v", NULL });
	char *log = line_watch(&l, pid, 6500u, NULL);
	if (count_of(log, over) != 1 || strstr(log, again))
		fail_msg("%d warnings, %d 'again' in 6.5 s; barod's log:\n%s",
			 count_of(log, over), count_of(log, again), log);
	free(log);

	harness_write(&harness, conf, sizeof(conf), "steady.conf",
		      "[barod]\ncontrol = none\n"
		      "[mavlink]\nscaled_pressure_hz = 5\n");
	assert_int_equal(kill(pid, SIGHUP), 0);
	log = line_watch(&l, pid, 15000u, again);
	assert_int_equal(harness_stop(&harness, pid, NULL), 0);
	close(l.fd);
	if (count_of(log, over) != 1 || count_of(log, again) != 1)
		fail_msg("after the reload: %d warnings, %d 'again'; barod's "
			 "log:\n%s", count_of(log, over), count_of(log, again),
			 log);
	free(log);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		harness_unit_test(test_hundred_lists, &harness),
		harness_unit_test(test_udp_floods, &harness),
		harness_unit_test(test_stream_peers, &harness),
		harness_unit_test(test_set_flood_spares_the_line, &harness),
		harness_unit_test(test_list_on_a_full_line, &harness),
		harness_unit_test(test_line_too_slow, &harness),
		harness_unit_test(test_line_warning_steady, &harness),
	};

	return harness_run_tests(&harness, "barod-flood", tests);
}
