/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * barod: the barometer daemon.  One thread, one epoll loop over a 100 Hz
 * timerfd, a signalfd and the output sockets.  Each tick runs the source
 * (today the AP_Baro_SITL emulator), publishes every produced sample to
 * every output as MAVLink (or counts it as dropped), records it if asked,
 * and answers the GCS's parameter requests.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "atmosphere.h"
#include "baro-sitl.h"
#include "config.h"
#include "control.h"
#include "event-loop.h"
#include "faults.h"
#include "log.h"
#include "mavlink.h"
#include "output.h"
#include "param-service.h"
#include "sample-csv.h"
#include "scenario.h"
#include "util-strings.h"

#define EXIT_CONFIG 2
#define TICK_MS 10u

/* Command-line settings, kept so SIGHUP can lay them over the re-read file. */
struct cli {
	const char *config_path;
	bool config_required;
	bool sim;
	const char *profile;
	const char *home_alt;
	const char *atmosphere;
	const char *seed;
	const char *sysid, *compid;
	const char *record;
	const char *control;
	const char *scenario;
	const char *params[64];
	size_t n_params;
	struct config_output outputs[CONFIG_MAX_OUTPUTS];
	size_t n_outputs;
	bool check_config;
	double duration_s;
	int verbosity;
};

struct daemon {
	struct cli cli;
	struct config cfg;
	struct logger log;
	struct event_loop loop;
	struct baro_sitl sim;
	struct param_service ps;

	struct output outputs[CONFIG_MAX_OUTPUTS];
	size_t n_outputs;

	struct control control;
	bool have_control;
	struct event_source timer, signals;
	uint64_t ticks;		/* timer expirations since start */
	uint64_t end_ticks;	/* 0 = run until signalled */

	struct fault_overlay overlay;
	/* The running scenario, if any (both about 90 KB: heap). */
	struct scenario *scenario;
	struct scenario_run *run;
	char scenario_name[256];
	uint64_t scenario_start_ms;

	FILE *record;
	uint64_t samples[BARO_MAX_INSTANCES];
	uint64_t withheld[BARO_MAX_INSTANCES];	/* by the fault overlay */
	uint64_t skipped_ticks;
	uint64_t record_errors;
	uint64_t last_flush_tick;
};

/* ------------------------------------------------------------------ */
/* Configuration */

static int
apply_cli(const struct cli *cli, struct config *c, char *err, size_t errlen)
{
	char msg[256];

	if (cli->sim)
		c->source = CONFIG_SOURCE_SIM;
	if (cli->profile &&
	    truth_profile_parse(cli->profile, &c->profile, msg, sizeof(msg)) < 0) {
		snprintf(err, errlen, "--profile: %s", msg);
		return -EINVAL;
	}
	if (cli->home_alt) {
		if (str_to_double(cli->home_alt, &c->home_alt_m) < 0 ||
		    !(fabs(c->home_alt_m) <= 2.1e7)) {
			snprintf(err, errlen, "--home-alt: '%s' is not metres",
				 cli->home_alt);
			return -EINVAL;
		}
	}
	if (cli->atmosphere &&
	    config_parse_atmosphere(cli->atmosphere, &c->atmosphere) < 0) {
		snprintf(err, errlen,
			 "--atmosphere: '%s' is not simple, 1976 or water",
			 cli->atmosphere);
		return -EINVAL;
	}
	struct {
		const char *text, *opt;
		uint64_t lo, hi;
		uint64_t v;
	} nums[] = {
		{ cli->seed, "--seed", 0, UINT32_MAX, 0 },
		{ cli->sysid, "--sysid", 1, 255, 0 },
		{ cli->compid, "--compid", 1, 255, 0 },
	};
	for (size_t i = 0; i < 3; i++) {
		if (!nums[i].text)
			continue;
		if (str_to_u64(nums[i].text, &nums[i].v) < 0 ||
		    nums[i].v < nums[i].lo || nums[i].v > nums[i].hi) {
			snprintf(err, errlen, "%s: '%s' is not in %" PRIu64
					      "..%" PRIu64, nums[i].opt,
				 nums[i].text, nums[i].lo, nums[i].hi);
			return -EINVAL;
		}
	}
	if (cli->seed)
		c->seed = (uint32_t)nums[0].v;
	if (cli->sysid)
		c->sysid = (uint8_t)nums[1].v;
	if (cli->compid)
		c->compid = (uint8_t)nums[2].v;
	for (size_t i = 0; i < cli->n_params; i++) {
		if (sim_param_assign(&c->params, cli->params[i], msg,
				     sizeof(msg)) < 0) {
			snprintf(err, errlen, "-p: %s", msg);
			return -EINVAL;
		}
	}
	if (cli->n_outputs) {
		memcpy(c->outputs, cli->outputs, sizeof(cli->outputs));
		c->n_outputs = cli->n_outputs;
	}
	if (cli->record)
		snprintf(c->record_path, sizeof(c->record_path), "%s",
			 cli->record);
	if (cli->control)
		snprintf(c->control_path, sizeof(c->control_path), "%s",
			 cli->control);
	/* The ground-station convention: QGroundControl, MAVProxy and
	 * mavlink-router listen on 14550 with no setup. */
	if (c->n_outputs == 0) {
		struct config_output *o = &c->outputs[c->n_outputs++];
		memset(o, 0, sizeof(*o));
		strcpy(o->name, "gcs");
		o->type = OUTPUT_UDP_CLIENT;
		strcpy(o->address, "127.0.0.1:14550");
		o->rates = (struct config_rates){ RATE_UNSET, RATE_UNSET,
						  RATE_UNSET };
	}
	return config_validate(c, err, errlen);
}

