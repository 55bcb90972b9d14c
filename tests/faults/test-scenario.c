/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Fault scenarios: the parser (every form and every error, with its
 * message), and the engine driving the real emulator and overlay: when
 * actions fire, what `for` puts back, ramps, restore and end, and what
 * each PX4 failure type does to the output.
 */
#include <errno.h>
#include <stdlib.h>

#include "baro-sitl.h"
#include "px4-failure.h"
#include "scenario.h"
#include "test-util.h"

/* Both structs are large: one of each, reused by every test. */
static struct scenario *sc;
static struct scenario_run *run;

static int
setup(void **state)
{
	(void)state;
	sc = malloc(sizeof(*sc));
	run = malloc(sizeof(*run));
	return sc && run ? 0 : -1;
}

static int
teardown(void **state)
{
	(void)state;
	free(sc);
	free(run);
	return 0;
}

static const struct scenario *
parse_ok(const char *text)
{
	char err[512];

	if (scenario_parse(sc, text, strlen(text), "test.scn", err,
			   sizeof(err)) != 0)
		fail_msg("parse failed: %s\n--- input ---\n%s", err, text);
	return sc;
}

static void
parse_err(const char *text, const char *want)
{
	char err[512];
	int rc = scenario_parse(sc, text, strlen(text), "test.scn", err,
				sizeof(err));

	if (rc != -EINVAL || !strstr(err, want))
		fail_msg("rc %d, message '%s', expected '%s'\n"
			 "--- input ---\n%s", rc, err, want, text);
}

static const char *
param_name(const struct scenario_action *a)
{
	return sim_param_info((size_t)a->param)->name;
}

/* ------------------------------------------------------------------ */
/* Parser */

static void
test_parse_forms(void **state)
{
	(void)state;
	const struct scenario *s = parse_ok(
		"# a comment line\n"
		"\n"
		"at 0s set SIM_BARO_GLITCH 15 for 5s\n"
		"  at 1500ms\tset SIM_BAR2_DELAY 40   # trailing comment\n"
		"at 10s ramp SIM_BARO_DRIFT 0 to 0.5 over 20s\r\n"
		"at 1min freeze 2 for 10s\n"
		"at 61s disable 1 for 1s\n"
		"at 62s glitch 0 -3.5 for 1s\n"
		"at 62s drift 1 0.1 for 1s\n"
		"at 62s delay 2 150 for 1s\n"
		"at 62s noise 0 1.25 for 1s\n"
		"at 70s restore\n"
		"at 80s end\n");

	assert_int_equal(s->count, 11);
	const struct scenario_action *a = s->actions;
	assert_int_equal(a[0].op, SCENARIO_OP_SET);
	assert_string_equal(param_name(&a[0]), "SIM_BARO_GLITCH");
	assert_true(a[0].value == 15.0);
	assert_int_equal(a[0].at_ms, 0);
	assert_int_equal(a[0].dur_ms, 5000);
	assert_int_equal(a[0].line, 3);

	assert_int_equal(a[1].at_ms, 1500);
	assert_string_equal(param_name(&a[1]), "SIM_BAR2_DELAY");
	assert_true(a[1].value == 40.0);
	assert_int_equal(a[1].dur_ms, 0);

	assert_int_equal(a[2].op, SCENARIO_OP_RAMP);
	assert_string_equal(param_name(&a[2]), "SIM_BARO_DRIFT");
	assert_true(a[2].value == 0.0);
	assert_true(a[2].to == (double)0.5f);
	assert_int_equal(a[2].dur_ms, 20000);

	static const struct {
		const char *name;
		double value;
	} verbs[] = {
		{ "SIM_BAR3_FREEZE", 1 }, { "SIM_BAR2_DISABLE", 1 },
		{ "SIM_BARO_GLITCH", -3.5 }, { "SIM_BAR2_DRIFT", (double)0.1f },
		{ "SIM_BAR3_DELAY", 150 }, { "SIM_BARO_RND", 1.25 },
	};
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(a[3 + i].op, SCENARIO_OP_SET);
		assert_string_equal(param_name(&a[3 + i]), verbs[i].name);
		assert_true(a[3 + i].value == verbs[i].value);
	}
	assert_int_equal(a[3].at_ms, 60000);
	assert_int_equal(a[3].dur_ms, 10000);
	assert_int_equal(a[9].op, SCENARIO_OP_RESTORE);
	assert_int_equal(a[10].op, SCENARIO_OP_END);
	assert_int_equal(s->end_ms, 80000);
}

/* Time units and decimal forms. */
static void
test_parse_times(void **state)
{
	static const struct {
		const char *word;
		uint64_t ms;
	} tv[] = {
		{ "0ms", 0 },	  { "0s", 0 },	       { "250ms", 250 },
		{ "1.5s", 1500 }, { "0.3s", 300 },     { ".5s", 500 },
		{ "2.s", 2000 },  { "2min", 120000 },  { "0.001s", 1 },
		{ "1.25min", 75000 }, { "1000000000s", 1000000000000ull },
		{ "0.1min", 6000 },   { "999999999.999s", 999999999999ull },
		{ "0.007s", 7 },      { "16777217ms", 16777217 },
	};
	(void)state;

	for (size_t i = 0; i < sizeof(tv) / sizeof(tv[0]); i++) {
		char text[128];
		snprintf(text, sizeof(text),
			 "at %s glitch 0 1 for 1ms\n", tv[i].word);
		const struct scenario *s = parse_ok(text);
		assert_int_equal(s->actions[0].at_ms, tv[i].ms);
		assert_int_equal(s->end_ms, tv[i].ms + 1);
	}
}

/* Times relative to a recording: placed only when its length is known. */
static void
test_parse_relative_times(void **state)
{
	static const char text[] = "at 25% glitch 0 5 for 10%\n"
				   "at end-2s freeze 0 for 1s\n"
				   "at end end\n";
	char err[512];
	(void)state;

	assert_int_equal(scenario_parse_for(sc, text, strlen(text), "r.scn",
					    60000, err, sizeof(err)),
			 0);
	assert_true(sc->relative);
	assert_int_equal(sc->actions[0].at_ms, 15000);
	assert_int_equal(sc->actions[0].dur_ms, 6000);
	assert_int_equal(sc->actions[1].at_ms, 58000);
	assert_int_equal(sc->end_ms, 60000);
	/* The same text on a shorter recording lands elsewhere. */
	assert_int_equal(scenario_parse_for(sc, text, strlen(text), "r.scn",
					    10001, err, sizeof(err)),
			 0);
	assert_int_equal(sc->actions[0].at_ms, 2500);
	assert_int_equal(sc->actions[0].dur_ms, 1000);
	assert_int_equal(sc->actions[1].at_ms, 8001);
	/* Absolute times are not relative, whatever the length. */
	assert_int_equal(scenario_parse_for(sc, "at 1s freeze 0 for 1s\n", 22,
					    "r.scn", 5000, err, sizeof(err)),
			 0);
	assert_false(sc->relative);
	/* On this recording line 2 lands before line 1: out of order. */
	static const char mixed[] = "at 5s freeze 0 for 1s\n"
				    "at 10% glitch 0 5 for 1s\n";
	assert_int_equal(scenario_parse_for(sc, mixed, strlen(mixed), "r.scn",
					    20000, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "r.scn:2: 10% is before line 1's 5s"));
	assert_int_equal(scenario_parse_for(sc, "at end-30s end\n", 15, "r.scn",
					    20000, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "before the start of this 20s recording"));
	assert_int_equal(scenario_parse_for(sc, "at 101% end\n", 12, "r.scn",
					    20000, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "not a percentage from 0% to 100%"));
	/* Without a length (barod, baro-sim) they are errors. */
	parse_err("at 40% glitch 0 5 for 1s\n",
		  "test.scn:1: time '40%' is relative to a recording's length");
	parse_err("at 1s glitch 0 5 for 5%\n",
		  "'for' duration '5%' is relative to a recording's length");
	parse_err("at end end\n", "time 'end' is relative");
	parse_err("at end-1s end\n", "time 'end-1s' is relative");
	parse_err("at 1s delay 0 100 for 3%s\n", "unknown unit '%s'");
}

/* PX4's names and numbers, their mappings and defaults. */
static void
test_parse_px4(void **state)
{
	(void)state;
	const struct scenario *s = parse_ok(
		"at 1s px4 off 0 for 1s\n"
		"at 1s px4 stuck 1 for 1s\n"
		"at 1s px4 garbage 2 for 1s\n"
		"at 1s px4 wrong 0 for 1s\n"
		"at 1s px4 wrong 1 -35 for 1s\n"
		"at 1s px4 slow 2 for 1s\n"
		"at 1s px4 slow 2 4 for 1s\n"
		"at 1s px4 delayed 0 for 1s\n"
		"at 1s px4 delayed 0 120 for 1s\n"
		"at 1s px4 intermittent 1 for 1s\n"
		"at 1s px4 3 1 for 1s\n"
		"at 1s px4 6 2 for 1s\n"
		"at 3s px4 ok 2\n"
		"at 3s px4 0 1\n");
	const struct scenario_action *a = s->actions;

	assert_int_equal(s->count, 14);
	assert_string_equal(param_name(&a[0]), "SIM_BARO_DISABLE");
	assert_true(a[0].value == 1.0);
	/* stuck is the overlay's (pressure and temperature held), not
	 * SIM_BARO_FREEZE (ArduPilot's: the temperature stays live). */
	assert_int_equal(a[1].op, SCENARIO_OP_FAULT);
	assert_int_equal(a[1].instance, 1);
	assert_int_equal(a[1].fault.kind, FAULT_STUCK);
	assert_int_equal(a[2].op, SCENARIO_OP_FAULT);
	assert_int_equal(a[2].instance, 2);
	assert_int_equal(a[2].fault.kind, FAULT_GARBAGE);
	assert_string_equal(param_name(&a[3]), "SIM_BARO_GLITCH");
	assert_true(a[3].value == SCENARIO_PX4_WRONG_M);
	assert_string_equal(param_name(&a[4]), "SIM_BAR2_GLITCH");
	assert_true(a[4].value == -35.0);
	assert_int_equal(a[5].fault.kind, FAULT_SLOW);
	assert_int_equal(a[5].fault.every, FAULT_SLOW_DEFAULT);
	assert_int_equal(a[6].fault.every, 4);
	assert_string_equal(param_name(&a[7]), "SIM_BARO_DELAY");
	assert_true(a[7].value == SCENARIO_PX4_DELAYED_MS);
	assert_true(a[8].value == 120.0);
	assert_int_equal(a[9].fault.kind, FAULT_INTERMITTENT);
	assert_int_equal(a[10].op, SCENARIO_OP_FAULT);
	assert_int_equal(a[10].fault.kind, FAULT_GARBAGE);
	assert_int_equal(a[10].instance, 1);
	assert_string_equal(param_name(&a[11]), "SIM_BAR3_DELAY");
	assert_int_equal(a[12].op, SCENARIO_OP_CLEAR);
	assert_int_equal(a[12].instance, 2);
	assert_int_equal(a[13].op, SCENARIO_OP_CLEAR);
	assert_int_equal(a[13].instance, 1);
	assert_int_equal(s->end_ms, 3000);
}

