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

static const struct opt_choice output_types[] = {
	{ "udp-client", OUTPUT_UDP_CLIENT }, { "udp-server", OUTPUT_UDP_SERVER },
	{ "serial", OUTPUT_SERIAL }, { "tcp-client", OUTPUT_TCP_CLIENT },
	{ "tcp-server", OUTPUT_TCP_SERVER },
	/* MAVProxy's and pymavlink's names (after the canonical ones,
	 * which --check-config prints) */
	{ "udpin", OUTPUT_UDP_SERVER }, { "udpout", OUTPUT_UDP_CLIENT },
	{ "tcpin", OUTPUT_TCP_SERVER }, { "tcp", OUTPUT_TCP_CLIENT },
	/* serial until the keys settle the transport (options-file.c) */
	{ "msp", OUTPUT_MSP_SERIAL }, { "msp", OUTPUT_MSP_TCP },
	{ "msp", OUTPUT_MSP_UDP }, { NULL, 0 },
};
static const struct opt_choice atmospheres[] = {
	{ "simple", BARO_SITL_ATMOS_SIMPLE }, { "1976", BARO_SITL_ATMOS_1976 },
	{ "water", BARO_SITL_ATMOS_WATER }, { NULL, 0 },
};
static const struct opt_choice sitl_vehicles[] = {
	{ "copter", SITL_VEHICLE_COPTER }, { "plane", SITL_VEHICLE_PLANE },
	{ "rover", SITL_VEHICLE_ROVER }, { NULL, 0 },
};
static const struct opt_choice protocols[] = {
	{ "1", 1 }, { "2", 2 }, { NULL, 0 },
};
static const struct opt_choice remote_choices[] = {
	{ "auto", CONFIG_REMOTE_AUTO }, { "yes", CONFIG_REMOTE_YES },
	{ "no", CONFIG_REMOTE_NO }, { NULL, 0 },
};
static const struct opt_choice transports[] = {
	{ "tcp", CONFIG_MSP_TCP }, { "udp", CONFIG_MSP_UDP }, { NULL, 0 },
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
#define SHOWN_IF(f) .shown_if = offsetof(struct config_sensor, f)

#define ALL .sources = OPT_SRC_ALL
#define HW .sources = OPT_SRC(CONFIG_SOURCE_HARDWARE)
#define PX4SIM .sources = OPT_SRC(CONFIG_SOURCE_PX4_SIM)
#define UINT(lo_, hi_) .kind = OPT_UINT, .lo = (lo_), .hi = (hi_)
#define CHOICE(list, text) .kind = OPT_CHOICE, .choices = (list), \
			   .expect = (text)
#define STRING(min) .kind = OPT_STRING, .lo = (min)
#define PATH(max) STRING(0), .expect = "a path of at most " #max " bytes"
#define POW2(lo_, text) .kind = OPT_POW2, .lo = (lo_), .hi = 128, \
			.expect = (text)
#define GPIO_LINE(f) .kind = OPT_GPIO_LINE, SEN(f), \
	.expect = "CHIPLABEL:LINENAME (gpiodetect and gpioinfo show them)"
#define RATE .kind = OPT_RATE, .lo = 0, .hi = 1000, \
	     .expect = "'all' or a rate in Hz from 0 to 1000"
#define PROCESS ALL, .flags = OPT_PROCESS
/* --sim, --hardware ...: source s; the proxies' value, their upstream. */
#define SOURCE(s) .kind = OPT_SOURCE_FLAG, ALL, .flags = OPT_SOURCE, \
		  .arg = (s)
#define UPSTREAM(f) CFG(f), .expect = "HOST:PORT"

static int
parse_config_path(const struct opt_row *r, void *base, const char *value,
		  char *why, size_t whylen)
{
	struct cli *cli = base;

	(void)r, (void)why, (void)whylen;
	cli->config_path = value;
	cli->config_required = true;
	return 0;
}

static int
parse_probe(const struct opt_row *r, void *base, const char *value,
	    char *why, size_t whylen)
{
	(void)r, (void)why, (void)whylen;
	((struct cli *)base)->probe = true;
	((struct cli *)base)->probe_bus = value;
	return 0;
}

static int
parse_verbose(const struct opt_row *r, void *base, const char *value,
	      char *why, size_t whylen)
{
	struct cli *cli = base;

	(void)value, (void)why, (void)whylen;
	cli->verbosity = r->arg < 0 ? -1 : cli->verbosity + 1;
	return 0;
}

/* Given, the atmosphere no longer follows the release's default. */
static int
parse_atmosphere(const struct opt_row *r, void *base, const char *value,
		 char *why, size_t whylen)
{
	int rc = opt_parse_value(r, base, NULL, value, why, whylen);

	if (rc == 0)
		((struct config *)base)->atmosphere_given = true;
	return rc;
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
	{ NULL, NULL, "sim", 0, NULL, "simulated barometers (source = sim)",
	  SOURCE(CONFIG_SOURCE_SIM) },
	{ NULL, NULL, "sitl-json", 0, NULL,
	  "be ArduPilot SITL's JSON physics peer (port 9002 + 10 I)",
	  SOURCE(CONFIG_SOURCE_SITL_JSON) },
	{ NULL, NULL, "sitl-json-proxy", 0, "HOST:PORT",
	  "sit between ArduPilot and this JSON backend\n(upstream in [sitl])",
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
	{ "barod", "source", .kind = OPT_SOURCE_NAME, CFG(source), ALL },
	{ "barod", "sysid", "sysid", 0, "N", "MAVLink system id (default 1)",
	  UINT(1, 255), CFG(sysid), ALL },
	{ "barod", "compid", "compid", 0, "N",
	  "MAVLink component id (default 191)", UINT(1, 255), CFG(compid),
	  ALL },
	{ "barod", "control", "control", 0, "PATH",
	  "control socket for baroctl (none: no socket)", PATH(107),
	  CFG(control_path), ALL },
	{ "barod", "control_mode", .kind = OPT_OCTAL, CFG(control_mode),
	  .hi = 0777, .expect = "octal permissions such as 0600", ALL },
	{ "barod", "record", "record", 0, "FILE.csv",
	  "write every sample (baro-sim's columns)", PATH(255),
	  CFG(record_path), ALL },
	{ "barod", "busy_poll_us", "busy-poll", 0, "USEC",
	  "proxies: poll USEC for the answer to a forwarded\n"
	  "frame before sleeping (default 0: sleep at once)",
	  UINT(0, 1000), CFG(busy_poll_us),
	  .sources = OPT_SRC(CONFIG_SOURCE_SITL_PROXY) |
		     OPT_SRC(CONFIG_SOURCE_PX4_PROXY) },

	/* ---- [sim]: the emulator and the truth it sees ---- */
	{ "sim", "profile", "profile", 0, "SPEC",
	  "truth: static:H climb:RATE[:H0] step:H0:H1:T[:R] sine:A:P[:H0]\n"
	  "takeoff:H:RATE:HOLD[:THROTTLE]",
	  .kind = OPT_PROFILE, CFG(profile), .sources = OPT_SRC_OWN_TRUTH,
	  .flags = OPT_WHOLE_MSG },
	{ "sim", "throttle", "throttle", 0, "THROTTLE",
	  "T or airborne:T (T 0..1): the motors' throttle for the\n"
	  "ground effect instead of the profile's (0, or takeoff's)",
	  .kind = OPT_THROTTLE, CFG(throttle),
	  .sources = OPT_SRC(CONFIG_SOURCE_SIM), .flags = OPT_WHOLE_MSG },
	{ "sim", "truth", "truth", 0, "FILE.csv",
	  "truth from a trace (time_us or time_s, alt_m)", PATH(255),
	  CFG(truth_path), .sources = OPT_SRC_OWN_TRUTH },
	{ "sim", "home_alt", "home-alt", 0, "METRES",
	  "home altitude AMSL (default: 584 with --sitl-json*;\n"
	  "PX4_HOME_ALT, else 488, with --px4-sim*; else 0)",
	  .kind = OPT_DOUBLE, CFG(home_alt_m), .lo = -2.1e7, .hi = 2.1e7,
	  .expect = "metres AMSL from -2.1e7 to 2.1e7",
	  .env = "PX4_HOME_ALT", FROM(home_alt_from),
	  /* The PX4 proxy's too: its emulator's home bounds the faults,
	   * as PX4_HOME_ALT does there. */
	  .sources = OPT_SRC_OWN_TRUTH | OPT_SRC(CONFIG_SOURCE_SITL_PROXY) |
		     OPT_SRC(CONFIG_SOURCE_PX4_PROXY) },
	{ "sim", "ardupilot", "ardupilot", 0, "VERSION",
	  "the ArduPilot whose SITL baro to reproduce: 4.5, 4.6,\n"
	  "4.7 (default) or master (ground effect, SIM_BARO_GEFF_M)",
	  .kind = OPT_ARDUPILOT, CFG(ardupilot),
	  .expect = BARO_SITL_AP_CHOICES, .sources = OPT_SRC_EMULATED },
	{ "sim", "atmosphere", "atmosphere", 0, "MODEL",
	  "1976 (default from ArduPilot 4.6), simple (<= 4.5) or\n"
	  "water; default: --ardupilot's",
	  .parse = parse_atmosphere, CHOICE(atmospheres, "simple, 1976 or "
	  "water"), CFG(atmosphere),
	  /* Hardware mode too: a glitch or PX4 "wrong" shifts a real
	   * reading by an altitude through this model. */
	  ALL },
	{ "sim", "seed", "seed", 0, "N", "noise seed", UINT(0, UINT32_MAX),
	  CFG(seed), ALL },
	{ "sim", "SIM_*", "param", 'p', "NAME=VALUE",
	  "set a SIM_* parameter (repeatable)", .kind = OPT_SIM_PARAM,
	  CFG(params), .sources = OPT_SRC_EMULATED, .flags = OPT_WHOLE_MSG },

	/* ---- [sitl]: ArduPilot SITL's JSON physics ---- */
#define SITL .sources = OPT_SRC_SITL
	{ "sitl", "instances", "sitl-instances", 0, "N",
	  "SITL instances 0..N-1 (default 1)", UINT(1, CONFIG_MAX_SITL),
	  CFG(sitl.instances), SITL, .alias = "px4-instances" },
	{ "sitl", "bind", STRING(1), CFG(sitl.bind),
	  .expect = "an address to listen on", SITL },
	{ "sitl", "port", .kind = OPT_PORT, CFG(sitl.port), .lo = 1,
	  .hi = 65535 - 10 * CONFIG_MAX_SITL, SITL },
	{ "sitl", "upstream", .kind = OPT_ADDRESS, UPSTREAM(sitl.upstream),
	  .sources = OPT_SRC(CONFIG_SOURCE_SITL_PROXY) },
	{ "sitl", "rng_N", "rng", 0, "N=INSTANCE",
	  "rng_N carries this baro's height (default 1=0; none)",
	  .kind = OPT_RNG, CFG(sitl.rng), .lo = 1, .hi = 6,
	  .expect = "a baro instance 0..2 or none", SITL },
	{ "sitl", "vehicle", CHOICE(sitl_vehicles, "copter, plane or rover"),
	  CFG(sitl.vehicle), SITL },
	{ "sitl", "motor_mask", UINT(0, UINT32_MAX), CFG(sitl.motor_mask),
	  .expect = "SIM_VIB_MOT_MASK's value, 0..4294967295", SITL },
#undef SITL

	/* ---- [px4]: PX4 SITL over TCP ---- */
#define PX4 .sources = OPT_SRC_PX4
	{ "px4", "instances", "px4-instances", 0, "N",
	  "PX4 instances 0..N-1 (default 1)", UINT(1, CONFIG_MAX_SITL),
	  CFG(px4.instances), PX4 },
	{ "px4", "bind", STRING(1), CFG(px4.bind),
	  .expect = "an address to listen on", PX4 },
	{ "px4", "port", .kind = OPT_PORT, CFG(px4.port), .lo = 1,
	  .hi = 65535 - CONFIG_MAX_SITL, PX4 },
	{ "px4", "upstream", .kind = OPT_ADDRESS, UPSTREAM(px4.upstream),
	  .sources = OPT_SRC(CONFIG_SOURCE_PX4_PROXY) },
	{ "px4", "home_lat", .kind = OPT_DOUBLE, CFG(px4.home_lat_deg),
	  .lo = -90, .hi = 90, .expect = "degrees from -90 to 90",
	  .env = "PX4_HOME_LAT", FROM(px4.home_latlon_from),
	  .env_from = "PX4_HOME_LAT/LON", PX4SIM },
	{ "px4", "home_lon", .kind = OPT_DOUBLE, CFG(px4.home_lon_deg),
	  .lo = -180, .hi = 180, .expect = "degrees from -180 to 180",
	  .env = "PX4_HOME_LON", FROM(px4.home_latlon_from),
	  .env_from = "PX4_HOME_LAT/LON", PX4SIM },
	{ "px4", "hil_baros", UINT(1, 2), CFG(px4.hil_baros),
	  .expect = "1 (baro 0 as HIL_SENSOR id 0) or 2 (baro 1 as id 1 too)",
	  PX4SIM },
	{ "px4", "lockstep_timeout_ms", UINT(10, 60000),
	  CFG(px4.lockstep_timeout_ms), PX4SIM },
	{ "px4", "motor_mask", UINT(0, 65535), CFG(px4.motor_mask),
	  .expect = "a mask of HIL_ACTUATOR_CONTROLS channels, 0..65535", PX4 },
	{ "px4", "speed_factor", "px4-speed-factor", 0, "F",
	  "physics seconds per second (default\n"
	  "PX4_SIM_SPEED_FACTOR, else 1; 0: as fast as PX4 replies)",
	  .kind = OPT_SPEED_FACTOR, CFG(px4.speed_factor),
	  .expect = "0 (as fast as PX4 replies) or 0.01..1000",
	  .env = "PX4_SIM_SPEED_FACTOR", FROM(px4.speed_factor_from), PX4SIM },
#undef PX4

	/* ---- [mavlink] ---- */
	{ "mavlink", "protocol", CHOICE(protocols, "1 or 2"),
	  CFG(mavlink_version), ALL },
	{ "mavlink", "heartbeat_hz", RATE, CFG(rates.heartbeat_hz), ALL },
	{ "mavlink", "scaled_pressure_hz", RATE,
	  CFG(rates.scaled_pressure_hz), ALL },
	{ "mavlink", "hil_sensor_hz", RATE, CFG(rates.hil_sensor_hz), ALL },
	{ "mavlink", "signing_key", "signing-key", 0, "FILE",
	  "sign MAVLink 2 with this 32-byte key; take commands\n"
	  "only when signed with it (doc/security.md)",
	  PATH(255), CFG(signing_key_path), ALL },

	/* ---- [faults] ---- */
	{ "faults", "remote", "remote-faults", 0, "auto|yes|no",
	  "whether a GCS may change faults over MAVLink (default\n"
	  "auto: yes when simulated, no on real sensors)",
	  CHOICE(remote_choices, "auto, yes or no"), CFG(remote_faults), ALL },

	/* ---- outputs: -o, or [output NAME] sections ---- */
	{ NULL, NULL, "output", 'o', "SPEC",
	  "udp:HOST:PORT, udp-server:HOST:PORT, serial:DEV[:BAUD],\n"
	  "tcp:HOST:PORT (connect), tcpin:HOST:PORT (listen),\n"
	  "msp:DEV[:BAUD], msp-tcp:HOST:PORT or msp-udp:HOST:PORT\n"
	  "(MAVProxy's udpout:HOST:PORT = udp, udpin:HOST:PORT =\n"
	  "udp-server)\n"
	  "(repeatable; replaces the file's outputs; default\n"
	  "udp:127.0.0.1:14550)",
	  .kind = OPT_OUTPUT_SPEC, CFG(n_outputs), ALL,
	  .flags = OPT_LIST | OPT_WHOLE_MSG },
	{ "output", "type", CHOICE(output_types, "udp-client, udp-server, "
	  "serial, tcp-client, tcp-server or msp (or udpout, udpin, tcp, "
	  "tcpin)"), OUT(type), ALL, .flags = OPT_OUTPUT_TYPE },
	{ "output", "address", .kind = OPT_ADDRESS, OUT(address),
	  .expect = "HOST:PORT", ALL },
	{ "output", "device", STRING(1), OUT(device), .expect = "a device path",
	  ALL },
	{ "output", "baud", .kind = OPT_BAUD, OUT(baud),
	  .shown_if = offsetof(struct config_output, device),
	  .expect = "one of 9600 ... 921600", ALL },
	{ "output", "heartbeat_hz", RATE, OUT(rates.heartbeat_hz), ALL },
	{ "output", "scaled_pressure_hz", RATE, OUT(rates.scaled_pressure_hz),
	  ALL },
	{ "output", "hil_sensor_hz", RATE, OUT(rates.hil_sensor_hz), ALL },
	{ "output", "transport", CHOICE(transports, "tcp or udp"),
	  OUT(msp.transport), ALL, .flags = OPT_MSP },
	{ "output", "instances", .kind = OPT_MSP_MAP, OUT(msp.map), ALL,
	  .flags = OPT_MSP | OPT_WHOLE_MSG },
	{ "output", "rate_hz", RATE, OUT(msp.rate_hz), ALL, .flags = OPT_MSP },
	{ "output", "vehicle", UINT(0, CONFIG_MAX_SITL - 1), OUT(msp.vehicle),
	  .expect = "a SITL instance 0..7", ALL, .flags = OPT_MSP },

	/* ---- [sensor NAME]: hardware ---- */
	{ "sensor", "bus", .kind = OPT_BUS, SEN(bus),
	  .expect = "a bus number (1 for /dev/i2c-1) or a /dev path", HW },
	{ "sensor", "address", .kind = OPT_I2C_ADDRESS, SEN(address),
	  .expect = "a 7-bit I2C address 0x03..0x77", HW },
	{ "sensor", "driver", .kind = OPT_DRIVER, SEN(driver), HW },
	{ "sensor", "osr_p", POW2(1, "1, 2, 4, ... 128"),
	  SEN(settings.osr_p), HW },
	{ "sensor", "osr_t", POW2(1, "1, 2, 4, ... 128"),
	  SEN(settings.osr_t), HW },
	{ "sensor", "iir", POW2(0, "0 (off) or 1, 2, 4, ... 128"),
	  SEN(settings.iir), HW },
	{ "sensor", "rate_hz", .kind = OPT_UINT_SET, SEN(settings.rate_hz),
	  .lo = 0, .hi = 1000,
	  .expect = "0 (as fast as the oversampling allows) to 1000", HW },
	{ "sensor", "mode", CHOICE(modes, "normal or forced"),
	  SEN(settings.mode), HW },
	{ "sensor", "instance", UINT(0, BARO_MAX_INSTANCES - 1), SEN(instance),
	  HW },
	{ "sensor", "iio", .kind = OPT_ABS_PATH, SEN(iio),
	  .expect = "the device's sysfs directory, "
		    "/sys/bus/iio/devices/iio:deviceN", HW },
	{ "sensor", "drdy", GPIO_LINE(drdy), .arg = 1, HW },
	{ "sensor", "drdy_active", CHOICE(drdy_levels, "high or low"),
	  SEN(settings.drdy), SHOWN_IF(drdy), HW },
	{ "sensor", "drdy_drive", CHOICE(drdy_drives, "push-pull or "
	  "open-drain"), SEN(settings.drdy_open_drain), SHOWN_IF(drdy), HW },
	{ "sensor", "power", GPIO_LINE(power), HW },
	{ "sensor", "power_off_ms", .kind = OPT_UINT_SET, SEN(power_off_ms),
	  .lo = 1, .hi = 60000, .expect = "1 to 60000", HW },

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
	  "the journal)", .kind = OPT_FLAG, CLI(log_prefix), PROCESS },
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
static void __attribute__((format(printf, 4, 5)))
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

/* A pattern row: rng_1 .. rng_6 (rng_N, lo..hi). */
static bool
key_numbered(const struct opt_row *r)
{
	size_t n = strlen(r->key);

	return n > 2 && strcmp(r->key + n - 2, "_N") == 0;
}

/* rng_1 .. rng_6; SIM_ and what sim_param_assign takes after it. */
static bool
key_matches(const struct opt_row *r, const char *key)
{
	size_t n = strlen(r->key);

	if (key_numbered(r))
		return strncmp(key, r->key, n - 1) == 0 &&
		       key[n - 1] >= '0' + (int)r->lo &&
		       key[n - 1] <= '0' + (int)r->hi && key[n] == '\0';
	if (r->key[n - 1] == '*')
		return strncmp(key, r->key, n - 1) == 0;
	return strcmp(key, r->key) == 0;
}

/* A key as the messages write it: rng_1..rng_6. */
static void
key_text(const struct opt_row *r, char *buf, size_t len)
{
	int n = (int)strlen(r->key) - 1;

	if (key_numbered(r))
		snprintf(buf, len, "%.*s%.0f..%.*s%.0f", n, r->key, r->lo, n,
			 r->key, r->hi);
	else
		snprintf(buf, len, "%s", r->key);
}

static bool
in_section(const struct opt_row *r, const char *section)
{
	return r->section && strcmp(r->section, section) == 0;
}

const struct opt_row *
options_find_key(const char *section, const char *key)
{
	for (size_t i = 0; i < options_count; i++) {
		if (in_section(&options_table[i], section) &&
		    key_matches(&options_table[i], key))
			return &options_table[i];
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

void
options_key_list(const char *section, char *buf, size_t len)
{
	size_t n = 0;
	char key[64];

	buf[0] = '\0';
	for (size_t i = 0; i < options_count; i++) {
		if (!in_section(&options_table[i], section))
			continue;
		key_text(&options_table[i], key, sizeof(key));
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
	for (size_t i = 0; i < CONFIG_SOURCE_COUNT - 1; i++) {
		if (sources & OPT_SRC(config_source_order[i]))
			append(buf, len, &n, "%s%s", n ? ", " : "",
			       config_source_name(config_source_order[i]));
	}
}

/* ------------------------------------------------------------------ */
/* Setting, with the message */

static int
row_parse(const struct opt_row *r, void *base, const char *key,
	  const char *value, char *why, size_t whylen)
{
	why[0] = '\0';
	return r->parse ? r->parse(r, base, value, why, whylen)
			: opt_parse_value(r, base, key, value, why, whylen);
}

int
options_set(const struct opt_row *r, void *base, const char *key,
	    const char *value, const char *as_typed, char *msg, size_t len)
{
	char why[320], buf[64];

	if (row_parse(r, base, key, value, why, sizeof(why)) == 0)
		return 0;
	const char *expect = opt_expect(r, buf, sizeof(buf));
	if (r->flags & OPT_WHOLE_MSG)
		snprintf(msg, len, "%s%s%s", as_typed ? as_typed : "",
			 as_typed ? ": " : "", why);
	else if (as_typed)
		snprintf(msg, len, "%s: '%s'%s%s", as_typed, value,
			 why[0] ? ": " : " is not ", why[0] ? why : expect);
	else
		snprintf(msg, len, "%s = '%s': %s%s", key, value,
			 why[0] ? "" : "expected ", why[0] ? why : expect);
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
	char why[320], expect[64];

	for (size_t i = 0; i < options_count; i++) {
		const struct opt_row *r = &options_table[i];
		const char *v = r->env ? get(r->env) : NULL;
		if (!v || !*v || (c->source != CONFIG_SOURCE_NONE &&
				  (!px4 || !options_acts_on(r, c->source))))
			continue;
		if (row_parse(r, c, r->key, v, why, sizeof(why)) < 0)
			return str_errorf(err, errlen, -EINVAL, "%s='%s': %s%s",
					  r->env, v, why[0] ? "" : "expected ",
					  why[0] ? why
						 : opt_expect(r, expect,
							      sizeof(expect)));
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

/* text as lines of at most width columns, broken at blanks. */
static void
wrap_text(FILE *out, const char *text, int width)
{
	int col = 0;

	for (const char *w = text; *w;) {
		size_t n = strcspn(w, " ");
		if (col > 0 && col + 1 + (int)n > width) {
			fputc('\n', out);
			col = 0;
		} else if (col > 0) {
			fputc(' ', out);
			col++;
		}
		fwrite(w, 1, n, out);
		col += (int)n;
		w += n;
		w += strspn(w, " ");
	}
	fputc('\n', out);
}

void
options_usage(FILE *out)
{
	char flags[160], intro[512];

	/* The sources from config.c's table, so a new one is listed. */
	config_source_flags(flags, sizeof(flags));
	snprintf(intro, sizeof(intro),
		 "Barometer daemon: I2C or simulated (AP_Baro_SITL) barometers "
		 "published as MAVLink (or MSP to an ArduPilot flight "
		 "controller).  One source: %s (or source in the file); an "
		 "option the source does not use is an error.", flags);
	fputs("Usage: barod [OPTIONS]\n"
	      "       barod --probe [BUS] [--write FILE]\n", out);
	wrap_text(out, intro, 80);
	fputs("\n", out);
	for (size_t i = 0; i < options_count; i++) {
		const struct opt_row *r = &options_table[i];
		char left[64], what[160], also[160];
		if (!r->name)
			continue;
		int n = snprintf(left, sizeof(left), "  %c%c%c --%s%s%s%s%s",
				 r->short_name ? '-' : ' ',
				 r->short_name ? r->short_name : ' ',
				 r->short_name ? ',' : ' ', r->name,
				 r->metavar ? " " : "",
				 (r->flags & OPT_OPTIONAL) ? "[" : "",
				 r->metavar ? r->metavar : "",
				 (r->flags & OPT_OPTIONAL) ? "]" : "");
		fprintf(out, "%s%*s", left,
			n < HELP_COLUMN - 1 ? HELP_COLUMN - n : 2, "");
		/* Lines after the first start under the first. */
		for (const char *h = r->help; *h;) {
			size_t l = strcspn(h, "\n");
			fprintf(out, "%.*s\n", (int)l, h);
			if (!h[l])
				break;
			h += l + 1;
			fprintf(out, "%*s", HELP_COLUMN, "");
		}
		/* Given to another source it is refused: say which. */
		if (r->sources == OPT_SRC_ALL)
			continue;
		const struct opt_row *a =
			r->alias ? options_find_name(r->alias) : NULL;
		options_sources_text(r->sources, what, sizeof(what));
		fprintf(out, "%*s(%s%s\n", HELP_COLUMN, "",
			r->sources == OPT_SRC_EMULATED ? "not hardware" : what,
			a ? ";" : ")");
		if (a) {
			options_sources_text(a->sources, also, sizeof(also));
			fprintf(out, "%*s%s as --%s)\n", HELP_COLUMN + 1, "",
				also, a->name);
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
		if (in_section(r, section) && options_acts_on(r, source) &&
		    (!(r->flags & OPT_MSP) ||
		     output_type_is_msp(((const struct config_output *)base)
						->type)))
			opt_format_value(r, base, out);
	}
}

void
options_write_config(FILE *out, const struct config *c)
{
	for (size_t k = 0; k < N_SECTIONS; k++) {
		const char *sec = sections[k];
		const bool outputs = strcmp(sec, "output") == 0;
		size_t i = 0;
		while (i < options_count && !(in_section(&options_table[i], sec) &&
					      options_acts_on(&options_table[i],
							      c->source)))
			i++;
		if (i == options_count)
			continue;	/* nothing there acts on the source */
		if (!options_section_named(sec)) {
			fprintf(out, "%s[%s]\n", k ? "\n" : "", sec);
			write_rows(out, sec, c, c->source);
			continue;
		}
		for (i = 0; i < (outputs ? c->n_outputs : c->n_sensors); i++) {
			const void *e = outputs ? (const void *)&c->outputs[i]
						: (const void *)&c->sensors[i];
			/* name is both structs' first field */
			fprintf(out, "\n[%s %s]\n", sec, (const char *)e);
			write_rows(out, sec, e, c->source);
		}
	}
}

size_t
options_unused(const struct config *c, char *buf, size_t len)
{
	size_t n = 0, count = 0;
	char key[64];

	buf[0] = '\0';
	if (c->source == CONFIG_SOURCE_NONE)
		return 0;
	for (size_t i = 0; i < options_count; i++) {
		const struct opt_row *r = &options_table[i];
		if (!(c->given[i / 8] & (1u << (i % 8))) ||
		    options_acts_on(r, c->source) ||
		    options_section_named(r->section))
			continue;
		key_text(r, key, sizeof(key));
		append(buf, len, &n, "%s[%s] %s", count++ ? ", " : "",
		       r->section, key);
	}
	/* Sensors are all or nothing: named by section. */
	for (size_t i = 0; c->source != CONFIG_SOURCE_HARDWARE &&
			   i < c->n_sensors; i++)
		append(buf, len, &n, "%s[sensor %s]", count++ ? ", " : "",
		       c->sensors[i].name);
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
