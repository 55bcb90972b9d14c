// SPDX-License-Identifier: GPL-3.0-or-later
/* baro-drive's record as fault labels: what counts when, and every kind
 * of bad record refused with its line and reason. */
#include <errno.h>
#include <string.h>

#include "inject.h"
#include "record-labels.h"
#include "test-util.h"

#define HDR RECORD_LABELS_HEADER "\n"

static int
parse(struct record_labels *rl, const char *text, char *err, size_t len)
{
	err[0] = '\0';
	return record_labels_parse(rl, text, strlen(text), "r.csv", err, len);
}

static void
expect_error(const char *text, int rc, const char *msg)
{
	struct record_labels rl;
	char err[512];
	int got = parse(&rl, text, err, sizeof(err));
	if (got != rc || !strstr(err, msg))
		fail_msg("got %d '%s', wanted %d with '%s'", got, err, rc, msg);
	assert_null(rl.ch);
}

/* The doc's PX4 example: SIM_BARO_OFF_P acknowledged at once, taken by
 * sensor_baro_sim a second later (seen), restored at the end. */
static void
test_px4_offset_from_seen(void **state)
{
	static const char text[] =
		HDR "3038,0,0,note,,0,\"scenario time 0\"\n"
		"3038,0,0,start,SIM_BARO_OFF_P,0,\"\"\n"
		"3038,0,0,start,baro,0,\"\"\n"
		"13038,10000,1,due,,15,\"SIM_BARO_GLITCH 0 -> 15 for 5s\"\n"
		"13038,10000,1,sent,SIM_BARO_OFF_P,-170.132812,\"try 1\"\n"
		"13038,10000,1,acked,SIM_BARO_OFF_P,-170.132812,\"\"\n"
		"14038,11000,1,seen,SIM_BARO_OFF_P,-170.132812,"
		"\"SCALED_PRESSURE\"\n"
		"18038,15000,1,due,,0,\"SIM_BARO_GLITCH 15 -> 0, end\"\n"
		"18038,15000,1,sent,SIM_BARO_OFF_P,0,\"try 1\"\n"
		"18039,15000,1,acked,SIM_BARO_OFF_P,0,\"restored\"\n";
	struct record_labels rl;
	char err[256];

	(void)state;
	assert_int_equal(parse(&rl, text, err, sizeof(err)), 0);
	assert_int_equal(rl.first_us, 3038000u);
	/* Acknowledged a second before the autopilot showed it. */
	assert_int_equal(rl.fault_acked_us, 13038000u);
	assert_int_equal(rl.last_us, 18039000u);
	assert_int_equal(rl.unacked, 0);
	assert_int_equal(record_labels_at(&rl, 0), 0);
	assert_int_equal(record_labels_at(&rl, 13038000u), 0);
	assert_int_equal(record_labels_at(&rl, 14037999u), 0);
	assert_int_equal(record_labels_at(&rl, 14038000u), INJECT_GLITCH);
	assert_int_equal(record_labels_at(&rl, 18038999u), INJECT_GLITCH);
	assert_int_equal(record_labels_at(&rl, 18039000u), 0);
	assert_int_equal(record_labels_at(&rl, UINT64_MAX), 0);
	record_labels_free(&rl);
}

/* ArduPilot's parameters through the injector's own labelling: a noise
 * raised from its default, the second baro's glitch, a freeze; each
 * back at its start is no fault.  CRLF lines and a quoted text with a
 * comma and a doubled quote are read. */
