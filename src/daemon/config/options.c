/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The option table and what is generated from it (see options.h). */
#include "options.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "sitl-json.h"
#include "util-strings.h"

/* ------------------------------------------------------------------ */
/* The table */

/* The sources in the order the documentation lists them. */
static const enum config_source source_order[] = {
	CONFIG_SOURCE_SIM,	CONFIG_SOURCE_SITL_JSON,
	CONFIG_SOURCE_SITL_PROXY, CONFIG_SOURCE_PX4_SIM,
	CONFIG_SOURCE_PX4_PROXY, CONFIG_SOURCE_HARDWARE,
};
#define N_SOURCES (sizeof(source_order) / sizeof(source_order[0]))

static const struct opt_choice output_types[] = {
	{ "udp-client", OUTPUT_UDP_CLIENT },
	{ "udp-server", OUTPUT_UDP_SERVER },
	{ "serial", OUTPUT_SERIAL },
	{ "tcp-client", OUTPUT_TCP_CLIENT },
	{ "tcp-server", OUTPUT_TCP_SERVER },
	/* MAVProxy's and pymavlink's names (after the canonical ones,
	 * which --check-config prints) */
	{ "udpin", OUTPUT_UDP_SERVER },
	{ "udpout", OUTPUT_UDP_CLIENT },
	{ "tcpin", OUTPUT_TCP_SERVER },
	{ "tcp", OUTPUT_TCP_CLIENT },
	/* until the keys settle the transport (config.c) */
	{ "msp", OUTPUT_MSP_SERIAL },
	{ NULL, 0 },
};

static const struct opt_choice atmospheres[] = {
	{ "simple", BARO_SITL_ATMOS_SIMPLE },
	{ "1976", BARO_SITL_ATMOS_1976 },
	{ "water", BARO_SITL_ATMOS_WATER },
	{ NULL, 0 },
};

static const struct opt_choice sitl_vehicles[] = {
	{ "copter", SITL_VEHICLE_COPTER },
	{ "plane", SITL_VEHICLE_PLANE },
	{ "rover", SITL_VEHICLE_ROVER },
	{ NULL, 0 },
};

static const struct opt_choice protocols[] = {
	{ "1", 1 }, { "2", 2 }, { NULL, 0 },
};

static const struct opt_choice remote_choices[] = {
	{ "auto", CONFIG_REMOTE_AUTO }, { "yes", CONFIG_REMOTE_YES },
	{ "no", CONFIG_REMOTE_NO }, { NULL, 0 },
};

static const struct opt_choice transports[] = {
	{ "tcp", 1 }, { "udp", 2 }, { NULL, 0 },
};

static const struct opt_choice modes[] = {
	{ "normal", BARO_MODE_NORMAL }, { "forced", BARO_MODE_FORCED },
	{ NULL, 0 },
};

static const struct opt_choice drdy_levels[] = {
	{ "high", BARO_DRDY_ACTIVE_HIGH }, { "low", BARO_DRDY_ACTIVE_LOW },
	{ NULL, 0 },
};

static const struct opt_choice drdy_drives[] = {
	{ "push-pull", false }, { "open-drain", true }, { NULL, 0 },
};

#define FIELD(type, f) .offset = offsetof(type, f), \
			 .size = sizeof(((type *)0)->f)
#define CFG(f) FIELD(struct config, f)
#define OUT(f) FIELD(struct config_output, f)
#define SEN(f) FIELD(struct config_sensor, f)
#define CLI(f) FIELD(struct cli, f)
#define FROM(f) .from = offsetof(struct config, f)

#define UINT(lo_, hi_) .kind = OPT_UINT, \
		       .lo = (lo_), .hi = (hi_)
#define CHOICE(list) .kind = OPT_CHOICE, \
		     .choices = (list)
#define STRING(min) .kind = OPT_STRING, .lo = (min)
#define RATE .kind = OPT_RATE, .lo = 0, .hi = 1000, \
	     .expect = "'all' or a rate in Hz from 0 to 1000"
#define PROCESS .sources = OPT_SRC_ALL, .flags = OPT_PROCESS
/* --sim, --hardware ...: source s; the proxies' value, their upstream. */
#define SOURCE(s) .parse = opt_parse_source_flag, .sources = OPT_SRC_ALL, \
		  .flags = OPT_SOURCE, .arg = (s)
#define UPSTREAM(f) .kind = OPT_ADDRESS, CFG(f), .expect = "HOST:PORT"

static OPT_PARSER(parse_source)
{
	struct config *c = base;
	char names[160];

	for (int s = CONFIG_SOURCE_NONE + 1;; s++) {
		const char *name = config_source_name((enum config_source)s);
		if (strcmp(name, "none") == 0)
			break;
		if (strcmp(name, value) == 0) {
			c->source = (enum config_source)s;
			return 0;
		}
	}
	options_sources_text(OPT_SRC_ALL, names, sizeof(names));
	snprintf(why, whylen, "supported sources: %s", names);
	return -EINVAL;
}

static OPT_PARSER(parse_config_path)
{
	struct cli *cli = base;

	cli->config_path = value;
	cli->config_required = true;
	return 0;
}

static OPT_PARSER(parse_probe)
{
	struct cli *cli = base;

	cli->probe = true;
	cli->probe_bus = value;
	return 0;
}

