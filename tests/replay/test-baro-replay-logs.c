// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * baro-replay on logs nobody here made (issue 21), through the binary:
 * recording gaps and reboots as segments, damage anywhere in a log, a
 * FMT quirk that is not damage, logs without baro samples, slow
 * telemetry.  The logs are built here, small and exact.
 */
#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "mavlink.h"
#include "replay-cli.h"
/* after cmocka (replay-cli.h): it asserts */
#include "../logs/byte-buf.h"

/* ---- bytes ---- */

struct buf {
	uint8_t *d;
	size_t n, cap;
};

static void
put(struct buf *b, const void *p, size_t n)
{
	byte_buf_append(&b->d, &b->n, &b->cap, p, n);
}

static void
put_le(struct buf *b, uint64_t v, int size)
{
	uint8_t x[8];
	for (int i = 0; i < size; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	put(b, x, (size_t)size);
}

static void
put_f32(struct buf *b, float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	put_le(b, u, 4);
}

static void
put_text(struct buf *b, const char *s, size_t n)
{
	uint8_t z[64] = { 0 };
	size_t l = strlen(s);
	memcpy(z, s, l < n ? l : n);
	put(b, z, n);
}

static void
save(const char *path, const struct buf *b)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b->d, 1, b->n, f), b->n);
	assert_int_equal(fclose(f), 0);
}

/* ---- DataFlash ---- */

enum { DF_BARO = 70, DF_BAR3 = 71 };

static void
df_fmt(struct buf *b, uint8_t type, uint8_t len, const char *name,
       const char *format, const char *columns)
{
	put_le(b, 0x95a3, 2);
	put_le(b, 128, 1);
	put_le(b, type, 1);
	put_le(b, len, 1);
	put_text(b, name, 4);
	put_text(b, format, 16);
	put_text(b, columns, 64);
}

/* A log's start: the FMT of FMT, BARO (Qffc, 21 bytes) and a BAR3 whose
 * Length says 4 bytes more than its format (the 3.4.4 quirk). */
static void
df_header(struct buf *b, bool quirk)
{
	df_fmt(b, 128, 89, "FMT", "BBnNZ", "Type,Length,Name,Format,Columns");
	df_fmt(b, DF_BARO, 21, "BARO", "Qffc", "TimeUS,Alt,Press,Temp");
	if (quirk)
		df_fmt(b, DF_BAR3, 25, "BAR3", "Qffc", "TimeUS,Alt,Press,Temp");
}

static void
df_baro(struct buf *b, uint64_t t_us, double alt)
{
	put_le(b, 0x95a3, 2);
	put_le(b, DF_BARO, 1);
	put_le(b, t_us, 8);
	put_f32(b, (float)alt);
	put_f32(b, (float)(101325.0 - alt * 12.0));
	put_le(b, 2500, 2);
}

/* 10 Hz from t0_us for n samples, a gentle climb. */
static void
df_run(struct buf *b, uint64_t t0_us, size_t n)
{
	for (size_t i = 0; i < n; i++)
		df_baro(b, t0_us + 100000u * i, 0.01 * (double)i);
}

/* Issue 21 item 1: a 26 s logging pause splits the stream; no filler
 * rows, no scored gap time, so the clean health and gate filters raise
 * no alarm (before: 188 and 155 per 1000 on such a log). */
static void
test_gap_segments(void **state)
{
	(void)state;
	struct replay_case c;
	replay_case_make(&c, "replay-gaps", "gaps.bin", "rep");
	struct buf b = { 0 };
	df_header(&b, false);
	df_run(&b, 10000000, 300);		/* 10.0 .. 39.9 s */
	df_run(&b, 66000000, 300);		/* after 26.1 s of nothing */
	save(c.log, &b);
	free(b.d);

	struct program_result r = replay("list", c.log, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "  BARO[0]: 2 segments (gap of 26.1 s "
				      "at 66.000 s)\n"));
	program_result_free(&r);

	r = replay("export", c.log, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err, "BARO[0]: 2 segments (gap of 26.1 s"));
	program_result_free(&r);

	r = replay(REPLAY_RUN_QUIET, "--no-synthetic", "-f", "health", "-f", "gate",
		   "-s", c.clean, "-o", c.out, c.log,
		   NULL);
	assert_int_equal(r.status, 0);
	program_result_free(&r);
	char *csv = report_file(c.out, "summary.csv");
	assert_true(csv_value(csv, "gaps.bin,clean,health,fp_per_1000,") == 0.0);
	assert_true(csv_value(csv, "gaps.bin,clean,gate,fp_per_1000,") == 0.0);
	assert_true(csv_value(csv, "gaps.bin,clean,gate,segments,") == 2.0);
	/* No filler rows in the 26 s. */
	assert_true(csv_value(csv, "gaps.bin,clean,gate,polls,") == 0.0);
	assert_non_null(strstr(csv, "\ngaps.bin,,,input,2,used,600 samples of "
				    "BARO[0]; 2 segments (gap of 26.1 s at "
				    "66.000 s)\n"));
	free(csv);
	char *txt = report_file(c.out, "summary.txt");
	assert_non_null(strstr(txt, "input gaps.bin: 600 samples of BARO[0], "
				    "2 segments (gap of 26.1 s at 66.000 s)"));
	free(txt);
	char *json = report_file(c.out, "summary.json");
	assert_non_null(strstr(json, "\"segments\":2"));
	free(json);
	replay_case_remove(&c);
}

