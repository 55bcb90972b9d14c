/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Running a parsed scenario.  A "target" is what an action writes: a
 * parameter (its table index) or an instance's overlay slot (after the
 * parameters).  Each target shows the newest action in force on it, or
 * its start value; every change is recomputed from that rule rather than
 * remembered as "the previous value", which is what keeps overlapping
 * `for`s and ramps on one parameter consistent.
 */
#include "scenario.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "util-strings.h"

/* What a step may do next, in the order the scenario defines. */
enum item_kind {
	ITEM_DUE,	/* an active action's `for` ran out or ramp ended */
	ITEM_ACTION,	/* the next action starts */
	ITEM_AUTO_END,	/* everything is done: the scenario ends */
};

struct item {
	enum item_kind kind;
	uint64_t at_ms;
	size_t index;	/* ITEM_DUE: into run->active */
};

struct emitter {
	struct scenario_event *ev;
	size_t max, n;
	uint64_t now_ms;
};

static size_t
n_params(void)
{
	return sim_param_count();
}

/* Events a restore can emit: a marker, each parameter, each overlay
 * slot, and the end marker after it. */
static size_t
restore_need(void)
{
	return 2 + n_params() + BARO_MAX_INSTANCES;
}

/* The instance a parameter belongs to, from where it is stored. */
static int
param_instance(size_t idx)
{
	const size_t base = offsetof(struct sim_params, baro);
	const size_t off = sim_param_info(idx)->offset;

	if (off < base ||
	    off >= base + BARO_MAX_INSTANCES * sizeof(struct sim_baro_params))
		return -1;
	return (int)((off - base) / sizeof(struct sim_baro_params));
}

static size_t
target_of(const struct scenario_action *a)
{
	if (a->op == SCENARIO_OP_FAULT)
		return n_params() + (size_t)a->instance;
	return (size_t)a->param;
}

static int
target_instance(size_t target)
{
	if (target >= n_params())
		return (int)(target - n_params());
	return param_instance(target);
}

static const struct scenario_action *
action_of(const struct scenario_run *run, const struct scenario_active *r)
{
	return &run->sc->actions[r->action];
}

/* The newest action in force on target, or NULL. */
static const struct scenario_active *
top_of(const struct scenario_run *run, size_t target)
{
	const struct scenario_active *top = NULL;

	for (size_t i = 0; i < run->nactive; i++) {
		const struct scenario_active *r = &run->active[i];
		if (target_of(action_of(run, r)) == target &&
		    (!top || r->action > top->action))
			top = r;
	}
	return top;
}

static double
value_at(const struct scenario_action *a, uint64_t now_ms)
{
	if (a->op != SCENARIO_OP_RAMP)
		return a->value;
	if (now_ms >= a->at_ms + a->dur_ms)
		return a->to;
	double f = (double)(now_ms - a->at_ms) / (double)a->dur_ms;
	return a->value + (a->to - a->value) * f;
}

static struct scenario_event *
emit(struct emitter *e, enum scenario_event_kind kind,
     enum scenario_cause cause, uint64_t at_ms, unsigned line, int instance)
{
	struct scenario_event *ev = &e->ev[e->n++];

	*ev = (struct scenario_event){
		.time_ms = e->now_ms, .at_ms = at_ms, .line = line,
		.kind = kind, .cause = cause, .instance = instance,
		.param = -1,
	};
	return ev;
}

/*
 * Write target's value as the rule says and report it, caused by the
 * action cause_a (NULL: a whole-scenario restore at at_ms); with
 * only_changes, nothing is reported for a target that kept its value.
 */
