/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The bus layer, libi2c and the drivers, unchanged, against emulated
 * chips on /dev/i2c-1 served by umockdev (i2c-mock.c).  Skipped, not
 * failed, when the binary runs without umockdev's preload library.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/i2c-dev.h>
#include <linux/i2c.h>

#include "bmp280.h"
#include "bmp388.h"
#include "bus.h"
#include "driver.h"
#include "emu-bmp280.h"
#include "emu-bmp388.h"
#include "dps310.h"
#include "emu-dps310.h"
#include "emu-kinds.h"
#include "emu-lps22.h"
#include "emu-ms5611.h"
#include "i2c-mock.h"
#include "lps22.h"
#include "ms5611.h"
#include "test-util.h"

#define BUS 1
#define BUS_PATH "/dev/i2c-1"
#define BUS2 2
#define BUS2_PATH "/dev/i2c-2"
#define BUS3 3			/* MS5611 0x77, MS5607 0x76 */
#define BUS3_PATH "/dev/i2c-3"
#define BUS4 4			/* DPS310 0x77, SPL06 0x76, LPS22HB 0x5c,
				 * LPS22HH 0x5d */
#define BUS4_PATH "/dev/i2c-4"
#define BUS5 5			/* MS5637, fixed at 0x76 */
#define BUS5_PATH "/dev/i2c-5"
/* The registry's chips, one emulator a bus from KIND_BUS0 on, in
 * emu_kinds' order (emu-kinds.h): a bus each, so a chip is found by every
 * driver at every address as it would be alone. */
#define KIND_BUS0 20
#define KINDS_MAX 16

/* The BMP280's pressure step is 0.16-0.2 Pa.  The emulator computes with
 * the datasheet's double variant, the driver with the integer one; below
 * 0 degC their t_fine can differ by one (the double variant truncates
 * toward zero, the integer one shifts toward minus infinity), which moves
 * pressure by up to 0.5 Pa. */
#define PA_TOL 0.6
#define DEGC_TOL 0.011

struct fixture {
	struct i2c_mock *mock;
	struct emu_bmp280 bmp280;	/* 0x76 */
	struct emu_bmp280 bme280;	/* 0x77 */
	struct emu_bmp388 bmp388;	/* bus 2, 0x76 */
	struct emu_bmp388 bmp390;	/* bus 2, 0x77 */
	struct emu_ms5611 ms5611;	/* bus 3, 0x77 */
	struct emu_ms5611 ms5607;	/* bus 3, 0x76 */
	struct emu_ms5611 ms5637;	/* bus 5, 0x76 */
	struct emu_dps310 dps310;	/* bus 4, 0x77 */
	struct emu_dps310 spl06;	/* bus 4, 0x76 */
	struct emu_lps22 lps22hb;	/* bus 4, 0x5c */
	struct emu_lps22 lps22hh;	/* bus 4, 0x5d */
	struct emu_chip *kinds[KINDS_MAX];	/* emu_kinds' emulators */
	struct baro_bus bus;
	struct baro_dev dev;
	char err[256];
};

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->mock = i2c_mock_new();
	if (f->mock == NULL) {
		free(f);
		*state = NULL;
		return 0;
	}
	assert_int_equal(i2c_mock_add_bus(f->mock, BUS), 0);
	emu_bmp280_init(&f->bmp280, 0x76, BMP280_CHIP_ID,
			emu_bmp280_datasheet_calib);
	emu_bmp280_init(&f->bme280, 0x77, BME280_CHIP_ID,
			emu_bmp280_datasheet_calib);
	i2c_mock_attach(f->mock, BUS, &f->bmp280.chip);
	i2c_mock_attach(f->mock, BUS, &f->bme280.chip);
	assert_int_equal(i2c_mock_add_bus(f->mock, BUS2), 0);
	emu_bmp388_init(&f->bmp388, 0x76, BMP388_CHIP_ID,
			emu_bmp388_sample_calib);
	emu_bmp388_init(&f->bmp390, 0x77, BMP390_CHIP_ID,
			emu_bmp388_sample_calib);
	i2c_mock_attach(f->mock, BUS2, &f->bmp388.chip);
	i2c_mock_attach(f->mock, BUS2, &f->bmp390.chip);

	uint16_t prom[MS5611_PROM_WORDS];
	assert_int_equal(i2c_mock_add_bus(f->mock, BUS3), 0);
	emu_ms5611_datasheet_prom(MS5611_VARIANT_MS5611, prom);
	emu_ms5611_init(&f->ms5611, 0x77, MS5611_VARIANT_MS5611, prom);
	emu_ms5611_datasheet_prom(MS5611_VARIANT_MS5607, prom);
	emu_ms5611_init(&f->ms5607, 0x76, MS5611_VARIANT_MS5607, prom);
	i2c_mock_attach(f->mock, BUS3, &f->ms5611.chip);
	i2c_mock_attach(f->mock, BUS3, &f->ms5607.chip);
	assert_int_equal(i2c_mock_add_bus(f->mock, BUS5), 0);
	emu_ms5611_datasheet_prom(MS5611_VARIANT_MS5637, prom);
	emu_ms5611_init(&f->ms5637, 0x76, MS5611_VARIANT_MS5637, prom);
	i2c_mock_attach(f->mock, BUS5, &f->ms5637.chip);
	assert_int_equal(i2c_mock_add_bus(f->mock, BUS4), 0);
	emu_dps310_init(&f->dps310, 0x77, DPS310_VARIANT_DPS310,
			emu_dps310_sample_coef);
	emu_dps310_init(&f->spl06, 0x76, DPS310_VARIANT_SPL06,
			emu_dps310_sample_coef);
	i2c_mock_attach(f->mock, BUS4, &f->dps310.chip);
	i2c_mock_attach(f->mock, BUS4, &f->spl06.chip);
	emu_lps22_init(&f->lps22hb, 0x5c, LPS22HB_WHO_AM_I);
	emu_lps22_init(&f->lps22hh, 0x5d, LPS22HH_WHO_AM_I);
	i2c_mock_attach(f->mock, BUS4, &f->lps22hb.chip);
	i2c_mock_attach(f->mock, BUS4, &f->lps22hh.chip);
	/* These tests look at registers and arithmetic and call start and
	 * read back to back; the timing tests put chips back on the
	 * datasheet's maximum times, the emulators' default. */
	struct emu_chip *const all[] = {
		&f->bmp280.chip, &f->bme280.chip, &f->bmp388.chip,
		&f->bmp390.chip, &f->ms5611.chip, &f->ms5607.chip,
		&f->ms5637.chip, &f->dps310.chip, &f->spl06.chip,
		&f->lps22hb.chip, &f->lps22hh.chip,
	};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		all[i]->timing = EMU_TIMING_INSTANT;
	assert_true(emu_n_kinds <= KINDS_MAX);
	for (size_t i = 0; i < emu_n_kinds; i++) {
		unsigned n = KIND_BUS0 + (unsigned)i;

		assert_int_equal(i2c_mock_add_bus(f->mock, n), 0);
		f->kinds[i] = emu_kinds[i].create(emu_kinds[i].addr);
		assert_non_null(f->kinds[i]);
		f->kinds[i]->timing = EMU_TIMING_INSTANT;
		i2c_mock_attach(f->mock, n, f->kinds[i]);
	}
	f->bus.fd = -1;
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	if (f == NULL)
		return 0;
	baro_dev_close(&f->dev);
	baro_bus_close(&f->bus);
	i2c_mock_free(f->mock);
	for (size_t i = 0; i < emu_n_kinds; i++)
		free(f->kinds[i]);
	free(f);
	return 0;
}

static struct fixture *
fixture(void **state)
{
	if (*state == NULL)
		skip_because("no umockdev testbed (umockdev's preload "
			     "library not loaded)");
	return *state;
}

static void
open_bus(struct fixture *f)
{
	if (baro_bus_open(&f->bus, BUS_PATH, f->err, sizeof(f->err)) != 0)
		fail_msg("%s", f->err);
}

static void
open_dev(struct fixture *f, uint8_t addr, const struct baro_sensor_config *cfg)
{
	open_bus(f);
	if (baro_dev_open(&f->dev, &baro_driver_bmp280, &f->bus, addr, cfg,
			  f->err, sizeof(f->err)) != 0)
		fail_msg("%s", f->err);
}

static struct baro_sample
read_ok(struct fixture *f, uint64_t now)
{
	struct baro_sample s;

	if (f->dev.drv->read(&f->dev, now, &s, f->err, sizeof(f->err)) != 0)
		fail_msg("%s", f->err);
	return s;
}

static void
assert_err_names(const struct fixture *f, const char *what)
{
	if (strstr(f->err, what) == NULL)
		fail_msg("message \"%s\" lacks \"%s\"", f->err, what);
}

/* ------------------------------------------------------------------ */

static void
test_probe_variants(void **state)
{
	struct fixture *f = fixture(state);

	open_bus(f);
	assert_int_equal(baro_driver_bmp280.probe(&f->bus, 0x76, f->err,
						  sizeof(f->err)),
			 BMP280_VARIANT_BMP280);
	assert_int_equal(baro_driver_bmp280.probe(&f->bus, 0x77, f->err,
						  sizeof(f->err)),
			 BMP280_VARIANT_BME280);
	/* Nothing answers at 0x40: a NACK, reported as "not here". */
	assert_int_equal(baro_driver_bmp280.probe(&f->bus, 0x40, f->err,
						  sizeof(f->err)),
			 -ENODEV);
	/* A chip with another id is not ours. */
	f->bmp280.chip.regs[BMP280_REG_ID] = 0x55;
	assert_int_equal(baro_driver_bmp280.probe(&f->bus, 0x76, f->err,
						  sizeof(f->err)),
			 -ENODEV);
	assert_err_names(f, "chip id 0x55");
}

static void
test_read_tracks_truth(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config cfg = { 0 };

	open_dev(f, 0x76, &cfg);
	assert_int_equal(f->dev.variant, BMP280_VARIANT_BMP280);
	assert_int_equal(f->dev.config.osr_p, 16);
	assert_int_equal(f->dev.config.osr_t, 2);
	/* x16/x2 normal mode: 43.2 ms conversion + 0.5 ms standby. */
	assert_int_equal(f->dev.period_us, 43725);

	for (double pa = 30000.0; pa <= 110000.0; pa += 7919.0) {
		for (double c = -30.0; c <= 70.0; c += 23.3) {
			emu_bmp280_set(&f->bmp280, pa, c);
			struct baro_sample s = read_ok(f, (uint64_t)pa);

			assert_close_abs(s.pressure_pa, pa, PA_TOL);
			assert_close_abs(s.temperature_c, c, DEGC_TOL);
			assert_int_equal(s.time_us, (uint64_t)pa);
			assert_int_equal(s.flags, BARO_SAMPLE_HEALTHY |
							  BARO_SAMPLE_HAS_TEMPERATURE);
		}
	}
}

static void
test_forced_mode(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config cfg = {
		.osr_p = 4, .osr_t = 1, .iir = 4, .rate_hz = 50,
		.mode = BARO_MODE_FORCED,
	};
	struct baro_sample s;

	open_dev(f, 0x77, &cfg);
	assert_int_equal(f->dev.variant, BMP280_VARIANT_BME280);
	assert_int_equal(f->dev.config.iir, 4);
	/* 50 Hz asked, conversion 13.3 ms: the rate wins. */
	assert_int_equal(f->dev.period_us, 20000);
	assert_int_equal(f->bme280.chip.regs[BMP280_REG_CTRL_MEAS], 0x2c);
	assert_int_equal(f->bme280.chip.regs[BMP280_REG_CONFIG] & 0x1c, 2 << 2);

	/* Nothing measured yet: the data registers hold 0x80000. */
	assert_int_equal(f->dev.drv->read(&f->dev, 1, &s, f->err,
					  sizeof(f->err)), -EIO);
	assert_err_names(f, "0x80000");

	unsigned before = f->bme280.conversions;
	emu_bmp280_set(&f->bme280, 95000.0, 31.0);
	assert_int_equal(f->dev.drv->start(&f->dev, f->err, sizeof(f->err)), 0);
	assert_int_equal(f->bme280.conversions, before + 1);
	s = read_ok(f, 2);
	assert_close_abs(s.pressure_pa, 95000.0, PA_TOL);
	assert_close_abs(s.temperature_c, 31.0, DEGC_TOL);
}

static void
test_two_chips_one_fd(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config cfg = { 0 };
	struct baro_dev other = { .instance = 1 };
	struct baro_sample a, b;

	open_dev(f, 0x76, &cfg);
	if (baro_dev_open(&other, &baro_driver_bmp280, &f->bus, 0x77, &cfg,
			  f->err, sizeof(f->err)) != 0)
		fail_msg("%s", f->err);
	emu_bmp280_set(&f->bmp280, 100000.0, 20.0);
	emu_bmp280_set(&f->bme280, 90000.0, 40.0);
	for (int i = 0; i < 3; i++) {
		a = read_ok(f, 10);
		assert_int_equal(other.drv->read(&other, 11, &b, f->err,
						 sizeof(f->err)), 0);
		assert_close_abs(a.pressure_pa, 100000.0, PA_TOL);
		assert_close_abs(b.pressure_pa, 90000.0, PA_TOL);
		assert_int_equal(a.instance, 0);
		assert_int_equal(b.instance, 1);
	}
	baro_dev_close(&other);
}