static int
load_config(const struct cli *cli, struct config *c, char *err, size_t errlen)
{
	config_defaults(c);
	const char *path = cli->config_path ? cli->config_path
					    : CONFIG_DEFAULT_PATH;
	if (cli->config_required || access(path, F_OK) == 0) {
		int rc = config_load_file(c, path, err, errlen);
		if (rc < 0)
			return rc;
	}
	return apply_cli(cli, c, err, errlen);
}

/* ------------------------------------------------------------------ */
/* Publishing */

static double
rate_of(double output_rate, double global_rate)
{
	return output_rate == RATE_UNSET ? global_rate : output_rate;
}

static void
send_payload(struct daemon *d, struct output *o, uint32_t msgid,
	     const uint8_t *payload)
{
	uint8_t frame[MAVLINK_MAX_FRAME];
	int n = mavlink_frame_encode(frame, d->cfg.mavlink_version, o->seq,
				     d->cfg.sysid, d->cfg.compid, msgid,
				     payload);

	if (n < 0) {
		/* v1 cannot carry ids above 255: count, do not crash. */
		o->stats.frames_dropped++;
		return;
	}
	o->seq++;
	(void)output_send(o, frame, (size_t)n);
}

/* Whatever the events queued leaves now, one datagram per output. */
static void
flush_outputs(void *user)
{
	struct daemon *d = user;

	for (size_t i = 0; i < d->n_outputs; i++)
		output_flush(&d->outputs[i]);
}

static void
send_all(struct daemon *d, uint32_t msgid, const uint8_t *payload)
{
	for (size_t i = 0; i < d->n_outputs; i++)
		send_payload(d, &d->outputs[i], msgid, payload);
}

/* Is a message due at now_us for a rate, given its next slot? */
static bool
due(double hz, uint64_t now_us, uint64_t *next_us)
{
	if (hz == RATE_EVERY_SAMPLE)
		return true;
	if (!(hz > 0.0) || now_us < *next_us)
		return false;
	uint64_t period = (uint64_t)(1e6 / hz);
	/* Keep the cadence from the first message on; after a gap (a rate
	 * change, a stall) restart it from now rather than bursting. */
	*next_us = (*next_us != 0 && *next_us + period > now_us)
			   ? *next_us + period
			   : now_us + period;
	return true;
}

static const uint32_t pressure_msgid[BARO_MAX_INSTANCES] = {
	MAVLINK_MSG_SCALED_PRESSURE,
	MAVLINK_MSG_SCALED_PRESSURE2,
	MAVLINK_MSG_SCALED_PRESSURE3,
};

static int16_t
cdeg(float t_c)
{
	float v = t_c * 100.0f;

	/* C truncation as ArduPilot, clamped to stay defined. */
	if (!(v > -32768.0f))
		return INT16_MIN;
	if (v > 32767.0f)
		return INT16_MAX;
	return (int16_t)v;
}

static void
publish_sample(struct daemon *d, const struct baro_sample *s, uint64_t now_us)
{
	uint8_t sp[MAVLINK_MAX_PAYLOAD] = { 0 };
	uint8_t hil[MAVLINK_MAX_PAYLOAD] = { 0 };
	const unsigned i = s->instance;

	struct mavlink_scaled_pressure m = {
		.time_boot_ms = (uint32_t)(now_us / 1000u),
		.press_abs = s->pressure_pa * 0.01f,
		.temperature = cdeg(s->temperature_c),
	};
	mavlink_pack_scaled_pressure(&m, sp);

	float alt = NAN;
	(void)atmos_1976_altitude(s->pressure_pa, &alt);
	struct mavlink_hil_sensor h = {
		.time_usec = now_us,
		.abs_pressure = s->pressure_pa * 0.01f,
		.pressure_alt = alt,
		.temperature = s->temperature_c,
		.fields_updated = HIL_SENSOR_ABS_PRESSURE |
				  HIL_SENSOR_PRESSURE_ALT |
				  HIL_SENSOR_TEMPERATURE,
		.id = (uint8_t)i,
	};
	mavlink_pack_hil_sensor(&h, hil);

	for (size_t k = 0; k < d->n_outputs; k++) {
		struct output *o = &d->outputs[k];
		const struct config_rates *r = &o->cfg.rates;
		if (due(rate_of(r->scaled_pressure_hz,
				d->cfg.rates.scaled_pressure_hz),
			now_us, &o->next_pressure_us[i]))
			send_payload(d, o, pressure_msgid[i], sp);
		if (due(rate_of(r->hil_sensor_hz, d->cfg.rates.hil_sensor_hz),
			now_us, &o->next_hil_us[i]))
			send_payload(d, o, MAVLINK_MSG_HIL_SENSOR, hil);
	}
}

static void
publish_heartbeat(struct daemon *d, uint64_t now_us)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
	struct mavlink_heartbeat hb = {
		.type = MAV_TYPE_ONBOARD_CONTROLLER,
		.autopilot = MAV_AUTOPILOT_INVALID,
		.system_status = MAV_STATE_ACTIVE,
		.mavlink_version = 3,
	};

	mavlink_pack_heartbeat(&hb, pl);
	for (size_t k = 0; k < d->n_outputs; k++) {
		struct output *o = &d->outputs[k];
		if (due(rate_of(o->cfg.rates.heartbeat_hz,
				d->cfg.rates.heartbeat_hz),
			now_us, &o->next_heartbeat_us))
			send_payload(d, o, MAVLINK_MSG_HEARTBEAT, pl);
	}
}

