/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the transports share (the registry is transports.c). */
#include "transport.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int
transport_watch(struct transport *t, uint32_t events)
{
	int rc = 0;

	if (t->src->fd < 0 || events == t->events)
		return 0;
	if (events == 0)
		event_loop_remove(t->loop, t->src);
	else if (t->events == 0)
		rc = event_loop_add(t->loop, t->src, events);
	else
		rc = event_loop_modify(t->loop, t->src, events);
	if (rc == 0)
		t->events = events;
	return rc;
}

int
transport_attach(struct transport *t, int fd, uint32_t events, char *err,
		 size_t errlen)
{
	t->src->fd = fd;
	int rc = transport_watch(t, events);
	if (rc < 0) {
		snprintf(err, errlen, "epoll: %s", strerror(-rc));
		close(fd);
		t->src->fd = -1;
	}
	return rc;
}

void
transport_close_fd(struct transport *t)
{
	if (t->src->fd < 0)
		return;
	(void)transport_watch(t, 0);
	close(t->src->fd);
	t->src->fd = -1;
	t->events = 0;
}

void
transport_retry_later(struct transport *t)
{
	if (t->opts.retry_ms) {
		t->retry_at_us = event_now_us() +
				 (uint64_t)t->opts.retry_ms * 1000u;
		return;
	}
	t->retry_at_us = event_now_us() + (uint64_t)t->backoff_ms * 1000u;
	t->backoff_ms = t->backoff_ms * 2 > TRANSPORT_RETRY_MAX_MS
				? TRANSPORT_RETRY_MAX_MS
				: t->backoff_ms * 2;
}

int
transport_resolve_host(const char *host, const char *port, int socktype,
		       bool passive, struct sockaddr_storage *ss,
		       socklen_t *len, char *err, size_t errlen)
{
	struct addrinfo hints = {
		.ai_socktype = socktype,
		.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0),
	};
	struct addrinfo *res = NULL;
	int rc = getaddrinfo(host, port, &hints, &res);

	if (rc != 0 || !res) {
		snprintf(err, errlen, "'%s%s%s:%s': %s",
			 strchr(host, ':') ? "[" : "", host,
			 strchr(host, ':') ? "]" : "", port,
			 rc ? gai_strerror(rc) : "no address");
		return -EADDRNOTAVAIL;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

int
transport_resolve(const char *address, int socktype, bool passive,
		  struct sockaddr_storage *ss, socklen_t *len, char *err,
		  size_t errlen)
{
	char host[128];
	const char *colon = strrchr(address, ':');
	size_t hlen = colon ? (size_t)(colon - address) : 0;

	if (!colon || hlen == 0 || hlen >= sizeof(host) || !colon[1]) {
		snprintf(err, errlen, "'%s': expected HOST:PORT", address);
		return -EINVAL;
	}
	memcpy(host, address, hlen);
	host[hlen] = '\0';
	if (host[0] == '[' && hlen > 2 && host[hlen - 1] == ']') {
		memmove(host, host + 1, hlen - 2);
		host[hlen - 2] = '\0';
	}
	return transport_resolve_host(host, colon + 1, socktype, passive, ss,
				      len, err, errlen);
}
