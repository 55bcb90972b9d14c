/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A stand-in for the part of libgpiod sensors/gpio.c uses, 1.6 or 2.x
 * (BAROD_GPIOD_V2, as for gpio.c), preloaded into barod by tests
 * (LD_PRELOAD comes before libgpiod.so, so these definitions win).
 * Chips, lines and edges live in FAKE_GPIOD_DIR as fake-gpio.h
 * describes; gpio.c itself runs unchanged.
 *
 * The first half is what both APIs come down to: a chip directory, a
 * line's FIFO of edges, its request and output values as files.  Each
 * API's calls follow, as thin as their semantics allow.
 *
 * Like the kernel, a request sees only the edges it asked for: records
 * of the other kind are read and dropped while waiting.  A request holds
 * an flock on its line's FIFO, so a second one (in any process) gets
 * EBUSY as from the kernel, and closing the request's fd frees the line.
 *
 * No global state: everything hangs off the objects the API hands out.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include <gpiod.h>

#include "fake-gpio.h"

#define NAME_MAX_LEN 32
#define MAX_LINES 64

/* ------------------------------------------------------------------ */
/* Shared: a chip directory and its lines' files */

struct fake_chip {
	char dir[PATH_MAX];
	char name[NAME_MAX_LEN];
	char label[NAME_MAX_LEN];
	char lines[MAX_LINES][NAME_MAX_LEN];
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

/* /dev/CHIP as FAKE_GPIOD_DIR/CHIP describes it: 0, or -1 with errno
 * ENOENT (no such chip, as open(2) on a missing node). */
static int
chip_load(struct fake_chip *c, const char *path)
{
	const char *root = getenv("FAKE_GPIOD_DIR");
	const char *base = strrchr(path, '/');
	char file[PATH_MAX + 16], text[MAX_LINES * NAME_MAX_LEN];

	base = base ? base + 1 : path;
	if (root == NULL || strlen(base) >= NAME_MAX_LEN) {
		errno = ENOENT;
		return -1;
	}
	/* The name first: c->name is never null, where gcc 12 with the
	 * sanitizers doubts base (-Wformat-truncation). */
	strcpy(c->name, base);
	snprintf(c->dir, sizeof(c->dir), "%s/%s", root, c->name);
	snprintf(file, sizeof(file), "%s/label", c->dir);
	if (read_text(file, c->label, sizeof(c->label)) < 0) {
		errno = ENOENT;
		return -1;
	}
	c->n_lines = 0;
	snprintf(file, sizeof(file), "%s/lines", c->dir);
	if (read_text(file, text, sizeof(text)) == 0) {
		for (char *save = NULL, *t = strtok_r(text, "\n", &save);
		     t != NULL && c->n_lines < MAX_LINES;
		     t = strtok_r(NULL, "\n", &save))
			snprintf(c->lines[c->n_lines++], NAME_MAX_LEN, "%s", t);
	}
	return 0;
}

/* The offset of the line called name, or -1 with errno ENOENT. */
static int
chip_find(const struct fake_chip *c, const char *name)
{
	for (unsigned i = 0; i < c->n_lines; i++)
		if (strcmp(c->lines[i], name) == 0)
			return (int)i;
	errno = ENOENT;
	return -1;
}

static void
append(const char *dir, unsigned offset, const char *suffix, const char *mode,
       const char *text)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/%u.%s", dir, offset, suffix);
	FILE *f = fopen(path, mode);
	if (f != NULL) {
		fputs(text, f);
		fclose(f);
	}
}

/*
 * Request line offset on dir: its FIFO opened (the request's fd) and
 * locked, and text as what was asked for.  The fd, or -1 with errno
 * EBUSY while another request holds the line.
 */
static int
line_request(const char *dir, unsigned offset, const char *text)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/%u.edges", dir, offset);
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno == EWOULDBLOCK ? EBUSY : errno;
		close(fd);
		errno = e;
		return -1;
	}
	append(dir, offset, "request", "w", text);
	return fd;
}