static void
record_sample(struct daemon *d, const struct baro_sample *s)
{
	if (d->record && sample_csv_write(d->record, s) < 0)
		d->record_errors++;
}

static void
log_progress(struct daemon *d)
{
	uint64_t sent = 0, dropped = 0;

	for (size_t i = 0; i < d->n_outputs; i++) {
		sent += d->outputs[i].stats.frames_sent;
		dropped += d->outputs[i].stats.frames_dropped;
	}
	log_msg(&d->log, LOG_LEVEL_INFO,
		"t=%" PRIu64 " s: samples %" PRIu64 "/%" PRIu64 "/%" PRIu64
		", frames sent %" PRIu64 ", dropped %" PRIu64,
		d->ticks * TICK_MS / 1000u, d->samples[0], d->samples[1],
		d->samples[2], sent, dropped);
}

/* ------------------------------------------------------------------ */
/* Events */

/* ------------------------------------------------------------------ */
/* Faults: scenarios and one-off injections */

static void
announce(struct daemon *d, uint8_t severity, const char *text)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD];

	log_msg(&d->log, LOG_LEVEL_NOTICE, "%s", text);
	param_service_statustext(severity, text, pl);
	send_all(d, MAVLINK_MSG_STATUSTEXT, pl);
}

static void
report_events(struct daemon *d, const struct scenario_event *ev, int n)
{
	char text[200], when[32];

	for (int i = 0; i < n; i++) {
		scenario_format_ms(ev[i].time_ms, when, sizeof(when));
		int len = snprintf(text, sizeof(text), "t=%s ", when);
		scenario_event_format(&ev[i], text + len,
				      sizeof(text) - (size_t)len);
		announce(d, MAV_SEVERITY_NOTICE, text);
	}
}

static void
scenario_free(struct daemon *d)
{
	free(d->scenario);
	free(d->run);
	d->scenario = NULL;
	d->run = NULL;
}

/* Before each emulator call: whatever the scenario has due by now. */
static void
run_scenario(struct daemon *d, uint32_t now_ms)
{
	struct scenario_event ev[SCENARIO_EVENTS_MIN];

	(void)now_ms;
	if (!d->run)
		return;
	const uint64_t t = d->ticks * TICK_MS - d->scenario_start_ms;
	do {
		int n = scenario_step(d->run, t, &d->sim, &d->overlay, ev,
				      SCENARIO_EVENTS_MIN);
		if (n < 0)
			break;
		report_events(d, ev, n);
	} while (scenario_run_due(d->run, t));
	if (scenario_run_finished(d->run)) {
		log_msg(&d->log, LOG_LEVEL_NOTICE, "scenario %s finished",
			d->scenario_name);
		scenario_free(d);
	}
}

static void
stop_scenario(struct daemon *d)
{
	struct scenario_event ev[SCENARIO_EVENTS_MIN];

	if (!d->run)
		return;
	const uint64_t t = d->ticks * TICK_MS - d->scenario_start_ms;
	int n = scenario_run_stop(d->run, t, &d->sim, &d->overlay, ev,
				  SCENARIO_EVENTS_MIN);
	if (n > 0)
		report_events(d, ev, n);
	scenario_free(d);
}

/* Load and start a scenario on the daemon's clock, replacing (and so
 * restoring) any running one.  err gets FILE:LINE: reason. */
static int
start_scenario(struct daemon *d, const char *path, char *err, size_t errlen)
{
	struct scenario *sc = malloc(sizeof(*sc));
	struct scenario_run *run = malloc(sizeof(*run));
	FILE *f = fopen(path, "r");
	int rc;

	if (!sc || !run || !f) {
		snprintf(err, errlen, "%s: %s", path,
			 f ? "out of memory" : strerror(errno));
		rc = f ? -ENOMEM : -errno;
		goto fail;
	}
	rc = scenario_load(sc, f, path, err, errlen);
	fclose(f);
	f = NULL;
	if (rc < 0)
		goto fail;

	stop_scenario(d);
	d->scenario = sc;
	d->run = run;
	snprintf(d->scenario_name, sizeof(d->scenario_name), "%s", path);
	d->scenario_start_ms = d->ticks * TICK_MS;
	scenario_run_init(run, sc, &d->sim, (uint32_t)d->scenario_start_ms);
	log_msg(&d->log, LOG_LEVEL_NOTICE, "scenario %s started (%zu actions)",
		path, sc->count);
	return 0;
fail:
	if (f)
		fclose(f);
	free(sc);
	free(run);
	return rc;
}

/* PX4's failure types for baros, as MAV_CMD_INJECT_FAILURE numbers them. */
static const char *const px4_types[] = {
	"ok", "off", "stuck", "garbage", "wrong", "slow", "delayed",
	"intermittent",
};

/*
 * Inject a PX4-style fault on one instance now, outside any scenario.
 * value: wrong = metres (default 20), delayed = ms (default 300),
 * slow = publish every Nth (default 10); NAN for the default.  "ok" puts
 * the instance's parameters back to the configured ones, clears its
 * overlay fault and forgets its drift.
 */
