// SPDX-License-Identifier: GPL-3.0-or-later
#include "log-reader.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const struct log_format_ops *const formats[] = {
	&log_format_dataflash,
	&log_format_ulog,
	&log_format_tlog,
	/* Last: CSV's sniff is the loosest (printable text). */
	&log_format_csv,
};

const struct log_format_ops *
log_format_by_name(const char *name)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcmp(formats[i]->name, name) == 0)
			return formats[i];
	return NULL;
}

static int
fail(struct log_reader *r, int err, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(r->err, sizeof(r->err), "%s: ", r->name);
	if (n < 0 || (size_t)n >= sizeof(r->err))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(r->err + n, sizeof(r->err) - (size_t)n, fmt, ap);
	va_end(ap);
	r->failed = true;
	r->error = err;
	return err;
}

static int
open_common(struct log_reader *r, const char *format)
{
	const uint8_t *head;
	long got = log_input_peek(&r->in, 64, &head);
	if (got < 0)
		return fail(r, (int)got, "read failed: %s", strerror((int)-got));
	/* A gzip'd log is read through zlib, whatever the name says. */
	if (log_input_is_gzip(head, (size_t)got)) {
		int rc = log_input_gunzip(&r->in);
		if (rc == -ENOTSUP)
			return fail(r, rc, "gzip'd log, and this baro-replay "
					   "was built without zlib (zlib1g-dev): "
					   "gunzip it first");
		if (rc < 0)
			return fail(r, rc, "gzip: %s", strerror(-rc));
		got = log_input_peek(&r->in, 64, &head);
		if (got < 0)
			return fail(r, (int)got, "gzip: %s",
				    log_input_error_text(&r->in));
		if (got == 0 && !format)
			return fail(r, -EPROTONOSUPPORT,
				    "gzip: empty once inflated");
	}
	if (format) {
		r->ops = log_format_by_name(format);
		if (!r->ops)
			return fail(r, -EINVAL,
				    "unknown format '%s' (dataflash, ulog, tlog or csv)",
				    format);
	} else {
		if (got == 0)
			return fail(r, -EPROTONOSUPPORT, "empty file");
		for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
			if (formats[i]->sniff(head, (size_t)got)) {
				r->ops = formats[i];
				break;
			}
		if (!r->ops)
			return fail(r, -EPROTONOSUPPORT,
				    "not a DataFlash, ULog, tlog or CSV log");
	}
	char err[LOG_ERR_LEN] = "";
	int rc = r->ops->open(&r->priv, &r->in, &r->info, err, sizeof(err));
	if (rc < 0)
		return fail(r, rc, "%s", err[0] ? err : strerror(-rc));
	return 0;
}

int
log_reader_open_fd(struct log_reader *r, int fd, const char *name,
		   const char *format)
{
	*r = (struct log_reader){ .name = name ? name : "log" };
	int rc = log_input_init_fd(&r->in, fd);
	if (rc < 0)
		return fail(r, rc, "out of memory");
	return open_common(r, format);
}

int
log_reader_open_mem(struct log_reader *r, const void *data, size_t len,
		    const char *name, const char *format)
{
	*r = (struct log_reader){ .name = name ? name : "log" };
	log_input_init_mem(&r->in, data, len);
	return open_common(r, format);
}

int
log_reader_next(struct log_reader *r, struct log_record *rec)
{
	if (r->failed)
		return -EBADMSG;
	if (!r->priv)
		return fail(r, -EINVAL, "reader not open");
	char err[LOG_ERR_LEN] = "";
	*rec = (struct log_record){ 0 };
	int rc = r->ops->next(r->priv, &r->in, rec, &r->info, err, sizeof(err));
	/* A broken gzip stream is the cause, whatever the reader made of
	 * the bytes inflated before the break. */
	if (rc < 0 && r->in.gz && r->in.error)
		return fail(r, rc, "gzip: %s after %" PRIu64 " bytes inflated"
				   "%s%s",
			    log_input_error_text(&r->in),
			    log_input_offset(&r->in) + r->in.avail,
			    err[0] ? "; " : "", err);
	if (rc < 0)
		return fail(r, rc, "%s", err[0] ? err : strerror(-rc));
	/* A dropout's time is the reader's guess, not a recorded one. */
	if (rc > 0 && !(rec->kind == LOG_REC_EVENT &&
			rec->event.kind == LOG_EVENT_DROPOUT))
		log_info_span(&r->info, log_record_time(rec));
	return rc;
}

void
log_reader_close(struct log_reader *r)
{
	if (r->ops && r->priv)
		r->ops->close(r->priv);
	r->priv = NULL;
	log_input_fini(&r->in);
}

const char *
log_reader_channel_name(const struct log_reader *r, unsigned channel)
{
	if (!r->ops || !r->priv)
		return NULL;
	return r->ops->channel_name(r->priv, channel);
}

