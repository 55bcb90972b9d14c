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
 *
 * GPIO lines (data-ready, power) come from tests/sensors/fake-gpiod.c,
 * a stand-in for libgpiod (1.6 or 2.x) preloaded into barod alone, so
 * sensors/gpio.c runs unchanged; umockdev adds /dev/gpiochip0 for barod
 * to find.  The emulated chips' INT pins drive those lines, and one
 * chip's supply is a power line.
 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "baro-sample.h"
#include "bmp280.h"
#include "bmp388.h"
#include "driver.h"
#include "emu-dps310.h"
#include "emu-kinds.h"
#include "emu-ms5611.h"
#include "fake-gpio.h"
#include "hw-testbed.h"
#include "mavlink.h"
#include "msp-capture.h"
#include "test-files.h"
#include "test-util.h"

#define PA0 95000.0
#define PA1 101000.0
/* The integer BMP280 compensation against the emulator's double one
 * (tests/sensors), plus the float hPa SCALED_PRESSURE carries. */
#define PA_TOL 1.0
/* From a sensor's return to its first sample: the brief's bound. */
#define RECOVER_MS 1000u

/* GPIO lines on gpiochip0, labelled GPIO_CHIP. */
#define GPIO_CHIP "pinctrl-test"
enum { LINE_DRDY_A, LINE_DRDY_B, LINE_POWER, N_LINES };

/* Leading edges (the data-ready signal's start) in ms, as time_boot_ms
 * would show them. */
struct edge_log {
	struct fake_gpio_line line;
	bool active_high;
	uint32_t ms[512];
	size_t n;
};

struct fixture {
	struct hw_testbed tb;		/* its directory: files, the IIO tree */
	struct emu_bmp280 bmp280;	/* bus 1, 0x76 */
	struct emu_bmp388 bmp390;	/* bus 2, 0x77 */
	struct emu_dps310 dps310;	/* bus 3, 0x77 */
	char iio[320];
	struct edge_log drdy[2];	/* LINE_DRDY_A, LINE_DRDY_B */
	struct fake_gpio_line power;
	bool hung;			/* the BMP390 NACKs until power-cycled */
	bool powered;
	int power_seen;			/* power line values looked at */
};

static void
put(const char *dir, const char *name, const char *text)
{
	char path[512];
	int n = snprintf(path, sizeof(path), "%s/%s", dir, name);

	assert_true(n > 0 && (size_t)n < sizeof(path));
	write_file(path, text);
}

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	*state = f;
	if (hw_testbed_open(&f->tb, "barod-hw", 3) < 0)
		return -1;
	if (f->tb.mock == NULL)
		return 0;
	hw_testbed_bmp280(&f->tb, &f->bmp280, 1, PA0, 21.0);
	hw_testbed_bmp390(&f->tb, &f->bmp390, 2, PA1, 23.0);

	hw_testbed_path(&f->tb, f->iio, sizeof(f->iio), "iio:device0");
	assert_int_equal(mkdir(f->iio, 0700), 0);
	put(f->iio, "name", "bmp280\n");
	put(f->iio, "in_pressure_input", "98.765432\n");
	put(f->iio, "in_temp_input", "24500\n");

	emu_dps310_init(&f->dps310, 0x77, DPS310_VARIANT_DPS310,
			emu_dps310_sample_coef);
	i2c_mock_attach(f->tb.mock, 3, &f->dps310.chip);
	assert_int_equal(i2c_mock_add_gpiochip(f->tb.mock, 0), 0);
	const char *const lines[N_LINES] = { "GPIO17", "GPIO22", "GPIO27" };
	assert_int_equal(fake_gpio_chip(f->tb.h.dir, "gpiochip0", GPIO_CHIP, lines,
					N_LINES), 0);
	for (unsigned i = 0; i < 2; i++)
		assert_int_equal(fake_gpio_line_open(&f->drdy[i].line, f->tb.h.dir,
						     "gpiochip0", i, false), 0);
	assert_int_equal(fake_gpio_line_open(&f->power, f->tb.h.dir, "gpiochip0",
					     LINE_POWER, false), 0);
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	for (unsigned i = 0; i < 2; i++)
		fake_gpio_line_close(&f->drdy[i].line);
	fake_gpio_line_close(&f->power);
	/* KEEP_TMP=1 keeps barod's logs and the GPIO files for a look. */
	int rc = hw_testbed_close(&f->tb);
	free(f);
	return rc;
}

static struct fixture *
fixture(void **state)
{
	struct fixture *f = *state;

	hw_testbed_require(&f->tb);
	return f;
}

/* ------------------------------------------------------------------ */
/* MAVLink capture */

struct capture {
	struct mavlink_parser parser;
	unsigned count[BARO_MAX_INSTANCES];
	float press_hpa[BARO_MAX_INSTANCES];
	int16_t cdegc[BARO_MAX_INSTANCES];
	uint32_t boot_ms[BARO_MAX_INSTANCES][256];	/* the first ones */
	uint32_t last_ms[BARO_MAX_INSTANCES];
	uint32_t max_gap_ms[BARO_MAX_INSTANCES];	/* between samples */
	uint32_t long_gap_ms;		/* gaps over this ... */
	unsigned long_gaps[BARO_MAX_INSTANCES];	/* ... counted */
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
	if (c->count[i] < 256)
		c->boot_ms[i][c->count[i]] = m.time_boot_ms;
	if (c->count[i] > 0 && m.time_boot_ms - c->last_ms[i] > c->max_gap_ms[i])
		c->max_gap_ms[i] = m.time_boot_ms - c->last_ms[i];
	if (c->count[i] > 0 && c->long_gap_ms &&
	    m.time_boot_ms - c->last_ms[i] > c->long_gap_ms)
		c->long_gaps[i]++;
	c->last_ms[i] = m.time_boot_ms;
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
	const uint64_t end = hw_now_ms() + ms;
	uint8_t buf[2048];

