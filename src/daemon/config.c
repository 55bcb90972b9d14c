/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "px4-throttle.h"
#include "px4-vehicle.h"
#include "sitl-json.h"
#include "util-strings.h"

/* State of one parse: libinih's handler has no line number, so our own
 * reader counts lines and the handler reads the count. */
struct parse {
	struct config *c;
	const char *name;	/* file name for messages */
	FILE *file;		/* file source, or */
	const char *text;	/* string source */
	unsigned line;
	bool failed;
	unsigned fail_line;	/* the line of the error reported */
	int rc;
	char *err;
	size_t errlen;
	unsigned output_line[CONFIG_MAX_OUTPUTS];
	/* type = msp in this file; the transport is settled by
	 * check_outputs once every key of the section is known. */
	bool msp_type[CONFIG_MAX_OUTPUTS];
	const char *msp_key[CONFIG_MAX_OUTPUTS];	/* an MSP-only key set */
	unsigned sensor_line[CONFIG_MAX_SENSORS];
};

static int
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
	int n = 0;
	int c = EOF;

	if (p->failed)
		return NULL;
	while (n < num - 1) {
		if (p->file) {
			c = getc(p->file);
		} else {
			c = *p->text ? (unsigned char)*p->text++ : EOF;
		}
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
	if (n == 0 && c == EOF)
		return NULL;
	p->line++;
	if (c != '\n' && c != EOF && n == num - 1) {
		fail(p, -EINVAL, "line longer than %d characters", num - 3);
		return NULL;
	}
	str[n] = '\0';
	return str;
}

static int
parse_uint_range(const char *v, unsigned long lo, unsigned long hi,
		 unsigned long *out)
{
	uint64_t x;

	if (str_to_u64(v, &x) < 0 || x < lo || x > hi)
		return -EINVAL;
	*out = (unsigned long)x;
	return 0;
}

/* rng_N = baro instance 0..2, or none. */
int
config_parse_rng(const char *value, int *out)
{
	unsigned long v;

	if (strcmp(value, "none") == 0 || strcmp(value, "-1") == 0) {
		*out = -1;
		return 0;
	}
	if (parse_uint_range(value, 0, BARO_MAX_INSTANCES - 1, &v) < 0)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

static struct config_output *
output_for(struct parse *p, const char *name)
{
	struct config *c = p->c;

	for (size_t i = 0; i < c->n_outputs; i++) {
		if (strcmp(c->outputs[i].name, name) == 0)
			return &c->outputs[i];
	}
	if (c->n_outputs == CONFIG_MAX_OUTPUTS) {
		fail(p, -E2BIG, "more than %d outputs", CONFIG_MAX_OUTPUTS);
		return NULL;
	}
	if (strlen(name) >= CONFIG_NAME_MAX || !*name) {
		fail(p, -EINVAL, "output name '%s' is empty or too long", name);
		return NULL;
	}
	struct config_output *o = &c->outputs[c->n_outputs];
	memset(o, 0, sizeof(*o));
	strcpy(o->name, name);
	o->type = (enum output_type)-1;
	o->rates = (struct config_rates){ RATE_UNSET, RATE_UNSET, RATE_UNSET };
	config_msp_defaults(&o->msp);
	p->output_line[c->n_outputs] = p->line;
	p->msp_type[c->n_outputs] = false;
	p->msp_key[c->n_outputs] = NULL;
	c->n_outputs++;
	return o;
}

void
config_msp_defaults(struct config_msp *m)
{
	for (int i = 0; i < BARO_MAX_INSTANCES; i++)
		m->map[i] = (int8_t)i;
	m->rate_hz = RATE_EVERY_SAMPLE;
	m->vehicle = 0;
	m->transport = 0;
}

int
config_parse_msp_instances(const char *value, struct config_msp *m,
			   char *err, size_t errlen)
{
	char buf[128];
	bool msp_taken[CONFIG_MSP_INSTANCE_MAX + 1] = { false };
	int8_t map[BARO_MAX_INSTANCES];

	if (strcmp(value, "all") == 0) {
		for (int i = 0; i < BARO_MAX_INSTANCES; i++)
			m->map[i] = (int8_t)i;
		return 0;
	}
	if (strlen(value) >= sizeof(buf))
		return str_errorf(err, errlen, -EINVAL,
				  "instances: list too long");
	strcpy(buf, value);
	for (int i = 0; i < BARO_MAX_INSTANCES; i++)
		map[i] = -1;
	for (char *item = buf, *next; item; item = next) {
		next = strchr(item, ',');
		if (next)
			*next++ = '\0';
		char *eq = strchr(item, '=');
		unsigned long b, to;
		if (eq)
			*eq = '\0';
		char *bs = str_trim(item, "");
		char *ms = eq ? str_trim(eq + 1, "") : bs;
		if (parse_uint_range(bs, 0, BARO_MAX_INSTANCES - 1, &b) < 0)
			return str_errorf(err, errlen, -EINVAL,
					  "instances: '%s' is not a baro "
					  "instance 0..%d (expected 'all' or "
					  "a list such as 0,1=3)", bs,
					  BARO_MAX_INSTANCES - 1);
		if (parse_uint_range(ms, 0, CONFIG_MSP_INSTANCE_MAX, &to) < 0)
			return str_errorf(err, errlen, -EINVAL,
					  "instances: MSP instance '%s' is not "
					  "0..%d", ms, CONFIG_MSP_INSTANCE_MAX);
		if (map[b] >= 0)
			return str_errorf(err, errlen, -EINVAL,
					  "instances: baro %lu listed twice", b);
		if (msp_taken[to])
			return str_errorf(err, errlen, -EINVAL,
					  "instances: MSP instance %lu given "
					  "twice (ArduPilot would average the "
					  "two baros into one)", to);
		map[b] = (int8_t)to;
		msp_taken[to] = true;
	}
	memcpy(m->map, map, sizeof(map));
	return 0;
}

static const unsigned bauds[] = { 9600,	  19200,  38400,  57600,  115200,
				  230400, 460800, 500000, 576000, 921600 };

int
config_parse_baud(const char *v, unsigned *out)
{
	unsigned long b;

	if (parse_uint_range(v, 1, 4000000, &b) < 0)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(bauds) / sizeof(bauds[0]); i++) {
		if (bauds[i] == b) {
			*out = (unsigned)b;
			return 0;
		}
	}
	return -EINVAL;
}

