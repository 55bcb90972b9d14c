/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The --generate PROFILE parser and the profile it yields. */
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
	if (truth_profile_parse(spec, &p, err, sizeof(err)) == 0) {
		for (double t = 0.0; t < 10.0; t += 0.37)
			(void)truth_profile_height(&p, t);
	}
	return 0;
}
