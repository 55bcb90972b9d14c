/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * libgpiod 1.6 and 2.x behind one small interface.  Chips are found by
 * walking /dev/gpiochip* and comparing each chip's label (or name), the
 * line by its name on that chip; both library versions can do the rest.
 */
#include "gpio.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <gpiod.h>

int
baro_gpio_parse_spec(const char *spec, char *chip, size_t chip_len,
		     char *line, size_t line_len)
{
	const char *colon = strrchr(spec, ':');

	if (colon == NULL || colon == spec || colon[1] == '\0')
		return -EINVAL;
	size_t n = (size_t)(colon - spec);
	if (chip != NULL) {
		if (n >= chip_len)
			return -EINVAL;
		memcpy(chip, spec, n);
		chip[n] = '\0';
	}
	if (line != NULL) {
		if (strlen(colon + 1) >= line_len)
			return -EINVAL;
		strcpy(line, colon + 1);
	}
	return 0;
}

#ifdef BAROD_GPIOD_V2

static bool
chip_matches(struct gpiod_chip *chip, const char *want)
{
	struct gpiod_chip_info *info = gpiod_chip_get_info(chip);
	bool match;

	if (info == NULL)
		return false;
	match = strcmp(gpiod_chip_info_get_label(info), want) == 0 ||
		strcmp(gpiod_chip_info_get_name(info), want) == 0;
	gpiod_chip_info_free(info);
	return match;
}

static int
line_offset(struct gpiod_chip *chip, const char *name, unsigned *offset)
{
	int off = gpiod_chip_get_line_offset_from_name(chip, name);

	if (off < 0)
		return errno == ENOENT || errno == 0 ? -ENOENT : -errno;
	*offset = (unsigned)off;
	return 0;
}

#else

static bool
chip_matches(struct gpiod_chip *chip, const char *want)
{
	return strcmp(gpiod_chip_label(chip), want) == 0 ||
	       strcmp(gpiod_chip_name(chip), want) == 0;
}

#endif

