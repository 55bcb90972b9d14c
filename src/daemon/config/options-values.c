/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The option table's value types: each parser checks a value against its
 * row (range, choices, size) and stores it; each printer writes the
 * row's "key = value" lines back (options-values.h). */
#include "options-values.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpio.h"
#include "util-strings.h"

/* ------------------------------------------------------------------ */
/* Storing */

static void *
field(const struct opt_row *r, void *base)
{
	return (char *)base + r->offset;
}

static const void *
cfield(const struct opt_row *r, const void *base)
{
	return (const char *)base + r->offset;
}

/* The integers of every width the table's fields have, through a union
 * so the bytes are the field's own on any byte order. */
union field_int {
	int8_t i8;
	uint8_t u8;
	uint16_t u16;
	int32_t i32;
	uint32_t u32;
	uint64_t u64;
};

static void
store_int(void *dst, size_t size, long long v)
{
	union field_int x;

	if (size == 1)
		x.u8 = (uint8_t)v;
	else if (size == 2)
		x.u16 = (uint16_t)v;
	else if (size == 8)
		x.u64 = (uint64_t)v;
	else
		x.u32 = (uint32_t)v;
	memcpy(dst, &x, size);
}

/* Read back as stored; 1- and 4-byte fields signed unless asked (they
 * hold enums or -1, which the table's unsigned fields never reach). */
static long long
load_int(const void *src, size_t size, bool is_unsigned)
{
	union field_int x;

	memcpy(&x, src, size);
	if (size == 1)
		return is_unsigned ? (long long)x.u8 : (long long)x.i8;
	if (size == 2)
		return x.u16;
	if (size == 8)
		return (long long)x.u64;
	return is_unsigned ? (long long)x.u32 : (long long)x.i32;
}

/* ------------------------------------------------------------------ */
/* The kinds: one rule each, from config-values.h */

static bool
is_uint(enum opt_kind k)
{
	return k == OPT_UINT || k == OPT_UINT_SET || k == OPT_PORT ||
	       k == OPT_POW2 || k == OPT_OCTAL;
}

int
opt_parse_value(const struct opt_row *r, void *base, const char *value,
		char *why, size_t whylen)
{
	void *f = field(r, base);
	unsigned long u;
	double x = RATE_EVERY_SAMPLE;
	char *end;

	switch (r->kind) {
	case OPT_OCTAL:
		if (!*value || strspn(value, "01234567") != strlen(value) ||
		    (u = strtoul(value, &end, 8), *end) || (double)u > r->hi)
			return -EINVAL;
		break;
	case OPT_UINT:
	case OPT_UINT_SET:
	case OPT_PORT:
	case OPT_POW2:
		/* Oversampling and IIR: powers of two (0 = the driver's
		 * default), as every family's registers count them. */
		if (config_parse_uint(value, (unsigned long)r->lo,
				      (unsigned long)r->hi, &u) == 0 &&
		    (r->kind != OPT_POW2 || (u & (u - 1)) == 0))
			break;
		/* A port needs room for every instance above it. */
		if (r->kind == OPT_PORT)
			snprintf(why, whylen, "bad port, expected 1..%.0f (the "
				 "last instance's port must be one too)", r->hi);
		return -EINVAL;
	case OPT_RATE:	/* "all" (every sample), or Hz */
	case OPT_DOUBLE:
		if ((r->kind != OPT_RATE || strcmp(value, "all") != 0) &&
		    (str_to_double(value, &x) < 0 ||
		     !(x >= r->lo && x <= r->hi)))
			return -EINVAL;
		memcpy(f, &x, sizeof(x));
		return 0;
	case OPT_SPEED_FACTOR:
		return config_parse_speed_factor(value, f);
	case OPT_ADDRESS:
	case OPT_ABS_PATH:
	case OPT_STRING:	/* at least lo characters, fits the field */
		if ((r->kind == OPT_ADDRESS && config_check_address(value) < 0) ||
		    (r->kind == OPT_ABS_PATH && value[0] != '/') ||
		    (double)strlen(value) < r->lo || strlen(value) >= r->size)
			return -EINVAL;
		strcpy(f, value);
		return 0;
	case OPT_CHOICE:
		for (const struct opt_choice *c = r->choices; c->name; c++) {
			if (strcmp(value, c->name) == 0) {
				store_int(f, r->size, c->value);
				return 0;
			}
		}
		return -EINVAL;
	case OPT_BAUD:
		return config_parse_baud(value, f);
	case OPT_BUS:
		return config_parse_bus(value, f, r->size);
	case OPT_I2C_ADDRESS:
		return config_parse_i2c_address(value, f);
	case OPT_FLAG:
		*(bool *)f = true;
		return 0;
	case OPT_ARG:	/* kept as the command line gave it */
		*(const char **)f = value;
		return 0;
	default:
		return -EINVAL;
	}
	store_int(f, r->size, (long long)u);
	return 0;
}

