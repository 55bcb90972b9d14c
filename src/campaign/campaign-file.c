// SPDX-License-Identifier: GPL-3.0-or-later
#include "campaign-file.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util-strings.h"

enum opt_kind { OPT_TEXT, OPT_DOUBLE, OPT_PORT, OPT_UINT, OPT_BOOL,
		OPT_AUTOPILOT, OPT_LINK, OPT_UPSTREAM };

/* Every key but the matrix's axes: one table for parsing, checks and
 * the message listing what a section takes. */
static const struct opt {
	const char *section, *key;
	enum opt_kind kind;
	size_t offset, size;
	double min, max;
} opts[] = {
	{ "campaign", "autopilot", OPT_AUTOPILOT,
	  offsetof(struct campaign, autopilot), 0, 0, 0 },
	{ "campaign", "command", OPT_TEXT, offsetof(struct campaign, command),
	  CAMPAIGN_TEXT_LEN, 0, 0 },
	{ "campaign", "log", OPT_TEXT, offsetof(struct campaign, log),
	  CAMPAIGN_PATH_LEN, 0, 0 },
	{ "campaign", "link", OPT_LINK, offsetof(struct campaign, link), 0, 0,
	  0 },
	{ "campaign", "timeout", OPT_DOUBLE,
	  offsetof(struct campaign, timeout_s), 0, 1, 86400 },
	{ "campaign", "ports", OPT_PORT, offsetof(struct campaign, ports), 0,
	  1024, 60000 },
	{ "campaign", "instance", OPT_UINT,
	  offsetof(struct campaign, instance_base), 0, 0, 255 },
	/* The barod links' (link_opts() checks them). */
	{ "campaign", "upstream", OPT_UPSTREAM, 0, 0, 1, 65000 },
	{ "campaign", "sim_port", OPT_PORT, offsetof(struct campaign, sim_port),
	  0, 1024, 65000 },
	{ "campaign", "barod_args", OPT_TEXT,
	  offsetof(struct campaign, barod_args), CAMPAIGN_TEXT_LEN, 0, 0 },
	{ "campaign", "gcs", OPT_TEXT, offsetof(struct campaign, gcs),
	  CAMPAIGN_PATH_LEN, 0, 0 },
	{ "campaign", "drive_connect", OPT_TEXT,
	  offsetof(struct campaign, drive_connect), CAMPAIGN_PATH_LEN, 0, 0 },
	{ "flight", "takeoff_m", OPT_DOUBLE,
	  offsetof(struct campaign, takeoff_m), 0, 1, 1000 },
	{ "flight", "hold_s", OPT_DOUBLE, offsetof(struct campaign, hold_s),
	  0, 0, 86400 },
	{ "flight", "land", OPT_BOOL, offsetof(struct campaign, land), 0, 0,
	  0 },
	{ "flight", "mission", OPT_TEXT, offsetof(struct campaign, mission),
	  CAMPAIGN_TEXT_LEN, 0, 0 },
	{ "matrix", "scenario", OPT_TEXT, offsetof(struct campaign, scenario),
	  CAMPAIGN_PATH_LEN, 0, 0 },
	{ "judge", "thresholds", OPT_TEXT,
	  offsetof(struct campaign, thresholds), CAMPAIGN_PATH_LEN, 0, 0 },
};

#define NOPTS (sizeof(opts) / sizeof(opts[0]))

/* Names a template takes beside the axes. */
static const char *const builtin_vars[] = { "instance", "slot", "drive_port",
					    "gcs_port", "dir", "job",
					    "barod_port", "sim_port",
					    "upstream_port", "px4_gcs_port",
					    "px4_offboard_port" };

/* "instance, slot, ...": for messages. */
static const char *
builtin_list(char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(builtin_vars) / sizeof(*builtin_vars);
	     i++)
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s",
				      i ? ", " : "", builtin_vars[i]);
	return buf;
}

struct parse {
	struct campaign *c;
	const char *name;
	const char *text, *end;
	unsigned line;
	char *err;
	size_t errlen;
	int rc;
	char last_key[CAMPAIGN_NAME_LEN * 2];	/* for continuations */
	bool indented;		/* the line read began with a blank */
	unsigned seen[NOPTS];			/* the line it was set on */
	unsigned param_line[CAMPAIGN_MAX_PARAMS];
};

