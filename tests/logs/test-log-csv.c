/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The CSV reader through log_reader_open_fd/mem: a round trip of the
 * emulator's samples through the project's CSV writer (what baro-sim
 * prints), minimal hand-written files, and malformed ones.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <unistd.h>

#include "test-util.h"
#include "test-files.h"
#include "baro-sitl.h"
#include "log-reader.h"
#include "sample-csv.h"

#define MAX_RECS 64

struct result {
	int open_rc, rc;
	char err[LOG_ERR_LEN];
	size_t n;
	struct log_record rec[MAX_RECS];
	char chan[MAX_RECS][32];
	char format[16];
	struct log_info info;
	char types[512];
};

static void
add_type(const char *name, uint64_t count, void *ud)
{
	char *types = ud;
	size_t n = strlen(types);

	snprintf(types + n, 512 - n, "%s=%" PRIu64 ";", name, count);
}

static void
collect(struct log_reader *r, struct result *out)
{
	struct log_record rec;

	if (out->open_rc == 0) {
		snprintf(out->format, sizeof(out->format), "%s", r->ops->name);
		while ((out->rc = log_reader_next(r, &rec)) > 0) {
			assert_true(out->n < MAX_RECS);
			const char *name = log_reader_channel_name(r,
								  rec.channel);
			assert_non_null(name);
			snprintf(out->chan[out->n], sizeof(out->chan[0]), "%s",
				 name);
			out->rec[out->n++] = rec;
		}
		out->info = r->info;
		out->types[0] = ';';
		log_reader_list_types(r, add_type, out->types);
	}
	snprintf(out->err, sizeof(out->err), "%s", r->err);
	log_reader_close(r);
}

static struct result *
parse(const char *text, const char *format)
{
	struct result *out = calloc(1, sizeof(*out));
	struct log_reader r;

	assert_non_null(out);
	out->open_rc = log_reader_open_mem(&r, text, strlen(text), "t.csv",
					   format);
	collect(&r, out);
	return out;
}

static void
expect_error(const char *text, const char *const *parts)
{
	struct result *res = parse(text, "csv");
	int rc = res->open_rc < 0 ? res->open_rc : res->rc;

	if (rc != -EINVAL)
		fail_msg("rc %d for:\n%s", rc, text);
	for (int i = 0; parts[i]; i++)
		if (!strstr(res->err, parts[i]))
			fail_msg("'%s' lacks '%s'", res->err, parts[i]);
	free(res);
}

/* ---- round trip ----------------------------------------------------- */

/*
 * The emulator's samples (three instances with noise, as baro-sim makes
 * them) plus samples without altitude or temperature, written with the
 * project's CSV writer to a file and read back through the fd interface:
 * every field comes back bit for bit (time at the writer's ms).
 */
