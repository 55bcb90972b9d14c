/* SPDX-License-Identifier: GPL-3.0-or-later */
/* barod's configuration file parser (libinih underneath, our handler and
 * line reader on top), then the final validation. */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config c;
	char err[512];
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	config_defaults(&c);
	if (config_load_string(&c, text, "fuzz.conf", err, sizeof(err)) == 0)
		(void)config_validate(&c, err, sizeof(err));
	free(text);
	return 0;
}
