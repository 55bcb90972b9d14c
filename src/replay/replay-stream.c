// SPDX-License-Identifier: GPL-3.0-or-later
#include "replay-stream.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baro-sitl.h"
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
	free(st->events);
	free(st->seg);
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

/* Everything of one log, split by channel, before choosing. */
struct gather {
	struct replay_stream chan[LOG_MAX_CHANNELS];	/* baro channels */
	bool is_baro[LOG_MAX_CHANNELS];
	/* Per reference source: the first channel seen carrying it. */
	int ref_channel[LOG_REF_SOURCE_COUNT];
	struct replay_stream refs[LOG_REF_SOURCE_COUNT];
	enum log_ref_datum datum[LOG_REF_SOURCE_COUNT];
};

static void
gather_free(struct gather *g)
{
	for (unsigned i = 0; i < LOG_MAX_CHANNELS; i++)
		replay_stream_free(&g->chan[i]);
	for (unsigned i = 0; i < LOG_REF_SOURCE_COUNT; i++)
		replay_stream_free(&g->refs[i]);
	free(g);
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
		if (rec->event.kind == LOG_EVENT_REBOOT)
			for (unsigned i = 0; i < LOG_MAX_CHANNELS; i++)
				log_segmenter_reboot(&g->chan[i].segmenter);
		return push_event(st, &rec->event);
	case LOG_REC_IMU:
	case LOG_REC_ATTITUDE:
	case LOG_REC_GPS:
	case LOG_REC_RANGE:
		return 0;	/* not gathered yet */
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
	struct gather *g = calloc(1, sizeof(*g));
	if (!g)
		return str_errorf(err, errlen, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < LOG_REF_SOURCE_COUNT; i++)
		g->ref_channel[i] = -1;

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
	gather_free(g);
	return 0;
}

int
replay_stream_synthetic(struct replay_stream *st,
			const struct truth_profile *profile,
			double duration_s, double home_m,
			const struct sim_params *params,
			enum baro_sitl_ardupilot ardupilot, uint32_t seed,
			char *err, size_t errlen)
{
	struct sim_params p;
	struct baro_sitl sim;
	struct baro_sitl_agl agl;

	*st = (struct replay_stream){ 0 };
	if (!(duration_s > 0.0) || duration_s > 86400.0)
		return str_errorf(err, errlen, -EINVAL,
			       "synthetic duration %g s: must be in (0, 86400]",
			       duration_s);
	snprintf(st->name, sizeof(st->name), "synthetic");
	snprintf(st->channel, sizeof(st->channel), "AP_Baro_SITL[0]");
	snprintf(st->reference, sizeof(st->reference), "truth (profile)");
	snprintf(st->info.firmware, sizeof(st->info.firmware),
		 "barod AP_Baro_SITL emulator");
	st->ref_datum = LOG_DATUM_AMSL;
	if (params)
		p = *params;
	else
		sim_params_defaults(&p);
	p.baro_count = 1;
	baro_sitl_init(&sim, &p, baro_sitl_ardupilot_atmosphere(ardupilot),
		       seed);
	baro_sitl_set_ardupilot(&sim, ardupilot);
	baro_sitl_agl_init(&agl);

	const uint64_t end_ms = (uint64_t)llround(duration_s * 1000.0);
	for (uint64_t ms = BARO_SITL_PERIOD_MS; ms <= end_ms;
	     ms += BARO_SITL_PERIOD_MS) {
		const double t = (double)ms * 1e-3;
		const double h = truth_profile_height(profile, t);
		struct baro_sitl_truth truth = {
			.throttle = (float)truth_profile_throttle(profile, t),
		};
		struct baro_sample out[BARO_MAX_INSTANCES];
		int32_t alt_cm;
		if (baro_sitl_altitude_cm(home_m, h, &alt_cm) == 0) {
			truth.alt_amsl_m = baro_sitl_alt_from_cm(alt_cm);
			truth.height_agl_m = baro_sitl_agl_update(
				&agl, baro_sitl_state_altitude(alt_cm));
		} else {
			replay_stream_free(st);
			return str_errorf(err, errlen, -ERANGE,
				       "synthetic profile leaves the atmosphere at %.3f s",
				       (double)ms * 1e-3);
		}
		unsigned n = baro_sitl_update(&sim, (uint32_t)ms, &truth, out);
		int rc = 0;
		if (n)
			rc = push_sample(st, &out[0]);
		if (rc == 0)
			rc = push_ref(st, (uint64_t)ms * 1000u,
				      (double)truth.alt_amsl_m);
		if (rc < 0) {
			replay_stream_free(st);
			return str_errorf(err, errlen, rc, "out of memory");
		}
	}
	return 0;
}

double
replay_stream_ref_at(const struct replay_stream *st, uint64_t time_us,
		     uint64_t max_gap_us)
{
	if (st->nref == 0 || time_us < st->ref[0].time_us ||
	    time_us > st->ref[st->nref - 1].time_us)
		return NAN;
	/* First point at or after time_us. */
	size_t lo = 0, hi = st->nref - 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (st->ref[mid].time_us < time_us)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct replay_point *b = &st->ref[lo];
	if (b->time_us == time_us || lo == 0)
		return b->alt_m;
	const struct replay_point *a = &st->ref[lo - 1];
	if (b->time_us - a->time_us > max_gap_us)
		return NAN;
	const double f = (double)(time_us - a->time_us) /
			 (double)(b->time_us - a->time_us);
	return a->alt_m + f * (b->alt_m - a->alt_m);
}
