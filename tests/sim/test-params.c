/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <errno.h>
#include <float.h>
#include <stddef.h>
#include <stdlib.h>

#include "sim-params.h"
#include "test-util.h"

/* ArduPilot's names, in its group order, for all three instances. */
static void
test_names_and_order(void **state)
{
	static const char *const suffix[] = {
		"RND", "DRIFT", "DISABLE", "GLITCH", "FREEZE", "DELAY",
		"WCF_FWD", "WCF_BAK", "WCF_RGT", "WCF_LFT", "WCF_UP", "WCF_DN",
		"GEFF_M",
	};
	/* SIM_BARO_COUNT, three instances' groups, the four SIM_TEMP_*. */
	const int per = (int)(sizeof(suffix) / sizeof(suffix[0]));
	const int temp0 = 1 + 3 * per;
	static const char *const prefix[] = { "SIM_BARO_", "SIM_BAR2_",
					      "SIM_BAR3_" };
	(void)state;

	assert_int_equal(sim_param_count(), (size_t)temp0 + 4);
	assert_string_equal(sim_param_info(0)->name, "SIM_BARO_COUNT");
	for (int i = 0; i < 3; i++) {
		for (int k = 0; k < per; k++) {
			char want[32];
			snprintf(want, sizeof(want), "%s%s", prefix[i],
				 suffix[k]);
			const struct sim_param_info *p =
				sim_param_info((size_t)(1 + per * i + k));
			assert_string_equal(p->name, want);
			assert_int_equal(sim_param_find(want), 1 + per * i + k);
		}
	}
	assert_string_equal(sim_param_info((size_t)temp0)->name,
			    "SIM_TEMP_START");
	assert_string_equal(sim_param_info((size_t)temp0 + 3)->name,
			    "SIM_TEMP_BFACTOR");
	assert_null(sim_param_info(sim_param_count()));

	/* MAVLink's param_id holds 16 characters; every name must fit. */
	for (size_t i = 0; i < sim_param_count(); i++) {
		const struct sim_param_info *p = sim_param_info(i);
		assert_true(strlen(p->name) <= 16);
		assert_non_null(p->desc);
		assert_true(strlen(p->desc) > 10);
	}
}

/* ArduPilot's defaults, types and units. */
static void
test_defaults(void **state)
{
	struct sim_params p;
	(void)state;

	sim_params_defaults(&p);
	assert_int_equal(p.baro_count, 2);
	for (int i = 0; i < 3; i++) {
		assert_float_exact(p.baro[i].rnd, 0.2f);
		assert_float_exact(p.baro[i].drift, 0.0f);
		assert_int_equal(p.baro[i].disable, 0);
		assert_int_equal(p.baro[i].freeze, 0);
		assert_int_equal(p.baro[i].delay, 0);
		assert_float_exact(p.baro[i].wcf_dn, 0.0f);
	}
	assert_float_exact(p.temp_start, 25.0f);
	assert_float_exact(p.temp_brd_off, 20.0f);
	assert_float_exact(p.temp_tconst, 30.0f);
	assert_float_exact(p.temp_bfactor, 0.0f);

	const struct sim_param_info *d =
		sim_param_info((size_t)sim_param_find("SIM_BAR3_DELAY"));
	assert_int_equal(d->type, SIM_PARAM_INT16);
	assert_string_equal(d->units, "ms");
	d = sim_param_info((size_t)sim_param_find("SIM_BARO_DISABLE"));
	assert_int_equal(d->type, SIM_PARAM_INT8);
	d = sim_param_info((size_t)sim_param_find("SIM_BARO_DRIFT"));
	assert_string_equal(d->units, "m/s");
	d = sim_param_info((size_t)sim_param_find("SIM_TEMP_TCONST"));
	assert_string_equal(d->units, "s");
	/* Ground effect (ArduPilot master, SITL_Baro.cpp GEFF_M): metres,
	 * off by default, on every instance. */
	for (int i = 0; i < 3; i++)
		assert_float_exact(p.baro[i].geff_m, 0.0f);
	d = sim_param_info((size_t)sim_param_find("SIM_BAR2_GEFF_M"));
	assert_int_equal(d->type, SIM_PARAM_FLOAT);
	assert_string_equal(d->units, "m");
	assert_float_exact(d->def, 0.0f);
}

