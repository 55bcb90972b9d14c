/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The option table's value kinds: each parses a value against its row
 * (range, choices, size) into the row's field and prints the row's
 * "key = value" lines back (options-values.h). */
#include "options-values.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpio.h"
#include "util-strings.h"

/* The table's integer fields are 1, 2, 4 or 8 bytes; 1- and 4-byte ones
 * are read back signed unless asked (they hold enums or -1, which the
 * unsigned fields never reach). */
static void
store_int(void *dst, size_t size, long long v)
{
	int8_t i8 = (int8_t)v;
	int16_t i16 = (int16_t)v;
	int32_t i32 = (int32_t)v;

	memcpy(dst, size == 1 ? (void *)&i8 : size == 2 ? (void *)&i16
		    : size == 4 ? (void *)&i32 : (void *)&v, size);
}

static long long
load_int(const void *src, size_t size, bool is_unsigned)
{
	int8_t i8;
	uint16_t u16;
	int32_t i32;
	long long v;

	switch (size) {
	case 1:
		memcpy(&i8, src, 1);
		return is_unsigned ? (long long)(uint8_t)i8 : i8;
	case 2:
		memcpy(&u16, src, 2);
		return u16;
	case 4:
		memcpy(&i32, src, 4);
		return is_unsigned ? (long long)(uint32_t)i32 : i32;
	case 8:
		memcpy(&v, src, sizeof(v));
		return v;
	default:	/* not an integer */
		return 0;
	}
}

const char *
opt_expect(const struct opt_row *r, char *buf, size_t len)
{
	if (r->expect)
		return r->expect;
	snprintf(buf, len, "%.0f..%.0f", r->lo, r->hi);
	return buf;
}

static int
parse_source_name(const char *value, struct config *c, char *why,
		  size_t whylen)
{
	int n = snprintf(why, whylen, "supported sources: ");

	for (int s = CONFIG_SOURCE_NONE + 1; s < CONFIG_SOURCE_COUNT; s++) {
		const char *name = config_source_name((enum config_source)s);
		if (strcmp(name, value) == 0) {
			c->source = (enum config_source)s;
			return 0;
		}
	}
	/* In the order the documentation lists them. */
	for (size_t i = 0; i < CONFIG_SOURCE_COUNT - 1 && n > 0 &&
			   (size_t)n < whylen; i++)
		n += snprintf(why + n, whylen - (size_t)n, "%s%s", i ? ", " : "",
			      config_source_name(config_source_order[i]));
	return -EINVAL;
}

/* rng_N = INSTANCE in the file, --rng N=INSTANCE on the command line. */
static int
parse_rng(int *rng, const char *key, const char *value, char *why,
	  size_t whylen)
{
	int n = key ? key[4] - '1' : value[0] - '1';

	if (!key && (n < 0 || n > 5 || value[1] != '='))
		return str_errorf(why, whylen, -EINVAL,
				  "expected N=INSTANCE with N 1..6");
	return config_parse_rng(key ? value : value + 2, &rng[n]);
}

static int
parse_driver(const struct opt_row *r, char *f, const char *value, char *why,
	     size_t whylen)
{
	size_t n = (size_t)snprintf(why, whylen, "known drivers: ");

	if (baro_driver_find(value) != NULL && strlen(value) < r->size) {
		why[0] = '\0';
		strcpy(f, value);
		return 0;
	}
	for (size_t i = 0; baro_drivers[i] != NULL && n < whylen; i++)
		n += (size_t)snprintf(why + n, whylen - n, "%s%s", i ? ", " : "",
				      baro_drivers[i]->name);
	return -EINVAL;
}

