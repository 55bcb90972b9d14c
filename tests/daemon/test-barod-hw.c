/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * barod in hardware mode as a process, against emulated chips.  This
 * test hosts the umockdev testbed (tests/sensors/i2c-mock.c) and runs
 * barod as a child: the child inherits LD_PRELOAD and UMOCKDEV_DIR, its
 * preload library sends each ioctl on /dev/i2c-N through the testbed's
 * socket, and the handler thread here answers from the emulators.  So
 * barod, libi2c and the drivers run unchanged, and the test changes the
 * chips (unplug, garbage, replug) while barod runs.
 *
 * A third sensor is an IIO device: a directory of sysfs-like files.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "baro-sample.h"
#include "bmp280.h"
#include "bmp388.h"
#include "emu-bmp280.h"
#include "emu-bmp388.h"
#include "i2c-mock.h"
#include "mavlink.h"
#include "test-files.h"
#include "test-util.h"

#define PA0 95000.0
#define PA1 101000.0
/* The integer BMP280 compensation against the emulator's double one
 * (tests/sensors), plus the float hPa SCALED_PRESSURE carries. */
#define PA_TOL 1.0
/* From a sensor's return to its first sample: the brief's bound. */
#define RECOVER_MS 1000u

struct fixture {
	struct i2c_mock *mock;
	struct emu_bmp280 bmp280;	/* bus 1, 0x76 */
	struct emu_bmp388 bmp390;	/* bus 2, 0x77 */
	char dir[64];			/* temporary files and the IIO tree */
	char iio[128];
	pid_t child;
};

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void
put(const char *dir, const char *name, const char *text)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	write_file(path, text);
}

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	*state = f;
	f->mock = i2c_mock_new();
	if (f->mock == NULL)
		return 0;
	assert_int_equal(i2c_mock_add_bus(f->mock, 1), 0);
	assert_int_equal(i2c_mock_add_bus(f->mock, 2), 0);
	emu_bmp280_init(&f->bmp280, 0x76, BMP280_CHIP_ID,
			emu_bmp280_datasheet_calib);
	emu_bmp388_init(&f->bmp390, 0x77, BMP390_CHIP_ID,
			emu_bmp388_sample_calib);
	emu_bmp280_set(&f->bmp280, PA0, 21.0);
	emu_bmp388_set(&f->bmp390, PA1, 23.0);
	i2c_mock_attach(f->mock, 1, &f->bmp280.chip);
	i2c_mock_attach(f->mock, 2, &f->bmp390.chip);

	temp_dir_make(f->dir, sizeof(f->dir), "barod-hw");
	snprintf(f->iio, sizeof(f->iio), "%s/iio:device0", f->dir);
	assert_int_equal(mkdir(f->iio, 0700), 0);
	put(f->iio, "name", "bmp280\n");
	put(f->iio, "in_pressure_input", "98.765432\n");
	put(f->iio, "in_temp_input", "24500\n");
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	if (f->child > 0) {
		kill(f->child, SIGKILL);
		waitpid(f->child, NULL, 0);
	}
	i2c_mock_free(f->mock);
	if (f->dir[0])
		assert_int_equal(temp_dir_remove(f->dir), 0);
	free(f);
	return 0;
}

static struct fixture *
fixture(void **state)
{
	struct fixture *f = *state;

	if (f->mock == NULL)
		skip();
	return f;
}

/* ------------------------------------------------------------------ */
/* MAVLink capture */

struct capture {
	struct mavlink_parser parser;
	unsigned count[BARO_MAX_INSTANCES];
	float press_hpa[BARO_MAX_INSTANCES];
	int16_t cdegc[BARO_MAX_INSTANCES];
};

static void
on_frame(const struct mavlink_frame *fr, void *user)
{
	struct capture *c = user;
	struct mavlink_scaled_pressure m;
	int i = fr->msgid == MAVLINK_MSG_SCALED_PRESSURE    ? 0
		: fr->msgid == MAVLINK_MSG_SCALED_PRESSURE2 ? 1
		: fr->msgid == MAVLINK_MSG_SCALED_PRESSURE3 ? 2
							    : -1;

	if (i < 0)
		return;
	mavlink_unpack_scaled_pressure(fr->payload, &m);
	c->count[i]++;
	c->press_hpa[i] = m.press_abs;
	c->cdegc[i] = m.temperature;
}

static void
capture_reset(struct capture *c)
{
	memset(c, 0, sizeof(*c));
	mavlink_parser_init(&c->parser);
}

static void
capture_for(int fd, struct capture *c, unsigned ms)
{
	const uint64_t end = now_ms() + ms;
	uint8_t buf[2048];

	for (uint64_t t = now_ms(); t < end; t = now_ms()) {
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t n;

		poll(&p, 1, (int)(end - t));
		while ((n = recv(fd, buf, sizeof(buf), 0)) > 0) {
			mavlink_parser_feed(&c->parser, buf, (size_t)n, on_frame,
					    c);
			mavlink_parser_flush(&c->parser);
		}
	}
}

