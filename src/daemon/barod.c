/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * barod: the barometer daemon.  One thread, one epoll loop over a 100 Hz
 * timerfd, a signalfd and the output sockets.  Each tick runs the source
 * (the AP_Baro_SITL emulator; SITL links and hardware sensors have events
 * of their own), publishes every produced sample to every output as
 * MAVLink (or counts it as dropped), records it if asked, and answers the
 * GCS's parameter requests.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "atmosphere.h"
#include "baro-sitl.h"
#include "config.h"
#include "control.h"
#include "event-loop.h"
#include "faults.h"
#include "log.h"
#include "mavlink.h"
#include "notify.h"
#include "output.h"
#include "param-service.h"
#include "sample-csv.h"
#include "scenario.h"
#include "util-strings.h"

#include "daemon.h"

#define EXIT_CONFIG 2

/* ------------------------------------------------------------------ */
/* Configuration */

static void
log_progress(struct daemon *d)
{
	uint64_t sent = 0, dropped = 0;

	for (size_t i = 0; i < d->n_outputs; i++) {
		sent += d->outputs[i].stats.frames_sent;
		dropped += d->outputs[i].stats.frames_dropped;
	}
	log_msg(&d->log, LOG_LEVEL_INFO,
		"t=%" PRIu64 " s: samples %" PRIu64 "/%" PRIu64 "/%" PRIu64
		", frames sent %" PRIu64 ", dropped %" PRIu64,
		d->ticks * TICK_MS / 1000u, d->samples[0], d->samples[1],
		d->samples[2], sent, dropped);
}

/* ------------------------------------------------------------------ */
/* Events */

/* One 10 ms step of the simulation at d->ticks. */
static void
sim_step(struct daemon *d)
{
	struct baro_sample out[BARO_MAX_INSTANCES];
	struct baro_sitl_truth truth = { 0 };
	const uint64_t now_us = d->ticks * TICK_MS * 1000u;
	const uint32_t now_ms = (uint32_t)(d->ticks * TICK_MS);

	d->clock_ms = d->ticks * TICK_MS;

	const double t = (double)d->ticks * TICK_MS * 1e-3;
	double h = d->trace.n ? truth_trace_height(&d->trace, t)
			      : truth_profile_height(&d->cfg.profile, t);
	if (baro_sitl_altitude(d->cfg.home_alt_m, h, &truth.alt_amsl_m) < 0)
		truth.alt_amsl_m = 0.0f;

	daemon_scenario_step(d, now_ms);
	daemon_publish_heartbeat(d, now_us);
	unsigned n = baro_sitl_update(&d->sim, now_ms, &truth, out);
	for (unsigned k = 0; k < n; k++) {
		out[k].time_us = now_us;
		d->samples[out[k].instance]++;
		/* PX4-style garbage/slow/intermittent act after the emulator;
		 * what they hold back is neither published nor recorded. */
		if (!fault_overlay_apply(&d->overlay, &out[k])) {
			d->withheld[out[k].instance]++;
			continue;
		}
		daemon_publish_sample(d, &out[k], now_us);
		daemon_record(d, &out[k]);
	}
}

/* Catching up at most this many steps after a stall (1 s); older ones
 * are skipped and counted rather than sent in one burst. */
#define MAX_CATCH_UP 100u

static void
tick(struct daemon *d, uint64_t expirations)
{
	/* Every expiration is one 10 ms step on the timer's own count: a late
	 * wake-up runs the steps it missed, so the simulation keeps exact
	 * 10 ms sample times and no sample goes missing under load. */
	if (expirations > MAX_CATCH_UP) {
		d->skipped_ticks += expirations - MAX_CATCH_UP;
		d->ticks += expirations - MAX_CATCH_UP;
		expirations = MAX_CATCH_UP;
	}
	for (uint64_t k = 0; k < expirations; k++) {
		d->ticks++;
		if (d->cfg.source == CONFIG_SOURCE_SIM) {
			sim_step(d);
		} else {
			/* SITL modes step on physics frames, sensors on their
			 * own timers; this one only keeps the wall-clock
			 * chores. */
			daemon_publish_heartbeat(d, d->ticks * TICK_MS * 1000u);
			if (d->n_px4)
				daemon_px4proxy_check(d, event_now_us());
			if (d->ticks % 100 == 0)
				daemon_sitl_check(d, event_now_us());
			if (d->n_px4sim && k + 1 == expirations)
				daemon_px4sim_tick(d, event_now_us());
		}
		if (d->end_ticks && d->ticks >= d->end_ticks) {
			d->loop.quit = true;
			break;
		}
		/* A heartbeat in the log for people watching (-v). */
		if (d->ticks % 1000 == 0)
			log_progress(d);
	}

	/* Recorded data reaches the disk at least once a second. */
	if (d->record && d->ticks - d->last_flush_tick >= 100) {
		if (fflush(d->record) != 0)
			d->record_errors++;
		d->last_flush_tick = d->ticks;
	}
}