/* Item 1: 2 Hz telemetry is slow, not broken: no health alarm by its
 * spacing alone. */
static void
test_slow_tlog(void **state)
{
	(void)state;
	struct replay_case c;
	replay_case_make(&c, "replay-2hz", "slow.tlog", "rep");
	struct buf b = { 0 };
	uint8_t seq = 0;
	for (int i = 0; i < 240; i++) {
		/* 2 Hz with 60 ms of jitter either way. */
		uint32_t ms = 1000u + 500u * (uint32_t)i +
			      (uint32_t)((i * 37) % 121) - 60u + 60u;
		union mavlink_msg m = { 0 };
		m.sp = (struct mavlink_scaled_pressure){
			.time_boot_ms = ms,
			.press_abs = 1013.25f - 0.01f * (float)(i % 7),
			.temperature = 2500,
		};
		uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 }, f[MAVLINK_MAX_FRAME];
		assert_true(mavlink_pack_msg(MAVLINK_MSG_SCALED_PRESSURE, &m,
					     pl) > 0);
		int n = mavlink_frame_encode(f, 1, seq++, 1, 1,
					     MAVLINK_MSG_SCALED_PRESSURE, pl);
		assert_true(n > 0);
		uint64_t stamp = 1700000000000000ull + (uint64_t)ms * 1000u;
		for (int k = 0; k < 8; k++)
			put_le(&b, (uint8_t)(stamp >> (56 - 8 * k)), 1);
		put(&b, f, (size_t)n);
	}
	save(c.log, &b);
	free(b.d);
	struct program_result r = replay(REPLAY_RUN_QUIET, "--no-synthetic",
					 "-f", "health", "-s",
					 c.clean,
					 "-o", c.out, c.log, NULL);
	assert_int_equal(r.status, 0);
	program_result_free(&r);
	char *csv = report_file(c.out, "summary.csv");
	assert_true(csv_value(csv, "slow.tlog,clean,health,fp_per_1000,") == 0.0);
	assert_true(csv_value(csv, "slow.tlog,clean,health,segments,") == 1.0);
	free(csv);
	replay_case_remove(&c);
}

/* Item 2: damage in the middle goes into every summary and stderr, and
 * --strict exits 1. */
static void
test_damage_inside(void **state)
{
	(void)state;
	struct replay_case c;
	replay_case_make(&c, "replay-damage", "dmg.bin", "rep");
	struct buf b = { 0 };
	df_header(&b, false);
	df_run(&b, 10000000, 100);
	size_t at = b.n;
	put(&b, "\x01\x02\x03\x04\x05", 5);	/* junk, not a record */
	df_run(&b, 20000000, 100);
	save(c.log, &b);
	free(b.d);
	char want[128];
	snprintf(want, sizeof(want), "5 bytes skipped, 0 bad records, the "
				     "first at offset %zu", at);

	struct program_result r = replay("list", c.log, NULL);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, want));
	program_result_free(&r);

	r = replay(REPLAY_RUN_QUIET, "--no-synthetic", "--strict", "-f",
		   "lowpass", "-s", c.clean, "-o", c.out, c.log, NULL);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, want));
	assert_non_null(strstr(r.err, "--strict: 0 cases unchecked, 1 inputs "
				      "damaged"));
	program_result_free(&r);
	char *txt = report_file(c.out, "summary.txt");
	assert_non_null(strstr(txt, "damaged input (used up to the damage): "
				    "dmg.bin: "));
	assert_non_null(strstr(txt, want));
	free(txt);
	char *json = report_file(c.out, "summary.json");
	assert_non_null(strstr(json, "\"damage\":"));
	assert_non_null(strstr(json, want));
	free(json);
	char *csv = report_file(c.out, "summary.csv");
	assert_non_null(strstr(csv, "\ndmg.bin,,,input,1,damaged,"));
	free(csv);
	/* Without --strict the run stands on its thresholds. */
	r = replay(REPLAY_RUN_QUIET, "--no-synthetic", "-f", "lowpass", "-s", c.clean,
		   "-o", c.out, c.log, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err, want));
	program_result_free(&r);
	replay_case_remove(&c);
}