	for (uint64_t t = hw_now_ms(); t < end; t = hw_now_ms()) {
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
	const uint64_t start = hw_now_ms();

	capture_reset(c);
	while (c->count[i] == 0) {
		capture_for(fd, c, 5);
		if (hw_now_ms() - start > 3u * limit)
			fail_msg("instance %u did not come back in %u ms", i,
				 3u * limit);
	}
	return (unsigned)(hw_now_ms() - start);
}

static void
assert_pa(float hpa, double pa)
{
	if (!(fabs((double)hpa * 100.0 - pa) <= PA_TOL))
		fail_msg("published %.3f Pa, emulated %.3f Pa",
			 (double)hpa * 100.0, pa);
}

/* ------------------------------------------------------------------ */

/* Children from now on find GPIO lines in the testbed's directory (the
 * test itself keeps the real libgpiod: LD_PRELOAD is read at exec). */
static void
fake_gpio_env(struct fixture *f, bool on)
{
	static char saved[1024];
	const char *lib = getenv("FAKE_GPIOD");
	const char *pre = getenv("LD_PRELOAD");
	char value[2048];

	/* meson builds the fake for either libgpiod: none is a broken
	 * build, not something to skip. */
	if (lib == NULL)
		fail_msg("FAKE_GPIOD unset: no fake libgpiod to preload");
	if (on) {
		snprintf(saved, sizeof(saved), "%s", pre ? pre : "");
		snprintf(value, sizeof(value), "%s:%s", lib, saved);
		setenv("LD_PRELOAD", value, 1);
		setenv("FAKE_GPIOD_DIR", f->tb.h.dir, 1);
	} else {
		setenv("LD_PRELOAD", saved, 1);
		unsetenv("FAKE_GPIOD_DIR");
	}
}

/* barod -c DIR/barod.conf (holding conf_text), its output in DIR/log. */
static pid_t
start_barod(struct fixture *f, const char *conf_text, const char *log)
{
	char conf[320];

	hw_testbed_path(&f->tb, conf, sizeof(conf), "barod.conf");
	write_file(conf, conf_text);
	return hw_testbed_start(&f->tb, log,
				(const char *[]){ "-c", conf, "--control",
						  "none", "-vv", NULL });
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

	assert_int_equal(hw_testbed_stop(&f->tb), 0);
	close(fd);

	/* One line per change of state, however many attempts failed. */
	hw_testbed_path(&f->tb, log, sizeof(log), "hw.log");
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

/* Every thread of this process (the umockdev handler answering barod's
 * ioctls among them) at nice value prio, and children forked from now
 * on: a timing test then measures barod's scheduling rather than the
 * other jobs on a shared host.  False when not allowed (not root). */
static bool
set_nice(int prio)
{
	DIR *dir = opendir("/proc/self/task");
	struct dirent *e;
	bool ok = dir != NULL;

	while (dir != NULL && (e = readdir(dir)) != NULL) {
		if (e->d_name[0] != '.' &&
		    setpriority(PRIO_PROCESS, (id_t)atoi(e->d_name), prio) != 0)
			ok = false;
	}
	if (dir != NULL)
		closedir(dir);
	return ok;
}

/* Two chips on one bus, as in issue 12: an MS5611 whose conversions
 * take the datasheet's maximum (an early ADC read returns 0 and loses the
 * conversion) and a BMP280 unplugged for 2 s.  The MS5611 keeps its full
 * rate with no gap over two sample periods, and no ADC read comes sooner
 * than the maximum conversion time after its command. */
static void
test_ms5611_keeps_rate(void **state)
{
	struct fixture *f = fixture(state);
	struct emu_ms5611 ms;
	struct capture cap;
	uint16_t prom[MS5611_PROM_WORDS];
	char conf[512];
	unsigned port;
	int fd = udp_loopback(&port, SOCK_NONBLOCK);

	emu_ms5611_datasheet_prom(MS5611_VARIANT_MS5611, prom);
	emu_ms5611_init(&ms, 0x77, MS5611_VARIANT_MS5611, prom);
	emu_ms5611_set(&ms, PA1, 22.0);
	assert_int_equal(ms.chip.timing, EMU_TIMING_MAX);
	assert_int_equal(f->bmp280.chip.timing, EMU_TIMING_MAX);
	i2c_mock_attach(f->tb.mock, 1, &ms.chip);
	if (!set_nice(-10))
		print_message("no higher priority (not root): gaps include "
			      "the host's load\n");
	snprintf(conf, sizeof(conf),
		 "[barod]\nsource = hardware\n"
		 "[sensor bmp]\nbus = 1\naddress = 0x76\ndriver = bmp280\n"
		 "instance = 0\n"
		 "[sensor ms]\nbus = 1\naddress = 0x77\ndriver = ms5611\n"
		 "instance = 1\n"
		 "[output test]\ntype = udp-client\naddress = 127.0.0.1:%u\n",
		 port);
	start_barod(f, conf, "two.log");
	ms_until_published(fd, &cap, 1, RECOVER_MS);
	ms_until_published(fd, &cap, 0, RECOVER_MS);

	/* The MS5611 with both chips healthy for two seconds, with the
	 * BMP280 unplugged for two (barod retries it on the same bus
	 * meanwhile), healthy again for two.  Its rate and gaps unplugged are
	 * compared with its own healthy ones around them: on a shared,
	 * loaded test host the event loop wakes late at times whatever
	 * barod does, and that is not what is under test. */
	struct capture a1, a2;
	/* OSR 4096: a slot of at least 9.944 ms (9.04 plus a tenth) per
	 * conversion, a pressure in seven slots of eight; two periods,
	 * rounded to the millisecond time_boot_ms has. */
	const double period_ms = 9.944 * 8.0 / 7.0;
	/* Plus 3 ms: time_boot_ms's rounding, and a retry of the unplugged
	 * chip that delays the MS5611's read by one failed transaction,
	 * ~25 us on a real 400 kHz bus but a round trip through umockdev's
	 * handler here, a millisecond or two under the sanitizers. */
	const uint32_t gap_limit_ms = (uint32_t)(2.0 * period_ms + 0.5) + 3u;

	capture_reset(&a1);
	a1.long_gap_ms = gap_limit_ms;
	capture_for(fd, &a1, 2000);
	f->bmp280.chip.unplugged = true;
	capture_for(fd, &cap, 100);
	capture_reset(&cap);
	cap.long_gap_ms = gap_limit_ms;
	/* Each retry of the unplugged BMP280 is one failed transfer (its
	 * chip-id read), so this counts them. */
	const unsigned tries0 = f->bmp280.chip.transfers;
	capture_for(fd, &cap, 2000);
	const unsigned retries = f->bmp280.chip.transfers - tries0;
	f->bmp280.chip.unplugged = false;
	capture_reset(&a2);
	a2.long_gap_ms = gap_limit_ms;
	capture_for(fd, &a2, 2000);

	const double healthy_hz = (a1.count[1] + a2.count[1]) / 4.0;
	print_message("MS5611 healthy: %u and %u samples in 2 s, %u and %u gaps "
		      "over %u ms (longest %u and %u ms); BMP280 unplugged: %u "
		      "samples in 2 s, %u gaps over %u ms (longest %u ms), %u "
		      "retries; least "
		      "command to ADC read beyond the maximum conversion time "
		      "%.3f ms; early reads %u\n", a1.count[1], a2.count[1],
		      a1.long_gaps[1], a2.long_gaps[1], gap_limit_ms,
		      a1.max_gap_ms[1], a2.max_gap_ms[1], cap.count[1],
		      cap.long_gaps[1], gap_limit_ms, cap.max_gap_ms[1], retries,
		      (double)ms.min_slack_us / 1000.0, ms.chip.early_reads);
	/* The bug this guards against: reads ~9.0 ms after the command
	 * found no result, each lost a conversion, and the rate fell to
	 * ~22 Hz with gaps of most of a second. */
	assert_int_equal(ms.chip.early_reads, 0);
	assert_true(ms.adc_reads > cap.count[1]);
	assert_true(ms.min_slack_us >= 0);
	assert_true(a1.count[1] <= 2000 / period_ms + 1 &&
		    a2.count[1] <= 2000 / period_ms + 1);
	assert_true(a1.count[1] >= 100 && a2.count[1] >= 100);
	assert_int_equal(cap.count[0], 0);
	/* Full rate, and no gap over two periods that the host does not
	 * make with both chips healthy: on a shared, loaded test host the
	 * event loop wakes late now and then whatever barod does, so the
	 * unplugged window (2 s) may show as many such gaps as the two
	 * healthy ones together (4 s), and one more.  Beyond those, a retry
	 * may push at most the one MS5611 read it ran into past the limit:
	 * ~25 us on a real bus, but a umockdev round trip here that a host
	 * running two CI roots at once once stretched to 8 ms (two gaps of
	 * up to 31 ms in the window, none with both chips healthy).  A
	 * retry that blocked for a conversion or reset would cost more than
	 * one read each: the rate and longest-gap checks catch that. */
	assert_true(cap.count[1] >= 2.0 * healthy_hz * 0.9);
	assert_true(retries >= 1);
	assert_true(cap.long_gaps[1] <=
		    a1.long_gaps[1] + a2.long_gaps[1] + 1 + retries);
	assert_true(cap.max_gap_ms[1] < 100);
	assert_pa(cap.press_hpa[1], PA1);

	/* The BMP280 back: both publish again. */
	ms_until_published(fd, &cap, 0, RECOVER_MS);
	assert_int_equal(hw_testbed_stop(&f->tb), 0);
	set_nice(0);
	assert_int_equal(ms.chip.early_reads, 0);
	assert_int_equal(f->bmp280.chip.early_reads, 0);
	close(fd);
}

/* The real use of MSP: the Pi's chips feeding a flight controller
 * (here over TCP, as to SITL's --serialN tcp:PORT; a pty is out of reach
 * under umockdev, which owns /dev).  Every published sample reaches it
 * once, in order, as its MSP instance; a chip the kernel drives without
 * a temperature gets the standard atmosphere's. */
static void
test_msp_output(void **state)
{
	struct fixture *f = fixture(state);
	static struct rec_sample rec[MSP_CAPTURE_MAX];
	struct msp_capture *c = msp_capture_new();
	char conf[1024], record[160], iio[160];
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t salen = sizeof(sa);

	int l = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	assert_true(l >= 0);
	assert_int_equal(bind(l, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(l, 1), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&sa, &salen), 0);
	hw_testbed_path(&f->tb, record, sizeof(record), "msp.csv");
	hw_testbed_path(&f->tb, iio, sizeof(iio), "iio:device1");
	assert_int_equal(mkdir(iio, 0700), 0);
	put(iio, "name", "lps22hb\n");
	put(iio, "in_pressure_input", "98.765432\n");
	snprintf(conf, sizeof(conf),
		 "[barod]\nsource = hardware\nrecord = %s\n"
		 "[sensor baro0]\nbus = 1\naddress = 0x76\n"
		 "[sensor baro1]\nbus = 2\naddress = 0x77\ndriver = bmp388\n"
		 "rate_hz = 50\n"
		 "[sensor kernel]\niio = %s\nrate_hz = 20\n"
		 "[output fc]\ntype = msp\naddress = 127.0.0.1:%u\n"
		 "instances = 0, 1, 2=4\n",
		 record, iio, ntohs(sa.sin_port));
	start_barod(f, conf, "msp.log");

	uint8_t buf[4096];
	int status = -1, conn = -1;
	const uint64_t stop_at = hw_now_ms() + 1500, deadline = stop_at + 5000;
	bool stopped = false;
	for (;;) {
		struct pollfd p[2] = { { l, POLLIN, 0 }, { conn, POLLIN, 0 } };
		poll(p, 2, 50);
		if (conn < 0)
			conn = accept4(l, NULL, NULL, SOCK_NONBLOCK);
		ssize_t n;
		while (conn >= 0 && (n = read(conn, buf, sizeof(buf))) > 0)
			msp_capture_feed(c, buf, (size_t)n);
		if (!stopped && hw_now_ms() >= stop_at) {
			kill(f->tb.child, SIGTERM);
			stopped = true;
		}
		if (status < 0 && harness_exited(&f->tb.h, f->tb.child, &status))
			continue;
		if (status >= 0 || hw_now_ms() > deadline)
			break;
	}
	assert_true(status >= 0);
	assert_int_equal(hw_testbed_stop(&f->tb), 0);

	ssize_t got;
	while ((got = read(conn, buf, sizeof(buf))) > 0)
		msp_capture_feed(c, buf, (size_t)got);

	/* The connection is made before the first chip has been read. */
	size_t n = read_record(record, rec, MSP_CAPTURE_MAX);
	unsigned per[8] = { 0 };
	assert_int_equal(c->not_baro + c->parser.stats.garbage_bytes, 0);
	assert_int_equal(c->n, n);
	for (size_t k = 0; k < n; k++) {
		const unsigned want = rec[k].instance == 2 ? 4 : rec[k].instance;
		assert_msp_matches(&c->b[k], &rec[k], want, k);
		per[want]++;
	}
	/* BMP280 every 43.7 ms, BMP390 at 50 Hz, IIO at 20 Hz. */
	assert_in_range(per[0], 20, 40);
	assert_in_range(per[1], 50, 80);
	assert_in_range(per[4], 20, 35);
	for (size_t k = 0; k < c->n; k++) {
		const struct msp_baro *b = &c->b[k];
		const double pa = b->instance == 0 ? PA0
				  : b->instance == 1 ? PA1
						     : 98765.432;
		if (!(fabs((double)b->pressure_pa - pa) <= PA_TOL))
			fail_msg("MSP %u: %.3f Pa, emulated %.3f Pa",
				 b->instance, (double)b->pressure_pa, pa);
		/* 21 C, 23 C, and for the IIO chip the 1976 atmosphere at
		 * 98765 Pa (about 214 m: 13.6 C). */
		const int lo = b->instance == 0 ? 2095
			       : b->instance == 1 ? 2295 : 1340;
		const int hi = b->instance == 0 ? 2105
			       : b->instance == 1 ? 2305 : 1380;
		assert_in_range(b->temp_cdeg, lo, hi);
	}
	close(conn);
	close(l);
	free(c);
}

/* ------------------------------------------------------------------ */

static struct program_result
barod(const char *a1, const char *a2, const char *a3)
{
	const char *argv[] = { "barod", a1, a2, a3, NULL };

	return run_program(getenv("BAROD"), argv, NULL);
}

/* The scanning driver that has a chip of this name, or NULL. */
static const struct baro_driver *
scanner_of(const char *chip)
{
	for (size_t d = 0; baro_drivers[d] != NULL; d++)
		for (size_t c = 0; c < baro_drivers[d]->n_chips; c++)
			if (baro_drivers[d]->n_addrs > 0 &&
			    strcmp(baro_drivers[d]->chips[c].name, chip) == 0)
				return baro_drivers[d];
	return NULL;
}

/*
 * barod --probe over every registered chip, each on a bus of its own
 * (emu-kinds.c): each is found at its address, by the name its driver's
 * table says a scan gives it (an MS5607 is an MS5611 to a scan, an SPL06
 * a DPS310) and with the driver that scan ran.  What to expect comes
 * from the registry, so a new chip is covered, or named, here too.
 */
#define KIND_BUS0 10

static void
test_probe_registry(void **state)
{
	struct fixture *f = fixture(state);
	struct emu_chip *chips[16] = { NULL };

	assert_true(emu_n_kinds <= sizeof(chips) / sizeof(chips[0]));
	for (size_t i = 0; i < emu_n_kinds; i++) {
		unsigned n = KIND_BUS0 + (unsigned)i;

		assert_int_equal(i2c_mock_add_bus(f->tb.mock, n), 0);
		chips[i] = emu_kinds[i].create(emu_kinds[i].addr);
		assert_non_null(chips[i]);
		chips[i]->timing = EMU_TIMING_INSTANT;
		emu_kinds[i].set(chips[i], PA0, 21.0);
		i2c_mock_attach(f->tb.mock, n, chips[i]);
	}
	struct program_result r = barod("--probe", NULL, NULL);
	assert_int_equal(r.status, 0);
	for (size_t i = 0; i < emu_n_kinds; i++) {
		const struct baro_driver *drv =
			baro_driver_find(emu_kinds[i].driver);
		const char *name = emu_kinds[i].chip;
		char want[160];

		if (drv == NULL)
			fail_msg("emulator %s/%s: no driver %s registered",
				 emu_kinds[i].driver, name, emu_kinds[i].driver);
		for (size_t c = 0; c < drv->n_chips; c++)
			if (strcmp(drv->chips[c].name, name) == 0 &&
			    drv->chips[c].scan_finds != NULL)
				name = drv->chips[c].scan_finds;
		const struct baro_driver *scanner = scanner_of(name);
		if (scanner == NULL)
			fail_msg("%s/%s: no scanning driver has %s",
				 emu_kinds[i].driver, emu_kinds[i].chip, name);
		snprintf(want, sizeof(want), "# %s on /dev/i2c-%u at 0x%02x "
			 "(driver %s)\n", name, KIND_BUS0 + (unsigned)i,
			 emu_kinds[i].addr, scanner->name);
		if (strstr(r.out, want) == NULL)
			fail_msg("%s/%s: barod --probe has no \"%.*s\":\n%s",
				 emu_kinds[i].driver, emu_kinds[i].chip,
				 (int)strlen(want) - 1, want, r.out);
	}
	/* And nothing else: the three chips of the fixture besides. */
	char count[64];
	snprintf(count, sizeof(count), "# %zu barometers found\n",
		 emu_n_kinds + 3);
	if (strstr(r.out, count) == NULL)
		fail_msg("barod --probe: not \"%.*s\":\n%s",
			 (int)strlen(count) - 1, count, r.out);
	program_result_free(&r);
	/* Nothing talks to the mock once barod is gone; teardown frees
	 * it and its buses. */
	for (size_t i = 0; i < emu_n_kinds; i++)
		free(chips[i]);
}

static void
test_probe(void **state)
{
	struct fixture *f = fixture(state);

	struct program_result r = barod("--probe", NULL, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "\n[barod]\nsource = hardware\n"));
	assert_non_null(strstr(r.out, "# BMP280 on /dev/i2c-1 at 0x76 "
				      "(driver bmp280)\n[sensor baro0]\nbus = 1\n"
				      "address = 0x76\ndriver = bmp280\n"
				      "instance = 0\n"));
	assert_non_null(strstr(r.out, "# BMP390 on /dev/i2c-2 at 0x77 "
				      "(driver bmp388)\n[sensor baro1]\nbus = 2\n"
				      "address = 0x77\ndriver = bmp388\n"
				      "instance = 1\n"));
	assert_non_null(strstr(r.out, "# DPS310 on /dev/i2c-3 at 0x77 "
				      "(driver dps310)\n[sensor baro2]\nbus = 3\n"
				      "address = 0x77\ndriver = dps310\n"
				      "instance = 2\n"));
	assert_non_null(strstr(r.out, "# 3 barometers found"));
	program_result_free(&r);

	/* One bus; the =BUS form too. */
	r = barod("--probe", "2", NULL);
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.out, "BMP280"));
	assert_non_null(strstr(r.out, "source = hardware"));
	assert_non_null(strstr(r.out, "# 1 barometer found"));
	program_result_free(&r);
	r = barod("--probe=/dev/i2c-1", NULL, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "# BMP280 on /dev/i2c-1 at 0x76"));
	program_result_free(&r);

	/* Nothing found: no configuration that cannot run, and a status
	 * that stops `barod --probe > conf && systemctl restart barod`. */
	f->bmp390.chip.unplugged = true;
	r = barod("--probe", "2", NULL);
	assert_int_equal(r.status, 1);
	assert_null(strstr(r.out, "[barod]"));
	assert_non_null(strstr(r.out, "no supported barometer found "
				      "(/dev/i2c-2)"));
	assert_non_null(strstr(r.err, "barod: --probe: no supported barometer "
				      "found (/dev/i2c-2)"));
	program_result_free(&r);
	f->bmp390.chip.unplugged = false;

	/* A kernel driver's address is reported with the way out. */
	f->bmp280.chip.kernel_owned = true;
	r = barod("--probe", "1", NULL);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.out, "# /dev/i2c-1 0x76: a kernel driver"));
	program_result_free(&r);
	f->bmp280.chip.kernel_owned = false;

	r = barod("--probe", "bus1", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "'bus1' is not a bus number"));
	program_result_free(&r);
	r = barod("--probe", "7", NULL);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "/dev/i2c-7"));
	program_result_free(&r);
}