static void
settle(struct scenario_run *run, size_t target, struct baro_sitl *sim,
       struct fault_overlay *ov, struct emitter *e,
       enum scenario_cause cause, const struct scenario_action *cause_a,
       uint64_t at_ms, bool only_changes)
{
	const struct scenario_active *top = top_of(run, target);
	const struct scenario_action *ta = top ? action_of(run, top) : NULL;
	unsigned line = cause_a ? cause_a->line : 0;
	int inst = target_instance(target);
	struct scenario_event *ev;

	if (target >= n_params()) {
		struct fault_state *st = &ov->inst[inst];
		const struct fault_spec none = { .kind = FAULT_NONE };
		struct fault_spec old = st->spec;
		struct fault_spec want = ta ? ta->fault : none;
		bool same = fault_spec_equal(old, want);
		if (!same)
			(void)fault_overlay_set(ov, (unsigned)inst, want);
		if (same && only_changes)
			return;
		ev = emit(e, SCENARIO_EV_FAULT, cause, at_ms, line, inst);
		ev->old_fault = old;
		ev->new_fault = st->spec;
	} else {
		double old = sim_param_get(&sim->params, target);
		double want = ta ? value_at(ta, e->now_ms)
				 : sim_param_get(&run->start, target);
		/* Values were checked by the table when parsed. */
		(void)sim_param_set(&sim->params, target, want);
		double now = sim_param_get(&sim->params, target);
		if (now == old && only_changes)
			return;
		ev = emit(e, SCENARIO_EV_PARAM, cause, at_ms, line, inst);
		ev->param = (int)target;
		ev->old_value = old;
		ev->new_value = now;
	}
	if (cause_a && cause == SCENARIO_CAUSE_START)
		ev->duration_ms = cause_a->dur_ms;
	if (cause_a && cause == SCENARIO_CAUSE_RAMP_START) {
		ev->duration_ms = cause_a->dur_ms;
		ev->ramp_to = cause_a->to;
	}
}

static void
remove_active(struct scenario_run *run, size_t i)
{
	run->active[i] = run->active[--run->nactive];
}

/*
 * Put instance (or, with instance -1, everything) back to its start:
 * parameters, overlay, and the integrated drift that ArduPilot cannot
 * undo.  Actions in force there are dropped, pending ends with them.
 */
static void
restore(struct scenario_run *run, int instance, struct baro_sitl *sim,
	struct fault_overlay *ov, struct emitter *e,
	const struct scenario_action *cause_a, uint64_t at_ms)
{
	for (size_t i = run->nactive; i-- > 0;) {
		size_t t = target_of(action_of(run, &run->active[i]));
		if (instance < 0 || target_instance(t) == instance)
			remove_active(run, i);
	}
	(void)emit(e, SCENARIO_EV_RESTORE, SCENARIO_CAUSE_RESTORE, at_ms,
		   cause_a ? cause_a->line : 0, instance);
	for (size_t t = 0; t < n_params() + BARO_MAX_INSTANCES; t++) {
		if (instance < 0 || target_instance(t) == instance)
			settle(run, t, sim, ov, e, SCENARIO_CAUSE_RESTORE,
			       cause_a, at_ms, true);
	}
	const uint32_t sim_now = run->sim_start_ms + (uint32_t)e->now_ms;
	for (unsigned i = 0; i < BARO_MAX_INSTANCES; i++) {
		if (instance < 0 || (unsigned)instance == i)
			baro_sitl_reset_drift(sim, i, sim_now);
	}
}

static void
end_run(struct scenario_run *run, struct baro_sitl *sim,
	struct fault_overlay *ov, struct emitter *e,
	const struct scenario_action *cause_a, uint64_t at_ms)
{
	restore(run, -1, sim, ov, e, cause_a, at_ms);
	(void)emit(e, SCENARIO_EV_END, SCENARIO_CAUSE_RESTORE, at_ms,
		   cause_a ? cause_a->line : 0, -1);
	run->finished = true;
}

