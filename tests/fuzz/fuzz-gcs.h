/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What barod sends a ground station, checked by the targets that drive
 * its services (fuzz-param-service, fuzz-control): a message barod may
 * send, a PARAM_VALUE that names a real parameter with its index, type,
 * the count and the value the table holds right now, a STATUSTEXT of
 * known severity, a COMMAND_ACK with a result barod gives.  Any other
 * output aborts.
 */
#ifndef BAROD_FUZZ_GCS_H
#define BAROD_FUZZ_GCS_H

#include <stdlib.h>
#include <string.h>

#include "mavlink.h"
#include "sim-params.h"

static inline void
fuzz_check_gcs(uint32_t msgid, const uint8_t *payload,
	       const struct sim_params *params)
{
	union mavlink_msg m;

	if (mavlink_unpack_msg(msgid, payload, &m) < 0)
		abort();
	switch (msgid) {
	case MAVLINK_MSG_PARAM_VALUE: {
		float now;
		if (m.pv.param_index >= sim_param_count() ||
		    m.pv.param_count != sim_param_count() ||
		    strcmp(m.pv.param_id,
			   sim_param_info(m.pv.param_index)->name) != 0)
			abort();
		if (m.pv.param_type != MAV_PARAM_TYPE_INT8 &&
		    m.pv.param_type != MAV_PARAM_TYPE_INT16 &&
		    m.pv.param_type != MAV_PARAM_TYPE_REAL32)
			abort();
		now = sim_param_get(params, m.pv.param_index);
		if (memcmp(&now, &m.pv.param_value, sizeof(now)) != 0)
			abort();
		break;
	}
	case MAVLINK_MSG_STATUSTEXT:
		if (m.st.severity > 7 || m.st.text[0] == '\0')
			abort();
		break;
	case MAVLINK_MSG_COMMAND_ACK:
		if (m.ca.result != MAV_RESULT_ACCEPTED &&
		    m.ca.result != MAV_RESULT_DENIED &&
		    m.ca.result != MAV_RESULT_UNSUPPORTED &&
		    m.ca.result != MAV_RESULT_FAILED)
			abort();
		break;
	default:
		abort();
	}
}

/* Every value in the table is one the table would take: nothing set
 * from outside got past the ranges. */
static inline void
fuzz_check_params(const struct sim_params *params)
{
	struct sim_params copy = *params;

	for (size_t i = 0; i < sim_param_count(); i++) {
		if (sim_param_set(&copy, i, (double)sim_param_get(params, i)) < 0)
			abort();
	}
}

#endif