static struct program_result
barod_argv(const char *const *args)
{
	const char *argv[8] = { "barod" };

	for (size_t i = 0; args[i] && i < 6; i++)
		argv[i + 1] = args[i];
	return run_program(getenv("BAROD"), argv, NULL);
}

#define BAROD(...) barod_argv((const char *const[]){ __VA_ARGS__, NULL })

/* The directory holds exactly these names (no temporary file left). */
static void
assert_dir_holds(const char *dir, const char *const *names)
{
	size_t want = 0, seen = 0;
	struct dirent *e;
	DIR *d = opendir(dir);

	assert_non_null(d);
	while (names[want])
		want++;
	while ((e = readdir(d)) != NULL) {
		bool known = false;
		if (e->d_name[0] == '.')
			continue;
		for (size_t k = 0; names[k]; k++)
			known |= strcmp(e->d_name, names[k]) == 0;
		if (!known)
			fail_msg("%s: unexpected %s", dir, e->d_name);
		seen++;
	}
	closedir(d);
	assert_int_equal(seen, want);
}

/*
 * barod --probe --write FILE: the way a configuration is installed
 * (README, hardware.md, barod(8)).  Nothing found leaves FILE byte for
 * byte and exits 1; found, FILE is a configuration barod accepts and
 * the previous one is FILE.bak with its permissions.
 */
