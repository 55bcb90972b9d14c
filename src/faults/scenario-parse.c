/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Scenario text -> struct scenario.  Every line is checked completely:
 * a line is either an action, blank, or a comment, or the file is
 * rejected with NAME:LINE and the reason.  The grammar is in
 * doc/scenario.md.
 */
#include "scenario.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "px4-failure.h"
#include "util-strings.h"

/* The longest line has fewer words than this. */
#define MAX_WORDS 12

struct parser {
	struct scenario *sc;
	const char *name;
	unsigned line;
	unsigned end_line;	/* the `end` line, 0 before one */
	uint64_t length_ms;	/* the recording's, SCENARIO_LENGTH_NONE */
	char *err;
	size_t errlen;
};

static int
fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = str_line_verrorf(p->err, p->errlen, -EINVAL, p->name,
				  p->line, fmt, ap);
	va_end(ap);
	return rc;
}

/*
 * A time or duration: a plain decimal number and a unit (ms, s or min),
 * with no blank between, that comes to whole milliseconds.  what names it
 * in messages ("time", "'for' duration").
 */
static int
parse_ms(struct parser *p, const char *word, const char *what, uint64_t *out)
{
	static const struct {
		const char *unit;
		double ms;
	} units[] = { { "ms", 1.0 }, { "s", 1000.0 }, { "min", 60000.0 } };
	char num[32];
	size_t n = strspn(word, "0123456789.");

	if (n == 0 || n >= sizeof(num))
		return fail(p, "%s '%s' is not a number with a unit such as "
			       "30s or 1500ms", what, word);
	memcpy(num, word, n);
	num[n] = '\0';
	const char *unit = word + n;
	double scale = 0.0;
	for (size_t k = 0; k < sizeof(units) / sizeof(units[0]); k++) {
		if (strcmp(unit, units[k].unit) == 0)
			scale = units[k].ms;
	}
	if (unit[0] == '\0')
		return fail(p, "%s '%s' needs a unit: ms, s or min", what,
			    word);
	if (strcmp(unit, "%") == 0)
		return fail(p, "%s '%s': a percentage is not allowed here",
			    what, word);
	if (scale == 0.0)
		return fail(p, "%s '%s': unknown unit '%s' (use ms, s or min)",
			    what, word, unit);

	double v;
	if (str_to_double(num, &v) < 0)
		return fail(p, "%s '%s' is not a number with a unit such as "
			       "30s or 1500ms", what, word);
	double ms = v * scale;
	if (!(ms <= (double)SCENARIO_MAX_MS))
		return fail(p, "%s '%s' is more than 1000000000s", what, word);
	double whole = nearbyint(ms);
	/* Decimal fractions of a second are not exact in binary, so "0.3s"
	 * lands a few ulps off 300 ms; anything further off is a fraction. */
	if (fabs(ms - whole) > 4.0 * DBL_EPSILON * whole)
		return fail(p, "%s '%s' is not a whole number of milliseconds",
			    what, word);
	*out = (uint64_t)whole;
	return 0;
}

/*
 * parse_ms(), or a time relative to the recording: "40%" of its length
 * (to the nearest millisecond), "end", or "end-10s" before its end.
 * Only a caller that knows the length (baro-replay) accepts these.
 */
static int
parse_time(struct parser *p, const char *word, const char *what,
	   bool from_end, uint64_t *out)
{
	size_t n = strspn(word, "0123456789.");
	bool pct = n > 0 && strcmp(word + n, "%") == 0;
	bool end = from_end && strncmp(word, "end", 3) == 0 &&
		   (word[3] == '\0' || word[3] == '-');

	if (!pct && !end)
		return parse_ms(p, word, what, out);
	p->sc->relative = true;
	if (p->length_ms == SCENARIO_LENGTH_NONE)
		return fail(p, "%s '%s' is relative to a recording's length: "
			       "only baro-replay can place it", what, word);
	char len[32];
	scenario_format_ms(p->length_ms, len, sizeof(len));
	if (end) {
		uint64_t before = 0;
		if (word[3] == '-' && parse_ms(p, word + 4, what, &before) < 0)
			return -EINVAL;
		if (before > p->length_ms)
			return fail(p, "%s '%s' is before the start of this "
				       "%s recording", what, word, len);
		*out = p->length_ms - before;
		return 0;
	}
	char num[32];
	double v;
	if (n >= sizeof(num))
		return fail(p, "%s '%s' is not a percentage such as 40%%",
			    what, word);
	memcpy(num, word, n);
	num[n] = '\0';
	if (str_to_double(num, &v) < 0 || !(v <= 100.0))
		return fail(p, "%s '%s' is not a percentage from 0%% to 100%%",
			    what, word);
	*out = (uint64_t)nearbyint((double)p->length_ms * v / 100.0);
	return 0;
}