/* Get and set go to the right field of the right instance. */
static void
test_get_set(void **state)
{
	struct sim_params p;
	(void)state;

	sim_params_defaults(&p);
	for (size_t i = 0; i < sim_param_count(); i++) {
		const struct sim_param_info *info = sim_param_info(i);
		assert_float_exact(sim_param_get(&p, i), info->def);
		double v = info->type == SIM_PARAM_FLOAT ? 1.5 : 3.0;
		assert_int_equal(sim_param_set(&p, i, v), 0);
		assert_float_exact(sim_param_get(&p, i), (float)v);
		/* Nothing else moved. */
		for (size_t j = 0; j < sim_param_count(); j++) {
			if (j != i)
				assert_float_exact(sim_param_get(&p, j),
						   sim_param_info(j)->def);
		}
		assert_int_equal(sim_param_set(&p, i, info->def), 0);
	}
	assert_int_equal(sim_param_set(&p,
				       (size_t)sim_param_find("SIM_BAR3_RND"),
				       0.1), 0);
	assert_float_exact(p.baro[2].rnd, 0.1f);
}

static void
test_set_rejects(void **state)
{
	struct sim_params p;
	const size_t count = (size_t)sim_param_find("SIM_BARO_COUNT");
	const size_t delay = (size_t)sim_param_find("SIM_BARO_DELAY");
	const size_t freeze = (size_t)sim_param_find("SIM_BAR2_FREEZE");
	const size_t rnd = (size_t)sim_param_find("SIM_BARO_RND");
	(void)state;

	sim_params_defaults(&p);
	assert_int_equal(sim_param_set(&p, count, 4), -ERANGE);
	assert_int_equal(sim_param_set(&p, count, -1), -ERANGE);
	assert_int_equal(sim_param_set(&p, count, 3), 0);
	assert_int_equal(sim_param_set(&p, delay, 32768), -ERANGE);
	assert_int_equal(sim_param_set(&p, delay, -32769), -ERANGE);
	assert_int_equal(sim_param_set(&p, delay, 1.5), -EINVAL);
	assert_int_equal(sim_param_set(&p, freeze, 128), -ERANGE);
	assert_int_equal(sim_param_set(&p, rnd, NAN), -EINVAL);
	assert_int_equal(sim_param_set(&p, rnd, INFINITY), -EINVAL);
	assert_int_equal(sim_param_set(&p, rnd, 1e39), -ERANGE);
	/* Failed sets leave the value alone. */
	assert_int_equal(p.baro_count, 3);
	assert_int_equal(p.baro[0].delay, 0);
	assert_float_exact(p.baro[0].rnd, 0.2f);
}

static void
test_assign(void **state)
{
	struct sim_params p;
	char err[256];
	(void)state;

	sim_params_defaults(&p);
	assert_int_equal(sim_param_assign(&p, "SIM_BARO_GLITCH=-10.25", err,
					  sizeof(err)), 0);
	assert_float_exact(p.baro[0].glitch, -10.25f);
	assert_int_equal(sim_param_assign(&p, "SIM_BAR2_DELAY=250", err,
					  sizeof(err)), 0);
	assert_int_equal(p.baro[1].delay, 250);
	assert_int_equal(sim_param_assign(&p, "SIM_TEMP_BFACTOR=1.2", err,
					  sizeof(err)), 0);
	assert_float_exact(p.temp_bfactor, 1.2f);
	/* GEFF_M is stored like any float; a negative value is kept (it
	 * means off, as ArduPilot's is_positive() gate reads it). */
	assert_int_equal(sim_param_assign(&p, "SIM_BAR3_GEFF_M=0.75", err,
					  sizeof(err)), 0);
	assert_float_exact(p.baro[2].geff_m, 0.75f);
	assert_int_equal(sim_param_assign(&p, "SIM_BARO_GEFF_M=-2", err,
					  sizeof(err)), 0);
	assert_float_exact(p.baro[0].geff_m, -2.0f);
}

