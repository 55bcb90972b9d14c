/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Sources against sources/source.h alone: no struct daemon, no
 * daemon.h.  A source that exists only here is opened with a hand-made
 * source_env, ticked, fed through the env's event loop and reloaded;
 * then the product's --sim source runs through the same kind of env and
 * its samples are compared, bit for bit, with the emulator fed the same
 * truth directly.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "source.h"
#include "test-util.h"

/* ------------------------------------------------------------------ */
/* What the environment's callbacks saw. */

#define MAX_SEEN 1024

struct seen {
	struct emit_ctx ctx;
	struct baro_sample s;
};

struct harness {
	struct config cfg;
	struct truth_trace trace;
	struct logger log;
	struct event_loop loop;
	struct baro_sitl sim;
	uint64_t samples[BARO_MAX_INSTANCES];
	struct source_env env;

	struct seen seen[MAX_SEEN];
	size_t n_seen;
	/* Instances whose samples the emit callback withholds (bit i). */
	unsigned withhold;
	uint64_t clock_ms[MAX_SEEN];
	size_t n_clock;
	unsigned restarts;
};

static bool
on_emit(void *user, const struct emit_ctx *ctx, struct baro_sample *s)
{
	struct harness *h = user;

	assert_true(h->n_seen < MAX_SEEN);
	h->seen[h->n_seen++] = (struct seen){ .ctx = *ctx, .s = *s };
	if (ctx->vehicle == 0 && s->instance < BARO_MAX_INSTANCES)
		h->samples[s->instance]++;
	/* A sample from the loop ends event_loop_run(). */
	h->loop.quit = true;
	return !(h->withhold & (1u << s->instance));
}

static void
on_clock(void *user, uint64_t now_ms)
{
	struct harness *h = user;

	assert_true(h->n_clock < MAX_SEEN);
	h->clock_ms[h->n_clock++] = now_ms;
}

static void
on_restart(void *user, unsigned vehicle)
{
	struct harness *h = user;

	(void)vehicle;
	h->restarts++;
}

static struct harness *
harness_new(int baro_count)
{
	struct harness *h = calloc(1, sizeof(*h));

	assert_non_null(h);
	log_init(&h->log, LOG_LEVEL_ERR);
	config_defaults(&h->cfg);
	h->cfg.source = CONFIG_SOURCE_SIM;
	h->cfg.params.baro_count = baro_count;
	config_resolve(&h->cfg);
	assert_int_equal(event_loop_init(&h->loop), 0);
	baro_sitl_init(&h->sim, &h->cfg.params, h->cfg.atmosphere,
		       h->cfg.seed);
	baro_sitl_set_ardupilot(&h->sim, h->cfg.ardupilot);
	h->env = (struct source_env){
		.cfg = &h->cfg,
		.trace = &h->trace,
		.log = &h->log,
		.loop = &h->loop,
		.sim = &h->sim,
		.samples = h->samples,
		.emit = on_emit,
		.clock = on_clock,
		.restart = on_restart,
		.user = h,
	};
	return h;
}

static void
harness_free(struct harness *h)
{
	event_loop_fini(&h->loop);
	free(h);
}

/* ------------------------------------------------------------------ */
/* A test-only source: each tick one sample per configured baro at the
 * tick's time, its pressure 100000 Pa + the configured home altitude
 * (read through env->cfg each time, so a reload shows); a byte on its
 * pipe (watched on env->loop) is one more sample of baro 0 at the
 * loop's time.  It keeps the latest sample env->emit published. */

struct tiny {
	const struct source_env *env;
	int pipe[2];
	struct event_source rx;
	uint64_t published, withheld;
	struct baro_sample latest;
};

static void
tiny_emit(struct tiny *t, const struct emit_ctx *ctx, struct baro_sample *s)
{
	if (t->env->emit(t->env->user, ctx, s)) {
		t->published++;
		t->latest = *s;
	} else {
		t->withheld++;
	}
}

static struct baro_sample
tiny_sample(const struct source_env *env, unsigned instance, uint64_t now_us)
{
	return (struct baro_sample){
		.time_us = now_us,
		.instance = (uint8_t)instance,
		.pressure_pa = 100000.0f + (float)env->cfg->home_alt_m,
		.temperature_c = 20.0f,
	};
}

static void
tiny_readable(struct event_source *src, uint32_t events, void *user)
{
	struct tiny *t = user;
	char byte;

	(void)events;
	if (read(src->fd, &byte, 1) != 1)
		return;
	const struct emit_ctx ctx = { .vehicle = 0, .now_us = event_now_us() };
	struct baro_sample s = tiny_sample(t->env, 0, ctx.now_us);
	tiny_emit(t, &ctx, &s);
}

static int
tiny_open(const struct source_env *env, void **state, char *err,
	  size_t errlen)
{
	struct tiny *t = calloc(1, sizeof(*t));

	if (!t) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	*state = t;
	t->env = env;
	t->pipe[0] = t->pipe[1] = -1;
	if (pipe(t->pipe) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -errno;
	}
	t->rx = (struct event_source){ .fd = t->pipe[0], .cb = tiny_readable,
				       .user = t };
	int rc = event_loop_add(env->loop, &t->rx, EPOLLIN);
	if (rc < 0) {
		snprintf(err, errlen, "epoll: %s", strerror(-rc));
		return rc;
	}
	log_msg(env->log, LOG_LEVEL_INFO, "tiny: open");
	return 0;
}

