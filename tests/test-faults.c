/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The fault overlay: PX4's garbage, slow and intermittent baro faults. */
#include <errno.h>

#include "faults.h"
#include "test-util.h"

static struct baro_sample
sample(unsigned instance, unsigned k)
{
	return (struct baro_sample){
		.time_us = 10000u * (k + 1u),
		.instance = (uint8_t)instance,
		.flags = BARO_SAMPLE_HEALTHY | BARO_SAMPLE_HAS_TEMPERATURE |
			 BARO_SAMPLE_HAS_ALTITUDE | BARO_SAMPLE_SIMULATED,
		.pressure_pa = 95000.0f + (float)k,
		.temperature_c = 25.0f,
		.alt_m = 500.0f,
	};
}

/* Field by field: struct padding is not part of a sample. */
static void
assert_same_sample(const struct baro_sample *a, const struct baro_sample *b)
{
	assert_int_equal(a->time_us, b->time_us);
	assert_int_equal(a->instance, b->instance);
	assert_int_equal(a->flags, b->flags);
	assert_float_exact(a->pressure_pa, b->pressure_pa);
	assert_float_exact(a->temperature_c, b->temperature_c);
	assert_float_exact(a->alt_m, b->alt_m);
}

static int
set_fault(struct fault_overlay *ov, unsigned instance, enum fault_kind kind,
	  uint32_t every)
{
	return fault_overlay_set(ov, instance,
				 (struct fault_spec){ kind, every });
}

/* Publish pattern of n samples of instance into out[] (1 = published). */
static void
pattern(struct fault_overlay *ov, unsigned instance, bool *out, unsigned n)
{
	for (unsigned k = 0; k < n; k++) {
		struct baro_sample s = sample(instance, k);
		out[k] = fault_overlay_apply(ov, &s);
	}
}

static void
test_no_fault_passes_through(void **state)
{
	struct fault_overlay ov;
	(void)state;

	fault_overlay_init(&ov, 1);
	for (unsigned i = 0; i < BARO_MAX_INSTANCES; i++) {
		for (unsigned k = 0; k < 100; k++) {
			struct baro_sample s = sample(i, k), want = s;
			assert_true(fault_overlay_apply(&ov, &s));
			assert_same_sample(&s, &want);
		}
	}
	/* A sample from an instance the overlay has no slot for passes. */
	struct baro_sample s = sample(7, 0), want = s;
	assert_true(fault_overlay_apply(&ov, &s));
	assert_same_sample(&s, &want);
}

/* Garbage: plausible-range random pressure and temperature, no altitude,
 * every sample published; other instances untouched. */
static void
test_garbage(void **state)
{
	struct fault_overlay ov;
	float pmin = 1e9f, pmax = 0.0f, tmin = 1e9f, tmax = -1e9f;
	(void)state;

	fault_overlay_init(&ov, 42);
	assert_int_equal(set_fault(&ov, 1, FAULT_GARBAGE, 0), 0);
	for (unsigned k = 0; k < 5000; k++) {
		struct baro_sample s = sample(1, k);
		assert_true(fault_overlay_apply(&ov, &s));
		assert_false(baro_sample_has(&s, BARO_SAMPLE_HAS_ALTITUDE));
		assert_true(baro_sample_has(&s, BARO_SAMPLE_HEALTHY));
		assert_true(baro_sample_has(&s, BARO_SAMPLE_HAS_TEMPERATURE));
		assert_true(s.pressure_pa >= FAULT_GARBAGE_PA_MIN &&
			    s.pressure_pa <= FAULT_GARBAGE_PA_MAX);
		assert_true(s.temperature_c >= FAULT_GARBAGE_C_MIN &&
			    s.temperature_c <= FAULT_GARBAGE_C_MAX);
		pmin = s.pressure_pa < pmin ? s.pressure_pa : pmin;
		pmax = s.pressure_pa > pmax ? s.pressure_pa : pmax;
		tmin = s.temperature_c < tmin ? s.temperature_c : tmin;
		tmax = s.temperature_c > tmax ? s.temperature_c : tmax;

		struct baro_sample o = sample(0, k), want = o;
		assert_true(fault_overlay_apply(&ov, &o));
		assert_same_sample(&o, &want);
	}
	/* Spread over the whole range, not stuck near one value. */
	assert_true(pmin < 31000.0f && pmax > 109000.0f);
	assert_true(tmin < -38.0f && tmax > 83.0f);
}

/* The same seed gives the same garbage; setting the fault again starts
 * the same sequence again; another seed or instance gives another one. */
static void
test_garbage_deterministic(void **state)
{
	struct fault_overlay a, b, c;
	const struct fault_spec g = { FAULT_GARBAGE, 0 };
	float first[20];
	(void)state;

	fault_overlay_init(&a, 7);
	fault_overlay_init(&b, 7);
	fault_overlay_init(&c, 8);
	assert_int_equal(fault_overlay_set(&a, 2, g), 0);
	assert_int_equal(fault_overlay_set(&b, 2, g), 0);
	assert_int_equal(fault_overlay_set(&c, 2, g), 0);
	int differ = 0;
	for (unsigned k = 0; k < 20; k++) {
		struct baro_sample sa = sample(2, k), sb = sample(2, k),
				   sc = sample(2, k);
		(void)fault_overlay_apply(&a, &sa);
		(void)fault_overlay_apply(&b, &sb);
		(void)fault_overlay_apply(&c, &sc);
		assert_same_sample(&sa, &sb);
		differ += sa.pressure_pa != sc.pressure_pa;
		first[k] = sa.pressure_pa;
	}
	assert_true(differ >= 19);

	assert_int_equal(fault_overlay_set(&a, 2, g), 0);
	for (unsigned k = 0; k < 20; k++) {
		struct baro_sample s = sample(2, k);
		(void)fault_overlay_apply(&a, &s);
		assert_float_exact(s.pressure_pa, first[k]);
	}

	/* Instance 1 under the same seed draws its own stream. */
	assert_int_equal(fault_overlay_set(&b, 1, g), 0);
	struct baro_sample s = sample(1, 0);
	(void)fault_overlay_apply(&b, &s);
	assert_true(s.pressure_pa != first[0]);
}

