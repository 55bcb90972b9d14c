// SPDX-License-Identifier: GPL-3.0-or-later
/* Fault injection on recorded streams: the emulator's faults, exactly. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atmosphere.h"
#include "inject.h"
#include "test-util.h"

/* A recorded-looking stream: 10 Hz, a slow climb, varying temperature,
 * pressures that are not on the 1976 model's grid of altitudes. */
static struct baro_sample
rec(unsigned i)
{
	float p;
	float t_k;
	atmos_1976_pressure_temperature(100.0f + 0.05f * (float)i, &p, &t_k);
	return (struct baro_sample){
		.time_us = 5000000u + (uint64_t)i * 100000u,
		.flags = BARO_SAMPLE_HEALTHY | BARO_SAMPLE_HAS_TEMPERATURE,
		.pressure_pa = p + 0.37f * (float)(i % 7),
		.temperature_c = 20.0f + 0.01f * (float)i,
	};
}

static struct scenario *
parse(const char *text)
{
	struct scenario *sc = malloc(sizeof(*sc));
	char err[256];
	assert_non_null(sc);
	if (scenario_parse(sc, text, strlen(text), "t.scn", err,
			   sizeof(err)) < 0)
		fail_msg("%s", err);
	return sc;
}

static double
alt_of(float p)
{
	float a;
	assert_int_equal(atmos_1976_altitude(p, &a), 0);
	return (double)a;
}

static void
test_clean_is_bit_exact(void **state)
{
	(void)state;
	struct inject inj;
	inject_init(&inj, 7);
	for (unsigned i = 0; i < 600; i++) {
		struct baro_sample in = rec(i), out;
		uint32_t label = 99;
		assert_int_equal(inject_sample(&inj, &in, &out, &label), 1);
		assert_int_equal(label, 0);
		assert_memory_equal(&out.pressure_pa, &in.pressure_pa,
				    sizeof(float));
		assert_memory_equal(&out.temperature_c, &in.temperature_c,
				    sizeof(float));
		assert_true(out.time_us == in.time_us);
	}
	assert_true(inj.passthrough == 0);
}

static void
test_glitch_window(void **state)
{
	(void)state;
	struct inject inj;
	struct scenario_run run;
	struct scenario *sc = parse("at 2s glitch 0 15 for 1s\n");
	inject_init(&inj, 1);
	inject_start_scenario(&inj, &run, sc);
	unsigned faulted = 0;
	for (unsigned i = 0; i < 50; i++) {
		struct baro_sample in = rec(i), out;
		uint32_t label;
		assert_int_equal(inject_sample(&inj, &in, &out, &label), 1);
		/* Scenario time is the stream's: samples 20..29 are at
		 * 2.0..2.9 s. */
		bool in_window = i >= 20 && i < 30;
		assert_int_equal(label, in_window ? INJECT_GLITCH : 0u);
		double d = alt_of(out.pressure_pa) - alt_of(in.pressure_pa);
		if (in_window) {
			assert_close_abs(d, 15.0, 0.01);
			faulted++;
		} else {
			assert_true(out.pressure_pa == in.pressure_pa);
		}
	}
	assert_int_equal(faulted, 10);
	free(sc);
}

static void
test_freeze_repeats_whole_reading(void **state)
{
	(void)state;
	struct inject inj;
	struct scenario_run run;
	struct scenario *sc = parse("at 1s freeze 0 for 2s\n");
	inject_init(&inj, 1);
	inject_start_scenario(&inj, &run, sc);
	struct baro_sample first = { 0 };
	for (unsigned i = 0; i < 40; i++) {
		struct baro_sample in = rec(i), out;
		uint32_t label;
		assert_int_equal(inject_sample(&inj, &in, &out, &label), 1);
		if (i == 10)
			first = out;
		if (i > 10 && i < 30) {
			assert_int_equal(label, INJECT_FREEZE);
			/* Bit-identical: a change detector must see none. */
			assert_memory_equal(&out.pressure_pa,
					    &first.pressure_pa, sizeof(float));
			assert_memory_equal(&out.temperature_c,
					    &first.temperature_c,
					    sizeof(float));
		}
		if (i >= 30)
			assert_true(out.pressure_pa == in.pressure_pa);
	}
	free(sc);
}

static void
test_disable_drops(void **state)
{
	(void)state;
	struct inject inj;
	struct scenario_run run;
	struct scenario *sc = parse("at 1s disable 0 for 500ms\n");
	inject_init(&inj, 1);
	inject_start_scenario(&inj, &run, sc);
	unsigned dropped = 0;
	for (unsigned i = 0; i < 30; i++) {
		struct baro_sample in = rec(i), out;
		uint32_t label;
		int rc = inject_sample(&inj, &in, &out, &label);
		if (i >= 10 && i < 15) {
			assert_int_equal(rc, 0);
			assert_int_equal(label, INJECT_DISABLE);
			assert_int_equal(inject_label_now(&inj),
					 INJECT_DISABLE);
			dropped++;
		} else {
			assert_int_equal(rc, 1);
		}
	}
	assert_int_equal(dropped, 5);
	free(sc);
}

