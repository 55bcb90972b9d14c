/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "px4-failure.h"

#include <stdio.h>
#include <string.h>

#include "scenario.h"
#include "sim-params.h"

static const struct px4_failure types[] = {
	[PX4_FAILURE_OK] = { .name = "ok", .how = PX4_HOW_CLEAR,
			     .fault = FAULT_NONE },
	[PX4_FAILURE_OFF] = { .name = "off", .how = PX4_HOW_PARAM,
			      .field = offsetof(struct sim_baro_params,
						disable),
			      .fault = FAULT_OFF, .def = 1.0 },
	[PX4_FAILURE_STUCK] = { .name = "stuck", .how = PX4_HOW_FAULT,
				.fault = FAULT_STUCK },
	[PX4_FAILURE_GARBAGE] = { .name = "garbage", .how = PX4_HOW_FAULT,
				  .fault = FAULT_GARBAGE },
	[PX4_FAILURE_WRONG] = { .name = "wrong", .how = PX4_HOW_PARAM,
				.field = offsetof(struct sim_baro_params,
						  glitch),
				.fault = FAULT_WRONG, .takes_value = true,
				.def = SCENARIO_PX4_WRONG_M },
	[PX4_FAILURE_SLOW] = { .name = "slow", .how = PX4_HOW_FAULT,
			       .fault = FAULT_SLOW, .takes_value = true,
			       .def = FAULT_SLOW_DEFAULT },
	[PX4_FAILURE_DELAYED] = { .name = "delayed", .how = PX4_HOW_PARAM,
				  .field = offsetof(struct sim_baro_params,
						    delay),
				  .fault = FAULT_DELAYED, .takes_value = true,
				  .def = SCENARIO_PX4_DELAYED_MS },
	[PX4_FAILURE_INTERMITTENT] = { .name = "intermittent",
				       .how = PX4_HOW_FAULT,
				       .fault = FAULT_INTERMITTENT },
};

_Static_assert(sizeof(types) / sizeof(types[0]) == PX4_FAILURE_TYPES,
	       "a row per PX4 failure type");

const struct px4_failure *
px4_failure_of(unsigned type)
{
	return type < PX4_FAILURE_TYPES ? &types[type] : NULL;
}

const char *
px4_failure_name(unsigned type)
{
	return type < PX4_FAILURE_TYPES ? types[type].name : NULL;
}

int
px4_failure_by_name(const char *name)
{
	for (unsigned t = 0; t < PX4_FAILURE_TYPES; t++) {
		if (strcmp(name, types[t].name) == 0)
			return (int)t;
	}
	return -1;
}

int
px4_failure_names(char *buf, size_t len, const char *sep)
{
	size_t used = 0;
	int total = 0;

	if (len)
		buf[0] = '\0';
	for (unsigned t = 0; t < PX4_FAILURE_TYPES; t++) {
		int n = snprintf(used < len ? buf + used : NULL,
				 used < len ? len - used : 0, "%s%s",
				 t ? sep : "", types[t].name);
		if (n < 0)
			return n;
		total += n;
		used = (size_t)total;
	}
	return total;
}
