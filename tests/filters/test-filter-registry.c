/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Filter specs and the user-filter loader: built-ins by name, parameter
 * errors naming the key, and shared objects loaded through dlopen, good
 * (tests/filters/example-filter.c) and broken (bad-plugin.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "filter-registry.h"
#include "test-util.h"

static const char *
env_path(const char *name)
{
	const char *p = getenv(name);
	if (!p)
		fail_msg("%s is not set (run through meson test)", name);
	return p;
}

/* spec must fail with rc, and err must contain every one of words. */
static void
expect_error(const char *spec, unsigned flags, int rc, const char *w1,
	     const char *w2)
{
	struct baro_filter_instance fi;
	char err[512];

	memset(err, 'x', sizeof(err));
	int got = baro_filter_instance_create(&fi, spec, flags, err,
					      sizeof(err));
	if (got != rc)
		fail_msg("'%s': rc %d, expected %d (%s)", spec, got, rc,
			 got < 0 ? err : "");
	assert_non_null(memchr(err, '\0', sizeof(err)));
	if (w1 && !strstr(err, w1))
		fail_msg("'%s': '%s' does not mention '%s'", spec, err, w1);
	if (w2 && !strstr(err, w2))
		fail_msg("'%s': '%s' does not mention '%s'", spec, err, w2);
	assert_null(fi.filter);
	assert_null(fi.dl_handle);
}

static void
test_builtins(void **state)
{
	(void)state;
	size_t n;
	const struct baro_filter *const *all = baro_filter_builtins(&n);
	const char *want[] = { "raw", "range", "health", "lowpass", "median",
			       "gate" };

	assert_int_equal(n, 6);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(all[i]->name, want[i]);
		assert_ptr_equal(baro_filter_builtin(want[i]), all[i]);
		assert_int_equal(all[i]->abi_version, BARO_FILTER_ABI_VERSION);
		assert_true(strlen(all[i]->description) > 10);
		assert_null(strchr(all[i]->description, '\n'));

		struct baro_filter_instance fi;
		char err[256];
		assert_int_equal(baro_filter_instance_create(
					 &fi, want[i], 0, err, sizeof(err)),
				 0);
		assert_string_equal(fi.label, want[i]);
		assert_null(fi.dl_handle);
		assert_true(baro_filter_instance_state_size(&fi) >= 8);
		baro_filter_instance_destroy(&fi);
		assert_null(fi.filter);
	}
	assert_null(baro_filter_builtin("Raw"));
	assert_null(baro_filter_builtin(""));

	/* The median's window is part of its state. */
	struct baro_filter_instance a, b;
	char err[256];
	assert_int_equal(baro_filter_instance_create(&a, "median:n=3", 0, err,
						     sizeof(err)), 0);
	assert_int_equal(baro_filter_instance_create(&b, "median:n=99", 0, err,
						     sizeof(err)), 0);
	assert_int_equal(baro_filter_instance_state_size(&b) -
				 baro_filter_instance_state_size(&a),
			 2 * 96 * sizeof(double));
	baro_filter_instance_destroy(&a);
	baro_filter_instance_destroy(&b);
}

static void
test_spec_labels(void **state)
{
	(void)state;
	struct baro_filter_instance fi;
	char err[256];

	assert_int_equal(baro_filter_instance_create(
				 &fi, "gate:noise=3, gate = 4", 0, err,
				 sizeof(err)), 0);
	assert_string_equal(fi.filter->name, "gate");
	assert_string_equal(fi.label, "gate:noise=3, gate = 4");
	baro_filter_instance_destroy(&fi);

	/* Too long for the label: cut, and marked as cut. */
	char spec[300] = "median:n=5";
	for (size_t i = strlen(spec); i < sizeof(spec) - 1; i++)
		spec[i] = ' ';
	spec[sizeof(spec) - 1] = '\0';
	assert_int_equal(baro_filter_instance_create(&fi, spec, 0, err,
						     sizeof(err)), 0);
	assert_int_equal(strlen(fi.label), BARO_FILTER_LABEL_MAX - 1);
	assert_string_equal(fi.label + BARO_FILTER_LABEL_MAX - 4, "...");
	baro_filter_instance_destroy(&fi);

	/* Destroying an all-zero instance is harmless. */
	fi = (struct baro_filter_instance){ 0 };
	baro_filter_instance_destroy(&fi);
}