static int
fail(struct parse *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int
fail(struct parse *p, const char *fmt, ...)
{
	va_list ap;
	if (p->rc < 0)
		return 0;
	va_start(ap, fmt);
	p->rc = str_line_verrorf(p->err, p->errlen, -EINVAL, p->name, p->line,
				 fmt, ap);
	va_end(ap);
	return 0;	/* inih: stop */
}

static char *
read_line(char *str, int num, void *stream)
{
	struct parse *p = stream;
	int n = 0;

	if (p->rc < 0 || p->text >= p->end)
		return NULL;
	p->line++;
	while (p->text < p->end && n < num - 1) {
		char c = *p->text++;
		if (c == '\0') {
			fail(p, "a NUL byte");
			return NULL;
		}
		str[n++] = c;
		if (c == '\n')
			break;
	}
	if (n == num - 1 && str[n - 1] != '\n' && p->text < p->end) {
		fail(p, "longer than %d characters (go on over indented "
		     "lines)", num - 2);
		return NULL;
	}
	str[n] = '\0';
	p->indented = n && (str[0] == ' ' || str[0] == '\t');
	return str;
}

static bool
is_name(const char *s)
{
	if (!*s || strlen(s) >= CAMPAIGN_NAME_LEN)
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) &&
		    *s != '_')
			return false;
	return true;
}

static bool
is_builtin_var(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(builtin_vars) / sizeof(*builtin_vars);
	     i++)
		if (strlen(builtin_vars[i]) == n &&
		    strncmp(builtin_vars[i], s, n) == 0)
			return true;
	return false;
}

static int
add_value(struct parse *p, struct campaign_axis *a, const char *w)
{
	if (a->n == CAMPAIGN_MAX_VALUES)
		return fail(p, "[matrix] %s: more than %d values", a->name,
			    CAMPAIGN_MAX_VALUES);
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->values[i], w) == 0)
			return fail(p, "[matrix] %s: value '%s' is given twice",
				    a->name, w);
	snprintf(a->values[a->n++], CAMPAIGN_VALUE_LEN, "%s", w);
	return 1;
}

/* A..B/STEP: A, A + STEP, ... up to B (within a millionth of a step),
 * each written as the shortest decimal of the nearest multiple. */
static int
stepped_range(struct parse *p, struct campaign_axis *a, char *w)
{
	char *dots = strstr(w, ".."), *slash = strchr(dots, '/');
	char *e1, *e2, *e3;
	*dots = '\0';
	*slash = '\0';
	double lo = strtod(w, &e1), hi = strtod(dots + 2, &e2),
	       step = strtod(slash + 1, &e3);
	if (!*w || *e1 || !dots[2] || *e2 || !slash[1] || *e3 ||
	    !isfinite(lo) || !isfinite(hi) || !isfinite(step) || step <= 0 ||
	    hi < lo || (hi - lo) / step >= CAMPAIGN_MAX_VALUES)
		return fail(p, "[matrix] %s: '%s..%s/%s' is not a range "
			    "A..B/STEP of at most %d values (STEP > 0)",
			    a->name, w, dots + 2, slash + 1,
			    CAMPAIGN_MAX_VALUES);
	const long n = (long)floor((hi - lo) / step + 1e-6);
	for (long i = 0; i <= n; i++) {
		char v[CAMPAIGN_VALUE_LEN];
		double x = lo + (double)i * step;
		/* 0.1 * 3 is 0.30000000000000004: 12 digits say 0.3. */
		snprintf(v, sizeof(v), "%.12g", x == 0 ? 0.0 : x);
		if (add_value(p, a, v) == 0)
			return 0;
	}
	return 1;
}

