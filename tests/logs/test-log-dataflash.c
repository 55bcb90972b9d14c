/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The DataFlash reader, through log_reader_open_mem/_fd only:
 *  - hand-made logs written here from the format rules (FMT for FMT, a
 *    BARO FMT, records): every BARO layout, junk between records,
 *    truncation at every byte, bad FMTs, the CTUN.BarAlt fallback,
 *    references, events, FMTU/MULT scaling, pipes;
 *  - the bundled .bin logs against the independent numbers in
 *    shared/data/logs/README.md (LOGS_DIR; skipped when absent).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log-reader.h"
#include "sensor-rec.h"
#include "test-util.h"
#include "byte-buf.h"

/* ------------------------------------------------------------------ */
/* Writing logs */

struct dfb {
	uint8_t *buf;
	size_t n, cap;
};

struct def {
	uint8_t type;
	const char *name, *format, *cols;
};

/* A column's value for df_rec: numbers in the column's unit (the writer
 * applies the format's x100 / x1e7), or text. */
struct kv {
	const char *col;
	double v;
	const char *s;
};

static void
put(struct dfb *b, const void *p, size_t n)
{
	byte_buf_append(&b->buf, &b->n, &b->cap, p, n);
}

static void
put_le(struct dfb *b, uint64_t v, int size)
{
	for (int i = 0; i < size; i++) {
		uint8_t c = (uint8_t)(v >> (8 * i));
		put(b, &c, 1);
	}
}

static void
put_text(struct dfb *b, const char *s, size_t size)
{
	uint8_t tmp[64] = { 0 };
	size_t n = s ? strlen(s) : 0;
	memcpy(tmp, s ? s : "", n < size ? n : size);
	put(b, tmp, size);
}

/* Sizes as the fact sheet lists them. */
static int
char_size(char c)
{
	switch (c) {
	case 'b': case 'B': case 'M': return 1;
	case 'h': case 'H': case 'c': case 'C': case 'g': return 2;
	case 'i': case 'I': case 'f': case 'n': case 'e': case 'E':
	case 'L': return 4;
	case 'q': case 'Q': case 'd': return 8;
	case 'N': return 16;
	case 'Z': case 'a': return 64;
	default: return 0;
	}
}

static int
rec_len(const char *format)
{
	int n = 3;
	for (const char *p = format; *p; p++)
		n += char_size(*p);
	return n;
}

static void
hdr(struct dfb *b, uint8_t type)
{
	const uint8_t h[3] = { 0xA3, 0x95, type };
	put(b, h, 3);
}

static void
fmt_raw(struct dfb *b, uint8_t type, int length, const char *name,
	const char *format, const char *cols)
{
	hdr(b, 128);
	put_le(b, type, 1);
	put_le(b, (uint64_t)length, 1);
	put_text(b, name, 4);
	put_text(b, format, 16);
	put_text(b, cols, 64);
}

static void
fmt_fmt(struct dfb *b)
{
	fmt_raw(b, 128, 89, "FMT", "BBnNZ", "Type,Length,Name,Format,Columns");
}

static void
fmt_def(struct dfb *b, const struct def *d)
{
	fmt_raw(b, d->type, rec_len(d->format), d->name, d->format, d->cols);
}

static const struct kv *
find_kv(const struct kv *vals, const char *col, size_t len)
{
	for (; vals && vals->col; vals++)
		if (strlen(vals->col) == len && memcmp(vals->col, col, len) == 0)
			return vals;
	return NULL;
}

static void
df_rec(struct dfb *b, const struct def *d, const struct kv *vals)
{
	const char *c = d->cols;

	hdr(b, d->type);
	for (const char *f = d->format; *f; f++) {
		size_t cl = strcspn(c, ",");
		const struct kv *kv = find_kv(vals, c, cl);
		double v = kv ? kv->v : 0.0;
		c += cl + (c[cl] ? 1 : 0);
		switch (*f) {
		case 'b': case 'B': case 'M':
			put_le(b, (uint64_t)llround(v), 1); break;
		case 'h': case 'H':
			put_le(b, (uint64_t)llround(v), 2); break;
		case 'c': case 'C':
			put_le(b, (uint64_t)llround(v * 100), 2); break;
		case 'i': case 'I':
			put_le(b, (uint64_t)llround(v), 4); break;
		case 'e': case 'E':
			put_le(b, (uint64_t)llround(v * 100), 4); break;
		case 'L':
			put_le(b, (uint64_t)llround(v * 1e7), 4); break;
		case 'q': case 'Q':
			put_le(b, (uint64_t)llround(v), 8); break;
		case 'f': {
			float fl = (float)v;
			uint32_t u;
			memcpy(&u, &fl, 4);
			put_le(b, u, 4);
			break;
		}
		case 'd': {
			uint64_t u;
			memcpy(&u, &v, 8);
			put_le(b, u, 8);
			break;
		}
		default:
			put_text(b, kv ? kv->s : NULL, (size_t)char_size(*f));
			break;
		}
	}
}

/* A record's values by column: NUM(column, number), TXT(column, text). */
#define NUM(c, x) { .col = (c), .v = (x) }
#define TXT(c, x) { .col = (c), .s = (x) }
#define KV(...) ((const struct kv[]){ __VA_ARGS__, { .col = NULL } })

/* ------------------------------------------------------------------ */
/* Reading logs */

struct got {
	int rc;
	char err[LOG_ERR_LEN];
	struct log_info info;
	size_t n;
	struct log_record *rec;
	char chan[LOG_MAX_CHANNELS][40];
	unsigned nchan;
	char types[4096];	/* "NAME=count " for every type */
};

static void
type_cb(const char *name, uint64_t count, void *ud)
{
	struct got *g = ud;
	size_t len = strlen(g->types);
	snprintf(g->types + len, sizeof(g->types) - len, "%s=%llu ", name,
		 (unsigned long long)count);
}

static struct got *
read_all(struct log_reader *r, int open_rc)
{
	struct got *g = calloc(1, sizeof(*g));
	size_t cap = 0;

	assert_non_null(g);
	g->rc = open_rc;
	if (open_rc == 0) {
		struct log_record rec;
		while ((g->rc = log_reader_next(r, &rec)) > 0) {
			if (g->n == cap) {
				cap = cap ? cap * 2 : 256;
				g->rec = realloc(g->rec, cap * sizeof(*g->rec));
				assert_non_null(g->rec);
			}
			g->rec[g->n++] = rec;
		}
		for (unsigned c = 0; c < LOG_MAX_CHANNELS; c++) {
			const char *name = log_reader_channel_name(r, c);
			if (!name)
				break;
			snprintf(g->chan[c], sizeof(g->chan[c]), "%s", name);
			g->nchan = c + 1;
		}
		log_reader_list_types(r, type_cb, g);
	}
	snprintf(g->err, sizeof(g->err), "%s", r->err);
	g->info = r->info;
	log_reader_close(r);
	return g;
}

static struct got *
read_mem(const struct dfb *b, size_t len)
{
	struct log_reader r;
	int rc = log_reader_open_mem(&r, b->buf, len, "mem", "dataflash");
	return read_all(&r, rc);
}

static void
got_free(struct got *g)
{
	free(g->rec);
	free(g);
}

static int
chan(const struct got *g, const char *name)
{
	for (unsigned c = 0; c < g->nchan; c++)
		if (strcmp(g->chan[c], name) == 0)
			return (int)c;
	return -1;
}

static size_t
count(const struct got *g, enum log_record_kind kind, const char *channel)
{
	int c = channel ? chan(g, channel) : -1;
	size_t n = 0;

	if (channel && c < 0)
		return 0;
	for (size_t i = 0; i < g->n; i++)
		if (g->rec[i].kind == kind && (!channel || g->rec[i].channel == c))
			n++;
	return n;
}

/* The k-th record of kind on channel, or fail. */
static const struct log_record *
nth(const struct got *g, enum log_record_kind kind, const char *channel,
    size_t k)
{
	int c = chan(g, channel);

	for (size_t i = 0; c >= 0 && i < g->n; i++)
		if (g->rec[i].kind == kind && g->rec[i].channel == c && k-- == 0)
			return &g->rec[i];
	fail_msg("no record %zu of kind %d on %s", k, (int)kind, channel);
	return NULL;
}

static uint64_t
rec_time(const struct log_record *r)
{
	return log_record_time(r);
}

/* The sum of every type's count in list_types. */
static size_t
types_total(const struct got *g)
{
	size_t sum = 0;

	for (const char *p = g->types; (p = strchr(p, '=')) != NULL; p++)
		sum += strtoul(p + 1, NULL, 10);
	return sum;
}

static bool
has_type(const struct got *g, const char *entry)
{
	char want[64];
	snprintf(want, sizeof(want), " %s ", entry);
	char all[sizeof(g->types) + 2];
	snprintf(all, sizeof(all), " %s", g->types);
	return strstr(all, want) != NULL;
}

static const struct def d_baro_us = { 70, "BARO", "Qffcf",
				      "TimeUS,Alt,Press,Temp,CRt" };
static const struct def d_ev = { 13, "EV", "QB", "TimeUS,Id" };

/* FMT, BARO FMT, EV FMT, 3 BARO, EV, 2 BARO; offsets[i] = start of the
 * i-th record, offsets[n] = end. */
static struct dfb
small_log(size_t *offsets, size_t *n)
{
	struct dfb b = { 0 };
	size_t k = 0;

	offsets[k++] = b.n;
	fmt_fmt(&b);
	offsets[k++] = b.n;
	fmt_def(&b, &d_baro_us);
	offsets[k++] = b.n;
	fmt_def(&b, &d_ev);
	for (int i = 0; i < 6; i++) {
		offsets[k++] = b.n;
		if (i == 3)
			df_rec(&b, &d_ev, KV(NUM("TimeUS", 1350000),
					     NUM("Id", 10)));
		else
			df_rec(&b, &d_baro_us,
			       KV(NUM("TimeUS", 1000000 + 100000 * i),
				  NUM("Alt", i), NUM("Press", 100000 + i),
				  NUM("Temp", 21.5)));
	}
	offsets[k] = b.n;
	*n = k;
	return b;
}

/* ------------------------------------------------------------------ */
/* Hand-made logs */

static const struct layout {
	const char *format, *cols;
} layouts[] = {
	{ "Iffc", "TimeMS,Alt,Press,Temp" },			/* 3.1 */
	{ "Iffcf", "TimeMS,Alt,Press,Temp,CRt" },		/* 3.2 */
	{ "Qffcf", "TimeUS,Alt,Press,Temp,CRt" },		/* 3.3 */
	{ "QffcfIf", "TimeUS,Alt,Press,Temp,CRt,SMS,Offset" },	/* 3.4 */
	{ "QffcfIff", "TimeUS,Alt,Press,Temp,CRt,SMS,Offset,GndTemp" },
	{ "QBffcfIffB",
	  "TimeUS,I,Alt,Press,Temp,CRt,SMS,Offset,GndTemp,Health" },
	{ "QBfffcfIffB",
	  "TimeUS,I,Alt,AltAMSL,Press,Temp,CRt,SMS,Offset,GndTemp,Health" },
};