/* HOST:PORT, with [v6]:PORT for IPv6 literals; port 1..65535. */
int
config_check_address(const char *a)
{
	const char *colon = strrchr(a, ':');
	unsigned long port;

	if (!colon || colon == a || strlen(a) >= 128)
		return -EINVAL;
	return parse_uint_range(colon + 1, 1, 65535, &port);
}

bool
config_address_unspecified(const char *a)
{
	const char *colon = strrchr(a, ':');
	char host[128];
	unsigned char addr[sizeof(struct in6_addr)];
	size_t n = colon ? (size_t)(colon - a) : strlen(a);

	if (n >= 2 && a[0] == '[' && a[n - 1] == ']') {
		a++;
		n -= 2;
	}
	if (n >= sizeof(host))
		return false;
	memcpy(host, a, n);
	host[n] = '\0';
	/* inet_aton, as the resolver reads numbers: "0" is 0.0.0.0. */
	struct in_addr v4;
	if (inet_aton(host, &v4) == 1)
		return v4.s_addr == htonl(INADDR_ANY);
	if (inet_pton(AF_INET6, host, addr) == 1)
		return memcmp(addr, &in6addr_any, sizeof(in6addr_any)) == 0;
	return false;
}

static struct config_sensor *
sensor_for(struct parse *p, const char *name)
{
	struct config *c = p->c;

	for (size_t i = 0; i < c->n_sensors; i++) {
		if (strcmp(c->sensors[i].name, name) == 0)
			return &c->sensors[i];
	}
	if (c->n_sensors == CONFIG_MAX_SENSORS) {
		fail(p, -E2BIG, "more than %d sensors (MAVLink has "
				"SCALED_PRESSURE..3)", CONFIG_MAX_SENSORS);
		return NULL;
	}
	if (strlen(name) >= CONFIG_NAME_MAX || !*name) {
		fail(p, -EINVAL, "sensor name '%s' is empty or too long", name);
		return NULL;
	}
	struct config_sensor *s = &c->sensors[c->n_sensors];
	memset(s, 0, sizeof(*s));
	strcpy(s->name, name);
	s->instance = -1;
	p->sensor_line[c->n_sensors] = p->line;
	c->n_sensors++;
	return s;
}

