/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "transport-link.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static void
on_event(struct event_source *src, uint32_t events, void *user)
{
	struct transport_link *l = user;

	/* A TCP server's clients share this callback: fired says which. */
	l->t.fired = src;
	l->t.ops->on_event(&l->t, events);
}

void
transport_link_init(struct transport_link *l)
{
	memset(l, 0, sizeof(*l));
	l->src.fd = -1;
}

int
transport_link_open(struct transport_link *l, const struct transport_ops *ops,
		    struct event_loop *loop, const char *name,
		    const char *address, const struct transport_opts *opts,
		    size_t backlog, transport_rx_cb rx, void *user, char *err,
		    size_t errlen)
{
	struct transport *t = &l->t;

	transport_link_close(l);
	memset(t, 0, sizeof(*t));
	memset(&l->cfg, 0, sizeof(l->cfg));
	snprintf(l->cfg.name, sizeof(l->cfg.name), "%s", name);
	if (snprintf(l->cfg.address, sizeof(l->cfg.address), "%s", address) >=
	    (int)sizeof(l->cfg.address)) {
		snprintf(err, errlen, "'%s': address too long", address);
		return -EINVAL;
	}
	l->src = (struct event_source){ .fd = -1, .cb = on_event, .user = l };
	t->loop = loop;
	t->cfg = &l->cfg;
	t->src = &l->src;
	t->stats = &l->stats;
	t->rx = rx;
	t->rx_user = user;
	t->backlog_max = backlog;
	if (opts)
		t->opts = *opts;
	/* Set first: a refused connect is reported from open itself. */
	t->ops = ops;
	int rc = ops->open(t, err, errlen);
	if (rc < 0) {
		ops->close(t);
		t->ops = NULL;
	}
	return rc;
}

void
transport_link_close(struct transport_link *l)
{
	if (l->t.ops) {
		l->t.ops->close(&l->t);
		l->t.ops = NULL;
	}
}

int
transport_link_send(struct transport_link *l, const uint8_t *buf, size_t len)
{
	if (!l->t.ops)
		return -ENOTCONN;
	return l->t.ops->queue(&l->t, buf, len);
}

int
transport_link_send_now(struct transport_link *l, const uint8_t *buf,
			size_t len)
{
	struct transport *t = &l->t;

	if (!t->ops)
		return -ENOTCONN;
	if (t->ops->send)
		return t->ops->send(t, buf, len);
	int rc = t->ops->queue(t, buf, len);
	if (rc == 0)
		t->ops->flush(t);
	return rc;
}

void
transport_link_flush(struct transport_link *l)
{
	if (l->t.ops)
		l->t.ops->flush(&l->t);
}

size_t
transport_link_pending(const struct transport_link *l)
{
	return l->t.ops && l->t.ops->pending ? l->t.ops->pending(&l->t) : 0;
}
