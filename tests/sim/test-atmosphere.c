/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <errno.h>

#include "atmosphere.h"
#include "test-util.h"

/* Facts sheet TV1: 1976 model at geometric altitudes; the temperature and
 * pressure columns are printed to enough digits to name one float. */
static void
test_1976_vectors(void **state)
{
	static const struct {
		float z, t_k, p, rho;
	} tv[] = {
		{ -4000.0f, 314.16635f, 159598.09375f, 1.7697259f },
		{ 0.0f, 288.149994f, 101325.0078f, 1.2249998f },
		{ 584.0f, 284.35434f, 94503.8203f, 1.1577839f },
		{ 1000.0f, 281.65100f, 89876.2578f, 1.1116592f },
		{ 11000.0f, 216.77350f, 22699.9609f, 0.3648017f },
		{ 17500.0f, 216.65f, 8182.2783f, 0.1315688f },
		{ 20000.0f, 216.65f, 5529.3208f, 0.0889100f },
		{ 25000.0f, 221.55206f, 2549.2251f, 0.0400840f },
	};
	(void)state;

	for (size_t i = 0; i < sizeof(tv) / sizeof(tv[0]); i++) {
		float p, t;
		atmos_1976_pressure_temperature(tv[i].z, &p, &t);
		assert_float_exact(p, tv[i].p);
		assert_close_rel(t, tv[i].t_k, 2e-7);
		/* rho is printed to 7 decimals: within half the last one. */
		assert_close_abs(atmos_1976_density(tv[i].z), tv[i].rho,
				 0.51e-7);
	}
}

/* TV1 row 594 m (used by the end-to-end vector) and the references from
 * ArduPilot's own test_baro_atmosphere.cpp. */
static void
test_1976_ardupilot_references(void **state)
{
	float p, t;
	(void)state;

	atmos_1976_pressure_temperature(594.0f, &p, &t);
	assert_float_exact(p, 94390.375f);
	assert_close_rel(t - 273.15f, 11.13937, 1e-6);

	atmos_1976_pressure_temperature(6000.0f, &p, &t);
	assert_close_rel(p, 47217.648, 1e-6);
	assert_close_rel(t, 249.18677, 1e-6);
	atmos_1976_pressure_temperature(65000.0f, &p, &t);
	assert_close_rel(p, 10.929715, 1e-6);
	/* Layer 7 (above 84852 m geopotential) still gives a pressure. */
	atmos_1976_pressure_temperature(90000.0f, &p, &t);
	assert_true(p > 0.0f && p < 0.37338f);
	assert_float_exact(t, 186.946f);
}

static void
test_1976_inverse(void **state)
{
	float alt;
	(void)state;

	assert_int_equal(atmos_1976_altitude(94503.8203f, &alt), 0);
	assert_float_exact(alt, 583.99994f);
	assert_int_equal(atmos_1976_altitude(2549.2251f, &alt), 0);
	assert_close_rel(alt, 24999.996, 2e-7);

	/* Round trips across every layer stay within a few centimetres. */
	for (float z = -4000.0f; z < 80000.0f; z += 997.0f) {
		float p, t;
		atmos_1976_pressure_temperature(z, &p, &t);
		assert_int_equal(atmos_1976_altitude(p, &alt), 0);
		assert_close_abs(alt, z, 0.05 + 1e-5 * fabs(z));
	}

	assert_int_equal(atmos_1976_altitude(0.0f, &alt), -EDOM);
	assert_int_equal(atmos_1976_altitude(-5.0f, &alt), -EDOM);
}

/* TV3: EAS2TAS and the density ratio the wind correction uses. */
static void
test_density_ratio(void **state)
{
	static const struct {
		float z, eas2tas, ratio;
	} tv[] = {
		{ 0.0f, 1.0000001f, 0.99999976f },
		{ 584.0f, 1.0286185f, 0.94512969f },
		{ 1000.0f, 1.0497411f, 0.90747684f },
		{ 11000.0f, 1.8324816f, 0.29779729f },
	};
	(void)state;

	for (size_t i = 0; i < sizeof(tv) / sizeof(tv[0]); i++) {
		assert_float_exact(atmos_1976_eas2tas(tv[i].z), tv[i].eas2tas);
		assert_float_exact(atmos_1976_density_ratio(tv[i].z),
				   tv[i].ratio);
	}
}