int
config_parse_bus(const char *value, char *path, size_t len)
{
	uint64_t n;

	if (str_to_u64(value, &n) == 0) {
		if (n > 9999)
			return -EINVAL;
		baro_bus_path((unsigned)n, path, len);
		return 0;
	}
	if (value[0] != '/' || strlen(value) >= len)
		return -EINVAL;
	strcpy(path, value);
	return 0;
}

/* 0x76 or 118: a 7-bit address outside the reserved ranges. */
int
config_parse_i2c_address(const char *v, uint8_t *out)
{
	unsigned long a;

	if (v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
		char *end;
		if (!isxdigit((unsigned char)v[2]))
			return -EINVAL;
		errno = 0;
		a = strtoul(v + 2, &end, 16);
		if (*end != '\0' || errno != 0)
			return -EINVAL;
	} else if (parse_uint_range(v, 0, 255, &a) < 0) {
		return -EINVAL;
	}
	if (a < 0x03 || a > 0x77)
		return -EINVAL;
	*out = (uint8_t)a;
	return 0;
}


static const char *
section_name(const char *section, const char *kind)
{
	size_t n = strlen(kind);

	if (strncmp(section, kind, n) != 0 ||
	    (section[n] != ' ' && section[n] != ':'))
		return NULL;
	section += n + 1;
	while (*section == ' ')
		section++;
	return section;
}

/* Every key goes through its row of the option table: the table knows
 * the sections, the keys, their ranges and their messages. */
static int
handler(void *user, const char *section, const char *key, const char *value)
{
	struct parse *p = user;
	const char *kind = section, *name = NULL;
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

	void *base = p->c;
	if (name) {
		base = kind[0] == 'o' ? (void *)output_for(p, name)
				      : (void *)sensor_for(p, name);
		if (!base)
			return 0;
	}
	const struct opt_row *r = options_find_key(kind, key);
	if (!r) {
		options_key_list(kind, list, sizeof(list));
		if (name)
			return fail(p, -EINVAL, "unknown key '%s' in [%s %s]; "
				    "valid keys are %s", key, kind, name, list);
		return fail(p, -EINVAL, "unknown key '%s' in [%s]; valid keys "
			    "are %s", key, section, list);
	}
	char msg[512];
	if (options_set(r, base, key, value, NULL, msg, sizeof(msg)) < 0)
		return fail(p, -EINVAL, "%s", msg);
	const size_t row = options_index(r);
	p->c->given[row / 8] |= (uint8_t)(1u << (row % 8));
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
 * udp), and no MAVLink rates; MSP keys only on MSP outputs.  Failures
 * go through fail(). */
static int
check_msp_output(struct parse *p, size_t i)
{
	struct config_output *o = &p->c->outputs[i];

	if (!output_type_is_msp(o->type)) {
		if (p->msp_key[i])
			return fail(p, -EINVAL, "[output %s]: %s applies to "
				    "type = msp only", o->name, p->msp_key[i]);
		return 0;
	}
	if (o->rates.heartbeat_hz != RATE_UNSET ||
	    o->rates.scaled_pressure_hz != RATE_UNSET ||
	    o->rates.hil_sensor_hz != RATE_UNSET)
		return fail(p, -EINVAL, "[output %s]: an msp output carries "
			    "no MAVLink; rate_hz sets its rate", o->name);
	if (!p->msp_type[i])
		return 0;	/* settled by an earlier file */
	if (o->device[0] && o->address[0])
		return fail(p, -EINVAL, "[output %s]: msp takes a device or "
			    "an address, not both", o->name);
	if (!o->device[0] && !o->address[0])
		return fail(p, -EINVAL, "[output %s]: msp needs a device "
			    "(serial) or an address (transport tcp or udp)",
			    o->name);
	if (o->device[0]) {
		if (o->msp.transport)
			return fail(p, -EINVAL, "[output %s]: transport is for "
				    "an address; a device is serial", o->name);
		o->type = OUTPUT_MSP_SERIAL;
		if (!o->baud)
			o->baud = 115200;
	} else {
		if (o->baud)
			return fail(p, -EINVAL, "[output %s]: baud is for a "
				    "device", o->name);
		o->type = o->msp.transport == 2 ? OUTPUT_MSP_UDP
						: OUTPUT_MSP_TCP;
	}
	p->msp_type[i] = false;
	return 0;
}