/* Item 3: a FMT whose Length exceeds its format is a warning, not
 * damage; its records are framed by the Length. */
static void
test_fmt_quirk(void **state)
{
	(void)state;
	struct replay_case c;
	replay_case_make(&c, "replay-fmt", "quirk.bin", NULL);
	struct buf b = { 0 };
	df_header(&b, true);
	df_run(&b, 10000000, 20);
	/* A BAR3 record as the quirky FMT frames it: 25 bytes. */
	put_le(&b, 0x95a3, 2);
	put_le(&b, DF_BAR3, 1);
	put_le(&b, 12000000, 8);
	put_f32(&b, 0.0f);
	put_f32(&b, 101300.0f);
	put_le(&b, 2500, 2);
	put_le(&b, 0, 4);
	df_run(&b, 12000000, 20);
	save(c.log, &b);
	free(b.d);
	struct program_result r = replay("list", c.log, NULL);
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.out, "damage"));
	assert_non_null(strstr(r.out, "warning: 1 FMT record disagrees with its "
				      "format, nothing lost"));
	assert_non_null(strstr(r.out, "declares 25 bytes, its format Qffc is "
				      "21"));
	assert_non_null(strstr(r.out, "BARO[2]"));
	assert_non_null(strstr(r.out, "    BAR3                         1\n"));
	program_result_free(&r);
	r = replay("export", c.log, NULL);
	assert_int_equal(r.status, 0);
	assert_int_equal(count_lines(r.out), 42);
	/* Item 5: BARO.Alt fills alt_m, above the calibration ground. */
	assert_non_null(strstr(r.out, "\n10100000,0,101324.883,25,BARO[0],"
				      "0.01,home,0\n"));
	assert_null(strstr(r.out, ",,0\n"));
	program_result_free(&r);
	replay_case_remove(&c);
}

/* Issue 29 item 6: a FMT declaring fewer bytes than its format (a public
 * Copter log's EKF5: Length 28, "QBhhhcccCCfff" 40 bytes) is a firmware
 * quirk too: the type is framed by the Length and not decoded, said as a
 * warning; list and export exit 0, and run sees no damage. */
static void
test_fmt_short(void **state)
{
	(void)state;
	struct replay_case c;
	replay_case_make(&c, "replay-fmt-short", "ekf5.bin", "r");
	struct buf b = { 0 };
	df_header(&b, false);
	df_fmt(&b, 171, 28, "EKF5", "QBhhhcccCCfff",
	       "TimeUS,C,NI,FIX,FIY,AFI,HAGL,offset,RI,rng,Herr,eAng,eVel");
	df_run(&b, 10000000, 20);
	/* One EKF5 record as the writer framed it: 28 bytes. */
	put_le(&b, 0x95a3, 2);
	put_le(&b, 171, 1);
	for (int i = 3; i < 28; i++)
		put_le(&b, 0x5a, 1);
	df_run(&b, 12000000, 20);
	save(c.log, &b);
	free(b.d);

	struct program_result r = replay("list", c.log, NULL);
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.out, "damage"));
	assert_null(strstr(r.err, "damaged"));
	assert_non_null(strstr(r.out, "warning: 1 FMT record disagrees with its "
				      "format, 1 declaring fewer bytes than it: "
				      "its type's records are framed by that "
				      "Length and not decoded"));
	assert_non_null(strstr(r.out, "FMT of EKF5 (type 171) declares 28 "
				      "bytes, its format QBhhhcccCCfff is 40"));
	assert_non_null(strstr(r.out, "    EKF5                         1\n"));
	assert_non_null(strstr(r.out, "BARO[0]"));
	program_result_free(&r);

	r = replay("export", c.log, NULL);
	assert_int_equal(r.status, 0);
	assert_int_equal(count_lines(r.out), 41);
	assert_non_null(strstr(r.err, "warning: offset "));
	assert_non_null(strstr(r.err, "a firmware quirk, not damage"));
	program_result_free(&r);

	r = replay(REPLAY_RUN_QUIET, "--strict", "-f", "gate",
		   "--no-baselines", "-s", c.clean, "-o", c.out, c.log, NULL);
	assert_int_equal(r.status, 0);
	program_result_free(&r);
	char *csv = report_file(c.out, "summary.csv");
	assert_non_null(strstr(csv, "ekf5.bin,,,input,1,used,"));
	free(csv);
	replay_case_remove(&c);
}

