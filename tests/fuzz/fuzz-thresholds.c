/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Threshold files: parsed from memory and from a stream, which must agree
 * on the result and the message; a failed parse keeps no rule and names
 * its line; every rule formats to a line that parses back to the same
 * rule, its globs match their own text, and evaluating its metric picks
 * a rule for that metric.  A broken invariant aborts, which the fuzzer
 * reports.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "thresholds.h"

static bool
same_rule(const struct threshold_rule *a, const struct threshold_rule *b)
{
	return strcmp(a->filter_glob, b->filter_glob) == 0 &&
	       strcmp(a->scenario_glob, b->scenario_glob) == 0 &&
	       strcmp(a->metric, b->metric) == 0 &&
	       a->absolute == b->absolute && a->off == b->off &&
	       (a->off || (a->op == b->op && a->miss == b->miss &&
			   a->limit == b->limit &&
			   (a->miss != THRESHOLD_MISS_BAND ||
			    a->warn_limit == b->warn_limit)));
}

static void
check_rule(const struct thresholds *t, const struct threshold_rule *r)
{
	char line[THRESHOLD_MAX_LINE];
	char err[256];
	struct thresholds u;

	fuzz_check(threshold_glob_match(r->filter_glob, r->filter_glob));
	fuzz_check(threshold_glob_match(r->scenario_glob, r->scenario_glob));

	int n = threshold_rule_format(r, line, sizeof(line));
	fuzz_check(n > 0 && (size_t)n < sizeof(line));
	thresholds_init(&u);
	fuzz_check(thresholds_parse(&u, line, (size_t)n, "again", NULL, 0, err,
				    sizeof(err)) == 0);
	fuzz_check(u.count == 1 && same_rule(r, &u.rules[0]));
	thresholds_free(&u);

	const double values[] = { r->limit, r->limit + 1.0, r->limit - 1.0,
				  r->warn_limit, -r->limit, 0.0 };
	for (size_t k = 0; k < sizeof(values) / sizeof(values[0]); k++) {
		const struct threshold_rule *by = NULL;
		enum threshold_verdict v = thresholds_eval(
			t, r->metric, values[k], "f", "s", &by);
		fuzz_check(v >= THRESHOLD_NONE && v <= THRESHOLD_FAIL);
		fuzz_check(!by || (by >= t->rules && by < t->rules + t->count &&
				   strcmp(by->metric, r->metric) == 0));
		fuzz_check(v == THRESHOLD_NONE || by);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct thresholds a, b;
	char ea[512], eb[512];
	size_t n_known = 0;
	const struct metrics_name *known =
		size % 2 ? metrics_names(&n_known) : NULL;

	thresholds_init(&a);
	thresholds_init(&b);
	int ra = thresholds_parse(&a, (const char *)data, size, "fuzz", known,
				  n_known, ea, sizeof(ea));
	fuzz_check(ra == 0 || ra == -EINVAL);
	fuzz_check(ra == 0 ? ea[0] == '\0' && a.count <= size :
			     strncmp(ea, "fuzz:", 5) == 0 && a.count == 0);

	FILE *f = size ? fmemopen((void *)data, size, "r") : NULL;
	if (f) {
		int rb = thresholds_load(&b, f, "fuzz", known, n_known, eb,
					 sizeof(eb));
		fclose(f);
		fuzz_check(ra == rb && strcmp(ea, eb) == 0 &&
			   a.count == b.count);
		for (size_t i = 0; i < a.count; i++)
			fuzz_check(same_rule(&a.rules[i], &b.rules[i]));
	}
	for (size_t i = 0; i < a.count; i++)
		check_rule(&a, &a.rules[i]);
	thresholds_free(&a);
	thresholds_free(&b);
	return 0;
}
