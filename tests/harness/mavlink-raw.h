/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * MAVLink 2 frames for the messages barod's codec does not know but the
 * scripted peers send (HIL_GPS, HIL_STATE_QUATERNION,
 * HIL_ACTUATOR_CONTROLS as raw payloads), for the daemon tests and the
 * benchmarks alike: no cmocka, no I/O.
 */
#ifndef MAVLINK_RAW_H
#define MAVLINK_RAW_H

#include <stddef.h>
#include <stdint.h>

/* Payload pl (len bytes, not trimmed) framed into out (12 + len bytes)
 * with the message's CRC_EXTRA; the frame's length. */
size_t
mavlink_raw_frame(uint8_t *out, uint8_t seq, uint8_t sysid, uint8_t compid,
		  uint32_t msgid, uint8_t crc_extra, const uint8_t *pl,
		  size_t len);

#endif