static void
on_timer(struct event_source *src, uint32_t events, void *user)
{
	uint64_t expirations;

	(void)events;
	if (read(src->fd, &expirations, sizeof(expirations)) ==
	    sizeof(expirations))
		tick(user, expirations);
}

static void
on_mavlink(struct output *o, const struct mavlink_frame *f, void *user)
{
	struct daemon *d = user;

	(void)o;
	param_service_handle(&d->ps, f, o);
}

static void
ps_send(void *user, void *reply_to, uint32_t msgid, const uint8_t *payload)
{
	struct daemon *d = user;

	if (reply_to)
		daemon_send(d, reply_to, msgid, payload);
	else
		daemon_send_all(d, msgid, payload);
}

static int
ps_check(void *user, size_t idx, double value)
{
	return daemon_param_check(user, idx, value, NULL, 0);
}

static void
ps_changed(void *user, size_t idx, float old_value, float new_value)
{
	struct daemon *d = user;
	uint8_t pl[MAVLINK_MAX_PAYLOAD];
	char text[64];

	snprintf(text, sizeof(text), "%s %g -> %g", sim_param_info(idx)->name,
		 (double)old_value, (double)new_value);
	log_msg(&d->log, LOG_LEVEL_NOTICE, "%s (MAVLink)", text);
	param_service_statustext(MAV_SEVERITY_NOTICE, text, pl);
	daemon_send_all(d, MAVLINK_MSG_STATUSTEXT, pl);
	daemon_param_inert_warning(d, idx);
}

static int
open_outputs(struct daemon *d, const struct config *c)
{
	char err[256], desc[256];

	for (size_t i = 0; i < c->n_outputs; i++) {
		struct output *o = &d->outputs[d->n_outputs];
		int rc = output_open(o, &c->outputs[i], &d->loop, on_mavlink, d,
				     err, sizeof(err));
		if (rc < 0) {
			log_msg(&d->log, LOG_LEVEL_ERR, "output %s: %s",
				c->outputs[i].name, err);
			return rc;
		}
		d->n_outputs++;
		log_msg(&d->log, LOG_LEVEL_INFO, "output %s",
			output_describe(o, desc, sizeof(desc)));
	}
	return 0;
}

/* SIGHUP: re-read the configuration.  Outputs that did not change keep
 * their sockets; SIM_* values that changed in the file are applied, the
 * others keep what the GCS or a scenario set at run time. */
