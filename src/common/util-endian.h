/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Little-endian wire fields, byte by byte, whatever the host's order or
 * alignment: MAVLink payloads and ArduPilot's servo packets. */
#ifndef BAROD_UTIL_ENDIAN_H
#define BAROD_UTIL_ENDIAN_H

#include <stdint.h>
#include <string.h>

static inline void
le_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void
le_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void
le_put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t
le_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t
le_get32(const uint8_t *p)
{
	uint32_t v = 0;

	for (int i = 3; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static inline uint64_t
le_get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Two's complement by arithmetic: converting an out-of-range unsigned
 * value to a signed type is implementation-defined. */
static inline int16_t
le_get_i16(const uint8_t *p)
{
	uint16_t u = le_get16(p);

	return u < 0x8000u ? (int16_t)u : (int16_t)((int32_t)u - 0x10000);
}

static inline int32_t
le_get_i32(const uint8_t *p)
{
	uint32_t u = le_get32(p);

	return u < 0x80000000u ? (int32_t)u
			       : (int32_t)(u - 0x80000000u) + INT32_MIN;
}

static inline float
le_get_f32(const uint8_t *p)
{
	uint32_t u = le_get32(p);
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static inline void
le_put_f32(uint8_t *p, float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	le_put32(p, u);
}

/* Big-endian: tlog timestamps. */
static inline uint64_t
be_get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

#endif