static void
test_layouts(void **state)
{
	(void)state;
	for (size_t l = 0; l < sizeof(layouts) / sizeof(layouts[0]); l++) {
		const struct layout *lay = &layouts[l];
		bool ms = lay->format[0] == 'I';
		bool has_i = strstr(lay->cols, ",I,") != NULL;
		bool health = strstr(lay->cols, "Health") != NULL;
		bool amsl = strstr(lay->cols, "AltAMSL") != NULL;
		/* Ids differ per layout: the reader must go by name. */
		struct def d[3] = {
			{ (uint8_t)(20 + 30 * l), "BARO", lay->format, lay->cols },
			{ (uint8_t)(21 + 30 * l), "BAR2", lay->format, lay->cols },
			{ (uint8_t)(22 + 30 * l), "BAR3", lay->format, lay->cols },
		};
		struct dfb b = { 0 };

		fmt_fmt(&b);
		for (int i = 0; i < (has_i ? 1 : 3); i++)
			fmt_def(&b, &d[i]);
		for (int j = 0; j < 3; j++)
			for (int i = 0; i < 3; i++) {
				double t = ms ? 1000 + 100 * j
					      : 1000000 + 100000 * j + i;
				df_rec(&b, &d[has_i ? 0 : i],
				       KV(NUM(ms ? "TimeMS" : "TimeUS", t),
					  NUM("I", i), NUM("Alt", 1.5 + j),
					  NUM("AltAMSL", 101.5 + j),
					  NUM("Press", 100000 + 10 * i + j),
					  NUM("Temp", 20.25 + i),
					  NUM("Health", i == 1 ? 0 : 1)));
			}
		struct got *g = read_mem(&b, b.n);
		assert_int_equal(g->rc, 0);
		assert_int_equal(g->info.records_bad, 0);
		assert_int_equal(g->info.bytes_skipped, 0);
		assert_string_equal(g->info.baro_stream, "BARO");
		for (int i = 0; i < 3; i++) {
			char name[16], ref[20];
			snprintf(name, sizeof(name), "BARO[%d]", i);
			snprintf(ref, sizeof(ref), "BARO[%d].Alt", i);
			assert_int_equal(count(g, LOG_REC_BARO, name), 3);
			assert_int_equal(count(g, LOG_REC_REFERENCE, ref), 3);
			for (int j = 0; j < 3; j++) {
				const struct baro_sample *s =
					&nth(g, LOG_REC_BARO, name, (size_t)j)->baro;
				uint64_t t = ms ? (uint64_t)(1000 + 100 * j) * 1000
						: (uint64_t)(1000000 + 100000 * j + i);
				assert_int_equal(s->time_us, t);
				assert_int_equal(s->instance, i);
				assert_float_exact(s->pressure_pa,
						   (float)(100000 + 10 * i + j));
				assert_close_abs(s->temperature_c, 20.25 + i,
						 1e-5);
				assert_true(baro_sample_has(
					s, BARO_SAMPLE_HAS_TEMPERATURE));
				assert_int_equal(
					baro_sample_has(s, BARO_SAMPLE_HEALTHY),
					!(health && i == 1));
				assert_int_equal(baro_sample_has(
					s, BARO_SAMPLE_HAS_ALTITUDE), amsl);
				if (amsl)
					assert_float_exact(s->alt_m,
							   (float)(101.5 + j));
				const struct log_reference *r =
					&nth(g, LOG_REC_REFERENCE, ref,
					     (size_t)j)->ref;
				assert_int_equal(r->source, LOG_REF_LOG_BARO_ALT);
				assert_int_equal(r->datum, LOG_DATUM_HOME);
				assert_int_equal(r->instance, i);
				assert_int_equal(r->time_us, t);
				assert_close_abs(r->alt_m, 1.5 + j, 1e-6);
			}
		}
		got_free(g);
		free(b.buf);
	}
}

static void
test_junk_resync(void **state)
{
	(void)state;
	static const uint8_t junk[] = { 0x00, 0xA3, 0x11, 0xA3, 0x95, 0xEE,
					0xA3 };
	static const uint8_t tail[] = { 0xFF, 0xFF, 0x95, 0x00 };
	struct dfb b = { 0 };

	put(&b, junk, 3);	/* before anything */
	fmt_fmt(&b);
	fmt_def(&b, &d_baro_us);
	size_t at = 0;
	for (int i = 0; i < 4; i++) {
		if (i == 2) {
			at = b.n;
			put(&b, junk, sizeof(junk));
		}
		df_rec(&b, &d_baro_us, KV(NUM("TimeUS", 1000 * (i + 1)),
					  NUM("Press", 90000 + i)));
	}
	put(&b, tail, sizeof(tail));

	struct got *g = read_mem(&b, b.n);
	assert_int_equal(g->rc, 0);
	assert_int_equal(count(g, LOG_REC_BARO, "BARO[0]"), 4);
	for (int i = 0; i < 4; i++)
		assert_float_exact(nth(g, LOG_REC_BARO, "BARO[0]",
				       (size_t)i)->baro.pressure_pa,
				   (float)(90000 + i));
	assert_int_equal(g->info.bytes_skipped, 3 + sizeof(junk) + sizeof(tail));
	assert_int_equal(g->info.first_bad_offset, 0);
	assert_int_equal(g->info.records_bad, 0);
	got_free(g);

	/* Without the leading junk the first bad byte is the inner one. */
	struct got *g2 = read_mem(&(struct dfb){ b.buf + 3, b.n - 3, 0 },
				  b.n - 3);
	assert_int_equal(g2->rc, 0);
	assert_int_equal(g2->info.first_bad_offset, at - 3);
	assert_int_equal(g2->info.bytes_skipped, sizeof(junk) + sizeof(tail));
	got_free(g2);
	free(b.buf);
}

static void
test_flipped_header(void **state)
{
	(void)state;
	size_t off[16], n;
	struct dfb b = small_log(off, &n);

	/* Record 4 (the second BARO) loses its first header byte. */
	b.buf[off[4]] ^= 0x40;
	struct got *g = read_mem(&b, b.n);
	assert_int_equal(g->rc, 0);
	assert_int_equal(count(g, LOG_REC_BARO, NULL), 4);
	assert_int_equal(g->info.bytes_skipped, off[5] - off[4]);
	assert_int_equal(g->info.first_bad_offset, off[4]);
	assert_int_equal(count(g, LOG_REC_EVENT, "EV"), 1);
	got_free(g);
	free(b.buf);
}

static void
test_truncate_every_byte(void **state)
{
	(void)state;
	size_t off[16], n;
	struct dfb b = small_log(off, &n);

	for (size_t cut = 0; cut <= b.n; cut++) {
		size_t whole = 0, bars = 0, start = 0;
		bool boundary = false;
		for (size_t k = 0; k < n; k++) {
			if (off[k + 1] <= cut) {
				whole++;
				if (k >= 3 && k != 6)
					bars++;
			} else if (off[k] < cut) {
				start = off[k];
			}
			if (off[k] == cut)
				boundary = true;
		}
		boundary = boundary || cut == b.n;
		struct got *g = read_mem(&b, cut);
		assert_int_equal(count(g, LOG_REC_BARO, NULL), bars);
		/* Every whole record is counted by type, the cut one not. */
		assert_int_equal(types_total(g), whole);
		if (boundary) {
			assert_int_equal(g->rc, 0);
		} else {
			char want[32];
			snprintf(want, sizeof(want), "offset %zu:", start);
			assert_int_equal(g->rc, -ENODATA);
			if (!strstr(g->err, want))
				fail_msg("cut %zu: '%s' lacks '%s'", cut, g->err,
					 want);
		}
		assert_int_equal(g->info.bytes_skipped, 0);
		got_free(g);
	}
	free(b.buf);
}

static const struct def d_ctun313 = {
	4, "CTUN", "Ihhhffecchh",
	"TimeMS,ThrIn,AngBst,ThrOut,DAlt,Alt,BarAlt,DSAlt,SAlt,DCRt,CRt" };
static const struct def d_gps313 = {
	130, "GPS", "BIHBcLLeeEefI",
	"Status,TimeMS,Week,NSats,HDop,Lat,Lng,RelAlt,Alt,Spd,GCrs,VZ,T" };
static const struct def d_baro313 = { 136, "BARO", "Iffc",
				      "TimeMS,Alt,Press,Temp" };
static const struct def d_ev313 = { 13, "EV", "B", "Id" };

static void
test_ctun_fallback(void **state)
{
	(void)state;
	struct dfb b = { 0 };

	fmt_fmt(&b);
	fmt_def(&b, &d_gps313);
	fmt_def(&b, &d_baro313);	/* defined, never written */
	fmt_def(&b, &d_ctun313);
	fmt_def(&b, &d_ev313);
	/* An untimed event before any timed record. */
	df_rec(&b, &d_ev313, KV(NUM("Id", 10)));
	for (int i = 0; i < 12; i++) {
		df_rec(&b, &d_ctun313, KV(NUM("TimeMS", 5000 + 100 * i),
					  NUM("BarAlt", 0.25 * i - 0.5)));
		if (i % 2 == 0)
			df_rec(&b, &d_gps313,
			       KV(NUM("Status", 3), NUM("TimeMS", 9e6),
				  NUM("T", 5000 + 100 * i + 10),
				  NUM("Alt", 200 + i)));
		if (i == 3)
			df_rec(&b, &d_ev313, KV(NUM("Id", 28)));
	}
	struct got *g = read_mem(&b, b.n);
	assert_int_equal(g->rc, 0);
	assert_string_equal(g->info.baro_stream, "CTUN.BarAlt");
	assert_int_equal(count(g, LOG_REC_BARO, NULL), 12);
	assert_int_equal(count(g, LOG_REC_BARO, "CTUN.BarAlt"), 12);
	assert_int_equal(count(g, LOG_REC_REFERENCE, "CTUN.BarAlt"), 0);
	assert_int_equal(count(g, LOG_REC_REFERENCE, "GPS[0]"), 6);
	/* Derived at home's altitude: the first fix (200 m) less the CTUN
	 * altitude then (-0.5 m); the altitude kept as recorded. */
	assert_true(g->info.derived_ground_known);
	assert_close_abs(g->info.derived_ground_m, 200.5, 1e-9);
	for (int i = 0; i < 12; i++) {
		const struct baro_sample *s =
			&nth(g, LOG_REC_BARO, "CTUN.BarAlt", (size_t)i)->baro;
		assert_int_equal(s->time_us, (uint64_t)(5000 + 100 * i) * 1000);
		assert_int_equal(s->flags, BARO_SAMPLE_HEALTHY |
					   LOG_SAMPLE_PRESSURE_FROM_ALT |
					   LOG_SAMPLE_ALT_HOME);
		assert_float_exact(s->alt_m, (float)(0.25 * i - 0.5));
		assert_float_exact(s->pressure_pa,
				   (float)log_pressure_from_alt(
					   200.5 + (double)(float)(0.25 * i - 0.5)));
	}
	/* File order survives the holding back: every record's time is
	 * at or after the one before, and the first event took the first
	 * timed record's time. */
	for (size_t i = 1; i < g->n; i++)
		assert_true(rec_time(&g->rec[i]) >= rec_time(&g->rec[i - 1]));
	assert_int_equal(g->rec[0].kind, LOG_REC_EVENT);
	assert_int_equal(g->rec[0].event.kind, LOG_EVENT_ARMED);
	assert_int_equal(g->rec[0].event.time_us, 5000000);
	/* GPS time is T (boot ms), not TimeMS (time of week). */
	assert_int_equal(nth(g, LOG_REC_REFERENCE, "GPS[0]", 1)->ref.time_us,
			 5210000);
	const struct log_record *to = nth(g, LOG_REC_EVENT, "EV", 1);
	assert_int_equal(to->event.kind, LOG_EVENT_TAKEOFF);
	assert_int_equal(to->event.time_us, 5300000);
	assert_true(has_type(g, "BARO=0"));
	assert_true(has_type(g, "CTUN=12"));
	got_free(g);

	/* BARO starting after the 8th CTUN is too late: CTUN stays the
	 * baro, and the BARO samples come out beside it. */
	df_rec(&b, &d_baro313, KV(NUM("TimeMS", 6200), NUM("Press", 99000)));
	df_rec(&b, &d_ctun313, KV(NUM("TimeMS", 6300), NUM("BarAlt", 1)));
	g = read_mem(&b, b.n);
	assert_int_equal(g->rc, 0);
	assert_string_equal(g->info.baro_stream, "CTUN.BarAlt");
	assert_int_equal(count(g, LOG_REC_BARO, "CTUN.BarAlt"), 13);
	assert_int_equal(count(g, LOG_REC_BARO, "BARO[0]"), 1);
	got_free(g);

	/* Fewer than 8 CTUN and the end of the file: still the baro. */
	size_t five = 0;
	{
		struct dfb c = { 0 };
		fmt_fmt(&c);
		fmt_def(&c, &d_ctun313);
		for (int i = 0; i < 5; i++)
			df_rec(&c, &d_ctun313, KV(NUM("TimeMS", 100 * i),
						  NUM("BarAlt", i)));
		five = c.n;
		/* ... and cut inside a sixth record: samples, then the
		 * error. */
		df_rec(&c, &d_ctun313, KV(NUM("TimeMS", 600)));
		struct got *g5 = read_mem(&c, five);
		assert_int_equal(g5->rc, 0);
		assert_int_equal(count(g5, LOG_REC_BARO, "CTUN.BarAlt"), 5);
		got_free(g5);
		g5 = read_mem(&c, five + 7);
		assert_int_equal(g5->rc, -ENODATA);
		assert_int_equal(count(g5, LOG_REC_BARO, "CTUN.BarAlt"), 5);
		assert_non_null(strstr(g5->err, "CTUN record cut off"));
		got_free(g5);
		free(c.buf);
	}
	free(b.buf);
}

