/* SPDX-License-Identifier: GPL-3.0-or-later */
/* SITL servo packets: whatever decodes must encode back to the same bytes,
 * and its throttle, for every vehicle and a mask from the packet's own
 * bytes, lies in [0, 1]. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "sitl-json.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sitl_servo s;
	uint8_t again[SITL_SERVO_LEN_32];

	if (sitl_servo_decode(data, size, &s) != 0)
		return 0;
	if (s.channels != 16 && s.channels != 32)
		abort();
	size_t n = sitl_servo_encode(&s, again);
	if (n != size || memcmp(again, data, n) != 0)
		abort();
	const uint32_t mask = (uint32_t)s.frame_count ^ s.frame_rate;
	for (int k = SITL_VEHICLE_COPTER; k <= SITL_VEHICLE_ROVER; k++) {
		const float thr = sitl_servo_throttle(
			(enum sitl_vehicle_kind)k, s.pwm, s.channels, mask);
		if (!(thr >= 0.0f && thr <= 1.0f))
			abort();
	}
	return 0;
}