/* The first thing due by now_ms, if any. */
static bool
next_item(const struct scenario_run *run, uint64_t now_ms, struct item *it)
{
	const struct scenario *sc = run->sc;
	bool found = false;

	if (run->finished)
		return false;
	/* Ends of `for`s and ramps before actions at the same time: a
	 * `for 1s` from 0 s is over when the next second begins. */
	for (size_t i = 0; i < run->nactive; i++) {
		const struct scenario_active *r = &run->active[i];
		if (!r->pending || r->due_ms > now_ms)
			continue;
		if (!found || r->due_ms < it->at_ms ||
		    (r->due_ms == it->at_ms &&
		     r->action < run->active[it->index].action)) {
			*it = (struct item){ ITEM_DUE, r->due_ms, i };
			found = true;
		}
	}
	if (run->next < sc->count) {
		uint64_t at = sc->actions[run->next].at_ms;
		if (at <= now_ms && (!found || at < it->at_ms)) {
			*it = (struct item){ ITEM_ACTION, at, run->next };
			found = true;
		}
	}
	if (!found && run->next == sc->count && sc->end_ms <= now_ms) {
		*it = (struct item){ ITEM_AUTO_END, sc->end_ms, 0 };
		found = true;
	}
	return found;
}

static size_t
item_need(const struct scenario_run *run, const struct item *it)
{
	if (it->kind == ITEM_ACTION) {
		enum scenario_op op = run->sc->actions[it->index].op;
		if (op == SCENARIO_OP_CLEAR || op == SCENARIO_OP_RESTORE ||
		    op == SCENARIO_OP_END)
			return restore_need();
		return 1;
	}
	return it->kind == ITEM_DUE ? 1 : restore_need();
}

static void
start_action(struct scenario_run *run, const struct scenario_action *a,
	     struct baro_sitl *sim, struct fault_overlay *ov,
	     struct emitter *e)
{
	switch (a->op) {
	case SCENARIO_OP_CLEAR:
		restore(run, a->instance, sim, ov, e, a, a->at_ms);
		return;
	case SCENARIO_OP_RESTORE:
		restore(run, -1, sim, ov, e, a, a->at_ms);
		return;
	case SCENARIO_OP_END:
		end_run(run, sim, ov, e, a, a->at_ms);
		return;
	case SCENARIO_OP_AUX:
		/* Not the emulator's: baro-replay applies it to its other
		 * sensors (the load-time checks refuse it elsewhere). */
		return;
	case SCENARIO_OP_SET:
	case SCENARIO_OP_RAMP:
	case SCENARIO_OP_FAULT:
		break;
	}
	run->active[run->nactive++] = (struct scenario_active){
		.action = (uint16_t)(a - run->sc->actions),
		.pending = a->dur_ms > 0,
		.due_ms = a->at_ms + a->dur_ms,
	};
	settle(run, target_of(a), sim, ov, e,
	       a->op == SCENARIO_OP_RAMP ? SCENARIO_CAUSE_RAMP_START
					 : SCENARIO_CAUSE_START,
	       a, a->at_ms, false);
}

static void
do_item(struct scenario_run *run, const struct item *it, struct baro_sitl *sim,
	struct fault_overlay *ov, struct emitter *e)
{
	const struct scenario *sc = run->sc;

	switch (it->kind) {
	case ITEM_ACTION:
		run->next++;
		start_action(run, &sc->actions[it->index], sim, ov, e);
		return;
	case ITEM_AUTO_END:
		end_run(run, sim, ov, e, NULL, it->at_ms);
		return;
	case ITEM_DUE:
		break;
	}

	struct scenario_active *r = &run->active[it->index];
	const struct scenario_action *a = action_of(run, r);
	enum scenario_cause cause = SCENARIO_CAUSE_EXPIRY;
	/* A finished ramp stays in force at its end value; a `for` is
	 * over and leaves. */
	if (a->op == SCENARIO_OP_RAMP) {
		r->pending = false;
		cause = SCENARIO_CAUSE_RAMP_END;
	} else {
		remove_active(run, it->index);
	}
	settle(run, target_of(a), sim, ov, e, cause, a, it->at_ms, false);
}

/* Running ramps that are the newest action on their parameter follow
 * the clock; no event, they announced themselves when they began. */
static void
follow_ramps(const struct scenario_run *run, struct baro_sitl *sim,
	     uint64_t now_ms)
{
	for (size_t i = 0; i < run->nactive; i++) {
		const struct scenario_active *r = &run->active[i];
		const struct scenario_action *a = action_of(run, r);
		if (a->op != SCENARIO_OP_RAMP || !r->pending ||
		    top_of(run, target_of(a)) != r)
			continue;
		(void)sim_param_set(&sim->params, (size_t)a->param,
				    value_at(a, now_ms));
	}
}

