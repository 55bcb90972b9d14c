// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * baro-replay compare's reading of a run.json (replay-compare.c): the
 * input's first line is a --tolerance argument, the rest a run.json.
 * Any bytes are parsed or refused, never a crash, and every message
 * fits its buffer.  (summary.json's reader has its own target,
 * fuzz-replay-summary.)
 */
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "replay-compare.h"
#include "replay-provenance.h"

static const char sound[] =
	"{\"inputs\":[\"a.bin\",\"synthetic\"],\"shard\":1,\"of\":1,"
	"\"plots\":\"png\",\"every_plot\":false,\"version\":\"0.1.0\","
	"\"seed\":1,\"filters\":[{\"label\":\"ab\",\"kind\":\"plugin\","
	"\"spec\":\"plugin:./x.so\",\"under_test\":true,\"path\":\"./x.so\","
	"\"sha256\":\"00\"}],\"thresholds\":{\"builtin_sha256\":\"11\","
	"\"file\":null,\"sha256\":null},\"scenarios\":[{\"name\":\"clean\","
	"\"sha256\":\"22\"}],\"input_files\":[{\"name\":\"a.bin\",\"size\":3,"
	"\"sha256\":\"33\"},{\"name\":\"synthetic\"}],\"options\":{"
	"\"channel\":null,\"params\":{\"SIM_BARO_RND\":0.5}}}";

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	const char *nl = memchr(text, '\n', size);
	size_t first = nl ? (size_t)(nl - text) : size;
	char arg[256], what[512];
	struct replay_tolerance t;

	snprintf(arg, sizeof(arg), "%.*s", (int)(first < 255 ? first : 255),
		 text);
	(void)replay_tolerance_parse(arg, &t, what, sizeof(what));

	size_t rest = nl ? size - first - 1 : 0;
	json_tokener *tok = json_tokener_new();
	if (!tok)
		return 0;
	json_object *o = json_tokener_parse_ex(tok, nl ? nl + 1 : "",
					       (int)rest);
	json_object *s = json_tokener_parse(sound);
	if (o && s) {
		(void)replay_compare_check(o, o, what, sizeof(what));
		(void)replay_compare_check(o, s, what, sizeof(what));
		(void)replay_compare_check(s, o, what, sizeof(what));
		(void)replay_provenance_diff(o, s, "A", "B", NULL, what,
					     sizeof(what));
		if (strnlen(what, sizeof(what)) >= sizeof(what))
			abort();
	}
	json_object_put(o);
	json_object_put(s);
	json_tokener_free(tok);
	return 0;
}
