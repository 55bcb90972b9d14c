/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The ULog reader: hand-made files built here (layouts, nested types,
 * padding, flags, damage of every kind) and the three bundled .ulg logs
 * checked against the numbers in the logs' README.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log-reader.h"
#include "sensor-rec.h"
#include "test-util.h"
#include "byte-buf.h"
#include "util-endian.h"

/* ---- building ULog files ---- */

struct ub {
	uint8_t *buf;
	size_t n, cap;
	size_t starts[4096];	/* offset of each message */
	unsigned n_msgs;
};

static void
ub_bytes(struct ub *b, const void *p, size_t n)
{
	byte_buf_append(&b->buf, &b->n, &b->cap, p, n);
}

static void
ub_free(struct ub *b)
{
	free(b->buf);
	b->buf = NULL;
}

static void
ub_header(struct ub *b, uint8_t version)
{
	static const uint8_t magic[7] = { 'U', 'L', 'o', 'g', 1, 0x12, 0x35 };
	uint8_t ts[8];

	*b = (struct ub){ 0 };
	ub_bytes(b, magic, sizeof(magic));
	ub_bytes(b, &version, 1);
	le_put64(ts, 123456);
	ub_bytes(b, ts, 8);
}

/* Returns the message's offset. */
static size_t
ub_msg(struct ub *b, char type, const void *payload, size_t len)
{
	uint8_t h[3];
	size_t at = b->n;

	le_put16(h, (uint16_t)len);
	h[2] = (uint8_t)type;
	if (b->n_msgs < 4096)
		b->starts[b->n_msgs++] = at;
	ub_bytes(b, h, 3);
	ub_bytes(b, payload, len);
	return at;
}

static void
ub_flags(struct ub *b, const uint8_t incompat[8], const uint64_t app[3])
{
	uint8_t p[40] = { 0 };

	if (incompat)
		memcpy(p + 8, incompat, 8);
	for (int i = 0; app && i < 3; i++)
		le_put64(p + 16 + 8 * i, app[i]);
	ub_msg(b, 'B', p, sizeof(p));
}

static void
ub_format(struct ub *b, const char *text)
{
	ub_msg(b, 'F', text, strlen(text));
}

static void
ub_info(struct ub *b, const char *key, const void *val, size_t vlen)
{
	uint8_t p[256];
	size_t kl = strlen(key);

	p[0] = (uint8_t)kl;
	memcpy(p + 1, key, kl);
	memcpy(p + 1 + kl, val, vlen);
	ub_msg(b, 'I', p, 1 + kl + vlen);
}

static void
ub_info_u32(struct ub *b, const char *key, uint32_t v)
{
	uint8_t le[4];

	le_put32(le, v);
	ub_info(b, key, le, 4);
}

static void
ub_param(struct ub *b, const char *key, float v)
{
	uint8_t p[128];
	size_t kl = strlen(key);

	p[0] = (uint8_t)kl;
	memcpy(p + 1, key, kl);
	memcpy(p + 1 + kl, &v, 4);
	ub_msg(b, 'P', p, 1 + kl + 4);
}

static void
ub_add(struct ub *b, uint8_t multi_id, uint16_t msg_id, const char *name)
{
	uint8_t p[128];
	size_t nl = strlen(name);

	p[0] = multi_id;
	le_put16(p + 1, msg_id);
	memcpy(p + 3, name, nl);
	ub_msg(b, 'A', p, 3 + nl);
}

static size_t
ub_data(struct ub *b, uint16_t msg_id, const void *pl, size_t len)
{
	uint8_t p[1024];

	le_put16(p, msg_id);
	memcpy(p + 2, pl, len);
	return ub_msg(b, 'D', p, 2 + len);
}

static const uint8_t sync_bytes[8] = { 0x2f, 0x73, 0x13, 0x20,
				       0x25, 0x0c, 0xbb, 0x12 };

static void
ub_sync(struct ub *b)
{
	ub_msg(b, 'S', sync_bytes, 8);
}

static void
ub_dropout(struct ub *b, uint16_t ms)
{
	uint8_t p[2];

	le_put16(p, ms);
	ub_msg(b, 'O', p, 2);
}

static void
ub_log(struct ub *b, const char *text)
{
	uint8_t p[128];
	size_t n = strlen(text);

	p[0] = '6';
	le_put64(p + 1, 5000);
	memcpy(p + 9, text, n);
	ub_msg(b, 'L', p, 9 + n);
}

/* Payload fields, little-endian. */
struct pb {
	uint8_t d[512];
	size_t n;
};

static void
pb_u64(struct pb *p, uint64_t v)
{
	le_put64(p->d + p->n, v);
	p->n += 8;
}

static void
pb_u32(struct pb *p, uint32_t v)
{
	le_put32(p->d + p->n, v);
	p->n += 4;
}

static void
pb_u16(struct pb *p, uint16_t v)
{
	le_put16(p->d + p->n, v);
	p->n += 2;
}

static void
pb_u8(struct pb *p, uint8_t v)
{
	p->d[p->n++] = v;
}

static void
pb_f32(struct pb *p, float v)
{
	uint32_t b;

	memcpy(&b, &v, 4);
	pb_u32(p, b);
}

static void
pb_f64(struct pb *p, double v)
{
	uint64_t b;

	memcpy(&b, &v, 8);
	pb_u64(p, b);
}

static void
pb_fill(struct pb *p, size_t n, uint8_t v)
{
	memset(p->d + p->n, v, n);
	p->n += n;
}

/* ---- reading ---- */

#define MAX_RECS 32768

struct got {
	int open_rc, rc;
	char err[LOG_ERR_LEN];
	struct log_info info;
	size_t n;
	struct log_record rec[MAX_RECS];
	unsigned n_chans;
	char chan[LOG_MAX_CHANNELS][96];
	unsigned n_types;
	struct {
		char name[96];
		uint64_t count;
	} types[256];
};

static void
type_cb(const char *name, uint64_t count, void *ud)
{
	struct got *g = ud;

	if (g->n_types < 256) {
		snprintf(g->types[g->n_types].name, 96, "%s", name);
		g->types[g->n_types++].count = count;
	}
}

static void
drain(struct log_reader *r, struct got *g)
{
	struct log_record rec;

	while ((g->rc = log_reader_next(r, &rec)) > 0) {
		if (g->n < MAX_RECS)
			g->rec[g->n] = rec;
		g->n++;
	}
	/* The reader stays at its error. */
	if (g->rc < 0)
		assert_true(log_reader_next(r, &rec) < 0);
	snprintf(g->err, sizeof(g->err), "%s", r->err);
	g->info = r->info;
	const char *name;
	while ((name = log_reader_channel_name(r, g->n_chans)))
		snprintf(g->chan[g->n_chans++], 96, "%s", name);
	log_reader_list_types(r, type_cb, g);
}

/* Move the sensor records (IMU, attitude, GPS, range) out of g into
 * out, keeping the order of both; how many there were.  The tests of
 * the older kinds then see exactly the sequence they always did. */
static size_t
take_sensor_records(struct got *g, struct log_record *out, size_t cap)
{
	size_t kept = 0, taken = 0;

	assert_true(g->n <= MAX_RECS);
	for (size_t i = 0; i < g->n; i++) {
		if (old_kind(g->rec[i].kind))
			g->rec[kept++] = g->rec[i];
		else if (taken < cap)
			out[taken++] = g->rec[i];
		else
			taken++;
	}
	g->n = kept;
	return taken;
}

static struct got *
read_mem(const void *data, size_t len, const char *format)
{
	struct got *g = calloc(1, sizeof(*g));
	struct log_reader r;

	assert_non_null(g);
	g->open_rc = log_reader_open_mem(&r, data, len, "t.ulg", format);
	if (g->open_rc == 0)
		drain(&r, g);
	else
		snprintf(g->err, sizeof(g->err), "%s", r.err);
	log_reader_close(&r);
	return g;
}

static struct got *
read_fd(int fd)
{
	struct got *g = calloc(1, sizeof(*g));
	struct log_reader r;

	assert_non_null(g);
	g->open_rc = log_reader_open_fd(&r, fd, "t.ulg", NULL);
	if (g->open_rc == 0)
		drain(&r, g);
	else
		snprintf(g->err, sizeof(g->err), "%s", r.err);
	log_reader_close(&r);
	return g;
}

/* Through the fd path: a memory file with these bytes. */
static struct got *
read_bytes_fd(const void *data, size_t len)
{
	int fd = memfd_create("ulog-test", 0);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	struct got *g = read_fd(fd);
	close(fd);
	return g;
}

static int
chan_of(const struct got *g, const char *name)
{
	for (unsigned i = 0; i < g->n_chans; i++)
		if (strcmp(g->chan[i], name) == 0)
			return (int)i;
	return -1;
}

static uint64_t
type_count(const struct got *g, const char *name)
{
	for (unsigned i = 0; i < g->n_types; i++)
		if (strcmp(g->types[i].name, name) == 0)
			return g->types[i].count;
	return UINT64_MAX;
}

/* The i-th record of a kind on a channel, or NULL. */
static const struct log_record *
nth(const struct got *g, const char *chan, enum log_record_kind kind,
    size_t i)
{
	int c = chan_of(g, chan);

	for (size_t k = 0; c >= 0 && k < g->n && k < MAX_RECS; k++)
		if (g->rec[k].channel == c && g->rec[k].kind == kind &&
		    i-- == 0)
			return &g->rec[k];
	return NULL;
}

static size_t
count(const struct got *g, const char *chan, enum log_record_kind kind)
{
	size_t n = 0;

	while (nth(g, chan, kind, n))
		n++;
	return n;
}

static size_t
count_events(const struct got *g, enum log_event_kind kind)
{
	size_t n = 0;

	for (size_t k = 0; k < g->n && k < MAX_RECS; k++)
		if (g->rec[k].kind == LOG_REC_EVENT &&
		    g->rec[k].event.kind == kind)
			n++;
	return n;
}

static const struct log_event *
find_event(const struct got *g, enum log_event_kind kind)
{
	for (size_t k = 0; k < g->n && k < MAX_RECS; k++)
		if (g->rec[k].kind == LOG_REC_EVENT &&
		    g->rec[k].event.kind == kind)
			return &g->rec[k].event;
	return NULL;
}

static bool
rec_equal(const struct log_record *a, const struct log_record *b)
{
	if (a->kind != b->kind || a->channel != b->channel)
		return false;
	switch (a->kind) {
	case LOG_REC_BARO:
		return a->baro.time_us == b->baro.time_us &&
		       a->baro.instance == b->baro.instance &&
		       a->baro.flags == b->baro.flags &&
		       a->baro.pressure_pa == b->baro.pressure_pa &&
		       a->baro.temperature_c == b->baro.temperature_c &&
		       (!(a->baro.flags & BARO_SAMPLE_HAS_ALTITUDE) ||
			a->baro.alt_m == b->baro.alt_m);
	case LOG_REC_REFERENCE:
		return a->ref.time_us == b->ref.time_us &&
		       a->ref.source == b->ref.source &&
		       a->ref.datum == b->ref.datum &&
		       a->ref.instance == b->ref.instance &&
		       a->ref.alt_m == b->ref.alt_m;
	case LOG_REC_EVENT:
		return a->event.time_us == b->event.time_us &&
		       a->event.kind == b->event.kind &&
		       a->event.value == b->event.value;
	case LOG_REC_IMU:
	case LOG_REC_ATTITUDE:
	case LOG_REC_GPS:
	case LOG_REC_RANGE:
		return sensor_rec_equal(a, b);
	}
	return false;
}