static void
test_spec_errors(void **state)
{
	(void)state;

	expect_error("", 0, -EINVAL, "empty filter name", NULL);
	expect_error(":range=1", 0, -EINVAL, "empty filter name", NULL);
	expect_error("nosuch", 0, -ENOENT, "'nosuch'", "gate");
	expect_error("nosuch:x=1", 0, -ENOENT, "'nosuch'", NULL);
	expect_error("averyveryveryveryveryveryveryverylongname", 0, -ENOENT,
		     "unknown filter", NULL);
	expect_error("range:bogus=1", 0, -EINVAL, "'bogus'", "known: range");
	expect_error("range:range=abc", 0, -EINVAL, "range='abc'",
		     "not a number");
	expect_error("range:range=200", 0, -EINVAL, "range=200",
		     "out of range 0..100");
	expect_error("range:range=nan", 0, -EINVAL, "range=nan", NULL);
	expect_error("range:range", 0, -EINVAL, "'range' has no value", NULL);
	expect_error("range:range=", 0, -EINVAL, "'range' has an empty value",
		     NULL);
	expect_error("range:range=1,range=2", 0, -EINVAL,
		     "'range' given twice", NULL);
	expect_error("range:range=5,", 0, -EINVAL, "empty parameter", NULL);
	expect_error("range:=5", 0, -EINVAL, "no name", NULL);
	expect_error("range:range=1234567890123456789012345678901234567890"
		     "12345678901234567890123456789", 0, -EINVAL, "range=",
		     "too long");
	expect_error("raw:x=1", 0, -EINVAL, "'x'", "raw takes none");
	expect_error("health:mode=ardu", 0, -EINVAL, "mode='ardu'",
		     "ardupilot|px4");
	expect_error("health:mode=px4,freeze_ms=100", 0, -EINVAL, "freeze_ms",
		     "mode=ardupilot");
	expect_error("health:stale_count=5", 0, -EINVAL, "stale_count",
		     "mode=px4");
	expect_error("health:timeout_ms=0", 0, -EINVAL, "timeout_ms=0",
		     "out of range");
	expect_error("health:timeout_ms=1.5", 0, -EINVAL, "timeout_ms='1.5'",
		     "whole number");
	expect_error("lowpass:cutoff_hz=0", 0, -EINVAL, "cutoff_hz=0", NULL);
	expect_error("lowpass:gap_ms=-1", 0, -EINVAL, "gap_ms='-1'", NULL);
	expect_error("median:n=4", 0, -EINVAL, "n=4", "odd");
	expect_error("median:n=101", 0, -EINVAL, "n=101", "out of range");
	expect_error("median:n=99999999999999999999999", 0, -EINVAL, "n=",
		     NULL);
	expect_error("gate:noise=0.05", 0, -EINVAL, "noise=0.05",
		     "0.1..10");
	expect_error("gate:gate=0.5", 0, -EINVAL, "gate=0.5", NULL);
	expect_error("gate:timeout_s=inf", 0, -EINVAL, "timeout_s=inf", NULL);
	expect_error("gate:accel_nse=1e999", 0, -EINVAL, "accel_nse=", NULL);

	/* The error names the filter the key belongs to. */
	expect_error("gate:n=5", 0, -EINVAL, "gate: unknown parameter 'n'",
		     NULL);

	/* A small err buffer still gets a terminated message. */
	struct baro_filter_instance fi;
	char small[8];
	assert_int_equal(baro_filter_instance_create(&fi, "nosuch", 0, small,
						     sizeof(small)), -ENOENT);
	assert_int_equal(strlen(small), sizeof(small) - 1);
}

/* Split list into specs with baro_filter_spec_len; "|"-joined. */
static void
expect_split(const char *list, const char *want)
{
	char got[256] = "";
	const char *p = list;
	size_t used = 0;

	while (*p) {
		size_t n = baro_filter_spec_len(p);
		used += (size_t)snprintf(got + used, sizeof(got) - used,
					 "%s%.*s", used ? "|" : "", (int)n, p);
		p += n;
		if (*p == ',')
			p++;
	}
	assert_string_equal(got, want);
}

