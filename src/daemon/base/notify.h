/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Talking to the service manager (sd_notify): READY=1 once the sources
 * and outputs are up, STATUS= lines with live counters, WATCHDOG=1 from
 * the event loop, STOPPING=1 on the way out.  Built without libsystemd
 * (BAROD_HAVE_SYSTEMD undefined), or run outside systemd (no
 * NOTIFY_SOCKET), every call is a no-op and barod is a plain foreground
 * daemon.
 */
#ifndef BAROD_NOTIFY_H
#define BAROD_NOTIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* STATUS= at most this often: systemctl status reads the latest, and
 * each one is a message to PID 1. */
#define NOTIFY_STATUS_EVERY_US (5u * 1000000u)

struct notifier {
	bool active;		/* a service manager listens */
	uint64_t watchdog_us;	/* WatchdogSec= in µs, 0: not asked for */
	uint64_t last_status_us;
	bool status_sent;
	bool was_waiting;	/* the last STATUS= said "waiting" */
};

/* What STATUS= shows. */
struct notify_counters {
	const char *source;	/* "sim", "hardware", "SITL JSON"... */
	uint64_t published;	/* samples sent to the outputs */
	uint64_t dropped;	/* frames the outputs could not send */
	unsigned healthy;	/* sensors publishing */
	unsigned sensors;	/* sensors configured */
	/* Not empty: the source waits for its peer, and STATUS= says this
	 * instead of the counters ("waiting for PX4 on TCP ..."). */
	char waiting[160];
};

void
notify_init(struct notifier *n);

/* How often the event loop should call notify_watchdog(): half of
 * WatchdogSec=, as sd_watchdog_enabled(3) advises; 0 without one. */
uint64_t
notify_watchdog_period_us(const struct notifier *n);

void
notify_ready(struct notifier *n, const char *status);

/* Send STATUS= if the last one is NOTIFY_STATUS_EVERY_US old (or
 * force, or the source stopped or started waiting for its peer); now_us
 * on any monotonic clock.  Returns true if sent. */
bool
notify_status(struct notifier *n, const struct notify_counters *c,
	      uint64_t now_us, bool force);

void
notify_watchdog(struct notifier *n);

void
notify_stopping(struct notifier *n, const char *status);

/* The STATUS= text (pure, for tests): "hardware: 2/3 sensors healthy,
 * 1234 samples published, 0 dropped", or "SITL JSON: waiting for ..."
 * while c->waiting.  Returns snprintf's value. */
int
notify_format_status(char *buf, size_t len, const struct notify_counters *c);

#endif
