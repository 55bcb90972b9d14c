/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Atmosphere models of ArduPilot's barometer simulation, float32 throughout
 * and in ArduPilot's operation order so results match it to the last bit
 * (given the same libm).  Pure functions: no state, no I/O.
 *
 *  - the 1976 US Standard Atmosphere, 8 layers (AP_Baro_atmosphere.cpp,
 *    used by SITL since ArduPilot 4.6);
 *  - the legacy SimpleAtmosphere (troposphere + one stratosphere layer,
 *    used by SITL up to 4.5);
 *  - SimpleUnderWaterAtmosphere (ArduSub).
 */
#ifndef BAROD_SIM_ATMOSPHERE_H
#define BAROD_SIM_ATMOSPHERE_H

/* ArduPilot's AP_Math/definitions.h values, as float. */
#define ATMOS_GRAVITY_MSS 9.80665f
#define ATMOS_SSL_AIR_DENSITY 1.225f
#define ATMOS_SSL_AIR_PRESSURE 101325.01576f
#define ATMOS_SSL_AIR_TEMPERATURE 288.15f
#define ATMOS_C_TO_KELVIN 273.15f

/* 1976 model, geometric altitude AMSL (m) -> pressure (Pa), temperature (K). */
void
atmos_1976_pressure_temperature(float alt_amsl_m, float *pressure_pa,
				float *temperature_k);

/* 1976 model air density (kg/m^3) at a geometric altitude AMSL (m). */
float
atmos_1976_density(float alt_amsl_m);

/*
 * 1976 model inverse: geometric altitude AMSL (m) for a pressure (Pa).
 * Returns 0 and sets *alt_amsl_m, or -EDOM for a pressure that is not
 * positive (ArduPilot raises an internal error there).
 */
int
atmos_1976_altitude(float pressure_pa, float *alt_amsl_m);

/* get_EAS2TAS_extended(): sqrt(1.225 / rho(alt)), top-layer rho if rho <= 0. */
float
atmos_1976_eas2tas(float alt_amsl_m);

/* AP_Baro::_get_air_density_ratio() for an altitude: 1 / EAS2TAS^2. */
float
atmos_1976_density_ratio(float alt_amsl_m);

/* Legacy SimpleAtmosphere: geometric altitude in km -> ratios to sea level. */
void
atmos_simple(float alt_km, float *sigma, float *delta, float *theta);

/*
 * SimpleAtmosphere inverse (ArduPilot has none): the geometric altitude
 * AMSL (m) whose pressure ratio is pressure_pa / ATMOS_SSL_AIR_PRESSURE,
 * by bisection on atmos_simple() down to adjacent floats (its float
 * noise allowing), from -5 to 80 km.
 * -EDOM for a pressure that is not finite and positive or lies outside.
 */
int
atmos_simple_altitude(float pressure_pa, float *alt_amsl_m);

/* ArduSub's SimpleUnderWaterAtmosphere: depth in km (positive down). */
void
atmos_underwater(float depth_km, float *rho, float *delta, float *theta);

#endif