/*
 * get_air_density_for_alt_amsl, which ArduPilot master's wind correction
 * uses at the true altitude (PR #33658), in every layer of the 1976
 * table.  Two independent derivations by python3
 * (tests/sim/derive-versions-vectors.py): the formula in double, to which float32 agrees
 * within 1e-6 relative (largest seen 5.4e-7, at 25 km); and the formula
 * in float32 steps with glibc's powf/expf, which must match to the bit.
 */
static void
test_density_layers(void **state)
{
	static const struct {
		float z;
		unsigned layer;		/* which formula: see comment */
		double rho_double;
		float rho_float;
	} tv[] = {
		{ -4000.0f, 0, 1.76972656, 0x1.c50cc2p+0f },
		{ 0.0f, 0, 1.22499981, 0x1.399996p+0f },
		{ 584.0f, 0, 1.15778387, 0x1.286486p+0f },
		{ 5000.0f, 0, 0.736428811, 0x1.790d34p-1f },
		{ 11000.0f, 0, 0.364801758, 0x1.758e94p-2f },	/* h 10981 */
		{ 15000.0f, 1, 0.194755166, 0x1.8edbcep-3f },	/* isothermal */
		{ 25000.0f, 2, 0.0400839306, 0x1.485e24p-5f },
		{ 40000.0f, 3, 0.00399567825, 0x1.05dc56p-8f },
		{ 49000.0f, 4, 0.00116276961, 0x1.30d02ap-10f },	/* isothermal */
		{ 60000.0f, 5, 0.000309678198, 0x1.44b898p-12f },
		{ 75000.0f, 6, 3.99210816e-05, 0x1.4ee1dep-15f },
		{ 86000.0f, 7, 6.95782171e-06, 0x1.d2ee72p-18f },	/* isothermal */
	};
	(void)state;

	for (size_t i = 0; i < sizeof(tv) / sizeof(tv[0]); i++) {
		const float rho = atmos_1976_density(tv[i].z);
		assert_float_exact(rho, tv[i].rho_float);
		assert_close_rel((double)rho, tv[i].rho_double, 1e-6);
	}
	/* The ratio the older releases use is this density over 1.225. */
	assert_close_rel((double)atmos_1976_density_ratio(584.0f),
			 1.15778387 / 1.225, 1e-6);
}

/* TV2: the legacy SimpleAtmosphere.  The sheet computed it in double;
 * ArduPilot (and we) use float, so compare to float precision. */
static void
test_simple_vectors(void **state)
{
	static const struct {
		float km;
		double sigma, delta, theta, p, t_c;
	} tv[] = {
		{ 0.0f, 1, 1, 1, 101325.016, 15.0 },
		{ 1.0f, 0.9074773, 0.8870099, 0.9774458, 89876.296, 8.5010 },
		{ 11.0f, 0.2977960, 0.2240299, 0.7522932, 22699.834, -56.3767 },
		{ 20.0f, 0.0725782, 0.0545690, 0.7518653, 5529.208, -56.5000 },
	};
	(void)state;

	for (size_t i = 0; i < sizeof(tv) / sizeof(tv[0]); i++) {
		float sigma, delta, theta;
		atmos_simple(tv[i].km, &sigma, &delta, &theta);
		assert_close_rel(sigma, tv[i].sigma, 2e-6);
		assert_close_rel(delta, tv[i].delta, 2e-6);
		assert_close_rel(theta, tv[i].theta, 2e-6);
		assert_close_rel(ATMOS_SSL_AIR_PRESSURE * delta, tv[i].p, 2e-6);
		assert_close_abs(ATMOS_SSL_AIR_TEMPERATURE * theta -
					 ATMOS_C_TO_KELVIN,
				 tv[i].t_c, 1e-4);
	}
}

