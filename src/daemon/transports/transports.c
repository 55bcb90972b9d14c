/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "transports.h"

const struct transport_ops *
transport_ops_for(enum output_type type)
{
	const struct config_output_info *info = config_output_info(type);

	if (info->type != type)
		return NULL;
	switch (info->wire) {
	case WIRE_UDP_CLIENT:
		return &transport_udp_client;
	case WIRE_UDP_SERVER:
		return &transport_udp_server;
	case WIRE_SERIAL:
		return &transport_serial;
	case WIRE_TCP:
		return &transport_tcp;
	case WIRE_TCP_SERVER:
		return &transport_tcp_server;
	}
	return NULL;
}