static int
parse_duration(struct parser *p, const char *word, const char *what,
	       uint64_t *out)
{
	int rc = parse_time(p, word, what, false, out);

	if (rc == 0 && *out == 0)
		return fail(p, "%s '%s' must be more than 0", what, word);
	return rc;
}

static int
parse_instance(struct parser *p, const char *word, int *out)
{
	if (strlen(word) != 1 || word[0] < '0' ||
	    word[0] >= '0' + BARO_MAX_INSTANCES)
		return fail(p, "instance '%s' is not 0, 1 or 2", word);
	*out = word[0] - '0';
	return 0;
}

/* Index of the parameter stored at offset in struct sim_params. */
static int
param_at(size_t offset)
{
	for (size_t i = 0; i < sim_param_count(); i++) {
		if (sim_param_info(i)->offset == offset)
			return (int)i;
	}
	return -ENOENT;
}

/* The parameter for field (an offset in struct sim_baro_params) of one
 * instance: found through the table, so no name is spelled out here. */
static int
instance_param(int instance, size_t field)
{
	return param_at(offsetof(struct sim_params, baro) +
			(size_t)instance * sizeof(struct sim_baro_params) +
			field);
}

static int
find_param(struct parser *p, const char *name, int *idx)
{
	*idx = sim_param_find(name);
	if (*idx < 0)
		return fail(p, "unknown parameter '%s' (did you mean %s?)",
			    name, sim_param_closest(name));
	return 0;
}

/* A value for parameter idx, checked and rounded by the table exactly as
 * -p NAME=VALUE is, so the messages are the same too. */
static int
param_value(struct parser *p, int idx, const char *text, double *out)
{
	struct sim_params scratch;
	char assign[SCENARIO_MAX_LINE + 32];
	char why[256];

	sim_params_defaults(&scratch);
	snprintf(assign, sizeof(assign), "%s=%s",
		 sim_param_info((size_t)idx)->name, text);
	if (sim_param_assign(&scratch, assign, why, sizeof(why)) < 0)
		return fail(p, "%s", why);
	*out = sim_param_get(&scratch, (size_t)idx);
	return 0;
}

static int
delay_in_range(struct parser *p, double ms)
{
	if (ms < 0.0 || ms > SCENARIO_DELAY_MAX_MS)
		return fail(p, "delay %g ms is outside 0..%d ms, what the "
			       "emulator's 50 x 10 ms buffer can delay (`set "
			       "SIM_BARx_DELAY` takes ArduPilot's raw values)",
			    ms, SCENARIO_DELAY_MAX_MS);
	return 0;
}

static int
parse_set(struct parser *p, char **w, int n, struct scenario_action *a)
{
	if (n != 2)
		return fail(p, "expected 'set NAME VALUE [for DURATION]'");
	if (find_param(p, w[0], &a->param) < 0)
		return -EINVAL;
	a->op = SCENARIO_OP_SET;
	return param_value(p, a->param, w[1], &a->value);
}

static int
parse_ramp(struct parser *p, char **w, int n, struct scenario_action *a)
{
	if (n != 6 || strcmp(w[2], "to") != 0 || strcmp(w[4], "over") != 0)
		return fail(p, "expected 'ramp NAME FROM to TO over DURATION'");
	if (find_param(p, w[0], &a->param) < 0)
		return -EINVAL;
	const struct sim_param_info *info = sim_param_info((size_t)a->param);
	if (info->type != SIM_PARAM_FLOAT)
		return fail(p, "ramp needs a float parameter; %s is %s",
			    info->name, sim_param_type_name(info->type));
	a->op = SCENARIO_OP_RAMP;
	if (param_value(p, a->param, w[1], &a->value) < 0 ||
	    param_value(p, a->param, w[3], &a->to) < 0)
		return -EINVAL;
	return parse_duration(p, w[5], "ramp duration", &a->dur_ms);
}