void
log_reader_list_types(const struct log_reader *r, log_type_cb cb, void *ud)
{
	if (r->ops && r->priv)
		r->ops->list_types(r->priv, cb, ud);
}

bool
log_reader_damage(const struct log_reader *r, int rc, char *buf, size_t len)
{
	const struct log_info *i = &r->info;
	int n = 0;
	buf[0] = '\0';
	if (i->bytes_skipped || i->records_bad)
		n = snprintf(buf, len, "%" PRIu64 " bytes skipped, %" PRIu64
				       " bad records, the first at offset %"
				       PRIu64,
			     i->bytes_skipped, i->records_bad,
			     i->first_bad_offset);
	if (n < 0 || (size_t)n >= len)
		n = 0;
	/* r->err starts with the log's name, which the caller's message
	 * names already. */
	const char *e = r->err;
	size_t nl = strlen(r->name);
	if (strncmp(e, r->name, nl) == 0 && strncmp(e + nl, ": ", 2) == 0)
		e += nl + 2;
	if (rc < 0)
		snprintf(buf + n, len - (size_t)n, "%sreading stopped: %s",
			 n ? "; " : "", e);
	return rc < 0 || i->bytes_skipped || i->records_bad;
}

bool
log_reader_cut_off(const struct log_reader *r)
{
	/* Every reader says -ENODATA for a record the end of the file cut;
	 * a broken gzip stream is damage whatever the reader saw. */
	return r->failed && r->error == -ENODATA &&
	       !(r->in.gz && r->in.error) && !r->info.bytes_skipped &&
	       !r->info.records_bad;
}

struct baro_like {
	char *buf;
	size_t len, used;
};

static bool
contains_ci(const char *s, const char *w)
{
	size_t n = strlen(w);
	for (; *s; s++)
		if (strncasecmp(s, w, n) == 0)
			return true;
	return false;
}

static void
baro_like_cb(const char *name, uint64_t count, void *ud)
{
	struct baro_like *b = ud;
	static const char *const words[] = { "baro", "bar2", "bar3",
					     "air_data", "pressure", "#29",
					     "#137", "#143" };
	bool hit = false;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strncmp(words[i], "#", 1) == 0
			    ? strncmp(name, words[i], strlen(words[i])) == 0 &&
				      (name[strlen(words[i])] == ' ' ||
				       !name[strlen(words[i])])
			    : contains_ci(name, words[i]))
			hit = true;
	if (!hit || b->used >= b->len)
		return;
	int n = snprintf(b->buf + b->used, b->len - b->used, "%s%s x%" PRIu64,
			 b->used ? ", " : "", name, count);
	if (n > 0)
		b->used += (size_t)n;
}

void
log_reader_baro_like(const struct log_reader *r, char *buf, size_t len)
{
	struct baro_like b = { buf, len, 0 };
	buf[0] = '\0';
	log_reader_list_types(r, baro_like_cb, &b);
	if (b.used >= len && len > 4)
		memcpy(buf + len - 4, "...", 4);
}

const char *
log_ref_source_name(enum log_ref_source s)
{
	static const char *const names[LOG_REF_SOURCE_COUNT] = {
		[LOG_REF_GPS] = "gps",
		[LOG_REF_EKF] = "ekf",
		[LOG_REF_RANGEFINDER] = "rangefinder",
		[LOG_REF_TRUTH] = "truth",
		[LOG_REF_LOG_BARO_ALT] = "log-baro-alt",
	};
	return (unsigned)s < LOG_REF_SOURCE_COUNT ? names[s] : "?";
}

const char *
log_event_kind_name(enum log_event_kind k)
{
	static const char *const names[LOG_EVENT_KIND_COUNT] = {
		[LOG_EVENT_ARMED] = "armed",
		[LOG_EVENT_DISARMED] = "disarmed",
		[LOG_EVENT_TAKEOFF] = "takeoff",
		[LOG_EVENT_LANDED] = "landed",
		[LOG_EVENT_REBOOT] = "reboot",
		[LOG_EVENT_DROPOUT] = "dropout",
		[LOG_EVENT_BARO_UNHEALTHY] = "baro-unhealthy",
		[LOG_EVENT_BARO_HEALTHY] = "baro-healthy",
		[LOG_EVENT_EKF_ALT_RESET] = "ekf-alt-reset",
	};
	return (unsigned)k < LOG_EVENT_KIND_COUNT ? names[k] : "?";
}

double
log_pressure_from_alt(double alt_m)
{
	/* alt = 153.8462 T (1 - (p/p0)^0.190259), solved for p. */
	const double t = 288.15, p0 = 101325.0;
	double base = 1.0 - alt_m / (153.8462 * t);
	if (base <= 0.0)
		return 0.0;
	return p0 * pow(base, 1.0 / 0.190259);
}
