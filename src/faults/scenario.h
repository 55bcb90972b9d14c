/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Scripted fault scenarios (doc/scenario.md): a small text file of timed
 * actions on the emulator's SIM_* parameters and on the fault overlay,
 * parsed once, then stepped on the simulation clock.  The daemon and
 * `baro-sim --scenario` share this engine.
 *
 *   at 30s set SIM_BARO_GLITCH 15 for 5s
 *   at 40s px4 stuck 1 for 2s
 *
 * Pure: parsing reads only the text or stream it is given; stepping
 * changes only the emulator, overlay and run passed to it, at the time
 * passed to it, and reports each change as an event.
 *
 * While a run is active the scenario owns the values it touches: each
 * parameter (or overlay slot) holds the value of the newest action on it
 * that is still in force, or its value at the start of the run when none
 * is.  So a `for` puts back what the parameter would be without that
 * action, also when actions on it overlap.
 */
#ifndef BAROD_SCENARIO_H
#define BAROD_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "baro-sitl.h"
#include "faults.h"

#define SCENARIO_MAX_ACTIONS 1024
/* Longest line accepted; a longer one is an error, not a truncation. */
#define SCENARIO_MAX_LINE 1024
/* Times and durations up to 10^9 s, so sums never overflow. */
#define SCENARIO_MAX_MS 1000000000000ull
/* The emulator's delay buffer holds 50 x 10 ms: the most the delay
 * verbs accept (SIM_BARx_DELAY itself takes ArduPilot's raw values). */
#define SCENARIO_DELAY_MAX_MS 490
/* px4 defaults: wrong = this glitch in m, delayed = this delay in ms. */
#define SCENARIO_PX4_WRONG_M 20.0
#define SCENARIO_PX4_DELAYED_MS 300.0
/* Smallest event buffer scenario_step() accepts: one restore (a marker,
 * every parameter, every overlay slot) and the end marker fit. */
#define SCENARIO_EVENTS_MIN 64

enum scenario_op {
	SCENARIO_OP_SET,	/* param = value (set and the verbs) */
	SCENARIO_OP_RAMP,	/* param from value to `to` over dur_ms */
	SCENARIO_OP_FAULT,	/* overlay fault on instance */
	SCENARIO_OP_CLEAR,	/* px4 ok: instance back to its start */
	SCENARIO_OP_RESTORE,	/* everything back to its start */
	SCENARIO_OP_END,	/* restore, and the scenario is over */
	SCENARIO_OP_AUX,	/* a fault on another sensor (GPS, accel):
				 * baro-replay only; the engine skips it */
};

/*
 * Faults on the sensors beside the baros, which only baro-replay has
 * (its aux series, replay-stream.h); barod and baro-sim refuse them at
 * load (scenario_check(), scenario_hardware()).  Each is a verb of the
 * scenario language: `at 20s gps drift 0.2 for 30s`.  The names and
 * value ranges are the parser's table, scenario_aux_name().
 */
enum scenario_aux {
	SCENARIO_AUX_GPS_OFFSET,	/* GPS altitude + value (m) */
	SCENARIO_AUX_GPS_DRIFT,		/* + value (m/s) x time since start */
	SCENARIO_AUX_GPS_FREEZE,	/* the last fix before, repeated */
	SCENARIO_AUX_GPS_LOST,		/* no fixes */
	SCENARIO_AUX_ACCEL_BIAS,	/* body-frame z specific force + value
					 * (m/s^2) */
	SCENARIO_AUX_ACCEL_NOISE,	/* each axis + gaussian, SD value */
	SCENARIO_AUX_KINDS,
};

struct scenario_action {
	uint64_t at_ms;
	uint64_t dur_ms;	/* SET, FAULT: `for` (0: none); RAMP: `over` */
	unsigned line;
	enum scenario_op op;
	int instance;		/* FAULT, CLEAR: 0..2; else -1 */
	int param;		/* SET, RAMP: parameter table index; else -1 */
	int aux;		/* AUX: enum scenario_aux; else -1 */
	double value;		/* SET: the value as stored; RAMP: the start;
				 * AUX: its value (0 for freeze, lost) */
	double to;		/* RAMP: the end value */
	struct fault_spec fault;	/* FAULT */
	/* Its hardware form (scenario_hardware()): the overlay fault a SET
	 * stands for on real readings (kind FAULT_NONE: none); otherwise
	 * hw_needs names what needs the emulator ("drift"; NULL for set and
	 * ramp, named by their parameter) and hw_hint what acts instead. */
	struct fault_spec hw;
	const char *hw_needs;
	const char *hw_hint;
};

struct scenario {
	size_t count;
	/* When the scenario is over: its `end`, or the time its last
	 * action (including ramps and `for` durations) is done. */
	uint64_t end_ms;
	/* Some time was relative to the recording ("40%", "end-10s"): the
	 * times above hold for the length it was parsed for only. */
	bool relative;
	struct scenario_action actions[SCENARIO_MAX_ACTIONS];
};