/* One axis's values: words, A..B for a run of integers, or A..B/STEP. */
static int
axis_values(struct parse *p, struct campaign_axis *a, const char *value)
{
	char buf[CAMPAIGN_TEXT_LEN];
	snprintf(buf, sizeof(buf), "%s", value);
	for (char *save = NULL, *w = strtok_r(buf, " \t,", &save); w;
	     w = strtok_r(NULL, " \t,", &save)) {
		char *dots = strstr(w, "..");
		if (dots && strchr(dots, '/')) {
			if (stepped_range(p, a, w) == 0)
				return 0;
			continue;
		}
		if (dots) {
			char *e1, *e2;
			*dots = '\0';
			long lo = strtol(w, &e1, 10), hi = strtol(dots + 2, &e2,
								  10);
			if (!*w || *e1 || !dots[2] || *e2 || hi < lo ||
			    hi - lo >= CAMPAIGN_MAX_VALUES)
				return fail(p, "[matrix] %s: '%s..%s' is not "
					    "a range of at most %d integers "
					    "A..B", a->name, w, dots + 2,
					    CAMPAIGN_MAX_VALUES);
			for (long v = lo; v <= hi; v++) {
				if (a->n == CAMPAIGN_MAX_VALUES)
					return fail(p, "[matrix] %s: more than "
						    "%d values", a->name,
						    CAMPAIGN_MAX_VALUES);
				snprintf(a->values[a->n++], CAMPAIGN_VALUE_LEN,
					 "%ld", v);
			}
			continue;
		}
		if (strlen(w) >= CAMPAIGN_VALUE_LEN)
			return fail(p, "[matrix] %s: value '%.20s...' is "
				    "longer than %d characters", a->name, w,
				    CAMPAIGN_VALUE_LEN - 1);
		if (strpbrk(w, "{}\"'\\/"))
			return fail(p, "[matrix] %s: value '%s' has a brace, "
				    "quote, slash or backslash (it goes into "
				    "command lines and file names)", a->name,
				    w);
		if (add_value(p, a, w) == 0)
			return 0;
	}
	if (a->n == 0)
		return fail(p, "[matrix] %s: no values", a->name);
	return 1;
}

/* The barod links: which exist, and why the peers cannot fly. */
static int
set_link(struct parse *p, const char *value)
{
	if (strcmp(value, "drive") == 0)
		p->c->link = CAMPAIGN_LINK_DRIVE;
	else if (strcmp(value, "px4-sim-proxy") == 0)
		p->c->link = CAMPAIGN_LINK_PX4_SIM_PROXY;
	else if (strcmp(value, "sitl-json") == 0 ||
		 strcmp(value, "px4-sim") == 0)
		return fail(p, "[campaign] link = %s: barod as the physics "
			    "peer flies its own --profile, not the "
			    "autopilot's motor commands, so a commanded "
			    "flight cannot happen; use link = px4-sim-proxy "
			    "(barod in front of a simulator) or link = drive",
			    value);
	else if (strcmp(value, "sitl-json-proxy") == 0)
		/* ArduPilot's JSON input carries no pressure (SITL's
		 * examples/JSON/readme.md); AP_Baro_SITL makes its baro from
		 * the position, which barod may not move without moving
		 * the GPS too. */
		return fail(p, "[campaign] link = %s: ArduPilot's JSON "
			    "interface carries no pressure (its baro comes "
			    "from the position), so barod's faults would "
			    "reach it only as rangefinder rng_N; on ArduPilot "
			    "use link = drive", value);
	else
		return fail(p, "[campaign] link = %s: wanted drive or "
			    "px4-sim-proxy", value);
	return 1;
}

/* HOST:PORT, an IPv4 address or a name, a port that leaves room for
 * the instances above it. */
static int
set_upstream(struct parse *p, const char *value)
{
	const char *colon = strrchr(value, ':');
	double port;
	if (!colon || colon == value ||
	    (size_t)(colon - value) >= sizeof(p->c->upstream_host) ||
	    strpbrk(value, " \t{}") || str_to_double(colon + 1, &port) < 0 ||
	    port != floor(port) || port < 1 || port > 65000)
		return fail(p, "[campaign] upstream = %s: wanted HOST:PORT, "
			    "the simulator of instance 0 with a port from 1 "
			    "to 65000 (instance i: PORT + i)", value);
	memcpy(p->c->upstream_host, value, (size_t)(colon - value));
	p->c->upstream_host[colon - value] = '\0';
	p->c->upstream_port = (unsigned)port;
	return 1;
}