/* Records of `part` are the first ones of `full`, in order. */
static void
assert_prefix(const struct got *part, const struct got *full)
{
	assert_true(part->n <= full->n);
	for (size_t k = 0; k < part->n && k < MAX_RECS; k++)
		if (!rec_equal(&part->rec[k], &full->rec[k]))
			fail_msg("record %zu differs", k);
}

/* The same records, in the same order. */
static void
assert_same_records(const struct got *a, const struct got *b)
{
	assert_int_equal(a->n, b->n);
	assert_prefix(a, b);
}

static void
assert_err_offset(const struct got *g, uint64_t off)
{
	char want[48];

	snprintf(want, sizeof(want), "offset %llu:", (unsigned long long)off);
	if (!strstr(g->err, want))
		fail_msg("error '%s' does not name %s", g->err, want);
}

/* ---- the hand-made log ---- */

#define AIR_ID 3
#define BARO0_ID 7
#define BARO1_ID 8
#define AIR_N 4

static const char air_fmt[] =
	"vehicle_air_data:uint64_t timestamp;uint64_t timestamp_sample;"
	"uint32_t baro_device_id;float baro_alt_meter;float baro_temp_celcius;"
	"float baro_pressure_pa;float rho;uint8_t[4] _padding0;";

/* Nested types before the fields read, both defined after their user:
 * the pressure's offset (36) is only known once both are. */
static const char baro_fmt[] =
	"sensor_baro:uint64_t timestamp;uint64_t timestamp_sample;"
	"cal_block[2] cal;uint32_t device_id;float pressure;"
	"float temperature;";
static const char cal_fmt[] =
	"cal_block:float offset;inner_t inner;uint8_t[3] _padding0;";
static const char inner_fmt[] = "inner_t:uint16_t a;uint8_t b;";

struct air {
	uint64_t ts, tss;
	float alt, temp, press;
};

static const struct air airs[AIR_N] = {
	{ 1000000, 999000, 85.5f, 36.5f, 100291.75f },
	{ 1050000, 1049000, 85.6f, 36.6f, 100292.5f },
	{ 1100000, 1099000, 85.7f, 36.7f, 100293.25f },
	{ 1150000, 1149000, 85.8f, 36.8f, 100294.0f },
};

/* The D payload without the 4 bytes of trailing padding. */
static struct pb
air_payload(const struct air *a)
{
	struct pb p = { .n = 0 };

	pb_u64(&p, a->ts);
	pb_u64(&p, a->tss);
	pb_u32(&p, 3997706);
	pb_f32(&p, a->alt);
	pb_f32(&p, a->temp);
	pb_f32(&p, a->press);
	pb_f32(&p, 1.18f);
	return p;
}

static struct pb
baro_payload(uint64_t ts, float press, float temp)
{
	struct pb p = { .n = 0 };

	pb_u64(&p, ts);
	pb_u64(&p, ts - 10);
	for (int i = 0; i < 2; i++) {	/* cal_block: 10 bytes each */
		pb_f32(&p, 99.0f);
		pb_u16(&p, 0xdead);
		pb_u8(&p, 0xbe);
		pb_fill(&p, 3, 0);
	}
	pb_u32(&p, 3997730);
	pb_f32(&p, press);
	pb_f32(&p, temp);
	return p;
}

static void
build_defs(struct ub *b)
{
	ub_header(b, 1);
	ub_flags(b, NULL, NULL);
	ub_info(b, "char[40] ver_sw", "8583f1da30b63154d6ba0bc187d86135dfe33cf9",
		40);
	ub_info_u32(b, "uint32_t ver_sw_release", 0x010b0200);
	ub_info(b, "char[10] ver_hw", "TEST_BOARD", 10);
	ub_format(b, air_fmt);
	ub_format(b, baro_fmt);
	ub_format(b, cal_fmt);
	ub_format(b, inner_fmt);
	ub_param(b, "float BARO_X", 1.5f);
}

/*
 * A small complete log: definitions, three subscriptions, samples, a log
 * string, a sync message and a dropout.  *drop_after: the timestamp of the
 * last data message before the dropout.
 */
static void
build_small(struct ub *b)
{
	build_defs(b);
	ub_add(b, 0, AIR_ID, "vehicle_air_data");
	ub_add(b, 0, BARO0_ID, "sensor_baro");
	ub_add(b, 1, BARO1_ID, "sensor_baro");
	for (int i = 0; i < 2; i++) {
		struct pb p = air_payload(&airs[i]);
		ub_data(b, AIR_ID, p.d, p.n);
	}
	struct pb p = baro_payload(1010000, 1002.94f, 36.42f);
	ub_data(b, BARO0_ID, p.d, p.n);
	p = baro_payload(1011000, 1002.70f, 25.79f);
	ub_data(b, BARO1_ID, p.d, p.n);
	ub_log(b, "[logger] test");
	ub_sync(b);
	ub_dropout(b, 30);
	for (int i = 2; i < AIR_N; i++) {
		p = air_payload(&airs[i]);
		ub_data(b, AIR_ID, p.d, p.n);
	}
	p = baro_payload(1110000, 1002.96f, 36.45f);
	ub_data(b, BARO0_ID, p.d, p.n);
}

static void
test_small_log(void **state)
{
	(void)state;
	struct ub b;
	build_small(&b);
	struct got *g = read_mem(b.buf, b.n, NULL);

	assert_int_equal(g->open_rc, 0);
	assert_int_equal(g->rc, 0);
	assert_string_equal(g->info.firmware, "PX4 v1.11.2 dev");
	assert_string_equal(g->info.hardware, "TEST_BOARD");
	assert_string_equal(g->info.baro_stream, "vehicle_air_data");
	assert_int_equal(g->info.records_bad, 0);
	assert_int_equal(g->info.bytes_skipped, 0);

	/* vehicle_air_data: Pa as logged, timestamp_sample, its altitude
	 * on the sample and as the log's baro-altitude reference. */
	assert_int_equal(count(g, "vehicle_air_data", LOG_REC_BARO), AIR_N);
	assert_int_equal(count(g, "vehicle_air_data.baro_alt_meter",
			       LOG_REC_REFERENCE), AIR_N);
	for (size_t i = 0; i < AIR_N; i++) {
		const struct log_record *r =
			nth(g, "vehicle_air_data", LOG_REC_BARO, i);
		assert_non_null(r);
		assert_int_equal(r->baro.time_us, airs[i].tss);
		assert_true(r->baro.pressure_pa == airs[i].press);
		assert_true(r->baro.temperature_c == airs[i].temp);
		assert_true(r->baro.alt_m == airs[i].alt);
		assert_int_equal(r->baro.instance, 0);
		assert_int_equal(r->baro.flags,
				 BARO_SAMPLE_HEALTHY |
				 BARO_SAMPLE_HAS_TEMPERATURE |
				 BARO_SAMPLE_HAS_ALTITUDE);
		r = nth(g, "vehicle_air_data.baro_alt_meter",
			LOG_REC_REFERENCE, i);
		assert_non_null(r);
		assert_int_equal(r->ref.source, LOG_REF_LOG_BARO_ALT);
		assert_int_equal(r->ref.datum, LOG_DATUM_AMSL);
		assert_int_equal(r->ref.time_us, airs[i].tss);
		assert_true(r->ref.alt_m == (double)airs[i].alt);
	}

	/* sensor_baro in hPa (1002.94): converted to Pa, per instance,
	 * read behind two nested types. */
	assert_int_equal(count(g, "sensor_baro[0]", LOG_REC_BARO), 2);
	assert_int_equal(count(g, "sensor_baro[1]", LOG_REC_BARO), 1);
	const struct log_record *r = nth(g, "sensor_baro[0]", LOG_REC_BARO, 0);
	assert_close_abs(r->baro.pressure_pa, 100294.0, 0.01);
	assert_true(r->baro.temperature_c == 36.42f);
	assert_int_equal(r->baro.instance, 0);
	assert_int_equal(r->baro.time_us, 1010000 - 10);
	assert_int_equal(r->baro.flags,
			 BARO_SAMPLE_HEALTHY | BARO_SAMPLE_HAS_TEMPERATURE);
	r = nth(g, "sensor_baro[1]", LOG_REC_BARO, 0);
	assert_close_abs(r->baro.pressure_pa, 100270.0, 0.01);
	assert_true(r->baro.temperature_c == 25.79f);
	assert_int_equal(r->baro.instance, 1);

	/* The dropout, stamped as pyulog stamps it: the largest timestamp
	 * of the data before it (airs[1] at 1.05 s), not the last one
	 * (sensor_baro[1] at 1.011 s; issue 21 item 8). */
	assert_int_equal(count(g, "dropout", LOG_REC_EVENT), 1);
	r = nth(g, "dropout", LOG_REC_EVENT, 0);
	assert_int_equal(r->event.kind, LOG_EVENT_DROPOUT);
	assert_true(r->event.value == 30.0);
	assert_int_equal(r->event.time_us, 1050000);

	assert_int_equal(g->n_types, 3);
	assert_int_equal(type_count(g, "vehicle_air_data"), AIR_N);
	assert_int_equal(type_count(g, "sensor_baro[0]"), 2);
	assert_int_equal(type_count(g, "sensor_baro[1]"), 1);
	assert_int_equal(g->n, 2 * AIR_N + 3 + 1);

	/* Content decides the format; the fd path gives the same. */
	struct got *f = read_bytes_fd(b.buf, b.n);
	assert_int_equal(f->rc, 0);
	assert_same_records(f, g);
	free(f);
	free(g);
	ub_free(&b);
}

/* D payloads may leave out the trailing padding, and nothing more. */
static void
test_trailing_padding(void **state)
{
	(void)state;
	struct ub b;
	build_defs(&b);
	ub_add(&b, 0, AIR_ID, "vehicle_air_data");
	/* Payload lengths: 40 (with the padding) and 36 (without) are
	 * right; 35 and 41 are damage.  Three good messages follow each
	 * bad one, as resync wants three in a row. */
	static const size_t lens[] = { 40, 36, 35, 36, 40, 36, 41, 40, 36, 40 };
	size_t n_good = 0, skipped = 0, first_bad = 0;
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		struct air a = airs[i % AIR_N];
		a.tss = 5000000 + i;
		struct pb p = air_payload(&a);
		pb_fill(&p, 5, 0);
		size_t at = ub_data(&b, AIR_ID, p.d, lens[i]);
		if (lens[i] == 35 || lens[i] == 41) {
			skipped += 3 + 2 + lens[i];
			if (!first_bad)
				first_bad = at;
		} else {
			n_good++;
		}
	}

	struct got *g = read_mem(b.buf, b.n, "ulog");
	assert_int_equal(g->rc, 0);
	assert_int_equal(count(g, "vehicle_air_data", LOG_REC_BARO), n_good);
	for (size_t i = 0, k = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
		if (lens[i] != 35 && lens[i] != 41)
			assert_int_equal(nth(g, "vehicle_air_data",
					     LOG_REC_BARO, k++)->baro.time_us,
					 5000000 + i);
	/* Two damaged messages: each skipped whole, counted once. */
	assert_int_equal(g->info.records_bad, 2);
	assert_int_equal(g->info.first_bad_offset, first_bad);
	assert_int_equal(g->info.bytes_skipped, skipped);
	free(g);
	ub_free(&b);
}

/* Truncated at every byte: every record before the cut, then -ENODATA
 * naming where the cut message starts (or a clean end on a boundary). */
