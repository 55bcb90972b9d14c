/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The daemon's emit path, sinks and sources without a process: the real
 * daemon_emit(), daemon_tick(), daemon_flush() and restart path with fake
 * sinks that log what reaches them, the real MAVLink and record sinks on
 * real files and sockets, and a source that exists only here (its ops
 * table below is all it takes: the product's registry is not touched).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon.h"
#include "source.h"
#include "vehicle.h"
#include "test-util.h"
#include "util-strings.h"

/* ------------------------------------------------------------------ */
/* Fake sinks: every call is one event in one shared log. */

enum ev_kind { EV_SAMPLE, EV_HEARTBEAT, EV_MESSAGE, EV_FLUSH, EV_RESTART };

struct event {
	enum ev_kind kind;
	int sink;
	unsigned vehicle, instance;
	uint64_t now_us;
	float pressure_pa;
};

struct event_log {
	struct event ev[512];
	size_t n;
};

struct fake_sink {
	struct sink base;
	int id;
	struct event_log *log;
};

static void
log_event(struct sink *k, struct event e)
{
	struct fake_sink *f = (struct fake_sink *)k;

	e.sink = f->id;
	assert_true(f->log->n < sizeof(f->log->ev) / sizeof(f->log->ev[0]));
	f->log->ev[f->log->n++] = e;
}

static void
fake_sample(struct sink *k, const struct emit_ctx *ctx,
	    const struct baro_sample *s)
{
	log_event(k, (struct event){ .kind = EV_SAMPLE, .vehicle = ctx->vehicle,
				     .instance = s->instance,
				     .now_us = ctx->now_us,
				     .pressure_pa = s->pressure_pa });
}

static void
fake_heartbeat(struct sink *k, uint64_t now_us)
{
	log_event(k, (struct event){ .kind = EV_HEARTBEAT, .now_us = now_us });
}

static void
fake_message(struct sink *k, uint32_t msgid, const uint8_t *payload)
{
	(void)payload;
	log_event(k, (struct event){ .kind = EV_MESSAGE, .instance = msgid });
}

static void
fake_flush(struct sink *k)
{
	log_event(k, (struct event){ .kind = EV_FLUSH });
}

static void
fake_restart(struct sink *k, unsigned vehicle)
{
	log_event(k, (struct event){ .kind = EV_RESTART, .vehicle = vehicle });
}

static void
fake_close(struct sink *k)
{
	free(k);
}

static const struct sink_ops fake_ops = {
	.name = "fake",
	.sample = fake_sample,
	.heartbeat = fake_heartbeat,
	.message = fake_message,
	.flush = fake_flush,
	.restart = fake_restart,
	.close = fake_close,
};

static void
add_fake(struct daemon *d, int id, struct event_log *log)
{
	struct fake_sink *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->base = (struct sink){ .ops = &fake_ops, .env = &d->sinks.env };
	f->id = id;
	f->log = log;
	assert_int_equal(sinks_add(&d->sinks, &f->base), 0);
}

static size_t
count(const struct event_log *log, enum ev_kind kind, int sink)
{
	size_t n = 0;

	for (size_t i = 0; i < log->n; i++)
		n += log->ev[i].kind == kind && log->ev[i].sink == sink;
	return n;
}

/* ------------------------------------------------------------------ */
/* A test-only source: one sample of baro 0 per tick, pressure rising by
 * 1 Pa a tick, and the latest published sample kept from what the
 * daemon's env->emit returned (nothing writes it behind the source's
 * back). */

struct ramp {
	unsigned opened, ticks, flushes, closed_ticks;
	struct baro_sample latest;
	bool have_latest;
	uint64_t published;
};

static int
ramp_open(const struct source_env *env, void **state, char *err,
	  size_t errlen)
{
	struct ramp *r = calloc(1, sizeof(*r));

	(void)env;
	if (!r)
		return str_errorf(err, errlen, -ENOMEM, "out of memory");
	r->opened = 1;
	*state = r;
	return 0;
}

static void
ramp_close(const struct source_env *env, void *state)
{
	(void)env;
	free(state);
}

static void
ramp_tick(const struct source_env *env, void *state, uint64_t ticks,
	  bool last)
{
	struct ramp *r = state;
	const struct emit_ctx ctx = { .vehicle = 0,
				      .now_us = ticks * TICK_MS * 1000u };
	struct baro_sample s = {
		.time_us = ctx.now_us,
		.instance = 0,
		.pressure_pa = 100000.0f + (float)ticks,
		.temperature_c = 20.0f,
	};

	(void)last;
	r->ticks++;
	if (env->emit(env->user, &ctx, &s)) {
		r->latest = s;
		r->have_latest = true;
		r->published++;
	}
}

static void
ramp_flush(const struct source_env *env, void *state)
{
	struct ramp *r = state;

	(void)env;
	r->flushes++;
}

static void
ramp_health(const struct source_env *env, const void *state,
	    unsigned *sensors, unsigned *healthy)
{
	const struct ramp *r = state;

	(void)env;
	*sensors = 1;
	*healthy = r->have_latest;
}

static void
ramp_describe(const struct source_env *env, const void *state, char *buf,
	      size_t len)
{
	(void)env;
	(void)state;
	snprintf(buf, len, "1 ramp baro");
}

static const struct source_ops source_ramp = {
	.name = "ramp",
	.open = ramp_open,
	.close = ramp_close,
	.tick = ramp_tick,
	.flush = ramp_flush,
	.health = ramp_health,
	.describe = ramp_describe,
};

/* ------------------------------------------------------------------ */

static struct daemon d;

static int
setup(void **state)
{
	(void)state;
	memset(&d, 0, sizeof(d));
	log_init(&d.log, LOG_LEVEL_ERR);
	config_defaults(&d.cfg);
	d.cfg.source = CONFIG_SOURCE_SIM;
	config_resolve(&d.cfg);
	d.source = source_find(d.cfg.source);
	assert_int_equal(event_loop_init(&d.loop), 0);
	baro_sitl_init(&d.sim, &d.cfg.params, d.cfg.atmosphere, d.cfg.seed);
	fault_overlay_init(&d.overlay, d.cfg.seed);
	sinks_init(&d.sinks, &(struct sink_env){ .cfg = &d.cfg, .log = &d.log,
						 .loop = &d.loop });
	daemon_source_env(&d);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	sinks_close(&d.sinks);
	event_loop_fini(&d.loop);
	return 0;
}

static struct baro_sample
sample_at(unsigned instance, float pa)
{
	return (struct baro_sample){ .instance = (uint8_t)instance,
				     .pressure_pa = pa,
				     .temperature_c = 20.0f };
}

/* Vehicle 0's samples are counted and go through the overlay, which may
 * withhold them; vehicle 1's reach the sinks untouched. */
static void
test_counters_and_overlay(void **state)
{
	static struct event_log log;
	struct fault_spec slow = { .kind = FAULT_SLOW, .every = 2 };

	(void)state;
	log.n = 0;
	add_fake(&d, 1, &log);
	assert_int_equal(fault_overlay_set(&d.overlay, 0, slow), 0);

	unsigned published = 0;
	for (unsigned k = 0; k < 6; k++) {
		struct emit_ctx ctx = { .vehicle = 0, .now_us = k * 10000u };
		struct baro_sample s = sample_at(0, 100000.0f + (float)k);
		published += daemon_emit(&d, &ctx, &s);
		struct baro_sample s1 = sample_at(1, 90000.0f);
		assert_true(daemon_emit(&d, &ctx, &s1));
	}
	assert_int_equal(published, 3);
	assert_int_equal(d.samples[0], 6);
	assert_int_equal(d.withheld[0], 3);
	assert_int_equal(d.samples[1], 6);
	assert_int_equal(d.withheld[1], 0);
	assert_int_equal(count(&log, EV_SAMPLE, 1), 3 + 6);

	for (unsigned k = 0; k < 4; k++) {
		struct emit_ctx ctx = { .vehicle = 1, .now_us = k * 10000u };
		struct baro_sample s = sample_at(0, 95000.0f);
		assert_true(daemon_emit(&d, &ctx, &s));
	}
	assert_int_equal(d.samples[0], 6);
	assert_int_equal(count(&log, EV_SAMPLE, 1), 3 + 6 + 4);
	assert_int_equal(log.ev[log.n - 1].vehicle, 1);
	assert_int_equal(log.ev[log.n - 1].now_us, 30000u);
}

/* Each sample reaches every sink, in the set's order, with its context. */
static void
test_sink_order(void **state)
{
	static struct event_log log;

	(void)state;
	log.n = 0;
	add_fake(&d, 1, &log);
	add_fake(&d, 2, &log);

	struct emit_ctx ctx = { .vehicle = 3, .now_us = 123456u };
	struct baro_sample s = sample_at(2, 101325.0f);
	assert_true(daemon_emit(&d, &ctx, &s));
	daemon_announce(&d, MAV_SEVERITY_NOTICE, "hello");
	daemon_flush(&d);

	assert_int_equal(log.n, 6);
	const enum ev_kind kinds[] = { EV_SAMPLE, EV_MESSAGE, EV_FLUSH };
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(log.ev[2 * i].kind, kinds[i]);
		assert_int_equal(log.ev[2 * i].sink, 1);
		assert_int_equal(log.ev[2 * i + 1].kind, kinds[i]);
		assert_int_equal(log.ev[2 * i + 1].sink, 2);
	}
	assert_int_equal(log.ev[0].vehicle, 3);
	assert_int_equal(log.ev[0].instance, 2);
	assert_int_equal(log.ev[0].now_us, 123456u);
	assert_int_equal(log.ev[2].instance, MAVLINK_MSG_STATUSTEXT);
}

