/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Float arithmetic here mirrors ArduPilot's statement by statement; the
 * order of operations is part of the contract (results must match to the
 * last bit), so do not "simplify" expressions.
 */
#include "baro-sitl.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "atmosphere.h"

/* A buffer entry further than this from the wanted time is not used. */
#define DELAY_MAX_ERROR_MS 200u

/* BFACTOR's pressure error starts above this sensor temperature. */
#define BFACTOR_TZERO_C 30.0f

void
baro_sitl_init(struct baro_sitl *sim, const struct sim_params *params,
	       enum baro_sitl_atmosphere atmosphere, uint32_t seed)
{
	memset(sim, 0, sizeof(*sim));
	sim->params = *params;
	sim->atmosphere = atmosphere;
	baro_sitl_set_ardupilot(sim, BARO_SITL_AP_DEFAULT);
	sim_random_seed(&sim->rng, seed);
}

void
baro_sitl_set_ardupilot(struct baro_sitl *sim, enum baro_sitl_ardupilot v)
{
	sim->ardupilot = v;
	sim->geff = baro_sitl_ardupilot_has_geff(v);
	sim->true_density = baro_sitl_ardupilot_true_density(v);
}

static const char *const ardupilot_names[] = {
	[BARO_SITL_AP_4_5] = "4.5",
	[BARO_SITL_AP_4_6] = "4.6",
	[BARO_SITL_AP_4_7] = "4.7",
	[BARO_SITL_AP_MASTER] = "master",
};

const char *
baro_sitl_ardupilot_name(enum baro_sitl_ardupilot v)
{
	if ((size_t)v < sizeof(ardupilot_names) / sizeof(ardupilot_names[0]))
		return ardupilot_names[v];
	return "?";
}

int
baro_sitl_ardupilot_parse(const char *text, enum baro_sitl_ardupilot *v)
{
	for (size_t i = 0;
	     i < sizeof(ardupilot_names) / sizeof(ardupilot_names[0]); i++) {
		if (strcmp(text, ardupilot_names[i]) == 0) {
			*v = (enum baro_sitl_ardupilot)i;
			return 0;
		}
	}
	return -EINVAL;
}

enum baro_sitl_atmosphere
baro_sitl_ardupilot_atmosphere(enum baro_sitl_ardupilot v)
{
	/* The 1976 table replaced SimpleAtmosphere in PR #26915, merged
	 * after 4.5.0 shipped. */
	return v == BARO_SITL_AP_4_5 ? BARO_SITL_ATMOS_SIMPLE
				     : BARO_SITL_ATMOS_1976;
}

bool
baro_sitl_ardupilot_has_geff(enum baro_sitl_ardupilot v)
{
	return v == BARO_SITL_AP_MASTER;
}

bool
baro_sitl_ardupilot_true_density(enum baro_sitl_ardupilot v)
{
	return v == BARO_SITL_AP_MASTER;
}

int
baro_sitl_ardupilot_param_check(enum baro_sitl_ardupilot v, size_t idx,
				double value, char *err, size_t errlen)
{
	/* Zero or negative is off in every release, so harmless. */
	if (sim_param_field(idx) != offsetof(struct sim_baro_params, geff_m) ||
	    !(value >= (double)FLT_EPSILON) || baro_sitl_ardupilot_has_geff(v))
		return 0;
	if (err)
		snprintf(err, errlen,
			 "%s: ArduPilot %s has no ground-effect model (it is "
			 "in master only); use --ardupilot master or 0",
			 sim_param_info(idx)->name,
			 baro_sitl_ardupilot_name(v));
	return -ENOTSUP;
}

void
baro_sitl_agl_init(struct baro_sitl_agl *agl)
{
	agl->home_alt_m = -1.0f;
}

double
baro_sitl_agl_update(struct baro_sitl_agl *agl, double altitude_m)
{
	/* is_equal on floats: |a - b| < FLT_EPSILON. */
	if (fabsf(agl->home_alt_m - -1.0f) < FLT_EPSILON && altitude_m > 0.0)
		agl->home_alt_m = (float)altitude_m;
	return altitude_m - (double)agl->home_alt_m;
}

double
baro_sitl_state_altitude(int32_t alt_cm)
{
	return (double)alt_cm * 0.01;
}