/* The end: explicit, or when the last action (with its `for` or ramp)
 * is done. */
static void
test_parse_end_time(void **state)
{
	(void)state;
	assert_int_equal(parse_ok("at 1s glitch 0 1 for 10s\n"
				  "at 2s glitch 1 1 for 1s\n")->end_ms,
			 11000);
	assert_int_equal(parse_ok("at 1s ramp SIM_BARO_DRIFT 0 to 1 over 5s\n")
				 ->end_ms,
			 6000);
	assert_int_equal(parse_ok("at 1s glitch 0 1\nat 4s restore\n")->end_ms,
			 4000);
	/* `end` cuts a longer `for` short. */
	assert_int_equal(parse_ok("at 1s glitch 0 1 for 60s\nat 4s end\n")
				 ->end_ms,
			 4000);
	assert_int_equal(parse_ok("at 0s end\n")->end_ms, 0);
}

/* Reading a stream gives what parsing the same text gives. */
static void
test_load_stream(void **state)
{
	static const char text[] = "at 1s freeze 0 for 2s\n"
				   "at 2s px4 slow 1 3 for 1s";
	char err[256];
	(void)state;

	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");
	assert_non_null(f);
	assert_int_equal(scenario_load(sc, f, "s.scn", err, sizeof(err)), 0);
	fclose(f);
	assert_int_equal(sc->count, 2);
	assert_int_equal(sc->actions[1].fault.every, 3);
	assert_int_equal(sc->end_ms, 3000);

	static const char bad[] = "at 1s freeze 0 for 2s\n\nat 2s freeze 3\n";
	f = fmemopen((void *)bad, sizeof(bad) - 1, "r");
	assert_non_null(f);
	assert_int_equal(scenario_load(sc, f, "s.scn", err, sizeof(err)),
			 -EINVAL);
	fclose(f);
	assert_string_equal(err, "s.scn:3: instance '3' is not 0, 1 or 2");

	char *longline = malloc(3000);
	assert_non_null(longline);
	memset(longline, ' ', 2999);
	longline[2999] = '\0';
	f = fmemopen(longline, 2999, "r");
	assert_non_null(f);
	assert_int_equal(scenario_load(sc, f, "s.scn", err, sizeof(err)),
			 -EINVAL);
	fclose(f);
	free(longline);
	assert_string_equal(err, "s.scn:1: line longer than 1024 bytes");
}

/* Every way a file can be wrong, each with its line and reason. */
static void
test_parse_errors(void **state)
{
	static const struct {
		const char *text, *msg;
	} tv[] = {
		{ "set SIM_BARO_GLITCH 1\n",
		  "test.scn:1: 'set': expected 'at TIME ACTION'" },
		{ "at\n",
		  "test.scn:1: 'at' needs a time such as 30s or 1500ms" },
		{ "at 30 glitch 0 1 for 1s\n",
		  "test.scn:1: time '30' needs a unit: ms, s or min" },
		{ "at 30h glitch 0 1 for 1s\n",
		  "time '30h': unknown unit 'h' (use ms, s or min)" },
		{ "at soon glitch 0 1 for 1s\n",
		  "time 'soon' is not a number with a unit" },
		{ "at -1s glitch 0 1 for 1s\n",
		  "time '-1s' is not a number with a unit" },
		{ "at 1.2.3s glitch 0 1 for 1s\n",
		  "time '1.2.3s' is not a number with a unit" },
		{ "at 1e3ms glitch 0 1 for 1s\n",
		  "time '1e3ms': unknown unit 'e3ms'" },
		{ "at 0.0005s glitch 0 1 for 1s\n",
		  "time '0.0005s' is not a whole number of milliseconds" },
		{ "at 999999999.0001s glitch 0 1 for 1s\n",
		  "time '999999999.0001s' is not a whole number of "
		  "milliseconds" },
		{ "at 1000000001s glitch 0 1 for 1s\n",
		  "time '1000000001s' is more than 1000000000s" },
		{ "at 5s\n", "test.scn:1: missing action after 'at 5s'" },
		{ "at 10s glitch 0 1 for 1s\n# x\nat 5s glitch 0 2 for 1s\n",
		  "test.scn:3: 5s is before line 1's 10s: keep the lines in "
		  "time order" },
		{ "at 1s set SIM_BARO_GLICH 2 for 1s\n",
		  "unknown parameter 'SIM_BARO_GLICH' (did you mean "
		  "SIM_BARO_GLITCH?)" },
		{ "at 1s set sim_baro_glitch 2 for 1s\n",
		  "unknown parameter 'sim_baro_glitch' (did you mean "
		  "SIM_BARO_GLITCH?)" },
		{ "at 1s set SIM_BARO_GLITCH for 1s\n",
		  "expected 'set NAME VALUE [for DURATION]'" },
		{ "at 1s set SIM_BARO_GLITCH 1 2 for 1s\n",
		  "expected 'set NAME VALUE [for DURATION]'" },
		{ "at 1s set SIM_BARO_DELAY 99999 for 1s\n",
		  "test.scn:1: SIM_BARO_DELAY: 99999 is out of range [-32768, "
		  "32767]" },
		{ "at 1s set SIM_BARO_COUNT 4 for 1s\n",
		  "SIM_BARO_COUNT: 4 is out of range [0, 3]" },
		{ "at 1s set SIM_BARO_DISABLE 0.5 for 1s\n",
		  "SIM_BARO_DISABLE: '0.5' is not a valid int8 value" },
		{ "at 1s set SIM_BARO_GLITCH high for 1s\n",
		  "SIM_BARO_GLITCH: 'high' is not a number" },
		{ "at 1s set SIM_BARO_GLITCH nan for 1s\n",
		  "SIM_BARO_GLITCH: 'nan' is not a valid float value" },
		{ "at 1s glitch 0 1 for\n",
		  "'for' needs a duration such as 5s" },
		{ "at 1s glitch 0 1 for 0s\n",
		  "'for' duration '0s' must be more than 0" },
		{ "at 1s glitch 0 1 for 5\n",
		  "'for' duration '5' needs a unit" },
		{ "at 1s ramp SIM_BARO_DRIFT 0 0.5 over 1s\n",
		  "expected 'ramp NAME FROM to TO over DURATION'" },
		{ "at 1s ramp SIM_BARO_DRIFT 0 to 0.5\n",
		  "expected 'ramp NAME FROM to TO over DURATION'" },
		{ "at 1s ramp SIM_BARO_DELAY 0 to 100 over 1s\n",
		  "ramp needs a float parameter; SIM_BARO_DELAY is int16" },
		{ "at 1s ramp SIM_BARO_DRIFT 0 to x over 1s\n",
		  "SIM_BARO_DRIFT: 'x' is not a number" },
		{ "at 1s ramp SIM_BARO_DRIFT 0 to 1 over 0ms\n",
		  "ramp duration '0ms' must be more than 0" },
		{ "at 1s ramp SIM_BARO_DRIFT 0 to 1 over 1s for 2s\n",
		  "ramp takes no 'for'" },
		{ "at 1s freeze 3 for 1s\n", "instance '3' is not 0, 1 or 2" },
		{ "at 1s freeze -1 for 1s\n",
		  "instance '-1' is not 0, 1 or 2" },
		{ "at 1s freeze 01 for 1s\n",
		  "instance '01' is not 0, 1 or 2" },
		{ "at 1s freeze 0 1 for 1s\n",
		  "expected 'freeze INSTANCE [for DURATION]'" },
		{ "at 1s glitch 0 for 1s\n",
		  "expected 'glitch INSTANCE METRES [for DURATION]'" },
		{ "at 1s drift 0\n",
		  "expected 'drift INSTANCE M_PER_S [for DURATION]'" },
		{ "at 1s delay 1 600 for 1s\n",
		  "delay 600 ms is outside 0..490 ms" },
		{ "at 1s delay 1 -10 for 1s\n",
		  "delay -10 ms is outside 0..490 ms" },
		{ "at 1s delay 1 1.5 for 1s\n",
		  "SIM_BAR2_DELAY: '1.5' is not a valid int16 value" },
		{ "at 1s noise 2 x for 1s\n",
		  "SIM_BAR3_RND: 'x' is not a number" },
		/* The whole message, with the table's names: below. */
		{ "at 1s px4 broken 0 for 1s\n",
		  "unknown px4 failure type 'broken' (use " },
		{ "at 1s px4 8 0 for 1s\n", "unknown px4 failure type '8'" },
		{ "at 1s px4 OFF 0 for 1s\n",
		  "unknown px4 failure type 'OFF'" },
		{ "at 1s px4 off for 1s\n",
		  "expected 'px4 TYPE INSTANCE [VALUE] [for DURATION]'" },
		{ "at 1s px4 off 0 3 for 1s\n",
		  "px4 off takes no value ('3')" },
		{ "at 1s px4 garbage 0 3 for 1s\n",
		  "px4 garbage takes no value ('3')" },
		{ "at 1s px4 wrong 0 1 2 for 1s\n",
		  "expected 'px4 TYPE INSTANCE [VALUE] [for DURATION]'" },
		{ "at 1s px4 ok 0 for 1s\n", "px4 ok takes no 'for'" },
		{ "at 1s px4 slow 0 1 for 1s\n",
		  "px4 slow: '1' is not a whole number of samples from 2 to "
		  "1000" },
		{ "at 1s px4 slow 0 2.5 for 1s\n",
		  "px4 slow: '2.5' is not a whole number" },
		{ "at 1s px4 delayed 0 700 for 1s\n",
		  "delay 700 ms is outside 0..490 ms" },
		{ "at 1s px4 wrong 2 x for 1s\n",
		  "SIM_BAR3_GLITCH: 'x' is not a number" },
		{ "at 1s px4 stuck 5 for 1s\n",
		  "instance '5' is not 0, 1 or 2" },
		{ "at 1s restore now\n", "unexpected 'now' after 'restore'" },
		{ "at 1s restore for 1s\n", "restore takes no 'for'" },
		{ "at 1s end for 1s\n", "end takes no 'for'" },
		{ "at 1s end\nat 2s glitch 0 1 for 1s\n",
		  "test.scn:2: nothing may follow 'end' (line 1)" },
		{ "at 1s end\nat 1s end\n",
		  "test.scn:2: nothing may follow 'end' (line 1)" },
		{ "at 5s glitch 0 3\n",
		  "test.scn:1: this action is at the scenario's end (5s) and "
		  "would be undone at once: give it 'for DURATION' or end the "
		  "scenario later with 'at TIME end'" },
		{ "at 1s glitch 1 1 for 4s\nat 5s px4 garbage 0\n",
		  "test.scn:2: this action is at the scenario's end (5s)" },
		{ "at 1s glitch 0 3 for 10s\nat 5s freeze 1 for 1s\n"
		  "at 5s end\n",
		  "test.scn:2: this action is at the same time as 'end' (line "
		  "3, 5s) and would be undone at once" },
		{ "", "test.scn:1: no actions: a scenario needs at least one "
		      "'at TIME ACTION' line" },
		{ "# only\n\n# comments\n", "test.scn:3: no actions" },
		{ "at 1s glitch 0 1 for 1s\nat 2s glitch 0 1 for 1s "
		  "a b c d e f g h\n",
		  "test.scn:2: too many words for an action" },
		{ "at 1s glitch 0 1 for 1s\nat 2s glitch\0 0 1 for 1s\n",
		  "test.scn:2: NUL byte in text" },
	};
	(void)state;

	for (size_t i = 0; i < sizeof(tv) / sizeof(tv[0]); i++) {
		/* The NUL case needs its real length. */
		if (strstr(tv[i].msg, "NUL")) {
			static const char nul[] = "at 1s glitch 0 1 for 1s\n"
						  "at 2s glitch\0 0 1 for 1s\n";
			char err[256];
			int rc = scenario_parse(sc, nul, sizeof(nul) - 1,
						"test.scn", err, sizeof(err));
			assert_int_equal(rc, -EINVAL);
			assert_string_equal(err, tv[i].msg);
			continue;
		}
		parse_err(tv[i].text, tv[i].msg);
	}
}

