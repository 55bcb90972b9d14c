/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What baro-campaign's flight takes from the link: any MAVLink, from the
 * autopilot or not (HEARTBEAT, GLOBAL_POSITION_INT, COMMAND_ACK,
 * PARAM_VALUE, the mission protocol's requests, acks and items reached,
 * STATUSTEXT ...), in pieces with time passing between them, through the
 * pure engine with two parameters and a three-waypoint mission to set.
 *
 * Input: byte 0 picks the autopilot (bit 0), whether there are
 * parameters (bit 1) and a mission (bit 2); the rest is the link's
 * bytes.  A broken invariant aborts.
 */
#include <stdlib.h>
#include <string.h>

#include "flight.h"
#include "fuzz.h"

struct ctx {
	struct flight f;
	uint64_t now;
};

static void
on_frame(const struct mavlink_frame *fr, void *user)
{
	struct ctx *c = user;
	flight_rx(&c->f, fr, c->now);
}

/* What the flight sends packs, and it keeps its own bounds. */
static void
step(struct ctx *c)
{
	uint32_t id;
	union mavlink_msg m;
	uint8_t pl[MAVLINK_MAX_PAYLOAD];
	for (int n = 0; flight_step(&c->f, c->now, &id, &m) == 1; n++) {
		fuzz_check(n < 64);
		memset(pl, 0, sizeof(pl));
		fuzz_check(mavlink_pack_msg(id, &m, pl) > 0);
		if (id == MAVLINK_MSG_MISSION_ITEM_INT)
			fuzz_check(m.mi.seq < c->f.nwp + 1);
	}
	struct flight_event e;
	while (flight_event_next(&c->f, &e))
		fuzz_check(e.what != NULL && memchr(e.text, 0, sizeof(e.text)));
	fuzz_check(c->f.phase <= FLIGHT_FAILED);
	fuzz_check(c->f.param_at <= c->f.nparams);
	fuzz_check(c->f.nev <= sizeof(c->f.ev) / sizeof(c->f.ev[0]));
	fuzz_check((c->f.phase == FLIGHT_FAILED) ==
		   (c->f.failure != FLIGHT_OK));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ctx c;
	if (size < 1)
		return 0;
	const struct campaign camp = {
		.autopilot = (data[0] & 1) ? CAMPAIGN_PX4 : CAMPAIGN_ARDUPILOT,
		.takeoff_m = 10, .hold_s = 2, .land = true,
	};
	static const struct campaign_waypoint wp[3] = {
		{ .north_m = 30, .alt_m = 20 },
		{ .north_m = 30, .east_m = 30, .alt_m = 10 },
		{ .north_m = -5, .east_m = 0, .alt_m = 5 },
	};
	flight_init(&c.f, &camp);
	if (data[0] & 2) {
		fuzz_check(flight_add_param(&c.f, "EK3_HGT_I_GATE", 300) == 0);
		fuzz_check(flight_add_param(&c.f, "EKF2_HGT_REF", 1.5) == 0);
	}
	if (data[0] & 4)
		fuzz_check(flight_set_mission(&c.f, wp, 3) == 0);
	c.now = 1000000;
	struct mavlink_parser p;
	mavlink_parser_init(&p);
	const uint8_t *link = data + 1;
	const size_t llen = size - 1;
	for (size_t i = 0; i < llen;) {
		size_t k = fuzz_chunk(link, llen, i);
		c.now += 1000u * link[i];
		mavlink_parser_feed(&p, link + i, k, on_frame, &c);
		step(&c);
		i += k;
	}
	/* Time alone moves it on (retries, then a failure), never past
	 * its end. */
	for (int t = 0; t < 40; t++) {
		c.now += 1000000;
		step(&c);
	}
	return 0;
}