static void
test_probe_write(void **state)
{
	struct fixture *f = fixture(state);
	char dir[330], conf[400], bak[410];
	const char *old = "# my own configuration\n[barod]\nsource = sim\n";
	struct stat st;

	/* A directory of its own, so a temporary file left behind shows. */
	hw_testbed_path(&f->tb, dir, sizeof(dir), "probe-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(conf, sizeof(conf), "%s/barod.conf", dir);
	snprintf(bak, sizeof(bak), "%s.bak", conf);
	write_file(conf, old);
	assert_int_equal(chmod(conf, 0640), 0);

	/* No chip on the bus: the file is untouched, no .bak. */
	f->bmp390.chip.unplugged = true;
	struct program_result r = BAROD("--probe", "2", "--write", conf);
	f->bmp390.chip.unplugged = false;
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "no supported barometer found "
				      "(/dev/i2c-2)"));
	assert_non_null(strstr(r.err, "left as it was"));
	program_result_free(&r);
	char *text = read_file(conf);
	assert_string_equal(text, old);
	free(text);
	assert_int_equal(stat(conf, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_dir_holds(dir, (const char *const[]){ "barod.conf", NULL });

	/* A bus that is not there: the same. */
	r = BAROD("--probe", "7", "--write", conf);
	assert_int_equal(r.status, 1);
	program_result_free(&r);
	text = read_file(conf);
	assert_string_equal(text, old);
	free(text);

	/* Found: the new file, the old one as .bak with its mode. */
	r = BAROD("--probe", "--write", conf);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "3 barometers found; wrote "));
	assert_non_null(strstr(r.err, bak));
	program_result_free(&r);
	text = read_file(bak);
	assert_string_equal(text, old);
	free(text);
	assert_int_equal(stat(bak, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_dir_holds(dir, (const char *const[]){ "barod.conf",
						     "barod.conf.bak", NULL });
	text = read_file(conf);
	assert_non_null(strstr(text, "\n[barod]\nsource = hardware\n"));
	assert_non_null(strstr(text, "[sensor baro2]"));
	assert_non_null(strstr(text, "# 3 barometers found"));
	/* The stdout form prints the same configuration. */
	r = BAROD("--probe");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, text);
	program_result_free(&r);
	free(text);

	/* barod takes what it wrote. */
	r = BAROD("-c", conf, "--check-config");
	if (r.status != 0)
		fail_msg("--check-config on the probed file: %d: %s", r.status,
			 r.err);
	assert_non_null(strstr(r.out, "source = hardware"));
	program_result_free(&r);

	/* Again: .bak is now the first probe's file. */
	text = read_file(conf);
	r = BAROD("--probe", "1", "--write", conf);
	assert_int_equal(r.status, 0);
	program_result_free(&r);
	char *prev = read_file(bak);
	assert_string_equal(prev, text);
	free(prev);
	free(text);
	text = read_file(conf);
	assert_null(strstr(text, "[sensor baro1]"));
	free(text);

	/* A directory that cannot be written: an error, nothing changed. */
	r = BAROD("--probe", "--write", "/nonexistent-dir/barod.conf");
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "/nonexistent-dir/barod.conf"));
	program_result_free(&r);

	/* --write is --probe's. */
	r = BAROD("--sim", "--write", conf);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--write FILE goes with --probe"));
	program_result_free(&r);

	unlink(bak);
	unlink(conf);
	assert_int_equal(rmdir(dir), 0);
}