static OPT_PARSER(parse_verbose)
{
	struct cli *cli = base;

	cli->verbosity = r->arg < 0 ? -1 : cli->verbosity + 1;
	return 0;
}

/* Given, the atmosphere no longer follows the release's default. */
static OPT_PARSER(parse_atmosphere)
{
	int rc = opt_parse_value(r, base, value, why, whylen);

	if (rc == 0)
		((struct config *)base)->atmosphere_given = true;
	return rc;
}

static OPT_PARSER(parse_ardupilot)
{
	return baro_sitl_ardupilot_parse(value,
					 &((struct config *)base)->ardupilot);
}

static OPT_PRINTER(fmt_ardupilot)
{
	fprintf(out, "%s = %s\n", r->key,
		baro_sitl_ardupilot_name(
			((const struct config *)base)->ardupilot));
}

/* The help texts' second and further lines start under the first. */
const struct opt_row options_table[] = {
	/* ---- this run of the process ---- */
	{ NULL, NULL, "config", 'c', "FILE",
	  "configuration file (default " CONFIG_DEFAULT_PATH ", if present)",
	  .parse = parse_config_path, PROCESS },
	{ NULL, NULL, "check-config", 0, NULL,
	  "validate the configuration, print it and exit",
	  .kind = OPT_FLAG, CLI(check_config), PROCESS },
	{ NULL, NULL, "probe", 0, "BUS",
	  "find supported chips on every I2C bus (or BUS), print\n"
	  "their [sensor] sections and exit",
	  .parse = parse_probe, PROCESS | OPT_OPTIONAL },
	{ NULL, NULL, "write", 0, "FILE",
	  "with --probe: replace FILE only when a chip is found,\n"
	  "atomically, the previous one kept as FILE.bak",
	  .kind = OPT_ARG, CLI(probe_write), PROCESS },

	/* ---- the source: one of these, or source in [barod] ---- */
	{ NULL, NULL, "sim", 0, NULL,
	  "simulated barometers (source = sim)",
	  SOURCE(CONFIG_SOURCE_SIM) },
	{ NULL, NULL, "sitl-json", 0, NULL,
	  "be ArduPilot SITL's JSON physics peer (port 9002 + 10 I)",
	  SOURCE(CONFIG_SOURCE_SITL_JSON) },
	{ NULL, NULL, "sitl-json-proxy", 0, "HOST:PORT",
	  "sit between ArduPilot and this JSON backend\n"
	  "(upstream in [sitl])",
	  SOURCE(CONFIG_SOURCE_SITL_PROXY), UPSTREAM(sitl.upstream) },
	{ NULL, NULL, "px4-sim", 0, NULL,
	  "be PX4 SITL's simulator (TCP port 4560 + N)",
	  SOURCE(CONFIG_SOURCE_PX4_SIM) },
	{ NULL, NULL, "px4-sim-proxy", 0, "HOST:PORT",
	  "sit between PX4 SITL (TCP 4560 + N) and this\n"
	  "simulator (port + N; upstream in [px4])",
	  SOURCE(CONFIG_SOURCE_PX4_PROXY), UPSTREAM(px4.upstream) },
	{ NULL, NULL, "hardware", 0, NULL,
	  "the [sensor NAME] sections' chips (source = hardware)",
	  SOURCE(CONFIG_SOURCE_HARDWARE) },

	/* ---- [barod] ---- */
	{ "barod", "source", NULL, 0, NULL, NULL,
	  .parse = parse_source, .format = opt_fmt_source,
	  .sources = OPT_SRC_ALL },
	{ "barod", "sysid", "sysid", 0, "N",
	  "MAVLink system id (default 1)",
	  UINT(1, 255), CFG(sysid), .expect = "1..255",
	  .sources = OPT_SRC_ALL },
	{ "barod", "compid", "compid", 0, "N",
	  "MAVLink component id (default 191)",
	  UINT(1, 255), CFG(compid), .expect = "1..255",
	  .sources = OPT_SRC_ALL },
	{ "barod", "control", "control", 0, "PATH",
	  "control socket for baroctl (none: no socket)",
	  STRING(0), CFG(control_path),
	  .expect = "a path of at most 107 bytes", .sources = OPT_SRC_ALL },
	{ "barod", "control_mode", NULL, 0, NULL, NULL,
	  .kind = OPT_OCTAL, CFG(control_mode),
	  .hi = 0777, .expect = "octal permissions such as 0600",
	  .sources = OPT_SRC_ALL },
	{ "barod", "record", "record", 0, "FILE.csv",
	  "write every sample (baro-sim's columns)",
	  STRING(0), CFG(record_path),
	  .expect = "a path of at most 255 bytes", .sources = OPT_SRC_ALL },
	{ "barod", "busy_poll_us", "busy-poll", 0, "USEC",
	  "proxies: poll USEC for the answer to a forwarded\n"
	  "frame before sleeping (default 0: sleep at once)",
	  UINT(0, 1000), CFG(busy_poll_us), .expect = "0..1000",
	  .sources = OPT_SRC(CONFIG_SOURCE_SITL_PROXY) |
		     OPT_SRC(CONFIG_SOURCE_PX4_PROXY) },

	/* ---- [sim]: the emulator and the truth it sees ---- */
	{ "sim", "profile", "profile", 0, "SPEC",
	  "truth: static:H climb:RATE[:H0] step:H0:H1:T sine:A:P[:H0]\n"
	  "takeoff:H:RATE:HOLD[:THROTTLE]",
	  .parse = opt_parse_profile, .format = opt_fmt_profile, CFG(profile),
	  .sources = OPT_SRC_OWN_TRUTH, .flags = OPT_WHOLE_MSG },
	{ "sim", "throttle", "throttle", 0, "THROTTLE",
	  "T or airborne:T (T 0..1): the motors' throttle for the\n"
	  "ground effect instead of the profile's (0, or takeoff's)",
	  .parse = opt_parse_throttle, .kind = OPT_STRING,
	  CFG(throttle), .sources = OPT_SRC(CONFIG_SOURCE_SIM),
	  .flags = OPT_WHOLE_MSG },
	{ "sim", "truth", "truth", 0, "FILE.csv",
	  "truth from a trace (time_us or time_s, alt_m)",
	  STRING(0), CFG(truth_path),
	  .expect = "a path of at most 255 bytes",
	  .sources = OPT_SRC_OWN_TRUTH },
	{ "sim", "home_alt", "home-alt", 0, "METRES",
	  "home altitude AMSL (default: 584 with --sitl-json*;\n"
	  "PX4_HOME_ALT, else 488, with --px4-sim*; else 0)",
	  .kind = OPT_DOUBLE, CFG(home_alt_m),
	  .lo = -2.1e7, .hi = 2.1e7,
	  .expect = "metres AMSL from -2.1e7 to 2.1e7",
	  .env = "PX4_HOME_ALT", FROM(home_alt_from),
	  /* The PX4 proxy's too: its emulator's home bounds the faults,
	   * as PX4_HOME_ALT does there. */
	  .sources = OPT_SRC_OWN_TRUTH | OPT_SRC(CONFIG_SOURCE_SITL_PROXY) |
		     OPT_SRC(CONFIG_SOURCE_PX4_PROXY) },
	{ "sim", "ardupilot", "ardupilot", 0, "VERSION",
	  "the ArduPilot whose SITL baro to reproduce: 4.5, 4.6,\n"
	  "4.7 (default) or master (ground effect, SIM_BARO_GEFF_M)",
	  .parse = parse_ardupilot, .format = fmt_ardupilot, CFG(ardupilot),
	  .expect = BARO_SITL_AP_CHOICES, .sources = OPT_SRC_EMULATED },
	{ "sim", "atmosphere", "atmosphere", 0, "MODEL",
	  "1976 (default from ArduPilot 4.6), simple (<= 4.5) or\n"
	  "water; default: --ardupilot's",
	  .parse = parse_atmosphere, .kind = OPT_CHOICE,
	  .choices = atmospheres, CFG(atmosphere),
	  /* Hardware mode too: a glitch or PX4 "wrong" shifts a real
	   * reading by an altitude through this model. */
	  .expect = "simple, 1976 or water", .sources = OPT_SRC_ALL },
	{ "sim", "seed", "seed", 0, "N", "noise seed",
	  UINT(0, UINT32_MAX), CFG(seed), .expect = "0..4294967295",
	  .sources = OPT_SRC_ALL },
	{ "sim", "SIM_*", "param", 'p', "NAME=VALUE",
	  "set a SIM_* parameter (repeatable)",
	  .parse = opt_parse_sim_param, .format = opt_fmt_sim_params, CFG(params),
	  .sources = OPT_SRC_EMULATED, .flags = OPT_WHOLE_MSG },

	/* ---- [sitl]: ArduPilot SITL's JSON physics ---- */
	{ "sitl", "instances", "sitl-instances", 0, "N",
	  "SITL instances 0..N-1 (default 1)",
	  UINT(1, CONFIG_MAX_SITL), CFG(sitl.instances), .expect = "1..8",
	  .sources = OPT_SRC_SITL, .alias = "px4-instances" },
	{ "sitl", "bind", NULL, 0, NULL, NULL,
	  STRING(1), CFG(sitl.bind), .expect = "an address to listen on",
	  .sources = OPT_SRC_SITL },
	{ "sitl", "port", NULL, 0, NULL, NULL,
	  .kind = OPT_PORT, CFG(sitl.port),
	  .lo = 1, .hi = 65535 - 10 * CONFIG_MAX_SITL,
	  .sources = OPT_SRC_SITL },
	{ "sitl", "upstream", NULL, 0, NULL, NULL,
	  UPSTREAM(sitl.upstream), .sources = OPT_SRC(CONFIG_SOURCE_SITL_PROXY) },
	{ "sitl", "rng_N", "rng", 0, "N=INSTANCE",
	  "rng_N carries this baro's height (default 1=0; none)",
	  .parse = opt_parse_rng, .format = opt_fmt_rng, CFG(sitl.rng),
	  .lo = 1, .hi = 6, .expect = "a baro instance 0..2 or none",
	  .sources = OPT_SRC_SITL },
	{ "sitl", "vehicle", NULL, 0, NULL, NULL,
	  CHOICE(sitl_vehicles), CFG(sitl.vehicle),
	  .expect = "copter, plane or rover", .sources = OPT_SRC_SITL },
	{ "sitl", "motor_mask", NULL, 0, NULL, NULL,
	  UINT(0, UINT32_MAX), CFG(sitl.motor_mask),
	  .expect = "SIM_VIB_MOT_MASK's value, 0..4294967295",
	  .sources = OPT_SRC_SITL },

	/* ---- [px4]: PX4 SITL over TCP ---- */
	{ "px4", "instances", "px4-instances", 0, "N",
	  "PX4 instances 0..N-1 (default 1)",
	  UINT(1, CONFIG_MAX_SITL), CFG(px4.instances), .expect = "1..8",
	  .sources = OPT_SRC_PX4 },
	{ "px4", "bind", NULL, 0, NULL, NULL,
	  STRING(1), CFG(px4.bind), .expect = "an address to listen on",
	  .sources = OPT_SRC_PX4 },
	{ "px4", "port", NULL, 0, NULL, NULL,
	  .kind = OPT_PORT, CFG(px4.port),
	  .lo = 1, .hi = 65535 - CONFIG_MAX_SITL, .sources = OPT_SRC_PX4 },
	{ "px4", "upstream", NULL, 0, NULL, NULL,
	  UPSTREAM(px4.upstream), .sources = OPT_SRC(CONFIG_SOURCE_PX4_PROXY) },
	{ "px4", "home_lat", NULL, 0, NULL, NULL,
	  .kind = OPT_DOUBLE, CFG(px4.home_lat_deg),
	  .lo = -90, .hi = 90, .expect = "degrees from -90 to 90",
	  .env = "PX4_HOME_LAT", FROM(px4.home_latlon_from),
	  .env_from = "PX4_HOME_LAT/LON",
	  .sources = OPT_SRC(CONFIG_SOURCE_PX4_SIM) },
	{ "px4", "home_lon", NULL, 0, NULL, NULL,
	  .kind = OPT_DOUBLE, CFG(px4.home_lon_deg),
	  .lo = -180, .hi = 180, .expect = "degrees from -180 to 180",
	  .env = "PX4_HOME_LON", FROM(px4.home_latlon_from),
	  .env_from = "PX4_HOME_LAT/LON",
	  .sources = OPT_SRC(CONFIG_SOURCE_PX4_SIM) },
	{ "px4", "hil_baros", NULL, 0, NULL, NULL,
	  UINT(1, 2), CFG(px4.hil_baros),
	  .expect = "1 (baro 0 as HIL_SENSOR id 0) or 2 (baro 1 as id 1 too)",
	  .sources = OPT_SRC(CONFIG_SOURCE_PX4_SIM) },
	{ "px4", "lockstep_timeout_ms", NULL, 0, NULL, NULL,
	  UINT(10, 60000), CFG(px4.lockstep_timeout_ms),
	  .expect = "10..60000", .sources = OPT_SRC(CONFIG_SOURCE_PX4_SIM) },
	{ "px4", "motor_mask", NULL, 0, NULL, NULL,
	  UINT(0, 65535), CFG(px4.motor_mask),
	  .expect = "a mask of HIL_ACTUATOR_CONTROLS channels, 0..65535",
	  .sources = OPT_SRC_PX4 },
	{ "px4", "speed_factor", "px4-speed-factor", 0, "F",
	  "physics seconds per second (default\n"
	  "PX4_SIM_SPEED_FACTOR, else 1; 0: as fast as PX4 replies)",
	  .kind = OPT_SPEED_FACTOR,
	  CFG(px4.speed_factor), .expect = "0 (as fast as PX4 replies) or "
	  "0.01..1000", .env = "PX4_SIM_SPEED_FACTOR", FROM(px4.speed_factor_from),
	  .sources = OPT_SRC(CONFIG_SOURCE_PX4_SIM) },

	/* ---- [mavlink] ---- */
	{ "mavlink", "protocol", NULL, 0, NULL, NULL,
	  CHOICE(protocols), CFG(mavlink_version), .expect = "1 or 2",
	  .sources = OPT_SRC_ALL },
	{ "mavlink", "heartbeat_hz", NULL, 0, NULL, NULL, RATE,
	  CFG(rates.heartbeat_hz), .sources = OPT_SRC_ALL },
	{ "mavlink", "scaled_pressure_hz", NULL, 0, NULL, NULL, RATE,
	  CFG(rates.scaled_pressure_hz),
	  .sources = OPT_SRC_ALL },
	{ "mavlink", "hil_sensor_hz", NULL, 0, NULL, NULL, RATE,
	  CFG(rates.hil_sensor_hz),
	  .sources = OPT_SRC_ALL },
	{ "mavlink", "signing_key", "signing-key", 0, "FILE",
	  "sign MAVLink 2 with this 32-byte key; take commands\n"
	  "only when signed with it (doc/security.md)",
	  STRING(0), CFG(signing_key_path),
	  .expect = "a path of at most 255 bytes", .sources = OPT_SRC_ALL },

	/* ---- [faults] ---- */
	{ "faults", "remote", "remote-faults", 0, "auto|yes|no",
	  "whether a GCS may change faults over MAVLink (default\n"
	  "auto: yes when simulated, no on real sensors)",
	  CHOICE(remote_choices), CFG(remote_faults),
	  .expect = "auto, yes or no", .sources = OPT_SRC_ALL },

	/* ---- outputs: -o, or [output NAME] sections ---- */
	{ NULL, NULL, "output", 'o', "SPEC",
	  "udp:HOST:PORT, udp-server:HOST:PORT, serial:DEV[:BAUD],\n"
	  "tcp:HOST:PORT (connect), tcpin:HOST:PORT (listen),\n"
	  "msp:DEV[:BAUD], msp-tcp:HOST:PORT or msp-udp:HOST:PORT\n"
	  "(MAVProxy's udpout:HOST:PORT = udp, udpin:HOST:PORT =\n"
	  "udp-server)\n"
	  "(repeatable; replaces the file's outputs; default\n"
	  "udp:127.0.0.1:14550)",
	  .parse = opt_parse_output_spec, CFG(n_outputs),
	  .sources = OPT_SRC_ALL, .flags = OPT_LIST | OPT_WHOLE_MSG },
	{ "output", "type", NULL, 0, NULL, NULL,
	  .kind = OPT_CHOICE, .format = opt_fmt_output_type,
	  .choices = output_types, OUT(type),
	  .expect = "udp-client, udp-server, serial, tcp-client, "
		    "tcp-server or msp (or udpout, udpin, tcp, tcpin)",
	  .sources = OPT_SRC_ALL, .flags = OPT_OUTPUT_TYPE },
	{ "output", "address", NULL, 0, NULL, NULL,
	  .kind = OPT_ADDRESS, OUT(address),
	  .expect = "HOST:PORT", .sources = OPT_SRC_ALL },
	{ "output", "device", NULL, 0, NULL, NULL,
	  STRING(1), OUT(device), .expect = "a device path",
	  .sources = OPT_SRC_ALL },
	{ "output", "baud", NULL, 0, NULL, NULL,
	  .kind = OPT_BAUD, .format = opt_fmt_baud, OUT(baud),
	  .expect = "one of 9600 ... 921600", .sources = OPT_SRC_ALL },
	{ "output", "heartbeat_hz", NULL, 0, NULL, NULL, RATE,
	  OUT(rates.heartbeat_hz),
	  .sources = OPT_SRC_ALL },
	{ "output", "scaled_pressure_hz", NULL, 0, NULL, NULL, RATE,
	  OUT(rates.scaled_pressure_hz),
	  .sources = OPT_SRC_ALL },
	{ "output", "hil_sensor_hz", NULL, 0, NULL, NULL, RATE,
	  OUT(rates.hil_sensor_hz),
	  .sources = OPT_SRC_ALL },
	{ "output", "transport", NULL, 0, NULL, NULL,
	  .kind = OPT_CHOICE, .format = opt_fmt_transport,
	  .choices = transports, OUT(msp.transport), .expect = "tcp or udp",
	  .sources = OPT_SRC_ALL, .flags = OPT_MSP },
	{ "output", "instances", NULL, 0, NULL, NULL,
	  .parse = opt_parse_msp_instances, .format = opt_fmt_msp_instances,
	  .sources = OPT_SRC_ALL, .flags = OPT_MSP | OPT_WHOLE_MSG },
	{ "output", "rate_hz", NULL, 0, NULL, NULL, RATE,
	  OUT(msp.rate_hz), .sources = OPT_SRC_ALL,
	  .flags = OPT_MSP },
	{ "output", "vehicle", NULL, 0, NULL, NULL,
	  .kind = OPT_UINT, OUT(msp.vehicle),
	  .lo = 0, .hi = CONFIG_MAX_SITL - 1,
	  .expect = "a SITL instance 0..7", .sources = OPT_SRC_ALL,
	  .flags = OPT_MSP },

	/* ---- [sensor NAME]: hardware ---- */
#define HW .sources = OPT_SRC(CONFIG_SOURCE_HARDWARE)
	{ "sensor", "bus", NULL, 0, NULL, NULL,
	  .kind = OPT_BUS, SEN(bus),
	  .expect = "a bus number (1 for /dev/i2c-1) or a /dev path", HW },
	{ "sensor", "address", NULL, 0, NULL, NULL,
	  .kind = OPT_I2C_ADDRESS, SEN(address),
	  .expect = "a 7-bit I2C address 0x03..0x77", HW },
	{ "sensor", "driver", NULL, 0, NULL, NULL,
	  .parse = opt_parse_driver, .kind = OPT_STRING, SEN(driver), HW },
	{ "sensor", "osr_p", NULL, 0, NULL, NULL,
	  .kind = OPT_POW2, SEN(settings.osr_p),
	  .lo = 1, .hi = 128, .expect = "1, 2, 4, ... 128", HW },
	{ "sensor", "osr_t", NULL, 0, NULL, NULL,
	  .kind = OPT_POW2, SEN(settings.osr_t),
	  .lo = 1, .hi = 128, .expect = "1, 2, 4, ... 128", HW },
	{ "sensor", "iir", NULL, 0, NULL, NULL,
	  .kind = OPT_POW2, SEN(settings.iir),
	  .lo = 0, .hi = 128, .expect = "0 (off) or 1, 2, 4, ... 128", HW },
	{ "sensor", "rate_hz", NULL, 0, NULL, NULL,
	  .kind = OPT_UINT_SET, SEN(settings.rate_hz),
	  .lo = 0, .hi = 1000,
	  .expect = "0 (as fast as the oversampling allows) to 1000", HW },
	{ "sensor", "mode", NULL, 0, NULL, NULL,
	  CHOICE(modes), SEN(settings.mode), .expect = "normal or forced",
	  HW },
	{ "sensor", "instance", NULL, 0, NULL, NULL,
	  UINT(0, BARO_MAX_INSTANCES - 1), SEN(instance), .expect = "0..2",
	  HW },
	{ "sensor", "iio", NULL, 0, NULL, NULL,
	  .kind = OPT_ABS_PATH, SEN(iio),
	  .expect = "the device's sysfs directory, "
		    "/sys/bus/iio/devices/iio:deviceN", HW },
	{ "sensor", "drdy", NULL, 0, NULL, NULL,
	  .parse = opt_parse_gpio_line, .kind = OPT_STRING, SEN(drdy),
	  .expect = "CHIPLABEL:LINENAME (gpiodetect and gpioinfo show them)",
	  .arg = 1, HW },
	{ "sensor", "drdy_active", NULL, 0, NULL, NULL,
	  .kind = OPT_CHOICE, .format = opt_fmt_drdy_choice,
	  .choices = drdy_levels, SEN(settings.drdy),
	  .expect = "high or low", HW },
	{ "sensor", "drdy_drive", NULL, 0, NULL, NULL,
	  .kind = OPT_CHOICE, .format = opt_fmt_drdy_choice,
	  .choices = drdy_drives, SEN(settings.drdy_open_drain),
	  .expect = "push-pull or open-drain", HW },
	{ "sensor", "power", NULL, 0, NULL, NULL,
	  .parse = opt_parse_gpio_line, .kind = OPT_STRING, SEN(power),
	  .expect = "CHIPLABEL:LINENAME (gpiodetect and gpioinfo show them)",
	  HW },
	{ "sensor", "power_off_ms", NULL, 0, NULL, NULL,
	  .kind = OPT_UINT_SET, SEN(power_off_ms),
	  .lo = 1, .hi = 60000, .expect = "1 to 60000", HW },
#undef HW

	/* ---- this run of the process, continued ---- */
	{ NULL, NULL, "scenario", 0, "FILE",
	  "run a fault scenario from start-up (doc/scenario.md)",
	  .kind = OPT_ARG, CLI(scenario), PROCESS },
	{ NULL, NULL, "duration", 0, "SECONDS", "stop after this long",
	  .kind = OPT_DOUBLE, CLI(duration_s), .lo = 1e-6, .hi = 1e9,
	  .expect = "a positive number of seconds", PROCESS },
	{ NULL, NULL, "verbose", 'v', NULL, "more log (repeatable)",
	  .parse = parse_verbose, PROCESS },
	{ NULL, NULL, "quiet", 'q', NULL, "errors only",
	  .parse = parse_verbose, .arg = -1, PROCESS },
	{ NULL, NULL, "log-prefix", 0, NULL,
	  "<N> priority prefixes on stderr (automatic when it is\n"
	  "the journal)",
	  .kind = OPT_FLAG, CLI(log_prefix), PROCESS },
	{ NULL, NULL, "help", 'h', NULL, "this text",
	  .kind = OPT_FLAG, CLI(help), PROCESS | OPT_EXIT },
	{ NULL, NULL, "version", 'V', NULL, "the version",
	  .kind = OPT_FLAG, CLI(version), PROCESS | OPT_EXIT },
};

