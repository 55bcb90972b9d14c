/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What baro-drive parses: its state file, and whatever the link brings
 * (any MAVLink, from the autopilot or not) through the engine running a
 * fixed scenario, in pieces with time passing between them; and any
 * scenario text against both autopilots' routes.
 *
 * Input: byte 0 picks the autopilot (bit 0) and --keep-current (bit 1),
 * byte 1 is the state file's length, then the state file, then the
 * link's bytes.  A broken invariant aborts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drive-state.h"
#include "drive.h"
#include "fuzz.h"

static void
on_send(void *user, uint32_t msgid, const union mavlink_msg *m)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD];

	(void)user;
	memset(pl, 0, sizeof(pl));
	fuzz_check(mavlink_pack_msg(msgid, m, pl) > 0);
}

static int
on_state(void *user)
{
	const struct drive *d = user;
	FILE *f = fopen("/dev/null", "w");

	fuzz_check(f != NULL);
	(void)drive_state_write(d, f);
	fclose(f);
	return 0;
}

struct ctx {
	struct drive d;
	uint64_t now;
};

static void
on_frame(const struct mavlink_frame *f, void *user)
{
	struct ctx *c = user;
	drive_frame(&c->d, f, c->now);
}

static const char SCN[] = "at 1s glitch 0 15 for 2s\n"
			  "at 1.5s px4 off 0 for 1s\n"
			  "at 2s px4 stuck 0 for 1s\n"
			  "at 3s end\n";

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ctx c;
	static struct scenario sc;
	struct drive_opts o;
	char err[1024];

	if (size < 2)
		return 0;
	size_t slen = data[1];
	if (2 + slen > size)
		slen = size - 2;
	drive_opts_default(&o);
	o.ap = (data[0] & 1) ? DRIVE_PX4 : DRIVE_ARDUPILOT;
	o.keep_current = data[0] & 2;
	if (drive_state_parse((const char *)data + 2, slen, "st", o.ap, &o,
			      err, sizeof(err)) < 0) {
		fuzz_check(strncmp(err, "st", 2) == 0);
		o.nleft = 0;
	}
	fuzz_check(o.nleft <= DRIVE_MAX_SLOTS);

	/* The scenario's routes: px4 lines refuse on ArduPilot; a
	 * scenario that passes its check is what drives. */
	fuzz_check(scenario_parse(&sc, SCN, sizeof(SCN) - 1, "f.scn", err,
				  sizeof(err)) == 0);
	bool ok = drive_check(&sc, "f.scn", o.ap, err, sizeof(err)) == 0;
	fuzz_check(ok == (o.ap == DRIVE_PX4));
	if (!ok)
		fuzz_check(scenario_parse(&sc, "at 1s glitch 0 15 for 2s\n", 25,
					  "f.scn", err, sizeof(err)) == 0);

	const struct drive_io io = { .send = on_send, .state = on_state };
	drive_init(&c.d, &sc, "f.scn", &o, &io, &c.d);
	c.now = 1000000;
	struct mavlink_parser p;
	mavlink_parser_init(&p);
	const uint8_t *link = data + 2 + slen;
	size_t llen = size - 2 - slen;
	for (size_t i = 0; i < llen;) {
		size_t k = fuzz_chunk(link, llen, i);
		c.now += 1000u * link[i];
		mavlink_parser_feed(&p, link + i, k, on_frame, &c);
		drive_tick(&c.d, c.now);
		i += k;
	}
	drive_stop(&c.d, c.now);
	fuzz_check(c.d.nslots <= DRIVE_MAX_SLOTS);
	fuzz_check(c.d.phase <= DRIVE_DONE);
	if (drive_over(&c.d))
		fuzz_check(c.d.end != DRIVE_END_NONE);

	/* Any text as a scenario: routed or refused, never both. */
	if (scenario_parse(&sc, (const char *)data, size, "any.scn", err,
			   sizeof(err)) == 0) {
		for (int a = 0; a < DRIVE_AUTOPILOTS; a++) {
			const enum drive_autopilot ap = (enum drive_autopilot)a;
			bool refused = false;
			for (size_t i = 0; i < sc.count; i++) {
				struct drive_route r;
				drive_route(&sc.actions[i], ap, &r);
				fuzz_check(r.what[0] != '\0');
				refused |= r.via == DRIVE_VIA_REFUSED;
				fuzz_check((r.via == DRIVE_VIA_REFUSED) ==
					   (r.timing == NULL));
			}
			int rc = drive_check(&sc, "any.scn", ap, err,
					     sizeof(err));
			fuzz_check(refused == (rc < 0));
		}
	}
	return 0;
}