void
scenario_run_init(struct scenario_run *run, const struct scenario *sc,
		  const struct baro_sitl *sim, uint32_t sim_start_ms)
{
	memset(run, 0, offsetof(struct scenario_run, active));
	run->sc = sc;
	run->start = sim->params;
	run->sim_start_ms = sim_start_ms;
}

int
scenario_step(struct scenario_run *run, uint64_t now_ms, struct baro_sitl *sim,
	      struct fault_overlay *ov, struct scenario_event *events,
	      size_t max_events)
{
	struct emitter e = { events, max_events, 0, now_ms };
	/* next_item() fills it before use; the initialiser only quiets
	 * GCC's -O3 maybe-uninitialized, which cannot see that. */
	struct item it = { 0 };

	if (max_events < SCENARIO_EVENTS_MIN || max_events < restore_need())
		return -ENOBUFS;
	if (now_ms < run->now_ms)
		return -EINVAL;
	run->now_ms = now_ms;

	while (next_item(run, now_ms, &it)) {
		if (e.max - e.n < item_need(run, &it))
			return (int)e.n;
		do_item(run, &it, sim, ov, &e);
	}
	if (!run->finished)
		follow_ramps(run, sim, now_ms);
	return (int)e.n;
}

bool
scenario_run_due(const struct scenario_run *run, uint64_t now_ms)
{
	struct item it;

	return next_item(run, now_ms, &it);
}

bool
scenario_run_finished(const struct scenario_run *run)
{
	return run->finished;
}

int
scenario_run_stop(struct scenario_run *run, uint64_t now_ms,
		  struct baro_sitl *sim, struct fault_overlay *ov,
		  struct scenario_event *events, size_t max_events)
{
	struct emitter e = { events, max_events, 0, now_ms };

	if (max_events < SCENARIO_EVENTS_MIN || max_events < restore_need())
		return -ENOBUFS;
	if (now_ms < run->now_ms)
		return -EINVAL;
	if (run->finished)
		return 0;
	run->now_ms = now_ms;
	end_run(run, sim, ov, &e, NULL, now_ms);
	return (int)e.n;
}

int
scenario_format_ms(uint64_t ms, char *buf, size_t len)
{
	if (ms % 1000u == 0)
		return snprintf(buf, len, "%" PRIu64 "s", ms / 1000u);
	if (ms < 1000u)
		return snprintf(buf, len, "%" PRIu64 "ms", ms);

	char frac[8];
	snprintf(frac, sizeof(frac), "%03u", (unsigned)(ms % 1000u));
	for (size_t n = strlen(frac); n > 0 && frac[n - 1] == '0'; n--)
		frac[n - 1] = '\0';
	return snprintf(buf, len, "%" PRIu64 ".%ss", ms / 1000u, frac);
}

/* What the change was, then why it happened. */
static int
format_change(const struct scenario_event *ev, char *buf, size_t len)
{
	if (ev->kind == SCENARIO_EV_PARAM)
		return snprintf(buf, len, "%s %g -> %g",
				sim_param_info((size_t)ev->param)->name,
				ev->old_value, ev->new_value);

	char from[32], to[32];
	fault_spec_format(ev->old_fault, from, sizeof(from));
	fault_spec_format(ev->new_fault, to, sizeof(to));
	return snprintf(buf, len, "baro %d fault %s -> %s", ev->instance, from,
			to);
}

