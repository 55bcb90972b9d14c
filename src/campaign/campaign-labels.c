// SPDX-License-Identifier: GPL-3.0-or-later
#include "campaign-labels.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baro-sitl.h"
#include "faults.h"
#include "px4-failure.h"
#include "record-labels.h"
#include "scenario.h"
#include "sim-params.h"
#include "util-strings.h"

/* barod's emulator samples every 10 ms: the step its scenario sees. */
#define STEP_MS 10u
/* PX4's failure injection on the baro, as record-labels.c names it. */
#define INJECT_NAME "baro"

struct out {
	char *buf;
	size_t len, n;
	bool full;
};

static void
put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(o->buf + o->n, o->n < o->len ? o->len - o->n : 0,
			  fmt, ap);
	va_end(ap);
	if (w < 0 || o->n + (size_t)w >= o->len)
		o->full = true;
	else
		o->n += (size_t)w;
}

/* PX4's failure type for an overlay fault (0: none, -1: none stands for
 * it, so the label cannot say it). */
static int
px4_type_of(enum fault_kind kind)
{
	if (kind == FAULT_NONE)
		return PX4_FAILURE_OK;
	for (unsigned t = 1; t < PX4_FAILURE_TYPES; t++) {
		const struct px4_failure *f = px4_failure_of(t);
		if (f && f->how == PX4_HOW_FAULT && f->fault == kind)
			return (int)t;
	}
	return -1;
}

static void
event_row(struct out *o, uint64_t t0_ms, const struct scenario_event *e)
{
	const uint64_t ms = t0_ms + e->time_ms;
	if (e->kind == SCENARIO_EV_PARAM && e->param >= 0) {
		put(o, "%llu,%llu,%u,acked,%s,%.9g,\"\"\n",
		    (unsigned long long)ms, (unsigned long long)e->time_ms,
		    e->line, sim_param_info((size_t)e->param)->name,
		    e->new_value);
	} else if (e->kind == SCENARIO_EV_FAULT && e->instance == 0) {
		int t = px4_type_of(e->new_fault.kind);
		if (t >= 0)
			put(o, "%llu,%llu,%u,acked," INJECT_NAME ",%d,\"\"\n",
			    (unsigned long long)ms,
			    (unsigned long long)e->time_ms, e->line, t);
		else
			put(o, "%llu,%llu,%u,note,,0,\"an overlay fault no "
			       "label stands for\"\n",
			    (unsigned long long)ms,
			    (unsigned long long)e->time_ms, e->line);
	}
}

int
campaign_labels(const char *text, size_t len, const char *name,
		uint64_t t0_ms, char *buf, size_t len_out, char *err,
		size_t errlen)
{
	/* Large (the scenario's actions, the run's set): on the heap. */
	struct scenario *sc = malloc(sizeof(*sc));
	struct scenario_run *run = malloc(sizeof(*run));
	struct baro_sitl *sim = malloc(sizeof(*sim));
	struct fault_overlay *ov = malloc(sizeof(*ov));
	int rc = 0;
	if (!sc || !run || !sim || !ov) {
		rc = str_errorf(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	rc = scenario_parse(sc, text, len, name, err, errlen);
	if (rc < 0)
		goto out;
	struct sim_params params;
	sim_params_defaults(&params);
	baro_sitl_init(sim, &params, BARO_SITL_ATMOS_1976, 1);
	fault_overlay_init(ov, 1);
	scenario_run_init(run, sc, sim, 0);

	struct out o = { .buf = buf, .len = len_out };
	put(&o, RECORD_LABELS_HEADER "\n");
	put(&o, "%llu,0,0,note,,0,\"scenario time 0: barod's physics time "
		"0\"\n", (unsigned long long)t0_ms);
	/* Every name the scenario touches starts where barod's emulator
	 * starts (the table's defaults; no overlay fault). */
	bool touched[256] = { false };
	bool inject = false;
	for (size_t i = 0; i < sc->count; i++) {
		const struct scenario_action *a = &sc->actions[i];
		if (a->param >= 0 && (size_t)a->param < sizeof(touched))
			touched[a->param] = true;
		inject |= a->op == SCENARIO_OP_FAULT ||
			  a->op == SCENARIO_OP_CLEAR;
	}
	for (size_t k = 0; k < sim_param_count() && k < sizeof(touched); k++)
		if (touched[k])
			put(&o, "%llu,0,0,start,%s,%.9g,\"\"\n",
			    (unsigned long long)t0_ms, sim_param_info(k)->name,
			    (double)sim_param_get(&params, k));
	if (inject)
		put(&o, "%llu,0,0,start," INJECT_NAME ",0,\"\"\n",
		    (unsigned long long)t0_ms);
	struct scenario_event ev[SCENARIO_EVENTS_MIN];
	for (uint64_t t = 0; !scenario_run_finished(run) && !o.full;
	     t += STEP_MS) {
		do {
			int n = scenario_step(run, t, sim, ov, ev,
					      SCENARIO_EVENTS_MIN);
			if (n < 0) {
				rc = str_errorf(err, errlen, n, "%s: the "
						"scenario did not step", name);
				goto out;
			}
			for (int i = 0; i < n; i++)
				event_row(&o, t0_ms, &ev[i]);
		} while (scenario_run_due(run, t) && !o.full);
		/* A scenario without an end stops with its last action;
		 * one that never ends (a ramp forever) cannot be labelled
		 * past what fits. */
		if (t > sc->end_ms + STEP_MS)
			break;
	}
	if (o.full)
		rc = str_errorf(err, errlen, -ENOSPC, "%s: the labels are "
				"longer than %zu bytes", name, len_out);
	else
		rc = (int)o.n;
out:
	free(sc);
	free(run);
	free(sim);
	free(ov);
	return rc;
}

int
campaign_labels_t0(const char *log, size_t len, uint64_t *t0_us)
{
	/* The latest: a reconnection restarts barod's physics and its
	 * scenario from 0. */
	const size_t say = strlen(CAMPAIGN_LABELS_T0_SAY);
	bool found = false;
	for (const char *p = log, *end = log + len; p + say < end;) {
		const char *at = memmem(p, (size_t)(end - p),
					CAMPAIGN_LABELS_T0_SAY, say);
		if (!at)
			break;
		char num[32];
		size_t k = 0;
		at += say;
		while (at + k < end && k < sizeof(num) - 1 && at[k] >= '0' &&
		       at[k] <= '9') {
			num[k] = at[k];
			k++;
		}
		num[k] = '\0';
		uint64_t v;
		if (k && str_to_u64(num, &v) == 0) {
			*t0_us = v;
			found = true;
		}
		p = at;
	}
	return found ? 0 : -ENOENT;
}