static int
set_opt(struct parse *p, size_t i, const char *value, bool more)
{
	const struct opt *o = &opts[i];
	char *at = (char *)p->c + o->offset;
	double d;
	switch (o->kind) {
	case OPT_TEXT: {
		size_t have = more ? strlen(at) : 0;
		size_t n = strlen(value);
		if (have + (have ? 1 : 0) + n >= o->size)
			return fail(p, "[%s] %s is longer than %zu characters",
				    o->section, o->key, o->size - 1);
		if (have)
			at[have++] = ' ';
		memcpy(at + have, value, n + 1);
		return 1;
	}
	case OPT_DOUBLE:
	case OPT_PORT:
	case OPT_UINT:
		if (str_to_double(value, &d) < 0 || !(d >= o->min) ||
		    !(d <= o->max) ||
		    (o->kind != OPT_DOUBLE && d != floor(d)))
			return fail(p, "[%s] %s = %s: wanted a%s number from "
				    "%g to %g", o->section, o->key, value,
				    o->kind == OPT_DOUBLE ? "" : " whole",
				    o->min, o->max);
		if (o->kind == OPT_DOUBLE)
			*(double *)at = d;
		else
			*(unsigned *)at = (unsigned)d;
		return 1;
	case OPT_BOOL:
		if (strcmp(value, "yes") == 0 || strcmp(value, "true") == 0 ||
		    strcmp(value, "1") == 0)
			*(bool *)at = true;
		else if (strcmp(value, "no") == 0 ||
			 strcmp(value, "false") == 0 || strcmp(value, "0") == 0)
			*(bool *)at = false;
		else
			return fail(p, "[%s] %s = %s: wanted yes or no",
				    o->section, o->key, value);
		return 1;
	case OPT_AUTOPILOT:
		if (strcmp(value, "ardupilot") == 0)
			p->c->autopilot = CAMPAIGN_ARDUPILOT;
		else if (strcmp(value, "px4") == 0)
			p->c->autopilot = CAMPAIGN_PX4;
		else
			return fail(p, "[campaign] autopilot = %s: wanted "
				    "ardupilot or px4", value);
		return 1;
	case OPT_LINK:
		return set_link(p, value);
	case OPT_UPSTREAM:
		return set_upstream(p, value);
	}
	return fail(p, "internal: option kind");
}

/* [params] NAME = VALUE: a MAVLink parameter id (at most 16 letters,
 * digits and _, as both autopilots name theirs) and a number or a
 * template of one, checked once the axes are known. */
static int
param_line(struct parse *p, const char *key, const char *value, bool more)
{
	struct campaign *c = p->c;
	size_t n = strlen(key);
	bool ok = n > 0 && n < CAMPAIGN_PARAM_ID_LEN;
	for (const char *s = key; ok && *s; s++)
		ok = isalnum((unsigned char)*s) || *s == '_';
	if (!ok)
		return fail(p, "[params] '%s': not a parameter name (1 to 16 "
			    "letters, digits and _)", key);
	for (size_t i = 0; i < c->nparams; i++)
		if (strcmp(c->params[i].name, key) == 0)
			return fail(p, "[params] %s is given %s", key,
				    more ? "over two lines (a value is one "
					   "number)"
					 : "twice");
	if (c->nparams == CAMPAIGN_MAX_PARAMS)
		return fail(p, "[params]: more than %d parameters",
			    CAMPAIGN_MAX_PARAMS);
	if (!*value || strlen(value) >= CAMPAIGN_VALUE_LEN)
		return fail(p, "[params] %s: wanted a number or a template "
			    "of one, of at most %d characters", key,
			    CAMPAIGN_VALUE_LEN - 1);
	p->param_line[c->nparams] = p->line;
	struct campaign_param *q = &c->params[c->nparams++];
	snprintf(q->name, sizeof(q->name), "%s", key);
	snprintf(q->value, sizeof(q->value), "%s", value);
	return 1;
}

