/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The barometer filter interface, and the C ABI for user filters.
 *
 * A filter turns a stream of barometer samples into an altitude estimate
 * and a health verdict.  The built-in filters (range, health, lowpass,
 * median, gate, raw) and filters loaded from a shared object implement
 * the same struct baro_filter, so baro-replay treats them alike.
 *
 * Writing a user filter: build a shared object that includes this header
 * (installed as <barod/baro-filter.h>) and exports
 *
 *     const struct baro_filter *baro_filter_entry(uint32_t abi_version);
 *
 * returning a pointer to a static struct baro_filter whose abi_version
 * is BARO_FILTER_ABI_VERSION, or NULL if it cannot serve abi_version.
 * The struct and everything it points to must stay valid until the
 * object is unloaded.  Only fixed-width types and double cross the
 * boundary; no allocation crosses it (the filter frees its own state).
 *
 * Calling contract (what the host guarantees):
 *   - create() once per run, before anything else; destroy() once after.
 *   - step() with non-decreasing now_us.  in != NULL: a sample arrived at
 *     now_us (== in->time_us).  in == NULL: no sample arrived, time has
 *     moved on to now_us (the host polls at least every 50 ms of log time
 *     while samples are missing), so timeouts can fire.
 *   - reset() puts the filter back to its state just after create(), e.g.
 *     after the autopilot rebooted.
 *   - Every call is single-threaded per state; different states may be
 *     used from different threads.
 */
#ifndef BAROD_BARO_FILTER_H
#define BAROD_BARO_FILTER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BARO_FILTER_ABI_VERSION 1u

/* struct baro_filter_input.flags */
#define BARO_FILTER_IN_HAS_TEMPERATURE (1u << 0)

/* struct baro_filter_output.flags */
/* The filter considers the sensor healthy at now_us. */
#define BARO_FILTER_OUT_HEALTHY (1u << 0)
/* This sample was rejected (not used for the estimate). */
#define BARO_FILTER_OUT_REJECTED (1u << 1)

struct baro_filter_input {
	uint64_t time_us;
	double pressure_pa;	/* absolute static pressure */
	double temperature_c;	/* valid with BARO_FILTER_IN_HAS_TEMPERATURE */
	/* Altitude from this pressure relative to the ground pressure p0
	 * the host calibrated at the start of the run (the mean of the first
	 * five readings, as ArduPilot does), through the 1976 standard
	 * atmosphere: alt(p) - alt(p0); m, up. */
	double alt_m;
	uint32_t flags;
};

struct baro_filter_output {
	double alt_m;		/* the estimate; NaN when there is none yet */
	/* Innovation test ratio innov^2 / (gate^2 * S) for the sample (1 is
	 * the rejection threshold), NaN when the filter has none. */
	double test_ratio;
	uint32_t flags;
};

struct baro_filter {
	uint32_t abi_version;	/* BARO_FILTER_ABI_VERSION */
	const char *name;	/* [a-z0-9_-]+ */
	const char *description;	/* one line */
	/*
	 * Allocate and initialise a state from params, a comma-separated
	 * "key=value" list (may be empty, never NULL).  Returns 0 with
	 * *state set, or a negative errno with a one-line message in err
	 * naming the bad key or value.
	 */
	int (*create)(void **state, const char *params, char *err,
		      size_t errlen);
	void (*step)(void *state, uint64_t now_us,
		     const struct baro_filter_input *in,
		     struct baro_filter_output *out);
	void (*reset)(void *state);
	void (*destroy)(void *state);
	/* Bytes of state (for the cost report); may be NULL. */
	size_t (*state_size)(const void *state);
};

typedef const struct baro_filter *(*baro_filter_entry_fn)(uint32_t abi_version);

#define BARO_FILTER_ENTRY_SYMBOL "baro_filter_entry"

#ifdef __cplusplus
}
#endif

#endif
