/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The sources barod offers: adding one is its file and one line here. */
#include "source.h"

/* Each defined in its own file. */
extern const struct source_ops source_sim, source_sitl_json,
	source_sitl_proxy, source_px4_sim, source_px4_proxy, source_hardware;

static const struct {
	enum config_source mode;
	const struct source_ops *ops;
} registry[] = {
	{ CONFIG_SOURCE_SIM, &source_sim },
	{ CONFIG_SOURCE_SITL_JSON, &source_sitl_json },
	{ CONFIG_SOURCE_SITL_PROXY, &source_sitl_proxy },
	{ CONFIG_SOURCE_HARDWARE, &source_hardware },
	{ CONFIG_SOURCE_PX4_SIM, &source_px4_sim },
	{ CONFIG_SOURCE_PX4_PROXY, &source_px4_proxy },
};

const struct source_ops *
source_find(enum config_source mode)
{
	for (size_t i = 0; i < sizeof(registry) / sizeof(registry[0]); i++) {
		if (registry[i].mode == mode)
			return registry[i].ops;
	}
	return NULL;
}