static void
tiny_close(const struct source_env *env, void *state)
{
	struct tiny *t = state;

	if (!t)
		return;
	if (t->pipe[0] >= 0) {
		event_loop_remove(env->loop, &t->rx);
		close(t->pipe[0]);
		close(t->pipe[1]);
	}
	free(t);
}

static void
tiny_tick(const struct source_env *env, void *state, uint64_t ticks, bool last)
{
	struct tiny *t = state;
	const struct emit_ctx ctx = { .vehicle = 0,
				      .now_us = ticks * TICK_MS * 1000u };

	(void)last;
	for (int i = 0; i < env->cfg->params.baro_count; i++) {
		struct baro_sample s = tiny_sample(env, (unsigned)i, ctx.now_us);
		tiny_emit(t, &ctx, &s);
	}
}

static void
tiny_status(const struct source_env *env, void *state, FILE *out)
{
	const struct tiny *t = state;

	fprintf(out, "tiny published %llu withheld %llu made %llu\n",
		(unsigned long long)t->published,
		(unsigned long long)t->withheld,
		(unsigned long long)env->samples[0]);
}

static const struct source_ops source_tiny = {
	.name = "tiny",
	.open = tiny_open,
	.close = tiny_close,
	.tick = tiny_tick,
	.status = tiny_status,
};

/* ------------------------------------------------------------------ */

/* Ticks reach the emit callback with the tick's time and each baro's
 * instance; what the callback withholds the source sees as withheld. */
static void
test_tiny_ticks(void **state)
{
	struct harness *h = harness_new(2);
	void *st = NULL;
	char err[128];

	(void)state;
	h->withhold = 1u << 1;
	assert_int_equal(source_tiny.open(&h->env, &st, err, sizeof(err)), 0);
	for (uint64_t k = 1; k <= 3; k++)
		source_tiny.tick(&h->env, st, k, k == 3);

	assert_int_equal(h->n_seen, 6);
	for (size_t i = 0; i < h->n_seen; i++) {
		const struct seen *e = &h->seen[i];
		const uint64_t k = 1 + i / 2;
		assert_int_equal(e->ctx.vehicle, 0);
		assert_int_equal(e->ctx.now_us, k * TICK_MS * 1000u);
		assert_int_equal(e->s.time_us, k * TICK_MS * 1000u);
		assert_int_equal(e->s.instance, i % 2);
		assert_float_exact(e->s.pressure_pa,
				   100000.0f + (float)h->cfg.home_alt_m);
	}
	const struct tiny *t = st;
	assert_int_equal(t->published, 3);
	assert_int_equal(t->withheld, 3);
	assert_int_equal(t->latest.instance, 0);
	assert_int_equal(t->latest.time_us, 30000u);

	/* What the env counts is what status reports. */
	char buf[128] = "";
	FILE *out = fmemopen(buf, sizeof(buf), "w");
	assert_non_null(out);
	source_tiny.status(&h->env, st, out);
	fclose(out);
	assert_string_equal(buf, "tiny published 3 withheld 3 made 3\n");

	source_tiny.close(&h->env, st);
	harness_free(h);
}

/* The fd the source watches on env->loop: a byte in, one sample out
 * through the same emit callback, at the loop's clock. */
static void
test_tiny_loop(void **state)
{
	struct harness *h = harness_new(1);
	void *st = NULL;
	char err[128];

	(void)state;
	assert_int_equal(source_tiny.open(&h->env, &st, err, sizeof(err)), 0);
	const struct tiny *t = st;
	const uint64_t before = event_now_us();
	assert_int_equal(write(t->pipe[1], "x", 1), 1);
	assert_int_equal(event_loop_run(&h->loop), 0);
	const uint64_t after = event_now_us();

	assert_int_equal(h->n_seen, 1);
	assert_int_equal(h->seen[0].ctx.vehicle, 0);
	assert_int_equal(h->seen[0].s.instance, 0);
	assert_true(h->seen[0].ctx.now_us >= before);
	assert_true(h->seen[0].ctx.now_us <= after);
	assert_int_equal(t->published, 1);
	source_tiny.close(&h->env, st);
	harness_free(h);
}

/* A reload replaces the configuration in place: the next tick reads the
 * new values through the same env, without the source being told. */