static void
test_ardupilot_kinds(void **state)
{
	static const char text[] =
		HDR "100,0,0,start,SIM_BARO_RND,0.200000003,\"\"\r\n"
		"100,0,0,start,SIM_BAR2_GLITCH,0,\"\"\r\n"
		"100,0,0,start,SIM_BARO_FREEZE,0,\"\"\r\n"
		"1000,900,1,acked,SIM_BARO_RND,2,\"a, \"\"b\"\"\"\r\n"
		"2000,1900,2,acked,SIM_BAR2_GLITCH,-15,\"\"\r\n"
		"3000,2900,1,acked,SIM_BARO_RND,0.200000003,\"\"\r\n"
		"4000,3900,3,acked,SIM_BARO_FREEZE,1,\"\"\r\n"
		"5000,4900,2,acked,SIM_BAR2_GLITCH,0,\"\"\r\n"
		"6000,5900,3,acked,SIM_BARO_FREEZE,0,\"\"\r\n";
	struct record_labels rl;
	char err[256];

	(void)state;
	assert_int_equal(parse(&rl, text, err, sizeof(err)), 0);
	assert_int_equal(record_labels_at(&rl, 999000u), 0);
	assert_int_equal(record_labels_at(&rl, 1000000u), INJECT_NOISE);
	assert_int_equal(record_labels_at(&rl, 2500000u),
			 INJECT_NOISE | INJECT_OTHER_BARO);
	assert_int_equal(record_labels_at(&rl, 3500000u), INJECT_OTHER_BARO);
	assert_int_equal(record_labels_at(&rl, 4500000u),
			 INJECT_OTHER_BARO | INJECT_FREEZE);
	assert_int_equal(record_labels_at(&rl, 5500000u), INJECT_FREEZE);
	assert_int_equal(record_labels_at(&rl, 6000000u), 0);
	record_labels_free(&rl);
}

/* PX4's failure injection: each type the fault it stands for. */
static void
test_px4_failure_types(void **state)
{
	static const char text[] = HDR "0,0,0,start,baro,0,\"\"\n"
				       "1000,,1,acked,baro,1,\"\"\n"
				       "2000,,1,acked,baro,2,\"\"\n"
				       "3000,,1,acked,baro,0,\"\"\n";
	struct record_labels rl;
	char err[256];

	(void)state;
	assert_int_equal(parse(&rl, text, err, sizeof(err)), 0);
	assert_int_equal(record_labels_at(&rl, 1500000u), INJECT_DISABLE);
	assert_int_equal(record_labels_at(&rl, 2500000u), INJECT_FREEZE);
	assert_int_equal(record_labels_at(&rl, 3500000u), 0);
	record_labels_free(&rl);
}

/* A value sent and never acknowledged labels nothing, and is counted;
 * rows after the autopilot's clock went back are of another boot. */
static void
test_unacked_and_restart(void **state)
{
	static const char text[] =
		HDR "100,0,0,start,SIM_BARO_GLITCH,0,\"\"\n"
		"1000,900,1,sent,SIM_BARO_GLITCH,15,\"try 1\"\n"
		"2000,1900,2,acked,SIM_BARO_GLITCH,5,\"\"\n"
		"300,,0,note,,0,\"autopilot restarted\"\n"
		"400,,0,acked,SIM_BARO_GLITCH,0,\"repaired\"\n"
		"\n";
	struct record_labels rl;
	char err[256];

	(void)state;
	assert_int_equal(parse(&rl, text, err, sizeof(err)), 0);
	assert_int_equal(rl.after_restart, 2);
	assert_int_equal(rl.rows, 3);
	assert_int_equal(rl.unacked, 0);
	assert_int_equal(record_labels_at(&rl, 1500000u), 0);
	/* The glitch lasts: its repair is on the next boot's clock. */
	assert_int_equal(record_labels_at(&rl, UINT64_MAX), INJECT_GLITCH);
	record_labels_free(&rl);

	static const char sent[] =
		HDR "100,0,0,start,SIM_BARO_GLITCH,0,\"\"\n"
		"1000,900,1,sent,SIM_BARO_GLITCH,15,\"try 10\"\n";
	assert_int_equal(parse(&rl, sent, err, sizeof(err)), 0);
	assert_int_equal(rl.unacked, 1);
	assert_int_equal(record_labels_at(&rl, UINT64_MAX), 0);
	record_labels_free(&rl);
}