static int
check_outputs(struct parse *p)
{
	for (size_t i = 0; i < p->c->n_outputs; i++) {
		const struct config_output *o = &p->c->outputs[i];
		p->line = p->output_line[i];
		if ((int)o->type == -1)
			return fail(p, -EINVAL, "[output %s] has no type",
				    o->name);
		check_msp_output(p, i);
		if (p->failed)
			return p->rc;
		if (output_type_is_msp(o->type))
			continue;
		const bool serial = config_output_info(o->type)->wire ==
				    WIRE_SERIAL;
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
		char why[160];
		if (s->driver[0] &&
		    baro_drdy_check(baro_driver_find(s->driver), NULL,
				    &s->settings, why, sizeof(why)) < 0)
			return fail(p, -EINVAL, "[sensor %s]: drdy: %s", s->name,
				    why);
		if (s->instance < 0)
			continue;
		if (taken[s->instance])
			return fail(p, -EINVAL, "[sensor %s]: instance %d is "
				    "taken by another sensor", s->name,
				    s->instance);
		taken[s->instance] = true;
	}
	for (size_t i = 0; i < c->n_sensors; i++) {
		struct config_sensor *s = &c->sensors[i];
		int k = 0;
		if (s->instance >= 0)
			continue;
		while (taken[k])
			k++;
		s->instance = k;
		taken[k] = true;
	}
	return 0;
}

static int
load(struct parse *p)
{
	size_t first_new = p->c->n_outputs;
	int line = ini_parse_stream(read_line, p, handler, p);

	/* libinih goes on after a syntax error and returns the first one's
	 * line at the end, while our handler's errors stop it at once: a
	 * syntax error on an earlier line than ours is the first error. */
	if (p->failed && line > 0 && (unsigned)line < p->fail_line)
		p->failed = false;
	if (!p->failed && line != 0) {
		p->line = line > 0 ? (unsigned)line : p->line;
		if (line == -2)
			fail(p, -ENOMEM, "out of memory");
		else
			fail(p, -EINVAL,
			     "syntax error: expected [section] or key = value");
	}
	if (!p->failed) {
		(void)first_new;
		if (check_outputs(p) == 0)
			check_sensors(p);
	}
	return p->failed ? p->rc : 0;
}