static void
test_truncate_every_byte(void **state)
{
	(void)state;
	struct ub b;
	build_small(&b);
	struct got *full = read_mem(b.buf, b.n, NULL);
	assert_int_equal(full->rc, 0);
	size_t last_clean = 0;

	for (size_t cut = 0; cut < b.n; cut++) {
		struct got *g = read_mem(b.buf, cut, "ulog");
		unsigned m = 0;	/* message the cut falls in */
		while (m + 1 < b.n_msgs && b.starts[m + 1] <= cut)
			m++;
		if (cut < 16) {
			assert_true(g->open_rc < 0);
			assert_non_null(strstr(g->err, cut < 7 ? "not a ULog"
						       : "header truncated"));
		} else if (cut > b.starts[0] + 2 && cut < b.starts[1]) {
			/* Inside the flag bits: open refuses. */
			assert_int_equal(g->open_rc, -ENODATA);
			assert_err_offset(g, 16);
		} else {
			assert_int_equal(g->open_rc, 0);
			assert_prefix(g, full);
			bool boundary = cut == 16 || cut == b.starts[m];
			if (boundary) {
				assert_int_equal(g->rc, 0);
				assert_true(g->n >= last_clean);
				last_clean = g->n;
			} else {
				assert_int_equal(g->rc, -ENODATA);
				assert_err_offset(g, cut < b.starts[0]
						  ? 16 : b.starts[m]);
				/* Exactly what the clean cut before gave. */
				assert_int_equal(g->n, last_clean);
			}
			assert_int_equal(g->info.records_bad, 0);
			assert_int_equal(g->info.bytes_skipped, 0);
		}
		free(g);
	}
	assert_true(last_clean < full->n);
	free(full);
	ub_free(&b);
}

/* Wrong sizes in headers: resync right after the damaged message. */
static void
test_bad_msg_size(void **state)
{
	(void)state;
	struct ub b;
	build_small(&b);
	struct got *full = read_mem(b.buf, b.n, NULL);
	/* The second vehicle_air_data message and the parameter message. */
	unsigned air1 = 0, param = 0, airs_seen = 0;
	for (unsigned i = 0; i < b.n_msgs; i++) {
		uint8_t t = b.buf[b.starts[i] + 2];
		if (t == 'D' && le_get16(b.buf + b.starts[i] + 3) == AIR_ID &&
		    ++airs_seen == 2)
			air1 = i;
		if (t == 'P')
			param = i;
	}
	assert_true(air1 > 0 && param > 0);
	const uint16_t sizes[] = { 0xffff, 37, 35, 0, 1 };

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t at = b.starts[air1];
		uint16_t orig = le_get16(b.buf + at);
		le_put16(b.buf + at, sizes[k]);
		struct got *g = read_mem(b.buf, b.n, NULL);
		le_put16(b.buf + at, orig);

		assert_int_equal(g->rc, 0);
		assert_int_equal(g->info.records_bad, 1);
		assert_int_equal(g->info.first_bad_offset, at);
		assert_int_equal(g->info.bytes_skipped, 3 + orig);
		/* One sample and its altitude reference fewer. */
		assert_int_equal(g->n, full->n - 2);
		assert_int_equal(count(g, "vehicle_air_data", LOG_REC_BARO),
				 AIR_N - 1);
		assert_int_equal(nth(g, "vehicle_air_data", LOG_REC_BARO,
				     1)->baro.time_us, airs[2].tss);
		free(g);
	}

	/* A parameter claiming 60000 bytes, more than the file has: not
	 * a cut file, since genuine messages follow inside. */
	size_t at = b.starts[param];
	uint16_t orig = le_get16(b.buf + at);
	le_put16(b.buf + at, 60000);
	struct got *g = read_mem(b.buf, b.n, NULL);
	assert_int_equal(g->rc, 0);
	assert_int_equal(g->info.records_bad, 1);
	assert_int_equal(g->info.bytes_skipped, 3 + orig);
	assert_same_records(g, full);
	free(g);
	/* The same size on the last message is a cut file. */
	le_put16(b.buf + at, orig);
	ub_param(&b, "float BARO_Y", 2.0f);
	le_put16(b.buf + b.starts[b.n_msgs - 1], 60000);
	g = read_mem(b.buf, b.n, NULL);
	assert_int_equal(g->rc, -ENODATA);
	assert_err_offset(g, b.starts[b.n_msgs - 1]);
	assert_same_records(g, full);
	free(g);
	free(full);
	ub_free(&b);
}

/* Junk between messages: counted, then reading goes on at the sync
 * message, at the bare sync magic, or where messages look right again. */
static void
test_resync(void **state)
{
	(void)state;
	struct ub clean;
	build_small(&clean);
	struct got *full = read_mem(clean.buf, clean.n, NULL);
	/* Where the sync message is, and a data message well before it. */
	unsigned sync = 0;
	while (clean.buf[clean.starts[sync] + 2] != 'S')
		sync++;
	uint8_t junk[57];
	uint32_t x = 2463534242u;
	for (size_t i = 0; i < sizeof(junk); i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		junk[i] = (uint8_t)x;
	}

	for (int mode = 0; mode < 4; mode++) {
		/* 0: junk before the sync message; 1: junk replacing the
		 * sync message's header (bare magic); 2: junk between data
		 * messages, no sync near; 3: a sync message with a wrong
		 * magic. */
		size_t at = clean.starts[mode == 2 ? sync - 3 : sync];
		size_t cut = mode == 1 ? 3 : 0;
		struct ub b = { 0 };
		ub_bytes(&b, clean.buf, at);
		if (mode != 3)
			ub_bytes(&b, junk, sizeof(junk));
		ub_bytes(&b, clean.buf + at + cut, clean.n - at - cut);
		if (mode == 3)
			b.buf[at + 3 + 4] ^= 0x40;

		struct got *g = read_mem(b.buf, b.n, NULL);
		assert_int_equal(g->rc, 0);
		assert_int_equal(g->info.records_bad, 1);
		assert_int_equal(g->info.first_bad_offset, at);
		assert_int_equal(g->info.bytes_skipped,
				 mode == 3 ? 11 : sizeof(junk) +
				 (mode == 1 ? 8 : 0));
		assert_same_records(g, full);
		/* The fd path agrees. */
		struct got *f = read_bytes_fd(b.buf, b.n);
		assert_same_records(f, g);
		assert_int_equal(f->info.bytes_skipped, g->info.bytes_skipped);
		free(f);
		free(g);
		ub_free(&b);
	}

	/* An unknown message type, and data for an id never added. */
	for (int mode = 0; mode < 2; mode++) {
		size_t at = clean.starts[sync];
		struct ub b = { 0 };
		ub_bytes(&b, clean.buf, at);
		if (mode == 0) {
			ub_msg(&b, 'Z', "hello", 5);
		} else {
			uint8_t pl[4] = { 0 };
			ub_data(&b, 99, pl, 4);
		}
		ub_bytes(&b, clean.buf + at, clean.n - at);
		struct got *g = read_mem(b.buf, b.n, NULL);
		assert_int_equal(g->rc, 0);
		assert_int_equal(g->info.records_bad, 1);
		assert_int_equal(g->info.bytes_skipped, mode == 0 ? 8 : 9);
		assert_same_records(g, full);
		free(g);
		ub_free(&b);
	}

	/* Junk to the end: skipped and counted, a clean end. */
	struct ub b = { 0 };
	ub_bytes(&b, clean.buf, clean.n);
	ub_bytes(&b, junk, sizeof(junk));
	struct got *g = read_mem(b.buf, b.n, NULL);
	assert_int_equal(g->rc, 0);
	assert_int_equal(g->info.first_bad_offset, clean.n);
	assert_int_equal(g->info.bytes_skipped, sizeof(junk));
	assert_same_records(g, full);
	free(g);
	ub_free(&b);
	free(full);
	ub_free(&clean);
}

static void
test_incompat_flags(void **state)
{
	(void)state;
	static const struct {
		unsigned byte;
		uint8_t val;
		const char *bit;
	} bad[] = {
		{ 0, 0x02, "bit 1 " }, { 0, 0x81, "bit 7 " },
		{ 5, 0x10, "bit 44 " }, { 7, 0x80, "bit 63 " },
	};

	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		uint8_t incompat[8] = { 0 };
		struct ub b;
		incompat[bad[k].byte] = bad[k].val;
		ub_header(&b, 1);
		ub_flags(&b, incompat, NULL);
		ub_format(&b, inner_fmt);
		struct got *g = read_mem(b.buf, b.n, NULL);
		assert_int_equal(g->open_rc, -ENOTSUP);
		assert_non_null(strstr(g->err, "incompatible flag"));
		assert_non_null(strstr(g->err, bad[k].bit));
		assert_err_offset(g, 16 + 3 + 8 + bad[k].byte);
		free(g);
		ub_free(&b);
	}

	/* A newer file version, and a flag message too short. */
	struct ub b;
	ub_header(&b, 2);
	struct got *g = read_mem(b.buf, b.n, NULL);
	assert_int_equal(g->open_rc, -ENOTSUP);
	assert_non_null(strstr(g->err, "version 2"));
	free(g);
	ub_free(&b);
	ub_header(&b, 1);
	ub_msg(&b, 'B', "\0\0\0\0", 4);
	g = read_mem(b.buf, b.n, NULL);
	assert_int_equal(g->open_rc, -EBADMSG);
	assert_err_offset(g, 16);
	free(g);
	ub_free(&b);

	/* Not ULog at all, by name. */
	g = read_mem("hello world, not a log", 22, "ulog");
	assert_int_equal(g->open_rc, -EBADMSG);
	assert_non_null(strstr(g->err, "not a ULog"));
	free(g);
}

/* Appended data (incompat bit 0): what was cut before the offset is
 * skipped and counted, the appended messages are read. */
static void
test_appended_data(void **state)
{
	(void)state;
	struct ub b;
	build_defs(&b);
	ub_add(&b, 0, AIR_ID, "vehicle_air_data");
	for (int i = 0; i < 2; i++) {
		struct pb p = air_payload(&airs[i]);
		ub_data(&b, AIR_ID, p.d, p.n);
	}
	struct pb p = air_payload(&airs[2]);
	size_t partial = b.n;
	ub_bytes(&b, (uint8_t[]){ 38, 0, 'D', AIR_ID, 0 }, 5);
	ub_bytes(&b, p.d, 7);
	size_t appended = b.n;
	ub_data(&b, AIR_ID, p.d, p.n);
	p = air_payload(&airs[3]);
	ub_data(&b, AIR_ID, p.d, p.n);
	/* The flag message is the first one: patch its fields in place. */
	b.buf[16 + 3 + 8] = 1;
	le_put64(b.buf + 16 + 3 + 16, appended);

	struct got *g = read_mem(b.buf, b.n, NULL);
	assert_int_equal(g->rc, 0);
	assert_int_equal(count(g, "vehicle_air_data", LOG_REC_BARO), 4);
	assert_int_equal(nth(g, "vehicle_air_data", LOG_REC_BARO,
			     2)->baro.time_us, airs[2].tss);
	assert_int_equal(g->info.bytes_skipped, appended - partial);
	assert_int_equal(g->info.first_bad_offset, partial);
	assert_int_equal(g->info.records_bad, 0);
	free(g);

	/* Appended data promised beyond the end: a cut file. */
	struct ub c = { 0 };
	ub_bytes(&c, b.buf, partial);
	le_put64(c.buf + 16 + 3 + 16, partial + 50);
	g = read_mem(c.buf, c.n, NULL);
	assert_int_equal(g->rc, -ENODATA);
	assert_err_offset(g, partial);
	assert_non_null(strstr(g->err, "appended data"));
	assert_int_equal(count(g, "vehicle_air_data", LOG_REC_BARO), 2);
	free(g);
	ub_free(&c);
	ub_free(&b);
}