const size_t options_count = sizeof(options_table) / sizeof(options_table[0]);

_Static_assert(sizeof(options_table) / sizeof(options_table[0]) <=
		       CONFIG_ROWS_MAX,
	       "struct config's given bits cover every row");

/* Appends to buf, which keeps what fits; *n counts what was asked. */
static void
append(char *buf, size_t len, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void
append(char *buf, size_t len, size_t *n, const char *fmt, ...)
{
	va_list ap;

	if (*n >= len)
		return;
	va_start(ap, fmt);
	int w = vsnprintf(buf + *n, len - *n, fmt, ap);
	va_end(ap);
	if (w > 0)
		*n += (size_t)w;
}

/* ------------------------------------------------------------------ */
/* Look-ups */

/* In the order of barod.conf(5). */
static const char *const sections[] = { "barod", "sim", "sitl", "px4",
					"mavlink", "faults", "output",
					"sensor" };
#define N_SECTIONS (sizeof(sections) / sizeof(sections[0]))

bool
options_section_named(const char *section)
{
	return strcmp(section, "output") == 0 || strcmp(section, "sensor") == 0;
}

bool
options_section_known(const char *section)
{
	for (size_t i = 0; i < N_SECTIONS; i++) {
		if (strcmp(section, sections[i]) == 0)
			return !options_section_named(section);
	}
	return false;
}

void
options_section_list(char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < N_SECTIONS; i++)
		append(buf, len, &n, "%s%s%s", i ? ", " : "", sections[i],
		       options_section_named(sections[i]) ? " NAME" : "");
}

