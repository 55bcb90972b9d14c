/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "notify.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef BAROD_HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

int
notify_format_status(char *buf, size_t len, const struct notify_counters *c)
{
	if (c->waiting[0])
		return snprintf(buf, len, "%s: %s",
				c->source ? c->source : "?", c->waiting);
	return snprintf(buf, len,
			"%s: %u/%u sensor%s healthy, %" PRIu64
			" samples published, %" PRIu64 " dropped",
			c->source ? c->source : "?", c->healthy, c->sensors,
			c->sensors == 1 ? "" : "s", c->published, c->dropped);
}

#ifdef BAROD_HAVE_SYSTEMD

void
notify_init(struct notifier *n)
{
	const char *sock = getenv("NOTIFY_SOCKET");
	uint64_t usec = 0;

	memset(n, 0, sizeof(*n));
	n->active = sock && *sock;
	/* WATCHDOG_PID names the process the manager expects pings from;
	 * a child that inherited the environment must not ping for us. */
	if (n->active && sd_watchdog_enabled(0, &usec) > 0)
		n->watchdog_us = usec;
}

static void
send_state(const struct notifier *n, const char *state)
{
	if (n->active)
		(void)sd_notify(0, state);
}

#else

void
notify_init(struct notifier *n)
{
	memset(n, 0, sizeof(*n));
}

static void
send_state(const struct notifier *n, const char *state)
{
	(void)n;
	(void)state;
}

#endif

uint64_t
notify_watchdog_period_us(const struct notifier *n)
{
	return n->watchdog_us / 2;
}

static void
send_with_status(const struct notifier *n, const char *what,
		 const char *status)
{
	char msg[320];

	if (!n->active)
		return;
	if (status)
		snprintf(msg, sizeof(msg), "%s\nSTATUS=%s", what, status);
	else
		snprintf(msg, sizeof(msg), "%s", what);
	send_state(n, msg);
}

void
notify_ready(struct notifier *n, const char *status)
{
	send_with_status(n, "READY=1", status);
}

bool
notify_status(struct notifier *n, const struct notify_counters *c,
	      uint64_t now_us, bool force)
{
	char msg[256];
	const bool waiting = c->waiting[0] != '\0';

	/* The peer appearing is news now, not in up to 5 s. */
	if (waiting != n->was_waiting)
		force = true;
	if (!n->active || (!force && n->status_sent &&
			   now_us - n->last_status_us < NOTIFY_STATUS_EVERY_US))
		return false;
	memcpy(msg, "STATUS=", 7);
	notify_format_status(msg + 7, sizeof(msg) - 7, c);
	send_state(n, msg);
	n->last_status_us = now_us;
	n->status_sent = true;
	n->was_waiting = waiting;
	return true;
}

void
notify_watchdog(struct notifier *n)
{
	if (n->watchdog_us)
		send_state(n, "WATCHDOG=1");
}

void
notify_stopping(struct notifier *n, const char *status)
{
	send_with_status(n, "STOPPING=1", status);
}
