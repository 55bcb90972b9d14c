/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Filter specs ("NAME[:key=val,...]") from arbitrary bytes: the first
 * line is a list of specs, split as baro-replay's --filters is, built-ins
 * only (plugins are refused, never loaded); each filter that comes out is
 * stepped on samples made from the remaining bytes, NaN, inf, huge
 * values and time jumps included.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "filter-registry.h"
#include "fuzz.h"

#define SPEC_MAX 512
#define STEPS_MAX 512
#define SPECS_MAX 8

/* 9 bytes per step: a control byte and a 64-bit value. */
static double
value_of(const uint8_t *p, uint8_t ctl)
{
	static const double special[] = { NAN, INFINITY, -INFINITY, 1e308,
					  -1e308, 0.0, 5e-324, 101325.0 };
	double d;

	if ((ctl & 0x30) == 0x30)
		return special[p[0] & 7];
	if (ctl & 0x20) {
		/* Near-ground values: what real logs hold. */
		int16_t small;
		memcpy(&small, p, sizeof(small));
		return (double)small / 16.0;
	}
	memcpy(&d, p, sizeof(d));
	return d;
}

/* One filter made from spec, stepped over the sample bytes. */
static void
run_spec(const char *spec, const uint8_t *data, size_t pos, size_t size)
{
	struct baro_filter_instance fi;
	char err[256];

	if (baro_filter_instance_create(&fi, spec, 0, err, sizeof(err)) < 0) {
		/* A failed create leaves nothing to destroy and a
		 * terminated message. */
		if (fi.filter || fi.state || fi.dl_handle ||
		    !memchr(err, '\0', sizeof(err)) || err[0] == '\0')
			abort();
		return;
	}

	uint64_t now = 1000000;
	for (unsigned step = 0; step < STEPS_MAX && pos + 9 <= size;
	     step++, pos += 9) {
		uint8_t ctl = data[pos];
		double v = value_of(data + pos + 1, ctl);
		/* Time: small steps mostly, sometimes a long gap or the
		 * end of the clock. */
		switch (ctl & 0xc0) {
		case 0x00:
			now += (ctl & 0x0fu) * 1000u;
			break;
		case 0x40:
			now += (ctl & 0x0fu) * 1000000u;
			break;
		case 0x80:
			now += (ctl & 0x0fu) * 37u;
			break;
		default:
			/* Unsigned: the next step wraps, i.e. time runs
			 * backwards, which the filters must survive. */
			if (ctl & 1)
				now = UINT64_MAX - 1000u;
			break;
		}
		struct baro_filter_output out;
		if ((ctl & 0x0f) == 0x0f) {
			baro_filter_instance_step(&fi, now, NULL, &out);
		} else if ((ctl & 0x0f) == 0x0e) {
			baro_filter_instance_reset(&fi);
			continue;
		} else {
			struct baro_filter_input in = {
				.time_us = now,
				.pressure_pa = (ctl & 1) ? v
							 : 101325.0 - 12.0 * v,
				.temperature_c = (ctl & 2) ? v : 20.0,
				.alt_m = v,
				.flags = (ctl & 4)
						 ? BARO_FILTER_IN_HAS_TEMPERATURE
						 : 0,
			};
			baro_filter_instance_step(&fi, now, &in, &out);
		}
		/* Only the two flags the ABI defines. */
		if (out.flags & ~(uint32_t)(BARO_FILTER_OUT_HEALTHY |
					    BARO_FILTER_OUT_REJECTED))
			abort();
	}
	(void)baro_filter_instance_state_size(&fi);
	baro_filter_instance_destroy(&fi);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char line[SPEC_MAX];
	size_t n = 0;

	while (n < size && n < SPEC_MAX - 1 && data[n] != '\n' && data[n])
		n++;
	memcpy(line, data, n);
	line[n] = '\0';
	size_t pos = n < size ? n + 1 : n;

	/* The line is a --filters list: each spec in turn. */
	const char *p = line;
	for (unsigned k = 0; *p && k < SPECS_MAX; k++) {
		char spec[SPEC_MAX];
		size_t len = baro_filter_spec_len(p);
		if (len > strlen(p))
			abort();
		memcpy(spec, p, len);
		spec[len] = '\0';
		run_spec(spec, data, pos, size);
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}