/* "edges falling pull-up consumer C\n", the same from either API. */
static void
edges_text(char *buf, size_t len, unsigned edges, bool pull_up,
	   const char *consumer)
{
	snprintf(buf, len, "edges %s%s consumer %s\n",
		 edges == 3 ? "both" : edges == FAKE_GPIO_RISING ? "rising"
								 : "falling",
		 pull_up ? " pull-up" : "", consumer ? consumer : "");
}

static void
output_text(char *buf, size_t len, bool open_drain, const char *consumer)
{
	snprintf(buf, len, "output%s consumer %s\n",
		 open_drain ? " open-drain" : "", consumer ? consumer : "");
}

/*
 * The next edge on fd of a kind in edges (FAKE_GPIO_* bits), waiting
 * up to ms (-1: for ever) for the first record: 1 with *e, 0 when none
 * came, -1 with errno.  Other edges are read and dropped, as the kernel
 * never queues them.
 */
static int
edge_next(int fd, unsigned edges, int ms, struct fake_gpio_edge *e)
{
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		int n = poll(&p, 1, ms);

		if (n <= 0)
			return n;
		ms = 0;
		ssize_t r = read(fd, e, sizeof(*e));
		if (r != (ssize_t)sizeof(*e)) {
			if (r < 0 && errno == EAGAIN)
				return 0;
			errno = EIO;
			return -1;
		}
		if (e->type & edges)
			return 1;
	}
}

/* An output value as the test reads it: "NS VALUE", NS on
 * CLOCK_MONOTONIC. */
