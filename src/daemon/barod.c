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
#include "hardware-probe.h"
#include "log.h"
#include "mavlink.h"
#include "notify.h"
#include "output.h"
#include "param-service.h"
#include "sample-csv.h"
#include "scenario.h"
#include "util-strings.h"

#include "daemon.h"
#include "source.h"

#define EXIT_CONFIG 2

/* ------------------------------------------------------------------ */
/* Events */

static void
on_timer(struct event_source *src, uint32_t events, void *user)
{
	uint64_t expirations;

	(void)events;
	if (read(src->fd, &expirations, sizeof(expirations)) ==
	    sizeof(expirations))
		daemon_tick(user, expirations);
}

/* A MAVLink frame from a GCS on one of the sinks: the reply goes back on
 * that sink.  Taken when it passes the signing check (any frame without
 * a key). */
static bool
on_mavlink(void *user, struct sink *from, const struct mavlink_frame *f)
{
	struct daemon *d = user;

	if (!daemon_remote_accept(d, f))
		return false;
	param_service_handle(&d->ps, f, from);
	return true;
}

static void
ps_send(void *user, void *reply_to, uint32_t msgid, const uint8_t *payload)
{
	struct daemon *d = user;

	if (reply_to)
		sink_send(reply_to, msgid, payload);
	else
		daemon_send_all(d, msgid, payload);
}

static uint32_t
ps_link_bandwidth(void *user, void *link)
{
	(void)user;
	return sink_link_bandwidth(link);
}

static uint32_t
ps_link_stream_rate(void *user, void *link)
{
	(void)user;
	return sink_link_stream_rate(link);
}

/* A reload closes an output: lists to it end there. */
static void
on_sink_closing(void *user, struct sink *k)
{
	struct daemon *d = user;

	param_service_forget(&d->ps, k);
	daemon_remote_forget(d, k);
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
	if (next.source != d->cfg.source) {
		/* The source's sockets and state are its own: it changes
		 * only with a restart. */
		log_msg(&d->log, LOG_LEVEL_WARNING,
			"reload: source %s takes a restart; still %s",
			config_source_name(next.source), d->source->name);
		next.source = d->cfg.source;
	}

	daemon_params_reload(d, &next);

	daemon_flush(d);
	daemon_remote_reload(d, &next);
	sinks_reload(&d->sinks, &next);
	/* A hardware source reopens only the sensors whose sections
	 * changed: a working one is not lost to an edit elsewhere. */
	if (d->source->reload)
		d->source->reload(&d->source_env, d->source_state, &next);
	d->ps.sysid = next.sysid;
	d->ps.compid = next.compid;
	d->cfg = next;
	log_msg(&d->log, LOG_LEVEL_NOTICE, "configuration reloaded, %zu outputs",
		sinks_outputs(&d->sinks));
}

/* Called by the event loop itself (so a hung callback starves it): the
 * service manager's watchdog, STATUS=, and log lines held back. */