static void
test_ctun_reference(void **state)
{
	(void)state;
	const struct def ctun = { 4, "CTUN", "Qffffffeccfhh",
				  "TimeUS,ThI,ABst,ThO,ThH,DAlt,Alt,BAlt,DSAlt,SAlt,TAlt,DCRt,CRt" };
	struct dfb b = { 0 };

	fmt_fmt(&b);
	fmt_def(&b, &d_baro_us);
	fmt_def(&b, &ctun);
	for (int i = 0; i < 20; i++) {
		df_rec(&b, &ctun, KV(NUM("TimeUS", 1000 * i), NUM("BAlt", i)));
		if (i == 3)
			df_rec(&b, &d_baro_us, KV(NUM("TimeUS", 3500),
						  NUM("Press", 95000)));
	}
	struct got *g = read_mem(&b, b.n);
	assert_int_equal(g->rc, 0);
	assert_string_equal(g->info.baro_stream, "BARO");
	assert_int_equal(count(g, LOG_REC_BARO, NULL), 1);
	assert_int_equal(count(g, LOG_REC_REFERENCE, "CTUN.BAlt"), 20);
	for (int i = 0; i < 20; i++) {
		const struct log_reference *r =
			&nth(g, LOG_REC_REFERENCE, "CTUN.BAlt", (size_t)i)->ref;
		assert_int_equal(r->source, LOG_REF_LOG_BARO_ALT);
		assert_int_equal(r->datum, LOG_DATUM_HOME);
		assert_close_abs(r->alt_m, i, 1e-9);
	}
	/* The four CTUN held before the BARO record still come first. */
	assert_int_equal(g->rec[4].kind, LOG_REC_BARO);
	for (size_t i = 1; i < g->n; i++)
		assert_true(rec_time(&g->rec[i]) >= rec_time(&g->rec[i - 1]));
	got_free(g);
	free(b.buf);
}

static void
test_bad_fmt(void **state)
{
	(void)state;
	/* Length as the format says (Qffcf: 25), plus delta. */
	static const struct {
		int delta;
		const char *name, *format;
	} bad[] = {
		{ 0, "BARO", "Qfxcf" },		/* unknown format char */
		{ -1, "BARO", "Qfxcf" },	/* ... whatever size it had */
		{ 1, "BARO", "Qfxcf" },
		{ 0, "BA O", "Qffcf" },		/* not a name */
		{ 0, "", "Qffcf" },		/* no name */
		{ -256, "BARO", "ZZZZ" },	/* 259 bytes: Length wraps to 3 */
		{ -1, "BARO", "" },		/* shorter than a header */
	};

	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		struct dfb b = { 0 };
		int len = rec_len(bad[k].format) + bad[k].delta;
		fmt_fmt(&b);
		size_t fmt_at = b.n;
		fmt_raw(&b, 70, len, bad[k].name, bad[k].format,
			"TimeUS,Alt,Press,Temp,CRt");
		/* Records written as the FMT claims: junk to the reader. */
		for (int i = 0; i < 2; i++) {
			hdr(&b, 70);
			for (int j = 3; j < len; j++)
				put_le(&b, 0x11, 1);
		}
		size_t junk = b.n - fmt_at - 89;
		/* FMT must not be redefined either. */
		fmt_raw(&b, 128, 90, "FMT", "BBnNZB", "Type,Length,Name,Format,Columns,X");
		/* A good definition afterwards still works. */
		fmt_def(&b, &d_ev);
		df_rec(&b, &d_ev, KV(NUM("TimeUS", 7), NUM("Id", 11)));

		struct got *g = read_mem(&b, b.n);
		assert_int_equal(g->rc, 0);
		assert_int_equal(g->info.records_bad, 2);
		assert_int_equal(g->info.first_bad_offset, fmt_at);
		assert_int_equal(g->info.bytes_skipped, junk);
		assert_int_equal(count(g, LOG_REC_BARO, NULL), 0);
		assert_int_equal(count(g, LOG_REC_EVENT, "EV"), 1);
		assert_int_equal(nth(g, LOG_REC_EVENT, "EV", 0)->event.kind,
				 LOG_EVENT_DISARMED);
		assert_false(has_type(g, "BARO=0"));
		got_free(g);
		free(b.buf);
	}

	/* A Length longer than the format (3.4.4's BAR3 quirk) loses
	 * nothing: a warning, records framed by the Length. */
	struct dfb w = { 0 };
	fmt_fmt(&w);
	fmt_raw(&w, 70, rec_len("Qffcf") + 4, "BARO", "Qffcf",
		"TimeUS,Alt,Press,Temp,CRt");
	for (int i = 0; i < 3; i++) {
		hdr(&w, 70);
		put_le(&w, 1000000u * (unsigned)(i + 1), 8);
		float alt = 1.5f, press = 100000.0f + (float)i;
		uint32_t u;
		memcpy(&u, &alt, 4);
		put_le(&w, u, 4);
		memcpy(&u, &press, 4);
		put_le(&w, u, 4);
		put_le(&w, 2000, 2);
		put_le(&w, 0, 4);
		put_le(&w, 0xdeadbeef, 4);	/* the 4 bytes past the format */
	}
	struct got *wg = read_mem(&w, w.n);
	assert_int_equal(wg->rc, 0);
	assert_int_equal(wg->info.records_bad, 0);
	assert_int_equal(wg->info.bytes_skipped, 0);
	assert_int_equal(wg->info.fmt_warnings, 1);
	assert_non_null(strstr(wg->info.fmt_warning, "FMT of BARO (type 70) "
						     "declares 29 bytes, its "
						     "format Qffcf is 25"));
	assert_int_equal(count(wg, LOG_REC_BARO, NULL), 3);
	assert_close_abs(nth(wg, LOG_REC_BARO, "BARO[0]", 2)->baro.pressure_pa,
			 100002.0, 1e-3);
	got_free(wg);
	free(w.buf);

	/* Shorter than the format (a Copter log's EKF5: Length 28,
	 * "QBhhhcccCCfff" 40 bytes): a quirk too.  Its records are framed
	 * by the Length and skipped whole, the type counted and undecodable;
	 * the BARO records around them are read, nothing is damage. */
	struct dfb e = { 0 };
	fmt_fmt(&e);
	fmt_raw(&e, 171, 28, "EKF5", "QBhhhcccCCfff",
		"TimeUS,C,NI,FIX,FIY,AFI,HAGL,offset,RI,rng,Herr,eAng,eVel");
	fmt_raw(&e, 70, rec_len("Qffcf"), "BARO", "Qffcf",
		"TimeUS,Alt,Press,Temp,CRt");
	for (int i = 0; i < 3; i++) {
		/* 28 bytes of EKF5 as the writer framed them: A3 95 in the
		 * payload must not start a record. */
		hdr(&e, 171);
		for (int j = 3; j < 28; j++)
			put_le(&e, j % 2 ? 0xA3 : 0x95, 1);
		hdr(&e, 70);
		put_le(&e, 1000000u * (unsigned)(i + 1), 8);
		float alt = 2.0f, press = 99000.0f + (float)i;
		uint32_t u;
		memcpy(&u, &alt, 4);
		put_le(&e, u, 4);
		memcpy(&u, &press, 4);
		put_le(&e, u, 4);
		put_le(&e, 2000, 2);
		put_le(&e, 0, 4);
	}
	struct got *eg = read_mem(&e, e.n);
	assert_int_equal(eg->rc, 0);
	assert_int_equal(eg->info.records_bad, 0);
	assert_int_equal(eg->info.bytes_skipped, 0);
	assert_int_equal(eg->info.fmt_warnings, 1);
	assert_int_equal(eg->info.fmt_undecodable, 1);
	assert_non_null(strstr(eg->info.fmt_warning,
			       "FMT of EKF5 (type 171) declares 28 bytes, its "
			       "format QBhhhcccCCfff is 40: its records are "
			       "not decoded"));
	assert_true(has_type(eg, "EKF5=3"));
	assert_int_equal(count(eg, LOG_REC_BARO, NULL), 3);
	assert_close_abs(nth(eg, LOG_REC_BARO, "BARO[0]", 2)->baro.pressure_pa,
			 99002.0, 1e-3);
	got_free(eg);
	free(e.buf);

	/* A Length that cannot frame a record is still bad. */
	struct dfb h = { 0 };
	fmt_fmt(&h);
	fmt_raw(&h, 70, 2, "BARO", "Qffcf", "TimeUS,Alt,Press,Temp,CRt");
	struct got *hg = read_mem(&h, h.n);
	assert_int_equal(hg->info.records_bad, 1);
	assert_int_equal(hg->info.fmt_warnings, 0);
	got_free(hg);
	free(h.buf);

	/* An empty format is a valid 3-byte message (STRT in 2014). */
	struct dfb b = { 0 };
	fmt_fmt(&b);
	fmt_raw(&b, 10, 3, "STRT", "", "");
	hdr(&b, 10);
	hdr(&b, 10);
	struct got *g = read_mem(&b, b.n);
	assert_int_equal(g->rc, 0);
	assert_int_equal(g->info.records_bad, 0);
	assert_true(has_type(g, "STRT=2"));
	got_free(g);
	free(b.buf);
}