/* ---- ULog ---- */

static void
ul_msg(struct buf *b, char type, const void *p, size_t n)
{
	put_le(b, n, 2);
	put_le(b, (uint8_t)type, 1);
	put(b, p, n);
}

/* Item 4: a ULog whose sensor_combined has baro fields but no valid baro
 * timestamp: in every summary with why, --strict exits 1, export says
 * why it wrote only a header. */
static void
test_no_baro(void **state)
{
	(void)state;
	char good[300];
	struct replay_case c;
	replay_case_make(&c, "replay-nobaro", "nobaro.ulg", "rep");
	snprintf(good, sizeof(good), "%s/good.bin", c.dir);
	struct buf b = { 0 };
	static const uint8_t magic[8] = { 'U', 'L', 'o', 'g', 1, 0x12, 0x35, 1 };
	put(&b, magic, 8);
	put_le(&b, 0, 8);
	uint8_t flags[40] = { 0 };
	ul_msg(&b, 'B', flags, sizeof(flags));
	const char *f = "sensor_combined:uint64_t timestamp;float baro_alt_meter;"
			"float baro_temp_celcius;int32_t baro_timestamp_relative;";
	ul_msg(&b, 'F', f, strlen(f));
	uint8_t add[32] = { 0, 1, 0 };
	memcpy(add + 3, "sensor_combined", 15);
	ul_msg(&b, 'A', add, 18);
	for (int i = 0; i < 50; i++) {
		struct buf d = { 0 };
		put_le(&d, 1, 2);
		put_le(&d, 1000000u + 10000u * (unsigned)i, 8);
		put_f32(&d, 100.0f);
		put_f32(&d, 20.0f);
		put_le(&d, 0x7fffffff, 4);
		ul_msg(&b, 'D', d.d, d.n);
		free(d.d);
	}
	save(c.log, &b);
	free(b.d);
	b = (struct buf){ 0 };
	df_header(&b, false);
	df_run(&b, 10000000, 100);
	save(good, &b);
	free(b.d);

	const char *why = "no barometer samples (sensor_combined has "
			  "baro_alt_meter and baro_temp_celcius but no valid "
			  "baro_timestamp_relative)";
	struct program_result r = replay("export", c.log, NULL);
	assert_int_equal(r.status, 0);
	assert_int_equal(count_lines(r.out), 1);
	assert_non_null(strstr(r.err, why));
	assert_non_null(strstr(r.err, "wrote only the header"));
	program_result_free(&r);

	r = replay(REPLAY_RUN_QUIET, "--no-synthetic", "--strict", "-f", "lowpass",
		   "-s", c.clean, "-o", c.out, c.log,
		   good, NULL);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, why));
	assert_non_null(strstr(r.err, "1 inputs without barometer samples"));
	program_result_free(&r);
	char *txt = report_file(c.out, "summary.txt");
	char line[512];
	snprintf(line, sizeof(line), "input nobaro.ulg: %s\n", why);
	assert_non_null(strstr(txt, line));
	assert_non_null(strstr(txt, "input good.bin: 100 samples of BARO[0], "
				    "1 segment\n"));
	free(txt);
	char *csv = report_file(c.out, "summary.csv");
	assert_non_null(strstr(csv, "\nnobaro.ulg,,,input,,no-data,"));
	free(csv);
	char *json = report_file(c.out, "summary.json");
	assert_non_null(strstr(json, "\"input\":\"nobaro.ulg\""));
	assert_non_null(strstr(json, "\"status\":\"no-data\""));
	free(json);
	replay_case_remove(&c);
}

/* Item 7: logs joined into one file.  With each one's header: a reboot,
 * its times follow on (never backwards), every command says so.  A cut
 * piece without a header: the time going back is a segment, said. */