static int
handler(void *user, const char *section, const char *key, const char *value)
{
	struct parse *p = user;
	char full[sizeof(p->last_key)];
	snprintf(full, sizeof(full), "%s.%s", section, key);
	/* inih hands an indented line on as the same key again. */
	const bool more = p->indented && strcmp(full, p->last_key) == 0;
	snprintf(p->last_key, sizeof(p->last_key), "%s", full);

	for (size_t i = 0; i < NOPTS; i++) {
		if (strcmp(opts[i].section, section) != 0 ||
		    strcmp(opts[i].key, key) != 0)
			continue;
		if (p->seen[i] && !more)
			return fail(p, "[%s] %s is given twice (line %u)",
				    section, key, p->seen[i]);
		if (more && opts[i].kind != OPT_TEXT)
			return fail(p, "[%s] %s is given twice", section, key);
		p->seen[i] = p->line;
		return set_opt(p, i, value, more);
	}
	if (strcmp(section, "matrix") == 0) {
		struct campaign *c = p->c;
		char names[256];
		if (!is_name(key) || is_builtin_var(key, strlen(key)))
			return fail(p, "[matrix] '%s': an axis is named with "
				    "a-z, 0-9 and _ and is none of %s", key,
				    builtin_list(names, sizeof(names)));
		for (size_t i = 0; i < c->naxes; i++)
			if (strcmp(c->axes[i].name, key) == 0) {
				if (more)
					return axis_values(p, &c->axes[i],
							   value);
				return fail(p, "[matrix] %s is given twice",
					    key);
			}
		if (c->naxes == CAMPAIGN_MAX_AXES)
			return fail(p, "[matrix]: more than %d axes",
				    CAMPAIGN_MAX_AXES);
		struct campaign_axis *a = &c->axes[c->naxes++];
		snprintf(a->name, sizeof(a->name), "%s", key);
		return axis_values(p, a, value);
	}
	if (strcmp(section, "params") == 0)
		return param_line(p, key, value, more);
	static const char *const sections[] = { "campaign", "flight", "params",
						 "matrix", "judge" };
	bool known = false;
	for (size_t i = 0; i < sizeof(sections) / sizeof(*sections); i++)
		known |= strcmp(section, sections[i]) == 0;
	if (!known)
		return fail(p, "[%s]: not a section (campaign, flight, params, "
			    "matrix, judge)", section);
	char keys[1024] = "";
	size_t n = 0;
	for (size_t i = 0; i < NOPTS; i++)
		if (strcmp(opts[i].section, section) == 0)
			n += (size_t)snprintf(keys + n, sizeof(keys) - n,
					      "%s%s", n ? ", " : "",
					      opts[i].key);
	return fail(p, "[%s] %s: not a key here (%s)", section, key, keys);
}

/* Every {name} a template uses is an axis's or a built-in one. */
static int
check_template(struct parse *p, const char *what, const char *t)
{
	for (const char *s = t; *s; s++) {
		if (s[0] == '{' && s[1] == '{') {
			s++;
			continue;
		}
		if (*s != '{')
			continue;
		const char *e = strchr(s, '}');
		if (!e)
			return fail(p, "%s: '{' without its '}'", what);
		size_t n = (size_t)(e - s - 1);
		bool ok = is_builtin_var(s + 1, n);
		for (size_t i = 0; i < p->c->naxes && !ok; i++)
			ok = strlen(p->c->axes[i].name) == n &&
			     strncmp(p->c->axes[i].name, s + 1, n) == 0;
		char names[256];
		if (!ok)
			return fail(p, "%s: {%.*s} is neither a matrix axis "
				    "nor one of %s", what, (int)n, s + 1,
				    builtin_list(names, sizeof(names)));
		s = e;
	}
	return 1;
}

static size_t
opt_index(const char *key)
{
	for (size_t i = 0; i < NOPTS; i++)
		if (strcmp(opts[i].key, key) == 0)
			return i;
	return 0;	/* not reached: every key asked for is in opts */
}

/* A connection template: udpin:HOST:PORT or udpout:HOST:PORT (and
 * tcp:HOST:PORT for baro-drive, which takes it). */
static void
check_connect(struct parse *p, const char *key, const char *t, bool tcp)
{
	if (strncmp(t, "udpin:", 6) != 0 && strncmp(t, "udpout:", 7) != 0 &&
	    !(tcp && strncmp(t, "tcp:", 4) == 0)) {
		fail(p, "[campaign] %s = %s: wanted udpin:HOST:PORT (listen) "
		     "or udpout:HOST:PORT (send first)%s", key, t,
		     tcp ? " or tcp:HOST:PORT" : "");
		return;
	}
	char what[64];
	snprintf(what, sizeof(what), "[campaign] %s", key);
	check_template(p, what, t);
}

/* The options of one link given with another are mistakes, said at
 * their line; the defaults filled in.  -EINVAL (p->rc) or 0. */