/* The test-only source through the loop: the timer's steps, heartbeats
 * first, the flush, STATUS= and the start-up description all through
 * its ops. */
static void
test_source_through_loop(void **state)
{
	static struct event_log log;
	char err[128], what[64];
	struct notify_counters nc;

	(void)state;
	log.n = 0;
	add_fake(&d, 1, &log);
	d.source = &source_ramp;
	assert_false(daemon_emulated(&d));
	assert_int_equal(d.source->open(&d.source_env, &d.source_state, err,
					sizeof(err)),
			 0);
	struct ramp *r = d.source_state;

	daemon_tick(&d, 5);
	daemon_flush(&d);
	assert_int_equal(r->ticks, 5);
	assert_int_equal(r->flushes, 1);
	assert_int_equal(count(&log, EV_HEARTBEAT, 1), 5);
	assert_int_equal(count(&log, EV_SAMPLE, 1), 5);
	assert_int_equal(count(&log, EV_FLUSH, 1), 1);
	/* Tick k: its heartbeat, then its sample, both at k * 10 ms. */
	for (unsigned k = 0; k < 5; k++) {
		assert_int_equal(log.ev[2 * k].kind, EV_HEARTBEAT);
		assert_int_equal(log.ev[2 * k].now_us, (k + 1) * 10000u);
		assert_int_equal(log.ev[2 * k + 1].kind, EV_SAMPLE);
		assert_int_equal(log.ev[2 * k + 1].now_us, (k + 1) * 10000u);
	}
	/* What the source kept is what the sinks got last. */
	assert_true(r->have_latest);
	assert_float_exact(r->latest.pressure_pa, log.ev[9].pressure_pa);
	assert_float_exact(r->latest.pressure_pa, 100005.0f);

	daemon_service_counters(&d, &nc);
	assert_int_equal(nc.published, 5);
	assert_int_equal(nc.sensors, 1);
	assert_int_equal(nc.healthy, 1);
	d.source->describe(&d.source_env, d.source_state, what, sizeof(what));
	assert_string_equal(what, "1 ramp baro");

	/* A long stall: at most 100 steps run, the rest are skipped. */
	daemon_tick(&d, 150);
	assert_int_equal(r->ticks, 105);
	assert_int_equal(d.skipped_ticks, 50);
	assert_int_equal(d.ticks, 155);

	d.source->close(&d.source_env, d.source_state);
	d.source_state = NULL;
}

