/* SPDX-License-Identifier: GPL-3.0-or-later */
/* barod's command line: the input's lines are the arguments, parsed
 * through the option table and laid over the defaults (no file is read),
 * then resolved, validated and printed as --check-config does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "options.h"

#define MAX_ARGS 48

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	char *argv[MAX_ARGS + 2] = { (char *)"barod" };
	int argc = 1;
	struct cli *cli = malloc(sizeof(*cli));
	struct config *c = malloc(sizeof(*c));
	char err[512], *out = NULL;
	size_t outlen = 0;
	FILE *f = NULL;

	if (!text || !cli || !c)
		goto done;
	memcpy(text, data, size);
	text[size] = '\0';
	for (char *p = text; p && *p && argc <= MAX_ARGS;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		argv[argc++] = p;
		p = nl ? nl + 1 : NULL;
	}
	argv[argc] = NULL;
	f = open_memstream(&out, &outlen);
	if (!f)
		goto done;
	if (cli_parse(argc, argv, cli, f, err, sizeof(err)) != 0)
		goto done;
	config_defaults(c);
	if (cli_apply(cli, c, err, sizeof(err)) != 0)
		goto done;
	config_resolve(c);
	if (config_validate(c, err, sizeof(err)) == 0)
		options_check_report(f, c);
done:
	if (f)
		fclose(f);
	free(out);
	free(text);
	free(cli);
	free(c);
	return 0;
}
