/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * barod between PX4 SITL and its simulator (--px4-sim-proxy HOST:PORT):
 * PX4 instance N connects to barod on TCP port + N, barod connects to the
 * simulator at HOST:PORT + N, and the two MAVLink streams pass through in
 * order, byte for byte, except HIL_SENSOR from the simulator: its baro
 * fields become what barod's AP_Baro_SITL emulator (plus the fault
 * overlay) makes of the simulator's own pressure.
 *
 * The emulator's truth is the altitude behind the simulator's
 * abs_pressure in the emulator's atmosphere, its clock the HIL_SENSOR
 * time_usec since the first frame of the connection.  Like ArduPilot's
 * frontend reading a 100 Hz sensor, every baro frame carries the latest
 * emulator sample: the frame's own bytes while that sample is untouched
 * by any fault (so a clean emulator changes nothing at all), the
 * sample's pressure while it is faulted (its temperature too when the
 * fault set that: stuck, garbage; else the frame's, which is live), and
 * no baro bits while the sensor is disabled or the overlay withholds its
 * sample.
 *
 * A sample is the simulator's own reading wherever the emulator left it
 * alone: its temperature always (the emulator models none that PX4's
 * simulator would not), its pressure while the emulator did not move
 * the altitude.  So the overlay's stuck holds what PX4 was sent, and the
 * record file and the GCS get exactly the values PX4 received.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atmosphere.h"
#include "mavlink-stream.h"
#include "px4-link.h"
#include "px4-throttle.h"
#include "util-endian.h"
#include "util-strings.h"

#include "source.h"
#include "vehicle.h"

/* HIL_SENSOR payload offsets (common.xml wire order). */
enum {
	HS_ABS_PRESSURE = 44,
	HS_PRESSURE_ALT = 52,
	HS_TEMPERATURE = 56,
	HS_FIELDS = 60,
};
/* PX4 updates its baro only when all three are set (SensorSource::BARO). */
#define HS_BARO_BITS                                                          \
	(HIL_SENSOR_ABS_PRESSURE | HIL_SENSOR_PRESSURE_ALT |                  \
	 HIL_SENSOR_TEMPERATURE)
/* The emulator takes no sample at 0 ms (its timer needs 10 ms since the
 * last); running it this far ahead gives the first frame one. */
#define SIM_OFFSET_MS BARO_SITL_PERIOD_MS
/* A lost simulator is tried twice a second (px4-link.h). */
#define RETRY_US (px4_link_sim_side.retry_ms * 1000u)

/* What baroctl status and the exit report tell, per instance. */
struct px4_proxy_stats {
	uint64_t physics_us;		/* HIL_SENSOR time since the first */
	uint64_t hil_sensor;		/* good HIL_SENSOR from the simulator */
	uint64_t baro_frames;		/* ... with id 0 and the baro bits */
	uint64_t rewritten;		/* baro fields replaced (faulted) */
	uint64_t baro_cleared;		/* baro bits cleared (disabled,
					 * withheld) */
	uint64_t other_id;		/* id != 0: passed unchanged */
	uint64_t bad_baro;		/* abs_pressure with no altitude */
	uint64_t bad_crc, signed_passed;	/* HIL_SENSOR passed as is */
	uint64_t frames_from_sim, frames_from_px4;
	uint64_t restarts;
	uint64_t px4_connects, px4_disconnects;
	uint64_t sim_connects, sim_disconnects;
	uint64_t dropped_bytes;		/* backlog overflow, both ways */
	uint64_t px4_bytes_unsent;	/* from PX4 while no simulator */
	/* Cut off by a disconnect, both ways: a backlog not yet written
	 * and a frame not yet whole. */
	uint64_t lost_bytes;
};

struct px4_proxy_source;

