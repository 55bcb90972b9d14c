/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The --generate PROFILE parser and the profile it yields; after a
 * newline, a --throttle term for it.  The throttle stays in [0, 1]. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "truth-profile.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char spec[512];
	char err[256];
	struct truth_profile p;

	if (size >= sizeof(spec))
		return 0;
	memcpy(spec, data, size);
	spec[size] = '\0';
	char *term = strchr(spec, '\n');
	if (term)
		*term++ = '\0';
	if (truth_profile_parse(spec, &p, err, sizeof(err)) == 0) {
		if (term)
			(void)truth_profile_parse_throttle(term, &p, err,
							   sizeof(err));
		for (double t = 0.0; t < 30.0; t += 0.37) {
			(void)truth_profile_height(&p, t);
			const double thr = truth_profile_throttle(&p, t);
			if (!(thr >= 0.0 && thr <= 1.0))
				abort();
		}
	}
	return 0;
}