/* rng_1 .. rng_6; SIM_ and what sim_param_assign takes after it. */
static bool
key_matches(const struct opt_row *r, const char *key)
{
	size_t n = strlen(r->key);

	if (n > 2 && strcmp(r->key + n - 2, "_N") == 0)
		return strncmp(key, r->key, n - 1) == 0 &&
		       key[n - 1] >= '0' + (int)r->lo &&
		       key[n - 1] <= '0' + (int)r->hi && key[n] == '\0';
	if (r->key[n - 1] == '*')
		return strncmp(key, r->key, n - 1) == 0;
	return strcmp(key, r->key) == 0;
}

const struct opt_row *
options_find_key(const char *section, const char *key)
{
	for (size_t i = 0; i < options_count; i++) {
		const struct opt_row *r = &options_table[i];
		if (r->section && strcmp(r->section, section) == 0 &&
		    key_matches(r, key))
			return r;
	}
	return NULL;
}

const struct opt_row *
options_find_name(const char *name)
{
	for (size_t i = 0; i < options_count; i++) {
		if (options_table[i].name &&
		    strcmp(options_table[i].name, name) == 0)
			return &options_table[i];
	}
	return NULL;
}

size_t
options_index(const struct opt_row *r)
{
	return (size_t)(r - options_table);
}

