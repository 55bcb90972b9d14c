/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Every transport, and the one an output's wire uses: the registry above
 * the implementations (which know only transport.h), so choosing one by
 * wire does not make the shared helpers depend on what uses them.
 */
#ifndef BAROD_TRANSPORTS_H
#define BAROD_TRANSPORTS_H

#include "transport.h"

extern const struct transport_ops transport_udp_client;
extern const struct transport_ops transport_udp_server;
extern const struct transport_ops transport_serial;
extern const struct transport_ops transport_tcp;
extern const struct transport_ops transport_tcp_server;

/* The ops for an output type's wire (config.c's output table), NULL for
 * no type. */
const struct transport_ops *
transport_ops_for(enum output_type type);

#endif