/* Milliseconds until instance i publishes again (fails after limit). */
static unsigned
ms_until_published(int fd, struct capture *c, unsigned i, unsigned limit)
{
	const uint64_t start = now_ms();

	capture_reset(c);
	while (c->count[i] == 0) {
		capture_for(fd, c, 5);
		if (now_ms() - start > 3u * limit)
			fail_msg("instance %u did not come back in %u ms", i,
				 3u * limit);
	}
	return (unsigned)(now_ms() - start);
}

static void
assert_pa(float hpa, double pa)
{
	if (!(fabs((double)hpa * 100.0 - pa) <= PA_TOL))
		fail_msg("published %.3f Pa, emulated %.3f Pa",
			 (double)hpa * 100.0, pa);
}

/* ------------------------------------------------------------------ */

static pid_t
start_barod(struct fixture *f, const char *conf_text, const char *log)
{
	const char *bin = getenv("BAROD");
	char conf[128], log_path[128];

	assert_non_null(bin);
	snprintf(conf, sizeof(conf), "%s/barod.conf", f->dir);
	snprintf(log_path, sizeof(log_path), "%s/%s", f->dir, log);
	write_file(conf, conf_text);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		execl(bin, "barod", "-c", conf, "--control", "none", "-v",
		      (char *)NULL);
		_exit(127);
	}
	f->child = pid;
	return pid;
}