/* Nested types: a type ending in unread bytes, then one starting with
 * them, one used twice; sizes must stay apart. */
static void
test_nested_layouts(void **state)
{
	(void)state;
	struct ub b;
	ub_header(&b, 1);
	ub_format(&b, "sensor_baro:uint64_t timestamp;x_t x;y_t[2] y;"
		  "float pressure;float temperature;");
	ub_format(&b, "x_t:uint8_t k;uint8_t[2] _padding0;");
	ub_format(&b, "y_t:uint16_t a;uint8_t[2] b;");
	ub_add(&b, 0, 1, "sensor_baro");
	struct pb p = { .n = 0 };
	pb_u64(&p, 77);
	pb_fill(&p, 3 + 2 * 4, 0xee);
	pb_f32(&p, 95572.88f);
	pb_f32(&p, 21.5f);
	ub_data(&b, 1, p.d, p.n);
	struct got *g = read_mem(b.buf, b.n, NULL);
	assert_int_equal(g->rc, 0);
	assert_int_equal(g->info.records_bad, 0);
	assert_int_equal(g->n, 1);
	assert_true(g->rec[0].baro.pressure_pa == 95572.88f);
	assert_true(g->rec[0].baro.temperature_c == 21.5f);
	assert_int_equal(g->rec[0].baro.time_us, 77);
	free(g);
	ub_free(&b);
}

/* Layouts that cannot be resolved: their data is counted bad, the rest
 * of the log is read. */
static void
test_unresolvable_formats(void **state)
{
	(void)state;
	static const char *const defs[] = {
		/* An undefined nested type. */
		"x_t:uint64_t timestamp;nope_t n;",
		/* A cycle. */
		"x_t:uint64_t timestamp;y_t y;",
		/* Larger than any message. */
		"x_t:uint64_t timestamp;uint8_t[65535] big;",
		/* Malformed: the format is ignored. */
		"x_t:uint64_t timestamp;float[x] y;",
		"x_t:uint64_t timestamp;float;",
	};

	for (size_t k = 0; k < sizeof(defs) / sizeof(defs[0]); k++) {
		struct ub b;
		build_defs(&b);
		ub_format(&b, defs[k]);
		if (k == 1)
			ub_format(&b, "y_t:x_t x;");
		ub_add(&b, 0, AIR_ID, "vehicle_air_data");
		ub_add(&b, 0, 40, "x_t");
		struct pb p = air_payload(&airs[0]);
		ub_data(&b, AIR_ID, p.d, p.n);
		uint8_t x[16] = { 0 };
		size_t bad_at = ub_data(&b, 40, x, sizeof(x));
		p = air_payload(&airs[1]);
		ub_data(&b, AIR_ID, p.d, p.n);

		struct got *g = read_mem(b.buf, b.n, NULL);
		assert_int_equal(g->rc, 0);
		assert_int_equal(count(g, "vehicle_air_data", LOG_REC_BARO),
				 2);
		if (k < 3) {
			assert_int_equal(g->info.records_bad, 1);
			assert_int_equal(g->info.first_bad_offset, bad_at);
			assert_int_equal(g->info.bytes_skipped, 0);
			assert_int_equal(type_count(g, "x_t"), 1);
		} else {
			/* The bad definition, then its data cannot be
			 * laid out either. */
			assert_int_equal(g->info.records_bad, 2);
		}
		free(g);
		ub_free(&b);
	}
}

/* Table caps: clear errors, not unbounded memory. */
static void
test_caps(void **state)
{
	(void)state;
	struct ub b;
	char text[64];

	ub_header(&b, 1);
	for (int i = 0; i < 1025; i++) {
		snprintf(text, sizeof(text), "t%d:uint64_t timestamp;", i);
		ub_format(&b, text);
	}
	struct got *g = read_mem(b.buf, b.n, NULL);
	assert_int_equal(g->rc, -E2BIG);
	assert_non_null(strstr(g->err, "more than 1024 formats"));
	assert_err_offset(g, b.starts[1024]);
	free(g);
	ub_free(&b);

	/* Fields: nested ones cannot merge into byte runs. */
	ub_header(&b, 1);
	ub_format(&b, "n:uint8_t a;");
	size_t big = 6000 * 8 + 8;
	char *f = malloc(big);
	assert_non_null(f);
	for (int k = 0; k < 3; k++) {
		size_t len = (size_t)snprintf(f, big, "big%d:", k);
		for (int i = 0; i < 6000; i++)
			len += (size_t)snprintf(f + len, big - len,
						"n a%d;", i);
		ub_msg(&b, 'F', f, len);
	}
	free(f);
	g = read_mem(b.buf, b.n, NULL);
	assert_int_equal(g->rc, -E2BIG);
	assert_non_null(strstr(g->err, "fields"));
	assert_err_offset(g, b.starts[3]);	/* big2: past 16384 items */
	free(g);
	ub_free(&b);

	/* Topics: 5 formats x 256 instances. */
	ub_header(&b, 1);
	for (int i = 0; i < 5; i++) {
		snprintf(text, sizeof(text), "t%d:uint64_t timestamp;", i);
		ub_format(&b, text);
	}
	for (int i = 0; i < 5 * 256; i++) {
		snprintf(text, sizeof(text), "t%d", i / 256);
		ub_add(&b, (uint8_t)(i % 256), (uint16_t)i, text);
	}
	g = read_mem(b.buf, b.n, NULL);
	assert_int_equal(g->rc, -E2BIG);
	assert_non_null(strstr(g->err, "more than 1024 logged topics"));
	assert_err_offset(g, b.starts[5 + 1024]);
	free(g);
	ub_free(&b);
}

/* Arming, take-off and landing: changes of state only, one state for
 * the two arming topics. */
static void
test_events(void **state)
{
	(void)state;
	struct ub b;
	ub_header(&b, 1);
	/* No ver_sw_release: the firmware is named by its commit. */
	ub_info(&b, "char[8] ver_sw", "654ed4b9", 8);
	ub_format(&b, "vehicle_land_detected:uint64_t timestamp;bool freefall;"
		  "bool ground_contact;bool maybe_landed;bool landed;"
		  "uint8_t[4] _padding0;");
	ub_format(&b, "actuator_armed:uint64_t timestamp;bool armed;"
		  "bool prearmed;uint8_t[6] _padding0;");
	ub_format(&b, "vehicle_status:uint64_t timestamp;"
		  "uint64_t armed_time;uint8_t arming_state;"
		  "uint8_t nav_state;uint8_t[6] _padding0;");
	ub_add(&b, 0, 1, "vehicle_land_detected");
	ub_add(&b, 0, 2, "actuator_armed");
	ub_add(&b, 0, 3, "vehicle_status");
	static const struct {
		uint16_t id;
		uint64_t t;
		uint8_t v;
	} seq[] = {
		{ 1, 100, 1 }, { 3, 110, 1 }, { 2, 120, 0 }, /* initial */
		{ 1, 150, 1 },
		{ 3, 200, 2 }, { 2, 201, 1 },	/* armed, by status first */
		{ 1, 300, 0 },			/* take-off */
		{ 1, 310, 0 },
		{ 1, 400, 1 },			/* landed */
		{ 2, 500, 0 }, { 3, 501, 1 },	/* disarmed */
	};
	for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		struct pb p = { .n = 0 };
		pb_u64(&p, seq[i].t);
		if (seq[i].id == 1) {
			pb_fill(&p, 3, 0);
			pb_u8(&p, seq[i].v);
		} else if (seq[i].id == 2) {
			pb_u8(&p, seq[i].v);
			pb_u8(&p, 0);
		} else {
			pb_u64(&p, 0);
			pb_u8(&p, seq[i].v);
			pb_u8(&p, 4);
		}
		ub_data(&b, seq[i].id, p.d, p.n);
	}
	struct got *g = read_mem(b.buf, b.n, NULL);
	assert_int_equal(g->rc, 0);
	assert_int_equal(g->n, 4);
	static const struct {
		enum log_event_kind kind;
		uint64_t t;
		const char *chan;
	} want[] = {
		{ LOG_EVENT_ARMED, 200, "vehicle_status" },
		{ LOG_EVENT_TAKEOFF, 300, "vehicle_land_detected" },
		{ LOG_EVENT_LANDED, 400, "vehicle_land_detected" },
		{ LOG_EVENT_DISARMED, 500, "actuator_armed" },
	};
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(g->rec[i].kind, LOG_REC_EVENT);
		assert_int_equal(g->rec[i].event.kind, want[i].kind);
		assert_int_equal(g->rec[i].event.time_us, want[i].t);
		assert_string_equal(g->chan[g->rec[i].channel], want[i].chan);
	}
	assert_string_equal(g->info.baro_stream, "");
	assert_string_equal(g->info.firmware, "PX4 654ed4b9");
	free(g);
	ub_free(&b);
}