static void
test_joined_logs(void **state)
{
	(void)state;
	char cut[300];
	struct replay_case c;
	replay_case_make(&c, "replay-joined", "joined.bin", "rep");
	snprintf(cut, sizeof(cut), "%s/cut.bin", c.dir);
	struct buf b = { 0 };
	df_header(&b, false);
	df_run(&b, 50000000, 100);		/* 50.0 .. 59.9 s */
	df_header(&b, false);
	df_run(&b, 20000000, 100);		/* the next boot: 20 s */
	save(c.log, &b);
	free(b.d);
	b = (struct buf){ 0 };
	df_header(&b, false);
	df_run(&b, 50000000, 100);
	df_run(&b, 20000000, 100);		/* no header: cut and joined */
	save(cut, &b);
	free(b.d);

	struct program_result r = replay("list", c.log, NULL);
	assert_int_equal(r.status, 0);
	/* 59.9 s + 10 s: where the second boot is placed. */
	assert_non_null(strstr(r.out, "    reboot                 x1     at "
				      "69.900 s\n"));
	assert_non_null(strstr(r.out, "  BARO[0]: 2 segments (reboot at "
				      "69.900 s)\n"));
	program_result_free(&r);
	r = replay("export", c.log, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err, "1 reboot: the clock after each is "
				      "offset"));
	/* Never backwards. */
	uint64_t prev = 0;
	size_t rows = 0;
	for (const char *p = strchr(r.out, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
		uint64_t t = strtoull(p + 1, NULL, 10);
		assert_true(t >= prev);
		prev = t;
		rows++;
	}
	assert_int_equal(rows, 200);
	assert_non_null(strstr(r.out, "\n69900000,0,"));
	program_result_free(&r);

	r = replay("list", cut, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "  BARO[0]: 2 segments (time going back "
				      "39.900 s at 20.000 s)\n"));
	program_result_free(&r);
	r = replay("export", cut, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err, "the times going back are written as "
				      "recorded"));
	program_result_free(&r);

	/* run: both segments used, none of the second boot dropped. */
	r = replay(REPLAY_RUN_QUIET, "--no-synthetic", "-f", "health", "-s",
		   c.clean, "-o", c.out, c.log, cut,
		   NULL);
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.err, "left out"));
	program_result_free(&r);
	char *txt = report_file(c.out, "summary.txt");
	assert_non_null(strstr(txt, "input joined.bin: 200 samples of BARO[0], "
				    "2 segments (reboot at 69.900 s)"));
	assert_non_null(strstr(txt, "input cut.bin: 200 samples of BARO[0], "
				    "2 segments (time going back at 20.000 s)"));
	free(txt);
	char *csv = report_file(c.out, "summary.csv");
	assert_true(csv_value(csv, "joined.bin,clean,health,fp_per_1000,") == 0.0);
	assert_true(csv_value(csv, "cut.bin,clean,health,fp_per_1000,") == 0.0);
	free(csv);
	replay_case_remove(&c);
}

/* export FILE -o a.csv, then export a.csv -o b.csv: the same bytes. */
static void
assert_round_trip(const char *dir, const char *log, size_t min_rows)
{
	char a[300], bb[300];
	snprintf(a, sizeof(a), "%s/a.csv", dir);
	snprintf(bb, sizeof(bb), "%s/b.csv", dir);
	struct program_result r = replay("export", "-o", a, log, NULL);
	if (r.status != 0 && r.status != 1)
		fail_msg("export %s: status %d: %s", log, r.status, r.err);
	program_result_free(&r);
	r = replay("export", "-o", bb, a, NULL);
	assert_int_equal(r.status, 0);
	program_result_free(&r);
	char *x = read_file(a), *y = read_file(bb);
	if ((size_t)count_lines(x) < min_rows + 1)
		fail_msg("%s: %d lines", log, count_lines(x));
	if (strcmp(x, y) != 0)
		fail_msg("%s: export of the export differs", log);
	free(x);
	free(y);
}

