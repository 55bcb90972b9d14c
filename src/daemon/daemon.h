/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The daemon's shared state and the pieces of barod.c's loop that live in
 * their own files: the emit path (daemon-emit.c), the timer and flush
 * (daemon-loop.c), the sources' environment (daemon-source.c), faults
 * from scenarios and injections (daemon-faults.c), control socket
 * commands (daemon-commands.c), the parameters (daemon-params.c),
 * remote faults (daemon-remote.c).  What one
 * source mode needs lives in its file under sources/, where samples go
 * under sinks/.  One struct daemon exists, owned by main().
 */
#ifndef BAROD_DAEMON_H
#define BAROD_DAEMON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "baro-sitl.h"
#include "config.h"
#include "control.h"
#include "event-loop.h"
#include "faults.h"
#include "log.h"
#include "mavlink-sign.h"
#include "mavlink.h"
#include "notify.h"
#include "options.h"
#include "param-service.h"
#include "scenario.h"
#include "sink.h"
#include "source.h"
#include "truth-trace.h"

struct daemon;

/* daemon-remote.c: signing and the remote-fault gate. */
#define DAEMON_REMOTE_PEERS 16
struct remote_peer {
	const void *link;	/* the sink the request came on */
	uint8_t sysid, compid;
};
struct daemon_remote {
	struct mavlink_signing signing;
	bool signing_on;
	uint64_t accepted;	/* signed frames that verified */
	uint64_t dropped[MAVLINK_SIGN_RESULTS];	/* the others, by reason */
	uint64_t denied;	/* fault changes refused ([faults] remote) */
	/* Ground stations told why (once each); when full, a new one takes
	 * the place of the one told longest ago (told_next). */
	struct remote_peer told[DAEMON_REMOTE_PEERS];
	size_t n_told, told_next;
	uint16_t text_id;	/* the last chunked STATUSTEXT's id */
};

struct daemon {
	struct cli cli;
	struct config cfg;
	struct logger log;
	struct notifier notify;		/* the service manager, if any */
	struct event_loop loop;
	/* Vehicle 0's emulator: the one SIM_* parameters, the GCS,
	 * baroctl, scenarios and injections act on (emulated sources). */
	struct baro_sitl sim;
	struct param_service ps;

	/* The source (sources/source.h), its own state and what it sees
	 * of the daemon (daemon_source_env). */
	const struct source_ops *source;
	void *source_state;
	struct source_env source_env;
	/* Where samples go: the outputs, then the record file. */
	struct sinks sinks;

	struct daemon_remote remote;

	struct control control;
	bool have_control;
	struct event_source timer, signals;
	uint64_t ticks;		/* timer expirations since start */
	uint64_t end_ticks;	/* 0 = run until signalled */

	/* The simulation clock: barod's ticks, or in the physics-time modes
	 * the physics time of vehicle 0; scenarios run on it. */
	uint64_t clock_ms;

	struct truth_trace trace;	/* loaded from cfg.truth_path */

	struct fault_overlay overlay;
	/* The running scenario, if any (both about 90 KB: heap). */
	struct scenario *scenario;
	struct scenario_run *run;
	char scenario_name[256];
	uint64_t scenario_start_ms;
	bool scenario_done;		/* finished, kept for a restart */
	bool scenario_stepped;		/* its clock has run at all */

	/* Vehicle 0's samples made, and withheld by the fault overlay. */
	uint64_t samples[BARO_MAX_INSTANCES];
	uint64_t withheld[BARO_MAX_INSTANCES];
	uint64_t skipped_ticks;
	/* The param service's drops the log last told of. */
	uint64_t requests_dropped_logged;
};

/* daemon-source.c: d->source_env, every source's view of the daemon
 * (its pointers stay good across a reload: set once, before the source
 * opens). */
void daemon_source_env(struct daemon *d);
/* Whether the source is the emulator (SOURCE_EMULATED): SIM_* parameters,
 * scenarios' emulator lines and emulator injections act. */
static inline bool
daemon_emulated(const struct daemon *d)
{
	return d->source && (d->source->flags & SOURCE_EMULATED);
}