static void
test_round_trip(void **state)
{
	(void)state;
	struct sim_params params;
	struct baro_sitl sim;
	struct baro_sample want[400];
	size_t n = 0;

	sim_params_defaults(&params);
	params.baro_count = 3;
	for (int i = 0; i < 3; i++)
		params.baro[i].rnd = 0.3f;
	baro_sitl_init(&sim, &params, BARO_SITL_ATMOS_1976, 7);
	for (uint32_t ms = 10; ms <= 1000; ms += 10) {
		struct baro_sitl_truth t = { 0 };
		struct baro_sample out[BARO_MAX_INSTANCES];
		assert_int_equal(baro_sitl_altitude(584.0, ms * 0.01,
						    &t.alt_amsl_m), 0);
		unsigned got = baro_sitl_update(&sim, ms, &t, out);
		for (unsigned k = 0; k < got; k++)
			want[n++] = out[k];
	}
	assert_true(n > 200);
	want[n++] = (struct baro_sample){ .time_us = 2000123, .instance = 1,
					  .flags = BARO_SAMPLE_HEALTHY,
					  .pressure_pa = 95000.5f };
	want[n++] = (struct baro_sample){
		.time_us = 2001000, .instance = 2,
		.flags = BARO_SAMPLE_HEALTHY | BARO_SAMPLE_HAS_TEMPERATURE,
		.pressure_pa = 1.0e-3f, .temperature_c = -40.25f };

	int fd = temp_fd(NULL);
	FILE *f = fdopen(dup(fd), "w");
	assert_non_null(f);
	assert_int_equal(sample_csv_write_header(f), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(sample_csv_write(f, &want[i]), 0);
	assert_int_equal(fclose(f), 0);
	lseek(fd, 0, SEEK_SET);

	struct log_reader r;
	struct log_record rec;
	size_t got = 0, refs = 0;
	int rc;
	assert_int_equal(log_reader_open_fd(&r, fd, "sim.csv", NULL), 0);
	assert_string_equal(r.ops->name, "csv");
	assert_string_equal(r.info.baro_stream, "pressure_pa");
	const struct baro_sample *last = NULL;
	while ((rc = log_reader_next(&r, &rec)) > 0) {
		if (rec.kind == LOG_REC_REFERENCE) {
			/* The altitude of the sample just before. */
			assert_non_null(last);
			assert_true(baro_sample_has(last,
						    BARO_SAMPLE_HAS_ALTITUDE));
			assert_int_equal(rec.ref.source, LOG_REF_LOG_BARO_ALT);
			assert_int_equal(rec.ref.datum, LOG_DATUM_AMSL);
			assert_int_equal(rec.ref.instance, last->instance);
			assert_int_equal(rec.ref.time_us,
					 last->time_us / 1000 * 1000);
			/* The decimal text, of which the float is the
			 * nearest. */
			assert_float_exact((float)rec.ref.alt_m, last->alt_m);
			refs++;
			continue;
		}
		assert_int_equal(rec.kind, LOG_REC_BARO);
		assert_true(got < n);
		const struct baro_sample *w = &want[got];
		const struct baro_sample *b = &rec.baro;
		char name[16];
		snprintf(name, sizeof(name), "baro[%u]", w->instance);
		assert_string_equal(log_reader_channel_name(&r, rec.channel),
				    name);
		assert_int_equal(b->time_us, w->time_us / 1000 * 1000);
		assert_int_equal(b->instance, w->instance);
		uint32_t keep = BARO_SAMPLE_HAS_TEMPERATURE |
				BARO_SAMPLE_HAS_ALTITUDE;
		/* The file does not say simulated; every sample is healthy. */
		assert_int_equal(b->flags,
				 (w->flags & keep) | BARO_SAMPLE_HEALTHY);
		assert_float_exact(b->pressure_pa, w->pressure_pa);
		if (baro_sample_has(w, BARO_SAMPLE_HAS_TEMPERATURE))
			assert_float_exact(b->temperature_c, w->temperature_c);
		if (baro_sample_has(w, BARO_SAMPLE_HAS_ALTITUDE))
			assert_float_exact(b->alt_m, w->alt_m);
		last = &want[got];
		got++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(got, n);
	assert_int_equal(refs, n - 2);
	log_reader_close(&r);
	close(fd);
}

/* ---- minimal files -------------------------------------------------- */

static void
test_minimal_pressure(void **state)
{
	(void)state;
	struct result *res = parse("time_s,press_hpa\n0.5,1013.25\n"
				   "1.25,1000\n", NULL);
	assert_string_equal(res->format, "csv");
	assert_int_equal(res->rc, 0);
	assert_int_equal(res->n, 2);
	assert_int_equal(res->rec[0].baro.time_us, 500000);
	assert_float_exact(res->rec[0].baro.pressure_pa, 101325.0f);
	assert_int_equal(res->rec[0].baro.flags, BARO_SAMPLE_HEALTHY);
	assert_int_equal(res->rec[1].baro.time_us, 1250000);
	assert_float_exact(res->rec[1].baro.pressure_pa, 100000.0f);
	assert_string_equal(res->chan[0], "baro[0]");
	assert_string_equal(res->info.baro_stream, "press_hpa");
	free(res);
}

/* Altitude only: the pressure of the ISA atmosphere at it, flagged. */
static void
test_altitude_only(void **state)
{
	(void)state;
	struct result *res = parse("time_us,alt_m\n0,0\n100000,1000\n"
				   "200000,-50.5\n", NULL);
	assert_int_equal(res->rc, 0);
	assert_int_equal(res->n, 3);
	assert_string_equal(res->info.baro_stream, "alt_m");
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(res->rec[i].kind, LOG_REC_BARO);
		assert_int_equal(res->rec[i].baro.flags,
				 BARO_SAMPLE_HEALTHY |
					 BARO_SAMPLE_HAS_ALTITUDE |
					 LOG_SAMPLE_PRESSURE_FROM_ALT);
	}
	/* ISA: 101325 Pa at sea level, 89874.6 Pa at 1000 m. */
	assert_true(fabsf(res->rec[0].baro.pressure_pa - 101325.0f) < 0.01f);
	assert_true(fabsf(res->rec[1].baro.pressure_pa - 89874.6f) < 5.0f);
	assert_true(res->rec[2].baro.pressure_pa > 101325.0f);
	assert_float_exact(res->rec[1].baro.alt_m, 1000.0f);
	assert_int_equal(res->rec[1].baro.time_us, 100000);
	free(res);
}

/* Columns in any order, unknown ones ignored, quotes, CRLF, comments,
 * blank lines, instances, truth, decimal ms, empty optional fields. */
static void
test_columns(void **state)
{
	(void)state;
	struct result *res = parse(
		"# from a bench logger\r\n"
		"\r\n"
		"note, \"pressure_pa\" ,truth_alt_m,instance,time_ms,"
		"temperature_c,alt_m\r\n"
		"a,101300,10.5,2,1000.5,21.5,11\r\n"
		"  # a comment inside\r\n"
		"b,101290,,0,1100,,\r\n"
		"c,101280,12,0,1200,22,\r\n",
		"csv");	/* time_ms lies beyond what sniffing sees */
	assert_string_equal(res->format, "csv");
	if (res->rc != 0)
		fail_msg("%s", res->err);
	assert_int_equal(res->n, 6);

	const struct log_record *r = res->rec;
	assert_int_equal(r[0].kind, LOG_REC_BARO);
	assert_int_equal(r[0].baro.instance, 2);
	assert_int_equal(r[0].baro.time_us, 1000500);
	assert_float_exact(r[0].baro.pressure_pa, 101300.0f);
	assert_float_exact(r[0].baro.temperature_c, 21.5f);
	assert_float_exact(r[0].baro.alt_m, 11.0f);
	assert_int_equal(r[0].baro.flags, BARO_SAMPLE_HEALTHY |
					  BARO_SAMPLE_HAS_TEMPERATURE |
					  BARO_SAMPLE_HAS_ALTITUDE);
	assert_string_equal(res->chan[0], "baro[2]");

	assert_int_equal(r[1].kind, LOG_REC_REFERENCE);
	assert_int_equal(r[1].ref.source, LOG_REF_LOG_BARO_ALT);
	assert_true(r[1].ref.alt_m == 11.0);
	assert_string_equal(res->chan[1], "alt_m[2]");
	assert_int_equal(r[2].kind, LOG_REC_REFERENCE);
	assert_int_equal(r[2].ref.source, LOG_REF_TRUTH);
	assert_int_equal(r[2].ref.datum, LOG_DATUM_AMSL);
	assert_int_equal(r[2].ref.instance, 2);
	assert_int_equal(r[2].ref.time_us, 1000500);
	assert_true(r[2].ref.alt_m == 10.5);
	assert_string_equal(res->chan[2], "truth_alt_m[2]");

	/* Nothing optional recorded: a bare sample. */
	assert_int_equal(r[3].kind, LOG_REC_BARO);
	assert_int_equal(r[3].baro.instance, 0);
	assert_int_equal(r[3].baro.flags, BARO_SAMPLE_HEALTHY);
	assert_string_equal(res->chan[3], "baro[0]");

	assert_int_equal(r[4].kind, LOG_REC_BARO);
	assert_int_equal(r[4].baro.flags,
			 BARO_SAMPLE_HEALTHY | BARO_SAMPLE_HAS_TEMPERATURE);
	assert_int_equal(r[5].kind, LOG_REC_REFERENCE);
	assert_int_equal(r[5].ref.source, LOG_REF_TRUTH);
	assert_string_equal(res->chan[5], "truth_alt_m[0]");
	assert_true(r[0].channel != r[3].channel);
	assert_true(r[2].channel != r[5].channel);

	assert_non_null(strstr(res->types, ";baro[2]=1;"));
	assert_non_null(strstr(res->types, ";baro[0]=2;"));
	assert_non_null(strstr(res->types, ";truth_alt_m[0]=1;"));
	free(res);
}

/* Times pass through as written: backwards too (the consumer counts). */
static void
test_time_backwards_passes(void **state)
{
	(void)state;
	struct result *res = parse("time_ms,pressure_pa\n2000,1\n1000,2\n"
				   "1000,3\n", NULL);
	assert_int_equal(res->rc, 0);
	assert_int_equal(res->n, 3);
	assert_int_equal(res->rec[0].baro.time_us, 2000000);
	assert_int_equal(res->rec[1].baro.time_us, 1000000);
	assert_int_equal(res->rec[2].baro.time_us, 1000000);
	free(res);
}

/* ---- malformed ------------------------------------------------------ */

static void
test_bad_headers(void **state)
{
	(void)state;
	expect_error("", (const char *const[]){ "no header", NULL });
	expect_error("# only a comment\n\n",
		     (const char *const[]){ "no header", NULL });
	expect_error("pressure_pa,alt_m\n1,2\n",
		     (const char *const[]){ "line 1", "exactly one", NULL });
	expect_error("time_s,time_ms,pressure_pa\n",
		     (const char *const[]){ "exactly one", "has 2", NULL });
	expect_error("time_s,press_hpa,pressure_pa\n",
		     (const char *const[]){ "both", NULL });
	expect_error("time_s,temperature_c\n",
		     (const char *const[]){ "no pressure_pa", NULL });
	expect_error("#c\ntime_s,alt_m,alt_m\n",
		     (const char *const[]){ "line 2", "'alt_m' appears twice",
					    NULL });
	char wide[1024] = "time_s,alt_m";
	for (int i = 0; i < 70; i++)
		strcat(wide, ",x");
	strcat(wide, "\n");
	expect_error(wide, (const char *const[]){ "more than 64", NULL });
}

/* A bad field: every row before it, then an error naming the line, the
 * column and the text. */
static void
test_bad_fields(void **state)
{
	(void)state;
	static const struct {
		const char *row;
		const char *parts[4];
	} cases[] = {
		{ "3,abc,1", { "line 3", "column 2 (pressure_pa)", "'abc'",
			       "not a number" } },
		{ "3,nan,1", { "line 3", "column 2 (pressure_pa)", "'nan'" } },
		{ "3,1e300,1", { "column 2 (pressure_pa)", "out of range" } },
		{ "3,-5,1", { "column 2 (pressure_pa)", "negative" } },
		{ "3,,1", { "column 2 (pressure_pa)", "empty" } },
		{ ",101325,1", { "column 1 (time_ms)", "empty" } },
		{ "-1,101325,1", { "column 1 (time_ms)", "'-1'" } },
		{ "1x,101325,1", { "column 1 (time_ms)", "not a number" } },
		{ "3,101325,3", { "column 3 (instance)", "'3'" } },
		{ "3,101325,", { "column 3 (instance)" } },
		{ "3,101325", { "line 3", "2 fields, the header has 3" } },
		{ "3,101325,1,4", { "4 fields" } },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[256];
		snprintf(text, sizeof(text),
			 "time_ms,pressure_pa,instance\n1,101000,0\n%s\n"
			 "4,101000,0\n", cases[i].row);
		struct result *res = parse(text, NULL);
		assert_int_equal(res->open_rc, 0);
		if (res->rc != -EINVAL)
			fail_msg("%s: rc %d", cases[i].row, res->rc);
		assert_int_equal(res->n, 1);
		assert_float_exact(res->rec[0].baro.pressure_pa, 101000.0f);
		for (int k = 0; k < 4 && cases[i].parts[k]; k++)
			if (!strstr(res->err, cases[i].parts[k]))
				fail_msg("%s: '%s' lacks '%s'", cases[i].row,
					 res->err, cases[i].parts[k]);
		free(res);
	}

	/* time_us takes whole microseconds only. */
	expect_error("time_us,alt_m\n1.5,2\n",
		     (const char *const[]){ "column 1 (time_us)", NULL });
	/* Without a pressure column the altitude is the sample. */
	expect_error("time_s,alt_m\n1,\n",
		     (const char *const[]){ "column 2 (alt_m)", "empty",
					    NULL });
	/* A NUL byte is not text (the file's length is given here). */
	struct log_reader r;
	static const char nul[] = "time_s,alt_m\n1,2\n2,\0\n";
	struct result *res = calloc(1, sizeof(*res));
	res->open_rc = log_reader_open_mem(&r, nul, sizeof(nul) - 1, "nul",
					   "csv");
	collect(&r, res);
	assert_int_equal(res->rc, -EINVAL);
	assert_int_equal(res->n, 1);
	assert_non_null(strstr(res->err, "line 3"));
	assert_non_null(strstr(res->err, "NUL"));
	free(res);
}

/* baro-replay export's own columns: channel names kept as written,
 * alt_datum and pressure_derived read back (issue 21 item 6), and bad
 * values refused with their line and column. */
static void
test_export_columns(void **state)
{
	(void)state;
	struct result *res = parse(
		"time_us,instance,pressure_pa,temperature_c,channel,alt_m,"
		"alt_datum,pressure_derived\n"
		"1000,0,97797.5,,CTUN.BarAlt,0.02,home,1\n"
		"2000,1,100000,25,BARO[1],12.5,amsl,0\n"
		"3000,0,100001,0,,,,\n",
		NULL);
	assert_int_equal(res->rc, 0);
	assert_int_equal(res->n, 4);	/* the amsl row adds its reference */
	assert_string_equal(res->chan[0], "CTUN.BarAlt");
	assert_int_equal(res->rec[0].baro.flags,
			 BARO_SAMPLE_HEALTHY | LOG_SAMPLE_PRESSURE_FROM_ALT |
				 LOG_SAMPLE_ALT_HOME);
	/* Derived pressure kept as written, not derived again. */
	assert_float_exact(res->rec[0].baro.pressure_pa, 97797.5f);
	assert_string_equal(res->chan[1], "BARO[1]");
	assert_int_equal(res->rec[1].baro.flags,
			 BARO_SAMPLE_HEALTHY | BARO_SAMPLE_HAS_TEMPERATURE |
				 BARO_SAMPLE_HAS_ALTITUDE);
	assert_string_equal(res->chan[2], "BARO[1].alt_m");
	assert_int_equal(res->rec[2].kind, LOG_REC_REFERENCE);
	assert_string_equal(res->chan[3], "baro[0]");
	assert_int_equal(res->rec[3].baro.flags,
			 BARO_SAMPLE_HEALTHY | BARO_SAMPLE_HAS_TEMPERATURE);
	free(res);

	static const char *const head =
		"time_us,pressure_pa,channel,alt_m,alt_datum,pressure_derived\n"
		"1,100000,B,1,amsl,0\n";
	static const struct {
		const char *row;
		const char *parts[3];
	} cases[] = {
		{ "2,100000,B,1,agl,0", { "line 3", "column 5 (alt_datum)",
					  "'agl' is not amsl, home or empty" } },
		{ "2,100000,B,1,home,2", { "column 6 (pressure_derived)",
					   "not 0, 1 or empty" } },
		{ "2,100000,B,,home,1", { "column 6 (pressure_derived)",
					  "alt_m is empty" } },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[256];
		snprintf(text, sizeof(text), "%s%s\n", head, cases[i].row);
		res = parse(text, "csv");
		assert_int_equal(res->rc, -EINVAL);
		assert_int_equal(res->n, 2);
		for (int k = 0; k < 3 && cases[i].parts[k]; k++)
			if (!strstr(res->err, cases[i].parts[k]))
				fail_msg("'%s' lacks '%s'", res->err,
					 cases[i].parts[k]);
		free(res);
	}
	/* More channel names than a reader numbers: an error, not a
	 * silent merge. */
	char *text = malloc(8192);
	assert_non_null(text);
	strcpy(text, "time_us,pressure_pa,channel\n");
	for (int i = 0; i < 70; i++)
		sprintf(text + strlen(text), "%d,100000,C%d\n", i, i);
	struct log_reader r;
	struct log_record rec;
	assert_int_equal(log_reader_open_mem(&r, text, strlen(text), "t.csv",
					     "csv"), 0);
	int rc, n = 0;
	while ((rc = log_reader_next(&r, &rec)) > 0)
		n++;
	assert_int_equal(rc, -E2BIG);
	assert_int_equal(n, 64);
	assert_non_null(strstr(r.err, "line 66"));
	assert_non_null(strstr(r.err, "more than 64 channels"));
	log_reader_close(&r);
	free(text);
}

/* A line of exactly the maximum (with or without CR) is read; one byte
 * more is an error naming it, not a truncation. */
static void
test_long_lines(void **state)
{
	(void)state;
	const size_t max = 4096;
	char *text = malloc(3 * max);

	for (int crlf = 0; crlf < 2; crlf++) {
		for (size_t extra = 0; extra < 2; extra++) {
			int n = sprintf(text, "time_s,alt_m,note\n1,2,x\n");
			size_t start = (size_t)n;
			n += sprintf(text + n, "2,3,");
			while ((size_t)n - start < max + extra)
				text[n++] = 'y';
			n += sprintf(text + n, "%s3,4,z\n", crlf ? "\r\n" : "\n");
			struct result *res = parse(text, "csv");
			if (extra == 0) {
				if (res->rc != 0)
					fail_msg("%s", res->err);
				assert_int_equal(res->n, 3);
			} else {
				assert_int_equal(res->rc, -EINVAL);
				assert_int_equal(res->n, 1);
				assert_non_null(strstr(res->err, "line 3"));
				assert_non_null(strstr(res->err, "longer than"));
			}
			free(res);
		}
	}
	free(text);
}

/* What sniffing takes for CSV, and what not. */
static void
test_sniff(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		bool csv;
	} cases[] = {
		{ SAMPLE_CSV_HEADER "\n10,0,1,2,3\n", true },
		{ "# comment\n\n  \"time_s\" ,alt_m\n1,2\n", true },
		{ "alt_m,time_us\n", true },
		{ "alt_m,time_us", false },	/* the field may go on */
		{ "alt_m,pressure_pa\n1,2\n", false },
		{ "hello world\n", false },
		{ "# a comment longer than the head sniffing sees, so no "
		  "header is in sight\ntime_s,alt_m\n", false },
		{ "time_s\talt_m\n", false },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct result *res = parse(cases[i].text, NULL);
		bool csv = strcmp(res->format, "csv") == 0;
		if (csv != cases[i].csv)
			fail_msg("'%s': csv %d", cases[i].text, csv);
		if (!csv)
			assert_int_equal(res->open_rc, -EPROTONOSUPPORT);
		free(res);
	}
	static const uint8_t bin[] = { 't', 'i', 'm', 'e', '_', 's', ',',
				       0x01, '\n' };
	struct log_reader r;
	assert_int_equal(log_reader_open_mem(&r, bin, sizeof(bin), "b", NULL),
			 -EPROTONOSUPPORT);
	log_reader_close(&r);
}