/* A pattern key as the messages write it: rng_1..rng_6. */
static int
key_text(const struct opt_row *r, char *buf, size_t len)
{
	size_t n = strlen(r->key);

	if (n > 2 && strcmp(r->key + n - 2, "_N") == 0)
		return snprintf(buf, len, "%.*s%.0f..%.*s%.0f", (int)(n - 1),
				r->key, r->lo, (int)(n - 1), r->key, r->hi);
	return snprintf(buf, len, "%s", r->key);
}

void
options_key_list(const char *section, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < options_count; i++) {
		const struct opt_row *r = &options_table[i];
		char key[64];
		if (!r->section || strcmp(r->section, section) != 0)
			continue;
		key_text(r, key, sizeof(key));
		append(buf, len, &n, "%s%s", n ? ", " : "", key);
	}
}

bool
options_acts_on(const struct opt_row *r, enum config_source s)
{
	return (r->sources & OPT_SRC(s)) != 0;
}

void
options_sources_text(unsigned sources, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < N_SOURCES; i++) {
		if (sources & OPT_SRC(source_order[i]))
			append(buf, len, &n, "%s%s", n ? ", " : "",
			       config_source_name(source_order[i]));
	}
}

/* ------------------------------------------------------------------ */
/* Setting, with the message */

int
options_set(const struct opt_row *r, void *base, const char *key,
	    const char *value, const char *as_typed, char *msg, size_t len)
{
	char why[320] = "";

	if ((r->parse ? r->parse(r, base, key, value, why, sizeof(why))
		     : opt_parse_value(r, base, value, why, sizeof(why))) == 0)
		return 0;
	if (r->flags & OPT_WHOLE_MSG) {
		if (as_typed)
			snprintf(msg, len, "%s: %s", as_typed, why);
		else
			snprintf(msg, len, "%s", why);
	} else if (as_typed) {
		if (why[0])
			snprintf(msg, len, "%s: '%s': %s", as_typed, value, why);
		else
			snprintf(msg, len, "%s: '%s' is not %s", as_typed, value,
				 r->expect ? r->expect : "valid");
	} else {
		if (why[0])
			snprintf(msg, len, "%s = '%s': %s", key, value, why);
		else
			snprintf(msg, len, "%s = '%s': expected %s", key, value,
				 r->expect ? r->expect : "something else");
	}
	return -EINVAL;
}

