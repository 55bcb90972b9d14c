// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Exec filters (issue 35): the wire codec, the host against misbehaving
 * peers (exec-peer.py), and the Python example filter through the whole
 * path against a C filter doing the same arithmetic, bit for bit.
 * Environment (meson): PYTHON, SRC_DIR.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "exec-filter.h"
#include "exec-run.h"
#include "exec-wire.h"
#include "filter-registry.h"
#include "replay-filters.h"
#include "replay-run.h"
#include "replay-sine.h"
#include "replay-stream.h"
#include "test-util.h"
#include "truth-profile.h"

static const char *
env(const char *name)
{
	const char *v = getenv(name);
	if (!v || !*v)
		fail_msg("%s is not set (meson sets it)", name);
	return v;
}

/* ---------------------------------------------------------------- codec */

static void
test_frame_bytes_are_the_struct(void **state)
{
	(void)state;
	struct baro_filter_frame f;
	/* Every byte of the struct made distinct, reserved fields zero. */
	uint8_t *raw = (uint8_t *)&f;
	for (size_t k = 0; k < sizeof(f); k++)
		raw[k] = (uint8_t)(k * 7 + 1);
	f.reserved = 0;
	for (int k = 0; k < BARO_FILTER_MAX_BAROS; k++)
		f.baro[k].reserved = 0;
	f.accel.reserved = f.gps.reserved = f.range.reserved = 0;
	uint8_t wire[EXEC_WIRE_FRAME_SIZE];
	exec_wire_put_frame(wire, &f);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	assert_memory_equal(wire, &f, sizeof(wire));
#endif
	/* A few fields by offset, on any host. */
	struct baro_filter_frame g = { .now_us = 0x0102030405060708ull,
				       .nbaro = 3 };
	g.baro[2].alt_m = 1.5;
	g.accel.vert_accel_mss = -2.0;
	g.range.max_m = 7.0;
	exec_wire_put_frame(wire, &g);
	assert_int_equal(wire[0], 0x08);
	assert_int_equal(wire[7], 0x01);
	assert_int_equal(wire[8], 3);
	double d;
	uint64_t u = 0;
	for (int k = 7; k >= 0; k--)
		u = u << 8 | wire[16 + 2 * 40 + 32 + k];
	memcpy(&d, &u, sizeof(d));
	assert_true(d == 1.5);
	u = 0;
	for (int k = 7; k >= 0; k--)
		u = u << 8 | wire[136 + 64 + k];
	memcpy(&d, &u, sizeof(d));
	assert_true(d == -2.0);
	u = 0;
	for (int k = 7; k >= 0; k--)
		u = u << 8 | wire[296 + k];
	memcpy(&d, &u, sizeof(d));
	assert_true(d == 7.0);
}

static void
put_u32(uint8_t *p, uint32_t v)
{
	for (int k = 0; k < 4; k++)
		p[k] = (uint8_t)(v >> (8 * k));
}

static size_t
make_hello(uint8_t *p, uint32_t version, uint32_t reads, const char *name)
{
	memcpy(p, "BRFX", 4);
	put_u32(p + 4, version);
	put_u32(p + 8, reads);
	put_u32(p + 12, (uint32_t)strlen(name));
	memcpy(p + 16, name, strlen(name));
	return 16 + strlen(name);
}