/* Many rows from a file: lines cross every refill of the reader's
 * window and nothing is lost. */
static void
test_large_file(void **state)
{
	(void)state;
	int fd = temp_fd(NULL);
	FILE *f = fdopen(dup(fd), "w");
	const unsigned rows = 200000;

	assert_non_null(f);
	fputs("time_us,instance,pressure_pa,temperature_c\n", f);
	for (unsigned i = 0; i < rows; i++)
		fprintf(f, "%u,%u,%u.%02u,%s\n", i * 10, i % 3, 90000 + i % 9999,
			i % 100, i % 7 ? "20.5" : "");
	assert_int_equal(fclose(f), 0);
	lseek(fd, 0, SEEK_SET);

	struct log_reader r;
	struct log_record rec;
	unsigned n = 0, bad = 0;
	int rc;
	assert_int_equal(log_reader_open_fd(&r, fd, "big.csv", NULL), 0);
	while ((rc = log_reader_next(&r, &rec)) > 0) {
		float p = (float)(90000 + n % 9999) + (float)(n % 100) / 100.0f;
		bad += rec.baro.time_us != (uint64_t)n * 10 ||
		       rec.baro.instance != n % 3 ||
		       fabsf(rec.baro.pressure_pa - p) > 0.01f ||
		       baro_sample_has(&rec.baro,
				       BARO_SAMPLE_HAS_TEMPERATURE) != (n % 7 != 0);
		n++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(n, rows);
	assert_int_equal(bad, 0);
	log_reader_close(&r);
	close(fd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_minimal_pressure),
		cmocka_unit_test(test_altitude_only),
		cmocka_unit_test(test_columns),
		cmocka_unit_test(test_time_backwards_passes),
		cmocka_unit_test(test_bad_headers),
		cmocka_unit_test(test_bad_fields),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_export_columns),
		cmocka_unit_test(test_sniff),
		cmocka_unit_test(test_large_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