static void
test_nack(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config cfg = { 0 };
	struct baro_sample s;

	open_dev(f, 0x76, &cfg);
	f->bmp280.chip.nack_after = 1;
	assert_int_equal(f->dev.drv->read(&f->dev, 1, &s, f->err,
					  sizeof(f->err)), -EREMOTEIO);
	assert_err_names(f, "/dev/i2c-1 0x76");
	/* A one-off NACK: the next read works. */
	read_ok(f, 2);

	f->bmp280.chip.nack_errno = ENXIO;
	f->bmp280.chip.nack_after = 1;
	assert_int_equal(f->dev.drv->read(&f->dev, 3, &s, f->err,
					  sizeof(f->err)), -ENXIO);
}

static void
test_nack_during_init(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config cfg = { 0 };

	open_bus(f);
	/* Transfer 3 of init is the calibration burst, after id and reset
	 * (the status polls come between: any later one will do too). */
	for (unsigned n = 1; n <= 6; n++) {
		emu_bmp280_power_on(&f->bmp280);
		f->bmp280.chip.nack_after = n + 1;	/* +1: probe's id read */
		int ret = baro_dev_open(&f->dev, &baro_driver_bmp280, &f->bus,
					0x76, &cfg, f->err, sizeof(f->err));
		assert_int_equal(ret, -EREMOTEIO);
		assert_null(f->dev.priv);
	}
	f->bmp280.chip.nack_after = 0;
	if (baro_dev_open(&f->dev, &baro_driver_bmp280, &f->bus, 0x76, &cfg,
			  f->err, sizeof(f->err)) != 0)
		fail_msg("%s", f->err);
}

static void
test_unplug_replug(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config cfg = { 0 };
	struct baro_sample s;

	open_dev(f, 0x76, &cfg);
	f->bmp280.chip.unplugged = true;
	assert_int_equal(f->dev.drv->read(&f->dev, 1, &s, f->err,
					  sizeof(f->err)), -EREMOTEIO);
	assert_int_equal(baro_driver_bmp280.probe(&f->bus, 0x76, f->err,
						  sizeof(f->err)), -ENODEV);

	/* Back with power-on registers: the settings are gone, which read
	 * notices; a new init (calibration included) recovers. */
	f->bmp280.chip.unplugged = false;
	emu_bmp280_power_on(&f->bmp280);
	assert_int_equal(f->dev.drv->read(&f->dev, 2, &s, f->err,
					  sizeof(f->err)), -EIO);
	assert_err_names(f, "settings lost");
	baro_dev_close(&f->dev);
	if (baro_dev_open(&f->dev, &baro_driver_bmp280, &f->bus, 0x76, &cfg,
			  f->err, sizeof(f->err)) != 0)
		fail_msg("%s", f->err);
	emu_bmp280_set(&f->bmp280, 88000.0, 5.0);
	s = read_ok(f, 3);
	assert_close_abs(s.pressure_pa, 88000.0, PA_TOL);
}

static void
test_kernel_owns_address(void **state)
{
	struct fixture *f = fixture(state);

	f->bmp280.chip.kernel_owned = true;
	open_bus(f);
	assert_int_equal(baro_bus_select(&f->bus, 0x76, f->err, sizeof(f->err)),
			 -EBUSY);
	assert_err_names(f, "/dev/i2c-1 0x76");
	assert_err_names(f, "IIO");
	/* Probe passes EBUSY on: "something is there, not for us". */
	assert_int_equal(baro_driver_bmp280.probe(&f->bus, 0x76, f->err,
						  sizeof(f->err)), -EBUSY);
	/* The other address on the bus is unaffected. */
	assert_int_equal(baro_driver_bmp280.probe(&f->bus, 0x77, f->err,
						  sizeof(f->err)),
			 BMP280_VARIANT_BME280);
}

static void
test_all_ff(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config cfg = { 0 };
	struct baro_sample s;

	open_dev(f, 0x76, &cfg);
	f->bmp280.chip.stuck_high = true;
	assert_int_equal(f->dev.drv->read(&f->dev, 1, &s, f->err,
					  sizeof(f->err)), -EIO);
	assert_err_names(f, "all 0xff");
	assert_int_equal(baro_driver_bmp280.probe(&f->bus, 0x76, f->err,
						  sizeof(f->err)), -ENODEV);
	f->bmp280.chip.stuck_high = false;
	read_ok(f, 2);
}

static void
test_all_zero_data(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config cfg = { 0 };
	struct baro_sample s;

	open_dev(f, 0x76, &cfg);
	memset(f->bmp280.chip.regs + BMP280_REG_DATA, 0, 6);
	assert_int_equal(f->dev.drv->read(&f->dev, 1, &s, f->err,
					  sizeof(f->err)), -EIO);
	assert_err_names(f, "all 0x00");
}

static void
test_blank_calibration(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config cfg = { 0 };
	static const uint8_t blank[24];

	emu_bmp280_init(&f->bmp280, 0x76, BMP280_CHIP_ID, blank);
	open_bus(f);
	assert_int_equal(baro_dev_open(&f->dev, &baro_driver_bmp280, &f->bus,
				       0x76, &cfg, f->err, sizeof(f->err)),
			 -EIO);
	assert_err_names(f, "calibration");
}

static void
test_chip_id_changes(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config cfg = { 0 };
	struct baro_sample s;
	int ret = 0, reads = 0;

	open_dev(f, 0x76, &cfg);
	read_ok(f, 1);
	/* The id alone changes, settings intact: caught by the periodic
	 * id check within its period. */
	f->bmp280.chip.regs[BMP280_REG_ID] = BME280_CHIP_ID;
	while (ret == 0 && reads++ < 40)
		ret = f->dev.drv->read(&f->dev, 2, &s, f->err, sizeof(f->err));
	assert_int_equal(ret, -ENODEV);
	assert_true(reads <= 32);
	assert_err_names(f, "chip id changed 0x58 -> 0x60");

	/* A different chip after a power cycle: caught at once. */
	baro_dev_close(&f->dev);
	f->bmp280.chip_id = BMP280_CHIP_ID;
	emu_bmp280_power_on(&f->bmp280);
	if (baro_dev_open(&f->dev, &baro_driver_bmp280, &f->bus, 0x76, &cfg,
			  f->err, sizeof(f->err)) != 0)
		fail_msg("%s", f->err);
	read_ok(f, 3);
	f->bmp280.chip_id = 0x61;
	emu_bmp280_power_on(&f->bmp280);
	assert_int_equal(f->dev.drv->read(&f->dev, 4, &s, f->err,
					  sizeof(f->err)), -ENODEV);
}

static void
test_missing_node(void **state)
{
	struct fixture *f = fixture(state);

	assert_int_equal(baro_bus_open(&f->bus, "/dev/i2c-9", f->err,
				       sizeof(f->err)), -ENOENT);
	assert_err_names(f, "/dev/i2c-9");
	assert_int_equal(f->bus.fd, -1);
}

static void
test_not_i2c_node(void **state)
{
	struct fixture *f = fixture(state);

	assert_int_equal(baro_bus_open(&f->bus, "/dev/null", f->err,
				       sizeof(f->err)), -ENOTTY);
	assert_err_names(f, "I2C_FUNCS");
}

/* The handler's plain-I2C path, for chips that need I2C_RDWR: register
 * write then read with a repeated start, as ArduPilot's Linux HAL does. */
static void
test_i2c_rdwr(void **state)
{
	struct fixture *f = fixture(state);
	uint8_t reg = BMP280_REG_ID, id[2] = { 0 };
	struct i2c_msg msgs[2] = {
		{ .addr = 0x76, .flags = 0, .len = 1, .buf = &reg },
		{ .addr = 0x76, .flags = I2C_M_RD, .len = 1, .buf = id },
	};
	struct i2c_rdwr_ioctl_data rdwr = { .msgs = msgs, .nmsgs = 2 };

	open_bus(f);
	assert_int_equal(ioctl(f->bus.fd, I2C_RDWR, &rdwr), 2);
	assert_int_equal(id[0], BMP280_CHIP_ID);
	msgs[0].addr = msgs[1].addr = 0x77;
	assert_int_equal(ioctl(f->bus.fd, I2C_RDWR, &rdwr), 2);
	assert_int_equal(id[0], BME280_CHIP_ID);
	msgs[0].addr = msgs[1].addr = 0x10;
	assert_int_equal(ioctl(f->bus.fd, I2C_RDWR, &rdwr), -1);
	assert_int_equal(errno, EREMOTEIO);
}

static void
assert_xfer(const struct i2c_mock_counts *c, enum i2c_mock_xfer_kind k,
	    unsigned long transfers, unsigned long starts, unsigned long out,
	    unsigned long in)
{
	const struct i2c_mock_xfer *x = &c->xfer[k];

	if (x->transfers != transfers || x->starts != starts || x->out != out ||
	    x->in != in)
		fail_msg("%s: %lu transfers %lu starts %lu out %lu in, expected "
			 "%lu %lu %lu %lu", i2c_mock_xfer_name(k), x->transfers,
			 x->starts, x->out, x->in, transfers, starts, out, in);
}

/* The mock's wire counts, which the driver benchmark divides by samples:
 * SMBus transfers as an adapter emulating SMBus sends them, each
 * I2C_RDWR message apart, NACKs as failures that moved nothing. */
static void
test_bus_counts(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config cfg = { 0 };
	struct i2c_mock_counts c;
	uint8_t b[3];

	open_dev(f, 0x76, &cfg);
	read_ok(f, 1);		/* the first also re-reads the chip id */
	i2c_mock_counts_reset(f->mock, BUS);
	read_ok(f, 2);
	i2c_mock_counts(f->mock, BUS, &c);
	/* One burst from STATUS: register byte, repeated start, 10 bytes;
	 * the address is still selected, so no I2C_SLAVE. */
	assert_int_equal(c.ioctls, 1);
	assert_int_equal(c.failed, 0);
	assert_xfer(&c, I2C_MOCK_READ_I2C_BLOCK, 1, 2, 1, 10);
	struct i2c_mock_xfer t = i2c_mock_counts_total(&c);
	assert_int_equal(t.transfers, 1);
	assert_int_equal(t.out + t.in, 11);

	i2c_mock_counts_reset(f->mock, BUS);
	assert_int_equal(baro_bus_write_reg(&f->bus, BMP280_REG_CONFIG, 0, f->err,
					    sizeof(f->err)), 0);
	assert_int_equal(baro_bus_read_reg(&f->bus, BMP280_REG_ID, b, f->err,
					   sizeof(f->err)), 0);
	assert_int_equal(baro_bus_command(&f->bus, BMP280_REG_ID, f->err,
					  sizeof(f->err)), 0);
	assert_int_equal(baro_bus_read_block(&f->bus, BMP280_REG_CALIB, b, 3,
					     f->err, sizeof(f->err)), 0);
	/* Another address: I2C_SLAVE, then a NACK. */
	assert_int_equal(baro_bus_select(&f->bus, 0x40, f->err, sizeof(f->err)),
			 0);
	assert_true(baro_bus_read_reg(&f->bus, BMP280_REG_ID, b, f->err,
				      sizeof(f->err)) < 0);
	i2c_mock_counts(f->mock, BUS, &c);
	assert_int_equal(c.ioctls, 6);
	assert_int_equal(c.failed, 1);
	assert_xfer(&c, I2C_MOCK_WRITE_BYTE_DATA, 1, 1, 2, 0);
	assert_xfer(&c, I2C_MOCK_READ_BYTE_DATA, 1, 2, 1, 1);
	assert_xfer(&c, I2C_MOCK_SEND_BYTE, 1, 1, 1, 0);
	assert_xfer(&c, I2C_MOCK_READ_I2C_BLOCK, 1, 2, 1, 3);
	assert_int_equal(i2c_mock_counts_total(&c).transfers, 4);

	/* A register pointer written, then read after a repeated start. */
	uint8_t reg = BMP280_REG_ID;
	struct i2c_msg msgs[2] = {
		{ .addr = 0x77, .flags = 0, .len = 1, .buf = &reg },
		{ .addr = 0x77, .flags = I2C_M_RD, .len = 2, .buf = b },
	};
	struct i2c_rdwr_ioctl_data rdwr = { .msgs = msgs, .nmsgs = 2 };
	i2c_mock_counts_reset(f->mock, BUS);
	assert_int_equal(ioctl(f->bus.fd, I2C_RDWR, &rdwr), 2);
	i2c_mock_counts(f->mock, BUS, &c);
	assert_xfer(&c, I2C_MOCK_RDWR_WRITE, 1, 1, 1, 0);
	assert_xfer(&c, I2C_MOCK_RDWR_READ, 1, 1, 0, 2);
	/* Other buses keep their own counts. */
	i2c_mock_counts(f->mock, BUS2, &c);
	assert_int_equal(i2c_mock_counts_total(&c).transfers, 0);
}

