/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The baro-sim input path: CSV trace -> quantised altitude -> emulator. */
#include <stdio.h>

#include "baro-sitl.h"
#include "fuzz.h"
#include "trace-csv.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim_params params;
	struct baro_sitl sim;
	struct trace_csv r;
	struct trace_row row;

	if (size == 0)
		return 0;
	FILE *f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;

	sim_params_defaults(&params);
	params.baro_count = 3;
	params.baro[1].delay = 40;
	params.baro[2].wcf_fwd = 0.3f;
	baro_sitl_init(&sim, &params, BARO_SITL_ATMOS_1976, 1);

	if (trace_csv_open(&r, f) == 0) {
		while (trace_csv_next(&r, &row) > 0) {
			struct baro_sitl_truth t;
			struct baro_sample out[BARO_MAX_INSTANCES];
			if (baro_sitl_altitude(0.0, row.alt_m,
					       &t.alt_amsl_m) < 0)
				break;
			for (int k = 0; k < 3; k++)
				t.vel_air_bf[k] = row.vel_air_bf[k];
			(void)baro_sitl_update(&sim,
					       (uint32_t)(row.time_us / 1000u),
					       &t, out);
		}
	}
	trace_csv_close(&r);
	fclose(f);
	return 0;
}
