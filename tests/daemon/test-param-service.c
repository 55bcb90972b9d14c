/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The parameter/command microservice without sockets: frames in,
 * replies captured from the send callback. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "baro-sitl.h"
#include "param-service.h"
#include "test-util.h"

struct sent {
	void *reply_to;
	uint32_t msgid;
	uint8_t payload[MAVLINK_MAX_PAYLOAD];
};

struct fixture {
	struct sim_params params;
	struct param_service ps;
	struct sent sent[64];
	size_t n_sent;
	size_t changes;
	size_t last_idx;
	float last_old, last_new;
	unsigned injected_type, injected_instance, injections;
	size_t denials;
	void *denied_reply_to;
	uint8_t denied_sysid;
};

static void
fake_send(void *user, void *reply_to, uint32_t msgid, const uint8_t *payload)
{
	struct fixture *f = user;

	if (f->n_sent < 64) {
		f->sent[f->n_sent].reply_to = reply_to;
		f->sent[f->n_sent].msgid = msgid;
		memcpy(f->sent[f->n_sent].payload, payload, MAVLINK_MAX_PAYLOAD);
	}
	f->n_sent++;
}

static void
fake_changed(void *user, size_t idx, float old_value, float new_value)
{
	struct fixture *f = user;

	f->changes++;
	f->last_idx = idx;
	f->last_old = old_value;
	f->last_new = new_value;
}

/* barod's check: the 1976 atmosphere's domain at home 0. */
static int
domain_check(void *user, size_t idx, double value)
{
	(void)user;
	return baro_sitl_param_check(BARO_SITL_ATMOS_1976, 0.0, idx, value,
				     NULL, 0);
}

static uint8_t
fake_inject(void *user, unsigned type, unsigned instance)
{
	struct fixture *f = user;

	f->injections++;
	f->injected_type = type;
	f->injected_instance = instance;
	return MAV_RESULT_ACCEPTED;
}

static void
fake_denied(void *user, const struct mavlink_frame *fr, void *reply_to)
{
	struct fixture *f = user;

	f->denials++;
	f->denied_reply_to = reply_to;
	f->denied_sysid = fr->sysid;
}

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	sim_params_defaults(&f->params);
	f->ps = (struct param_service){
		.sysid = 7, .compid = 191, .params = &f->params,
		.send = fake_send, .changed = fake_changed,
		.inject = fake_inject, .remote_faults = true,
		.denied = fake_denied, .user = f,
	};
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	free(*state);
	return 0;
}

/* A frame from sysid/compid on link; what was sent is kept. */
static void
handle_as(struct fixture *f, uint32_t msgid, const uint8_t *payload,
	  void *link, uint8_t sysid, uint8_t compid)
{
	struct mavlink_frame fr = { .version = 2, .sysid = sysid,
				    .compid = compid, .msgid = msgid };

	memcpy(fr.payload, payload, MAVLINK_MAX_PAYLOAD);
	param_service_handle(&f->ps, &fr, link);
}

static void
handle(struct fixture *f, uint32_t msgid, const uint8_t *payload)
{
	f->n_sent = 0;
	handle_as(f, msgid, payload, (void *)0x1, 255, 190);
}

/* The daemon's 10 ms ticks from from_us up to to_us. */
static void
ticks(struct fixture *f, uint64_t from_us, uint64_t to_us)
{
	for (uint64_t t = from_us; t <= to_us; t += 10000u)
		param_service_tick(&f->ps, t);
}

static void
request_list(struct fixture *f, void *link, uint8_t sysid)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
	struct mavlink_param_request_list m = { 7, 191 };

	mavlink_pack_param_request_list(&m, pl);
	handle_as(f, MAVLINK_MSG_PARAM_REQUEST_LIST, pl, link, sysid, 190);
}

static void
request_read(struct fixture *f, void *link, uint8_t sysid)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
	struct mavlink_param_request_read m = { .param_index = 2,
						.target_system = 7,
						.target_component = 191 };

	mavlink_pack_param_request_read(&m, pl);
	handle_as(f, MAVLINK_MSG_PARAM_REQUEST_READ, pl, link, sysid, 190);
}