static void
test_emulated_flag(void **state)
{
	(void)state;
	const enum config_source emulated[] = {
		CONFIG_SOURCE_SIM, CONFIG_SOURCE_SITL_JSON,
		CONFIG_SOURCE_SITL_PROXY, CONFIG_SOURCE_PX4_SIM,
		CONFIG_SOURCE_PX4_PROXY,
	};
	for (size_t i = 0; i < sizeof(emulated) / sizeof(emulated[0]); i++) {
		d.source = source_find(emulated[i]);
		assert_non_null(d.source);
		assert_string_equal(d.source->name,
				    config_source_name(emulated[i]));
		assert_true(daemon_emulated(&d));
	}
	d.source = source_find(CONFIG_SOURCE_HARDWARE);
	assert_non_null(d.source);
	assert_false(daemon_emulated(&d));
	assert_null(source_find(CONFIG_SOURCE_NONE));
}

/* A UDP socket on a free local port, and its port. */
static int
listener(unsigned *port)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

struct pressure_count {
	unsigned by_sysid[4];
};

static void
on_frame(const struct mavlink_frame *f, void *user)
{
	struct pressure_count *c = user;

	if (f->msgid == MAVLINK_MSG_SCALED_PRESSURE && f->sysid < 4)
		c->by_sysid[f->sysid]++;
}

static void
receive(int fd, struct pressure_count *c)
{
	uint8_t buf[2048];
	struct mavlink_parser p;
	ssize_t n;

	mavlink_parser_init(&p);
	while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		mavlink_parser_feed(&p, buf, (size_t)n, on_frame, c);
		mavlink_parser_flush(&p);
	}
}

static void
emit_at(unsigned vehicle, uint64_t now_us)
{
	struct emit_ctx ctx = { .vehicle = vehicle, .now_us = now_us };
	struct baro_sample s = sample_at(0, 101325.0f);

	assert_true(daemon_emit(&d, &ctx, &s));
}

/* The real MAVLink sink at 1 Hz: each vehicle (sysid + vehicle) keeps
 * its own cadence on its own clock, and the restart path starts the
 * restarted vehicle's cadence again at its time 0. */