static void
test_parse_hello(void **state)
{
	(void)state;
	uint8_t b[128];
	struct exec_wire_hello h;
	char err[256];
	size_t n = make_hello(b, 1, BARO_FILTER_READS_ACCEL, "my-filter_2");
	/* Every prefix wants more; the whole is the hello. */
	for (size_t k = 0; k < n; k++)
		assert_int_equal(exec_wire_parse_hello(b, k, &h, err,
						       sizeof(err)), 0);
	assert_int_equal(exec_wire_parse_hello(b, n, &h, err, sizeof(err)),
			 (int)n);
	assert_string_equal(h.name, "my-filter_2");
	assert_int_equal(h.reads, BARO_FILTER_READS_ACCEL);

	/* Wrong at its first byte: refused before the rest is in. */
	assert_int_equal(exec_wire_parse_hello((const uint8_t *)"hi", 1, &h,
					       err, sizeof(err)),
			 -EPROTO);
	assert_non_null(strstr(err, "'h' at byte 0"));
	n = make_hello(b, 2, 0, "x");
	assert_int_equal(exec_wire_parse_hello(b, n, &h, err, sizeof(err)),
			 -EPROTO);
	assert_non_null(strstr(err, "version 2"));
	n = make_hello(b, 1, 1u << 7, "x");
	assert_int_equal(exec_wire_parse_hello(b, n, &h, err, sizeof(err)),
			 -EPROTO);
	n = make_hello(b, 1, 0, "Bad");
	assert_int_equal(exec_wire_parse_hello(b, n, &h, err, sizeof(err)),
			 -EPROTO);
	assert_non_null(strstr(err, "'B' in its name"));
	n = make_hello(b, 1, 0, "");
	assert_int_equal(exec_wire_parse_hello(b, n, &h, err, sizeof(err)),
			 -EPROTO);
	/* A name too long is refused from the header alone. */
	make_hello(b, 1, 0, "x");
	put_u32(b + 12, 64);
	assert_int_equal(exec_wire_parse_hello(b, 16, &h, err, sizeof(err)),
			 -EPROTO);
	/* 'E' instead: its message, one line, made printable. */
	memcpy(b, "E\x06\0\0\0no\x01go\n", 11);
	assert_int_equal(exec_wire_parse_hello(b, 10, &h, err, sizeof(err)),
			 0);
	assert_int_equal(exec_wire_parse_hello(b, 11, &h, err, sizeof(err)),
			 -ECANCELED);
	assert_string_equal(err, "no?go");
	put_u32(b + 1, EXEC_WIRE_ERROR_MAX + 1);
	assert_int_equal(exec_wire_parse_hello(b, 5, &h, err, sizeof(err)),
			 -EPROTO);
}

static void
test_parse_outputs(void **state)
{
	(void)state;
	uint8_t b[EXEC_WIRE_HEADER_SIZE + 2 * EXEC_WIRE_OUTPUT_SIZE];
	struct baro_filter_output2 o[2];
	char err[256];
	b[0] = 'O';
	put_u32(b + 1, 2);
	for (int k = 0; k < 2; k++) {
		uint8_t *p = b + EXEC_WIRE_HEADER_SIZE + 40 * k;
		const double d[3] = { 10.0 + k, -1.0, NAN };
		for (int j = 0; j < 3; j++) {
			uint64_t u;
			memcpy(&u, &d[j], 8);
			put_u32(p + 8 * j, (uint32_t)u);
			put_u32(p + 8 * j + 4, (uint32_t)(u >> 32));
		}
		put_u32(p + 24, 1);
		put_u32(p + 28, 5);
		put_u32(p + 32, 2);
		put_u32(p + 36, (uint32_t)k);
	}
	for (size_t k = 0; k < sizeof(b); k++)
		assert_int_equal(exec_wire_parse_outputs(b, k, 2, o, err,
							 sizeof(err)), 0);
	assert_int_equal(exec_wire_parse_outputs(b, sizeof(b), 2, o, err,
						 sizeof(err)),
			 (int)sizeof(b));
	assert_true(o[1].alt_m == 11.0 && o[1].climb_m_s == -1.0);
	assert_true(isnan(o[0].test_ratio));
	assert_int_equal(o[0].flags, 1);
	assert_int_equal(o[1].baro_flags[0], 5);
	assert_int_equal(o[1].baro_flags[1], 2);
	assert_int_equal(o[1].baro_flags[2], 1);
	/* A wrong count, from the header alone. */
	assert_int_equal(exec_wire_parse_outputs(b, 5, 3, o, err,
						 sizeof(err)),
			 -EPROTO);
	assert_non_null(strstr(err, "2 outputs where 3 were due"));
	b[0] = 'X';
	assert_int_equal(exec_wire_parse_outputs(b, 1, 2, o, err,
						 sizeof(err)),
			 -EPROTO);
	assert_non_null(strstr(err, "'X' where 'O' or 'E'"));
	assert_int_equal(exec_wire_parse_outputs(b, 1, 0, o, err,
						 sizeof(err)),
			 -EINVAL);
}

