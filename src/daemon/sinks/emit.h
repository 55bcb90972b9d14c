/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What travels with every sample from a source (sources/source.h) through
 * the emit path to the sinks (sinks/sink.h): a header of its own, so a
 * source sees it without seeing the sinks.
 */
#ifndef BAROD_EMIT_H
#define BAROD_EMIT_H

#include <stdint.h>

/* Where a sample comes from: the vehicle (its MAVLink sysid is the
 * configured one + vehicle) and its time (physics time for the simulated
 * sources, CLOCK_MONOTONIC for hardware). */
struct emit_ctx {
	unsigned vehicle;
	uint64_t now_us;
};

#endif