/* Slow: one sample in N, starting with the first; values untouched. */
static void
test_slow(void **state)
{
	struct fault_overlay ov;
	bool pub[100];
	(void)state;

	fault_overlay_init(&ov, 1);
	assert_int_equal(set_fault(&ov, 0, FAULT_SLOW, 10), 0);
	for (unsigned k = 0; k < 100; k++) {
		struct baro_sample s = sample(0, k), want = s;
		bool p = fault_overlay_apply(&ov, &s);
		assert_int_equal(p, k % 10 == 0);
		if (p)
			assert_same_sample(&s, &want);
	}

	assert_int_equal(set_fault(&ov, 0, FAULT_SLOW, 3), 0);
	pattern(&ov, 0, pub, 9);
	for (unsigned k = 0; k < 9; k++)
		assert_int_equal(pub[k], k % 3 == 0);

	/* Out of range: an error, the fault in force stays. */
	assert_int_equal(set_fault(&ov, 0, FAULT_SLOW, 1), -EINVAL);
	assert_int_equal(set_fault(&ov, 0, FAULT_SLOW, FAULT_SLOW_MAX + 1),
			 -EINVAL);
	assert_int_equal(ov.inst[0].spec.every, 3);
	assert_int_equal(set_fault(&ov, 3, FAULT_GARBAGE, 0), -EINVAL);
	assert_int_equal(set_fault(&ov, 0, (enum fault_kind)9, 0), -EINVAL);
}

/* Intermittent: starts with a gap, bursts of 1..FAULT_BURST_MAX samples
 * alternate, about half published, the same for the same seed. */
static void
test_intermittent(void **state)
{
	enum { N = 20000 };
	static bool a[N], b[N], c[N];
	struct fault_overlay x, y, z;
	const struct fault_spec f = { FAULT_INTERMITTENT, 0 };
	(void)state;

	fault_overlay_init(&x, 3);
	fault_overlay_init(&y, 3);
	fault_overlay_init(&z, 4);
	assert_int_equal(fault_overlay_set(&x, 0, f), 0);
	assert_int_equal(fault_overlay_set(&y, 0, f), 0);
	assert_int_equal(fault_overlay_set(&z, 0, f), 0);
	pattern(&x, 0, a, N);
	pattern(&y, 0, b, N);
	pattern(&z, 0, c, N);
	assert_memory_equal(a, b, sizeof(a));
	assert_memory_not_equal(a, c, sizeof(a));

	assert_false(a[0]);
	unsigned published = 0, run = 0, longest = 0, bursts = 0;
	for (unsigned k = 0; k < N; k++) {
		published += a[k];
		run++;
		if (k + 1 == N || a[k + 1] != a[k]) {
			longest = run > longest ? run : longest;
			bursts++;
			run = 0;
		}
	}
	assert_true(longest <= FAULT_BURST_MAX);
	assert_true(longest > FAULT_BURST_MAX - 5);
	assert_true(published > N * 4 / 10 && published < N * 6 / 10);
	assert_true(bursts > N / FAULT_BURST_MAX);
}

/* Clearing puts every instance back to normal publication. */
static void
test_clear(void **state)
{
	struct fault_overlay ov;
	(void)state;

	fault_overlay_init(&ov, 9);
	assert_int_equal(set_fault(&ov, 0, FAULT_GARBAGE, 0), 0);
	assert_int_equal(set_fault(&ov, 1, FAULT_SLOW, 5), 0);
	assert_int_equal(set_fault(&ov, 2, FAULT_INTERMITTENT, 0), 0);
	fault_overlay_clear(&ov);
	for (unsigned i = 0; i < BARO_MAX_INSTANCES; i++) {
		assert_int_equal(ov.inst[i].spec.kind, FAULT_NONE);
		for (unsigned k = 0; k < 50; k++) {
			struct baro_sample s = sample(i, k), want = s;
			assert_true(fault_overlay_apply(&ov, &s));
			assert_same_sample(&s, &want);
		}
	}
}

static void
test_names(void **state)
{
	char buf[32];
	(void)state;

	assert_string_equal(fault_kind_name(FAULT_NONE), "none");
	assert_string_equal(fault_kind_name(FAULT_GARBAGE), "garbage");
	assert_string_equal(fault_kind_name(FAULT_SLOW), "slow");
	assert_string_equal(fault_kind_name(FAULT_INTERMITTENT),
			    "intermittent");
	fault_spec_format((struct fault_spec){ FAULT_SLOW, 10 }, buf,
			  sizeof(buf));
	assert_string_equal(buf, "slow 10");
	fault_spec_format((struct fault_spec){ FAULT_GARBAGE, 0 }, buf,
			  sizeof(buf));
	assert_string_equal(buf, "garbage");
	assert_true(fault_spec_equal((struct fault_spec){ FAULT_GARBAGE, 0 },
				     (struct fault_spec){ FAULT_GARBAGE, 3 }));
	assert_false(fault_spec_equal((struct fault_spec){ FAULT_SLOW, 2 },
				      (struct fault_spec){ FAULT_SLOW, 3 }));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_fault_passes_through),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_garbage_deterministic),
		cmocka_unit_test(test_slow),
		cmocka_unit_test(test_intermittent),
		cmocka_unit_test(test_clear),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