/* ------------------------------------------------------- misbehaving */

static int
peer_start(struct exec_filter **ef, const char *mode, double timeout_s,
	   char *err, size_t errlen)
{
	char cmd[4096];
	snprintf(cmd, sizeof(cmd), "'%s' '%s/tests/replay/exec-peer.py' %s",
		 env("PYTHON"), env("SRC_DIR"), mode);
	return exec_filter_start(ef, cmd, timeout_s, err, errlen);
}

/* A frame to send. */
static struct baro_filter_frame
frame_at(uint64_t t, double alt)
{
	struct baro_filter_frame f = { .now_us = t, .nbaro = 1 };
	f.baro[0] = (struct baro_filter_baro){
		.time_us = t,
		.flags = BARO_FILTER_SENSOR_VALID | BARO_FILTER_SENSOR_FRESH,
		.pressure_pa = 101325.0, .temperature_c = NAN, .alt_m = alt,
	};
	return f;
}

/* Start peer mode, send a batch of 3: the error and its words. */
static void
expect_batch_error(const char *mode, int want, const char *words,
		   double timeout_s)
{
	struct exec_filter *ef;
	char err[4400];
	assert_int_equal(peer_start(&ef, mode, 10.0, err, sizeof(err)), 0);
	char name[64];
	snprintf(name, sizeof(name), "peer-%s", mode);
	assert_string_equal(exec_filter_name(ef), name);
	struct baro_filter_frame f[3] = { frame_at(1000, 1.0),
					  frame_at(2000, 2.0),
					  frame_at(3000, 3.0) };
	struct baro_filter_output2 o[3];
	int rc = exec_filter_run(ef, f, 3, 1, o, timeout_s, err, sizeof(err));
	print_message("%-10s -> %d: %s\n", mode, rc, err);
	assert_int_equal(rc, want);
	assert_non_null(strstr(err, name));
	assert_non_null(strstr(err, words));
	/* Stopped: later calls say so, quickly. */
	assert_int_equal(exec_filter_run(ef, f, 3, 0, o, timeout_s, err,
					 sizeof(err)),
			 -EPIPE);
	assert_non_null(strstr(err, "earlier error"));
	exec_filter_stop(ef);
}

/* The control, and the same with its hello said first. */
static void
run_peer_ok(const char *mode)
{
	struct exec_filter *ef;
	char err[4400];
	assert_int_equal(peer_start(&ef, mode, 10.0, err, sizeof(err)), 0);
	struct baro_filter_frame f[2] = { frame_at(1000, 1.5),
					  frame_at(2000, -2.5) };
	struct baro_filter_output2 o[2];
	for (int r = 0; r < 3; r++) {
		assert_int_equal(exec_filter_run(ef, f, 2, r == 1, o, 10.0,
						 err, sizeof(err)),
				 0);
		assert_true(o[0].alt_m == 1.5 && o[1].alt_m == -2.5);
		assert_int_equal(o[1].baro_flags[0], 5);
	}
	/* A reset alone goes out without an answer. */
	assert_int_equal(exec_filter_run(ef, NULL, 0, 1, NULL, 10.0, err,
					 sizeof(err)),
			 0);
	assert_int_equal(exec_filter_run(ef, f, 1, 0, o, 10.0, err,
					 sizeof(err)),
			 0);
	exec_filter_stop(ef);
}

static void
test_peer_ok(void **state)
{
	(void)state;
	run_peer_ok("ok");
	run_peer_ok("eager");
}

