/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "px4-peer.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "barod-harness.h"
#include "test-util.h"

int
px4_peer_dial(unsigned port, int tries)
{
	int fd = harness_dial_tcp(port, tries);

	if (fd < 0)
		fail_msg("barod does not accept on port %u", port);
	return fd;
}

void
px4_peer_connect(struct px4_peer *p, unsigned port, int tries)
{
	memset(p, 0, sizeof(*p));
	mavlink_parser_init(&p->parser);
	p->fd = px4_peer_dial(port, tries);
}

void
px4_peer_close(struct px4_peer *p)
{
	close(p->fd);
	free(p->raw);
	p->raw = NULL;
}

static void
enqueue(const struct mavlink_frame *f, void *user)
{
	struct px4_peer *p = user;

	assert_true(p->n < PX4_PEER_QUEUE);
	p->q[(p->head + p->n++) % PX4_PEER_QUEUE] = *f;
}

bool
px4_peer_next(struct px4_peer *p, struct mavlink_frame *f, int ms)
{
	while (p->n == 0 && !p->eof) {
		struct pollfd pf = { p->fd, POLLIN, 0 };
		uint8_t buf[8192];
		if (poll(&pf, 1, ms) <= 0)
			return false;
		ssize_t n = recv(p->fd, buf, sizeof(buf), 0);
		if (n <= 0) {
			p->eof = true;
			break;
		}
		if (p->discard_raw) {
			mavlink_parser_feed(&p->parser, buf, (size_t)n,
					    enqueue, p);
			continue;
		}
		if (p->raw_len + (size_t)n > p->raw_cap) {
			p->raw_cap = 2 * (p->raw_cap + (size_t)n);
			p->raw = realloc(p->raw, p->raw_cap);
			assert_non_null(p->raw);
		}
		memcpy(p->raw + p->raw_len, buf, (size_t)n);
		p->raw_len += (size_t)n;
		mavlink_parser_feed(&p->parser, buf, (size_t)n, enqueue, p);
	}
	if (p->n == 0)
		return false;
	*f = p->q[p->head];
	p->head = (p->head + 1) % PX4_PEER_QUEUE;
	p->n--;
	return true;
}

void
px4_peer_send(int fd, uint8_t *seq, uint32_t msgid, const uint8_t *pl)
{
	uint8_t f[MAVLINK_MAX_FRAME];
	int n = mavlink_frame_encode(f, 2, (*seq)++, 1, 1, msgid, pl);

	assert_true(n > 0);
	assert_int_equal(send(fd, f, (size_t)n, MSG_NOSIGNAL), n);
}

void
px4_peer_heartbeat(int fd, uint8_t *seq)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
	struct mavlink_heartbeat hb = { .autopilot = 12, .mavlink_version = 3 };

	mavlink_pack_heartbeat(&hb, pl);
	px4_peer_send(fd, seq, MAVLINK_MSG_HEARTBEAT, pl);
}

void
px4_peer_hello(int fd, uint8_t *seq)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
	struct mavlink_command_long c = {
		.param = { 115.0f, 5000.0f },
		.command = MAV_CMD_SET_MESSAGE_INTERVAL,
	};

	px4_peer_heartbeat(fd, seq);
	mavlink_pack_command_long(&c, pl);
	px4_peer_send(fd, seq, MAVLINK_MSG_COMMAND_LONG, pl);
}

void
px4_peer_controls(int fd, uint8_t *seq, uint64_t px4_time_us, uint8_t mode,
		  float throttle)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
	struct mavlink_hil_actuator_controls a = {
		.time_usec = px4_time_us,
		.flags = HIL_ACTUATOR_CONTROLS_FLAGS_LOCKSTEP,
		.mode = mode,
	};

	for (int k = 0; k < 4; k++)
		a.controls[k] = throttle;
	mavlink_pack_hil_actuator_controls(&a, pl);
	px4_peer_send(fd, seq, MAVLINK_MSG_HIL_ACTUATOR_CONTROLS, pl);
}
