/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A deterministic re-implementation of ArduPilot's AP_Baro_SITL: the
 * 100 Hz timer, DISABLE, ground effect (master), integrated DRIFT, uniform
 * NOISE, GLITCH, FREEZE, the 50-slot delay buffer, temperature warm-up and
 * BFACTOR, and the wind pressure correction, for up to three instances,
 * as a chosen ArduPilot release does them (enum baro_sitl_ardupilot).
 *
 * Pure: no I/O, no clock, no global state.  The caller passes the time
 * and the truth; parameters may be changed between calls (through
 * sim_param_set on sim->params) and take effect on the next sample, as
 * they do in ArduPilot.
 */
#ifndef BAROD_SIM_BARO_SITL_H
#define BAROD_SIM_BARO_SITL_H

#include <stdbool.h>
#include <stdint.h>

#include "baro-sample.h"
#include "sim-params.h"
#include "sim-random.h"

#define BARO_SITL_BUFFER_LEN 50
#define BARO_SITL_PERIOD_MS 10

enum baro_sitl_atmosphere {
	BARO_SITL_ATMOS_SIMPLE,	/* legacy SimpleAtmosphere, ArduPilot <= 4.5 */
	BARO_SITL_ATMOS_1976,	/* 1976 standard atmosphere, ArduPilot 4.6+ */
	BARO_SITL_ATMOS_WATER,	/* ArduSub's underwater model */
};

/*
 * The ArduPilot whose SITL baro the emulator reproduces.  What differs:
 *
 *            atmosphere  wind density                  SIM_BARO_GEFF_M
 *   4.5      simple      1.225 * ratio(estimated alt)  no
 *   4.6      1976        1.225 * ratio(estimated alt)  no
 *   4.7      1976        1.225 * ratio(estimated alt)  no
 *   master   1976        rho_1976(true alt)  (#33658)  yes (#32472)
 *
 * The atmosphere is only the default (baro_sitl_init takes it); 4.7 is
 * the newest stable release and the emulator's default.
 */
enum baro_sitl_ardupilot {
	BARO_SITL_AP_4_5,
	BARO_SITL_AP_4_6,
	BARO_SITL_AP_4_7,
	BARO_SITL_AP_MASTER,
};

#define BARO_SITL_AP_DEFAULT BARO_SITL_AP_4_7
#define BARO_SITL_AP_CHOICES "4.5, 4.6, 4.7 or master"

/* "4.5", "4.6", "4.7", "master". */
const char *
baro_sitl_ardupilot_name(enum baro_sitl_ardupilot v);

/* One of the names above; 0, or -EINVAL. */
int
baro_sitl_ardupilot_parse(const char *text, enum baro_sitl_ardupilot *v);

/* The atmosphere that release's SITL uses (simple up to 4.5). */
enum baro_sitl_atmosphere
baro_sitl_ardupilot_atmosphere(enum baro_sitl_ardupilot v);

/* Whether that release has SIM_BARO_GEFF_M (ground effect). */
bool
baro_sitl_ardupilot_has_geff(enum baro_sitl_ardupilot v);

/* Whether its wind correction uses the 1976 density at the true altitude
 * (else 1.225 times the density ratio at the estimated altitude). */
bool
baro_sitl_ardupilot_true_density(enum baro_sitl_ardupilot v);

/*
 * Refuse a parameter value the release cannot act on: a positive GEFF_M
 * where the release has no ground-effect model (0 or negative is off
 * everywhere).  0, or -ENOTSUP with "NAME: ..." in err (may be NULL).
 */
int
baro_sitl_ardupilot_param_check(enum baro_sitl_ardupilot v, size_t idx,
				double value, char *err, size_t errlen);

/* The simulated vehicle at one timer call. */
struct baro_sitl_truth {
	/* Altitude AMSL in metres as the SITL baro sees it: already
	 * quantised to whole centimetres (see baro_sitl_altitude()). */
	float alt_amsl_m;
	/* Air velocity in the body frame, FRD, m/s (true airspeed). */
	float vel_air_bf[3];
	/* SIM::throttle, 0..1: the motors' mean output (sitl-json.h's
	 * sitl_servo_throttle, px4-throttle.h).  Ground effect acts while it
	 * is positive. */
	float throttle;
	/* sitl_fdm.height_agl, m: baro_sitl_agl_update() without terrain. */
	double height_agl_m;
};

/*
 * SITL's height above ground without terrain data: the altitude minus
 * the first altitude above 0 m seen (SITL_State::set_height_agl, a float
 * that starts at -1, so until the vehicle is seen above sea level the
 * height is altitude + 1 m).
 */
struct baro_sitl_agl {
	float home_alt_m;
};

void
baro_sitl_agl_init(struct baro_sitl_agl *agl);

/* altitude_m is sitl_fdm.altitude, the double of baro_sitl_state_altitude;
 * returns height_agl. */
double
baro_sitl_agl_update(struct baro_sitl_agl *agl, double altitude_m);

struct baro_sitl_slot {
	uint32_t time_ms;
	float alt_m;
};

struct baro_sitl_instance {
	uint32_t last_sample_ms;
	uint32_t last_drift_ms;
	float total_drift_m;
	uint32_t last_store_ms;
	float last_alt_m;	/* what FREEZE holds */
	uint8_t store_index;
	struct baro_sitl_slot buffer[BARO_SITL_BUFFER_LEN];
};

struct baro_sitl {
	struct sim_params params;
	enum baro_sitl_atmosphere atmosphere;
	enum baro_sitl_ardupilot ardupilot;
	/* What ardupilot implies, decided once (baro_sitl_set_ardupilot)
	 * rather than on every call. */
	bool geff, true_density;
	struct sim_random rng;
	/* Altitude the wind correction's density ratio is taken at: the
	 * last output altitude of instance 0, standing in for the
	 * frontend's altitude estimate that ArduPilot uses. */
	float est_alt_m;
	bool have_est;
	struct baro_sitl_instance inst[BARO_MAX_INSTANCES];
};