struct px4_proxy {
	const struct source_env *env;
	struct px4_proxy_source *src;
	unsigned instance;
	unsigned port;
	char upstream[160];
	/* PX4's connection (a one-client TCP server) and the simulator's
	 * (a TCP client), on transports/ (px4-link.h). */
	struct transport_link px4, sim;
	struct mavlink_stream from_sim, from_px4;
	struct px4_proxy_stats stats;

	bool have_t0;
	uint64_t t0_us, last_us;
	uint64_t retry_at_us;		/* simulator address unusable:
					 * open again then; 0: not */
	bool sim_up;			/* connected, not connecting */
	bool outage_logged;
	/* This wake-up passed a whole frame on to PX4 (to_px4). */
	bool sent_to_px4;
	/* Whether each side answers within --busy-poll. */
	struct event_spin spin_sim, spin_px4;

	/* The latest emulator sample of baro 0 and what it means for the
	 * frames until the next one. */
	bool have_out;
	bool withheld;			/* overlay held it back */
	bool clean;			/* no fault touched it */
	bool held_temp;			/* the overlay set its temperature
					 * (stuck, garbage) */
	struct baro_sample out;
	float throttle;			/* the motors', from PX4's controls */
	uint64_t warned_us;
};

struct px4_proxy_source {
	struct px4_proxy *proxies;	/* one per PX4 instance */
	size_t n;
	struct vehicles fleet;
};

