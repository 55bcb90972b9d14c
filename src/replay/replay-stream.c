// SPDX-License-Identifier: GPL-3.0-or-later
#include "replay-stream.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baro-sitl.h"
#include "faults.h"
#include "scenario.h"
#include "util-strings.h"

/* Grow *arr (elements of size sz) to hold one more; -ENOMEM. */
static int
grow(void **arr, size_t *cap, size_t n, size_t sz)
{
	if (n < *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 1024;
	if (ncap > SIZE_MAX / sz)
		return -ENOMEM;
	void *p = realloc(*arr, ncap * sz);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

void
replay_stream_free(struct replay_stream *st)
{
	free(st->samples);
	free(st->ref);
	free(st->est);
	free(st->events);
	free(st->seg);
	for (size_t i = 0; i < BARO_MAX_INSTANCES - 1; i++)
		free(st->aux.baro[i].s);
	free(st->aux.imu);
	free(st->aux.att);
	free(st->aux.gps);
	free(st->aux.range);
	*st = (struct replay_stream){ 0 };
}

static int
push_sample(struct replay_stream *st, const struct baro_sample *s)
{
	if (!isfinite(s->pressure_pa) || !(s->pressure_pa > 0.0f)) {
		st->dropped_invalid++;
		return 0;
	}
	uint64_t gap_us;
	enum log_seg_break why =
		log_segmenter_push(&st->segmenter, s->time_us, &gap_us);
	struct baro_sample b = *s;
	if (why == LOG_SEG_BACKWARDS && st->n) {
		/* Follow on after the last sample, a visible gap later. */
		uint64_t last = st->samples[st->n - 1].time_us;
		st->shift_us = last + LOG_SEG_GAP_MIN_US + 1u - s->time_us;
	}
	b.time_us += st->shift_us;
	if (st->n && b.time_us < st->samples[st->n - 1].time_us) {
		st->dropped_backwards++;
		return 0;
	}
	int rc = grow((void **)&st->samples, &st->cap, st->n,
		      sizeof(*st->samples));
	if (rc < 0)
		return rc;
	if (why != LOG_SEG_NONE) {
		rc = grow((void **)&st->seg, &st->capseg, st->nseg,
			  sizeof(*st->seg));
		if (rc < 0)
			return rc;
		st->seg[st->nseg++] = (struct replay_segment){
			.first = st->n, .why = why, .gap_us = gap_us,
			.log_us = s->time_us,
		};
	}
	st->samples[st->n++] = b;
	return 0;
}

uint64_t
replay_stream_median_interval(const struct replay_stream *st)
{
	if (st->n < 2)
		return 0;
	uint64_t *v = malloc((st->n - 1) * sizeof(*v));
	if (!v)
		return 0;
	size_t m = 0, k = 0;
	for (size_t i = 1; i < st->n; i++) {
		while (k < st->nseg && st->seg[k].first < i)
			k++;
		if (k < st->nseg && st->seg[k].first == i)
			continue;	/* across a segment break */
		v[m++] = st->samples[i].time_us - st->samples[i - 1].time_us;
	}
	uint64_t med = log_seg_median(v, m);
	free(v);
	return med;
}

void
replay_stream_describe_segments(const struct replay_stream *st, char *buf,
				size_t len)
{
	size_t nseg = st->nseg ? st->nseg : 1;
	int n = snprintf(buf, len, "%zu segment%s", nseg, nseg == 1 ? "" : "s");
	const char *sep = " (";
	for (size_t i = 1; i < st->nseg && n >= 0 && (size_t)n < len; i++) {
		const struct replay_segment *g = &st->seg[i];
		if (g->why == LOG_SEG_GAP)
			n += snprintf(buf + n, len - (size_t)n,
				      "%sgap of %.1f s at %.3f s", sep,
				      (double)g->gap_us * 1e-6,
				      (double)g->log_us * 1e-6);
		else
			n += snprintf(buf + n, len - (size_t)n, "%s%s at %.3f s",
				      sep, log_seg_break_name(g->why),
				      (double)g->log_us * 1e-6);
		sep = ", ";
	}
	if (st->nseg > 1 && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ")");
}

static int
push_ref(struct replay_stream *st, uint64_t t, double alt)
{
	/* Out-of-order reference points would break interpolation. */
	if (!isfinite(alt) || (st->nref && t < st->ref[st->nref - 1].time_us))
		return 0;
	int rc = grow((void **)&st->ref, &st->capref, st->nref,
		      sizeof(*st->ref));
	if (rc < 0)
		return rc;
	st->ref[st->nref++] = (struct replay_point){ t, alt };
	return 0;
}

static int
push_event(struct replay_stream *st, const struct log_event *ev)
{
	int rc = grow((void **)&st->events, &st->capev, st->nev,
		      sizeof(*st->events));
	if (rc < 0)
		return rc;
	st->events[st->nev++] = *ev;
	return 0;
}

/* Every record kind the aux series use starts with its time, so one
 * routine moves them all onto the samples' clock. */
_Static_assert(offsetof(struct log_imu, time_us) == 0, "time first");
_Static_assert(offsetof(struct log_attitude, time_us) == 0, "time first");
_Static_assert(offsetof(struct log_gps, time_us) == 0, "time first");
_Static_assert(offsetof(struct log_range, time_us) == 0, "time first");
_Static_assert(offsetof(struct baro_sample, time_us) == 0, "time first");

enum aux_kind { AUX_IMU, AUX_ATT, AUX_GPS, AUX_RANGE, AUX_KINDS };

/*
 * One aux series as read, on the log's own clock: each record keeps its
 * raw time and its clock epoch, the number of times its own time went
 * back without a reboot (LOG_SEG_BACKWARDS, the same segmenter rule as
 * the samples).  The samples' shift for the same epoch puts it on their
 * clock once the primary channel is known (remap()).
 */
struct aux_gather {
	void *v;
	uint32_t *epoch;
	size_t n, cap, sz;
	struct log_segmenter segm;
	uint32_t cur_epoch;
	int channel;		/* -1 until a record arrives */
	unsigned instance;
	uint64_t dropped_invalid;
};

/* Everything of one log, split by channel, before choosing. */
struct gather {
	struct replay_stream chan[LOG_MAX_CHANNELS];	/* baro channels */
	bool is_baro[LOG_MAX_CHANNELS];
	/* Per reference source: the first channel seen carrying it. */
	int ref_channel[LOG_REF_SOURCE_COUNT];
	struct replay_stream refs[LOG_REF_SOURCE_COUNT];
	enum log_ref_datum datum[LOG_REF_SOURCE_COUNT];
	struct aux_gather aux[AUX_KINDS];
};

static void
aux_gather_reset(struct aux_gather *a, size_t sz)
{
	free(a->v);
	free(a->epoch);
	*a = (struct aux_gather){ .sz = sz, .channel = -1 };
	log_segmenter_init(&a->segm);
}

static struct gather *
gather_new(void)
{
	static const size_t sz[AUX_KINDS] = {
		[AUX_IMU] = sizeof(struct log_imu),
		[AUX_ATT] = sizeof(struct log_attitude),
		[AUX_GPS] = sizeof(struct log_gps),
		[AUX_RANGE] = sizeof(struct log_range),
	};
	struct gather *g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	for (unsigned i = 0; i < LOG_REF_SOURCE_COUNT; i++)
		g->ref_channel[i] = -1;
	for (unsigned k = 0; k < AUX_KINDS; k++)
		aux_gather_reset(&g->aux[k], sz[k]);
	return g;
}

static void
gather_free(struct gather *g)
{
	for (unsigned i = 0; i < LOG_MAX_CHANNELS; i++)
		replay_stream_free(&g->chan[i]);
	for (unsigned i = 0; i < LOG_REF_SOURCE_COUNT; i++)
		replay_stream_free(&g->refs[i]);
	for (unsigned k = 0; k < AUX_KINDS; k++) {
		free(g->aux[k].v);
		free(g->aux[k].epoch);
	}
	free(g);
}

/*
 * One record of an aux kind from channel ch.  The series follows one
 * instance: the lowest seen, on the first channel that carried it (a
 * lower instance appearing later replaces what was gathered, which in
 * the logs seen never happens: instance 0 comes first).
 */
static int
aux_push(struct aux_gather *a, unsigned ch, unsigned instance,
	 const void *rec, bool valid)
{
	if (a->channel >= 0 && (unsigned)a->channel != ch) {
		if (instance >= a->instance)
			return 0;
		aux_gather_reset(a, a->sz);
	}
	if (a->channel < 0) {
		a->channel = (int)ch;
		a->instance = instance;
	}
	if (!valid) {
		a->dropped_invalid++;
		return 0;
	}
	uint64_t t;
	memcpy(&t, rec, sizeof(t));
	if (log_segmenter_push(&a->segm, t, NULL) == LOG_SEG_BACKWARDS &&
	    a->n)
		a->cur_epoch++;
	if (a->n == a->cap) {
		size_t cap = a->cap;
		int rc = grow(&a->v, &cap, a->n, a->sz);
		if (rc == 0)
			rc = grow((void **)&a->epoch, &a->cap, a->n,
				  sizeof(*a->epoch));
		if (rc < 0)
			return rc;
	}
	memcpy((char *)a->v + a->n * a->sz, rec, a->sz);
	a->epoch[a->n++] = a->cur_epoch;
	return 0;
}

static bool
finite3(const double v[3])
{
	return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

static int
gather_record(struct gather *g, struct replay_stream *st,
	      const struct log_record *rec)
{
	unsigned ch = rec->channel;

	switch (rec->kind) {
	case LOG_REC_BARO:
		if (ch >= LOG_MAX_CHANNELS)
			return 0;
		g->is_baro[ch] = true;
		return push_sample(&g->chan[ch], &rec->baro);
	case LOG_REC_REFERENCE: {
		unsigned src = rec->ref.source;
		if (src >= LOG_REF_SOURCE_COUNT)
			return 0;
		if (g->ref_channel[src] < 0) {
			g->ref_channel[src] = (int)ch;
			g->datum[src] = rec->ref.datum;
		}
		if (g->ref_channel[src] != (int)ch)
			return 0;
		return push_ref(&g->refs[src], rec->ref.time_us,
				rec->ref.alt_m);
	}
	case LOG_REC_EVENT:
		if (rec->event.kind == LOG_EVENT_REBOOT) {
			for (unsigned i = 0; i < LOG_MAX_CHANNELS; i++)
				log_segmenter_reboot(&g->chan[i].segmenter);
			for (unsigned k = 0; k < AUX_KINDS; k++)
				log_segmenter_reboot(&g->aux[k].segm);
		}
		return push_event(st, &rec->event);
	case LOG_REC_IMU:
		return aux_push(&g->aux[AUX_IMU], ch, rec->imu.instance,
				&rec->imu, finite3(rec->imu.accel));
	case LOG_REC_ATTITUDE:
		return aux_push(&g->aux[AUX_ATT], ch, 0, &rec->att,
				isfinite(rec->att.roll_rad) &&
					isfinite(rec->att.pitch_rad) &&
					isfinite(rec->att.yaw_rad));
	case LOG_REC_GPS:
		return aux_push(&g->aux[AUX_GPS], ch, rec->gps.instance,
				&rec->gps, isfinite(rec->gps.alt_amsl_m));
	case LOG_REC_RANGE:
		return aux_push(&g->aux[AUX_RANGE], ch, rec->range.instance,
				&rec->range, isfinite(rec->range.distance_m));
	}
	return 0;
}

static void
take(struct replay_stream *dst, struct replay_stream *src)
{
	dst->samples = src->samples;
	dst->n = src->n;
	dst->cap = src->cap;
	dst->dropped_backwards = src->dropped_backwards;
	dst->dropped_invalid = src->dropped_invalid;
	dst->seg = src->seg;
	dst->nseg = src->nseg;
	dst->capseg = src->capseg;
	src->samples = NULL;
	src->n = src->cap = 0;
	src->seg = NULL;
	src->nseg = src->capseg = 0;
}

/*
 * The primary channel's clock, for putting the other series on it: its
 * segments' spans and clock epochs, and the shift of each epoch (its
 * first sample's time in the stream minus the time the log gave it).
 */
struct prim_map {
	size_t nseg;
	struct prim_seg {
		uint64_t t0, t1;	/* first and last sample, stream clock */
		uint32_t epoch;
	} *seg;
	uint32_t nepoch;
	uint64_t *shift;	/* per epoch */
};

static void
prim_map_free(struct prim_map *m)
{
	free(m->seg);
	free(m->shift);
	*m = (struct prim_map){ 0 };
}

/* Where each segment of st starts and ends, with the epoch of its clock
 * (a new one at each LOG_SEG_BACKWARDS break, where push_sample moved
 * the samples by a new shift) and that epoch's shift. */
static size_t
seg_end(const struct replay_stream *st, size_t k)
{
	return k + 1 < st->nseg ? st->seg[k + 1].first : st->n;
}

static int
prim_map_build(struct prim_map *m, const struct replay_stream *st)
{
	*m = (struct prim_map){ 0 };
	if (st->nseg == 0)
		return 0;
	m->seg = calloc(st->nseg, sizeof(*m->seg));
	m->shift = calloc(st->nseg, sizeof(*m->shift));
	if (!m->seg || !m->shift) {
		prim_map_free(m);
		return -ENOMEM;
	}
	for (size_t k = 0; k < st->nseg; k++) {
		const struct replay_segment *g = &st->seg[k];
		if (k == 0 || g->why == LOG_SEG_BACKWARDS)
			m->shift[m->nepoch++] =
				st->samples[g->first].time_us - g->log_us;
		m->seg[k] = (struct prim_seg){
			.t0 = st->samples[g->first].time_us,
			.t1 = st->samples[seg_end(st, k) - 1].time_us,
			.epoch = m->nepoch - 1,
		};
	}
	m->nseg = st->nseg;
	return 0;
}

/* Whether stream time t of epoch e lies inside one of m's segments. */
static bool
prim_map_inside(const struct prim_map *m, uint64_t t, uint32_t e)
{
	size_t lo = 0, hi = m->nseg;	/* the last segment with t0 <= t */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->seg[mid].t0 <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return false;
	const struct prim_seg *g = &m->seg[lo - 1];
	return t <= g->t1 && g->epoch == e;
}

/*
 * Move n records (element size sz, raw log time first, epoch[i] their
 * clock epoch) onto the primary's clock, keeping those inside its
 * segments and not earlier than the one kept before: the samples' own
 * rules.  Compacts v in place; returns how many stay.
 */
static size_t
remap(void *v, size_t n, size_t sz, const uint32_t *epoch,
      const struct prim_map *m, struct replay_aux *aux)
{
	size_t kept = 0;
	uint64_t last = 0;

	for (size_t i = 0; i < n; i++) {
		char *rec = (char *)v + i * sz;
		uint64_t t;
		memcpy(&t, rec, sizeof(t));
		if (epoch[i] >= m->nepoch) {
			aux->dropped_outside++;
			continue;
		}
		t += m->shift[epoch[i]];
		if (!prim_map_inside(m, t, epoch[i])) {
			aux->dropped_outside++;
			continue;
		}
		if (kept && t < last) {
			aux->dropped_backwards++;
			continue;
		}
		memcpy(rec, &t, sizeof(t));
		if (kept != i)
			memmove((char *)v + kept * sz, rec, sz);
		kept++;
		last = t;
	}
	return kept;
}

/* A further baro channel, gathered as a stream of its own (push_sample
 * shifted it by its own restarts): back to raw times and epochs, then
 * onto the primary's clock. */
static int
remap_baro(struct replay_stream *c, const struct prim_map *m,
	   struct replay_aux *aux)
{
	if (c->n == 0)
		return 0;
	uint32_t *epoch = malloc(c->n * sizeof(*epoch));
	if (!epoch)
		return -ENOMEM;
	uint32_t e = 0;
	for (size_t k = 0; k < c->nseg; k++) {
		const struct replay_segment *g = &c->seg[k];
		if (k > 0 && g->why == LOG_SEG_BACKWARDS)
			e++;
		const uint64_t own = c->samples[g->first].time_us - g->log_us;
		for (size_t i = g->first; i < seg_end(c, k); i++) {
			c->samples[i].time_us -= own;
			epoch[i] = e;
		}
	}
	c->n = remap(c->samples, c->n, sizeof(*c->samples), epoch, m, aux);
	free(epoch);
	return 0;
}

/* "BARO[1]" is family BARO, instance 1; "SCALED_PRESSURE2" is
 * SCALED_PRESSURE, 1.  Only the raw per-sensor streams have a family:
 * vehicle_air_data, CTUN.BarAlt and the like are fused or derived. */
static bool
baro_family(const char *name, char *fam, size_t famlen, unsigned *inst)
{
	static const char *const raw[] = { "BARO", "sensor_baro", "baro" };
	static const char sp[] = "SCALED_PRESSURE";

	if (strncmp(name, sp, sizeof(sp) - 1) == 0) {
		const char *d = name + sizeof(sp) - 1;
		if (d[0] == '\0')
			*inst = 0;
		else if ((d[0] == '2' || d[0] == '3') && d[1] == '\0')
			*inst = (unsigned)(d[0] - '1');
		else
			return false;
		snprintf(fam, famlen, "%s", sp);
		return true;
	}
	const char *br = strchr(name, '[');
	if (!br)
		return false;
	char *end;
	unsigned long n = strtoul(br + 1, &end, 10);
	if (end == br + 1 || strcmp(end, "]") != 0 || n >= 256)
		return false;
	for (size_t i = 0; i < sizeof(raw) / sizeof(raw[0]); i++)
		if (strlen(raw[i]) == (size_t)(br - name) &&
		    strncmp(name, raw[i], (size_t)(br - name)) == 0) {
			snprintf(fam, famlen, "%s", raw[i]);
			*inst = (unsigned)n;
			return true;
		}
	return false;
}

/* The further baro channels beside pick, in instance order, into out
 * (at most BARO_MAX_INSTANCES - 1); returns how many. */
static size_t
aux_baro_channels(const struct gather *g, const struct log_reader *r,
		  unsigned pick, unsigned out[BARO_MAX_INSTANCES - 1])
{
	char fam[32], f[32];
	unsigned inst, pinst;
	const char *pn = log_reader_channel_name(r, pick);
	bool derived = !pn || !baro_family(pn, fam, sizeof(fam), &pinst);
	/* Beside a fused stream, the sensors it was fused from. */
	static const char *const under[] = { "sensor_baro", "BARO" };
	size_t nfam = derived ? sizeof(under) / sizeof(under[0]) : 1;
	size_t n = 0;

	for (size_t u = 0; u < nfam && n == 0; u++) {
		if (derived)
			snprintf(fam, sizeof(fam), "%s", under[u]);
		unsigned best_inst[LOG_MAX_CHANNELS];
		unsigned cand[LOG_MAX_CHANNELS];
		size_t nc = 0;
		for (unsigned i = 0; i < LOG_MAX_CHANNELS; i++) {
			if (i == pick || !g->is_baro[i] || g->chan[i].n == 0)
				continue;
			const char *cn = log_reader_channel_name(r, i);
			if (!cn || !baro_family(cn, f, sizeof(f), &inst) ||
			    strcmp(f, fam) != 0)
				continue;
			/* Insertion by instance; equal ones keep channel
			 * order. */
			size_t j = nc++;
			while (j > 0 && best_inst[j - 1] > inst) {
				best_inst[j] = best_inst[j - 1];
				cand[j] = cand[j - 1];
				j--;
			}
			best_inst[j] = inst;
			cand[j] = i;
		}
		for (size_t j = 0; j < nc && n < BARO_MAX_INSTANCES - 1; j++)
			out[n++] = cand[j];
	}
	return n;
}

/* Move the gathered aux series of g onto st's clock and into st->aux. */
static int
take_aux(struct replay_stream *st, struct gather *g, const struct log_reader *r,
	 unsigned pick)
{
	struct replay_aux *aux = &st->aux;
	struct prim_map m;
	int rc = prim_map_build(&m, st);
	if (rc < 0)
		return rc;

	unsigned bc[BARO_MAX_INSTANCES - 1];
	size_t nb = aux_baro_channels(g, r, pick, bc);
	for (size_t j = 0; j < nb && rc == 0; j++) {
		struct replay_stream *c = &g->chan[bc[j]];
		if ((rc = remap_baro(c, &m, aux)) < 0)
			break;
		struct replay_baro_series *b = &aux->baro[aux->nbaro++];
		const char *cn = log_reader_channel_name(r, bc[j]);
		snprintf(b->channel, sizeof(b->channel), "%s", cn ? cn : "?");
		aux->dropped_backwards += c->dropped_backwards;
		aux->dropped_invalid += c->dropped_invalid;
		b->s = c->samples;
		b->n = c->n;
		b->cap = c->cap;
		c->samples = NULL;
		c->n = c->cap = 0;
	}

	struct {
		void **v;
		size_t *n, *cap;
		char *channel;
	} dst[AUX_KINDS] = {
		[AUX_IMU] = { (void **)&aux->imu, &aux->nimu, &aux->capimu,
			      aux->imu_channel },
		[AUX_ATT] = { (void **)&aux->att, &aux->natt, &aux->capatt,
			      aux->att_channel },
		[AUX_GPS] = { (void **)&aux->gps, &aux->ngps, &aux->capgps,
			      aux->gps_channel },
		[AUX_RANGE] = { (void **)&aux->range, &aux->nrange,
				&aux->caprange, aux->range_channel },
	};
	for (unsigned k = 0; k < AUX_KINDS && rc == 0; k++) {
		struct aux_gather *a = &g->aux[k];
		aux->dropped_invalid += a->dropped_invalid;
		if (a->channel < 0)
			continue;
		const char *cn = log_reader_channel_name(r, (unsigned)a->channel);
		snprintf(dst[k].channel, 64, "%s", cn ? cn : "?");
		*dst[k].n = remap(a->v, a->n, a->sz, a->epoch, &m, aux);
		*dst[k].v = a->v;
		*dst[k].cap = a->cap;
		a->v = NULL;
		a->n = a->cap = 0;
	}
	prim_map_free(&m);
	return rc;
}

int
replay_stream_from_log(struct replay_stream *st, struct log_reader *r,
		       const char *name, const char *channel,
		       const char *reference, char *err, size_t errlen)
{
	static const enum log_ref_source priority[] = {
		LOG_REF_TRUTH, LOG_REF_GPS, LOG_REF_EKF, LOG_REF_RANGEFINDER,
		LOG_REF_LOG_BARO_ALT,
	};
	struct log_record rec;
	int rc;

	*st = (struct replay_stream){ 0 };
	snprintf(st->name, sizeof(st->name), "%s", name);
	struct gather *g = gather_new();
	if (!g)
		return str_errorf(err, errlen, -ENOMEM, "out of memory");

	while ((rc = log_reader_next(r, &rec)) > 0)
		if ((rc = gather_record(g, st, &rec)) < 0)
			break;
	if (rc == -ENOMEM) {
		gather_free(g);
		replay_stream_free(st);
		return str_errorf(err, errlen, rc, "%s: out of memory", name);
	}
	if (rc < 0)
		snprintf(st->damage, sizeof(st->damage), "%s", r->err);
	st->info = r->info;

	int pick = -1;
	for (unsigned i = 0; i < LOG_MAX_CHANNELS; i++) {
		if (!g->is_baro[i])
			continue;
		const char *cn = log_reader_channel_name(r, i);
		if (channel) {
			if (cn && strcmp(cn, channel) == 0)
				pick = (int)i;
		} else if (pick < 0 || g->chan[i].n > g->chan[pick].n) {
			pick = (int)i;
		}
	}
	if (pick < 0) {
		gather_free(g);
		replay_stream_free(st);
		if (channel)
			return str_errorf(err, errlen, -ENOENT,
				       "%s: no baro channel '%s' (see baro-replay list)",
				       name, channel);
		return str_errorf(err, errlen, -ENODATA,
			       "%s: no barometer samples%s%s", name,
			       st->damage[0] ? ": " : "", st->damage);
	}
	const char *cn = log_reader_channel_name(r, (unsigned)pick);
	snprintf(st->channel, sizeof(st->channel), "%s", cn ? cn : "?");
	take(st, &g->chan[pick]);
	if (take_aux(st, g, r, (unsigned)pick) < 0) {
		gather_free(g);
		replay_stream_free(st);
		return str_errorf(err, errlen, -ENOMEM, "%s: out of memory",
				  name);
	}

	int src = -1;
	if (reference) {
		for (unsigned i = 0; i < LOG_REF_SOURCE_COUNT; i++)
			if (strcmp(log_ref_source_name(i), reference) == 0)
				src = (int)i;
		if (src < 0 || g->refs[src].nref == 0) {
			gather_free(g);
			replay_stream_free(st);
			return str_errorf(err, errlen, -ENOENT,
				       "%s: no '%s' reference in this log",
				       name, reference);
		}
	} else {
		for (size_t i = 0; i < sizeof(priority) / sizeof(priority[0]);
		     i++)
			if (g->refs[priority[i]].nref) {
				src = (int)priority[i];
				break;
			}
	}
	if (src >= 0) {
		struct replay_stream *rs = &g->refs[src];
		const char *rn = log_reader_channel_name(
			r, (unsigned)g->ref_channel[src]);
		snprintf(st->reference, sizeof(st->reference), "%s (%s)",
			 log_ref_source_name((enum log_ref_source)src),
			 rn ? rn : "?");
		st->ref = rs->ref;
		st->nref = rs->nref;
		st->capref = rs->capref;
		st->ref_datum = g->datum[src];
		rs->ref = NULL;
		rs->nref = rs->capref = 0;
	}
	/* The autopilot's own estimate, judged as a filter's output (the
	 * `autopilot` filter); a copy when it is the reference too. */
	struct replay_stream *es = &g->refs[LOG_REF_EKF];
	if (src == (int)LOG_REF_EKF && st->nref) {
		st->est = malloc(st->nref * sizeof(*st->est));
		if (!st->est) {
			gather_free(g);
			replay_stream_free(st);
			return str_errorf(err, errlen, -ENOMEM,
					  "%s: out of memory", name);
		}
		memcpy(st->est, st->ref, st->nref * sizeof(*st->est));
		st->nest = st->nref;
	} else if (es->nref) {
		st->est = es->ref;
		st->nest = es->nref;
		es->ref = NULL;
		es->nref = es->capref = 0;
	}
	if (st->nest) {
		const char *en = log_reader_channel_name(
			r, (unsigned)g->ref_channel[LOG_REF_EKF]);
		snprintf(st->estimate, sizeof(st->estimate), "%s",
			 en ? en : "?");
	}
	gather_free(g);
	return 0;
}

void
replay_synth_config_init(struct replay_synth_config *c)
{
	*c = (struct replay_synth_config){
		.ardupilot = BARO_SITL_AP_DEFAULT,
		.baro_period_ms = { BARO_SITL_PERIOD_MS, 20, 12 },
		.baro_phase_ms = { 0, 5, 7 },
	};
	synth_sensor_params_defaults(&c->sensors);
}

/* The truth the emulator takes at ms: the profile's height from home,
 * quantised to SITL's centimetres, its throttle, and SITL's height above
 * ground as that instance's tracker sees it. */
static int
synth_truth(const struct replay_synth_config *c, struct baro_sitl_agl *agl,
	    uint64_t ms, struct baro_sitl_truth *truth)
{
	const double t = (double)ms * 1e-3;
	int32_t alt_cm;

	*truth = (struct baro_sitl_truth){
		.throttle = (float)truth_profile_throttle(c->profile, t),
	};
	if (baro_sitl_altitude_cm(c->home_m,
				  truth_profile_height(c->profile, t),
				  &alt_cm) < 0)
		return -ERANGE;
	truth->alt_amsl_m = baro_sitl_alt_from_cm(alt_cm);
	truth->height_agl_m =
		baro_sitl_agl_update(agl, baro_sitl_state_altitude(alt_cm));
	return 0;
}

/*
 * Barometer 0, the samples, through an emulator of its own with only
 * that instance, seeded with the stream's seed: its samples are those of
 * a one-baro stream whatever else runs.  The truth reference is written
 * at each of its ticks.
 */
static int
synth_baro0(struct replay_stream *st, const struct replay_synth_config *c,
	    const struct sim_params *params, uint64_t end_ms, char *err,
	    size_t errlen)
{
	struct sim_params p = *params;
	struct baro_sitl sim;
	struct baro_sitl_agl agl;

	p.baro_count = 1;
	baro_sitl_init(&sim, &p, baro_sitl_ardupilot_atmosphere(c->ardupilot),
		       c->seed);
	baro_sitl_set_ardupilot(&sim, c->ardupilot);
	baro_sitl_agl_init(&agl);

	const uint64_t period = c->baro_period_ms[0];
	for (uint64_t ms = period + c->baro_phase_ms[0]; ms <= end_ms;
	     ms += period) {
		struct baro_sitl_truth truth;
		struct baro_sample out[BARO_MAX_INSTANCES];
		if (synth_truth(c, &agl, ms, &truth) < 0)
			return str_errorf(err, errlen, -ERANGE,
				       "synthetic profile leaves the atmosphere at %.3f s",
				       (double)ms * 1e-3);
		int rc = 0;
		if (baro_sitl_update(&sim, (uint32_t)ms, &truth, out))
			rc = push_sample(st, &out[0]);
		if (rc == 0)
			rc = push_ref(st, ms * 1000u, (double)truth.alt_amsl_m);
		if (rc < 0)
			return str_errorf(err, errlen, rc, "out of memory");
	}
	return 0;
}

/* Run the scenario up to scenario time rel_ms. */
static int
synth_step_scenario(struct scenario_run *run, uint64_t rel_ms,
		    struct baro_sitl *sim, struct fault_overlay *ov)
{
	struct scenario_event ev[SCENARIO_EVENTS_MIN];
	do {
		int n = scenario_step(run, rel_ms, sim, ov, ev,
				      SCENARIO_EVENTS_MIN);
		if (n < 0)
			return n;
	} while (scenario_run_due(run, rel_ms));
	return 0;
}

/*
 * Further barometer i (1 or 2) through an emulator of its own with the
 * whole parameter set and SIM_BARO_COUNT i + 1, of which only instance i
 * is kept: its SIM_BAR2_/SIM_BAR3_ parameters act as in ArduPilot, its
 * noise stream is its own.  The scenario, if any, drives that emulator
 * and a fault overlay from the samples' first time on (where the
 * injector starts it on baro 0), so `glitch 1 15` faults this baro while
 * baro 0 gets only its own actions, from the injector.
 */
static int
synth_baro_aux(struct replay_stream *st, const struct replay_synth_config *c,
	       const struct sim_params *params, unsigned i, uint64_t end_ms,
	       char *err, size_t errlen)
{
	struct sim_params p = *params;
	struct baro_sitl sim;
	struct baro_sitl_agl agl;
	struct fault_overlay ov;
	struct scenario_run *run = NULL;
	struct replay_baro_series *b = &st->aux.baro[i - 1];
	const uint32_t seed = c->seed ^ (0x27d4eb2fu * i);
	const uint64_t t0_ms = c->baro_period_ms[0] + c->baro_phase_ms[0];
	int rc = 0;

	p.baro_count = (int8_t)(i + 1);
	baro_sitl_init(&sim, &p, baro_sitl_ardupilot_atmosphere(c->ardupilot),
		       seed);
	baro_sitl_set_ardupilot(&sim, c->ardupilot);
	baro_sitl_agl_init(&agl);
	fault_overlay_init(&ov, seed);
	snprintf(b->channel, sizeof(b->channel), "AP_Baro_SITL[%u]", i);
	if (c->sc) {
		run = malloc(sizeof(*run));
		if (!run)
			return str_errorf(err, errlen, -ENOMEM, "out of memory");
		scenario_run_init(run, c->sc, &sim, (uint32_t)t0_ms);
	}

	const uint64_t period = c->baro_period_ms[i];
	for (uint64_t ms = period + c->baro_phase_ms[i];
	     ms <= end_ms && rc == 0; ms += period) {
		struct baro_sitl_truth truth;
		struct baro_sample out[BARO_MAX_INSTANCES];
		if (synth_truth(c, &agl, ms, &truth) < 0) {
			rc = str_errorf(err, errlen, -ERANGE,
				     "synthetic profile leaves the atmosphere at %.3f s",
				     (double)ms * 1e-3);
			break;
		}
		if (run && ms >= t0_ms &&
		    (rc = synth_step_scenario(run, ms - t0_ms, &sim, &ov)) < 0) {
			str_errorf(err, errlen, rc,
				   "synthetic baro %u: scenario step failed", i);
			break;
		}
		unsigned n = baro_sitl_update(&sim, (uint32_t)ms, &truth, out);
		for (unsigned k = 0; k < n && rc == 0; k++) {
			if (out[k].instance != i ||
			    !fault_overlay_apply(&ov, &out[k]))
				continue;
			rc = grow((void **)&b->s, &b->cap, b->n, sizeof(*b->s));
			if (rc == 0)
				b->s[b->n++] = out[k];
			else
				str_errorf(err, errlen, rc, "out of memory");
		}
	}
	free(run);
	return rc;
}

static uint64_t
period_us(double hz)
{
	return (uint64_t)llround(1e6 / hz);
}

/* Append one record of sz bytes to *arr. */
static int
append(void **arr, size_t *n, size_t *cap, size_t sz, const void *rec)
{
	int rc = grow(arr, cap, *n, sz);
	if (rc < 0)
		return rc;
	memcpy((char *)*arr + *n * sz, rec, sz);
	(*n)++;
	return 0;
}

/* The other sensors, each at its own rate from its first period on and
 * up to end_us (the last baro-0 tick), so all lie inside the samples'
 * one segment. */
static int
synth_aux(struct replay_stream *st, const struct replay_synth_config *c,
	  uint64_t end_us)
{
	struct replay_aux *aux = &st->aux;
	struct synth_sensors s;
	/* Nothing before the first baro-0 sample (10 ms). */
	const uint64_t t_min = (uint64_t)BARO_SITL_PERIOD_MS * 1000u;
	int rc = 0;

	synth_sensors_init(&s, &c->sensors, c->profile, c->home_m, c->seed);
	snprintf(aux->imu_channel, sizeof(aux->imu_channel), "IMU[0]");
	snprintf(aux->att_channel, sizeof(aux->att_channel), "ATT");
	snprintf(aux->gps_channel, sizeof(aux->gps_channel), "GPS[0]");
	snprintf(aux->range_channel, sizeof(aux->range_channel), "RFND[0]");

	uint64_t dt = period_us(c->sensors.imu_rate_hz);
	for (uint64_t t = dt; t <= end_us && rc == 0; t += dt) {
		struct log_imu v;
		if (t < t_min)
			continue;
		synth_imu(&s, t, &v);
		rc = append((void **)&aux->imu, &aux->nimu, &aux->capimu,
			    sizeof(v), &v);
	}
	dt = period_us(c->sensors.att_rate_hz);
	for (uint64_t t = dt; t <= end_us && rc == 0; t += dt) {
		struct log_attitude v;
		if (t < t_min)
			continue;
		synth_attitude(&s, t, &v);
		rc = append((void **)&aux->att, &aux->natt, &aux->capatt,
			    sizeof(v), &v);
	}
	/* Every fix goes through the lag's history, published or not. */
	dt = period_us(c->sensors.gps_rate_hz);
	for (uint64_t t = dt; t <= end_us && rc == 0; t += dt) {
		struct log_gps v;
		if (synth_gps(&s, t, &v) && t >= t_min)
			rc = append((void **)&aux->gps, &aux->ngps,
				    &aux->capgps, sizeof(v), &v);
	}
	dt = period_us(c->sensors.range_rate_hz);
	for (uint64_t t = dt; t <= end_us && rc == 0; t += dt) {
		struct log_range v;
		if (t < t_min)
			continue;
		synth_range(&s, t, &v);
		rc = append((void **)&aux->range, &aux->nrange,
			    &aux->caprange, sizeof(v), &v);
	}
	return rc;
}

int
replay_stream_synthetic_with(struct replay_stream *st,
			     const struct replay_synth_config *c, char *err,
			     size_t errlen)
{
	struct sim_params p;

	*st = (struct replay_stream){ 0 };
	if (!(c->duration_s > 0.0) || c->duration_s > 86400.0)
		return str_errorf(err, errlen, -EINVAL,
			       "synthetic duration %g s: must be in (0, 86400]",
			       c->duration_s);
	if (c->params)
		p = *c->params;
	else
		sim_params_defaults(&p);
	const unsigned nbaro = c->nbaro ? c->nbaro : (unsigned)p.baro_count;
	if (nbaro < 1 || nbaro > BARO_MAX_INSTANCES)
		return str_errorf(err, errlen, -EINVAL,
			       "synthetic barometers: %u is not 1 to %u%s",
			       nbaro, BARO_MAX_INSTANCES,
			       c->nbaro ? "" : " (SIM_BARO_COUNT)");
	for (unsigned i = 0; i < nbaro; i++)
		if (c->baro_period_ms[i] < BARO_SITL_PERIOD_MS ||
		    c->baro_period_ms[i] > 1000 || c->baro_phase_ms[i] > 1000)
			return str_errorf(err, errlen, -EINVAL,
				       "synthetic baro %u: period %u ms and "
				       "phase %u ms must be in [10, 1000] "
				       "and [0, 1000]",
				       i, c->baro_period_ms[i],
				       c->baro_phase_ms[i]);
	int rc = synth_sensor_params_check(&c->sensors, err, errlen);
	if (rc < 0)
		return rc;

	snprintf(st->name, sizeof(st->name), "synthetic");
	snprintf(st->channel, sizeof(st->channel), "AP_Baro_SITL[0]");
	snprintf(st->reference, sizeof(st->reference), "truth (profile)");
	snprintf(st->info.firmware, sizeof(st->info.firmware),
		 "barod AP_Baro_SITL emulator");
	st->ref_datum = LOG_DATUM_AMSL;

	const uint64_t end_ms = (uint64_t)llround(c->duration_s * 1000.0);
	st->aux.nbaro = nbaro - 1;
	rc = synth_baro0(st, c, &p, end_ms, err, errlen);
	for (unsigned i = 1; i < nbaro && rc == 0; i++)
		rc = synth_baro_aux(st, c, &p, i, end_ms, err, errlen);
	const uint64_t end_us =
		end_ms / BARO_SITL_PERIOD_MS * BARO_SITL_PERIOD_MS * 1000u;
	if (rc == 0 && (rc = synth_aux(st, c, end_us)) < 0)
		str_errorf(err, errlen, rc, "out of memory");
	if (rc < 0)
		replay_stream_free(st);
	return rc;
}

int
replay_stream_synthetic(struct replay_stream *st,
			const struct truth_profile *profile,
			double duration_s, double home_m,
			const struct sim_params *params,
			enum baro_sitl_ardupilot ardupilot, uint32_t seed,
			char *err, size_t errlen)
{
	struct replay_synth_config c;

	replay_synth_config_init(&c);
	c.profile = profile;
	c.duration_s = duration_s;
	c.home_m = home_m;
	c.params = params;
	c.ardupilot = ardupilot;
	c.seed = seed;
	return replay_stream_synthetic_with(st, &c, err, errlen);
}

/* Linear interpolation in a sorted series; NaN outside it or across a
 * gap over max_gap_us. */
static double
points_at(const struct replay_point *pt, size_t n, uint64_t time_us,
	  uint64_t max_gap_us)
{
	if (n == 0 || time_us < pt[0].time_us || time_us > pt[n - 1].time_us)
		return NAN;
	/* First point at or after time_us. */
	size_t lo = 0, hi = n - 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (pt[mid].time_us < time_us)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct replay_point *b = &pt[lo];
	if (b->time_us == time_us || lo == 0)
		return b->alt_m;
	const struct replay_point *a = &pt[lo - 1];
	if (b->time_us - a->time_us > max_gap_us)
		return NAN;
	const double f = (double)(time_us - a->time_us) /
			 (double)(b->time_us - a->time_us);
	return a->alt_m + f * (b->alt_m - a->alt_m);
}

double
replay_stream_ref_at(const struct replay_stream *st, uint64_t time_us,
		     uint64_t max_gap_us)
{
	return points_at(st->ref, st->nref, time_us, max_gap_us);
}

double
replay_stream_est_at(const struct replay_stream *st, uint64_t time_us,
		     uint64_t max_gap_us)
{
	return points_at(st->est, st->nest, time_us, max_gap_us);
}