/* I2C_SLAVE belongs to the open file, as in the kernel. */
static void
test_address_per_fd(void **state)
{
	struct fixture *f = fixture(state);
	struct baro_bus second;
	uint8_t a, b;

	open_bus(f);
	if (baro_bus_open(&second, BUS_PATH, f->err, sizeof(f->err)) != 0)
		fail_msg("%s", f->err);
	assert_int_equal(baro_bus_select(&f->bus, 0x76, f->err, sizeof(f->err)), 0);
	assert_int_equal(baro_bus_select(&second, 0x77, f->err, sizeof(f->err)), 0);
	assert_int_equal(baro_bus_read_reg(&f->bus, BMP280_REG_ID, &a, f->err,
					   sizeof(f->err)), 0);
	assert_int_equal(baro_bus_read_reg(&second, BMP280_REG_ID, &b, f->err,
					   sizeof(f->err)), 0);
	assert_int_equal(a, BMP280_CHIP_ID);
	assert_int_equal(b, BME280_CHIP_ID);
	baro_bus_close(&second);
}

/* ------------------------------------------------------------------ */
/* BMP388 / BMP390 on bus 2                                            */

/* Same compensation on both sides: the 24-bit step is about 0.02 Pa. */
#define BMP3_PA_TOL 0.05
#define BMP3_DEGC_TOL 0.001

static void
open_bmp3(struct fixture *f, uint8_t addr, const struct baro_sensor_config *cfg)
{
	if (baro_bus_open(&f->bus, BUS2_PATH, f->err, sizeof(f->err)) != 0)
		fail_msg("%s", f->err);
	if (baro_dev_open(&f->dev, &baro_driver_bmp388, &f->bus, addr, cfg,
			  f->err, sizeof(f->err)) != 0)
		fail_msg("%s", f->err);
}

static void
test_bmp3_read_tracks_truth(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config cfg = { 0 };

	open_bmp3(f, 0x76, &cfg);
	assert_int_equal(f->dev.variant, BMP388_VARIANT_BMP388);
	assert_int_equal(f->dev.config.osr_p, 8);
	assert_int_equal(f->dev.config.osr_t, 1);
	/* 18.9 ms conversion: ODR code 2, 20 ms. */
	assert_int_equal(f->dev.period_us, 20000);
	assert_int_equal(f->bmp388.chip.regs[BMP388_REG_ODR], 2);
	for (double pa = 30000.0; pa <= 110000.0; pa += 7919.0) {
		for (double c = -30.0; c <= 70.0; c += 23.3) {
			emu_bmp388_set(&f->bmp388, pa, c);
			struct baro_sample s = read_ok(f, 5);

			assert_close_abs(s.pressure_pa, pa, BMP3_PA_TOL + pa * 1e-7);
			assert_close_abs(s.temperature_c, c, BMP3_DEGC_TOL);
			assert_int_equal(s.flags, BARO_SAMPLE_HEALTHY |
							  BARO_SAMPLE_HAS_TEMPERATURE);
		}
	}
}

static void
test_bmp3_slow_oversampling(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config cfg = { .osr_p = 32, .osr_t = 32,
						.rate_hz = 200, .iir = 4 };

	/* 129 ms of conversion cannot run at 200 Hz: ODR 160 ms (code 5),
	 * which the emulator accepts without conf_err. */
	open_bmp3(f, 0x77, &cfg);
	assert_int_equal(f->dev.variant, BMP388_VARIANT_BMP390);
	assert_int_equal(f->dev.period_us, 160000);
	assert_int_equal(f->bmp390.chip.regs[BMP388_REG_OSR], 0x2d);
	assert_int_equal(f->bmp390.chip.regs[BMP388_REG_CONFIG], 2 << 1);
	assert_int_equal(f->bmp390.chip.regs[BMP388_REG_ERR], 0);
	emu_bmp388_set(&f->bmp390, 70000.0, -10.0);
	struct baro_sample s = read_ok(f, 1);
	assert_close_abs(s.pressure_pa, 70000.0, 0.06);
}

static void
test_bmp3_forced(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config cfg = { .mode = BARO_MODE_FORCED };
	struct baro_sample s;

	open_bmp3(f, 0x76, &cfg);
	assert_int_equal(f->dev.drv->read(&f->dev, 1, &s, f->err,
					  sizeof(f->err)), -EAGAIN);
	emu_bmp388_set(&f->bmp388, 99000.0, 12.0);
	unsigned before = f->bmp388.conversions;
	assert_int_equal(f->dev.drv->start(&f->dev, f->err, sizeof(f->err)), 0);
	assert_int_equal(f->bmp388.conversions, before + 1);
	s = read_ok(f, 2);
	assert_close_abs(s.pressure_pa, 99000.0, 0.06);
	assert_close_abs(s.temperature_c, 12.0, BMP3_DEGC_TOL);
}

static void
test_bmp3_faults(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config cfg = { 0 };
	struct baro_sample s;

	open_bmp3(f, 0x76, &cfg);
	read_ok(f, 1);

	f->bmp388.chip.nack_after = 1;
	assert_int_equal(f->dev.drv->read(&f->dev, 2, &s, f->err,
					  sizeof(f->err)), -EREMOTEIO);
	assert_err_names(f, "/dev/i2c-2 0x76");

	f->bmp388.chip.stuck_high = true;
	assert_int_equal(f->dev.drv->read(&f->dev, 3, &s, f->err,
					  sizeof(f->err)), -EIO);
	assert_err_names(f, "all 0xff");
	f->bmp388.chip.stuck_high = false;

	/* The id comes with every sample: a change is caught at once. */
	f->bmp388.chip.regs[BMP388_REG_ID] = BMP390_CHIP_ID;
	assert_int_equal(f->dev.drv->read(&f->dev, 4, &s, f->err,
					  sizeof(f->err)), -ENODEV);
	assert_err_names(f, "chip id changed 0x50 -> 0x60");
	f->bmp388.chip.regs[BMP388_REG_ID] = BMP388_CHIP_ID;

	/* Power cycle: asleep with empty data registers until init. */
	emu_bmp388_power_on(&f->bmp388);
	assert_int_equal(f->dev.drv->read(&f->dev, 5, &s, f->err,
					  sizeof(f->err)), -EIO);
	assert_err_names(f, "0x800000");
	baro_dev_close(&f->dev);
	if (baro_dev_open(&f->dev, &baro_driver_bmp388, &f->bus, 0x76, &cfg,
			  f->err, sizeof(f->err)) != 0)
		fail_msg("%s", f->err);
	read_ok(f, 6);
}

/* ------------------------------------------------------------------ */
/* MS5611 / MS5607 on bus 3, MS5637 on bus 5                           */

/* The integer compensation's steps: 1 Pa, 0.01 degC. */
#define MS56_PA_TOL 1.0
#define MS56_DEGC_TOL 0.011

static int
open_on(struct fixture *f, const char *path, const struct baro_driver *drv,
	uint8_t addr, const struct baro_sensor_config *cfg)
{
	if (f->bus.fd < 0 &&
	    baro_bus_open(&f->bus, path, f->err, sizeof(f->err)) != 0)
		fail_msg("%s", f->err);
	return baro_dev_open(&f->dev, drv, &f->bus, addr, cfg, f->err,
			     sizeof(f->err));
}

/* Runs a pipelined driver to its next temperature slot, so the next
 * sample uses the truth set now. */
static void
fresh_temperature(struct fixture *f)
{
	struct baro_sample s;
	int ret = 0;

	for (int i = 0; i < 9 && (ret == 0 || ret == -ERANGE); i++)
		ret = f->dev.drv->read(&f->dev, 1, &s, f->err, sizeof(f->err));
	if (ret != -EAGAIN)
		fail_msg("read %d: %s", ret, f->err);
}

/* A sample from a pipelined driver: temperature slots read -EAGAIN. */
static struct baro_sample
read_sample(struct fixture *f, uint64_t now)
{
	struct baro_sample s;
	int ret = -EAGAIN;

	for (int i = 0; i < 3 && ret == -EAGAIN; i++)
		ret = f->dev.drv->read(&f->dev, now, &s, f->err, sizeof(f->err));
	if (ret != 0)
		fail_msg("read %d: %s", ret, f->err);
	return s;
}

static void
test_ms5611_read_tracks_truth(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config cfg = { 0 };
	unsigned temps = 0, samples = 0;

	if (open_on(f, BUS3_PATH, &baro_driver_ms5611, 0x77, &cfg) != 0)
		fail_msg("%s", f->err);
	assert_int_equal(f->dev.variant, MS5611_VARIANT_MS5611);
	assert_int_equal(f->ms5611.resets, 1);
	/* OSR 4096 both ways (16 x 256), at most 9.04 ms per conversion,
	 * read a tenth later. */
	assert_int_equal(f->dev.config.osr_p, 16);
	assert_int_equal(f->dev.config.osr_t, 16);
	assert_int_equal(f->dev.ready_us, 9944);
	assert_int_equal(f->dev.period_us, 9944);
	assert_int_equal(f->ms5611.last_convert, 0x58);

	for (double pa = 30000.0; pa <= 110000.0; pa += 7919.0) {
		for (double c = -30.0; c <= 70.0; c += 23.3) {
			struct baro_sample s;
			int ret;

			emu_ms5611_set(&f->ms5611, pa, c);
			/* Pressure is converted with the temperature of the
			 * last temperature slot: run to a fresh one. */
			/* (A jump in truth may pair the new D1 with the old
			 * D2 once: implausible is fine here.) */
			do {
				ret = f->dev.drv->read(&f->dev, 7, &s, f->err,
						       sizeof(f->err));
				temps += ret == -EAGAIN;
			} while (ret == 0 || ret == -ERANGE);
			assert_int_equal(ret, -EAGAIN);
			assert_err_names(f, "temperature conversion");
			s = read_sample(f, 7);
			samples++;
			assert_close_abs(s.pressure_pa, pa, MS56_PA_TOL);
			assert_close_abs(s.temperature_c, c, MS56_DEGC_TOL);
			assert_int_equal(s.flags, BARO_SAMPLE_HEALTHY |
							  BARO_SAMPLE_HAS_TEMPERATURE);
		}
	}
	assert_int_equal(f->ms5611.bad_commands, 0);
	assert_int_equal(temps, samples);
}

static void
test_ms5611_schedule(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config cfg = { .osr_p = 4, .osr_t = 1,
						.rate_hz = 50 };
	struct baro_sample s;
	unsigned ok = 0, again = 0;

	if (open_on(f, BUS3_PATH, &baro_driver_ms5611, 0x77, &cfg) != 0)
		fail_msg("%s", f->err);
	/* OSR 1024/256: 2.28 ms, but 50 Hz asked. */
	assert_int_equal(f->dev.period_us, 20000);
	assert_int_equal(f->ms5611.last_convert, 0x50);
	for (int i = 0; i < 64; i++) {
		int ret = f->dev.drv->read(&f->dev, 1, &s, f->err, sizeof(f->err));

		if (ret == 0)
			ok++;
		else if (ret == -EAGAIN)
			again++;
		else
			fail_msg("%s", f->err);
	}
	/* One temperature slot in eight; the 65th is the next. */
	assert_int_equal(again, 8);
	assert_int_equal(ok, 56);
	assert_int_equal(f->ms5611.last_convert, 0x50);
	f->dev.drv->read(&f->dev, 1, &s, f->err, sizeof(f->err));
	assert_int_equal(f->ms5611.last_convert, 0x44);
}

static void
test_ms5611_forced(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config cfg = { .mode = BARO_MODE_FORCED };
	struct baro_sample s;

	if (open_on(f, BUS3_PATH, &baro_driver_ms5611, 0x77, &cfg) != 0)
		fail_msg("%s", f->err);
	unsigned before = f->ms5611.conversions;
	assert_int_equal(f->dev.drv->read(&f->dev, 1, &s, f->err,
					  sizeof(f->err)), -EAGAIN);
	assert_err_names(f, "no conversion started");
	emu_ms5611_set(&f->ms5611, 97000.0, 15.0);
	/* The daemon's cycle: start, then read until a sample, start again
	 * only after one.  The temperature slot must start the pressure
	 * conversion itself, or forced mode never publishes. */
	for (unsigned cycle = 0; cycle < 10; cycle++) {
		assert_int_equal(f->dev.drv->start(&f->dev, f->err,
						   sizeof(f->err)), 0);
		int rc, tries = 0;
		while ((rc = f->dev.drv->read(&f->dev, 2 + cycle, &s, f->err,
					      sizeof(f->err))) == -EAGAIN)
			assert_true(++tries < 2);
		assert_int_equal(rc, 0);
		assert_close_abs(s.pressure_pa, 97000.0, MS56_PA_TOL);
		assert_close_abs(s.temperature_c, 15.0, MS56_DEGC_TOL);
	}
	/* Ten pressures and two temperatures (the first, then every 8th). */
	assert_int_equal(f->ms5611.conversions, before + 12);
}

