/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The baro-sim input path: CSV trace -> quantised altitude -> emulator. */
#include <stdio.h>
#include <stdlib.h>

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
	params.baro[0].geff_m = 1.5f;
	baro_sitl_init(&sim, &params, BARO_SITL_ATMOS_1976, 1);
	/* Master: ground effect from the throttle column, wind at the true
	 * density. */
	baro_sitl_set_ardupilot(&sim, BARO_SITL_AP_MASTER);
	struct baro_sitl_agl agl;
	baro_sitl_agl_init(&agl);

	if (trace_csv_open(&r, f) == 0) {
		while (trace_csv_next(&r, &row) > 0) {
			struct baro_sitl_truth t = { .throttle = row.throttle };
			struct baro_sample out[BARO_MAX_INSTANCES];
			int32_t cm;
			if (!(row.throttle >= 0.0f && row.throttle <= 1.0f))
				abort();
			if (baro_sitl_altitude_cm(0.0, row.alt_m, &cm) < 0)
				break;
			t.alt_amsl_m = baro_sitl_alt_from_cm(cm);
			t.height_agl_m = baro_sitl_agl_update(
				&agl, baro_sitl_state_altitude(cm));
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