/* References in old and new layouts, with the validity rules. */
static void
test_references(void **state)
{
	(void)state;
	struct ub b;
	ub_header(&b, 1);
	ub_flags(&b, NULL, NULL);
	/* v1.9: alt in mm; v1.15: altitude_msl_m, as a second topic name
	 * would not be real, so the new layout goes in a second file. */
	ub_format(&b, "vehicle_gps_position:uint64_t timestamp;int32_t lat;"
		  "int32_t lon;int32_t alt;uint8_t fix_type;"
		  "uint8_t[3] _padding0;");
	ub_format(&b, "vehicle_local_position:uint64_t timestamp;"
		  "uint64_t timestamp_sample;float x;float y;float z;"
		  "bool xy_valid;bool z_valid;uint8_t[2] _padding0;");
	ub_format(&b, "distance_sensor:uint64_t timestamp;"
		  "float current_distance;uint8_t orientation;"
		  "uint8_t[3] _padding0;");
	ub_format(&b, "vehicle_local_position_groundtruth:uint64_t timestamp;"
		  "float z;uint8_t[4] _padding0;");
	ub_format(&b, "vehicle_global_position_groundtruth:"
		  "uint64_t timestamp;double lat;double lon;float alt;"
		  "uint8_t[4] _padding0;");
	ub_add(&b, 0, 1, "vehicle_gps_position");
	ub_add(&b, 0, 2, "vehicle_local_position");
	ub_add(&b, 1, 3, "distance_sensor");
	ub_add(&b, 0, 4, "vehicle_local_position_groundtruth");
	ub_add(&b, 0, 5, "vehicle_global_position_groundtruth");
	for (int i = 0; i < 3; i++) {	/* fix 2, 3, 4 */
		struct pb p = { .n = 0 };
		pb_u64(&p, 1000 + (uint64_t)i);
		pb_u32(&p, 0);
		pb_u32(&p, 0);
		pb_u32(&p, (uint32_t)(424749 + i));
		pb_u8(&p, (uint8_t)(2 + i));
		ub_data(&b, 1, p.d, p.n);
	}
	for (int i = 0; i < 2; i++) {	/* z_valid false, true */
		struct pb p = { .n = 0 };
		pb_u64(&p, 2000);
		pb_u64(&p, 1990 + (uint64_t)i);
		pb_f32(&p, 1.0f);
		pb_f32(&p, 2.0f);
		pb_f32(&p, -6.5f);
		pb_u8(&p, 1);
		pb_u8(&p, (uint8_t)i);
		ub_data(&b, 2, p.d, p.n);
	}
	for (int i = 0; i < 2; i++) {	/* facing forward, down */
		struct pb p = { .n = 0 };
		pb_u64(&p, 3000 + (uint64_t)i);
		pb_f32(&p, 0.44f);
		pb_u8(&p, i ? 25 : 0);
		ub_data(&b, 3, p.d, p.n);
	}
	struct pb p = { .n = 0 };
	pb_u64(&p, 4000);
	pb_f32(&p, -2.25f);
	ub_data(&b, 4, p.d, p.n);
	p = (struct pb){ .n = 0 };
	pb_u64(&p, 5000);
	pb_f64(&p, 47.0);
	pb_f64(&p, 8.0);
	pb_f32(&p, 488.5f);
	ub_data(&b, 5, p.d, p.n);

	struct got *g = read_mem(b.buf, b.n, NULL);
	assert_int_equal(g->rc, 0);
	/* Every GPS message is a GPS sample, whatever its fix, after the
	 * reference it may also be; the rangefinder facing down is a
	 * range sample after its reference. */
	assert_int_equal(g->n, 10);
	assert_int_equal(g->rec[0].kind, LOG_REC_GPS);
	assert_int_equal(g->rec[1].kind, LOG_REC_REFERENCE);
	assert_int_equal(g->rec[2].kind, LOG_REC_GPS);
	assert_int_equal(g->rec[7].kind, LOG_REC_RANGE);
	struct log_record sens[4];
	assert_int_equal(take_sensor_records(g, sens, 4), 4);
	for (int i = 0; i < 3; i++) {
		const struct log_gps *s = &sens[i].gps;
		assert_string_equal(g->chan[sens[i].channel],
				    "vehicle_gps_position");
		assert_int_equal(s->time_us, 1000 + i);
		assert_int_equal(s->fix_type, 2 + i);
		assert_true(s->alt_amsl_m == (424749 + i) / 1000.0);
		/* The v1.9 layout here has none of these. */
		assert_int_equal(s->nsats, 255);
		assert_true(isnan(s->vel_up_m_s) && isnan(s->vacc_m) &&
			    isnan(s->vel_acc_m_s));
	}
	const struct log_range *rg = &sens[3].range;
	assert_string_equal(g->chan[sens[3].channel], "distance_sensor[1]");
	assert_int_equal(rg->time_us, 3001);
	assert_int_equal(rg->instance, 1);
	assert_true(rg->distance_m == 0.44f);
	assert_true(isnan(rg->min_m) && isnan(rg->max_m));
	assert_int_equal(rg->quality, -1);
	assert_int_equal(g->n, 6);
	static const struct {
		const char *chan;
		enum log_ref_source src;
		enum log_ref_datum datum;
		uint64_t t;
		uint8_t inst;
		double alt;
	} want[] = {
		{ "vehicle_gps_position", LOG_REF_GPS, LOG_DATUM_AMSL, 1001, 0,
		  424.750 },
		{ "vehicle_gps_position", LOG_REF_GPS, LOG_DATUM_AMSL, 1002, 0,
		  424.751 },
		{ "vehicle_local_position", LOG_REF_EKF, LOG_DATUM_HOME, 1991,
		  0, 6.5 },
		{ "distance_sensor[1]", LOG_REF_RANGEFINDER, LOG_DATUM_GROUND,
		  3001, 1, 0.44f },
		{ "vehicle_local_position_groundtruth", LOG_REF_TRUTH,
		  LOG_DATUM_HOME, 4000, 0, 2.25 },
		{ "vehicle_global_position_groundtruth", LOG_REF_TRUTH,
		  LOG_DATUM_AMSL, 5000, 0, 488.5 },
	};
	for (size_t i = 0; i < 6; i++) {
		const struct log_record *r = &g->rec[i];
		assert_int_equal(r->kind, LOG_REC_REFERENCE);
		assert_string_equal(g->chan[r->channel], want[i].chan);
		assert_int_equal(r->ref.source, want[i].src);
		assert_int_equal(r->ref.datum, want[i].datum);
		assert_int_equal(r->ref.time_us, want[i].t);
		assert_int_equal(r->ref.instance, want[i].inst);
		assert_close_abs(r->ref.alt_m, want[i].alt, 1e-9);
	}
	free(g);
	ub_free(&b);

	/* v1.15 GPS: altitude_msl_m, and a zero timestamp_sample. */
	ub_header(&b, 1);
	ub_format(&b, "vehicle_gps_position:uint64_t timestamp;"
		  "uint64_t timestamp_sample;double latitude_deg;"
		  "double altitude_msl_m;uint8_t fix_type;"
		  "uint8_t[7] _padding0;");
	ub_add(&b, 0, 1, "vehicle_gps_position");
	p = (struct pb){ .n = 0 };
	pb_u64(&p, 1710773359526000);
	pb_u64(&p, 0);
	pb_f64(&p, 47.4);
	pb_f64(&p, 487.976);
	pb_u8(&p, 3);
	ub_data(&b, 1, p.d, p.n);
	g = read_mem(b.buf, b.n, NULL);
	assert_int_equal(g->rc, 0);
	assert_int_equal(g->n, 2);
	assert_int_equal(take_sensor_records(g, sens, 1), 1);
	assert_true(sens[0].gps.alt_amsl_m == 487.976);
	assert_int_equal(sens[0].gps.time_us, 1710773359526000);
	assert_int_equal(g->n, 1);
	assert_int_equal(g->rec[0].ref.time_us, 1710773359526000);
	assert_true(g->rec[0].ref.alt_m == 487.976);
	free(g);
	ub_free(&b);
}

/* sensor_baro in Pa (v1.15), SITL placeholders, and the unit decided by
 * the first positive pressure. */
static void
test_sensor_baro_units(void **state)
{
	(void)state;
	static const struct {
		const char *hw;
		float p[3];
		float scale;
	} cases[] = {
		{ "PX4_SITL", { 95572.88f, 95580.0f, 1100.0f }, 1.0f },
		{ "PX4_FMU_V5", { 0.0f, 1002.9f, 1003.1f }, 100.0f },
	};

	for (size_t k = 0; k < 2; k++) {
		struct ub b;
		ub_header(&b, 0);	/* version 0: no flag bits */
		ub_info(&b, "char[20] ver_hw", cases[k].hw,
			strlen(cases[k].hw));
		ub_format(&b, "sensor_baro:uint64_t timestamp;"
			  "uint64_t timestamp_sample;uint32_t device_id;"
			  "float pressure;float temperature;"
			  "uint32_t error_count;");
		ub_add(&b, 2, 9, "sensor_baro");
		ub_add(&b, 3, 10, "sensor_baro");
		for (int i = 0; i < 3; i++) {
			struct pb p = { .n = 0 };
			pb_u64(&p, 100 + (uint64_t)i);
			pb_u64(&p, 90 + (uint64_t)i);
			pb_u32(&p, 6620172);
			pb_f32(&p, cases[k].p[i]);
			pb_f32(&p, i == 2 ? 20.5f : 0.0f);
			pb_u32(&p, 0);
			ub_data(&b, 9, p.d, p.n);
			ub_data(&b, 10, p.d, p.n);
		}
		struct got *g = read_mem(b.buf, b.n, NULL);
		assert_int_equal(g->rc, 0);
		assert_string_equal(g->info.baro_stream, "sensor_baro");
		/* Instance 3 has no place in a baro_sample. */
		assert_int_equal(count(g, "sensor_baro[2]", LOG_REC_BARO), 3);
		assert_int_equal(g->n, 3);
		assert_int_equal(type_count(g, "sensor_baro[3]"), 3);
		bool sitl = k == 0;
		for (size_t i = 0; i < 3; i++) {
			const struct baro_sample *s = &g->rec[i].baro;
			assert_close_abs(s->pressure_pa,
					 cases[k].p[i] * (double)cases[k].scale,
					 0.01);
			assert_int_equal(s->instance, 2);
			assert_int_equal(s->time_us, 90 + i);
			uint32_t flags = BARO_SAMPLE_HEALTHY;
			if (sitl)
				flags |= BARO_SAMPLE_SIMULATED;
			if (i == 2 || !sitl)
				flags |= BARO_SAMPLE_HAS_TEMPERATURE;
			assert_int_equal(s->flags, flags);
		}
		free(g);
		ub_free(&b);
	}
}

/* Dropouts after data stamped 0 and after earlier data: each at the
 * largest non-zero timestamp so far, as pyulog, never at 0. */
static void
test_dropout_times(void **state)
{
	(void)state;
	struct ub b;
	ub_header(&b, 1);
	ub_format(&b, "vehicle_air_data:uint64_t timestamp;float baro_alt_meter;"
		  "float baro_temp_celcius;float baro_pressure_pa;");
	ub_add(&b, 0, 1, "vehicle_air_data");
	static const uint64_t ts[] = { 112575000, 0, 112500000, 112614000, 0 };
	static const uint16_t ms[] = { 0, 26, 31, 62, 5 };
	for (size_t i = 0; i < 5; i++) {
		struct pb p = { .n = 0 };
		pb_u64(&p, ts[i]);
		pb_f32(&p, 100.0f);
		pb_f32(&p, 20.0f);
		pb_f32(&p, 100000.0f);
		ub_data(&b, 1, p.d, p.n);
		ub_dropout(&b, ms[i]);
	}
	struct got *g = read_mem(b.buf, b.n, NULL);
	assert_int_equal(g->rc, 0);
	static const uint64_t want[] = { 112575000, 112575000, 112575000,
					 112614000, 112614000 };
	assert_int_equal(count(g, "dropout", LOG_REC_EVENT), 5);
	for (size_t i = 0; i < 5; i++) {
		const struct log_record *r = nth(g, "dropout", LOG_REC_EVENT, i);
		assert_int_equal(r->event.time_us, want[i]);
		assert_true(r->event.value == (double)ms[i]);
	}
	free(g);
	ub_free(&b);
}

/* PX4 up to about 1.7: the baro altitude inside sensor_combined. */
static void
test_sensor_combined(void **state)
{
	(void)state;
	struct ub b;
	ub_header(&b, 1);
	ub_format(&b, "sensor_combined:uint64_t timestamp;float[3] gyro_rad;"
		  "float baro_alt_meter;float baro_temp_celcius;"
		  "int32_t baro_timestamp_relative;uint8_t[4] _padding0;");
	ub_add(&b, 0, 1, "sensor_combined");
	static const struct {
		uint64_t t;
		int32_t rel;
		float alt;
	} rows[] = {
		{ 10000, -500, 120.0f },	/* baro at 9500 */
		{ 10004, -504, 120.0f },	/* the same reading again */
		{ 10008, INT32_MAX, 0.0f },	/* no baro in this one */
		{ 20000, 0, 121.5f },
	};
	for (size_t i = 0; i < 4; i++) {
		struct pb p = { .n = 0 };
		pb_u64(&p, rows[i].t);
		pb_fill(&p, 12, 0);
		pb_f32(&p, rows[i].alt);
		pb_f32(&p, 31.0f);
		pb_u32(&p, (uint32_t)rows[i].rel);
		ub_data(&b, 1, p.d, p.n);
	}
	struct got *g = read_mem(b.buf, b.n, NULL);
	assert_int_equal(g->rc, 0);
	assert_int_equal(g->n, 2);
	assert_string_equal(g->info.baro_stream, "sensor_combined");
	const size_t rows_used[2] = { 0, 3 };
	for (size_t i = 0; i < 2; i++) {
		const struct baro_sample *s = &g->rec[i].baro;
		size_t r = rows_used[i];
		assert_int_equal(s->time_us, rows[r].t + (uint64_t)(int64_t)
				 rows[r].rel);
		assert_true(s->pressure_pa ==
			    (float)log_pressure_from_alt(rows[r].alt));
		assert_true(s->alt_m == rows[r].alt);
		assert_int_equal(s->flags, BARO_SAMPLE_HEALTHY |
				 BARO_SAMPLE_HAS_TEMPERATURE |
				 BARO_SAMPLE_HAS_ALTITUDE |
				 LOG_SAMPLE_PRESSURE_FROM_ALT);
	}
	free(g);
	ub_free(&b);
}