static void
test_delay_shows_the_past(void **state)
{
	(void)state;
	struct inject inj;
	struct scenario_run run;
	struct scenario *sc = parse("at 3s delay 0 300 for 2s\n");
	inject_init(&inj, 1);
	inject_start_scenario(&inj, &run, sc);
	double alt_in[60];
	for (unsigned i = 0; i < 60; i++) {
		struct baro_sample in = rec(i), out;
		uint32_t label;
		alt_in[i] = alt_of(in.pressure_pa);
		assert_int_equal(inject_sample(&inj, &in, &out, &label), 1);
		if (i >= 31 && i < 50) {
			assert_int_equal(label, INJECT_DELAY);
			/* Three samples (300 ms) back; neighbours differ by
			 * 0.02 m or more, the model's round trip by less
			 * than 0.005 m. */
			assert_close_abs(alt_of(out.pressure_pa),
					 alt_in[i - 3], 0.008);
		}
	}
	free(sc);
}

static void
test_drift_and_slow(void **state)
{
	(void)state;
	struct inject inj;
	struct scenario_run run;
	struct scenario *sc = parse("at 1s drift 0 0.5 for 2s\n"
				    "at 4s px4 slow 0 4 for 2s\n");
	inject_init(&inj, 1);
	inject_start_scenario(&inj, &run, sc);
	unsigned published_slow = 0;
	for (unsigned i = 0; i < 70; i++) {
		struct baro_sample in = rec(i), out;
		uint32_t label;
		int rc = inject_sample(&inj, &in, &out, &label);
		assert_true(rc >= 0);
		if (i == 29) {
			/* 0.5 m/s for about 1.9 s of integration. */
			assert_int_equal(label, INJECT_DRIFT);
			double d = alt_of(out.pressure_pa) -
				   alt_of(in.pressure_pa);
			assert_close_abs(d, 0.95, 0.06);
		}
		if (i >= 40 && i < 60) {
			assert_true(label & INJECT_SLOW);
			published_slow += (unsigned)rc;
		}
	}
	assert_int_equal(published_slow, 5);
	free(sc);
}

static void
test_bad_input(void **state)
{
	(void)state;
	struct inject inj;
	struct baro_sample in = rec(10), out;
	uint32_t label;
	inject_init(&inj, 1);
	assert_int_equal(inject_sample(&inj, &in, &out, &label), 1);
	struct baro_sample early = rec(3);
	assert_int_equal(inject_sample(&inj, &early, &out, &label), -EINVAL);
	struct baro_sample nan = rec(11);
	nan.pressure_pa = NAN;
	assert_int_equal(inject_sample(&inj, &nan, &out, &label), -EINVAL);
	nan.pressure_pa = -5.0f;
	assert_int_equal(inject_sample(&inj, &nan, &out, &label), -EINVAL);
}

static void
test_label_format(void **state)
{
	(void)state;
	char buf[64];
	inject_label_format(0, buf, sizeof(buf));
	assert_string_equal(buf, "clean");
	inject_label_format(INJECT_GLITCH | INJECT_FREEZE, buf, sizeof(buf));
	assert_string_equal(buf, "glitch+freeze");
	char small[8];
	int n = inject_label_format(INJECT_GLITCH | INJECT_FREEZE, small,
				    sizeof(small));
	assert_int_equal(n, (int)strlen("glitch+freeze"));
	assert_string_equal(small, "glitch+");
}

/* Every label bit has a name of its own, one word (inject.c's table is
 * designated, so a bit left out would be a NULL). */
static void
test_every_label_bit_has_a_name(void **state)
{
	char names[INJECT_LABEL_BITS][32];
	(void)state;

	for (unsigned i = 0; i < INJECT_LABEL_BITS; i++) {
		int n = inject_label_format(1u << i, names[i],
					    sizeof(names[i]));

		assert_true(n > 0 && (size_t)n < sizeof(names[i]));
		assert_null(strchr(names[i], '+'));
		assert_null(strstr(names[i], "null"));
		assert_string_not_equal(names[i], "clean");
		for (unsigned j = 0; j < i; j++)
			assert_string_not_equal(names[j], names[i]);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_is_bit_exact),
		cmocka_unit_test(test_glitch_window),
		cmocka_unit_test(test_freeze_repeats_whole_reading),
		cmocka_unit_test(test_disable_drops),
		cmocka_unit_test(test_delay_shows_the_past),
		cmocka_unit_test(test_drift_and_slow),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_every_label_bit_has_a_name),
		cmocka_unit_test(test_label_format),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
