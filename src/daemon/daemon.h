/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The daemon's state and the pieces of barod.c's loop that live in their
 * own files: publishing (daemon-publish.c), faults from scenarios and
 * injections (daemon-faults.c), control socket commands
 * (daemon-commands.c), hardware sensors (daemon-hw.c, daemon-probe.c).
 * One struct daemon exists, owned by main().
 */
#ifndef BAROD_DAEMON_H
#define BAROD_DAEMON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "baro-sitl.h"
#include "config.h"
#include "control.h"
#include "driver.h"
#include "event-loop.h"
#include "faults.h"
#include "gpio.h"
#include "iio.h"
#include "log.h"
#include "mavlink.h"
#include "notify.h"
#include "options.h"
#include "output.h"
#include "param-service.h"
#include "px4-link.h"
#include "px4-vehicle.h"
#include "scenario.h"
#include "sitl-link.h"
#include "util-atomic-file.h"

#define TICK_MS 10u

struct daemon;

enum hw_state {
	HW_RUNNING,	/* reading on its timer (or data-ready edges) */
	HW_RETRY,	/* failed: the timer is the next attempt */
	HW_POWER_OFF,	/* power line low: the timer ends the off time */
};

/* One sensor in hardware mode (daemon-hw.c). */
struct hw_sensor {
	struct daemon *d;
	struct config_sensor cfg;	/* as opened; a reload that changes
					 * it reopens the sensor */
	enum hw_state state;
	struct baro_bus bus;		/* a file of its own, reopened on
					 * recovery */
	struct baro_dev dev;
	bool dev_open;
	struct baro_iio iio;
	struct baro_gpio drdy, power;
	struct event_source timer, edge;
	bool started;			/* forced mode: converting */
	uint32_t period_us;
	uint64_t due_us;		/* next read, CLOCK_MONOTONIC */
	uint64_t ready_at_us;		/* no read before: the last
					 * conversion's start + ready_us */
	uint32_t backoff_ms;
	unsigned attempts;		/* failed attempts since the fault */
	uint64_t down_since_us, last_summary_us;
	uint64_t errors, recoveries, power_cycles, not_ready;
	char what[320];			/* "BME280 /dev/i2c-1 0x77" */
	char last_err[256];
};

/* PX4 SITL's simulator, one per PX4 instance (daemon-px4sim.c). */
struct px4_sim_stats {
	uint64_t steps;			/* physics steps sent */
	uint64_t controls;		/* HIL_ACTUATOR_CONTROLS received */
	uint64_t stalls;		/* steps sent without a reply */
	uint64_t restarts;		/* PX4 (re)connected after a run */
	uint64_t other_frames;		/* anything else PX4 sent */
	uint64_t bad_baro;		/* baro samples not finite: not sent */
	uint64_t out_of_range;		/* heights the baro cannot take */
};

/* The peer's side of its PX4 connection. */
struct px4_sim_link_stats {
	uint64_t connections;		/* accepted */
	uint64_t disconnects;		/* PX4 closed, or a socket error */
	uint64_t replaced;		/* a newer connection took over */
	uint64_t frames_in;		/* good frames delivered */
	uint64_t frames_out;		/* handed to the socket's backlog */
	uint64_t frames_dropped;	/* no PX4, or no room for them */
};

struct px4_sim {
	struct daemon *d;
	/* PX4 on port + N (px4-link.c): one connection at a time, a newer
	 * one replaces it (a restarted PX4 may connect before the old
	 * socket reports its end). */
	struct px4_listener listener;
	struct px4_conn conn;
	unsigned port;
	char peer[64];			/* "ADDR:PORT" of PX4 */
	struct mavlink_parser parser;
	uint8_t seq;
	/* The frames of this loop pass, handed to the connection whole
	 * by the flush (a frame is never cut by the backlog's bound). */
	uint8_t out[4096];
	size_t out_len;
	unsigned out_frames;
	struct px4_sim_link_stats link;
	struct px4_vehicle vehicle;
	bool lockstep;			/* PX4's first reply came */
	bool armed;			/* PX4 says so in its replies */
	uint64_t step;			/* the next physics step */
	uint64_t connected_us;		/* wall clock, for freewheeling */
	uint64_t last_step_us;		/* wall clock of the last step */
	uint64_t next_gps_us, next_state_us, next_hb_us;	/* physics */
	int64_t state_interval_us;	/* HIL_STATE_QUATERNION: 0 every
					 * step, < 0 never (PX4 asks) */
	float last_alt_m;		/* the baro's last truth */
	struct px4_sim_stats stats;
};

struct daemon {
	struct cli cli;
	struct config cfg;
	struct logger log;
	struct notifier notify;		/* the service manager, if any */
	struct event_loop loop;
	struct baro_sitl sim;
	struct param_service ps;

