/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * baro-drive records as baro-replay --labels reads them: any bytes give
 * 0 or a negative errno with "NAME:..." said, never a crash.  A parsed
 * record's label changes are in time order inside its span, start clean,
 * and each is a known label's bits; record_labels_at() agrees with them.
 * A broken invariant aborts, which the fuzzer reports.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "inject.h"
#include "record-labels.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct record_labels rl;
	char err[512] = "";

	int rc = record_labels_parse(&rl, (const char *)data, size, "f.csv",
				     err, sizeof(err));
	if (rc < 0) {
		fuzz_check(rc == -EINVAL || rc == -ENODATA || rc == -ENOMEM);
		fuzz_check(strncmp(err, "f.csv", 5) == 0 || rc == -ENOMEM);
		fuzz_check(rl.ch == NULL && rl.n == 0);
		return 0;
	}
	fuzz_check(rl.rows > 0 && rl.n > 0);
	fuzz_check(rl.first_us <= rl.last_us);
	fuzz_check(rl.ch[0].label == 0 && rl.ch[0].t_us == rl.first_us);
	fuzz_check(record_labels_at(&rl, 0) == 0 || rl.first_us == 0);
	for (size_t i = 0; i < rl.n; i++) {
		fuzz_check(rl.ch[i].label < (1u << INJECT_LABEL_BITS));
		fuzz_check(i == 0 || rl.ch[i].t_us > rl.ch[i - 1].t_us);
		fuzz_check(record_labels_at(&rl, rl.ch[i].t_us) ==
			   rl.ch[i].label);
		if (rl.ch[i].t_us > 0 && i > 0)
			fuzz_check(record_labels_at(&rl, rl.ch[i].t_us - 1) ==
				   rl.ch[i - 1].label);
	}
	record_labels_free(&rl);
	return 0;
}
