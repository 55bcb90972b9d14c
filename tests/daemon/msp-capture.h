/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The flight controller's side of an MSP output, for the daemon tests:
 * frames decoded with the codec's parser, every one required to be what
 * AP_Baro_MSP takes (a '<' request with MSP_FLAG_DONT_REPLY carrying
 * MSP2_SENSOR_BAROMETER), and barod's --record file read back to compare
 * them with what barod published.
 */
#ifndef BAROD_MSP_CAPTURE_H
#define BAROD_MSP_CAPTURE_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "msp.h"
#include "test-files.h"

#define MSP_CAPTURE_MAX 8192

struct msp_capture {
	struct msp_parser parser;
	size_t n;
	struct msp_baro b[MSP_CAPTURE_MAX];
	unsigned not_baro;	/* frames AP_Baro_MSP would not take */
};

static inline void
msp_capture_on_frame(const struct msp_frame *f, void *user)
{
	struct msp_capture *c = user;
	struct msp_baro b;

	if (f->direction != MSP_DIR_REQUEST ||
	    f->flags != MSP_FLAG_DONT_REPLY ||
	    f->function != MSP2_SENSOR_BAROMETER ||
	    msp_baro_unpack(f->payload, f->len, &b) < 0) {
		c->not_baro++;
		return;
	}
	if (c->n < MSP_CAPTURE_MAX)
		c->b[c->n] = b;
	c->n++;
}

static inline struct msp_capture *
msp_capture_new(void)
{
	struct msp_capture *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	msp_parser_init(&c->parser);
	return c;
}

static inline void
msp_capture_feed(struct msp_capture *c, const uint8_t *buf, size_t n)
{
	msp_parser_feed(&c->parser, buf, n, msp_capture_on_frame, c);
}

/* What barod recorded: one line per published sample. */
struct rec_sample {
	uint32_t time_ms;
	unsigned instance;
	float pressure_pa;
	float temperature_c;
};

/* Reads up to cap samples from a --record CSV; returns how many. */
static inline size_t
read_record(const char *path, struct rec_sample *out, size_t cap)
{
	char *text = read_file(path);
	size_t n = 0;
	char *save = NULL;

	for (char *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long long t;
		unsigned inst;
		/* time_ms,instance,alt_m,pressure_pa,temperature_c; the
		 * altitude and temperature may be empty. */
		char *c[4] = { strchr(line, ',') };
		for (int k = 1; k < 4; k++)
			c[k] = c[k - 1] ? strchr(c[k - 1] + 1, ',') : NULL;
		if (!c[3] || sscanf(line, "%llu,%u", &t, &inst) != 2)
			continue;	/* the header */
		float p = strtof(c[2] + 1, NULL);
		float temp = c[3][1] ? strtof(c[3] + 1, NULL) : NAN;
		if (n < cap)
			out[n] = (struct rec_sample){ (uint32_t)t, inst, p,
						      temp };
		n++;
	}
	free(text);
	return n;
}

/* Frame k carries recorded sample r as MSP instance msp_instance. */
static inline void
assert_msp_matches(const struct msp_baro *b, const struct rec_sample *r,
		   unsigned msp_instance, size_t k)
{
	if (b->instance != msp_instance || b->time_ms != r->time_ms ||
	    memcmp(&b->pressure_pa, &r->pressure_pa, sizeof(float)) != 0 ||
	    (!isnan(r->temperature_c) &&
	     abs(b->temp_cdeg - (int)(r->temperature_c * 100.0f)) > 1))
		fail_msg("MSP frame %zu: instance %u, %u ms, %.9g Pa, %d cdegC; "
			 "recorded: instance %u (MSP %u), %u ms, %.9g Pa, "
			 "%.2f C", k, b->instance, b->time_ms,
			 (double)b->pressure_pa, b->temp_cdeg, r->instance,
			 msp_instance, r->time_ms, (double)r->pressure_pa,
			 (double)r->temperature_c);
}

#endif
