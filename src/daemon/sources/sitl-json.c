/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The SITL JSON modes (--sitl-json, --sitl-json-proxy): each ArduPilot
 * instance is a vehicle with its own emulator stepped on that instance's
 * physics time.  Its samples are emitted (sysid + instance) like any
 * others, and go back into the JSON replies as rng_N and barod's own
 * fields.  The peer and the proxy differ only in the link's mode: one
 * file, two ops tables.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peer-wait.h"
#include "sitl-link.h"
#include "source.h"
#include "util-strings.h"
#include "vehicle.h"

struct sitl_source {
	const struct source_env *env;
	struct sitl_link links[CONFIG_MAX_SITL];
	size_t n_links;
	struct peer_wait waits[CONFIG_MAX_SITL];
	struct vehicles fleet;
	/* Each vehicle's latest published sample per baro, for the
	 * replies (kept from what env->emit published). */
	struct baro_sample latest[CONFIG_MAX_SITL][BARO_MAX_INSTANCES];
	bool have_latest[CONFIG_MAX_SITL][BARO_MAX_INSTANCES];
};

static unsigned
vehicle_of(const struct sitl_source *s, const struct sitl_link *l)
{
	return (unsigned)(l - s->links);
}

static bool
on_step(void *user, struct sitl_link *l, uint64_t now_us,
	const struct baro_sitl_truth *truth, struct sitl_baro_fields *f)
{
	struct sitl_source *s = user;
	const struct source_env *env = s->env;
	const unsigned v = vehicle_of(s, l);
	struct baro_sitl *sim = vehicle_sim(env, &s->fleet, v);
	struct baro_sample out[BARO_MAX_INSTANCES];

	/* Instance 0's physics clock starts at its first frame.  SITL's
	 * height above ground follows every physics step; the throttle is
	 * the servo packet's that asked for this step. */
	const struct vehicle_input in = {
		.now_us = now_us,
		.emulator_ms = (uint32_t)(now_us / 1000u),
		.truth = *truth,
		.throttle = l->throttle,
		.sitl_agl = true,
		.sitl_altitude_m = baro_sitl_state_altitude(l->truth.alt_cm),
	};
	bool published[BARO_MAX_INSTANCES];
	const unsigned n = vehicle_step(env, &s->fleet, v, &in, out,
					published);
	for (unsigned k = 0; k < n; k++) {
		if (!published[k] || out[k].instance >= BARO_MAX_INSTANCES)
			continue;
		s->latest[v][out[k].instance] = out[k];
		s->have_latest[v][out[k].instance] = true;
	}

	/* What goes into the reply: the latest published sample of each
	 * baro (they come at 100 Hz, physics frames faster). */
	const unsigned last_count = f->count;
	f->count = (unsigned)sim->params.baro_count;
	for (unsigned i = 0; i < f->count; i++) {
		const struct baro_sample *b = &s->latest[v][i];
		f->healthy[i] = s->have_latest[v][i] &&
				baro_sitl_healthy(sim, i);
		f->pressure_pa[i] = b->pressure_pa;
		f->temperature_c[i] = b->temperature_c;
		f->height_m[i] = baro_sample_has(b, BARO_SAMPLE_HAS_ALTITUDE)
					 ? b->alt_m - (float)env->cfg->home_alt_m
					 : 0.0f;
	}
	/* Only a new sample, or the instance count, changes the fields. */
	return n > 0 || f->count != last_count;
}

static void
on_restart(void *user, struct sitl_link *l)
{
	struct sitl_source *s = user;
	const unsigned v = vehicle_of(s, l);

	vehicle_restart(s->env, &s->fleet, v);
	memset(s->have_latest[v], 0, sizeof(s->have_latest[v]));
}

static void
on_log(void *user, struct sitl_link *l, int level, const char *text)
{
	struct sitl_source *s = user;

	(void)l;
	log_msg(s->env->log, (enum log_level)level, "%s", text);
}