/* Item 6: export -> read back -> export is identical, per format. */
static void
test_csv_round_trip(void **state)
{
	(void)state;
	char dir[256], log[300];
	temp_dir_make(dir, sizeof(dir), "replay-rt");
	/* DataFlash BARO: alt_m above home. */
	snprintf(log, sizeof(log), "%s/df.bin", dir);
	struct buf b = { 0 };
	df_header(&b, false);
	df_run(&b, 10000000, 50);
	save(log, &b);
	free(b.d);
	assert_round_trip(dir, log, 50);
	/* A CSV without the export's columns: AMSL altitudes. */
	snprintf(log, sizeof(log), "%s/sim.csv", dir);
	write_file(log, "time_ms,instance,alt_m,pressure_pa,temperature_c\n"
			"10,0,100.5,100121.5,15\n20,1,100.25,100124.5,\n"
			"30,0,100.75,100118.25,0\n");
	assert_round_trip(dir, log, 3);
	char *x = read_file(log);
	free(x);

	const char *logs = replay_logs_dir();
	if (!logs) {
		fprintf(stderr, "bundled round trips skipped\n");
		assert_int_equal(temp_dir_remove(dir), 0);
		return;
	}
	char path[300];
	static const struct {
		const char *name;
		size_t rows;
	} bundled[] = {
		/* CTUN-only: home, derived (the case the issue names). */
		{ "ap_copter-3.1.3_px4v2_legacy-ctun-only.bin", 735 },
		{ "ap_copter-3.4.4-rc1_badajoz_climb.bin", 1501 },
		/* AltAMSL, amsl. */
		{ "ap_copter-4.6.2_pixhawk4_truncated80k.bin", 5 },
		/* Several channels, hPa sensor_baro. */
		{ "px4_cubeorange_bench_2baro.ulg", 132 },
		/* Temperatures of exactly 0 (SITL) are no reading. */
		{ "px4_sitl_hover_barobias.ulg", 685 },
		{ "mav_arducopter_cmac_2015.tlog", 2855 },
	};
	for (size_t i = 0; i < sizeof(bundled) / sizeof(bundled[0]); i++) {
		snprintf(log, sizeof(log), "%s/%s", logs, bundled[i].name);
		assert_round_trip(dir, log, bundled[i].rows);
	}
	/* SITL's placeholder temperature 0 is written as recorded. */
	snprintf(path, sizeof(path), "%s/px4_sitl_hover_barobias.ulg", logs);
	struct program_result r0 = replay("export", path, NULL);
	assert_int_equal(r0.status, 0);
	assert_non_null(strstr(r0.out, ",0,vehicle_air_data,"));
	assert_null(strstr(r0.out, ",,vehicle_air_data,"));
	program_result_free(&r0);
	/* The CTUN case keeps its datum, its flag and its name's case. */
	snprintf(log, sizeof(log), "%s/a.csv", dir);
	snprintf(path, sizeof(path), "%s/%s", logs, bundled[0].name);
	struct program_result r = replay("export", "-o", log, path, NULL);
	program_result_free(&r);
	r = replay("export", log, NULL);
	assert_non_null(strstr(r.out, ",CTUN.BarAlt,0.02,home,1\n"));
	assert_null(strstr(r.out, ",amsl,"));
	assert_non_null(strstr(r.err, "(pressure_derived=1), kept as written"));
	program_result_free(&r);
	assert_int_equal(temp_dir_remove(dir), 0);
}

/* Item 8: -o into an earlier report replaces it; into a directory of
 * something else, refused and untouched.  The progress counter counts
 * to its total, a log without samples included. */