int
config_load_file(struct config *c, const char *path, char *err, size_t errlen)
{
	struct parse p = { .c = c, .name = path, .err = err, .errlen = errlen };

	p.file = fopen(path, "r");
	if (!p.file) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	int rc = load(&p);
	if (rc == 0 && ferror(p.file)) {
		snprintf(err, errlen, "%s: read error", path);
		rc = -EIO;
	}
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

void
config_defaults(struct config *c)
{
	memset(c, 0, sizeof(*c));
	c->source = CONFIG_SOURCE_NONE;
	c->sysid = 1;
	c->compid = 191;	/* MAV_COMP_ID_ONBOARD_COMPUTER */
	c->mavlink_version = 2;
	c->rates = (struct config_rates){ 1.0, RATE_EVERY_SAMPLE, 0.0 };
	sim_params_defaults(&c->params);
	c->profile = (struct truth_profile){ TRUTH_STATIC, 0.0, 0.0, 0.0 };
	/* The newest stable ArduPilot; its SITL uses the 1976 model (since
	 * 4.6), unless atmosphere is given. */
	c->ardupilot = BARO_SITL_AP_DEFAULT;
	c->atmosphere = baro_sitl_ardupilot_atmosphere(c->ardupilot);
	c->home_alt_m = NAN;
	c->seed = 1;
	c->control_mode = 0600;
	c->sitl.instances = 1;
	strcpy(c->sitl.bind, "0.0.0.0");
	c->sitl.port = SITL_JSON_PORT_BASE;
	c->sitl.vehicle = SITL_VEHICLE_COPTER;
	/* SIM_VIB_MOT_MASK's default: a JSON copter's throttle is 0. */
	c->sitl.motor_mask = 0;
	/* rng_1 carries baro 0's height by default, so a baro fault shows
	 * in ArduPilot as soon as a rangefinder of type 100 is set up. */
	c->sitl.rng[0] = 0;
	for (int k = 1; k < 6; k++)
		c->sitl.rng[k] = -1;
	/* PX4's own default: its startup script connects to 4560 + N on
	 * the local host unless PX4_SIM_HOSTNAME or PX4_SIM_HOST_ADDR say
	 * otherwise; bind as [sitl] does so either works. */
	c->px4.instances = 1;
	strcpy(c->px4.bind, "0.0.0.0");
	c->px4.port = CONFIG_PX4_PORT;
	c->px4.home_lat_deg = PX4_VEHICLE_HOME_LAT;
	c->px4.home_lon_deg = PX4_VEHICLE_HOME_LON;
	c->px4.hil_baros = 1;
	/* As long as PX4 itself waits before it complains (its poll). */
	c->px4.lockstep_timeout_ms = 1000;
	c->px4.motor_mask = PX4_THROTTLE_QUAD_MOTORS;
	c->px4.speed_factor = 1.0;
	c->px4.speed_factor_from = "default";
	c->px4.home_latlon_from = "default, PX4's Zurich";
}

/* In the order -o's error message lists them. */
static const struct config_output_info output_info[] = {
	{ OUTPUT_UDP_CLIENT, "udp", "udp-client", "udp:HOST:PORT",
	  FORMAT_MAVLINK, WIRE_UDP_CLIENT },
	{ OUTPUT_UDP_SERVER, "udp-server", "udp-server", "udp-server:HOST:PORT",
	  FORMAT_MAVLINK, WIRE_UDP_SERVER },
	{ OUTPUT_SERIAL, "serial", "serial", "serial:DEVICE[:BAUD]",
	  FORMAT_MAVLINK, WIRE_SERIAL },
	{ OUTPUT_MSP_SERIAL, "msp", "msp-serial", "msp:DEVICE[:BAUD]",
	  FORMAT_MSP, WIRE_SERIAL },
	{ OUTPUT_MSP_TCP, "msp-tcp", "msp-tcp", "msp-tcp:HOST:PORT", FORMAT_MSP,
	  WIRE_TCP },
	{ OUTPUT_MSP_UDP, "msp-udp", "msp-udp", "msp-udp:HOST:PORT", FORMAT_MSP,
	  WIRE_UDP_CLIENT },
	{ OUTPUT_TCP_CLIENT, "tcp", "tcp-client", "tcp:HOST:PORT",
	  FORMAT_MAVLINK, WIRE_TCP },
	{ OUTPUT_TCP_SERVER, "tcpin", "tcp-server", "tcpin:HOST:PORT",
	  FORMAT_MAVLINK, WIRE_TCP_SERVER },
};

#define N_OUTPUT_TYPES (sizeof(output_info) / sizeof(output_info[0]))

/* Never a type's: its type matches none. */
static const struct config_output_info output_unknown = {
	.type = (enum output_type)-1, .prefix = "?", .name = "?", .form = "?",
};

int
config_parse_output(const char *spec, struct config_output *o, char *err,
		    size_t errlen)
{
	memset(o, 0, sizeof(*o));
	o->rates = (struct config_rates){ RATE_UNSET, RATE_UNSET, RATE_UNSET };
	config_msp_defaults(&o->msp);

	const struct config_output_info *info = NULL;
	const char *rest = NULL;
	/* MAVProxy's and pymavlink's names for the same two. */
	if (strncmp(spec, "udpin:", 6) == 0) {
		info = config_output_info(OUTPUT_UDP_SERVER);
		rest = spec + 6;
	} else if (strncmp(spec, "udpout:", 7) == 0) {
		info = config_output_info(OUTPUT_UDP_CLIENT);
		rest = spec + 7;
	}
	for (size_t k = 0; k < N_OUTPUT_TYPES && !info; k++) {
		size_t n = strlen(output_info[k].prefix);
		if (strncmp(spec, output_info[k].prefix, n) == 0 &&
		    spec[n] == ':') {
			info = &output_info[k];
			rest = spec + n + 1;
		}
	}
	if (!info) {
		int len = snprintf(err, errlen, "output '%s': expected ", spec);
		for (size_t k = 0; k < N_OUTPUT_TYPES; k++) {
			if (len < 0 || (size_t)len >= errlen)
				break;
			len += snprintf(err + len, errlen - (size_t)len,
					"%s%s", k == 0 ? ""
					: k + 1 < N_OUTPUT_TYPES
						? ", " : " or ",
					output_info[k].form);
		}
		return -EINVAL;
	}
	o->type = info->type;
	snprintf(o->name, sizeof(o->name), "%.*s", CONFIG_NAME_MAX - 1, spec);

	if (info->wire != WIRE_SERIAL) {
		if (config_check_address(rest) < 0) {
			snprintf(err, errlen, "output '%s': expected HOST:PORT",
				 spec);
			return -EINVAL;
		}
		if (info->wire != WIRE_UDP_SERVER &&
		    info->wire != WIRE_TCP_SERVER &&
		    config_address_unspecified(rest)) {
			const char *port = strrchr(rest, ':') + 1;
			if (info->type == OUTPUT_TCP_CLIENT)
				snprintf(err, errlen, "output '%s': barod "
					 "connects there, and %.*s is nowhere "
					 "to connect to; to listen on port %s "
					 "for a GCS to connect, use tcpin:%s",
					 spec, (int)(port - 1 - rest), rest,
					 port, rest);
			else if (info->type == OUTPUT_UDP_CLIENT)
				snprintf(err, errlen, "output '%s': barod sends "
					 "there, and %.*s is nowhere to send to; "
					 "to listen on port %s and answer whoever "
					 "sends (what MAVProxy makes of "
					 "udp:0.0.0.0:%s), use udpin:%s or "
					 "udp-server:%s", spec,
					 (int)(port - 1 - rest), rest, port,
					 port, rest, rest);
			else
				snprintf(err, errlen, "output '%s': %.*s is "
					 "nowhere to send to: give the flight "
					 "controller's address", spec,
					 (int)(port - 1 - rest), rest);
			return -EINVAL;
		}
		strcpy(o->address, rest);
		return 0;
	}

	const char *colon = strrchr(rest, ':');
	size_t dlen = colon ? (size_t)(colon - rest) : strlen(rest);
	o->baud = 115200;
	if (colon && config_parse_baud(colon + 1, &o->baud) < 0) {
		snprintf(err, errlen, "output '%s': baud '%s' is not one of "
				      "9600 ... 921600", spec, colon + 1);
		return -EINVAL;
	}
	if (dlen == 0 || dlen >= sizeof(o->device)) {
		snprintf(err, errlen, "output '%s': bad device", spec);
		return -EINVAL;
	}
	memcpy(o->device, rest, dlen);
	o->device[dlen] = '\0';
	return 0;
}

int
config_parse_speed_factor(const char *text, double *out)
{
	double f;

	if (str_to_double(text, &f) < 0 ||
	    !(f == 0.0 ||
	      (f >= CONFIG_PX4_SPEED_MIN && f <= CONFIG_PX4_SPEED_MAX)))
		return -EINVAL;
	*out = f;
	return 0;
}

int
config_apply_px4_env(struct config *c, const char *(*get)(const char *),
		     char *err, size_t errlen)
{
	const char *v;
	double x;

	if ((v = get("PX4_SIM_SPEED_FACTOR")) && *v) {
		if (config_parse_speed_factor(v, &c->px4.speed_factor) < 0) {
			snprintf(err, errlen, "PX4_SIM_SPEED_FACTOR='%s': "
				 "expected 0 or %g..%g", v,
				 CONFIG_PX4_SPEED_MIN, CONFIG_PX4_SPEED_MAX);
			return -EINVAL;
		}
		c->px4.speed_factor_from = "PX4_SIM_SPEED_FACTOR";
	}
	/* Each on its own, as Gazebo Classic's plugins and PX4's SIH
	 * branch (px4-rc.simulator) read them. */
	static const struct {
		const char *name;
		double lim;
	} home[] = { { "PX4_HOME_LAT", 90.0 }, { "PX4_HOME_LON", 180.0 },
		     { "PX4_HOME_ALT", 2.1e7 } };
	for (size_t i = 0; i < 3; i++) {
		if (!(v = get(home[i].name)) || !*v)
			continue;
		if (str_to_double(v, &x) < 0 || !(fabs(x) <= home[i].lim)) {
			snprintf(err, errlen, "%s='%s': expected %s from -%g "
				 "to %g", home[i].name, v,
				 i < 2 ? "degrees" : "metres AMSL",
				 home[i].lim, home[i].lim);
			return -EINVAL;
		}
		if (i == 0)
			c->px4.home_lat_deg = x;
		else if (i == 1)
			c->px4.home_lon_deg = x;
		else
			c->home_alt_m = x;
		if (i < 2)
			c->px4.home_latlon_from = "PX4_HOME_LAT/LON";
		else
			c->home_alt_from = "PX4_HOME_ALT";
	}
	return 0;
}

/* One row per source, in enum config_source's order.  The default
 * homes: in the SITL modes the emulator must see the altitude ArduPilot's
 * own baro sees, and ArduPilot's default home is CMAC at 584 m; in the
 * PX4 modes PX4's simulators' home, Zurich at 488 m (Gazebo Classic's
 * kDefaultHomeAltitude, jMAVSim's DEFAULT_ORIGIN_POS). */
static const struct config_source_info source_info[] = {
	[CONFIG_SOURCE_NONE] = { "none", 0.0, 0 },
	[CONFIG_SOURCE_SIM] = { "sim", 0.0, CONFIG_SRC_EMULATED },
	[CONFIG_SOURCE_SITL_JSON] = {
		"sitl-json", CONFIG_SITL_HOME_ALT_M,
		CONFIG_SRC_EMULATED | CONFIG_SRC_SITL_VEHICLES },
	[CONFIG_SOURCE_SITL_PROXY] = {
		"sitl-json-proxy", CONFIG_SITL_HOME_ALT_M,
		CONFIG_SRC_EMULATED | CONFIG_SRC_SITL_VEHICLES |
			CONFIG_SRC_SITL_UPSTREAM },
	[CONFIG_SOURCE_HARDWARE] = { "hardware", 0.0, CONFIG_SRC_SENSORS },
	[CONFIG_SOURCE_PX4_SIM] = {
		"px4-sim", CONFIG_PX4_HOME_ALT_M,
		CONFIG_SRC_EMULATED | CONFIG_SRC_PX4_ENV },
	[CONFIG_SOURCE_PX4_PROXY] = {
		"px4-sim-proxy", CONFIG_PX4_HOME_ALT_M,
		CONFIG_SRC_EMULATED | CONFIG_SRC_PX4_ENV |
			CONFIG_SRC_PX4_UPSTREAM },
};

const struct config_source_info *
config_source_info(enum config_source s)
{
	if ((unsigned)s >= sizeof(source_info) / sizeof(source_info[0]))
		return &source_info[CONFIG_SOURCE_NONE];
	return &source_info[s];
}

static bool
source_has(const struct config *c, unsigned traits)
{
	return (config_source_info(c->source)->traits & traits) != 0;
}

double
config_default_home_alt(enum config_source source)
{
	return config_source_info(source)->home_alt_m;
}

enum baro_sitl_atmosphere
config_atmosphere(const struct config *c)
{
	return c->atmosphere_given
		       ? c->atmosphere
		       : baro_sitl_ardupilot_atmosphere(c->ardupilot);
}

bool
config_remote_faults(const struct config *c)
{
	if (c->remote_faults == CONFIG_REMOTE_AUTO)
		return source_has(c, CONFIG_SRC_EMULATED);
	return c->remote_faults == CONFIG_REMOTE_YES;
}

void
config_resolve(struct config *c)
{
	if (isnan(c->home_alt_m)) {
		c->home_alt_m = config_default_home_alt(c->source);
		c->home_alt_from = "default";
	}
	c->atmosphere = config_atmosphere(c);
	/* Checked when given. */
	if (c->throttle[0])
		(void)truth_profile_parse_throttle(c->throttle, &c->profile,
						   NULL, 0);
}

int
config_validate(const struct config *c, char *err, size_t errlen)
{
	if (c->source == CONFIG_SOURCE_NONE) {
		snprintf(err, errlen,
			 "no source: use --sim, --sitl-json, "
			 "--sitl-json-proxy, --px4-sim, --px4-sim-proxy or "
			 "--hardware, or set source in [barod]");
		return -EINVAL;
	}
	if (source_has(c, CONFIG_SRC_SENSORS) && c->n_sensors == 0) {
		snprintf(err, errlen, "source = %s needs a [sensor NAME] "
				      "section (barod --probe prints them)",
			 config_source_name(c->source));
		return -EINVAL;
	}
	if (source_has(c, CONFIG_SRC_SITL_UPSTREAM) && !c->sitl.upstream[0]) {
		snprintf(err, errlen, "%s needs an upstream HOST:PORT (--%s or "
				      "upstream in [sitl])",
			 config_source_name(c->source),
			 config_source_name(c->source));
		return -EINVAL;
	}
	if (source_has(c, CONFIG_SRC_PX4_UPSTREAM) && !c->px4.upstream[0]) {
		snprintf(err, errlen, "%s needs the simulator's HOST:PORT (--%s "
				      "or upstream in [px4])",
			 config_source_name(c->source),
			 config_source_name(c->source));
		return -EINVAL;
	}
	const bool sitl = source_has(c, CONFIG_SRC_SITL_VEHICLES);
	for (size_t i = 0; i < c->n_outputs; i++) {
		const struct config_output *o = &c->outputs[i];
		if (output_type_is_msp(o->type) && o->msp.vehicle != 0 &&
		    (!sitl || o->msp.vehicle >= c->sitl.instances)) {
			snprintf(err, errlen, "output '%s': vehicle %u: %s",
				 o->name, o->msp.vehicle,
				 sitl ? "beyond [sitl] instances"
				      : "only the SITL sources have vehicles");
			return -EINVAL;
		}
	}
	for (size_t i = 0; i < c->n_outputs; i++) {
		for (size_t j = 0; j < i; j++) {
			if (strcmp(c->outputs[i].name, c->outputs[j].name) == 0) {
				snprintf(err, errlen, "two outputs named '%s'",
					 c->outputs[i].name);
				return -EINVAL;
			}
		}
	}
	if (c->signing_key_path[0] && c->mavlink_version != 2) {
		snprintf(err, errlen, "signing_key: signing needs MAVLink 2 "
				      "([mavlink] protocol = 2)");
		return -EINVAL;
	}
	/* Here, not per line: the atmosphere and home altitude that bound
	 * a glitch may come later in the file or from the command line. */
	const double home = isnan(c->home_alt_m)
				    ? config_default_home_alt(c->source)
				    : c->home_alt_m;
	if (source_has(c, CONFIG_SRC_EMULATED) &&
	    baro_sitl_params_check(config_atmosphere(c), home, &c->params,
				   err, errlen) < 0)
		return -EINVAL;
	/* A parameter the release does not have (GEFF_M before master)
	 * would do nothing. */
	for (size_t i = 0; source_has(c, CONFIG_SRC_EMULATED) &&
			   i < sim_param_count(); i++) {
		if (baro_sitl_ardupilot_param_check(
			    c->ardupilot, i, (double)sim_param_get(&c->params, i),
			    err, errlen) < 0)
			return -EINVAL;
	}
	return 0;
}

bool
config_output_equal(const struct config_output *a,
		    const struct config_output *b)
{
	return a->type == b->type && strcmp(a->name, b->name) == 0 &&
	       strcmp(a->address, b->address) == 0 &&
	       strcmp(a->device, b->device) == 0 && a->baud == b->baud &&
	       memcmp(&a->rates, &b->rates, sizeof(a->rates)) == 0 &&
	       memcmp(a->msp.map, b->msp.map, sizeof(a->msp.map)) == 0 &&
	       a->msp.rate_hz == b->msp.rate_hz &&
	       a->msp.vehicle == b->msp.vehicle;
}

const struct config_output_info *
config_output_info(enum output_type t)
{
	for (size_t k = 0; k < N_OUTPUT_TYPES; k++) {
		if (output_info[k].type == t)
			return &output_info[k];
	}
	return &output_unknown;
}

const char *
config_output_type_name(enum output_type t)
{
	return config_output_info(t)->name;
}

const char *
config_source_name(enum config_source s)
{
	return config_source_info(s)->name;
}
