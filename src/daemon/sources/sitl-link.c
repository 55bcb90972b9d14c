/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "sitl-link.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "transports.h"

/* ArduPilot gives up on a physics frame after 100 ms and resends about
 * every 1.1 s: a second without replies is worth saying. */
#define SILENCE_US 1000000u
#define WARN_INTERVAL_US 1000000u
/* Room for a full upstream datagram plus barod's fields on every line. */
#define PROXY_TX_MAX (2 * SITL_JSON_MAX_LINE)

/* ArduPilot's side: replies go where the last valid servo packet came
 * from (ArduPilot's SIM_JSON sends from a port of its choosing, and a
 * restarted one may choose another; a stray datagram moves nothing), and
 * the port is barod's alone (two barods sharing it would each get some
 * of ArduPilot's packets). */
static const struct transport_opts sitl_ap_side = {
	.answer_accepted = true,
	.exclusive_port = true,
};

/* The proxy's backend: connected, so only its replies are read, a whole
 * JSON datagram as ArduPilot would take it. */
static const struct transport_opts sitl_backend_side = {
	.only_peer = true,
	.datagram_max = SITL_JSON_MAX_LINE,
};

static void
say(struct sitl_link *l, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
say(struct sitl_link *l, int level, const char *fmt, ...)
{
	char text[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (l->log)
		l->log(l->user, l, level, text);
}

/* Malformed input is counted always, reported at most once a second. */
static void
complain(struct sitl_link *l, const char *what)
{
	uint64_t now = event_now_us();

	if (now - l->warned_bad < WARN_INTERVAL_US)
		return;
	l->warned_bad = now;
	say(l, LOG_LEVEL_WARNING,
	    "SITL instance %u: %s (%llu bad packets, %llu bad lines so far)",
	    l->cfg.instance, what, (unsigned long long)l->stats.bad_packets,
	    (unsigned long long)l->stats.bad_lines);
}

/* The fields text for the reply, formatted again only after a change. */
static const char *
fields_text(struct sitl_link *l, bool changed)
{
	if (changed || !l->fields_valid) {
		l->fields_valid = sitl_json_format_fields(
			l->fields_text, sizeof(l->fields_text), &l->fields) >= 0;
		if (!l->fields_valid)
			l->fields_text[0] = '\0';
	}
	return l->fields_text;
}

/* At once, not at the loop pass's flush: ArduPilot waits for it. */
static void
send_to_ap(struct sitl_link *l, const char *buf, size_t len)
{
	int rc = transport_link_send_now(&l->ap, (const uint8_t *)buf, len);

	if (rc == 0) {
		l->stats.replies++;
		l->last_reply_us = event_now_us();
	} else if (rc != -ENOTCONN) {
		/* -ENOTCONN: no ArduPilot yet, nobody to answer. */
		l->stats.send_errors++;
	}
}

static void
restart(struct sitl_link *l, const char *why)
{
	l->stats.restarts++;
	say(l, LOG_LEVEL_NOTICE,
	    "SITL instance %u: %s: physics restarted, baros reset",
	    l->cfg.instance, why);
	l->physics_us = 0;
	l->physics_s = 0.0;
	l->have_timestamp = false;
	l->have_epoch = false;
	memset(&l->truth, 0, sizeof(l->truth));
	memset(&l->vehicle, 0, sizeof(l->vehicle));
	l->fields_valid = false;
	sitl_motion_reset(&l->motion);
	l->reply_len = 0;
	if (l->restart)
		l->restart(l->user, l);
}

/*
 * Step the daemon at physics_us counted from the first frame (after start
 * or a restart): backends stamp frames from 0, from their boot or with
 * Unix time (ArduPilot's C++ example), and a scenario's "at 8s" must mean
 * 8 s into the flight for each.  The shift keeps ArduPilot's baro
 * sampling phase: ArduPilot's millis() follows the timestamps, and its
 * baro samples first at the first millis() >= 10, then 10 ms after each
 * sample.  A clock whose first frame is within those 10 ms is used as it
 * is (scenario time 0 is then less than one sample before the first
 * frame); a later one loses the first frame's whole milliseconds, so its
 * samples fall on the frames where ArduPilot's second and later ones do.
 * Whole µs throughout: 1.7e9 s of epoch costs no precision, and no
 * millisecond count comes near 32 bits.
 */
static bool
step_daemon(struct sitl_link *l, const struct baro_sitl_truth *truth)
{
	if (!l->have_epoch) {
		l->epoch_us = l->physics_us < 10000u
				      ? 0u
				      : l->physics_us / 1000u * 1000u;
		l->have_epoch = true;
	}
	l->stats.frames++;
	return l->step(l->user, l, l->physics_us - l->epoch_us, truth,
		       &l->fields);
}

/* ---- peer: barod's own vehicle ------------------------------------ */

/* The vehicle at t, flown towards the profile's (or trace's) height. */
static void
peer_vehicle(struct sitl_link *l, double t, struct sitl_fdm *fdm)
{
	const double h = l->cfg.trace ? truth_trace_height(l->cfg.trace, t)
				      : truth_profile_height(&l->cfg.profile, t);

	sitl_motion_step(&l->motion, t, h, &l->vehicle, fdm);
}

static void
peer_frame(struct sitl_link *l, const struct sitl_servo *s)
{
	const double dt = 1.0 / (double)s->frame_rate;
	/* Summed in seconds, not rounded µs, so 1200 Hz stays 1200 Hz. */
	const double t = l->physics_s + dt;
	struct sitl_fdm fdm;
	struct baro_sitl_truth truth = { 0 };

	peer_vehicle(l, t, &fdm);
	l->physics_s = t;
	l->physics_us = (uint64_t)llround(t * 1e6);
	if (sitl_truth_update(&l->truth, &fdm, l->cfg.home_alt_m,
			      &truth.alt_amsl_m) < 0) {
		complain(l, "profile height out of range");
		return;
	}
	memcpy(truth.vel_air_bf, l->truth.vel_air_bf, sizeof(truth.vel_air_bf));
	bool changed = step_daemon(l, &truth);

	l->reply_len = sitl_json_format_reply(l->reply, sizeof(l->reply),
					      &l->vehicle,
					      fields_text(l, changed));
	if (l->reply_len < 0) {
		complain(l, "reply could not be formatted");
		l->reply_len = 0;
		return;
	}
	send_to_ap(l, l->reply, (size_t)l->reply_len);
}

/* ---- proxy: somebody else's physics ------------------------------- */

static void
forward_upstream(struct sitl_link *l, const uint8_t *buf, size_t len)
{
	if (transport_link_send_now(&l->up, buf, len) < 0)
		l->stats.send_errors++;
	else
		event_loop_expect(l->loop, &l->spin_up);
}

/* One line of upstream text: learn the truth from it, step on a new
 * timestamp, and append it to out with barod's fields inserted. */
static size_t
proxy_line(struct sitl_link *l, const char *line, size_t len, char *out,
	   size_t cap)
{
	struct sitl_fdm *fdm = &l->fdm;
	bool changed = false;
	size_t i = 0;

	while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
		i++;
	if (i == len || line[i] != '{')
		goto verbatim;
	l->stats.upstream_lines++;
	if (sitl_json_scan(line, len, fdm) < 0 ||
	    !(fdm->mask & SITL_KEY_BIT(SITL_KEY_TIMESTAMP))) {
		l->stats.bad_lines++;
		complain(l, "upstream line is not a JSON physics object");
		goto verbatim;
	}

	if (l->have_timestamp && fdm->timestamp < l->last_timestamp)
		restart(l, "upstream timestamp went back");
	if (!l->have_timestamp || fdm->timestamp > l->last_timestamp) {
		struct baro_sitl_truth truth = { 0 };
		if (sitl_truth_update(&l->truth, fdm, l->cfg.home_alt_m,
				      &truth.alt_amsl_m) == 0 &&
		    fdm->timestamp >= 0.0 && fdm->timestamp < 4e9) {
			memcpy(truth.vel_air_bf, l->truth.vel_air_bf,
			       sizeof(truth.vel_air_bf));
			l->last_timestamp = fdm->timestamp;
			l->have_timestamp = true;
			l->physics_us = (uint64_t)llround(fdm->timestamp * 1e6);
			changed = step_daemon(l, &truth);
		} else {
			l->stats.bad_lines++;
			complain(l, "upstream position or time out of range");
		}
	}

	int n = sitl_json_insert(line, len, fields_text(l, changed), out, cap);
	if (n >= 0)
		return (size_t)n;
verbatim:
	if (len > cap)
		return 0;
	memcpy(out, line, len);
	return len;
}

/* One datagram from the backend (one a wake-up, of up to
 * SITL_JSON_MAX_LINE bytes: sitl_backend_side). */
static void
on_upstream(void *user, enum transport_rx what, const uint8_t *buf, size_t n)
{
	struct sitl_link *l = user;
	const char *in = (const char *)buf;
	char *out = l->tx;

	if (what != TRANSPORT_RX_DATA)
		return;
	if (n == 0) {
		/* Nothing ArduPilot could read: not a reply. */
		l->stats.bad_lines++;
		complain(l, "upstream sent an empty datagram");
		return;
	}
	/* used stays below PROXY_TX_MAX: every line is given only the room
	 * left, and a line the fields make too long (many short lines in
	 * one datagram) ends the reply there. */
	size_t used = 0, start = 0;
	for (;;) {
		const char *nl = memchr(in + start, '\n', n - start);
		const size_t i = nl ? (size_t)(nl - in) : n;
		const size_t w = proxy_line(l, in + start, i - start,
					    out + used,
					    PROXY_TX_MAX - 1 - used);
		used += w;
		if ((w == 0 && i > start) || (nl && used + 1 >= PROXY_TX_MAX)) {
			complain(l, "upstream datagram did not fit the reply "
				    "with barod's fields: its rest dropped");
			break;
		}
		if (!nl)
			break;
		out[used++] = '\n';
		start = i + 1;
	}
	send_to_ap(l, out, used);
	/* Lockstep: ArduPilot's next servo packet answers this one. */
	event_loop_expect(l->loop, &l->spin_ap);
}

/* ---- ArduPilot's side --------------------------------------------- */

/* One datagram from ArduPilot's side (in batches of up to
 * TRANSPORT_RX_BATCH a wake-up; a larger one than a servo packet arrives
 * cut, a bad size either way). */
static void
on_ardupilot(void *user, enum transport_rx what, const uint8_t *buf, size_t n)
{
	struct sitl_link *l = user;
	struct sitl_servo s;

	if (what != TRANSPORT_RX_DATA)
		return;
	if (sitl_servo_decode(buf, n, &s) < 0 || s.frame_rate == 0) {
		l->stats.bad_packets++;
		complain(l, "servo packet with a bad magic, size or frame rate "
			    "ignored");
		return;
	}
	/* Replies go where the servo packets come from. */
	transport_link_answer_sender(&l->ap);
	l->last_servo_us = event_now_us();
	if (l->stats.servo_packets++ == 0)
		l->first_servo_us = l->last_servo_us;

	bool fresh = true;
	if (l->have_frame && s.frame_count == l->last_frame) {
		l->stats.resends++;
		fresh = false;
	} else if (l->have_frame && s.frame_count < l->last_frame) {
		restart(l, "frame_count went back");
	} else if (l->have_frame) {
		l->stats.lost_frames += s.frame_count - l->last_frame - 1;
	}
	l->last_frame = s.frame_count;
	l->have_frame = true;
	l->throttle = sitl_servo_throttle(l->cfg.vehicle, s.pwm, s.channels,
					  l->cfg.motor_mask);

	if (l->cfg.mode == SITL_PROXY) {
		forward_upstream(l, buf, n);
	} else if (fresh) {
		peer_frame(l, &s);
	} else if (l->reply_len > 0) {
		/* The same frame again: the same answer, no step. */
		send_to_ap(l, l->reply, (size_t)l->reply_len);
	}
}

void
sitl_link_check(struct sitl_link *l, uint64_t now)
{
	if (l->cfg.mode != SITL_PROXY || !l->have_frame)
		return;
	if (now - l->last_servo_us > SILENCE_US ||
	    now - l->last_reply_us < SILENCE_US ||
	    now - l->last_warn_us < WARN_INTERVAL_US)
		return;
	l->last_warn_us = now;
	say(l, LOG_LEVEL_WARNING,
	    "SITL instance %u: upstream %s silent for %.1f s; ArduPilot gets "
	    "no physics", l->cfg.instance, l->cfg.upstream,
	    (double)(now - (l->last_reply_us ? l->last_reply_us
					     : l->first_servo_us)) *
		    1e-6);
}

int
sitl_link_open(struct sitl_link *l, const struct sitl_link_config *cfg,
	       struct event_loop *loop, sitl_step_cb step,
	       sitl_restart_cb restart_cb, sitl_log_cb log, void *user,
	       char *err, size_t errlen)
{
	char name[32], addr[96], why[200];
	const bool v6 = strchr(cfg->bind_host, ':') != NULL;
	int rc;

	memset(l, 0, sizeof(*l));
	l->cfg = *cfg;
	l->loop = loop;
	l->step = step;
	l->restart = restart_cb;
	l->log = log;
	l->user = user;
	transport_link_init(&l->ap);
	transport_link_init(&l->up);
	l->fields.count = 0;
	for (int k = 0; k < 6; k++)
		l->fields.rng_instance[k] = cfg->rng_instance[k];

	snprintf(name, sizeof(name), "SITL instance %u", cfg->instance);
	snprintf(addr, sizeof(addr), "%s%s%s:%u", v6 ? "[" : "",
		 cfg->bind_host, v6 ? "]" : "", cfg->port);
	rc = transport_link_open(&l->ap, &transport_udp_server, loop, name,
				 addr, &sitl_ap_side, 0, on_ardupilot, l, why,
				 sizeof(why));
	if (rc < 0) {
		snprintf(err, errlen, "%s: %s", name, why);
		return rc;
	}
	if (cfg->mode != SITL_PROXY)
		return 0;

	l->tx = malloc(PROXY_TX_MAX);
	if (!l->tx) {
		snprintf(err, errlen, "out of memory");
		sitl_link_close(l);
		return -ENOMEM;
	}
	rc = transport_link_open(&l->up, &transport_udp_client, loop, name,
				 cfg->upstream, &sitl_backend_side, 0,
				 on_upstream, l, why, sizeof(why));
	if (rc < 0) {
		snprintf(err, errlen, "upstream %s", why);
		sitl_link_close(l);
	}
	return rc;
}

void
sitl_link_close(struct sitl_link *l)
{
	transport_link_close(&l->ap);
	transport_link_close(&l->up);
	free(l->tx);
	l->tx = NULL;
}
