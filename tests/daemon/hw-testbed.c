/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "hw-testbed.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bmp280.h"
#include "bmp388.h"
#include "test-util.h"

int
hw_testbed_open(struct hw_testbed *tb, const char *prefix, unsigned nbus)
{
	memset(tb, 0, sizeof(*tb));
	if (harness_init(&tb->h, prefix, NULL, test_fail) < 0)
		return -1;
	tb->mock = i2c_mock_new();
	for (unsigned bus = 1; tb->mock && bus <= nbus; bus++)
		assert_int_equal(i2c_mock_add_bus(tb->mock, bus), 0);
	return 0;
}

int
hw_testbed_close(struct hw_testbed *tb)
{
	harness_kill_all(&tb->h);
	tb->child = 0;
	i2c_mock_free(tb->mock);
	tb->mock = NULL;
	if (tb->h.dir[0] && getenv("KEEP_TMP")) {
		fprintf(stderr, "KEEP_TMP: kept %s\n", tb->h.dir);
		return 0;
	}
	return harness_fini(&tb->h);
}

void
hw_testbed_require(const struct hw_testbed *tb)
{
	if (tb->mock == NULL)
		skip_because("no umockdev testbed (umockdev's preload "
			     "library not loaded)");
}

void
hw_testbed_bmp280(struct hw_testbed *tb, struct emu_bmp280 *chip,
		  unsigned bus, double pa, double degc)
{
	emu_bmp280_init(chip, 0x76, BMP280_CHIP_ID,
			emu_bmp280_datasheet_calib);
	emu_bmp280_set(chip, pa, degc);
	i2c_mock_attach(tb->mock, bus, &chip->chip);
}

void
hw_testbed_bmp390(struct hw_testbed *tb, struct emu_bmp388 *chip,
		  unsigned bus, double pa, double degc)
{
	emu_bmp388_init(chip, 0x77, BMP390_CHIP_ID, emu_bmp388_sample_calib);
	emu_bmp388_set(chip, pa, degc);
	i2c_mock_attach(tb->mock, bus, &chip->chip);
}

void
hw_testbed_path(const struct hw_testbed *tb, char *buf, size_t len,
		const char *name)
{
	harness_path(&tb->h, buf, len, name);
}

pid_t
hw_testbed_start(struct hw_testbed *tb, const char *log,
		 const char *const *args)
{
	tb->child = harness_spawn(&tb->h, log, args);
	return tb->child;
}

int
hw_testbed_stop(struct hw_testbed *tb)
{
	int code = harness_stop(&tb->h, tb->child, NULL);

	tb->child = 0;
	return code;
}

uint64_t
hw_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void
hw_sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000u, (long)(ms % 1000u) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}
