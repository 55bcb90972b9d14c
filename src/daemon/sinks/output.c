/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "output.h"
#include "transports.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static void
on_peer_frame(const struct mavlink_frame *f, void *user)
{
	struct output *o = user;

	o->stats.frames_received++;
	if (o->on_frame)
		o->on_frame(o, f, o->user);
}

static void
on_msp_frame(const struct msp_frame *f, void *user)
{
	struct output *o = user;

	/* A flight controller told MSP_FLAG_DONT_REPLY answers nothing;
	 * whatever it sends anyway is counted and otherwise ignored. */
	(void)f;
	o->stats.frames_received++;
}

/* Signed frames reach the daemon, which checks them against its key
 * (daemon-remote.c). */
static void
parser_init(struct output *o, unsigned peer)
{
	mavlink_parser_init(&o->parser[peer]);
	o->parser[peer].deliver_signed = true;
}

static void
parsers_init(struct output *o)
{
	for (unsigned k = 0; k < TRANSPORT_MAX_CLIENTS; k++)
		parser_init(o, k);
	msp_parser_init(&o->msp_in);
}

static void
on_rx(void *user, enum transport_rx what, const uint8_t *buf, size_t n)
{
	struct output *o = user;
	const unsigned peer = o->transport.rx_peer < TRANSPORT_MAX_CLIENTS
				      ? o->transport.rx_peer
				      : 0;

	switch (what) {
	case TRANSPORT_RX_DATA:
		if (output_is_msp(o))
			msp_parser_feed(&o->msp_in, buf, n, on_msp_frame, o);
		else
			mavlink_parser_feed(&o->parser[peer], buf, n,
					    on_peer_frame, o);
		break;
	case TRANSPORT_RX_END:
		if (output_is_msp(o))
			msp_parser_flush(&o->msp_in);
		else
			mavlink_parser_flush(&o->parser[peer]);
		break;
	case TRANSPORT_RX_RESET:
		parser_init(o, peer);
		msp_parser_init(&o->msp_in);
		break;
	case TRANSPORT_RX_UP:
	case TRANSPORT_RX_DOWN:
		/* An output's state is the transport's (mirror()). */
		break;
	}
}

/* The transport points into the output, which the daemon may have moved
 * (reload keeps an output by copying it). */
static struct transport *
bind_transport(struct output *o)
{
	struct transport *t = &o->transport;

	t->cfg = &o->cfg;
	t->src = &o->src;
	t->stats = &o->stats;
	t->rx_user = o;
	t->log = o->log;
	return t;
}

static void
mirror(struct output *o)
{
	const struct transport *t = &o->transport;

	o->connected = t->connected;
	o->tx_len = t->ops->pending ? t->ops->pending(t) : 0;
}

static void
on_event(struct event_source *src, uint32_t events, void *user)
{
	struct output *o = user;
	struct transport *t = bind_transport(o);

	t->fired = src;
	t->ops->on_event(t, events);
	mirror(o);
}

int
output_open(struct output *o, const struct config_output *cfg,
	    struct event_loop *loop, output_frame_cb on_frame, void *user,
	    char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	o->cfg = *cfg;
	o->loop = loop;
	o->on_frame = on_frame;
	o->user = user;
	parsers_init(o);
	o->src = (struct event_source){ .fd = -1, .cb = on_event, .user = o };

	struct transport *t = bind_transport(o);
	t->ops = transport_ops_for(cfg->type);
	if (!t->ops) {
		snprintf(err, errlen, "output type %d has no transport",
			 (int)cfg->type);
		return -EINVAL;
	}
	t->loop = loop;
	t->rx = on_rx;
	/* With an owner to judge the frames, a MAVLink server keeps the
	 * senders of frames it takes (output_keep_sender): a udp-server
	 * sends to them, not to whoever sends anything; a tcp-server keeps
	 * their places when silent clients would take them. */
	t->opts.learn_accepted = on_frame && t->ops->keep_sender &&
				 !output_is_msp(o);
	t->backlog_max = output_is_msp(o) ? OUTPUT_MSP_BACKLOG : 0;
	int rc = t->ops->open(t, err, errlen);
	mirror(o);
	return rc;
}

void
output_keep_sender(struct output *o)
{
	struct transport *t = bind_transport(o);

	if (t->opts.learn_accepted)
		t->ops->keep_sender(t);
}

void
output_close(struct output *o)
{
	struct transport *t = bind_transport(o);

	if (t->ops)
		t->ops->close(t);
	mirror(o);
}

int
output_send(struct output *o, const uint8_t *frame, size_t len)
{
	struct transport *t = bind_transport(o);
	int rc = t->ops->queue(t, frame, len);

	mirror(o);
	return rc;
}

void
output_flush(struct output *o)
{
	struct transport *t = bind_transport(o);

	t->ops->flush(t);
	mirror(o);
}

const char *
output_describe(const struct output *o, char *buf, size_t len)
{
	char what[224] = "";

	if (o->transport.ops)
		o->transport.ops->describe(&o->transport, &o->cfg, &o->src,
					   what, sizeof(what));
	snprintf(buf, len, "%s %s %s", o->cfg.name,
		 config_output_type_name(o->cfg.type), what);
	return buf;
}