/* Below 11 km the two air models agree to well under 1 Pa. */
static void
test_simple_vs_1976(void **state)
{
	(void)state;
	for (float z = -500.0f; z < 10900.0f; z += 100.0f) {
		float s, d, th, p, t;
		atmos_simple(z * 0.001f, &s, &d, &th);
		atmos_1976_pressure_temperature(z, &p, &t);
		assert_close_abs(ATMOS_SSL_AIR_PRESSURE * d, p, 0.2);
	}
}

/* TV11: SimpleUnderWaterAtmosphere at 0, 10 and 100 m depth. */
static void
test_underwater_vectors(void **state)
{
	static const struct {
		float depth_m, rho, delta, theta, p, t_c;
	} tv[] = {
		{ 0.0f, 1.0f, 1.0f, 1.0f, 101325.0156f, 15.0f },
		{ 10.0f, 1.0000391f, 1.9910693f, 0.9909566f, 201745.125f,
		  12.394135f },
		{ 100.0f, 1.0003905f, 10.910691f, 0.9163719f, 1105526.0f,
		  -9.097412f },
	};
	(void)state;

	for (size_t i = 0; i < sizeof(tv) / sizeof(tv[0]); i++) {
		float rho, delta, theta;
		atmos_underwater(tv[i].depth_m * 0.001f, &rho, &delta, &theta);
		assert_close_rel(rho, tv[i].rho, 2e-7);
		assert_close_rel(delta, tv[i].delta, 2e-7);
		assert_close_rel(theta, tv[i].theta, 2e-7);
		assert_float_exact(ATMOS_SSL_AIR_PRESSURE * delta, tv[i].p);
		assert_close_abs(ATMOS_SSL_AIR_TEMPERATURE * theta -
					 ATMOS_C_TO_KELVIN,
				 tv[i].t_c, 2e-6);
	}
	/* Deeper than the 1 km pycnocline the density stops rising. */
	float rho1, rho2, d, t;
	atmos_underwater(1.5f, &rho1, &d, &t);
	atmos_underwater(3.0f, &rho2, &d, &t);
	assert_float_exact(rho1, rho2);
}

/* The inverse gives back the altitude to within the forward model's
 * float resolution, and refuses what no altitude explains. */
static void
test_simple_inverse(void **state)
{
	(void)state;
	for (float h = -400.0f; h < 30000.0f; h += 137.25f) {
		float sigma, delta, theta, alt;
		atmos_simple(h * 0.001f, &sigma, &delta, &theta);
		const float p = ATMOS_SSL_AIR_PRESSURE * delta;
		assert_int_equal(atmos_simple_altitude(p, &alt), 0);
		/* One float step of pressure near sea level is ~0.0006 m. */
		assert_close_abs(alt, h, 0.01 + fabs(h) * 2e-6);
		/* Forward again, the same pressure but for the forward
		 * model's own float noise (powf of a km-scaled altitude is
		 * not monotonic in the last bits). */
		atmos_simple(alt * 0.001f, &sigma, &delta, &theta);
		assert_float_ulps(ATMOS_SSL_AIR_PRESSURE * delta, p, 8);
	}
	float alt;
	assert_int_equal(atmos_simple_altitude(0.0f, &alt), -EDOM);
	assert_int_equal(atmos_simple_altitude(-1.0f, &alt), -EDOM);
	assert_int_equal(atmos_simple_altitude(NAN, &alt), -EDOM);
	assert_int_equal(atmos_simple_altitude(INFINITY, &alt), -EDOM);
	assert_int_equal(atmos_simple_altitude(200000.0f, &alt), -EDOM);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_1976_vectors),
		cmocka_unit_test(test_1976_ardupilot_references),
		cmocka_unit_test(test_1976_inverse),
		cmocka_unit_test(test_density_ratio),
		cmocka_unit_test(test_density_layers),
		cmocka_unit_test(test_simple_vectors),
		cmocka_unit_test(test_simple_inverse),
		cmocka_unit_test(test_simple_vs_1976),
		cmocka_unit_test(test_underwater_vectors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