static int
link_opts(struct parse *p)
{
	struct campaign *c = p->c;
	static const char *const proxy_only[] = { "upstream", "sim_port",
						  "barod_args" };
	const bool proxy = c->link == CAMPAIGN_LINK_PX4_SIM_PROXY;
	for (size_t i = 0; !proxy && i < 3; i++) {
		p->line = p->seen[opt_index(proxy_only[i])];
		if (p->line)
			fail(p, "[campaign] %s: only with link = px4-sim-proxy "
			     "(barod between PX4 and its simulator)",
			     proxy_only[i]);
	}
	p->line = p->seen[opt_index("drive_connect")];
	if (proxy && p->line)
		fail(p, "[campaign] drive_connect: link = px4-sim-proxy runs "
		     "no baro-drive (barod makes the faults)");
	p->line = p->seen[opt_index("link")];
	if (proxy && c->autopilot != CAMPAIGN_PX4)
		fail(p, "[campaign] link = px4-sim-proxy: PX4's simulator "
		     "link, wanted autopilot = px4");
	if (proxy && !p->seen[opt_index("upstream")] && p->rc == 0) {
		p->line = 0;
		return p->rc = str_errorf(p->err, p->errlen, -EINVAL, "%s: "
					  "[campaign] upstream is missing (link = "
					  "px4-sim-proxy: the simulator barod "
					  "dials, e.g. 127.0.0.1:4600)", p->name);
	}
	p->line = p->seen[opt_index("barod_args")];
	check_template(p, "[campaign] barod_args", c->barod_args);
	p->line = p->seen[opt_index("gcs")];
	if (p->line)
		check_connect(p, "gcs", c->gcs, false);
	else
		snprintf(c->gcs, sizeof(c->gcs), "udpin:127.0.0.1:{gcs_port}");
	p->line = p->seen[opt_index("drive_connect")];
	if (p->line)
		check_connect(p, "drive_connect", c->drive_connect, true);
	else
		snprintf(c->drive_connect, sizeof(c->drive_connect),
			 "udpin:127.0.0.1:{drive_port}");
	return p->rc;
}

int
campaign_parse(struct campaign *c, const char *text, size_t len,
	       const char *name, char *err, size_t errlen)
{
	struct parse p = { .c = c, .name = name, .text = text,
			   .end = text + len, .err = err, .errlen = errlen };
	*c = (struct campaign){ .timeout_s = 600, .ports = 15000,
				.takeoff_m = 10, .hold_s = 60, .land = true,
				.sim_port = CAMPAIGN_PX4_SIM_PORT };
	int line = ini_parse_stream(read_line, &p, handler, &p);
	if (p.rc == 0 && line != 0) {
		p.line = line > 0 ? (unsigned)line : p.line;
		fail(&p, "%s", line == -2 ? "out of memory"
					  : "syntax error: expected [section] "
					    "or key = value");
	}
	if (p.rc < 0)
		return p.rc;
	p.line = 0;
	if (!c->command[0])
		return str_errorf(err, errlen, -EINVAL, "%s: [campaign] "
				  "command is missing (the autopilot's "
				  "command line)", name);
	if (!c->log[0])
		return str_errorf(err, errlen, -EINVAL, "%s: [campaign] log is "
				  "missing (where the autopilot writes its log "
				  "of a job, e.g. {dir}/logs/*.BIN)", name);
	if (!c->scenario[0])
		return str_errorf(err, errlen, -EINVAL, "%s: [matrix] scenario "
				  "is missing (the scenario template)", name);
	p.line = p.seen[1];
	check_template(&p, "[campaign] command", c->command);
	p.line = p.seen[2];
	check_template(&p, "[campaign] log", c->log);
	for (size_t i = 0; i < NOPTS && p.rc == 0; i++)
		if (strcmp(opts[i].key, "mission") == 0 && c->mission[0]) {
			p.line = p.seen[i];
			check_template(&p, "[flight] mission", c->mission);
		}
	for (size_t i = 0; i < c->nparams && p.rc == 0; i++) {
		char what[64];
		p.line = p.param_line[i];
		snprintf(what, sizeof(what), "[params] %s", c->params[i].name);
		check_template(&p, what, c->params[i].value);
	}
	if (p.rc < 0)
		return p.rc;
	if (link_opts(&p) < 0)
		return p.rc;
	/* Two slots' ports must not meet: 10 apart, so 6500 slots at
	 * most below 65536. */
	c->njobs = 1;
	for (size_t i = 0; i < c->naxes; i++) {
		if (c->njobs * c->axes[i].n > CAMPAIGN_MAX_JOBS)
			return str_errorf(err, errlen, -EINVAL, "%s: [matrix] "
					  "has more than %d combinations",
					  name, CAMPAIGN_MAX_JOBS);
		c->njobs *= c->axes[i].n;
	}
	/* Every job's mission is one the flight can fly. */
	if (c->mission[0]) {
		const bool fixed = !strchr(c->mission, '{');
		unsigned at = 0;
		for (size_t i = 0; i < NOPTS; i++)
			if (strcmp(opts[i].key, "mission") == 0)
				at = p.seen[i];
		for (size_t k = 1; k <= (fixed ? 1 : c->njobs); k++) {
			struct campaign_waypoint wp[CAMPAIGN_MAX_WAYPOINTS];
			size_t n;
			char why[256];
			if (campaign_mission(c, k, wp, &n, why, sizeof(why)) < 0)
				return str_errorf(err, errlen, -EINVAL,
						  "%s:%u: %s", name, at, why);
		}
	}
	/* Every job's value of every parameter is a number: a template
	 * that gives a word in one cell is refused now, not at job 900. */
	for (size_t i = 0; i < c->nparams; i++) {
		const bool fixed = !strchr(c->params[i].value, '{');
		for (size_t k = 1; k <= (fixed ? 1 : c->njobs); k++) {
			double v;
			char why[256];
			if (campaign_param_value(c, i, k, &v, why,
						 sizeof(why)) < 0)
				return str_errorf(err, errlen, -EINVAL,
						  "%s:%u: %s", name,
						  p.param_line[i], why);
		}
	}
	return 0;
}