static int
inject(struct daemon *d, unsigned type, unsigned i, double value, char *err,
       size_t errlen)
{
	struct sim_baro_params *b = &d->sim.params.baro[i];
	struct fault_spec none = { FAULT_NONE, 0 };
	char text[120];

	if (i >= BARO_MAX_INSTANCES || type >= 8) {
		snprintf(err, errlen, "no instance %u or fault type %u", i, type);
		return -EINVAL;
	}
	switch (type) {
	case 0:
		*b = d->cfg.params.baro[i];
		baro_sitl_reset_drift(&d->sim, i, (uint32_t)(d->ticks * TICK_MS));
		(void)fault_overlay_set(&d->overlay, i, none);
		break;
	case 1:
		b->disable = 1;
		break;
	case 2:
		b->freeze = 1;
		break;
	case 4:
		b->glitch = isnan(value) ? (float)SCENARIO_PX4_WRONG_M
					 : (float)value;
		break;
	case 6:
		if (!isnan(value) &&
		    !(value >= 0 && value <= SCENARIO_DELAY_MAX_MS)) {
			snprintf(err, errlen, "delayed: %g ms is not 0..%d",
				 value, SCENARIO_DELAY_MAX_MS);
			return -EINVAL;
		}
		b->delay = (int16_t)(isnan(value) ? SCENARIO_PX4_DELAYED_MS
						  : value);
		break;
	default: {
		struct fault_spec spec = {
			type == 3 ? FAULT_GARBAGE
			: type == 5 ? FAULT_SLOW
				    : FAULT_INTERMITTENT,
			type == 5 ? (isnan(value) ? FAULT_SLOW_DEFAULT
						  : (uint32_t)value)
				  : 0,
		};
		if (type == 5 && !isnan(value) &&
		    !(value >= FAULT_SLOW_MIN && value <= FAULT_SLOW_MAX)) {
			snprintf(err, errlen, "slow: every %g is not %u..%u",
				 value, FAULT_SLOW_MIN, FAULT_SLOW_MAX);
			return -EINVAL;
		}
		if (fault_overlay_set(&d->overlay, i, spec) < 0) {
			snprintf(err, errlen, "cannot set %s", px4_types[type]);
			return -EINVAL;
		}
	}
	}
	snprintf(text, sizeof(text), "inject %s on baro %u", px4_types[type], i);
	announce(d, MAV_SEVERITY_WARNING, text);
	return 0;
}

/* MAV_CMD_INJECT_FAILURE for the baro unit; PX4 numbers instances from 1
 * and uses 0 for all of them. */
static uint8_t
ps_inject(void *user, unsigned type, unsigned instance)
{
	struct daemon *d = user;
	char err[128];
	unsigned lo = instance == 0 ? 0 : instance - 1;
	unsigned hi = instance == 0 ? (unsigned)d->sim.params.baro_count
				    : instance;

	if (type >= 8 || instance > BARO_MAX_INSTANCES)
		return MAV_RESULT_DENIED;
	for (unsigned i = lo; i < hi; i++) {
		if (inject(d, type, i, NAN, err, sizeof(err)) < 0)
			return MAV_RESULT_FAILED;
	}
	return MAV_RESULT_ACCEPTED;
}

/* One 10 ms step of the simulation at d->ticks. */
static void
sim_step(struct daemon *d)
{
	struct baro_sample out[BARO_MAX_INSTANCES];
	struct baro_sitl_truth truth = { 0 };
	const uint64_t now_us = d->ticks * TICK_MS * 1000u;
	const uint32_t now_ms = (uint32_t)(d->ticks * TICK_MS);

	double h = truth_profile_height(&d->cfg.profile, (double)now_ms * 1e-3);
	if (baro_sitl_altitude(d->cfg.home_alt_m, h, &truth.alt_amsl_m) < 0)
		truth.alt_amsl_m = 0.0f;

	run_scenario(d, now_ms);
	publish_heartbeat(d, now_us);
	unsigned n = baro_sitl_update(&d->sim, now_ms, &truth, out);
	for (unsigned k = 0; k < n; k++) {
		out[k].time_us = now_us;
		d->samples[out[k].instance]++;
		/* PX4-style garbage/slow/intermittent act after the emulator;
		 * what they hold back is neither published nor recorded. */
		if (!fault_overlay_apply(&d->overlay, &out[k])) {
			d->withheld[out[k].instance]++;
			continue;
		}
		publish_sample(d, &out[k], now_us);
		record_sample(d, &out[k]);
	}
}

/* Catching up at most this many steps after a stall (1 s); older ones
 * are skipped and counted rather than sent in one burst. */
#define MAX_CATCH_UP 100u

static void
tick(struct daemon *d, uint64_t expirations)
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
		sim_step(d);
		if (d->end_ticks && d->ticks >= d->end_ticks) {
			d->loop.quit = true;
			break;
		}
		/* A heartbeat in the log for people watching (-v). */
		if (d->ticks % 1000 == 0)
			log_progress(d);
	}

	/* Recorded data reaches the disk at least once a second. */
	if (d->record && d->ticks - d->last_flush_tick >= 100) {
		if (fflush(d->record) != 0)
			d->record_errors++;
		d->last_flush_tick = d->ticks;
	}
}

static void
on_timer(struct event_source *src, uint32_t events, void *user)
{
	uint64_t expirations;

	(void)events;
	if (read(src->fd, &expirations, sizeof(expirations)) ==
	    sizeof(expirations))
		tick(user, expirations);
}

static void
on_mavlink(struct output *o, const struct mavlink_frame *f, void *user)
{
	struct daemon *d = user;

	(void)o;
	param_service_handle(&d->ps, f, o);
}

static void
ps_send(void *user, void *reply_to, uint32_t msgid, const uint8_t *payload)
{
	struct daemon *d = user;

	if (reply_to)
		send_payload(d, reply_to, msgid, payload);
	else
		send_all(d, msgid, payload);
}