float
baro_sitl_alt_from_cm(int32_t alt_cm)
{
	/* libraries/SITL is ArduPilot's one double-precision library, so
	 * location.alt * 1.0e-2 is a double product, rounded to float only
	 * where AP_Baro_SITL reads it: a float product is an ulp off for
	 * many centimetre values. */
	return (float)((double)alt_cm * 0.01);
}

const char *
baro_sitl_atmosphere_name(enum baro_sitl_atmosphere atmosphere)
{
	switch (atmosphere) {
	case BARO_SITL_ATMOS_1976:
		return "1976";
	case BARO_SITL_ATMOS_WATER:
		return "water";
	case BARO_SITL_ATMOS_SIMPLE:
		break;
	}
	return "simple";
}

void
baro_sitl_atmosphere_domain(enum baro_sitl_atmosphere atmosphere,
			    float *lo_m, float *hi_m)
{
	if (atmosphere == BARO_SITL_ATMOS_WATER) {
		*lo_m = -11000.0f;
		*hi_m = 10.0f;
	} else {
		*lo_m = -5000.0f;
		*hi_m = 86000.0f;
	}
}

int
baro_sitl_param_check(enum baro_sitl_atmosphere atmosphere, double home_m,
		      size_t idx, double value, char *err, size_t errlen)
{
	const size_t field = sim_param_field(idx);
	float lo_m, hi_m;
	double lo, hi;

	baro_sitl_atmosphere_domain(atmosphere, &lo_m, &hi_m);
	if (field == offsetof(struct sim_baro_params, glitch)) {
		lo = (double)lo_m - home_m;
		hi = (double)hi_m - home_m;
	} else if (field == offsetof(struct sim_baro_params, rnd)) {
		hi = fmin((double)hi_m - home_m, home_m - (double)lo_m);
		lo = -hi;
	} else {
		return 0;
	}
	/* A home outside the domain leaves no valid value, not a reversed
	 * range. */
	if (value >= lo && value <= hi)
		return 0;
	if (err)
		snprintf(err, errlen,
			 "%s: %g is out of range [%g, %g] (the %s atmosphere "
			 "spans %g to %g m AMSL; home %g m)",
			 sim_param_info(idx)->name, value, lo, hi,
			 baro_sitl_atmosphere_name(atmosphere), (double)lo_m,
			 (double)hi_m, home_m);
	return -ERANGE;
}

