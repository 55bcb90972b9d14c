/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * baro-sim: the offline front end of the AP_Baro_SITL emulator.  Reads a
 * truth trace (CSV) or generates one, runs every row through the emulator
 * as one timer call, and writes the samples as CSV.  A fault scenario, if
 * given, is stepped on the trace's clock before each call.
 *
 * Exit status: 0 success, 1 I/O failure, 2 bad usage or bad input.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baro-sitl.h"
#include "faults.h"
#include "sample-csv.h"
#include "scenario.h"
#include "sim-params.h"
#include "trace-csv.h"
#include "truth-profile.h"
#include "util-strings.h"

#define EXIT_USAGE 2

struct options {
	struct sim_params params;
	double home_m;
	enum baro_sitl_atmosphere atmosphere;
	enum baro_sitl_ardupilot ardupilot;
	uint32_t seed;
	bool generate;
	struct truth_profile profile;
	double duration_s;
	double rate_hz;
	float air_velocity[3];
	const char *trace;
	const char *scenario;
};

static void
usage(FILE *out)
{
	fputs("Usage: baro-sim [OPTIONS] [TRACE]\n"
	      "Run ArduPilot's SITL barometer model (AP_Baro_SITL) over a "
	      "truth trace.\n"
	      "\n"
	      "TRACE is a CSV file with a header: time_us (or time_s), alt_m "
	      "(height above\n"
	      "home, m), optional vx,vy,vz (body air velocity, m/s) and "
	      "throttle (0..1, the\n"
	      "motors' mean output, for ground effect); absent or - is "
	      "stdin.\n"
	      "Output (stdout): time_ms,instance,alt_m,pressure_pa,"
	      "temperature_c\n"
	      "\n"
	      "  -p, --param NAME=VALUE   set a SIM_BARO_*/SIM_BAR2_*/"
	      "SIM_BAR3_*/SIM_TEMP_*\n"
	      "                           parameter (repeatable)\n"
	      "      --home-alt METRES    home altitude AMSL (default 0)\n"
	      "      --ardupilot VERSION  the ArduPilot to reproduce: 4.5, 4.6, "
	      "4.7 (default)\n"
	      "                           or master (ground effect "
	      "SIM_BARO_GEFF_M, wind at\n"
	      "                           the true air density)\n"
	      "      --atmosphere MODEL   1976 (ArduPilot 4.6+), simple (<= 4.5) "
	      "or water\n"
	      "                           (ArduSub's); default: the "
	      "--ardupilot's\n"
	      "      --water              the same as --atmosphere water\n"
	      "      --seed N             noise seed, as srandom(N) "
	      "(default 1)\n"
	      "  -g, --generate PROFILE   built-in truth instead of TRACE:\n"
	      "                           static:H  climb:RATE[:H0]  "
	      "step:H0:H1:T[:R]\n"
	      "                           sine:AMPLITUDE:PERIOD[:H0]\n"
	      "                           takeoff:HEIGHT:RATE:HOLD[:THROTTLE]\n"
	      "      --throttle T|airborne:T  throttle of the generated trace "
	      "(0..1): always,\n"
	      "                           or only above 0 m (default 0; "
	      "takeoff: its own)\n"
	      "      --duration SECONDS   length of the generated trace "
	      "(default 10)\n"
	      "      --rate HZ            physics rate of the generated trace "
	      "(default 1200)\n"
	      "      --air-velocity VX,VY,VZ  body air velocity of the "
	      "generated trace\n"
	      "      --scenario FILE      run a fault scenario (see "
	      "doc/scenario.md); its times\n"
	      "                           are trace time, its events go to "
	      "stderr\n"
	      "      --list-params        print the parameter table and exit\n"
	      "  -h, --help               this text\n"
	      "  -V, --version            the version\n",
	      out);
}

static int
bad(const char *fmt, const char *what)
{
	fprintf(stderr, "baro-sim: ");
	fprintf(stderr, fmt, what);
	fputc('\n', stderr);
	return -EINVAL;
}

