/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Assertions shared by the CMocka suites. */
#ifndef BAROD_TEST_UTIL_H
#define BAROD_TEST_UTIL_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

/*
 * The facts-sheet vectors were computed with glibc's float functions on
 * x86-64; there the emulator must match them bit for bit.  Other libm
 * builds (e.g. arm64, whose libm may fuse operations internally) are
 * allowed one unit in the last place.
 */
#if defined(__x86_64__) && defined(__GLIBC__)
#define EXACT_ULPS 0
#else
#define EXACT_ULPS 1
#endif

static inline int64_t
float_ordinal(float f)
{
	int32_t i;

	memcpy(&i, &f, sizeof(i));
	return i < 0 ? -(int64_t)(i & 0x7fffffff) : (int64_t)i;
}

/* Distance in representable floats between a and b. */
static inline int64_t
float_ulps(float a, float b)
{
	int64_t d = float_ordinal(a) - float_ordinal(b);

	return d < 0 ? -d : d;
}

#define assert_float_ulps(actual, expected, ulps)                             \
	do {                                                                  \
		float a_ = (actual), e_ = (expected);                         \
		if (!(float_ulps(a_, e_) <= (ulps)))                          \
			fail_msg("%s = %.9g (0x%a), expected %.9g (0x%a), "   \
				 "%lld ulps apart", #actual, (double)a_,      \
				 (double)a_, (double)e_, (double)e_,          \
				 (long long)float_ulps(a_, e_));             \
	} while (0)

#define assert_float_exact(actual, expected)                                  \
	assert_float_ulps(actual, expected, EXACT_ULPS)

/* |actual - expected| <= rel * |expected| */
#define assert_close_rel(actual, expected, rel)                               \
	do {                                                                  \
		double a_ = (actual), e_ = (expected);                        \
		if (!(fabs(a_ - e_) <= (rel) * fabs(e_)))                     \
			fail_msg("%s = %.9g, expected %.9g (rel %.3g)",       \
				 #actual, a_, e_, (double)(rel));            \
	} while (0)

#define assert_close_abs(actual, expected, tol)                               \
	do {                                                                  \
		double a_ = (actual), e_ = (expected);                        \
		if (!(fabs(a_ - e_) <= (tol)))                                \
			fail_msg("%s = %.9g, expected %.9g (+-%.3g)",         \
				 #actual, a_, e_, (double)(tol));            \
	} while (0)

/* A failure from a helper library that does not know cmocka (the
 * harness's fail hook): fails the running test with msg. */
static inline void
test_fail(const char *msg)
{
	fail_msg("%s", msg);
}

/*
 * Skip the running case, saying why.  The reason goes out as a "SKIP:"
 * line on stdout, the stream cmocka names the case on next ("[  SKIPPED ]
 * case"), so tests/harness/skipped.py finds the pair in meson's test log
 * and lists the case like a skipped test (failing CI on it), although
 * the test itself passes.  A bare skip() leaves no reason, which
 * skipped.py fails.
 */
static inline void CMOCKA_PRINTF_ATTRIBUTE(1, 2)
test_skip_reason(const char *fmt, ...)
{
	va_list ap;

	print_message("SKIP: ");
	va_start(ap, fmt);
	vprint_message(fmt, ap);
	va_end(ap);
	print_message("\n");
}

#define skip_because(...)                                                     \
	do {                                                                  \
		test_skip_reason(__VA_ARGS__);                                \
		skip();                                                       \
	} while (0)

/* Hex digits (no separators) into out; fails the test past cap. */
static inline size_t
unhex(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = 0;

	for (; hex[0] && hex[1]; hex += 2) {
		unsigned v;
		assert_true(n < cap);
		assert_int_equal(sscanf(hex, "%2x", &v), 1);
		out[n++] = (uint8_t)v;
	}
	return n;
}

/* CLOCK_MONOTONIC in microseconds: how long something took. */
static inline uint64_t
test_mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* The wall clock in Unix microseconds (MAVLink signing's time base). */
static inline uint64_t
test_wall_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

#endif
