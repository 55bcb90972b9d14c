/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "sample-csv.h"

#include <errno.h>
#include <inttypes.h>

int
sample_csv_write_header(FILE *out)
{
	return fputs(SAMPLE_CSV_HEADER "\n", out) < 0 ? -EIO : 0;
}

/* A field the sample does not carry is left empty rather than invented. */
static int
write_field(FILE *out, bool have, float v)
{
	if (!have)
		return fputc(',', out) == EOF ? -1 : 0;
	return fprintf(out, ",%.9g", (double)v) < 0 ? -1 : 0;
}

int
sample_csv_write(FILE *out, const struct baro_sample *s)
{
	if (fprintf(out, "%" PRIu64 ",%u", s->time_us / 1000u,
		    (unsigned)s->instance) < 0 ||
	    write_field(out, baro_sample_has(s, BARO_SAMPLE_HAS_ALTITUDE),
			s->alt_m) < 0 ||
	    write_field(out, true, s->pressure_pa) < 0 ||
	    write_field(out, baro_sample_has(s, BARO_SAMPLE_HAS_TEMPERATURE),
			s->temperature_c) < 0 ||
	    fputc('\n', out) == EOF)
		return -EIO;
	return 0;
}