static void
test_peer_start_errors(void **state)
{
	(void)state;
	struct exec_filter *ef = (void *)1;
	char err[4400];
	assert_int_equal(peer_start(&ef, "garbage", 10.0, err, sizeof(err)),
			 -EPROTO);
	assert_null(ef);
	assert_non_null(strstr(err, "'h' at byte 0 of its hello"));
	assert_int_equal(peer_start(&ef, "badname", 10.0, err, sizeof(err)),
			 -EPROTO);
	assert_non_null(strstr(err, "' ' in its name"));
	assert_int_equal(peer_start(&ef, "silent", 0.5, err, sizeof(err)),
			 -ETIMEDOUT);
	assert_non_null(strstr(err, "no answer within 0.5 s"));
	assert_non_null(strstr(err, "before its hello"));
	assert_int_equal(exec_filter_start(&ef, "/nonexistent/filter", 10.0,
					   err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "exec:/nonexistent/filter: did not start"));
	assert_int_equal(exec_filter_start(&ef, "exit 4", 10.0, err,
					   sizeof(err)),
			 -EPIPE);
	assert_non_null(strstr(err, "exited with status 4 before its hello"));
	print_message("%s\n", err);
}

static void
test_peer_batch_errors(void **state)
{
	(void)state;
	expect_batch_error("short", -EPROTO, "answered 2 outputs where 3 "
					     "were due in a batch of 3 frames",
			   10.0);
	expect_batch_error("truncated", -EPIPE, "exited with status 0 in a "
						"batch of 3 frames", 10.0);
	expect_batch_error("error", -ECANCELED, "said 'E': bad sensor; "
						"exited with status 3", 10.0);
	expect_batch_error("exit", -EPIPE, "exited with status 5", 10.0);
	/* "was killed by signal 9", or a wrapper's status 137 (pyenv's
	 * python3 is a script) "(128 + signal 9, Killed)". */
	expect_batch_error("signal", -EPIPE, "signal 9", 10.0);
	expect_batch_error("sleep", -ETIMEDOUT, "no answer within 0.5 s",
			   0.5);
}

/* An answer given twice, its copy there as the answer is read (the peer
 * writes both at once), is a protocol error; a copy sent only after the
 * next batch went out could pass for its answer (doc/filter-exec.md). */
static void
test_peer_answers_twice(void **state)
{
	(void)state;
	struct exec_filter *ef;
	char err[4400];
	assert_int_equal(peer_start(&ef, "twice", 10.0, err, sizeof(err)), 0);
	struct baro_filter_frame f[2] = { frame_at(1000, 1.5),
					  frame_at(2000, -2.5) };
	struct baro_filter_output2 o[2];
	int rc = exec_filter_run(ef, f, 2, 1, o, 10.0, err, sizeof(err));
	/* The second copy may come with the first or after it. */
	if (rc == 0)
		rc = exec_filter_run(ef, f, 2, 0, o, 10.0, err, sizeof(err));
	print_message("%s\n", err);
	assert_int_equal(rc, -EPROTO);
	assert_non_null(strstr(err, "exec:peer-twice: said more than"));
	exec_filter_stop(ef);
}

/* The module's own words for a bad parameter, at the hello. */
static void
test_python_bad_param(void **state)
{
	(void)state;
	char cmd[4096], err[4400];
	struct exec_filter *ef;
	snprintf(cmd, sizeof(cmd), "'%s' '%s/doc/examples/exec-comp.py' kh=abc",
		 env("PYTHON"), env("SRC_DIR"));
	assert_int_equal(exec_filter_start(&ef, cmd, 10.0, err, sizeof(err)),
			 -ECANCELED);
	print_message("%s\n", err);
	assert_non_null(strstr(err, "ValueError"));
	assert_non_null(strstr(err, "exited with status 1 before its hello"));
}

/* ------------------------------------------ the example against C */

/* doc/examples/exec-comp.py in C, operation for operation. */
struct pycomp {
	double kh, kv;
	bool have;
	double h, v;
	uint64_t t;
};

