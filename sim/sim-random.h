/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A private random stream that reproduces glibc's random() after
 * srandom(seed) bit for bit (the default TYPE_3 additive feedback
 * generator, degree 31, separation 3), and ArduPilot SITL's rand_float()
 * mapping on top of it.
 *
 * ArduPilot SITL draws its baro noise from glibc's process-wide random();
 * keeping the same generator but in a struct gives every emulator its own
 * reproducible stream without touching the C library's hidden state.
 */
#ifndef BAROD_SIM_RANDOM_H
#define BAROD_SIM_RANDOM_H

#include <stdint.h>

#define SIM_RANDOM_DEG 31
#define SIM_RANDOM_SEP 3

struct sim_random {
	int32_t state[SIM_RANDOM_DEG];
	uint8_t front;	/* glibc's fptr, as an index */
	uint8_t rear;	/* glibc's rptr */
};

/* Like srandom(seed): seed 0 behaves as seed 1, as in glibc. */
void
sim_random_seed(struct sim_random *r, uint32_t seed);

/* Like random(): a value in [0, 2^31). */
int32_t
sim_random_next(struct sim_random *r);

/*
 * ArduPilot SITL's rand_float(): ((unsigned)random() % 2000000 - 1e6) / 1e6,
 * a uniform value on the 1e-6 grid in [-1, 1).  ArduPilot builds with
 * -fsingle-precision-constant so the arithmetic is float; the double
 * version rounds to the same float because both operands are exact.
 */
float
sim_random_float(struct sim_random *r);

#endif
