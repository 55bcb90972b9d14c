/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What PX4 SITL sends its simulator over TCP, read as barod reads it:
 * --px4-sim frames the stream with mavlink_parser_feed and takes the
 * motor outputs of each HIL_ACTUATOR_CONTROLS (px4_actuator_throttle);
 * --px4-sim-proxy passes the bytes on and frames them with
 * mavlink_stream_feed only to read the same.  The stream arrives in
 * pieces the input sizes.  Each throttle must be 0 while disarmed, else
 * in [0, 1] and between the least and the most of the running motors'
 * outputs; a non-finite motor output must be refused and leave the last
 * throttle; the proxy must pass every byte on, once, in order.  Any
 * breach aborts.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "mavlink-stream.h"
#include "mavlink.h"
#include "px4-throttle.h"

/* A quadrotor's motors (barod's default) and an octorotor's. */
static const uint16_t masks[2] = { PX4_THROTTLE_QUAD_MOTORS, 0x00ffu };

struct link {
	float throttle[2];	/* per mask, as the source keeps it */
	size_t controls;	/* HIL_ACTUATOR_CONTROLS read */
	size_t passed;		/* proxy: bytes passed on */
	const uint8_t *data;	/* proxy: the input, to compare */
};

static void
read_controls(struct link *l, const uint8_t *payload)
{
	struct mavlink_hil_actuator_controls a;

	mavlink_unpack_hil_actuator_controls(payload, &a);
	l->controls++;
	for (int m = 0; m < 2; m++) {
		float lo = 1.0f, hi = 0.0f, was = l->throttle[m];
		bool finite = true;
		for (unsigned i = 0; i < PX4_HIL_CONTROLS; i++) {
			if (!(masks[m] & (1u << i)))
				continue;
			float c = a.controls[i];
			finite &= isfinite(c);
			c = c < 0.0f ? 0.0f : (c > 1.0f ? 1.0f : c);
			if (c >= FLT_EPSILON) {
				lo = c < lo ? c : lo;
				hi = c > hi ? c : hi;
			}
		}
		int rc = px4_actuator_throttle(a.controls, a.mode, masks[m],
					       &l->throttle[m]);
		const float t = l->throttle[m];
		if (!(a.mode & PX4_HIL_MODE_SAFETY_ARMED)) {
			if (rc != 0 || t != 0.0f)
				abort();
		} else if (!finite) {
			if (rc != -EINVAL || memcmp(&t, &was, sizeof(t)) != 0)
				abort();
		} else if (rc != 0 || !(t >= 0.0f && t <= 1.0f) ||
			   (hi > 0.0f && !(t >= lo * (1 - 1e-6f) &&
					   t <= hi * (1 + 1e-6f))) ||
			   (hi == 0.0f && t != 0.0f)) {
			abort();
		}
	}
}

static void
on_frame(const struct mavlink_frame *f, void *user)
{
	if (f->msgid == MAVLINK_MSG_HIL_ACTUATOR_CONTROLS)
		read_controls(user, f->payload);
}

static bool
on_watched(void *user, uint8_t *frame, size_t len, size_t hdr,
	   const struct mavlink_frame *f)
{
	(void)frame;
	if (f->msgid != MAVLINK_MSG_HIL_ACTUATOR_CONTROLS ||
	    hdr + f->len + 2 != len)
		abort();
	read_controls(user, f->payload);
	return false;	/* read, never edited */
}

static void
on_pass(void *user, const uint8_t *data, size_t len)
{
	struct link *l = user;

	if (memcmp(data, l->data + l->passed, len) != 0)
		abort();
	l->passed += len;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct mavlink_parser p;
	static struct mavlink_stream st;
	struct link sim = { .data = data }, proxy = { .data = data };

	mavlink_parser_init(&p);
	mavlink_stream_init(&st, MAVLINK_MSG_HIL_ACTUATOR_CONTROLS);
	for (size_t i = 0, k = 0; i < size; i += k) {
		k = fuzz_chunk(data, size, i);
		mavlink_parser_feed(&p, data + i, k, on_frame, &sim);
		mavlink_stream_feed(&st, data + i, k, on_watched, on_pass,
				    &proxy);
		if (proxy.passed + mavlink_stream_held(&st) != i + k)
			abort();
	}
	if (p.stats.frames < sim.controls ||
	    st.stats.watched - st.stats.signed_passed != proxy.controls)
		abort();
	return 0;
}
