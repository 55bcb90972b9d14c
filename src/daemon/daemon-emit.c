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

	/* Vehicle 0's baros are the ones counted and faulted: scenarios and
	 * injections address them.  PX4-style garbage/slow/intermittent
	 * act after the sensor; what they hold back is neither published
	 * nor recorded. */
	if (ctx->vehicle == 0 && i < BARO_MAX_INSTANCES) {
		d->samples[i]++;
		if (!fault_overlay_apply(&d->overlay, s)) {
			d->withheld[i]++;
			return false;
		}
	}
	sinks_sample(&d->sinks, ctx, s);
	return true;
}

void
daemon_send_all(struct daemon *d, uint32_t msgid, const uint8_t *payload)
{
	sinks_message(&d->sinks, msgid, payload);
}

void
daemon_announce(struct daemon *d, uint8_t severity, const char *text)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD];

	log_msg(&d->log, LOG_LEVEL_NOTICE, "%s", text);
	param_service_statustext(severity, text, pl);
	daemon_send_all(d, MAVLINK_MSG_STATUSTEXT, pl);
}
