/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "fake-gpio.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

uint64_t
fake_gpio_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int
put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -errno;
	fputs(text, f);
	return fclose(f) == 0 ? 0 : -EIO;
}

int
fake_gpio_chip(const char *dir, const char *chip, const char *label,
	       const char *const *lines, size_t n_lines)
{
	char path[512];
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir, chip);
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), "%s/%s/label", dir, chip);
	if ((ret = put(path, label)) < 0)
		return ret;
	snprintf(path, sizeof(path), "%s/%s/lines", dir, chip);
	FILE *f = fopen(path, "w");
	if (f == NULL)
		return -errno;
	for (size_t i = 0; i < n_lines; i++)
		fprintf(f, "%s\n", lines[i]);
	if (fclose(f) != 0)
		return -EIO;
	for (size_t i = 0; i < n_lines; i++) {
		snprintf(path, sizeof(path), "%s/%s/%zu.edges", dir, chip, i);
		if (mkfifo(path, 0600) < 0 && errno != EEXIST)
			return -errno;
	}
	return 0;
}

int
fake_gpio_line_open(struct fake_gpio_line *l, const char *dir,
		    const char *chip, unsigned offset, bool level)
{
	char fifo[300];

	snprintf(l->path, sizeof(l->path), "%s/%s/%u", dir, chip, offset);
	snprintf(fifo, sizeof(fifo), "%s.edges", l->path);
	l->level = level;
	/* Read-write: opening never waits for a reader, and writes never
	 * meet a closed pipe while barod reopens its end. */
	l->fd = open(fifo, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	return l->fd < 0 ? -errno : 0;
}

void
fake_gpio_line_close(struct fake_gpio_line *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}

void
fake_gpio_line_set(struct fake_gpio_line *l, bool level, uint64_t ts_ns)
{
	struct fake_gpio_edge e = {
		.type = level ? FAKE_GPIO_RISING : FAKE_GPIO_FALLING,
		.ts_ns = ts_ns,
	};

	if (l->level == level)
		return;
	l->level = level;
	/* Under PIPE_BUF: whole records, even from two threads. */
	if (write(l->fd, &e, sizeof(e)) != (ssize_t)sizeof(e))
		fprintf(stderr, "fake-gpio: %s: edge lost: %s\n", l->path,
			strerror(errno));
}

int
fake_gpio_line_values(const struct fake_gpio_line *l,
		      struct fake_gpio_value *v, size_t max)
{
	char path[300];
	size_t n = 0;
	uint64_t ts;
	int value;

	snprintf(path, sizeof(path), "%s.values", l->path);
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return errno == ENOENT ? 0 : -errno;
	while (n < max && fscanf(f, "%" SCNu64 " %d", &ts, &value) == 2)
		v[n++] = (struct fake_gpio_value){ ts, value };
	fclose(f);
	return (int)n;
}

void
fake_gpio_line_request(const struct fake_gpio_line *l, char *buf, size_t len)
{
	char path[300];
	size_t n = 0;

	snprintf(path, sizeof(path), "%s.request", l->path);
	FILE *f = fopen(path, "r");
	if (f != NULL) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
}