	struct output outputs[CONFIG_MAX_OUTPUTS];
	size_t n_outputs;

	struct control control;
	bool have_control;
	struct event_source timer, signals;
	uint64_t ticks;		/* timer expirations since start */
	uint64_t end_ticks;	/* 0 = run until signalled */

	/* The simulation clock: barod's ticks, or in the SITL modes the
	 * physics time of instance 0; scenarios run on it. */
	uint64_t clock_ms;

	/* SITL JSON: one link and one vehicle per ArduPilot instance.
	 * Vehicle 0 uses `sim` (the emulator control and scenarios act on);
	 * the others follow its parameters. */
	struct sitl_link links[CONFIG_MAX_SITL];
	size_t n_links;
	struct baro_sitl vehicle_sim[CONFIG_MAX_SITL];
	struct baro_sample latest[CONFIG_MAX_SITL][BARO_MAX_INSTANCES];
	bool have_latest[CONFIG_MAX_SITL][BARO_MAX_INSTANCES];
	uint8_t sysid_offset;		/* while publishing for a vehicle */

	/* PX4 peer (--px4-sim): one simulated vehicle per PX4 instance; the
	 * emulators are the SITL modes' (sim, vehicle_sim[]). */
	struct px4_sim px4sim[CONFIG_MAX_SITL];
	size_t n_px4sim;
	/* PX4 proxy: one per PX4 instance (daemon-px4proxy.c); vehicles
	 * share vehicle_sim and latest with the SITL modes. */
	struct px4_proxy *px4;
	size_t n_px4;

	struct truth_trace trace;	/* loaded from cfg.truth_path */

	struct hw_sensor hw[CONFIG_MAX_SENSORS];
	size_t n_hw;

	struct fault_overlay overlay;
	/* The running scenario, if any (both about 90 KB: heap). */
	struct scenario *scenario;
	struct scenario_run *run;
	char scenario_name[256];
	uint64_t scenario_start_ms;
	bool scenario_done;		/* finished, kept for a restart */

	/* The record file, renamed into place when barod stops cleanly;
	 * record is its stream (NULL without --record). */
	struct atomic_file record_file;
	FILE *record;
	uint64_t samples[BARO_MAX_INSTANCES];
	uint64_t withheld[BARO_MAX_INSTANCES];	/* by the fault overlay */
	uint64_t skipped_ticks;
	uint64_t record_errors;
	uint64_t last_flush_tick;
};

/* daemon-publish.c: MAVLink and the record file. */
void daemon_send(struct daemon *d, struct output *o, uint32_t msgid,
		 const uint8_t *payload);
void daemon_send_all(struct daemon *d, uint32_t msgid, const uint8_t *payload);
/* After each batch of events: queued frames leave, one datagram each. */
void daemon_flush(void *daemon);
void daemon_publish_sample(struct daemon *d, const struct baro_sample *s,
			   uint64_t now_us);
void daemon_publish_heartbeat(struct daemon *d, uint64_t now_us);
void daemon_record(struct daemon *d, const struct baro_sample *s);

/* daemon-vehicle.c: vehicles on physics time (SITL JSON and PX4 modes).
 * Vehicle v's emulator (barod's own for vehicle 0). */
struct baro_sitl *daemon_vehicle_sim(struct daemon *d, unsigned v);
/* Vehicle v reaches physics time now_us: vehicle 0 steps the scenario,
 * the others take vehicle 0's (live) parameters. */
void daemon_vehicle_clock(struct daemon *d, unsigned v, uint64_t now_us);
/* One emulator call at emulator_ms; each sample stamped now_us, vehicle
 * 0's through the fault overlay, then published and recorded.
 * published[k] says whether out[k] went out (the overlay may withhold
 * it); emulated_pa[k], when not NULL, gets the emulator's pressure
 * before the overlay.  Returns the number of samples in out. */
unsigned daemon_vehicle_step(struct daemon *d, unsigned v, uint64_t now_us,
			     uint32_t emulator_ms,
			     const struct baro_sitl_truth *truth,
			     struct baro_sample out[BARO_MAX_INSTANCES],
			     bool published[BARO_MAX_INSTANCES],
			     float *emulated_pa);
/* Log a line and send it as STATUSTEXT to every output. */
void daemon_announce(struct daemon *d, uint8_t severity, const char *text);

/* daemon-commands.c: whether value for SIM_* parameter idx keeps the
 * emulator's atmosphere in its domain (baro_sitl_param_check() at the
 * running atmosphere and home altitude); 0 or -ERANGE with err. */
int daemon_param_check(const struct daemon *d, size_t idx, double value,
		       char *err, size_t errlen);