static void
ps_changed(void *user, size_t idx, float old_value, float new_value)
{
	struct daemon *d = user;
	uint8_t pl[MAVLINK_MAX_PAYLOAD];
	char text[64];

	snprintf(text, sizeof(text), "%s %g -> %g", sim_param_info(idx)->name,
		 (double)old_value, (double)new_value);
	log_msg(&d->log, LOG_LEVEL_NOTICE, "%s (MAVLink)", text);
	param_service_statustext(MAV_SEVERITY_NOTICE, text, pl);
	send_all(d, MAVLINK_MSG_STATUSTEXT, pl);
}

static int
open_outputs(struct daemon *d, const struct config *c)
{
	char err[256], desc[256];

	for (size_t i = 0; i < c->n_outputs; i++) {
		struct output *o = &d->outputs[d->n_outputs];
		int rc = output_open(o, &c->outputs[i], &d->loop, on_mavlink, d,
				     err, sizeof(err));
		if (rc < 0) {
			log_msg(&d->log, LOG_LEVEL_ERR, "output %s: %s",
				c->outputs[i].name, err);
			return rc;
		}
		d->n_outputs++;
		log_msg(&d->log, LOG_LEVEL_INFO, "output %s",
			output_describe(o, desc, sizeof(desc)));
	}
	return 0;
}

/* SIGHUP: re-read the configuration.  Outputs that did not change keep
 * their sockets; SIM_* values that changed in the file are applied, the
 * others keep what the GCS or a scenario set at run time. */
static void
reload(struct daemon *d)
{
	struct config next;
	char err[256];

	if (load_config(&d->cli, &next, err, sizeof(err)) < 0) {
		log_msg(&d->log, LOG_LEVEL_ERR,
			"reload: %s; keeping the running configuration", err);
		return;
	}

	for (size_t i = 0; i < sim_param_count(); i++) {
		float was = sim_param_get(&d->cfg.params, i);
		float now = sim_param_get(&next.params, i);
		if (memcmp(&was, &now, sizeof(was)) != 0)
			(void)sim_param_set(&d->sim.params, i, (double)now);
	}
	d->sim.atmosphere = next.atmosphere;

	struct output keep[CONFIG_MAX_OUTPUTS];
	size_t n_keep = 0;

	flush_outputs(d);
	for (size_t i = 0; i < d->n_outputs; i++) {
		bool wanted = false;
		for (size_t j = 0; j < next.n_outputs; j++)
			wanted |= config_output_equal(&d->outputs[i].cfg,
						      &next.outputs[j]);
		if (wanted) {
			/* Moved below; the loop holds a pointer to src. */
			event_loop_remove(&d->loop, &d->outputs[i].src);
			keep[n_keep++] = d->outputs[i];
		} else {
			output_close(&d->outputs[i]);
		}
	}
	d->n_outputs = 0;
	for (size_t i = 0; i < n_keep; i++) {
		struct output *o = &d->outputs[d->n_outputs++];
		*o = keep[i];
		o->src.user = o;
		(void)event_loop_add(&d->loop, &o->src, EPOLLIN |
					 (o->tx_len ? EPOLLOUT : 0u));
	}
	struct config fresh = next;
	fresh.n_outputs = 0;
	for (size_t j = 0; j < next.n_outputs; j++) {
		bool have = false;
		for (size_t i = 0; i < d->n_outputs; i++)
			have |= config_output_equal(&d->outputs[i].cfg,
						    &next.outputs[j]);
		if (!have)
			fresh.outputs[fresh.n_outputs++] = next.outputs[j];
	}
	(void)open_outputs(d, &fresh);

	d->ps.sysid = next.sysid;
	d->ps.compid = next.compid;
	d->cfg = next;
	log_msg(&d->log, LOG_LEVEL_NOTICE, "configuration reloaded, %zu outputs",
		d->n_outputs);
}

static void
on_signal(struct event_source *src, uint32_t events, void *user)
{
	struct daemon *d = user;
	struct signalfd_siginfo si;

	(void)events;
	while (read(src->fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP)
			reload(d);
		else
			d->loop.quit = true;
	}
}

/* ------------------------------------------------------------------ */

static void
usage(FILE *out)
{
	fputs("Usage: barod [OPTIONS]\n"
	      "Barometer daemon: simulated (AP_Baro_SITL) barometers published "
	      "as MAVLink.\n"
	      "\n"
	      "  -c, --config FILE        configuration file (default "
	      CONFIG_DEFAULT_PATH ", if present)\n"
	      "      --check-config       validate the configuration and exit\n"
	      "      --sim                simulated barometers (source = sim)\n"
	      "      --profile SPEC       truth: static:H climb:RATE[:H0] "
	      "step:H0:H1:T sine:A:P[:H0]\n"
	      "      --home-alt METRES    home altitude AMSL\n"
	      "      --atmosphere MODEL   simple, 1976 or water\n"
	      "      --seed N             noise seed\n"
	      "  -p, --param NAME=VALUE   set a SIM_* parameter (repeatable)\n"
	      "  -o, --output SPEC        udp:HOST:PORT, udp-server:HOST:PORT or "
	      "serial:DEV[:BAUD]\n"
	      "                           (repeatable; replaces the file's "
	      "outputs; default udp:127.0.0.1:14550)\n"
	      "      --sysid N            MAVLink system id (default 1)\n"
	      "      --compid N           MAVLink component id (default 191)\n"
	      "      --record FILE.csv    write every sample (baro-sim's "
	      "columns)\n"
	      "      --control PATH       control socket for baroctl (none: "
	      "no socket)\n"
	      "      --scenario FILE      run a fault scenario from start-up "
	      "(doc/scenario.md)\n"
	      "      --duration SECONDS   stop after this long\n"
	      "  -v, --verbose            more log (repeatable)\n"
	      "  -q, --quiet              errors only\n"
	      "  -h, --help               this text\n",
	      out);
}

