/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * MSP v2 framing as ArduPilot's AP_MSP reads it, and the one message
 * barod sends: MSP2_SENSOR_BAROMETER, which AP_Baro_MSP turns into a
 * barometer.  Pure: no I/O, no globals.  Facts (ArduPilot source):
 *   libraries/AP_MSP/msp.cpp       "$X<" flag, function u16, size u16,
 *                                  payload, CRC-8/DVB-S2 over flag..payload
 *   libraries/AP_MSP/msp.h         MSP_FLAG_DONT_REPLY = bit 0,
 *                                  MSP_PORT_INBUF_SIZE 192 (larger frames
 *                                  are abandoned by the receiver)
 *   libraries/AP_MSP/msp_protocol.h  MSP2_SENSOR_BAROMETER 0x1F05
 *   libraries/AP_MSP/msp_sensors.h   msp_baro_data_message_t, packed LE
 */
#ifndef BAROD_MSP_H
#define BAROD_MSP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "baro-sample.h"

#define MSP_V2_HEADER_LEN 8	/* '$' 'X' dir flag fn_lo fn_hi len_lo len_hi */
#define MSP_V2_OVERHEAD 9	/* header + CRC byte */
/* ArduPilot's MSP_PORT_INBUF_SIZE: a frame claiming more is dropped. */
#define MSP_PAYLOAD_MAX 192
#define MSP_FRAME_MAX (MSP_V2_OVERHEAD + MSP_PAYLOAD_MAX)

#define MSP_DIR_REQUEST '<'	/* to the flight controller */
#define MSP_DIR_REPLY '>'
#define MSP_DIR_ERROR '!'

#define MSP_FLAG_DONT_REPLY 0x01

#define MSP2_SENSOR_BAROMETER 0x1F05

/* uint8 instance, uint32 time_ms, float pressure_pa, int16 temp (cdegC) */
#define MSP_BARO_PAYLOAD_LEN 11
#define MSP_BARO_FRAME_LEN (MSP_V2_OVERHEAD + MSP_BARO_PAYLOAD_LEN)
/* AP_Baro::handle_msp ignores instances above 7. */
#define MSP_BARO_INSTANCE_MAX 7

/*
 * What barod sends as physically possible: a pressure above zero (AP_Baro
 * calls a zero pressure unhealthy) and at most 2 MPa (deep enough for
 * ArduSub's water model at ~190 m), and a temperature within the bounds
 * beyond which AP_Baro_Backend::update_healthy_flag() calls a reading bad
 * data.  Anything else (NaN, infinities, a garbled reading) is not sent;
 * the caller counts it.
 */
#define MSP_BARO_PRESSURE_MAX_PA 2.0e6f
#define MSP_BARO_TEMP_MIN_C (-200.0f)
#define MSP_BARO_TEMP_MAX_C 200.0f

/* CRC-8/DVB-S2 (poly 0xD5, init 0, no reflection) continuing from crc. */
uint8_t
msp_crc8_dvb_s2(uint8_t crc, const uint8_t *data, size_t len);

/*
 * One MSP v2 frame into out (cap bytes).  Returns its length, or -EINVAL
 * (direction not '<', '>' or '!'), -EMSGSIZE (len above MSP_PAYLOAD_MAX),
 * -ENOBUFS (cap too small).
 */
int
msp_v2_encode(uint8_t *out, size_t cap, char direction, uint8_t flags,
	      uint16_t function, const uint8_t *payload, size_t len);

struct msp_baro {
	uint8_t instance;
	uint32_t time_ms;
	float pressure_pa;
	int16_t temp_cdeg;
};

void
msp_baro_pack(const struct msp_baro *b, uint8_t out[MSP_BARO_PAYLOAD_LEN]);

/* -EBADMSG unless len is exactly the message's length. */
int
msp_baro_unpack(const uint8_t *payload, size_t len, struct msp_baro *b);

/*
 * The frame barod sends: a request with MSP_FLAG_DONT_REPLY (the flight
 * controller answers nothing).  Returns MSP_BARO_FRAME_LEN, or -EINVAL
 * for an instance above MSP_BARO_INSTANCE_MAX.
 */
int
msp_baro_frame(const struct msp_baro *b, uint8_t out[MSP_BARO_FRAME_LEN]);

/*
 * A published sample as the message for MSP instance `instance`, time in
 * ms on the sample's clock (AP_Baro_MSP stamps samples with its own
 * clock; the field is informational).  fallback_temp_c is used when the
 * sample carries no measured temperature.  Returns 0, or -EDOM when the
 * pressure or the temperature is not physically possible (see above),
 * -EINVAL for an instance above MSP_BARO_INSTANCE_MAX.
 */
int
msp_baro_from_sample(const struct baro_sample *s, unsigned instance,
		     float fallback_temp_c, struct msp_baro *b);

/* ---- decoder: the flight controller's side, for tests and fuzzing ---- */

struct msp_frame {
	char direction;		/* '<', '>' or '!' */
	uint8_t flags;
	uint16_t function;
	uint16_t len;
	const uint8_t *payload;	/* len bytes, valid during the callback */
};

struct msp_parser_stats {
	uint64_t frames;	/* good frames delivered */
	uint64_t bad_crc;
	uint64_t oversize;	/* size field above MSP_PAYLOAD_MAX */
	uint64_t truncated;	/* a partial frame at msp_parser_flush() */
	/* Every byte fed is in exactly one of: a delivered frame,
	 * garbage_bytes, or the partial frame still buffered (have). */
	uint64_t garbage_bytes;
};

struct msp_parser {
	uint8_t buf[MSP_FRAME_MAX];
	size_t have;
	struct msp_parser_stats stats;
};

void
msp_parser_init(struct msp_parser *p);

/*
 * Feed bytes; calls on_frame (may be NULL) for each good MSP v2 frame and
 * returns how many were delivered.  MSP v1 and anything else is garbage.
 * After a bad CRC or an oversize length the parser resumes at the byte
 * after the false '$', so a good frame inside garbage is still found
 * (ArduPilot's parser does not look back; for whole frames, as barod
 * sends, the two agree).  on_frame must not feed the same parser.
 */
size_t
msp_parser_feed(struct msp_parser *p, const uint8_t *data, size_t len,
		void (*on_frame)(const struct msp_frame *f, void *user),
		void *user);

/* End of a datagram: a partial frame is counted and discarded. */
void
msp_parser_flush(struct msp_parser *p);

#endif