static void
test_spec_list(void **state)
{
	(void)state;

	assert_int_equal(baro_filter_spec_len(""), 0);
	expect_split("raw", "raw");
	expect_split("raw,median", "raw|median");
	expect_split("gate:noise=3,gate=4,median:n=7,raw",
		     "gate:noise=3,gate=4|median:n=7|raw");
	expect_split("health:mode=px4,timeout_ms=300",
		     "health:mode=px4,timeout_ms=300");
	expect_split("lowpass:cutoff_hz=2,plugin:./my=f.so:band=1,range",
		     "lowpass:cutoff_hz=2|plugin:./my=f.so:band=1|range");
	/* A stray comma shows up as an empty spec, which create rejects. */
	expect_split("raw,,median", "raw||median");
}

/* --- plugins --- */

static void
test_plugin_example(void **state)
{
	(void)state;
	struct baro_filter_instance fi;
	char spec[PATH_MAX + 32], err[512];
	const char *path = env_path("EXAMPLE_FILTER");

	snprintf(spec, sizeof(spec), "plugin:%s:band=1", path);
	int rc = baro_filter_instance_create(&fi, spec,
					     BARO_FILTER_SPEC_PLUGINS, err,
					     sizeof(err));
	if (rc != 0)
		fail_msg("%s: %s", spec, err);
	assert_non_null(fi.dl_handle);
	assert_string_equal(fi.filter->name, "deadband");
	assert_string_equal(fi.label, "plugin:deadband:band=1");
	assert_true(baro_filter_instance_state_size(&fi) >= 2 * sizeof(double));

	/* Held until the input leaves the 1 m band. */
	const double in_alt[] = { 0.0, 0.5, 1.5, 1.2, 0.4, 0.9 };
	const double want[] = { 0.0, 0.0, 1.5, 1.5, 0.4, 0.4 };
	for (unsigned k = 0; k < 6; k++) {
		struct baro_filter_input in = {
			.time_us = k * 10000u,
			.pressure_pa = 100000,
			.alt_m = in_alt[k],
		};
		struct baro_filter_output out;
		baro_filter_instance_step(&fi, in.time_us, &in, &out);
		assert_true(out.alt_m == want[k]);
		assert_true(out.flags & BARO_FILTER_OUT_HEALTHY);
	}
	baro_filter_instance_reset(&fi);
	struct baro_filter_output out;
	baro_filter_instance_step(&fi, 100000, NULL, &out);
	assert_true(isnan(out.alt_m));
	assert_false(out.flags & BARO_FILTER_OUT_HEALTHY);
	baro_filter_instance_destroy(&fi);
	assert_null(fi.dl_handle);

	/* The plugin's own parameter error, named as the plugin's. */
	snprintf(spec, sizeof(spec), "plugin:%s:band=wide", path);
	expect_error(spec, BARO_FILTER_SPEC_PLUGINS, -EINVAL,
		     "plugin deadband: band='wide'", NULL);

	/* Not allowed unless asked for (the fuzz target never loads). */
	snprintf(spec, sizeof(spec), "plugin:%s", path);
	expect_error(spec, 0, -EPERM, "not allowed", NULL);
}

static void
test_plugin_relative_path(void **state)
{
	(void)state;
	char path[PATH_MAX], cwd[PATH_MAX], err[512];
	struct baro_filter_instance fi;

	snprintf(path, sizeof(path), "%s", env_path("EXAMPLE_FILTER"));
	char *slash = strrchr(path, '/');
	assert_non_null(slash);
	*slash = '\0';
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(path), 0);

	/* No '/': the working directory, not the library search path. */
	char spec[PATH_MAX + 16];
	snprintf(spec, sizeof(spec), "plugin:%s", slash + 1);
	int rc = baro_filter_instance_create(&fi, spec,
					     BARO_FILTER_SPEC_PLUGINS, err,
					     sizeof(err));
	if (rc != 0)
		fail_msg("%s: %s", spec, err);
	assert_string_equal(fi.label, "plugin:deadband");
	baro_filter_instance_destroy(&fi);
	expect_error("plugin:libc.so.6", BARO_FILTER_SPEC_PLUGINS, -ENOENT,
		     "./libc.so.6", "No such file");
	assert_int_equal(chdir(cwd), 0);
}

