// SPDX-License-Identifier: GPL-3.0-or-later
#include "record-labels.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "inject.h"
#include "px4-failure.h"
#include "sim-params.h"
#include "util-strings.h"

enum {
	RECORD_LINE_MAX = 1024,
	RECORD_NAMES_MAX = 48,	/* every SIM_BARx_* and PX4's, with room */
	RECORD_FIELDS = 7,
};

/* PX4 sensor_baro_sim's parameters (drive-map.c routes scenario lines
 * to them; PX4's src/modules/simulation/sensor_baro_sim). */
static const char PX4_OFF_P[] = "SIM_BARO_OFF_P";
static const char PX4_OFF_T[] = "SIM_BARO_OFF_T";
/* PX4's failure injection on the baro (drive.c's slot). */
static const char PX4_INJECT[] = "baro";

struct name_state {
	char name[24];
	bool have_start;
	double start;
	bool pending;		/* sent, not acknowledged since */
};

struct change {
	uint64_t t_us;
	uint64_t acked_us;	/* t_us before a later `seen` moved it */
	unsigned name;
	double value;
	bool seen;
};

struct parse {
	const char *path;
	size_t lineno;
	char *err;
	size_t errlen;
	struct name_state names[RECORD_NAMES_MAX];
	unsigned nnames;
	struct change *ch;
	size_t nch, capch;
};