static void
set_param(struct fixture *f, uint8_t sys, uint8_t comp, const char *name,
	  float value)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
	struct mavlink_param_set m = { .param_value = value,
				       .target_system = sys,
				       .target_component = comp,
				       .param_type = MAV_PARAM_TYPE_REAL32 };

	snprintf(m.param_id, sizeof(m.param_id), "%s", name);
	mavlink_pack_param_set(&m, pl);
	handle(f, MAVLINK_MSG_PARAM_SET, pl);
}

static struct mavlink_param_value
value_of(const struct sent *s)
{
	struct mavlink_param_value v;

	assert_int_equal(s->msgid, MAVLINK_MSG_PARAM_VALUE);
	mavlink_unpack_param_value(s->payload, &v);
	return v;
}

static void
test_list(void **state)
{
	struct fixture *f = *state;
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
	struct mavlink_param_request_list m = { 7, 191 };

	mavlink_pack_param_request_list(&m, pl);
	handle(f, MAVLINK_MSG_PARAM_REQUEST_LIST, pl);
	/* Nothing at once: the tick streams it. */
	assert_int_equal(f->n_sent, 0);
	ticks(f, 0, 1000000);
	assert_int_equal(f->n_sent, sim_param_count());
	assert_int_equal(f->ps.stats.lists_done, 1);
	assert_int_equal(param_service_listing(&f->ps), 0);
	for (size_t i = 0; i < sim_param_count(); i++) {
		struct mavlink_param_value v = value_of(&f->sent[i]);
		assert_ptr_equal(f->sent[i].reply_to, (void *)0x1);
		assert_int_equal(v.param_index, i);
		assert_int_equal(v.param_count, sim_param_count());
		assert_string_equal(v.param_id, sim_param_info(i)->name);
		assert_float_exact(v.param_value, sim_param_info(i)->def);
	}
	/* Types: int8, int16 and float as ArduPilot declares them. */
	assert_int_equal(value_of(&f->sent[0]).param_type, MAV_PARAM_TYPE_INT8);
	assert_int_equal(value_of(&f->sent[6]).param_type, MAV_PARAM_TYPE_INT16);
	assert_int_equal(value_of(&f->sent[1]).param_type, MAV_PARAM_TYPE_REAL32);

	/* All components (0) is answered, another system is not. */
	m.target_component = 0;
	mavlink_pack_param_request_list(&m, pl);
	handle(f, MAVLINK_MSG_PARAM_REQUEST_LIST, pl);
	ticks(f, 1010000, 2000000);
	assert_int_equal(f->n_sent, sim_param_count());
	m.target_system = 1;
	mavlink_pack_param_request_list(&m, pl);
	handle(f, MAVLINK_MSG_PARAM_REQUEST_LIST, pl);
	ticks(f, 2010000, 3000000);
	assert_int_equal(f->n_sent, 0);
	m = (struct mavlink_param_request_list){ 7, 1 };
	mavlink_pack_param_request_list(&m, pl);
	handle(f, MAVLINK_MSG_PARAM_REQUEST_LIST, pl);
	ticks(f, 3010000, 4000000);
	assert_int_equal(f->n_sent, 0);
	assert_int_equal(f->ps.stats.lists, 2);
}

/* A link without a bandwidth (UDP): PARAM_SERVICE_NET_RATE, after a
 * burst of a tenth of a second's worth. */
static void
test_list_paced_network(void **state)
{
	struct fixture *f = *state;

	param_service_tick(&f->ps, 0);
	request_list(f, (void *)0x1, 255);
	ticks(f, 0, 100000);
	/* 20 at once, 2 a tick for 10 ticks. */
	assert_in_range(f->n_sent, 38, 40);
	ticks(f, 110000, 200000);
	assert_int_equal(f->n_sent, sim_param_count());
	assert_int_equal(f->ps.stats.values_listed, sim_param_count());
}

static uint32_t
radio_57600(void *user, void *link)
{
	(void)user;
	return link == (void *)0x2 ? 5760u : 0u;
}

/* A 57600-baud line: 30 % of 5760 bytes/s in 37-byte PARAM_VALUEs is
 * 46.7/s, after a burst of 5: the 44 values take 0.84 s. */
