/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Every literal carries an f suffix: ArduPilot compiles with
 * -fsingle-precision-constant, so its unsuffixed constants are floats
 * rounded straight from the decimal text, which is what "1.930467f" gives.
 */
#include "atmosphere.h"

#include <errno.h>
#include <float.h>
#include <math.h>

/* The 1976 model's own constants, slightly different from definitions.h. */
static const float radius_earth = 6356.766e3f;
static const float r_specific = 287.053072f;

static const struct {
	float base_m;	/* geopotential height of the layer base */
	float temp_k;
	float pressure_pa;
	float density;
	float lapse;	/* K per geopotential metre */
} layers_1976[] = {
	{ -5000.0f, 320.650f, 177687.0f, 1.930467f, -6.5e-3f },
	{ 11000.0f, 216.650f, 22632.1f, 0.363918f, 0.0f },
	{ 20000.0f, 216.650f, 5474.89f, 8.80349e-2f, 1e-3f },
	{ 32000.0f, 228.650f, 868.019f, 1.32250e-2f, 2.8e-3f },
	{ 47000.0f, 270.650f, 110.906f, 1.42753e-3f, 0.0f },
	{ 51000.0f, 270.650f, 66.9389f, 8.61606e-4f, -2.8e-3f },
	{ 71000.0f, 214.650f, 3.95642f, 6.42110e-5f, -2.0e-3f },
	{ 84852.0f, 186.946f, 0.37338f, 6.95788e-6f, 0.0f },
};

#define N_LAYERS (sizeof(layers_1976) / sizeof(layers_1976[0]))

/* ArduPilot's is_zero(): |x| < FLT_EPSILON. */
static inline int
is_zero(float x)
{
	return fabsf(x) < FLT_EPSILON;
}

static inline int
is_positive(float x)
{
	return x >= FLT_EPSILON;
}

static float
geopotential_from_geometric(float alt)
{
	return (radius_earth * alt) / (radius_earth + alt);
}

static float
geometric_from_geopotential(float alt)
{
	return (radius_earth * alt) / (radius_earth - alt);
}

/* Everything below 11 km, including below the -5 km base, is layer 0. */
static unsigned
layer_by_altitude(float h)
{
	for (unsigned i = 1; i < N_LAYERS; i++) {
		if (h < layers_1976[i].base_m)
			return i - 1;
	}
	return N_LAYERS - 1;
}

static unsigned
layer_by_pressure(float p)
{
	for (unsigned i = 1; i < N_LAYERS; i++) {
		if (layers_1976[i].pressure_pa < p)
			return i - 1;
	}
	return N_LAYERS - 1;
}

static float
layer_temperature(float h, unsigned i)
{
	if (is_zero(layers_1976[i].lapse))
		return layers_1976[i].temp_k;
	return layers_1976[i].temp_k +
	       layers_1976[i].lapse * (h - layers_1976[i].base_m);
}

/* Where a geometric altitude falls in the model: geopotential height,
 * layer and temperature, shared by the pressure and density formulas. */
struct layer_point {
	float h;
	unsigned i;
	float t;
};

static struct layer_point
locate(float alt_amsl_m)
{
	struct layer_point lp;

	lp.h = geopotential_from_geometric(alt_amsl_m);
	lp.i = layer_by_altitude(lp.h);
	lp.t = layer_temperature(lp.h, lp.i);
	return lp;
}

/* Isothermal layers decay exponentially, by the same factor for
 * pressure and density. */
static float
isothermal_factor(const struct layer_point *lp)
{
	return expf(-ATMOS_GRAVITY_MSS / (lp->t * r_specific) *
		    (lp->h - layers_1976[lp->i].base_m));
}

/* Gradient layers: g / (L * R), the exponent of the temperature ratio. */
static float
gradient_exponent(const struct layer_point *lp)
{
	return ATMOS_GRAVITY_MSS / (layers_1976[lp->i].lapse * r_specific);
}

void
atmos_1976_pressure_temperature(float alt_amsl_m, float *pressure_pa,
				float *temperature_k)
{
	const struct layer_point lp = locate(alt_amsl_m);
	const float base_p = layers_1976[lp.i].pressure_pa;

	*temperature_k = lp.t;
	if (is_zero(layers_1976[lp.i].lapse)) {
		*pressure_pa = base_p * isothermal_factor(&lp);
	} else {
		const float ratio = lp.t / layers_1976[lp.i].temp_k;
		*pressure_pa = base_p * powf(ratio, -gradient_exponent(&lp));
	}
}