/* An unknown px4 type is told every type there is, from px4-failure.h's
 * table, and the numbers that stand for them. */
static void
test_parse_px4_unknown(void **state)
{
	char names[128], want[256];
	(void)state;

	px4_failure_names(names, sizeof(names), ", ");
	snprintf(want, sizeof(want),
		 "test.scn:1: unknown px4 failure type 'broken' (use %s or "
		 "0-%d)", names, PX4_FAILURE_TYPES - 1);
	parse_err("at 1s px4 broken 0 for 1s\n", want);
}

static void
test_parse_limits(void **state)
{
	char *text = malloc(64 * (SCENARIO_MAX_ACTIONS + 2));
	char *p = text;
	(void)state;

	assert_non_null(text);
	memset(p, 'x', 1025);
	p[1025] = '\0';
	parse_err(text, "test.scn:1: line longer than 1024 bytes");
	/* 1024 bytes is still a line. */
	strcpy(p, "at 1s glitch 0 1 for 1s");
	memset(p + strlen(p), ' ', 1024 - strlen(p));
	p[1024] = '\0';
	parse_ok(text);

	for (unsigned i = 0; i <= SCENARIO_MAX_ACTIONS; i++)
		p += sprintf(p, "at %us glitch 0 1 for 1s\n", i);
	parse_err(text, "test.scn:1025: more than 1024 actions");
	text[strlen(text) - strlen("at 1024s glitch 0 1 for 1s\n")] = '\0';
	assert_int_equal(parse_ok(text)->count, SCENARIO_MAX_ACTIONS);
	free(text);
}

/* ------------------------------------------------------------------ */
/* Engine helpers: a quiet two-baro emulator at 100 m plus 1 cm/10 ms. */

struct rig {
	struct baro_sitl sim;
	struct fault_overlay ov;
	struct scenario_event ev[256];
	size_t nev;
};

static void
rig_init(struct rig *r, const char *text, int count)
{
	struct sim_params p;

	sim_params_defaults(&p);
	for (int i = 0; i < BARO_MAX_INSTANCES; i++)
		p.baro[i].rnd = 0.0f;
	p.baro_count = (int8_t)count;
	baro_sitl_init(&r->sim, &p, BARO_SITL_ATMOS_1976, 1);
	fault_overlay_init(&r->ov, 1);
	scenario_run_init(run, parse_ok(text), &r->sim, 0);
	r->nev = 0;
}

static float
truth(uint64_t now_ms)
{
	return (float)(10000 + (int32_t)(now_ms / 10)) * 0.01f;
}

/* Step the scenario to now (collecting events), then the emulator and
 * the overlay.  Returns the published samples' count. */
static unsigned
rig_call(struct rig *r, uint64_t now_ms, struct baro_sample out[3])
{
	struct baro_sitl_truth t = { .alt_amsl_m = truth(now_ms) };
	struct baro_sample s[BARO_MAX_INSTANCES];
	unsigned pub = 0;

	do {
		size_t room = sizeof(r->ev) / sizeof(r->ev[0]) - r->nev;
		int n = scenario_step(run, now_ms, &r->sim, &r->ov,
				      r->ev + r->nev,
				      room < SCENARIO_EVENTS_MIN ? 0 : room);
		assert_true(n >= 0);
		r->nev += (size_t)n;
	} while (scenario_run_due(run, now_ms));

	unsigned n = baro_sitl_update(&r->sim, (uint32_t)now_ms, &t, s);
	for (unsigned i = 0; i < n; i++) {
		if (fault_overlay_apply(&r->ov, &s[i]))
			out[pub++] = s[i];
	}
	return pub;
}

/* A parameter's current value by name. */
static float
pv(const struct rig *r, const char *name)
{
	int idx = sim_param_find(name);

	assert_true(idx >= 0);
	return sim_param_get(&r->sim.params, (size_t)idx);
}

