/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A stand-in for the part of libgpiod 1.6 sensors/gpio.c uses, preloaded
 * into barod by tests (LD_PRELOAD comes before libgpiod.so.2, so these
 * definitions win).  Chips, lines and edges live in FAKE_GPIOD_DIR as
 * fake-gpio.h describes; gpio.c itself runs unchanged.
 *
 * Like the kernel, a request sees only the edges it asked for: records
 * of the other kind are read and dropped while waiting.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gpiod.h>

#include "fake-gpio.h"

#define NAME_MAX_LEN 32
#define MAX_LINES 64

enum request { REQ_NONE, REQ_EDGES, REQ_OUTPUT };

struct gpiod_line {
	struct gpiod_chip *chip;
	unsigned offset;
	char name[NAME_MAX_LEN];
	enum request req;
	unsigned edges;		/* FAKE_GPIO_RISING/FALLING bits: 1, 2, 3 */
	int fd;
	bool pending;
	struct gpiod_line_event ev;
};

struct gpiod_chip {
	char dir[PATH_MAX];
	char name[NAME_MAX_LEN];
	char label[NAME_MAX_LEN];
	struct gpiod_line lines[MAX_LINES];
	unsigned n_lines;
};

static int
read_text(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (f == NULL)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return 0;
}

struct gpiod_chip *
gpiod_chip_open(const char *path)
{
	const char *root = getenv("FAKE_GPIOD_DIR");
	const char *base = strrchr(path, '/');
	char file[PATH_MAX + 16], text[MAX_LINES * NAME_MAX_LEN];

	base = base ? base + 1 : path;
	if (root == NULL || strlen(base) >= NAME_MAX_LEN) {
		errno = ENOENT;
		return NULL;
	}
	struct gpiod_chip *c = calloc(1, sizeof(*c));
	if (c == NULL)
		return NULL;
	snprintf(c->dir, sizeof(c->dir), "%s/%s", root, base);
	strcpy(c->name, base);
	snprintf(file, sizeof(file), "%s/label", c->dir);
	if (read_text(file, c->label, sizeof(c->label)) < 0) {
		free(c);
		errno = ENOENT;
		return NULL;
	}
	snprintf(file, sizeof(file), "%s/lines", c->dir);
	if (read_text(file, text, sizeof(text)) == 0) {
		for (char *save = NULL, *t = strtok_r(text, "\n", &save);
		     t != NULL && c->n_lines < MAX_LINES;
		     t = strtok_r(NULL, "\n", &save)) {
			struct gpiod_line *l = &c->lines[c->n_lines];

			l->chip = c;
			l->offset = c->n_lines++;
			l->fd = -1;
			snprintf(l->name, sizeof(l->name), "%s", t);
		}
	}
	return c;
}

void
gpiod_line_release(struct gpiod_line *line)
{
	if (line->fd >= 0)
		close(line->fd);
	line->fd = -1;
	line->req = REQ_NONE;
	line->pending = false;
}

void
gpiod_chip_close(struct gpiod_chip *chip)
{
	for (unsigned i = 0; i < chip->n_lines; i++)
		gpiod_line_release(&chip->lines[i]);
	free(chip);
}

const char *
gpiod_chip_name(struct gpiod_chip *chip)
{
	return chip->name;
}

const char *
gpiod_chip_label(struct gpiod_chip *chip)
{
	return chip->label;
}

struct gpiod_line *
gpiod_chip_find_line(struct gpiod_chip *chip, const char *name)
{
	for (unsigned i = 0; i < chip->n_lines; i++)
		if (strcmp(chip->lines[i].name, name) == 0)
			return &chip->lines[i];
	errno = ENOENT;
	return NULL;
}

unsigned int
gpiod_line_offset(struct gpiod_line *line)
{
	return line->offset;
}

static void
append(const struct gpiod_line *line, const char *suffix, const char *mode,
       const char *text)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/%u.%s", line->chip->dir, line->offset,
		 suffix);
	FILE *f = fopen(path, mode);
	if (f != NULL) {
		fputs(text, f);
		fclose(f);
	}
}

static int
request_edges(struct gpiod_line *line, const char *consumer, int flags,
	      unsigned edges)
{
	char path[PATH_MAX + 32], text[256];

	if (line->req != REQ_NONE) {
		errno = EBUSY;
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%u.edges", line->chip->dir,
		 line->offset);
	line->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (line->fd < 0)
		return -1;
	line->req = REQ_EDGES;
	line->edges = edges;
	snprintf(text, sizeof(text), "edges %s%s consumer %s\n",
		 edges == 3 ? "both" : edges == FAKE_GPIO_RISING ? "rising"
								 : "falling",
		 flags & GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP ? " pull-up" : "",
		 consumer);
	append(line, "request", "w", text);
	return 0;
}