/* A number option within [lo, hi]; the message names the option. */
static int
parse_double_opt(const char *opt, const char *text, double lo, double hi,
		 const char *unit, double *out)
{
	if (str_to_double(text, out) < 0 || !isfinite(*out)) {
		fprintf(stderr, "baro-sim: %s: '%s' is not a number\n", opt,
			text);
		return -EINVAL;
	}
	if (*out < lo || *out > hi) {
		fprintf(stderr, "baro-sim: %s: %s is out of range [%g, %g] %s\n",
			opt, text, lo, hi, unit);
		return -EINVAL;
	}
	return 0;
}

static int
parse_velocity(const char *text, float v[3])
{
	char buf[128];
	char *save = NULL;
	int n = 0;

	if (strlen(text) >= sizeof(buf))
		return bad("--air-velocity: '%s' is too long", text);
	strcpy(buf, text);
	for (char *tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		double d;
		if (n == 3 || str_to_double(tok, &d) < 0 || !isfinite(d) ||
		    fabs(d) > 1e6)
			return bad("--air-velocity: '%s' is not VX,VY,VZ", text);
		v[n++] = (float)d;
	}
	if (n != 3)
		return bad("--air-velocity: '%s' is not VX,VY,VZ", text);
	return 0;
}

static void
list_params(void)
{
	printf("%-18s %-6s %9s %-5s %s\n", "NAME", "TYPE", "DEFAULT", "UNITS",
	       "DESCRIPTION");
	for (size_t i = 0; i < sim_param_count(); i++) {
		const struct sim_param_info *p = sim_param_info(i);
		printf("%-18s %-6s %9g %-5s %s\n", p->name,
		       sim_param_type_name(p->type), (double)p->def,
		       p->units[0] ? p->units : "-", p->desc);
	}
}