static void
test_plugin_errors(void **state)
{
	(void)state;
	char spec[PATH_MAX + 32];
	const unsigned allow = BARO_FILTER_SPEC_PLUGINS;

	expect_error("plugin", allow, -EINVAL, "no path", NULL);
	expect_error("plugin:", allow, -EINVAL, "no path", NULL);
	expect_error("plugin::x=1", allow, -EINVAL, "no path", NULL);
	expect_error("plugin:/nonexistent/dir/filter.so", allow, -ENOENT,
		     "/nonexistent/dir/filter.so", "No such file");

	/* Exists, but is no shared object. */
	snprintf(spec, sizeof(spec), "plugin:%s", env_path("NOT_A_PLUGIN"));
	expect_error(spec, allow, -ELIBBAD, "cannot load", NULL);

	snprintf(spec, sizeof(spec), "plugin:%s", env_path("BAD_NOSYM"));
	expect_error(spec, allow, -ELIBBAD, "no baro_filter_entry symbol",
		     env_path("BAD_NOSYM"));
	snprintf(spec, sizeof(spec), "plugin:%s", env_path("BAD_ABI"));
	expect_error(spec, allow, -EPROTO, "filter ABI version 2",
		     "speaks 1");
	snprintf(spec, sizeof(spec), "plugin:%s", env_path("BAD_REFUSE"));
	expect_error(spec, allow, -EPROTO, "returned NULL",
		     "does not support ABI version 1");
	snprintf(spec, sizeof(spec), "plugin:%s:a=b", env_path("BAD_NULLCB"));
	expect_error(spec, allow, -EBADE, "no step() callback", NULL);
	snprintf(spec, sizeof(spec), "plugin:%s", env_path("BAD_NAME"));
	expect_error(spec, allow, -EBADE, "name is invalid", NULL);
}

/* Create spec (a plugin path from env, then ":params" or nothing). */
static void
create_ok(struct baro_filter_instance *fi, const char *env,
	  const char *params)
{
	char spec[PATH_MAX + 64], err[512];
	snprintf(spec, sizeof(spec), "plugin:%s%s", env_path(env), params);
	int rc = baro_filter_instance_create(fi, spec,
					     BARO_FILTER_SPEC_PLUGINS, err,
					     sizeof(err));
	if (rc != 0)
		fail_msg("%s: %s", spec, err);
}