static int
parse_cli(int argc, char **argv, struct cli *cli)
{
	enum {
		OPT_CHECK = 256, OPT_SIM, OPT_PROFILE, OPT_HOME, OPT_ATMOS,
		OPT_SEED, OPT_SYSID, OPT_COMPID, OPT_RECORD, OPT_DURATION,
		OPT_CONTROL, OPT_SCENARIO,
	};
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", no_argument, NULL, OPT_CHECK },
		{ "sim", no_argument, NULL, OPT_SIM },
		{ "profile", required_argument, NULL, OPT_PROFILE },
		{ "home-alt", required_argument, NULL, OPT_HOME },
		{ "atmosphere", required_argument, NULL, OPT_ATMOS },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "param", required_argument, NULL, 'p' },
		{ "output", required_argument, NULL, 'o' },
		{ "sysid", required_argument, NULL, OPT_SYSID },
		{ "compid", required_argument, NULL, OPT_COMPID },
		{ "record", required_argument, NULL, OPT_RECORD },
		{ "control", required_argument, NULL, OPT_CONTROL },
		{ "scenario", required_argument, NULL, OPT_SCENARIO },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char err[256];
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:p:o:vqh", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 'c':
			cli->config_path = optarg;
			cli->config_required = true;
			break;
		case OPT_CHECK: cli->check_config = true; break;
		case OPT_SIM: cli->sim = true; break;
		case OPT_PROFILE: cli->profile = optarg; break;
		case OPT_HOME: cli->home_alt = optarg; break;
		case OPT_ATMOS: cli->atmosphere = optarg; break;
		case OPT_SEED: cli->seed = optarg; break;
		case OPT_SYSID: cli->sysid = optarg; break;
		case OPT_COMPID: cli->compid = optarg; break;
		case OPT_RECORD: cli->record = optarg; break;
		case OPT_CONTROL: cli->control = optarg; break;
		case OPT_SCENARIO: cli->scenario = optarg; break;
		case 'p':
			if (cli->n_params == sizeof(cli->params) /
						     sizeof(cli->params[0])) {
				fprintf(stderr, "barod: too many -p options\n");
				return -EINVAL;
			}
			cli->params[cli->n_params++] = optarg;
			break;
		case 'o':
			if (cli->n_outputs == CONFIG_MAX_OUTPUTS) {
				fprintf(stderr, "barod: more than %d outputs\n",
					CONFIG_MAX_OUTPUTS);
				return -EINVAL;
			}
			if (config_parse_output(optarg,
						&cli->outputs[cli->n_outputs],
						err, sizeof(err)) < 0) {
				fprintf(stderr, "barod: %s\n", err);
				return -EINVAL;
			}
			cli->n_outputs++;
			break;
		case OPT_DURATION:
			if (str_to_double(optarg, &cli->duration_s) < 0 ||
			    !(cli->duration_s > 0.0 && cli->duration_s < 1e9)) {
				fprintf(stderr,
					"barod: --duration: '%s' is not a "
					"positive number of seconds\n",
					optarg);
				return -EINVAL;
			}
			break;
		case 'v': cli->verbosity++; break;
		case 'q': cli->verbosity = -1; break;
		case 'h':
			usage(stdout);
			return 1;
		case ':':
			fprintf(stderr, "barod: option '%s' needs a value\n",
				argv[optind - 1]);
			return -EINVAL;
		default:
			fprintf(stderr, "barod: unknown option '%s' (see --help)\n",
				argv[optind - 1]);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "barod: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Control socket commands */

static void
cmd_status(struct daemon *d, FILE *out)
{
	char desc[256];

	fprintf(out, "time %.2f s, wake-ups %" PRIu64 "\n",
		(double)d->ticks * TICK_MS * 1e-3, d->loop.wakeups);
	for (int i = 0; i < d->sim.params.baro_count; i++) {
		const struct sim_baro_params *b = &d->sim.params.baro[i];
		fprintf(out,
			"baro %d %s samples %" PRIu64 " rnd %g drift %g "
			"glitch %g freeze %d delay %d disable %d\n",
			i, baro_sitl_healthy(&d->sim, (unsigned)i) ? "healthy"
								   : "unhealthy",
			d->samples[i], (double)b->rnd, (double)b->drift,
			(double)b->glitch, b->freeze, b->delay, b->disable);
	}
	for (int i = 0; i < d->sim.params.baro_count; i++) {
		char fault[64];
		fault_spec_format(d->overlay.inst[i].spec, fault, sizeof(fault));
		fprintf(out, "baro %d overlay %s withheld %" PRIu64 "\n", i,
			fault, d->withheld[i]);
	}
	if (d->run) {
		char t[32];
		scenario_format_ms(d->ticks * TICK_MS - d->scenario_start_ms, t,
				   sizeof(t));
		fprintf(out, "scenario %s at %s\n", d->scenario_name, t);
	}
	for (size_t i = 0; i < d->n_outputs; i++) {
		const struct output_stats *s = &d->outputs[i].stats;
		fprintf(out,
			"output %s sent %" PRIu64 " dropped %" PRIu64
			" no-peer %" PRIu64 " received %" PRIu64 "\n",
			output_describe(&d->outputs[i], desc, sizeof(desc)),
			s->frames_sent, s->frames_dropped, s->frames_no_peer,
			s->frames_received);
	}
	fprintf(out, "ok\n");
}