/* The instance verbs (scenario.h's struct scenario_verb): one row each
 * drives the parse, the hardware form and every list of the verbs. */
static const struct scenario_verb verbs[] = {
	{ .verb = "freeze", .usage = "freeze INSTANCE", .fixed = 1.0,
	  .field = offsetof(struct sim_baro_params, freeze),
	  .hw_hint = "'px4 stuck INSTANCE' holds real readings" },
	{ .verb = "disable", .usage = "disable INSTANCE", .fixed = 1.0,
	  .field = offsetof(struct sim_baro_params, disable),
	  .hw = FAULT_OFF },
	{ .verb = "glitch", .usage = "glitch INSTANCE METRES",
	  .takes_value = true,
	  .field = offsetof(struct sim_baro_params, glitch),
	  .hw = FAULT_WRONG },
	{ .verb = "drift", .usage = "drift INSTANCE M_PER_S",
	  .takes_value = true,
	  .field = offsetof(struct sim_baro_params, drift) },
	{ .verb = "delay", .usage = "delay INSTANCE MS", .takes_value = true,
	  .field = offsetof(struct sim_baro_params, delay),
	  .hw_hint = "'px4 delayed INSTANCE MS' delays real readings" },
	{ .verb = "noise", .usage = "noise INSTANCE METRES",
	  .takes_value = true,
	  .field = offsetof(struct sim_baro_params, rnd) },
};

#define N_VERBS (sizeof(verbs) / sizeof(verbs[0]))

/* The hardware form of a SET by a verb or px4 type: kind with the
 * value the line set. */
static void
set_hw(struct scenario_action *a, enum fault_kind kind)
{
	a->hw = fault_spec_make(kind, a->value);
}

/* SET of one instance's field to text, or to fixed when text is NULL. */
static int
set_field(struct parser *p, int instance, size_t field, const char *text,
	  double fixed, struct scenario_action *a)
{
	a->op = SCENARIO_OP_SET;
	a->param = instance_param(instance, field);
	if (a->param < 0)
		return fail(p, "internal error: no parameter for the field");
	if (!text) {
		a->value = fixed;
		return 0;
	}
	if (param_value(p, a->param, text, &a->value) < 0)
		return -EINVAL;
	if (field == offsetof(struct sim_baro_params, delay))
		return delay_in_range(p, a->value);
	return 0;
}

/*
 * An overlay fault of kind on the action's instance, its value text (or
 * def without one) checked against the overlay's own table (faults.c's
 * row), so the range is written once; who names the line's words in the
 * message ("px4 slow").  An overlay verb and a PX4 type on the overlay
 * both end here.
 */
static int
overlay_fault(struct parser *p, const char *who, enum fault_kind kind,
	      const char *text, double def, struct scenario_action *a)
{
	const struct fault_kind_info *k = fault_kind_info(kind);
	double v = def;

	if (!k)
		return fail(p, "internal error: %s has no fault kind", who);
	if (text && k->value != FAULT_VALUE_NONE) {
		/* Whole when the kind's field is (counts, milliseconds): a
		 * fraction would be cut silently. */
		const bool whole =
			fault_spec_value(fault_spec_make(kind, 0.5)) != 0.5;
		if (str_to_double(text, &v) < 0 || !(v >= k->min) ||
		    !(v <= k->max) || (whole && v != trunc(v)))
			return fail(p, "%s: '%s' is not %s from %g to %g%s", who,
				    text,
				    k->value == FAULT_VALUE_EVERY
					    ? "a whole number of samples"
					    : whole ? "a whole number"
						    : "a number",
				    k->min, k->max, k->unit);
	}
	a->op = SCENARIO_OP_FAULT;
	a->fault = fault_spec_make(kind, v);
	return 0;
}

static int
parse_verb(struct parser *p, size_t v, char **w, int n,
	   struct scenario_action *a)
{
	int inst = 0;

	if (n != (verbs[v].takes_value ? 2 : 1))
		return fail(p, "expected '%s [for DURATION]'", verbs[v].usage);
	if (parse_instance(p, w[0], &inst) < 0)
		return -EINVAL;
	if (verbs[v].overlay != FAULT_NONE) {
		a->instance = inst;
		return overlay_fault(p, verbs[v].verb, verbs[v].overlay,
				     verbs[v].takes_value ? w[1] : NULL,
				     verbs[v].fixed, a);
	}
	if (set_field(p, inst, verbs[v].field,
		      verbs[v].takes_value ? w[1] : NULL, verbs[v].fixed, a) < 0)
		return -EINVAL;
	set_hw(a, verbs[v].hw);
	a->hw_needs = verbs[v].verb;
	a->hw_hint = verbs[v].hw_hint;
	return 0;
}

