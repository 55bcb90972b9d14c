/* SPDX-License-Identifier: GPL-3.0-or-later */
/* When barod says "waiting for ArduPilot/PX4" (peer-wait.c): at once,
 * then every 10 s, never after the peer came; a late tick says it once. */
#include "peer-wait.h"
#include "test-util.h"

static void
test_schedule(void **state)
{
	struct peer_wait w = { 0 };
	const uint64_t t0 = 5000000;	/* any monotonic start */
	(void)state;

	assert_true(peer_wait_due(&w, t0));
	assert_false(peer_wait_due(&w, t0));
	assert_false(peer_wait_due(&w, t0 + PEER_WAIT_EVERY_US - 1));
	assert_true(peer_wait_due(&w, t0 + PEER_WAIT_EVERY_US));
	/* A loop that stalled for a minute: once, then 10 s from then. */
	const uint64_t late = t0 + 7 * PEER_WAIT_EVERY_US + 123;
	assert_true(peer_wait_due(&w, late));
	assert_false(peer_wait_due(&w, late + PEER_WAIT_EVERY_US - 1));
	assert_true(peer_wait_due(&w, late + PEER_WAIT_EVERY_US));
	peer_wait_seen(&w);
	assert_false(peer_wait_due(&w, late + 10 * PEER_WAIT_EVERY_US));

	/* A clock that starts at 0 is said at 0 too. */
	struct peer_wait z = { 0 };
	assert_true(peer_wait_due(&z, 0));
	assert_false(peer_wait_due(&z, 1));
	assert_true(peer_wait_due(&z, PEER_WAIT_EVERY_US));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schedule),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
