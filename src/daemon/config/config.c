/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "px4-throttle.h"
#include "px4-vehicle.h"
#include "sitl-json.h"
#include "util-strings.h"

const enum config_source config_source_order[CONFIG_SOURCE_COUNT - 1] = {
	CONFIG_SOURCE_SIM,	CONFIG_SOURCE_SITL_JSON,
	CONFIG_SOURCE_SITL_PROXY, CONFIG_SOURCE_PX4_SIM,
	CONFIG_SOURCE_PX4_PROXY, CONFIG_SOURCE_HARDWARE,
};

void
config_output_defaults(struct config_output *o)
{
	memset(o, 0, sizeof(*o));
	o->rates = (struct config_rates){ RATE_UNSET, RATE_UNSET, RATE_UNSET };
	for (int i = 0; i < BARO_MAX_INSTANCES; i++)
		o->msp.map[i] = (int8_t)i;
	o->msp.rate_hz = RATE_EVERY_SAMPLE;
}

void
config_defaults(struct config *c)
{
	memset(c, 0, sizeof(*c));
	c->source = CONFIG_SOURCE_NONE;
	c->sysid = 1;
	c->compid = 191;	/* MAV_COMP_ID_ONBOARD_COMPUTER */
	c->mavlink_version = 2;
	c->rates = (struct config_rates){
		.heartbeat_hz = 1.0,
		.scaled_pressure_hz = RATE_EVERY_SAMPLE,
		.hil_sensor_hz = 0.0,
	};
	sim_params_defaults(&c->params);
	c->profile = (struct truth_profile){ .kind = TRUTH_STATIC };
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

/* In enum output_type's order, which -o's error message lists. */
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
_Static_assert(N_OUTPUT_TYPES == OUTPUT_TCP_SERVER + 1, "a row per type");

/* Never a type's: its type matches none. */
static const struct config_output_info output_unknown = {
	.type = (enum output_type)-1, .prefix = "?", .name = "?", .form = "?",
};

int
config_parse_output(const char *spec, struct config_output *o, char *err,
		    size_t errlen)
{
	const struct config_output_info *info = NULL;
	const char *rest = NULL, *port;
	int len;

	config_output_defaults(o);
	/* MAVProxy's and pymavlink's names for the same two. */
	if (strncmp(spec, "udpin:", 6) == 0)
		info = config_output_info(OUTPUT_UDP_SERVER), rest = spec + 6;
	else if (strncmp(spec, "udpout:", 7) == 0)
		info = config_output_info(OUTPUT_UDP_CLIENT), rest = spec + 7;
	for (size_t k = 0; k < N_OUTPUT_TYPES && !info; k++) {
		size_t n = strlen(output_info[k].prefix);
		if (strncmp(spec, output_info[k].prefix, n) == 0 &&
		    spec[n] == ':')
			info = &output_info[k], rest = spec + n + 1;
	}
	if (!info) {
		len = snprintf(err, errlen, "output '%s': expected ", spec);
		for (size_t k = 0; k < N_OUTPUT_TYPES && len >= 0 &&
				   (size_t)len < errlen; k++)
			len += snprintf(err + len, errlen - (size_t)len, "%s%s",
					k == 0 ? "" : k + 1 < N_OUTPUT_TYPES
					? ", " : " or ", output_info[k].form);
		return -EINVAL;
	}
	o->type = info->type;
	o->msp.transport = info->type == OUTPUT_MSP_TCP   ? CONFIG_MSP_TCP
			   : info->type == OUTPUT_MSP_UDP ? CONFIG_MSP_UDP
							  : 0;
	snprintf(o->name, sizeof(o->name), "%.*s", CONFIG_NAME_MAX - 1, spec);
	if (info->wire == WIRE_SERIAL) {
		const char *colon = strrchr(rest, ':');
		size_t dlen = colon ? (size_t)(colon - rest) : strlen(rest);
		o->baud = 115200;
		if (colon && config_parse_baud(colon + 1, &o->baud) < 0)
			return str_errorf(err, errlen, -EINVAL, "output '%s': "
					  "baud '%s' is not one of 9600 ... "
					  "921600", spec, colon + 1);
		if (dlen == 0 || dlen >= sizeof(o->device))
			return str_errorf(err, errlen, -EINVAL,
					  "output '%s': bad device", spec);
		memcpy(o->device, rest, dlen);
		o->device[dlen] = '\0';
		return 0;
	}
	if (config_check_address(rest) < 0)
		return str_errorf(err, errlen, -EINVAL,
				  "output '%s': expected HOST:PORT", spec);
	if (info->wire == WIRE_UDP_SERVER || info->wire == WIRE_TCP_SERVER ||
	    !config_address_unspecified(rest)) {
		strcpy(o->address, rest);
		return 0;
	}
	port = strrchr(rest, ':') + 1;
	len = (int)(port - 1 - rest);
	if (info->type == OUTPUT_TCP_CLIENT)
		return str_errorf(err, errlen, -EINVAL, "output '%s': barod "
				  "connects there, and %.*s is nowhere to "
				  "connect to; to listen on port %s for a GCS "
				  "to connect, use tcpin:%s", spec, len, rest,
				  port, rest);
	if (info->type == OUTPUT_UDP_CLIENT)
		return str_errorf(err, errlen, -EINVAL, "output '%s': barod "
				  "sends there, and %.*s is nowhere to send to; "
				  "to listen on port %s and answer whoever sends "
				  "(what MAVProxy makes of udp:0.0.0.0:%s), use "
				  "udpin:%s or udp-server:%s", spec, len, rest,
				  port, port, rest, rest);
	return str_errorf(err, errlen, -EINVAL, "output '%s': %.*s is nowhere "
			  "to send to: give the flight controller's address",
			  spec, len, rest);
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

/* The one given, else the release's default. */
static enum baro_sitl_atmosphere
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
		c->home_alt_m = config_source_info(c->source)->home_alt_m;
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
	const char *name = config_source_name(c->source);
	const bool sitl = source_has(c, CONFIG_SRC_SITL_VEHICLES);

	if (c->source == CONFIG_SOURCE_NONE) {
		char flags[160];
		config_source_flags(flags, sizeof(flags));
		return str_errorf(err, errlen, -EINVAL, "no source: use %s, or "
				  "set source in [barod]", flags);
	}
	if (source_has(c, CONFIG_SRC_SENSORS) && c->n_sensors == 0)
		return str_errorf(err, errlen, -EINVAL, "source = %s needs a "
				  "[sensor NAME] section (barod --probe prints "
				  "them)", name);
	if (source_has(c, CONFIG_SRC_SITL_UPSTREAM) && !c->sitl.upstream[0])
		return str_errorf(err, errlen, -EINVAL, "%s needs an upstream "
				  "HOST:PORT (--%s or upstream in [sitl])",
				  name, name);
	if (source_has(c, CONFIG_SRC_PX4_UPSTREAM) && !c->px4.upstream[0])
		return str_errorf(err, errlen, -EINVAL, "%s needs the "
				  "simulator's HOST:PORT (--%s or upstream in "
				  "[px4])", name, name);
	for (size_t i = 0; i < c->n_outputs; i++) {
		const struct config_output *o = &c->outputs[i];
		if (output_type_is_msp(o->type) && o->msp.vehicle != 0 &&
		    (!sitl || o->msp.vehicle >= c->sitl.instances))
			return str_errorf(err, errlen, -EINVAL, "output '%s': "
					  "vehicle %u: %s", o->name,
					  o->msp.vehicle, sitl
					  ? "beyond [sitl] instances"
					  : "only the SITL sources have "
					    "vehicles");
	}
	for (size_t i = 0; i < c->n_outputs; i++) {
		for (size_t j = 0; j < i; j++) {
			if (strcmp(c->outputs[i].name, c->outputs[j].name) == 0)
				return str_errorf(err, errlen, -EINVAL, "two "
						  "outputs named '%s'",
						  c->outputs[i].name);
		}
	}
	if (c->signing_key_path[0] && c->mavlink_version != 2)
		return str_errorf(err, errlen, -EINVAL, "signing_key: signing "
				  "needs MAVLink 2 ([mavlink] protocol = 2)");
	if (!source_has(c, CONFIG_SRC_EMULATED))
		return 0;
	/* Here, not per line: the atmosphere and home altitude that bound
	 * a glitch may come later in the file or from the command line. */
	const double home = isnan(c->home_alt_m)
				    ? config_source_info(c->source)->home_alt_m
				    : c->home_alt_m;
	if (baro_sitl_params_check(config_atmosphere(c), home, &c->params,
				   err, errlen) < 0)
		return -EINVAL;
	/* A parameter the release does not have (GEFF_M before master)
	 * would do nothing. */
	for (size_t i = 0; i < sim_param_count(); i++) {
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
	return (unsigned)t < N_OUTPUT_TYPES ? &output_info[t] : &output_unknown;
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

int
config_source_flags(char *buf, size_t len)
{
	const size_t n = CONFIG_SOURCE_COUNT - 1;
	int total = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		size_t used = (size_t)total;
		int w = snprintf(used < len ? buf + used : NULL,
				 used < len ? len - used : 0, "%s--%s",
				 i == 0 ? "" : i + 1 < n ? ", " : " or ",
				 config_source_name(config_source_order[i]));
		if (w < 0)
			return w;
		total += w;
	}
	return total;
}