/* The chip labelled (or named) want, and the line called name on it. */
static int
find_line(struct baro_gpio *g, const char *spec, char *err, size_t errlen)
{
	char want[64], name[64], path[300];
	unsigned chips = 0;
	struct dirent *e;
	DIR *dir;

	g->fd = -1;
	g->chip = g->line = g->events = NULL;
	if (baro_gpio_parse_spec(spec, want, sizeof(want), name,
				 sizeof(name)) < 0) {
		snprintf(err, errlen, "GPIO '%s': expected CHIPLABEL:LINENAME",
			 spec);
		return -EINVAL;
	}
	dir = opendir("/dev");
	if (dir == NULL) {
		int ret = -errno;
		snprintf(err, errlen, "GPIO %s: /dev: %s", spec, strerror(-ret));
		return ret;
	}
	while ((e = readdir(dir)) != NULL && g->chip == NULL) {
		if (strncmp(e->d_name, "gpiochip", 8) != 0)
			continue;
		snprintf(path, sizeof(path), "/dev/%s", e->d_name);
		struct gpiod_chip *chip = gpiod_chip_open(path);
		if (chip == NULL)
			continue;
		chips++;
		if (chip_matches(chip, want))
			g->chip = chip;
		else
			gpiod_chip_close(chip);
	}
	closedir(dir);
	if (g->chip == NULL) {
		snprintf(err, errlen, "GPIO %s: no GPIO chip labelled or named "
			 "'%s' (%u chip%s readable in /dev; gpiodetect lists "
			 "them)", spec, want, chips, chips == 1 ? "" : "s");
		return -ENODEV;
	}
#ifdef BAROD_GPIOD_V2
	int ret = line_offset(g->chip, name, &g->offset);
	if (ret < 0) {
#else
	g->line = gpiod_chip_find_line(g->chip, name);
	int ret = g->line == NULL ? -ENOENT : 0;
	if (ret == 0)
		g->offset = gpiod_line_offset(g->line);
	if (ret < 0) {
#endif
		snprintf(err, errlen, "GPIO %s: chip '%s' has no line named "
			 "'%s' (gpioinfo lists them)", spec, want, name);
		gpiod_chip_close(g->chip);
		g->chip = NULL;
		return ret;
	}
	return 0;
}

static int
request_failed(struct baro_gpio *g, const char *spec, const char *what,
	       char *err, size_t errlen)
{
	int ret = errno > 0 ? -errno : -EIO;

	snprintf(err, errlen, "GPIO %s: request %s: %s%s", spec, what,
		 strerror(-ret), ret == -EBUSY ? " (another consumer holds "
						 "the line)" : "");
	baro_gpio_close(g);
	return ret;
}

#ifdef BAROD_GPIOD_V2

/* One line with these settings, requested for consumer. */
static struct gpiod_line_request *
request_line(struct baro_gpio *g, struct gpiod_line_settings *ls,
	     const char *consumer)
{
	struct gpiod_line_config *lc = gpiod_line_config_new();
	struct gpiod_request_config *rc = gpiod_request_config_new();
	struct gpiod_line_request *req = NULL;

	if (lc != NULL && rc != NULL &&
	    gpiod_line_config_add_line_settings(lc, &g->offset, 1, ls) == 0) {
		gpiod_request_config_set_consumer(rc, consumer);
		req = gpiod_chip_request_lines(g->chip, rc, lc);
	}
	gpiod_request_config_free(rc);
	gpiod_line_config_free(lc);
	gpiod_line_settings_free(ls);
	return req;
}

int
baro_gpio_open_drdy(struct baro_gpio *g, const char *spec,
		    const char *consumer, bool falling, bool pull_up,
		    char *err, size_t errlen)
{
	const char *what = falling ? "falling edges" : "rising edges";
	int ret = find_line(g, spec, err, errlen);
	struct gpiod_line_settings *ls;

	if (ret < 0)
		return ret;
	ls = gpiod_line_settings_new();
	if (ls == NULL)
		return request_failed(g, spec, what, err, errlen);
	gpiod_line_settings_set_direction(ls, GPIOD_LINE_DIRECTION_INPUT);
	gpiod_line_settings_set_edge_detection(ls, falling ?
						       GPIOD_LINE_EDGE_FALLING :
						       GPIOD_LINE_EDGE_RISING);
	if (pull_up)
		gpiod_line_settings_set_bias(ls, GPIOD_LINE_BIAS_PULL_UP);
	/* The same clock as the samples' time_us. */
	gpiod_line_settings_set_event_clock(ls, GPIOD_LINE_CLOCK_MONOTONIC);
	g->line = request_line(g, ls, consumer);
	g->events = gpiod_edge_event_buffer_new(1);
	if (g->line == NULL || g->events == NULL)
		return request_failed(g, spec, what, err, errlen);
	g->fd = gpiod_line_request_get_fd(g->line);
	return 0;
}

int
baro_gpio_read_edge(struct baro_gpio *g, uint64_t *ts_ns, char *err,
		    size_t errlen)
{
	int ret = gpiod_line_request_wait_edge_events(g->line, 0);

	if (ret == 0)
		return -EAGAIN;
	if (ret > 0 &&
	    gpiod_line_request_read_edge_events(g->line, g->events, 1) == 1) {
		struct gpiod_edge_event *ev =
			gpiod_edge_event_buffer_get_event(g->events, 0);
		*ts_ns = gpiod_edge_event_get_timestamp_ns(ev);
		return 0;
	}
	ret = errno > 0 ? -errno : -EIO;
	snprintf(err, errlen, "GPIO line %u: reading an edge: %s", g->offset,
		 strerror(-ret));
	return ret;
}

int
baro_gpio_open_output(struct baro_gpio *g, const char *spec,
		      const char *consumer, int value, char *err,
		      size_t errlen)
{
	int ret = find_line(g, spec, err, errlen);
	struct gpiod_line_settings *ls;

	if (ret < 0)
		return ret;
	ls = gpiod_line_settings_new();
	if (ls == NULL)
		return request_failed(g, spec, "output", err, errlen);
	gpiod_line_settings_set_direction(ls, GPIOD_LINE_DIRECTION_OUTPUT);
	gpiod_line_settings_set_output_value(ls, value ? GPIOD_LINE_VALUE_ACTIVE
						       : GPIOD_LINE_VALUE_INACTIVE);
	g->line = request_line(g, ls, consumer);
	if (g->line == NULL)
		return request_failed(g, spec, "output", err, errlen);
	return 0;
}

int
baro_gpio_set(struct baro_gpio *g, int value, char *err, size_t errlen)
{
	if (gpiod_line_request_set_value(g->line, g->offset,
					 value ? GPIOD_LINE_VALUE_ACTIVE
					       : GPIOD_LINE_VALUE_INACTIVE) < 0) {
		int ret = errno > 0 ? -errno : -EIO;
		snprintf(err, errlen, "GPIO line %u: set %d: %s", g->offset,
			 value, strerror(-ret));
		return ret;
	}
	return 0;
}

void
baro_gpio_close(struct baro_gpio *g)
{
	if (g->line != NULL)
		gpiod_line_request_release(g->line);
	if (g->events != NULL)
		gpiod_edge_event_buffer_free(g->events);
	if (g->chip != NULL)
		gpiod_chip_close(g->chip);
	g->line = g->events = g->chip = NULL;
	g->fd = -1;
}


#else	/* libgpiod 1.x */

int
baro_gpio_open_drdy(struct baro_gpio *g, const char *spec,
		    const char *consumer, bool falling, bool pull_up,
		    char *err, size_t errlen)
{
	const int flags = pull_up ? GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP : 0;
	int ret = find_line(g, spec, err, errlen);

	if (ret < 0)
		return ret;
	ret = falling ? gpiod_line_request_falling_edge_events_flags(
				g->line, consumer, flags) :
			gpiod_line_request_rising_edge_events_flags(
				g->line, consumer, flags);
	if (ret < 0)
		return request_failed(g, spec, falling ? "falling edges" :
							 "rising edges",
				      err, errlen);
	g->fd = gpiod_line_event_get_fd(g->line);
	return 0;
}

int
baro_gpio_read_edge(struct baro_gpio *g, uint64_t *ts_ns, char *err,
		    size_t errlen)
{
	/* Zero timeout: whether an event waits, so read never blocks. */
	const struct timespec none = { 0, 0 };
	struct gpiod_line_event ev;
	int ret = gpiod_line_event_wait(g->line, &none);

	if (ret == 0)
		return -EAGAIN;
	if (ret > 0 && gpiod_line_event_read(g->line, &ev) == 0) {
		/* CLOCK_MONOTONIC since Linux 5.7 (realtime before). */
		*ts_ns = (uint64_t)ev.ts.tv_sec * 1000000000u +
			 (uint64_t)ev.ts.tv_nsec;
		return 0;
	}
	ret = errno > 0 ? -errno : -EIO;
	snprintf(err, errlen, "GPIO line %u: reading an edge: %s", g->offset,
		 strerror(-ret));
	return ret;
}

int
baro_gpio_open_output(struct baro_gpio *g, const char *spec,
		      const char *consumer, int value, char *err,
		      size_t errlen)
{
	int ret = find_line(g, spec, err, errlen);

	if (ret < 0)
		return ret;
	if (gpiod_line_request_output(g->line, consumer, value ? 1 : 0) < 0)
		return request_failed(g, spec, "output", err, errlen);
	return 0;
}

int
baro_gpio_set(struct baro_gpio *g, int value, char *err, size_t errlen)
{
	if (gpiod_line_set_value(g->line, value ? 1 : 0) < 0) {
		int ret = errno > 0 ? -errno : -EIO;
		snprintf(err, errlen, "GPIO line %u: set %d: %s", g->offset,
			 value, strerror(-ret));
		return ret;
	}
	return 0;
}

void
baro_gpio_close(struct baro_gpio *g)
{
	/* Closing the chip releases its requested lines too. */
	if (g->chip != NULL)
		gpiod_chip_close(g->chip);
	g->line = g->events = g->chip = NULL;
	g->fd = -1;
}


#endif

const char *
baro_gpio_backend(void)
{
	return "libgpiod " BAROD_GPIOD_VERSION;
}
