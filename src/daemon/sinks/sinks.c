/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The daemon's sinks, in order, and the output formats that make them. */
#include <errno.h>
#include <string.h>

#include "sink.h"

/* Each defined in its own file. */
extern const struct sink_type sink_mavlink_type, sink_msp_type;

/* An output format is one line here (and its file). */
static const struct sink_type *const output_types[] = {
	&sink_msp_type,
	&sink_mavlink_type,
};

void
sinks_init(struct sinks *set, const struct sink_env *env)
{
	memset(set, 0, sizeof(*set));
	set->env = *env;
}

int
sinks_add(struct sinks *set, struct sink *k)
{
	if (set->n == SINKS_MAX) {
		k->ops->close(k);
		return -ENOSPC;
	}
	set->list[set->n++] = k;
	return 0;
}

const struct sink_type *
sink_type_for(enum output_format format)
{
	for (size_t t = 0; t < sizeof(output_types) / sizeof(output_types[0]);
	     t++) {
		if (output_types[t]->format == format)
			return output_types[t];
	}
	return NULL;
}

static struct sink *
open_output(struct sinks *set, const struct config_output *cfg, char *err,
	    size_t errlen)
{
	const struct sink_type *type =
		sink_type_for(config_output_info(cfg->type)->format);

	if (!type) {
		snprintf(err, errlen, "no sink makes this output type's "
				      "frames");
		return NULL;
	}
	return type->open(&set->env, cfg, err, errlen);
}

int
sinks_open_outputs(struct sinks *set, const struct config *c)
{
	char err[256];

	for (size_t i = 0; i < c->n_outputs; i++) {
		struct sink *k = open_output(set, &c->outputs[i], err,
					     sizeof(err));
		if (!k) {
			log_msg(set->env.log, LOG_LEVEL_ERR, "output %s: %s",
				c->outputs[i].name, err);
			return -EINVAL;
		}
		int rc = sinks_add(set, k);
		if (rc < 0)
			return rc;
	}
	return 0;
}

void
sinks_sample(struct sinks *set, const struct emit_ctx *ctx,
	     const struct baro_sample *s)
{
	for (size_t i = 0; i < set->n; i++) {
		if (set->list[i]->ops->sample)
			set->list[i]->ops->sample(set->list[i], ctx, s);
	}
}

void
sinks_heartbeat(struct sinks *set, uint64_t now_us)
{
	for (size_t i = 0; i < set->n; i++) {
		if (set->list[i]->ops->heartbeat)
			set->list[i]->ops->heartbeat(set->list[i], now_us);
	}
}

void
sinks_flush(struct sinks *set)
{
	for (size_t i = 0; i < set->n; i++) {
		if (set->list[i]->ops->flush)
			set->list[i]->ops->flush(set->list[i]);
	}
}

void
sinks_restart(struct sinks *set, unsigned vehicle)
{
	for (size_t i = 0; i < set->n; i++) {
		if (set->list[i]->ops->restart)
			set->list[i]->ops->restart(set->list[i], vehicle);
	}
}

void
sinks_reload(struct sinks *set, const struct config *next)
{
	struct sink *keep[SINKS_MAX];
	size_t n_keep = 0;

	sinks_flush(set);
	for (size_t i = 0; i < set->n; i++) {
		struct sink *k = set->list[i];
		if (k->ops->reload && k->ops->reload(k, next)) {
			keep[n_keep++] = k;
		} else {
			if (set->env.closing)
				set->env.closing(set->env.user, k);
			k->ops->close(k);
		}
	}
	memcpy(set->list, keep, n_keep * sizeof(keep[0]));
	set->n = n_keep;

	struct config fresh = *next;
	fresh.n_outputs = 0;
	for (size_t j = 0; j < next->n_outputs; j++) {
		bool have = false;
		for (size_t i = 0; i < set->n; i++) {
			const struct sink *k = set->list[i];
			have |= k->ops->is_output &&
				k->ops->is_output(k, &next->outputs[j]);
		}
		if (!have)
			fresh.outputs[fresh.n_outputs++] = next->outputs[j];
	}
	(void)sinks_open_outputs(set, &fresh);
}

void
sinks_status(struct sinks *set, FILE *out)
{
	for (size_t i = 0; i < set->n; i++) {
		if (set->list[i]->ops->status)
			set->list[i]->ops->status(set->list[i], out);
	}
}

void
sinks_report(struct sinks *set)
{
	for (size_t i = 0; i < set->n; i++) {
		if (set->list[i]->ops->report)
			set->list[i]->ops->report(set->list[i]);
	}
}

int
sinks_stop(struct sinks *set)
{
	int rc = 0;

	for (size_t i = 0; i < set->n; i++) {
		if (set->list[i]->ops->stop &&
		    set->list[i]->ops->stop(set->list[i]) < 0)
			rc = -EIO;
	}
	return rc;
}

void
sinks_close(struct sinks *set)
{
	for (size_t i = 0; i < set->n; i++)
		set->list[i]->ops->close(set->list[i]);
	set->n = 0;
}

void
sinks_frames(const struct sinks *set, uint64_t *sent, uint64_t *dropped)
{
	*sent = *dropped = 0;
	for (size_t i = 0; i < set->n; i++) {
		if (set->list[i]->ops->counts)
			set->list[i]->ops->counts(set->list[i], sent, dropped);
	}
}

size_t
sinks_outputs(const struct sinks *set)
{
	size_t n = 0;

	for (size_t i = 0; i < set->n; i++)
		n += set->list[i]->ops->is_output != NULL;
	return n;
}