static int
bad(struct parse *p, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
bad(struct parse *p, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	str_line_verrorf(p->err, p->errlen, rc, p->path, (unsigned)p->lineno,
			 fmt, ap);
	va_end(ap);
	return rc;
}

/* The label value takes on its own (0: no fault), or a negative errno
 * when name or value mean nothing here. */
static int64_t
label_of(const char *name, double value)
{
	if (strcmp(name, PX4_INJECT) == 0) {
		if (value != floor(value) || value < 0.0 ||
		    value >= PX4_FAILURE_TYPES)
			return -EDOM;
		const struct px4_failure *f = px4_failure_of((unsigned)value);
		if (!f)
			return -EDOM;
		struct sim_baro_params none = { 0 };
		return inject_label_for(&none, 0.0f, f->fault);
	}
	/* A pressure offset is what a glitch is; a temperature offset
	 * alone moves no altitude. */
	if (strcmp(name, PX4_OFF_P) == 0)
		return value != 0.0 ? INJECT_GLITCH : 0;
	if (strcmp(name, PX4_OFF_T) == 0)
		return 0;
	int idx = sim_param_find(name);
	if (idx < 0)
		return -ENOENT;
	struct sim_params sp = { 0 };
	int rc = sim_param_set(&sp, (size_t)idx, value);
	if (rc == -ERANGE) {
		/* What the autopilot stored, beyond the range barod's table
		 * gives: its sign and being non-zero are what label it. */
		const struct sim_param_info *in = sim_param_info((size_t)idx);
		rc = sim_param_set(&sp, (size_t)idx,
				   value < in->min ? in->min : in->max);
	}
	if (rc < 0)
		return -EDOM;
	int k = sim_param_instance((size_t)idx);
	if (k < 0)
		return 0;	/* SIM_TEMP_*, SIM_BARO_COUNT: no fault */
	uint32_t l = inject_label_for(&sp.baro[k], 0.0f, FAULT_NONE);
	return k > 0 && l ? INJECT_OTHER_BARO : (int64_t)l;
}

static int
name_index(struct parse *p, const char *name, double value)
{
	for (unsigned i = 0; i < p->nnames; i++)
		if (strcmp(p->names[i].name, name) == 0)
			return (int)i;
	int64_t l = label_of(name, value);
	if (l == -ENOENT) {
		const char *near = sim_param_closest(name);
		return bad(p, -EINVAL, "'%s' is neither a SIM_BARO parameter "
			   "(did you mean %s?) nor one of PX4's (%s, %s, %s)",
			   name, near ? near : "?", PX4_OFF_P, PX4_OFF_T,
			   PX4_INJECT);
	}
	if (strlen(name) >= sizeof(p->names[0].name))
		return bad(p, -EINVAL, "name '%s' is too long", name);
	if (p->nnames == RECORD_NAMES_MAX)
		return bad(p, -EINVAL, "more than %d names", RECORD_NAMES_MAX);
	struct name_state *n = &p->names[p->nnames];
	*n = (struct name_state){ 0 };
	memcpy(n->name, name, strlen(name) + 1);
	return (int)p->nnames++;
}

/* Split a line into its 7 fields in place; the text field's quotes
 * removed and "" made one. */
static int
split(struct parse *p, char *line, char *f[RECORD_FIELDS])
{
	char *s = line;
	for (int i = 0; i < RECORD_FIELDS - 1; i++) {
		char *c = strchr(s, ',');
		if (!c)
			return bad(p, -EINVAL, "%d fields, not %d", i + 1,
				   RECORD_FIELDS);
		*c = '\0';
		f[i] = s;
		s = c + 1;
	}
	f[RECORD_FIELDS - 1] = s;
	if (*s == '\0')
		return 0;
	if (*s != '"')
		return bad(p, -EINVAL, "the text field is not quoted");
	char *w = s;
	for (const char *r = s + 1;; r++) {
		if (*r == '\0')
			return bad(p, -EINVAL, "the text field's quote is "
				   "not closed");
		if (*r == '"') {
			if (r[1] == '"') {
				*w++ = '"';
				r++;
				continue;
			}
			if (r[1] != '\0')
				return bad(p, -EINVAL, "text after the text "
					   "field's closing quote");
			break;
		}
		*w++ = *r;
	}
	*w = '\0';
	return 0;
}

static int
change_add(struct parse *p, uint64_t t_us, unsigned name, double value)
{
	if (p->nch == p->capch) {
		size_t cap = p->capch ? 2 * p->capch : 32;
		void *n = realloc(p->ch, cap * sizeof(*p->ch));
		if (!n)
			return -ENOMEM;
		p->ch = n;
		p->capch = cap;
	}
	p->ch[p->nch++] = (struct change){ .t_us = t_us, .acked_us = t_us,
					   .name = name, .value = value };
	return 0;
}

/* The latest change of name to value not yet seen: its effect starts
 * when the autopilot's telemetry showed it, if that is later. */
static void
seen_at(struct parse *p, unsigned name, double value, uint64_t t_us)
{
	for (size_t i = p->nch; i-- > 0;) {
		struct change *c = &p->ch[i];
		if (c->name != name)
			continue;
		if (c->value == value && !c->seen && c->t_us <= t_us) {
			c->t_us = t_us;
			c->seen = true;
		}
		return;
	}
}

static int
row(struct parse *p, struct record_labels *rl, char *line,
    uint64_t *prev_ms, bool *restarted)
{
	char *f[RECORD_FIELDS] = { 0 };
	int rc = split(p, line, f);
	if (rc < 0)
		return rc;
	uint64_t ap_ms, lineno;
	double value;
	if (str_to_u64(f[0], &ap_ms) < 0 || ap_ms > UINT64_MAX / 1000u)
		return bad(p, -EINVAL, "ap_ms '%s' is not a time in ms", f[0]);
	if (f[1][0] != '\0') {
		const char *s = f[1][0] == '-' ? f[1] + 1 : f[1];
		uint64_t v;
		if (str_to_u64(s, &v) < 0)
			return bad(p, -EINVAL, "scenario_ms '%s' is not a "
				   "time in ms", f[1]);
	}
	if (str_to_u64(f[2], &lineno) < 0 || lineno > UINT_MAX)
		return bad(p, -EINVAL, "line '%s' is not a line number", f[2]);
	if (str_to_double(f[5], &value) < 0 || !isfinite(value))
		return bad(p, -EINVAL, "value '%s' is not a finite number",
			   f[5]);
	const char *ev = f[3], *name = f[4];
	static const char *const events[] = { "start", "due", "sent",
					      "acked", "seen", "note" };
	bool known = false;
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		known |= strcmp(ev, events[i]) == 0;
	if (!known)
		return bad(p, -EINVAL, "event '%s' is not one baro-drive "
			   "writes (start, due, sent, acked, seen, note)", ev);
	if (*restarted || ap_ms < *prev_ms) {
		*restarted = true;
		rl->after_restart++;
		return 0;
	}
	*prev_ms = ap_ms;
	if (rl->rows++ == 0)
		rl->first_us = ap_ms * 1000u;
	rl->last_us = ap_ms * 1000u;
	if (strcmp(ev, "due") == 0 || strcmp(ev, "note") == 0)
		return 0;
	if (name[0] == '\0')
		return bad(p, -EINVAL, "a '%s' row without a name", ev);
	int idx = name_index(p, name, value);
	if (idx < 0)
		return idx;
	if (label_of(name, value) < 0)
		return bad(p, -EINVAL, "%s %g is not a value %s takes", name,
			   value, name);
	struct name_state *n = &p->names[idx];
	if (strcmp(ev, "start") == 0) {
		if (!n->have_start) {
			n->have_start = true;
			n->start = value;
		}
		return 0;
	}
	if (!n->have_start)
		return bad(p, -EINVAL, "'%s' of %s before its start row (a "
			   "record cut at its beginning?)", ev, name);
	if (strcmp(ev, "sent") == 0) {
		n->pending = true;
		return 0;
	}
	if (strcmp(ev, "seen") == 0) {
		seen_at(p, (unsigned)idx, value, ap_ms * 1000u);
		return 0;
	}
	n->pending = false;
	return change_add(p, ap_ms * 1000u, (unsigned)idx, value);
}

static int
by_time(const void *a, const void *b)
{
	const struct change *x = a, *y = b;
	if (x->t_us != y->t_us)
		return x->t_us < y->t_us ? -1 : 1;
	/* Stable: the order the record has. */
	return x < y ? -1 : x > y;
}

static int
label_add(struct record_labels *rl, uint64_t t_us, uint32_t label)
{
	if (rl->n && rl->ch[rl->n - 1].t_us == t_us) {
		rl->ch[rl->n - 1].label = label;
		return 0;
	}
	if (rl->n && rl->ch[rl->n - 1].label == label)
		return 0;
	if (rl->n == rl->cap) {
		size_t cap = rl->cap ? 2 * rl->cap : 16;
		void *n = realloc(rl->ch, cap * sizeof(*rl->ch));
		if (!n)
			return -ENOMEM;
		rl->ch = n;
		rl->cap = cap;
	}
	rl->ch[rl->n++] = (struct record_label_change){ t_us, label };
	return 0;
}

int
record_labels_parse(struct record_labels *rl, const char *text, size_t len,
		    const char *path, char *err, size_t errlen)
{
	struct parse p = { .path = path, .err = err, .errlen = errlen };
	char line[RECORD_LINE_MAX + 2];
	uint64_t prev_ms = 0;
	bool restarted = false;
	int rc = 0;

	*rl = (struct record_labels){ 0 };
	for (size_t at = 0; at < len && rc == 0;) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = (nl ? (size_t)(nl - text) : len) - at;
		p.lineno++;
		if (n > RECORD_LINE_MAX) {
			rc = bad(&p, -EINVAL, "longer than %d bytes",
				 RECORD_LINE_MAX);
			break;
		}
		memcpy(line, text + at, n);
		line[n] = '\0';
		at += n + 1;
		if (n && line[n - 1] == '\r')
			line[--n] = '\0';
		if (memchr(line, '\0', n)) {
			rc = bad(&p, -EINVAL, "a NUL byte");
			break;
		}
		if (p.lineno == 1) {
			if (strcmp(line, RECORD_LABELS_HEADER) != 0)
				rc = bad(&p, -EINVAL, "not a baro-drive record: "
					 "the header is not '%s'",
					 RECORD_LABELS_HEADER);
			continue;
		}
		if (n == 0)
			continue;
		rc = row(&p, rl, line, &prev_ms, &restarted);
	}
	if (rc == 0 && rl->rows == 0)
		rc = str_errorf(err, errlen, -ENODATA, "%s: %s", path,
				p.lineno ? "a record without rows"
					 : "empty, not a baro-drive record");
	if (rc == 0) {
		for (unsigned i = 0; i < p.nnames; i++)
			rl->unacked += p.names[i].pending;
		if (p.nch)
			qsort(p.ch, p.nch, sizeof(*p.ch), by_time);
		double cur[RECORD_NAMES_MAX];
		for (unsigned i = 0; i < p.nnames; i++)
			cur[i] = p.names[i].start;
		rc = label_add(rl, rl->first_us, 0);
		for (size_t i = 0; i < p.nch && rc == 0; i++) {
			cur[p.ch[i].name] = p.ch[i].value;
			uint32_t l = 0;
			for (unsigned k = 0; k < p.nnames; k++)
				if (cur[k] != p.names[k].start)
					l |= (uint32_t)label_of(p.names[k].name,
								cur[k]);
			if (l && !rl->fault_acked_us)
				rl->fault_acked_us = p.ch[i].acked_us;
			rc = label_add(rl, p.ch[i].t_us, l);
		}
		if (rc == -ENOMEM)
			str_errorf(err, errlen, rc, "out of memory");
	}
	free(p.ch);
	if (rc < 0)
		record_labels_free(rl);
	return rc;
}

uint32_t
record_labels_at(const struct record_labels *rl, uint64_t t_us)
{
	size_t lo = 0, hi = rl->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (rl->ch[mid].t_us <= t_us)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 ? 0 : rl->ch[lo - 1].label;
}

void
record_labels_free(struct record_labels *rl)
{
	free(rl->ch);
	*rl = (struct record_labels){ 0 };
}