/*
 * PX4's failure types (px4-failure.h): each mapped onto the emulator's
 * parameter where ArduPilot has one with PX4's meaning and onto the fault
 * overlay otherwise; by name or by MAVLink's number.
 */
static int
px4_type(struct parser *p, const char *word, unsigned *out)
{
	int t = px4_failure_by_name(word);
	char names[128];

	if (t >= 0) {
		*out = (unsigned)t;
		return 0;
	}
	if (strlen(word) == 1 && word[0] >= '0' &&
	    word[0] < '0' + PX4_FAILURE_TYPES) {
		*out = (unsigned)(word[0] - '0');
		return 0;
	}
	px4_failure_names(names, sizeof(names), ", ");
	return fail(p, "unknown px4 failure type '%s' (use %s or 0-%d)", word,
		    names, PX4_FAILURE_TYPES - 1);
}

static int
parse_px4(struct parser *p, char **w, int n, bool has_for,
	  struct scenario_action *a)
{
	unsigned t = 0;

	if (n < 2 || n > 3)
		return fail(p, "expected 'px4 TYPE INSTANCE [VALUE] "
			       "[for DURATION]'");
	if (px4_type(p, w[0], &t) < 0 ||
	    parse_instance(p, w[1], &a->instance) < 0)
		return -EINVAL;
	const struct px4_failure *px4 = px4_failure_of(t);
	const char *value = n == 3 ? w[2] : NULL;
	if (value && !px4->takes_value)
		return fail(p, "px4 %s takes no value ('%s')", px4->name, value);

	switch (px4->how) {
	case PX4_HOW_CLEAR:
		if (has_for)
			return fail(p, "px4 %s takes no 'for': it ends the "
				       "instance's faults", px4->name);
		a->op = SCENARIO_OP_CLEAR;
		return 0;
	case PX4_HOW_PARAM: {
		int inst = a->instance;
		a->instance = -1;
		if (set_field(p, inst, px4->field, value, px4->def, a) < 0)
			return -EINVAL;
		set_hw(a, px4->fault);
		return 0;
	}
	case PX4_HOW_FAULT:
		break;
	}

	char who[32];
	snprintf(who, sizeof(who), "px4 %s", px4->name);
	return overlay_fault(p, who, px4->fault, value, px4->def, a);
}

/*
 * Faults on the sensors beside the baros (baro-replay only): `SENSOR
 * FAULT [VALUE]`.  The one table of their words, units and ranges; what
 * each does is replay's (src/replay/aux-faults.c).
 */
static const struct {
	const char *sensor;	/* the first word */
	const char *fault;	/* the second */
	const char *name;	/* both, for messages and reports */
	const char *what;	/* the sensor, in words */
	enum scenario_aux kind;
	const char *value;	/* NULL: takes none; else its usage word */
	const char *unit;
	double min, max;
} aux_verbs[] = {
	{ "gps", "offset", "gps offset", "GPS", SCENARIO_AUX_GPS_OFFSET,
	  "METRES", "m", -10000.0, 10000.0 },
	{ "gps", "drift", "gps drift", "GPS", SCENARIO_AUX_GPS_DRIFT,
	  "M_PER_S", "m/s", -100.0, 100.0 },
	{ "gps", "freeze", "gps freeze", "GPS", SCENARIO_AUX_GPS_FREEZE,
	  NULL, NULL, 0.0, 0.0 },
	{ "gps", "lost", "gps lost", "GPS", SCENARIO_AUX_GPS_LOST, NULL,
	  NULL, 0.0, 0.0 },
	/* An accelerometer's range is 16 g (157 m/s^2) at most. */
	{ "accel", "bias", "accel bias", "accelerometer",
	  SCENARIO_AUX_ACCEL_BIAS, "M_PER_S2", "m/s^2", -160.0, 160.0 },
	{ "accel", "noise", "accel noise", "accelerometer",
	  SCENARIO_AUX_ACCEL_NOISE, "SD", "m/s^2", 0.0, 160.0 },
};

