/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A fault campaign (doc/campaign.md): the autopilot's command line as a
 * template, how barod reaches it, a standard flight, and the matrix of
 * axes whose every combination is one job.
 *
 *   [campaign]
 *   autopilot = ardupilot            ; or px4
 *   command = sim_vehicle.py -v ArduCopter -I {instance}
 *       --out udp:127.0.0.1:{drive_port} --out udp:127.0.0.1:{gcs_port}
 *   log = {dir}/logs/0*.BIN          ; the autopilot's log of the job
 *   link = drive                     ; baro-drive on its own simulated baro,
 *                                    ; or px4-sim-proxy: barod between PX4
 *                                    ; and its simulator
 *   upstream = 127.0.0.1:4600        ; px4-sim-proxy: the simulator of
 *                                    ; instance 0 (instance i: port + i)
 *   sim_port = 4560                  ; px4-sim-proxy: barod's for PX4
 *                                    ; instance 0 (instance i: + i)
 *   barod_args = -p SIM_BARO_RND=0   ; px4-sim-proxy: more for barod
 *   gcs = udpin:127.0.0.1:{gcs_port} ; how the flight reaches the
 *                                    ; autopilot (udpout: sends first)
 *   drive_connect = udpin:127.0.0.1:{drive_port}   ; and baro-drive
 *   timeout = 300                    ; s of wall time per job
 *   ports = 15000                    ; slot s: {drive_port} 15000 + 10 s,
 *                                    ; {gcs_port} one more, {barod_port}
 *                                    ; two more
 *   [flight]
 *   takeoff_m = 10
 *   hold_s = 60
 *   mission = 20:0:15 20:20:10       ; optional: N:E:ALT metres from home
 *   land = yes
 *   [params]                         ; set before arming, over MAVLink
 *   EK3_HGT_I_GATE = {gate}          ; a number, or a template of one
 *   [matrix]
 *   scenario = glitch.scn.in         ; a template, relative to this file
 *   size = 5 10 15 20                ; values, A..B (integers) or
 *                                    ; A..B/STEP (e.g. 0.5..2/0.5)
 *   gate = 300 500
 *   seed = 1..3
 *   [judge]
 *   thresholds = thresholds.txt      ; baro-replay's rules (optional)
 *
 * Templates take {NAME} for each matrix axis and {instance}, {slot},
 * {drive_port}, {gcs_port}, {barod_port}, {dir} (the job's directory),
 * {job} (its number), {sim_port} and {upstream_port} (px4-sim-proxy:
 * barod's port for the instance and its simulator's), {px4_gcs_port}
 * (18570 + instance) and {px4_offboard_port} (14580 + instance), PX4
 * SITL's local UDP ports; "{{" is a literal "{".  A long value goes on over indented
 * lines, joined with a space.  Jobs are the axes' combinations, the last
 * axis changing fastest; their numbers (1..N) and names do not depend
 * on how the campaign is run.  Pure: parses text, no I/O.
 */
#ifndef BAROD_CAMPAIGN_FILE_H
#define BAROD_CAMPAIGN_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CAMPAIGN_MAX_AXES 8
#define CAMPAIGN_MAX_VALUES 64
#define CAMPAIGN_VALUE_LEN 64
#define CAMPAIGN_NAME_LEN 32
#define CAMPAIGN_TEXT_LEN 2048
#define CAMPAIGN_PATH_LEN 1024
#define CAMPAIGN_MAX_JOBS 100000
#define CAMPAIGN_MAX_PARAMS 16
#define CAMPAIGN_PARAM_ID_LEN 17	/* MAVLink's 16 characters, a NUL */
#define CAMPAIGN_MAX_WAYPOINTS 16

enum campaign_autopilot { CAMPAIGN_ARDUPILOT, CAMPAIGN_PX4 };

/* How barod reaches the autopilot's baro: baro-drive on the autopilot's
 * own simulated baro, or barod between PX4 SITL and its simulator. */
enum campaign_link { CAMPAIGN_LINK_DRIVE, CAMPAIGN_LINK_PX4_SIM_PROXY };

/* PX4 SITL's own UDP ports for instance i (ROMFS/px4fmu_common/
 * init.d-posix/px4-rc.mavlink): the GCS link's local port and the
 * offboard link's. */
#define CAMPAIGN_PX4_GCS_PORT 18570u
#define CAMPAIGN_PX4_OFFBOARD_PORT 14580u
/* PX4's simulator port for instance 0 (instance i: + i). */
#define CAMPAIGN_PX4_SIM_PORT 4560u

struct campaign_axis {
	char name[CAMPAIGN_NAME_LEN];
	size_t n;
	char values[CAMPAIGN_MAX_VALUES][CAMPAIGN_VALUE_LEN];
};

/* A mission's waypoint: metres north and east of home, metres above it. */
struct campaign_waypoint {
	double north_m, east_m, alt_m;
};

/* An autopilot parameter the flight sets before it arms. */
struct campaign_param {
	char name[CAMPAIGN_PARAM_ID_LEN];
	char value[CAMPAIGN_VALUE_LEN];		/* template: a number */
};

struct campaign {
	enum campaign_autopilot autopilot;
	enum campaign_link link;
	char command[CAMPAIGN_TEXT_LEN];	/* template */
	char log[CAMPAIGN_PATH_LEN];		/* template, may glob */
	double timeout_s;
	unsigned ports;		/* slot s: ports + 10 s, + 10 s + 1 */
	unsigned instance_base;	/* slot s: {instance} = base + s */
	/* link = px4-sim-proxy: barod listens for instance i on sim_port
	 * + i and dials the simulator at upstream_host:upstream_port + i;
	 * barod_args (a template) goes on its command line. */
	char upstream_host[64];
	unsigned upstream_port;
	unsigned sim_port;
	char barod_args[CAMPAIGN_TEXT_LEN];
	/* How the flight and baro-drive reach the autopilot (templates):
	 * "udpin:HOST:PORT" listens, "udpout:HOST:PORT" sends first. */
	char gcs[CAMPAIGN_PATH_LEN];
	char drive_connect[CAMPAIGN_PATH_LEN];
	double takeoff_m, hold_s;
	bool land;
	char mission[CAMPAIGN_TEXT_LEN];	/* template: N:E:ALT ..., or "" */
	char scenario[CAMPAIGN_PATH_LEN];	/* template file, as given */
	char thresholds[CAMPAIGN_PATH_LEN];	/* "" : baro-replay's */
	size_t nparams;
	struct campaign_param params[CAMPAIGN_MAX_PARAMS];
	size_t naxes;
	struct campaign_axis axes[CAMPAIGN_MAX_AXES];
	size_t njobs;		/* the product of the axes' sizes */
};

/* Parse a campaign's text (len bytes); name names it in errors ("NAME:
 * LINE: why").  0 or -EINVAL with the message in err. */
int
campaign_parse(struct campaign *c, const char *text, size_t len,
	       const char *name, char *err, size_t errlen);

/* Job k's (1..njobs) value of each axis, into values[axis]. */
void
campaign_job_values(const struct campaign *c, size_t k,
		    const char *values[CAMPAIGN_MAX_AXES]);

/* "size=5 seed=1": job k's name. */
int
campaign_job_name(const struct campaign *c, size_t k, char *buf,
		  size_t len);

/* What a template's names stand for in one job on one slot. */
struct campaign_vars {
	const struct campaign *c;
	size_t job;		/* 1..njobs */
	unsigned slot;
	const char *dir;	/* the job's directory */
};

/* The ports of a slot: {drive_port} and {gcs_port}. */
unsigned
campaign_drive_port(const struct campaign *c, unsigned slot);
unsigned
campaign_gcs_port(const struct campaign *c, unsigned slot);
/* {barod_port}: where the slot's barod sends its MAVLink (its
 * SCALED_PRESSURE, for a ground station to watch). */
unsigned
campaign_barod_port(const struct campaign *c, unsigned slot);
/* The slot's SITL instance, {instance}. */
unsigned
campaign_instance(const struct campaign *c, unsigned slot);

/* Job k's value of parameter i (a template expanded on slot 0): 0, or
 * -EINVAL naming the parameter and what it gave. */
int
campaign_param_value(const struct campaign *c, size_t i, size_t k,
		     double *value, char *err, size_t errlen);

/* Job k's mission (its template expanded on slot 0) into wp: the count
 * in *n (0: no mission), or -EINVAL naming what is wrong. */
int
campaign_mission(const struct campaign *c, size_t k,
		 struct campaign_waypoint wp[CAMPAIGN_MAX_WAYPOINTS], size_t *n,
		 char *err, size_t errlen);

/* Expand a template into out (len bytes).  0, or -EINVAL naming an
 * unknown {name} or an unclosed brace, -ENOSPC when it does not fit. */
int
campaign_expand(const char *tmpl, const struct campaign_vars *v, char *out,
		size_t len, char *err, size_t errlen);

#endif