static void
say(struct px4_proxy *p, enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
say(struct px4_proxy *p, enum log_level level, const char *fmt, ...)
{
	char text[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	log_msg(p->env->log, level, "PX4 instance %u: %s", p->instance, text);
}

/* The altitude behind a pressure in the emulator's atmosphere. */
static int
altitude_of(enum baro_sitl_atmosphere atmos, float pa, float *alt)
{
	if (!(pa > 0.0f) || !isfinite(pa))
		return -EDOM;
	return atmos == BARO_SITL_ATMOS_1976 ? atmos_1976_altitude(pa, alt)
					     : atmos_simple_altitude(pa, alt);
}

static void
new_epoch(struct px4_proxy *p)
{
	p->have_t0 = false;
	p->have_out = false;
	vehicle_restart(p->env, &p->src->fleet, p->instance);
}

static void
restart(struct px4_proxy *p, const char *why)
{
	p->stats.restarts++;
	say(p, LOG_LEVEL_NOTICE, "%s: physics restarted, baros reset", why);
	new_epoch(p);
}

/* The simulator's reading of this frame, for the emulator's samples. */
struct reading {
	float pressure_pa;		/* abs_pressure x 100, as PX4 reads it */
	float temperature_c;
	float truth_alt;		/* behind pressure_pa */
};

/* Before the overlay: what the emulator did not change is the
 * simulator's own reading. */
static void
measured(struct baro_sample *s, void *user)
{
	const struct reading *r = user;

	s->temperature_c = r->temperature_c;
	if (s->alt_m == r->truth_alt)
		s->pressure_pa = r->pressure_pa;
}

/* One emulator call at physics time now_us for the frame's reading. */
static void
step_emulator(struct px4_proxy *p, uint64_t now_us, struct reading *r)
{
	const unsigned v = p->instance;
	/* The simulator's vehicle starts on its ground: SITL's rule (the
	 * first altitude above 0) finds it. */
	const struct vehicle_input in = {
		.now_us = now_us,
		.emulator_ms = (uint32_t)(now_us / 1000u + SIM_OFFSET_MS),
		.truth = { .alt_amsl_m = r->truth_alt },
		.throttle = p->throttle,
		.sitl_agl = true,
		.sitl_altitude_m = (double)r->truth_alt,
		.measured = measured,
		.measured_user = r,
	};
	struct baro_sample out[BARO_MAX_INSTANCES];
	bool published[BARO_MAX_INSTANCES];
	unsigned n = vehicle_step(p->env, &p->src->fleet, v, &in, out,
				  published);
	for (unsigned k = 0; k < n; k++) {
		if (out[k].instance != 0)
			continue;
		p->have_out = true;
		p->withheld = !published[k];
		p->held_temp = out[k].temperature_c != r->temperature_c;
		p->clean = published[k] && !p->held_temp &&
			   out[k].pressure_pa == r->pressure_pa;
		p->out = out[k];
	}
}

static void
complain(struct px4_proxy *p, const char *what)
{
	uint64_t now = event_now_us();

	p->stats.bad_baro++;
	if (p->warned_us && now - p->warned_us < 1000000u)
		return;
	p->warned_us = now;
	say(p, LOG_LEVEL_WARNING, "%s (%" PRIu64 " such frames so far)", what,
	    p->stats.bad_baro);
}

/* A HIL_SENSOR from the simulator (mavlink_stream edit callback). */
static bool
rewrite(void *user, uint8_t *frame, size_t len, size_t hdr,
	const struct mavlink_frame *f)
{
	struct px4_proxy *p = user;
	const struct source_env *env = p->env;
	struct mavlink_hil_sensor m;
	uint8_t *pl = frame + hdr;

	(void)len;
	mavlink_unpack_hil_sensor(f->payload, &m);
	p->stats.hil_sensor++;
	/* PX4 takes its clock from id 0 only; at the reference commit it
	 * also ignores id for the baro and feeds both its baro instances
	 * from every baro frame.  The emulator stands for id 0. */
	if (m.id != 0) {
		p->stats.other_id++;
		return false;
	}
	if (p->have_t0 && m.time_usec < p->last_us)
		restart(p, "HIL_SENSOR time went back");
	if (!p->have_t0) {
		p->t0_us = m.time_usec;
		p->have_t0 = true;
		/* PX4 in lockstep takes its clock from time_usec: this puts
		 * the scenario's times on its log's (baro-campaign's labels,
		 * src/campaign/campaign-labels.h reads the words).  Its own
		 * format, so its own rate limit: say()'s messages share one,
		 * and this one must not crowd out why the epoch began. */
		log_msg(p->env->log, LOG_LEVEL_NOTICE, "PX4 instance %u: "
			"physics time 0 is the simulator's time_usec %" PRIu64,
			p->instance, m.time_usec);
	}
	p->last_us = m.time_usec;
	const uint64_t now_us = m.time_usec - p->t0_us;
	struct reading r = {
		.pressure_pa = m.abs_pressure * 100.0f,
		.temperature_c = m.temperature,
	};
	const bool baro = (m.fields_updated & HS_BARO_BITS) == HS_BARO_BITS;
	if (!baro ||
	    altitude_of(env->cfg->atmosphere, r.pressure_pa, &r.truth_alt) < 0) {
		/* No emulator sample from this frame: the clock alone
		 * moves (vehicle_step moves it for the others). */
		vehicle_clock(env, &p->src->fleet, p->instance, now_us);
		if (baro)
			complain(p, "HIL_SENSOR abs_pressure is not an air "
				    "pressure; frame passed unchanged");
		return false;
	}
	step_emulator(p, now_us, &r);
	p->stats.baro_frames++;

	const struct sim_baro_params *bp =
		&vehicle_sim(env, &p->src->fleet, p->instance)->params.baro[0];
	if (bp->disable || (p->have_out && p->withheld)) {
		/* What PX4's own "failure baro off" amounts to; the frame
		 * stays, it carries the IMU and the clock tick. */
		le_put32(pl + HS_FIELDS,
			 m.fields_updated & ~(uint32_t)HS_BARO_BITS);
		p->stats.baro_cleared++;
		return true;
	}
	/* Untouched: the frame as the simulator sent it.  Otherwise the
	 * sample: a stuck sensor (the overlay's, PX4's meaning) repeats its
	 * whole reading, SIM_BARO_FREEZE (ArduPilot's) only the pressure,
	 * its temperature staying live. */
	if (!p->have_out || p->clean)
		return false;
	float alt;
	if (altitude_of(env->cfg->atmosphere, p->out.pressure_pa, &alt) < 0)
		alt = p->out.alt_m;
	le_put_f32(pl + HS_ABS_PRESSURE, p->out.pressure_pa * 0.01f);
	le_put_f32(pl + HS_PRESSURE_ALT, alt);
	le_put_f32(pl + HS_TEMPERATURE,
		   p->held_temp ? p->out.temperature_c : m.temperature);
	p->stats.rewritten++;
	return true;
}

static void
to_px4(void *user, const uint8_t *data, size_t len)
{
	struct px4_proxy *p = user;

	if (transport_link_send(&p->px4, data, len) == 0)
		p->sent_to_px4 = true;
}

static void
to_sim(void *user, const uint8_t *data, size_t len)
{
	struct px4_proxy *p = user;

	if (transport_link_send(&p->sim, data, len) == -ENOTCONN) {
		p->stats.px4_bytes_unsent += len;
		return;
	}
	/* Lockstep: the simulator answers with the next step. */
	event_loop_expect(p->env->loop, &p->spin_sim);
}

static void
on_sim_data(struct px4_proxy *p, const uint8_t *buf, size_t len)
{
	p->sent_to_px4 = false;
	mavlink_stream_feed(&p->from_sim, buf, len, rewrite, to_px4, p);
	/* This wake-up's frames to PX4 in one write. */
	transport_link_flush(&p->px4);
	/* Lockstep: PX4 answers a frame with its controls; the first half
	 * of one (TCP may split it) has no answer to wait for. */
	if (p->sent_to_px4)
		event_loop_expect(p->env->loop, &p->spin_px4);
}

static void
on_sim_connected(struct px4_proxy *p)
{
	p->sim_up = true;
	p->stats.sim_connects++;
	p->outage_logged = false;
	say(p, LOG_LEVEL_NOTICE, "simulator %s connected", p->upstream);
}

/* A connect failed or the connection ended; the link tries again
 * (px4-link.h) while PX4 is connected. */
static void
on_sim_closed(struct px4_proxy *p, int err)
{
	mavlink_stream_reset(&p->from_sim);
	if (p->sim_up) {
		p->stats.sim_disconnects++;
		say(p, LOG_LEVEL_WARNING,
		    "simulator %s disconnected (%s); reconnecting",
		    p->upstream, err ? strerror(-err) : "closed");
		p->outage_logged = true;
	} else if (!p->outage_logged) {
		say(p, LOG_LEVEL_WARNING,
		    "simulator %s: %s; retrying every %.1f s", p->upstream,
		    strerror(err ? -err : ECONNREFUSED), RETRY_US * 1e-6);
		p->outage_logged = true;
	}
	p->sim_up = false;
	/* A new simulator connection is a new simulation. */
	if (p->have_t0)
		restart(p, "simulator connection lost");
}

static void
on_sim(void *user, enum transport_rx what, const uint8_t *buf, size_t len)
{
	struct px4_proxy *p = user;

	switch (what) {
	case TRANSPORT_RX_DATA:
		on_sim_data(p, buf, len);
		break;
	case TRANSPORT_RX_UP:
		on_sim_connected(p);
		break;
	case TRANSPORT_RX_DOWN:
		on_sim_closed(p, p->sim.t.error);
		break;
	case TRANSPORT_RX_END:
	case TRANSPORT_RX_RESET:
		break;
	}
}

static void
connect_sim(struct px4_proxy *p)
{
	char err[256], name[32];

	p->retry_at_us = 0;
	mavlink_stream_reset(&p->from_sim);
	snprintf(name, sizeof(name), "px4-%u-simulator", p->instance);
	if (transport_link_open(&p->sim, &transport_tcp, p->env->loop, name,
				p->upstream, &px4_link_sim_side, PX4_TX_MAX,
				on_sim, p, err, sizeof(err)) < 0) {
		if (!p->outage_logged)
			say(p, LOG_LEVEL_WARNING, "simulator: %s; retrying", err);
		p->outage_logged = true;
		p->retry_at_us = event_now_us() + RETRY_US;
	}
}

static void
counted_only(void *user, const uint8_t *data, size_t len)
{
	(void)user;
	(void)data;
	(void)len;
}

/* PX4's motor outputs, for the ground effect's throttle; the frame is
 * read, never edited. */
static bool
read_controls(void *user, uint8_t *frame, size_t len, size_t hdr,
	      const struct mavlink_frame *f)
{
	struct px4_proxy *p = user;
	struct mavlink_hil_actuator_controls a;

	(void)frame, (void)len, (void)hdr;
	mavlink_unpack_hil_actuator_controls(f->payload, &a);
	/* A non-finite motor output keeps the last throttle. */
	(void)px4_actuator_throttle(a.controls, a.mode,
				    (uint16_t)p->env->cfg->px4.motor_mask,
				    &p->throttle);
	return false;
}

/* Nothing from PX4 is edited, so nothing waits for framing: the bytes
 * go on as they came (a stray start byte after PX4's last frame must
 * not sit in barod while PX4 waits for the answer), and are framed
 * only to be counted and to read the motor outputs. */
static void
on_px4_data(struct px4_proxy *p, const uint8_t *buf, size_t len)
{
	to_sim(p, buf, len);
	transport_link_flush(&p->sim);
	mavlink_stream_feed(&p->from_px4, buf, len, read_controls,
			    counted_only, p);
}

static void
on_px4_closed(struct px4_proxy *p, int err)
{
	p->stats.px4_disconnects++;
	if (err == -ECONNABORTED) {
		/* A restarted PX4 whose old socket had not been seen to
		 * close yet: the newest connection is the live one. */
		say(p, LOG_LEVEL_WARNING, "a new PX4 connection replaces the "
					  "old one");
	} else {
		say(p, LOG_LEVEL_WARNING,
		    "PX4 disconnected (%s); closing the simulator connection "
		    "and waiting for PX4", err ? strerror(-err) : "closed");
	}
	/* The simulator sees PX4 leave, as it would without barod. */
	transport_link_close(&p->sim);
	p->sim_up = false;
	p->retry_at_us = 0;
	mavlink_stream_reset(&p->from_px4);
	mavlink_stream_reset(&p->from_sim);
}

static void
on_px4_connected(struct px4_proxy *p)
{
	p->stats.px4_connects++;
	mavlink_stream_reset(&p->from_px4);
	say(p, LOG_LEVEL_NOTICE, "PX4 connected; connecting to the simulator "
				 "%s", p->upstream);
	if (p->have_t0)
		restart(p, "PX4 connected again");
	p->outage_logged = false;
	connect_sim(p);
}

static void
on_px4(void *user, enum transport_rx what, const uint8_t *buf, size_t len)
{
	struct px4_proxy *p = user;

	switch (what) {
	case TRANSPORT_RX_DATA:
		on_px4_data(p, buf, len);
		break;
	case TRANSPORT_RX_UP:
		on_px4_connected(p);
		break;
	case TRANSPORT_RX_DOWN:
		on_px4_closed(p, p->px4.t.error);
		break;
	case TRANSPORT_RX_END:
	case TRANSPORT_RX_RESET:
		break;
	}
}

static int
px4proxy_open(const struct source_env *env, void **state, char *err,
	      size_t errlen)
{
	const struct config_px4 *c = &env->cfg->px4;
	const char *colon = strrchr(c->upstream, ':');
	uint64_t up_port;

	if (!colon || colon == c->upstream ||
	    str_to_u64(colon + 1, &up_port) < 0 || up_port == 0 ||
	    up_port + c->instances - 1 > 65535)
		return str_errorf(err, errlen, -EINVAL,
				  "px4-sim-proxy: upstream '%s' is not "
				  "HOST:PORT with room for %u instances",
				  c->upstream, c->instances);
	if (env->cfg->atmosphere == BARO_SITL_ATMOS_WATER)
		return str_errorf(err, errlen, -EINVAL,
				  "px4-sim-proxy: atmosphere water has no "
				  "altitude for an air pressure; use simple "
				  "or 1976");
	struct px4_proxy_source *src = calloc(1, sizeof(*src));
	if (!src)
		return str_errorf(err, errlen, -ENOMEM, "out of memory");
	*state = src;
	src->proxies = calloc(c->instances, sizeof(*src->proxies));
	if (!src->proxies)
		return str_errorf(err, errlen, -ENOMEM, "out of memory");
	vehicles_setup(env, &src->fleet, c->instances);
	for (unsigned v = 0; v < c->instances; v++) {
		struct px4_proxy *p = &src->proxies[v];
		p->env = env;
		p->src = src;
		p->instance = v;
		p->port = c->port + v;
		transport_link_init(&p->px4);
		transport_link_init(&p->sim);
		snprintf(p->upstream, sizeof(p->upstream), "%.*s:%u",
			 (int)(colon - c->upstream), c->upstream,
			 (unsigned)up_port + v);
		mavlink_stream_init(&p->from_sim, MAVLINK_MSG_HIL_SENSOR);
		/* A simulator that dies mid-frame leaves PX4 no half of
		 * it; and a frame that finds PX4's backlog full is dropped
		 * whole. */
		p->from_sim.whole_frames = true;
		/* Nothing from PX4 is edited; framed to count, and to
		 * read HIL_ACTUATOR_CONTROLS. */
		mavlink_stream_init(&p->from_px4,
				    MAVLINK_MSG_HIL_ACTUATOR_CONTROLS);
		src->n++;
		char name[32], addr[160];
		snprintf(name, sizeof(name), "px4-%u", v);
		snprintf(addr, sizeof(addr), strchr(c->bind, ':') ? "[%s]:%u"
								  : "%s:%u",
			 c->bind, p->port);
		int rc = transport_link_open(&p->px4, &transport_tcp_server,
					     env->loop, name, addr,
					     &px4_link_px4_side, PX4_TX_MAX,
					     on_px4, p, err, errlen);
		if (rc < 0)
			return rc;
		say(p, LOG_LEVEL_INFO, "proxy: PX4 on %s:%u, simulator %s",
		    c->bind, p->port, p->upstream);
	}
	/* The emulator's home bounds its faults' altitudes; the pressure
	 * comes from the simulator, whose home should be the same. */
	log_msg(env->log, LOG_LEVEL_NOTICE,
		"PX4 proxy: home %.2f m AMSL (%s; PX4 modes: --home-alt, "
		"else PX4_HOME_ALT, else home_alt, else 488 as PX4's "
		"simulators)", env->cfg->home_alt_m,
		env->cfg->home_alt_from ? env->cfg->home_alt_from : "default");
	return 0;
}

static void
px4proxy_close(const struct source_env *env, void *state)
{
	struct px4_proxy_source *src = state;

	(void)env;
	if (!src)
		return;
	for (size_t v = 0; v < src->n; v++) {
		struct px4_proxy *p = &src->proxies[v];
		transport_link_close(&p->px4);
		transport_link_close(&p->sim);
	}
	free(src->proxies);
	free(src);
}

/* Every tick: reconnect a lost simulator (the link's retry, or a new
 * link when the address could not be used). */
static void
px4proxy_tick(const struct source_env *env, void *state, uint64_t ticks,
	      bool last)
{
	struct px4_proxy_source *src = state;
	const uint64_t wall_us = event_now_us();

	(void)env;
	(void)ticks;
	(void)last;
	for (size_t v = 0; v < src->n; v++) {
		struct px4_proxy *p = &src->proxies[v];
		if (!transport_link_connected(&p->px4))
			continue;
		if (transport_link_is_open(&p->sim))
			transport_link_flush(&p->sim);
		else if (p->retry_at_us && wall_us >= p->retry_at_us)
			connect_sim(p);
	}
}

static const struct px4_proxy_stats *
proxy_stats(const struct px4_proxy_source *src, unsigned v,
	    struct px4_proxy_stats *out)
{
	if (v >= src->n)
		return NULL;
	const struct px4_proxy *p = &src->proxies[v];
	*out = p->stats;
	out->physics_us = p->have_t0 ? p->last_us - p->t0_us : 0;
	out->frames_from_sim = p->from_sim.stats.frames;
	out->frames_from_px4 = p->from_px4.stats.frames;
	out->bad_crc = p->from_sim.stats.bad_crc;
	out->signed_passed = p->from_sim.stats.signed_passed;
	out->dropped_bytes = p->px4.stats.bytes_dropped +
			     p->sim.stats.bytes_dropped;
	out->lost_bytes = p->px4.stats.bytes_lost + p->sim.stats.bytes_lost +
			  p->from_sim.stats.discarded +
			  p->from_px4.stats.discarded;
	return out;
}

static void
px4proxy_status(const struct source_env *env, void *state, FILE *out)
{
	struct px4_proxy_source *src = state;

	(void)env;
	for (unsigned v = 0; v < src->n; v++) {
		struct px4_proxy_stats s;
		proxy_stats(src, v, &s);
		fprintf(out,
			"px4 %u physics %.3f s hil-sensor %" PRIu64
			" baro %" PRIu64 " rewritten %" PRIu64
			" baro-cleared %" PRIu64 " restarts %" PRIu64
			" px4-connects %" PRIu64 " simulator-connects %" PRIu64
			" bad-crc %" PRIu64 " dropped-bytes %" PRIu64 "\n",
			v, (double)s.physics_us * 1e-6, s.hil_sensor,
			s.baro_frames, s.rewritten, s.baro_cleared, s.restarts,
			s.px4_connects, s.sim_connects, s.bad_crc,
			s.dropped_bytes);
	}
	vehicles_status(&src->fleet, out);
}

static void
px4proxy_report(const struct source_env *env, void *state)
{
	struct px4_proxy_source *src = state;
	struct px4_proxy_stats s;

	for (unsigned v = 0; v < src->n; v++) {
		proxy_stats(src, v, &s);
		log_msg(env->log, LOG_LEVEL_INFO,
			"PX4 instance %u: HIL_SENSOR %" PRIu64 ", baro %" PRIu64
			", rewritten %" PRIu64 ", baro cleared %" PRIu64
			", other id %" PRIu64 ", bad CRC %" PRIu64
			", signed %" PRIu64 ", bad baro %" PRIu64
			", frames from simulator %" PRIu64 ", from PX4 %" PRIu64
			", restarts %" PRIu64 ", PX4 connects %" PRIu64
			", PX4 disconnects %" PRIu64 ", simulator connects %" PRIu64
			", simulator disconnects %" PRIu64
			", dropped bytes %" PRIu64 ", unsent PX4 bytes %" PRIu64
			", lost bytes %" PRIu64,
			v, s.hil_sensor, s.baro_frames, s.rewritten,
			s.baro_cleared, s.other_id, s.bad_crc, s.signed_passed,
			s.bad_baro, s.frames_from_sim, s.frames_from_px4,
			s.restarts, s.px4_connects, s.px4_disconnects,
			s.sim_connects, s.sim_disconnects, s.dropped_bytes,
			s.px4_bytes_unsent, s.lost_bytes);
	}
}

const struct source_ops source_px4_proxy = {
	.name = "px4-sim-proxy",
	.flags = SOURCE_EMULATED,
	.open = px4proxy_open,
	.close = px4proxy_close,
	.tick = px4proxy_tick,
	.status = px4proxy_status,
	.report = px4proxy_report,
	.describe = source_describe_emulated,
};
