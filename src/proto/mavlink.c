/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * MAVLink framing, CRC and the receive state machine.  The message layouts
 * live in mavlink-msg.c; this file only knows lengths and CRC_EXTRA.
 */
#include "mavlink.h"

#include <errno.h>
#include <string.h>

enum {
	V1_HEADER = 6,		/* STX len seq sysid compid msgid */
	V2_HEADER = 10,		/* STX len incompat compat seq sysid compid
				 * msgid[3] */
	CRC_LEN = 2,
	SIGNATURE_LEN = 13,
};

/*
 * Sorted by id for the binary search.  Values from the facts sheet's
 * section 9; tests/proto/test-mavlink.c recomputes each CRC_EXTRA and
 * length from the field lists rather than trusting this table.
 */
static const struct mavlink_msg_info msgs[] = {
	{ MAVLINK_MSG_HEARTBEAT, "HEARTBEAT", 50, 9, 9 },
	{ MAVLINK_MSG_SYS_STATUS, "SYS_STATUS", 124, 31, 43 },
	{ MAVLINK_MSG_SYSTEM_TIME, "SYSTEM_TIME", 137, 12, 12 },
	{ MAVLINK_MSG_SET_MODE, "SET_MODE", 89, 6, 6 },
	{ MAVLINK_MSG_PARAM_REQUEST_READ, "PARAM_REQUEST_READ", 214, 20, 20 },
	{ MAVLINK_MSG_PARAM_REQUEST_LIST, "PARAM_REQUEST_LIST", 159, 2, 2 },
	{ MAVLINK_MSG_PARAM_VALUE, "PARAM_VALUE", 220, 25, 25 },
	{ MAVLINK_MSG_PARAM_SET, "PARAM_SET", 168, 23, 23 },
	{ MAVLINK_MSG_SCALED_PRESSURE, "SCALED_PRESSURE", 115, 14, 16 },
	{ MAVLINK_MSG_GLOBAL_POSITION_INT, "GLOBAL_POSITION_INT", 104, 28, 28 },
	{ MAVLINK_MSG_MISSION_REQUEST, "MISSION_REQUEST", 230, 4, 5 },
	{ MAVLINK_MSG_MISSION_COUNT, "MISSION_COUNT", 221, 4, 9 },
	{ MAVLINK_MSG_MISSION_ITEM_REACHED, "MISSION_ITEM_REACHED", 11, 2, 2 },
	{ MAVLINK_MSG_MISSION_ACK, "MISSION_ACK", 153, 3, 8 },
	{ MAVLINK_MSG_MISSION_REQUEST_INT, "MISSION_REQUEST_INT", 196, 4, 5 },
	{ MAVLINK_MSG_MISSION_ITEM_INT, "MISSION_ITEM_INT", 38, 37, 38 },
	{ MAVLINK_MSG_COMMAND_INT, "COMMAND_INT", 158, 35, 35 },
	{ MAVLINK_MSG_COMMAND_LONG, "COMMAND_LONG", 152, 33, 33 },
	{ MAVLINK_MSG_COMMAND_ACK, "COMMAND_ACK", 143, 3, 10 },
	{ MAVLINK_MSG_HIL_ACTUATOR_CONTROLS, "HIL_ACTUATOR_CONTROLS", 47, 81,
	  81 },
	{ MAVLINK_MSG_HIL_SENSOR, "HIL_SENSOR", 108, 64, 65 },
	{ MAVLINK_MSG_HIL_GPS, "HIL_GPS", 124, 36, 39 },
	{ MAVLINK_MSG_HIL_STATE_QUATERNION, "HIL_STATE_QUATERNION", 4, 64,
	  64 },
	{ MAVLINK_MSG_SCALED_PRESSURE2, "SCALED_PRESSURE2", 195, 14, 16 },
	{ MAVLINK_MSG_SCALED_PRESSURE3, "SCALED_PRESSURE3", 131, 14, 16 },
	{ MAVLINK_MSG_AUTOPILOT_VERSION, "AUTOPILOT_VERSION", 178, 60, 78 },
	{ MAVLINK_MSG_EKF_STATUS_REPORT, "EKF_STATUS_REPORT", 71, 22, 26 },
	{ MAVLINK_MSG_ESTIMATOR_STATUS, "ESTIMATOR_STATUS", 163, 42, 42 },
	{ MAVLINK_MSG_EXTENDED_SYS_STATE, "EXTENDED_SYS_STATE", 130, 2, 2 },
	{ MAVLINK_MSG_STATUSTEXT, "STATUSTEXT", 83, 51, 54 },
};

#define N_MSGS (sizeof(msgs) / sizeof(msgs[0]))