/* A topic removed ('R') and added again under another id keeps one
 * count; data for the removed id is damage. */
static void
test_remove_logged(void **state)
{
	(void)state;
	struct ub b;
	build_defs(&b);
	ub_add(&b, 0, AIR_ID, "vehicle_air_data");
	struct pb p = air_payload(&airs[0]);
	ub_data(&b, AIR_ID, p.d, p.n);
	uint8_t id[2];
	le_put16(id, AIR_ID);
	ub_msg(&b, 'R', id, 2);
	size_t stale = ub_data(&b, AIR_ID, p.d, p.n);
	ub_add(&b, 0, 60, "vehicle_air_data");
	p = air_payload(&airs[1]);
	ub_data(&b, 60, p.d, p.n);
	struct got *g = read_mem(b.buf, b.n, NULL);
	assert_int_equal(g->rc, 0);
	assert_int_equal(count(g, "vehicle_air_data", LOG_REC_BARO), 2);
	assert_int_equal(type_count(g, "vehicle_air_data"), 2);
	assert_int_equal(g->info.records_bad, 1);
	assert_int_equal(g->info.first_bad_offset, stale);
	free(g);
	ub_free(&b);
}

/* ---- the bundled logs ---- */

static const char *
logs_dir(void)
{
	const char *d = getenv("LOGS_DIR");
	struct stat st;

	if (!d || stat(d, &st) != 0 || !S_ISDIR(st.st_mode))
		return NULL;
	return d;
}

static uint8_t *
load(const char *name, size_t *len)
{
	const char *dir = logs_dir();
	char path[4096];

	if (!dir)
		return NULL;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	uint8_t *d = malloc((size_t)st.st_size + 1);
	assert_non_null(d);
	assert_int_equal(read(fd, d, (size_t)st.st_size), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return d;
}

/* Read a bundled log through the real interface (its fd); the case
 * skips, saying why, when the log is not there. */
static struct got *
read_log(const char *name)
{
	const char *dir = logs_dir();
	char path[4096];

	if (!dir)
		skip_because("LOGS_DIR unset or missing: %s not tested", name);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		skip_because("%s: %s: not tested", path, strerror(errno));
	struct got *g = read_fd(fd);
	close(fd);
	assert_int_equal(g->open_rc, 0);
	assert_int_equal(g->rc, 0);
	assert_int_equal(g->info.records_bad, 0);
	assert_int_equal(g->info.bytes_skipped, 0);
	assert_true(g->n < MAX_RECS);
	return g;
}

enum val { V_PRESS, V_TEMP, V_ALT, V_REF };

struct stats {
	size_t n;
	double min, max, mean;
	uint64_t t0, t1;
	uint32_t flags_and, flags_or;
	int instance;
};

static struct stats
stats_of(const struct got *g, const char *chan, enum log_record_kind kind,
	 enum val v)
{
	struct stats s = { .min = INFINITY, .max = -INFINITY,
			   .flags_and = UINT32_MAX, .instance = -1 };
	double sum = 0;
	const struct log_record *r;

	while ((r = nth(g, chan, kind, s.n))) {
		double x = v == V_PRESS ? r->baro.pressure_pa
			 : v == V_TEMP ? r->baro.temperature_c
			 : v == V_ALT ? r->baro.alt_m : r->ref.alt_m;
		uint64_t t = kind == LOG_REC_BARO ? r->baro.time_us
						  : r->ref.time_us;
		if (s.n == 0)
			s.t0 = t;
		else
			assert_true(t >= s.t1);	/* in time order */
		s.t1 = t;
		if (kind == LOG_REC_BARO) {
			s.flags_and &= r->baro.flags;
			s.flags_or |= r->baro.flags;
			if (s.instance < 0)
				s.instance = r->baro.instance;
			assert_int_equal(r->baro.instance, s.instance);
		}
		s.min = fmin(s.min, x);
		s.max = fmax(s.max, x);
		sum += x;
		s.n++;
	}
	s.mean = s.n ? sum / (double)s.n : NAN;
	return s;
}

static double
span_s(const struct stats *s)
{
	return (double)(s->t1 - s->t0) * 1e-6;
}

/* README: PX4 v1.9.0 beta on PX4_FMU_V3, old vehicle_air_data layout,
 * 110 samples over 39.6 s, 97971..98129 Pa, 26.7..27.1 degC, alt
 * 269.5..283.1 m; distance_sensor x361 (0.44..12.71 m), GPS x179,
 * local position x315 (z -16.7..-6.5 m); in flight; no dropouts. */
static void
test_fmuv3(void **state)
{
	(void)state;
	struct got *g = read_log("px4_fmuv3_flight_rangefinder.ulg");
	assert_string_equal(g->info.firmware, "PX4 v1.9.0 beta");
	assert_string_equal(g->info.hardware, "PX4_FMU_V3");
	assert_string_equal(g->info.baro_stream, "vehicle_air_data");

	struct stats s = stats_of(g, "vehicle_air_data", LOG_REC_BARO,
				  V_PRESS);
	assert_int_equal(s.n, 110);
	assert_close_abs(span_s(&s), 39.6, 0.05);
	assert_close_abs(s.min, 97971, 0.5);
	assert_close_abs(s.max, 98129, 0.5);
	assert_int_equal(s.instance, 0);
	assert_int_equal(s.flags_and, s.flags_or);
	assert_int_equal(s.flags_and, BARO_SAMPLE_HEALTHY |
			 BARO_SAMPLE_HAS_TEMPERATURE |
			 BARO_SAMPLE_HAS_ALTITUDE);
	s = stats_of(g, "vehicle_air_data", LOG_REC_BARO, V_TEMP);
	assert_close_abs(s.min, 26.7, 0.05);
	assert_close_abs(s.max, 27.1, 0.05);
	s = stats_of(g, "vehicle_air_data", LOG_REC_BARO, V_ALT);
	assert_close_abs(s.min, 269.5, 0.05);
	assert_close_abs(s.max, 283.1, 0.05);
	s = stats_of(g, "vehicle_air_data.baro_alt_meter", LOG_REC_REFERENCE,
		     V_REF);
	assert_int_equal(s.n, 110);
	assert_close_abs(s.min, 269.5, 0.05);

	s = stats_of(g, "distance_sensor", LOG_REC_REFERENCE, V_REF);
	assert_int_equal(s.n, 361);
	assert_close_abs(s.min, 0.44, 0.005);
	assert_close_abs(s.max, 12.71, 0.005);
	assert_close_abs((double)(s.n - 1) / span_s(&s), 9.0, 0.3);
	s = stats_of(g, "vehicle_local_position", LOG_REC_REFERENCE, V_REF);
	assert_int_equal(s.n, 315);
	assert_close_abs(s.min, 6.5, 0.05);
	assert_close_abs(s.max, 16.7, 0.05);
	/* GPS (fix 3D throughout): AMSL, within the climb the EKF saw,
	 * some 150 m above this baro's ISA altitude. */
	s = stats_of(g, "vehicle_gps_position", LOG_REC_REFERENCE, V_REF);
	assert_int_equal(s.n, 179);
	assert_true(s.max - s.min > 5.0 && s.max - s.min < 15.0);
	assert_true(s.min > 269.5 && s.max < 283.1 + 200.0);

	assert_int_equal(type_count(g, "vehicle_air_data"), 110);
	assert_int_equal(type_count(g, "distance_sensor"), 361);
	assert_int_equal(type_count(g, "vehicle_gps_position"), 179);
	assert_int_equal(type_count(g, "vehicle_local_position"), 315);
	assert_int_equal(type_count(g, "sensor_baro[0]"), UINT64_MAX);
	assert_int_equal(count_events(g, LOG_EVENT_DROPOUT), 0);
	/* Starts in flight: no take-off.  (The last two of 46
	 * vehicle_land_detected records say landed, 1.1 s before the end,
	 * and arming_state goes 2 -> 1 after that.) */
	assert_int_equal(count_events(g, LOG_EVENT_TAKEOFF), 0);
	assert_int_equal(count_events(g, LOG_EVENT_ARMED), 0);
	assert_int_equal(count_events(g, LOG_EVENT_LANDED), 1);
	assert_int_equal(count_events(g, LOG_EVENT_DISARMED), 1);
	s = stats_of(g, "vehicle_air_data", LOG_REC_BARO, V_PRESS);
	assert_true(find_event(g, LOG_EVENT_LANDED)->time_us + 2000000 >
		    s.t1);
	assert_true(find_event(g, LOG_EVENT_DISARMED)->time_us >
		    find_event(g, LOG_EVENT_LANDED)->time_us);
	free(g);
}

/* README: PX4 v1.11.2 dev on CUBEPILOT_CUBEORANGE; vehicle_air_data x120
 * at 20 Hz over 6.5 s; sensor_baro instances 0 and 1, 6 each at 1 Hz in
 * hPa (about 1002.9), 0.25 hPa apart, 36.4 vs 25.8 degC; landed, then
 * briefly not; one 30 ms dropout. */
static void
test_cubeorange(void **state)
{
	(void)state;
	struct got *g = read_log("px4_cubeorange_bench_2baro.ulg");
	assert_string_equal(g->info.firmware, "PX4 v1.11.2 dev");
	assert_string_equal(g->info.hardware, "CUBEPILOT_CUBEORANGE");
	assert_string_equal(g->info.baro_stream, "vehicle_air_data");

	struct stats air = stats_of(g, "vehicle_air_data", LOG_REC_BARO,
				    V_PRESS);
	assert_int_equal(air.n, 120);
	assert_close_abs(span_s(&air), 6.5, 0.05);
	assert_close_abs(air.mean, 100290, 20);
	/* 20 Hz: the median spacing is 50 ms. */
	uint64_t dt[119];
	for (size_t i = 0; i < 119; i++)
		dt[i] = nth(g, "vehicle_air_data", LOG_REC_BARO,
			    i + 1)->baro.time_us -
			nth(g, "vehicle_air_data", LOG_REC_BARO,
			    i)->baro.time_us;
	size_t near50 = 0;
	for (size_t i = 0; i < 119; i++)
		near50 += dt[i] > 40000 && dt[i] < 60000;
	assert_true(near50 > 60);

	struct stats b0 = stats_of(g, "sensor_baro[0]", LOG_REC_BARO, V_PRESS);
	struct stats b1 = stats_of(g, "sensor_baro[1]", LOG_REC_BARO, V_PRESS);
	assert_int_equal(b0.n, 6);
	assert_int_equal(b1.n, 6);
	assert_int_equal(b0.instance, 0);
	assert_int_equal(b1.instance, 1);
	/* hPa made Pa: near the voted pressure, 0.25 hPa apart. */
	assert_close_abs(b0.mean, 100290, 20);
	assert_close_abs(b0.mean - b1.mean, 25, 5);
	assert_close_abs(span_s(&b0), 5.0, 0.1);
	struct stats t0 = stats_of(g, "sensor_baro[0]", LOG_REC_BARO, V_TEMP);
	struct stats t1 = stats_of(g, "sensor_baro[1]", LOG_REC_BARO, V_TEMP);
	assert_close_abs(t0.min, 36.4, 0.05);
	assert_close_abs(t1.min, 25.8, 0.05);
	assert_int_equal(b0.flags_and, BARO_SAMPLE_HEALTHY |
			 BARO_SAMPLE_HAS_TEMPERATURE);

	assert_int_equal(count_events(g, LOG_EVENT_DROPOUT), 1);
	assert_true(find_event(g, LOG_EVENT_DROPOUT)->value == 30.0);
	assert_int_equal(count_events(g, LOG_EVENT_TAKEOFF), 1);
	assert_int_equal(count_events(g, LOG_EVENT_LANDED), 1);
	assert_true(find_event(g, LOG_EVENT_LANDED)->time_us >
		    find_event(g, LOG_EVENT_TAKEOFF)->time_us);
	assert_int_equal(type_count(g, "vehicle_air_data"), 120);
	assert_int_equal(type_count(g, "sensor_baro[0]"), 6);
	assert_int_equal(type_count(g, "sensor_baro[1]"), 6);

	/* Through a pipe with short writes: the same records. */
	size_t len;
	uint8_t *data = load("px4_cubeorange_bench_2baro.ulg", &len);
	assert_non_null(data);
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		for (size_t o = 0; o < len;) {
			size_t n = len - o < 997 ? len - o : 997;
			ssize_t w = write(fds[1], data + o, n);
			if (w <= 0)
				_exit(1);
			o += (size_t)w;
		}
		_exit(0);
	}
	close(fds[1]);
	struct got *p = read_fd(fds[0]);
	close(fds[0]);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(p->rc, 0);
	assert_same_records(p, g);
	free(p);
	free(data);
	free(g);
}

