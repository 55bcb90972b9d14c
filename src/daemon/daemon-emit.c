/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The emit path: every sample of every source, simulated or read from a
 * chip, goes through daemon_emit() and nothing else reaches the sinks.
 */
#include "daemon.h"

bool
daemon_emit(struct daemon *d, const struct emit_ctx *ctx,
	    struct baro_sample *s)
{
	const unsigned i = s->instance;
	struct baro_sample out[FAULT_RELEASE_MAX];

	/* Vehicle 0's baros are the ones counted and faulted: scenarios and
	 * injections address them.  PX4-style faults act after the sensor;
	 * what they hold back is neither published nor recorded. */
	if (ctx->vehicle != 0 || i >= BARO_MAX_INSTANCES) {
		sinks_sample(&d->sinks, ctx, s);
		return true;
	}
	d->samples[i]++;
	/* A delayed fault (hardware mode) releases the samples held until
	 * now, or none; any other fault passes this one, changed or not. */
	unsigned n = fault_overlay_process(&d->overlay, s, out,
					   FAULT_RELEASE_MAX);
	if (n == 0) {
		d->withheld[i]++;
		return false;
	}
	for (unsigned k = 0; k < n; k++) {
		/* Each released sample at its own (release) time, counted
		 * from the context's clock: out[k] is never newer than s. */
		struct emit_ctx at = *ctx;
		at.now_us = ctx->now_us - (s->time_us - out[k].time_us);
		sinks_sample(&d->sinks, &at, &out[k]);
	}
	*s = out[n - 1];
	return true;
}

/* To every output that takes GCS messages, within each one's budget
 * (param_service_tell): what one output's requests cause must not crowd
 * the samples off another. */
void
daemon_send_all(struct daemon *d, uint32_t msgid, const uint8_t *payload)
{
	for (size_t i = 0; i < d->sinks.n; i++) {
		struct sink *k = d->sinks.list[i];
		if (k->ops->message && param_service_tell(&d->ps, k))
			sink_send(k, msgid, payload);
	}
}

void
daemon_announce(struct daemon *d, uint8_t severity, const char *text)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD];

	log_msg(&d->log, LOG_LEVEL_NOTICE, "%s", text);
	param_service_statustext(severity, text, pl);
	daemon_send_all(d, MAVLINK_MSG_STATUSTEXT, pl);
}