/* MS5607 by name; the MS5611 driver on it is refused at init with a
 * message naming the right driver, and the other way round. */
static void
test_ms5607_variant_choice(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config cfg = { 0 };

	emu_ms5611_set(&f->ms5607, 101325.0, 20.0);
	assert_int_equal(open_on(f, BUS3_PATH, &baro_driver_ms5611, 0x76, &cfg),
			 -ERANGE);
	assert_err_names(f, "likely an MS5607, configure driver ms5607");
	assert_null(f->dev.priv);

	emu_ms5611_set(&f->ms5611, 101325.0, 20.0);
	assert_int_equal(open_on(f, BUS3_PATH, &baro_driver_ms5607, 0x77, &cfg),
			 -ERANGE);
	assert_err_names(f, "likely an MS5611, configure driver ms5611");

	if (open_on(f, BUS3_PATH, &baro_driver_ms5607, 0x76, &cfg) != 0)
		fail_msg("%s", f->err);
	assert_int_equal(f->dev.variant, MS5611_VARIANT_MS5607);
	assert_string_equal(baro_variant_name(f->dev.drv, f->dev.variant), "MS5607");
	for (double pa = 40000.0; pa <= 110000.0; pa += 9000.0) {
		emu_ms5611_set(&f->ms5607, pa, -10.0);
		fresh_temperature(f);
		struct baro_sample s = read_sample(f, 1);
		assert_close_abs(s.pressure_pa, pa, MS56_PA_TOL);
		assert_close_abs(s.temperature_c, -10.0, MS56_DEGC_TOL);
	}

	/* In flight (init passed), an MS5611 read as an MS5607 at 70 kPa
	 * reads 140 kPa: refused, naming the twin. */
	baro_dev_close(&f->dev);
	emu_ms5611_set(&f->ms5611, 101325.0, 20.0);
	f->ms5611.variant = MS5611_VARIANT_MS5607;	/* fool the check */
	if (open_on(f, BUS3_PATH, &baro_driver_ms5607, 0x77, &cfg) != 0)
		fail_msg("%s", f->err);
	f->ms5611.variant = MS5611_VARIANT_MS5611;
	emu_ms5611_set(&f->ms5611, 70000.0, 20.0);
	struct baro_sample s;
	int ret = -EAGAIN;
	for (int i = 0; i < 3 && ret == -EAGAIN; i++)
		ret = f->dev.drv->read(&f->dev, 1, &s, f->err, sizeof(f->err));
	assert_int_equal(ret, -ERANGE);
	assert_err_names(f, "as an MS5611: configure driver ms5611?");
}

static void
test_ms5637(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config cfg = { .osr_p = 32, .osr_t = 2 };

	if (open_on(f, BUS5_PATH, &baro_driver_ms5611, 0x76, &cfg) != 0)
		fail_msg("%s", f->err);
	assert_int_equal(f->dev.variant, MS5611_VARIANT_MS5637);
	assert_string_equal(baro_variant_name(f->dev.drv, f->dev.variant), "MS5637");
	/* OSR 8192 exists only on the MS5637: at most 16.44 ms. */
	assert_int_equal(f->dev.config.osr_p, 32);
	assert_int_equal(f->dev.period_us, 16440 + 1644);
	for (double c = -35.0; c <= 80.0; c += 11.5) {
		emu_ms5611_set(&f->ms5637, 88000.0, c);
		fresh_temperature(f);
		struct baro_sample s = read_sample(f, 1);
		assert_close_abs(s.pressure_pa, 88000.0, MS56_PA_TOL);
		assert_close_abs(s.temperature_c, c, MS56_DEGC_TOL);
	}
	assert_int_equal(f->ms5637.last_convert, 0x4a);
	assert_int_equal(f->ms5637.bad_commands, 0);
}

static void
test_ms5611_faults(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config cfg = { 0 };
	struct baro_sample s;
	int ret;

	if (open_on(f, BUS3_PATH, &baro_driver_ms5611, 0x77, &cfg) != 0)
		fail_msg("%s", f->err);
	read_sample(f, 1);

	f->ms5611.chip.nack_after = 1;
	assert_int_equal(f->dev.drv->read(&f->dev, 2, &s, f->err,
					  sizeof(f->err)), -EREMOTEIO);
	assert_err_names(f, "/dev/i2c-3 0x77");

	f->ms5611.chip.stuck_high = true;
	assert_int_equal(f->dev.drv->read(&f->dev, 3, &s, f->err,
					  sizeof(f->err)), -EIO);
	assert_err_names(f, "all 0xff");
	assert_int_equal(baro_driver_ms5611.probe(&f->bus, 0x77, f->err,
						  sizeof(f->err)), -ENODEV);
	f->ms5611.chip.stuck_high = false;

	/* Read too early (here: the result was taken by someone else): 0,
	 * not finished; the conversion is started again. */
	f->ms5611.pending = false;
	assert_int_equal(f->dev.drv->read(&f->dev, 4, &s, f->err,
					  sizeof(f->err)), -EAGAIN);
	assert_err_names(f, "ADC read 0");
	read_sample(f, 5);

	/* Another chip's PROM (a swap while running): caught at the next
	 * temperature slot, within 8 reads. */
	f->ms5611.prom[7] ^= 0x0100;
	emu_ms5611_fix_crc(MS5611_VARIANT_MS5611, f->ms5611.prom);
	emu_ms5611_power_on(&f->ms5611);
	ret = 0;
	for (int i = 0; i < 9 && (ret == 0 || ret == -EAGAIN); i++)
		ret = f->dev.drv->read(&f->dev, 6, &s, f->err, sizeof(f->err));
	assert_int_equal(ret, -ENODEV);
	assert_err_names(f, "PROM changed");

	/* Unplug: NACKs and probe finds nothing; replug with a power-on
	 * chip: a new init (PROM included) recovers. */
	baro_dev_close(&f->dev);
	if (open_on(f, BUS3_PATH, &baro_driver_ms5611, 0x77, &cfg) != 0)
		fail_msg("%s", f->err);
	f->ms5611.chip.unplugged = true;
	assert_int_equal(f->dev.drv->read(&f->dev, 7, &s, f->err,
					  sizeof(f->err)), -EREMOTEIO);
	assert_int_equal(baro_driver_ms5611.probe(&f->bus, 0x77, f->err,
						  sizeof(f->err)), -ENODEV);
	f->ms5611.chip.unplugged = false;
	emu_ms5611_power_on(&f->ms5611);
	assert_int_equal(f->dev.drv->read(&f->dev, 8, &s, f->err,
					  sizeof(f->err)), -EAGAIN);
	baro_dev_close(&f->dev);
	emu_ms5611_set(&f->ms5611, 88000.0, 5.0);
	if (open_on(f, BUS3_PATH, &baro_driver_ms5611, 0x77, &cfg) != 0)
		fail_msg("%s", f->err);
	s = read_sample(f, 9);
	assert_close_abs(s.pressure_pa, 88000.0, MS56_PA_TOL);
}

static void
test_ms5611_bad_prom(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config cfg = { 0 };
	uint16_t prom[MS5611_PROM_WORDS];

	/* A flipped bit: CRC mismatch, in probe and in init. */
	emu_ms5611_datasheet_prom(MS5611_VARIANT_MS5611, prom);
	prom[2] ^= 0x0004;
	emu_ms5611_init(&f->ms5611, 0x77, MS5611_VARIANT_MS5611, prom);
	if (baro_bus_open(&f->bus, BUS3_PATH, f->err, sizeof(f->err)) != 0)
		fail_msg("%s", f->err);
	assert_int_equal(baro_driver_ms5611.probe(&f->bus, 0x77, f->err,
						  sizeof(f->err)), -ENODEV);
	assert_err_names(f, "CRC");
	f->dev.drv = &baro_driver_ms5611;	/* init alone, as after probe */
	f->dev.variant = MS5611_VARIANT_MS5611;
	f->dev.bus = &f->bus;
	f->dev.addr = 0x77;
	assert_int_equal(baro_driver_ms5611.init(&f->dev, &cfg, f->err,
						 sizeof(f->err)), -EIO);
	assert_err_names(f, "PROM CRC");
	baro_dev_close(&f->dev);

	/* All zero: CRC 0 matches, still refused. */
	memset(prom, 0, sizeof(prom));
	emu_ms5611_init(&f->ms5611, 0x77, MS5611_VARIANT_MS5611, prom);
	assert_int_equal(baro_driver_ms5611.init(&f->dev, &cfg, f->err,
						 sizeof(f->err)), -EIO);
	assert_err_names(f, "blank");
	baro_dev_close(&f->dev);

	/* NACK on any transfer of init: an error, nothing leaked. */
	emu_ms5611_datasheet_prom(MS5611_VARIANT_MS5611, prom);
	emu_ms5611_init(&f->ms5611, 0x77, MS5611_VARIANT_MS5611, prom);
	/* Reset, 8 PROM words, two quick conversions (command + read),
	 * the first conversion. */
	for (unsigned n = 1; n <= 14; n++) {
		emu_ms5611_power_on(&f->ms5611);
		f->ms5611.chip.nack_after = n + 8;	/* +8: probe's PROM */
		assert_int_equal(open_on(f, BUS3_PATH, &baro_driver_ms5611, 0x77,
					 &cfg), -EREMOTEIO);
		assert_null(f->dev.priv);
	}
	f->ms5611.chip.nack_after = 0;
	if (open_on(f, BUS3_PATH, &baro_driver_ms5611, 0x77, &cfg) != 0)
		fail_msg("%s", f->err);
}

/* ------------------------------------------------------------------ */
/* DPS310 / SPL06 on bus 4                                             */

/* Same compensation both sides; one raw step is about 0.2 Pa at x16. */
#define DPS_PA_TOL 0.5
#define DPS_DEGC_TOL 0.002

static void
test_dps310_read_tracks_truth(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config cfg = { 0 };

	if (open_on(f, BUS4_PATH, &baro_driver_dps310, 0x77, &cfg) != 0)
		fail_msg("%s", f->err);
	assert_int_equal(f->dev.variant, DPS310_VARIANT_DPS310);
	assert_int_equal(f->dev.config.osr_p, 16);
	assert_int_equal(f->dev.config.osr_t, 1);
	/* 27.6 + 3.6 ms per pair: 32 Hz is the fastest under 1 s. */
	assert_int_equal(f->dev.period_us, 31250);
	const uint8_t *r = f->dps310.chip.regs;
	assert_int_equal(r[DPS310_REG_PRS_CFG], 0x54);
	/* TMP_EXT copied from COEF_SRCE. */
	assert_int_equal(r[DPS310_REG_TMP_CFG], 0xd0);
	/* x16 pressure needs P_SHIFT, x1 temperature no T_SHIFT. */
	assert_int_equal(r[DPS310_REG_CFG], DPS310_CFG_P_SHIFT);
	assert_int_equal(r[DPS310_REG_MEAS_CFG] & 7, DPS310_MEAS_CONT_BOTH);
	/* The fix-up went out in order (else the emulated part reads 35 degC
	 * high, which the loop below would catch). */
	assert_int_equal(f->dps310.fixup_step, 5);

	for (double pa = 30000.0; pa <= 110000.0; pa += 7919.0) {
		for (double c = -30.0; c <= 70.0; c += 23.3) {
			emu_dps310_set(&f->dps310, pa, c);
			struct baro_sample s = read_ok(f, 3);

			assert_close_abs(s.pressure_pa, pa, DPS_PA_TOL);
			assert_close_abs(s.temperature_c, c, DPS_DEGC_TOL);
			assert_int_equal(s.flags, BARO_SAMPLE_HEALTHY |
							  BARO_SAMPLE_HAS_TEMPERATURE);
		}
	}
}

static void
test_dps310_rates(void **state)
{
	struct fixture *f = fixture(state);
	struct baro_sensor_config cfg = { .rate_hz = 10 };

	/* 10 Hz asked: 8 Hz is the fastest not above it. */
	if (open_on(f, BUS4_PATH, &baro_driver_dps310, 0x77, &cfg) != 0)
		fail_msg("%s", f->err);
	assert_int_equal(f->dev.period_us, 125000);
	assert_int_equal(f->dps310.chip.regs[DPS310_REG_PRS_CFG], 0x34);
	baro_dev_close(&f->dev);

	/* x128 both: 413.6 ms per pair, so 2 Hz; both shifts set. */
	cfg = (struct baro_sensor_config){ .osr_p = 128, .osr_t = 128 };
	if (open_on(f, BUS4_PATH, &baro_driver_dps310, 0x77, &cfg) != 0)
		fail_msg("%s", f->err);
	assert_int_equal(f->dev.period_us, 500000);
	assert_int_equal(f->dps310.chip.regs[DPS310_REG_PRS_CFG], 0x17);
	assert_int_equal(f->dps310.chip.regs[DPS310_REG_TMP_CFG], 0x97);
	assert_int_equal(f->dps310.chip.regs[DPS310_REG_CFG],
			 DPS310_CFG_P_SHIFT | DPS310_CFG_T_SHIFT);
	emu_dps310_set(&f->dps310, 60000.0, -20.0);
	struct baro_sample s = read_ok(f, 1);
	assert_close_abs(s.pressure_pa, 60000.0, 0.1);
	assert_close_abs(s.temperature_c, -20.0, DPS_DEGC_TOL);
}