struct bad_assign {
	const char *text;
	int rc;
	const char *msg;	/* must appear in the error */
};

static void
test_assign_errors(void **state)
{
	static const struct bad_assign cases[] = {
		{ "SIM_BARO_GLICH=1", -ENOENT, "did you mean SIM_BARO_GLITCH" },
		{ "sim_baro_rnd=1", -ENOENT, "did you mean SIM_BARO_RND" },
		{ "SIM_BAR4_RND=1", -ENOENT, "SIM_BAR4_RND" },
		{ "SIM_TEMP_TCONS=3", -ENOENT, "SIM_TEMP_TCONST" },
		{ "SIM_BARO_RND", -EINVAL, "NAME=VALUE" },
		{ "=3", -EINVAL, "bad parameter name" },
		{ "SIM_BARO_RND=", -EINVAL, "not a number" },
		{ "SIM_BARO_RND=abc", -EINVAL, "not a number" },
		{ "SIM_BARO_RND=1x", -EINVAL, "not a number" },
		{ "SIM_BARO_RND= 1", -EINVAL, "not a number" },
		{ "SIM_BARO_RND=nan", -EINVAL, "not a valid float" },
		{ "SIM_BARO_RND=1e999", -ERANGE, "out of range" },
		{ "SIM_BARO_DELAY=40000", -ERANGE, "SIM_BARO_DELAY" },
		{ "SIM_BARO_DELAY=2.5", -EINVAL, "not a valid int16" },
		{ "SIM_BARO_COUNT=5", -ERANGE, "[0, 3]" },
		{ "SIM_BARO_GEFF_M=nan", -EINVAL, "SIM_BARO_GEFF_M" },
		{ "SIM_BAR2_GEFF_M=inf", -EINVAL, "SIM_BAR2_GEFF_M" },
		{ "SIM_BAR3_GEFF_M=-1e999", -ERANGE, "SIM_BAR3_GEFF_M" },
		{ "SIM_BARO_GEFF=1", -ENOENT, "did you mean SIM_BARO_GEFF_M" },
	};
	struct sim_params p, before;
	char err[256];
	(void)state;

	sim_params_defaults(&p);
	before = p;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		int rc = sim_param_assign(&p, cases[i].text, err, sizeof(err));
		if (rc != cases[i].rc || !strstr(err, cases[i].msg))
			fail_msg("'%s': rc %d, error '%s'", cases[i].text, rc,
				 err);
	}
	assert_memory_equal(&p, &before, sizeof(p));

	/* A very long name is refused, not overflowed. */
	char longname[300];
	memset(longname, 'A', sizeof(longname) - 3);
	strcpy(longname + sizeof(longname) - 3, "=1");
	assert_int_equal(sim_param_assign(&p, longname, err, sizeof(err)),
			 -EINVAL);
}

/* Instances and fields follow the names, for every parameter. */
static void
test_instances(void **state)
{
	(void)state;
	for (size_t i = 0; i < sim_param_count(); i++) {
		const char *name = sim_param_info(i)->name;
		int want = strncmp(name, "SIM_BARO_", 9) == 0 &&
				   strcmp(name, "SIM_BARO_COUNT") != 0
				   ? 0
			   : strncmp(name, "SIM_BAR2_", 9) == 0 ? 1
			   : strncmp(name, "SIM_BAR3_", 9) == 0 ? 2
								 : -1;
		assert_int_equal(sim_param_instance(i), want);
		if (want < 0) {
			assert_int_equal(sim_param_field(i), (size_t)-1);
			continue;
		}
		assert_int_equal(sim_param_of((unsigned)want,
					      sim_param_field(i)),
				 (int)i);
	}
	int g = sim_param_of(2, offsetof(struct sim_baro_params, glitch));
	assert_true(g >= 0);
	assert_string_equal(sim_param_info((size_t)g)->name, "SIM_BAR3_GLITCH");
	assert_int_equal(sim_param_of(3, 0), -ENOENT);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_and_order),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_get_set),
		cmocka_unit_test(test_set_rejects),
		cmocka_unit_test(test_assign),
		cmocka_unit_test(test_assign_errors),
		cmocka_unit_test(test_instances),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