float
atmos_1976_density(float alt_amsl_m)
{
	const struct layer_point lp = locate(alt_amsl_m);
	const float base_rho = layers_1976[lp.i].density;

	if (is_zero(layers_1976[lp.i].lapse))
		return base_rho * isothermal_factor(&lp);
	const float ratio = lp.t / layers_1976[lp.i].temp_k;
	return base_rho * powf(ratio, -(gradient_exponent(&lp) + 1.0f));
}

int
atmos_1976_altitude(float pressure_pa, float *alt_amsl_m)
{
	const unsigned i = layer_by_pressure(pressure_pa);
	const float ratio = pressure_pa / layers_1976[i].pressure_pa;
	float h;

	if (!is_positive(ratio))
		return -EDOM;

	if (is_zero(layers_1976[i].lapse)) {
		const float fac = -(layers_1976[i].temp_k * r_specific) /
				  ATMOS_GRAVITY_MSS;
		h = layers_1976[i].base_m + fac * logf(ratio);
	} else {
		const float fac = -(layers_1976[i].lapse * r_specific) /
				  ATMOS_GRAVITY_MSS;
		h = layers_1976[i].base_m +
		    (layers_1976[i].temp_k / layers_1976[i].lapse) *
			    (powf(ratio, fac) - 1.0f);
	}
	*alt_amsl_m = geometric_from_geopotential(h);
	return 0;
}

float
atmos_1976_eas2tas(float alt_amsl_m)
{
	float rho = atmos_1976_density(alt_amsl_m);

	if (!is_positive(rho))
		rho = layers_1976[N_LAYERS - 1].density;
	return sqrtf(ATMOS_SSL_AIR_DENSITY / rho);
}

float
atmos_1976_density_ratio(float alt_amsl_m)
{
	const float eas2tas = atmos_1976_eas2tas(alt_amsl_m);

	if (eas2tas > 0.0f)
		return 1.0f / (eas2tas * eas2tas);
	return 1.0f;
}

void
atmos_simple(float alt_km, float *sigma, float *delta, float *theta)
{
	const float rearth_km = 6369.0f;
	const float gmr = 34.163195f;
	const float h = alt_km * rearth_km / (alt_km + rearth_km);

	if (h < 11.0f) {
		*theta = (ATMOS_SSL_AIR_TEMPERATURE - 6.5f * h) /
			 ATMOS_SSL_AIR_TEMPERATURE;
		*delta = powf(*theta, gmr / 6.5f);
	} else {
		*theta = 216.65f / ATMOS_SSL_AIR_TEMPERATURE;
		*delta = 0.2233611f * expf(-gmr * (h - 11.0f) / 216.65f);
	}
	*sigma = *delta / *theta;
}

void
atmos_underwater(float depth_km, float *rho, float *delta, float *theta)
{
	/* Salt water at 3.5 % salinity and 4 degC, g/cm^3. */
	const float sea_density = 1.024f;
	const float max_sea_density = 1.028f;
	const float pycnocline = max_sea_density - sea_density;
	float r = sea_density;

	if (depth_km < 1.0f)
		r += pycnocline * depth_km;
	else
		r += pycnocline;
	*rho = r / sea_density;

	*delta = (ATMOS_SSL_AIR_PRESSURE + (sea_density * 1e3f) *
		  ATMOS_GRAVITY_MSS * (depth_km * 1e3f)) /
		 ATMOS_SSL_AIR_PRESSURE;

	const float surface_c = ATMOS_SSL_AIR_TEMPERATURE - ATMOS_C_TO_KELVIN;
	const float s = surface_c * 0.338f;
	*theta = 1.0f / ((1.8e-4f) * s * (depth_km * 1e3f) + 1.0f);
}

int
atmos_simple_altitude(float pressure_pa, float *alt_amsl_m)
{
	const float delta = pressure_pa / ATMOS_SSL_AIR_PRESSURE;
	float lo = -5000.0f, hi = 80000.0f, sigma, d, theta;

	if (!is_positive(pressure_pa) || !isfinite(pressure_pa))
		return -EDOM;
	atmos_simple(lo * 0.001f, &sigma, &d, &theta);
	if (delta > d)
		return -EDOM;
	atmos_simple(hi * 0.001f, &sigma, &d, &theta);
	if (delta < d)
		return -EDOM;
	/* delta falls with altitude: keep delta(lo) >= target > delta(hi). */
	while (nextafterf(lo, hi) < hi) {
		const float mid = lo + (hi - lo) * 0.5f;
		if (mid <= lo || mid >= hi)
			break;
		atmos_simple(mid * 0.001f, &sigma, &d, &theta);
		if (d >= delta)
			lo = mid;
		else
			hi = mid;
	}
	*alt_amsl_m = lo;
	return 0;
}