int
gpiod_line_request_rising_edge_events_flags(struct gpiod_line *line,
					    const char *consumer, int flags)
{
	return request_edges(line, consumer, flags, FAKE_GPIO_RISING);
}

int
gpiod_line_request_falling_edge_events_flags(struct gpiod_line *line,
					     const char *consumer, int flags)
{
	return request_edges(line, consumer, flags, FAKE_GPIO_FALLING);
}

int
gpiod_line_request_both_edges_events_flags(struct gpiod_line *line,
					   const char *consumer, int flags)
{
	return request_edges(line, consumer, flags, 3);
}

int
gpiod_line_request_rising_edge_events(struct gpiod_line *line,
				      const char *consumer)
{
	return request_edges(line, consumer, 0, FAKE_GPIO_RISING);
}

int
gpiod_line_request_falling_edge_events(struct gpiod_line *line,
				       const char *consumer)
{
	return request_edges(line, consumer, 0, FAKE_GPIO_FALLING);
}

int
gpiod_line_request_both_edges_events(struct gpiod_line *line,
				     const char *consumer)
{
	return request_edges(line, consumer, 0, 3);
}

int
gpiod_line_event_get_fd(struct gpiod_line *line)
{
	if (line->req != REQ_EDGES) {
		errno = EPERM;
		return -1;
	}
	return line->fd;
}

int
gpiod_line_event_wait(struct gpiod_line *line, const struct timespec *timeout)
{
	int ms = timeout == NULL ? -1 :
		 (int)(timeout->tv_sec * 1000 + timeout->tv_nsec / 1000000);

	if (line->req != REQ_EDGES) {
		errno = EPERM;
		return -1;
	}
	while (!line->pending) {
		struct pollfd p = { line->fd, POLLIN, 0 };
		struct fake_gpio_edge e;
		int n = poll(&p, 1, ms);

		if (n <= 0)
			return n;
		ms = 0;
		ssize_t r = read(line->fd, &e, sizeof(e));
		if (r != (ssize_t)sizeof(e)) {
			if (r < 0 && errno == EAGAIN)
				return 0;
			errno = EIO;
			return -1;
		}
		if (!(e.type & line->edges))
			continue;
		line->ev.event_type = e.type == FAKE_GPIO_RISING ?
					      GPIOD_LINE_EVENT_RISING_EDGE :
					      GPIOD_LINE_EVENT_FALLING_EDGE;
		line->ev.ts.tv_sec = (time_t)(e.ts_ns / 1000000000u);
		line->ev.ts.tv_nsec = (long)(e.ts_ns % 1000000000u);
		line->pending = true;
	}
	return 1;
}

int
gpiod_line_event_read(struct gpiod_line *line, struct gpiod_line_event *event)
{
	if (gpiod_line_event_wait(line, NULL) != 1)
		return -1;
	*event = line->ev;
	line->pending = false;
	return 0;
}

static void
log_value(const struct gpiod_line *line, int value)
{
	char text[64];
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(text, sizeof(text), "%lld %d\n",
		 (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec, value);
	append(line, "values", "a", text);
}

int
gpiod_line_request_output_flags(struct gpiod_line *line, const char *consumer,
				int flags, int default_val)
{
	char text[256];

	if (line->req != REQ_NONE) {
		errno = EBUSY;
		return -1;
	}
	line->req = REQ_OUTPUT;
	snprintf(text, sizeof(text), "output%s consumer %s\n",
		 flags & GPIOD_LINE_REQUEST_FLAG_OPEN_DRAIN ? " open-drain" : "",
		 consumer);
	append(line, "request", "w", text);
	log_value(line, default_val ? 1 : 0);
	return 0;
}

int
gpiod_line_request_output(struct gpiod_line *line, const char *consumer,
			  int default_val)
{
	return gpiod_line_request_output_flags(line, consumer, 0, default_val);
}

int
gpiod_line_set_value(struct gpiod_line *line, int value)
{
	if (line->req != REQ_OUTPUT) {
		errno = EPERM;
		return -1;
	}
	log_value(line, value ? 1 : 0);
	return 0;
}