static void
test_references(void **state)
{
	(void)state;
	const struct def gps = { 94, "GPS", "QBBIHBcLLeffffB",
				 "TimeUS,I,Status,GMS,GWk,NSats,HDop,Lat,Lng,Alt,Spd,GCrs,VZ,Yaw,U" };
	const struct def xkf1 = { 44, "XKF1", "QBccCfffffffccce",
				  "TimeUS,C,Roll,Pitch,Yaw,VN,VE,VD,dPD,PN,PE,PD,GX,GY,GZ,OH" };
	const struct def nkf1 = { 200, "NKF1", "QccCfffffffccc",
				  "TimeUS,Roll,Pitch,Yaw,VN,VE,VD,dPD,PN,PE,PD,GX,GY,GZ" };
	const struct def rfnd4 = { 116, "RFND", "QBCBBb",
				   "TimeUS,Instance,Dist,Stat,Orient,Quality" };
	const struct def rfnd3 = { 198, "RFND", "QCC", "TimeUS,Dist1,Dist2" };
	const struct def pos = { 74, "POS", "QLLfff",
				 "TimeUS,Lat,Lng,Alt,RelHomeAlt,RelOriginAlt" };
	const struct def sim = { 165, "SIM", "QccCfLLffff",
				 "TimeUS,Roll,Pitch,Yaw,Alt,Lat,Lng,Q1,Q2,Q3,"
				 "Q4" };
	struct dfb b = { 0 };

	fmt_fmt(&b);
	fmt_def(&b, &gps);
	fmt_def(&b, &xkf1);
	fmt_def(&b, &nkf1);
	fmt_def(&b, &rfnd4);
	fmt_def(&b, &pos);
	fmt_def(&b, &sim);
	/* GPS: no fix, 2D, 3D, RTK; instance 1 3D. */
	df_rec(&b, &gps, KV(NUM("TimeUS", 100),
			    NUM("Status", 1), NUM("Alt", 10)));
	df_rec(&b, &gps, KV(NUM("TimeUS", 200),
			    NUM("Status", 2), NUM("Alt", 11)));
	df_rec(&b, &gps, KV(NUM("TimeUS", 300),
			    NUM("Status", 3), NUM("Alt", 47.77)));
	df_rec(&b, &gps, KV(NUM("TimeUS", 400),
			    NUM("Status", 6), NUM("Alt", -2.5)));
	df_rec(&b, &gps, KV(NUM("TimeUS", 500), NUM("I", 1), NUM("Status", 3),
			    NUM("Alt", 50)));
	df_rec(&b, &xkf1, KV(NUM("TimeUS", 600), NUM("C", 0), NUM("PD", 0.25)));
	df_rec(&b, &xkf1, KV(NUM("TimeUS", 600), NUM("C", 1), NUM("PD", 9)));
	df_rec(&b, &nkf1, KV(NUM("TimeUS", 700), NUM("PD", -3.5)));
	df_rec(&b, &rfnd4, KV(NUM("TimeUS", 800), NUM("Dist", 1.25),
			      NUM("Stat", 4), NUM("Orient", 25)));
	df_rec(&b, &rfnd4, KV(NUM("TimeUS", 900), NUM("Dist", 2),
			      NUM("Stat", 1), NUM("Orient", 25)));
	df_rec(&b, &rfnd4, KV(NUM("TimeUS", 1000), NUM("Dist", 3),
			      NUM("Stat", 4), NUM("Orient", 0)));
	df_rec(&b, &pos, KV(NUM("TimeUS", 1100), NUM("Alt", 49)));
	df_rec(&b, &sim, KV(NUM("TimeUS", 1150), NUM("Alt", 584.25)));
	/* The 3.4 layout under another id. */
	fmt_def(&b, &rfnd3);
	df_rec(&b, &rfnd3, KV(NUM("TimeUS", 1200), NUM("Dist1", 0.75),
			      NUM("Dist2", 8)));

	struct got *g = read_mem(&b, b.n);
	assert_int_equal(g->rc, 0);
	assert_int_equal(count(g, LOG_REC_REFERENCE, "GPS[0]"), 2);
	const struct log_reference *r =
		&nth(g, LOG_REC_REFERENCE, "GPS[0]", 0)->ref;
	assert_int_equal(r->source, LOG_REF_GPS);
	assert_int_equal(r->datum, LOG_DATUM_AMSL);
	assert_int_equal(r->time_us, 300);
	assert_close_abs(r->alt_m, 47.77, 1e-9);
	assert_close_abs(nth(g, LOG_REC_REFERENCE, "GPS[0]", 1)->ref.alt_m,
			 -2.5, 1e-9);
	r = &nth(g, LOG_REC_REFERENCE, "GPS[1]", 0)->ref;
	assert_int_equal(r->instance, 1);
	assert_close_abs(r->alt_m, 50, 1e-9);

	assert_int_equal(count(g, LOG_REC_REFERENCE, "XKF1.PD"), 1);
	r = &nth(g, LOG_REC_REFERENCE, "XKF1.PD", 0)->ref;
	assert_int_equal(r->source, LOG_REF_EKF);
	assert_int_equal(r->datum, LOG_DATUM_HOME);
	assert_close_abs(r->alt_m, -0.25, 1e-7);
	assert_close_abs(nth(g, LOG_REC_REFERENCE, "NKF1.PD", 0)->ref.alt_m,
			 3.5, 1e-7);

	assert_int_equal(count(g, LOG_REC_REFERENCE, "RFND[0]"), 2);
	r = &nth(g, LOG_REC_REFERENCE, "RFND[0]", 0)->ref;
	assert_int_equal(r->source, LOG_REF_RANGEFINDER);
	assert_int_equal(r->datum, LOG_DATUM_GROUND);
	assert_int_equal(r->time_us, 800);
	assert_close_abs(r->alt_m, 1.25, 1e-9);
	r = &nth(g, LOG_REC_REFERENCE, "RFND[0]", 1)->ref;
	assert_int_equal(r->time_us, 1200);
	assert_close_abs(r->alt_m, 0.75, 1e-9);
	/* POS is the EKF again in AMSL: not a second EKF channel. */
	assert_int_equal(chan(g, "POS"), -1);
	/* SITL's SIM: the simulator's truth, AMSL. */
	assert_int_equal(count(g, LOG_REC_REFERENCE, "SIM"), 1);
	r = &nth(g, LOG_REC_REFERENCE, "SIM", 0)->ref;
	assert_int_equal(r->source, LOG_REF_TRUTH);
	assert_int_equal(r->datum, LOG_DATUM_AMSL);
	assert_int_equal(r->time_us, 1150);
	assert_close_abs(r->alt_m, 584.25, 1e-9);
	assert_int_equal(count(g, LOG_REC_REFERENCE, NULL), 8);
	/* Every GPS record is a sample, whatever its fix; every reading
	 * facing down is a range sample (Good: its Quality, logged 0
	 * here; not Good: 0; the 3.4 layout has neither column: the
	 * first rangefinder, quality unknown). */
	assert_int_equal(count(g, LOG_REC_GPS, "GPS[0]"), 4);
	assert_int_equal(count(g, LOG_REC_GPS, "GPS[1]"), 1);
	assert_int_equal(nth(g, LOG_REC_GPS, "GPS[0]", 0)->gps.fix_type, 1);
	assert_int_equal(count(g, LOG_REC_RANGE, "RFND[0]"), 3);
	static const int8_t quality[] = { 0, 0, -1 };
	static const double dist[] = { 1.25, 2, 0.75 };
	for (size_t i = 0; i < 3; i++) {
		const struct log_range *rg =
			&nth(g, LOG_REC_RANGE, "RFND[0]", i)->range;
		assert_int_equal(rg->quality, quality[i]);
		assert_close_abs(rg->distance_m, dist[i], 1e-9);
	}
	got_free(g);
	free(b.buf);
}

static void
test_events(void **state)
{
	(void)state;
	const struct def err = { 19, "ERR", "QBB", "TimeUS,Subsys,ECode" };
	static const int ids[] = { 10, 15, 28, 17, 18, 60, 62, 11 };
	static const enum log_event_kind kinds[] = {
		LOG_EVENT_ARMED, LOG_EVENT_TAKEOFF, LOG_EVENT_LANDED,
		LOG_EVENT_EKF_ALT_RESET, LOG_EVENT_DISARMED };
	struct dfb b = { 0 };

	fmt_fmt(&b);
	fmt_def(&b, &d_ev);
	fmt_def(&b, &err);
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		df_rec(&b, &d_ev, KV(NUM("TimeUS", 1000 * (i + 1)),
				     NUM("Id", ids[i])));
	df_rec(&b, &err, KV(NUM("TimeUS", 9000), NUM("Subsys", 18),
			    NUM("ECode", 4)));
	df_rec(&b, &err, KV(NUM("TimeUS", 9500), NUM("Subsys", 3),
			    NUM("ECode", 4)));
	df_rec(&b, &err, KV(NUM("TimeUS", 10000), NUM("Subsys", 18),
			    NUM("ECode", 0)));
	struct got *g = read_mem(&b, b.n);
	assert_int_equal(g->rc, 0);
	assert_int_equal(count(g, LOG_REC_EVENT, "EV"), 5);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(nth(g, LOG_REC_EVENT, "EV", i)->event.kind,
				 kinds[i]);
	assert_int_equal(nth(g, LOG_REC_EVENT, "EV", 1)->event.time_us, 3000);
	assert_int_equal(count(g, LOG_REC_EVENT, "ERR"), 2);
	const struct log_event *e = &nth(g, LOG_REC_EVENT, "ERR", 0)->event;
	assert_int_equal(e->kind, LOG_EVENT_BARO_UNHEALTHY);
	assert_int_equal(e->time_us, 9000);
	assert_true(e->value == 4.0);
	e = &nth(g, LOG_REC_EVENT, "ERR", 1)->event;
	assert_int_equal(e->kind, LOG_EVENT_BARO_HEALTHY);
	assert_int_equal(e->time_us, 10000);
	got_free(g);
	free(b.buf);
}

static void
fmtu(struct dfb *b, const struct def *fm, uint8_t type, const char *mults)
{
	df_rec(b, fm, KV(NUM("TimeUS", 1), NUM("FmtType", type),
			 TXT("UnitIds", ""), TXT("MultIds", mults)));
}

static void
test_fmtu_scaling(void **state)
{
	(void)state;
	const struct def fm = { 214, "FMTU", "QBNN",
				"TimeUS,FmtType,UnitIds,MultIds" };
	const struct def mult = { 215, "MULT", "Qbd", "TimeUS,Id,Mult" };
	const struct def baro = { 64, "BARO", "QBfffcfIffB",
				  "TimeUS,I,Alt,AltAMSL,Press,Temp,CRt,SMS,Offset,GndTemp,Health" };
	/* A made-up BARO in hPa with a multiplier the log defines. */
	const struct def bar2 = { 65, "BAR2", "Qfc", "TimeUS,Press,Temp" };
	/* Plain integers with a multiplier: cm. */
	const struct def gps = { 66, "GPS", "QBi", "TimeUS,Status,Alt" };
	const struct def ctun = { 67, "CTUN", "Qe", "TimeUS,BAlt" };
	struct dfb b = { 0 };

	fmt_fmt(&b);
	fmt_def(&b, &fm);
	fmt_def(&b, &mult);
	fmt_def(&b, &baro);
	fmt_def(&b, &bar2);
	fmt_def(&b, &gps);
	fmt_def(&b, &ctun);
	/* 0.01 as a float, as 4.x logs store it. */
	df_rec(&b, &mult, KV(NUM("TimeUS", 1), NUM("Id", 'B'),
			     NUM("Mult", (double)0.01f)));
	df_rec(&b, &mult, KV(NUM("TimeUS", 1),
			     NUM("Id", 'X'), NUM("Mult", 100)));
	fmtu(&b, &fm, 64, "F-000B0C?0-");
	fmtu(&b, &fm, 65, "FXB");
	fmtu(&b, &fm, 66, "F-B");
	fmtu(&b, &fm, 67, "FB");
	df_rec(&b, &baro, KV(NUM("TimeUS", 10), NUM("Alt", -0.33),
			     NUM("AltAMSL", 49.06), NUM("Press", 100398.92),
			     NUM("Temp", 36.07), NUM("Health", 1)));
	df_rec(&b, &bar2, KV(NUM("TimeUS", 20), NUM("Press", 1002.5),
			     NUM("Temp", 25.8)));
	df_rec(&b, &gps, KV(NUM("TimeUS", 30), NUM("Status", 3),
			    NUM("Alt", 4777)));
	df_rec(&b, &ctun, KV(NUM("TimeUS", 40), NUM("BAlt", -0.33)));

	struct got *g = read_mem(&b, b.n);
	assert_int_equal(g->rc, 0);
	const struct baro_sample *s = &nth(g, LOG_REC_BARO, "BARO[0]", 0)->baro;
	assert_close_abs(s->temperature_c, 36.07, 1e-5);
	assert_float_exact(s->pressure_pa, 100398.92f);
	assert_float_exact(s->alt_m, 49.06f);
	s = &nth(g, LOG_REC_BARO, "BARO[1]", 0)->baro;
	assert_close_abs(s->pressure_pa, 100250.0, 0.01);
	assert_close_abs(s->temperature_c, 25.8, 1e-5);
	assert_close_abs(nth(g, LOG_REC_REFERENCE, "GPS[0]", 0)->ref.alt_m,
			 47.77, 1e-12);
	assert_close_abs(nth(g, LOG_REC_REFERENCE, "CTUN.BAlt", 0)->ref.alt_m,
			 -0.33, 1e-12);
	assert_close_abs(nth(g, LOG_REC_REFERENCE, "BARO[0].Alt", 0)->ref.alt_m,
			 -0.33, 1e-6);
	got_free(g);
	free(b.buf);
}