const struct mavlink_msg_info *
mavlink_msg_info(uint32_t msgid)
{
	size_t lo = 0, hi = N_MSGS;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (msgs[mid].id == msgid)
			return &msgs[mid];
		if (msgs[mid].id < msgid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

uint16_t
mavlink_crc(const uint8_t *buf, size_t len, uint16_t crc)
{
	for (size_t i = 0; i < len; i++) {
		uint8_t t = (uint8_t)(buf[i] ^ (crc & 0xFF));
		t = (uint8_t)(t ^ (t << 4));
		crc = (uint16_t)((crc >> 8) ^ ((uint16_t)t << 8) ^
				 ((uint16_t)t << 3) ^ (t >> 4));
	}
	return crc;
}

uint16_t
mavlink_frame_crc(const uint8_t *f, size_t end, uint8_t crc_extra)
{
	uint16_t crc = mavlink_crc(f + 1, end - 1, 0xFFFF);

	return mavlink_crc(&crc_extra, 1, crc);
}

void
mavlink_frame_put_crc(uint8_t *f, size_t end, uint8_t crc_extra)
{
	uint16_t crc = mavlink_frame_crc(f, end, crc_extra);

	f[end] = (uint8_t)crc;
	f[end + 1] = (uint8_t)(crc >> 8);
}

int
mavlink_frame_encode(uint8_t out[MAVLINK_MAX_FRAME], int version, uint8_t seq,
		     uint8_t sysid, uint8_t compid, uint32_t msgid,
		     const uint8_t *payload)
{
	const struct mavlink_msg_info *info = mavlink_msg_info(msgid);
	size_t hdr, len;

	if (!info || (version != 1 && version != 2))
		return -EINVAL;
	if (version == 1) {
		if (msgid > 0xFF)
			return -EINVAL;
		/* v1 has no extensions: the base fields, never truncated. */
		len = info->min_len;
		out[0] = MAVLINK_STX_V1;
		out[1] = (uint8_t)len;
		out[2] = seq;
		out[3] = sysid;
		out[4] = compid;
		out[5] = (uint8_t)msgid;
		hdr = V1_HEADER;
	} else {
		/* The receiver zero-fills, so trailing zeros need not travel;
		 * one byte stays because len 0 trips some receivers. */
		len = info->len;
		while (len > 1 && payload[len - 1] == 0)
			len--;
		out[0] = MAVLINK_STX_V2;
		out[1] = (uint8_t)len;
		out[2] = 0;
		out[3] = 0;
		out[4] = seq;
		out[5] = sysid;
		out[6] = compid;
		out[7] = (uint8_t)msgid;
		out[8] = (uint8_t)(msgid >> 8);
		out[9] = (uint8_t)(msgid >> 16);
		hdr = V2_HEADER;
	}
	memcpy(out + hdr, payload, len);
	mavlink_frame_put_crc(out, hdr + len, info->crc_extra);
	return (int)(hdr + len + CRC_LEN);
}

void
mavlink_parser_init(struct mavlink_parser *p)
{
	memset(p, 0, sizeof(*p));
}

enum step {
	STEP_MORE,	/* byte taken, frame not complete */
	STEP_DONE,	/* p->buf holds a complete candidate of p->need bytes */
	STEP_REJECT,	/* not a frame: re-scan after its STX */
	STEP_REJECT_BYTE, /* the same, and re-scan this byte after it */
};

static bool
is_stx(uint8_t b)
{
	return b == MAVLINK_STX_V1 || b == MAVLINK_STX_V2;
}

static void
begin(struct mavlink_parser *p, uint8_t stx)
{
	p->buf[0] = stx;
	p->have = 1;
	p->need = (stx == MAVLINK_STX_V2 ? V2_HEADER : V1_HEADER) + CRC_LEN;
}

/*
 * One byte into the candidate in p->buf.  p->need is the candidate's
 * total length as far as the header read so far tells (header and CRC
 * until the length byte arrives), so p->have never passes it and the
 * buffer (MAVLINK_MAX_FRAME = the largest need) never overflows.  A
 * complete candidate still in the buffer (have == need) is an unknown
 * message waiting for the byte after it (see finish()).
 */
static enum step
step(struct mavlink_parser *p, uint8_t b)
{
	if (p->have == 0) {
		if (is_stx(b))
			begin(p, b);
		else
			p->stats.garbage_bytes++;
		return STEP_MORE;
	}
	if (p->have == p->need) {
		if (!is_stx(b))
			return STEP_REJECT_BYTE;
		p->stats.dropped_bytes += p->have;
		begin(p, b);
		return STEP_MORE;
	}
	p->buf[p->have++] = b;
	if (p->have == 2) {
		p->need += b;
	} else if (p->have == 3 && p->buf[0] == MAVLINK_STX_V2) {
		if (b & ~MAVLINK_IFLAG_SIGNED) {
			p->stats.bad_incompat++;
			return STEP_REJECT;
		}
		if (b & MAVLINK_IFLAG_SIGNED)
			p->need += SIGNATURE_LEN;
	}
	return p->have == p->need ? STEP_DONE : STEP_MORE;
}

static void
fill_frame(const struct mavlink_parser *p, const struct mavlink_msg_info *info,
	   struct mavlink_frame *f)
{
	const uint8_t *b = p->buf;
	size_t hdr;

	memset(f, 0, sizeof(*f));
	f->len = b[1];
	if (b[0] == MAVLINK_STX_V2) {
		f->version = 2;
		f->incompat_flags = b[2];
		f->compat_flags = b[3];
		f->seq = b[4];
		f->sysid = b[5];
		f->compid = b[6];
		f->msgid = (uint32_t)b[7] | (uint32_t)b[8] << 8 |
			   (uint32_t)b[9] << 16;
		hdr = V2_HEADER;
	} else {
		f->version = 1;
		f->seq = b[2];
		f->sysid = b[3];
		f->compid = b[4];
		f->msgid = b[5];
		hdr = V1_HEADER;
	}
	/* Bytes past the full length were covered by the CRC but belong to
	 * no field this dialect knows; the rest stays zero-filled. */
	size_t n = f->len < info->len ? f->len : info->len;
	memcpy(f->payload, b + hdr, n);
	f->raw = b;
	f->raw_len = p->have;
}

static uint32_t
candidate_msgid(const uint8_t *b)
{
	if (b[0] == MAVLINK_STX_V1)
		return b[5];
	return (uint32_t)b[7] | (uint32_t)b[8] << 8 | (uint32_t)b[9] << 16;
}

enum verdict {
	DELIVER,	/* good: f is filled */
	DROP,		/* framed and counted, not delivered */
	PENDING,	/* unknown msgid: decided by the next byte */
	REJECT,		/* CRC mismatch: not a frame, re-scan after its STX */
};

/*
 * Check a complete candidate; on REJECT it stays in p->buf for the
 * re-scan.  An unknown message's CRC cannot be checked, so the byte after
 * it decides: a start byte (or the end of a datagram, at flush) means it
 * was a frame, consumed whole like the C library and node-mavlink do;
 * anything else means a false STX, re-scanned like a CRC failure, so a
 * false STX in garbage does not swallow the good frames behind it.
 */
static enum verdict
finish(struct mavlink_parser *p, struct mavlink_frame *f)
{
	const uint8_t *b = p->buf;
	const struct mavlink_msg_info *info =
		mavlink_msg_info(candidate_msgid(b));

	if (!info) {
		p->stats.unknown_msgid++;
		return PENDING;
	}
	size_t hdr = b[0] == MAVLINK_STX_V2 ? V2_HEADER : V1_HEADER;
	size_t end = hdr + b[1];
	uint16_t crc = mavlink_frame_crc(b, end, info->crc_extra);
	if (b[end] != (uint8_t)crc || b[end + 1] != (uint8_t)(crc >> 8)) {
		p->stats.bad_crc++;
		return REJECT;
	}
	if (b[0] == MAVLINK_STX_V2 && (b[2] & MAVLINK_IFLAG_SIGNED) &&
	    !p->deliver_signed) {
		p->stats.signed_dropped++;
		p->stats.dropped_bytes += p->have;
		return DROP;
	}
	fill_frame(p, info, f);
	p->stats.frames++;
	return DELIVER;
}

size_t
mavlink_parser_feed(struct mavlink_parser *p, const uint8_t *data, size_t len,
		    void (*on_frame)(const struct mavlink_frame *f, void *user),
		    void *user)
{
	/*
	 * After a rejected candidate, the bytes after its STX are hunted
	 * through again before the rest of the input: they go to replay.  A
	 * candidate that starts inside replay and is rejected there leaves
	 * exactly replay[start + 1 ..] to re-scan, so the cursor just moves
	 * back; otherwise replay is empty and takes the candidate's bytes
	 * (and the byte that rejected an unknown message, see step()).
	 * Either way replay never holds more than MAVLINK_MAX_FRAME bytes.
	 */
	uint8_t replay[MAVLINK_MAX_FRAME];
	size_t rn = 0, ri = 0, in = 0, delivered = 0;
	size_t start = SIZE_MAX;	/* replay index of the candidate STX */

	for (;;) {
		bool from_replay = ri < rn;
		uint8_t b;

		if (from_replay)
			b = replay[ri++];
		else if (in < len)
			b = data[in++];
		else
			break;

		enum step s = step(p, b);
		if (p->have == 1)
			start = from_replay ? ri - 1 : SIZE_MAX;
		if (s == STEP_MORE)
			continue;

		struct mavlink_frame f;
		enum verdict v = s == STEP_DONE ? finish(p, &f) : REJECT;
		if (v == PENDING)
			continue;
		if (v != REJECT) {
			p->have = 0;
			p->need = 0;
			if (v == DELIVER) {
				delivered++;
				if (on_frame)
					on_frame(&f, user);
			}
			continue;
		}

		/* Rejected: the STX was garbage after all. */
		p->stats.garbage_bytes++;
		if (from_replay && start != SIZE_MAX) {
			ri = start + 1;
		} else {
			rn = p->have - 1;
			memcpy(replay, p->buf + 1, rn);
			if (s == STEP_REJECT_BYTE)
				replay[rn++] = b;
			ri = 0;
		}
		p->have = 0;
		p->need = 0;
	}
	return delivered;
}

void
mavlink_parser_flush(struct mavlink_parser *p)
{
	if (p->have == 0)
		return;
	/* An unknown message that ends the datagram was a whole frame. */
	if (p->have != p->need)
		p->stats.truncated++;
	p->stats.dropped_bytes += p->have;
	p->have = 0;
	p->need = 0;
}
