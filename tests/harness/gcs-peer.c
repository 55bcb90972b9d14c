/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "gcs-peer.h"

#include <poll.h>
#include <sys/socket.h>

uint64_t
gcs_peer_drain(int fd, int wait_ms,
	       void (*on_frame)(const struct mavlink_frame *f, void *user),
	       void *user)
{
	struct mavlink_parser p;
	struct pollfd pf = { fd, POLLIN, 0 };
	uint8_t buf[4096];
	ssize_t n;

	mavlink_parser_init(&p);
	while (poll(&pf, 1, wait_ms) > 0 &&
	       (n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		mavlink_parser_feed(&p, buf, (size_t)n, on_frame, user);
		mavlink_parser_flush(&p);
	}
	return p.stats.bad_crc;
}

void
gcs_peer_count_sysid(const struct mavlink_frame *f, void *user)
{
	unsigned *n = user;

	if (f->msgid == MAVLINK_MSG_SCALED_PRESSURE && f->sysid <= 2)
		n[f->sysid]++;
}