/*
 * Parse a scenario from text (len bytes, need not be NUL-terminated).
 * name is the file name used in messages.  Returns 0, or -EINVAL with
 * "NAME:LINE: reason" in err; *sc is unusable then.
 */
int
scenario_parse(struct scenario *sc, const char *text, size_t len,
	       const char *name, char *err, size_t errlen);

/* No recording length: times relative to one are errors. */
#define SCENARIO_LENGTH_NONE UINT64_MAX

/*
 * scenario_parse() for a recording length_ms long (from its first sample
 * to its last), which also places times given relative to it: "40%" of
 * the length, "end", "end-10s"; durations may be "10%".  sc->relative
 * says whether any was, i.e. whether another length needs a new parse.
 */
int
scenario_parse_for(struct scenario *sc, const char *text, size_t len,
		   const char *name, uint64_t length_ms, char *err,
		   size_t errlen);

/*
 * An instance verb (`glitch I METRES`): a row of the parser's table,
 * which drives its parse, its hardware form and every list of the verbs
 * (messages, the docs' checks).  It sets one instance's emulator
 * parameter (.field), or, with .overlay, puts that fault overlay kind on
 * the instance (the value checked against faults.c's row): a new verb of
 * either sort is a row, no parse code.
 */
struct scenario_verb {
	const char *verb;
	const char *usage;	/* "glitch INSTANCE METRES" */
	bool takes_value;
	double fixed;		/* the value when it takes none */
	size_t field;		/* in struct sim_baro_params */
	enum fault_kind overlay;	/* FAULT_NONE: .field's parameter */
	/* A parameter verb on real readings (scenario_hardware()): this
	 * overlay kind, FAULT_NONE for none (it needs the emulator; hw_hint
	 * says what acts instead, or NULL). */
	enum fault_kind hw;
	const char *hw_hint;
};

/* Row i of the verbs, NULL past the last. */
const struct scenario_verb *
scenario_verb(size_t i);

/* Every first word of an action (set, ramp, each verb, px4, each other
 * sensor, restore, end) in the order the parser tries them; NULL past
 * the last.  The "unknown action" message lists them so. */
const char *
scenario_action_word(size_t i);

/* "gps drift", "accel bias": an aux fault's words in a scenario file;
 * "?" for a value out of range. */
const char *
scenario_aux_name(int aux);

/* The sensor an aux fault acts on ("GPS", "accelerometer"). */
const char *
scenario_aux_sensor(int aux);

/* The same from a stream; -EIO (message in err) for a read error. */
int
scenario_load(struct scenario *sc, FILE *in, const char *name, char *err,
	      size_t errlen);

/*
 * Check a loaded scenario against the emulator it is to drive, so a line
 * that could not act is refused at load rather than run as a no-op: every
 * action on a baro instance (a verb, a px4 fault, a SIM_BAR2_* or
 * SIM_BAR3_* parameter) needs that instance below params->baro_count, or
 * below a larger SIM_BARO_COUNT the scenario itself sets; every value it
 * sets or ramps through must keep the atmosphere in its domain at home_m
 * (baro_sitl_param_check()).  A fault on another sensor (`gps drift`,
 * `accel bias`) is refused too: the emulator has baros alone, and only
 * baro-replay has the other sensors.  Returns 0 or -EINVAL with
 * "NAME:LINE: reason" in err.
 */
int
scenario_check(const struct scenario *sc, const char *name,
	       const struct sim_params *params,
	       enum baro_sitl_atmosphere atmosphere, double home_m, char *err,
	       size_t errlen);

/*
 * Refuse a scenario that sets or ramps a parameter ArduPilot release v
 * does not have (SIM_BARO_GEFF_M before master): it would silently do
 * nothing.  0, or -EINVAL with "NAME:LINE: reason" in err.
 */
int
scenario_check_release(const struct scenario *sc, const char *name,
		       enum baro_sitl_ardupilot v, char *err, size_t errlen);

/* The first action that sets or ramps a parameter release v does not
 * have, with the reason in why (may be NULL); NULL if none does. */
const struct scenario_action *
scenario_release_misfit(const struct scenario *sc, enum baro_sitl_ardupilot v,
			char *why, size_t whylen);

/*
 * Turn a loaded scenario into its hardware form, in place: what can act
 * on real readings becomes a fault overlay action (px4 off, stuck, wrong,
 * delayed, garbage, slow, intermittent; glitch as wrong, disable as off),
 * and every line that needs the emulator (drift, noise, freeze, delay,
 * set and ramp of SIM_* parameters) is refused, as is a line on a baro
 * instance outside instances (a bit mask: the configured sensors), and
 * so is a fault on another sensor (baro-replay only).
 * Returns 0, or -EINVAL with "NAME:LINE: reason" in err; *sc is unusable
 * then.  Pure; a scenario converted once must not be converted again.
 */
