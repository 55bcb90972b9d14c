/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The trust boundary for what arrives over MAVLink: with a signing key,
 * a frame reaches the parameter and command services only when its
 * signature verifies (and is not a replay); without remote fault
 * injection ([faults] remote), a ground station's PARAM_SET or
 * MAV_CMD_INJECT_FAILURE is refused, told why once, and counted.  The
 * control socket and scenario files are local and do not come here.
 */
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "daemon.h"

/* The signing clock: the wall clock in signing units (10 us since
 * 2015-01-01).  A Pi without an RTC starts in the past until NTP; the
 * local timestamp then follows the newest signed frame accepted. */
static uint64_t
sign_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return mavlink_sign_timestamp((uint64_t)ts.tv_sec * 1000000u +
				      (uint64_t)ts.tv_nsec / 1000u);
}

static void
apply(struct daemon *d, const struct config *c)
{
	struct daemon_remote *r = &d->remote;

	d->ps.remote_faults = config_remote_faults(c);
	if (!c->signing) {
		r->signing_on = false;
	} else if (!r->signing_on ||
		   memcmp(r->signing.key, c->signing_key,
			  sizeof(c->signing_key)) != 0) {
		/* A new key starts new streams; the same key keeps them, so
		 * a reload does not reopen the door to replays. */
		mavlink_signing_init(&r->signing, c->signing_key, sign_now());
		r->signing_on = true;
	}
	d->sinks.env.signing = r->signing_on ? &r->signing : NULL;
	d->sinks.env.sign_now = sign_now;
}

void
daemon_remote_init(struct daemon *d)
{
	memset(&d->remote, 0, sizeof(d->remote));
	apply(d, &d->cfg);
	if (d->remote.signing_on)
		log_msg(&d->log, LOG_LEVEL_INFO, "MAVLink signing on (key %s): "
			"unsigned commands are dropped",
			d->cfg.signing_key_path);
}

void
daemon_remote_reload(struct daemon *d, const struct config *next)
{
	bool was = d->remote.signing_on;

	apply(d, next);
	if (was != d->remote.signing_on)
		log_msg(&d->log, LOG_LEVEL_NOTICE, "reload: MAVLink signing %s",
			d->remote.signing_on ? "on" : "off");
}

bool
daemon_remote_accept(struct daemon *d, const struct mavlink_frame *f)
{
	struct daemon_remote *r = &d->remote;

	if (!r->signing_on) {
		/* As the MAVLink C library: a signature is not checked
		 * without a key, and nothing is then asked of one. */
		return true;
	}
	enum mavlink_sign_result res =
		(f->incompat_flags & MAVLINK_IFLAG_SIGNED)
			? mavlink_signing_check(&r->signing, f->raw,
						f->raw_len, sign_now())
			: MAVLINK_SIGN_UNSIGNED;
	if (res == MAVLINK_SIGN_OK) {
		r->accepted++;
		return true;
	}
	/* As ArduPilot with a key: everything not signed with it is
	 * dropped, not only what would act (log_msg limits the rate). */
	r->dropped[res]++;
	log_msg(&d->log, LOG_LEVEL_WARNING,
		"MAVLink signing: dropped %s message %" PRIu32 " from %u/%u",
		mavlink_sign_result_name(res), f->msgid, f->sysid, f->compid);
	return false;
}

/* text as STATUSTEXT to one link, in 50-character chunks (the MAVLink 2
 * id/chunk_seq extension, which QGroundControl and MAVProxy join). */
static void
tell(struct daemon *d, struct sink *to, uint8_t severity, const char *text)
{
	const size_t len = strlen(text);
	uint8_t pl[MAVLINK_MAX_PAYLOAD];
	uint16_t id = 0;

	/* 0 means "not chunked": skipped when the counter wraps. */
	while (len > 50 && id == 0)
		id = ++d->remote.text_id;
	for (size_t off = 0, seq = 0; off < len || off == 0; off += 50, seq++) {
		struct mavlink_statustext st = { .severity = severity, .id = id,
						 .chunk_seq = (uint8_t)seq };
		size_t n = len - off < 50 ? len - off : 50;
		memcpy(st.text, text + off, n);
		memset(pl, 0, sizeof(pl));
		mavlink_pack_statustext(&st, pl);
		sink_send(to, MAVLINK_MSG_STATUSTEXT, pl);
		if (n < 50)
			break;
	}
}

void
daemon_remote_denied(void *user, const struct mavlink_frame *f,
		     void *reply_to)
{
	struct daemon *d = user;
	struct daemon_remote *r = &d->remote;
	const char *why =
		daemon_emulated(d)
			? "fault injection over MAVLink is off: set [faults] "
			  "remote = yes"
			: "fault injection is disabled on real sensors: set "
			  "[faults] remote = yes";

	r->denied++;
	log_msg(&d->log, LOG_LEVEL_WARNING, "%s from %u/%u refused: %s",
		f->msgid == MAVLINK_MSG_PARAM_SET ? "PARAM_SET"
						  : "MAV_CMD_INJECT_FAILURE",
		f->sysid, f->compid, why);
	/* Once per ground station: a GCS retrying is not answered with a
	 * stream of texts. */
	for (size_t i = 0; i < r->n_told; i++) {
		const struct remote_peer *p = &r->told[i];
		if (p->link == reply_to && p->sysid == f->sysid &&
		    p->compid == f->compid)
			return;
	}
	/* Full (16 sysids, which anyone may make up): the one told longest
	 * ago makes room, so a real ground station arriving after a crowd
	 * of made-up ones is still told why. */
	const struct remote_peer p = { reply_to, f->sysid, f->compid };
	if (r->n_told < DAEMON_REMOTE_PEERS) {
		r->told[r->n_told++] = p;
	} else {
		r->told[r->told_next] = p;
		r->told_next = (r->told_next + 1) % DAEMON_REMOTE_PEERS;
	}
	if (reply_to)
		tell(d, reply_to, MAV_SEVERITY_WARNING, why);
}

void
daemon_remote_forget(struct daemon *d, const struct sink *link)
{
	struct daemon_remote *r = &d->remote;
	size_t k = 0;

	for (size_t i = 0; i < r->n_told; i++) {
		if (r->told[i].link != link)
			r->told[k++] = r->told[i];
	}
	r->n_told = k;
	r->told_next = 0;
}

void
daemon_remote_status(const struct daemon *d, FILE *out)
{
	const struct daemon_remote *r = &d->remote;

	fprintf(out, "remote faults %s denied %" PRIu64 "\n",
		d->ps.remote_faults ? "on" : "off", r->denied);
	if (!r->signing_on)
		return;
	fprintf(out, "signing on signed %" PRIu64 " accepted %" PRIu64,
		r->signing.signed_out, r->accepted);
	for (int i = MAVLINK_SIGN_UNSIGNED; i < MAVLINK_SIGN_RESULTS; i++)
		fprintf(out, " %s %" PRIu64,
			mavlink_sign_result_name((enum mavlink_sign_result)i),
			r->dropped[i]);
	fputc('\n', out);
}
