/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The fault tables as text, for tests/doc/test-fault-lists.py: the docs'
 * lists of fault kinds, scenario verbs, PX4 failure types and replay's
 * labels are checked against what the programs are built with, not
 * against a copy.  One line per row:
 *
 *   kind NAME VALUE LABEL        a fault overlay kind (faults.c); VALUE
 *                                "value" or "-"; LABEL: the label
 *                                inject_label_for() gives it alone
 *   px4 NUMBER NAME KIND         a PX4 failure type (px4-failure.c) and
 *                                the overlay kind it is on real readings
 *   word WORD                    a scenario action's first word, in the
 *                                parser's order
 *   verb WORD OVERLAY HW         an instance verb: the overlay kind it
 *                                sets ("-": an emulator parameter), its
 *                                hardware form ("-": needs the emulator)
 *   aux SENSOR FAULT             another sensor's fault (baro-replay)
 *   label BIT NAME               a replay label bit (inject.h)
 */
#include <stdio.h>
#include <string.h>

#include "faults.h"
#include "inject.h"
#include "px4-failure.h"
#include "scenario.h"

static const char *
kind_or_dash(enum fault_kind k)
{
	return k == FAULT_NONE ? "-" : fault_kind_name(k);
}

int
main(void)
{
	char buf[256];

	for (int k = 0; k < FAULT_KINDS; k++) {
		const struct fault_kind_info *info =
			fault_kind_info((enum fault_kind)k);
		/* Parameters all at rest: only the overlay kind labels. */
		const struct sim_baro_params rest = { 0 };
		if (!info) {
			fprintf(stderr, "list-faults: kind %d has no row\n", k);
			return 1;
		}
		inject_label_format(inject_label_for(&rest, 0.0f,
						     (enum fault_kind)k),
				    buf, sizeof(buf));
		printf("kind %s %s %s\n", info->name,
		       info->value == FAULT_VALUE_NONE ? "-" : "value", buf);
	}
	for (unsigned t = 0; t < PX4_FAILURE_TYPES; t++)
		printf("px4 %u %s %s\n", t, px4_failure_name(t),
		       fault_kind_name(px4_failure_of(t)->fault));
	for (size_t i = 0; scenario_action_word(i); i++)
		printf("word %s\n", scenario_action_word(i));
	for (size_t i = 0; scenario_verb(i); i++)
		printf("verb %s %s %s\n", scenario_verb(i)->verb,
		       kind_or_dash(scenario_verb(i)->overlay),
		       scenario_verb(i)->overlay != FAULT_NONE
			       ? fault_kind_name(scenario_verb(i)->overlay)
			       : kind_or_dash(scenario_verb(i)->hw));
	for (int a = 0; a < SCENARIO_AUX_KINDS; a++)
		printf("aux %s\n", scenario_aux_name(a));
	for (unsigned b = 0; b < INJECT_LABEL_BITS; b++) {
		inject_label_format(1u << b, buf, sizeof(buf));
		printf("label %u %s\n", b, buf);
	}
	return 0;
}
