/* SPDX-License-Identifier: GPL-3.0-or-later */
/* UDP client: datagrams to one address (a ground station, mavlink-router,
 * a flight controller's MSP port); its replies come back on the same
 * socket. */
#include "transport.h"

static int
udp_client_open(struct transport *t, char *err, size_t errlen)
{
	return datagram_open(t, false, err, errlen);
}

static void
udp_client_on_event(struct transport *t, uint32_t events)
{
	(void)events;
	datagram_readable(t, false);
}

const struct transport_ops transport_udp_client = {
	.open = udp_client_open,
	.close = datagram_close,
	.queue = datagram_queue,
	.flush = datagram_flush,
	.send = datagram_send,
	.on_event = udp_client_on_event,
	.describe = datagram_describe,
};