static void
reload(struct daemon *d)
{
	struct config next;
	char err[256];

	if (cli_load_config(&d->cli, &next, err, sizeof(err)) < 0) {
		log_msg(&d->log, LOG_LEVEL_ERR,
			"reload: %s; keeping the running configuration", err);
		return;
	}

	for (size_t i = 0; i < sim_param_count(); i++) {
		float was = sim_param_get(&d->cfg.params, i);
		float now = sim_param_get(&next.params, i);
		if (memcmp(&was, &now, sizeof(was)) == 0)
			continue;
		/* Told as a GCS or baroctl change is: the value live until
		 * now may be one they set. */
		float live = sim_param_get(&d->sim.params, i);
		char text[96];
		if (sim_param_set(&d->sim.params, i, (double)now) == 0 &&
		    memcmp(&live, &now, sizeof(live)) != 0) {
			daemon_param_changed(d, i, live, now, "configuration",
					     text, sizeof(text));
			(void)daemon_param_inert_warning(d, i);
		}
	}
	d->sim.atmosphere = next.atmosphere;

	struct output keep[CONFIG_MAX_OUTPUTS];
	size_t n_keep = 0;

	daemon_flush(d);
	for (size_t i = 0; i < d->n_outputs; i++) {
		bool wanted = false;
		for (size_t j = 0; j < next.n_outputs; j++)
			wanted |= config_output_equal(&d->outputs[i].cfg,
						      &next.outputs[j]);
		if (wanted) {
			/* Moved below; the loop holds a pointer to src (none
			 * for a TCP output between connections). */
			if (d->outputs[i].src.fd >= 0)
				event_loop_remove(&d->loop, &d->outputs[i].src);
			keep[n_keep++] = d->outputs[i];
		} else {
			output_close(&d->outputs[i]);
		}
	}
	d->n_outputs = 0;
	for (size_t i = 0; i < n_keep; i++) {
		struct output *o = &d->outputs[d->n_outputs++];
		*o = keep[i];
		o->src.user = o;
		if (o->src.fd < 0)
			continue;
		/* A connecting TCP socket waits for EPOLLOUT, not input. */
		uint32_t ev = o->cfg.type == OUTPUT_MSP_TCP && !o->connected
				      ? EPOLLOUT
				      : EPOLLIN | (o->tx_len ? EPOLLOUT : 0u);
		(void)event_loop_add(&d->loop, &o->src, ev);
	}
	struct config fresh = next;
	fresh.n_outputs = 0;
	for (size_t j = 0; j < next.n_outputs; j++) {
		bool have = false;
		for (size_t i = 0; i < d->n_outputs; i++)
			have |= config_output_equal(&d->outputs[i].cfg,
						    &next.outputs[j]);
		if (!have)
			fresh.outputs[fresh.n_outputs++] = next.outputs[j];
	}
	(void)open_outputs(d, &fresh);

	/* Only the sensors whose sections changed are reopened: a working
	 * one is not lost to an edit elsewhere. */
	if (d->cfg.source == CONFIG_SOURCE_HARDWARE)
		daemon_hw_reload(d, &next);
	d->ps.sysid = next.sysid;
	d->ps.compid = next.compid;
	d->cfg = next;
	log_msg(&d->log, LOG_LEVEL_NOTICE, "configuration reloaded, %zu outputs",
		d->n_outputs);
}

/* What STATUS= shows: samples that reached the outputs, frames they
 * dropped, and sensors publishing (hardware) or simulated. */
static void
service_counters(const struct daemon *d, struct notify_counters *c)
{
	*c = (struct notify_counters){
		.source = config_source_name(d->cfg.source),
	};
	for (size_t k = 0; k < BARO_MAX_INSTANCES; k++)
		c->published += d->samples[k] - d->withheld[k];
	for (size_t i = 0; i < d->n_outputs; i++)
		c->dropped += d->outputs[i].stats.frames_dropped;
	if (d->cfg.source == CONFIG_SOURCE_HARDWARE) {
		c->sensors = (unsigned)d->n_hw;
		for (size_t i = 0; i < d->n_hw; i++)
			c->healthy += d->hw[i].state == HW_RUNNING;
	} else {
		c->sensors = c->healthy = (unsigned)d->cfg.params.baro_count;
	}
}

/* Called by the event loop itself (so a hung callback starves it): the
 * service manager's watchdog, STATUS=, and log lines held back. */
static void
service_tick(void *user)
{
	struct daemon *d = user;
	struct notify_counters c;

	notify_watchdog(&d->notify);
	service_counters(d, &c);
	notify_status(&d->notify, &c, event_now_us(), false);
	log_flush_suppressed(&d->log, false);
}

static void
on_signal(struct event_source *src, uint32_t events, void *user)
{
	struct daemon *d = user;
	struct signalfd_siginfo si;

	(void)events;
	while (read(src->fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP)
			reload(d);
		else
			d->loop.quit = true;
	}
}

/* ------------------------------------------------------------------ */

static int
setup_signals(struct daemon *d)
{
	sigset_t set;

	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -errno;
	int fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	d->signals = (struct event_source){ .fd = fd, .cb = on_signal,
					    .user = d };
	return event_loop_add(&d->loop, &d->signals, EPOLLIN);
}