#define N_AUX_VERBS (sizeof(aux_verbs) / sizeof(aux_verbs[0]))

static size_t
aux_row(int aux)
{
	for (size_t i = 0; i < N_AUX_VERBS; i++)
		if ((int)aux_verbs[i].kind == aux)
			return i;
	return N_AUX_VERBS;
}

const char *
scenario_aux_name(int aux)
{
	size_t i = aux_row(aux);
	return i < N_AUX_VERBS ? aux_verbs[i].name : "?";
}

const char *
scenario_aux_sensor(int aux)
{
	size_t i = aux_row(aux);
	return i < N_AUX_VERBS ? aux_verbs[i].what : "?";
}

static bool
is_aux_sensor(const char *word)
{
	for (size_t i = 0; i < N_AUX_VERBS; i++)
		if (strcmp(word, aux_verbs[i].sensor) == 0)
			return true;
	return false;
}

/* "offset, drift, freeze or lost": the faults of sensor, into buf. */
static void
aux_faults_of(const char *sensor, char *buf, size_t len)
{
	size_t k = 0, n = 0, at = 0;
	for (size_t i = 0; i < N_AUX_VERBS; i++)
		n += strcmp(aux_verbs[i].sensor, sensor) == 0;
	buf[0] = '\0';
	for (size_t i = 0; i < N_AUX_VERBS && at < len; i++) {
		if (strcmp(aux_verbs[i].sensor, sensor) != 0)
			continue;
		k++;
		int w = snprintf(buf + at, len - at, "%s%s",
				 k == 1 ? "" : k == n ? " or " : ", ",
				 aux_verbs[i].fault);
		if (w < 0)
			return;
		at += (size_t)w;
	}
}

/* `gps drift 0.2`: sensor is w[-1], the fault and its value w[0..n). */
static int
parse_aux(struct parser *p, const char *sensor, char **w, int n,
	  struct scenario_action *a)
{
	size_t i = 0;
	char list[96];

	while (i < N_AUX_VERBS &&
	       (strcmp(aux_verbs[i].sensor, sensor) != 0 || n < 1 ||
		strcmp(aux_verbs[i].fault, w[0]) != 0))
		i++;
	if (i == N_AUX_VERBS) {
		aux_faults_of(sensor, list, sizeof(list));
		if (n < 1)
			return fail(p, "'%s' needs a fault: %s", sensor, list);
		return fail(p, "unknown %s fault '%s' (use %s)", sensor, w[0],
			    list);
	}
	const char *v = aux_verbs[i].value;
	if (n != (v ? 2 : 1))
		return fail(p, "expected '%s%s%s [for DURATION]'",
			    aux_verbs[i].name, v ? " " : "", v ? v : "");
	a->op = SCENARIO_OP_AUX;
	a->aux = (int)aux_verbs[i].kind;
	a->value = 0.0;
	if (!v)
		return 0;
	if (str_to_double(w[1], &a->value) < 0 || !isfinite(a->value))
		return fail(p, "%s: '%s' is not a number", aux_verbs[i].name,
			    w[1]);
	if (a->value < aux_verbs[i].min || a->value > aux_verbs[i].max)
		return fail(p, "%s: %g is outside %g..%g %s",
			    aux_verbs[i].name, a->value, aux_verbs[i].min,
			    aux_verbs[i].max, aux_verbs[i].unit);
	return 0;
}

const struct scenario_verb *
scenario_verb(size_t i)
{
	return i < N_VERBS ? &verbs[i] : NULL;
}

const char *
scenario_action_word(size_t i)
{
	if (i < 2)
		return i == 0 ? "set" : "ramp";
	i -= 2;
	if (i < N_VERBS)
		return verbs[i].verb;
	i -= N_VERBS;
	if (i == 0)
		return "px4";
	i--;
	/* The other sensors' first words, each once. */
	for (size_t k = 0; k < N_AUX_VERBS; k++) {
		bool seen = false;
		for (size_t j = 0; j < k; j++)
			seen |= strcmp(aux_verbs[j].sensor,
				       aux_verbs[k].sensor) == 0;
		if (seen)
			continue;
		if (i == 0)
			return aux_verbs[k].sensor;
		i--;
	}
	if (i < 2)
		return i == 0 ? "restore" : "end";
	return NULL;
}