/* 0 to run, 1 to exit successfully (help), negative on a usage error. */
static int
parse_options(int argc, char **argv, struct options *o)
{
	enum {
		OPT_HOME = 256, OPT_ATMOS, OPT_WATER, OPT_SEED, OPT_DURATION,
		OPT_RATE, OPT_AIRVEL, OPT_LIST, OPT_SCENARIO, OPT_ARDUPILOT,
		OPT_THROTTLE,
	};
	static const struct option longopts[] = {
		{ "param", required_argument, NULL, 'p' },
		{ "home-alt", required_argument, NULL, OPT_HOME },
		{ "atmosphere", required_argument, NULL, OPT_ATMOS },
		{ "ardupilot", required_argument, NULL, OPT_ARDUPILOT },
		{ "throttle", required_argument, NULL, OPT_THROTTLE },
		{ "water", no_argument, NULL, OPT_WATER },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "generate", required_argument, NULL, 'g' },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "rate", required_argument, NULL, OPT_RATE },
		{ "air-velocity", required_argument, NULL, OPT_AIRVEL },
		{ "scenario", required_argument, NULL, OPT_SCENARIO },
		{ "list-params", no_argument, NULL, OPT_LIST },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	bool airvel = false, atmos_given = false;
	const char *throttle = NULL;
	char err[256];
	int c;

	sim_params_defaults(&o->params);
	o->ardupilot = BARO_SITL_AP_DEFAULT;
	o->seed = 1;
	o->duration_s = 10.0;
	o->rate_hz = 1200.0;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:g:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (sim_param_assign(&o->params, optarg, err,
					     sizeof(err)) < 0)
				return bad("%s", err);
			break;
		case OPT_HOME:
			/* ArduPilot keeps home in int32 centimetres. */
			if (parse_double_opt("--home-alt", optarg, -2.1e7, 2.1e7,
					     "m", &o->home_m))
				return -EINVAL;
			break;
		case OPT_ATMOS:
			if (strcmp(optarg, "simple") == 0)
				o->atmosphere = BARO_SITL_ATMOS_SIMPLE;
			else if (strcmp(optarg, "1976") == 0)
				o->atmosphere = BARO_SITL_ATMOS_1976;
			else if (strcmp(optarg, "water") == 0)
				o->atmosphere = BARO_SITL_ATMOS_WATER;
			else
				return bad("--atmosphere: '%s' is not simple, "
					   "1976 or water", optarg);
			atmos_given = true;
			break;
		case OPT_WATER:
			o->atmosphere = BARO_SITL_ATMOS_WATER;
			atmos_given = true;
			break;
		case OPT_ARDUPILOT:
			if (baro_sitl_ardupilot_parse(optarg, &o->ardupilot) < 0)
				return bad("--ardupilot: '%s' is not "
					   BARO_SITL_AP_CHOICES, optarg);
			break;
		case OPT_THROTTLE:
			throttle = optarg;
			break;
		case OPT_SEED: {
			uint64_t s;
			if (str_to_u64(optarg, &s) < 0 || s > UINT32_MAX)
				return bad("--seed: '%s' is not a number from 0 "
					   "to 4294967295", optarg);
			o->seed = (uint32_t)s;
			break;
		}
		case 'g':
			if (truth_profile_parse(optarg, &o->profile, err,
						sizeof(err)) < 0)
				return bad("--generate: %s", err);
			o->generate = true;
			break;
		case OPT_DURATION:
			if (parse_double_opt("--duration", optarg, 0.0, 1e7,
					     "s", &o->duration_s))
				return -EINVAL;
			break;
		case OPT_RATE:
			if (parse_double_opt("--rate", optarg, 1.0, 1e6, "Hz",
					     &o->rate_hz))
				return -EINVAL;
			break;
		case OPT_AIRVEL:
			if (parse_velocity(optarg, o->air_velocity) < 0)
				return -EINVAL;
			airvel = true;
			break;
		case OPT_SCENARIO:
			o->scenario = optarg;
			break;
		case OPT_LIST:
			list_params();
			return 1;
		case 'h':
			usage(stdout);
			return 1;
		case 'V':
			printf("baro-sim %s\n", BAROD_VERSION);
			return 1;
		case ':':
			return bad("option '%s' needs a value", argv[optind - 1]);
		default:
			return bad("unknown option '%s' (see --help)",
				   argv[optind - 1]);
		}
	}

	if (optind < argc)
		o->trace = argv[optind++];
	if (optind < argc)
		return bad("unexpected argument '%s'", argv[optind]);
	if (o->generate && o->trace)
		return bad("give either --generate or a TRACE, not both (%s)",
			   o->trace);
	if (airvel && !o->generate)
		return bad("%s", "--air-velocity applies to --generate; a "
				 "TRACE carries vx,vy,vz columns");
	if (throttle && !o->generate)
		return bad("%s", "--throttle applies to --generate; a TRACE "
				 "carries a throttle column");
	if (throttle && truth_profile_parse_throttle(throttle, &o->profile,
						     err, sizeof(err)) < 0)
		return bad("--throttle: %s", err);
	if (!atmos_given)
		o->atmosphere = baro_sitl_ardupilot_atmosphere(o->ardupilot);
	/* A parameter the chosen release does not have cannot act. */
	for (size_t i = 0; i < sim_param_count(); i++) {
		if (baro_sitl_ardupilot_param_check(
			    o->ardupilot, i, (double)sim_param_get(&o->params, i),
			    err, sizeof(err)) < 0)
			return bad("%s", err);
	}
	/* After every option: the atmosphere and home bound a glitch. */
	if (baro_sitl_params_check(o->atmosphere, o->home_m, &o->params, err,
				   sizeof(err)) < 0)
		return bad("%s", err);
	/* Not refused: a scenario may raise the count. */
	for (size_t i = 0; i < sim_param_count(); i++) {
		if (sim_param_inert(&o->params, i))
			fprintf(stderr, "baro-sim: warning: %s acts only on "
					"baro instance %d, which SIM_BARO_COUNT "
					"%d leaves out\n",
				sim_param_info(i)->name, sim_param_instance(i),
				o->params.baro_count);
	}
	return 0;
}