static void
service_tick(void *user)
{
	struct daemon *d = user;
	struct notify_counters c;

	notify_watchdog(&d->notify);
	daemon_service_counters(d, &c);
	notify_status(&d->notify, &c, event_now_us(), false);
	daemon_requests_log(d);
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
	if (d->loop.busy_poll_us)
		log_msg(&d->log, LOG_LEVEL_INFO,
			"busy-polls %" PRIu64 " (%" PRIu64 " answered within "
			"%" PRIu64 " us), %" PRIu64 " skipped for a side "
			"answering later", d->loop.spins, d->loop.spin_hits,
			d->loop.busy_poll_us, d->loop.spin_skips);
	sinks_report(&d->sinks);
	if (d->source->report)
		d->source->report(&d->source_env, d->source_state);
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
		return daemon_probe(d.cli.probe_bus, d.cli.probe_write, stdout,
				    stderr);
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
	d.source = source_find(d.cfg.source);
	if (!d.source) {
		fprintf(stderr, "barod: source %s: not built in\n",
			config_source_name(d.cfg.source));
		return EXIT_CONFIG;
	}
	/* Not refused: a scenario, baroctl or a GCS may raise the count. */
	for (size_t i = 0; daemon_emulated(&d) && i < sim_param_count(); i++) {
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
	baro_sitl_set_ardupilot(&d.sim, d.cfg.ardupilot);
	fault_overlay_init(&d.overlay, d.cfg.seed);
	d.ps = (struct param_service){
		.sysid = d.cfg.sysid, .compid = d.cfg.compid,
		.params = &d.sim.params, .send = ps_send,
		.check = daemon_param_service_check,
		.changed = daemon_param_service_changed,
		.inject = daemon_mavlink_inject,
		.denied = daemon_remote_denied, .user = &d,
		.link_bandwidth = ps_link_bandwidth,
		.link_stream_rate = ps_link_stream_rate,
	};
	if (d.cli.scenario &&
	    daemon_scenario_start(&d, d.cli.scenario, err, sizeof(err)) < 0) {
		fprintf(stderr, "barod: --scenario: %s\n", err);
		return EXIT_CONFIG;
	}

	sinks_init(&d.sinks, &(struct sink_env){
		.cfg = &d.cfg, .log = &d.log, .loop = &d.loop,
		.frame = on_mavlink, .closing = on_sink_closing, .user = &d,
	});
	/* Before the outputs open: their first frames are signed. */
	daemon_remote_init(&d);
	if (sinks_open_outputs(&d.sinks, &d.cfg) < 0)
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

	daemon_source_env(&d);
	if (d.source->open(&d.source_env, &d.source_state, err,
			   sizeof(err)) < 0) {
		fprintf(stderr, "barod: %s\n", err);
		d.source->close(&d.source_env, d.source_state);
		return EXIT_FAILURE;
	}

	int tfd = event_timerfd_periodic(TICK_MS * 1000000ull);
	if (tfd < 0) {
		fprintf(stderr, "barod: timerfd: %s\n", strerror(-tfd));
		return EXIT_FAILURE;
	}
	/* Last, so no start-up failure leaves a record file behind. */
	if (d.cfg.record_path[0]) {
		struct sink *rec = sink_record_open(&d.sinks.env,
						    d.cfg.record_path, err,
						    sizeof(err));
		if (!rec || sinks_add(&d.sinks, rec) < 0) {
			fprintf(stderr, "barod: --record %s\n", err);
			return EXIT_FAILURE;
		}
	}
	d.timer = (struct event_source){ .fd = tfd, .cb = on_timer,
					 .user = &d };
	event_loop_add(&d.loop, &d.timer, EPOLLIN);
	d.loop.busy_poll_us = d.cfg.busy_poll_us;
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

	char what[200];
	if (d.source->describe)
		d.source->describe(&d.source_env, d.source_state, what,
				   sizeof(what));
	else
		snprintf(what, sizeof(what), "source %s", d.source->name);
	log_msg(&d.log, LOG_LEVEL_NOTICE, "running: %s, sysid %u compid %u",
		what, d.cfg.sysid, d.cfg.compid);
	/* Sources and outputs are up: what Type=notify waits for. */
	struct notify_counters nc;
	char status[256];
	daemon_service_counters(&d, &nc);
	notify_format_status(status, sizeof(status), &nc);
	notify_ready(&d.notify, status);
	rc = event_loop_run(&d.loop);
	notify_stopping(&d.notify, "stopping");

	daemon_scenario_stop(&d);
	daemon_flush(&d);
	int sink_rc = sinks_stop(&d.sinks);
	report(&d);
	log_flush_suppressed(&d.log, true);
	d.source->close(&d.source_env, d.source_state);
	truth_trace_free(&d.trace);
	if (d.have_control)
		control_close(&d.control);
	sinks_close(&d.sinks);
	close(tfd);
	close(d.signals.fd);
	event_loop_fini(&d.loop);
	return rc < 0 || sink_rc < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
