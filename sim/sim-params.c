/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "sim-params.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util-strings.h"

/* ArduPilot declares no @Range for these, so the bounds are the types'. */
#define F_MIN (-FLT_MAX)
#define F_MAX FLT_MAX
#define I8_MIN -128.0f
#define I8_MAX 127.0f
#define I16_MIN -32768.0f
#define I16_MAX 32767.0f

#define OFF(field) offsetof(struct sim_params, field)

/*
 * One instance's thirteen parameters, in ArduPilot's group order (RND is
 * index 1 ... WCF_DN index 12, GEFF_M index 13 of SIM::BaroParm).  GEFF_M
 * exists only in ArduPilot master (PR #32472); the emulator ignores it
 * when it reproduces an older release (baro_sitl_ardupilot_has_geff).
 */
#define BARO_PARAMS(prefix, i)                                                \
	{ prefix "RND", SIM_PARAM_FLOAT, 0.2f, F_MIN, F_MAX, "m",             \
	  "altitude noise amplitude; uniform in [-RND, RND)",                 \
	  OFF(baro[i].rnd) },                                                 \
	{ prefix "DRIFT", SIM_PARAM_FLOAT, 0.0f, F_MIN, F_MAX, "m/s",         \
	  "altitude drift rate, integrated over time",                        \
	  OFF(baro[i].drift) },                                               \
	{ prefix "DISABLE", SIM_PARAM_INT8, 0.0f, I8_MIN, I8_MAX, "",         \
	  "any non-zero value disables the sensor (no samples, unhealthy)",   \
	  OFF(baro[i].disable) },                                             \
	{ prefix "GLITCH", SIM_PARAM_FLOAT, 0.0f, F_MIN, F_MAX, "m",          \
	  "constant altitude offset added to every sample",                   \
	  OFF(baro[i].glitch) },                                              \
	{ prefix "FREEZE", SIM_PARAM_INT8, 0.0f, I8_MIN, I8_MAX, "",          \
	  "1 holds the last stored altitude (noise, drift, glitch too)",      \
	  OFF(baro[i].freeze) },                                              \
	{ prefix "DELAY", SIM_PARAM_INT16, 0.0f, I16_MIN, I16_MAX, "ms",      \
	  "output delay through the 50 x 10 ms buffer (>= 690: undelayed)",   \
	  OFF(baro[i].delay) },                                               \
	{ prefix "WCF_FWD", SIM_PARAM_FLOAT, 0.0f, F_MIN, F_MAX, "",          \
	  "wind coefficient for forward body air velocity (x > 0)",           \
	  OFF(baro[i].wcf_fwd) },                                             \
	{ prefix "WCF_BAK", SIM_PARAM_FLOAT, 0.0f, F_MIN, F_MAX, "",          \
	  "wind coefficient for backward body air velocity (x <= 0)",         \
	  OFF(baro[i].wcf_bak) },                                             \
	{ prefix "WCF_RGT", SIM_PARAM_FLOAT, 0.0f, F_MIN, F_MAX, "",          \
	  "wind coefficient for rightward body air velocity (y > 0)",         \
	  OFF(baro[i].wcf_rgt) },                                             \
	{ prefix "WCF_LFT", SIM_PARAM_FLOAT, 0.0f, F_MIN, F_MAX, "",          \
	  "wind coefficient for leftward body air velocity (y <= 0)",         \
	  OFF(baro[i].wcf_lft) },                                             \
	{ prefix "WCF_UP", SIM_PARAM_FLOAT, 0.0f, F_MIN, F_MAX, "",           \
	  "wind coefficient for body z air velocity > 0 (FRD: downward)",     \
	  OFF(baro[i].wcf_up) },                                              \
	{ prefix "WCF_DN", SIM_PARAM_FLOAT, 0.0f, F_MIN, F_MAX, "",           \
	  "wind coefficient for body z air velocity <= 0",                    \
	  OFF(baro[i].wcf_dn) },                                              \
	{ prefix "GEFF_M", SIM_PARAM_FLOAT, 0.0f, F_MIN, F_MAX, "m",          \
	  "ground effect: altitude lowered by up to this while motors run, "  \
	  "to 0 at 2 m AGL; <= 0 off (ArduPilot master)",                     \
	  OFF(baro[i].geff_m) }

static const struct sim_param_info params[] = {
	{ "SIM_BARO_COUNT", SIM_PARAM_INT8, 2.0f, 0.0f, 3.0f, "",
	  "number of simulated barometers", OFF(baro_count) },
	BARO_PARAMS("SIM_BARO_", 0),
	BARO_PARAMS("SIM_BAR2_", 1),
	BARO_PARAMS("SIM_BAR3_", 2),
	{ "SIM_TEMP_START", SIM_PARAM_FLOAT, 25.0f, F_MIN, F_MAX, "degC",
	  "sensor temperature at start-up", OFF(temp_start) },
	{ "SIM_TEMP_BRD_OFF", SIM_PARAM_FLOAT, 20.0f, F_MIN, F_MAX, "degC",
	  "board temperature above the air temperature once warm",
	  OFF(temp_brd_off) },
	{ "SIM_TEMP_TCONST", SIM_PARAM_FLOAT, 30.0f, F_MIN, F_MAX, "s",
	  "warm-up time constant (ArduPilot's doc says degC; it is seconds)",
	  OFF(temp_tconst) },
	{ "SIM_TEMP_BFACTOR", SIM_PARAM_FLOAT, 0.0f, F_MIN, F_MAX, "",
	  "pressure error exponent above 30 degC: p -= (T-30)^BFACTOR; 0 off",
	  OFF(temp_bfactor) },
};