/* README: PX4 v1.15.0 dev, SITL; vehicle_air_data x623 at about 10 Hz
 * over 31.1 s (alt 487.7..490.4 m, Pa, temperature 0); sensor_baro x2,
 * 31 each at 1 Hz in Pa; estimator_baro_bias x38; vehicle_gps_position
 * x583 (altitude_msl_m); local z down to -2.2 m. */
static void
test_sitl(void **state)
{
	(void)state;
	struct got *g = read_log("px4_sitl_hover_barobias.ulg");
	assert_string_equal(g->info.firmware, "PX4 v1.15.0 dev");
	assert_string_equal(g->info.hardware, "PX4_SITL");

	struct stats air = stats_of(g, "vehicle_air_data", LOG_REC_BARO,
				    V_PRESS);
	assert_int_equal(air.n, 623);
	assert_close_abs(span_s(&air), 31.1, 0.05);
	/* 623 samples in 31.1 s are 20 Hz (the README's "about 10 Hz" does
	 * not fit its own count and span). */
	assert_close_abs((double)(air.n - 1) / span_s(&air), 20, 0.5);
	/* Temperature 0 is SITL's placeholder. */
	assert_int_equal(air.flags_or, BARO_SAMPLE_HEALTHY |
			 BARO_SAMPLE_SIMULATED | BARO_SAMPLE_HAS_ALTITUDE);
	struct stats alt = stats_of(g, "vehicle_air_data", LOG_REC_BARO,
				    V_ALT);
	assert_close_abs(alt.min, 487.7, 0.05);
	assert_close_abs(alt.max, 490.4, 0.05);
	/* Pa against the ISA altitude of these samples' own altitude. */
	assert_close_abs(air.mean, log_pressure_from_alt(alt.mean), 30);

	for (int k = 0; k < 2; k++) {
		struct stats b = stats_of(g, k ? "sensor_baro[1]"
					     : "sensor_baro[0]",
					  LOG_REC_BARO, V_PRESS);
		assert_int_equal(b.n, 31);
		assert_int_equal(b.instance, k);
		assert_close_abs(span_s(&b), 30.0, 0.1);
		/* Pa already: no x100. */
		assert_close_abs(b.mean, air.mean, 20);
		assert_int_equal(b.flags_or, BARO_SAMPLE_HEALTHY |
				 BARO_SAMPLE_SIMULATED);
	}
	assert_int_equal(type_count(g, "sensor_baro[0]"), 31);
	assert_int_equal(type_count(g, "estimator_baro_bias"), 38);
	assert_int_equal(type_count(g, "vehicle_gps_position"), 583);
	struct stats gps = stats_of(g, "vehicle_gps_position",
				    LOG_REC_REFERENCE, V_REF);
	assert_true(gps.n > 0 && gps.n < 583);	/* fix_type 0 at first */
	assert_true(gps.min > alt.min - 5 && gps.max < alt.max + 5);
	struct stats ekf = stats_of(g, "vehicle_local_position",
				    LOG_REC_REFERENCE, V_REF);
	assert_close_abs(ekf.max, 2.2, 0.05);
	assert_int_equal(count_events(g, LOG_EVENT_ARMED), 1);
	assert_int_equal(count_events(g, LOG_EVENT_TAKEOFF), 1);
	assert_int_equal(count_events(g, LOG_EVENT_LANDED), 1);
	assert_int_equal(count_events(g, LOG_EVENT_DISARMED), 1);
	assert_true(find_event(g, LOG_EVENT_TAKEOFF)->time_us >
		    find_event(g, LOG_EVENT_ARMED)->time_us);
	free(g);
}

static const char *const bundled[] = {
	"px4_fmuv3_flight_rangefinder.ulg",
	"px4_cubeorange_bench_2baro.ulg",
	"px4_sitl_hover_barobias.ulg",
};

/* Cut anywhere: the records before, then -ENODATA naming where the cut
 * message starts; reading only up to there gives the same records. */
static void
test_bundled_truncated(void **state)
{
	(void)state;
	if (!logs_dir())
		skip_because("LOGS_DIR unset or missing: the bundled logs not "
			     "tested");
	for (size_t f = 0; f < 3; f++) {
		size_t len;
		uint8_t *data = load(bundled[f], &len);
		assert_non_null(data);
		struct got *full = read_mem(data, len, NULL);
		assert_int_equal(full->rc, 0);
		for (int k = 1; k <= 6; k++) {
			size_t cut = len * (size_t)k / 7 + (size_t)k * 13;
			struct got *g = read_bytes_fd(data, cut);
			if (g->rc == 0) {
				/* On a boundary by chance: the byte after
				 * cannot be one too (headers are 3 bytes). */
				free(g);
				g = read_bytes_fd(data, ++cut);
			}
			assert_prefix(g, full);
			assert_true(g->n > 0);
			assert_int_equal(g->rc, -ENODATA);
			const char *o = strstr(g->err, "offset ");
			assert_non_null(o);
			unsigned long long at = strtoull(o + 7, NULL, 10);
			assert_true(at < cut && at + 65538 > cut);
			struct got *clean = read_mem(data, at, NULL);
			assert_int_equal(clean->rc, 0);
			assert_same_records(clean, g);
			free(clean);
			free(g);
		}
		free(full);
		free(data);
	}
}

/* A damaged stretch inside each bundled log: skipped, counted, and the
 * rest read (the v1.9 log has no sync messages). */
static void
test_bundled_damaged(void **state)
{
	(void)state;
	if (!logs_dir())
		skip_because("LOGS_DIR unset or missing: the bundled logs not "
			     "tested");
	for (size_t f = 0; f < 3; f++) {
		size_t len;
		uint8_t *data = load(bundled[f], &len);
		assert_non_null(data);
		struct got *full = read_mem(data, len, NULL);
		/* Longer than any message in them, so headers are hit. */
		size_t at = len / 2, n = 512;
		uint32_t x = 88172645u;
		for (size_t i = 0; i < n; i++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			data[at + i] = (uint8_t)x;
		}
		struct got *g = read_bytes_fd(data, len);
		assert_int_equal(g->rc, 0);
		assert_true(g->info.records_bad >= 1);
		assert_true(g->info.bytes_skipped >= 1);
		assert_true(g->info.first_bad_offset <= at + n);
		assert_true(g->info.first_bad_offset + 65538 > at);
		/* Little lost: the damage, and up to one sync interval. */
		assert_true(g->n + full->n / 10 > full->n);
		assert_true(g->n <= full->n + 2);
		assert_true(rec_equal(&g->rec[g->n - 1],
				      &full->rec[full->n - 1]));
		assert_true(rec_equal(&g->rec[0], &full->rec[0]));
		free(g);
		free(full);
		free(data);
	}
}

/* The sensor topics from hand-made logs: values, conversions, and the
 * odd or damaged cases (an invalid relative timestamp, an attitude
 * without its fourth component, a quality out of range, a velocity
 * marked invalid, a message of the wrong size). */