void
opt_format_value(const struct opt_row *r, const void *base, FILE *out)
{
	const void *f = cfield(r, base);
	const long long i = is_uint(r->kind) ? load_int(f, r->size, true) : 0;
	double x;
	char buf[32];

	switch (r->kind) {
	case OPT_UINT_SET:	/* 0: not set (a driver's default) */
	case OPT_POW2:
		if (i == 0)
			return;
		/* fall through */
	case OPT_UINT:
	case OPT_PORT:
		fprintf(out, "%s = %lld\n", r->key, i);
		return;
	case OPT_OCTAL:
		fprintf(out, "%s = 0%llo\n", r->key, (unsigned long long)i);
		return;
	case OPT_RATE:
	case OPT_DOUBLE:
	case OPT_SPEED_FACTOR:
		memcpy(&x, f, sizeof(x));
		if (isnan(x) || (r->kind == OPT_RATE && x == RATE_UNSET))
			return;
		if (r->kind == OPT_RATE && x == RATE_EVERY_SAMPLE)
			snprintf(buf, sizeof(buf), "all");
		else
			config_format_double(x, buf, sizeof(buf));
		fprintf(out, "%s = %s\n", r->key, buf);
		return;
	case OPT_ADDRESS:
	case OPT_ABS_PATH:
	case OPT_STRING:
	case OPT_BUS:
		if (*(const char *)f)
			fprintf(out, "%s = %s\n", r->key, (const char *)f);
		return;
	case OPT_CHOICE: {
		/* bool fields unsigned, enums and ints signed */
		const long long v = load_int(f, r->size, r->size == 1);
		for (const struct opt_choice *c = r->choices; c->name; c++) {
			if (c->value == v) {
				fprintf(out, "%s = %s\n", r->key, c->name);
				return;
			}
		}
		return;
	}
	case OPT_BAUD:
		fprintf(out, "%s = %u\n", r->key, *(const unsigned *)f);
		return;
	case OPT_I2C_ADDRESS:
		if (*(const uint8_t *)f)
			fprintf(out, "%s = 0x%02x\n", r->key,
				*(const uint8_t *)f);
		return;
	default:
		return;
	}
}

/* ------------------------------------------------------------------ */
/* Rows with a parser or a printer of their own */

OPT_PRINTER(opt_fmt_source)
{
	const struct config *c = base;

	if (c->source != CONFIG_SOURCE_NONE)
		fprintf(out, "%s = %s\n", r->key, config_source_name(c->source));
}

/* --sim, --hardware ...; the proxies' value is their upstream. */
OPT_PARSER(opt_parse_source_flag)
{
	struct config *c = base;

	if (r->metavar && opt_parse_value(r, base, value, why, whylen) < 0)
		return -EINVAL;
	c->source = (enum config_source)r->arg;
	return 0;
}

OPT_PARSER(opt_parse_profile)
{
	return truth_profile_parse(value, field(r, base), why, whylen);
}

OPT_PRINTER(opt_fmt_profile)
{
	static const char *const kinds[] = { "static", "climb", "step",
					     "sine", "takeoff" };
	static const int nargs[] = { 1, 2, 3, 3, 4 };
	const struct truth_profile *p = cfield(r, base);
	const double v[4] = { p->a, p->b, p->c, p->d };
	char buf[32];

	if ((unsigned)p->kind >= 5)
		return;
	fprintf(out, "%s = %s", r->key, kinds[p->kind]);
	for (int k = 0; k < nargs[p->kind]; k++) {
		config_format_double(v[k], buf, sizeof(buf));
		fprintf(out, ":%s", buf);
	}
	fputc('\n', out);
}

/* A throttle term, T or airborne:T, checked here and laid over the
 * profile by config_resolve (so it outlasts a profile given after it). */
OPT_PARSER(opt_parse_throttle)
{
	struct truth_profile scratch = { 0 };
	char *dst = field(r, base);

	if (truth_profile_parse_throttle(value, &scratch, why, whylen) < 0)
		return -EINVAL;
	if (strlen(value) >= r->size) {
		snprintf(why, whylen, "throttle '%s' is too long", value);
		return -EINVAL;
	}
	strcpy(dst, value);
	return 0;
}

/* rng_N = INSTANCE in the file, --rng N=INSTANCE on the command line. */
OPT_PARSER(opt_parse_rng)
{
	int *rng = field(r, base);
	int n;

	if (key) {
		n = key[4] - '1';
	} else {
		if (value[0] < '1' || value[0] > '6' || value[1] != '=') {
			snprintf(why, whylen, "expected N=INSTANCE with N "
				 "1..6");
			return -EINVAL;
		}
		n = value[0] - '1';
		value += 2;
	}
	return config_parse_rng(value, &rng[n]);
}