int
scenario_event_format(const struct scenario_event *ev, char *buf, size_t len)
{
	char change[96], dur[32];

	switch (ev->kind) {
	case SCENARIO_EV_RESTORE:
		if (ev->instance >= 0)
			return snprintf(buf, len, "baro %d back to its start "
						  "(px4 ok)", ev->instance);
		return snprintf(buf, len, "restore: start values, drift reset");
	case SCENARIO_EV_END:
		return snprintf(buf, len, "scenario over");
	case SCENARIO_EV_PARAM:
	case SCENARIO_EV_FAULT:
		break;
	}

	format_change(ev, change, sizeof(change));
	scenario_format_ms(ev->duration_ms, dur, sizeof(dur));
	switch (ev->cause) {
	case SCENARIO_CAUSE_START:
		if (ev->duration_ms > 0)
			return snprintf(buf, len, "%s for %s", change, dur);
		break;
	case SCENARIO_CAUSE_RAMP_START:
		return snprintf(buf, len, "%s, ramp to %g over %s", change,
				ev->ramp_to, dur);
	case SCENARIO_CAUSE_RAMP_END:
		return snprintf(buf, len, "%s, ramp done", change);
	case SCENARIO_CAUSE_EXPIRY:
		return snprintf(buf, len, "%s, end of line %u", change,
				ev->line);
	case SCENARIO_CAUSE_RESTORE:
		break;
	}
	return snprintf(buf, len, "%s", change);
}

/* The table index of SIM_BARO_COUNT, found by its field. */
static int
count_param(void)
{
	for (size_t i = 0; i < sim_param_count(); i++) {
		if (sim_param_info(i)->offset ==
		    offsetof(struct sim_params, baro_count))
			return (int)i;
	}
	return -1;
}

/* The first fault on another sensor, refused with the reason: nothing
 * but baro-replay has such a sensor to fault. */
static int
refuse_aux(const struct scenario *sc, const char *name, char *err,
	   size_t errlen)
{
	for (size_t i = 0; i < sc->count; i++) {
		const struct scenario_action *a = &sc->actions[i];
		if (a->op == SCENARIO_OP_AUX)
			return str_errorf(err, errlen, -EINVAL,
					  "%s:%u: '%s' faults the %s: "
					  "baro-replay only (barod and "
					  "baro-sim have baros alone)",
					  name, a->line,
					  scenario_aux_name(a->aux),
					  scenario_aux_sensor(a->aux));
	}
	return 0;
}

int
scenario_check(const struct scenario *sc, const char *name,
	       const struct sim_params *params,
	       enum baro_sitl_atmosphere atmosphere, double home_m, char *err,
	       size_t errlen)
{
	const int count_idx = count_param();
	int count = params->baro_count;
	char why[256];

	if (refuse_aux(sc, name, err, errlen) < 0)
		return -EINVAL;

	/* A scenario may add a baro before it faults it: the most it ever
	 * asks for counts, wherever in the file. */
	for (size_t i = 0; i < sc->count; i++) {
		const struct scenario_action *a = &sc->actions[i];
		if ((a->op == SCENARIO_OP_SET || a->op == SCENARIO_OP_RAMP) &&
		    a->param == count_idx) {
			double most = a->op == SCENARIO_OP_RAMP && a->to > a->value
					      ? a->to
					      : a->value;
			if (most > count)
				count = (int)most;
		}
	}
	for (size_t i = 0; i < sc->count; i++) {
		const struct scenario_action *a = &sc->actions[i];
		int inst = a->instance;
		if (a->op == SCENARIO_OP_SET || a->op == SCENARIO_OP_RAMP)
			inst = sim_param_instance((size_t)a->param);
		if ((a->op == SCENARIO_OP_SET || a->op == SCENARIO_OP_FAULT ||
		     a->op == SCENARIO_OP_CLEAR || a->op == SCENARIO_OP_RAMP) &&
		    inst >= count)
			return str_errorf(err, errlen, -EINVAL,
					  "%s:%u: baro instance %d does not "
					  "exist (SIM_BARO_COUNT is %d): this "
					  "line could not act", name, a->line,
					  inst, count);
		if (a->op != SCENARIO_OP_SET && a->op != SCENARIO_OP_RAMP)
			continue;
		/* A ramp passes only between its ends, and the domain is
		 * an interval: its ends are enough. */
		if (baro_sitl_param_check(atmosphere, home_m, (size_t)a->param,
					  a->value, why, sizeof(why)) < 0 ||
		    (a->op == SCENARIO_OP_RAMP &&
		     baro_sitl_param_check(atmosphere, home_m,
					   (size_t)a->param, a->to, why,
					   sizeof(why)) < 0))
			return str_errorf(err, errlen, -EINVAL, "%s:%u: %s",
					  name, a->line, why);
	}
	return 0;
}

