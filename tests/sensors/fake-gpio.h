/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * GPIO lines for tests, where the kernel has no GPIO at all (CI: no
 * GPIOLIB, no gpio-sim module).  fake-gpiod.c stands in for libgpiod
 * (1.6 or 2.x, as built) inside barod (LD_PRELOAD), so sensors/gpio.c
 * runs unchanged; this is
 * the test's side of the same lines, shared through a directory named
 * by FAKE_GPIOD_DIR:
 *
 *   DIR/CHIP/label         the chip's label ("pinctrl-test")
 *   DIR/CHIP/lines         line names, one per line: offset 0, 1, ...
 *   DIR/CHIP/N.edges       a FIFO: the test writes struct fake_gpio_edge
 *                          records when line N's level changes; the fake
 *                          hands barod the ones its request asked for
 *   DIR/CHIP/N.request     written by the fake when N is requested
 *                          ("edges falling pull-up consumer C", "output
 *                          consumer C"), the same text from either API
 *   DIR/CHIP/N.values      appended by the fake: "NS VALUE" per output
 *                          change, NS on CLOCK_MONOTONIC
 *
 * The test also needs /dev/CHIP to exist, which is umockdev's testbed's
 * job (i2c_mock_add_gpiochip), since barod finds chips by listing /dev.
 */
#ifndef BAROD_TESTS_FAKE_GPIO_H
#define BAROD_TESTS_FAKE_GPIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One level change as the kernel reports it: type 1 rising, 2 falling
 * (libgpiod 1.6's GPIOD_LINE_EVENT_*, 2.x's GPIOD_EDGE_EVENT_*), a
 * CLOCK_MONOTONIC timestamp. */
struct fake_gpio_edge {
	uint32_t type;
	uint32_t reserved;
	uint64_t ts_ns;
};

#define FAKE_GPIO_RISING 1u
#define FAKE_GPIO_FALLING 2u

/* Creates DIR/chip with its label, lines and a FIFO per line. */
int fake_gpio_chip(const char *dir, const char *chip, const char *label,
		   const char *const *lines, size_t n_lines);

/* The test's end of one line: its level, written as edges. */
struct fake_gpio_line {
	char path[256];		/* DIR/CHIP/N, without the suffixes */
	int fd;			/* the FIFO, read-write so it never blocks */
	bool level;
};

int fake_gpio_line_open(struct fake_gpio_line *l, const char *dir,
			const char *chip, unsigned offset, bool level);
void fake_gpio_line_close(struct fake_gpio_line *l);
/* The line is at level from ts_ns on; an edge when it changed. */
void fake_gpio_line_set(struct fake_gpio_line *l, bool level, uint64_t ts_ns);

/* What the fake logged for an output line: up to max (ts_ns, value)
 * pairs; the count, or -errno. */
struct fake_gpio_value {
	uint64_t ts_ns;
	int value;
};
int fake_gpio_line_values(const struct fake_gpio_line *l,
			  struct fake_gpio_value *v, size_t max);
/* The request's text ("" before any), into buf. */
void fake_gpio_line_request(const struct fake_gpio_line *l, char *buf,
			    size_t len);

uint64_t fake_gpio_now_ns(void);

#endif