/* daemon-commands.c: log that SIM_* parameter idx belongs to a baro
 * SIM_BARO_COUNT leaves out (it acts once the count is raised); true if
 * so. */
bool daemon_param_inert_warning(struct daemon *d, size_t idx);

/* daemon-commands.c: a SIM_* value changed by source ("control",
 * "configuration"): PARAM_VALUE to the GCS, "NAME OLD -> NEW" in text
 * (len bytes), the log and a STATUSTEXT. */
void daemon_param_changed(struct daemon *d, size_t idx, float old, float now,
			  const char *source, char *text, size_t len);

/* daemon-faults.c: scenarios and PX4-style injections. */
extern const char *const daemon_px4_types[8];
void daemon_scenario_step(struct daemon *d, uint32_t now_ms);
void daemon_scenario_stop(struct daemon *d);
/* The simulation restarted: the scenario, even a finished one, starts
 * over from t = 0. */
void daemon_scenario_restart(struct daemon *d);
int daemon_scenario_start(struct daemon *d, const char *path, char *err,
			  size_t errlen);
int daemon_inject(struct daemon *d, unsigned type, unsigned instance,
		  double value, char *err, size_t errlen);
uint8_t daemon_mavlink_inject(void *daemon, unsigned type, unsigned instance);

/* daemon-sitl.c: the SITL JSON modes. */
int daemon_sitl_open(struct daemon *d, char *err, size_t errlen);
void daemon_sitl_close(struct daemon *d);
void daemon_sitl_check(struct daemon *d, uint64_t wall_us);

/* daemon-px4sim.c: barod as PX4 SITL's simulator. */
int daemon_px4sim_open(struct daemon *d, char *err, size_t errlen);
void daemon_px4sim_close(struct daemon *d);
/* From the 10 ms timer: freewheel until PX4's first reply, and step a
 * stalled lockstep. */
void daemon_px4sim_tick(struct daemon *d, uint64_t wall_us);
void daemon_px4sim_flush(struct daemon *d);
void daemon_px4sim_report(struct daemon *d);
/* baroctl status: one line per PX4 instance. */
void daemon_px4sim_status(struct daemon *d, FILE *out);
/* daemon-px4proxy.c: --px4-sim-proxy. */
struct px4_proxy;
struct px4_proxy_stats {
	uint64_t physics_us;		/* HIL_SENSOR time since the first */
	uint64_t hil_sensor;		/* good HIL_SENSOR from the simulator */
	uint64_t baro_frames;		/* ... with id 0 and the baro bits */
	uint64_t rewritten;		/* baro fields replaced (faulted) */
	uint64_t baro_cleared;		/* baro bits cleared (disabled,
					 * withheld) */
	uint64_t other_id;		/* id != 0: passed unchanged */
	uint64_t bad_baro;		/* abs_pressure with no altitude */
	uint64_t bad_crc, signed_passed;	/* HIL_SENSOR passed as is */
	uint64_t frames_from_sim, frames_from_px4;
	uint64_t restarts;
	uint64_t px4_connects, px4_disconnects;
	uint64_t sim_connects, sim_disconnects;
	uint64_t dropped_bytes;		/* backlog overflow, both ways */
	uint64_t px4_bytes_unsent;	/* from PX4 while no simulator */
};
int daemon_px4proxy_open(struct daemon *d, char *err, size_t errlen);
void daemon_px4proxy_close(struct daemon *d);
/* Every tick: reconnect a lost simulator. */
void daemon_px4proxy_check(struct daemon *d, uint64_t wall_us);
void daemon_px4proxy_report(struct daemon *d);
const struct px4_proxy_stats *
daemon_px4proxy_stats(const struct daemon *d, unsigned v,
		      struct px4_proxy_stats *out);

/* daemon-hw.c: hardware sensors on their own timers.  Open fails only
 * for what a retry cannot fix (a GPIO line that does not exist); a
 * sensor that does not answer yet is retried like one that failed. */
int daemon_hw_open(struct daemon *d, char *err, size_t errlen);
void daemon_hw_close(struct daemon *d);
/* SIGHUP: sensors whose [sensor] section is unchanged in next keep
 * running untouched; the others are closed, and new or changed ones
 * opened as at start-up (one that cannot be is left out, logged). */
void daemon_hw_reload(struct daemon *d, const struct config *next);
void daemon_hw_status(struct daemon *d, FILE *out);
void daemon_hw_report(struct daemon *d);

/* daemon-probe.c: barod --probe [BUS].  0 (chips found or not), 1 when
 * the named bus cannot be opened, 2 for a bad BUS. */
int daemon_probe(const char *bus, FILE *out, FILE *errs);

/* daemon-commands.c: one control socket line. */
void daemon_command(void *daemon, const char *line, FILE *out);

#endif
