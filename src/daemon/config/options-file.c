/* SPDX-License-Identifier: GPL-3.0-or-later */
/* barod.conf: libinih's pass over the file, every key through its row
 * of the option table, then the checks that span a section's keys (an
 * output's, a sensor's). */
#include "options.h"

#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <string.h>

#include "util-strings.h"

/* State of one parse: libinih's handler has no line number, so our own
 * reader counts lines and the handler reads the count. */
struct parse {
	struct config *c;
	const char *name;	/* file name for messages */
	FILE *file;		/* file source, or */
	const char *text;	/* string source */
	unsigned line, fail_line;	/* the line of the error reported */
	bool failed;
	int rc;
	char *err;
	size_t errlen;
	unsigned output_line[CONFIG_MAX_OUTPUTS];
	unsigned sensor_line[CONFIG_MAX_SENSORS];
	/* type = msp in this file; the transport is settled by
	 * check_outputs once every key of the section is known. */
	bool msp_type[CONFIG_MAX_OUTPUTS];
	const char *msp_key[CONFIG_MAX_OUTPUTS];	/* an MSP-only key set */
};

/* The first error wins; 0, for libinih's handler to return. */
static int __attribute__((format(printf, 3, 4)))
fail(struct parse *p, int rc, const char *fmt, ...)
{
	va_list ap;

	if (p->failed)
		return 0;
	p->failed = true;
	p->fail_line = p->line;
	p->rc = rc;
	va_start(ap, fmt);
	(void)str_line_verrorf(p->err, p->errlen, rc, p->name, p->line, fmt,
			       ap);
	va_end(ap);
	return 0;
}

/* fgets-style reader for libinih that counts lines and refuses a line
 * longer than the buffer instead of letting it split in two. */
static char *
read_line(char *str, int num, void *stream)
{
	struct parse *p = stream;
	int n = 0, c = EOF;

	while (n < num - 1) {
		c = p->file ? getc(p->file)
			    : *p->text ? (unsigned char)*p->text++ : EOF;
		if (c == EOF)
			break;
		if (c == '\0') {
			p->line++;
			fail(p, -EINVAL, "NUL byte in text");
			return NULL;
		}
		str[n++] = (char)c;
		if (c == '\n')
			break;
	}
	if (p->failed || (n == 0 && c == EOF))
		return NULL;
	p->line++;
	if (c != '\n' && c != EOF && n == num - 1) {
		fail(p, -EINVAL, "line longer than %d characters", num - 3);
		return NULL;
	}
	str[n] = '\0';
	return str;
}

/* [output NAME] or [sensor NAME]: the one of that name, or a new one
 * with its defaults (name is both structs' first field). */
static void *
entry_for(struct parse *p, bool output, const char *name)
{
	struct config *c = p->c;
	size_t *n = output ? &c->n_outputs : &c->n_sensors;
	const size_t size = output ? sizeof(c->outputs[0])
				   : sizeof(c->sensors[0]);
	const size_t max = output ? CONFIG_MAX_OUTPUTS : CONFIG_MAX_SENSORS;
	char *first = output ? (char *)c->outputs : (char *)c->sensors;

	for (size_t i = 0; i < *n; i++) {
		if (strcmp(first + i * size, name) == 0)
			return first + i * size;
	}
	if (*n == max) {
		fail(p, -E2BIG, "more than %zu %s", max, output ? "outputs"
		     : "sensors (MAVLink has SCALED_PRESSURE..3)");
		return NULL;
	}
	if (strlen(name) >= CONFIG_NAME_MAX || !*name) {
		fail(p, -EINVAL, "%s name '%s' is empty or too long",
		     output ? "output" : "sensor", name);
		return NULL;
	}
	char *e = first + *n * size;
	if (output) {
		config_output_defaults((struct config_output *)e);
		((struct config_output *)e)->type = (enum output_type)-1;
		p->output_line[*n] = p->line;
		p->msp_type[*n] = false;
		p->msp_key[*n] = NULL;
	} else {
		memset(e, 0, size);
		((struct config_sensor *)e)->instance = -1;
		p->sensor_line[*n] = p->line;
	}
	strcpy(e, name);
	(*n)++;
	return e;
}

/* "output NAME" (or "output:NAME"): NAME, else NULL. */
static const char *
section_name(const char *section, const char *kind)
{
	size_t n = strlen(kind);

	if (strncmp(section, kind, n) != 0 ||
	    (section[n] != ' ' && section[n] != ':'))
		return NULL;
	return section + n + 1 + strspn(section + n + 1, " ");
}