const struct scenario_action *
scenario_release_misfit(const struct scenario *sc, enum baro_sitl_ardupilot v,
			char *why, size_t whylen)
{
	for (size_t i = 0; i < sc->count; i++) {
		const struct scenario_action *a = &sc->actions[i];
		if ((a->op != SCENARIO_OP_SET && a->op != SCENARIO_OP_RAMP) ||
		    a->param < 0)
			continue;
		const size_t idx = (size_t)a->param;
		if (baro_sitl_ardupilot_param_check(v, idx, a->value, why,
						    whylen) < 0 ||
		    (a->op == SCENARIO_OP_RAMP &&
		     baro_sitl_ardupilot_param_check(v, idx, a->to, why,
						     whylen) < 0))
			return a;
	}
	return NULL;
}

int
scenario_check_release(const struct scenario *sc, const char *name,
		       enum baro_sitl_ardupilot v, char *err, size_t errlen)
{
	char why[200];
	const struct scenario_action *a =
		scenario_release_misfit(sc, v, why, sizeof(why));

	if (a)
		return str_errorf(err, errlen, -EINVAL, "%s:%u: %s", name,
				  a->line, why);
	return 0;
}

/* Why action a cannot act on real readings, into err. */
static int
refuse_hw(const struct scenario_action *a, const char *name, char *err,
	  size_t errlen)
{
	char what[96];

	if (a->hw_needs)
		snprintf(what, sizeof(what), "'%s'", a->hw_needs);
	else
		snprintf(what, sizeof(what), "'%s %s'",
			 a->op == SCENARIO_OP_RAMP ? "ramp" : "set",
			 sim_param_info((size_t)a->param)->name);
	return str_errorf(err, errlen, -EINVAL,
			  "%s:%u: %s needs the emulator (hardware mode reads "
			  "real sensors)%s%s", name, a->line, what,
			  a->hw_hint ? "; " : "", a->hw_hint ? a->hw_hint : "");
}

int
scenario_hardware(struct scenario *sc, const char *name, unsigned instances,
		  char *err, size_t errlen)
{
	if (refuse_aux(sc, name, err, errlen) < 0)
		return -EINVAL;
	for (size_t i = 0; i < sc->count; i++) {
		struct scenario_action *a = &sc->actions[i];

		switch (a->op) {
		case SCENARIO_OP_AUX:
		case SCENARIO_OP_RESTORE:
		case SCENARIO_OP_END:
			continue;
		case SCENARIO_OP_FAULT:
		case SCENARIO_OP_CLEAR:
			break;
		case SCENARIO_OP_SET:
		case SCENARIO_OP_RAMP:
			if (a->op == SCENARIO_OP_RAMP ||
			    a->hw.kind == FAULT_NONE)
				return refuse_hw(a, name, err, errlen);
			/* The emulator's parameter may go further than the
			 * overlay's kind: its range is faults.c's row. */
			const struct fault_kind_info *k =
				fault_kind_info(a->hw.kind);
			const double v = fault_spec_value(a->hw);
			if (k && k->value != FAULT_VALUE_NONE &&
			    !(v >= k->min && v <= k->max))
				return str_errorf(err, errlen, -EINVAL,
						  "%s:%u: %g%s: hardware mode's "
						  "overlay fault '%s' takes %g "
						  "to %g%s", name, a->line, v,
						  k->unit, k->name, k->min,
						  k->max, k->unit);
			a->op = SCENARIO_OP_FAULT;
			a->instance = sim_param_instance((size_t)a->param);
			a->fault = a->hw;
			a->param = -1;
			a->value = 0.0;
			break;
		}
		if (a->instance < 0 || a->instance >= BARO_MAX_INSTANCES ||
		    !(instances & (1u << a->instance)))
			return str_errorf(err, errlen, -EINVAL,
					  "%s:%u: baro instance %d has no "
					  "[sensor] in this configuration: "
					  "this line could not act", name,
					  a->line, a->instance);
	}
	return 0;
}