int
baro_sitl_params_check(enum baro_sitl_atmosphere atmosphere, double home_m,
		       const struct sim_params *p, char *err, size_t errlen)
{
	for (size_t i = 0; i < sim_param_count(); i++) {
		int rc = baro_sitl_param_check(atmosphere, home_m, i,
					       (double)sim_param_get(p, i), err,
					       errlen);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int
baro_sitl_altitude_cm(double home_m, double height_m, int32_t *alt_cm)
{
	if (!isfinite(home_m) || !isfinite(height_m))
		return -EINVAL;

	double home_cm = round(home_m * 100.0);
	if (home_cm < INT32_MIN || home_cm > INT32_MAX)
		return -ERANGE;
	double cm = trunc(home_cm + height_m * 100.0);
	if (cm < INT32_MIN || cm > INT32_MAX)
		return -ERANGE;
	*alt_cm = (int32_t)cm;
	return 0;
}

int
baro_sitl_altitude(double home_m, double height_m, float *alt_amsl_m)
{
	int32_t cm;
	int rc = baro_sitl_altitude_cm(home_m, height_m, &cm);

	if (rc == 0)
		*alt_amsl_m = baro_sitl_alt_from_cm(cm);
	return rc;
}

void
baro_sitl_temperature_adjust(const struct sim_params *params, uint32_t now_ms,
			     float *pressure_pa, float *temperature_c)
{
	const float tsec = (float)now_ms * 0.001f;
	const float t_sensor = *temperature_c + params->temp_brd_off;
	const float tconst = params->temp_tconst;

	/* Past 23 time constants exp() is below 1e-10: ArduPilot switches
	 * to the settled value there (and so avoids dividing by a zero
	 * tconst). */
	if (tsec < 23.0f * tconst)
		*temperature_c = t_sensor - (t_sensor - params->temp_start) *
						    expf(-tsec / tconst);
	else
		*temperature_c = t_sensor;

	if (params->temp_bfactor >= FLT_EPSILON) {
		const float over = *temperature_c - BFACTOR_TZERO_C;
		*pressure_pa -= powf(over > 0.0f ? over : 0.0f,
				     params->temp_bfactor);
	}
}

float
baro_sitl_wind_error(const struct sim_baro_params *bp, const float v[3])
{
	const float sqx = v[0] * v[0];
	const float sqy = v[1] * v[1];
	const float sqz = v[2] * v[2];
	float error = 0.0f;

	error += (v[0] >= FLT_EPSILON ? bp->wcf_fwd : bp->wcf_bak) * sqx;
	error += (v[1] >= FLT_EPSILON ? bp->wcf_rgt : bp->wcf_lft) * sqy;
	error += (v[2] >= FLT_EPSILON ? bp->wcf_up : bp->wcf_dn) * sqz;
	return error;
}

float
baro_sitl_wind_correction(float error, float density_ratio)
{
	return error * 0.5f * ATMOS_SSL_AIR_DENSITY * density_ratio;
}

float
baro_sitl_wind_correction_density(float error, float density)
{
	/* Whether ArduPilot's 0.5 is a double or (single-precision-constant)
	 * a float, the bits are the same: halving is exact and the double
	 * product of two floats is exact before its one rounding to float. */
	return (float)((double)error * 0.5 * (double)density);
}

float
baro_sitl_ground_effect(float geff_m, float throttle, double height_agl_m)
{
	if (!(geff_m >= FLT_EPSILON && throttle >= FLT_EPSILON))
		return 0.0f;
	float h = (float)height_agl_m;
	h = h > 0.0f ? h : 0.0f;
	float scale = 1.0f - h / 2.0f;
	scale = scale > 0.0f ? scale : 0.0f;
	return geff_m * scale;
}

/* Fold ArduPilot's abs((int32_t)(a - b)) into uint32 without its UB. */
static uint32_t
abs_time_delta(uint32_t a, uint32_t b)
{
	uint32_t d = a - b;

	return (d & 0x80000000u) ? 0u - d : d;
}

/* Steps 2-8 of AP_Baro_SITL::_timer: the altitude after faults. */
static float
faulted_altitude(struct baro_sitl *sim, struct baro_sitl_instance *s,
		 const struct sim_baro_params *bp, uint32_t now, float alt)
{
	const uint32_t drift_dt = now - s->last_drift_ms;
	s->last_drift_ms = now;
	s->total_drift_m += bp->drift * (float)drift_dt * 0.001f;

	alt += s->total_drift_m;
	alt += bp->rnd * sim_random_float(&sim->rng);
	alt += bp->glitch;

	if (now - s->last_store_ms >= BARO_SITL_PERIOD_MS) {
		s->last_store_ms = now;
		if (s->store_index > BARO_SITL_BUFFER_LEN - 1)
			s->store_index = 0;
		/* FREEZE acts only on what is stored, so noise, drift and
		 * glitch freeze along with the truth. */
		if (bp->freeze == 1)
			alt = s->last_alt_m;
		else
			s->last_alt_m = alt;
		s->buffer[s->store_index].alt_m = alt;
		s->buffer[s->store_index].time_ms = now;
		s->store_index++;
	}

	/* Nearest stored sample to now - delay; unfilled slots are
	 * {0 ms, 0 m} and can win early on, which ArduPilot also does. */
	const uint32_t delayed = now - (uint32_t)(int32_t)bp->delay;
	uint32_t best_delta = DELAY_MAX_ERROR_MS;
	unsigned best = 0;
	for (unsigned i = 0; i < BARO_SITL_BUFFER_LEN; i++) {
		uint32_t d = abs_time_delta(delayed, s->buffer[i].time_ms);
		if (d < best_delta) {
			best = i;
			best_delta = d;
		}
	}
	if (best_delta < DELAY_MAX_ERROR_MS)
		alt = s->buffer[best].alt_m;
	return alt;
}

/* Step 9: pressure and temperature from the atmosphere model. */
static void
pressure_temperature(const struct baro_sitl *sim, uint32_t now, float alt,
		     float *p, float *t)
{
	float a, b, c;

	switch (sim->atmosphere) {
	case BARO_SITL_ATMOS_WATER:
		atmos_underwater(-alt * 0.001f, &a, &b, &c);
		*p = ATMOS_SSL_AIR_PRESSURE * b;
		*t = ATMOS_SSL_AIR_TEMPERATURE * c - ATMOS_C_TO_KELVIN;
		/* ArduSub's SITL baro has no warm-up model. */
		return;
	case BARO_SITL_ATMOS_SIMPLE:
		atmos_simple(alt * 0.001f, &a, &b, &c);
		*p = ATMOS_SSL_AIR_PRESSURE * b;
		*t = ATMOS_SSL_AIR_TEMPERATURE * c - ATMOS_C_TO_KELVIN;
		break;
	case BARO_SITL_ATMOS_1976:
		atmos_1976_pressure_temperature(alt, p, &a);
		*t = a - ATMOS_C_TO_KELVIN;
		break;
	}
	baro_sitl_temperature_adjust(&sim->params, now, p, t);
}

unsigned
baro_sitl_update(struct baro_sitl *sim, uint32_t now_ms,
		 const struct baro_sitl_truth *truth,
		 struct baro_sample out[BARO_MAX_INSTANCES])
{
	unsigned count = (unsigned)sim->params.baro_count;
	unsigned produced = 0;
	float est = sim->est_alt_m;
	bool have_est = sim->have_est;
	bool inst0_out = false;
	float inst0_alt = 0.0f;
	const bool geff = sim->geff;
	const bool true_density = sim->true_density;

	if (count > BARO_MAX_INSTANCES)
		count = BARO_MAX_INSTANCES;

	for (unsigned i = 0; i < count; i++) {
		struct baro_sitl_instance *s = &sim->inst[i];
		const struct sim_baro_params *bp = &sim->params.baro[i];

		if (now_ms - s->last_sample_ms < BARO_SITL_PERIOD_MS)
			continue;
		s->last_sample_ms = now_ms;
		if (bp->disable)
			continue;

		/* Master lowers the truth here, before drift, noise, glitch
		 * and the delay buffer, so those act on the lowered value. */
		float alt = truth->alt_amsl_m;
		if (geff && bp->geff_m >= FLT_EPSILON)
			alt -= baro_sitl_ground_effect(bp->geff_m,
						       truth->throttle,
						       truth->height_agl_m);
		alt = faulted_altitude(sim, s, bp, now_ms, alt);
		float p, t;
		pressure_temperature(sim, now_ms, alt, &p, &t);

		if (i == 0) {
			inst0_out = true;
			inst0_alt = alt;
			/* Before any estimate exists, instance 0's first
			 * sample stands in for it (also for 1 and 2). */
			if (!have_est) {
				est = alt;
				have_est = true;
			}
		}
		/* A zero error adds exactly 0 Pa whatever the density, so
		 * the powf() behind the density ratio is skipped then. */
		const float werr = baro_sitl_wind_error(bp, truth->vel_air_bf);
		if (werr != 0.0f && true_density) {
			/* The true, undelayed, noise-free altitude, as the
			 * simulation's own state (#33658). */
			p += baro_sitl_wind_correction_density(
				werr, atmos_1976_density(truth->alt_amsl_m));
		} else if (werr != 0.0f) {
			const float h = have_est ? est : alt;
			p += baro_sitl_wind_correction(
				werr, atmos_1976_density_ratio(h));
		}

		out[produced] = (struct baro_sample){
			.time_us = (uint64_t)now_ms * 1000u,
			.instance = (uint8_t)i,
			.flags = (s->last_sample_ms != 0 ? BARO_SAMPLE_HEALTHY
							  : 0u) |
				 BARO_SAMPLE_HAS_TEMPERATURE |
				 BARO_SAMPLE_HAS_ALTITUDE |
				 BARO_SAMPLE_SIMULATED,
			.pressure_pa = p,
			.temperature_c = t,
			.alt_m = alt,
		};
		produced++;
	}

	if (inst0_out) {
		sim->est_alt_m = inst0_alt;
		sim->have_est = true;
	}
	return produced;
}

void
baro_sitl_reset_drift(struct baro_sitl *sim, unsigned instance,
		      uint32_t now_ms)
{
	if (instance >= BARO_MAX_INSTANCES)
		return;
	sim->inst[instance].total_drift_m = 0.0f;
	sim->inst[instance].last_drift_ms = now_ms;
}

bool
baro_sitl_healthy(const struct baro_sitl *sim, unsigned instance)
{
	if (instance >= BARO_MAX_INSTANCES ||
	    instance >= (unsigned)sim->params.baro_count)
		return false;
	return sim->inst[instance].last_sample_ms != 0 &&
	       !sim->params.baro[instance].disable;
}
