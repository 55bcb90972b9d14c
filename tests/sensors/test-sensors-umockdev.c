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
#include <unistd.h>

#include <linux/i2c-dev.h>
#include <linux/i2c.h>

#include "bmp280.h"
#include "bmp388.h"
#include "bus.h"
#include "driver.h"
#include "emu-bmp280.h"
#include "emu-bmp388.h"
#include "i2c-mock.h"
#include "test-util.h"

#define BUS 1
#define BUS_PATH "/dev/i2c-1"
#define BUS2 2
#define BUS2_PATH "/dev/i2c-2"

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
	free(f);
	return 0;
}

static struct fixture *
fixture(void **state)
{
	if (*state == NULL)
		skip();
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
	assert_int_equal(f->dev.drv->period_us(&f->dev), 43725);

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
	assert_int_equal(f->dev.drv->period_us(&f->dev), 20000);
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
	assert_int_equal(f->dev.drv->period_us(&f->dev), 20000);
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
	assert_int_equal(f->dev.drv->period_us(&f->dev), 160000);
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

/* Every driver over its addresses on both buses finds exactly the four
 * chips, each by the right family: BME280 and BMP390 share the id 0x60
 * but at different registers. */
static void
test_probe_all(void **state)
{
	struct fixture *f = fixture(state);
	const char *paths[] = { BUS_PATH, BUS2_PATH };
	char found[256] = "";

	for (size_t b = 0; b < 2; b++) {
		struct baro_bus bus;

		if (baro_bus_open(&bus, paths[b], f->err, sizeof(f->err)) != 0)
			fail_msg("%s", f->err);
		for (size_t d = 0; baro_drivers[d] != NULL; d++) {
			const struct baro_driver *drv = baro_drivers[d];

			for (size_t a = 0; a < drv->n_addrs; a++) {
				int v = drv->probe(&bus, drv->addrs[a], f->err,
						   sizeof(f->err));
				char one[64];

				if (v == -ENODEV)
					continue;
				assert_true(v >= 0);
				snprintf(one, sizeof(one), "%s@%zu:%02x ",
					 drv->variant_name(v), b + 1, drv->addrs[a]);
				strcat(found, one);
			}
		}
		baro_bus_close(&bus);
	}
	assert_string_equal(found, "BMP280@1:76 BME280@1:77 BMP388@2:76 "
				   "BMP390@2:77 ");
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
		cmocka_unit_test_setup_teardown(test_bmp3_read_tracks_truth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bmp3_slow_oversampling, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bmp3_forced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bmp3_faults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_all, setup, teardown),
	};

	/* Fail, never skip: without the preload library these tests would
	 * prove nothing, and CI installs it (./dev). */
	if (!i2c_mock_preloaded()) {
		fprintf(stderr, "test-sensors-umockdev: not running under "
				"umockdev (LD_PRELOAD=libumockdev-preload.so.0 "
				"or umockdev-wrapper); ./dev installs umockdev\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