/* ------------------------------------------------------------------ */
/* The environment: PX4's variables */

int
options_apply_env(struct config *c, const char *(*get)(const char *),
		  char *err, size_t errlen)
{
	const bool px4 = config_source_info(c->source)->traits &
			 CONFIG_SRC_PX4_ENV;

	for (size_t i = 0; i < options_count; i++) {
		const struct opt_row *r = &options_table[i];
		const char *v = r->env ? get(r->env) : NULL;
		char why[320] = "";
		if (!v || !*v || (c->source != CONFIG_SOURCE_NONE &&
				  (!px4 || !options_acts_on(r, c->source))))
			continue;
		if ((r->parse ? r->parse(r, c, r->key, v, why, sizeof(why))
		     : opt_parse_value(r, c, v, why, sizeof(why))) < 0)
			return str_errorf(err, errlen, -EINVAL, "%s='%s': %s%s",
					  r->env, v, why[0] ? "" : "expected ",
					  why[0] ? why : r->expect);
		options_note_origin(r, c, r->env_from ? r->env_from : r->env);
	}
	return 0;
}

void
options_note_origin(const struct opt_row *r, struct config *c,
		    const char *from)
{
	if (r->from)
		memcpy((char *)c + r->from, &from, sizeof(from));
}

/* ------------------------------------------------------------------ */
/* --help */