static void
test_list_paced_serial(void **state)
{
	struct fixture *f = *state;

	f->ps.link_bandwidth = radio_57600;
	param_service_tick(&f->ps, 0);
	request_list(f, (void *)0x2, 255);
	ticks(f, 0, 500000);
	assert_in_range(f->n_sent, 27, 29);	/* 5 + 23.3 */
	ticks(f, 510000, 800000);
	assert_true(f->n_sent < sim_param_count());
	ticks(f, 810000, 1000000);
	assert_int_equal(f->n_sent, sim_param_count());
	for (size_t i = 0; i < f->n_sent; i++)
		assert_ptr_equal(f->sent[i].reply_to, (void *)0x2);
}

/* The samples take 5200 of the 5760 bytes/s: a list gets the 560 left
 * (15.1 PARAM_VALUE/s), not the quiet line's 30 % (46.7/s); a line the
 * samples fill still gets one a second. */
static uint32_t
samples_5200(void *user, void *link)
{
	(void)user;
	return link == (void *)0x2 ? 5200u : 6000u;
}

static uint32_t
radios_57600(void *user, void *link)
{
	(void)user;
	(void)link;
	return 5760u;
}

static void
test_list_paced_by_stream(void **state)
{
	struct fixture *f = *state;

	f->ps.link_bandwidth = radios_57600;
	f->ps.link_stream_rate = samples_5200;
	param_service_tick(&f->ps, 0);
	request_list(f, (void *)0x2, 255);
	ticks(f, 0, 1000000);
	assert_in_range(f->n_sent, 19, 21);	/* 5 + 15.1 */
	ticks(f, 1010000, 2000000);
	assert_in_range(f->n_sent, 34, 36);
	ticks(f, 2010000, 3000000);
	assert_int_equal(f->n_sent, sim_param_count());

	f->n_sent = 0;
	request_list(f, (void *)0x3, 255);
	ticks(f, 3010000, 6000000);
	assert_in_range(f->n_sent, 7, 9);	/* 5 + 1/s */
}

/* As the daemon sends a frame told to every link (daemon_send_all): to
 * each link the service lets it go to, here 0x2 only. */
static void
send_told(void *user, void *reply_to, uint32_t msgid, const uint8_t *payload)
{
	struct fixture *f = user;

	if (!reply_to && !param_service_tell(&f->ps, (void *)0x2))
		return;
	fake_send(user, reply_to ? reply_to : (void *)0x2, msgid, payload);
}

static uint32_t
line_9600(void *user, void *link)
{
	(void)user;
	(void)link;
	return 960u;
}

/* A ground station on a line its samples fill (the budget's floor, one
 * frame a second) sets a parameter and, as QGroundControl does, sends
 * the PARAM_SET again each second until the PARAM_VALUE comes.  Every
 * set the service takes (and applies) is answered on its link: the
 * request paid for its reply.  Before, the PARAM_VALUE was told to every
 * link and charged the requester's link a second frame: the fourth set
 * in a row took the link to its debt limit, its answer was left untold,
 * and each retry a second later was taken and left unanswered again, for
 * ever (the GCS gave up on a value barod had set). */
static void
test_set_answered_on_a_full_line(void **state)
{
	struct fixture *f = *state;
	uint64_t t = 0;
	unsigned answered = 0;

	f->ps.send = send_told;
	f->ps.link_bandwidth = line_9600;
	f->ps.link_stream_rate = samples_5200;	/* 6000 on 0x2 */
	param_service_tick(&f->ps, 0);
	for (int k = 1; k <= 8; k++) {
		for (int tries = 0;; tries++) {
			uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
			struct mavlink_param_set m = {
				.param_value = (float)k, .target_system = 7,
				.target_component = 191,
				.param_type = MAV_PARAM_TYPE_REAL32 };
			const uint64_t taken = f->ps.stats.requests;

			if (tries == 10)
				fail_msg("set %d: no PARAM_VALUE after 10 s "
					 "(%u answered before; taken %" PRIu64
					 ", untold %" PRIu64 ")", k, answered,
					 f->ps.stats.requests,
					 f->ps.stats.untold);
			snprintf(m.param_id, sizeof(m.param_id),
				 "SIM_BARO_GLITCH");
			mavlink_pack_param_set(&m, pl);
			f->n_sent = 0;
			handle_as(f, MAVLINK_MSG_PARAM_SET, pl, (void *)0x2,
				  255, 190);
			if (f->ps.stats.requests > taken) {
				/* Taken: applied, and answered on its link. */
				assert_float_exact(f->params.baro[0].glitch,
						   (float)k);
				if (f->n_sent != 1)
					fail_msg("set %d (try %d) applied but "
						 "not answered", k, tries + 1);
				assert_ptr_equal(f->sent[0].reply_to,
						 (void *)0x2);
				assert_float_exact(
					value_of(&f->sent[0]).param_value,
					(float)k);
				answered++;
				break;
			}
			ticks(f, t + 10000u, t + 1000000u);
			t += 1000000u;
		}
	}
	assert_int_equal(answered, 8);
}