static void
report(struct daemon *d)
{
	char desc[256];
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	log_msg(&d->log, LOG_LEVEL_INFO,
		"stopped after %.2f s: samples %" PRIu64 "/%" PRIu64 "/%" PRIu64
		", wake-ups %" PRIu64 ", cpu %.3f s, max rss %ld KiB",
		(double)d->ticks * TICK_MS * 1e-3, d->samples[0], d->samples[1],
		d->samples[2], d->loop.wakeups,
		(double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
			(double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) *
				1e-6,
		ru.ru_maxrss);
	for (size_t i = 0; i < d->n_outputs; i++) {
		const struct output_stats *s = &d->outputs[i].stats;
		if (output_is_msp(&d->outputs[i]))
			log_msg(&d->log, LOG_LEVEL_INFO,
				"output %s: sent %" PRIu64 ", dropped %" PRIu64
				", not connected %" PRIu64 ", invalid %" PRIu64
				", received %" PRIu64 ", lost bytes %" PRIu64
				", connects %" PRIu64 ", hangups %" PRIu64,
				output_describe(&d->outputs[i], desc,
						sizeof(desc)),
				s->frames_sent, s->frames_dropped,
				s->frames_no_peer, s->frames_invalid,
				s->frames_received, s->bytes_lost, s->connects,
				s->hangups);
		else
			log_msg(&d->log, LOG_LEVEL_INFO,
				"output %s: sent %" PRIu64 ", dropped %" PRIu64
				", no peer %" PRIu64 ", received %" PRIu64
				", hangups %" PRIu64,
				output_describe(&d->outputs[i], desc,
						sizeof(desc)),
				s->frames_sent, s->frames_dropped,
				s->frames_no_peer, s->frames_received,
				s->hangups);
	}
	for (size_t v = 0; v < d->n_links; v++) {
		const struct sitl_link_stats *s = &d->links[v].stats;
		log_msg(&d->log, LOG_LEVEL_INFO,
			"SITL instance %zu: servo packets %" PRIu64
			", frames %" PRIu64 ", resends %" PRIu64 ", lost %" PRIu64
			", restarts %" PRIu64 ", replies %" PRIu64
			", bad packets %" PRIu64 ", bad lines %" PRIu64,
			v, s->servo_packets, s->frames, s->resends,
			s->lost_frames, s->restarts, s->replies, s->bad_packets,
			s->bad_lines);
	}
}

/* The record file takes its name only if every sample reached it: a
 * file with holes would pass for a complete recording. */
static void
finish_record(struct daemon *d)
{
	char err[512];

	if (!d->record)
		return;
	d->record = NULL;
	if (d->record_errors) {
		atomic_file_abort(&d->record_file);
		log_msg(&d->log, LOG_LEVEL_ERR,
			"record %s not written: %" PRIu64 " write errors",
			d->cfg.record_path, d->record_errors);
	} else if (atomic_file_commit(&d->record_file, err, sizeof(err)) < 0) {
		d->record_errors++;
		log_msg(&d->log, LOG_LEVEL_ERR, "record %s", err);
	}
}

int
main(int argc, char **argv)
{
	static struct daemon d;
	char err[512];
	int rc = cli_parse(argc, argv, &d.cli, stdout, err, sizeof(err));

	if (rc != 0) {
		if (rc < 0)
			fprintf(stderr, "barod: %s\n", err);
		return rc > 0 ? EXIT_SUCCESS : EXIT_CONFIG;
	}
	if (d.cli.probe)
		return daemon_probe(d.cli.probe_bus, stdout, stderr);
	log_init(&d.log, d.cli.verbosity < 0	? LOG_LEVEL_ERR
			 : d.cli.verbosity == 0 ? LOG_LEVEL_NOTICE
			 : d.cli.verbosity == 1 ? LOG_LEVEL_INFO
						: LOG_LEVEL_DEBUG);
	d.log.prefix |= d.cli.log_prefix;
	notify_init(&d.notify);

	if (cli_load_config(&d.cli, &d.cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "barod: %s\n", err);
		return EXIT_CONFIG;
	}
	/* Not refused: a scenario, baroctl or a GCS may raise the count. */
	for (size_t i = 0; d.cfg.source != CONFIG_SOURCE_HARDWARE &&
			   i < sim_param_count(); i++) {
		if (sim_param_inert(&d.cfg.params, i))
			log_msg(&d.log, LOG_LEVEL_WARNING,
				"%s acts only on baro instance %d, which "
				"SIM_BARO_COUNT %d leaves out",
				sim_param_info(i)->name, sim_param_instance(i),
				d.cfg.params.baro_count);
	}
	if (d.cli.check_config) {
		options_check_report(stdout, &d.cfg);
		return EXIT_SUCCESS;
	}
	if (options_unused(&d.cfg, err, sizeof(err)))
		log_msg(&d.log, LOG_LEVEL_NOTICE, "not used by source %s: %s",
			config_source_name(d.cfg.source), err);

	/* One barod per control socket: a second one would take the socket
	 * over and leave the first unreachable.  Checked before anything
	 * is opened, so the refusal touches nothing. */
	char control_path[108], control_err[256] = "";
	int control_rc = 0;
	if (d.cfg.control_path[0])
		snprintf(control_path, sizeof(control_path), "%s",
			 d.cfg.control_path);
	else
		control_rc = control_default_path(control_path,
						  sizeof(control_path), true,
						  control_err,
						  sizeof(control_err));
	if (control_rc == 0 && strcmp(control_path, "none") != 0 &&
	    control_in_use(control_path) == 1) {
		fprintf(stderr, "barod: control socket %s: another barod is "
				"answering on it (stop it, or give this one "
				"--control PATH)\n", control_path);
		return EXIT_CONFIG;
	}

	if ((rc = event_loop_init(&d.loop)) < 0 || (rc = setup_signals(&d)) < 0) {
		fprintf(stderr, "barod: %s\n", strerror(-rc));
		return EXIT_FAILURE;
	}
	if (d.cfg.truth_path[0]) {
		FILE *tf = fopen(d.cfg.truth_path, "r");
		if (!tf) {
			fprintf(stderr, "barod: truth %s: %s\n",
				d.cfg.truth_path, strerror(errno));
			return EXIT_CONFIG;
		}
		rc = truth_trace_load(&d.trace, tf, d.cfg.truth_path, err,
				      sizeof(err));
		fclose(tf);
		if (rc < 0) {
			fprintf(stderr, "barod: %s\n", err);
			return EXIT_CONFIG;
		}
	}
	baro_sitl_init(&d.sim, &d.cfg.params, d.cfg.atmosphere, d.cfg.seed);
	fault_overlay_init(&d.overlay, d.cfg.seed);
	d.ps = (struct param_service){
		.sysid = d.cfg.sysid, .compid = d.cfg.compid,
		.params = &d.sim.params, .send = ps_send,
		.check = ps_check, .changed = ps_changed,
		.inject = daemon_mavlink_inject, .user = &d,
	};
	if (d.cli.scenario &&
	    daemon_scenario_start(&d, d.cli.scenario, err, sizeof(err)) < 0) {
		fprintf(stderr, "barod: --scenario: %s\n", err);
		return EXIT_CONFIG;
	}

	if (open_outputs(&d, &d.cfg) < 0)
		return EXIT_FAILURE;

	if (strcmp(control_path, "none") != 0) {
		rc = control_rc;
		if (rc < 0)
			snprintf(err, sizeof(err), "%s", control_err);
		else
			rc = control_open(&d.control, control_path,
					  d.cfg.control_mode, &d.loop,
					  daemon_command, &d, err, sizeof(err));
		if (rc == -EBUSY) {
			/* Started alongside: the check above did not see it. */
			fprintf(stderr, "barod: control socket %s\n", err);
			return EXIT_CONFIG;
		}
		if (rc < 0) {
			/* Without the socket barod still publishes; only
			 * baroctl is unavailable. */
			log_msg(&d.log, LOG_LEVEL_WARNING,
				"control socket %s; baroctl will not reach "
				"this barod", err);
		} else {
			d.have_control = true;
			log_msg(&d.log, LOG_LEVEL_INFO, "control socket %s",
				control_path);
		}
	}

	if ((d.cfg.source == CONFIG_SOURCE_SITL_JSON ||
	     d.cfg.source == CONFIG_SOURCE_SITL_PROXY) &&
	    daemon_sitl_open(&d, err, sizeof(err)) < 0) {
		fprintf(stderr, "barod: %s\n", err);
		return EXIT_FAILURE;
	}
	if (d.cfg.source == CONFIG_SOURCE_PX4_SIM &&
	    daemon_px4sim_open(&d, err, sizeof(err)) < 0) {
		fprintf(stderr, "barod: %s\n", err);
		daemon_px4sim_close(&d);
		return EXIT_FAILURE;
	}
	if (d.cfg.source == CONFIG_SOURCE_PX4_PROXY &&
	    daemon_px4proxy_open(&d, err, sizeof(err)) < 0) {
		fprintf(stderr, "barod: %s\n", err);
		daemon_px4proxy_close(&d);
		return EXIT_FAILURE;
	}
	if (d.cfg.source == CONFIG_SOURCE_HARDWARE &&
	    daemon_hw_open(&d, err, sizeof(err)) < 0) {
		fprintf(stderr, "barod: %s\n", err);
		daemon_hw_close(&d);
		return EXIT_FAILURE;
	}

	int tfd = event_timerfd_periodic(TICK_MS * 1000000ull);
	if (tfd < 0) {
		fprintf(stderr, "barod: timerfd: %s\n", strerror(-tfd));
		return EXIT_FAILURE;
	}
	/* Last, so no start-up failure leaves a record file behind. */
	if (d.cfg.record_path[0]) {
		if (!atomic_file_open(&d.record_file, d.cfg.record_path, err,
				      sizeof(err))) {
			fprintf(stderr, "barod: --record %s\n", err);
			return EXIT_FAILURE;
		}
		d.record = d.record_file.f;
		if (sample_csv_write_header(d.record) < 0)
			d.record_errors++;
	}
	d.timer = (struct event_source){ .fd = tfd, .cb = on_timer,
					 .user = &d };
	event_loop_add(&d.loop, &d.timer, EPOLLIN);
	d.loop.after_dispatch = daemon_flush;
	d.loop.after_user = &d;
	if (d.cli.duration_s > 0.0)
		d.end_ticks = (uint64_t)ceil(d.cli.duration_s * 1000.0 / TICK_MS);
	d.loop.periodic = service_tick;
	d.loop.periodic_user = &d;
	d.loop.periodic_us = 1000000u;
	if (notify_watchdog_period_us(&d.notify) &&
	    notify_watchdog_period_us(&d.notify) < d.loop.periodic_us)
		d.loop.periodic_us = notify_watchdog_period_us(&d.notify);

	if (d.cfg.source == CONFIG_SOURCE_HARDWARE)
		log_msg(&d.log, LOG_LEVEL_NOTICE,
			"running: %zu hardware baro(s), sysid %u compid %u",
			d.n_hw, d.cfg.sysid, d.cfg.compid);
	else
		/* The home and the model decide every pressure: a user
		 * comparing with ArduPilot's own baro checks them here. */
		log_msg(&d.log, LOG_LEVEL_NOTICE,
			"running: %d simulated baro(s), home %.2f m AMSL, "
			"atmosphere %s, sysid %u compid %u",
			d.cfg.params.baro_count, d.cfg.home_alt_m,
			baro_sitl_atmosphere_name(d.cfg.atmosphere), d.cfg.sysid,
			d.cfg.compid);
	/* Sources and outputs are up: what Type=notify waits for. */
	struct notify_counters nc;
	char status[256];
	service_counters(&d, &nc);
	notify_format_status(status, sizeof(status), &nc);
	notify_ready(&d.notify, status);
	rc = event_loop_run(&d.loop);
	notify_stopping(&d.notify, "stopping");

	daemon_scenario_stop(&d);
	daemon_flush(&d);
	finish_record(&d);
	report(&d);
	daemon_hw_report(&d);
	daemon_px4sim_report(&d);
	daemon_px4proxy_report(&d);
	log_flush_suppressed(&d.log, true);
	daemon_hw_close(&d);
	daemon_sitl_close(&d);
	daemon_px4sim_close(&d);
	daemon_px4proxy_close(&d);
	truth_trace_free(&d.trace);
	if (d.have_control)
		control_close(&d.control);
	for (size_t i = 0; i < d.n_outputs; i++)
		output_close(&d.outputs[i]);
	close(tfd);
	close(d.signals.fd);
	event_loop_fini(&d.loop);
	return rc < 0 || d.record_errors ? EXIT_FAILURE : EXIT_SUCCESS;
}