/* What the issue asks a new user to do:
 *   barod --probe > /etc/barod/barod.conf && systemctl restart barod
 * The probe's stdout is the file, and barod runs with it and nothing
 * else (the unit's ExecStart has no options), publishing every chip.
 * barod's default output is 127.0.0.1:14550: in a network namespace of
 * the test's own where it can (as root), so no other barod's samples
 * reach the port; when another program holds that port, -o moves the
 * same output to ours. */
static void
test_probe_config_runs(void **state)
{
	struct fixture *f = fixture(state);
	char conf[320], out[64];
	struct capture cap;
	unsigned port = 14550;

	if (!own_loopback())
		print_message("no network namespace of its own: another barod "
			      "sending to 127.0.0.1:14550 would be captured\n");
	hw_testbed_path(&f->tb, conf, sizeof(conf), "barod.conf");
	struct program_result r = barod("--probe", NULL, NULL);
	assert_int_equal(r.status, 0);
	write_file(conf, r.out);
	program_result_free(&r);

	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(14550),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	assert_true(fd >= 0);
	bool own_port = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0;
	if (own_port) {
		close(fd);
		fd = udp_loopback(&port, SOCK_NONBLOCK);
		print_message("127.0.0.1:14550 is taken: -o udp:127.0.0.1:%u\n",
			      port);
	}
	snprintf(out, sizeof(out), "udp:127.0.0.1:%u", port);
	/* The control socket where a user session puts it: barod
	 * inherits the environment at its start. */
	char saved_xdg[512], saved_rt[512];
	const char *xdg_env = getenv("XDG_RUNTIME_DIR");
	const char *rt_env = getenv("RUNTIME_DIRECTORY");
	const bool xdg = xdg_env, rt = rt_env;
	snprintf(saved_xdg, sizeof(saved_xdg), "%s", xdg ? xdg_env : "");
	snprintf(saved_rt, sizeof(saved_rt), "%s", rt ? rt_env : "");
	unsetenv("RUNTIME_DIRECTORY");
	setenv("XDG_RUNTIME_DIR", f->tb.h.dir, 1);
	hw_testbed_start(&f->tb, "probed.log",
			 own_port ? (const char *[]){ "-c", conf, "-o", out,
						      NULL }
				  : (const char *[]){ "-c", conf, NULL });
	if (xdg)
		setenv("XDG_RUNTIME_DIR", saved_xdg, 1);
	else
		unsetenv("XDG_RUNTIME_DIR");
	if (rt)
		setenv("RUNTIME_DIRECTORY", saved_rt, 1);

	capture_reset(&cap);
	capture_for(fd, &cap, 1500);
	/* Each chip at the driver's default rate, as the file leaves it. */
	assert_true(cap.count[0] >= 10);
	assert_true(cap.count[1] >= 10);
	assert_true(cap.count[2] >= 10);
	assert_pa(cap.press_hpa[0], PA0);
	assert_pa(cap.press_hpa[1], PA1);
	assert_int_equal(hw_testbed_stop(&f->tb), 0);
	close(fd);
}