static void
test_info_and_types(void **state)
{
	(void)state;
	const struct def msg = { 133, "MSG", "QZ", "TimeUS,Message" };
	const struct def bar2 = { 165, "BAR2", "QffcfIf",
				  "TimeUS,Alt,Press,Temp,CRt,SMS,Offset" };
	struct dfb b = { 0 };

	fmt_fmt(&b);
	fmt_def(&b, &msg);
	fmt_def(&b, &d_baro_us);
	fmt_def(&b, &bar2);
	df_rec(&b, &msg, KV(NUM("TimeUS", 1), TXT("Message", "New mission")));
	df_rec(&b, &msg, KV(NUM("TimeUS", 2),
			    TXT("Message", "APM:Copter V3.4.4-rc1 (65ffe9d7)")));
	df_rec(&b, &msg, KV(NUM("TimeUS", 3),
			    TXT("Message", "PX4: de6b667d NuttX: 8c965992")));
	df_rec(&b, &msg, KV(NUM("TimeUS", 4),
			    TXT("Message", "PX4v2 00420035 33355109 33373538")));
	df_rec(&b, &msg, KV(NUM("TimeUS", 5),
			    TXT("Message", "ArduPlane V9.9.9 (00000000)")));
	df_rec(&b, &d_baro_us, KV(NUM("TimeUS", 6), NUM("Press", 1)));
	struct got *g = read_mem(&b, b.n);
	assert_int_equal(g->rc, 0);
	assert_string_equal(g->info.firmware, "APM:Copter V3.4.4-rc1");
	assert_string_equal(g->info.hardware, "PX4v2");
	assert_true(has_type(g, "FMT=4"));
	assert_true(has_type(g, "MSG=5"));
	assert_true(has_type(g, "BARO=1"));
	assert_true(has_type(g, "BAR2=0"));
	got_free(g);
	free(b.buf);

	/* Rover 2.x wrote a small v (issue 21 item 8); Sub and Plane
	 * the usual capital. */
	static const char *const fw[] = { "ArduRover v2.46beta2",
					  "ArduSub V4.1.0",
					  "APM:Plane V3.1.0" };
	for (size_t i = 0; i < sizeof(fw) / sizeof(fw[0]); i++) {
		b = (struct dfb){ 0 };
		fmt_fmt(&b);
		fmt_def(&b, &msg);
		df_rec(&b, &msg, KV(NUM("TimeUS", 1),
				    TXT("Message", "Init ArduRover")));
		df_rec(&b, &msg, KV(NUM("TimeUS", 2), TXT("Message", fw[i])));
		g = read_mem(&b, b.n);
		assert_string_equal(g->info.firmware, fw[i]);
		got_free(g);
		free(b.buf);
	}
}

static void
test_tiny_inputs(void **state)
{
	(void)state;
	struct log_reader r;
	static const uint8_t a3[] = { 0xA3, 0x95 };

	/* Nothing: no format to guess; forced, an empty log. */
	assert_int_equal(log_reader_open_mem(&r, "", 0, "e", NULL),
			 -EPROTONOSUPPORT);
	log_reader_close(&r);
	struct got *g = read_mem(&(struct dfb){ (uint8_t *)a3, 0, 0 }, 0);
	assert_int_equal(g->rc, 0);
	assert_int_equal(g->n, 0);
	got_free(g);
	for (size_t n = 1; n <= 2; n++) {
		g = read_mem(&(struct dfb){ (uint8_t *)a3, n, 0 }, n);
		assert_int_equal(g->rc, -ENODATA);
		assert_non_null(strstr(g->err, "mem: offset 0: record header"));
		got_free(g);
	}

	/* A megabyte of header bytes: skipped, no hang, a cut header at
	 * the very end. */
	size_t big = 1u << 20;
	struct dfb b = { malloc(big), big, big };
	assert_non_null(b.buf);
	memset(b.buf, 0xA3, big);
	g = read_mem(&b, big);
	assert_int_equal(g->rc, -ENODATA);
	assert_int_equal(g->info.bytes_skipped, big - 1);
	char want[48];
	snprintf(want, sizeof(want), "offset %zu:", big - 1);
	assert_non_null(strstr(g->err, want));
	got_free(g);
	memset(b.buf, 0x55, big);
	g = read_mem(&b, big);
	assert_int_equal(g->rc, 0);
	assert_int_equal(g->info.bytes_skipped, big);
	got_free(g);
	free(b.buf);
}

/* Feed data through a pipe from a child process. */
static struct got *
read_pipe(const void *data, size_t len, const char *format)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		const uint8_t *p = data;
		while (len > 0) {
			/* Small writes: records straddle reads. */
			size_t n = len < 1000 ? len : 1000;
			ssize_t w = write(fds[1], p, n);
			if (w <= 0)
				_exit(1);
			p += w;
			len -= (size_t)w;
		}
		_exit(0);
	}
	close(fds[1]);
	struct log_reader r;
	int rc = log_reader_open_fd(&r, fds[0], "pipe", format);
	struct got *g = read_all(&r, rc);
	close(fds[0]);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return g;
}

static bool
same_records(const struct got *a, const struct got *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct log_record *x = &a->rec[i], *y = &b->rec[i];
		if (x->kind != y->kind || rec_time(x) != rec_time(y) ||
		    strcmp(a->chan[x->channel], b->chan[y->channel]) != 0)
			return false;
		if (x->kind == LOG_REC_BARO &&
		    (x->baro.pressure_pa != y->baro.pressure_pa ||
		     x->baro.flags != y->baro.flags))
			return false;
		if (x->kind == LOG_REC_REFERENCE && x->ref.alt_m != y->ref.alt_m)
			return false;
		if (!old_kind(x->kind) && !sensor_rec_equal(x, y))
			return false;
	}
	return true;
}

static void
test_pipe(void **state)
{
	(void)state;
	struct dfb b = { 0 };

	fmt_fmt(&b);
	fmt_def(&b, &d_ctun313);
	fmt_def(&b, &d_baro313);
	for (int i = 0; i < 2000; i++)
		df_rec(&b, &d_ctun313, KV(NUM("TimeMS", 100 * i),
					  NUM("BarAlt", i * 0.01)));
	struct got *m = read_mem(&b, b.n);
	struct got *p = read_pipe(b.buf, b.n, NULL);
	assert_int_equal(p->rc, 0);
	assert_int_equal(p->n, 2000);
	assert_int_equal(m->n, p->n);
	assert_true(same_records(m, p, p->n));
	assert_string_equal(p->info.baro_stream, "CTUN.BarAlt");
	got_free(m);
	got_free(p);
	free(b.buf);
}

/* ------------------------------------------------------------------ */
/* The bundled logs (shared/data/logs/README.md) */

static char *
log_path(const char *file)
{
	const char *dir = getenv("LOGS_DIR");
	struct stat st;

	if (!dir || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return NULL;
	size_t n = strlen(dir) + strlen(file) + 2;
	char *p = malloc(n);
	assert_non_null(p);
	snprintf(p, n, "%s/%s", dir, file);
	return p;
}

#define NEED_LOG(path, file)                                                  \
	char *path = log_path(file);                                          \
	if (!path) {                                                          \
		skip_because("LOGS_DIR not set or missing: %s not tested",    \
			     file);                                           \
	}

static struct got *
read_file(const char *path)
{
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	struct log_reader r;
	int rc = log_reader_open_fd(&r, fd, path, NULL);
	assert_int_equal(rc, 0);
	assert_string_equal(r.ops->name, "dataflash");
	struct got *g = read_all(&r, rc);
	close(fd);
	return g;
}

struct range {
	size_t n;
	double t0, t1;		/* seconds */
	double p0, p1;		/* baro: pressure; reference: altitude */
	double c0, c1;		/* temperature */
};

static struct range
range_of(const struct got *g, enum log_record_kind kind, const char *channel)
{
	struct range r = { 0, INFINITY, -INFINITY, INFINITY, -INFINITY,
			   INFINITY, -INFINITY };
	int c = chan(g, channel);

	for (size_t i = 0; c >= 0 && i < g->n; i++) {
		const struct log_record *x = &g->rec[i];
		if (x->kind != kind || x->channel != c)
			continue;
		double t = (double)rec_time(x) / 1e6;
		double v = kind == LOG_REC_BARO ? x->baro.pressure_pa
						: x->ref.alt_m;
		r.n++;
		r.t0 = fmin(r.t0, t);
		r.t1 = fmax(r.t1, t);
		r.p0 = fmin(r.p0, v);
		r.p1 = fmax(r.p1, v);
		if (kind == LOG_REC_BARO) {
			r.c0 = fmin(r.c0, x->baro.temperature_c);
			r.c1 = fmax(r.c1, x->baro.temperature_c);
		}
	}
	return r;
}

/* Time (s) of the k-th event of a kind. */
static double
event_at(const struct got *g, enum log_event_kind kind, size_t k)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->rec[i].kind == LOG_REC_EVENT &&
		    g->rec[i].event.kind == kind && k-- == 0)
			return (double)g->rec[i].event.time_us / 1e6;
	return NAN;
}

static void
check_baro_flags(const struct got *g, const char *channel, uint32_t flags)
{
	int c = chan(g, channel);
	for (size_t i = 0; i < g->n; i++)
		if (g->rec[i].kind == LOG_REC_BARO && g->rec[i].channel == c) {
			assert_int_equal(g->rec[i].baro.flags, flags);
			assert_int_equal(g->rec[i].baro.instance, 0);
		}
}