static void
test_restart_resets_rate_schedule(void **state)
{
	struct config_output o;
	struct vehicles fleet;
	struct pressure_count c = { { 0 } };
	char spec[64], err[256];
	unsigned port;

	(void)state;
	int fd = listener(&port);
	snprintf(spec, sizeof(spec), "udp:127.0.0.1:%u", port);
	assert_int_equal(config_parse_output(spec, &o, err, sizeof(err)), 0);
	d.cfg.outputs[0] = o;
	d.cfg.n_outputs = 1;
	d.cfg.sysid = 1;
	d.cfg.rates.scaled_pressure_hz = 1.0;
	d.cfg.rates.hil_sensor_hz = 0.0;
	d.cfg.rates.heartbeat_hz = 0.0;
	assert_int_equal(sinks_open_outputs(&d.sinks, &d.cfg), 0);
	assert_int_equal(sinks_outputs(&d.sinks), 1);
	vehicles_setup(&d.source_env, &fleet, 2);

	emit_at(0, 0);		/* sent */
	emit_at(1, 0);		/* sent: vehicle 1's own cadence */
	emit_at(0, 500000);	/* not yet due */
	vehicle_restart(&d.source_env, &fleet, 0);
	emit_at(0, 100000);	/* due again: vehicle 0 restarted */
	emit_at(1, 100000);	/* not due: vehicle 1 did not */
	daemon_flush(&d);
	receive(fd, &c);
	assert_int_equal(c.by_sysid[1], 2);
	assert_int_equal(c.by_sysid[2], 1);

	uint64_t sent, dropped;
	sinks_frames(&d.sinks, &sent, &dropped);
	assert_int_equal(sent, 3);
	assert_int_equal(dropped, 0);
	close(fd);
}

/* The record sink: a header and one line per published sample, the file
 * in place only after stop. */
static void
test_record_sink(void **state)
{
	char dir[] = "/tmp/test-emit-XXXXXX", path[64], err[256], line[256];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/rec.csv", dir);
	struct sink *rec = sink_record_open(&d.sinks.env, path, err,
					    sizeof(err));
	assert_non_null(rec);
	assert_int_equal(sinks_add(&d.sinks, rec), 0);
	assert_int_equal(fault_overlay_set(&d.overlay, 0,
					   (struct fault_spec){ .kind = FAULT_SLOW, .every = 2 }),
			 0);
	for (unsigned k = 0; k < 4; k++)
		emit_at(1, k * 10000u);
	for (unsigned k = 0; k < 4; k++) {
		struct emit_ctx ctx = { .vehicle = 0, .now_us = k * 10000u };
		struct baro_sample s = sample_at(0, 100000.0f);
		(void)daemon_emit(&d, &ctx, &s);
	}
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(sinks_stop(&d.sinks), 0);

	FILE *f = fopen(path, "r");
	assert_non_null(f);
	unsigned lines = 0;
	while (fgets(line, sizeof(line), f))
		lines++;
	fclose(f);
	assert_int_equal(lines, 1 + 4 + 2);	/* header, vehicle 1, half */
	unlink(path);
	rmdir(dir);
}

/* SIGHUP: an unchanged output's sink goes on as it was (same sink, same
 * socket), a removed one is closed, a new one opened after the kept. */
static void
test_reload_keeps_unchanged_outputs(void **state)
{
	static struct event_log log;
	struct config next;
	char spec[64], err[256];
	unsigned port[3];
	int fd[3];

	(void)state;
	for (int i = 0; i < 3; i++) {
		fd[i] = listener(&port[i]);
		snprintf(spec, sizeof(spec), "udp:127.0.0.1:%u", port[i]);
		assert_int_equal(config_parse_output(spec, &d.cfg.outputs[i],
						     err, sizeof(err)), 0);
	}
	d.cfg.n_outputs = 2;
	assert_int_equal(sinks_open_outputs(&d.sinks, &d.cfg), 0);
	log.n = 0;
	add_fake(&d, 7, &log);
	struct sink *kept = d.sinks.list[1];

	next = d.cfg;
	next.outputs[0] = d.cfg.outputs[1];
	next.outputs[1] = d.cfg.outputs[2];
	sinks_reload(&d.sinks, &next);
	/* The fake sink has no reload op: closed like a removed output. */
	assert_int_equal(d.sinks.n, 2);
	assert_ptr_equal(d.sinks.list[0], kept);
	assert_true(d.sinks.list[1]->ops->is_output(d.sinks.list[1],
						   &next.outputs[1]));
	assert_int_equal(sinks_outputs(&d.sinks), 2);
	for (int i = 0; i < 3; i++)
		close(fd[i]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_counters_and_overlay,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_sink_order, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_source_through_loop, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_emulated_flag, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_restart_resets_rate_schedule, setup, teardown),
		cmocka_unit_test_setup_teardown(test_record_sink, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_reload_keeps_unchanged_outputs, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
