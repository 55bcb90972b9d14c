/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The loop's own work: the 10 ms timer's steps (heartbeats to the sinks,
 * the source's tick), the flush after each batch of events, and what the
 * service manager is told.
 */
#include <inttypes.h>

#include "daemon.h"
#include "source.h"

/* Catching up at most this many steps after a stall (1 s); older ones
 * are skipped and counted rather than sent in one burst. */
#define MAX_CATCH_UP 100u

static void
log_progress(struct daemon *d)
{
	uint64_t sent, dropped;

	sinks_frames(&d->sinks, &sent, &dropped);
	log_msg(&d->log, LOG_LEVEL_INFO,
		"t=%" PRIu64 " s: samples %" PRIu64 "/%" PRIu64 "/%" PRIu64
		", frames sent %" PRIu64 ", dropped %" PRIu64,
		d->ticks * TICK_MS / 1000u, d->samples[0], d->samples[1],
		d->samples[2], sent, dropped);
}

void
daemon_tick(struct daemon *d, uint64_t expirations)
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
		sinks_heartbeat(&d->sinks, d->ticks * TICK_MS * 1000u);
		if (d->source->tick)
			d->source->tick(&d->source_env, d->source_state,
					d->ticks, k + 1 == expirations);
		if (d->end_ticks && d->ticks >= d->end_ticks) {
			d->loop.quit = true;
			break;
		}
		/* A heartbeat in the log for people watching (-v). */
		if (d->ticks % 1000 == 0)
			log_progress(d);
	}
	/* Once per wake-up: the budgets grow by the time that passed. */
	param_service_tick(&d->ps, d->ticks * TICK_MS * 1000u);
}

void
daemon_requests_log(struct daemon *d)
{
	const struct param_service_stats *st = &d->ps.stats;
	const uint64_t all = st->requests_dropped + st->lists_refused;
	const uint64_t n = all - d->requests_dropped_logged;

	if (n == 0)
		return;
	d->requests_dropped_logged = all;
	log_msg(&d->log, LOG_LEVEL_WARNING,
		"MAVLink: %" PRIu64 " requests dropped over their budget or "
		"refused in the last second (in all: dropped %" PRIu64
		", lists refused %" PRIu64 ", merged %" PRIu64 ")",
		n, st->requests_dropped, st->lists_refused, st->lists_merged);
}

void
daemon_requests_status(const struct daemon *d, FILE *out)
{
	const struct param_service_stats *st = &d->ps.stats;

	fprintf(out,
		"mavlink requests %" PRIu64 " dropped %" PRIu64
		" lists %" PRIu64 " merged %" PRIu64 " refused %" PRIu64
		" done %" PRIu64 " in-flight %zu values %" PRIu64
		" untold %" PRIu64 "\n",
		st->requests, st->requests_dropped, st->lists, st->lists_merged,
		st->lists_refused, st->lists_done,
		param_service_listing(&d->ps), st->values_listed, st->untold);
}

/* Whatever the events queued leaves now: the sinks' (one datagram per
 * output) and the source's own (a PX4 peer's frames). */
void
daemon_flush(void *user)
{
	struct daemon *d = user;

	sinks_flush(&d->sinks);
	if (d->source && d->source->flush)
		d->source->flush(&d->source_env, d->source_state);
}

/* What STATUS= shows: what the source waits for, or samples that
 * reached the outputs, frames they dropped, and sensors publishing
 * (hardware) or simulated. */
void
daemon_service_counters(const struct daemon *d, struct notify_counters *c)
{
	uint64_t sent;

	*c = (struct notify_counters){
		.source = config_source_name(d->cfg.source),
	};
	for (size_t k = 0; k < BARO_MAX_INSTANCES; k++)
		c->published += d->samples[k] - d->withheld[k];
	sinks_frames(&d->sinks, &sent, &c->dropped);
	if (d->source->health) {
		d->source->health(&d->source_env, d->source_state,
				  &c->sensors, &c->healthy);
	} else {
		c->sensors = c->healthy = (unsigned)d->cfg.params.baro_count;
	}
	if (!d->source->waiting ||
	    !d->source->waiting(&d->source_env, d->source_state, c->waiting,
				sizeof(c->waiting)))
		c->waiting[0] = '\0';
}