/* Asking again while a list is in flight joins it; once it is done, the
 * next request starts another. */
static void
test_list_merged(void **state)
{
	struct fixture *f = *state;

	param_service_tick(&f->ps, 0);
	for (int i = 0; i < 100; i++) {
		request_list(f, (void *)0x1, 255);
		param_service_tick(&f->ps, (uint64_t)i * 1000u);
	}
	ticks(f, 100000, 2000000);
	assert_int_equal(f->n_sent, sim_param_count());
	assert_int_equal(f->ps.stats.lists, 1);
	assert_int_equal(f->ps.stats.lists_merged, 99);
	request_list(f, (void *)0x1, 255);
	ticks(f, 2010000, 3000000);
	assert_int_equal(f->n_sent, 2 * sim_param_count());
	assert_int_equal(f->ps.stats.lists, 2);
}

/* Many requesters on one link share its budget; each gets its whole list;
 * the table's 17th list is refused while 16 are in flight; another link
 * has a budget of its own. */
static void
test_list_many_requesters(void **state)
{
	struct fixture *f = *state;
	const size_t count = sim_param_count();

	param_service_tick(&f->ps, 0);
	for (unsigned s = 1; s <= PARAM_SERVICE_REQUESTERS + 1; s++)
		request_list(f, (void *)0x1, (uint8_t)s);
	assert_int_equal(f->ps.stats.lists, PARAM_SERVICE_REQUESTERS);
	assert_int_equal(f->ps.stats.lists_refused, 1);
	ticks(f, 0, 1000000);
	/* 20 + 200 in the first second, whoever asked. */
	assert_in_range(f->ps.stats.values_listed, 218, 220);
	ticks(f, 1010000, 4000000);
	assert_int_equal(f->ps.stats.values_listed,
			 PARAM_SERVICE_REQUESTERS * count);
	assert_int_equal(f->ps.stats.lists_done, PARAM_SERVICE_REQUESTERS);

	/* Now idle, they make room for new requesters. */
	request_list(f, (void *)0x1, 200);
	request_list(f, (void *)0x3, 200);
	assert_int_equal(f->ps.stats.lists_refused, 1);
	f->n_sent = 0;
	ticks(f, 4010000, 4100000);
	size_t on1 = 0, on3 = 0;
	for (size_t i = 0; i < f->n_sent && i < 64; i++) {
		on1 += f->sent[i].reply_to == (void *)0x1;
		on3 += f->sent[i].reply_to == (void *)0x3;
	}
	/* Each link its own 20 + 2 a tick. */
	assert_int_equal(on1, on3);
	assert_true(on1 >= 30);
}

/* Other requests: PARAM_SERVICE_REQ_RATE a second per requester, and a
 * link overdrawn by one burst answers nobody until the tick repays it. */
static void
test_requests_bounded(void **state)
{
	struct fixture *f = *state;

	param_service_tick(&f->ps, 0);
	for (int i = 0; i < 100; i++)
		request_read(f, (void *)0x1, 1);
	assert_int_equal(f->n_sent, 20);
	assert_int_equal(f->ps.stats.requests_dropped, 80);
	/* A second requester has its own tokens: the link runs into debt
	 * by one burst (20) and no further. */
	for (int i = 0; i < 100; i++)
		request_read(f, (void *)0x1, 2);
	assert_int_equal(f->n_sent, 40);
	request_read(f, (void *)0x1, 3);
	assert_int_equal(f->n_sent, 40);
	assert_int_equal(f->ps.stats.requests_dropped, 161);
	/* Another link is not affected. */
	request_read(f, (void *)0x2, 3);
	assert_int_equal(f->n_sent, 41);

	/* A list waits while the link is in debt; requests go first. */
	request_list(f, (void *)0x1, 1);
	ticks(f, 10000, 100000);	/* repays 20 */
	assert_int_equal(f->n_sent, 41);
	ticks(f, 110000, 200000);
	assert_true(f->n_sent > 41);
	ticks(f, 210000, 1000000);
	for (int i = 0; i < 100; i++)
		request_read(f, (void *)0x1, 1);
	assert_int_equal(f->n_sent, 41 + sim_param_count() + 20);

	/* Requests for another system cost nothing. */
	uint64_t dropped = f->ps.stats.requests_dropped;
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
	struct mavlink_command_long c = { .command = 246, .target_system = 9,
					  .target_component = 1 };
	mavlink_pack_command_long(&c, pl);
	for (int i = 0; i < 100; i++)
		handle_as(f, MAVLINK_MSG_COMMAND_LONG, pl, (void *)0x4, 9, 1);
	assert_int_equal(f->ps.stats.requests_dropped, dropped);
}