struct run {
	struct baro_sitl sim;
	struct baro_sitl_agl agl;	/* SITL's height above ground */
	const struct options *o;
	FILE *out;
	struct scenario_run *scenario;	/* NULL without --scenario */
	struct fault_overlay overlay;
};

/* Bring the scenario to now_ms, one stderr line per event. */
static int
run_scenario(struct run *r, uint64_t now_ms)
{
	struct scenario_event ev[SCENARIO_EVENTS_MIN];
	char text[160];

	do {
		int n = scenario_step(r->scenario, now_ms, &r->sim, &r->overlay,
				      ev, SCENARIO_EVENTS_MIN);
		if (n < 0) {
			fprintf(stderr, "baro-sim: scenario: %s\n",
				strerror(-n));
			return n;
		}
		for (int i = 0; i < n; i++) {
			scenario_event_format(&ev[i], text, sizeof(text));
			fprintf(stderr, "baro-sim: t=%" PRIu64 ".%03us %s\n",
				ev[i].time_ms / 1000u,
				(unsigned)(ev[i].time_ms % 1000u), text);
		}
	} while (scenario_run_due(r->scenario, now_ms));
	return 0;
}

/* One timer call; -EINVAL (message printed) if the height is unusable. */
static int
step(struct run *r, uint64_t time_us, double height_m, const float vel[3],
     float throttle, unsigned long lineno)
{
	struct baro_sitl_truth truth = { .throttle = throttle };
	struct baro_sample s[BARO_MAX_INSTANCES];
	int32_t alt_cm;

	if (baro_sitl_altitude_cm(r->o->home_m, height_m, &alt_cm) < 0) {
		if (lineno)
			fprintf(stderr, "baro-sim: line %lu: ", lineno);
		else
			fprintf(stderr, "baro-sim: ");
		fprintf(stderr, "altitude %g m above home %g m is out of "
				"range\n", height_m, r->o->home_m);
		return -EINVAL;
	}
	truth.alt_amsl_m = baro_sitl_alt_from_cm(alt_cm);
	/* SITL updates the height above ground every physics step, also
	 * between baro samples, so its "first altitude above 0" is too. */
	truth.height_agl_m = baro_sitl_agl_update(
		&r->agl, baro_sitl_state_altitude(alt_cm));
	memcpy(truth.vel_air_bf, vel, sizeof(truth.vel_air_bf));

	/* The scenario's clock is the trace's: its actions land on the
	 * same milliseconds as the output's time_ms. */
	if (r->scenario && run_scenario(r, time_us / 1000u) < 0)
		return -EINVAL;
	/* ArduPilot's millis(): microseconds / 1000, kept to 32 bits. */
	unsigned n = baro_sitl_update(&r->sim, (uint32_t)(time_us / 1000u),
				      &truth, s);
	for (unsigned i = 0; i < n; i++) {
		s[i].time_us = time_us / 1000u * 1000u;
		if (r->scenario && !fault_overlay_apply(&r->overlay, &s[i]))
			continue;
		if (sample_csv_write(r->out, &s[i]) < 0)
			return -EIO;
	}
	return 0;
}

