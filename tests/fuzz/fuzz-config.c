/* SPDX-License-Identifier: GPL-3.0-or-later */
/* barod's configuration file parser (libinih underneath, our handler and
 * line reader on top, every key through the option table), the final
 * validation, and --check-config's printout: what it prints loads back
 * to the same printout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fuzz.h"
#include "options.h"

static char *
print_config(const struct config *c, void (*print)(FILE *,
						    const struct config *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	print(f, c);
	fclose(f);
	return buf;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config *c = malloc(2 * sizeof(*c));
	char err[512];
	char *text = malloc(size + 1);

	if (!text || !c)
		goto out;
	memcpy(text, data, size);
	text[size] = '\0';
	config_defaults(c);
	if (config_load_string(c, text, "fuzz.conf", err, sizeof(err)) != 0)
		goto out;
	(void)config_validate(c, err, sizeof(err));
	free(print_config(c, options_check_report));

	/* The printout is a file with the same settings.  Lines it makes
	 * longer (key = value spaced) may pass the reader's limit: only a
	 * printout that loads is compared. */
	char *one = print_config(c, options_write_config);
	config_defaults(&c[1]);
	if (one && config_load_string(&c[1], one, "printed.conf", err,
				      sizeof(err)) == 0) {
		char *two = print_config(&c[1], options_write_config);
		if (!two || strcmp(one, two) != 0) {
			fprintf(stderr, "printed:\n%s\nreloaded:\n%s\n", one,
				two ? two : "(null)");
			abort();
		}
		free(two);
	}
	free(one);
out:
	free(text);
	free(c);
	return 0;
}
