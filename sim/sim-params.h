/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The simulator's parameter table: ArduPilot's SIM_BARO_* / SIM_BAR2_* /
 * SIM_BAR3_* / SIM_BARO_COUNT / SIM_TEMP_* parameters with their exact
 * names, types, defaults and units.  It is the single source for the
 * command line, the configuration file, the MAVLink parameter protocol
 * and the documentation: nothing else lists parameter names.
 */
#ifndef BAROD_SIM_PARAMS_H
#define BAROD_SIM_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "baro-sample.h"

/* ArduPilot's AP_Param types used by these parameters. */
enum sim_param_type {
	SIM_PARAM_FLOAT,
	SIM_PARAM_INT8,
	SIM_PARAM_INT16,
};

/* One instance's SITL baro parameters (ArduPilot's SIM::BaroParm). */
struct sim_baro_params {
	float rnd;		/* m, uniform noise amplitude */
	float drift;		/* m/s, integrated */
	int8_t disable;		/* non-zero disables */
	float glitch;		/* m, constant offset */
	int8_t freeze;		/* exactly 1 freezes */
	int16_t delay;		/* ms */
	float wcf_fwd, wcf_bak, wcf_rgt, wcf_lft, wcf_up, wcf_dn;
	float geff_m;		/* m, ground-effect altitude error; <= 0 off */
};

struct sim_params {
	int8_t baro_count;
	float temp_start;	/* degC */
	float temp_brd_off;	/* degC */
	float temp_tconst;	/* s */
	float temp_bfactor;
	struct sim_baro_params baro[BARO_MAX_INSTANCES];
};

struct sim_param_info {
	const char *name;
	enum sim_param_type type;
	float def;
	float min, max;
	const char *units;	/* "" where ArduPilot declares none */
	const char *desc;
	size_t offset;		/* into struct sim_params */
};

/* Number of parameters; indices 0..count-1 are stable (MAVLink param_index). */
size_t
sim_param_count(void);

const struct sim_param_info *
sim_param_info(size_t idx);

/* Index of an exact (case-sensitive, as ArduPilot) name, or -ENOENT. */
int
sim_param_find(const char *name);

/* The known name nearest to an unknown one, for "did you mean" errors. */
const char *
sim_param_closest(const char *name);

void
sim_params_defaults(struct sim_params *p);

/* The baro instance (0..2) parameter idx belongs to, or -1 for the shared
 * ones (SIM_BARO_COUNT, SIM_TEMP_*). */
int
sim_param_instance(size_t idx);

/* The field (an offset in struct sim_baro_params) of an instance's
 * parameter, or (size_t)-1 for a shared one. */
size_t
sim_param_field(size_t idx);

/* Whether parameter idx is set away from its default on a baro that
 * p->baro_count leaves out: a value that does nothing until the count
 * is raised. */
bool
sim_param_inert(const struct sim_params *p, size_t idx);

/* The index of instance's parameter at field, or -ENOENT. */
int
sim_param_of(unsigned instance, size_t field);

float
sim_param_get(const struct sim_params *p, size_t idx);

/*
 * Set parameter idx.  Floats are rounded to float32 as ArduPilot stores
 * them; integers must be whole.  Returns 0, -EINVAL (not finite, not a
 * whole number for an integer type) or -ERANGE (outside min..max); the
 * value is left unchanged on error.
 */
int
sim_param_set(struct sim_params *p, size_t idx, double value);

/*
 * Parse and apply "NAME=VALUE".  On error returns a negative errno and
 * writes a message naming the parameter (and the closest known name for
 * an unknown one) into err.
 */
int
sim_param_assign(struct sim_params *p, const char *assignment, char *err,
		 size_t errlen);

const char *
sim_param_type_name(enum sim_param_type type);

#endif
