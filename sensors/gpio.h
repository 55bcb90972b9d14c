/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * GPIO lines for barometers through libgpiod: a data-ready input whose
 * rising edges come as events with the kernel's CLOCK_MONOTONIC
 * timestamp on a pollable fd (for the daemon's epoll loop), and an
 * output driving a sensor's power or reset.
 *
 * Lines are named CHIPLABEL:LINENAME, never by number: the 40-pin
 * header's chip moved between Raspberry Pi models (gpiochip0 or 4,
 * pinctrl-bcm2711 or pinctrl-rp1), the line names ("GPIO17") did not.
 * The chip part may also be the chip's own name ("gpiochip0").
 *
 * libgpiod 1.6 (Debian 12) and 2.x (Debian 13) have different APIs; meson
 * defines BAROD_GPIOD_V2 for the latter and this interface hides which.
 */
#ifndef BAROD_SENSORS_GPIO_H
#define BAROD_SENSORS_GPIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct baro_gpio {
	int fd;			/* edge events (inputs); -1 when closed */
	void *chip;		/* libgpiod's objects, version dependent */
	void *line;
	void *events;		/* v2: the event buffer */
	unsigned offset;	/* the line on its chip */
};

/* Splits CHIPLABEL:LINENAME (both non-empty, the line name without ':');
 * chip or line may be NULL to only check.  0 or -EINVAL. */
int baro_gpio_parse_spec(const char *spec, char *chip, size_t chip_len,
			 char *line, size_t line_len);

/* Requests spec as an input reporting the edges that start a chip's
 * data-ready signal: rising, or falling for an active-low pin; pull_up
 * biases the line for an open-drain pin (and is 0 for push-pull). */
int baro_gpio_open_drdy(struct baro_gpio *g, const char *spec,
			const char *consumer, bool falling, bool pull_up,
			char *err, size_t errlen);

/* The next edge's kernel timestamp (CLOCK_MONOTONIC, ns): 0, -EAGAIN when
 * none is waiting, or another negative errno. */
int baro_gpio_read_edge(struct baro_gpio *g, uint64_t *ts_ns, char *err,
			size_t errlen);

/* Requests spec as an output at value (1 = high). */
int baro_gpio_open_output(struct baro_gpio *g, const char *spec,
			  const char *consumer, int value, char *err,
			  size_t errlen);
int baro_gpio_set(struct baro_gpio *g, int value, char *err, size_t errlen);

void baro_gpio_close(struct baro_gpio *g);

/* "libgpiod 1.6.3" or "libgpiod 2.1.3": what barod was built with. */
const char *baro_gpio_backend(void);

#endif
