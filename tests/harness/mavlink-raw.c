/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "mavlink-raw.h"

#include <string.h>

#include "mavlink.h"

size_t
mavlink_raw_frame(uint8_t *out, uint8_t seq, uint8_t sysid, uint8_t compid,
		  uint32_t msgid, uint8_t crc_extra, const uint8_t *pl,
		  size_t len)
{
	out[0] = MAVLINK_STX_V2;
	out[1] = (uint8_t)len;
	out[2] = out[3] = 0;
	out[4] = seq;
	out[5] = sysid;
	out[6] = compid;
	out[7] = (uint8_t)msgid;
	out[8] = (uint8_t)(msgid >> 8);
	out[9] = (uint8_t)(msgid >> 16);
	memcpy(out + 10, pl, len);
	mavlink_frame_put_crc(out, 10 + len, crc_extra);
	return 12 + len;
}