/* "waiting for ArduPilot (servo packets on UDP HOST:PORT" for instance
 * v: the log line's and STATUS='s common part, so both say the same. */
static int
wait_text(const struct sitl_source *s, size_t v, char *buf, size_t len)
{
	const struct config_sitl *c = &s->env->cfg->sitl;

	return snprintf(buf, len,
			"waiting for ArduPilot (servo packets on UDP %s:%u",
			c->bind, c->port + 10u * (unsigned)v);
}

/* "Waiting for ArduPilot" until its first servo packet: at start, then
 * every 10 s (peer-wait.h). */
static void
say_waiting(struct sitl_source *s, size_t v, uint64_t now_us)
{
	const struct sitl_link *l = &s->links[v];
	char what[128];

	if (l->stats.servo_packets > 0) {
		peer_wait_seen(&s->waits[v]);
		return;
	}
	if (!peer_wait_due(&s->waits[v], now_us))
		return;
	wait_text(s, v, what, sizeof(what));
	log_msg(s->env->log, LOG_LEVEL_NOTICE,
		"SITL instance %zu: %s; ArduPilot's -I%zu --model "
		"JSON:ADDRESS-OF-BAROD)", v, what, v);
}

/* STATUS= while an instance has sent no servo packet yet: the first such
 * instance's wait, and how many more wait. */
static bool
sitl_waiting(const struct source_env *env, const void *state, char *buf,
	     size_t len)
{
	const struct sitl_source *s = state;
	size_t first = s->n_links, more = 0;

	(void)env;
	for (size_t v = 0; v < s->n_links; v++) {
		if (s->links[v].stats.servo_packets > 0)
			continue;
		if (first == s->n_links)
			first = v;
		else
			more++;
	}
	if (first == s->n_links)
		return false;
	int n = s->n_links > 1 ? snprintf(buf, len, "instance %zu ", first) : 0;
	if (n < 0 || (size_t)n >= len)
		return true;
	int m = wait_text(s, first, buf + n, len - (size_t)n);
	if (m < 0 || (size_t)(n + m) >= len)
		return true;
	if (more)
		snprintf(buf + n + m, len - (size_t)(n + m),
			 "; and %zu more instance%s)", more,
			 more == 1 ? "" : "s");
	else
		snprintf(buf + n + m, len - (size_t)(n + m), ")");
	return true;
}

static int
sitl_open(const struct source_env *env, void **state, enum sitl_mode mode,
	  char *err, size_t errlen)
{
	const struct config_sitl *c = &env->cfg->sitl;
	struct sitl_source *s = calloc(1, sizeof(*s));

	if (!s)
		return str_errorf(err, errlen, -ENOMEM, "out of memory");
	*state = s;
	s->env = env;
	vehicles_setup(env, &s->fleet, c->instances);
	for (unsigned v = 0; v < c->instances; v++) {
		struct sitl_link_config lc = {
			.mode = mode,
			.instance = v,
			.port = c->port + 10u * v,
			.home_alt_m = env->cfg->home_alt_m,
			.profile = env->cfg->profile,
			.trace = env->trace->n ? env->trace : NULL,
			.vehicle = (enum sitl_vehicle_kind)c->vehicle,
			.motor_mask = c->motor_mask,
		};
		snprintf(lc.bind_host, sizeof(lc.bind_host), "%s", c->bind);
		memcpy(lc.rng_instance, c->rng, sizeof(lc.rng_instance));
		if (lc.mode == SITL_PROXY) {
			/* Instance N's backend listens 10 N ports up. */
			const char *colon = strrchr(c->upstream, ':');
			unsigned port = (unsigned)atoi(colon + 1) + 10u * v;
			snprintf(lc.upstream, sizeof(lc.upstream), "%.*s:%u",
				 (int)(colon - c->upstream), c->upstream, port);
		}
		int rc = sitl_link_open(&s->links[v], &lc, env->loop, on_step,
					on_restart, on_log, s, err, errlen);
		if (rc < 0)
			return rc;
		s->n_links++;
		log_msg(env->log, LOG_LEVEL_INFO,
			"SITL instance %u: %s on %s:%u%s%s", v,
			lc.mode == SITL_PROXY ? "proxy" : "JSON physics peer",
			lc.bind_host, lc.port,
			lc.mode == SITL_PROXY ? ", upstream " : "",
			lc.mode == SITL_PROXY ? lc.upstream : "");
		say_waiting(s, v, event_now_us());
	}
	return 0;
}