/* daemon-emit.c: the one path of every sample of every source: counters
 * and the fault overlay (vehicle 0, whose baros scenarios and injections
 * address), then each sink in order.  s is changed in place by the
 * overlay; returns whether it was published (false: withheld), so a
 * source that needs its latest published sample keeps it from here. */
bool daemon_emit(struct daemon *d, const struct emit_ctx *ctx,
		 struct baro_sample *s);
/* A message to the GCS on every sink that carries MAVLink. */
void daemon_send_all(struct daemon *d, uint32_t msgid, const uint8_t *payload);
/* Log a line and send it as STATUSTEXT to every output. */
void daemon_announce(struct daemon *d, uint8_t severity, const char *text);

/* daemon-loop.c: the 10 ms timer's expirations (each one step), and what
 * runs after each batch of events. */
void daemon_tick(struct daemon *d, uint64_t expirations);
void daemon_flush(void *daemon);
/* Once a second: a log line when MAVLink requests were dropped over
 * their budget since the last one (the logger's own limit bounds it). */
void daemon_requests_log(struct daemon *d);
/* baroctl status's line of the param service's counters. */
void daemon_requests_status(const struct daemon *d, FILE *out);
/* What STATUS= shows. */
void daemon_service_counters(const struct daemon *d,
			     struct notify_counters *c);

/* daemon-params.c, every SIM_* write.  Whether value for parameter idx keeps the
 * emulator's atmosphere in its domain (baro_sitl_param_check() at the
 * running atmosphere and home altitude); 0 or -ERANGE with err. */
int daemon_param_check(const struct daemon *d, size_t idx, double value,
		       char *err, size_t errlen);

/* Log that SIM_* parameter idx belongs to a baro
 * SIM_BARO_COUNT leaves out (it acts once the count is raised); true if
 * so. */
bool daemon_param_inert_warning(struct daemon *d, size_t idx);

/* A SIM_* value changed by source ("control", "configuration"):
 * PARAM_VALUE to the GCS, "NAME OLD -> NEW" in text
 * (len bytes), the log and a STATUSTEXT. */
void daemon_param_changed(struct daemon *d, size_t idx, float old, float now,
			  const char *source, char *text, size_t len);
/* The param service's check and changed callbacks (user: the daemon). */
int daemon_param_service_check(void *user, size_t idx, double value);
void daemon_param_service_changed(void *user, size_t idx, float old_value,
				  float new_value);
/* SIGHUP: the SIM_* values the file changed are applied and announced
 * (the others keep what the GCS or a scenario set), the atmosphere, and
 * the ArduPilot release unless a live value does not exist in it. */
void daemon_params_reload(struct daemon *d, struct config *next);

/* daemon-faults.c: scenarios and PX4-style injections. */
/* Whether baro instance exists: below SIM_BARO_COUNT, or in hardware
 * mode a configured [sensor]. */
bool daemon_baro_exists(const struct daemon *d, unsigned instance);
/* The simulation clock reached now_ms (the sources' env->clock): vehicle
 * 0's physics time, or in hardware mode the time since start. */
void daemon_scenario_clock(struct daemon *d, uint64_t since_start_ms);
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

/* daemon-remote.c: the configuration's signing key and [faults] remote
 * taken (init, and on reload from next); whether a received frame may
 * reach the services (signature checked, counted, logged); the param
 * service's denied callback (count, STATUSTEXT once per ground station);
 * the "remote" and "signing" lines of baroctl status. */
void daemon_remote_init(struct daemon *d);
void daemon_remote_reload(struct daemon *d, const struct config *next);
bool daemon_remote_accept(struct daemon *d, const struct mavlink_frame *f);
void daemon_remote_denied(void *daemon, const struct mavlink_frame *f,
			  void *reply_to);
void daemon_remote_status(const struct daemon *d, FILE *out);
/* A sink closes (a reload): the ground stations told on it are
 * forgotten, so a new output at the same address tells its own. */
void daemon_remote_forget(struct daemon *d, const struct sink *link);

/* daemon-commands.c: one control socket line. */
void daemon_command(void *daemon, const char *line, FILE *out);

#endif