/* Every key goes through its row of the option table: the table knows
 * the sections, the keys, their ranges and their messages. */
static int
handler(void *user, const char *section, const char *key, const char *value)
{
	struct parse *p = user;
	const char *kind = section, *name;
	void *base = p->c;
	char list[512];

	if (p->failed)
		return 1;
	if ((name = section_name(section, "output")) != NULL)
		kind = "output";
	else if ((name = section_name(section, "sensor")) != NULL)
		kind = "sensor";
	else if (*section == '\0')
		return fail(p, -EINVAL, "'%s' outside any [section]", key);
	else if (!options_section_known(section)) {
		options_section_list(list, sizeof(list));
		return fail(p, -EINVAL, "unknown section [%s] (%s)", section,
			    list);
	}
	if (name && !(base = entry_for(p, kind[0] == 'o', name)))
		return 0;
	const struct opt_row *r = options_find_key(kind, key);
	if (!r) {
		options_key_list(kind, list, sizeof(list));
		return fail(p, -EINVAL, "unknown key '%s' in [%s%s%s]; valid "
			    "keys are %s", key, kind, name ? " " : "",
			    name ? name : "", list);
	}
	if (options_set(r, base, key, value, NULL, list, sizeof(list)) < 0)
		return fail(p, -EINVAL, "%s", list);
	const size_t row = options_index(r);
	p->c->given[row / 8] |= (uint8_t)(1u << (row % 8));
	if (!name)
		options_note_origin(r, p->c, "barod.conf");
	if (kind[0] == 'o') {
		const struct config_output *o = base;
		const size_t i = (size_t)(o - p->c->outputs);
		if (r->flags & OPT_MSP)
			p->msp_key[i] = r->key;
		if (r->flags & OPT_OUTPUT_TYPE)
			p->msp_type[i] = o->type == OUTPUT_MSP_SERIAL;
	}
	return 1;
}

/* type = msp: a device (serial) or an address (tcp, the default, or
 * udp), and no MAVLink rates; MSP keys only on MSP outputs. */
static int
check_msp_output(struct parse *p, size_t i)
{
	struct config_output *o = &p->c->outputs[i];
	const char *why = NULL;

	if (!output_type_is_msp(o->type))
		return p->msp_key[i] ? fail(p, -EINVAL, "[output %s]: %s "
					    "applies to type = msp only",
					    o->name, p->msp_key[i]) : 0;
	if (o->rates.heartbeat_hz != RATE_UNSET ||
	    o->rates.scaled_pressure_hz != RATE_UNSET ||
	    o->rates.hil_sensor_hz != RATE_UNSET)
		why = "an msp output carries no MAVLink; rate_hz sets its rate";
	else if (!p->msp_type[i])
		return 0;	/* settled by an earlier file */
	else if (o->device[0] && o->address[0])
		why = "msp takes a device or an address, not both";
	else if (!o->device[0] && !o->address[0])
		why = "msp needs a device (serial) or an address (transport "
		      "tcp or udp)";
	else if (o->device[0] && o->msp.transport)
		why = "transport is for an address; a device is serial";
	else if (o->address[0] && o->baud)
		why = "baud is for a device";
	if (why)
		return fail(p, -EINVAL, "[output %s]: %s", o->name, why);
	if (o->device[0]) {
		o->type = OUTPUT_MSP_SERIAL;
		o->baud = o->baud ? o->baud : 115200;
	} else {
		o->msp.transport = o->msp.transport ? o->msp.transport
						    : CONFIG_MSP_TCP;
		o->type = o->msp.transport == CONFIG_MSP_UDP ? OUTPUT_MSP_UDP
							     : OUTPUT_MSP_TCP;
	}
	p->msp_type[i] = false;
	return 0;
}