/* A frame told to every link costs each link a frame of budget: a link
 * takes one burst and one in debt, then misses them (counted) until its
 * budget is repaid, as requests do; lists on it wait meanwhile; other
 * links are not affected. */
static void
test_tell_bounded(void **state)
{
	struct fixture *f = *state;
	int told = 0;

	param_service_tick(&f->ps, 0);
	for (int i = 0; i < 100; i++)
		told += param_service_tell(&f->ps, (void *)0x1);
	assert_int_equal(told, 40);
	assert_int_equal(f->ps.stats.untold, 60);
	assert_true(param_service_tell(&f->ps, (void *)0x2));
	request_list(f, (void *)0x1, 1);
	ticks(f, 10000, 100000);	/* repays 20: out of debt only */
	assert_int_equal(f->n_sent, 0);
	assert_true(param_service_tell(&f->ps, (void *)0x1));
	ticks(f, 110000, 200000);
	assert_int_equal(f->n_sent, 19);
	assert_int_equal(f->ps.stats.untold, 60);
}

/* An output a reload closes: its lists end, nothing more goes to it. */
static void
test_forget(void **state)
{
	struct fixture *f = *state;

	param_service_tick(&f->ps, 0);
	request_list(f, (void *)0x1, 255);
	request_list(f, (void *)0x2, 255);
	assert_int_equal(param_service_listing(&f->ps), 2);
	param_service_forget(&f->ps, (void *)0x1);
	assert_int_equal(param_service_listing(&f->ps), 1);
	ticks(f, 0, 1000000);
	assert_int_equal(f->n_sent, sim_param_count());
	for (size_t i = 0; i < f->n_sent; i++)
		assert_ptr_equal(f->sent[i].reply_to, (void *)0x2);
}

static void
test_read(void **state)
{
	struct fixture *f = *state;
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
	struct mavlink_param_request_read m = { .param_index = -1,
						.target_system = 7,
						.target_component = 191 };

	strcpy(m.param_id, "SIM_TEMP_BRD_OFF"); /* 16 chars, no NUL */
	mavlink_pack_param_request_read(&m, pl);
	handle(f, MAVLINK_MSG_PARAM_REQUEST_READ, pl);
	assert_int_equal(f->n_sent, 1);
	assert_string_equal(value_of(&f->sent[0]).param_id, "SIM_TEMP_BRD_OFF");
	assert_float_exact(value_of(&f->sent[0]).param_value, 20.0f);

	m.param_index = 3;
	memset(m.param_id, 0, sizeof(m.param_id));
	mavlink_pack_param_request_read(&m, pl);
	handle(f, MAVLINK_MSG_PARAM_REQUEST_READ, pl);
	assert_int_equal(f->n_sent, 1);
	assert_string_equal(value_of(&f->sent[0]).param_id, "SIM_BARO_DISABLE");

	m.param_index = 500;
	mavlink_pack_param_request_read(&m, pl);
	handle(f, MAVLINK_MSG_PARAM_REQUEST_READ, pl);
	assert_int_equal(f->n_sent, 1);
	assert_int_equal(f->sent[0].msgid, MAVLINK_MSG_STATUSTEXT);

	m.param_index = -1;
	strcpy(m.param_id, "SIM_WHATEVER");
	mavlink_pack_param_request_read(&m, pl);
	handle(f, MAVLINK_MSG_PARAM_REQUEST_READ, pl);
	assert_int_equal(f->n_sent, 1);
	struct mavlink_statustext st;
	mavlink_unpack_statustext(f->sent[0].payload, &st);
	assert_non_null(strstr(st.text, "SIM_WHATEVER"));
}