static void
test_refused(void **state)
{
	(void)state;
	expect_error("", -ENODATA, "r.csv: empty");
	expect_error(HDR, -ENODATA, "r.csv: a record without rows");
	expect_error("time_ms,alt\n1,2\n", -EINVAL,
		     "r.csv:1: not a baro-drive record");
	expect_error(HDR "1,0,0,melt,SIM_BARO_GLITCH,0,\"\"\n", -EINVAL,
		     "r.csv:2: event 'melt' is not one baro-drive writes");
	expect_error(HDR "1,0,0,start,SIM_BARO_GLITHC,0,\"\"\n", -EINVAL,
		     "r.csv:2: 'SIM_BARO_GLITHC' is neither a SIM_BARO "
		     "parameter (did you mean SIM_BARO_GLITCH?)");
	expect_error(HDR "1,0,0,start,SIM_BARO_GLITCH,abc,\"\"\n", -EINVAL,
		     "r.csv:2: value 'abc' is not a finite number");
	expect_error(HDR "1,0,0,start,SIM_BARO_GLITCH,nan,\"\"\n", -EINVAL,
		     "value 'nan' is not a finite number");
	expect_error(HDR "1,0,0,start,SIM_BARO_GLITCH,inf,\"\"\n", -EINVAL,
		     "value 'inf' is not a finite number");
	expect_error(HDR "x,0,0,start,SIM_BARO_GLITCH,0,\"\"\n", -EINVAL,
		     "ap_ms 'x' is not a time in ms");
	expect_error(HDR "99999999999999999999,0,0,note,,0,\"\"\n", -EINVAL,
		     "ap_ms '99999999999999999999' is not a time in ms");
	expect_error(HDR "1,-,0,note,,0,\"\"\n", -EINVAL,
		     "scenario_ms '-' is not a time in ms");
	expect_error(HDR "1,0,-1,note,,0,\"\"\n", -EINVAL,
		     "line '-1' is not a line number");
	expect_error(HDR "1,0,0,start,SIM_BARO_GLITCH,0\n", -EINVAL,
		     "r.csv:2: 6 fields, not 7");
	expect_error(HDR "1,0,0,note,,0,text\n", -EINVAL,
		     "the text field is not quoted");
	expect_error(HDR "1,0,0,note,,0,\"open\n", -EINVAL,
		     "the text field's quote is not closed");
	expect_error(HDR "1,0,0,note,,0,\"a\"b\n", -EINVAL,
		     "text after the text field's closing quote");
	expect_error(HDR "1,0,0,acked,SIM_BARO_GLITCH,15,\"\"\n", -EINVAL,
		     "'acked' of SIM_BARO_GLITCH before its start row");
	expect_error(HDR "1,0,0,acked,,15,\"\"\n", -EINVAL,
		     "a 'acked' row without a name");
	expect_error(HDR "1,0,0,start,baro,0,\"\"\n2,0,0,acked,baro,99,\"\"\n",
		     -EINVAL, "r.csv:3: baro 99 is not a value baro takes");
	expect_error(HDR "1,0,0,start,SIM_BARO_FREEZE,0,\"\"\n"
			 "2,0,0,acked,SIM_BARO_FREEZE,0.5,\"\"\n",
		     -EINVAL, "SIM_BARO_FREEZE 0.5 is not a value");
	char big[1200 + sizeof(HDR)];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, HDR, strlen(HDR));
	expect_error(big, -EINVAL, "r.csv:2: longer than 1024 bytes");
	static const char nul[] = HDR "1,0,0,note,,0,\"a\0b\"\n";
	struct record_labels rl;
	char err[256];
	assert_int_equal(record_labels_parse(&rl, nul, sizeof(nul) - 1,
					     "r.csv", err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "r.csv:2: a NUL byte"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_px4_offset_from_seen),
		cmocka_unit_test(test_ardupilot_kinds),
		cmocka_unit_test(test_px4_failure_types),
		cmocka_unit_test(test_unacked_and_restart),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
