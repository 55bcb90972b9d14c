/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Hardware mode: each [sensor NAME] is a chip on an i2c-dev bus (through
 * the sensors/ drivers) or an IIO device, read on a timerfd of its own at
 * the chip's period, or when its data-ready line rises.
 *
 * Timing: the timer is armed for one absolute time per read, on the
 * period's grid but never sooner than the chip's ready_us after the call
 * that started its conversion returned (so after the command went out).
 * A fixed-period timer cannot promise that: a pipelined chip (MS56xx)
 * gets its next command after the read, a little after the expiry, and
 * the next expiry comes one period after the previous one, not after the
 * command; a late wake-up followed by a prompt one shortens the wait
 * further.  Samples carry
 * CLOCK_MONOTONIC time (the edge's kernel timestamp with DRDY) and go
 * through the fault overlay, MAVLink and the record file like simulated
 * ones.
 *
 * Health: a sample is published only when the chip vouches for it, so
 * every published sample has BARO_SAMPLE_HEALTHY set; an unhealthy
 * instance publishes nothing.  SCALED_PRESSURE has no health field, and
 * a GCS or autopilot notices a silent instance by its age (ArduPilot's
 * own baro health is "updated recently"), whereas a stale or garbage
 * value sent with a flag nobody can see would be believed.
 *
 * Recovery: any failed read (I/O error, NACK, all-0x00/0xff, chip id
 * changed, settings lost, implausible values) closes the device and its
 * bus file and retries probe + init (calibration reloaded) after 10 ms,
 * doubling up to 500 ms, so a returning sensor is back within about half
 * a second plus one period.  With a power line, every fourth failed
 * attempt switches the sensor off for power_off_ms (100 ms unless
 * configured) first.  Each change of state is logged once; a failing
 * sensor adds one summary line every 10 s, never one per attempt.  Other
 * sensors have their own timers and are not affected.
 *
 * Data-ready: the chip is told to drive its pin (the driver's init, from
 * the [sensor] settings), and the line is requested for the edge that
 * starts the signal (falling for an active-low pin, with the pull-up an
 * open-drain pin needs).  A chip without a pin is a configuration error
 * at start-up, not something to retry.
 *
 * SIGHUP: a sensor whose section did not change keeps running untouched;
 * the others are closed and the new or changed ones opened as at
 * start-up.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "driver.h"
#include "gpio.h"
#include "iio.h"
#include "source.h"

#define BACKOFF_MIN_MS 10u
/* Bounds the time from a sensor's return to its first sample. */
#define BACKOFF_MAX_MS 500u
#define POWER_CYCLE_EVERY 4u
#define POWER_OFF_MS 100u	/* unless [sensor] power_off_ms says */
/* Long enough for every supported chip's power-on reset. */
#define POWER_SETTLE_MS 20u
#define SUMMARY_EVERY_US 10000000u

enum hw_state {
	HW_RUNNING,	/* reading on its timer (or data-ready edges) */
	HW_RETRY,	/* failed: the timer is the next attempt */
	HW_POWER_OFF,	/* power line low: the timer ends the off time */
};

/* One sensor. */
struct hw_sensor {
	const struct source_env *env;
	struct config_sensor cfg;	/* as opened; a reload that changes
					 * it reopens the sensor */
	enum hw_state state;
	struct baro_bus bus;		/* a file of its own, reopened on
					 * recovery */
	struct baro_dev dev;
	bool dev_open;
	struct baro_iio iio;
	struct baro_gpio drdy, power;
	struct event_source timer, edge;
	bool started;			/* forced mode: converting */
	uint32_t period_us;
	uint64_t due_us;		/* next read, CLOCK_MONOTONIC */
	uint64_t ready_at_us;		/* no read before: the last
					 * conversion's start + ready_us */
	uint32_t backoff_ms;
	unsigned attempts;		/* failed attempts since the fault */
	uint64_t down_since_us, last_summary_us;
	uint64_t errors, recoveries, power_cycles, not_ready;
	char what[320];			/* "BME280 /dev/i2c-1 0x77" */
	char last_err[256];
};

/* The source's state: the sensors, in the order of their sections. */
struct hw_source {
	struct hw_sensor hw[CONFIG_MAX_SENSORS];
	size_t n_hw;
};

/* Absolute CLOCK_MONOTONIC time, one expiry. */
static void
arm_at(struct hw_sensor *s, uint64_t at_us)
{
	struct itimerspec its = {
		.it_value = { (time_t)(at_us / 1000000u),
			      (long)(at_us % 1000000u) * 1000 },
	};

	/* A zero expiry would disarm the timer. */
	if (at_us == 0)
		its.it_value.tv_nsec = 1000;
	(void)timerfd_settime(s->timer.fd, TFD_TIMER_ABSTIME, &its, NULL);
}

/* One expiry, us from now (retries and power cycles). */
static void
arm(struct hw_sensor *s, uint64_t us)
{
	arm_at(s, event_now_us() + us);
}

/* A driver call started a conversion: no read before its ready time,
 * counted from now, after the call (and so the command) returned. */
static void
note_start(struct hw_sensor *s)
{
	if (!s->dev.started)
		return;
	s->dev.started = false;
	s->ready_at_us = event_now_us() + s->dev.ready_us;
}

/* The next read, interval after the last one's due time: late wake-ups
 * keep the grid and read once; never before the conversion is ready. */
static void
schedule(struct hw_sensor *s, uint64_t interval)
{
	const uint64_t now = event_now_us();

	s->due_us += interval;
	if (s->due_us <= now)
		s->due_us += ((now - s->due_us) / interval + 1) * interval;
	if (s->due_us < s->ready_at_us)
		s->due_us = s->ready_at_us;
	arm_at(s, s->due_us);
}

/* With a data-ready line the timer only reads when edges stop, so a
 * missed edge costs latency rather than the sensor. */
static uint64_t
interval(const struct hw_sensor *s)
{
	return s->drdy.fd >= 0 ? 2ull * s->period_us : s->period_us;
}

static bool
is_iio(const struct hw_sensor *s)
{
	return s->cfg.iio[0] != '\0';
}

/* Probe with the configured driver, or with every driver that can sit at
 * this address; the first that recognises the chip wins. */
static int
open_chip(struct hw_sensor *s, char *err, size_t errlen)
{
	const struct config_sensor *c = &s->cfg;
	int ret = -ENODEV;

	snprintf(err, errlen, "%s 0x%02x: no supported chip answers",
		 c->bus, c->address);
	for (size_t i = 0; baro_drivers[i] != NULL; i++) {
		const struct baro_driver *drv = baro_drivers[i];
		bool here = false;

		if (c->driver[0] && strcmp(c->driver, drv->name) != 0)
			continue;
		for (size_t a = 0; a < drv->n_addrs; a++)
			here |= drv->addrs[a] == c->address;
		if (!here && !c->driver[0])
			continue;
		s->dev.instance = (uint8_t)c->instance;
		ret = baro_dev_open(&s->dev, drv, &s->bus, c->address,
				    &c->settings, err, errlen);
		if (ret != -ENODEV)
			break;
	}
	return ret;
}

/* Bus, chip (probe, reset, calibration, settings) and the first
 * conversion; the sensor is RUNNING on success. */
static int
attach(struct hw_sensor *s, char *err, size_t errlen)
{
	int ret;

	if (is_iio(s)) {
		ret = baro_iio_open(&s->iio, s->cfg.iio, (uint8_t)s->cfg.instance,
				    s->cfg.settings.rate_hz, err, errlen);
		if (ret < 0)
			return ret;
		s->period_us = s->iio.period_us;
		snprintf(s->what, sizeof(s->what), "IIO %s %s", s->iio.name,
			 s->cfg.iio);
	} else {
		if (s->bus.fd < 0 &&
		    (ret = baro_bus_open(&s->bus, s->cfg.bus, err, errlen)) < 0)
			return ret;
		if ((ret = open_chip(s, err, errlen)) < 0) {
			baro_bus_close(&s->bus);
			return ret;
		}
		s->dev_open = true;
		s->period_us = s->dev.period_us;
		snprintf(s->what, sizeof(s->what), "%s %s 0x%02x",
			 baro_variant_name(s->dev.drv, s->dev.variant), s->cfg.bus,
			 s->cfg.address);
		s->started = false;
		s->ready_at_us = 0;
		note_start(s);
		if (s->dev.config.mode == BARO_MODE_FORCED) {
			ret = s->dev.drv->start(&s->dev, err, errlen);
			if (ret < 0)
				return ret;
			note_start(s);
			s->started = true;
		}
	}
	if (s->period_us == 0)
		s->period_us = 1000;
	s->state = HW_RUNNING;
	/* The first read one period from now, as a fixed timer had it. */
	s->due_us = event_now_us();
	schedule(s, s->period_us);
	return 0;
}

static void
detach(struct hw_sensor *s)
{
	if (is_iio(s))
		baro_iio_close(&s->iio);
	if (s->dev_open)
		baro_dev_close(&s->dev);
	s->dev_open = false;
	/* A fresh file on retry: a USB-I2C bridge that went away leaves
	 * the old one dead for good. */
	baro_bus_close(&s->bus);
}

static void
retry_in(struct hw_sensor *s, uint32_t ms)
{
	s->state = HW_RETRY;
	arm(s, (uint64_t)ms * 1000u);
}

static void
fail(struct hw_sensor *s, const char *why)
{
	const struct source_env *env = s->env;

	s->errors++;
	detach(s);
	snprintf(s->last_err, sizeof(s->last_err), "%s", why);
	s->down_since_us = s->last_summary_us = event_now_us();
	s->attempts = 0;
	s->backoff_ms = BACKOFF_MIN_MS;
	log_msg(env->log, LOG_LEVEL_WARNING,
		"sensor %s (instance %d) unhealthy: %s; retrying", s->cfg.name,
		s->cfg.instance, why);
	retry_in(s, s->backoff_ms);
}

static void
publish(struct hw_sensor *s, struct baro_sample *smp)
{
	/* time_boot_ms from CLOCK_MONOTONIC: time since the machine booted,
	 * which is what MAVLink defines it as. */
	const struct emit_ctx ctx = { .vehicle = 0, .now_us = smp->time_us };

	smp->instance = (uint8_t)s->cfg.instance;
	(void)s->env->emit(s->env->user, &ctx, smp);
}

static void
sample(struct hw_sensor *s, uint64_t now_us)
{
	struct baro_sample smp;
	char err[256];
	int ret;

	if (is_iio(s)) {
		ret = baro_iio_read(&s->iio, now_us, &smp, err, sizeof(err));
	} else {
		ret = s->dev.drv->read(&s->dev, now_us, &smp, err, sizeof(err));
		note_start(s);
		if (ret == -EAGAIN) {
			/* Not converted yet: the next expiry reads it. */
			s->not_ready++;
			return;
		}
		if (ret == 0 && s->dev.config.mode == BARO_MODE_FORCED) {
			ret = s->dev.drv->start(&s->dev, err, sizeof(err));
			note_start(s);
		}
	}
	if (ret < 0) {
		fail(s, err);
		return;
	}
	publish(s, &smp);
}

static void
attempt(struct hw_sensor *s)
{
	const struct source_env *env = s->env;
	const uint64_t now = event_now_us();
	char err[256];

	if (attach(s, err, sizeof(err)) == 0) {
		s->recoveries++;
		log_msg(env->log, LOG_LEVEL_NOTICE,
			"sensor %s (instance %d) recovered after %.1f s: %s",
			s->cfg.name, s->cfg.instance,
			(double)(now - s->down_since_us) * 1e-6, s->what);
		return;
	}
	detach(s);
	s->attempts++;
	snprintf(s->last_err, sizeof(s->last_err), "%s", err);
	log_msg(env->log, LOG_LEVEL_DEBUG, "sensor %s: attempt %u: %s",
		s->cfg.name, s->attempts, err);
	if (now - s->last_summary_us >= SUMMARY_EVERY_US) {
		s->last_summary_us = now;
		log_msg(env->log, LOG_LEVEL_WARNING,
			"sensor %s (instance %d) unhealthy for %.0f s, %u "
			"attempts; last: %s", s->cfg.name, s->cfg.instance,
			(double)(now - s->down_since_us) * 1e-6, s->attempts,
			err);
	}
	if (s->power.chip != NULL && s->attempts % POWER_CYCLE_EVERY == 0 &&
	    baro_gpio_set(&s->power, 0, err, sizeof(err)) == 0) {
		const unsigned off_ms = s->cfg.power_off_ms ? s->cfg.power_off_ms
							    : POWER_OFF_MS;

		s->power_cycles++;
		log_msg(env->log, LOG_LEVEL_INFO, "sensor %s: power cycle, "
			"%u ms off", s->cfg.name, off_ms);
		s->state = HW_POWER_OFF;
		arm(s, (uint64_t)off_ms * 1000u);
		return;
	}
	if (s->backoff_ms < BACKOFF_MAX_MS)
		s->backoff_ms = s->backoff_ms * 2 > BACKOFF_MAX_MS
					? BACKOFF_MAX_MS
					: s->backoff_ms * 2;
	retry_in(s, s->backoff_ms);
}

static void
on_timer(struct event_source *src, uint32_t events, void *user)
{
	struct hw_sensor *s = user;
	uint64_t expirations;
	char err[256];

	(void)events;
	if (read(src->fd, &expirations, sizeof(expirations)) !=
	    sizeof(expirations))
		return;
	switch (s->state) {
	case HW_RUNNING:
		/* Late wake-ups read once: a chip holds only its latest
		 * result. */
		sample(s, event_now_us());
		if (s->state == HW_RUNNING)
			schedule(s, interval(s));
		break;
	case HW_RETRY:
		attempt(s);
		break;
	case HW_POWER_OFF:
		if (baro_gpio_set(&s->power, 1, err, sizeof(err)) < 0)
			log_msg(s->env->log, LOG_LEVEL_WARNING, "sensor %s: %s",
				s->cfg.name, err);
		retry_in(s, POWER_SETTLE_MS);
		break;
	}
}

static void
on_edge(struct event_source *src, uint32_t events, void *user)
{
	struct hw_sensor *s = user;
	uint64_t ts_ns = 0;
	bool edge = false;
	char err[256];
	int ret;

	(void)src;
	(void)events;
	/* Several edges since the last wake-up still mean one result. */
	while ((ret = baro_gpio_read_edge(&s->drdy, &ts_ns, err,
					  sizeof(err))) == 0)
		edge = true;
	if (ret != -EAGAIN)
		log_msg(s->env->log, LOG_LEVEL_WARNING, "sensor %s: %s",
			s->cfg.name, err);
	if (!edge || s->state != HW_RUNNING)
		return;
	sample(s, ts_ns / 1000u);
	if (s->state == HW_RUNNING) {
		s->due_us = event_now_us();
		schedule(s, interval(s));
	}
}

static int
open_lines(struct hw_sensor *s, char *err, size_t errlen)
{
	char consumer[48];
	int ret;

	snprintf(consumer, sizeof(consumer), "barod %s", s->cfg.name);
	if (s->cfg.power[0]) {
		ret = baro_gpio_open_output(&s->power, s->cfg.power, consumer, 1,
					    err, errlen);
		if (ret < 0)
			return ret;
	}
	if (s->cfg.drdy[0]) {
		const struct baro_sensor_config *set = &s->cfg.settings;

		ret = baro_gpio_open_drdy(&s->drdy, s->cfg.drdy, consumer,
					  set->drdy == BARO_DRDY_ACTIVE_LOW,
					  set->drdy_open_drain, err, errlen);
		if (ret < 0)
			return ret;
		s->edge = (struct event_source){ .fd = s->drdy.fd,
						 .cb = on_edge, .user = s };
		ret = event_loop_add(s->env->loop, &s->edge, EPOLLIN);
		if (ret < 0) {
			snprintf(err, errlen, "%s: epoll: %s", s->cfg.drdy,
				 strerror(-ret));
			return ret;
		}
	}
	if (s->cfg.power[0] || s->cfg.drdy[0])
		log_msg(s->env->log, LOG_LEVEL_DEBUG, "sensor %s: GPIO through %s",
			s->cfg.name, baro_gpio_backend());
	return 0;
}

/* Timer, lines and a first attach for the sensor c into s, which counts
 * in hs->n_hw from the start so that close_sensor() undoes any part.
 * Errors are only what a retry cannot fix: a GPIO line that does not
 * exist, a data-ready pin the chip lacks. */
static int
open_sensor(const struct source_env *env, struct hw_source *hs,
	    struct hw_sensor *s, const struct config_sensor *c, char *err,
	    size_t errlen)
{
	char why[256];
	int ret;

	memset(s, 0, sizeof(*s));
	hs->n_hw++;
	s->env = env;
	s->cfg = *c;
	s->bus.fd = s->drdy.fd = s->power.fd = -1;
	s->iio.pressure_fd = s->iio.temp_fd = -1;
	s->timer.fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (s->timer.fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "timerfd: %s", strerror(-ret));
		return ret;
	}
	s->timer.cb = on_timer;
	s->timer.user = s;
	if ((ret = event_loop_add(env->loop, &s->timer, EPOLLIN)) < 0) {
		snprintf(err, errlen, "epoll: %s", strerror(-ret));
		return ret;
	}
	if ((ret = open_lines(s, why, sizeof(why))) < 0) {
		snprintf(err, errlen, "sensor %s: %s", s->cfg.name, why);
		return ret;
	}
	ret = attach(s, why, sizeof(why));
	if (ret == 0) {
		log_msg(env->log, LOG_LEVEL_INFO,
			"sensor %s: %s, instance %d, every %" PRIu32 " us%s",
			s->cfg.name, s->what, s->cfg.instance, s->period_us,
			s->drdy.fd >= 0 ? " or DRDY" : "");
	} else if (ret == -EOPNOTSUPP) {
		detach(s);
		snprintf(err, errlen, "sensor %s: %s", s->cfg.name, why);
		return ret;
	} else {
		/* Absent at start-up is one more fault to recover from: the
		 * chip may be powering up. */
		fail(s, why);
	}
	return 0;
}