#define N_PARAMS (sizeof(params) / sizeof(params[0]))

size_t
sim_param_count(void)
{
	return N_PARAMS;
}

const struct sim_param_info *
sim_param_info(size_t idx)
{
	return idx < N_PARAMS ? &params[idx] : NULL;
}

int
sim_param_find(const char *name)
{
	for (size_t i = 0; i < N_PARAMS; i++) {
		if (strcmp(params[i].name, name) == 0)
			return (int)i;
	}
	return -ENOENT;
}

const char *
sim_param_closest(const char *name)
{
	const char *best = params[0].name;
	size_t best_d = SIZE_MAX;

	for (size_t i = 0; i < N_PARAMS; i++) {
		size_t d = str_edit_distance_below(name, params[i].name, true,
						   best_d);
		if (d < best_d) {
			best_d = d;
			best = params[i].name;
		}
	}
	return best;
}

static void *
field(struct sim_params *p, size_t idx)
{
	return (char *)p + params[idx].offset;
}

static const void *
cfield(const struct sim_params *p, size_t idx)
{
	return (const char *)p + params[idx].offset;
}

float
sim_param_get(const struct sim_params *p, size_t idx)
{
	const void *f = cfield(p, idx);

	switch (params[idx].type) {
	case SIM_PARAM_INT8:
		return *(const int8_t *)f;
	case SIM_PARAM_INT16:
		return *(const int16_t *)f;
	case SIM_PARAM_FLOAT:
		break;
	}
	return *(const float *)f;
}

int
sim_param_set(struct sim_params *p, size_t idx, double value)
{
	const struct sim_param_info *info = &params[idx];
	void *f = field(p, idx);

	if (!isfinite(value))
		return -EINVAL;
	if (info->type != SIM_PARAM_FLOAT && value != trunc(value))
		return -EINVAL;
	if (value < (double)info->min || value > (double)info->max)
		return -ERANGE;

	switch (info->type) {
	case SIM_PARAM_INT8:
		*(int8_t *)f = (int8_t)value;
		break;
	case SIM_PARAM_INT16:
		*(int16_t *)f = (int16_t)value;
		break;
	case SIM_PARAM_FLOAT:
		*(float *)f = (float)value;
		break;
	}
	return 0;
}

void
sim_params_defaults(struct sim_params *p)
{
	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < N_PARAMS; i++)
		(void)sim_param_set(p, i, (double)params[i].def);
}

int
sim_param_instance(size_t idx)
{
	const size_t base = OFF(baro);
	const size_t off = params[idx].offset;

	if (off < base || off >= base + sizeof(((struct sim_params *)0)->baro))
		return -1;
	return (int)((off - base) / sizeof(struct sim_baro_params));
}

size_t
sim_param_field(size_t idx)
{
	int i = sim_param_instance(idx);

	if (i < 0)
		return (size_t)-1;
	return params[idx].offset - OFF(baro) -
	       (size_t)i * sizeof(struct sim_baro_params);
}

bool
sim_param_inert(const struct sim_params *p, size_t idx)
{
	const int inst = sim_param_instance(idx);

	return inst >= p->baro_count &&
	       sim_param_get(p, idx) != params[idx].def;
}

int
sim_param_of(unsigned instance, size_t field)
{
	for (size_t i = 0; i < N_PARAMS; i++) {
		if (sim_param_instance(i) == (int)instance &&
		    sim_param_field(i) == field)
			return (int)i;
	}
	return -ENOENT;
}

const char *
sim_param_type_name(enum sim_param_type type)
{
	switch (type) {
	case SIM_PARAM_INT8:
		return "int8";
	case SIM_PARAM_INT16:
		return "int16";
	case SIM_PARAM_FLOAT:
		break;
	}
	return "float";
}

int
sim_param_assign(struct sim_params *p, const char *assignment, char *err,
		 size_t errlen)
{
	const char *eq = strchr(assignment, '=');
	char name[64];

	if (!eq) {
		snprintf(err, errlen, "'%s': expected NAME=VALUE", assignment);
		return -EINVAL;
	}
	size_t nlen = (size_t)(eq - assignment);
	if (nlen == 0 || nlen >= sizeof(name)) {
		snprintf(err, errlen, "'%s': bad parameter name", assignment);
		return -EINVAL;
	}
	memcpy(name, assignment, nlen);
	name[nlen] = '\0';

	int idx = sim_param_find(name);
	if (idx < 0) {
		snprintf(err, errlen,
			 "unknown parameter '%s' (did you mean %s?)", name,
			 sim_param_closest(name));
		return -ENOENT;
	}

	const char *text = eq + 1;
	double v;
	int prc = str_to_double(text, &v);
	if (prc == -EINVAL) {
		snprintf(err, errlen, "%s: '%s' is not a number", name, text);
		return -EINVAL;
	}

	const struct sim_param_info *info = &params[idx];
	int rc = prc < 0 ? prc : sim_param_set(p, (size_t)idx, v);
	if (rc == -EINVAL) {
		snprintf(err, errlen, "%s: '%s' is not a valid %s value", name,
			 text, sim_param_type_name(info->type));
	} else if (rc == -ERANGE) {
		snprintf(err, errlen, "%s: %s is out of range [%g, %g]", name,
			 text, (double)info->min, (double)info->max);
	}
	return rc;
}