static void
test_dps310_forced(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config cfg = { .mode = BARO_MODE_FORCED,
						.osr_p = 8 };
	struct baro_sample s;

	if (open_on(f, BUS4_PATH, &baro_driver_dps310, 0x77, &cfg) != 0)
		fail_msg("%s", f->err);
	/* x8: one measurement 14.8 ms, plus a tenth; no shift at x8. */
	assert_int_equal(f->dev.period_us, 14800 + 1480);
	assert_int_equal(f->dps310.chip.regs[DPS310_REG_CFG], 0);
	assert_int_equal(f->dev.drv->read(&f->dev, 1, &s, f->err,
					  sizeof(f->err)), -EAGAIN);
	assert_err_names(f, "no measurement started");

	emu_dps310_set(&f->dps310, 93000.0, 27.0);
	unsigned before = f->dps310.conversions;
	assert_int_equal(f->dev.drv->start(&f->dev, f->err, sizeof(f->err)), 0);
	assert_int_equal(f->dev.drv->read(&f->dev, 2, &s, f->err,
					  sizeof(f->err)), -EAGAIN);
	/* The pressure conversion starts with that read: the daemon calls
	 * start only after a sample. */
	assert_err_names(f, "temperature measurement, pressure started");
	assert_int_equal(f->dps310.conversions, before + 2);
	/* Not finished yet: the ready bit is still clear. */
	f->dps310.chip.regs[DPS310_REG_MEAS_CFG] &= (uint8_t)~DPS310_MEAS_PRS_RDY;
	assert_int_equal(f->dev.drv->read(&f->dev, 3, &s, f->err,
					  sizeof(f->err)), -EAGAIN);
	assert_err_names(f, "not finished");
	f->dps310.chip.regs[DPS310_REG_MEAS_CFG] |= DPS310_MEAS_PRS_RDY;
	s = read_ok(f, 4);
	assert_int_equal(f->dps310.conversions, before + 2);
	assert_close_abs(s.pressure_pa, 93000.0, DPS_PA_TOL);
	assert_close_abs(s.temperature_c, 27.0, DPS_DEGC_TOL);
}

/* SPL06 by name: external temperature sensor always, none of the
 * DPS310-only writes; a scan calls it a DPS310 (same id). */
static void
test_spl06(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config cfg = { 0 };

	if (open_on(f, BUS4_PATH, &baro_driver_spl06, 0x76, &cfg) != 0)
		fail_msg("%s", f->err);
	assert_int_equal(f->dev.variant, DPS310_VARIANT_SPL06);
	assert_string_equal(baro_variant_name(f->dev.drv, f->dev.variant), "SPL06");
	assert_int_equal(f->spl06.reserved_writes, 0);
	assert_int_equal(f->spl06.chip.regs[DPS310_REG_TMP_CFG] & DPS310_TMP_EXT,
			 DPS310_TMP_EXT);
	for (double pa = 50000.0; pa <= 110000.0; pa += 15000.0) {
		emu_dps310_set(&f->spl06, pa, 35.0);
		struct baro_sample s = read_ok(f, 1);

		assert_close_abs(s.pressure_pa, pa, DPS_PA_TOL);
		assert_close_abs(s.temperature_c, 35.0, DPS_DEGC_TOL);
	}
	assert_int_equal(baro_driver_dps310.probe(&f->bus, 0x76, f->err,
						  sizeof(f->err)),
			 DPS310_VARIANT_DPS310);
}

static void
test_dps310_faults(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config cfg = { 0 };
	struct baro_sample s;

	if (open_on(f, BUS4_PATH, &baro_driver_dps310, 0x77, &cfg) != 0)
		fail_msg("%s", f->err);
	read_ok(f, 1);

	f->dps310.chip.nack_after = 1;
	assert_int_equal(f->dev.drv->read(&f->dev, 2, &s, f->err,
					  sizeof(f->err)), -EREMOTEIO);
	assert_err_names(f, "/dev/i2c-4 0x77");

	f->dps310.chip.stuck_high = true;
	assert_int_equal(f->dev.drv->read(&f->dev, 3, &s, f->err,
					  sizeof(f->err)), -EIO);
	assert_err_names(f, "all 0xff");
	assert_int_equal(baro_driver_dps310.probe(&f->bus, 0x77, f->err,
						  sizeof(f->err)), -ENODEV);
	f->dps310.chip.stuck_high = false;

	f->dps310.chip.regs[DPS310_REG_ID] = 0x11;
	assert_int_equal(f->dev.drv->read(&f->dev, 4, &s, f->err,
					  sizeof(f->err)), -ENODEV);
	assert_err_names(f, "chip id changed 0x10 -> 0x11");
	f->dps310.chip.regs[DPS310_REG_ID] = DPS310_CHIP_ID;

	/* Unplug, then back with power-on registers: settings lost until a
	 * new init (coefficients and fix-up included). */
	f->dps310.chip.unplugged = true;
	assert_int_equal(f->dev.drv->read(&f->dev, 5, &s, f->err,
					  sizeof(f->err)), -EREMOTEIO);
	assert_int_equal(baro_driver_dps310.probe(&f->bus, 0x77, f->err,
						  sizeof(f->err)), -ENODEV);
	f->dps310.chip.unplugged = false;
	emu_dps310_power_on(&f->dps310);
	assert_int_equal(f->dev.drv->read(&f->dev, 6, &s, f->err,
					  sizeof(f->err)), -EIO);
	assert_err_names(f, "settings lost");
	baro_dev_close(&f->dev);
	if (open_on(f, BUS4_PATH, &baro_driver_dps310, 0x77, &cfg) != 0)
		fail_msg("%s", f->err);
	assert_int_equal(f->dps310.fixup_step, 5);
	emu_dps310_set(&f->dps310, 88000.0, 5.0);
	s = read_ok(f, 7);
	assert_close_abs(s.pressure_pa, 88000.0, DPS_PA_TOL);
	assert_close_abs(s.temperature_c, 5.0, DPS_DEGC_TOL);

	/* NACK on any transfer of init (id, reset, ready, coefficients,
	 * COEF_SRCE, five fix-up writes, four settings, read-back): an
	 * error, nothing leaked. */
	for (unsigned n = 1; n <= 15; n++) {
		baro_dev_close(&f->dev);
		emu_dps310_power_on(&f->dps310);
		f->dps310.chip.nack_after = n + 1;	/* +1: probe's id */
		assert_int_equal(open_on(f, BUS4_PATH, &baro_driver_dps310, 0x77,
					 &cfg), -EREMOTEIO);
		assert_null(f->dev.priv);
	}
	f->dps310.chip.nack_after = 0;
}

static void
test_dps310_blank_coef(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config cfg = { 0 };
	static const uint8_t blank[DPS310_COEF_LEN];

	emu_dps310_init(&f->dps310, 0x77, DPS310_VARIANT_DPS310, blank);
	assert_int_equal(open_on(f, BUS4_PATH, &baro_driver_dps310, 0x77, &cfg),
			 -EIO);
	assert_err_names(f, "calibration");

	/* Coefficients never ready: a timeout, not a hang. */
	emu_dps310_init(&f->dps310, 0x77, DPS310_VARIANT_DPS310,
			emu_dps310_sample_coef);
	f->dps310.chip.on_write = NULL;	/* reset does nothing ... */
	f->dps310.chip.regs[DPS310_REG_MEAS_CFG] = 0;	/* ... not ready */
	assert_int_equal(open_on(f, BUS4_PATH, &baro_driver_dps310, 0x77, &cfg),
			 -ETIMEDOUT);
	assert_err_names(f, "not ready");
}

/* ------------------------------------------------------------------ */
/* LPS22HB / LPS22HH on bus 4                                          */

/* No calibration: the output step, 100/4096 Pa and 0.01 degC. */
#define LPS_PA_TOL 0.013
#define LPS_DEGC_TOL 0.0051

static void
test_lps22_read_tracks_truth(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config cfg = { 0 };

	if (open_on(f, BUS4_PATH, &baro_driver_lps22, 0x5d, &cfg) != 0)
		fail_msg("%s", f->err);
	assert_int_equal(f->dev.variant, LPS22_VARIANT_HH);
	/* The fastest rate, 200 Hz (code 7), block data update on. */
	assert_int_equal(f->dev.period_us, 5000);
	assert_int_equal(f->lps22hh.chip.regs[LPS22_REG_CTRL1], 0x72);
	assert_int_equal(f->lps22hh.resets, 1);
	for (double pa = 30000.0; pa <= 110000.0; pa += 7919.0) {
		for (double c = -30.0; c <= 70.0; c += 23.3) {
			emu_lps22_set(&f->lps22hh, pa, c);
			struct baro_sample s = read_ok(f, 9);

			assert_close_abs(s.pressure_pa, pa, LPS_PA_TOL);
			assert_close_abs(s.temperature_c, c, LPS_DEGC_TOL);
			assert_int_equal(s.flags, BARO_SAMPLE_HEALTHY |
							  BARO_SAMPLE_HAS_TEMPERATURE);
		}
	}
}

static void
test_lps22_rates_and_filter(void **state)
{
	struct fixture *f = fixture(state);
	struct baro_sensor_config cfg = { .rate_hz = 30, .iir = 4 };

	/* HB: 30 Hz asked, 50 Hz (code 4) is the slowest not slower; the
	 * low-pass at ODR/9. */
	if (open_on(f, BUS4_PATH, &baro_driver_lps22, 0x5c, &cfg) != 0)
		fail_msg("%s", f->err);
	assert_int_equal(f->dev.variant, LPS22_VARIANT_HB);
	assert_int_equal(f->dev.period_us, 20000);
	assert_int_equal(f->lps22hb.chip.regs[LPS22_REG_CTRL1],
			 4 << 4 | LPS22_CTRL1_EN_LPFP | LPS22_CTRL1_BDU);
	assert_int_equal(f->dev.config.iir, 9);
	baro_dev_close(&f->dev);

	/* HB has no 200 Hz: 75 Hz; strong filtering is ODR/20. */
	cfg = (struct baro_sensor_config){ .rate_hz = 200, .iir = 16 };
	if (open_on(f, BUS4_PATH, &baro_driver_lps22, 0x5c, &cfg) != 0)
		fail_msg("%s", f->err);
	assert_int_equal(f->dev.period_us, 13333);
	assert_int_equal(f->lps22hb.chip.regs[LPS22_REG_CTRL1],
			 5 << 4 | LPS22_CTRL1_EN_LPFP | LPS22_CTRL1_LPFP_CFG |
				 LPS22_CTRL1_BDU);
	assert_int_equal(f->dev.config.iir, 20);
}

static void
test_lps22_one_shot(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config cfg = { .mode = BARO_MODE_FORCED };
	struct baro_sample s;

	if (open_on(f, BUS4_PATH, &baro_driver_lps22, 0x5c, &cfg) != 0)
		fail_msg("%s", f->err);
	/* Power-down between one-shots. */
	assert_int_equal(f->lps22hb.chip.regs[LPS22_REG_CTRL1] & 0x70, 0);
	/* The fastest output period (75 Hz), plus a tenth. */
	assert_int_equal(f->dev.period_us, 13333 + 1333);
	assert_int_equal(f->dev.drv->read(&f->dev, 1, &s, f->err,
					  sizeof(f->err)), -EAGAIN);
	assert_err_names(f, "no conversion started");
	emu_lps22_set(&f->lps22hb, 99999.0, -5.5);
	unsigned before = f->lps22hb.conversions;
	assert_int_equal(f->dev.drv->start(&f->dev, f->err, sizeof(f->err)), 0);
	assert_int_equal(f->lps22hb.conversions, before + 1);
	f->lps22hb.chip.regs[LPS22_REG_STATUS] = 0;
	assert_int_equal(f->dev.drv->read(&f->dev, 2, &s, f->err,
					  sizeof(f->err)), -EAGAIN);
	assert_err_names(f, "not finished");
	f->lps22hb.chip.regs[LPS22_REG_STATUS] = 3;
	s = read_ok(f, 3);
	assert_close_abs(s.pressure_pa, 99999.0, LPS_PA_TOL);
	assert_close_abs(s.temperature_c, -5.5, LPS_DEGC_TOL);
}