static void
close_sensor(const struct source_env *env, struct hw_sensor *s)
{
	detach(s);
	if (s->drdy.fd >= 0)
		event_loop_remove(env->loop, &s->edge);
	baro_gpio_close(&s->drdy);
	baro_gpio_close(&s->power);
	if (s->timer.fd >= 0) {
		event_loop_remove(env->loop, &s->timer);
		close(s->timer.fd);
	}
	s->timer.fd = -1;
}

/* Open fails only for what a retry cannot fix (a GPIO line that does not
 * exist); a sensor that does not answer yet is retried like one that
 * failed. */
static int
hw_open(const struct source_env *env, void **state, char *err,
	size_t errlen)
{
	struct hw_source *hs = calloc(1, sizeof(*hs));

	if (!hs) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	*state = hs;
	for (size_t i = 0; i < env->cfg->n_sensors; i++) {
		int ret = open_sensor(env, hs, &hs->hw[hs->n_hw],
				      &env->cfg->sensors[i], err, errlen);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static void
hw_close(const struct source_env *env, void *state)
{
	struct hw_source *hs = state;

	if (!hs)
		return;
	for (size_t i = 0; i < hs->n_hw; i++)
		close_sensor(env, &hs->hw[i]);
	free(hs);
}

/* Moves a running sensor to another slot: the loop and the device hold
 * pointers into it. */
static void
move_sensor(const struct source_env *env, struct hw_sensor *dst,
	    struct hw_sensor *src)
{
	event_loop_remove(env->loop, &src->timer);
	if (src->drdy.fd >= 0)
		event_loop_remove(env->loop, &src->edge);
	*dst = *src;
	dst->timer.user = dst->edge.user = dst;
	dst->dev.bus = &dst->bus;
	(void)event_loop_add(env->loop, &dst->timer, EPOLLIN);
	if (dst->drdy.fd >= 0)
		(void)event_loop_add(env->loop, &dst->edge, EPOLLIN);
}

/* SIGHUP: sensors whose [sensor] section is unchanged in next keep
 * running untouched; the others are closed, and new or changed ones
 * opened as at start-up (one that cannot be is left out, logged). */
static void
hw_reload(const struct source_env *env, void *state,
	  const struct config *next)
{
	struct hw_source *hs = state;
	bool taken[CONFIG_MAX_SENSORS] = { false };
	size_t kept = 0, closed = 0, opened = 0;
	char err[320];

	for (size_t i = 0; i < hs->n_hw; i++) {
		struct hw_sensor *s = &hs->hw[i];
		bool keep = false, named = false;

		/* Whole sections compared: every config_sensor is zeroed
		 * before it is filled in, padding included. */
		for (size_t j = 0; j < next->n_sensors && !keep; j++) {
			named |= strcmp(next->sensors[j].name, s->cfg.name) == 0;
			if (!taken[j] &&
			    memcmp(&next->sensors[j], &s->cfg, sizeof(s->cfg)) == 0)
				keep = taken[j] = true;
		}
		if (keep) {
			if (kept != i)
				move_sensor(env, &hs->hw[kept], s);
			kept++;
			continue;
		}
		log_msg(env->log, LOG_LEVEL_NOTICE, "reload: sensor %s (instance "
			"%d) closed: section %s", s->cfg.name, s->cfg.instance,
			named ? "changed" : "removed");
		close_sensor(env, s);
		closed++;
	}
	hs->n_hw = kept;
	for (size_t j = 0; j < next->n_sensors; j++) {
		if (taken[j])
			continue;
		struct hw_sensor *s = &hs->hw[hs->n_hw];
		if (open_sensor(env, hs, s, &next->sensors[j], err,
				sizeof(err)) < 0) {
			/* The running sensors are not risked for it. */
			log_msg(env->log, LOG_LEVEL_ERR, "reload: %s; left out",
				err);
			close_sensor(env, s);
			hs->n_hw--;
			continue;
		}
		opened++;
	}
	log_msg(env->log, LOG_LEVEL_NOTICE, "reload: sensors: %zu kept, %zu "
		"closed, %zu opened", kept, closed, opened);
}

static const char *
state_name(enum hw_state st)
{
	return st == HW_RUNNING ? "healthy" : "unhealthy";
}

static void
hw_status(const struct source_env *env, void *state, FILE *out)
{
	struct hw_source *hs = state;

	for (size_t i = 0; i < hs->n_hw; i++) {
		const struct hw_sensor *s = &hs->hw[i];

		fprintf(out,
			"sensor %s instance %d %s %s samples %" PRIu64
			" errors %" PRIu64 " recoveries %" PRIu64
			" power-cycles %" PRIu64 "%s%s\n",
			s->cfg.name, s->cfg.instance, state_name(s->state),
			s->what[0] ? s->what : "(never seen)",
			env->samples[s->cfg.instance], s->errors, s->recoveries,
			s->power_cycles, s->state == HW_RUNNING ? "" : " last: ",
			s->state == HW_RUNNING ? "" : s->last_err);
	}
}

static void
hw_report(const struct source_env *env, void *state)
{
	struct hw_source *hs = state;

	for (size_t i = 0; i < hs->n_hw; i++) {
		const struct hw_sensor *s = &hs->hw[i];

		log_msg(env->log, LOG_LEVEL_INFO,
			"sensor %s: %s, samples %" PRIu64 ", errors %" PRIu64
			", recoveries %" PRIu64 ", power cycles %" PRIu64
			", not ready %" PRIu64, s->cfg.name,
			state_name(s->state), env->samples[s->cfg.instance],
			s->errors, s->recoveries, s->power_cycles,
			s->not_ready);
	}
}

static void
hw_health(const struct source_env *env, const void *state,
	  unsigned *sensors, unsigned *healthy)
{
	const struct hw_source *hs = state;

	(void)env;
	*sensors = (unsigned)hs->n_hw;
	*healthy = 0;
	for (size_t i = 0; i < hs->n_hw; i++)
		*healthy += hs->hw[i].state == HW_RUNNING;
}

static void
hw_describe(const struct source_env *env, const void *state, char *buf,
	    size_t len)
{
	const struct hw_source *hs = state;

	(void)env;
	snprintf(buf, len, "%zu hardware baro(s)", hs->n_hw);
}

/* The sensors read on timers of their own; the 10 ms tick only keeps
 * a scenario's clock, which in hardware mode is the time since start. */
static void
hw_tick(const struct source_env *env, void *state, uint64_t ticks,
	bool last)
{
	(void)state;
	(void)last;
	env->clock(env->user, ticks * TICK_MS);
}

const struct source_ops source_hardware = {
	.name = "hardware",
	.open = hw_open,
	.close = hw_close,
	.tick = hw_tick,
	.reload = hw_reload,
	.status = hw_status,
	.report = hw_report,
	.health = hw_health,
	.describe = hw_describe,
};