static void
test_plugin_v2_example(void **state)
{
	(void)state;
	struct baro_filter_instance fi;

	create_ok(&fi, "EXAMPLE_FILTER2", ":tau=1");
	assert_true(baro_filter_instance_is_v2(&fi));
	assert_null(fi.filter);
	assert_string_equal(fi.filter2->name, "complementary");
	assert_string_equal(fi.label, "plugin:complementary:tau=1");
	assert_string_equal(fi.file, "example-filter2.so");
	assert_true(baro_filter_instance_state_size(&fi) >= 4 * sizeof(double));

	/* At rest on a level accelerometer and a constant baro: the first
	 * sample starts it, the climb stays 0. */
	struct baro_filter_frame fr = { .nbaro = 1 };
	struct baro_filter_output2 out;
	for (unsigned k = 0; k < 100; k++) {
		uint64_t t = 10000u * k;
		fr.now_us = t;
		fr.accel = (struct baro_filter_accel){
			.time_us = t,
			.flags = BARO_FILTER_SENSOR_VALID |
				 BARO_FILTER_SENSOR_FRESH |
				 BARO_FILTER_ACCEL_HAS_ATTITUDE,
			.specific_force = { 0, 0, -9.80665 },
			.vert_accel_mss = 0.0,
		};
		fr.baro[0] = (struct baro_filter_baro){
			.time_us = t,
			.flags = BARO_FILTER_SENSOR_VALID |
				 BARO_FILTER_SENSOR_FRESH,
			.pressure_pa = 100000,
			.alt_m = 12.0,
		};
		baro_filter_instance_step2(&fi, &fr, &out);
		assert_close_abs(out.alt_m, 12.0, 1e-9);
		assert_close_abs(out.climb_m_s, 0.0, 1e-9);
		assert_true(out.flags & BARO_FILTER_OUT_HEALTHY);
		assert_true(out.baro_flags[0] & BARO_FILTER_BARO_OUT_SELECTED);
	}
	/* Through the version-1 step: baro[0] as the sample. */
	struct baro_filter_input in = { .time_us = 1000000, .alt_m = 12.0,
					.pressure_pa = 100000 };
	struct baro_filter_output o1;
	baro_filter_instance_step(&fi, in.time_us, &in, &o1);
	assert_close_abs(o1.alt_m, 12.0, 1e-9);
	assert_true(isnan(o1.test_ratio));
	baro_filter_instance_reset(&fi);
	baro_filter_instance_step(&fi, 1100000, NULL, &o1);
	assert_true(isnan(o1.alt_m));
	baro_filter_instance_destroy(&fi);
	assert_null(fi.filter2);
	assert_null(fi.dl_handle);

	char spec[PATH_MAX + 32];
	snprintf(spec, sizeof(spec), "plugin:%s:tau=-1",
		 env_path("EXAMPLE_FILTER2"));
	expect_error(spec, BARO_FILTER_SPEC_PLUGINS, -EINVAL,
		     "plugin complementary: tau='-1'", NULL);
}

static void
test_plugin_v2_errors(void **state)
{
	(void)state;
	char spec[PATH_MAX + 32];
	const unsigned allow = BARO_FILTER_SPEC_PLUGINS;

	snprintf(spec, sizeof(spec), "plugin:%s", env_path("BAD2_ABI"));
	expect_error(spec, allow, -EPROTO, "filter ABI version 3",
		     "speaks 2");
	snprintf(spec, sizeof(spec), "plugin:%s", env_path("BAD2_REFUSE"));
	expect_error(spec, allow, -EPROTO,
		     "baro_filter2_entry(2) returned NULL",
		     "does not support ABI version 2");
	snprintf(spec, sizeof(spec), "plugin:%s:a=b", env_path("BAD2_NULLCB"));
	expect_error(spec, allow, -EBADE, "no reset() callback",
		     env_path("BAD2_NULLCB"));
	snprintf(spec, sizeof(spec), "plugin:%s", env_path("BAD2_NAME"));
	expect_error(spec, allow, -EBADE, "name is invalid", NULL);

	/* Both entries: version 2 is looked for first. */
	struct baro_filter_instance fi;
	create_ok(&fi, "BAD2_BOTH", "");
	assert_true(baro_filter_instance_is_v2(&fi));
	assert_string_equal(fi.label, "plugin:two");
	baro_filter_instance_destroy(&fi);

	/* Version 2 refused, version 1 served: version 1. */
	create_ok(&fi, "BAD2_FALLBACK", "");
	assert_false(baro_filter_instance_is_v2(&fi));
	assert_string_equal(fi.label, "plugin:one");
	baro_filter_instance_destroy(&fi);

	/* A version-1 plugin is not version 2. */
	create_ok(&fi, "EXAMPLE_FILTER", "");
	assert_false(baro_filter_instance_is_v2(&fi));
	assert_non_null(fi.filter);
	assert_null(fi.filter2);
	baro_filter_instance_destroy(&fi);
}

/* step2 on a version-1 filter: baro[0] fresh is a sample, else a poll;
 * the same outputs as step() called so, climb NaN, baro_flags[0]. */
