/* SPDX-License-Identifier: GPL-3.0-or-later */
/* UDP server: bound to an address, sending to every peer heard from (the
 * last TRANSPORT_MAX_PEERS), each flush's datagrams to all of them in one
 * sendmmsg. */
#include "transport.h"

static int
udp_server_open(struct transport *t, char *err, size_t errlen)
{
	return datagram_open(t, true, err, errlen);
}

static void
udp_server_on_event(struct transport *t, uint32_t events)
{
	(void)events;
	datagram_readable(t, true);
}

const struct transport_ops transport_udp_server = {
	.open = udp_server_open,
	.close = datagram_close,
	.queue = datagram_queue,
	.flush = datagram_flush,
	.send = datagram_send,
	.on_event = udp_server_on_event,
	.describe = datagram_describe,
	.keep_sender = datagram_learn_sender,
};