static void
test_log_344(void **state)
{
	(void)state;
	NEED_LOG(path, "ap_copter-3.4.4-rc1_badajoz_climb.bin");
	struct got *g = read_file(path);

	assert_int_equal(g->rc, 0);
	assert_string_equal(g->info.baro_stream, "BARO");
	assert_non_null(strstr(g->info.firmware, "Copter V3.4.4-rc1"));
	assert_string_equal(g->info.hardware, "PX4v2");
	struct range r = range_of(g, LOG_REC_BARO, "BARO[0]");
	assert_int_equal(r.n, 1501);
	assert_int_equal(count(g, LOG_REC_BARO, NULL), 1501);
	assert_close_abs(r.t1 - r.t0, 150.5, 0.05);
	assert_close_abs(r.p0, 100986.7, 0.05);
	assert_close_abs(r.p1, 101143.7, 0.05);
	assert_close_abs(r.c0, 27.4, 0.05);
	assert_close_abs(r.c1, 33.2, 0.05);
	/* BARO.Alt is above the calibration ground: alt_m, datum home
	 * (issue 21 item 5). */
	check_baro_flags(g, "BARO[0]",
			 BARO_SAMPLE_HEALTHY | BARO_SAMPLE_HAS_TEMPERATURE |
				 LOG_SAMPLE_ALT_HOME);
	assert_close_abs(nth(g, LOG_REC_BARO, "BARO[0]", 0)->baro.alt_m,
			 nth(g, LOG_REC_REFERENCE, "BARO[0].Alt", 0)->ref.alt_m,
			 1e-6);
	r = range_of(g, LOG_REC_REFERENCE, "BARO[0].Alt");
	assert_int_equal(r.n, 1501);
	assert_close_abs(r.p0, 0.94, 0.005);
	assert_close_abs(r.p1, 14.56, 0.005);
	r = range_of(g, LOG_REC_REFERENCE, "GPS[0]");
	assert_int_equal(r.n, 753);
	assert_close_abs(r.p0, 211.1, 0.05);
	assert_close_abs(r.p1, 224.5, 0.05);
	assert_int_equal(count(g, LOG_REC_REFERENCE, "NKF1.PD"), 1502);
	assert_int_equal(count(g, LOG_REC_REFERENCE, "CTUN.BAlt"), 1501);
	assert_close_abs(event_at(g, LOG_EVENT_ARMED, 0), 224.6, 0.05);
	assert_close_abs(event_at(g, LOG_EVENT_TAKEOFF, 0), 228.1, 0.05);
	assert_close_abs(event_at(g, LOG_EVENT_LANDED, 0), 375.3, 0.05);
	assert_close_abs(event_at(g, LOG_EVENT_DISARMED, 0), 375.3, 0.05);
	/* The BAR3 FMT of 3.4.4 says QffcfI (29 bytes) with Length 33: a
	 * quirk, not damage. */
	assert_int_equal(g->info.records_bad, 0);
	assert_int_equal(g->info.fmt_warnings, 1);
	assert_int_equal(g->info.bytes_skipped, 0);
	assert_true(has_type(g, "BARO=1501"));
	assert_true(has_type(g, "BAR2=0"));
	assert_true(has_type(g, "GPS=753"));
	assert_true(has_type(g, "POS=1502"));
	assert_true(has_type(g, "BAR3=0"));
	got_free(g);
	free(path);
}

static void
test_log_364(void **state)
{
	(void)state;
	NEED_LOG(path, "ap_copter-3.6.4_fmuv5_high-vibration.bin");
	struct got *g = read_file(path);

	assert_int_equal(g->rc, 0);
	assert_non_null(strstr(g->info.firmware, "ArduCopter V3.6.4"));
	assert_string_equal(g->info.hardware, "fmuv5");
	struct range r = range_of(g, LOG_REC_BARO, "BARO[0]");
	assert_int_equal(r.n, 728);
	assert_close_abs(r.p0, 102999.95, 0.01);
	assert_close_abs(r.p1, 103049.18, 0.01);
	assert_close_abs(r.c0, 32.8, 0.05);
	assert_close_abs(r.c1, 37.6, 0.05);
	/* Two armed segments: split where samples are > 1 s apart. */
	int c = chan(g, "BARO[0]");
	size_t seg_n[4] = { 0 }, nseg = 0;
	double seg_t[4][2] = { { 0 } }, last = -1;
	for (size_t i = 0; i < g->n; i++) {
		if (g->rec[i].kind != LOG_REC_BARO || g->rec[i].channel != c)
			continue;
		double t = (double)g->rec[i].baro.time_us / 1e6;
		if (last < 0 || t - last > 1.0) {
			assert_true(nseg < 4);
			seg_t[nseg++][0] = t;
		}
		seg_n[nseg - 1]++;
		seg_t[nseg - 1][1] = t;
		last = t;
	}
	assert_int_equal(nseg, 2);
	assert_int_equal(seg_n[0], 428);
	assert_int_equal(seg_n[1], 300);
	assert_close_abs(seg_t[0][0], 208.7, 0.05);
	assert_close_abs(seg_t[0][1], 251.4, 0.05);
	assert_close_abs(seg_t[1][0], 879.4, 0.05);
	assert_close_abs(seg_t[1][1], 909.3, 0.05);
	r = range_of(g, LOG_REC_REFERENCE, "BARO[0].Alt");
	assert_close_abs(r.p0, 1.64, 0.005);
	assert_close_abs(r.p1, 5.77, 0.005);
	assert_int_equal(count(g, LOG_REC_REFERENCE, "GPS[0]"), 365);
	assert_int_equal(count(g, LOG_REC_REFERENCE, "CTUN.BAlt"), 728);
	assert_int_equal(count(g, LOG_REC_REFERENCE, "NKF1.PD"), 728);
	assert_close_abs(event_at(g, LOG_EVENT_TAKEOFF, 0), 214.3, 0.05);
	assert_close_abs(event_at(g, LOG_EVENT_TAKEOFF, 1), 886.9, 0.05);
	assert_close_abs(event_at(g, LOG_EVENT_LANDED, 0), 251.4, 0.05);
	assert_close_abs(event_at(g, LOG_EVENT_LANDED, 1), 909.3, 0.05);
	assert_int_equal(g->info.records_bad, 0);
	assert_int_equal(g->info.bytes_skipped, 0);
	assert_true(has_type(g, "FMTU=141"));
	got_free(g);
	free(path);
}

static void
test_log_35era(void **state)
{
	(void)state;
	NEED_LOG(path, "ap_copter-3.5era_netherlands_short.bin");
	struct got *g = read_file(path);

	assert_int_equal(g->rc, 0);
	assert_string_equal(g->info.firmware, "");	/* no version MSG */
	struct range r = range_of(g, LOG_REC_BARO, "BARO[0]");
	assert_int_equal(r.n, 504);
	assert_close_abs(r.t1 - r.t0, 50.9, 0.05);
	assert_close_abs(r.p0, 100088.9, 0.05);
	assert_close_abs(r.p1, 100267.9, 0.05);
	assert_close_abs(r.c0, 27.4, 0.05);
	assert_close_abs(r.c1, 27.8, 0.05);
	r = range_of(g, LOG_REC_REFERENCE, "BARO[0].Alt");
	assert_close_abs(r.p0, 2.02, 0.005);
	assert_close_abs(r.p1, 17.43, 0.005);
	r = range_of(g, LOG_REC_REFERENCE, "GPS[0]");
	assert_int_equal(r.n, 254);
	assert_close_abs(r.p0, -2.7, 0.05);
	assert_close_abs(r.p1, 11.9, 0.05);
	double landed = event_at(g, LOG_EVENT_LANDED, 0);
	assert_close_abs(landed, 453.5, 0.05);
	assert_true(event_at(g, LOG_EVENT_DISARMED, 0) >= landed);
	got_free(g);
	free(path);
}

static void
test_log_462(void **state)
{
	(void)state;
	NEED_LOG(path, "ap_copter-4.6.2_pixhawk4_truncated80k.bin");
	struct got *g = read_file(path);

	/* 81920 bytes; the last record is cut off. */
	assert_int_equal(g->rc, -ENODATA);
	assert_non_null(strstr(g->err, "offset 81918:"));
	assert_string_equal(g->info.firmware, "ArduCopter V4.6.2");
	assert_string_equal(g->info.hardware, "Pixhawk4");
	struct range r = range_of(g, LOG_REC_BARO, "BARO[0]");
	assert_int_equal(r.n, 5);
	assert_close_abs(r.t1 - r.t0, 0.4, 0.05);
	/* Temp is c with FMTU 'B': x0.01 once, tens of degrees. */
	assert_true(r.c0 > 20 && r.c1 < 60);
	check_baro_flags(g, "BARO[0]", BARO_SAMPLE_HEALTHY |
			 BARO_SAMPLE_HAS_TEMPERATURE | BARO_SAMPLE_HAS_ALTITUDE);
	/* CTUN.BAlt is e with FMTU 'B': metres, near BARO.Alt. */
	struct range a = range_of(g, LOG_REC_REFERENCE, "BARO[0].Alt");
	struct range ct = range_of(g, LOG_REC_REFERENCE, "CTUN.BAlt");
	assert_int_equal(ct.n, 5);
	assert_close_abs(ct.p0, a.p0, 0.05);
	assert_close_abs(ct.p1, a.p1, 0.05);
	assert_true(has_type(g, "FMTU=214"));
	assert_true(has_type(g, "UNIT=37"));
	assert_true(has_type(g, "MULT=15"));
	assert_true(has_type(g, "BARO=5"));
	got_free(g);
	free(path);
}

static void
test_log_313(void **state)
{
	(void)state;
	NEED_LOG(path, "ap_copter-3.1.3_px4v2_legacy-ctun-only.bin");
	struct got *g = read_file(path);

	/* Measured: the file ends 8 bytes into a 31-byte IMU record. */
	assert_int_equal(g->rc, -ENODATA);
	assert_non_null(strstr(g->err, "offset 325638:"));
	assert_string_equal(g->info.baro_stream, "CTUN.BarAlt");
	assert_non_null(strstr(g->info.firmware, "ArduCopter V3.1.3"));
	struct range r = range_of(g, LOG_REC_BARO, "CTUN.BarAlt");
	assert_int_equal(r.n, 735);
	assert_int_equal(count(g, LOG_REC_BARO, NULL), 735);
	assert_close_abs(r.t1 - r.t0, 73.4, 0.05);
	/* -0.1 .. 28.1 m above home, as pressure at home's altitude from
	 * the first GPS fix (the site is 277-306 m up, not at sea level). */
	assert_true(g->info.derived_ground_known);
	assert_true(g->info.derived_ground_m > 270.0 &&
		    g->info.derived_ground_m < 285.0);
	assert_close_abs(r.p0,
			 log_pressure_from_alt(g->info.derived_ground_m + 28.1),
			 0.6);
	assert_close_abs(r.p1,
			 log_pressure_from_alt(g->info.derived_ground_m - 0.1),
			 0.6);
	check_baro_flags(g, "CTUN.BarAlt",
			 BARO_SAMPLE_HEALTHY | LOG_SAMPLE_PRESSURE_FROM_ALT |
				 LOG_SAMPLE_ALT_HOME);
	/* GPS times are boot times (T), inside the CTUN span. */
	struct range gp = range_of(g, LOG_REC_REFERENCE, "GPS[0]");
	assert_int_equal(gp.n, 368);
	assert_true(gp.t0 >= r.t0 - 1 && gp.t1 <= r.t1 + 1);
	assert_true(has_type(g, "BARO=0"));
	got_free(g);
	free(path);
}

/* CTUN.BarAlt without any GPS fix: pressure at sea level, and the
 * reader says the ground was not known; a fix arriving only after the
 * queue filled does not change samples already given out. */
static void
test_ctun_sea_level(void **state)
{
	(void)state;
	struct dfb b = { 0 };

	fmt_fmt(&b);
	fmt_def(&b, &d_gps313);
	fmt_def(&b, &d_ctun313);
	for (int i = 0; i < 200; i++)
		df_rec(&b, &d_ctun313, KV(NUM("TimeMS", 5000 + 100 * i),
					  NUM("BarAlt", 0.5 * (i % 7))));
	df_rec(&b, &d_gps313, KV(NUM("Status", 3), NUM("T", 25000),
				  NUM("Alt", 300)));
	struct got *g = read_mem(&b, b.n);
	assert_int_equal(g->rc, 0);
	assert_false(g->info.derived_ground_known);
	assert_int_equal(count(g, LOG_REC_BARO, "CTUN.BarAlt"), 200);
	for (size_t i = 0; i < 200; i++) {
		const struct baro_sample *s =
			&nth(g, LOG_REC_BARO, "CTUN.BarAlt", i)->baro;
		assert_float_exact(s->alt_m, (float)(0.5 * (double)(i % 7)));
		assert_float_exact(s->pressure_pa,
				   (float)log_pressure_from_alt(s->alt_m));
	}
	got_free(g);
	free(b.buf);
}