/* A GPIO line that does not exist stops barod at start-up with the
 * reason (no GPIO chip exists in CI; gpio-sim needs a kernel module). */
static void
test_missing_gpio_line(void **state)
{
	struct fixture *f = fixture(state);
	char conf[128];

	hw_testbed_path(&f->tb, conf, sizeof(conf), "gpio.conf");
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
	program_result_free(&r);
}

/* ------------------------------------------------------------------ */
/* GPIO: data-ready lines and a power line */

/* A chip's INT pin is the line's level; leading edges are logged. */
static void
pin_to_line(struct emu_chip *chip, bool level, uint32_t after_us)
{
	struct edge_log *e = chip->user;
	uint64_t ts = fake_gpio_now_ns() + (uint64_t)after_us * 1000u;

	if (level == e->active_high && e->n < sizeof(e->ms) / sizeof(e->ms[0]))
		e->ms[e->n++] = (uint32_t)(ts / 1000000u);
	fake_gpio_line_set(&e->line, level, ts);
}

static void
wire_pin(struct emu_chip *chip, struct edge_log *e, bool active_high)
{
	e->active_high = active_high;
	e->line.level = chip->int_level;
	chip->user = e;
	chip->on_int = pin_to_line;
}

static bool
logged_edge(const struct edge_log *e, uint32_t ms)
{
	for (size_t i = 0; i < e->n; i++)
		if (e->ms[i] == ms)
			return true;
	return false;
}

/* Both lines' chips convert every 20 ms while their own rates are
 * 3 and 1 Hz: what barod publishes at about 50 Hz it read on edges, and
 * each sample carries its edge's timestamp.  The BMP390's pin is active
 * low and open-drain (pulses start with a falling edge, the line needs
 * a pull-up), the DPS310's active high and held until read. */
static void
test_drdy_edges(void **state)
{
	struct fixture *f = fixture(state);
	struct capture cap;
	char conf[1024], req[256];
	unsigned port;
	int fd = udp_loopback(&port, SOCK_NONBLOCK);

	fake_gpio_env(f, true);
	wire_pin(&f->bmp390.chip, &f->drdy[LINE_DRDY_A], false);
	wire_pin(&f->dps310.chip, &f->drdy[LINE_DRDY_B], true);
	snprintf(conf, sizeof(conf),
		 "[barod]\nsource = hardware\n"
		 "[sensor baro0]\nbus = 1\naddress = 0x76\n"
		 "[sensor baro1]\nbus = 2\naddress = 0x77\nrate_hz = 3\n"
		 "drdy = " GPIO_CHIP ":GPIO17\ndrdy_active = low\n"
		 "drdy_drive = open-drain\n"
		 "[sensor baro2]\nbus = 3\naddress = 0x77\nrate_hz = 1\n"
		 "drdy = " GPIO_CHIP ":GPIO22\n"
		 "[output test]\ntype = udp-client\naddress = 127.0.0.1:%u\n",
		 port);
	start_barod(f, conf, "drdy.log");
	fake_gpio_env(f, false);
	unsigned ms = ms_until_published(fd, &cap, 2, RECOVER_MS);
	(void)ms;

	/* What the chips were told, and what the lines were asked for. */
	assert_int_equal(f->bmp390.chip.regs[BMP388_REG_INT_CTRL],
			 BMP388_INT_DRDY_EN | BMP388_INT_OD);
	assert_int_equal(f->dps310.chip.regs[DPS310_REG_CFG] & 0xf0,
			 DPS310_CFG_INT_HL | DPS310_CFG_INT_PRS);
	fake_gpio_line_request(&f->drdy[LINE_DRDY_A].line, req, sizeof(req));
	assert_string_equal(req, "edges falling pull-up consumer barod baro1\n");
	fake_gpio_line_request(&f->drdy[LINE_DRDY_B].line, req, sizeof(req));
	assert_string_equal(req, "edges rising consumer barod baro2\n");

	capture_for(fd, &cap, 100);
	capture_reset(&cap);
	for (int i = 0; i < 50; i++) {
		emu_bmp388_set(&f->bmp390, PA1 + i, 23.0);
		emu_dps310_set(&f->dps310, PA0 + i, 22.0);
		capture_for(fd, &cap, 20);
	}
	capture_for(fd, &cap, 30);
	assert_in_range(cap.count[1], 40, 60);
	assert_in_range(cap.count[2], 40, 60);
	/* Every sample stamped with its leading edge: the falling one for
	 * the BMP390, whose rising edge comes 2.5 ms later. */
	for (unsigned k = 1; k <= 2; k++)
		for (unsigned i = 0; i < cap.count[k] && i < 256; i++)
			if (!logged_edge(&f->drdy[k - 1], cap.boot_ms[k][i]))
				fail_msg("instance %u sample %u: time_boot_ms %u "
					 "is no leading edge's", k, i,
					 cap.boot_ms[k][i]);
	/* The sensor without a line kept its own timer. */
	assert_in_range(cap.count[0], 15, 40);
	assert_pa(cap.press_hpa[1], PA1 + 49);

	assert_int_equal(hw_testbed_stop(&f->tb), 0);
	close(fd);
	char log[160];
	hw_testbed_path(&f->tb, log, sizeof(log), "drdy.log");
	char *text = read_file(log);
	assert_non_null(strstr(text, "sensor baro1: BMP390 /dev/i2c-2 0x77, "
				     "instance 1, every 640000 us or DRDY"));
	free(text);
}