static void
test_set(void **state)
{
	struct fixture *f = *state;

	set_param(f, 7, 191, "SIM_BARO_GLITCH", 10.0f);
	assert_float_exact(f->params.baro[0].glitch, 10.0f);
	assert_int_equal(f->n_sent, 1);
	assert_null(f->sent[0].reply_to); /* broadcast to every link */
	assert_float_exact(value_of(&f->sent[0]).param_value, 10.0f);
	assert_int_equal(f->changes, 1);
	assert_string_equal(sim_param_info(f->last_idx)->name,
			    "SIM_BARO_GLITCH");
	assert_float_exact(f->last_old, 0.0f);
	assert_float_exact(f->last_new, 10.0f);

	/* Integer parameters arrive C-cast in the float. */
	set_param(f, 7, 191, "SIM_BAR2_DELAY", 120.0f);
	assert_int_equal(f->params.baro[1].delay, 120);

	/* Setting the same value again is answered but is no change. */
	set_param(f, 7, 191, "SIM_BAR2_DELAY", 120.0f);
	assert_int_equal(f->n_sent, 1);
	assert_int_equal(f->changes, 2);
}

static void
test_set_refused(void **state)
{
	struct fixture *f = *state;

	/* Only writes addressed to exactly this component. */
	set_param(f, 7, 0, "SIM_BARO_GLITCH", 10.0f);
	set_param(f, 8, 191, "SIM_BARO_GLITCH", 10.0f);
	set_param(f, 7, 1, "SIM_BARO_GLITCH", 10.0f);
	assert_int_equal(f->n_sent, 0);
	assert_float_exact(f->params.baro[0].glitch, 0.0f);

	/* Out of range: not applied; the held value and a reason go back. */
	set_param(f, 7, 191, "SIM_BARO_COUNT", 7.0f);
	assert_int_equal(f->params.baro_count, 2);
	assert_int_equal(f->n_sent, 2);
	assert_int_equal(f->sent[0].msgid, MAVLINK_MSG_STATUSTEXT);
	assert_float_exact(value_of(&f->sent[1]).param_value, 2.0f);
	assert_ptr_equal(f->sent[1].reply_to, (void *)0x1);

	set_param(f, 7, 191, "SIM_BARO_DELAY", 2.5f);
	assert_int_equal(f->params.baro[0].delay, 0);
	set_param(f, 7, 191, "SIM_BARO_RND", NAN);
	assert_float_exact(f->params.baro[0].rnd, 0.2f);

	/* In the table's range but outside the atmosphere's domain: refused
	 * the same way. */
	f->n_sent = 0;
	f->ps.check = domain_check;
	set_param(f, 7, 191, "SIM_BARO_GLITCH", 1e9f);
	assert_float_exact(f->params.baro[0].glitch, 0.0f);
	assert_int_equal(f->n_sent, 2);
	assert_int_equal(f->sent[0].msgid, MAVLINK_MSG_STATUSTEXT);
	assert_float_exact(value_of(&f->sent[1]).param_value, 0.0f);
	set_param(f, 7, 191, "SIM_BARO_GLITCH", 80000.0f);
	assert_float_exact(f->params.baro[0].glitch, 80000.0f);
	f->n_sent = 0;

	/* Unknown name: no PARAM_VALUE exists for it, only a STATUSTEXT. */
	set_param(f, 7, 191, "SIM_BARO_GLICH", 1.0f);
	assert_int_equal(f->n_sent, 1);
	struct mavlink_statustext st;
	mavlink_unpack_statustext(f->sent[0].payload, &st);
	assert_non_null(strstr(st.text, "SIM_BARO_GLITCH"));
	assert_int_equal(f->changes, 1);
}