static int
pycomp_create(void **state, const char *params, char *err, size_t errlen)
{
	(void)params;
	(void)err;
	(void)errlen;
	struct pycomp *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->kh = 0.05;
	s->kv = 0.1;
	*state = s;
	return 0;
}

static void
pycomp_reset(void *state)
{
	struct pycomp *s = state;
	s->have = false;
	s->v = 0.0;
	s->t = 0;
}

static void
pycomp_step(void *state, const struct baro_filter_frame *f,
	    struct baro_filter_output2 *out)
{
	struct pycomp *s = state;
	double a = f->accel.flags & BARO_FILTER_SENSOR_VALID
			   ? f->accel.vert_accel_mss
			   : 0.0;
	if (isnan(a))
		a = 0.0;
	if (s->have) {
		double dt = (double)(f->now_us - s->t) * 1e-6;
		s->h += s->v * dt + 0.5 * a * dt * dt;
		s->v += a * dt;
	}
	s->t = f->now_us;
	if (f->baro[0].flags & BARO_FILTER_SENSOR_FRESH) {
		if (!s->have) {
			s->h = f->baro[0].alt_m;
			s->v = 0.0;
			s->have = true;
		}
		double e = f->baro[0].alt_m - s->h;
		s->h += s->kh * e;
		s->v += s->kv * e;
	}
	out->flags = s->have ? BARO_FILTER_OUT_HEALTHY : 0u;
	if (s->have) {
		out->alt_m = s->h;
		out->climb_m_s = s->v;
	}
	out->baro_flags[0] = baro_filter_v1_baro_flags(out->flags);
}

static const struct baro_filter2 pycomp_ref = {
	.abi_version = BARO_FILTER2_ABI_VERSION,
	.name = "pycomp",
	.description = "exec-comp.py in C",
	.create = pycomp_create,
	.step = pycomp_step,
	.reset = pycomp_reset,
	.destroy = free,
};

/* 60 s of the synthetic stream (every sensor), split in two segments. */
static void
make_rows(struct replay_rows *rows)
{
	struct replay_stream st;
	char err[256];
	replay_sine_stream(&st, 3);
	free(st.seg);	/* the stream's own, one segment */
	st.seg = calloc(2, sizeof(*st.seg));
	assert_non_null(st.seg);
	st.seg[1].first = st.n / 2;
	st.nseg = st.capseg = 2;
	assert_int_equal(replay_rows_build(rows, &st, NULL, 3, err,
					   sizeof(err)), 0);
	assert_int_equal(rows->nseg_t, 1);
	assert_true(rows->naux > 2 * EXEC_WIRE_BATCH_MAX);
	replay_stream_free(&st);
}

/* Two outputs equal, NaN equal to NaN. */
static void
assert_same(const struct replay_output *a, const struct replay_output *b,
	    size_t n)
{
	size_t finite = 0;
	for (size_t i = 0; i < n; i++) {
		const double x[2][2] = { { a->alt_m[i], b->alt_m[i] },
					 { a->climb_m_s[i], b->climb_m_s[i] } };
		for (int j = 0; j < 2; j++) {
			if (isnan(x[j][0]) && isnan(x[j][1]))
				continue;
			if (!(x[j][0] == x[j][1]))
				fail_msg("row %zu: %.17g against %.17g", i,
					 x[j][0], x[j][1]);
			finite++;
		}
		assert_true(isnan(a->test_ratio[i]) &&
			    isnan(b->test_ratio[i]));
		assert_int_equal(a->flags[i], b->flags[i]);
		for (int k = 0; k < 3; k++)
			assert_int_equal(a->baro_flags[3 * i + k],
					 b->baro_flags[3 * i + k]);
	}
	/* Not all NaN: at least an altitude per row. */
	assert_true(finite >= n);
}