static void
test_report_dir_and_progress(void **state)
{
	(void)state;
	char dir[256], a[300], b2[300], empty[300], out[300], other[300],
		cases[320], keep[320], sc[512], sc2[512], sc3[512];
	temp_dir_make(dir, sizeof(dir), "replay-dir");
	snprintf(a, sizeof(a), "%s/a.bin", dir);
	snprintf(b2, sizeof(b2), "%s/b.bin", dir);
	snprintf(empty, sizeof(empty), "%s/empty.csv", dir);
	snprintf(out, sizeof(out), "%s/rep", dir);
	snprintf(other, sizeof(other), "%s/other", dir);
	snprintf(cases, sizeof(cases), "%s/cases", out);
	struct buf b = { 0 };
	df_header(&b, false);
	df_run(&b, 10000000, 100);
	save(a, &b);
	save(b2, &b);
	free(b.d);
	/* A CSV with a header and no rows: no barometer samples. */
	write_file(empty, "time_us,pressure_pa\n");

	struct program_result r = replay(
		"run", "--no-synthetic", "--plots", "none", "-f", "raw",
		"-s", replay_scenario("clean", sc, sizeof(sc)),
		"-s", replay_scenario("spike", sc2, sizeof(sc2)),
		/* synthetic only: no case on a log */
		"-s", replay_scenario("truth-step", sc3, sizeof(sc3)),
		"-o", out, a, empty, b2, NULL);
	assert_int_equal(r.status, 1);	/* raw fails the spike */
	/* [1/6] .. [6/6], never past the total. */
	assert_non_null(strstr(r.err, "[6/6] "));
	assert_null(strstr(r.err, "[7/6]"));
	assert_non_null(strstr(r.err, "empty.csv: no barometer samples"));
	program_result_free(&r);
	/* .csv and .gp per case, a page per log with runs */
	assert_int_equal(dir_entries(cases), 4 * 2 + 2);

	/* The same directory, one log and one scenario: only its case. */
	r = replay(REPLAY_RUN_QUIET, "--no-synthetic", "-f", "raw", "-s", sc,
		   "-o", out, a, NULL);
	assert_int_equal(r.status, 0);
	program_result_free(&r);
	assert_int_equal(dir_entries(cases), 2 + 1);
	char *txt = report_file(out, "summary.txt");
	assert_null(strstr(txt, "b.bin"));
	free(txt);

	/* A directory of something else is not a report to replace. */
	assert_int_equal(mkdir(other, 0755), 0);
	snprintf(keep, sizeof(keep), "%s/notes.txt", other);
	write_file(keep, "mine\n");
	r = replay(REPLAY_RUN_QUIET, "--no-synthetic", "-f", "raw", "-s", sc,
		   "-o", other, a, NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "is not empty and holds no baro-replay "
				      "report"));
	program_result_free(&r);
	assert_int_equal(dir_entries(other), 1);
	assert_int_equal(temp_dir_remove(dir), 0);
}

/* src as one gzip member. */
static void
gzip_buf(const struct buf *src, struct buf *out)
{
	z_stream zs = { 0 };
	assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8,
				      Z_DEFAULT_STRATEGY), Z_OK);
	uLong cap = deflateBound(&zs, (uLong)src->n);
	*out = (struct buf){ .d = malloc(cap), .cap = cap };
	assert_non_null(out->d);
	zs.next_in = src->d;
	zs.avail_in = (uInt)src->n;
	zs.next_out = out->d;
	zs.avail_out = (uInt)cap;
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	out->n = cap - zs.avail_out;
	deflateEnd(&zs);
}

/* Item 8: a gzip'd log is read transparently; a corrupt or cut one is
 * damage with everything before it, never a crash. */
static void
test_gzip(void **state)
{
	(void)state;
	char dir[256], plain[300], gz[300], two[300], bad[300], cut[300],
		out[300], sc[512];
	temp_dir_make(dir, sizeof(dir), "replay-gz");
	snprintf(plain, sizeof(plain), "%s/log.bin", dir);
	snprintf(gz, sizeof(gz), "%s/log.bin.gz", dir);
	snprintf(two, sizeof(two), "%s/two.gz", dir);
	snprintf(bad, sizeof(bad), "%s/bad.gz", dir);
	snprintf(cut, sizeof(cut), "%s/cut.gz", dir);
	snprintf(out, sizeof(out), "%s/rep", dir);
	struct buf b = { 0 }, z;
	df_header(&b, false);
	df_run(&b, 10000000, 3000);
	save(plain, &b);
	gzip_buf(&b, &z);
	save(gz, &z);
	/* Two members (cat a.gz b.gz): both read, as joined logs. */
	struct buf zz = { 0 };
	put(&zz, z.d, z.n);
	put(&zz, z.d, z.n);
	save(two, &zz);
	free(zz.d);
	/* A flipped byte in the middle of the deflate data. */
	z.d[z.n / 2] ^= 0x55;
	save(bad, &z);
	z.d[z.n / 2] ^= 0x55;
	z.n = z.n * 2 / 3;
	save(cut, &z);
	free(z.d);
	free(b.d);

	struct program_result r1 = replay("export", plain, NULL);
	struct program_result r2 = replay("export", gz, NULL);
	assert_int_equal(r1.status, 0);
	assert_int_equal(r2.status, 0);
	assert_int_equal(count_lines(r2.out), 3001);
	assert_string_equal(r1.out, r2.out);
	program_result_free(&r1);
	program_result_free(&r2);

	r2 = replay("list", two, NULL);
	assert_int_equal(r2.status, 0);
	assert_non_null(strstr(r2.out, "  format: dataflash\n"));
	assert_non_null(strstr(r2.out, " 6000 samples "));
	assert_non_null(strstr(r2.out, "    reboot "));
	program_result_free(&r2);

	r2 = replay("list", bad, NULL);
	assert_int_equal(r2.status, 1);
	/* The path once: the reader's message does not repeat it. */
	assert_non_null(strstr(r2.err, "bad.gz: damaged: "));
	assert_non_null(strstr(r2.err, "reading stopped: gzip: "));
	assert_null(strstr(strstr(r2.err, "bad.gz") + 1, "bad.gz"));
	program_result_free(&r2);
	r2 = replay("list", cut, NULL);
	assert_int_equal(r2.status, 1);
	assert_non_null(strstr(r2.err, "cut.gz: damaged: reading stopped: "));
	assert_non_null(strstr(r2.err, "gzip: the compressed data is cut off "
				       "after "));
	assert_non_null(strstr(r2.out, "  damage: reading stopped before the "
				       "end of the file\n"));
	program_result_free(&r2);

	r2 = replay("run", "--no-synthetic", "-q", "--plots", "none", "-f", "raw",
		    "-s", replay_scenario("clean", sc, sizeof(sc)), "-o", out, gz,
		    NULL);
	assert_int_equal(r2.status, 0);
	program_result_free(&r2);
	char *txt = report_file(out, "summary.txt");
	assert_non_null(strstr(txt, "input log.bin.gz: 3000 samples of "
				    "BARO[0], 1 segment"));
	free(txt);
	assert_int_equal(temp_dir_remove(dir), 0);
}