static void
test_command_ack(void **state)
{
	struct fixture *f = *state;
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
	struct mavlink_command_long m = { .command = 246, .target_system = 7,
					  .target_component = 191 };

	mavlink_pack_command_long(&m, pl);
	handle(f, MAVLINK_MSG_COMMAND_LONG, pl);
	assert_int_equal(f->n_sent, 1);
	assert_int_equal(f->sent[0].msgid, MAVLINK_MSG_COMMAND_ACK);
	struct mavlink_command_ack ack;
	mavlink_unpack_command_ack(f->sent[0].payload, &ack);
	assert_int_equal(ack.command, 246);
	assert_int_equal(ack.result, MAV_RESULT_UNSUPPORTED);
	assert_int_equal(ack.target_system, 255);
	assert_int_equal(ack.target_component, 190);

	m.target_system = 9;
	mavlink_pack_command_long(&m, pl);
	handle(f, MAVLINK_MSG_COMMAND_LONG, pl);
	assert_int_equal(f->n_sent, 0);
}

static uint8_t
command(struct fixture *f, uint16_t cmd, float p1, float p2, float p3)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
	struct mavlink_command_long m = { .command = cmd, .target_system = 7,
					  .target_component = 191,
					  .param = { p1, p2, p3 } };
	struct mavlink_command_ack ack;

	mavlink_pack_command_long(&m, pl);
	handle(f, MAVLINK_MSG_COMMAND_LONG, pl);
	assert_int_equal(f->n_sent, 1);
	mavlink_unpack_command_ack(f->sent[0].payload, &ack);
	assert_int_equal(ack.command, cmd);
	return ack.result;
}

/* MAV_CMD_INJECT_FAILURE (420): unit 3 is the baro, PX4's types 0..7,
 * instance 1..3 or 0 for all. */
static void
test_inject_failure(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(command(f, 420, 3, 2, 1), MAV_RESULT_ACCEPTED);
	assert_int_equal(f->injected_type, 2);
	assert_int_equal(f->injected_instance, 1);
	assert_int_equal(command(f, 420, 3, 0, 0), MAV_RESULT_ACCEPTED);
	assert_int_equal(f->injections, 2);

	assert_int_equal(command(f, 420, 0, 1, 0), MAV_RESULT_UNSUPPORTED);
	assert_int_equal(command(f, 420, 3, 8, 1), MAV_RESULT_DENIED);
	assert_int_equal(command(f, 420, 3, 1, 4), MAV_RESULT_DENIED);
	assert_int_equal(command(f, 420, 3, 1.5f, 1), MAV_RESULT_DENIED);
	assert_int_equal(command(f, 420, 3, NAN, 1), MAV_RESULT_DENIED);
	assert_int_equal(f->injections, 2);

	f->ps.inject = NULL;
	assert_int_equal(command(f, 420, 3, 2, 1), MAV_RESULT_UNSUPPORTED);
}

/* COMMAND_INT, as PX4 takes MAV_CMD_INJECT_FAILURE either way: the same
 * answers as COMMAND_LONG's (before, a COMMAND_INT for us went
 * unanswered and its sender retried and timed out). */
static uint8_t
command_int(struct fixture *f, uint16_t cmd, uint8_t target, float p1,
	    float p2, float p3)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
	struct mavlink_command_int m = { .command = cmd,
					 .target_system = target,
					 .target_component = 191,
					 .param = { p1, p2, p3 },
					 .x = 473977418, .y = 85455939,
					 .frame = 6 };
	struct mavlink_command_ack ack;

	mavlink_pack_command_int(&m, pl);
	handle(f, MAVLINK_MSG_COMMAND_INT, pl);
	if (f->n_sent == 0)
		return 0xff;
	assert_int_equal(f->n_sent, 1);
	assert_int_equal(f->sent[0].msgid, MAVLINK_MSG_COMMAND_ACK);
	mavlink_unpack_command_ack(f->sent[0].payload, &ack);
	assert_int_equal(ack.command, cmd);
	assert_int_equal(ack.target_system, 255);
	assert_int_equal(ack.target_component, 190);
	return ack.result;
}

static void
test_command_int(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(command_int(f, 420, 7, 3, 2, 1), MAV_RESULT_ACCEPTED);
	assert_int_equal(f->injections, 1);
	assert_int_equal(f->injected_type, 2);
	assert_int_equal(f->injected_instance, 1);
	assert_int_equal(command_int(f, 420, 7, 3, 8, 1), MAV_RESULT_DENIED);
	assert_int_equal(command_int(f, 246, 7, 0, 0, 0),
			 MAV_RESULT_UNSUPPORTED);
	/* Another system's: not answered. */
	assert_int_equal(command_int(f, 420, 9, 3, 2, 1), 0xff);
	assert_int_equal(f->injections, 1);
	f->ps.remote_faults = false;
	assert_int_equal(command_int(f, 420, 7, 3, 2, 1), MAV_RESULT_DENIED);
	assert_int_equal(f->injections, 1);
	assert_int_equal(f->denials, 1);
}