#define HELP_COLUMN 27

void
options_usage(FILE *out)
{
	fputs("Usage: barod [OPTIONS]\n"
	      "       barod --probe [BUS] [--write FILE]\n"
	      "Barometer daemon: I2C or simulated (AP_Baro_SITL) barometers "
	      "published as MAVLink\n"
	      "(or MSP to an ArduPilot flight controller).  One source: "
	      "--sim, --sitl-json,\n"
	      "--sitl-json-proxy, --px4-sim, --px4-sim-proxy or --hardware "
	      "(or source in the\n"
	      "file); an option the source does not use is an error.\n"
	      "\n",
	      out);
	for (size_t i = 0; i < options_count; i++) {
		const struct opt_row *r = &options_table[i];
		char left[64];
		int n;
		if (!r->name)
			continue;
		if (r->short_name)
			n = snprintf(left, sizeof(left), "  -%c, --%s",
				     r->short_name, r->name);
		else
			n = snprintf(left, sizeof(left), "      --%s", r->name);
		if (r->metavar && n > 0 && (size_t)n < sizeof(left))
			snprintf(left + n, sizeof(left) - (size_t)n,
				 (r->flags & OPT_OPTIONAL) ? " [%s]" : " %s",
				 r->metavar);
		n = (int)strlen(left);
		fprintf(out, "%s%*s", left,
			n < HELP_COLUMN - 1 ? HELP_COLUMN - n : 2, "");
		for (const char *h = r->help; *h;) {
			const char *nl = strchr(h, '\n');
			size_t l = nl ? (size_t)(nl - h) : strlen(h);
			fprintf(out, "%.*s\n", (int)l, h);
			if (!nl)
				break;
			h = nl + 1;
			fprintf(out, "%*s", HELP_COLUMN, "");
		}
		/* Given to another source it is refused: say which. */
		if (r->sources != OPT_SRC_ALL) {
			const struct opt_row *a =
				r->alias ? options_find_name(r->alias) : NULL;
			char what[160], also[160] = "";
			options_sources_text(r->sources, what, sizeof(what));
			if (a)
				options_sources_text(a->sources, also,
						     sizeof(also));
			fprintf(out, "%*s(%s%s\n", HELP_COLUMN, "",
				r->sources == OPT_SRC_EMULATED ? "not hardware"
							       : what,
				a ? ";" : ")");
			if (a)
				fprintf(out, "%*s%s as --%s)\n",
					HELP_COLUMN + 1, "", also, a->name);
		}
	}
}