/* "set, ramp, freeze, ..., restore or end": every action word, from the
 * tables that define them, in the order the parser tries them. */
static void
action_words(char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; scenario_action_word(i) && at < len; i++) {
		const char *sep = i == 0 ? ""
				  : scenario_action_word(i + 1) ? ", "
								: " or ";
		at += (size_t)snprintf(buf + at, len - at, "%s%s", sep,
				       scenario_action_word(i));
	}
}

static int
parse_action(struct parser *p, char **w, int n, bool has_for,
	     struct scenario_action *a)
{
	const char *verb = w[0];

	w++;
	n--;
	if (strcmp(verb, "set") == 0)
		return parse_set(p, w, n, a);
	if (strcmp(verb, "ramp") == 0) {
		if (has_for)
			return fail(p, "ramp takes no 'for': it holds its end "
				       "value until a restore or the end");
		return parse_ramp(p, w, n, a);
	}
	if (strcmp(verb, "px4") == 0)
		return parse_px4(p, w, n, has_for, a);
	for (size_t v = 0; v < N_VERBS; v++) {
		if (strcmp(verb, verbs[v].verb) == 0)
			return parse_verb(p, v, w, n, a);
	}
	if (strcmp(verb, "restore") == 0 || strcmp(verb, "end") == 0) {
		if (n > 0)
			return fail(p, "unexpected '%s' after '%s'", w[0],
				    verb);
		if (has_for)
			return fail(p, "%s takes no 'for'", verb);
		a->op = verb[0] == 'r' ? SCENARIO_OP_RESTORE : SCENARIO_OP_END;
		return 0;
	}
	if (is_aux_sensor(verb))
		return parse_aux(p, verb, w, n, a);
	char all[256];
	action_words(all, sizeof(all));
	return fail(p, "unknown action '%s' (use %s)", verb, all);
}

/* Split on blanks in place, dropping a '#' comment; -1 if too many. */
static int
split_words(char *line, char **w, int max)
{
	char *hash = strchr(line, '#');
	int n = 0;

	if (hash)
		*hash = '\0';
	for (char *s = line;;) {
		s += strspn(s, " \t\r\f\v");
		if (*s == '\0')
			return n;
		if (n == max)
			return -1;
		w[n++] = s;
		s += strcspn(s, " \t\r\f\v");
		if (*s != '\0')
			*s++ = '\0';
	}
}

static int
parse_line(struct parser *p, char *line)
{
	struct scenario *sc = p->sc;
	char *w[MAX_WORDS];
	int n = split_words(line, w, MAX_WORDS);

	if (n == 0)
		return 0;
	if (n < 0)
		return fail(p, "too many words for an action");
	if (strcmp(w[0], "at") != 0)
		return fail(p, "'%s': expected 'at TIME ACTION'", w[0]);
	if (n < 2)
		return fail(p, "'at' needs a time such as 30s or 1500ms");

	struct scenario_action a = { .line = p->line, .instance = -1,
				     .param = -1, .aux = -1 };
	if (parse_time(p, w[1], "time", true, &a.at_ms) < 0)
		return -EINVAL;
	if (p->end_line)
		return fail(p, "nothing may follow 'end' (line %u)",
			    p->end_line);
	const struct scenario_action *prev =
		sc->count > 0 ? &sc->actions[sc->count - 1] : NULL;
	if (prev && a.at_ms < prev->at_ms) {
		char t[32];
		scenario_format_ms(prev->at_ms, t, sizeof(t));
		return fail(p, "%s is before line %u's %s: keep the lines in "
			       "time order", w[1], prev->line, t);
	}
	if (n < 3)
		return fail(p, "missing action after 'at %s'", w[1]);

	bool has_for = false;
	uint64_t for_ms = 0;
	if (strcmp(w[n - 1], "for") == 0)
		return fail(p, "'for' needs a duration such as 5s");
	if (n >= 5 && strcmp(w[n - 2], "for") == 0) {
		if (parse_duration(p, w[n - 1], "'for' duration", &for_ms) < 0)
			return -EINVAL;
		has_for = true;
		n -= 2;
	}
	if (parse_action(p, w + 2, n - 2, has_for, &a) < 0)
		return -EINVAL;
	if (has_for)
		a.dur_ms = for_ms;

	if (sc->count == SCENARIO_MAX_ACTIONS)
		return fail(p, "more than %d actions", SCENARIO_MAX_ACTIONS);
	if (a.op == SCENARIO_OP_END)
		p->end_line = p->line;
	sc->actions[sc->count++] = a;
	return 0;
}

