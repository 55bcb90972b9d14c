/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "drive-state.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "sim-params.h"
#include "util-strings.h"

/* Names a state file may hold: the SIM_* table's, PX4's offset and the
 * injection. */
static bool
known_name(const char *n)
{
	return sim_param_find(n) >= 0 ||
	       strcmp(n, DRIVE_PX4_OFFSET_PARAM) == 0 || strcmp(n, "baro") == 0;
}

int
drive_state_parse(const char *text, size_t len, const char *name,
		  enum drive_autopilot ap, struct drive_opts *o, char *err,
		  size_t errlen)
{
	char line[256];
	unsigned lineno = 0;
	size_t pos = 0;
	bool have_ap = false;

	o->nleft = 0;
	if (len > DRIVE_STATE_MAX)
		return str_errorf(err, errlen, -EINVAL,
				  "%s: %zu bytes, more than a state file "
				  "holds (%d)", name, len, DRIVE_STATE_MAX);
	while (pos < len) {
		size_t end = pos;
		while (end < len && text[end] != '\n')
			end++;
		lineno++;
		if (end - pos >= sizeof(line))
			return str_errorf(err, errlen, -EINVAL,
					  "%s:%u: line too long", name, lineno);
		if (memchr(text + pos, '\0', end - pos))
			return str_errorf(err, errlen, -EINVAL,
					  "%s:%u: a NUL byte: not a state file",
					  name, lineno);
		memcpy(line, text + pos, end - pos);
		line[end - pos] = '\0';
		pos = end + 1;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		char *w[3];
		int n = 0;
		char *save = NULL;
		for (char *t = strtok_r(line, " \t\r", &save); t;
		     t = strtok_r(NULL, " \t\r", &save)) {
			if (n == 3)
				return str_errorf(err, errlen, -EINVAL,
						  "%s:%u: expected NAME VALUE",
						  name, lineno);
			w[n++] = t;
		}
		if (n == 0)
			continue;
		if (n != 2)
			return str_errorf(err, errlen, -EINVAL,
					  "%s:%u: expected NAME VALUE", name,
					  lineno);
		if (strcmp(w[0], "autopilot") == 0) {
			enum drive_autopilot was;
			if (drive_autopilot_parse(w[1], &was) < 0)
				return str_errorf(err, errlen, -EINVAL,
						  "%s:%u: unknown autopilot "
						  "'%s'", name, lineno, w[1]);
			if (was != ap)
				return str_errorf(
					err, errlen, -EINVAL,
					"%s:%u: left by a drive of %s, not %s: "
					"repair that autopilot first", name,
					lineno, w[1], drive_autopilot_name(ap));
			have_ap = true;
			continue;
		}
		if (!known_name(w[0]))
			return str_errorf(err, errlen, -EINVAL,
					  "%s:%u: '%s' is no parameter "
					  "baro-drive changes", name, lineno,
					  w[0]);
		double v;
		if (str_to_double(w[1], &v) < 0 || !isfinite(v) ||
		    fabs(v) > 3.4e38)
			return str_errorf(err, errlen, -EINVAL,
					  "%s:%u: '%s' is not a value for %s",
					  name, lineno, w[1], w[0]);
		for (size_t i = 0; i < o->nleft; i++)
			if (strcmp(o->left[i].name, w[0]) == 0)
				return str_errorf(err, errlen, -EINVAL,
						  "%s:%u: %s named twice", name,
						  lineno, w[0]);
		if (o->nleft == DRIVE_MAX_SLOTS)
			return str_errorf(err, errlen, -EINVAL,
					  "%s:%u: more than %d names", name,
					  lineno, DRIVE_MAX_SLOTS);
		struct drive_left *l = &o->left[o->nleft++];
		snprintf(l->name, sizeof(l->name), "%s", w[0]);
		l->start = (float)v;
	}
	if (!have_ap && o->nleft)
		return str_errorf(err, errlen, -EINVAL,
				  "%s: no 'autopilot' line: whose values these "
				  "are is unknown", name);
	return 0;
}

size_t
drive_state_write(const struct drive *d, FILE *out)
{
	size_t n = 0;

	fprintf(out, "# baro-drive: changed on the autopilot; put back at "
		     "the next start\nautopilot %s\n",
		drive_autopilot_name(d->o.ap));
	for (size_t i = 0; i < d->nslots; i++) {
		const struct drive_slot *s = &d->slots[i];
		/* A value from the state file stays named until it is back. */
		if (!drive_dirty(s) && !(s->from_state && !s->known))
			continue;
		fprintf(out, "%s %.9g\n", s->name, (double)s->start);
		n++;
	}
	return n;
}
