/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * barod's configuration: an INI file (parsed with libinih) overlaid by
 * command-line options.  The sections and keys, their ranges and the
 * sources they act on are the rows of the option table (options.c,
 * documented in barod.conf(5)); this file holds what they fill in, the
 * INI reader and the checks that span keys (an output's or a sensor's
 * keys together, the source's requirements).  Every SIM_* key goes
 * through the simulator's parameter table, so the config file knows
 * exactly the names the CLI and MAVLink know.
 */
#ifndef BAROD_CONFIG_H
#define BAROD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "baro-sitl.h"
#include "config-values.h"
#include "driver.h"
#include "sim-params.h"
#include "truth-profile.h"

#define CONFIG_DEFAULT_PATH "/etc/barod/barod.conf"
#define CONFIG_MAX_OUTPUTS 8
#define CONFIG_NAME_MAX 32
/* Rows of the option table (options.h) struct config can mark. */
#define CONFIG_ROWS_MAX 128

enum config_source {
	CONFIG_SOURCE_NONE,
	CONFIG_SOURCE_SIM,		/* 100 Hz on barod's own clock */
	CONFIG_SOURCE_SITL_JSON,	/* ArduPilot's JSON physics peer */
	CONFIG_SOURCE_SITL_PROXY,	/* between ArduPilot and a backend */
	CONFIG_SOURCE_HARDWARE,		/* [sensor NAME] sections */
	CONFIG_SOURCE_PX4_SIM,		/* PX4 SITL's simulator on TCP */
	CONFIG_SOURCE_PX4_PROXY,	/* between PX4 SITL and its simulator */
	CONFIG_SOURCE_COUNT
};

/* The sources but none, in the order the documentation lists them. */
extern const enum config_source config_source_order[CONFIG_SOURCE_COUNT - 1];

#define CONFIG_MAX_SITL 8

/* [sitl]: ArduPilot SITL instances 0..instances-1 on ports port + 10 I. */
struct config_sitl {
	unsigned instances;
	char bind[64];
	unsigned port;
	char upstream[128];	/* proxy: HOST:PORT of instance 0 (+10 each) */
	int rng[6];		/* rng_N -> baro instance, -1 none */
	/* What ArduPilot derives SIM::throttle (ground effect) from: the
	 * firmware's vehicle class and sitl_fdm.motor_mask, which for the
	 * JSON model is SIM_VIB_MOT_MASK alone (default 0: no throttle). */
	int vehicle;		/* enum sitl_vehicle_kind */
	uint32_t motor_mask;
};

/* [px4]: PX4 SITL instances 0..instances-1 connect to port + N (PX4's
 * 4560 + px4_instance), for the peer (px4-sim) and the proxy alike; the
 * proxy's simulator listens on upstream's port + N. */
#define CONFIG_PX4_PORT 4560
struct config_px4 {
	unsigned instances;
	char bind[64];
	unsigned port;
	char upstream[128];	/* proxy: HOST:PORT of instance 0 (+1 each) */
	double home_lat_deg, home_lon_deg;	/* peer */
	unsigned hil_baros;	/* 1: baro 0 as id 0; 2: also baro 1 as id 1 */
	unsigned lockstep_timeout_ms;	/* no reply this long: step anyway */
	/* HIL_ACTUATOR_CONTROLS channels that are motors (bit i: controls[i]),
	 * for the ground effect's throttle (px4-throttle.h). */
	unsigned motor_mask;
	/* px4-sim: physics seconds per wall second (PX4's
	 * PX4_SIM_SPEED_FACTOR); 0: as fast as PX4 replies. */
	double speed_factor;
	const char *speed_factor_from;	/* "default", a file, the env... */
	const char *home_latlon_from;	/* likewise */
};

/* One barometer per instance, as MAVLink has SCALED_PRESSURE..3. */
#define CONFIG_MAX_SENSORS BARO_MAX_INSTANCES
#define CONFIG_LINE_MAX 64

/* [sensor NAME]: a chip on an i2c-dev bus, or one the kernel already
 * drives, read through its IIO directory. */
struct config_sensor {
	char name[CONFIG_NAME_MAX];
	char bus[BARO_BUS_PATH_MAX];	/* i2c-dev node; "" with iio */
	uint8_t address;		/* 7-bit; 0 with iio */
	char driver[16];		/* "" = try every registered driver */
	struct baro_sensor_config settings;	/* zero = driver defaults */
	int instance;			/* 0..2; -1 until validated */
	char iio[256];			/* sysfs device directory, or "" */
	char drdy[CONFIG_LINE_MAX];	/* CHIPLABEL:LINENAME, or "" */
	char power[CONFIG_LINE_MAX];	/* CHIPLABEL:LINENAME, or "" */
	unsigned power_off_ms;		/* a power cycle's off time; 0 =
					 * barod's default */
};

enum output_type {
	OUTPUT_UDP_CLIENT,
	OUTPUT_UDP_SERVER,
	OUTPUT_SERIAL,
	/* MSP2_SENSOR_BAROMETER to an ArduPilot flight controller, not
	 * MAVLink: a serial line, a TCP connection barod makes (SITL's
	 * --serialN tcp:PORT) or UDP datagrams to an address. */
	OUTPUT_MSP_SERIAL,
	OUTPUT_MSP_TCP,
	OUTPUT_MSP_UDP,
	/* MAVLink over TCP, MAVProxy's spellings: a connection barod makes
	 * and keeps making (tcp:), or a server streaming to each client
	 * that connects (tcpin:). */
	OUTPUT_TCP_CLIENT,
	OUTPUT_TCP_SERVER,
};

/* What an output's frames are: the sink that makes them (sinks/). */
enum output_format {
	FORMAT_MAVLINK,
	FORMAT_MSP,		/* MSP2_SENSOR_BAROMETER only */
};

/* The wire an output's frames travel on (transports/). */
enum output_wire {
	WIRE_UDP_CLIENT,	/* datagrams to HOST:PORT */
	WIRE_UDP_SERVER,	/* bound to HOST:PORT, to whoever writes */
	WIRE_SERIAL,		/* DEVICE[:BAUD] */
	WIRE_TCP,		/* a connection to HOST:PORT */
	WIRE_TCP_SERVER,	/* listening on HOST:PORT, to each client */
};

/* An output type's row: adding a type is one row here, its sink (and a
 * transport, for a new wire) and its option rows. */
struct config_output_info {
	enum output_type type;
	const char *prefix;	/* -o PREFIX:... */
	const char *name;	/* as logs and --check-config print it */
	const char *form;	/* -o's form, for messages */
	enum output_format format;
	enum output_wire wire;
};

/* The row of output type t. */
const struct config_output_info *config_output_info(enum output_type t);

static inline bool
output_type_is_msp(enum output_type t)
{
	return config_output_info(t)->format == FORMAT_MSP;
}

/* Message rates in Hz; RATE_EVERY_SAMPLE publishes each sample as it is
 * produced, 0 disables the message. */
#define RATE_EVERY_SAMPLE (-1.0)
#define RATE_UNSET (-2.0)

struct config_rates {
	double heartbeat_hz;
	double scaled_pressure_hz;
	double hil_sensor_hz;
};

/* What an MSP output carries.  Default: every instance as the MSP
 * instance of the same number, every sample, SITL vehicle 0. */
struct config_msp {
	int8_t map[BARO_MAX_INSTANCES];	/* barod instance -> MSP instance
					 * 0..7, -1: not carried */
	double rate_hz;		/* RATE_EVERY_SAMPLE, or Hz per instance */
	unsigned vehicle;	/* SITL modes: that ArduPilot instance's baros */
	/* The file's transport (0: not given) until type = msp settles
	 * into OUTPUT_MSP_TCP or OUTPUT_MSP_UDP; then that one's. */
	int8_t transport;
};
enum { CONFIG_MSP_TCP = 1, CONFIG_MSP_UDP = 2 };

struct config_output {
	char name[CONFIG_NAME_MAX];
	enum output_type type;
	char address[128];	/* host:port for UDP and TCP */
	char device[128];	/* serial device */
	unsigned baud;
	struct config_rates rates;	/* RATE_UNSET: use [mavlink]'s */
	struct config_msp msp;
};

enum config_remote { CONFIG_REMOTE_AUTO, CONFIG_REMOTE_YES, CONFIG_REMOTE_NO };

struct config {
	enum config_source source;
	uint8_t sysid, compid;
	int mavlink_version;	/* 1 or 2 */
	struct config_rates rates;

	/* [sim] */
	struct sim_params params;
	struct truth_profile profile;
	char throttle[32];	/* a throttle term over the profile's, or "" */
	char truth_path[256];	/* "" = the profile; else a CSV trace */
	double home_alt_m;	/* NAN until set: config_resolve() */
	const char *home_alt_from;	/* "default", "barod.conf", ... */
	enum baro_sitl_atmosphere atmosphere;
	bool atmosphere_given;	/* else the release's: config_resolve() */
	enum baro_sitl_ardupilot ardupilot;	/* the release reproduced */
	uint32_t seed;

	struct config_sitl sitl;
	struct config_px4 px4;

	struct config_output outputs[CONFIG_MAX_OUTPUTS];
	size_t n_outputs;

	struct config_sensor sensors[CONFIG_MAX_SENSORS];
	size_t n_sensors;

	/* [faults] remote: whether a GCS (MAVLink INJECT_FAILURE, PARAM_SET
	 * of SIM_*) may change faults; auto = on the emulated sources only,
	 * config_remote_faults() resolves it. */
	enum config_remote remote_faults;
	/* [mavlink] signing_key: a 32-byte key file ("" = no signing),
	 * read by cli_load_config into signing_key. */
	char signing_key_path[256];
	bool signing;
	uint8_t signing_key[32];

	char control_path[108];	/* "" = no control socket */
	unsigned control_mode;	/* permission bits of the socket */
	char record_path[256];	/* "" = no recording */
	/* The proxies: poll this long for the answer to a forwarded frame
	 * before sleeping (0: sleep at once; event-loop.h). */
	unsigned busy_poll_us;

	/* Which rows of options_table the file set (bit i: row i), so what
	 * the source does not use can be told (options_unused); where a
	 * row with an origin field got its value is written there. */
	uint8_t given[CONFIG_ROWS_MAX / 8];
};

/* Built-in defaults: no source, sysid 1, compid 191, MAVLink 2, heartbeat
 * 1 Hz, every sample as SCALED_PRESSURE*, ArduPilot's SIM_* defaults;
 * an output's: no rates of its own, an MSP output's (struct config_msp). */
void config_defaults(struct config *c);
void config_output_defaults(struct config_output *o);

/*
 * One output spec from the command line: udp:HOST:PORT,
 * udp-server:HOST:PORT, serial:DEVICE[:BAUD], msp:DEVICE[:BAUD],
 * msp-tcp:HOST:PORT, msp-udp:HOST:PORT, tcp:HOST:PORT (to a TCP server),
 * tcpin:HOST:PORT (barod's TCP server), and MAVProxy's udpin: (=
 * udp-server) and udpout: (= udp).  A client's HOST must be somewhere to
 * send to: udp:0.0.0.0:PORT, which pymavlink reads as "listen", is
 * refused with the spelling that listens.
 */
int config_parse_output(const char *spec, struct config_output *o,
			char *err, size_t errlen);

/* ArduPilot SITL's default home (CMAC, -35.363261,149.165230,584,353). */
#define CONFIG_SITL_HOME_ALT_M 584.0
/* PX4's simulators' default home altitude (PX4_HOME_ALT unset). */
#define CONFIG_PX4_HOME_ALT_M 488.0

/* Whether a GCS may change faults ([faults] remote): yes or no as set;
 * auto is yes on the emulated sources, no on real sensors. */
bool config_remote_faults(const struct config *c);

/* Fill what depends on other settings (the home altitude by source, the
 * atmosphere by release), once the file and the command line are merged;
 * then the final checks: a source, what it needs, the outputs. */
void config_resolve(struct config *c);
int config_validate(const struct config *c, char *err, size_t errlen);

/* Same outputs (for SIGHUP: keep an output whose settings did not change). */
bool config_output_equal(const struct config_output *a,
			 const struct config_output *b);

const char *config_output_type_name(enum output_type t);
const char *config_source_name(enum config_source s);

/* "--sim, --sitl-json, ... or --hardware": every source's flag (its name
 * as a long option) in config_source_order, for --help and messages;
 * as snprintf(). */
int config_source_flags(char *buf, size_t len);

/* What the configuration knows of each source: one row per source in
 * config.c, so no check asks which mode runs, only what it has. */
enum config_source_traits {
	CONFIG_SRC_EMULATED = 1u << 0,	/* the emulator: SIM_* checked */
	CONFIG_SRC_SENSORS = 1u << 1,	/* reads [sensor NAME] sections */
	CONFIG_SRC_SITL_UPSTREAM = 1u << 2,	/* [sitl] upstream needed */
	CONFIG_SRC_PX4_UPSTREAM = 1u << 3,	/* [px4] upstream needed */
	CONFIG_SRC_SITL_VEHICLES = 1u << 4,	/* [sitl] instances: an MSP
						 * output's vehicle */
	CONFIG_SRC_PX4_ENV = 1u << 5,	/* PX4_SIM_SPEED_FACTOR, PX4_HOME_* */
};

struct config_source_info {
	const char *name;		/* source = NAME */
	double home_alt_m;		/* the default home altitude */
	unsigned traits;		/* enum config_source_traits */
};

/* The row of source s (CONFIG_SOURCE_NONE has one too: "none"). */
const struct config_source_info *config_source_info(enum config_source s);

#endif