static int
peer_open(const struct source_env *env, void **state, char *err,
	  size_t errlen)
{
	return sitl_open(env, state, SITL_PEER, err, errlen);
}

static int
proxy_open(const struct source_env *env, void **state, char *err,
	   size_t errlen)
{
	return sitl_open(env, state, SITL_PROXY, err, errlen);
}

static void
sitl_close(const struct source_env *env, void *state)
{
	struct sitl_source *s = state;

	(void)env;
	if (!s)
		return;
	for (size_t v = 0; v < s->n_links; v++)
		sitl_link_close(&s->links[v]);
	free(s);
}

/* Every tick, a link that went quiet is looked at: it warns at most
 * once a second, and a check only once a second let timer jitter push
 * every other warning a whole second late.  What barod waits for is
 * said once a second. */
static void
sitl_tick(const struct source_env *env, void *state, uint64_t ticks,
	  bool last)
{
	struct sitl_source *s = state;
	const uint64_t now = event_now_us();

	(void)env;
	(void)last;
	for (size_t v = 0; v < s->n_links; v++) {
		sitl_link_check(&s->links[v], now);
		if (ticks % 100 == 0)
			say_waiting(s, v, now);
	}
}

static void
sitl_status(const struct source_env *env, void *state, FILE *out)
{
	struct sitl_source *s = state;

	(void)env;
	for (size_t v = 0; v < s->n_links; v++) {
		const struct sitl_link_stats *st = &s->links[v].stats;
		fprintf(out,
			"sitl %zu physics %.3f s servo %" PRIu64 " frames %" PRIu64
			" resends %" PRIu64 " lost %" PRIu64 " restarts %" PRIu64
			" replies %" PRIu64 " bad-packets %" PRIu64
			" bad-lines %" PRIu64 "\n",
			v, (double)s->links[v].physics_us * 1e-6,
			st->servo_packets, st->frames, st->resends,
			st->lost_frames, st->restarts, st->replies,
			st->bad_packets, st->bad_lines);
	}
	vehicles_status(&s->fleet, out);
}

static void
sitl_report(const struct source_env *env, void *state)
{
	struct sitl_source *s = state;

	for (size_t v = 0; v < s->n_links; v++) {
		const struct sitl_link_stats *st = &s->links[v].stats;
		log_msg(env->log, LOG_LEVEL_INFO,
			"SITL instance %zu: servo packets %" PRIu64
			", frames %" PRIu64 ", resends %" PRIu64 ", lost %" PRIu64
			", restarts %" PRIu64 ", replies %" PRIu64
			", bad packets %" PRIu64 ", bad lines %" PRIu64,
			v, st->servo_packets, st->frames, st->resends,
			st->lost_frames, st->restarts, st->replies,
			st->bad_packets, st->bad_lines);
	}
}

const struct source_ops source_sitl_json = {
	.name = "sitl-json",
	.flags = SOURCE_EMULATED,
	.open = peer_open,
	.close = sitl_close,
	.tick = sitl_tick,
	.status = sitl_status,
	.report = sitl_report,
	.waiting = sitl_waiting,
	.describe = source_describe_emulated,
};

const struct source_ops source_sitl_proxy = {
	.name = "sitl-json-proxy",
	.flags = SOURCE_EMULATED,
	.open = proxy_open,
	.close = sitl_close,
	.tick = sitl_tick,
	.status = sitl_status,
	.report = sitl_report,
	.waiting = sitl_waiting,
	.describe = source_describe_emulated,
};