int
opt_parse_value(const struct opt_row *r, void *base, const char *key,
		const char *value, char *why, size_t whylen)
{
	void *f = (char *)base + r->offset;
	unsigned long u;
	double x = RATE_EVERY_SAMPLE;
	char *end, text[256];
	struct truth_profile scratch = { 0 };

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
	case OPT_THROTTLE:	/* laid over the profile by config_resolve */
		if (truth_profile_parse_throttle(value, &scratch, why,
						 whylen) < 0)
			return -EINVAL;
		if (strlen(value) >= r->size)
			return str_errorf(why, whylen, -EINVAL,
					  "throttle '%s' is too long", value);
		/* fall through */
	case OPT_ADDRESS:
	case OPT_ABS_PATH:
	case OPT_STRING:	/* at least lo characters, fits the field */
	case OPT_GPIO_LINE:
		if ((r->kind == OPT_ADDRESS && config_check_address(value) < 0) ||
		    (r->kind == OPT_ABS_PATH && value[0] != '/') ||
		    (r->kind == OPT_GPIO_LINE &&
		     baro_gpio_parse_spec(value, NULL, 0, NULL, 0) < 0) ||
		    (double)strlen(value) < r->lo || strlen(value) >= r->size)
			return -EINVAL;
		strcpy(f, value);
		/* A drdy line makes the chip drive its pin, active high
		 * unless drdy_active says otherwise. */
		if (r->kind == OPT_GPIO_LINE && r->arg &&
		    ((struct config_sensor *)base)->settings.drdy ==
			    BARO_DRDY_OFF)
			((struct config_sensor *)base)->settings.drdy =
				BARO_DRDY_ACTIVE_HIGH;
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
	case OPT_SOURCE_NAME:
		return parse_source_name(value, base, why, whylen);
	case OPT_SOURCE_FLAG:	/* the proxies' value is their upstream */
		if (r->metavar && (config_check_address(value) < 0 ||
				   strlen(value) >= r->size))
			return -EINVAL;
		if (r->metavar)
			strcpy(f, value);
		((struct config *)base)->source = (enum config_source)r->arg;
		return 0;
	case OPT_PROFILE:
		return truth_profile_parse(value, f, why, whylen);
	case OPT_ARDUPILOT:
		return baro_sitl_ardupilot_parse(value, f);
	case OPT_RNG:
		return parse_rng(f, key, value, why, whylen);
	case OPT_SIM_PARAM:
		if (key) {
			snprintf(text, sizeof(text), "%s=%s", key, value);
			value = text;
		}
		return sim_param_assign(f, value, why, whylen);
	case OPT_OUTPUT_SPEC: {	/* after the others the command line gave */
		struct config *c = base;
		if (c->n_outputs == CONFIG_MAX_OUTPUTS)
			return str_errorf(why, whylen, -EINVAL,
					  "more than %d outputs",
					  CONFIG_MAX_OUTPUTS);
		if (config_parse_output(value, &c->outputs[c->n_outputs], why,
					whylen) < 0)
			return -EINVAL;
		c->n_outputs++;
		return 0;
	}
	case OPT_MSP_MAP:
		return config_parse_msp_instances(value, f, why, whylen);
	case OPT_DRIVER:
		return parse_driver(r, f, value, why, whylen);
	default:
		return -EINVAL;
	}
	store_int(f, r->size, (long long)u);
	return 0;
}

static void
format_profile(const struct truth_profile *p, char *buf, size_t len)
{
	static const char *const kinds[] = { "static", "climb", "step",
					     "sine", "takeoff" };
	static const int nargs[] = { 1, 2, 3, 3, 4 };
	const double v[4] = { p->a, p->b, p->c, p->d };
	int n = snprintf(buf, len, "%s", kinds[p->kind]);

	for (int k = 0; k < nargs[p->kind] && n > 0 && (size_t)n < len; k++) {
		buf[n++] = ':';
		config_format_double(v[k], buf + n, len - (size_t)n);
		n += (int)strlen(buf + n);
	}
}

