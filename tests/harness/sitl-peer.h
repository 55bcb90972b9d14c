/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A scripted ArduPilot for the daemon tests: servo packets out to
 * barod's SITL JSON port, its JSON replies in and read the way
 * ArduPilot's SIM_JSON reads them.  Failures are cmocka failures.
 */
#ifndef SITL_PEER_H
#define SITL_PEER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sitl-json.h"

/* s encoded and sent to 127.0.0.1:port in one datagram. */
void
sitl_peer_send_servo(int fd, unsigned port, const struct sitl_servo *s);

/* One datagram within ms as a string (cap - 1 bytes at most), or 0. */
ssize_t
sitl_peer_receive(int fd, char *buf, size_t cap, int ms);

/* ArduPilot's framing: every '\n' ends a line and the last complete line
 * is the one parsed into fdm (zeroed first).  Returns ArduPilot's mask
 * for it. */
uint64_t
sitl_peer_ap_read(const char *datagram, struct sitl_fdm *fdm);

#endif