/* A mission is short: each waypoint within 10 km of home, 1 to 1000 m
 * above it. */
#define MISSION_MAX_M 10000.0

int
campaign_mission(const struct campaign *c, size_t k,
		 struct campaign_waypoint wp[CAMPAIGN_MAX_WAYPOINTS], size_t *n,
		 char *err, size_t errlen)
{
	const struct campaign_vars v = { .c = c, .job = k, .slot = 0,
					 .dir = "" };
	char out[CAMPAIGN_TEXT_LEN * 2];
	*n = 0;
	if (!c->mission[0])
		return 0;
	if (campaign_expand(c->mission, &v, out, sizeof(out), err, errlen) < 0)
		return -EINVAL;
	for (char *save = NULL, *w = strtok_r(out, " \t", &save); w;
	     w = strtok_r(NULL, " \t", &save)) {
		double x[3];
		char *s = w, *e;
		int got = 0;
		for (; got < 3; got++) {
			errno = 0;
			x[got] = strtod(s, &e);
			if (e == s || errno || !isfinite(x[got]) ||
			    (got < 2 ? *e != ':' : *e != '\0'))
				break;
			s = e + 1;
		}
		if (got < 3)
			return str_errorf(err, errlen, -EINVAL, "[flight] "
					  "mission: '%s' is not NORTH:EAST:ALT "
					  "(metres from home, metres above it)",
					  w);
		if (fabs(x[0]) > MISSION_MAX_M || fabs(x[1]) > MISSION_MAX_M ||
		    x[2] < 1.0 || x[2] > 1000.0)
			return str_errorf(err, errlen, -EINVAL, "[flight] "
					  "mission: '%s': wanted within %.0f m "
					  "of home and 1 to 1000 m above it",
					  w, MISSION_MAX_M);
		if (*n == CAMPAIGN_MAX_WAYPOINTS)
			return str_errorf(err, errlen, -EINVAL, "[flight] "
					  "mission: more than %d waypoints",
					  CAMPAIGN_MAX_WAYPOINTS);
		wp[(*n)++] = (struct campaign_waypoint){
			.north_m = x[0], .east_m = x[1], .alt_m = x[2] };
	}
	if (*n == 0)
		return str_errorf(err, errlen, -EINVAL, "[flight] mission: no "
				  "waypoints");
	return 0;
}

int
campaign_param_value(const struct campaign *c, size_t i, size_t k,
		     double *value, char *err, size_t errlen)
{
	const struct campaign_vars v = { .c = c, .job = k, .slot = 0,
					 .dir = "" };
	char out[CAMPAIGN_VALUE_LEN * 2], *end;
	const struct campaign_param *q = &c->params[i];
	if (campaign_expand(q->value, &v, out, sizeof(out), err, errlen) < 0)
		return -EINVAL;
	errno = 0;
	*value = strtod(out, &end);
	if (end == out || *end || errno || !isfinite(*value)) {
		char job[CAMPAIGN_TEXT_LEN];
		if (campaign_job_name(c, k, job, sizeof(job)) < 0)
			job[0] = '\0';
		return str_errorf(err, errlen, -EINVAL, "[params] %s = %s: "
				  "job %zu (%s) gives '%s', not a number",
				  q->name, q->value, k, job, out);
	}
	return 0;
}

