// SPDX-License-Identifier: GPL-3.0-or-later
#include "exec-wire.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util-strings.h"

/* The wire frame is the struct's layout: these hold on every ABI barod
 * builds for (and doc/filter-exec.md gives the same offsets), so a
 * filter may overlay the bytes with its own declaration of the struct. */
#define AT(type, field, off)                                                 \
	_Static_assert(offsetof(type, field) == (off), #field " at " #off)
AT(struct baro_filter_frame, now_us, 0);
AT(struct baro_filter_frame, nbaro, 8);
AT(struct baro_filter_frame, baro, 16);
AT(struct baro_filter_frame, accel, 136);
AT(struct baro_filter_frame, gps, 208);
AT(struct baro_filter_frame, range, 264);
AT(struct baro_filter_baro, flags, 8);
AT(struct baro_filter_baro, pressure_pa, 16);
AT(struct baro_filter_baro, temperature_c, 24);
AT(struct baro_filter_baro, alt_m, 32);
AT(struct baro_filter_accel, specific_force, 16);
AT(struct baro_filter_accel, roll_rad, 40);
AT(struct baro_filter_accel, vert_accel_mss, 64);
AT(struct baro_filter_gps, alt_amsl_m, 16);
AT(struct baro_filter_gps, vel_acc_m_s, 48);
AT(struct baro_filter_range, distance_m, 16);
AT(struct baro_filter_range, max_m, 32);
AT(struct baro_filter_output2, climb_m_s, 8);
AT(struct baro_filter_output2, test_ratio, 16);
AT(struct baro_filter_output2, flags, 24);
AT(struct baro_filter_output2, baro_flags, 28);
#undef AT
_Static_assert(sizeof(struct baro_filter_baro) == 40, "baro block");
_Static_assert(sizeof(struct baro_filter_accel) == 72, "accel block");
_Static_assert(sizeof(struct baro_filter_gps) == 56, "gps block");
_Static_assert(sizeof(struct baro_filter_range) == 40, "range block");
_Static_assert(sizeof(struct baro_filter_frame) == EXEC_WIRE_FRAME_SIZE,
	       "frame size");
_Static_assert(sizeof(struct baro_filter_output2) == EXEC_WIRE_OUTPUT_SIZE,
	       "output size");
_Static_assert(sizeof(double) == 8, "binary64");

static void
put_u32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void
put_u64(uint8_t *p, uint64_t v)
{
	put_u32(p, (uint32_t)v);
	put_u32(p + 4, (uint32_t)(v >> 32));
}

static void
put_f64(uint8_t *p, double d)
{
	uint64_t v;
	memcpy(&v, &d, sizeof(v));
	put_u64(p, v);
}

static uint32_t
get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static double
get_f64(const uint8_t *p)
{
	uint64_t v = (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
	double d;
	memcpy(&d, &v, sizeof(d));
	return d;
}

void
exec_wire_put_host_hello(uint8_t *p)
{
	memcpy(p, EXEC_WIRE_MAGIC, 4);
	put_u32(p + 4, EXEC_WIRE_VERSION);
	put_u32(p + 8, EXEC_WIRE_FRAME_SIZE);
	put_u32(p + 12, EXEC_WIRE_OUTPUT_SIZE);
}

/* A sensor block's head: time, flags, reserved (zero on the wire). */
static uint8_t *
put_head(uint8_t *p, uint64_t time_us, uint32_t flags)
{
	put_u64(p, time_us);
	put_u32(p + 8, flags);
	put_u32(p + 12, 0);
	return p + 16;
}

static uint8_t *
put_f64s(uint8_t *p, const double *d, size_t n)
{
	for (size_t k = 0; k < n; k++, p += 8)
		put_f64(p, d[k]);
	return p;
}

void
exec_wire_put_frame(uint8_t *p, const struct baro_filter_frame *f)
{
	p = put_head(p, f->now_us, f->nbaro);
	for (int k = 0; k < BARO_FILTER_MAX_BAROS; k++) {
		const struct baro_filter_baro *b = &f->baro[k];
		p = put_head(p, b->time_us, b->flags);
		const double d[] = { b->pressure_pa, b->temperature_c,
				     b->alt_m };
		p = put_f64s(p, d, 3);
	}
	const struct baro_filter_accel *a = &f->accel;
	p = put_head(p, a->time_us, a->flags);
	const double da[] = { a->specific_force[0], a->specific_force[1],
			      a->specific_force[2], a->roll_rad,
			      a->pitch_rad, a->yaw_rad, a->vert_accel_mss };
	p = put_f64s(p, da, 7);
	const struct baro_filter_gps *g = &f->gps;
	p = put_head(p, g->time_us, g->flags);
	const double dg[] = { g->alt_amsl_m, g->alt_m, g->vel_up_m_s,
			      g->vacc_m, g->vel_acc_m_s };
	p = put_f64s(p, dg, 5);
	const struct baro_filter_range *r = &f->range;
	p = put_head(p, r->time_us, r->flags);
	const double dr[] = { r->distance_m, r->min_m, r->max_m };
	put_f64s(p, dr, 3);
}

void
exec_wire_put_batch_header(uint8_t *p, uint32_t n)
{
	p[0] = 'F';
	put_u32(p + 1, n);
}

void
exec_wire_get_output(const uint8_t *p, struct baro_filter_output2 *o)
{
	o->alt_m = get_f64(p);
	o->climb_m_s = get_f64(p + 8);
	o->test_ratio = get_f64(p + 16);
	o->flags = get_u32(p + 24);
	for (int k = 0; k < BARO_FILTER_MAX_BAROS; k++)
		o->baro_flags[k] = get_u32(p + 28 + 4 * k);
}

/* What a byte that should not be there looks like in a message. */
static void
describe_byte(char *s, size_t len, uint8_t c)
{
	if (c >= 0x20 && c < 0x7f)
		snprintf(s, len, "'%c'", c);
	else
		snprintf(s, len, "byte 0x%02x", c);
}

/* An 'E' at buf: its length when complete, 0 for more, else -ECANCELED
 * with the message (non-printable bytes as '?'). */
static int
parse_error(const uint8_t *buf, size_t len, char *err, size_t errlen)
{
	if (len < EXEC_WIRE_HEADER_SIZE)
		return 0;
	uint32_t n = get_u32(buf + 1);
	if (n > EXEC_WIRE_ERROR_MAX)
		return str_errorf(err, errlen, -EPROTO,
			       "an error message of %u bytes (at most %u)", n,
			       EXEC_WIRE_ERROR_MAX);
	if (len < EXEC_WIRE_HEADER_SIZE + n)
		return 0;
	char msg[EXEC_WIRE_ERROR_MAX + 1];
	size_t m = 0;
	for (uint32_t k = 0; k < n; k++) {
		uint8_t c = buf[EXEC_WIRE_HEADER_SIZE + k];
		/* One line: a trailing newline is dropped, others shown. */
		if (c == '\n' && k + 1 == n)
			break;
		msg[m++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	msg[m] = '\0';
	str_errorf(err, errlen, -ECANCELED, "%s", m ? msg : "(no message)");
	return -ECANCELED;
}

int
exec_wire_parse_hello(const uint8_t *buf, size_t len,
		      struct exec_wire_hello *h, char *err, size_t errlen)
{
	if (len == 0)
		return 0;
	if (buf[0] == 'E')
		return parse_error(buf, len, err, errlen);
	/* The magic byte by byte, so a wrong first byte is refused before
	 * the whole header is in (a program that is no filter may print
	 * one line and wait). */
	for (size_t k = 0; k < 4 && k < len; k++)
		if (buf[k] != (uint8_t)EXEC_WIRE_MAGIC[k]) {
			char what[16];
			describe_byte(what, sizeof(what), buf[k]);
			return str_errorf(err, errlen, -EPROTO,
				       "said %s at byte %zu of its hello "
				       "(\"BRFX\" or 'E' was due)", what, k);
		}
	if (len < 16)
		return 0;
	uint32_t version = get_u32(buf + 4);
	if (version != EXEC_WIRE_VERSION)
		return str_errorf(err, errlen, -EPROTO,
			       "speaks protocol version %u (this is %u)",
			       version, EXEC_WIRE_VERSION);
	uint32_t reads = get_u32(buf + 8);
	const uint32_t known = BARO_FILTER_READS_BAROS |
			       BARO_FILTER_READS_ACCEL | BARO_FILTER_READS_GPS |
			       BARO_FILTER_READS_RANGE;
	if (reads & ~known)
		return str_errorf(err, errlen, -EPROTO,
			       "reads 0x%x: unknown sensor bits", reads);
	uint32_t n = get_u32(buf + 12);
	if (n == 0 || n > EXEC_WIRE_NAME_MAX)
		return str_errorf(err, errlen, -EPROTO,
			       "a name of %u bytes (1..%u)", n,
			       EXEC_WIRE_NAME_MAX);
	if (len < 16 + n)
		return 0;
	for (uint32_t k = 0; k < n; k++) {
		uint8_t c = buf[16 + k];
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-')) {
			char what[16];
			describe_byte(what, sizeof(what), c);
			return str_errorf(err, errlen, -EPROTO,
				       "%s in its name (only [a-z0-9_-])",
				       what);
		}
	}
	h->reads = reads;
	memcpy(h->name, buf + 16, n);
	h->name[n] = '\0';
	return (int)(16 + n);
}

int
exec_wire_parse_outputs(const uint8_t *buf, size_t len, uint32_t n,
			struct baro_filter_output2 *out, char *err,
			size_t errlen)
{
	if (n == 0 || n > EXEC_WIRE_BATCH_MAX)
		return str_errorf(err, errlen, -EINVAL,
			       "a batch of %u frames (1..%u)", n,
			       EXEC_WIRE_BATCH_MAX);
	if (len == 0)
		return 0;
	if (buf[0] == 'E')
		return parse_error(buf, len, err, errlen);
	if (buf[0] != 'O') {
		char what[16];
		describe_byte(what, sizeof(what), buf[0]);
		return str_errorf(err, errlen, -EPROTO,
			       "said %s where 'O' or 'E' was due", what);
	}
	if (len < EXEC_WIRE_HEADER_SIZE)
		return 0;
	uint32_t got = get_u32(buf + 1);
	if (got != n)
		return str_errorf(err, errlen, -EPROTO,
			       "answered %u outputs where %u were due", got,
			       n);
	size_t need = EXEC_WIRE_HEADER_SIZE + (size_t)n * EXEC_WIRE_OUTPUT_SIZE;
	if (len < need)
		return 0;
	for (uint32_t k = 0; k < n; k++)
		exec_wire_get_output(buf + EXEC_WIRE_HEADER_SIZE +
					     (size_t)k * EXEC_WIRE_OUTPUT_SIZE,
				     &out[k]);
	return (int)need;
}