/* A chip without a data-ready pin with a drdy line: a configuration
 * error naming the sensor, found by --check-config when the driver is
 * named and by the probe at start-up otherwise. */
static void
test_drdy_without_pin(void **state)
{
	struct fixture *f = fixture(state);
	char conf[128];
	const char *argv[] = { "barod", "-c", conf, "--control=none", NULL,
			       NULL };

	hw_testbed_path(&f->tb, conf, sizeof(conf), "nopin.conf");
	write_file(conf, "[barod]\nsource = hardware\n"
			 "[sensor baro0]\nbus = 1\naddress = 0x76\n"
			 "drdy = " GPIO_CHIP ":GPIO17\n"
			 "[output x]\ntype = udp-client\n"
			 "address = 127.0.0.1:9\n");
	fake_gpio_env(f, true);
	struct program_result r = run_program(getenv("BAROD"), argv, NULL);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "sensor baro0: BMP280 /dev/i2c-1 0x76: "
				      "no data-ready pin"));
	program_result_free(&r);

	write_file(conf, "[barod]\nsource = hardware\n"
			 "[sensor baro0]\nbus = 1\naddress = 0x76\n"
			 "driver = bmp280\ndrdy = " GPIO_CHIP ":GPIO17\n");
	argv[3] = "--check-config";
	r = run_program(getenv("BAROD"), argv, NULL);
	fake_gpio_env(f, false);
	assert_int_not_equal(r.status, 0);
	assert_non_null(strstr(r.err, "nopin.conf:4: [sensor baro0]: drdy: "
				      "the bmp280 driver's chips: no data-ready "
				      "pin"));
	program_result_free(&r);
}

/* The BMP390's supply is the power line, whose history is looked at
 * before each transfer (barod makes none while the power is off): off,
 * the chip NACKs; on after off, it starts from its power-on registers.
 * Hung, it NACKs however long it stays on. */
static void
supply(struct emu_chip *chip)
{
	struct fixture *f = chip->user;
	struct fake_gpio_value v[64];
	int n = fake_gpio_line_values(&f->power, v, 64);

	for (int i = f->power_seen; i < n; i++) {
		if (v[i].value == 0) {
			f->powered = false;
		} else if (!f->powered) {
			emu_bmp388_power_on(&f->bmp390);
			f->hung = false;
			f->powered = true;
		}
	}
	f->power_seen = n > 0 ? n : 0;
	chip->unplugged = !f->powered || f->hung;
}

static void
test_power_cycle(void **state)
{
	struct fixture *f = fixture(state);
	struct fake_gpio_value v[16];
	struct capture cap;
	char conf[1024], log[160];
	unsigned port;
	int fd = udp_loopback(&port, SOCK_NONBLOCK);

	fake_gpio_env(f, true);
	f->bmp390.chip.user = f;
	f->bmp390.chip.on_transfer = supply;
	snprintf(conf, sizeof(conf),
		 "[barod]\nsource = hardware\n"
		 "[sensor baro1]\nbus = 2\naddress = 0x77\ndriver = bmp388\n"
		 "rate_hz = 50\ninstance = 1\n"
		 "power = " GPIO_CHIP ":GPIO27\npower_off_ms = 150\n"
		 "[output test]\ntype = udp-client\naddress = 127.0.0.1:%u\n",
		 port);
	start_barod(f, conf, "power.log");
	fake_gpio_env(f, false);
	ms_until_published(fd, &cap, 1, RECOVER_MS);
	capture_for(fd, &cap, 300);
	assert_true(cap.count[1] >= 10);

	/* Hung: only a power cycle helps.  New calibration and truth show
	 * that barod re-initialised the chip afterwards. */
	const uint64_t fault = fake_gpio_now_ns();
	f->hung = true;
	f->bmp390.calib[15] = (uint8_t)(f->bmp390.calib[15] + 20);
	f->bmp390.pressure_pa = PA1 - 800.0;
	/* A sample read just before the hang may still be on its way;
	 * the power cycle alone takes 150 ms. */
	capture_for(fd, &cap, 50);
	ms_until_published(fd, &cap, 1, RECOVER_MS);
	const uint64_t back = fake_gpio_now_ns();
	capture_for(fd, &cap, 100);
	assert_pa(cap.press_hpa[1], PA1 - 800.0);

	/* Requested on (1), then off after four failed attempts (10, 20,
	 * 40 and 80 ms apart), on again power_off_ms later. */
	int n = fake_gpio_line_values(&f->power, v, 16);
	assert_int_equal(n, 3);
	assert_int_equal(v[0].value, 1);
	assert_int_equal(v[1].value, 0);
	assert_int_equal(v[2].value, 1);
	assert_true(v[1].ts_ns - fault >= 150000000u);
	assert_true(v[1].ts_ns - fault < 1000000000u);
	assert_true(v[2].ts_ns - v[1].ts_ns >= 150000000u);
	assert_true(v[2].ts_ns - v[1].ts_ns < 450000000u);
	if (back - v[2].ts_ns > RECOVER_MS * 1000000ull)
		fail_msg("published %.0f ms after the power came back",
			 (double)(back - v[2].ts_ns) * 1e-6);
	char req[256];
	fake_gpio_line_request(&f->power, req, sizeof(req));
	assert_string_equal(req, "output consumer barod baro1\n");

	assert_int_equal(hw_testbed_stop(&f->tb), 0);
	close(fd);
	hw_testbed_path(&f->tb, log, sizeof(log), "power.log");
	char *text = read_file(log);
	assert_int_equal(occurrences(text, "sensor baro1: power cycle, 150 ms "
					   "off"), 1);
	assert_int_equal(occurrences(text, "sensor baro1 (instance 1) "
					   "recovered"), 1);
	const char *cycle = strstr(text, "power cycle");
	const char *fourth = strstr(text, "sensor baro1: attempt 4:");
	assert_non_null(fourth);
	assert_true(fourth < cycle);
	assert_null(strstr(text, "sensor baro1: attempt 5:"));
	free(text);
}