static void
test_tiny_reload_in_place(void **state)
{
	struct harness *h = harness_new(1);
	void *st = NULL;
	char err[128];

	(void)state;
	assert_int_equal(source_tiny.open(&h->env, &st, err, sizeof(err)), 0);
	source_tiny.tick(&h->env, st, 1, true);
	const double home0 = h->cfg.home_alt_m;
	struct config next = h->cfg;
	next.home_alt_m = 1234.0;
	next.params.baro_count = 3;
	h->cfg = next;		/* what the daemon's reload does */
	source_tiny.tick(&h->env, st, 2, true);

	assert_int_equal(h->n_seen, 1 + 3);
	assert_float_exact(h->seen[0].s.pressure_pa,
			   100000.0f + (float)home0);
	for (size_t i = 1; i < h->n_seen; i++) {
		assert_float_exact(h->seen[i].s.pressure_pa, 101234.0f);
		assert_int_equal(h->seen[i].s.instance, i - 1);
	}
	source_tiny.close(&h->env, st);
	harness_free(h);
}

/* The product's --sim source outside the daemon: the same env, and each
 * sample exactly what the emulator makes of the profile's truth at that
 * tick (SITL's truth: the altitude in whole centimetres, the height
 * above the first altitude above 0, the profile's throttle), through a
 * takeoff: motors off, spooling on the ground, the climb. */
static void
test_sim_through_env(void **state)
{
	struct harness *h = harness_new(2);
	const struct source_ops *sim = source_find(CONFIG_SOURCE_SIM);
	void *st = NULL;
	char err[128];
	enum { TICKS = 400 };

	(void)state;
	assert_int_equal(truth_profile_parse("takeoff:3:2:1:0.6",
					     &h->cfg.profile, err, sizeof(err)),
			 0);
	/* Ground effect on baro 0 (it reads the throttle and the height
	 * above ground: master's model), noise on baro 1 (it reads the
	 * seed). */
	h->cfg.params.baro[0].geff_m = 0.5f;
	h->cfg.params.baro[1].rnd = 0.2f;
	h->cfg.ardupilot = BARO_SITL_AP_MASTER;	/* the one with GEFF_M */
	baro_sitl_init(&h->sim, &h->cfg.params, h->cfg.atmosphere,
		       h->cfg.seed);
	baro_sitl_set_ardupilot(&h->sim, h->cfg.ardupilot);
	assert_non_null(sim);
	assert_true(sim->flags & SOURCE_EMULATED);
	assert_int_equal(sim->open(&h->env, &st, err, sizeof(err)), 0);
	for (uint64_t k = 1; k <= TICKS; k++)
		sim->tick(&h->env, st, k, true);

	/* The reference: a second emulator, same seed, fed directly. */
	struct baro_sitl ref;
	struct baro_sitl_agl agl;
	size_t i = 0;
	unsigned moved = 0;
	baro_sitl_init(&ref, &h->cfg.params, h->cfg.atmosphere, h->cfg.seed);
	baro_sitl_set_ardupilot(&ref, h->cfg.ardupilot);
	baro_sitl_agl_init(&agl);
	for (uint64_t k = 1; k <= TICKS; k++) {
		const double t = (double)k * TICK_MS * 1e-3;
		const uint64_t now_us = k * TICK_MS * 1000u;
		struct baro_sitl_truth truth = {
			.throttle = (float)truth_profile_throttle(
				&h->cfg.profile, t),
		};
		int32_t cm = 0;
		assert_int_equal(baro_sitl_altitude_cm(
					 h->cfg.home_alt_m,
					 truth_profile_height(&h->cfg.profile, t),
					 &cm),
				 0);
		truth.alt_amsl_m = baro_sitl_alt_from_cm(cm);
		truth.height_agl_m =
			baro_sitl_agl_update(&agl, baro_sitl_state_altitude(cm));
		struct baro_sample out[BARO_MAX_INSTANCES];
		unsigned n = baro_sitl_update(&ref, (uint32_t)(now_us / 1000u),
					      &truth, out);
		/* The clock moved to this tick before its samples. */
		assert_int_equal(h->clock_ms[k - 1], now_us / 1000u);
		for (unsigned j = 0; j < n; j++, i++) {
			assert_true(i < h->n_seen);
			const struct seen *e = &h->seen[i];
			assert_int_equal(e->ctx.vehicle, 0);
			assert_int_equal(e->ctx.now_us, now_us);
			assert_int_equal(e->s.time_us, now_us);
			assert_int_equal(e->s.instance, out[j].instance);
			assert_float_exact(e->s.pressure_pa, out[j].pressure_pa);
			assert_float_exact(e->s.temperature_c,
					   out[j].temperature_c);
			moved += e->s.pressure_pa != h->seen[0].s.pressure_pa;
		}
	}
	assert_int_equal(i, h->n_seen);
	assert_int_equal(h->n_clock, TICKS);
	/* Both baros, every 10 ms (the emulator's period). */
	assert_int_equal(h->samples[0], TICKS);
	assert_int_equal(h->samples[1], TICKS);
	assert_true(moved > 0);	/* the comparison saw more than one value */
	assert_int_equal(h->restarts, 0);

	char what[160];
	sim->describe(&h->env, st, what, sizeof(what));
	assert_non_null(strstr(what, "2 simulated baro(s)"));
	sim->close(&h->env, st);
	harness_free(h);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tiny_ticks),
		cmocka_unit_test(test_tiny_loop),
		cmocka_unit_test(test_tiny_reload_in_place),
		cmocka_unit_test(test_sim_through_env),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
