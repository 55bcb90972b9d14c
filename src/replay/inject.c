// SPDX-License-Identifier: GPL-3.0-or-later
#include "inject.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "atmosphere.h"

/* The emulator's millis() runs this far ahead of the stream's clock: it
 * takes no sample at 0 ms (nothing 10 ms after its last sample yet). */
#define INJECT_SIM_OFFSET_MS BARO_SITL_PERIOD_MS

void
inject_init(struct inject *inj, uint32_t seed)
{
	inject_init_instance(inj, seed, 0);
}

void
inject_init_instance(struct inject *inj, uint32_t seed, unsigned instance)
{
	struct sim_params p;

	if (instance >= BARO_MAX_INSTANCES)
		instance = BARO_MAX_INSTANCES - 1;
	*inj = (struct inject){ .instance = instance };
	sim_params_defaults(&p);
	/* The recording already has its sensor's noise; a scenario adds
	 * more with `noise`. */
	for (unsigned i = 0; i < BARO_MAX_INSTANCES; i++)
		p.baro[i].rnd = 0.0f;
	/* The emulator samples instances 0..instance from one truth; only
	 * ours is kept. */
	p.baro_count = instance + 1;
	baro_sitl_init(&inj->sim, &p, BARO_SITL_ATMOS_1976, seed);
	fault_overlay_init(&inj->overlay, seed);
}

void
inject_start_scenario(struct inject *inj, struct scenario_run *run,
		      const struct scenario *sc)
{
	scenario_run_init(run, sc, &inj->sim, INJECT_SIM_OFFSET_MS);
	inj->run = run;
}

uint32_t
inject_label_for(const struct sim_baro_params *bp, float total_drift_m,
		 enum fault_kind overlay)
{
	uint32_t l = 0;

	if (bp->glitch != 0.0f)
		l |= INJECT_GLITCH;
	if (bp->drift != 0.0f || total_drift_m != 0.0f)
		l |= INJECT_DRIFT;
	if (bp->rnd > 0.0f)
		l |= INJECT_NOISE;
	if (bp->freeze == 1)
		l |= INJECT_FREEZE;
	if (bp->delay != 0)
		l |= INJECT_DELAY;
	if (bp->disable)
		l |= INJECT_DISABLE;
	switch (overlay) {
	case FAULT_GARBAGE:
		l |= INJECT_GARBAGE;
		break;
	case FAULT_SLOW:
		l |= INJECT_SLOW;
		break;
	case FAULT_INTERMITTENT:
		l |= INJECT_INTERMITTENT;
		break;
	/* The hardware forms of PX4's types (replay uses the emulator's):
	 * the label of the emulator fault each stands for. */
	case FAULT_OFF:
		l |= INJECT_DISABLE;
		break;
	case FAULT_STUCK:
		l |= INJECT_FREEZE;
		break;
	case FAULT_WRONG:
		l |= INJECT_GLITCH;
		break;
	case FAULT_DELAYED:
		l |= INJECT_DELAY;
		break;
	case FAULT_NONE:
	case FAULT_KINDS:
		break;
	}
	return l;
}

static uint32_t
label_of(const struct inject *inj)
{
	const unsigned k = inj->instance;
	return inject_label_for(&inj->sim.params.baro[k],
				inj->sim.inst[k].total_drift_m,
				inj->overlay.inst[k].spec.kind);
}

uint32_t
inject_label_now(const struct inject *inj)
{
	return inj->last_label;
}

static int
step_scenario(struct inject *inj, uint64_t now_ms)
{
	struct scenario_event ev[SCENARIO_EVENTS_MIN];

	if (!inj->run)
		return 0;
	do {
		int n = scenario_step(inj->run, now_ms, &inj->sim,
				      &inj->overlay, ev, SCENARIO_EVENTS_MIN);
		if (n < 0)
			return n;
	} while (scenario_run_due(inj->run, now_ms));
	return 0;
}