static void
test_python_comp_equals_c(void **state)
{
	(void)state;
	struct replay_rows rows;
	make_rows(&rows);
	char err[4400], cmd[4096];

	struct baro_filter_instance fi = { .filter2 = &pycomp_ref };
	assert_int_equal(pycomp_ref.create(&fi.state, "", err, sizeof(err)),
			 0);
	struct replay_output oc, op;
	assert_int_equal(replay_run_filter(&rows, &fi, &oc, err, sizeof(err)),
			 0);

	struct exec_filter *ef;
	snprintf(cmd, sizeof(cmd), "'%s' '%s/doc/examples/exec-comp.py'",
		 env("PYTHON"), env("SRC_DIR"));
	assert_int_equal(exec_filter_start(&ef, cmd, 10.0, err, sizeof(err)),
			 0);
	assert_string_equal(exec_filter_name(ef), "pycomp");
	assert_int_equal(exec_filter_reads(ef), BARO_FILTER_READS_ACCEL);
	/* Twice: the second run starts from a reset as the first. */
	for (int r = 0; r < 2; r++) {
		assert_int_equal(replay_run_exec(&rows, ef, &op, 10.0, err,
						 sizeof(err)),
				 0);
		assert_same(&op, &oc, rows.n);
		replay_output_free(&op);
	}
	print_message("exec-comp.py equals its C twin on %zu rows (%zu "
		      "frames, one segment break)\n",
		      rows.n, rows.n + rows.naux);
	exec_filter_stop(ef);
	replay_output_free(&oc);
	free(fi.state);
	replay_rows_free(&rows);
}

/* The trivial filter: numpy's batch path and step() agree, with each
 * other and with the raw altitude. */
static void
test_python_batch_equals_step(void **state)
{
	(void)state;
	char cmd[4096], err[4400];
	const char *py = NULL;
	static const char *const cand[] = { "PYTHON", "/usr/bin/python3" };
	for (int k = 0; k < 2 && !py; k++) {
		const char *p = k == 0 ? env(cand[0]) : cand[1];
		snprintf(cmd, sizeof(cmd), "'%s' -c 'import numpy' 2>/dev/null",
			 p);
		if (system(cmd) == 0)
			py = p;
	}
	if (!py) {
		skip_because("no python3 with numpy: the batch path is not "
			     "checked");
	}
	struct replay_rows rows;
	make_rows(&rows);
	struct replay_output o[2];
	for (int m = 0; m < 2; m++) {
		setenv("BAROD_FILTER_NUMPY", m ? "0" : "1", 1);
		snprintf(cmd, sizeof(cmd), "'%s' '%s/doc/examples/exec-raw.py'",
			 py, env("SRC_DIR"));
		struct exec_filter *ef;
		assert_int_equal(exec_filter_start(&ef, cmd, 10.0, err,
						   sizeof(err)),
				 0);
		assert_int_equal(replay_run_exec(&rows, ef, &o[m], 10.0, err,
						 sizeof(err)),
				 0);
		exec_filter_stop(ef);
	}
	unsetenv("BAROD_FILTER_NUMPY");
	for (size_t i = 0; i < rows.n; i++) {
		if (rows.is_sample[i])
			assert_true(o[0].alt_m[i] == rows.in_alt_m[i]);
		assert_int_equal(o[0].baro_flags[3 * i], 5);
	}
	assert_same(&o[0], &o[1], rows.n);
	replay_output_free(&o[0]);
	replay_output_free(&o[1]);
	replay_rows_free(&rows);
}

/* Without numpy (hidden by tests/replay/no-numpy), a filter with
 * step() and step_batch() runs through step(); one with step_batch()
 * alone says it needs numpy. */
