/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "drive.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "atmosphere.h"
#include "sim-params.h"

static void
watch_change(struct drive *d, const struct drive_slot *s);

/* A time_boot_ms this far behind the last one is a restart: one link
 * delivers the autopilot's messages in the order it stamped them, with
 * its own monotonic clock.  Any real step back counts: a SITL restarted
 * a second into a run and heard again after the reconnect is only a
 * little behind where it was. */
#define RESTART_BACK_MS 10u
#define HEARTBEAT_US 1000000u

void
drive_opts_default(struct drive_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->ap = DRIVE_ARDUPILOT;
	o->sysid = 255;
	o->compid = 190;
	o->retry_us = 500000;
	o->max_tries = 10;
	o->link_timeout_us = 3000000;
}

const char *
drive_end_name(enum drive_end e)
{
	static const char *const names[] = {
		[DRIVE_END_NONE] = "running",
		[DRIVE_END_OK] = "done",
		[DRIVE_END_STOPPED] = "stopped",
		[DRIVE_END_ABORTED] = "aborted",
		[DRIVE_END_REFUSED] = "refused",
		[DRIVE_END_FAILED] = "failed",
	};
	return (unsigned)e < sizeof(names) / sizeof(names[0]) ? names[e] : "?";
}

static void
logf_(struct drive *d, bool error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
logf_(struct drive *d, bool error, const char *fmt, ...)
{
	char text[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (d->io.log)
		d->io.log(d->user, error, text);
}

static int64_t
scenario_now(const struct drive *d)
{
	if (d->phase != DRIVE_RUN || !d->have_ap_ms)
		return -1;
	return (int64_t)(d->ap_ms - d->start_ap_ms);
}

static void
record(struct drive *d, const char *event, const char *name, double value,
       unsigned line, const char *text)
{
	if (!d->io.record)
		return;
	struct drive_row row = {
		.ap_ms = d->ap_ms,
		.scenario_ms = scenario_now(d),
		.line = line,
		.event = event,
		.name = name,
		.value = value,
		.text = text ? text : "",
	};
	d->io.record(d->user, &row);
}

/* Over, with the first reason given (a later one does not replace it). */
static void
finish(struct drive *d, enum drive_end end, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
finish(struct drive *d, enum drive_end end, const char *fmt, ...)
{
	va_list ap;

	if (d->end == DRIVE_END_NONE || end == DRIVE_END_FAILED) {
		d->end = end;
		va_start(ap, fmt);
		vsnprintf(d->why, sizeof(d->why), fmt, ap);
		va_end(ap);
	}
}

static struct drive_slot *
slot_find(struct drive *d, const char *name)
{
	for (size_t i = 0; i < d->nslots; i++)
		if (strcmp(d->slots[i].name, name) == 0)
			return &d->slots[i];
	return NULL;
}

static struct drive_slot *
slot_add(struct drive *d, enum drive_via via, const char *name, int param)
{
	struct drive_slot *s = slot_find(d, name);

	if (s || d->nslots == DRIVE_MAX_SLOTS)
		return s;
	s = &d->slots[d->nslots++];
	memset(s, 0, sizeof(*s));
	s->via = via;
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->param = param;
	s->type = MAV_PARAM_TYPE_REAL32;
	return s;
}

bool
drive_dirty(const struct drive_slot *s)
{
	if (!s->start_known)
		return false;
	return (s->inflight && s->sent != s->start) ||
	       (s->known && s->have != s->start);
}

void
drive_init(struct drive *d, const struct scenario *sc, const char *name,
	   const struct drive_opts *o, const struct drive_io *io, void *user)
{
	memset(d, 0, sizeof(*d));
	d->o = *o;
	d->sc = sc;
	d->name = name;
	d->io = *io;
	d->user = user;
	d->failure_en = -1;
	d->barosim = -1;
	d->baro_count = -1;
	d->max_inst = drive_max_instance(sc, o->ap);
	d->probe = -1;

	/* The slots: every parameter a line sets or ramps (a px4 ok puts
	 * back only what lines changed), then what a run before left. */
	for (size_t i = 0; i < sc->count; i++) {
		const struct scenario_action *a = &sc->actions[i];
		struct drive_route r;
		drive_route(a, o->ap, &r);
		if (r.via == DRIVE_VIA_PARAM)
			slot_add(d, r.via,
				 sim_param_info((size_t)a->param)->name,
				 a->param);
		else if (r.via == DRIVE_VIA_OFFSET)
			slot_add(d, r.via, DRIVE_PX4_OFFSET_PARAM, -1);
		else if (r.via == DRIVE_VIA_INJECT)
			slot_add(d, r.via, "baro", -1);
	}
	d->inject = slot_find(d, "baro") != NULL;
	for (size_t i = 0; i < o->nleft; i++) {
		const char *n = o->left[i].name;
		struct drive_slot *s = slot_find(d, n);
		if (!s) {
			int idx = sim_param_find(n);
			enum drive_via via =
				strcmp(n, "baro") == 0 ? DRIVE_VIA_INJECT
				: idx < 0	       ? DRIVE_VIA_OFFSET
						       : DRIVE_VIA_PARAM;
			s = slot_add(d, via, n, idx);
		}
		if (s) {
			s->start = o->left[i].start;
			s->start_known = true;
			s->from_state = true;
		}
	}
	/* Injection: the autopilot cannot be asked, so its start is ok. */
	struct drive_slot *inj = slot_find(d, "baro");
	if (inj && !inj->from_state) {
		inj->start = PX4_FAILURE_OK;
		inj->start_known = true;
	}
	if (inj) {
		inj->want = inj->start;
		inj->known = false;
	}
	d->phase = DRIVE_WAIT_LINK;
}

/* ---- sending --------------------------------------------------------- */

static void
send_msg(struct drive *d, uint32_t msgid, const union mavlink_msg *m)
{
	d->io.send(d->user, msgid, m);
}

static void
send_heartbeat(struct drive *d)
{
	union mavlink_msg m = { .hb = {
		.type = MAV_TYPE_GCS,
		.autopilot = MAV_AUTOPILOT_INVALID,
		.system_status = MAV_STATE_ACTIVE,
		.mavlink_version = 3,
	} };
	send_msg(d, MAVLINK_MSG_HEARTBEAT, &m);
}

static void
send_command(struct drive *d, uint16_t command, float p1, float p2, float p3)
{
	union mavlink_msg m = { .cl = {
		.param = { p1, p2, p3 },
		.command = command,
		.target_system = d->target_sys,
		.target_component = d->target_comp,
	} };
	send_msg(d, MAVLINK_MSG_COMMAND_LONG, &m);
}

static void
send_read(struct drive *d, const char *name)
{
	union mavlink_msg m = { .prr = {
		.param_index = -1,
		.target_system = d->target_sys,
		.target_component = d->target_comp,
	} };
	snprintf(m.prr.param_id, sizeof(m.prr.param_id), "%s", name);
	send_msg(d, MAVLINK_MSG_PARAM_REQUEST_READ, &m);
}

static void
send_change(struct drive *d, struct drive_slot *s, uint64_t now_us)
{
	char text[96];

	d->touched = true;
	s->inflight = true;
	s->sent = s->want;
	s->sent_us = now_us;
	s->sent_ap_ms = d->ap_ms;
	s->tries++;
	if (s->via == DRIVE_VIA_INJECT) {
		send_command(d, MAV_CMD_INJECT_FAILURE, FAILURE_UNIT_SENSOR_BARO,
			     s->want, 0.0f);
	} else {
		union mavlink_msg m = { .ps = {
			.param_value = s->want,
			.target_system = d->target_sys,
			.target_component = d->target_comp,
			.param_type = s->type,
		} };
		snprintf(m.ps.param_id, sizeof(m.ps.param_id), "%s", s->name);
		send_msg(d, MAVLINK_MSG_PARAM_SET, &m);
	}
	snprintf(text, sizeof(text), "try %u", s->tries);
	record(d, "sent", s->name, s->want, s->line, text);
	if (s->tries == 1)
		watch_change(d, s);
}

/* Move the autopilot towards every slot's want: a change is sent when
 * the autopilot has another value and none is on its way, or the one on
 * its way is not what is wanted now, or it went unanswered too long.
 * Before a slot first moves away from its start the caller's state file
 * learns of it. */
static void
reconcile(struct drive *d, uint64_t now_us)
{
	if (d->lost || d->target_sys == 0)
		return;
	for (size_t i = 0; i < d->nslots; i++) {
		struct drive_slot *s = &d->slots[i];
		if (!s->start_known)
			continue;
		bool at = s->known && s->have == s->want;
		if (at && !s->inflight)
			continue;
		if (s->inflight && s->sent == s->want &&
		    now_us - s->sent_us < d->o.retry_us)
			continue;
		if (at) {
			s->inflight = false;
			continue;
		}
		if (s->inflight && s->sent == s->want &&
		    s->tries >= d->o.max_tries) {
			finish(d, DRIVE_END_FAILED,
			       "the autopilot did not acknowledge %s = %g "
			       "after %u tries",
			       s->name, (double)s->want, s->tries);
			d->phase = DRIVE_DONE;
			return;
		}
		if (!(s->inflight && s->sent == s->want))
			s->tries = 0;
		bool was = drive_dirty(s);
		s->inflight = true;
		s->sent = s->want;
		/* Each slot's own write: one pass may move several. */
		if (!was && drive_dirty(s) && d->io.state) {
			if (d->io.state(d->user) < 0) {
				s->inflight = false;
				finish(d, DRIVE_END_FAILED,
				       "the state file could not be written: "
				       "nothing is changed without it");
				d->phase = DRIVE_DONE;
				return;
			}
		}
		send_change(d, s, now_us);
	}
}

static bool
all_at_want(const struct drive *d)
{
	for (size_t i = 0; i < d->nslots; i++) {
		const struct drive_slot *s = &d->slots[i];
		if (!s->start_known)
			continue;
		if (s->inflight || !s->known || s->have != s->want)
			return false;
	}
	return true;
}

/* ---- phases ------------------------------------------------------------ */

static void
want_start(struct drive *d)
{
	for (size_t i = 0; i < d->nslots; i++) {
		d->slots[i].want = d->slots[i].start;
		d->slots[i].line = 0;
	}
}

static void
begin_restore(struct drive *d, uint64_t now_us)
{
	want_start(d);
	d->phase = DRIVE_RESTORE;
	record(d, "note", "", 0.0, 0, "restoring");
	reconcile(d, now_us);
}

/* The pascals sensor_baro_sim must add for its altitude to read m
 * metres higher, at the vehicle's altitude now. */
static double
offset_pa(const struct drive *d, double m)
{
	float p0, p1, t;
	float h = d->have_alt ? (float)d->alt_m : 0.0f;

	atmos_1976_pressure_temperature(h, &p0, &t);
	atmos_1976_pressure_temperature(h + (float)m, &p1, &t);
	return (double)p1 - (double)p0;
}

/* The baro instance whose pressure slot s shifts, or -1. */
static int
shift_instance(const struct drive_slot *s)
{
	if (s->via == DRIVE_VIA_OFFSET)
		return 0;
	if (s->via == DRIVE_VIA_PARAM && s->param >= 0 &&
	    sim_param_field((size_t)s->param) ==
		    offsetof(struct sim_baro_params, glitch))
		return sim_param_instance((size_t)s->param);
	return -1;
}

/* A change that shifts a baro's pressure by enough to tell from its
 * noise is watched for in SCALED_PRESSURE/2/3: the record then says
 * when the autopilot's own telemetry showed it (PX4 applies a parameter
 * up to a second after acknowledging it). */
static void
watch_change(struct drive *d, const struct drive_slot *s)
{
	int i = shift_instance(s);

	if (i < 0 || !s->known || !d->have_press[i])
		return;
	double expect = s->via == DRIVE_VIA_OFFSET
				? (double)s->sent - (double)s->have
				: offset_pa(d, s->sent) - offset_pa(d, s->have);
	if (fabs(expect) < DRIVE_SEEN_MIN_PA)
		return;
	struct drive_watch *w = &d->watch[i];
	w->on = true;
	w->expect_pa = expect;
	w->base_pa = d->press[i];
	w->from_ms = d->ap_ms;
	w->line = s->line;
	w->value = s->sent;
	snprintf(w->name, sizeof(w->name), "%s", s->name);
}

static void
on_pressure(struct drive *d, int i, double pa)
{
	struct drive_watch *w = &d->watch[i];

	d->press[i] = pa;
	d->have_press[i] = true;
	if (!w->on)
		return;
	if (fabs(pa - w->base_pa - w->expect_pa) <= fabs(w->expect_pa) / 2) {
		w->on = false;
		record(d, "seen", w->name, w->value, w->line,
		       i == 0	? "SCALED_PRESSURE"
		       : i == 1 ? "SCALED_PRESSURE2"
				: "SCALED_PRESSURE3");
	} else if (d->ap_ms - w->from_ms > DRIVE_SEEN_WITHIN_MS) {
		w->on = false;
		record(d, "note", w->name, w->value, w->line,
		       "not seen in the autopilot's pressure");
	}
}

/* The wants the shadow emulator and overlay stand for now. */
static void
wants_from_shadow(struct drive *d, unsigned line)
{
	const struct sim_params *p = &d->shadow.params;

	for (size_t i = 0; i < d->nslots; i++) {
		struct drive_slot *s = &d->slots[i];
		float w = s->want;
		if (s->via == DRIVE_VIA_PARAM && s->param >= 0)
			w = sim_param_get(p, (size_t)s->param);
		else if (s->via == DRIVE_VIA_OFFSET)
			w = (float)((double)s->start + d->offset_pa);
		else if (s->via == DRIVE_VIA_INJECT)
			w = p->baro[0].disable ? PX4_FAILURE_OFF
			    : d->overlay.inst[0].spec.kind == FAULT_STUCK
				    ? PX4_FAILURE_STUCK
				    : PX4_FAILURE_OK;
		if (w != s->want) {
			s->want = w;
			s->line = line;
		}
	}
}

static void
begin_run(struct drive *d, uint64_t now_us)
{
	struct sim_params p;

	/* Scenario time 0 is the autopilot's time now: not known until a
	 * message with its time_boot_ms came (a ground station may have
	 * read every parameter before). */
	if (!d->have_ap_ms) {
		d->run_pending = true;
		return;
	}
	d->run_pending = false;

	sim_params_defaults(&p);
	for (size_t i = 0; i < d->nslots; i++) {
		const struct drive_slot *s = &d->slots[i];
		if (s->via == DRIVE_VIA_PARAM && s->param >= 0 &&
		    sim_param_set(&p, (size_t)s->param, s->start) < 0) {
			finish(d, DRIVE_END_REFUSED,
			       "the autopilot has %s = %g, outside the range "
			       "barod's table gives it",
			       s->name, (double)s->start);
			d->phase = DRIVE_DONE;
			return;
		}
	}
	baro_sitl_init(&d->shadow, &p, BARO_SITL_ATMOS_1976, 0);
	fault_overlay_init(&d->overlay, 0);
	scenario_run_init(&d->run, d->sc, &d->shadow, 0);
	d->offset_pa = 0.0;
	d->start_ap_ms = d->ap_ms;
	d->phase = DRIVE_RUN;
	logf_(d, false, "%s: running on the autopilot's clock from its "
			"time_boot_ms %llu",
	      d->name, (unsigned long long)d->ap_ms);
	record(d, "note", "", 0.0, 0, "scenario time 0");
	/* What each value goes back to: a reader of the record knows from
	 * these rows alone when a value is away from its start. */
	for (size_t i = 0; i < d->nslots; i++)
		record(d, "start", d->slots[i].name, d->slots[i].start, 0,
		       NULL);
	for (size_t i = 0; i < d->nslots; i++)
		if (d->slots[i].via == DRIVE_VIA_OFFSET) {
			logf_(d, false, "PX4 takes " DRIVE_PX4_OFFSET_PARAM
					" at its next parameter update, up to "
					"about 1 s after acknowledging it: the "
					"record's 'seen' rows say when its "
					"pressure showed each change");
			break;
		}
	wants_from_shadow(d, 0);
	reconcile(d, now_us);
}

/* Every read answered: check what was found, then repair or run. */
static void
after_read(struct drive *d, uint64_t now_us)
{
	for (size_t i = 0; i < d->nslots; i++) {
		struct drive_slot *s = &d->slots[i];
		if (s->from_state || s->via == DRIVE_VIA_INJECT)
			continue;
		float def = s->via == DRIVE_VIA_PARAM && s->param >= 0
				    ? sim_param_info((size_t)s->param)->def
				    : 0.0f;
		if (s->have != def && !d->o.keep_current) {
			finish(d, DRIVE_END_REFUSED,
			       "%s is %g on the autopilot, not its default "
			       "%g, and no state file says barod set it: put "
			       "it back (param set %s %g) or pass "
			       "--keep-current to take %g as the start",
			       s->name, (double)s->have, (double)def, s->name,
			       (double)def, (double)s->have);
			d->phase = DRIVE_DONE;
			return;
		}
	}
	bool repair = false;
	for (size_t i = 0; i < d->nslots; i++) {
		struct drive_slot *s = &d->slots[i];
		s->want = s->start;
		if (s->from_state && (!s->known || s->have != s->start))
			repair = true;
	}
	if (repair) {
		d->phase = DRIVE_REPAIR;
		logf_(d, false, "putting back what an earlier run left "
				"changed (its state file)");
		reconcile(d, now_us);
		return;
	}
	begin_run(d, now_us);
}

/* READ: every parameter slot's value, then PX4's SYS_FAILURE_EN and an
 * injection of "ok" that asks whether injection acts at all. */
static void
read_step(struct drive *d, uint64_t now_us, bool answer)
{
	if (!answer && now_us - d->read_us < d->o.retry_us)
		return;
	bool open = false;
	for (size_t i = 0; i < d->nslots; i++) {
		struct drive_slot *s = &d->slots[i];
		if (s->via == DRIVE_VIA_INJECT || s->known)
			continue;
		open = true;
		if (answer)
			continue;
		send_read(d, s->name);
	}
	if (d->inject && d->o.ap == DRIVE_PX4 && d->failure_en < 0) {
		open = true;
		if (!answer)
			send_read(d, DRIVE_PX4_INJECT_PARAM);
	}
	if (d->o.ap == DRIVE_ARDUPILOT && d->max_inst > 0 && d->baro_count < 0) {
		open = true;
		if (!answer)
			send_read(d, "SIM_BARO_COUNT");
	}
	if (d->o.ap == DRIVE_ARDUPILOT && d->max_inst > 0 &&
	    d->baro_count >= 0 && d->baro_count <= d->max_inst) {
		finish(d, DRIVE_END_REFUSED,
		       "%s: a line acts on baro %d and the autopilot has "
		       "SIM_BARO_COUNT %d: set SIM_BARO_COUNT %d and restart "
		       "SITL (it takes effect at boot)",
		       d->name, d->max_inst, d->baro_count, d->max_inst + 1);
		d->phase = DRIVE_DONE;
		return;
	}
	if (d->o.ap == DRIVE_PX4 && d->barosim < 0) {
		open = true;
		if (!answer)
			send_read(d, DRIVE_PX4_BAROSIM_PARAM);
	}
	if (d->o.ap == DRIVE_PX4 && d->barosim == 0) {
		finish(d, DRIVE_END_REFUSED,
		       "%s: PX4's sensor_baro_sim is not running "
		       "(SENS_EN_BAROSIM is 0): the baro comes from the "
		       "simulator, which these parameters do not reach; "
		       "instead: barod --px4-sim-proxy with a MAVLink "
		       "simulator, or SENS_EN_BAROSIM 1 and a restart (SIH "
		       "and gz start it then)", d->name);
		d->phase = DRIVE_DONE;
		return;
	}
	if (!open && d->inject && d->probe < 0) {
		if (d->failure_en != 1) {
			finish(d, DRIVE_END_REFUSED,
			       "%s: the scenario needs PX4's failure injection "
			       "and SYS_FAILURE_EN is %d: set it to 1 "
			       "(param set SYS_FAILURE_EN 1)",
			       d->name, d->failure_en);
			d->phase = DRIVE_DONE;
			return;
		}
		open = true;
		/* At once when the reads are done, then with the retries. */
		if (!answer || !d->probe_sent) {
			d->probe_sent = true;
			if (answer)
				d->read_us = now_us;
			send_command(d, MAV_CMD_INJECT_FAILURE,
				     FAILURE_UNIT_SENSOR_BARO, PX4_FAILURE_OK,
				     0.0f);
		}
	}
	if (!open) {
		after_read(d, now_us);
		return;
	}
	if (answer)
		return;
	d->read_us = now_us;
	if (++d->read_tries > d->o.max_tries) {
		for (size_t i = 0; i < d->nslots; i++) {
			const struct drive_slot *s = &d->slots[i];
			if (s->via != DRIVE_VIA_INJECT && !s->known) {
				finish(d, DRIVE_END_REFUSED,
				       "the autopilot did not answer a read "
				       "of %s %u times: it has no such "
				       "parameter (SITL built without it, or "
				       "another release)",
				       s->name, d->o.max_tries);
				d->phase = DRIVE_DONE;
				return;
			}
		}
		finish(d, DRIVE_END_REFUSED,
		       "the autopilot did not answer %s",
		       d->barosim < 0 && d->o.ap == DRIVE_PX4
			       ? "a read of " DRIVE_PX4_BAROSIM_PARAM
		       : d->baro_count < 0 && d->o.ap == DRIVE_ARDUPILOT
			       ? "a read of SIM_BARO_COUNT"
		       : d->failure_en < 0
			       ? "a read of " DRIVE_PX4_INJECT_PARAM
			       : "MAV_CMD_INJECT_FAILURE baro ok");
		d->phase = DRIVE_DONE;
	}
}

/* ---- receiving -------------------------------------------------------- */

static void
on_heartbeat(struct drive *d, const struct mavlink_frame *f,
	     const struct mavlink_heartbeat *hb, uint64_t now_us)
{
	if (hb->type == MAV_TYPE_GCS || hb->autopilot == MAV_AUTOPILOT_INVALID)
		return;
	if (d->target_sys == 0) {
		enum drive_autopilot seen =
			hb->autopilot == MAV_AUTOPILOT_PX4 ? DRIVE_PX4
			: hb->autopilot == MAV_AUTOPILOT_ARDUPILOTMEGA
				? DRIVE_ARDUPILOT
				: DRIVE_AUTOPILOTS;
		if (seen != d->o.ap) {
			finish(d, DRIVE_END_REFUSED,
			       "the autopilot at the other end is %s "
			       "(HEARTBEAT autopilot %u), not %s: the "
			       "scenario was checked for %s",
			       seen == DRIVE_AUTOPILOTS
				       ? "neither ArduPilot nor PX4"
				       : drive_autopilot_name(seen),
			       hb->autopilot, drive_autopilot_name(d->o.ap),
			       drive_autopilot_name(d->o.ap));
			d->phase = DRIVE_DONE;
			return;
		}
		d->target_sys = f->sysid;
		d->target_comp = f->compid;
		logf_(d, false, "%s autopilot found: system %u component %u",
		      drive_autopilot_name(seen), f->sysid, f->compid);
		send_command(d, MAV_CMD_REQUEST_MESSAGE,
			     MAVLINK_MSG_AUTOPILOT_VERSION, 0.0f, 0.0f);
		/* SYSTEM_TIME at 10 Hz: the clock the scenario runs on. */
		send_command(d, MAV_CMD_SET_MESSAGE_INTERVAL,
			     MAVLINK_MSG_SYSTEM_TIME, 100000.0f, 0.0f);
		/* The pressures, to see when a change shows. */
		send_command(d, MAV_CMD_SET_MESSAGE_INTERVAL,
			     MAVLINK_MSG_SCALED_PRESSURE, 100000.0f, 0.0f);
		d->phase = DRIVE_READ;
		d->read_us = now_us - d->o.retry_us;
		read_step(d, now_us, false);
	}
}

static void
on_param_value(struct drive *d, const struct mavlink_param_value *pv,
	       uint64_t now_us)
{
	if (d->inject && strcmp(pv->param_id, DRIVE_PX4_INJECT_PARAM) == 0) {
		/* PX4 sends its INT32 parameters byte-wise. */
		int32_t v;
		memcpy(&v, &pv->param_value, sizeof(v));
		d->failure_en = v;
	}
	if (d->o.ap == DRIVE_ARDUPILOT &&
	    strcmp(pv->param_id, "SIM_BARO_COUNT") == 0)
		d->baro_count = (int)pv->param_value;
	if (d->o.ap == DRIVE_PX4 &&
	    strcmp(pv->param_id, DRIVE_PX4_BAROSIM_PARAM) == 0) {
		int32_t v;
		memcpy(&v, &pv->param_value, sizeof(v));
		d->barosim = v != 0;
	}
	struct drive_slot *s = slot_find(d, pv->param_id);
	if (!s || s->via == DRIVE_VIA_INJECT)
		goto out;
	s->have = pv->param_value;
	s->known = true;
	s->type = pv->param_type;
	if (!s->start_known) {
		s->start = s->have;
		s->start_known = true;
		s->want = s->start;
	}
	if (s->inflight && s->have == s->sent) {
		s->inflight = false;
		s->tries = 0;
		record(d, "acked", s->name, s->have, s->line, NULL);
	}
out:
	if (d->phase == DRIVE_READ)
		read_step(d, now_us, true);
}

static void
on_command_ack(struct drive *d, const struct mavlink_command_ack *ca,
	       uint64_t now_us)
{
	if (ca->command != MAV_CMD_INJECT_FAILURE)
		return;
	if (ca->result == MAV_RESULT_IN_PROGRESS)
		return;
	if (d->phase == DRIVE_READ && d->probe < 0) {
		if (ca->result != MAV_RESULT_ACCEPTED) {
			finish(d, DRIVE_END_REFUSED,
			       "%s: PX4 answered MAV_CMD_INJECT_FAILURE baro "
			       "ok with result %u, not ACCEPTED: its "
			       "sensor_baro_sim does not carry out baro "
			       "failures (PX4 v1.14); lines that need them "
			       "cannot act; instead: barod --px4-sim-proxy",
			       d->name, ca->result);
			d->phase = DRIVE_DONE;
			return;
		}
		d->probe = 0;
		struct drive_slot *s = slot_find(d, "baro");
		if (s && !s->from_state) {
			s->have = PX4_FAILURE_OK;
			s->known = true;
		}
		read_step(d, now_us, true);
		return;
	}
	struct drive_slot *s = slot_find(d, "baro");
	if (!s || !s->inflight)
		return;
	if (ca->result == MAV_RESULT_ACCEPTED) {
		s->have = s->sent;
		s->known = true;
		s->inflight = false;
		s->tries = 0;
		record(d, "acked", s->name, s->have, s->line, NULL);
	} else if (ca->result != MAV_RESULT_TEMPORARILY_REJECTED) {
		s->inflight = false;
		finish(d, d->phase == DRIVE_RESTORE ? DRIVE_END_FAILED
						    : DRIVE_END_ABORTED,
		       "PX4 answered MAV_CMD_INJECT_FAILURE baro %g with "
		       "result %u",
		       (double)s->sent, ca->result);
		if (d->phase == DRIVE_RESTORE) {
			d->phase = DRIVE_DONE;
			return;
		}
		begin_restore(d, now_us);
	}
}

/* The autopilot may have booted again: what it reported before may not
 * hold, so every slot is sent again; a run is over (why), everything
 * going back. */
static void
new_boot(struct drive *d, uint64_t now_us, const char *why)
{
	for (size_t i = 0; i < d->nslots; i++) {
		d->slots[i].known = false;
		d->slots[i].inflight = false;
		d->slots[i].tries = 0;
	}
	if (d->phase == DRIVE_RUN || d->phase == DRIVE_REPAIR) {
		finish(d, DRIVE_END_ABORTED, "%s", why);
		begin_restore(d, now_us);
	}
}

/* The autopilot's clock moved to ms (time_boot_ms of any message that
 * has one). */
static void
on_clock(struct drive *d, uint32_t ms, uint64_t now_us)
{
	if (d->have_ap_ms && (uint64_t)ms + RESTART_BACK_MS < d->ap_ms) {
		logf_(d, true, "the autopilot restarted (time_boot_ms went "
			       "from %llu to %u)",
		      (unsigned long long)d->ap_ms, ms);
		d->ap_ms = ms;
		new_boot(d, now_us, "the autopilot restarted mid-scenario");
		return;
	}
	if (d->gap_check) {
		d->gap_check = false;
		uint64_t gap = ms > d->gap_from_ms ? ms - d->gap_from_ms : 0;
		if (gap * 1000u > d->o.link_timeout_us &&
		    (d->phase == DRIVE_RUN || d->phase == DRIVE_REPAIR)) {
			finish(d, DRIVE_END_ABORTED,
			       "the link was lost for %.1f s of the "
			       "autopilot's time mid-scenario: changes due "
			       "then did not reach it in time",
			       (double)gap / 1000.0);
			d->ap_ms = ms;
			begin_restore(d, now_us);
			return;
		}
		if (gap * 1000u <= d->o.link_timeout_us)
			logf_(d, false, "the autopilot's clock moved %.1f s "
					"while it was silent (paused): going on",
			      (double)gap / 1000.0);
	}
	if (d->have_ap_ms && ms <= d->ap_ms)
		return;
	d->ap_ms = ms;
	d->have_ap_ms = true;
	if (d->run_pending && d->phase != DRIVE_DONE) {
		begin_run(d, now_us);
		return;
	}
	if (d->phase != DRIVE_RUN)
		return;

	uint64_t t = d->ap_ms - d->start_ap_ms;
	struct scenario_event ev[SCENARIO_EVENTS_MIN];
	unsigned line = 0;
	bool ended = false;
	do {
		int n = scenario_step(&d->run, t, &d->shadow, &d->overlay, ev,
				      SCENARIO_EVENTS_MIN);
		if (n < 0)
			break;
		for (int i = 0; i < n; i++) {
			char text[160];
			scenario_event_format(&ev[i], text, sizeof(text));
			if (ev[i].kind == SCENARIO_EV_END) {
				ended = true;
				continue;
			}
			if (ev[i].line)
				line = ev[i].line;
			if (ev[i].kind == SCENARIO_EV_PARAM &&
			    ev[i].param >= 0 &&
			    sim_param_instance((size_t)ev[i].param) == 0 &&
			    sim_param_field((size_t)ev[i].param) ==
				    offsetof(struct sim_baro_params, glitch))
				d->offset_pa = offset_pa(d, ev[i].new_value);
			record(d, "due", "", ev[i].new_value, ev[i].line,
			       text);
		}
	} while (scenario_run_due(&d->run, t));
	wants_from_shadow(d, line);
	if (ended) {
		record(d, "note", "", 0.0, 0, "scenario over");
		finish(d, DRIVE_END_OK, "the scenario ran to its end");
		begin_restore(d, now_us);
		return;
	}
	reconcile(d, now_us);
}

void
drive_frame(struct drive *d, const struct mavlink_frame *f, uint64_t now_us)
{
	union mavlink_msg m;

	if (d->phase == DRIVE_DONE)
		return;
	if (mavlink_unpack_msg(f->msgid, f->payload, &m) < 0)
		return;
	if (f->msgid == MAVLINK_MSG_HEARTBEAT) {
		on_heartbeat(d, f, &m.hb, now_us);
		if (d->phase == DRIVE_DONE)
			return;
	}
	if (d->target_sys == 0 || f->sysid != d->target_sys ||
	    f->compid != d->target_comp)
		return;
	d->last_rx_us = now_us;
	if (d->lost) {
		/* Whether changes were missed shows on the autopilot's clock:
		 * a paused SITL is silent too, and its clock stood still. */
		d->lost = false;
		d->gap_check = true;
		d->gap_from_ms = d->ap_ms;
		logf_(d, false, "the link is back");
	}
	switch (f->msgid) {
	case MAVLINK_MSG_PARAM_VALUE:
		on_param_value(d, &m.pv, now_us);
		break;
	case MAVLINK_MSG_COMMAND_ACK:
		if (m.ca.target_system == 0 || m.ca.target_system == d->o.sysid)
			on_command_ack(d, &m.ca, now_us);
		break;
	case MAVLINK_MSG_AUTOPILOT_VERSION:
		d->version = m.av.flight_sw_version;
		logf_(d, false, "autopilot version %u.%u.%u",
		      d->version >> 24, (d->version >> 16) & 0xFF,
		      (d->version >> 8) & 0xFF);
		break;
	case MAVLINK_MSG_GLOBAL_POSITION_INT:
		d->alt_m = m.gpi.alt / 1000.0;
		d->have_alt = true;
		on_clock(d, m.gpi.time_boot_ms, now_us);
		break;
	case MAVLINK_MSG_SYSTEM_TIME:
		on_clock(d, m.stime.time_boot_ms, now_us);
		break;
	case MAVLINK_MSG_SCALED_PRESSURE:
	case MAVLINK_MSG_SCALED_PRESSURE2:
	case MAVLINK_MSG_SCALED_PRESSURE3:
		on_clock(d, m.sp.time_boot_ms, now_us);
		if (d->phase != DRIVE_DONE)
			on_pressure(d,
				    f->msgid == MAVLINK_MSG_SCALED_PRESSURE ? 0
				    : f->msgid == MAVLINK_MSG_SCALED_PRESSURE2
					    ? 1
					    : 2,
				    (double)m.sp.press_abs * 100.0);
		break;
	}
	if (d->phase == DRIVE_DONE)
		return;
	if ((d->phase == DRIVE_REPAIR || d->phase == DRIVE_RESTORE) &&
	    all_at_want(d)) {
		if (d->phase == DRIVE_REPAIR) {
			logf_(d, false, "the earlier run's changes are back");
			if (d->io.state)
				d->io.state(d->user);
			begin_run(d, now_us);
		} else {
			d->phase = DRIVE_DONE;
			if (d->io.state)
				d->io.state(d->user);
			record(d, "note", "", 0.0, 0, "restored");
		}
	}
}

void
drive_tick(struct drive *d, uint64_t now_us)
{
	if (d->phase == DRIVE_DONE)
		return;
	if (now_us - d->last_hb_us >= HEARTBEAT_US || d->last_hb_us == 0) {
		d->last_hb_us = now_us;
		send_heartbeat(d);
	}
	if (d->target_sys && !d->lost &&
	    now_us - d->last_rx_us > d->o.link_timeout_us) {
		d->lost = true;
		logf_(d, true, "the link is lost: nothing heard for %.1f s",
		      (double)(now_us - d->last_rx_us) / 1e6);
	}
	if (d->lost)
		return;
	if (d->phase == DRIVE_READ)
		read_step(d, now_us, false);
	else if (d->phase != DRIVE_WAIT_LINK)
		reconcile(d, now_us);
}

void
drive_link_reset(struct drive *d, uint64_t now_us)
{
	if (d->phase == DRIVE_DONE)
		return;
	new_boot(d, now_us,
		 "the connection to the autopilot dropped mid-scenario (it "
		 "restarted or went away)");
}

void
drive_stop(struct drive *d, uint64_t now_us)
{
	if (d->phase == DRIVE_DONE)
		return;
	if (d->phase == DRIVE_WAIT_LINK || d->phase == DRIVE_READ) {
		finish(d, DRIVE_END_STOPPED, "stopped before the scenario "
					     "started; nothing was changed");
		d->phase = DRIVE_DONE;
		return;
	}
	finish(d, DRIVE_END_STOPPED, "stopped");
	begin_restore(d, now_us);
}