static void
test_sensor_topics(void **state)
{
	(void)state;
	struct ub b;
	ub_header(&b, 1);
	ub_flags(&b, NULL, NULL);
	ub_format(&b, "sensor_combined:uint64_t timestamp;float[3] gyro_rad;"
		  "uint32_t gyro_integral_dt;"
		  "int32_t accelerometer_timestamp_relative;"
		  "float[3] accelerometer_m_s2;");
	ub_format(&b, "vehicle_attitude:uint64_t timestamp;float[4] q;");
	ub_format(&b, "vehicle_gps_position:uint64_t timestamp;int32_t alt;"
		  "float vel_d_m_s;float epv;float s_variance_m_s;"
		  "uint8_t fix_type;bool vel_ned_valid;"
		  "uint8_t satellites_used;uint8_t[1] _padding0;");
	ub_format(&b, "distance_sensor:uint64_t timestamp;"
		  "float min_distance;float max_distance;"
		  "float current_distance;int8_t signal_quality;"
		  "uint8_t orientation;uint8_t[2] _padding0;");
	ub_add(&b, 0, 1, "sensor_combined");
	ub_add(&b, 0, 2, "vehicle_attitude");
	ub_add(&b, 1, 3, "vehicle_gps_position");
	ub_add(&b, 0, 4, "distance_sensor");
	static const int32_t rel[] = { -250, INT32_MAX, -5000 };
	for (int i = 0; i < 3; i++) {
		struct pb p = { .n = 0 };
		pb_u64(&p, 1000 * (uint64_t)(i + 1));
		pb_fill(&p, 16, 0);
		pb_u32(&p, (uint32_t)rel[i]);
		pb_f32(&p, 0.5f);
		pb_f32(&p, -0.25f);
		pb_f32(&p, -9.75f);
		ub_data(&b, 1, p.d, p.n);
	}
	/* 90 deg about z, then 30 deg about x. */
	const float h = (float)M_SQRT1_2;
	const float qs[2][4] = { { h, 0, 0, h },
				 { (float)cos(M_PI / 12), (float)sin(M_PI / 12),
				   0, 0 } };
	for (int i = 0; i < 2; i++) {
		struct pb p = { .n = 0 };
		pb_u64(&p, 5000 + (uint64_t)i);
		for (int k = 0; k < 4; k++)
			pb_f32(&p, qs[i][k]);
		ub_data(&b, 2, p.d, p.n);
	}
	for (int i = 0; i < 2; i++) {	/* velocity valid, then not */
		struct pb p = { .n = 0 };
		pb_u64(&p, 6000 + (uint64_t)i);
		pb_u32(&p, 500250);
		pb_f32(&p, 1.5f);
		pb_f32(&p, 2.25f);
		pb_f32(&p, 0.5f);
		pb_u8(&p, 3);
		pb_u8(&p, (uint8_t)!i);
		pb_u8(&p, 11);
		pb_u8(&p, 0);
		ub_data(&b, 3, p.d, p.n);
	}
	static const int8_t quality[] = { 77, 120 };
	for (int i = 0; i < 2; i++) {
		struct pb p = { .n = 0 };
		pb_u64(&p, 7000 + (uint64_t)i);
		pb_f32(&p, 0.25f);
		pb_f32(&p, 40.0f);
		pb_f32(&p, 3.5f);
		pb_u8(&p, (uint8_t)quality[i]);
		pb_u8(&p, 25);
		pb_fill(&p, 2, 0);
		ub_data(&b, 4, p.d, p.n);
	}
	/* A sensor_combined four bytes short (not padding): bad. */
	struct pb p = { .n = 0 };
	pb_u64(&p, 9000);
	pb_fill(&p, 28, 0);
	ub_data(&b, 1, p.d, p.n);

	struct got *g = read_mem(b.buf, b.n, NULL);
	assert_int_equal(g->rc, 0);
	assert_int_equal(g->info.records_bad, 1);
	struct log_record s[16];
	size_t n = take_sensor_records(g, s, 16);
	/* References: two GPS fixes, two rangefinder readings. */
	assert_int_equal(g->n, 4);
	assert_int_equal(n, 7);
	/* IMU: timestamp + relative; INT32_MAX and a time before 0 are
	 * no sample. */
	assert_string_equal(g->chan[s[0].channel], "sensor_combined");
	assert_int_equal(s[0].kind, LOG_REC_IMU);
	assert_int_equal(s[0].imu.time_us, 750);
	assert_true(s[0].imu.accel[0] == 0.5 && s[0].imu.accel[1] == -0.25 &&
		    s[0].imu.accel[2] == -9.75);
	for (int i = 0; i < 2; i++) {
		const struct log_attitude *a = &s[1 + i].att;
		assert_int_equal(s[1 + i].kind, LOG_REC_ATTITUDE);
		assert_int_equal(a->time_us, 5000 + i);
		assert_close_abs(a->roll_rad, i ? M_PI / 6 : 0.0, 1e-6);
		assert_close_abs(a->pitch_rad, 0.0, 1e-6);
		assert_close_abs(a->yaw_rad, i ? 0.0 : M_PI / 2, 1e-6);
	}
	for (int i = 0; i < 2; i++) {
		const struct log_gps *gp = &s[3 + i].gps;
		assert_string_equal(g->chan[s[3 + i].channel],
				    "vehicle_gps_position[1]");
		assert_int_equal(gp->instance, 1);
		assert_int_equal(gp->fix_type, 3);
		assert_int_equal(gp->nsats, 11);
		assert_true(gp->alt_amsl_m == 500.25);
		assert_true(gp->vacc_m == 2.25 && gp->vel_acc_m_s == 0.5);
		if (i)
			assert_true(isnan(gp->vel_up_m_s));
		else
			assert_true(gp->vel_up_m_s == -1.5);
	}
	for (int i = 0; i < 2; i++) {
		const struct log_range *rg = &s[5 + i].range;
		assert_int_equal(rg->time_us, 7000 + i);
		assert_true(rg->distance_m == 3.5 && rg->min_m == 0.25 &&
			    rg->max_m == 40.0);
		assert_int_equal(rg->quality, i ? -1 : 77);
	}
	free(g);
	ub_free(&b);

	/* q with three components: not an attitude, and nothing else
	 * lost. */
	ub_header(&b, 1);
	ub_flags(&b, NULL, NULL);
	ub_format(&b, "vehicle_attitude:uint64_t timestamp;float[3] q;"
		  "uint8_t[4] _padding0;");
	ub_add(&b, 0, 1, "vehicle_attitude");
	p = (struct pb){ .n = 0 };
	pb_u64(&p, 100);
	pb_fill(&p, 16, 0);
	ub_data(&b, 1, p.d, p.n);
	g = read_mem(b.buf, b.n, NULL);
	assert_int_equal(g->rc, 0);
	assert_int_equal(g->n, 0);
	assert_int_equal(g->info.records_bad, 0);
	free(g);
	ub_free(&b);
}

/*
 * Sensor records of the bundled ULogs: counts and first/last records
 * per stream, decoded once with a throwaway Python parser written from
 * the ULog format ('F' definitions, 'A' subscriptions, 'D' data; not
 * kept): sensor_combined accelerometer_m_s2 at timestamp +
 * accelerometer_timestamp_relative; vehicle_acceleration xyz;
 * vehicle_attitude q[0..3] turned to
 * roll = atan2(2(cd + ab), a2 - b2 - c2 + d2), pitch = asin(2(ac - bd)),
 * yaw = atan2(2(bc + ad), a2 + b2 - c2 - d2) in double; the GPS topic's
 * altitude_msl_m or alt / 1000, -vel_d_m_s, epv, s_variance_m_s,
 * satellites_used, fix_type; distance_sensor facing down with its
 * limits and signal_quality.  Times: timestamp_sample when non-zero,
 * else timestamp.
 */
static const struct sensor_expect sens_cube[] = {
	{ "sensor_combined", LOG_REC_IMU, 1298,
	  { .kind = LOG_REC_IMU, .imu = { 20326716, 0, { 0.0012458056444302201, -0.15434497594833374, -9.63424301147461 } } },
	  { .kind = LOG_REC_IMU, .imu = { 26822868, 0, { -0.010053723119199276, -0.1637258678674698, -9.566828727722168 } } } },
	{ "vehicle_attitude", LOG_REC_ATTITUDE, 1298,
	  { .kind = LOG_REC_ATTITUDE, .att = { 20326716, 0.01884275218295525, -0.0019168289624496926, 0.24224177268641248 } },
	  { .kind = LOG_REC_ATTITUDE, .att = { 26822868, 0.017549944187666623, -0.0009506811834908454, 0.03457180885425016 } } },
	{ "vehicle_gps_position", LOG_REC_GPS, 32,
	  { .kind = LOG_REC_GPS, .gps = { 20471648, 0, 3, 15, 66.814, -0.242000013589859, 6.984000205993652, 0.6510000228881836 } },
	  { .kind = LOG_REC_GPS, .gps = { 26658637, 0, 3, 14, 62.977, -0.08100000023841858, 5.2220001220703125, 0.4780000150203705 } } },
};

static const struct sensor_expect sens_fmuv3[] = {
	{ "distance_sensor", LOG_REC_RANGE, 361,
	  { .kind = LOG_REC_RANGE, .range = { 5080853612, 0, 6.21999979019165, 0.05000000074505806, 25.0, 96 } },
	  { .kind = LOG_REC_RANGE, .range = { 5120415622, 0, 0.4699999988079071, 0.05000000074505806, 25.0, 97 } } },
	{ "sensor_combined", LOG_REC_IMU, 341,
	  { .kind = LOG_REC_IMU, .imu = { 5080903927, 0, { 1.2223460674285889, 0.28565558791160583, -4.047487258911133 } } },
	  { .kind = LOG_REC_IMU, .imu = { 5120452723, 0, { -1.151281714439392, 0.5735969543457031, -12.805784225463867 } } } },
	{ "vehicle_attitude", LOG_REC_ATTITUDE, 1099,
	  { .kind = LOG_REC_ATTITUDE, .att = { 5080903927, 0.03281748419493888, 0.017061483099768387, -1.8522025847746697 } },
	  { .kind = LOG_REC_ATTITUDE, .att = { 5120480777, -0.005363824043694054, 0.012523315356446843, -1.8252690506484854 } } },
	{ "vehicle_gps_position", LOG_REC_GPS, 179,
	  { .kind = LOG_REC_GPS, .gps = { 5080891710, 0, 4, 14, 428.924, 1.4600000381469727, 0.8040000200271606, 0.2840000092983246 } },
	  { .kind = LOG_REC_GPS, .gps = { 5120303403, 0, 4, 16, 424.756, -0.04800000041723251, 0.8300000429153442, 0.2930000126361847 } } },
};

static const struct sensor_expect sens_sitl[] = {
	{ "vehicle_acceleration", LOG_REC_IMU, 624,
	  { .kind = LOG_REC_IMU, .imu = { 1710773350354000, 0, { 0.0495784692466259, -0.027930017560720444, -9.817455291748047 } } },
	  { .kind = LOG_REC_IMU, .imu = { 1710773381454000, 0, { -0.020962489768862724, -0.006049071438610554, -9.816537857055664 } } } },
	{ "sensor_combined", LOG_REC_IMU, 7783,
	  { .kind = LOG_REC_IMU, .imu = { 1710773350354000, 0, { 0.06176302954554558, -0.0017142761498689651, -9.821813583374023 } } },
	  { .kind = LOG_REC_IMU, .imu = { 1710773381482000, 0, { -0.023231130093336105, 0.009059630334377289, -9.812236785888672 } } } },
	{ "vehicle_attitude", LOG_REC_ATTITUDE, 622,
	  { .kind = LOG_REC_ATTITUDE, .att = { 1710773350434000, 0.0013223684382160544, 0.008762311401294309, -0.0009019481402216538 } },
	  { .kind = LOG_REC_ATTITUDE, .att = { 1710773381434000, 0.0014080563082705397, 0.001892114944644558, 0.020246691169513886 } } },
	{ "vehicle_gps_position", LOG_REC_GPS, 583,
	  { .kind = LOG_REC_GPS, .gps = { 1710773351206000, 0, 0, 10, 487.993, -0.0, 97.77999877929688, 0.25 } },
	  { .kind = LOG_REC_GPS, .gps = { 1710773381470000, 0, 3, 10, 487.992, -0.0, 0.3999999761581421, 0.25 } } },
};

static const char *
got_chan(const void *ctx, unsigned channel)
{
	const struct got *g = ctx;
	return channel < g->n_chans ? g->chan[channel] : "?";
}

static void
check_sensors(const char *file, const struct sensor_expect *want,
	      size_t nwant)
{
	struct got *g = read_log(file);
	char msg[160];
	sensor_check(g->rec, g->n, got_chan, g, want, nwant, msg, sizeof(msg));
	if (msg[0])
		fail_msg("%s: %s", file, msg);
	free(g);
}

#define CHECK_SENSORS(file, want) \
	check_sensors(file, want, sizeof(want) / sizeof(want[0]))

static void
test_bundled_sensors(void **state)
{
	(void)state;
	CHECK_SENSORS("px4_cubeorange_bench_2baro.ulg", sens_cube);
	CHECK_SENSORS("px4_fmuv3_flight_rangefinder.ulg", sens_fmuv3);
	CHECK_SENSORS("px4_sitl_hover_barobias.ulg", sens_sitl);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_log),
		cmocka_unit_test(test_trailing_padding),
		cmocka_unit_test(test_truncate_every_byte),
		cmocka_unit_test(test_bad_msg_size),
		cmocka_unit_test(test_resync),
		cmocka_unit_test(test_incompat_flags),
		cmocka_unit_test(test_appended_data),
		cmocka_unit_test(test_nested_layouts),
		cmocka_unit_test(test_unresolvable_formats),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_references),
		cmocka_unit_test(test_sensor_baro_units),
		cmocka_unit_test(test_sensor_combined),
		cmocka_unit_test(test_dropout_times),
		cmocka_unit_test(test_remove_logged),
		cmocka_unit_test(test_fmuv3),
		cmocka_unit_test(test_cubeorange),
		cmocka_unit_test(test_sitl),
		cmocka_unit_test(test_bundled_truncated),
		cmocka_unit_test(test_bundled_damaged),
		cmocka_unit_test(test_bundled_sensors),
		cmocka_unit_test(test_sensor_topics),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