int
scenario_hardware(struct scenario *sc, const char *name, unsigned instances,
		  char *err, size_t errlen);

enum scenario_event_kind {
	SCENARIO_EV_PARAM,	/* a parameter: param, old_value, new_value */
	SCENARIO_EV_FAULT,	/* an overlay slot: old_fault, new_fault */
	SCENARIO_EV_RESTORE,	/* start values back, drift reset: for one
				 * instance (px4 ok) or all (instance -1) */
	SCENARIO_EV_END,	/* the scenario is over; nothing follows */
};

enum scenario_cause {
	SCENARIO_CAUSE_START,		/* the line's action took effect */
	SCENARIO_CAUSE_RAMP_START,	/* the line's ramp began */
	SCENARIO_CAUSE_RAMP_END,	/* the line's ramp reached its end */
	SCENARIO_CAUSE_EXPIRY,		/* the line's `for` ran out */
	SCENARIO_CAUSE_RESTORE,		/* restore, end or px4 ok */
};

struct scenario_event {
	uint64_t time_ms;	/* scenario time it took effect (the step's) */
	uint64_t at_ms;		/* scenario time it was due */
	unsigned line;		/* the line behind it; 0: the automatic end
				 * after the last action, or a stop */
	enum scenario_event_kind kind;
	enum scenario_cause cause;
	int instance;		/* 0..2, or -1: shared parameter, or all */
	int param;		/* SCENARIO_EV_PARAM: table index; else -1 */
	double old_value, new_value;		/* SCENARIO_EV_PARAM */
	struct fault_spec old_fault, new_fault;	/* SCENARIO_EV_FAULT */
	uint64_t duration_ms;	/* START: `for` (0: none); RAMP_START: `over` */
	double ramp_to;		/* RAMP_START: the end value */
};

/* One entry of a run's active set: an action still in force. */
struct scenario_active {
	uint16_t action;
	bool pending;		/* due_ms still to come (`for` or ramp end) */
	uint64_t due_ms;
};

struct scenario_run {
	const struct scenario *sc;
	struct sim_params start;	/* parameters at the start: restore */
	uint32_t sim_start_ms;		/* emulator clock at scenario time 0 */
	uint64_t now_ms;
	size_t next;			/* next action to start */
	bool finished;
	size_t nactive;
	struct scenario_active active[SCENARIO_MAX_ACTIONS];
};

/*
 * Start a run of sc (which must outlive it) at scenario time 0, with the
 * emulator's millis() at sim_start_ms then.  The start values that
 * restore puts back are sim's parameters now.
 */
void
scenario_run_init(struct scenario_run *run, const struct scenario *sc,
		  const struct baro_sitl *sim, uint32_t sim_start_ms);

/*
 * Bring sim and ov to scenario time now_ms (ms since the start; never
 * less than the previous call's): apply every action, `for` expiry and
 * ramp end due by then in time order (at equal times expiries first, then
 * actions in file order), set running ramps to their value at now_ms,
 * and end the scenario once its last action is done.  Call it before the
 * emulator call at that time.
 *
 * Writes up to max_events events and returns how many.  If the buffer
 * filled up, more is due: call again with the same now_ms while
 * scenario_run_due() says so.  -ENOBUFS if max_events is below
 * SCENARIO_EVENTS_MIN, -EINVAL if time went backwards; nothing changes.
 */
int
scenario_step(struct scenario_run *run, uint64_t now_ms, struct baro_sitl *sim,
	      struct fault_overlay *ov, struct scenario_event *events,
	      size_t max_events);

/* Whether anything is due by now_ms that a step has not applied yet. */
bool
scenario_run_due(const struct scenario_run *run, uint64_t now_ms);

bool
scenario_run_finished(const struct scenario_run *run);

/*
 * Stop the run early at now_ms: restore everything as `end` does and
 * report it (a restore and an end event, line 0).  Returns the number of
 * events, 0 if the run was already over, or as scenario_step().
 */
int
scenario_run_stop(struct scenario_run *run, uint64_t now_ms,
		  struct baro_sitl *sim, struct fault_overlay *ov,
		  struct scenario_event *events, size_t max_events);

/* "30s", "1.5s", "250ms": a time as a scenario file writes it.  As
 * snprintf(). */
int
scenario_format_ms(uint64_t ms, char *buf, size_t len);

/*
 * One line of text for an event, without its time, for logs and MAVLink
 * STATUSTEXT ("SIM_BARO_GLITCH 0 -> 15 for 5s").  As snprintf().
 */
int
scenario_event_format(const struct scenario_event *ev, char *buf,
		      size_t len);

#endif