static void
log_value(const char *dir, unsigned offset, int value)
{
	char text[64];
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(text, sizeof(text), "%lld %d\n",
		 (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec, value);
	append(dir, offset, "values", "a", text);
}

#ifdef BAROD_GPIOD_V2

/* ------------------------------------------------------------------ */
/* libgpiod 2.x */

struct gpiod_chip {
	struct fake_chip c;
};

struct gpiod_chip_info {
	char name[NAME_MAX_LEN];
	char label[NAME_MAX_LEN];
	size_t num_lines;
};

struct gpiod_line_settings {
	enum gpiod_line_direction direction;
	enum gpiod_line_edge edge;
	enum gpiod_line_bias bias;
	enum gpiod_line_drive drive;
	enum gpiod_line_clock clock;
	enum gpiod_line_value output;
	bool active_low;
	unsigned long debounce_us;
};

struct gpiod_line_config {
	unsigned offsets[MAX_LINES];
	struct gpiod_line_settings settings[MAX_LINES];
	size_t n;
};

struct gpiod_request_config {
	char consumer[NAME_MAX_LEN];
	size_t event_buffer_size;
};

/* One line per request: all gpio.c asks for (the fake has a FIFO per
 * line, and a request one fd). */
struct gpiod_line_request {
	char dir[PATH_MAX];
	char chip_name[NAME_MAX_LEN];
	unsigned offset;
	struct gpiod_line_settings settings;
	int fd;
	unsigned edges;			/* FAKE_GPIO_* bits, physical */
	bool pending;			/* ev read from the FIFO, not yet out */
	struct fake_gpio_edge ev;
	unsigned long seqno;		/* events read so far */
};

struct gpiod_edge_event {
	enum gpiod_edge_event_type type;
	uint64_t timestamp_ns;
	unsigned offset;
	unsigned long global_seqno;
	unsigned long line_seqno;
};

struct gpiod_edge_event_buffer {
	size_t capacity;
	size_t num_events;
	struct gpiod_edge_event events[];
};

struct gpiod_chip *
gpiod_chip_open(const char *path)
{
	struct gpiod_chip *chip = calloc(1, sizeof(*chip));

	if (chip == NULL)
		return NULL;
	if (chip_load(&chip->c, path) < 0) {
		free(chip);
		return NULL;
	}
	return chip;
}

/* Requests live on without their chip, as with the kernel's fds. */
void
gpiod_chip_close(struct gpiod_chip *chip)
{
	free(chip);
}

struct gpiod_chip_info *
gpiod_chip_get_info(struct gpiod_chip *chip)
{
	struct gpiod_chip_info *info = calloc(1, sizeof(*info));

	if (info == NULL)
		return NULL;
	strcpy(info->name, chip->c.name);
	strcpy(info->label, chip->c.label);
	info->num_lines = chip->c.n_lines;
	return info;
}

void
gpiod_chip_info_free(struct gpiod_chip_info *info)
{
	free(info);
}

const char *
gpiod_chip_info_get_name(struct gpiod_chip_info *info)
{
	return info->name;
}

const char *
gpiod_chip_info_get_label(struct gpiod_chip_info *info)
{
	return info->label;
}

size_t
gpiod_chip_info_get_num_lines(struct gpiod_chip_info *info)
{
	return info->num_lines;
}

int
gpiod_chip_get_line_offset_from_name(struct gpiod_chip *chip,
				     const char *name)
{
	return chip_find(&chip->c, name);
}

/* libgpiod's defaults: input as is, no edges or bias change, push-pull,
 * the monotonic clock, inactive. */
void
gpiod_line_settings_reset(struct gpiod_line_settings *s)
{
	*s = (struct gpiod_line_settings){
		.direction = GPIOD_LINE_DIRECTION_AS_IS,
		.edge = GPIOD_LINE_EDGE_NONE,
		.bias = GPIOD_LINE_BIAS_AS_IS,
		.drive = GPIOD_LINE_DRIVE_PUSH_PULL,
		.clock = GPIOD_LINE_CLOCK_MONOTONIC,
		.output = GPIOD_LINE_VALUE_INACTIVE,
	};
}

struct gpiod_line_settings *
gpiod_line_settings_new(void)
{
	struct gpiod_line_settings *s = malloc(sizeof(*s));

	if (s != NULL)
		gpiod_line_settings_reset(s);
	return s;
}

void
gpiod_line_settings_free(struct gpiod_line_settings *s)
{
	free(s);
}

struct gpiod_line_settings *
gpiod_line_settings_copy(struct gpiod_line_settings *s)
{
	struct gpiod_line_settings *copy = malloc(sizeof(*copy));

	if (copy != NULL)
		*copy = *s;
	return copy;
}

/* The setters refuse values outside their enum with EINVAL, as
 * libgpiod's do (leaving the setting as it was). */
int
gpiod_line_settings_set_direction(struct gpiod_line_settings *s,
				  enum gpiod_line_direction direction)
{
	if (direction != GPIOD_LINE_DIRECTION_AS_IS &&
	    direction != GPIOD_LINE_DIRECTION_INPUT &&
	    direction != GPIOD_LINE_DIRECTION_OUTPUT) {
		errno = EINVAL;
		return -1;
	}
	s->direction = direction;
	return 0;
}

int
gpiod_line_settings_set_edge_detection(struct gpiod_line_settings *s,
				       enum gpiod_line_edge edge)
{
	if (edge != GPIOD_LINE_EDGE_NONE && edge != GPIOD_LINE_EDGE_RISING &&
	    edge != GPIOD_LINE_EDGE_FALLING && edge != GPIOD_LINE_EDGE_BOTH) {
		errno = EINVAL;
		return -1;
	}
	s->edge = edge;
	return 0;
}

int
gpiod_line_settings_set_bias(struct gpiod_line_settings *s,
			     enum gpiod_line_bias bias)
{
	if (bias != GPIOD_LINE_BIAS_AS_IS && bias != GPIOD_LINE_BIAS_DISABLED &&
	    bias != GPIOD_LINE_BIAS_PULL_UP &&
	    bias != GPIOD_LINE_BIAS_PULL_DOWN) {
		errno = EINVAL;
		return -1;
	}
	s->bias = bias;
	return 0;
}

int
gpiod_line_settings_set_drive(struct gpiod_line_settings *s,
			      enum gpiod_line_drive drive)
{
	if (drive != GPIOD_LINE_DRIVE_PUSH_PULL &&
	    drive != GPIOD_LINE_DRIVE_OPEN_DRAIN &&
	    drive != GPIOD_LINE_DRIVE_OPEN_SOURCE) {
		errno = EINVAL;
		return -1;
	}
	s->drive = drive;
	return 0;
}

void
gpiod_line_settings_set_active_low(struct gpiod_line_settings *s,
				   bool active_low)
{
	s->active_low = active_low;
}

void
gpiod_line_settings_set_debounce_period_us(struct gpiod_line_settings *s,
					   unsigned long period)
{
	s->debounce_us = period;
}

int
gpiod_line_settings_set_event_clock(struct gpiod_line_settings *s,
				    enum gpiod_line_clock clock)
{
	if (clock != GPIOD_LINE_CLOCK_MONOTONIC &&
	    clock != GPIOD_LINE_CLOCK_REALTIME && clock != GPIOD_LINE_CLOCK_HTE) {
		errno = EINVAL;
		return -1;
	}
	s->clock = clock;
	return 0;
}

int
gpiod_line_settings_set_output_value(struct gpiod_line_settings *s,
				     enum gpiod_line_value value)
{
	if (value != GPIOD_LINE_VALUE_INACTIVE &&
	    value != GPIOD_LINE_VALUE_ACTIVE) {
		errno = EINVAL;
		return -1;
	}
	s->output = value;
	return 0;
}

struct gpiod_line_config *
gpiod_line_config_new(void)
{
	return calloc(1, sizeof(struct gpiod_line_config));
}

void
gpiod_line_config_free(struct gpiod_line_config *config)
{
	free(config);
}

void
gpiod_line_config_reset(struct gpiod_line_config *config)
{
	config->n = 0;
}

/* The settings are copied (the caller still owns them); an offset added
 * again takes the new settings. */
int
gpiod_line_config_add_line_settings(struct gpiod_line_config *config,
				    const unsigned int *offsets,
				    size_t num_offsets,
				    struct gpiod_line_settings *settings)
{
	struct gpiod_line_settings defaults;

	if (offsets == NULL || num_offsets == 0) {
		errno = EINVAL;
		return -1;
	}
	if (settings == NULL) {
		gpiod_line_settings_reset(&defaults);
		settings = &defaults;
	}
	for (size_t i = 0; i < num_offsets; i++) {
		size_t k = 0;

		while (k < config->n && config->offsets[k] != offsets[i])
			k++;
		if (k == MAX_LINES) {
			errno = E2BIG;
			return -1;
		}
		config->offsets[k] = offsets[i];
		config->settings[k] = *settings;
		if (k == config->n)
			config->n++;
	}
	return 0;
}

struct gpiod_request_config *
gpiod_request_config_new(void)
{
	return calloc(1, sizeof(struct gpiod_request_config));
}

void
gpiod_request_config_free(struct gpiod_request_config *config)
{
	free(config);
}

/* Truncated as the kernel's 32-byte consumer field would. */
void
gpiod_request_config_set_consumer(struct gpiod_request_config *config,
				  const char *consumer)
{
	snprintf(config->consumer, sizeof(config->consumer), "%s",
		 consumer ? consumer : "");
}

void
gpiod_request_config_set_event_buffer_size(struct gpiod_request_config *c,
					   size_t event_buffer_size)
{
	c->event_buffer_size = event_buffer_size;
}

static unsigned
physical_edges(const struct gpiod_line_settings *s)
{
	unsigned rising = s->active_low ? FAKE_GPIO_FALLING : FAKE_GPIO_RISING;
	unsigned falling = s->active_low ? FAKE_GPIO_RISING : FAKE_GPIO_FALLING;

	switch (s->edge) {
	case GPIOD_LINE_EDGE_RISING:
		return rising;
	case GPIOD_LINE_EDGE_FALLING:
		return falling;
	case GPIOD_LINE_EDGE_BOTH:
		return rising | falling;
	default:
		return 0;
	}
}

struct gpiod_line_request *
gpiod_chip_request_lines(struct gpiod_chip *chip,
			 struct gpiod_request_config *req_cfg,
			 struct gpiod_line_config *line_cfg)
{
	const char *consumer = req_cfg ? req_cfg->consumer : "";
	struct gpiod_line_settings *s;
	char text[256];

	if (line_cfg == NULL || line_cfg->n == 0) {
		errno = EINVAL;
		return NULL;
	}
	s = &line_cfg->settings[0];
	/* The fake's limits, not libgpiod's: one line per request, and
	 * the FIFO's stamps are CLOCK_MONOTONIC only. */
	if (line_cfg->n > 1 || (s->edge != GPIOD_LINE_EDGE_NONE &&
				s->clock != GPIOD_LINE_CLOCK_MONOTONIC)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (line_cfg->offsets[0] >= chip->c.n_lines) {
		errno = EINVAL;
		return NULL;
	}
	/* The kernel refuses edges on an output, as output settings on an
	 * input. */
	if (s->direction == GPIOD_LINE_DIRECTION_OUTPUT &&
	    s->edge != GPIOD_LINE_EDGE_NONE) {
		errno = EINVAL;
		return NULL;
	}
	struct gpiod_line_request *req = calloc(1, sizeof(*req));
	if (req == NULL)
		return NULL;
	strcpy(req->dir, chip->c.dir);
	strcpy(req->chip_name, chip->c.name);
	req->offset = line_cfg->offsets[0];
	req->settings = *s;
	req->edges = physical_edges(s);
	if (s->direction == GPIOD_LINE_DIRECTION_OUTPUT)
		output_text(text, sizeof(text),
			    s->drive == GPIOD_LINE_DRIVE_OPEN_DRAIN, consumer);
	else if (req->edges != 0)
		edges_text(text, sizeof(text), req->edges,
			   s->bias == GPIOD_LINE_BIAS_PULL_UP, consumer);
	else	/* no edges: 1.6's gpiod_line_request_input, not faked */
		snprintf(text, sizeof(text), "input consumer %s\n", consumer);
	req->fd = line_request(req->dir, req->offset, text);
	if (req->fd < 0) {
		int e = errno;
		free(req);
		errno = e;
		return NULL;
	}
	if (s->direction == GPIOD_LINE_DIRECTION_OUTPUT)
		log_value(req->dir, req->offset,
			  (s->output == GPIOD_LINE_VALUE_ACTIVE) != s->active_low);
	return req;
}

void
gpiod_line_request_release(struct gpiod_line_request *request)
{
	if (request == NULL)
		return;
	close(request->fd);
	free(request);
}

const char *
gpiod_line_request_get_chip_name(struct gpiod_line_request *request)
{
	return request->chip_name;
}

size_t
gpiod_line_request_get_num_requested_lines(struct gpiod_line_request *request)
{
	(void)request;
	return 1;
}

int
gpiod_line_request_get_fd(struct gpiod_line_request *request)
{
	return request->fd;
}

int
gpiod_line_request_set_value(struct gpiod_line_request *request,
			     unsigned int offset, enum gpiod_line_value value)
{
	if (offset != request->offset ||
	    (value != GPIOD_LINE_VALUE_INACTIVE &&
	     value != GPIOD_LINE_VALUE_ACTIVE)) {
		errno = EINVAL;
		return -1;
	}
	/* The kernel sets no value on a line requested as an input. */
	if (request->settings.direction != GPIOD_LINE_DIRECTION_OUTPUT) {
		errno = EPERM;
		return -1;
	}
	log_value(request->dir, request->offset,
		  (value == GPIOD_LINE_VALUE_ACTIVE) !=
			  request->settings.active_low);
	return 0;
}

/* An event waits: one is pending already, or the FIFO had one of the
 * requested kind within ms. */
static int
event_wait(struct gpiod_line_request *request, int ms)
{
	if (request->pending)
		return 1;
	int ret = edge_next(request->fd, request->edges, ms, &request->ev);
	if (ret == 1)
		request->pending = true;
	return ret;
}

int
gpiod_line_request_wait_edge_events(struct gpiod_line_request *request,
				    int64_t timeout_ns)
{
	/* Rounded up, so a short wait does not become a poll of none. */
	int ms = timeout_ns < 0 ? -1 :
		 timeout_ns / 1000000 >= INT_MAX ? INT_MAX :
						  (int)((timeout_ns + 999999) / 1000000);

	return event_wait(request, ms);
}

/* Blocks for the first event, as the kernel's read does; then takes
 * what else already waits, up to max_events. */
int
gpiod_line_request_read_edge_events(struct gpiod_line_request *request,
				    struct gpiod_edge_event_buffer *buffer,
				    size_t max_events)
{
	size_t n = 0;

	if (max_events > buffer->capacity)
		max_events = buffer->capacity;
	buffer->num_events = 0;
	while (n < max_events) {
		int ret = event_wait(request, n == 0 ? -1 : 0);

		if (ret != 1) {
			if (n > 0)
				break;
			if (ret == 0)	/* readable, yet nothing to read */
				errno = EAGAIN;
			return -1;
		}
		struct gpiod_edge_event *ev = &buffer->events[n++];
		bool rising = request->ev.type == FAKE_GPIO_RISING;

		ev->type = rising != request->settings.active_low ?
				   GPIOD_EDGE_EVENT_RISING_EDGE :
				   GPIOD_EDGE_EVENT_FALLING_EDGE;
		ev->timestamp_ns = request->ev.ts_ns;
		ev->offset = request->offset;
		ev->global_seqno = ev->line_seqno = ++request->seqno;
		request->pending = false;
	}
	buffer->num_events = n;
	return (int)n;
}

/* 0 means 64, more than 1024 means 1024: libgpiod's bounds. */
struct gpiod_edge_event_buffer *
gpiod_edge_event_buffer_new(size_t capacity)
{
	if (capacity == 0)
		capacity = 64;
	if (capacity > 1024)
		capacity = 1024;
	struct gpiod_edge_event_buffer *b =
		calloc(1, sizeof(*b) + capacity * sizeof(b->events[0]));
	if (b != NULL)
		b->capacity = capacity;
	return b;
}

void
gpiod_edge_event_buffer_free(struct gpiod_edge_event_buffer *buffer)
{
	free(buffer);
}

size_t
gpiod_edge_event_buffer_get_capacity(struct gpiod_edge_event_buffer *buffer)
{
	return buffer->capacity;
}

size_t
gpiod_edge_event_buffer_get_num_events(struct gpiod_edge_event_buffer *buffer)
{
	return buffer->num_events;
}

/* NULL past the events read, as libgpiod (errno EINVAL). */
struct gpiod_edge_event *
gpiod_edge_event_buffer_get_event(struct gpiod_edge_event_buffer *buffer,
				  unsigned long index)
{
	if (index >= buffer->num_events) {
		errno = EINVAL;
		return NULL;
	}
	return &buffer->events[index];
}

enum gpiod_edge_event_type
gpiod_edge_event_get_event_type(struct gpiod_edge_event *event)
{
	return event->type;
}

uint64_t
gpiod_edge_event_get_timestamp_ns(struct gpiod_edge_event *event)
{
	return event->timestamp_ns;
}

unsigned int
gpiod_edge_event_get_line_offset(struct gpiod_edge_event *event)
{
	return event->offset;
}

unsigned long
gpiod_edge_event_get_global_seqno(struct gpiod_edge_event *event)
{
	return event->global_seqno;
}

unsigned long
gpiod_edge_event_get_line_seqno(struct gpiod_edge_event *event)
{
	return event->line_seqno;
}

#else

/* ------------------------------------------------------------------ */
/* libgpiod 1.6 */

enum request { REQ_NONE, REQ_EDGES, REQ_OUTPUT };

struct gpiod_line {
	struct gpiod_chip *chip;
	unsigned offset;
	enum request req;
	unsigned edges;		/* FAKE_GPIO_RISING/FALLING bits: 1, 2, 3 */
	int fd;
	bool pending;
	struct gpiod_line_event ev;
};

struct gpiod_chip {
	struct fake_chip c;
	struct gpiod_line lines[MAX_LINES];
};

struct gpiod_chip *
gpiod_chip_open(const char *path)
{
	struct gpiod_chip *chip = calloc(1, sizeof(*chip));

	if (chip == NULL)
		return NULL;
	if (chip_load(&chip->c, path) < 0) {
		free(chip);
		return NULL;
	}
	for (unsigned i = 0; i < chip->c.n_lines; i++)
		chip->lines[i] = (struct gpiod_line){
			.chip = chip, .offset = i, .fd = -1 };
	return chip;
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

/* 1.6 releases a chip's requested lines with it. */
void
gpiod_chip_close(struct gpiod_chip *chip)
{
	for (unsigned i = 0; i < chip->c.n_lines; i++)
		gpiod_line_release(&chip->lines[i]);
	free(chip);
}

const char *
gpiod_chip_name(struct gpiod_chip *chip)
{
	return chip->c.name;
}

const char *
gpiod_chip_label(struct gpiod_chip *chip)
{
	return chip->c.label;
}

struct gpiod_line *
gpiod_chip_find_line(struct gpiod_chip *chip, const char *name)
{
	int offset = chip_find(&chip->c, name);

	return offset < 0 ? NULL : &chip->lines[offset];
}

unsigned int
gpiod_line_offset(struct gpiod_line *line)
{
	return line->offset;
}

static int
request_edges(struct gpiod_line *line, const char *consumer, int flags,
	      unsigned edges)
{
	char text[256];

	if (line->req != REQ_NONE) {
		errno = EBUSY;
		return -1;
	}
	edges_text(text, sizeof(text), edges,
		   flags & GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP, consumer);
	line->fd = line_request(line->chip->c.dir, line->offset, text);
	if (line->fd < 0)
		return -1;
	line->req = REQ_EDGES;
	line->edges = edges;
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
	struct fake_gpio_edge e;

	if (line->req != REQ_EDGES) {
		errno = EPERM;
		return -1;
	}
	if (line->pending)
		return 1;
	int ret = edge_next(line->fd, line->edges, ms, &e);
	if (ret != 1)
		return ret;
	line->ev.event_type = e.type == FAKE_GPIO_RISING ?
				      GPIOD_LINE_EVENT_RISING_EDGE :
				      GPIOD_LINE_EVENT_FALLING_EDGE;
	line->ev.ts.tv_sec = (time_t)(e.ts_ns / 1000000000u);
	line->ev.ts.tv_nsec = (long)(e.ts_ns % 1000000000u);
	line->pending = true;
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

int
gpiod_line_request_output_flags(struct gpiod_line *line, const char *consumer,
				int flags, int default_val)
{
	char text[256];

	if (line->req != REQ_NONE) {
		errno = EBUSY;
		return -1;
	}
	output_text(text, sizeof(text),
		    flags & GPIOD_LINE_REQUEST_FLAG_OPEN_DRAIN, consumer);
	line->fd = line_request(line->chip->c.dir, line->offset, text);
	if (line->fd < 0)
		return -1;
	line->req = REQ_OUTPUT;
	log_value(line->chip->c.dir, line->offset, default_val ? 1 : 0);
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
	log_value(line->chip->c.dir, line->offset, value ? 1 : 0);
	return 0;
}

#endif