static void
test_step2_v1_adapter(void **state)
{
	(void)state;
	struct baro_filter_instance a, b;
	char err[256];

	assert_int_equal(baro_filter_instance_create(&a, "gate:noise=0.5", 0,
						     err, sizeof(err)), 0);
	assert_int_equal(baro_filter_instance_create(&b, "gate:noise=0.5", 0,
						     err, sizeof(err)), 0);
	assert_false(baro_filter_instance_is_v2(&a));
	struct baro_filter_frame fr = { .nbaro = 2 };
	unsigned rejected = 0;
	for (unsigned k = 0; k < 400; k++) {
		uint64_t t = 10000u * k;
		/* Every 4th step no baro[0] sample (a poll); a spike at
		 * 200; baro[1] always fresh and far off, never seen. */
		bool sample = k % 4 != 3;
		double alt = 0.01 * k + (k == 200 ? 30.0 : 0.0);
		fr.now_us = t;
		fr.baro[0].flags = BARO_FILTER_SENSOR_VALID |
				   (sample ? BARO_FILTER_SENSOR_FRESH : 0u) |
				   BARO_FILTER_BARO_HAS_TEMPERATURE;
		if (sample) {
			fr.baro[0].time_us = t;
			fr.baro[0].alt_m = alt;
			fr.baro[0].pressure_pa = 100000.0 - alt * 12.0;
			fr.baro[0].temperature_c = 20.0;
		}
		fr.baro[1] = (struct baro_filter_baro){
			.time_us = t,
			.flags = BARO_FILTER_SENSOR_VALID |
				 BARO_FILTER_SENSOR_FRESH,
			.alt_m = 500.0,
		};
		struct baro_filter_output2 o2;
		struct baro_filter_output o1;
		baro_filter_instance_step2(&a, &fr, &o2);
		if (sample) {
			struct baro_filter_input in = {
				.time_us = t,
				.pressure_pa = fr.baro[0].pressure_pa,
				.temperature_c = 20.0,
				.alt_m = alt,
				.flags = BARO_FILTER_IN_HAS_TEMPERATURE,
			};
			baro_filter_instance_step(&b, t, &in, &o1);
		} else {
			baro_filter_instance_step(&b, t, NULL, &o1);
		}
		assert_memory_equal(&o2.alt_m, &o1.alt_m, sizeof(double));
		assert_memory_equal(&o2.test_ratio, &o1.test_ratio,
				    sizeof(double));
		assert_int_equal(o2.flags, o1.flags);
		assert_true(isnan(o2.climb_m_s));
		uint32_t want = BARO_FILTER_BARO_OUT_SELECTED;
		if (o1.flags & BARO_FILTER_OUT_HEALTHY)
			want |= BARO_FILTER_BARO_OUT_HEALTHY;
		if (o1.flags & BARO_FILTER_OUT_REJECTED) {
			want |= BARO_FILTER_BARO_OUT_REJECTED;
			rejected++;
		}
		assert_int_equal(o2.baro_flags[0], want);
		assert_int_equal(o2.baro_flags[1], 0);
		assert_int_equal(o2.baro_flags[2], 0);
	}
	assert_int_equal(rejected, 1);
	baro_filter_instance_destroy(&a);
	baro_filter_instance_destroy(&b);
}

/* Two plugins naming themselves alike are told apart by file. */
static void
test_label_file(void **state)
{
	(void)state;
	struct baro_filter_instance fi;
	char err[256];

	create_ok(&fi, "EXAMPLE_FILTER2", ":tau=3");
	assert_int_equal(baro_filter_instance_label_file(&fi), 0);
	assert_string_equal(fi.label,
			    "plugin:complementary@example-filter2.so:tau=3");
	baro_filter_instance_destroy(&fi);
	assert_int_equal(baro_filter_instance_create(&fi, "comp", 0, err,
						     sizeof(err)), 0);
	assert_true(baro_filter_instance_is_v2(&fi));
	assert_int_equal(baro_filter_instance_label_file(&fi), -EINVAL);
	assert_string_equal(fi.label, "comp");
	baro_filter_instance_destroy(&fi);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtins),
		cmocka_unit_test(test_spec_labels),
		cmocka_unit_test(test_spec_errors),
		cmocka_unit_test(test_spec_list),
		cmocka_unit_test(test_plugin_example),
		cmocka_unit_test(test_plugin_relative_path),
		cmocka_unit_test(test_plugin_errors),
		cmocka_unit_test(test_plugin_v2_example),
		cmocka_unit_test(test_plugin_v2_errors),
		cmocka_unit_test(test_step2_v1_adapter),
		cmocka_unit_test(test_label_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
