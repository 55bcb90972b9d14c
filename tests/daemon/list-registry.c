/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The daemon's registries as text, for tests/doc/test-registry-lists.py:
 * the docs' lists of sources and output types are checked against what
 * barod is built with.  One line per row:
 *
 *   source NAME OPS FLAG        a source (config.c's order); OPS "ops"
 *                               when sources/registry.c has its ops,
 *                               "-" when not; FLAG "flag" when the option
 *                               table has a --NAME row (what --help and
 *                               the messages call it), "-" when not
 *   output PREFIX NAME SINK TRANSPORT
 *                               an output type (config.c's table); SINK
 *                               and TRANSPORT "sink"/"transport" when
 *                               sinks.c and transports.c have one, "-"
 *
 * list-registry --help prints barod --help (options_usage(), the same
 * function), for the output types' and sources' mentions in it.
 *
 * list-registry --parse SPEC prints the prefix of the output type barod
 * reads -o SPEC as (so an alias in a doc is judged by the parser
 * itself), or exits 1 with the parser's message.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "options.h"
#include "sink.h"
#include "source.h"
#include "transports.h"

int
main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "--help") == 0) {
		options_usage(stdout);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "--parse") == 0) {
		struct config_output o;
		char err[256];

		if (config_parse_output(argv[2], &o, err, sizeof(err)) < 0) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		printf("%s\n", config_output_info(o.type)->prefix);
		return 0;
	}
	for (size_t i = 0; i < CONFIG_SOURCE_COUNT - 1; i++) {
		enum config_source s = config_source_order[i];
		bool flag = false;
		for (size_t r = 0; r < options_count; r++)
			flag |= options_table[r].name &&
				strcmp(options_table[r].name,
				       config_source_name(s)) == 0;
		printf("source %s %s %s\n", config_source_name(s),
		       source_find(s) ? "ops" : "-", flag ? "flag" : "-");
	}
	for (int t = 0; t <= OUTPUT_TCP_SERVER; t++) {
		const struct config_output_info *info =
			config_output_info((enum output_type)t);
		printf("output %s %s %s %s\n", info->prefix, info->name,
		       sink_type_for(info->format) ? "sink" : "-",
		       transport_ops_for((enum output_type)t) ? "transport"
							      : "-");
	}
	return 0;
}