/* Cuts of a real file: every record before the cut comes out, the same
 * as from the whole file, and the offset named is where a clean cut
 * would end the log. */
static void
test_real_truncations(void **state)
{
	(void)state;
	NEED_LOG(path, "ap_copter-3.4.4-rc1_badajoz_climb.bin");
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	size_t len = (size_t)st.st_size;
	struct dfb b = { malloc(len), len, len };
	assert_non_null(b.buf);
	assert_int_equal(read(fd, b.buf, len), (ssize_t)len);
	close(fd);

	struct got *full = read_mem(&b, len);
	assert_int_equal(full->rc, 0);
	static const size_t cuts[] = { 100001, 333333, 777777, 1200000,
				       1751600 };
	size_t prev = 0;
	for (size_t k = 0; k < sizeof(cuts) / sizeof(cuts[0]); k++) {
		struct got *g = read_mem(&b, cuts[k]);
		assert_true(g->n >= prev && g->n < full->n);
		assert_true(same_records(g, full, g->n));
		prev = g->n;
		if (g->rc == 0) {
			got_free(g);
			continue;
		}
		assert_int_equal(g->rc, -ENODATA);
		const char *o = strstr(g->err, "offset ");
		assert_non_null(o);
		size_t at = strtoul(o + 7, NULL, 10);
		assert_true(at < cuts[k] && cuts[k] - at < 256);
		struct got *clean = read_mem(&b, at);
		assert_int_equal(clean->rc, 0);
		assert_int_equal(clean->n, g->n);
		got_free(clean);
		got_free(g);
	}
	got_free(full);

	/* Through a pipe: the same stream as from memory. */
	full = read_mem(&b, len);
	struct got *p = read_pipe(b.buf, len, NULL);
	assert_int_equal(p->rc, 0);
	assert_int_equal(p->n, full->n);
	assert_true(same_records(p, full, p->n));
	got_free(p);
	got_free(full);
	free(b.buf);
	free(path);
}

/* ------------------------------------------------------------------ */
/* Sensor records from hand-made logs */

static const struct def d_imu46 = {
	20, "IMU", "QBffffffIIfBBHH",
	"TimeUS,I,GyrX,GyrY,GyrZ,AccX,AccY,AccZ,EG,EA,T,GH,AH,GHz,AHz" };
static const struct def d_imu2_34 = {
	21, "IMU2", "QffffffIIfBB",
	"TimeUS,GyrX,GyrY,GyrZ,AccX,AccY,AccZ,ErrG,ErrA,Temp,GyHlt,AcHlt" };
static const struct def d_acc46 = { 22, "ACC", "QBQfff",
				    "TimeUS,I,SampleUS,AccX,AccY,AccZ" };
static const struct def d_att34 = {
	23, "ATT", "QccccCCCC",
	"TimeUS,DesRoll,Roll,DesPitch,Pitch,DesYaw,Yaw,ErrRP,ErrYaw" };
static const struct def d_gps46 = {
	24, "GPS", "QBBIHBcLLeffffB",
	"TimeUS,I,Status,GMS,GWk,NSats,HDop,Lat,Lng,Alt,Spd,GCrs,VZ,Yaw,U" };
static const struct def d_gpa46 = {
	25, "GPA", "QBCCCCfBIHeHH",
	"TimeUS,I,VDop,HAcc,VAcc,SAcc,YAcc,VV,SMS,Delta,AEl,RTCMFU,RTCMFD" };
static const struct def d_rfnd46 = { 26, "RFND", "QBCBBb",
				     "TimeUS,Instance,Dist,Stat,Orient,Quality" };

/* The sensor records of one record each: value, unit, instance, and
 * the order: a GPS or RFND reference first, the sample after it. */
static void
test_sensor_records(void **state)
{
	(void)state;
	struct dfb b = { 0 };

	fmt_fmt(&b);
	fmt_def(&b, &d_imu46);
	fmt_def(&b, &d_imu2_34);
	fmt_def(&b, &d_acc46);
	fmt_def(&b, &d_att34);
	fmt_def(&b, &d_gps46);
	fmt_def(&b, &d_gpa46);
	fmt_def(&b, &d_rfnd46);
	df_rec(&b, &d_imu46, KV(NUM("TimeUS", 1000), NUM("I", 1),
				NUM("AccX", 0.5), NUM("AccY", -0.25),
				NUM("AccZ", -9.75)));
	df_rec(&b, &d_imu2_34, KV(NUM("TimeUS", 1001), NUM("AccZ", -9.5)));
	/* Timed by SampleUS, when the sample was taken. */
	df_rec(&b, &d_acc46, KV(NUM("TimeUS", 1002), NUM("I", 2),
				NUM("SampleUS", 990), NUM("AccZ", -9.25)));
	/* Centidegrees; yaw 270 deg is -90. */
	df_rec(&b, &d_att34, KV(NUM("TimeUS", 2000), NUM("Roll", 1.5),
				NUM("Pitch", -45), NUM("Yaw", 270)));
	df_rec(&b, &d_gps46, KV(NUM("TimeUS", 3000), NUM("Status", 6),
				NUM("NSats", 21), NUM("Alt", 123.45),
				NUM("VZ", 0.75)));
	df_rec(&b, &d_gpa46, KV(NUM("TimeUS", 3000), NUM("VAcc", 1.25),
				NUM("SAcc", 0.5)));
	/* No 3D fix: no reference, a sample all the same; its GPA comes
	 * after another record, so its accuracies stay unknown. */
	df_rec(&b, &d_gps46, KV(NUM("TimeUS", 3200), NUM("Status", 1),
				NUM("NSats", 3), NUM("Alt", 99)));
	df_rec(&b, &d_imu46, KV(NUM("TimeUS", 3300), NUM("AccZ", -9.0)));
	df_rec(&b, &d_gpa46, KV(NUM("TimeUS", 3200), NUM("VAcc", 9)));
	df_rec(&b, &d_rfnd46, KV(NUM("TimeUS", 4000), NUM("Instance", 1),
				 NUM("Dist", 2.5), NUM("Stat", 4),
				 NUM("Orient", 25), NUM("Quality", 90)));
	/* Not Good: no reference, quality 0; not down: nothing. */
	df_rec(&b, &d_rfnd46, KV(NUM("TimeUS", 4100), NUM("Dist", 7),
				 NUM("Stat", 3), NUM("Orient", 25),
				 NUM("Quality", 90)));
	df_rec(&b, &d_rfnd46, KV(NUM("TimeUS", 4200), NUM("Dist", 3),
				 NUM("Stat", 4), NUM("Orient", 0)));
	struct got *g = read_mem(&b, b.n);
	assert_int_equal(g->rc, 0);
	static const enum log_record_kind order[] = {
		LOG_REC_IMU, LOG_REC_IMU, LOG_REC_IMU, LOG_REC_ATTITUDE,
		LOG_REC_REFERENCE, LOG_REC_GPS, LOG_REC_GPS, LOG_REC_IMU,
		LOG_REC_REFERENCE, LOG_REC_RANGE, LOG_REC_RANGE,
	};
	assert_int_equal(g->n, sizeof(order) / sizeof(order[0]));
	for (size_t i = 0; i < g->n; i++)
		assert_int_equal(g->rec[i].kind, order[i]);
	const struct log_record *r = g->rec;
	assert_string_equal(g->chan[r[0].channel], "IMU[1]");
	assert_int_equal(r[0].imu.instance, 1);
	assert_int_equal(r[0].imu.time_us, 1000);
	assert_true(r[0].imu.accel[0] == 0.5 && r[0].imu.accel[1] == -0.25 &&
		    r[0].imu.accel[2] == -9.75);
	assert_string_equal(g->chan[r[1].channel], "IMU[1]");
	assert_true(r[1].imu.accel[2] == -9.5);
	assert_string_equal(g->chan[r[2].channel], "ACC[2]");
	assert_int_equal(r[2].imu.instance, 2);
	assert_int_equal(r[2].imu.time_us, 990);
	assert_true(r[2].imu.accel[2] == -9.25);
	assert_string_equal(g->chan[r[3].channel], "ATT");
	assert_true(r[3].att.roll_rad == 1.5 * (M_PI / 180.0));
	assert_true(r[3].att.pitch_rad == -45 * (M_PI / 180.0));
	assert_true(r[3].att.yaw_rad == 270 * (M_PI / 180.0) - 2.0 * M_PI);
	assert_string_equal(g->chan[r[4].channel], "GPS[0]");
	assert_int_equal(r[4].ref.source, LOG_REF_GPS);
	assert_int_equal(r[5].channel, r[4].channel);
	const struct log_gps *gp = &r[5].gps;
	assert_int_equal(gp->time_us, 3000);
	assert_int_equal(gp->fix_type, 6);
	assert_int_equal(gp->nsats, 21);
	assert_true(gp->alt_amsl_m == 12345 * 0.01);
	assert_true(gp->vel_up_m_s == -0.75);
	assert_true(gp->vacc_m == 125 * 0.01 && gp->vel_acc_m_s == 50 * 0.01);
	gp = &r[6].gps;
	assert_int_equal(gp->fix_type, 1);
	assert_true(gp->alt_amsl_m == 99);
	assert_true(isnan(gp->vacc_m) && isnan(gp->vel_acc_m_s));
	assert_string_equal(g->chan[r[8].channel], "RFND[1]");
	assert_true(r[8].ref.alt_m == 2.5);
	assert_int_equal(r[9].range.instance, 1);
	assert_true(r[9].range.distance_m == 2.5);
	assert_int_equal(r[9].range.quality, 90);
	assert_true(isnan(r[9].range.min_m) && isnan(r[9].range.max_m));
	assert_string_equal(g->chan[r[10].channel], "RFND[0]");
	assert_true(r[10].range.distance_m == 7);
	assert_int_equal(r[10].range.quality, 0);
	got_free(g);
	free(b.buf);
}

/* Damaged or odd sensor records: a FMT without an axis, a Length too
 * short for the format, an instance past the channels, a record cut by
 * the end, a GPS as the last record (its sample still comes out). */
static void
test_sensor_malformed(void **state)
{
	(void)state;
	static const struct def no_z = { 20, "IMU", "QBff",
					 "TimeUS,I,AccX,AccY" };
	struct dfb b = { 0 };

	fmt_fmt(&b);
	fmt_def(&b, &no_z);
	fmt_raw(&b, 23, 10, "ATT", "QccccCCCC",
		"TimeUS,DesRoll,Roll,DesPitch,Pitch,DesYaw,Yaw,ErrRP,ErrYaw");
	fmt_def(&b, &d_gps46);
	fmt_def(&b, &d_imu2_34);
	df_rec(&b, &no_z, KV(NUM("TimeUS", 1000), NUM("AccX", 1)));
	hdr(&b, 23);
	put_le(&b, 2000, 7);	/* ATT framed by its Length of 10 */
	df_rec(&b, &d_gps46, KV(NUM("TimeUS", 2500), NUM("I", 200),
				NUM("Status", 3), NUM("Alt", 5)));
	df_rec(&b, &d_gps46, KV(NUM("TimeUS", 3000), NUM("Status", 3),
				NUM("Alt", 5)));
	size_t cut = b.n;
	df_rec(&b, &d_imu2_34, KV(NUM("TimeUS", 4000), NUM("AccZ", -9.5)));
	struct got *g = read_mem(&b, b.n - 3);
	assert_int_equal(g->rc, -ENODATA);
	char want[32];
	snprintf(want, sizeof(want), "offset %zu:", cut);
	assert_non_null(strstr(g->err, want));
	assert_int_equal(g->info.fmt_undecodable, 1);
	assert_int_equal(count(g, LOG_REC_IMU, NULL), 0);
	assert_int_equal(count(g, LOG_REC_ATTITUDE, NULL), 0);
	assert_int_equal(count(g, LOG_REC_REFERENCE, "GPS[0]"), 1);
	assert_int_equal(count(g, LOG_REC_GPS, "GPS[0]"), 1);
	assert_int_equal(g->n, 2);
	assert_int_equal(g->rec[1].gps.time_us, 3000);
	assert_true(g->rec[1].gps.vel_up_m_s == 0.0);
	assert_true(has_type(g, "IMU=1") && has_type(g, "ATT=1"));
	got_free(g);
	free(b.buf);
}