/* A bundled log that ends in a cut-off record (what a power loss leaves)
 * is a warning, not damage, for run --strict; damage inside a log still
 * is (test_damage_inside).  Of the three, truncated80k's 5 samples leave
 * its case unchecked, which --strict counts for that reason alone. */
static void
test_cut_off_strict(void **state)
{
	(void)state;
	const char *logs = replay_logs_dir();
	if (!logs)
		skip_because("no LOGS_DIR with the bundled logs: not tested");
	struct replay_case c;
	replay_case_make(&c, "replay-cut", NULL, "rep");
	static const char *const cut[] = {
		"ap_copter-3.1.3_px4v2_legacy-ctun-only.bin",
		"mav_arducopter_cmac_2015.tlog",
		"ap_copter-4.6.2_pixhawk4_truncated80k.bin",
	};
	char p[3][512];
	for (size_t i = 0; i < 3; i++)
		snprintf(p[i], sizeof(p[i]), "%s/%s", logs, cut[i]);
	struct program_result r =
		replay(REPLAY_RUN_QUIET, "--no-synthetic", "--strict", "-f",
		       "lowpass", "-s", c.clean, "-o", c.out, p[0], p[1], NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err, "ctun-only.bin: its last record is "
				      "cut off (reading stopped: offset "));
	assert_non_null(strstr(r.err, "cmac_2015.tlog: its last record is "
				      "cut off"));
	assert_null(strstr(r.err, "damaged"));
	program_result_free(&r);
	char *csv = report_file(c.out, "summary.csv");
	assert_non_null(strstr(csv, "\nmav_arducopter_cmac_2015.tlog,,,input,"
				    "2,cut-off,"));
	free(csv);
	/* The same through shards and their merge (summary.json's
	 * "cut_off" carries it). */
	r = replay(REPLAY_RUN_QUIET, "--no-synthetic", "--strict", "--jobs",
		   "2", "-f", "lowpass", "-s", c.clean, "-o", c.out, p[0], p[1],
		   NULL);
	assert_int_equal(r.status, 0);
	program_result_free(&r);
	r = replay(REPLAY_RUN_QUIET, "--no-synthetic", "--strict", "-f",
		   "lowpass", "-s", c.clean, "-o", c.out, p[2], NULL);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "--strict: 1 cases unchecked, 0 inputs "
				      "damaged"));
	program_result_free(&r);
	/* list still says the file ends early, with status 1 (doc). */
	r = replay("list", p[1], NULL);
	assert_int_equal(r.status, 1);
	program_result_free(&r);
	replay_case_remove(&c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gap_segments),
		cmocka_unit_test(test_slow_tlog),
		cmocka_unit_test(test_damage_inside),
		cmocka_unit_test(test_cut_off_strict),
		cmocka_unit_test(test_fmt_quirk),
		cmocka_unit_test(test_fmt_short),
		cmocka_unit_test(test_no_baro),
		cmocka_unit_test(test_joined_logs),
		cmocka_unit_test(test_csv_round_trip),
		cmocka_unit_test(test_report_dir_and_progress),
		cmocka_unit_test(test_gzip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
