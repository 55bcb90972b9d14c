/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "msp.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "util-endian.h"

uint8_t
msp_crc8_dvb_s2(uint8_t crc, const uint8_t *data, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		crc ^= data[i];
		for (int b = 0; b < 8; b++)
			crc = (uint8_t)(crc & 0x80 ? (crc << 1) ^ 0xD5
						   : crc << 1);
	}
	return crc;
}

static bool
is_direction(int c)
{
	return c == MSP_DIR_REQUEST || c == MSP_DIR_REPLY || c == MSP_DIR_ERROR;
}

int
msp_v2_encode(uint8_t *out, size_t cap, char direction, uint8_t flags,
	      uint16_t function, const uint8_t *payload, size_t len)
{
	if (!is_direction(direction))
		return -EINVAL;
	if (len > MSP_PAYLOAD_MAX)
		return -EMSGSIZE;
	if (cap < MSP_V2_OVERHEAD + len)
		return -ENOBUFS;
	out[0] = '$';
	out[1] = 'X';
	out[2] = (uint8_t)direction;
	out[3] = flags;
	le_put16(out + 4, function);
	le_put16(out + 6, (uint16_t)len);
	if (len)
		memcpy(out + MSP_V2_HEADER_LEN, payload, len);
	/* The CRC starts at the flag byte: the preamble is not covered. */
	out[MSP_V2_HEADER_LEN + len] =
		msp_crc8_dvb_s2(0, out + 3, MSP_V2_HEADER_LEN - 3 + len);
	return (int)(MSP_V2_OVERHEAD + len);
}

void
msp_baro_pack(const struct msp_baro *b, uint8_t out[MSP_BARO_PAYLOAD_LEN])
{
	uint32_t p;

	memcpy(&p, &b->pressure_pa, sizeof(p));
	out[0] = b->instance;
	le_put32(out + 1, b->time_ms);
	le_put32(out + 5, p);
	le_put16(out + 9, (uint16_t)b->temp_cdeg);
}

int
msp_baro_unpack(const uint8_t *payload, size_t len, struct msp_baro *b)
{
	if (len != MSP_BARO_PAYLOAD_LEN)
		return -EBADMSG;
	b->instance = payload[0];
	b->time_ms = le_get32(payload + 1);
	b->pressure_pa = le_get_f32(payload + 5);
	b->temp_cdeg = le_get_i16(payload + 9);
	return 0;
}

int
msp_baro_frame(const struct msp_baro *b, uint8_t out[MSP_BARO_FRAME_LEN])
{
	uint8_t pl[MSP_BARO_PAYLOAD_LEN];

	if (b->instance > MSP_BARO_INSTANCE_MAX)
		return -EINVAL;
	msp_baro_pack(b, pl);
	return msp_v2_encode(out, MSP_BARO_FRAME_LEN, MSP_DIR_REQUEST,
			     MSP_FLAG_DONT_REPLY, MSP2_SENSOR_BAROMETER, pl,
			     sizeof(pl));
}

int
msp_baro_from_sample(const struct baro_sample *s, unsigned instance,
		     float fallback_temp_c, struct msp_baro *b)
{
	const float t = baro_sample_has(s, BARO_SAMPLE_HAS_TEMPERATURE)
				? s->temperature_c
				: fallback_temp_c;

	if (instance > MSP_BARO_INSTANCE_MAX)
		return -EINVAL;
	/* Written so NaN fails every test. */
	if (!(s->pressure_pa > 0.0f && s->pressure_pa <= MSP_BARO_PRESSURE_MAX_PA))
		return -EDOM;
	if (!(t >= MSP_BARO_TEMP_MIN_C && t <= MSP_BARO_TEMP_MAX_C))
		return -EDOM;
	b->instance = (uint8_t)instance;
	b->time_ms = (uint32_t)(s->time_us / 1000u);
	b->pressure_pa = s->pressure_pa;
	/* Truncated as ArduPilot's own centidegree fields are; within the
	 * bounds above it fits int16. */
	b->temp_cdeg = (int16_t)(t * 100.0f);
	return 0;
}

void
msp_parser_init(struct msp_parser *p)
{
	memset(p, 0, sizeof(*p));
}

enum verdict { NEED_MORE, FRAME, BAD };

/* What the buffered bytes are so far: a frame's start, a whole frame, or
 * not a frame at buf[0]. */
static enum verdict
check(struct msp_parser *p, size_t *frame_len)
{
	const uint8_t *b = p->buf;

	if (b[0] != '$' || (p->have > 1 && b[1] != 'X') ||
	    (p->have > 2 && !is_direction(b[2])))
		return BAD;
	if (p->have < MSP_V2_HEADER_LEN)
		return NEED_MORE;
	size_t len = le_get16(b + 6);
	if (len > MSP_PAYLOAD_MAX) {
		p->stats.oversize++;
		return BAD;
	}
	if (p->have < MSP_V2_OVERHEAD + len)
		return NEED_MORE;
	uint8_t crc = msp_crc8_dvb_s2(0, b + 3, MSP_V2_HEADER_LEN - 3 + len);
	if (crc != b[MSP_V2_HEADER_LEN + len]) {
		p->stats.bad_crc++;
		return BAD;
	}
	*frame_len = MSP_V2_OVERHEAD + len;
	return FRAME;
}

static void
consume(struct msp_parser *p, size_t n)
{
	memmove(p->buf, p->buf + n, p->have - n);
	p->have -= n;
}

size_t
msp_parser_feed(struct msp_parser *p, const uint8_t *data, size_t len,
		void (*on_frame)(const struct msp_frame *f, void *user),
		void *user)
{
	size_t delivered = 0;

	for (size_t i = 0; i < len; i++) {
		/* Hunting: skip to the next '$' without buffering. */
		if (p->have == 0 && data[i] != '$') {
			p->stats.garbage_bytes++;
			continue;
		}
		p->buf[p->have++] = data[i];
		while (p->have > 0) {
			size_t n = 0;
			enum verdict v = check(p, &n);
			if (v == NEED_MORE)
				break;
			if (v == FRAME) {
				struct msp_frame f = {
					.direction = (char)p->buf[2],
					.flags = p->buf[3],
					.function = le_get16(p->buf + 4),
					.len = le_get16(p->buf + 6),
					.payload = p->buf + MSP_V2_HEADER_LEN,
				};
				p->stats.frames++;
				delivered++;
				if (on_frame)
					on_frame(&f, user);
				consume(p, n);
				continue;
			}
			/* Not a frame at buf[0]: drop that byte, look again
			 * at what followed it. */
			p->stats.garbage_bytes++;
			consume(p, 1);
			size_t skip = 0;
			while (skip < p->have && p->buf[skip] != '$')
				skip++;
			p->stats.garbage_bytes += skip;
			consume(p, skip);
		}
	}
	return delivered;
}

void
msp_parser_flush(struct msp_parser *p)
{
	if (p->have == 0)
		return;
	p->stats.truncated++;
	p->stats.garbage_bytes += p->have;
	p->have = 0;
}