static void
test_python_without_numpy(void **state)
{
	(void)state;
	char path[4096], cmd[4096], err[4400];
	const char *src = env("SRC_DIR");
	snprintf(path, sizeof(path), "%s/tests/replay/no-numpy:%s/python", src,
		 src);
	setenv("PYTHONPATH", path, 1);
	struct replay_rows rows;
	make_rows(&rows);
	struct replay_output o;
	struct exec_filter *ef;
	snprintf(cmd, sizeof(cmd), "'%s' '%s/doc/examples/exec-raw.py'",
		 env("PYTHON"), src);
	assert_int_equal(exec_filter_start(&ef, cmd, 10.0, err, sizeof(err)),
			 0);
	assert_int_equal(replay_run_exec(&rows, ef, &o, 10.0, err,
					 sizeof(err)),
			 0);
	exec_filter_stop(ef);
	for (size_t i = 0; i < rows.n; i++)
		if (rows.is_sample[i])
			assert_true(o.alt_m[i] == rows.in_alt_m[i]);
	replay_output_free(&o);
	/* step_batch alone. */
	snprintf(cmd, sizeof(cmd),
		 "'%s' -c 'import barod_filter as bf\n"
		 "class B:\n"
		 "    def __init__(self, p): pass\n"
		 "    def reset(self): pass\n"
		 "    def step_batch(self, f): pass\n"
		 "bf.run(B)'",
		 env("PYTHON"));
	assert_int_equal(exec_filter_start(&ef, cmd, 10.0, err, sizeof(err)),
			 -ECANCELED);
	print_message("%s\n", err);
	assert_non_null(strstr(err, "step_batch() alone and numpy is not "
				    "installed"));
	replay_rows_free(&rows);
	snprintf(path, sizeof(path), "%s/python", src);
	setenv("PYTHONPATH", path, 1);
}

/* Two exec filters that give one name: told apart by their place; the
 * same command twice is refused. */
static void
test_exec_labels(void **state)
{
	(void)state;
	char a[4096], b[4096], err[4400];
	snprintf(a, sizeof(a), "exec:'%s' '%s/tests/replay/exec-peer.py' ok",
		 env("PYTHON"), env("SRC_DIR"));
	snprintf(b, sizeof(b), "exec:%s  '%s/tests/replay/exec-peer.py' ok",
		 env("PYTHON"), env("SRC_DIR"));
	const char *specs[] = { a, b, "gate" };
	struct replay_filter_set *set;
	assert_int_equal(replay_filter_set_open(&set, specs, 3, false, err,
						sizeof(err)),
			 0);
	assert_int_equal(replay_filter_count(set), 3);
	assert_string_equal(replay_filter_label(set, 0), "exec:peer-ok");
	assert_string_equal(replay_filter_label(set, 1), "exec:peer-ok@2");
	assert_string_equal(replay_filter_label(set, 2), "gate");
	assert_null(replay_filter_instance(set, 0));
	assert_null(replay_filter_failed(set, 0));
	/* It says reads 0: every sensor. */
	assert_int_equal(replay_filter_reads(set, 0),
			 BARO_FILTER_READS_BAROS | BARO_FILTER_READS_ACCEL |
				 BARO_FILTER_READS_GPS |
				 BARO_FILTER_READS_RANGE);
	assert_int_equal(replay_filter_reads(set, 2), 0);
	replay_filter_set_close(set);

	const char *twice[] = { a, a };
	assert_int_equal(replay_filter_set_open(&set, twice, 2, false, err,
						sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "is given twice"));
	const char *empty[] = { "exec:" };
	assert_int_equal(replay_filter_set_open(&set, empty, 1, false, err,
						sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "no command after exec:"));
}

static int
setup(void **state)
{
	(void)state;
	/* The source's module, as an installed one would be found. */
	char path[4096];
	snprintf(path, sizeof(path), "%s/python", env("SRC_DIR"));
	setenv("PYTHONPATH", path, 1);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frame_bytes_are_the_struct),
		cmocka_unit_test(test_parse_hello),
		cmocka_unit_test(test_parse_outputs),
		cmocka_unit_test(test_peer_ok),
		cmocka_unit_test(test_peer_start_errors),
		cmocka_unit_test(test_peer_batch_errors),
		cmocka_unit_test(test_peer_answers_twice),
		cmocka_unit_test(test_python_bad_param),
		cmocka_unit_test(test_python_comp_equals_c),
		cmocka_unit_test(test_python_batch_equals_step),
		cmocka_unit_test(test_python_without_numpy),
		cmocka_unit_test(test_exec_labels),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