static void
test_lps22_faults(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config cfg = { 0 };
	struct baro_sample s;
	int ret = 0, reads = 0;

	if (open_on(f, BUS4_PATH, &baro_driver_lps22, 0x5c, &cfg) != 0)
		fail_msg("%s", f->err);
	read_ok(f, 1);

	f->lps22hb.chip.nack_after = 1;
	assert_int_equal(f->dev.drv->read(&f->dev, 2, &s, f->err,
					  sizeof(f->err)), -EREMOTEIO);
	assert_err_names(f, "/dev/i2c-4 0x5c");

	f->lps22hb.chip.stuck_high = true;
	assert_int_equal(f->dev.drv->read(&f->dev, 3, &s, f->err,
					  sizeof(f->err)), -EIO);
	assert_err_names(f, "all 0xff");
	assert_int_equal(baro_driver_lps22.probe(&f->bus, 0x5c, f->err,
						 sizeof(f->err)), -ENODEV);
	f->lps22hb.chip.stuck_high = false;

	/* The id alone changes: caught by the periodic check. */
	f->lps22hb.chip.regs[LPS22_REG_WHO_AM_I] = LPS22HH_WHO_AM_I;
	while (ret == 0 && reads++ < 40)
		ret = f->dev.drv->read(&f->dev, 4, &s, f->err, sizeof(f->err));
	assert_int_equal(ret, -ENODEV);
	assert_true(reads <= 32);
	assert_err_names(f, "chip id changed 0xb1 -> 0xb3");
	f->lps22hb.chip.regs[LPS22_REG_WHO_AM_I] = LPS22HB_WHO_AM_I;

	/* Unplug and replug: power-down, data registers zero; a new init
	 * recovers. */
	f->lps22hb.chip.unplugged = true;
	assert_int_equal(f->dev.drv->read(&f->dev, 5, &s, f->err,
					  sizeof(f->err)), -EREMOTEIO);
	assert_int_equal(baro_driver_lps22.probe(&f->bus, 0x5c, f->err,
						 sizeof(f->err)), -ENODEV);
	f->lps22hb.chip.unplugged = false;
	emu_lps22_power_on(&f->lps22hb);
	assert_int_equal(f->dev.drv->read(&f->dev, 6, &s, f->err,
					  sizeof(f->err)), -EIO);
	assert_err_names(f, "all 0x00");
	baro_dev_close(&f->dev);
	if (open_on(f, BUS4_PATH, &baro_driver_lps22, 0x5c, &cfg) != 0)
		fail_msg("%s", f->err);
	emu_lps22_set(&f->lps22hb, 91000.0, 12.0);
	s = read_ok(f, 7);
	assert_close_abs(s.pressure_pa, 91000.0, LPS_PA_TOL);

	/* Garbage that is not all one byte: implausible, refused. */
	f->lps22hb.chip.regs[LPS22_REG_PRESS_XL + 2] = 0x80;
	assert_int_equal(f->dev.drv->read(&f->dev, 8, &s, f->err,
					  sizeof(f->err)), -ERANGE);
	assert_err_names(f, "implausible");

	/* NACK on each transfer of init (id, reset, reset poll, ctrl1,
	 * read-back). */
	for (unsigned n = 1; n <= 5; n++) {
		baro_dev_close(&f->dev);
		f->lps22hb.chip.nack_after = n + 1;	/* +1: probe's id */
		assert_int_equal(open_on(f, BUS4_PATH, &baro_driver_lps22, 0x5c,
					 &cfg), -EREMOTEIO);
		assert_null(f->dev.priv);
	}
	f->lps22hb.chip.nack_after = 0;
}

/* ------------------------------------------------------------------ */
/* Data-ready pins: what the drivers write, and the emulated pins they
 * make move (the GPIO side is tests/daemon's). */

/* The pin's changes as a string: "H" and "L", with "+2500" for a change
 * that comes that many microseconds later (a pulse's end). */
struct pin_log {
	char text[256];
};

static void
log_pin(struct emu_chip *chip, bool level, uint32_t after_us)
{
	struct pin_log *log = chip->user;
	size_t n = strlen(log->text);

	if (after_us)
		snprintf(log->text + n, sizeof(log->text) - n, "+%u%c", after_us,
			 level ? 'H' : 'L');
	else
		snprintf(log->text + n, sizeof(log->text) - n, "%c",
			 level ? 'H' : 'L');
}

static void
watch_pin(struct emu_chip *chip, struct pin_log *log)
{
	log->text[0] = '\0';
	chip->user = log;
	chip->on_int = log_pin;
}

static void
test_bmp3_drdy(void **state)
{
	struct fixture *f = fixture(state);
	struct baro_sensor_config cfg = { .drdy = BARO_DRDY_ACTIVE_HIGH };
	struct pin_log pin;

	/* Without data-ready the pin is left alone: INT_CTRL as after reset,
	 * no pulses. */
	watch_pin(&f->bmp390.chip, &pin);
	const struct baro_sensor_config off = { 0 };
	open_bmp3(f, 0x77, &off);
	emu_bmp388_set(&f->bmp390, 99000.0, 20.0);
	assert_int_equal(f->bmp390.chip.regs[BMP388_REG_INT_CTRL],
			 BMP388_INT_LEVEL_HIGH);
	assert_int_equal(f->bmp390.chip.int_asserts, 0);
	baro_dev_close(&f->dev);
	baro_bus_close(&f->bus);

	/* Active high, push-pull, unlatched: a pulse per result. */
	open_bmp3(f, 0x77, &cfg);
	assert_int_equal(f->bmp390.chip.regs[BMP388_REG_INT_CTRL],
			 BMP388_INT_DRDY_EN | BMP388_INT_LEVEL_HIGH);
	assert_int_equal(f->dev.config.drdy, BARO_DRDY_ACTIVE_HIGH);
	unsigned before = f->bmp390.chip.int_asserts;
	pin.text[0] = '\0';
	emu_bmp388_set(&f->bmp390, 99500.0, 21.0);
	emu_bmp388_set(&f->bmp390, 99600.0, 21.0);
	assert_int_equal(f->bmp390.chip.int_asserts, before + 2);
	assert_string_equal(pin.text, "H+2500LH+2500L");
	struct baro_sample s;
	if (f->dev.drv->read(&f->dev, 1, &s, f->err, sizeof(f->err)) != 0)
		fail_msg("%s", f->err);
	assert_close_abs(s.pressure_pa, 99600.0, BMP3_PA_TOL + 0.01);
	baro_dev_close(&f->dev);
	baro_bus_close(&f->bus);

	/* Active low, open-drain: the idle pin goes high when configured,
	 * each pulse starts with a falling edge. */
	cfg.drdy = BARO_DRDY_ACTIVE_LOW;
	cfg.drdy_open_drain = true;
	pin.text[0] = '\0';
	open_bmp3(f, 0x77, &cfg);
	assert_int_equal(f->bmp390.chip.regs[BMP388_REG_INT_CTRL],
			 BMP388_INT_DRDY_EN | BMP388_INT_OD);
	/* The reset's low, the configured idle high, then the first result
	 * of normal mode. */
	assert_string_equal(pin.text, "HL+2500H");
	baro_dev_close(&f->dev);
	baro_bus_close(&f->bus);

	/* Forced: each start's result signals. */
	cfg = (struct baro_sensor_config){ .drdy = BARO_DRDY_ACTIVE_HIGH,
					   .mode = BARO_MODE_FORCED };
	open_bmp3(f, 0x77, &cfg);
	before = f->bmp390.chip.int_asserts;
	assert_int_equal(f->dev.drv->start(&f->dev, f->err, sizeof(f->err)), 0);
	assert_int_equal(f->bmp390.chip.int_asserts, before + 1);
	assert_false(f->bmp390.chip.int_level);

	/* INT_STATUS is the emulator's too: set by a result, cleared by
	 * reading it. */
	uint8_t st;
	assert_int_equal(baro_bus_read_reg(&f->bus, BMP388_REG_INT_STATUS, &st,
					   f->err, sizeof(f->err)), 0);
	assert_int_equal(st, BMP388_INT_STATUS_DRDY);
	assert_int_equal(baro_bus_read_reg(&f->bus, BMP388_REG_INT_STATUS, &st,
					   f->err, sizeof(f->err)), 0);
	assert_int_equal(st, 0);
}

static void
test_dps310_drdy(void **state)
{
	struct fixture *f = fixture(state);
	struct baro_sensor_config cfg = { .drdy = BARO_DRDY_ACTIVE_HIGH,
					  .osr_p = 16 };
	struct baro_sample s;
	struct pin_log pin;

	/* Active high, background mode: INT_PRS only, with the shift bit the
	 * x16 oversampling needs kept. */
	watch_pin(&f->dps310.chip, &pin);
	if (open_on(f, BUS4_PATH, &baro_driver_dps310, 0x77, &cfg) != 0)
		fail_msg("%s", f->err);
	assert_int_equal(f->dps310.chip.regs[DPS310_REG_CFG],
			 DPS310_CFG_INT_HL | DPS310_CFG_INT_PRS |
				 DPS310_CFG_P_SHIFT);
	/* The first background result holds the pin until INT_STS is read,
	 * which every sample's burst does. */
	assert_true(f->dps310.chip.int_level);
	assert_int_equal(f->dps310.chip.regs[DPS310_REG_INT_STS],
			 DPS310_INT_STS_PRS);
	if (f->dev.drv->read(&f->dev, 1, &s, f->err, sizeof(f->err)) != 0)
		fail_msg("%s", f->err);
	assert_false(f->dps310.chip.int_level);
	assert_int_equal(f->dps310.chip.regs[DPS310_REG_INT_STS], 0);
	pin.text[0] = '\0';
	emu_dps310_set(&f->dps310, 97000.0, 22.0);
	s = read_ok(f, 2);
	assert_close_abs(s.pressure_pa, 97000.0, DPS_PA_TOL);
	assert_string_equal(pin.text, "HL");
	baro_dev_close(&f->dev);

	/* Active low: idle high, a result pulls it low. */
	cfg.drdy = BARO_DRDY_ACTIVE_LOW;
	if (open_on(f, BUS4_PATH, &baro_driver_dps310, 0x77, &cfg) != 0)
		fail_msg("%s", f->err);
	assert_int_equal(f->dps310.chip.regs[DPS310_REG_CFG],
			 DPS310_CFG_INT_PRS | DPS310_CFG_P_SHIFT);
	read_ok(f, 3);
	assert_true(f->dps310.chip.int_level);
	pin.text[0] = '\0';
	emu_dps310_set(&f->dps310, 97100.0, 22.0);
	read_ok(f, 4);
	assert_string_equal(pin.text, "LH");
	/* Settings are re-checked with every sample: a lost CFG_REG (the
	 * interrupt bits included) is a reset chip. */
	f->dps310.chip.regs[DPS310_REG_CFG] &= (uint8_t)~DPS310_CFG_INT_PRS;
	assert_int_equal(f->dev.drv->read(&f->dev, 5, &s, f->err,
					  sizeof(f->err)), -EIO);
	assert_err_names(f, "settings lost");
	baro_dev_close(&f->dev);

	/* The pin (SDO) has no open-drain mode: refused before any write,
	 * so the chip keeps measuring as it was. */
	cfg.drdy_open_drain = true;
	unsigned transfers = f->dps310.chip.transfers;
	assert_int_equal(open_on(f, BUS4_PATH, &baro_driver_dps310, 0x77, &cfg),
			 -EOPNOTSUPP);
	assert_err_names(f, "DPS310 /dev/i2c-4 0x77: the interrupt pin is "
			    "push-pull only");
	assert_int_equal(f->dps310.chip.transfers, transfers + 1); /* probe */

	/* SPL06, one-shot: temperature results signal too. */
	cfg = (struct baro_sensor_config){ .drdy = BARO_DRDY_ACTIVE_HIGH,
					   .mode = BARO_MODE_FORCED };
	if (open_on(f, BUS4_PATH, &baro_driver_spl06, 0x76, &cfg) != 0)
		fail_msg("%s", f->err);
	/* (the low bits: the default oversampling's shift) */
	assert_int_equal(f->spl06.chip.regs[DPS310_REG_CFG] & 0xf0,
			 DPS310_CFG_INT_HL | DPS310_CFG_INT_PRS |
				 DPS310_CFG_INT_TMP);
	unsigned before = f->spl06.chip.int_asserts;
	assert_int_equal(f->dev.drv->start(&f->dev, f->err, sizeof(f->err)), 0);
	assert_int_equal(f->spl06.chip.int_asserts, before + 1);
	assert_int_equal(f->spl06.chip.regs[DPS310_REG_INT_STS],
			 DPS310_INT_STS_TMP);
}