static int
run_generated(struct run *r)
{
	const struct options *o = r->o;
	const uint64_t end_us = (uint64_t)llround(o->duration_s * 1e6);

	/* Calls at whole microseconds, k / rate rounded, so the average rate
	 * is exact and a whole duration ends on a call. */
	for (uint64_t k = 0;; k++) {
		uint64_t t = (uint64_t)llround((double)k * 1e6 / o->rate_hz);
		if (t > end_us)
			break;
		const double ts = (double)t * 1e-6;
		double h = truth_profile_height(&o->profile, ts);
		float thr = (float)truth_profile_throttle(&o->profile, ts);
		int rc = step(r, t, h, o->air_velocity, thr, 0);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int
run_trace(struct run *r, FILE *in)
{
	struct trace_csv csv;
	struct trace_row row;
	int rc = trace_csv_open(&csv, in);

	while (rc == 0 && (rc = trace_csv_next(&csv, &row)) > 0)
		rc = step(r, row.time_us, row.alt_m, row.vel_air_bf,
			  row.throttle, csv.lineno);
	if (rc < 0 && rc != -EIO && csv.err[0])
		fprintf(stderr, "baro-sim: %s: %s\n",
			r->o->trace ? r->o->trace : "stdin", csv.err);
	else if (rc == -EIO && csv.err[0])
		fprintf(stderr, "baro-sim: %s\n", csv.err);
	trace_csv_close(&csv);
	return rc;
}

/* A scenario and its run: large, so on the heap. */
struct scenario_state {
	struct scenario sc;
	struct scenario_run run;
};

/* Load the --scenario file and check it against the emulator it will
 * drive: 0, or the exit status after a message. */
static int
load_scenario(const char *path, const struct options *o,
	      struct scenario_state **out)
{
	char err[512] = "out of memory";
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "baro-sim: %s: %s\n", path, strerror(errno));
		return EXIT_USAGE;
	}
	struct scenario_state *st = malloc(sizeof(*st));
	int rc = st ? scenario_load(&st->sc, f, path, err, sizeof(err))
		    : -ENOMEM;
	fclose(f);
	if (rc == 0)
		rc = scenario_check(&st->sc, path, &o->params, o->atmosphere,
				    o->home_m, err, sizeof(err));
	if (rc == 0)
		rc = scenario_check_release(&st->sc, path, o->ardupilot, err,
					    sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "baro-sim: %s\n", err);
		free(st);
		return rc == -EINVAL ? EXIT_USAGE : EXIT_FAILURE;
	}
	*out = st;
	return 0;
}

/* A trace that stops before the scenario does is worth a word: the
 * faults after it never ran. */
static void
note_unfinished(const struct scenario_run *sr, const struct scenario *sc)
{
	if (scenario_run_finished(sr))
		return;
	char t[32];
	scenario_format_ms(sc->end_ms, t, sizeof(t));
	fprintf(stderr, "baro-sim: the trace ended before the scenario "
			"(over at %s)\n", t);
}

int
main(int argc, char **argv)
{
	struct options o = { 0 };
	int rc = parse_options(argc, argv, &o);

	if (rc != 0)
		return rc > 0 ? EXIT_SUCCESS : EXIT_USAGE;

	struct scenario_state *scen = NULL;
	if (o.scenario && (rc = load_scenario(o.scenario, &o, &scen)) != 0)
		return rc;

	FILE *in = stdin;
	if (!o.generate && o.trace && strcmp(o.trace, "-") != 0) {
		in = fopen(o.trace, "r");
		if (!in) {
			fprintf(stderr, "baro-sim: %s: %s\n", o.trace,
				strerror(errno));
			free(scen);
			return EXIT_USAGE;
		}
	}

	static char outbuf[1 << 16];
	struct run r = { .o = &o, .out = stdout };
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	baro_sitl_init(&r.sim, &o.params, o.atmosphere, o.seed);
	baro_sitl_set_ardupilot(&r.sim, o.ardupilot);
	baro_sitl_agl_init(&r.agl);
	if (scen) {
		/* The overlay shares the noise seed: one --seed, one run. */
		fault_overlay_init(&r.overlay, o.seed);
		scenario_run_init(&scen->run, &scen->sc, &r.sim, 0);
		r.scenario = &scen->run;
	}

	rc = sample_csv_write_header(stdout);
	if (rc == 0)
		rc = o.generate ? run_generated(&r) : run_trace(&r, in);
	if (rc == 0 && scen)
		note_unfinished(&scen->run, &scen->sc);
	free(scen);
	if (in != stdin)
		fclose(in);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "baro-sim: writing output: %s\n",
			strerror(errno ? errno : EIO));
		return EXIT_FAILURE;
	}
	if (rc == -EIO)
		return EXIT_FAILURE;
	return rc < 0 ? EXIT_USAGE : EXIT_SUCCESS;
}