/* Forced mode where temperature and pressure are separate one-shot
 * conversions (DPS310): the temperature slot starts the pressure, so
 * samples keep coming. */
static void
test_dps310_forced(void **state)
{
	struct fixture *f = fixture(state);
	struct capture cap;
	char conf[512];
	unsigned port;
	int fd = udp_loopback(&port, SOCK_NONBLOCK);

	emu_dps310_set(&f->dps310, PA0 + 300.0, 19.0);
	snprintf(conf, sizeof(conf),
		 "[barod]\nsource = hardware\n"
		 "[sensor baro2]\nbus = 3\naddress = 0x77\nmode = forced\n"
		 "rate_hz = 20\ninstance = 2\n"
		 "[output test]\ntype = udp-client\naddress = 127.0.0.1:%u\n",
		 port);
	start_barod(f, conf, "forced.log");
	ms_until_published(fd, &cap, 2, RECOVER_MS);
	capture_reset(&cap);
	capture_for(fd, &cap, 1000);
	/* 20 Hz less one period per eighth sample for the temperature. */
	assert_in_range(cap.count[2], 14, 20);
	assert_pa(cap.press_hpa[2], PA0 + 300.0);
	assert_in_range(cap.cdegc[2], 1890, 1910);
	assert_int_equal(hw_testbed_stop(&f->tb), 0);
	close(fd);
}

/* ------------------------------------------------------------------ */
/* SIGHUP */

static void
test_reload_sensors(void **state)
{
	struct fixture *f = fixture(state);
	struct capture cap;
	char conf[1024], path[128], iio2[128];
	unsigned port;
	int fd = udp_loopback(&port, SOCK_NONBLOCK);
	const char *head = "[barod]\nsource = hardware\n"
			   "[sensor baro0]\nbus = 1\naddress = 0x76\n";

	hw_testbed_path(&f->tb, iio2, sizeof(iio2), "iio:device1");
	assert_int_equal(mkdir(iio2, 0700), 0);
	put(iio2, "name", "lps22hb\n");
	put(iio2, "in_pressure_input", "97.5\n");
	put(iio2, "in_temp_input", "18000\n");

	snprintf(conf, sizeof(conf),
		 "%s[sensor baro1]\nbus = 2\naddress = 0x77\nrate_hz = 50\n"
		 "[sensor kernel]\niio = %s\nrate_hz = 20\n"
		 "[output test]\ntype = udp-client\naddress = 127.0.0.1:%u\n",
		 head, f->iio, port);
	start_barod(f, conf, "reload.log");
	capture_reset(&cap);
	capture_for(fd, &cap, 600);
	for (unsigned i = 0; i < 3; i++)
		assert_true(cap.count[i] > 5);
	const unsigned resets = f->bmp280.resets;
	assert_int_equal(f->bmp390.chip.regs[BMP388_REG_ODR], 2);

	/* baro0 as it was, baro1 slower, kernel replaced by kernel2. */
	snprintf(conf, sizeof(conf),
		 "%s[sensor baro1]\nbus = 2\naddress = 0x77\nrate_hz = 25\n"
		 "[sensor kernel2]\niio = %s\nrate_hz = 20\n"
		 "[output test]\ntype = udp-client\naddress = 127.0.0.1:%u\n",
		 head, iio2, port);
	hw_testbed_path(&f->tb, path, sizeof(path), "barod.conf");
	write_file(path, conf);
	kill(f->tb.child, SIGHUP);
	capture_for(fd, &cap, 300);
	capture_reset(&cap);
	capture_for(fd, &cap, 1000);
	/* Untouched: no reset written, its rate unchanged. */
	assert_int_equal(f->bmp280.resets, resets);
	assert_in_range(cap.count[0], 15, 30);
	/* Reopened at 25 Hz (ODR code 3, 40 ms). */
	assert_int_equal(f->bmp390.chip.regs[BMP388_REG_ODR], 3);
	assert_in_range(cap.count[1], 17, 32);
	assert_pa(cap.press_hpa[2], 97500.0);
	assert_int_equal(cap.cdegc[2], 1800);

	/* A changed sensor that cannot be opened (no such GPIO chip) is
	 * left out; the others go on. */
	snprintf(conf, sizeof(conf),
		 "%s[sensor baro1]\nbus = 2\naddress = 0x77\nrate_hz = 25\n"
		 "drdy = nochip:GPIO5\n"
		 "[sensor kernel2]\niio = %s\nrate_hz = 20\n"
		 "[output test]\ntype = udp-client\naddress = 127.0.0.1:%u\n",
		 head, iio2, port);
	write_file(path, conf);
	kill(f->tb.child, SIGHUP);
	capture_for(fd, &cap, 300);
	capture_reset(&cap);
	capture_for(fd, &cap, 500);
	assert_int_equal(cap.count[1], 0);
	assert_true(cap.count[0] >= 7);
	assert_true(cap.count[2] >= 6);
	assert_int_equal(f->bmp280.resets, resets);

	assert_int_equal(hw_testbed_stop(&f->tb), 0);
	close(fd);
	hw_testbed_path(&f->tb, path, sizeof(path), "reload.log");
	char *text = read_file(path);
	assert_int_equal(occurrences(text, "sensor baro0: BMP280"), 1);
	assert_non_null(strstr(text, "reload: sensor baro1 (instance 1) "
				     "closed: section changed"));
	assert_non_null(strstr(text, "reload: sensor kernel (instance 2) "
				     "closed: section removed"));
	assert_non_null(strstr(text, "reload: sensors: 1 kept, 2 closed, 2 "
				     "opened"));
	assert_non_null(strstr(text, "sensor kernel2: IIO lps22hb"));
	assert_non_null(strstr(text, "reload: sensor baro1: GPIO nochip:GPIO5: "
				     "no GPIO chip labelled or named 'nochip'"));
	assert_non_null(strstr(text, "reload: sensors: 2 kept, 1 closed, 0 "
				     "opened"));
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_publish_unplug_recover,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_ms5611_keeps_rate, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_probe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_registry, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_probe_write, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_probe_config_runs, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_missing_gpio_line, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_drdy_edges, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_drdy_without_pin, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_power_cycle, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_dps310_forced, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_msp_output, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_reload_sensors, setup,
						teardown),
	};
	if (!i2c_mock_preloaded())
		return i2c_mock_skip("barod-hw");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