static int
stop_barod(struct fixture *f)
{
	int status;

	kill(f->child, SIGTERM);
	assert_int_equal(waitpid(f->child, &status, 0), f->child);
	f->child = 0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static unsigned
occurrences(const char *text, const char *what)
{
	unsigned n = 0;

	for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

static void
test_publish_unplug_recover(void **state)
{
	struct fixture *f = fixture(state);
	struct capture cap;
	char conf[1024], log[160];
	unsigned port;
	int fd = udp_loopback(&port, SOCK_NONBLOCK);

	/* baro0 probed (no driver key), baro1 named by path and driver. */
	snprintf(conf, sizeof(conf),
		 "[barod]\nsource = hardware\n"
		 "[sensor baro0]\nbus = 1\naddress = 0x76\n"
		 "[sensor baro1]\nbus = /dev/i2c-2\naddress = 0x77\n"
		 "driver = bmp388\nrate_hz = 50\n"
		 "[sensor kernel]\niio = %s\nrate_hz = 20\n"
		 "[output test]\ntype = udp-client\naddress = 127.0.0.1:%u\n",
		 f->iio, port);
	start_barod(f, conf, "hw.log");

	capture_reset(&cap);
	capture_for(fd, &cap, 1500);
	/* BMP280 x16/x2 every 43.7 ms, BMP390 at 50 Hz, IIO at 20 Hz. */
	assert_in_range(cap.count[0], 15, 40);
	assert_in_range(cap.count[1], 30, 80);
	assert_in_range(cap.count[2], 15, 35);
	assert_pa(cap.press_hpa[0], PA0);
	assert_pa(cap.press_hpa[1], PA1);
	assert_pa(cap.press_hpa[2], 98765.432);
	assert_in_range(cap.cdegc[0], 2095, 2105);
	assert_in_range(cap.cdegc[1], 2295, 2305);
	assert_int_equal(cap.cdegc[2], 2450);

	/* Unplugged: instance 1 stops, the others go on. */
	f->bmp390.chip.unplugged = true;
	capture_for(fd, &cap, 200);
	capture_reset(&cap);
	capture_for(fd, &cap, 800);
	assert_int_equal(cap.count[1], 0);
	assert_true(cap.count[0] >= 12);
	assert_true(cap.count[2] >= 10);

	/* Back with power-on registers: re-initialised (calibration
	 * included) and publishing within a second. */
	emu_bmp388_set(&f->bmp390, PA1 - 500.0, 23.0);
	emu_bmp388_power_on(&f->bmp390);
	f->bmp390.chip.unplugged = false;
	unsigned ms = ms_until_published(fd, &cap, 1, RECOVER_MS);
	if (ms > RECOVER_MS)
		fail_msg("instance 1 back after %u ms", ms);
	capture_for(fd, &cap, 100);
	assert_pa(cap.press_hpa[1], PA1 - 500.0);

	/* SDA stuck high: all 0xff is a fault, not a reading. */
	f->bmp280.chip.stuck_high = true;
	capture_for(fd, &cap, 200);
	capture_reset(&cap);
	capture_for(fd, &cap, 300);
	assert_int_equal(cap.count[0], 0);
	assert_true(cap.count[1] >= 8);
	f->bmp280.chip.stuck_high = false;
	ms = ms_until_published(fd, &cap, 0, RECOVER_MS);
	if (ms > RECOVER_MS)
		fail_msg("instance 0 back after %u ms", ms);

	/* The kernel's device returning nonsense, then sense again. */
	put(f->iio, "in_pressure_input", "0\n");
	capture_for(fd, &cap, 200);
	capture_reset(&cap);
	capture_for(fd, &cap, 300);
	assert_int_equal(cap.count[2], 0);
	put(f->iio, "in_pressure_input", "101.325\n");
	ms = ms_until_published(fd, &cap, 2, RECOVER_MS);
	if (ms > RECOVER_MS)
		fail_msg("instance 2 back after %u ms", ms);
	capture_for(fd, &cap, 120);
	assert_pa(cap.press_hpa[2], 101325.0);

	assert_int_equal(stop_barod(f), 0);
	close(fd);

	/* One line per change of state, however many attempts failed. */
	snprintf(log, sizeof(log), "%s/hw.log", f->dir);
	char *text = read_file(log);
	assert_int_equal(occurrences(text, "sensor baro1 (instance 1) unhealthy"),
			 1);
	assert_int_equal(occurrences(text, "sensor baro1 (instance 1) recovered"),
			 1);
	assert_int_equal(occurrences(text, "sensor baro0 (instance 0) unhealthy"),
			 1);
	assert_int_equal(occurrences(text, "sensor kernel (instance 2) unhealthy"),
			 1);
	assert_non_null(strstr(text, "all 0xff"));
	assert_non_null(strstr(text, "implausible"));
	free(text);
}

/* ------------------------------------------------------------------ */

static struct program_result
barod(const char *a1, const char *a2, const char *a3)
{
	const char *argv[] = { "barod", a1, a2, a3, NULL };

	return run_program(getenv("BAROD"), argv, NULL);
}

static void
free_result(struct program_result *r)
{
	free(r->out);
	free(r->err);
}

static void
test_probe(void **state)
{
	struct fixture *f = fixture(state);
	char conf[128], text[4096];

	struct program_result r = barod("--probe", NULL, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "# BMP280 on /dev/i2c-1 at 0x76 "
				      "(driver bmp280)\n[sensor baro0]\nbus = 1\n"
				      "address = 0x76\ndriver = bmp280\n"
				      "instance = 0\n"));
	assert_non_null(strstr(r.out, "# BMP390 on /dev/i2c-2 at 0x77 "
				      "(driver bmp388)\n[sensor baro1]\nbus = 2\n"
				      "address = 0x77\ndriver = bmp388\n"
				      "instance = 1\n"));
	assert_non_null(strstr(r.out, "# 2 barometers found"));

	/* What it prints is a working configuration. */
	snprintf(conf, sizeof(conf), "%s/probed.conf", f->dir);
	snprintf(text, sizeof(text), "[barod]\nsource = hardware\n%s", r.out);
	write_file(conf, text);
	free_result(&r);
	r = barod("-c", conf, "--check-config");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "source hardware"));
	free_result(&r);

	/* One bus; the =BUS form too. */
	r = barod("--probe", "2", NULL);
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.out, "BMP280"));
	assert_non_null(strstr(r.out, "# 1 barometer found"));
	free_result(&r);
	r = barod("--probe=/dev/i2c-1", NULL, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "# BMP280 on /dev/i2c-1 at 0x76"));
	free_result(&r);

	/* An empty bus is not an error, and says so. */
	f->bmp390.chip.unplugged = true;
	r = barod("--probe", "2", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "no supported barometer found "
				      "(/dev/i2c-2)"));
	free_result(&r);
	f->bmp390.chip.unplugged = false;

	/* A kernel driver's address is reported with the way out. */
	f->bmp280.chip.kernel_owned = true;
	r = barod("--probe", "1", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "# /dev/i2c-1 0x76: a kernel driver"));
	free_result(&r);
	f->bmp280.chip.kernel_owned = false;

	r = barod("--probe", "bus1", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "'bus1' is not a bus number"));
	free_result(&r);
	r = barod("--probe", "7", NULL);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "/dev/i2c-7"));
	free_result(&r);
}

/* A GPIO line that does not exist stops barod at start-up with the
 * reason (no GPIO chip exists in CI; gpio-sim needs a kernel module). */
static void
test_missing_gpio_line(void **state)
{
	struct fixture *f = fixture(state);
	char conf[128];

	snprintf(conf, sizeof(conf), "%s/gpio.conf", f->dir);
	write_file(conf, "[barod]\nsource = hardware\n"
			 "[sensor baro0]\nbus = 1\naddress = 0x76\n"
			 "drdy = pinctrl-bcm2711:GPIO17\n"
			 "[output x]\ntype = udp-client\n"
			 "address = 127.0.0.1:9\n");
	struct program_result r = barod("-c", conf, "--control=none");
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "sensor baro0: GPIO pinctrl-bcm2711:GPIO17: "
				      "no GPIO chip labelled or named "
				      "'pinctrl-bcm2711'"));
	free_result(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_publish_unplug_recover,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_gpio_line, setup,
						teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