/* ------------------------------------------------------------------ */
/* --check-config */

/* The rows of one section that act on the source. */
static void
write_rows(FILE *out, const char *section, const void *base,
	   enum config_source source)
{
	for (size_t i = 0; i < options_count; i++) {
		const struct opt_row *r = &options_table[i];
		if (r->section && strcmp(r->section, section) == 0 &&
		    options_acts_on(r, source) &&
		    (!(r->flags & OPT_MSP) ||
		     output_type_is_msp(((const struct config_output *)base)
						->type)))
			(r->format ? r->format : opt_format_value)(r, base,
								   out);
	}
}

static bool
section_acts(const char *section, enum config_source source)
{
	for (size_t i = 0; i < options_count; i++) {
		const struct opt_row *r = &options_table[i];
		if (r->section && strcmp(r->section, section) == 0 &&
		    options_acts_on(r, source))
			return true;
	}
	return false;
}

void
options_write_config(FILE *out, const struct config *c)
{
	for (size_t k = 0; k < N_SECTIONS; k++) {
		const char *sec = sections[k];
		if (!section_acts(sec, c->source))
			continue;
		if (strcmp(sec, "output") == 0) {
			for (size_t i = 0; i < c->n_outputs; i++) {
				fprintf(out, "\n[output %s]\n",
					c->outputs[i].name);
				write_rows(out, sec, &c->outputs[i], c->source);
			}
		} else if (strcmp(sec, "sensor") == 0) {
			for (size_t i = 0; i < c->n_sensors; i++) {
				fprintf(out, "\n[sensor %s]\n",
					c->sensors[i].name);
				write_rows(out, sec, &c->sensors[i], c->source);
			}
		} else {
			fprintf(out, "%s[%s]\n", k ? "\n" : "", sec);
			write_rows(out, sec, c, c->source);
		}
	}
}

size_t
options_unused(const struct config *c, char *buf, size_t len)
{
	size_t n = 0, count = 0;

	buf[0] = '\0';
	if (c->source == CONFIG_SOURCE_NONE)
		return 0;
	for (size_t i = 0; i < options_count; i++) {
		const struct opt_row *r = &options_table[i];
		char key[64];
		if (!(c->given[i / 8] & (1u << (i % 8))) ||
		    options_acts_on(r, c->source) ||
		    options_section_named(r->section))
			continue;
		key_text(r, key, sizeof(key));
		append(buf, len, &n, "%s[%s] %s", count++ ? ", " : "",
		       r->section, key);
	}
	/* Sensors are all or nothing: named by section. */
	if (c->source != CONFIG_SOURCE_HARDWARE) {
		for (size_t i = 0; i < c->n_sensors; i++)
			append(buf, len, &n, "%s[sensor %s]",
			       count++ ? ", " : "", c->sensors[i].name);
	}
	return count;
}

void
options_check_report(FILE *out, const struct config *c)
{
	char unused[1024];

	fprintf(out, "configuration OK: source %s, %zu output(s), sysid %u "
		     "compid %u, home %.2f m AMSL, atmosphere %s\n",
		config_source_name(c->source), c->n_outputs, c->sysid,
		c->compid, c->home_alt_m,
		baro_sitl_atmosphere_name(c->atmosphere));
	if (options_unused(c, unused, sizeof(unused)))
		fprintf(out, "# not used by source %s: %s\n",
			config_source_name(c->source), unused);
	fputc('\n', out);
	options_write_config(out, c);
}
