/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "sim-random.h"

void
sim_random_seed(struct sim_random *r, uint32_t seed)
{
	if (seed == 0)
		seed = 1;

	/* glibc keeps the seed in an int32_t, so seeds >= 2^31 start the
	 * Park-Miller recurrence from a negative number; keep that. */
	int32_t word = (int32_t)seed;
	r->state[0] = word;
	for (int i = 1; i < SIM_RANDOM_DEG; i++) {
		/* 16807 * word mod (2^31 - 1) without overflow (Schrage). */
		int64_t hi = word / 127773;
		int64_t lo = word % 127773;
		word = (int32_t)(16807 * lo - 2836 * hi);
		if (word < 0)
			word += 2147483647;
		r->state[i] = word;
	}
	r->front = SIM_RANDOM_SEP;
	r->rear = 0;

	/* glibc discards the first 10 * degree outputs. */
	for (int i = 0; i < 10 * SIM_RANDOM_DEG; i++)
		(void)sim_random_next(r);
}

int32_t
sim_random_next(struct sim_random *r)
{
	uint32_t val = (uint32_t)r->state[r->front] +
		       (uint32_t)r->state[r->rear];
	r->state[r->front] = (int32_t)val;

	if (++r->front >= SIM_RANDOM_DEG) {
		r->front = 0;
		r->rear++;
	} else if (++r->rear >= SIM_RANDOM_DEG) {
		r->rear = 0;
	}
	return (int32_t)(val >> 1);
}

float
sim_random_float(struct sim_random *r)
{
	uint32_t u = (uint32_t)sim_random_next(r) % 2000000u;

	return ((float)u - 1.0e6f) / 1.0e6f;
}