OPT_PRINTER(opt_fmt_rng)
{
	const int *rng = cfield(r, base);

	for (int n = 0; n < 6; n++) {
		if (rng[n] < 0)
			fprintf(out, "rng_%d = none\n", n + 1);
		else
			fprintf(out, "rng_%d = %d\n", n + 1, rng[n]);
	}
}

/* SIM_NAME = VALUE in the file, -p SIM_NAME=VALUE on the command line. */
OPT_PARSER(opt_parse_sim_param)
{
	char assignment[256];

	if (key) {
		snprintf(assignment, sizeof(assignment), "%s=%s", key, value);
		value = assignment;
	}
	return sim_param_assign(field(r, base), value, why, whylen);
}

/* Those that differ from ArduPilot's defaults. */
OPT_PRINTER(opt_fmt_sim_params)
{
	const struct sim_params *p = cfield(r, base);
	struct sim_params def;

	sim_params_defaults(&def);
	for (size_t i = 0; i < sim_param_count(); i++) {
		float v = sim_param_get(p, i), d = sim_param_get(&def, i);
		if (memcmp(&v, &d, sizeof(v)) != 0)
			fprintf(out, "%s = %.9g\n", sim_param_info(i)->name,
				(double)v);
	}
}

/* -o SPEC: one more output, after the others the command line gave. */
OPT_PARSER(opt_parse_output_spec)
{
	struct config *c = base;

	if (c->n_outputs == CONFIG_MAX_OUTPUTS) {
		snprintf(why, whylen, "more than %d outputs",
			 CONFIG_MAX_OUTPUTS);
		return -EINVAL;
	}
	if (config_parse_output(value, &c->outputs[c->n_outputs], why,
				whylen) < 0)
		return -EINVAL;
	c->n_outputs++;
	return 0;
}

OPT_PRINTER(opt_fmt_output_type)
{
	const struct config_output *o = base;

	fprintf(out, "type = %s\n", output_type_is_msp(o->type)
					    ? "msp"
					    : config_output_type_name(o->type));
}

OPT_PRINTER(opt_fmt_transport)
{
	const struct config_output *o = base;

	if (o->type == OUTPUT_MSP_TCP || o->type == OUTPUT_MSP_UDP)
		fprintf(out, "transport = %s\n",
			o->type == OUTPUT_MSP_TCP ? "tcp" : "udp");
}

OPT_PRINTER(opt_fmt_baud)
{
	const struct config_output *o = base;

	if (o->device[0])
		opt_format_value(r, base, out);
}

OPT_PARSER(opt_parse_msp_instances)
{
	return config_parse_msp_instances(
		value, ((struct config_output *)base)->msp.map, why, whylen);
}

OPT_PRINTER(opt_fmt_msp_instances)
{
	const struct config_output *o = base;
	bool all = true, first = true;

	for (int i = 0; i < BARO_MAX_INSTANCES; i++)
		all &= o->msp.map[i] == i;
	if (all) {
		fputs("instances = all\n", out);
		return;
	}
	fputs("instances = ", out);
	for (int i = 0; i < BARO_MAX_INSTANCES; i++) {
		if (o->msp.map[i] < 0)
			continue;
		fprintf(out, "%s%d=%d", first ? "" : ",", i, o->msp.map[i]);
		first = false;
	}
	fputc('\n', out);
}

OPT_PARSER(opt_parse_driver)
{
	size_t n = 0;

	if (baro_driver_find(value) != NULL && strlen(value) < r->size) {
		strcpy(field(r, base), value);
		return 0;
	}
	n = (size_t)snprintf(why, whylen, "known drivers: ");
	for (size_t i = 0; baro_drivers[i] != NULL && n < whylen; i++) {
		int w = snprintf(why + n, whylen - n, "%s%s", i ? ", " : "",
				 baro_drivers[i]->name);
		if (w < 0)
			break;
		n += (size_t)w;
	}
	return -EINVAL;
}

/* drdy and power: CHIPLABEL:LINENAME.  A drdy line makes the chip drive
 * its pin, active high unless drdy_active says otherwise. */
OPT_PARSER(opt_parse_gpio_line)
{
	struct config_sensor *s = base;

	if (baro_gpio_parse_spec(value, NULL, 0, NULL, 0) < 0 ||
	    strlen(value) >= r->size)
		return -EINVAL;
	strcpy(field(r, base), value);
	if (r->arg && s->settings.drdy == BARO_DRDY_OFF)
		s->settings.drdy = BARO_DRDY_ACTIVE_HIGH;
	return 0;
}

/* drdy_active and drdy_drive say something only with a drdy line. */
OPT_PRINTER(opt_fmt_drdy_choice)
{
	if (((const struct config_sensor *)base)->drdy[0])
		opt_format_value(r, base, out);
}
