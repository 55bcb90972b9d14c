/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Scenario files: parsed from memory and from a stream, which must agree
 * on the result and the message; a scenario that parses is run against
 * the emulator and the overlay with uneven steps (sometimes stopped
 * early), and once over every parameter and overlay slot must be back at
 * its start value.  Parsed for a recording's length too: absolute files
 * must not change, relative ones (40%, end-10s) must run the same way.
 * The load-time check against an emulator answers any parsed one, and
 * so does the hardware form, which then runs the same way; both refuse
 * a fault on another sensor (baro-replay's alone).  A broken invariant
 * aborts, which the fuzzer reports.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baro-sitl.h"
#include "faults.h"
#include "fuzz.h"
#include "scenario.h"

static void
check_events(const struct scenario_event *ev, int n, uint64_t now_ms)
{
	char text[50];	/* a MAVLink STATUSTEXT's worth */

	fuzz_check(n >= 0 && n <= SCENARIO_EVENTS_MIN);
	for (int i = 0; i < n; i++) {
		fuzz_check(ev[i].time_ms == now_ms && ev[i].at_ms <= now_ms);
		fuzz_check(ev[i].instance >= -1 &&
			   ev[i].instance < BARO_MAX_INSTANCES);
		if (ev[i].kind == SCENARIO_EV_PARAM)
			fuzz_check(ev[i].param >= 0 &&
				   (size_t)ev[i].param < sim_param_count());
		fuzz_check(scenario_event_format(&ev[i], text,
						 sizeof(text)) > 0);
	}
}

static void
run_scenario(const struct scenario *sc, struct scenario_run *run,
	     bool stop_early)
{
	struct sim_params start;
	struct baro_sitl sim;
	struct fault_overlay ov;
	struct scenario_event ev[SCENARIO_EVENTS_MIN];
	struct baro_sitl_truth truth = { .alt_amsl_m = 584.0f };
	uint64_t now = 0;

	sim_params_defaults(&start);
	start.baro_count = 3;
	start.baro[1].glitch = 1.5f;	/* restore must not mean "default" */
	baro_sitl_init(&sim, &start, BARO_SITL_ATMOS_1976, 1);
	fault_overlay_init(&ov, 7);
	scenario_run_init(run, sc, &sim, 0);

	for (unsigned k = 0; !scenario_run_finished(run); k++) {
		fuzz_check(k < 100000);
		if (stop_early && k == 50) {
			int n = scenario_run_stop(run, now, &sim, &ov, ev,
						  SCENARIO_EVENTS_MIN);
			check_events(ev, n, now);
			fuzz_check(scenario_run_finished(run));
			break;
		}
		do {
			int n = scenario_step(run, now, &sim, &ov, ev,
					      SCENARIO_EVENTS_MIN);
			check_events(ev, n, now);
		} while (scenario_run_due(run, now));
		fuzz_check(now < sc->end_ms || scenario_run_finished(run));

		struct baro_sample out[BARO_MAX_INSTANCES];
		unsigned n = baro_sitl_update(&sim, (uint32_t)now, &truth, out);
		for (unsigned i = 0; i < n; i++)
			(void)fault_overlay_apply(&ov, &out[i]);

		/* Fine, uneven steps first, then strides to the end. */
		uint64_t left = sc->end_ms > now ? sc->end_ms - now : 1;
		now += k < 300 ? 1 + k % 11 : left / 3 + 1;
	}

	for (size_t i = 0; i < sim_param_count(); i++)
		fuzz_check(sim_param_get(&sim.params, i) ==
			   sim_param_get(&start, i));
	for (unsigned i = 0; i < BARO_MAX_INSTANCES; i++)
		fuzz_check(ov.inst[i].spec.kind == FAULT_NONE);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scenario *a = malloc(sizeof(*a));
	struct scenario *b = malloc(sizeof(*b));
	struct scenario_run *run = malloc(sizeof(*run));
	char ea[512], eb[512];

	if (!a || !b || !run)
		goto out;
	int ra = scenario_parse(a, (const char *)data, size, "fuzz", ea,
				sizeof(ea));
	FILE *f = size ? fmemopen((void *)data, size, "r") : NULL;
	if (f) {
		int rb = scenario_load(b, f, "fuzz", eb, sizeof(eb));
		fclose(f);
		fuzz_check(ra == rb && strcmp(ea, eb) == 0);
		fuzz_check(ra != 0 || (a->count == b->count &&
				       a->end_ms == b->end_ms));
	}
	if (ra == 0) {
		/* The load-time check answers any parsed scenario, with a
		 * FILE:LINE message when it refuses. */
		struct sim_params p;
		sim_params_defaults(&p);
		p.baro_count = (int8_t)(size % 4);
		ea[0] = '\0';
		int rc = scenario_check(a, "fuzz", &p,
					(enum baro_sitl_atmosphere)(size % 3),
					584.0, ea, sizeof(ea));
		fuzz_check(rc == 0 ? ea[0] == '\0'
				   : strncmp(ea, "fuzz:", 5) == 0);
		/* The other sensors' faults are baro-replay's: refused. */
		bool aux = false;
		for (size_t i = 0; i < a->count; i++)
			aux |= a->actions[i].op == SCENARIO_OP_AUX &&
			       a->actions[i].aux >= 0 &&
			       a->actions[i].aux < SCENARIO_AUX_KINDS;
		fuzz_check(!aux ||
			   (rc == -EINVAL && strstr(ea, "baro-replay only")));
		run_scenario(a, run, size % 2 == 1);
		/* Its hardware form (count and end unchanged) runs too. */
		ea[0] = '\0';
		rc = scenario_hardware(a, "fuzz", (unsigned)(size % 8), ea,
				       sizeof(ea));
		fuzz_check(rc == 0 ? ea[0] == '\0'
				   : strncmp(ea, "fuzz:", 5) == 0);
		if (rc == 0)
			run_scenario(a, run, size % 2 == 0);
	}

	/* Placed on a recording: an absolute scenario is the same for any
	 * length; a relative one parses only with a length and runs. */
	uint64_t length_ms = (uint64_t)size * 997u;
	int rc = scenario_parse_for(b, (const char *)data, size, "fuzz",
				    length_ms, eb, sizeof(eb));
	if (ra == 0)
		fuzz_check(rc == 0 && !b->relative && a->count == b->count &&
			   a->end_ms == b->end_ms);
	if (rc == 0 && b->relative) {
		fuzz_check(ra != 0);
		run_scenario(b, run, size % 2 == 0);
	}
out:
	free(a);
	free(b);
	free(run);
	return 0;
}
