/* SPDX-License-Identifier: GPL-3.0-or-later */
/* When to say "waiting for the peer" (see peer-wait.h). */
#include "peer-wait.h"

bool
peer_wait_due(struct peer_wait *w, uint64_t now_us)
{
	if (w->seen)
		return false;
	if (w->next_us != 0 && now_us < w->next_us)
		return false;
	/* From now, not from the last due time: a loop that stalled for
	 * a minute says it once, not six times. */
	w->next_us = now_us + PEER_WAIT_EVERY_US;
	if (w->next_us == 0)
		w->next_us = 1;
	return true;
}

void
peer_wait_seen(struct peer_wait *w)
{
	w->seen = true;
}