/* The one command both messages become: a COMMAND_INT's x and y divided
 * by 1e7 as PX4's receiver does, confirmation 0; other messages are not
 * commands. */
static void
test_unpack_command(void **state)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
	struct mavlink_command_int ci = { .command = 420, .target_system = 7,
					  .target_component = 191,
					  .param = { 3, 2, 1, 0.5f },
					  .x = 473977418, .y = -85455939,
					  .z = 12.5f };
	struct mavlink_command_long m;

	(void)state;
	mavlink_pack_command_int(&ci, pl);
	assert_int_equal(mavlink_unpack_command(MAVLINK_MSG_COMMAND_INT, pl,
						&m), 0);
	assert_int_equal(m.command, 420);
	assert_int_equal(m.target_system, 7);
	assert_int_equal(m.target_component, 191);
	assert_true(m.param[0] == 3.0f && m.param[3] == 0.5f);
	assert_true(m.param[4] == (float)47.3977418);
	assert_true(m.param[5] == (float)-8.5455939);
	assert_true(m.param[6] == 12.5f);
	assert_int_equal(m.confirmation, 0);
	assert_int_equal(mavlink_unpack_command(MAVLINK_MSG_PARAM_SET, pl, &m),
			 -ENOENT);
}

/* [faults] remote = no (a real sensor's default): neither a PARAM_SET
 * nor an injection changes anything; each is answered as refused and
 * reported to denied. */
static void
test_remote_faults_off(void **state)
{
	struct fixture *f = *state;
	const float held = sim_param_get(&f->params,
					 (size_t)sim_param_find("SIM_BARO_GLITCH"));

	f->ps.remote_faults = false;
	set_param(f, 7, 191, "SIM_BARO_GLITCH", 10.0f);
	assert_int_equal(f->n_sent, 1);
	struct mavlink_param_value v = value_of(&f->sent[0]);
	assert_string_equal(v.param_id, "SIM_BARO_GLITCH");
	assert_true(v.param_value == held);
	assert_ptr_equal(f->sent[0].reply_to, (void *)0x1);
	assert_true(sim_param_get(&f->params, (size_t)v.param_index) == held);
	assert_int_equal(f->changes, 0);
	assert_int_equal(f->denials, 1);
	assert_ptr_equal(f->denied_reply_to, (void *)0x1);
	assert_int_equal(f->denied_sysid, 255);

	assert_int_equal(command(f, 420, 3, 4, 0), MAV_RESULT_DENIED);
	assert_int_equal(f->injections, 0);
	assert_int_equal(f->denials, 2);
	/* Not addressed to us, or another unit: no denial to report. */
	set_param(f, 8, 191, "SIM_BARO_GLITCH", 10.0f);
	assert_int_equal(command(f, 420, 0, 1, 0), MAV_RESULT_UNSUPPORTED);
	assert_int_equal(f->denials, 2);
	/* Reading stays open. */
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 };
	struct mavlink_param_request_read r = { .param_index = 0,
						.target_system = 7,
						.target_component = 191 };
	mavlink_pack_param_request_read(&r, pl);
	handle(f, MAVLINK_MSG_PARAM_REQUEST_READ, pl);
	assert_int_equal(f->n_sent, 1);
	(void)value_of(&f->sent[0]);

	f->ps.remote_faults = true;
	assert_int_equal(command(f, 420, 3, 4, 0), MAV_RESULT_ACCEPTED);
	assert_int_equal(f->injections, 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_remote_faults_off, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_list, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_paced_network, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_list_paced_serial, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_list_paced_by_stream,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_merged, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_list_many_requesters,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_requests_bounded, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_tell_bounded, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_forget, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_set, setup, teardown),
		cmocka_unit_test_setup_teardown(test_set_refused, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_set_answered_on_a_full_line,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_command_ack, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_command_int, setup,
						teardown),
		cmocka_unit_test(test_unpack_command),
		cmocka_unit_test_setup_teardown(test_inject_failure, setup,
						teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