/* Reproduces BARO_SITL_AP_DEFAULT until baro_sitl_set_ardupilot(). */
void
baro_sitl_init(struct baro_sitl *sim, const struct sim_params *params,
	       enum baro_sitl_atmosphere atmosphere, uint32_t seed);

/* Reproduce release v from the next timer call on (the atmosphere stays
 * what baro_sitl_init was given). */
void
baro_sitl_set_ardupilot(struct baro_sitl *sim, enum baro_sitl_ardupilot v);

/* "simple", "1976" or "water": the word the tools take for it. */
const char *
baro_sitl_atmosphere_name(enum baro_sitl_atmosphere atmosphere);

/*
 * The altitudes AMSL (m) over which a model is defined: the 1976 model's
 * layer table spans -5 km to 86 km, and the simple model approximates
 * the same atmosphere; the underwater model from the deepest sea (11 km)
 * up to 10 m above the surface, just short of 10.09 m where its linear
 * pressure reaches zero.  Outside, pressures become zero, negative or
 * meaningless while the emulator still calls the sample healthy.
 */
void
baro_sitl_atmosphere_domain(enum baro_sitl_atmosphere atmosphere,
			    float *lo_m, float *hi_m);

/*
 * Whether value for parameter idx keeps the atmosphere in its domain at
 * home altitude home_m: GLITCH moves every sample (home + GLITCH inside),
 * RND is a ± amplitude (home ± RND inside).  Other parameters pass.
 * Returns 0, or -ERANGE with "NAME: VALUE is out of range [LO, HI] ..."
 * in err (which may be NULL).
 */
int
baro_sitl_param_check(enum baro_sitl_atmosphere atmosphere, double home_m,
		      size_t idx, double value, char *err, size_t errlen);

/* baro_sitl_param_check() over every parameter of p. */
int
baro_sitl_params_check(enum baro_sitl_atmosphere atmosphere, double home_m,
		       const struct sim_params *p, char *err, size_t errlen);

/*
 * One HAL timer call at now_ms (ArduPilot's millis(), uint32 arithmetic,
 * so the clock may wrap).  Writes one sample per instance that produced
 * one into out[], in instance order, and returns how many.  Each produced
 * sample draws exactly one value from the noise stream.
 */
unsigned
baro_sitl_update(struct baro_sitl *sim, uint32_t now_ms,
		 const struct baro_sitl_truth *truth,
		 struct baro_sample out[BARO_MAX_INSTANCES]);

/*
 * Forget instance's integrated drift: the total goes back to 0 and the
 * next sample integrates DRIFT from now_ms on.  ArduPilot has no way to
 * undo a drift (setting DRIFT to 0 only stops it growing); fault
 * scenarios use this to put a sensor back to truth + noise.
 */
void
baro_sitl_reset_drift(struct baro_sitl *sim, unsigned instance,
		      uint32_t now_ms);

/* ArduPilot's AP_Baro_SITL::healthy(): sampled at least once, not disabled. */
bool
baro_sitl_healthy(const struct baro_sitl *sim, unsigned instance);

/*
 * The altitude SITL feeds the baro: location.alt = (int32) trunc(home_cm
 * + height_m * 100) in double, then state.altitude = alt_cm * 1.0e-2 in
 * double (libraries/SITL is built without -fsingle-precision-constant),
 * which AP_Baro_SITL rounds to float once: baro_sitl_alt_from_cm().
 * home_cm is round(home_m * 100).  Returns -ERANGE when the centimetres
 * do not fit ArduPilot's int32, -EINVAL for a non-finite input.
 */
int
baro_sitl_altitude(double home_m, double height_m, float *alt_amsl_m);

/* The same, giving location.alt in centimetres. */
int
baro_sitl_altitude_cm(double home_m, double height_m, int32_t *alt_cm);

/* sitl_fdm.altitude, the double metres of location.alt: alt_cm * 1.0e-2
 * in double (baro_sitl_alt_from_cm is this rounded to float). */
double
baro_sitl_state_altitude(int32_t alt_cm);

/* The float metres of a Location's int32 centimetres, as AP_Baro_SITL
 * sees them: every centimetre-to-metre conversion goes through here. */
float
baro_sitl_alt_from_cm(int32_t alt_cm);

/* The pieces of the pipeline, exposed for tests and other sources. */
void
baro_sitl_temperature_adjust(const struct sim_params *params, uint32_t now_ms,
			     float *pressure_pa, float *temperature_c);

/* Sum of coefficient * v^2 over the body axes, coefficient chosen by sign. */
float
baro_sitl_wind_error(const struct sim_baro_params *bp,
		     const float vel_air_bf[3]);

/* error * 0.5 * rho_SSL * ratio: the Pa added to the pressure (up to
 * ArduPilot 4.7). */
float
baro_sitl_wind_correction(float error, float density_ratio);

/* error * 0.5 * rho: the same with the air density (kg/m^3) itself,
 * ArduPilot master's form, rho = atmos_1976_density(true altitude). */
float
baro_sitl_wind_correction_density(float error, float density);

/*
 * The metres ground effect takes off the altitude (master only): GEFF_M *
 * max(0, 1 - max(height_agl, 0) / 2 m) in float while GEFF_M and the
 * throttle are both positive (ArduPilot's is_positive: >= FLT_EPSILON),
 * else 0.
 */
float
baro_sitl_ground_effect(float geff_m, float throttle, double height_agl_m);

#endif