static int
check_outputs(struct parse *p)
{
	for (size_t i = 0; i < p->c->n_outputs && !p->failed; i++) {
		const struct config_output *o = &p->c->outputs[i];
		const bool serial = config_output_info(o->type)->wire ==
				    WIRE_SERIAL;
		p->line = p->output_line[i];
		if ((int)o->type == -1)
			return fail(p, -EINVAL, "[output %s] has no type",
				    o->name);
		check_msp_output(p, i);
		if (p->failed || output_type_is_msp(o->type))
			continue;
		if (!serial && !o->address[0])
			return fail(p, -EINVAL, "[output %s] needs an address",
				    o->name);
		if (serial && !o->device[0])
			return fail(p, -EINVAL, "[output %s] needs a device",
				    o->name);
		if (o->type == OUTPUT_UDP_CLIENT &&
		    config_address_unspecified(o->address))
			return fail(p, -EINVAL, "[output %s]: type = udp-client "
				    "sends to its address, and %s is nowhere to "
				    "send to; to listen there and answer whoever "
				    "sends (MAVProxy's udpin:), use type = "
				    "udp-server", o->name, o->address);
		if (o->type == OUTPUT_TCP_CLIENT &&
		    config_address_unspecified(o->address))
			return fail(p, -EINVAL, "[output %s]: type = tcp-client "
				    "connects to its address, and %s is nowhere "
				    "to connect to; to listen there for a GCS "
				    "(MAVProxy's tcpin:), use type = tcp-server",
				    o->name, o->address);
	}
	return 0;
}

/* Each sensor is complete, and instances not given take the lowest free
 * ones in file order. */
static int
check_sensors(struct parse *p)
{
	struct config *c = p->c;
	bool taken[BARO_MAX_INSTANCES] = { false };
	char why[160];

	for (size_t i = 0; i < c->n_sensors; i++) {
		const struct config_sensor *s = &c->sensors[i];
		p->line = p->sensor_line[i];
		if (s->iio[0] && (s->bus[0] || s->address || s->driver[0] ||
				  s->drdy[0]))
			return fail(p, -EINVAL, "[sensor %s]: iio reads a chip "
				    "the kernel drives; bus, address, driver "
				    "and drdy do not apply", s->name);
		if (!s->iio[0] && (!s->bus[0] || !s->address))
			return fail(p, -EINVAL, "[sensor %s] needs bus and "
				    "address (or iio)", s->name);
		if (!s->drdy[0] && (s->settings.drdy != BARO_DRDY_OFF ||
				    s->settings.drdy_open_drain))
			return fail(p, -EINVAL, "[sensor %s]: drdy_active and "
				    "drdy_drive set up a drdy line, and there "
				    "is none", s->name);
		if (!s->power[0] && s->power_off_ms)
			return fail(p, -EINVAL, "[sensor %s]: power_off_ms "
				    "needs a power line", s->name);
		if (s->driver[0] &&
		    baro_drdy_check(baro_driver_find(s->driver), NULL,
				    &s->settings, why, sizeof(why)) < 0)
			return fail(p, -EINVAL, "[sensor %s]: drdy: %s", s->name,
				    why);
		if (s->instance >= 0 && taken[s->instance])
			return fail(p, -EINVAL, "[sensor %s]: instance %d is "
				    "taken by another sensor", s->name,
				    s->instance);
		if (s->instance >= 0)
			taken[s->instance] = true;
	}
	for (size_t i = 0, k = 0; i < c->n_sensors; i++) {
		if (c->sensors[i].instance >= 0)
			continue;
		while (taken[k])
			k++;
		c->sensors[i].instance = (int)k;
		taken[k] = true;
	}
	return 0;
}

static int
load(struct parse *p)
{
	int line = ini_parse_stream(read_line, p, handler, p);

	/* libinih goes on after a syntax error and returns the first one's
	 * line at the end, while our handler's errors stop it at once: a
	 * syntax error on an earlier line than ours is the first error. */
	if (p->failed && line > 0 && (unsigned)line < p->fail_line)
		p->failed = false;
	if (!p->failed && line != 0) {
		p->line = line > 0 ? (unsigned)line : p->line;
		fail(p, line == -2 ? -ENOMEM : -EINVAL, "%s", line == -2
		     ? "out of memory"
		     : "syntax error: expected [section] or key = value");
	}
	if (!p->failed && check_outputs(p) == 0 && !p->failed)
		check_sensors(p);
	return p->failed ? p->rc : 0;
}

int
config_load_file(struct config *c, const char *path, char *err, size_t errlen)
{
	struct parse p = { .c = c, .name = path, .err = err, .errlen = errlen };
	int rc;

	if (!(p.file = fopen(path, "r")))
		return str_errorf(err, errlen, -errno, "%s: %s", path,
				  strerror(errno));
	if ((rc = load(&p)) == 0 && ferror(p.file))
		rc = str_errorf(err, errlen, -EIO, "%s: read error", path);
	fclose(p.file);
	return rc;
}

int
config_load_string(struct config *c, const char *text, const char *name,
		   char *err, size_t errlen)
{
	struct parse p = { .c = c, .name = name, .text = text, .err = err,
			   .errlen = errlen };

	return load(&p);
}