/* ------------------------------------------------------------------ */
/* Sensor records of the bundled logs */

/*
 * Counts and first/last records per stream, decoded once with a
 * throwaway Python parser written from the format (FMT-described
 * records, FMTU/MULT; not kept): IMU/IMU2 AccX..Z as logged; ATT
 * Roll, Pitch, Yaw in degrees (centidegrees where the format is 'c'/'C')
 * times pi/180, yaw above pi less 2 pi; every GPS record with Status,
 * NSats, Alt, -VZ and the VAcc, SAcc of the GPA right after it (NaN
 * without); times TimeUS, TimeMS x 1000, or the 2014 GPS's T x 1000.
 * None of the logs has RFND or ACC records.
 */
static const struct sensor_expect sens_313[] = {
	{ "ATT", LOG_REC_ATTITUDE, 735,
	  { .kind = LOG_REC_ATTITUDE, .att = { 32451000, -0.017278759594743863, -0.028623399732707007, -0.5180137219919168 } },
	  { .kind = LOG_REC_ATTITUDE, .att = { 105851000, -0.008377580409572781, -0.03368485456349056, -0.3211405823669562 } } },
	{ "IMU[0]", LOG_REC_IMU, 3672,
	  { .kind = LOG_REC_IMU, .imu = { 32451000, 0, { -0.10048732906579971, 0.2667340636253357, -9.810201644897461 } } },
	  { .kind = LOG_REC_IMU, .imu = { 105870000, 0, { 0.14725087583065033, 0.10448383539915085, -9.913568496704102 } } } },
	{ "IMU[1]", LOG_REC_IMU, 3672,
	  { .kind = LOG_REC_IMU, .imu = { 32451000, 1, { -0.11991739273071289, 0.36079442501068115, -9.687288284301758 } } },
	  { .kind = LOG_REC_IMU, .imu = { 105870000, 1, { 0.0680687427520752, -0.7830154299736023, -9.785372734069824 } } } },
	{ "GPS[0]", LOG_REC_GPS, 368,
	  { .kind = LOG_REC_GPS, .gps = { 32461000, 0, 3, 13, 277.82, -0.019999999552965164, NAN, NAN } },
	  { .kind = LOG_REC_GPS, .gps = { 105821000, 0, 3, 14, 286.76, -0.3799999952316284, NAN, NAN } } },
};
static const struct sensor_expect sens_344[] = {
	{ "IMU[0]", LOG_REC_IMU, 3755,
	  { .kind = LOG_REC_IMU, .imu = { 224630352, 0, { -0.1959240734577179, 0.28368207812309265, -9.78702449798584 } } },
	  { .kind = LOG_REC_IMU, .imu = { 375293037, 0, { 9.184815406799316, 1.0923562049865723, -3.086635112762451 } } } },
	{ "IMU[1]", LOG_REC_IMU, 3755,
	  { .kind = LOG_REC_IMU, .imu = { 224630352, 1, { -0.1106490045785904, 0.27130094170570374, -9.702140808105469 } } },
	  { .kind = LOG_REC_IMU, .imu = { 375293037, 1, { 9.388090133666992, 0.9340524077415466, -3.321605920791626 } } } },
	{ "ATT", LOG_REC_ATTITUDE, 1502,
	  { .kind = LOG_REC_ATTITUDE, .att = { 224685628, -0.026878070480712675, -0.015533430342749533, -1.583013631558857 } },
	  { .kind = LOG_REC_ATTITUDE, .att = { 375280200, -0.27785641691749724, 1.2395328347663728, 0.18291050560900574 } } },
	{ "GPS[0]", LOG_REC_GPS, 753,
	  { .kind = LOG_REC_GPS, .gps = { 224714179, 0, 4, 17, 213.63, -0.009999999776482582, 0.93, 0.16 } },
	  { .kind = LOG_REC_GPS, .gps = { 375150331, 0, 4, 17, 211.19, -0.04999999701976776, 0.98, 0.29 } } },
};
static const struct sensor_expect sens_35[] = {
	{ "ATT", LOG_REC_ATTITUDE, 504,
	  { .kind = LOG_REC_ATTITUDE, .att = { 402617284, -0.02199114857512855, -0.04782202150464463, -1.8179349488772933 } },
	  { .kind = LOG_REC_ATTITUDE, .att = { 453494900, -0.0066322511575784525, 0.024260076602721184, -1.7985617941801566 } } },
	{ "IMU[0]", LOG_REC_IMU, 1258,
	  { .kind = LOG_REC_IMU, .imu = { 402644506, 0, { -0.11938289552927017, 0.24223732948303223, -10.213163375854492 } } },
	  { .kind = LOG_REC_IMU, .imu = { 453502278, 0, { 0.9270141124725342, -0.07651850581169128, -9.802717208862305 } } } },
	{ "IMU[1]", LOG_REC_IMU, 1258,
	  { .kind = LOG_REC_IMU, .imu = { 402644506, 1, { -0.2769341766834259, 0.14752985537052155, -10.392358779907227 } } },
	  { .kind = LOG_REC_IMU, .imu = { 453502278, 1, { 0.5482136011123657, -0.014167191460728645, -10.036998748779297 } } } },
	{ "GPS[0]", LOG_REC_GPS, 254,
	  { .kind = LOG_REC_GPS, .gps = { 402735374, 0, 4, 18, 3.52, -0.0560000017285347, 0.75, 0.2 } },
	  { .kind = LOG_REC_GPS, .gps = { 453330122, 0, 4, 18, -2.6, -0.05000000074505806, 0.61, 0.24 } } },
};
static const struct sensor_expect sens_364[] = {
	{ "IMU[0]", LOG_REC_IMU, 1820,
	  { .kind = LOG_REC_IMU, .imu = { 208659484, 0, { 0.15701234340667725, 0.2550721764564514, -9.823831558227539 } } },
	  { .kind = LOG_REC_IMU, .imu = { 909299881, 0, { -0.04196174070239067, -0.508883535861969, -10.148125648498535 } } } },
	{ "IMU[1]", LOG_REC_IMU, 1820,
	  { .kind = LOG_REC_IMU, .imu = { 208659484, 1, { 0.24620380997657776, 0.2819700837135315, -9.732436180114746 } } },
	  { .kind = LOG_REC_IMU, .imu = { 909299881, 1, { -0.03510502353310585, -0.560296893119812, -9.994236946105957 } } } },
	{ "ATT", LOG_REC_ATTITUDE, 728,
	  { .kind = LOG_REC_ATTITUDE, .att = { 208674420, 0.0041887902047863905, 0.011868238913561441, -0.17784905077822177 } },
	  { .kind = LOG_REC_ATTITUDE, .att = { 909274534, 0.007330382858376184, -0.01064650843716541, -0.1288052987971815 } } },
	{ "GPS[0]", LOG_REC_GPS, 365,
	  { .kind = LOG_REC_GPS, .gps = { 208734295, 0, 4, 18, 47.36, 0.009000000543892384, 1.42, 0.31 } },
	  { .kind = LOG_REC_GPS, .gps = { 909334550, 0, 4, 18, 49.4, -0.04400000348687172, 0.99, 0.3 } } },
};
static const struct sensor_expect sens_462[] = {
	{ "ATT", LOG_REC_ATTITUDE, 5,
	  { .kind = LOG_REC_ATTITUDE, .att = { 140186526, -0.06831869978337239, 0.06153013987838148, 1.73100370901663 } },
	  { .kind = LOG_REC_ATTITUDE, .att = { 140593234, -0.06834960493558492, 0.061483522075737485, 1.7314202274111181 } } },
	{ "IMU[0]", LOG_REC_IMU, 10,
	  { .kind = LOG_REC_IMU, .imu = { 140209868, 0, { 0.6129292845726013, 0.8672698140144348, -9.763680458068848 } } },
	  { .kind = LOG_REC_IMU, .imu = { 140575610, 0, { 0.5999481678009033, 0.8649151921272278, -9.762846946716309 } } } },
	{ "IMU[1]", LOG_REC_IMU, 10,
	  { .kind = LOG_REC_IMU, .imu = { 140209868, 1, { 0.48838382959365845, 0.9139217734336853, -9.737777709960938 } } },
	  { .kind = LOG_REC_IMU, .imu = { 140575610, 1, { 0.4669237732887268, 0.9233852624893188, -9.744965553283691 } } } },
	{ "GPS[0]", LOG_REC_GPS, 2,
	  { .kind = LOG_REC_GPS, .gps = { 140225173, 0, 3, 8, 47.77, -0.010000000707805157, 1.36, 0.18 } },
	  { .kind = LOG_REC_GPS, .gps = { 140430894, 0, 3, 8, 47.77, 0.006000000052154064, 1.36, 0.19 } } },
};
static const char *
got_chan(const void *ctx, unsigned channel)
{
	const struct got *g = ctx;
	return channel < g->nchan ? g->chan[channel] : "?";
}

static void
check_sensors(const char *file, const struct sensor_expect *want,
	      size_t nwant)
{
	NEED_LOG(path, file);
	struct got *g = read_file(path);
	char msg[160];
	sensor_check(g->rec, g->n, got_chan, g, want, nwant, msg, sizeof(msg));
	if (msg[0])
		fail_msg("%s: %s", file, msg);
	got_free(g);
	free(path);
}

#define CHECK_SENSORS(file, want) \
	check_sensors(file, want, sizeof(want) / sizeof(want[0]))

static void
test_bundled_sensors(void **state)
{
	(void)state;
	CHECK_SENSORS("ap_copter-3.1.3_px4v2_legacy-ctun-only.bin", sens_313);
	CHECK_SENSORS("ap_copter-3.4.4-rc1_badajoz_climb.bin", sens_344);
	CHECK_SENSORS("ap_copter-3.5era_netherlands_short.bin", sens_35);
	CHECK_SENSORS("ap_copter-3.6.4_fmuv5_high-vibration.bin", sens_364);
	CHECK_SENSORS("ap_copter-4.6.2_pixhawk4_truncated80k.bin", sens_462);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layouts),
		cmocka_unit_test(test_junk_resync),
		cmocka_unit_test(test_flipped_header),
		cmocka_unit_test(test_truncate_every_byte),
		cmocka_unit_test(test_ctun_fallback),
		cmocka_unit_test(test_ctun_sea_level),
		cmocka_unit_test(test_ctun_reference),
		cmocka_unit_test(test_bad_fmt),
		cmocka_unit_test(test_references),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_fmtu_scaling),
		cmocka_unit_test(test_info_and_types),
		cmocka_unit_test(test_tiny_inputs),
		cmocka_unit_test(test_pipe),
		cmocka_unit_test(test_log_344),
		cmocka_unit_test(test_log_364),
		cmocka_unit_test(test_log_35era),
		cmocka_unit_test(test_log_462),
		cmocka_unit_test(test_log_313),
		cmocka_unit_test(test_real_truncations),
		cmocka_unit_test(test_bundled_sensors),
		cmocka_unit_test(test_sensor_records),
		cmocka_unit_test(test_sensor_malformed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
