/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The one data type that flows through barod.
 *
 * Every source (hardware driver, AP_Baro_SITL emulator, SITL JSON peer,
 * log replay) produces struct baro_sample, every filter takes and returns
 * it, every output (MAVLink, SITL JSON, CSV) publishes it.  It is a plain
 * value: no pointers, so it can be copied, queued and recorded freely.
 */
#ifndef BAROD_BARO_SAMPLE_H
#define BAROD_BARO_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>

/* ArduPilot's BARO_MAX_INSTANCES; MAVLink has SCALED_PRESSURE..3 for them. */
#define BARO_MAX_INSTANCES 3

enum baro_sample_flags {
	/* The source vouches for the reading (ArduPilot's healthy(i)). */
	BARO_SAMPLE_HEALTHY = 1u << 0,
	/* temperature_c carries a measurement, not a placeholder. */
	BARO_SAMPLE_HAS_TEMPERATURE = 1u << 1,
	/* alt_m carries the altitude behind the pressure (simulator truth
	 * after faults, or a log's own baro altitude). */
	BARO_SAMPLE_HAS_ALTITUDE = 1u << 2,
	/* Produced by a simulator rather than a physical sensor. */
	BARO_SAMPLE_SIMULATED = 1u << 3,
};

struct baro_sample {
	/* Time of the reading on the producer's clock, microseconds.  For
	 * simulated samples this is simulation time, for hardware it is
	 * CLOCK_MONOTONIC; the producer says which in its documentation. */
	uint64_t time_us;
	uint8_t instance;	/* 0 .. BARO_MAX_INSTANCES-1 */
	uint32_t flags;		/* enum baro_sample_flags */
	float pressure_pa;	/* absolute static pressure, Pa */
	float temperature_c;	/* sensor temperature, degrees Celsius */
	float alt_m;		/* AMSL metres, valid with HAS_ALTITUDE */
};

static inline bool
baro_sample_has(const struct baro_sample *s, enum baro_sample_flags f)
{
	return (s->flags & (uint32_t)f) != 0;
}

#endif