static void
test_lps22_drdy(void **state)
{
	struct fixture *f = fixture(state);
	struct baro_sensor_config cfg = { .drdy = BARO_DRDY_ACTIVE_LOW,
					  .drdy_open_drain = true };
	struct baro_sample s;
	struct pin_log pin;

	/* HB: level and drive in CTRL_REG3 with the enable. */
	watch_pin(&f->lps22hb.chip, &pin);
	if (open_on(f, BUS4_PATH, &baro_driver_lps22, 0x5c, &cfg) != 0)
		fail_msg("%s", f->err);
	assert_int_equal(f->lps22hb.chip.regs[LPS22_REG_CTRL3],
			 LPS22_CTRL3_DRDY | LPS22HB_CTRL3_INT_H_L |
				 LPS22HB_CTRL3_PP_OD);
	assert_int_equal(f->lps22hb.chip.regs[LPS22_REG_CTRL2],
			 LPS22_CTRL2_IF_ADD_INC);
	/* Active (low) from the first result until the data is read. */
	assert_false(f->lps22hb.chip.int_level);
	read_ok(f, 1);
	assert_true(f->lps22hb.chip.int_level);
	pin.text[0] = '\0';
	emu_lps22_set(&f->lps22hb, 96000.0, 19.0);
	s = read_ok(f, 2);
	assert_close_abs(s.pressure_pa, 96000.0, LPS_PA_TOL);
	assert_string_equal(pin.text, "LH");
	/* CTRL_REG3 lost behind the driver's back: caught by the periodic
	 * check. */
	f->lps22hb.chip.regs[LPS22_REG_CTRL3] = 0;
	int ret = 0, reads = 0;
	while (ret == 0 && reads++ < 40)
		ret = f->dev.drv->read(&f->dev, 3, &s, f->err, sizeof(f->err));
	assert_int_equal(ret, -EIO);
	assert_true(reads <= 32);
	assert_err_names(f, "settings lost");
	baro_dev_close(&f->dev);

	/* HH: level and drive in CTRL_REG2; one-shot keeps them. */
	cfg.mode = BARO_MODE_FORCED;
	watch_pin(&f->lps22hh.chip, &pin);
	if (open_on(f, BUS4_PATH, &baro_driver_lps22, 0x5d, &cfg) != 0)
		fail_msg("%s", f->err);
	const uint8_t ctrl2 = LPS22_CTRL2_IF_ADD_INC | LPS22HH_CTRL2_INT_H_L |
			      LPS22HH_CTRL2_PP_OD;
	assert_int_equal(f->lps22hh.chip.regs[LPS22_REG_CTRL2], ctrl2);
	assert_int_equal(f->lps22hh.chip.regs[LPS22_REG_CTRL3],
			 LPS22_CTRL3_DRDY);
	assert_true(f->lps22hh.chip.int_level);
	assert_int_equal(f->dev.drv->start(&f->dev, f->err, sizeof(f->err)), 0);
	assert_int_equal(f->lps22hh.chip.regs[LPS22_REG_CTRL2], ctrl2);
	assert_false(f->lps22hh.chip.int_level);
	read_ok(f, 4);
	assert_true(f->lps22hh.chip.int_level);
	baro_dev_close(&f->dev);

	/* Active high, push-pull on the HH: nothing but the enable. */
	cfg = (struct baro_sensor_config){ .drdy = BARO_DRDY_ACTIVE_HIGH };
	if (open_on(f, BUS4_PATH, &baro_driver_lps22, 0x5d, &cfg) != 0)
		fail_msg("%s", f->err);
	assert_int_equal(f->lps22hh.chip.regs[LPS22_REG_CTRL2],
			 LPS22_CTRL2_IF_ADD_INC);
	assert_int_equal(f->lps22hh.chip.regs[LPS22_REG_CTRL3],
			 LPS22_CTRL3_DRDY);
	assert_true(f->lps22hh.chip.int_level);
	read_ok(f, 5);
	assert_false(f->lps22hh.chip.int_level);
}

/* BMP280/BME280 and the MS56xx have no data-ready pin: asking for one is
 * an error naming the chip found, before anything is written to it. */
static void
test_no_drdy_pin(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config cfg = { .drdy = BARO_DRDY_ACTIVE_HIGH };

	open_bus(f);
	unsigned transfers = f->bme280.chip.transfers;
	assert_int_equal(baro_dev_open(&f->dev, &baro_driver_bmp280, &f->bus,
				       0x77, &cfg, f->err, sizeof(f->err)),
			 -EOPNOTSUPP);
	assert_err_names(f, "BME280 /dev/i2c-1 0x77: no data-ready pin");
	assert_int_equal(f->bme280.chip.transfers, transfers + 1);
	assert_null(f->dev.priv);
	baro_bus_close(&f->bus);

	assert_int_equal(open_on(f, BUS3_PATH, &baro_driver_ms5611, 0x77, &cfg),
			 -EOPNOTSUPP);
	assert_err_names(f, "MS5611 /dev/i2c-3 0x77: no data-ready pin");
	assert_int_equal(open_on(f, BUS3_PATH, &baro_driver_ms5607, 0x76, &cfg),
			 -EOPNOTSUPP);

	/* The same check, by driver name (configuration files). */
	assert_int_equal(baro_drdy_check(&baro_driver_bmp280, NULL, &cfg, f->err,
					 sizeof(f->err)), -EOPNOTSUPP);
	assert_err_names(f, "the bmp280 driver's chips: no data-ready pin");
	assert_int_equal(baro_drdy_check(&baro_driver_lps22, NULL, &cfg, f->err,
					 sizeof(f->err)), 0);
	const struct baro_sensor_config off = { 0 };
	assert_int_equal(baro_drdy_check(&baro_driver_ms5611, NULL, &off, f->err,
					 sizeof(f->err)), 0);
}

/* The emulators' times on a clock the test sets: an MS5611 conversion
 * at OSR 4096 is there after its typical 8.22 ms with typical timing,
 * not before its maximum 9.04 ms with maximum timing; a BMP280 forced
 * measurement the same with its formulas (x16/x2: 37.5 and 43.225 ms). */
static void
test_emu_timing(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config forced = { .mode = BARO_MODE_FORCED };
	uint64_t now = 1000000;
	struct baro_sample s;

	i2c_mock_set_clock(f->mock, &now);
	for (int typical = 0; typical < 2; typical++) {
		/* Init's own conversions wait on the real clock. */
		f->ms5611.chip.timing = EMU_TIMING_INSTANT;
		if (open_on(f, BUS3_PATH, &baro_driver_ms5611, 0x77,
			    &forced) != 0)
			fail_msg("%s", f->err);
		f->ms5611.chip.timing = typical ? EMU_TIMING_TYPICAL
						: EMU_TIMING_MAX;
		f->ms5611.chip.early_reads = 0;
		now += 1000000;
		/* The temperature slot first, then pressure. */
		for (int slot = 0; slot < 2; slot++) {
			assert_int_equal(slot ? 0 : f->dev.drv->start(&f->dev,
					 f->err, sizeof(f->err)), 0);
			now += 8300;	/* past typical, short of maximum */
			int ret = f->dev.drv->read(&f->dev, now, &s, f->err,
						   sizeof(f->err));
			if (typical) {
				assert_int_equal(ret, slot ? 0 : -EAGAIN);
				continue;
			}
			assert_int_equal(ret, -EAGAIN);
			assert_non_null(strstr(f->err, "ADC read 0"));
			now += 9040;	/* restarted: now its maximum */
			ret = f->dev.drv->read(&f->dev, now, &s, f->err,
					       sizeof(f->err));
			assert_int_equal(ret, slot ? 0 : -EAGAIN);
		}
		assert_int_equal(f->ms5611.chip.early_reads, typical ? 0 : 2);
		baro_dev_close(&f->dev);
		baro_bus_close(&f->bus);
	}

	for (int typical = 0; typical < 2; typical++) {
		f->bmp280.chip.timing = typical ? EMU_TIMING_TYPICAL
						: EMU_TIMING_MAX;
		f->bmp280.chip.early_reads = 0;
		if (open_on(f, BUS_PATH, &baro_driver_bmp280, 0x76, &forced) != 0)
			fail_msg("%s", f->err);
		assert_int_equal(f->dev.drv->start(&f->dev, f->err,
						   sizeof(f->err)), 0);
		now += 40000;	/* past 37.5 typical, short of 43.225 */
		int ret = f->dev.drv->read(&f->dev, now, &s, f->err,
					   sizeof(f->err));
		assert_int_equal(ret, typical ? 0 : -EAGAIN);
		assert_int_equal(f->bmp280.chip.early_reads, typical ? 0 : 1);
		now += 3225;
		if (!typical)
			assert_int_equal(f->dev.drv->read(&f->dev, now, &s,
							  f->err,
							  sizeof(f->err)), 0);
		baro_dev_close(&f->dev);
		baro_bus_close(&f->bus);
	}
	i2c_mock_set_clock(f->mock, NULL);
}

/* ------------------------------------------------------------------ */
/* Conversion timing against the datasheets' maximum times */

static uint64_t
mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* Runs the device as barod does, without a timer: every read at least
 * ready_us after the call that started a conversion and a period after
 * the last read; forced mode starts after each sample.  Samples got. */
static unsigned
run_as_barod(struct fixture *f, unsigned want, unsigned max_reads)
{
	struct baro_dev *dev = &f->dev;
	uint64_t ready_at = 0, due = mono_us();
	unsigned got = 0;

	/* barod starts a forced conversion right after init. */
	if (dev->config.mode == BARO_MODE_FORCED &&
	    dev->drv->start(dev, f->err, sizeof(f->err)) != 0)
		fail_msg("start: %s", f->err);
	if (dev->started) {
		ready_at = mono_us() + dev->ready_us;
		dev->started = false;
	}
	for (unsigned i = 0; i < max_reads && got < want; i++) {
		struct baro_sample s;

		due += dev->period_us;
		uint64_t at = due > ready_at ? due : ready_at, now = mono_us();
		if (at > now)
			baro_sleep_us((uint32_t)(at - now));
		int ret = dev->drv->read(dev, mono_us(), &s, f->err,
					 sizeof(f->err));
		if (ret == 0 && dev->config.mode == BARO_MODE_FORCED &&
		    dev->started == false)
			ret = dev->drv->start(dev, f->err, sizeof(f->err));
		if (dev->started) {
			ready_at = mono_us() + dev->ready_us;
			dev->started = false;
		}
		if (ret == 0)
			got++;
		else if (ret != -EAGAIN)
			fail_msg("read %d: %s", ret, f->err);
	}
	return got;
}

/* ------------------------------------------------------------------ */
/* Every registered chip, from the registry and emu-kinds.c            */

/* The emulator on the bus of a registered driver's chip, or a failure
 * naming the chip that has none. */
static size_t
kind_index(const struct baro_driver *drv, const struct baro_chip *chip)
{
	const struct emu_kind *k = emu_kind_find(drv->name, chip->name);

	if (k == NULL)
		fail_msg("driver %s, chip %s: no emulator in "
			 "tests/sensors/emu-kinds.c", drv->name, chip->name);
	return (size_t)(k - emu_kinds);
}

/* Opens kind i's chip with drv (the bus its own). */
static int
open_kind(struct fixture *f, size_t i, const struct baro_driver *drv,
	  const struct baro_sensor_config *cfg)
{
	char path[32];

	baro_dev_close(&f->dev);
	baro_bus_close(&f->bus);
	baro_bus_path(KIND_BUS0 + (unsigned)i, path, sizeof(path));
	return open_on(f, path, drv, emu_kinds[i].addr, cfg);
}

/*
 * The registry and the emulators agree, both ways: every registered
 * driver has its chips table, its datasheet timing and, for each chip,
 * an emulator; every emulator is for a registered driver's chip; a chip
 * a scan reports as another names one a scanning driver has.  What is
 * missing is named, never taken for some default.
 */
static void
test_registry(void **state)
{
	(void)state;
	for (size_t d = 0; baro_drivers[d] != NULL; d++) {
		const struct baro_driver *drv = baro_drivers[d];

		if (drv->n_chips == 0 || drv->chips == NULL)
			fail_msg("driver %s: no chips table", drv->name);
		if (drv->max_conv_us == NULL)
			fail_msg("driver %s: no max_conv_us", drv->name);
		assert_ptr_equal(baro_driver_find(drv->name), drv);
		for (size_t c = 0; c < drv->n_chips; c++) {
			const struct baro_chip *chip = &drv->chips[c];

			(void)kind_index(drv, chip);
			assert_string_equal(baro_variant_name(drv, chip->variant),
					    chip->name);
			if (chip->scan_finds == NULL)
				continue;
			/* Only a driver no scan runs can have such a chip. */
			if (drv->n_addrs != 0)
				fail_msg("driver %s scans, yet %s is found as %s",
					 drv->name, chip->name, chip->scan_finds);
			bool found = false;
			for (size_t e = 0; baro_drivers[e] != NULL; e++)
				for (size_t k = 0; k < baro_drivers[e]->n_chips;
				     k++)
					found = found ||
						(baro_drivers[e]->n_addrs > 0 &&
						 strcmp(baro_drivers[e]->chips[k].name,
							chip->scan_finds) == 0);
			if (!found)
				fail_msg("driver %s: %s is found as %s, which no "
					 "scanning driver has", drv->name,
					 chip->name, chip->scan_finds);
		}
	}
	for (size_t i = 0; i < emu_n_kinds; i++) {
		const struct baro_driver *drv = baro_driver_find(emu_kinds[i].driver);
		bool found = false;

		if (drv == NULL)
			fail_msg("emulator %s/%s: no driver %s registered in "
				 "sensors/driver.c", emu_kinds[i].driver,
				 emu_kinds[i].chip, emu_kinds[i].driver);
		for (size_t c = 0; c < drv->n_chips; c++)
			found = found ||
				strcmp(drv->chips[c].name, emu_kinds[i].chip) == 0;
		if (!found)
			fail_msg("emulator %s/%s: not in the %s driver's chips",
				 emu_kinds[i].driver, emu_kinds[i].chip,
				 drv->name);
	}
}