/* Apply a parameter change from any local source and tell the GCS. */
static int
set_param(struct daemon *d, const char *name, const char *value, FILE *out)
{
	char assignment[256], msg[256];
	int idx = sim_param_find(name);

	snprintf(assignment, sizeof(assignment), "%s=%s", name, value);
	float old = idx >= 0 ? sim_param_get(&d->sim.params, (size_t)idx) : 0;
	if (sim_param_assign(&d->sim.params, assignment, msg, sizeof(msg)) < 0) {
		fprintf(out, "error %s\n", msg);
		return -EINVAL;
	}
	float now = sim_param_get(&d->sim.params, (size_t)idx);
	uint8_t pl[MAVLINK_MAX_PAYLOAD];
	param_service_value(&d->ps, (size_t)idx, pl);
	send_all(d, MAVLINK_MSG_PARAM_VALUE, pl);
	snprintf(msg, sizeof(msg), "%s %g -> %g", name, (double)old,
		 (double)now);
	log_msg(&d->log, LOG_LEVEL_NOTICE, "%s (control)", msg);
	param_service_statustext(MAV_SEVERITY_NOTICE, msg, pl);
	send_all(d, MAVLINK_MSG_STATUSTEXT, pl);
	fprintf(out, "ok %s\n", msg);
	return 0;
}

static void
cmd_inject(struct daemon *d, int argc, char **argv, FILE *out)
{
	char err[128];
	unsigned type = 8;
	uint64_t inst;
	double value = NAN;

	for (unsigned t = 0; t < 8; t++) {
		if (strcmp(argv[1], px4_types[t]) == 0)
			type = t;
	}
	if (type == 8) {
		fprintf(out, "error unknown fault '%s' (ok off stuck garbage "
			     "wrong slow delayed intermittent)\n", argv[1]);
		return;
	}
	if (str_to_u64(argv[2], &inst) < 0 ||
	    inst >= (uint64_t)d->sim.params.baro_count) {
		fprintf(out, "error no baro instance '%s' (0..%d)\n", argv[2],
			d->sim.params.baro_count - 1);
		return;
	}
	if (argc == 4 && (str_to_double(argv[3], &value) < 0 || isnan(value))) {
		fprintf(out, "error '%s' is not a number\n", argv[3]);
		return;
	}
	if (inject(d, type, (unsigned)inst, value, err, sizeof(err)) < 0)
		fprintf(out, "error %s\n", err);
	else
		fprintf(out, "ok %s on baro %u\n", px4_types[type],
			(unsigned)inst);
}

static void
on_command(void *user, const char *line, FILE *out)
{
	struct daemon *d = user;
	char buf[CONTROL_MAX_LINE + 1];
	char *argv[8];
	int argc = 0;
	char *save = NULL;

	snprintf(buf, sizeof(buf), "%s", line);
	for (char *t = strtok_r(buf, " \t", &save); t && argc < 8;
	     t = strtok_r(NULL, " \t", &save))
		argv[argc++] = t;

	if (argc == 0) {
		fprintf(out, "error empty command\n");
	} else if (strcmp(argv[0], "status") == 0 && argc == 1) {
		cmd_status(d, out);
	} else if (strcmp(argv[0], "get") == 0 && argc <= 2) {
		for (size_t i = 0; i < sim_param_count(); i++) {
			const char *name = sim_param_info(i)->name;
			if (argc == 2 && strcmp(argv[1], name) != 0)
				continue;
			fprintf(out, "%s %g\n", name,
				(double)sim_param_get(&d->sim.params, i));
		}
		if (argc == 2 && sim_param_find(argv[1]) < 0)
			fprintf(out, "error unknown parameter '%s' (did you "
				     "mean %s?)\n",
				argv[1], sim_param_closest(argv[1]));
		else
			fprintf(out, "ok\n");
	} else if (strcmp(argv[0], "set") == 0 && argc == 3) {
		(void)set_param(d, argv[1], argv[2], out);
	} else if (strcmp(argv[0], "inject") == 0 && (argc == 3 || argc == 4)) {
		cmd_inject(d, argc, argv, out);
	} else if (strcmp(argv[0], "scenario") == 0 && argc == 3 &&
		   strcmp(argv[1], "load") == 0) {
		char err[512];
		if (start_scenario(d, argv[2], err, sizeof(err)) < 0)
			fprintf(out, "error %s\n", err);
		else
			fprintf(out, "ok scenario %s started\n", argv[2]);
	} else if (strcmp(argv[0], "scenario") == 0 && argc == 2 &&
		   strcmp(argv[1], "stop") == 0) {
		bool running = d->run != NULL;
		stop_scenario(d);
		fprintf(out, running ? "ok scenario stopped, faults restored\n"
				     : "ok no scenario was running\n");
	} else {
		fprintf(out, "error unknown command '%s' (status, get [NAME], "
			     "set NAME VALUE, inject TYPE INSTANCE [VALUE], "
			     "scenario load FILE, scenario stop)\n", line);
	}
}

static int
setup_signals(struct daemon *d)
{
	sigset_t set;

	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -errno;
	int fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	d->signals = (struct event_source){ .fd = fd, .cb = on_signal,
					    .user = d };
	return event_loop_add(&d->loop, &d->signals, EPOLLIN);
}