/* When the scenario is over, and no action in force only at that very
 * moment: it would be undone in the same step, a silent no-op. */
static int
finish(struct parser *p)
{
	struct scenario *sc = p->sc;

	if (sc->count == 0) {
		if (p->line == 0)
			p->line = 1;
		return fail(p, "no actions: a scenario needs at least one "
			       "'at TIME ACTION' line");
	}

	uint64_t end = 0;
	for (size_t i = 0; i < sc->count; i++) {
		const struct scenario_action *a = &sc->actions[i];
		uint64_t done = a->at_ms + a->dur_ms;
		end = done > end ? done : end;
	}
	if (p->end_line)
		end = sc->actions[sc->count - 1].at_ms;
	sc->end_ms = end;

	for (size_t i = 0; i < sc->count; i++) {
		const struct scenario_action *a = &sc->actions[i];
		bool lasting = a->op == SCENARIO_OP_SET ||
			       a->op == SCENARIO_OP_RAMP ||
			       a->op == SCENARIO_OP_FAULT ||
			       a->op == SCENARIO_OP_AUX;
		if (!lasting || a->at_ms != end)
			continue;
		char t[32];
		scenario_format_ms(end, t, sizeof(t));
		p->line = a->line;
		if (p->end_line)
			return fail(p, "this action is at the same time as "
				       "'end' (line %u, %s) and would be "
				       "undone at once", p->end_line, t);
		return fail(p, "this action is at the scenario's end (%s) and "
			       "would be undone at once: give it 'for "
			       "DURATION' or end the scenario later with 'at "
			       "TIME end'", t);
	}
	return 0;
}

static void
parser_init(struct parser *p, struct scenario *sc, const char *name,
	    uint64_t length_ms, char *err, size_t errlen)
{
	memset(sc, 0, offsetof(struct scenario, actions));
	*p = (struct parser){ .sc = sc, .name = name, .err = err,
			      .errlen = errlen, .length_ms = length_ms };
	if (errlen > 0)
		err[0] = '\0';
}

/* One raw line (without its '\n') of n bytes into the parser. */
static int
take_line(struct parser *p, const char *raw, size_t n)
{
	char line[SCENARIO_MAX_LINE + 1];

	p->line++;
	if (n > SCENARIO_MAX_LINE)
		return fail(p, "line longer than %d bytes", SCENARIO_MAX_LINE);
	if (memchr(raw, '\0', n))
		return fail(p, "NUL byte in text");
	memcpy(line, raw, n);
	line[n] = '\0';
	return parse_line(p, line);
}

int
scenario_parse(struct scenario *sc, const char *text, size_t len,
	       const char *name, char *err, size_t errlen)
{
	return scenario_parse_for(sc, text, len, name, SCENARIO_LENGTH_NONE,
				  err, errlen);
}

int
scenario_parse_for(struct scenario *sc, const char *text, size_t len,
		   const char *name, uint64_t length_ms, char *err,
		   size_t errlen)
{
	struct parser p;
	size_t pos = 0;

	parser_init(&p, sc, name, length_ms, err, errlen);
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
		if (take_line(&p, text + pos, n) < 0)
			return -EINVAL;
		pos += n + 1;
	}
	return finish(&p);
}

int
scenario_load(struct scenario *sc, FILE *in, const char *name, char *err,
	      size_t errlen)
{
	struct parser p;
	char buf[SCENARIO_MAX_LINE + 1];
	size_t n = 0;
	int c;

	parser_init(&p, sc, name, SCENARIO_LENGTH_NONE, err, errlen);
	for (;;) {
		c = getc(in);
		if (c != EOF && c != '\n') {
			/* One byte past the limit is enough to reject it. */
			if (n == sizeof(buf))
				return take_line(&p, buf, n);
			buf[n++] = (char)c;
			continue;
		}
		if (ferror(in)) {
			snprintf(err, errlen, "%s: read error: %s", name,
				 strerror(errno));
			return -EIO;
		}
		if (c == EOF && n == 0)
			break;
		if (take_line(&p, buf, n) < 0)
			return -EINVAL;
		n = 0;
		if (c == EOF)
			break;
	}
	return finish(&p);
}