/*
 * Data-ready as each driver's table says, on its emulators: a driver
 * with a pin drives it (the emulated pin goes active as results come);
 * one without refuses the setting, naming the chip, before anything is
 * written (the probe's reads only).
 */
static void
test_registry_drdy(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config cfg = {
		.drdy = BARO_DRDY_ACTIVE_HIGH,
		.rate_hz = 50,
	};

	for (size_t d = 0; baro_drivers[d] != NULL; d++) {
		const struct baro_driver *drv = baro_drivers[d];

		for (size_t c = 0; c < drv->n_chips; c++) {
			size_t i = kind_index(drv, &drv->chips[c]);
			struct emu_chip *emu = f->kinds[i];
			unsigned asserts = emu->int_asserts;
			int ret = open_kind(f, i, drv, &cfg);

			if (!(drv->drdy_caps & BARO_DRDY_CAP_PIN)) {
				char want[64];

				snprintf(want, sizeof(want), "%s ",
					 drv->chips[c].name);
				if (ret != -EOPNOTSUPP)
					fail_msg("%s/%s: drdy without a pin: %d",
						 drv->name, drv->chips[c].name,
						 ret);
				assert_err_names(f, want);
				assert_err_names(f, "no data-ready pin");
				assert_null(f->dev.priv);
				continue;
			}
			if (ret != 0)
				fail_msg("%s/%s: %s", drv->name,
					 drv->chips[c].name, f->err);
			if (run_as_barod(f, 3, 12) != 3)
				fail_msg("%s/%s: no samples: %s", drv->name,
					 drv->chips[c].name, f->err);
			if (emu->int_asserts == asserts)
				fail_msg("%s/%s: the table says it has a "
					 "data-ready pin, the chip's pin never "
					 "went active", drv->name,
					 drv->chips[c].name);
		}
	}
}

/* The longest a conversion started by the driver may take: the
 * driver's table's datasheet maximum (struct baro_driver.max_conv_us). */
static uint32_t
datasheet_max_us(const struct baro_dev *dev)
{
	if (dev->drv->max_conv_us == NULL)
		fail_msg("driver %s: no max_conv_us in its table",
			 dev->drv->name);
	return dev->drv->max_conv_us(dev);
}

/*
 * Every registered chip at its driver's defaults and at its fastest
 * settings, both modes, against its emulator whose conversions take the
 * datasheet's maximum: ready_us is the datasheet maximum plus
 * baro_ready_us()'s margin (at least a tenth, 100 us for the shortest),
 * forced mode's period is never below it, and run as barod runs it no
 * read comes early.  Prints the margins for the closing note.
 */
static void
test_timing_margins(void **state)
{
	struct fixture *f = fixture(state);

	for (size_t i = 0; i < emu_n_kinds; i++)
		f->kinds[i]->timing = EMU_TIMING_MAX;
	print_message("%-8s %-6s %-8s %-7s %8s %8s %14s %9s\n", "chip",
		      "driver", "settings", "mode", "max us", "ready us",
		      "margin us (%)", "period us");
	for (size_t d = 0; baro_drivers[d] != NULL; d++) {
		const struct baro_driver *drv = baro_drivers[d];

		for (size_t c = 0; c < drv->n_chips; c++) {
			const char *name = drv->chips[c].name;
			size_t i = kind_index(drv, &drv->chips[c]);
			struct emu_chip *emu = f->kinds[i];

			for (int k = 0; k < 4; k++) {
				bool fastest = k & 1;
				enum baro_mode mode = k & 2 ? BARO_MODE_FORCED
							    : BARO_MODE_NORMAL;
				/* Fastest: the least oversampling, at the
				 * rate that allows (rate 0); the LPS22 has no
				 * oversampling. */
				struct baro_sensor_config cfg = {
					.osr_p = fastest ? 1 : 0,
					.osr_t = fastest ? 1 : 0,
					.mode = mode,
				};

				if (open_kind(f, i, drv, &cfg) != 0)
					fail_msg("%s/%s: %s", drv->name, name,
						 f->err);
				uint32_t max = datasheet_max_us(&f->dev);
				uint32_t ready = f->dev.ready_us;
				uint32_t least = max / 10 > 100 ? max / 10 : 100;

				print_message("%-8s %-6s %-8s %-7s %8u %8u "
					      "%7u (%4.1f) %9u\n", name,
					      drv->name, fastest ? "fastest" :
					      "default", mode == BARO_MODE_FORCED
					      ? "forced" : "normal", max, ready,
					      ready - max,
					      100.0 * (ready - max) / max,
					      f->dev.period_us);
				if (ready < max + least)
					fail_msg("%s/%s: ready %u us, maximum "
						 "%u us", drv->name, name, ready,
						 max);
				if (mode == BARO_MODE_FORCED &&
				    f->dev.period_us < ready)
					fail_msg("%s/%s: period %u us < ready "
						 "%u us", drv->name, name,
						 f->dev.period_us, ready);
				unsigned early = emu->early_reads;
				/* The pipelined chips spend every eighth
				 * read on a temperature. */
				if (run_as_barod(f, 3, 12) != 3)
					fail_msg("%s/%s: no samples: %s",
						 drv->name, name, f->err);
				if (emu->early_reads != early)
					fail_msg("%s/%s: %u reads before the "
						 "datasheet maximum", drv->name,
						 name, emu->early_reads - early);
			}
		}
	}
}

/* Read before the conversion may have finished, each chip answers as
 * its datasheet says and the driver neither publishes nor fails: the
 * MS5611 returns 0 and loses the conversion, which the driver starts
 * again; the others keep old data with their ready bits clear. */
static void
test_early_reads(void **state)
{
	struct fixture *f = fixture(state);
	const struct baro_sensor_config forced = { .mode = BARO_MODE_FORCED };
	struct baro_sample s;

	f->ms5611.chip.timing = EMU_TIMING_MAX;
	if (open_on(f, BUS3_PATH, &baro_driver_ms5611, 0x77, &forced) != 0)
		fail_msg("%s", f->err);
	assert_int_equal(f->dev.drv->start(&f->dev, f->err, sizeof(f->err)), 0);
	unsigned conv = f->ms5611.conversions;
	assert_int_equal(f->dev.drv->read(&f->dev, 1, &s, f->err,
					  sizeof(f->err)), -EAGAIN);
	assert_non_null(strstr(f->err, "ADC read 0, conversion not finished"));
	assert_int_equal(f->ms5611.chip.early_reads, 1);
	assert_int_equal(f->ms5611.conversions, conv + 1);	/* again */
	assert_true(f->dev.started);
	baro_dev_close(&f->dev);
	baro_bus_close(&f->bus);

	/* Every registered chip the same way, on its emulator. */
	for (size_t d = 0; baro_drivers[d] != NULL; d++) {
		const struct baro_driver *drv = baro_drivers[d];

		for (size_t c = 0; c < drv->n_chips; c++) {
			const char *name = drv->chips[c].name;
			size_t i = kind_index(drv, &drv->chips[c]);
			struct emu_chip *emu = f->kinds[i];

			emu->timing = EMU_TIMING_MAX;
			emu->early_reads = 0;
			if (open_kind(f, i, drv, &forced) != 0)
				fail_msg("%s/%s: %s", drv->name, name, f->err);
			assert_int_equal(f->dev.drv->start(&f->dev, f->err,
							   sizeof(f->err)), 0);
			assert_true(f->dev.started);
			assert_int_equal(f->dev.drv->read(&f->dev, 1, &s, f->err,
							  sizeof(f->err)),
					 -EAGAIN);
			if (strstr(f->err, emu_kinds[i].early_msg) == NULL)
				fail_msg("%s/%s: early read said \"%s\"",
					 drv->name, name, f->err);
			assert_int_equal(emu->early_reads, 1);
			/* Its ready time later the same conversion is there
			 * (a temperature first: the DPS310s measure one
			 * before the pressure, the MS56xx start with a
			 * temperature slot). */
			int ret = -EAGAIN;
			for (int n = 0; n < 3 && ret == -EAGAIN; n++) {
				baro_sleep_us(f->dev.ready_us);
				ret = f->dev.drv->read(&f->dev, 2, &s, f->err,
						       sizeof(f->err));
			}
			if (ret != 0)
				fail_msg("%s/%s: %s", drv->name, name, f->err);
			assert_int_equal(emu->early_reads, 1);
			baro_dev_close(&f->dev);
			baro_bus_close(&f->bus);
		}
	}
}

/*
 * A scan (every driver at each of its addresses) of a bus with one
 * registered chip finds exactly that chip at its address, by the name
 * its table says a scan gives (an MS5607 is an MS5611 to a scan, an
 * SPL06 a DPS310: those drivers are chosen by name).  BME280 and BMP390
 * share the id 0x60 at different registers; the MS56xx probe reads
 * PROMs of register chips, the register drivers read an MS56xx: none is
 * fooled.
 */
static void
test_probe_all(void **state)
{
	struct fixture *f = fixture(state);

	for (size_t i = 0; i < emu_n_kinds; i++) {
		const struct baro_driver *own = baro_driver_find(emu_kinds[i].driver);
		char path[32], want[64], found[256] = "";
		struct baro_bus bus;

		if (own == NULL)
			fail_msg("emulator %s/%s: no driver %s registered",
				 emu_kinds[i].driver, emu_kinds[i].chip,
				 emu_kinds[i].driver);
		strcpy(want, "(not in the driver's chips) ");
		for (size_t c = 0; c < own->n_chips; c++)
			if (strcmp(own->chips[c].name, emu_kinds[i].chip) == 0)
				snprintf(want, sizeof(want), "%s@%02x ",
					 own->chips[c].scan_finds != NULL ?
					 own->chips[c].scan_finds :
					 own->chips[c].name, emu_kinds[i].addr);
		baro_bus_path(KIND_BUS0 + (unsigned)i, path, sizeof(path));
		if (baro_bus_open(&bus, path, f->err, sizeof(f->err)) != 0)
			fail_msg("%s", f->err);
		for (size_t d = 0; baro_drivers[d] != NULL; d++) {
			const struct baro_driver *drv = baro_drivers[d];

			for (size_t a = 0; a < drv->n_addrs; a++) {
				int v = drv->probe(&bus, drv->addrs[a], f->err,
						   sizeof(f->err));
				char one[64];

				if (v == -ENODEV)
					continue;
				if (v < 0)
					fail_msg("%s/%s: %s probe: %s",
						 emu_kinds[i].driver,
						 emu_kinds[i].chip, drv->name,
						 f->err);
				snprintf(one, sizeof(one), "%s@%02x ",
					 baro_variant_name(drv, v), drv->addrs[a]);
				strcat(found, one);
			}
		}
		baro_bus_close(&bus);
		if (strcmp(found, want) != 0)
			fail_msg("%s/%s: a scan found \"%s\", its table says "
				 "\"%s\"", emu_kinds[i].driver, emu_kinds[i].chip,
				 found, want);
	}
	/* And a chip chosen by name is what it is: the ms5607 and spl06
	 * drivers give their own chips (test_registry_drdy and the timing
	 * tests open every chip with its own driver). */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_probe_variants, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_tracks_truth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forced_mode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_chips_one_fd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nack, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nack_during_init, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unplug_replug, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_owns_address, setup, teardown),
		cmocka_unit_test_setup_teardown(test_all_ff, setup, teardown),
		cmocka_unit_test_setup_teardown(test_all_zero_data, setup, teardown),
		cmocka_unit_test_setup_teardown(test_blank_calibration, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chip_id_changes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_node, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_i2c_node, setup, teardown),
		cmocka_unit_test_setup_teardown(test_i2c_rdwr, setup, teardown),
		cmocka_unit_test_setup_teardown(test_address_per_fd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bus_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bmp3_read_tracks_truth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bmp3_slow_oversampling, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bmp3_forced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bmp3_faults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ms5611_read_tracks_truth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ms5611_schedule, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ms5611_forced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ms5607_variant_choice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ms5637, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ms5611_faults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ms5611_bad_prom, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dps310_read_tracks_truth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dps310_rates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dps310_forced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spl06, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dps310_faults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dps310_blank_coef, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lps22_read_tracks_truth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lps22_rates_and_filter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lps22_one_shot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lps22_faults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bmp3_drdy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dps310_drdy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lps22_drdy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_drdy_pin, setup, teardown),
		cmocka_unit_test_setup_teardown(test_registry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_registry_drdy, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_probe_all, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timing_margins, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_early_reads, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_emu_timing, setup,
						teardown),
	};

	/* Without the preload library these tests would prove nothing: a
	 * skip with the reason, which CI counts as a failure (./dev). */
	if (!i2c_mock_preloaded())
		return i2c_mock_skip("sensors-umockdev");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