static void
report(struct daemon *d)
{
	char desc[256];
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	log_msg(&d->log, LOG_LEVEL_INFO,
		"stopped after %.2f s: samples %" PRIu64 "/%" PRIu64 "/%" PRIu64
		", wake-ups %" PRIu64 ", cpu %.3f s, max rss %ld KiB",
		(double)d->ticks * TICK_MS * 1e-3, d->samples[0], d->samples[1],
		d->samples[2], d->loop.wakeups,
		(double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
			(double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) *
				1e-6,
		ru.ru_maxrss);
	for (size_t i = 0; i < d->n_outputs; i++) {
		const struct output_stats *s = &d->outputs[i].stats;
		log_msg(&d->log, LOG_LEVEL_INFO,
			"output %s: sent %" PRIu64 ", dropped %" PRIu64
			", no peer %" PRIu64 ", received %" PRIu64,
			output_describe(&d->outputs[i], desc, sizeof(desc)),
			s->frames_sent, s->frames_dropped, s->frames_no_peer,
			s->frames_received);
	}
	if (d->record_errors)
		log_msg(&d->log, LOG_LEVEL_ERR, "%" PRIu64 " record write errors",
			d->record_errors);
}

int
main(int argc, char **argv)
{
	static struct daemon d;
	char err[512];
	int rc = parse_cli(argc, argv, &d.cli);

	if (rc != 0)
		return rc > 0 ? EXIT_SUCCESS : EXIT_CONFIG;
	log_init(&d.log, d.cli.verbosity < 0	? LOG_LEVEL_ERR
			 : d.cli.verbosity == 0 ? LOG_LEVEL_NOTICE
			 : d.cli.verbosity == 1 ? LOG_LEVEL_INFO
						: LOG_LEVEL_DEBUG);

	if (load_config(&d.cli, &d.cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "barod: %s\n", err);
		return EXIT_CONFIG;
	}
	if (d.cli.check_config) {
		printf("configuration OK: source sim, %zu output(s), sysid %u "
		       "compid %u\n",
		       d.cfg.n_outputs, d.cfg.sysid, d.cfg.compid);
		return EXIT_SUCCESS;
	}

	if ((rc = event_loop_init(&d.loop)) < 0 || (rc = setup_signals(&d)) < 0) {
		fprintf(stderr, "barod: %s\n", strerror(-rc));
		return EXIT_FAILURE;
	}
	baro_sitl_init(&d.sim, &d.cfg.params, d.cfg.atmosphere, d.cfg.seed);
	fault_overlay_init(&d.overlay, d.cfg.seed);
	d.ps = (struct param_service){
		.sysid = d.cfg.sysid, .compid = d.cfg.compid,
		.params = &d.sim.params, .send = ps_send,
		.changed = ps_changed, .inject = ps_inject, .user = &d,
	};
	if (d.cli.scenario &&
	    start_scenario(&d, d.cli.scenario, err, sizeof(err)) < 0) {
		fprintf(stderr, "barod: --scenario: %s\n", err);
		return EXIT_CONFIG;
	}

	if (d.cfg.record_path[0]) {
		d.record = fopen(d.cfg.record_path, "w");
		if (!d.record || sample_csv_write_header(d.record) < 0) {
			fprintf(stderr, "barod: --record %s: %s\n",
				d.cfg.record_path, strerror(errno));
			return EXIT_FAILURE;
		}
	}
	if (open_outputs(&d, &d.cfg) < 0)
		return EXIT_FAILURE;

	char control_path[108];
	if (d.cfg.control_path[0])
		snprintf(control_path, sizeof(control_path), "%s",
			 d.cfg.control_path);
	else
		control_default_path(control_path, sizeof(control_path));
	if (strcmp(control_path, "none") != 0) {
		if (control_open(&d.control, control_path, d.cfg.control_mode,
				 &d.loop, on_command, &d, err, sizeof(err)) < 0) {
			/* Without the socket barod still publishes; only
			 * baroctl is unavailable. */
			log_msg(&d.log, LOG_LEVEL_WARNING,
				"control socket %s; baroctl will not reach "
				"this barod", err);
		} else {
			d.have_control = true;
			log_msg(&d.log, LOG_LEVEL_INFO, "control socket %s",
				control_path);
		}
	}

	int tfd = event_timerfd_periodic(TICK_MS * 1000000ull);
	if (tfd < 0) {
		fprintf(stderr, "barod: timerfd: %s\n", strerror(-tfd));
		return EXIT_FAILURE;
	}
	d.timer = (struct event_source){ .fd = tfd, .cb = on_timer,
					 .user = &d };
	event_loop_add(&d.loop, &d.timer, EPOLLIN);
	d.loop.after_dispatch = flush_outputs;
	d.loop.after_user = &d;
	if (d.cli.duration_s > 0.0)
		d.end_ticks = (uint64_t)ceil(d.cli.duration_s * 1000.0 / TICK_MS);

	log_msg(&d.log, LOG_LEVEL_NOTICE,
		"running: %d simulated baro(s), sysid %u compid %u",
		d.cfg.params.baro_count, d.cfg.sysid, d.cfg.compid);
	rc = event_loop_run(&d.loop);

	if (d.record && (fflush(d.record) != 0 || fclose(d.record) != 0))
		d.record_errors++;
	stop_scenario(&d);
	flush_outputs(&d);
	report(&d);
	if (d.have_control)
		control_close(&d.control);
	for (size_t i = 0; i < d.n_outputs; i++)
		output_close(&d.outputs[i]);
	close(tfd);
	close(d.signals.fd);
	event_loop_fini(&d.loop);
	return rc < 0 || d.record_errors ? EXIT_FAILURE : EXIT_SUCCESS;
}