void
campaign_job_values(const struct campaign *c, size_t k,
		    const char *values[CAMPAIGN_MAX_AXES])
{
	size_t rest = k - 1;
	for (size_t i = c->naxes; i-- > 0;) {
		values[i] = c->axes[i].values[rest % c->axes[i].n];
		rest /= c->axes[i].n;
	}
}

int
campaign_job_name(const struct campaign *c, size_t k, char *buf, size_t len)
{
	const char *v[CAMPAIGN_MAX_AXES];
	size_t n = 0;
	campaign_job_values(c, k, v);
	buf[0] = '\0';
	for (size_t i = 0; i < c->naxes; i++) {
		int w = snprintf(buf + n, n < len ? len - n : 0, "%s%s=%s",
				 i ? " " : "", c->axes[i].name, v[i]);
		n += (size_t)w;
	}
	return n < len ? 0 : -ENOSPC;
}

unsigned
campaign_drive_port(const struct campaign *c, unsigned slot)
{
	return c->ports + 10u * slot;
}

unsigned
campaign_gcs_port(const struct campaign *c, unsigned slot)
{
	return c->ports + 10u * slot + 1u;
}

unsigned
campaign_barod_port(const struct campaign *c, unsigned slot)
{
	return c->ports + 10u * slot + 2u;
}

unsigned
campaign_instance(const struct campaign *c, unsigned slot)
{
	return c->instance_base + slot;
}

/* The barod links' and PX4's ports; -1 for another name. */
static long
link_var(const struct campaign_vars *v, const char *s, size_t k)
{
	const unsigned i = campaign_instance(v->c, v->slot);
#define IS(name) (k == strlen(name) && strncmp(s, name, k) == 0)
	if (IS("barod_port"))
		return (long)campaign_barod_port(v->c, v->slot);
	if (IS("sim_port"))
		return (long)(v->c->sim_port + i);
	if (IS("upstream_port"))
		return (long)(v->c->upstream_port + i);
	if (IS("px4_gcs_port"))
		return (long)(CAMPAIGN_PX4_GCS_PORT + i);
	if (IS("px4_offboard_port"))
		return (long)(CAMPAIGN_PX4_OFFBOARD_PORT + i);
#undef IS
	return -1;
}

int
campaign_expand(const char *tmpl, const struct campaign_vars *v, char *out,
		size_t len, char *err, size_t errlen)
{
	const char *vals[CAMPAIGN_MAX_AXES];
	size_t n = 0;
	campaign_job_values(v->c, v->job, vals);
	for (const char *s = tmpl; *s; s++) {
		char num[32];
		const char *put = NULL;
		size_t plen = 1;
		if (s[0] == '{' && s[1] == '{') {
			put = "{";
			s++;
		} else if (*s == '{') {
			const char *e = strchr(s, '}');
			if (!e)
				return str_errorf(err, errlen, -EINVAL, "'%s': "
						  "'{' without its '}'", tmpl);
			size_t k = (size_t)(e - s - 1);
#define IS(name) (k == strlen(name) && strncmp(s + 1, name, k) == 0)
			long num_v = -1;
			if (IS("instance"))
				num_v = (long)(v->c->instance_base + v->slot);
			else if (IS("slot"))
				num_v = (long)v->slot;
			else if (IS("drive_port"))
				num_v = (long)campaign_drive_port(v->c, v->slot);
			else if (IS("gcs_port"))
				num_v = (long)campaign_gcs_port(v->c, v->slot);
			else if (IS("job"))
				num_v = (long)v->job;
			else if (IS("dir"))
				put = v->dir;
			else
				num_v = link_var(v, s + 1, k);
			if (num_v >= 0) {
				snprintf(num, sizeof(num), "%ld", num_v);
				put = num;
			}
			for (size_t i = 0; !put && i < v->c->naxes; i++)
				if (IS(v->c->axes[i].name))
					put = vals[i];
#undef IS
			if (!put)
				return str_errorf(err, errlen, -EINVAL, "'%s': "
						  "{%.*s} is not a name here",
						  tmpl, (int)k, s + 1);
			s = e;
		} else {
			num[0] = *s;
			num[1] = '\0';
			put = num;
		}
		plen = strlen(put);
		if (n + plen >= len)
			return str_errorf(err, errlen, -ENOSPC, "'%.40s...' "
					  "expands to more than %zu "
					  "characters", tmpl, len - 1);
		memcpy(out + n, put, plen);
		n += plen;
	}
	out[n] = '\0';
	return 0;
}