static const struct scenario_event *
find_event(const struct rig *r, enum scenario_event_kind kind,
	   const char *param, uint64_t at_ms)
{
	for (size_t i = 0; i < r->nev; i++) {
		const struct scenario_event *e = &r->ev[i];
		if (e->kind != kind || e->at_ms != at_ms)
			continue;
		if (param && (e->param < 0 ||
			      strcmp(sim_param_info((size_t)e->param)->name,
				     param) != 0))
			continue;
		return e;
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Timing */

/* On a 10 ms clock a glitch at 0.5 s for 0.2 s covers exactly the
 * samples at 500 .. 690 ms. */
static void
test_timing_10ms(void **state)
{
	struct rig r;
	struct baro_sample s[3];
	(void)state;

	rig_init(&r, "at 0.5s glitch 0 10 for 0.2s\n", 2);
	for (uint64_t t = 0; t <= 1000; t += 10) {
		unsigned n = rig_call(&r, t, s);
		if (t == 0)
			continue;
		assert_int_equal(n, 2);
		float want = truth(t) + 0.0f + 0.0f;
		if (t >= 500 && t < 700)
			want = truth(t) + 0.0f + 10.0f;
		assert_float_exact(s[0].alt_m, want);
		assert_float_exact(s[1].alt_m, truth(t) + 0.0f + 0.0f);
	}
	const struct scenario_event *e =
		find_event(&r, SCENARIO_EV_PARAM, "SIM_BARO_GLITCH", 500);
	assert_non_null(e);
	assert_int_equal(e->time_ms, 500);
	assert_int_equal(e->cause, SCENARIO_CAUSE_START);
	assert_true(e->old_value == 0.0 && e->new_value == 10.0);
	assert_int_equal(e->instance, 0);
	assert_int_equal(e->line, 1);
	e = find_event(&r, SCENARIO_EV_PARAM, "SIM_BARO_GLITCH", 700);
	assert_non_null(e);
	assert_int_equal(e->cause, SCENARIO_CAUSE_EXPIRY);
	assert_true(e->old_value == 10.0 && e->new_value == 0.0);
	assert_non_null(find_event(&r, SCENARIO_EV_END, NULL, 700));
	assert_true(scenario_run_finished(run));
}

/* An action between two calls takes effect at the next call; the event
 * says when it was due and when it happened. */
static void
test_timing_between_calls(void **state)
{
	struct rig r;
	struct baro_sample s[3];
	(void)state;

	rig_init(&r, "at 505ms glitch 0 10 for 100ms\n", 1);
	for (uint64_t t = 0; t <= 700; t += 10) {
		(void)rig_call(&r, t, s);
		assert_float_exact(pv(&r, "SIM_BARO_GLITCH"),
				   t >= 510 && t < 610 ? 10.0f : 0.0f);
	}
	const struct scenario_event *e =
		find_event(&r, SCENARIO_EV_PARAM, "SIM_BARO_GLITCH", 505);
	assert_non_null(e);
	assert_int_equal(e->time_ms, 510);
	e = find_event(&r, SCENARIO_EV_PARAM, "SIM_BARO_GLITCH", 605);
	assert_non_null(e);
	assert_int_equal(e->time_ms, 610);
}

/* 1200 Hz physics: calls at k/1200 s; every action takes effect at the
 * first call in its millisecond, and the 100 Hz samples see it. */
static void
test_timing_1200hz(void **state)
{
	struct rig r;
	struct baro_sample s[3];
	unsigned glitched = 0;
	(void)state;

	rig_init(&r, "at 0.333s freeze 1 for 1ms\n"
		     "at 0.5s glitch 0 10 for 0.2s\n", 2);
	for (uint64_t k = 0; k <= 1200; k++) {
		uint64_t us = (k * 1000000u + 600u) / 1200u;
		uint64_t now = us / 1000u;
		unsigned n = rig_call(&r, now, s);
		for (unsigned i = 0; i < n; i++) {
			if (s[i].instance != 0)
				continue;
			uint64_t t = s[i].time_us / 1000u;
			bool in = t >= 500 && t < 700;
			glitched += in;
			float glitch = in ? 10.0f : 0.0f;
			assert_float_exact(s[i].alt_m,
					   truth(t) + 0.0f + glitch);
		}
	}
	assert_int_equal(glitched, 20);
	for (size_t i = 0; i < r.nev; i++)
		assert_int_equal(r.ev[i].time_ms, r.ev[i].at_ms);
	assert_non_null(find_event(&r, SCENARIO_EV_PARAM, "SIM_BAR2_FREEZE",
				   333));
	assert_non_null(find_event(&r, SCENARIO_EV_PARAM, "SIM_BAR2_FREEZE",
				   334));
}

/* A step that jumps over several items applies them all, in order. */
static void
test_catch_up(void **state)
{
	struct rig r;
	struct baro_sample s[3];
	(void)state;

	rig_init(&r, "at 1s glitch 0 5 for 1s\n"
		     "at 1.5s glitch 0 7 for 3s\n"
		     "at 3s ramp SIM_BARO_DRIFT 0 to 1 over 1s\n"
		     "at 4.5s freeze 0 for 1s\n", 1);
	(void)rig_call(&r, 10000, s);
	assert_true(scenario_run_finished(run));
	/* start 1s, start 1.5s, expiry 2s, ramp 3s, ramp end 4s, expiry
	 * 4.5s, start 4.5s, expiry 5.5s, then the end. */
	static const uint64_t at[] = { 1000, 1500, 2000, 3000,
				       4000, 4500, 4500, 5500 };
	for (size_t i = 0; i < 8; i++) {
		assert_int_equal(r.ev[i].at_ms, at[i]);
		assert_int_equal(r.ev[i].time_ms, 10000);
	}
	assert_int_equal(r.ev[5].cause, SCENARIO_CAUSE_EXPIRY);
	assert_int_equal(r.ev[6].cause, SCENARIO_CAUSE_START);
	assert_int_equal(r.ev[8].kind, SCENARIO_EV_RESTORE);
}

/* ------------------------------------------------------------------ */
/* `for`, overlaps, ramps */

static void
test_for_restores(void **state)
{
	struct rig r;
	struct baro_sample s[3];
	(void)state;

	/* Nested: the inner for ends back at the outer value. */
	rig_init(&r, "at 0s glitch 0 5 for 10s\n"
		     "at 5s glitch 0 8 for 2s\n"
		     "at 20s end\n", 1);
	static const struct {
		uint64_t t;
		float v;
	} nested[] = { { 0, 5 },    { 4990, 5 }, { 5000, 8 }, { 6990, 8 },
		       { 7000, 5 }, { 9990, 5 }, { 10000, 0 } };
	for (size_t i = 0; i < 7; i++) {
		(void)rig_call(&r, nested[i].t, s);
		assert_float_exact(pv(&r, "SIM_BARO_GLITCH"), nested[i].v);
	}

	/* Crossing: when the older one ends first the newer one stays,
	 * and its end goes back to the value before both. */
	rig_init(&r, "at 0s glitch 0 5 for 2s\n"
		     "at 1s glitch 0 8 for 5s\n", 1);
	static const struct {
		uint64_t t;
		float v;
	} crossing[] = { { 0, 5 }, { 1000, 8 }, { 2000, 8 }, { 5999, 8 },
			 { 6000, 0 } };
	for (size_t i = 0; i < 5; i++) {
		(void)rig_call(&r, crossing[i].t, s);
		assert_float_exact(pv(&r, "SIM_BARO_GLITCH"), crossing[i].v);
	}
	assert_true(scenario_run_finished(run));

	/* A lasting set under a `for` survives the `for`'s end. */
	rig_init(&r, "at 0s glitch 0 5 for 2s\n"
		     "at 1s glitch 0 3\n"
		     "at 4s end\n", 1);
	(void)rig_call(&r, 1000, s);
	(void)rig_call(&r, 3000, s);
	assert_float_exact(pv(&r, "SIM_BARO_GLITCH"), 3.0f);
	(void)rig_call(&r, 4000, s);
	assert_float_exact(pv(&r, "SIM_BARO_GLITCH"), 0.0f);

	/* Back-to-back at the same time: the end comes first. */
	rig_init(&r, "at 0s glitch 0 5 for 1s\n"
		     "at 1s glitch 0 8 for 1s\n", 1);
	(void)rig_call(&r, 1000, s);
	assert_float_exact(pv(&r, "SIM_BARO_GLITCH"), 8.0f);
	assert_int_equal(r.ev[1].cause, SCENARIO_CAUSE_EXPIRY);
	assert_int_equal(r.ev[2].cause, SCENARIO_CAUSE_START);
}

/* `for` restores the value the run started with, not the default. */
static void
test_for_restores_start_value(void **state)
{
	struct rig r;
	struct baro_sample s[3];
	(void)state;

	rig_init(&r, "at 0s glitch 0 5 for 1s\n", 1);
	r.sim.params.baro[0].glitch = 2.5f;
	scenario_run_init(run, sc, &r.sim, 0);
	(void)rig_call(&r, 0, s);
	assert_float_exact(pv(&r, "SIM_BARO_GLITCH"), 5.0f);
	(void)rig_call(&r, 1000, s);
	assert_float_exact(pv(&r, "SIM_BARO_GLITCH"), 2.5f);
}

static void
test_ramp(void **state)
{
	struct rig r;
	struct baro_sample s[3];
	(void)state;

	rig_init(&r, "at 10s ramp SIM_BARO_DRIFT 0 to 0.5 over 20s\n"
		     "at 40s end\n", 1);
	static const struct {
		uint64_t t;
		float v;
	} tv[] = { { 0, 0 },	    { 9999, 0 },	{ 10000, 0 },
		   { 15000, 0.125f }, { 20000, 0.25f }, { 25000, 0.375f },
		   { 29990, (float)(0.5 * 19990.0 / 20000.0) },
		   { 30000, 0.5f }, { 39999, 0.5f },	{ 40000, 0 } };
	for (size_t i = 0; i < sizeof(tv) / sizeof(tv[0]); i++) {
		(void)rig_call(&r, tv[i].t, s);
		assert_float_exact(pv(&r, "SIM_BARO_DRIFT"), tv[i].v);
	}
	const struct scenario_event *e =
		find_event(&r, SCENARIO_EV_PARAM, "SIM_BARO_DRIFT", 10000);
	assert_non_null(e);
	assert_int_equal(e->cause, SCENARIO_CAUSE_RAMP_START);
	assert_true(e->ramp_to == 0.5 && e->duration_ms == 20000);
	e = find_event(&r, SCENARIO_EV_PARAM, "SIM_BARO_DRIFT", 30000);
	assert_non_null(e);
	assert_int_equal(e->cause, SCENARIO_CAUSE_RAMP_END);
	assert_true(e->new_value == 0.5);

	/* Down a ramp, from a start that is not the current value. */
	rig_init(&r, "at 1s ramp SIM_TEMP_START 40 to 20 over 4s\n", 1);
	(void)rig_call(&r, 1000, s);
	assert_float_exact(pv(&r, "SIM_TEMP_START"), 40.0f);
	(void)rig_call(&r, 2000, s);
	assert_float_exact(pv(&r, "SIM_TEMP_START"), 35.0f);
	(void)rig_call(&r, 4999, s);
	assert_float_exact(pv(&r, "SIM_TEMP_START"),
			   (float)(40.0 - 20.0 * 3999.0 / 4000.0));
	(void)rig_call(&r, 5000, s);
	assert_float_exact(pv(&r, "SIM_TEMP_START"), 25.0f);
	assert_true(scenario_run_finished(run));
}

/* A `for` set on top of a running ramp holds the parameter; when it
 * ends the ramp carries on where it is by then. */
static void
test_ramp_under_set(void **state)
{
	struct rig r;
	struct baro_sample s[3];
	(void)state;

	rig_init(&r, "at 0s ramp SIM_BARO_GLITCH 0 to 10 over 10s\n"
		     "at 2s glitch 0 -5 for 2s\n"
		     "at 20s end\n", 1);
	(void)rig_call(&r, 1000, s);
	assert_float_exact(pv(&r, "SIM_BARO_GLITCH"), 1.0f);
	(void)rig_call(&r, 3000, s);
	assert_float_exact(pv(&r, "SIM_BARO_GLITCH"), -5.0f);
	(void)rig_call(&r, 4000, s);
	assert_float_exact(pv(&r, "SIM_BARO_GLITCH"), 4.0f);
	const struct scenario_event *e =
		find_event(&r, SCENARIO_EV_PARAM, "SIM_BARO_GLITCH", 4000);
	assert_non_null(e);
	assert_true(e->old_value == -5.0 && e->new_value == 4.0);
	(void)rig_call(&r, 12000, s);
	assert_float_exact(pv(&r, "SIM_BARO_GLITCH"), 10.0f);
}

/* ------------------------------------------------------------------ */
/* restore, end, px4 ok, stop */

/* Drift that ArduPilot cannot undo is undone: after a restore the output
 * is bit for bit that of an emulator that never drifted. */
static void
test_restore_resets_drift(void **state)
{
	static const char *const texts[] = {
		("at 0.1s drift 0 2\nat 0.1s drift 1 -1\nat 1s restore\n"
		 "at 2s end\n"),
		"at 0.1s drift 0 2\nat 0.1s drift 1 -1\nat 1s end\n",
		"at 0.1s drift 0 2 for 0.9s\nat 0.1s drift 1 -1 for 0.9s\n",
	};
	(void)state;

	for (size_t k = 0; k < 3; k++) {
		struct rig r, twin;
		struct baro_sample s[3], w[3];
		rig_init(&twin, "at 0s glitch 2 0 for 1s\n", 2);
		twin.sim.params.baro[0].rnd = 0.3f;
		twin.sim.params.baro[1].rnd = 0.3f;
		rig_init(&r, texts[k], 2);
		r.sim.params.baro[0].rnd = 0.3f;
		r.sim.params.baro[1].rnd = 0.3f;
		scenario_run_init(run, sc, &r.sim, 0);
		for (uint64_t t = 10; t <= 3000; t += 10) {
			assert_int_equal(rig_call(&r, t, s), 2);
			struct baro_sitl_truth tr = { .alt_amsl_m = truth(t) };
			assert_int_equal(baro_sitl_update(&twin.sim,
							  (uint32_t)t, &tr, w),
					 2);
			for (int i = 0; i < 2; i++) {
				if (t >= 100 && t < 1000)
					assert_true(fabsf(s[i].alt_m -
							  w[i].alt_m) > 0.005f);
				else
					assert_float_exact(s[i].alt_m,
							   w[i].alt_m);
			}
		}
		assert_true(scenario_run_finished(run));
		assert_non_null(find_event(&r, SCENARIO_EV_RESTORE, NULL,
					   1000));
		assert_float_exact(r.sim.inst[0].total_drift_m, 0.0f);
	}
}

/* restore puts back every parameter and clears the overlay; later
 * actions still run. */
static void
test_restore_everything(void **state)
{
	struct rig r;
	struct baro_sample s[3];
	(void)state;

	rig_init(&r, "at 0s set SIM_BARO_COUNT 3\n"
		     "at 0s freeze 2\n"
		     "at 0s set SIM_TEMP_START 10 for 60s\n"
		     "at 0s px4 garbage 1 for 60s\n"
		     "at 1s restore\n"
		     "at 2s glitch 0 4 for 1s\n", 2);
	(void)rig_call(&r, 0, s);
	assert_int_equal(r.sim.params.baro_count, 3);
	assert_int_equal(r.ov.inst[1].spec.kind, FAULT_GARBAGE);
	r.nev = 0;
	(void)rig_call(&r, 1000, s);
	assert_int_equal(r.sim.params.baro_count, 2);
	assert_int_equal(r.sim.params.baro[2].freeze, 0);
	assert_float_exact(r.sim.params.temp_start, 25.0f);
	assert_int_equal(r.ov.inst[1].spec.kind, FAULT_NONE);
	/* A marker, then only what changed. */
	assert_int_equal(r.nev, 5);
	assert_int_equal(r.ev[0].kind, SCENARIO_EV_RESTORE);
	assert_int_equal(r.ev[0].instance, -1);
	assert_int_equal(r.ev[0].line, 5);
	assert_int_equal(r.ev[4].kind, SCENARIO_EV_FAULT);
	assert_int_equal(r.ev[4].cause, SCENARIO_CAUSE_RESTORE);
	/* The cancelled `for`s do not fire later; the end is still the
	 * file's: when their time is up. */
	r.nev = 0;
	(void)rig_call(&r, 2000, s);
	assert_float_exact(pv(&r, "SIM_BARO_GLITCH"), 4.0f);
	(void)rig_call(&r, 3000, s);
	assert_float_exact(pv(&r, "SIM_BARO_GLITCH"), 0.0f);
	assert_false(scenario_run_finished(run));
	(void)rig_call(&r, 60000, s);
	assert_true(scenario_run_finished(run));
	assert_null(find_event(&r, SCENARIO_EV_PARAM, "SIM_TEMP_START",
			       60000));
	assert_non_null(find_event(&r, SCENARIO_EV_END, NULL, 60000));
}

/* px4 ok: only that instance goes back (parameters, overlay, drift). */
static void
test_px4_ok(void **state)
{
	struct rig r;
	struct baro_sample s[3];
	(void)state;

	rig_init(&r, "at 0s drift 0 1\n"
		     "at 0s drift 1 1\n"
		     "at 0s px4 slow 0\n"
		     "at 0s px4 wrong 0\n"
		     "at 1s px4 ok 0\n"
		     "at 3s end\n", 2);
	for (uint64_t t = 0; t <= 1000; t += 10)
		(void)rig_call(&r, t, s);
	assert_float_exact(pv(&r, "SIM_BARO_DRIFT"), 0.0f);
	assert_float_exact(pv(&r, "SIM_BARO_GLITCH"), 0.0f);
	assert_float_exact(pv(&r, "SIM_BAR2_DRIFT"), 1.0f);
	assert_int_equal(r.ov.inst[0].spec.kind, FAULT_NONE);
	assert_float_exact(r.sim.inst[0].total_drift_m, 0.0f);
	assert_true(r.sim.inst[1].total_drift_m > 0.9f);
	const struct scenario_event *e =
		find_event(&r, SCENARIO_EV_RESTORE, NULL, 1000);
	assert_non_null(e);
	assert_int_equal(e->instance, 0);
	assert_int_equal(rig_call(&r, 1010, s), 2);
	assert_float_exact(s[0].alt_m, truth(1010) + 0.0f + 0.0f + 0.0f);
}

static void
test_stop_early(void **state)
{
	struct rig r;
	struct baro_sample s[3];
	struct scenario_event ev[SCENARIO_EVENTS_MIN];
	(void)state;

	rig_init(&r, "at 0s glitch 0 5 for 60s\nat 0s px4 slow 1 for 60s\n", 2);
	(void)rig_call(&r, 1000, s);
	assert_false(scenario_run_finished(run));
	assert_int_equal(scenario_run_stop(run, 500, &r.sim, &r.ov, ev,
					   SCENARIO_EVENTS_MIN),
			 -EINVAL);
	assert_int_equal(scenario_run_stop(run, 2000, &r.sim, &r.ov, ev, 8),
			 -ENOBUFS);
	int n = scenario_run_stop(run, 2000, &r.sim, &r.ov, ev,
				  SCENARIO_EVENTS_MIN);
	assert_int_equal(n, 4);
	assert_int_equal(ev[0].kind, SCENARIO_EV_RESTORE);
	assert_int_equal(ev[3].kind, SCENARIO_EV_END);
	assert_int_equal(ev[3].line, 0);
	assert_int_equal(ev[3].time_ms, 2000);
	assert_true(scenario_run_finished(run));
	assert_float_exact(pv(&r, "SIM_BARO_GLITCH"), 0.0f);
	assert_int_equal(r.ov.inst[1].spec.kind, FAULT_NONE);
	/* Nothing more happens, also at the old end times. */
	assert_int_equal(scenario_step(run, 70000, &r.sim, &r.ov, ev,
				       SCENARIO_EVENTS_MIN),
			 0);
	assert_int_equal(scenario_run_stop(run, 70000, &r.sim, &r.ov, ev,
					   SCENARIO_EVENTS_MIN),
			 0);
	assert_float_exact(pv(&r, "SIM_BARO_GLITCH"), 0.0f);
}

/* A small buffer fills up: the step stops, says more is due, and the
 * next call with the same time carries on, losing nothing. */
static void
test_event_buffer(void **state)
{
	char text[8192], *p = text;
	struct baro_sitl sim;
	struct fault_overlay ov;
	struct sim_params prm;
	struct scenario_event ev[SCENARIO_EVENTS_MIN];
	(void)state;

	assert_true(sim_param_count() + BARO_MAX_INSTANCES + 2 <=
		    SCENARIO_EVENTS_MIN);
	for (int i = 0; i < 100; i++)
		p += sprintf(p, "at 1s glitch %d %d for 1s\n", i % 3, i);
	sim_params_defaults(&prm);
	baro_sitl_init(&sim, &prm, BARO_SITL_ATMOS_1976, 1);
	fault_overlay_init(&ov, 1);
	scenario_run_init(run, parse_ok(text), &sim, 0);

	assert_int_equal(scenario_step(run, 0, &sim, &ov, ev,
				       SCENARIO_EVENTS_MIN - 1),
			 -ENOBUFS);
	assert_int_equal(scenario_step(run, 0, &sim, &ov, ev,
				       SCENARIO_EVENTS_MIN),
			 0);
	assert_false(scenario_run_due(run, 999));
	assert_true(scenario_run_due(run, 1000));
	int total = 0, calls = 0;
	do {
		int n = scenario_step(run, 1000, &sim, &ov, ev,
				      SCENARIO_EVENTS_MIN);
		assert_true(n > 0 && n <= SCENARIO_EVENTS_MIN);
		for (int i = 0; i < n; i++)
			assert_int_equal(ev[i].line, (unsigned)(total + i + 1));
		total += n;
		calls++;
	} while (scenario_run_due(run, 1000));
	assert_int_equal(total, 100);
	assert_int_equal(calls, 2);
	assert_float_exact(sim.params.baro[0].glitch, 99.0f);
	assert_float_exact(sim.params.baro[1].glitch, 97.0f);

	/* Time may not go backwards. */
	assert_int_equal(scenario_step(run, 999, &sim, &ov, ev,
				       SCENARIO_EVENTS_MIN),
			 -EINVAL);
}

/* The run starts at scenario time 0 whatever the emulator's clock says:
 * drift restarts at the emulator's time of the restore. */
static void
test_sim_clock_offset(void **state)
{
	struct baro_sitl sim;
	struct fault_overlay ov;
	struct sim_params prm;
	struct scenario_event ev[SCENARIO_EVENTS_MIN];
	(void)state;

	sim_params_defaults(&prm);
	baro_sitl_init(&sim, &prm, BARO_SITL_ATMOS_1976, 1);
	fault_overlay_init(&ov, 1);
	scenario_run_init(run, parse_ok("at 2s drift 0 1\nat 3s end\n"), &sim,
			  UINT32_MAX - 1000);
	assert_int_equal(scenario_step(run, 3000, &sim, &ov, ev,
				       SCENARIO_EVENTS_MIN),
			 4);
	assert_int_equal(sim.inst[0].last_drift_ms, 1999);
}

/* ------------------------------------------------------------------ */
/* PX4 failure types through the emulator and the overlay */

struct series {
	unsigned n;
	struct baro_sample s[400];
	bool healthy;	/* instance 0 at 1.5 s */
};

/* Run text for 3 s on a 10 ms clock with quiet baros climbing; collect
 * instance 0's published samples between 1 and 2 s (the fault window
 * of every case below). */
static void
px4_run(const char *text, uint32_t seed, struct series *out)
{
	struct rig r;
	struct baro_sample s[3];

	rig_init(&r, text, 2);
	fault_overlay_init(&r.ov, seed);
	out->n = 0;
	for (uint64_t t = 0; t <= 3000; t += 10) {
		unsigned n = rig_call(&r, t, s);
		for (unsigned i = 0; i < n; i++) {
			if (s[i].instance == 0 && t >= 1000 && t < 2000)
				out->s[out->n++] = s[i];
		}
		if (t == 1500)
			out->healthy = baro_sitl_healthy(&r.sim, 0);
	}
	assert_true(scenario_run_finished(run));
}

/* Same published samples, field by field (padding is not data). */
static bool
same_series(const struct series *a, const struct series *b)
{
	if (a->n != b->n)
		return false;
	for (unsigned i = 0; i < a->n; i++) {
		const struct baro_sample *x = &a->s[i], *y = &b->s[i];
		if (x->time_us != y->time_us || x->instance != y->instance ||
		    x->flags != y->flags ||
		    float_ulps(x->pressure_pa, y->pressure_pa) != 0 ||
		    float_ulps(x->temperature_c, y->temperature_c) != 0 ||
		    float_ulps(x->alt_m, y->alt_m) != 0)
			return false;
	}
	return true;
}

static void
test_px4_types(void **state)
{
	struct series a, b;
	(void)state;

	/* ok-like baseline: every sample, on the truth. */
	px4_run("at 1s px4 ok 1\nat 3s end\n", 1, &a);
	assert_int_equal(a.n, 100);
	for (unsigned i = 0; i < a.n; i++)
		assert_float_exact(a.s[i].alt_m,
				   truth(a.s[i].time_us / 1000) + 0.0f + 0.0f);

	assert_true(a.healthy);

	/* off: no samples, unhealthy. */
	px4_run("at 1s px4 off 0 for 1s\n", 1, &a);
	assert_int_equal(a.n, 0);
	assert_false(a.healthy);
	px4_run("at 1s px4 1 0 for 1s\n", 1, &b);
	assert_int_equal(b.n, 0);
	assert_false(b.healthy);

	/* stuck: the sample read at 990 ms, held whole: pressure and
	 * temperature bit-identical (PX4 calls a baro stale only then). */
	px4_run("at 1s px4 stuck 0 for 1s\n", 1, &a);
	assert_int_equal(a.n, 100);
	for (unsigned i = 0; i < a.n; i++) {
		assert_float_exact(a.s[i].alt_m, truth(990) + 0.0f + 0.0f);
		assert_float_exact(a.s[i].pressure_pa, a.s[0].pressure_pa);
		assert_float_exact(a.s[i].temperature_c, a.s[0].temperature_c);
	}
	/* SIM_BARO_FREEZE, ArduPilot's: the pressure of the last stored
	 * altitude, the temperature live (it moves: not stale for PX4). */
	px4_run("at 1s freeze 0 for 1s\n", 1, &b);
	assert_int_equal(b.n, 100);
	bool moved = false;
	for (unsigned i = 0; i < b.n; i++) {
		assert_float_exact(b.s[i].pressure_pa, b.s[0].pressure_pa);
		moved |= b.s[i].temperature_c != b.s[0].temperature_c;
	}
	assert_true(moved);

	/* garbage: random in-range values, no altitude, every sample. */
	px4_run("at 1s px4 garbage 0 for 1s\n", 1, &a);
	assert_int_equal(a.n, 100);
	for (unsigned i = 0; i < a.n; i++) {
		assert_false(baro_sample_has(&a.s[i],
					     BARO_SAMPLE_HAS_ALTITUDE));
		assert_true(a.s[i].pressure_pa >= FAULT_GARBAGE_PA_MIN &&
			    a.s[i].pressure_pa <= FAULT_GARBAGE_PA_MAX);
	}
	assert_true(a.s[0].pressure_pa != a.s[1].pressure_pa);

	/* wrong: plausible but off by the default 20 m, or the value. */
	px4_run("at 1s px4 wrong 0 for 1s\n", 1, &a);
	px4_run("at 1s px4 4 0 -7 for 1s\n", 1, &b);
	assert_int_equal(a.n, 100);
	for (unsigned i = 0; i < a.n; i++) {
		float t = truth(a.s[i].time_us / 1000) + 0.0f;
		assert_float_exact(a.s[i].alt_m, t + 20.0f);
		assert_float_exact(b.s[i].alt_m, t - 7.0f);
	}

	/* slow: one sample in 10 (10 Hz), or in N. */
	px4_run("at 1s px4 slow 0 for 1s\n", 1, &a);
	assert_int_equal(a.n, 10);
	for (unsigned i = 0; i < a.n; i++)
		assert_int_equal(a.s[i].time_us, 1000000u + 100000u * i);
	px4_run("at 1s px4 5 0 4 for 1s\n", 1, &b);
	assert_int_equal(b.n, 25);

	/* delayed: valid data 300 ms old (the climb is 1 cm per 10 ms). */
	px4_run("at 1s px4 delayed 0 for 1s\n", 1, &a);
	assert_int_equal(a.n, 100);
	for (unsigned i = 0; i < a.n; i++)
		assert_float_exact(a.s[i].alt_m,
				   truth(a.s[i].time_us / 1000 - 300) + 0.0f +
					   0.0f);
	px4_run("at 1s px4 6 0 50 for 1s\n", 1, &b);
	assert_float_exact(b.s[0].alt_m, truth(950) + 0.0f + 0.0f);

	/* intermittent: gaps and bursts, the published ones untouched,
	 * the same for the same seed, not for another. */
	px4_run("at 1s px4 intermittent 0 for 1s\n", 1, &a);
	assert_true(a.n > 10 && a.n < 90);
	assert_true(a.s[0].time_us > 1000000u);
	for (unsigned i = 0; i < a.n; i++)
		assert_float_exact(a.s[i].alt_m,
				   truth(a.s[i].time_us / 1000) + 0.0f + 0.0f);
	px4_run("at 1s px4 7 0 for 1s\n", 1, &b);
	assert_true(same_series(&a, &b));
	px4_run("at 1s px4 7 0 for 1s\n", 2, &b);
	assert_false(same_series(&a, &b));
}

/* The overlay with a seed: two whole runs with garbage agree bit for
 * bit; another seed changes the garbage only. */
static void
test_overlay_seed(void **state)
{
	struct series a, b, c;
	(void)state;

	px4_run("at 1s px4 garbage 0 for 1s\n", 77, &a);
	px4_run("at 1s px4 garbage 0 for 1s\n", 77, &b);
	px4_run("at 1s px4 garbage 0 for 1s\n", 78, &c);
	assert_true(same_series(&a, &b));
	assert_int_equal(a.n, c.n);
	int differ = 0;
	for (unsigned i = 0; i < a.n; i++) {
		differ += a.s[i].pressure_pa != c.s[i].pressure_pa;
		assert_int_equal(a.s[i].time_us, c.s[i].time_us);
	}
	assert_true(differ > 95);
}

/* ------------------------------------------------------------------ */

static void
test_event_format(void **state)
{
	struct rig r;
	struct baro_sample s[3];
	char buf[128];
	(void)state;

	rig_init(&r, "at 30s set SIM_BARO_GLITCH 15\n"
		     "at 31s freeze 2 for 1.5s\n"
		     "at 32s ramp SIM_BARO_DRIFT 0 to 0.5 over 20s\n"
		     "at 33s px4 slow 1 for 250ms\n"
		     "at 40s px4 ok 1\n"
		     "at 60s end\n", 3);
	static const uint64_t calls[] = { 30000, 31000, 32000, 32500, 33000,
					  33250, 40000, 52000, 60000 };
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		(void)rig_call(&r, calls[i], s);
	static const char *const want[] = {
		"SIM_BARO_GLITCH 0 -> 15",
		"SIM_BAR3_FREEZE 0 -> 1 for 1.5s",
		"SIM_BARO_DRIFT 0 -> 0, ramp to 0.5 over 20s",
		"SIM_BAR3_FREEZE 1 -> 0, end of line 2",
		"baro 1 fault none -> slow 10 for 250ms",
		"baro 1 fault slow 10 -> none, end of line 4",
		"baro 1 back to its start (px4 ok)",
		"SIM_BARO_DRIFT 0.2 -> 0.5, ramp done",
		"restore: start values, drift reset",
		"SIM_BARO_DRIFT 0.5 -> 0",
		"SIM_BARO_GLITCH 15 -> 0",
		"scenario over",
	};
	assert_int_equal(r.nev, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < r.nev; i++) {
		scenario_event_format(&r.ev[i], buf, sizeof(buf));
		assert_string_equal(buf, want[i]);
	}

	static const struct {
		uint64_t ms;
		const char *text;
	} tv[] = { { 0, "0s" },	     { 250, "250ms" },	{ 1000, "1s" },
		   { 1500, "1.5s" }, { 1050, "1.05s" }, { 61001, "61.001s" } };
	for (size_t i = 0; i < sizeof(tv) / sizeof(tv[0]); i++) {
		scenario_format_ms(tv[i].ms, buf, sizeof(buf));
		assert_string_equal(buf, tv[i].text);
	}
}

/* The hardware form: each line that can act on real readings becomes an
 * overlay action with the value it had; its times, `for`s and ending
 * stay; the run then drives only the overlay. */
static void
test_hardware_form(void **state)
{
	char err[512];
	struct baro_sitl sim;
	struct fault_overlay ov;
	struct sim_params prm;
	struct scenario_event ev[SCENARIO_EVENTS_MIN];
	(void)state;

	parse_ok("at 1s px4 wrong 0 15 for 1s\n"
		 "at 2s glitch 1 -7.5 for 1s\n"
		 "at 3s px4 stuck 0 for 1s\n"
		 "at 4s px4 off 1 for 500ms\n"
		 "at 5s disable 0 for 1s\n"
		 "at 6s px4 delayed 0 200 for 1s\n"
		 "at 7s px4 slow 1 4 for 1s\n"
		 "at 8s px4 garbage 0\n"
		 "at 9s px4 ok 0\n"
		 "at 10s px4 wrong 1\n"
		 "at 11s restore\n"
		 "at 12s end\n");
	const uint64_t end = sc->end_ms;
	assert_int_equal(scenario_hardware(sc, "hw.scn", 0x3, err, sizeof(err)),
			 0);
	assert_int_equal(sc->end_ms, end);
	static const struct {
		enum scenario_op op;
		int instance;
		enum fault_kind kind;
		float offset_m;
		uint32_t delay_ms, every;
		uint64_t dur_ms;
	} want[] = {
		{ SCENARIO_OP_FAULT, 0, FAULT_WRONG, 15.0f, 0, 0, 1000 },
		{ SCENARIO_OP_FAULT, 1, FAULT_WRONG, -7.5f, 0, 0, 1000 },
		{ SCENARIO_OP_FAULT, 0, FAULT_STUCK, 0, 0, 0, 1000 },
		{ SCENARIO_OP_FAULT, 1, FAULT_OFF, 0, 0, 0, 500 },
		{ SCENARIO_OP_FAULT, 0, FAULT_OFF, 0, 0, 0, 1000 },
		{ SCENARIO_OP_FAULT, 0, FAULT_DELAYED, 0, 200, 0, 1000 },
		{ SCENARIO_OP_FAULT, 1, FAULT_SLOW, 0, 0, 4, 1000 },
		{ SCENARIO_OP_FAULT, 0, FAULT_GARBAGE, 0, 0, 0, 0 },
		{ SCENARIO_OP_CLEAR, 0, FAULT_NONE, 0, 0, 0, 0 },
		{ SCENARIO_OP_FAULT, 1, FAULT_WRONG, (float)SCENARIO_PX4_WRONG_M,
		  0, 0, 0 },
		{ SCENARIO_OP_RESTORE, -1, FAULT_NONE, 0, 0, 0, 0 },
		{ SCENARIO_OP_END, -1, FAULT_NONE, 0, 0, 0, 0 },
	};
	assert_int_equal(sc->count, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < sc->count; i++) {
		const struct scenario_action *a = &sc->actions[i];
		assert_int_equal(a->op, want[i].op);
		assert_int_equal(a->instance, want[i].instance);
		assert_int_equal(a->at_ms, (i + 1) * 1000u);
		assert_int_equal(a->dur_ms, want[i].dur_ms);
		if (a->op != SCENARIO_OP_FAULT)
			continue;
		assert_int_equal(a->param, -1);
		assert_int_equal(a->fault.kind, want[i].kind);
		assert_float_exact(a->fault.offset_m, want[i].offset_m);
		assert_int_equal(a->fault.delay_ms, want[i].delay_ms);
		assert_int_equal(a->fault.every, want[i].every);
	}

	/* Run: the overlay follows, the emulator's parameters never move. */
	sim_params_defaults(&prm);
	baro_sitl_init(&sim, &prm, BARO_SITL_ATMOS_1976, 1);
	fault_overlay_init(&ov, 1);
	scenario_run_init(run, sc, &sim, 0);
	const struct sim_params before = sim.params;
	static const struct {
		uint64_t t;
		enum fault_kind k0, k1;
	} at[] = {
		{ 999, FAULT_NONE, FAULT_NONE },
		{ 1000, FAULT_WRONG, FAULT_NONE },
		{ 2000, FAULT_NONE, FAULT_WRONG },
		{ 3500, FAULT_STUCK, FAULT_NONE },
		{ 4400, FAULT_NONE, FAULT_OFF },
		{ 4500, FAULT_NONE, FAULT_NONE },
		{ 6000, FAULT_DELAYED, FAULT_NONE },
		{ 8500, FAULT_GARBAGE, FAULT_NONE },
		{ 9000, FAULT_NONE, FAULT_NONE },
		{ 10000, FAULT_NONE, FAULT_WRONG },
		{ 11000, FAULT_NONE, FAULT_NONE },
	};
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		do {
			assert_true(scenario_step(run, at[i].t, &sim, &ov, ev,
						  SCENARIO_EVENTS_MIN) >= 0);
		} while (scenario_run_due(run, at[i].t));
		assert_int_equal(ov.inst[0].spec.kind, at[i].k0);
		assert_int_equal(ov.inst[1].spec.kind, at[i].k1);
		assert_memory_equal(&sim.params, &before, sizeof(before));
	}
	assert_float_exact(ov.inst[1].spec.offset_m, 0.0f);
	assert_true(scenario_step(run, 12000, &sim, &ov, ev,
				  SCENARIO_EVENTS_MIN) > 0);
	assert_true(scenario_run_finished(run));
}

/* What needs the emulator is refused with its line and why, and so is a
 * line on an instance no sensor reads. */
static void
test_hardware_refusals(void **state)
{
	static const struct {
		const char *text;
		const char *msg;
	} tv[] = {
		{ "at 1s drift 0 0.5 for 1s\n",
		  "hw.scn:1: 'drift' needs the emulator (hardware mode reads "
		  "real sensors)" },
		{ "# noise\n\nat 1s noise 0 2 for 1s\n",
		  "hw.scn:3: 'noise' needs the emulator" },
		{ "at 1s set SIM_BARO_GLITCH 10 for 1s\n",
		  "hw.scn:1: 'set SIM_BARO_GLITCH' needs the emulator" },
		{ "at 1s px4 off 0 for 1s\nat 2s set SIM_BARO_COUNT 2 for 1s\n",
		  "hw.scn:2: 'set SIM_BARO_COUNT' needs the emulator" },
		{ "at 1s ramp SIM_BARO_GLITCH 0 to 5 over 2s\n",
		  "hw.scn:1: 'ramp SIM_BARO_GLITCH' needs the emulator" },
		{ "at 1s freeze 0 for 1s\n",
		  "hw.scn:1: 'freeze' needs the emulator (hardware mode reads "
		  "real sensors); 'px4 stuck INSTANCE' holds real readings" },
		{ "at 1s delay 0 100 for 1s\n",
		  "hw.scn:1: 'delay' needs the emulator (hardware mode reads "
		  "real sensors); 'px4 delayed INSTANCE MS' delays real "
		  "readings" },
		{ "at 1s px4 stuck 2 for 1s\n",
		  "hw.scn:1: baro instance 2 has no [sensor] in this "
		  "configuration" },
		{ "at 1s px4 ok 2\nat 2s end\n",
		  "hw.scn:1: baro instance 2 has no [sensor]" },
		{ "at 1s glitch 1 20000 for 1s\n",
		  "hw.scn:1: 20000 m: hardware mode's overlay fault 'wrong' "
		  "takes -10000 to 10000 m" },
	};
	char err[512];
	(void)state;

	for (size_t i = 0; i < sizeof(tv) / sizeof(tv[0]); i++) {
		parse_ok(tv[i].text);
		int rc = scenario_hardware(sc, "hw.scn", 0x3, err, sizeof(err));
		if (rc != -EINVAL || !strstr(err, tv[i].msg))
			fail_msg("rc %d, message '%s', expected '%s'", rc, err,
				 tv[i].msg);
	}
}


/* ------------------------------------------------------------------ */
/* Faults on the other sensors (baro-replay only) */

static void
test_parse_aux(void **state)
{
	(void)state;
	static const struct {
		enum scenario_aux aux;
		double value;
		uint64_t dur_ms;
		const char *name, *sensor;
	} want[] = {
		{ SCENARIO_AUX_GPS_OFFSET, -12.5, 2000, "gps offset", "GPS" },
		{ SCENARIO_AUX_GPS_DRIFT, 0.2, 0, "gps drift", "GPS" },
		{ SCENARIO_AUX_GPS_FREEZE, 0.0, 1000, "gps freeze", "GPS" },
		{ SCENARIO_AUX_GPS_LOST, 0.0, 0, "gps lost", "GPS" },
		{ SCENARIO_AUX_ACCEL_BIAS, 0.5, 20000, "accel bias",
		  "accelerometer" },
		{ SCENARIO_AUX_ACCEL_NOISE, 0.3, 1500, "accel noise",
		  "accelerometer" },
	};

	/* 30% of a 60 s recording. */
	char err[512];
	const char *text =
		"at 1s gps offset -12.5 for 2s\n"
		"at 2s gps drift 0.2 for 30%\n"
		"at 3s gps freeze for 1s\n"
		"at 4s gps lost\n"
		"at 5s accel bias 0.5 for 20s\n"
		"at 6s accel noise 0.3 for 1500ms\n"
		"at 7s restore\n"
		"at 40s end\n";
	assert_int_equal(scenario_parse_for(sc, text, strlen(text), "t.scn",
					    60000, err, sizeof(err)),
			 0);
	assert_int_equal(sc->count, 8);
	for (size_t i = 0; i < 6; i++) {
		const struct scenario_action *a = &sc->actions[i];
		assert_int_equal(a->op, SCENARIO_OP_AUX);
		assert_int_equal(a->aux, want[i].aux);
		assert_true(a->value == want[i].value);
		assert_int_equal(a->at_ms, 1000 * (i + 1));
		assert_int_equal(a->instance, -1);
		assert_int_equal(a->param, -1);
		assert_int_equal(a->dur_ms,
				 i == 1 ? 18000u : want[i].dur_ms);
		assert_string_equal(scenario_aux_name(a->aux), want[i].name);
		assert_string_equal(scenario_aux_sensor(a->aux),
				    want[i].sensor);
	}
	assert_int_equal(sc->actions[0].line, 1);
	assert_int_equal(sc->end_ms, 40000);
	assert_string_equal(scenario_aux_name(SCENARIO_AUX_KINDS), "?");
	assert_string_equal(scenario_aux_name(-1), "?");
}

static void
test_parse_aux_errors(void **state)
{
	static const struct {
		const char *text, *msg;
	} tv[] = {
		{ "at 1s gps\n",
		  "test.scn:1: 'gps' needs a fault: offset, drift, freeze or "
		  "lost" },
		{ "at 1s accel for 1s\n",
		  "test.scn:1: 'accel' needs a fault: bias or noise" },
		{ "at 1s gps jam for 1s\n",
		  "test.scn:1: unknown gps fault 'jam' (use offset, drift, "
		  "freeze or lost)" },
		{ "at 1s accel drift 1 for 1s\n",
		  "test.scn:1: unknown accel fault 'drift' (use bias or "
		  "noise)" },
		{ "at 1s gps offset for 1s\n",
		  "test.scn:1: expected 'gps offset METRES [for DURATION]'" },
		{ "at 1s gps drift 1 2 for 1s\n",
		  "test.scn:1: expected 'gps drift M_PER_S [for DURATION]'" },
		{ "at 1s gps freeze 1 for 1s\n",
		  "test.scn:1: expected 'gps freeze [for DURATION]'" },
		{ "at 1s gps lost 0 for 1s\n",
		  "test.scn:1: expected 'gps lost [for DURATION]'" },
		{ "at 1s accel bias for 1s\n",
		  "test.scn:1: expected 'accel bias M_PER_S2 [for "
		  "DURATION]'" },
		{ "at 1s accel noise for 1s\n",
		  "test.scn:1: expected 'accel noise SD [for DURATION]'" },
		{ "at 1s gps offset ten for 1s\n",
		  "test.scn:1: gps offset: 'ten' is not a number" },
		{ "at 1s gps offset nan for 1s\n",
		  "test.scn:1: gps offset: 'nan' is not a number" },
		{ "at 1s gps offset inf for 1s\n",
		  "test.scn:1: gps offset: 'inf' is not a number" },
		{ "at 1s gps offset 10001 for 1s\n",
		  "test.scn:1: gps offset: 10001 is outside -10000..10000 m" },
		{ "at 1s gps drift -100.5 for 1s\n",
		  "test.scn:1: gps drift: -100.5 is outside -100..100 m/s" },
		{ "at 1s accel bias 200 for 1s\n",
		  "test.scn:1: accel bias: 200 is outside -160..160 m/s^2" },
		{ "at 1s accel noise -0.1 for 1s\n",
		  "test.scn:1: accel noise: -0.1 is outside 0..160 m/s^2" },
		{ "at 1s gps lost\n",
		  "test.scn:1: this action is at the scenario's end (1s) and "
		  "would be undone at once" },
		{ "at 1s gps freeze\nat 1s end\n",
		  "test.scn:1: this action is at the same time as 'end' "
		  "(line 2, 1s) and would be undone at once" },
		{ "at 1s GPS lost for 1s\n",
		  "test.scn:1: unknown action 'GPS'" },
		{ "at 1s gps drift 0.1 for 0s\n",
		  "test.scn:1: 'for' duration '0s' must be more than 0" },
		{ "at 25% gps lost for 1s\n",
		  "test.scn:1: time '25%' is relative to a recording's "
		  "length: only baro-replay can place it" },
	};
	(void)state;

	for (size_t i = 0; i < sizeof(tv) / sizeof(tv[0]); i++)
		parse_err(tv[i].text, tv[i].msg);
}

/* barod and baro-sim have no GPS or accelerometer: the load-time checks
 * refuse such a line, naming it; the engine runs past it untouched. */
static void
test_aux_refused_elsewhere(void **state)
{
	(void)state;
	static const struct {
		const char *text, *msg;
	} tv[] = {
		{ "at 1s glitch 0 5 for 1s\nat 2s gps drift 0.2 for 3s\n",
		  "x.scn:2: 'gps drift' faults the GPS: baro-replay only "
		  "(barod and baro-sim have baros alone)" },
		{ "at 1s accel bias 0.5 for 3s\n",
		  "x.scn:1: 'accel bias' faults the accelerometer: "
		  "baro-replay only (barod and baro-sim have baros alone)" },
	};
	struct sim_params p;
	char err[512];

	sim_params_defaults(&p);
	for (size_t i = 0; i < sizeof(tv) / sizeof(tv[0]); i++) {
		parse_ok(tv[i].text);
		assert_int_equal(scenario_check(sc, "x.scn", &p,
						BARO_SITL_ATMOS_1976, 0.0,
						err, sizeof(err)),
				 -EINVAL);
		assert_string_equal(err, tv[i].msg);
		assert_int_equal(scenario_hardware(sc, "x.scn", 0x1, err,
						   sizeof(err)),
				 -EINVAL);
		assert_string_equal(err, tv[i].msg);
	}

	/* The engine: no event, no parameter or overlay slot touched. */
	struct rig r;
	struct baro_sample out[3];
	rig_init(&r, "at 1s gps lost for 2s\nat 2s accel noise 1 for 2s\n",
		 2);
	for (uint64_t t = 0; t <= 5000; t += 10)
		(void)rig_call(&r, t, out);
	assert_true(scenario_run_finished(run));
	assert_int_equal(r.nev, 2);	/* the end: a restore, the end */
	assert_int_equal(r.ev[0].kind, SCENARIO_EV_RESTORE);
	assert_int_equal(r.ev[0].at_ms, 4000);
	assert_int_equal(r.ev[1].kind, SCENARIO_EV_END);
}

/* The unknown-action message lists the words the parser takes, in its
 * order ("use set, ramp, ... restore or end"), each of which the parser
 * then does not call unknown: the list and the parse cannot drift. */
static void
test_unknown_action_lists_the_words(void **state)
{
	char want[512] = "test.scn:1: unknown action 'explode' (use ";
	char err[512], line[64];
	size_t n = 0;
	(void)state;

	while (scenario_action_word(n))
		n++;
	assert_true(n >= 5);
	for (size_t i = 0; i < n; i++) {
		const char *w = scenario_action_word(i);
		snprintf(want + strlen(want), sizeof(want) - strlen(want),
			 "%s%s", w, i + 1 == n ? ")" : i + 2 == n ? " or "
								 : ", ");
		snprintf(line, sizeof(line), "at 1s %s\n", w);
		(void)scenario_parse(sc, line, strlen(line), "test.scn", err,
				     sizeof(err));
		if (strstr(err, "unknown action"))
			fail_msg("'%s' is listed but unknown: %s", w, err);
	}
	parse_err("at 1s explode 0\n", want);
	/* Every instance verb is a word. */
	for (size_t v = 0; scenario_verb(v); v++) {
		size_t i = 0;
		while (i < n && strcmp(scenario_action_word(i),
				       scenario_verb(v)->verb) != 0)
			i++;
		assert_true(i < n);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_forms),
		cmocka_unit_test(test_parse_times),
		cmocka_unit_test(test_parse_px4),
		cmocka_unit_test(test_parse_end_time),
		cmocka_unit_test(test_parse_relative_times),
		cmocka_unit_test(test_load_stream),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_unknown_action_lists_the_words),
		cmocka_unit_test(test_parse_px4_unknown),
		cmocka_unit_test(test_parse_limits),
		cmocka_unit_test(test_timing_10ms),
		cmocka_unit_test(test_timing_between_calls),
		cmocka_unit_test(test_timing_1200hz),
		cmocka_unit_test(test_catch_up),
		cmocka_unit_test(test_for_restores),
		cmocka_unit_test(test_for_restores_start_value),
		cmocka_unit_test(test_ramp),
		cmocka_unit_test(test_ramp_under_set),
		cmocka_unit_test(test_restore_resets_drift),
		cmocka_unit_test(test_restore_everything),
		cmocka_unit_test(test_px4_ok),
		cmocka_unit_test(test_stop_early),
		cmocka_unit_test(test_event_buffer),
		cmocka_unit_test(test_sim_clock_offset),
		cmocka_unit_test(test_px4_types),
		cmocka_unit_test(test_overlay_seed),
		cmocka_unit_test(test_event_format),
		cmocka_unit_test(test_hardware_form),
		cmocka_unit_test(test_hardware_refusals),
		cmocka_unit_test(test_parse_aux),
		cmocka_unit_test(test_parse_aux_errors),
		cmocka_unit_test(test_aux_refused_elsewhere),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
