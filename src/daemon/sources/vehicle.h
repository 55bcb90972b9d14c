/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Vehicles on physics time, shared by every simulated source (sim,
 * sitl-json, px4-sim, px4-sim-proxy): one AP_Baro_SITL emulator per
 * vehicle, vehicle 0's being env->sim (the one SIM_* parameters act on),
 * the others a source's own, following vehicle 0's parameters.  One
 * physics step of one vehicle is vehicle_step(): the clock, the ground,
 * the height above it, the emulator, each sample emitted with the
 * vehicle's index.  The set-up and the restart path live here too.
 */
#ifndef BAROD_VEHICLE_H
#define BAROD_VEHICLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "source.h"

struct vehicle_ground {
	struct baro_sitl_agl agl;	/* SITL's height-above-ground state */
	float throttle;			/* the latest step's, for status */
	double height_agl_m;
};

struct vehicles {
	struct baro_sitl extra[CONFIG_MAX_SITL];	/* [0] unused */
	/* What each vehicle's ground effect sees (all of 0..n-1). */
	struct vehicle_ground ground[CONFIG_MAX_SITL];
	unsigned n;
};

/* Set up vehicles 0..n-1; 1..n-1 get an emulator of their own (seed +
 * v) with vehicle 0's parameters. */
void vehicles_setup(const struct source_env *env, struct vehicles *fleet,
		    unsigned n);
struct baro_sitl *vehicle_sim(const struct source_env *env,
			      struct vehicles *fleet, unsigned v);

/* Vehicle v reaches physics time now_us without an emulator sample (a
 * frame that carries none): vehicle 0 moves the simulation clock
 * (scenarios), the others take vehicle 0's (live) parameters.
 * vehicle_step() does this itself. */
void vehicle_clock(const struct source_env *env, struct vehicles *fleet,
		   unsigned v, uint64_t now_us);

/* Vehicle v's simulation starts again at physics time 0 (env->restart,
 * then its emulator, seed + v, and its ground). */
void vehicle_restart(const struct source_env *env, struct vehicles *fleet,
		     unsigned v);

/* One physics step's inputs. */
struct vehicle_input {
	uint64_t now_us;	/* physics time: the clock, the samples' time */
	uint32_t emulator_ms;	/* the emulator's (now_us / 1000, or ahead) */
	/* alt_amsl_m and vel_air_bf; throttle and height_agl_m are set
	 * from the fields below. */
	struct baro_sitl_truth truth;
	float throttle;		/* the motors' mean output, 0..1 */
	/* The height above ground: SITL's rule (the first altitude above
	 * 0 m is the ground, baro_sitl_agl_update) on sitl_altitude_m,
	 * sitl_fdm.altitude, when sitl_agl; else height_agl_m as given. */
	bool sitl_agl;
	double sitl_altitude_m;
	double height_agl_m;
	/* When not NULL: what the source itself measured, laid over each
	 * emulator sample before emit (the PX4 proxy's samples carry the
	 * simulator's temperature, so a stuck fault holds and the record
	 * file shows what PX4 was sent). */
	void (*measured)(struct baro_sample *s, void *user);
	void *measured_user;
};

/* One physics step of vehicle v, in this order: the clock (scenarios may
 * change the parameters this step's samples are made with), the ground
 * and the height above it, the emulator; each sample stamped now_us and
 * emitted.  published[k] says whether out[k] went out (and out[k] is
 * what did).  Returns the number of samples in out. */
unsigned vehicle_step(const struct source_env *env, struct vehicles *fleet,
		      unsigned v, const struct vehicle_input *in,
		      struct baro_sample out[BARO_MAX_INSTANCES],
		      bool published[BARO_MAX_INSTANCES]);

/* baroctl status: "vehicle V throttle T h_agl H m" for each vehicle. */
void vehicles_status(const struct vehicles *fleet, FILE *out);

/* The emulated sources' start-up description: the count, the home and
 * the model (a user comparing with ArduPilot's own baro checks them). */
void source_describe_emulated(const struct source_env *env, const void *state,
			      char *buf, size_t len);

#endif