int
inject_sample(struct inject *inj, const struct baro_sample *in,
	      struct baro_sample *out, uint32_t *label)
{
	if (!(in->pressure_pa > 0.0f) || !isfinite(in->pressure_pa))
		return -EINVAL;
	if (!inj->started) {
		inj->t0_us = in->time_us;
		inj->started = true;
	}
	if (in->time_us < inj->t0_us)
		return -EINVAL;
	const uint64_t rel_ms = (in->time_us - inj->t0_us) / 1000u;
	int rc = step_scenario(inj, rel_ms);
	if (rc < 0)
		return rc;

	struct baro_sitl_truth truth = { 0 };
	if (atmos_1976_altitude(in->pressure_pa, &truth.alt_amsl_m) < 0)
		return -EINVAL;

	struct baro_sample s[BARO_MAX_INSTANCES];
	unsigned n = baro_sitl_update(&inj->sim,
				      (uint32_t)(rel_ms + INJECT_SIM_OFFSET_MS),
				      &truth, s);
	*label = label_of(inj);
	inj->last_label = *label;
	*out = *in;

	const unsigned k = inj->instance;
	unsigned j = 0;
	while (j < n && s[j].instance != k)
		j++;
	if (j == n) {
		if (inj->sim.params.baro[k].disable)
			return 0;
		/* The emulator samples at most every 10 ms; a faster
		 * recording's extra samples pass unchanged (counted), so no
		 * reading is lost. */
		inj->passthrough++;
		return 1;
	}
	/* An untouched altitude gives back the recorded bits; a faulted
	 * one the model's pressure at the faulted altitude. */
	if (s[j].alt_m != truth.alt_amsl_m) {
		out->pressure_pa = s[j].pressure_pa;
		if (inj->sim.params.baro[k].freeze == 1 && inj->have_last)
			out->temperature_c = inj->last.temperature_c;
	}
	out->flags &= ~(uint32_t)BARO_SAMPLE_HAS_ALTITUDE;
	/* The overlay acts on the sample's instance.  The further baros'
	 * is theirs in the frame (1, 2) whatever the recording numbered
	 * them; the primary's stays the recording's, as it always was. */
	const uint8_t rec_instance = out->instance;
	if (k != 0)
		out->instance = (uint8_t)k;
	bool keep = fault_overlay_apply(&inj->overlay, out);
	out->instance = rec_instance;
	if (!keep)
		return 0;
	inj->last = *out;
	inj->have_last = true;
	return 1;
}

int
inject_label_format(uint32_t label, char *buf, size_t len)
{
	static const char *const names[] = {
		[INJECT_BIT_GLITCH] = "glitch",
		[INJECT_BIT_DRIFT] = "drift",
		[INJECT_BIT_NOISE] = "noise",
		[INJECT_BIT_FREEZE] = "freeze",
		[INJECT_BIT_DELAY] = "delay",
		[INJECT_BIT_DISABLE] = "disable",
		[INJECT_BIT_GARBAGE] = "garbage",
		[INJECT_BIT_SLOW] = "slow",
		[INJECT_BIT_INTERMITTENT] = "intermittent",
		[INJECT_BIT_WIND] = "wind",
		[INJECT_BIT_GPS_OFFSET] = "gps-offset",
		[INJECT_BIT_GPS_DRIFT] = "gps-drift",
		[INJECT_BIT_GPS_FREEZE] = "gps-freeze",
		[INJECT_BIT_GPS_LOST] = "gps-lost",
		[INJECT_BIT_ACCEL_BIAS] = "accel-bias",
		[INJECT_BIT_ACCEL_NOISE] = "accel-noise",
		[INJECT_BIT_OTHER_BARO] = "other-baro",
	};
	_Static_assert(sizeof(names) / sizeof(names[0]) == INJECT_LABEL_BITS,
		       "a name per label bit");
	size_t used = 0;
	int total = 0;

	if (len)
		buf[0] = '\0';
	if (label == 0)
		return snprintf(buf, len, "clean");
	for (unsigned i = 0; i < INJECT_LABEL_BITS; i++) {
		if (!(label & (1u << i)))
			continue;
		int n = snprintf(used < len ? buf + used : NULL,
				 used < len ? len - used : 0, "%s%s",
				 total ? "+" : "", names[i]);
		if (n < 0)
			return n;
		total += n;
		used = (size_t)total;
	}
	return total;
}