/* The value as text in buf, or "" for none: the kinds of one line. */
static void
format_one(const struct opt_row *r, const void *f, char *buf, size_t len)
{
	const long long i = load_int(f, r->size, r->kind != OPT_CHOICE ||
						   r->size == 1);
	double x;

	buf[0] = '\0';
	switch (r->kind) {
	case OPT_UINT_SET:	/* 0: not set (a driver's default) */
	case OPT_POW2:
	case OPT_I2C_ADDRESS:
		if (i == 0)
			return;
		/* fall through */
	case OPT_UINT:
	case OPT_PORT:
	case OPT_BAUD:
		snprintf(buf, len, r->kind == OPT_I2C_ADDRESS ? "0x%02llx"
			 : "%lld", i);
		return;
	case OPT_OCTAL:
		snprintf(buf, len, "0%llo", (unsigned long long)i);
		return;
	case OPT_RATE:
	case OPT_DOUBLE:
	case OPT_SPEED_FACTOR:
		memcpy(&x, f, sizeof(x));
		if (isnan(x) || (r->kind == OPT_RATE && x == RATE_UNSET))
			return;
		if (r->kind == OPT_RATE && x == RATE_EVERY_SAMPLE)
			snprintf(buf, len, "all");
		else
			config_format_double(x, buf, len);
		return;
	case OPT_ADDRESS:
	case OPT_ABS_PATH:
	case OPT_STRING:
	case OPT_BUS:
	case OPT_THROTTLE:
	case OPT_GPIO_LINE:
	case OPT_DRIVER:
		snprintf(buf, len, "%s", (const char *)f);
		return;
	case OPT_CHOICE:	/* bool fields unsigned, enums and ints signed */
		for (const struct opt_choice *c = r->choices; c->name; c++) {
			if (c->value == i) {
				snprintf(buf, len, "%s", c->name);
				return;
			}
		}
		return;
	case OPT_SOURCE_NAME:
		if (*(const enum config_source *)f != CONFIG_SOURCE_NONE)
			snprintf(buf, len, "%s", config_source_name(
				 *(const enum config_source *)f));
		return;
	case OPT_PROFILE:
		if ((unsigned)((const struct truth_profile *)f)->kind < 5)
			format_profile(f, buf, len);
		return;
	case OPT_ARDUPILOT:
		snprintf(buf, len, "%s", baro_sitl_ardupilot_name(
			 *(const enum baro_sitl_ardupilot *)f));
		return;
	default:
		return;
	}
}

void
opt_format_value(const struct opt_row *r, const void *base, FILE *out)
{
	const void *f = (const char *)base + r->offset;
	char buf[320];

	if (r->shown_if && !((const char *)base)[r->shown_if])
		return;
	if (r->kind == OPT_RNG) {
		for (int n = 0; n < 6; n++) {
			const int v = ((const int *)f)[n];
			fprintf(out, v < 0 ? "rng_%d = none\n" : "rng_%d = %d\n",
				n + 1, v);
		}
	} else if (r->kind == OPT_SIM_PARAM) {
		/* Those that differ from ArduPilot's defaults. */
		struct sim_params def;
		sim_params_defaults(&def);
		for (size_t i = 0; i < sim_param_count(); i++) {
			float v = sim_param_get(f, i), d = sim_param_get(&def, i);
			if (memcmp(&v, &d, sizeof(v)) != 0)
				fprintf(out, "%s = %.9g\n",
					sim_param_info(i)->name, (double)v);
		}
	} else if (r->kind == OPT_MSP_MAP) {
		const int8_t *map = f;
		bool all = true;
		int n = 0;
		buf[0] = '\0';
		for (int i = 0; i < BARO_MAX_INSTANCES; i++) {
			all &= map[i] == i;
			if (map[i] >= 0)
				n += snprintf(buf + n, sizeof(buf) - (size_t)n,
					      "%s%d=%d", n ? "," : "", i, map[i]);
		}
		fprintf(out, "%s = %s\n", r->key, all ? "all" : buf);
	} else {
		format_one(r, f, buf, sizeof(buf));
		if (buf[0])
			fprintf(out, "%s = %s\n", r->key, buf);
	}
}
