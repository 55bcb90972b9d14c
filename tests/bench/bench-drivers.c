/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What each hardware driver costs per sample, without hardware:
 *
 *  - the pure compensation, raw values to Pa and degC, on raw values the
 *    chip's emulator gives for a grid of truths with its calibration;
 *  - a sample through the whole driver, the bus layer, libi2c and the
 *    i2c-dev ioctls, served by the chip emulators through umockdev
 *    (i2c-mock.c), in the daemon's read/start cycle;
 *  - the I2C bytes those samples moved, as i2c-mock counts them, against
 *    the least the chip needs for a fresh pressure and temperature.
 *
 * Run under libumockdev-preload (tests/bench/bench.sh does); without it only
 * the compensation figures are printed.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "bench-util.h"
#include "bmp280.h"
#include "bmp388.h"
#include "bus.h"
#include "dps310.h"
#include "driver.h"
#include "emu-bmp280.h"
#include "emu-bmp388.h"
#include "emu-dps310.h"
#include "emu-kinds.h"
#include "emu-lps22.h"
#include "emu-ms5611.h"
#include "i2c-mock.h"
#include "lps22.h"
#include "ms5611.h"

#define COMP_CALLS 2000000u	/* a multiple of TRUTHS */
#define COMP_REPEATS 3		/* best of, against scheduler noise */
#define TRUTHS 64
#define SAMPLES 2000u
#define WARMUP_SAMPLES 64u
/* Reads in a row without a sample before a run counts as stalled: a
 * driver needs at most one -EAGAIN (a temperature slot) per sample. */
#define STALL_READS 16u
/* The driver's default DPS310/SPL06 oversampling codes (x16 pressure,
 * x1 temperature): the compensation's scale factors depend on them. */
#define DPS_OSR_P 4u
#define DPS_OSR_T 0u

/* The least a sample with a fresh pressure and temperature needs on the
 * wire: bytes after address bytes (register and command bytes
 * included), and START conditions (each sends an address byte). */
struct minimum {
	unsigned bytes, starts;
};

/*
 * The minimums, per mode.  A burst read of consecutive data registers is
 * a register byte, a repeated START and the data; a register write is
 * the register byte and the value.  Forced (one-shot) modes add the
 * trigger writes a sample needs.
 */
#define MIN_BURST(n) { .bytes = 1u + (n), .starts = 2u }
#define MIN_BMP_NORMAL MIN_BURST(6)
/* + ctrl_meas / PWR_CTRL written with the forced-mode bits. */
#define MIN_BMP_FORCED { .bytes = 7u + 2u, .starts = 3u }
/* Per sample a D1 and a D2 conversion: the command byte, then the ADC
 * read (command 0x00, repeated START, 3 bytes), twice. */
#define MIN_MS56 { .bytes = 2u * (1u + 4u), .starts = 2u * (1u + 2u) }
#define MIN_DPS_NORMAL MIN_BURST(6)
/* + MEAS_CFG written for a pressure and for a temperature measurement;
 * both results then in one burst. */
#define MIN_DPS_FORCED { .bytes = 7u + 2u * 2u, .starts = 2u + 2u }
#define MIN_LPS_NORMAL MIN_BURST(5)
/* + CTRL_REG2 with ONE_SHOT. */
#define MIN_LPS_FORCED { .bytes = 6u + 2u, .starts = 3u }

static double
truth_pa(unsigned i)
{
	return 90000.0 + (double)(i % 8u) * 2000.0;	/* 90 .. 104 kPa */
}

static double
truth_c(unsigned i)
{
	return -10.0 + (double)(i / 8u) * 7.0;		/* -10 .. 39 degC */
}

/* ------------------------------------------------------------------ */
/* Pure compensation                                                   */

struct comp_result {
	double ns;		/* per sample: every call a sample makes */
	double mean_pa;		/* over the calls, against the truths' mean */
	unsigned errors;	/* calls that returned an error */
};

struct comp_timer {
	double best;
};

/* A result the loop must compute although nothing reads it. */
static void
keep(double v)
{
	volatile double sink = v;

	(void)sink;
}

static void
comp_timer_add(struct comp_timer *t, double t0)
{
	double dt = now_s() - t0;

	if (t->best == 0.0 || dt < t->best)
		t->best = dt;
}

static struct comp_result
comp_bmp280(const struct baro_chip *chip)
{
	struct bmp280_calib cal;
	uint32_t adc_p[TRUTHS], adc_t[TRUTHS];
	struct comp_timer tm = { 0 };
	struct comp_result r = { 0 };

	(void)chip;	/* one calibration for both */
	bmp280_calib_parse(emu_bmp280_datasheet_calib, &cal);
	for (unsigned i = 0; i < TRUTHS; i++)
		emu_bmp280_raw(emu_bmp280_datasheet_calib, truth_pa(i),
			       truth_c(i), &adc_p[i], &adc_t[i]);
	for (unsigned rep = 0; rep < COMP_REPEATS; rep++) {
		uint64_t sum = 0;
		unsigned errors = 0;
		double t0 = now_s();

		for (uint32_t k = 0; k < COMP_CALLS; k++) {
			unsigned i = k % TRUTHS;
			int32_t t_fine, t_centi;
			uint32_t p = 0;

			errors += bmp280_compensate_t(&cal, adc_t[i], &t_fine,
						      &t_centi) < 0;
			errors += bmp280_compensate_p(&cal, adc_p[i], t_fine,
						      &p) < 0;
			sum += p;
		}
		comp_timer_add(&tm, t0);
		r.mean_pa = (double)sum / 256.0 / COMP_CALLS;
		r.errors = errors;
	}
	r.ns = tm.best * 1e9 / COMP_CALLS;
	return r;
}

static struct comp_result
comp_bmp388(const struct baro_chip *chip)
{
	struct bmp388_nvm nvm;
	struct bmp388_calib cal;
	uint32_t raw_p[TRUTHS], raw_t[TRUTHS];
	struct comp_timer tm = { 0 };
	struct comp_result r = { 0 };

	(void)chip;	/* one calibration for both */
	bmp388_nvm_parse(emu_bmp388_sample_calib, &nvm);
	bmp388_calib_scale(&nvm, &cal);
	for (unsigned i = 0; i < TRUTHS; i++)
		emu_bmp388_raw(emu_bmp388_sample_calib, truth_pa(i), truth_c(i),
			       &raw_p[i], &raw_t[i]);
	for (unsigned rep = 0; rep < COMP_REPEATS; rep++) {
		double sum = 0.0;
		double t0 = now_s();

		for (uint32_t k = 0; k < COMP_CALLS; k++) {
			unsigned i = k % TRUTHS;
			double c = bmp388_compensate_t(&cal, raw_t[i]);

			sum += bmp388_compensate_p(&cal, raw_p[i], c);
		}
		comp_timer_add(&tm, t0);
		r.mean_pa = sum / COMP_CALLS;
	}
	r.ns = tm.best * 1e9 / COMP_CALLS;
	return r;
}

static struct comp_result
comp_ms5611(const struct baro_chip *chip)
{
	enum ms5611_variant v = (enum ms5611_variant)chip->variant;
	uint16_t prom[MS5611_PROM_WORDS];
	uint32_t d1[TRUTHS], d2[TRUTHS];
	struct comp_timer tm = { 0 };
	struct comp_result r = { 0 };

	emu_ms5611_datasheet_prom(v, prom);
	for (unsigned i = 0; i < TRUTHS; i++)
		emu_ms5611_raw(v, prom, truth_pa(i), truth_c(i), &d1[i], &d2[i]);
	for (unsigned rep = 0; rep < COMP_REPEATS; rep++) {
		int64_t sum = 0;
		unsigned errors = 0;
		double t0 = now_s();

		for (uint32_t k = 0; k < COMP_CALLS; k++) {
			unsigned i = k % TRUTHS;
			struct ms5611_comp c;

			if (ms5611_compensate(v, prom, d1[i], d2[i], &c) < 0)
				errors++;
			else
				sum += c.pressure_pa;
		}
		comp_timer_add(&tm, t0);
		r.mean_pa = (double)sum / COMP_CALLS;
		r.errors = errors;
	}
	r.ns = tm.best * 1e9 / COMP_CALLS;
	return r;
}

static struct comp_result
comp_dps310(const struct baro_chip *chip)
{
	struct dps310_coef coef;
	int32_t raw_p[TRUTHS], raw_t[TRUTHS];
	struct comp_timer tm = { 0 };
	struct comp_result r = { 0 };

	(void)chip;	/* one coefficient set for both */
	dps310_coef_parse(emu_dps310_sample_coef, &coef);
	for (unsigned i = 0; i < TRUTHS; i++)
		emu_dps310_raw(emu_dps310_sample_coef, truth_pa(i), truth_c(i),
			       DPS_OSR_P, DPS_OSR_T, &raw_p[i], &raw_t[i]);
	for (unsigned rep = 0; rep < COMP_REPEATS; rep++) {
		double sum = 0.0, csum = 0.0;
		double t0 = now_s();

		for (uint32_t k = 0; k < COMP_CALLS; k++) {
			unsigned i = k % TRUTHS;

			csum += dps310_compensate_t(&coef, raw_t[i], DPS_OSR_T);
			sum += dps310_compensate_p(&coef, raw_p[i], DPS_OSR_P,
						   raw_t[i], DPS_OSR_T);
		}
		comp_timer_add(&tm, t0);
		keep(csum);
		r.mean_pa = sum / COMP_CALLS;
	}
	r.ns = tm.best * 1e9 / COMP_CALLS;
	return r;
}

/* The LPS22s output finished values: the "compensation" is the fixed
 * scaling from the data registers' bytes, as the emulator fills them. */
static struct comp_result
comp_lps22(const struct baro_chip *chip)
{
	uint8_t who = chip->id;	/* WHO_AM_I: the variant to emulate */
	uint8_t data[TRUTHS][5];
	struct emu_lps22 e;
	const uint8_t one_hz = 1u << LPS22_CTRL1_ODR_SHIFT;
	struct comp_timer tm = { 0 };
	struct comp_result r = { 0 };

	emu_lps22_init(&e, 0x5c, who);
	e.chip.timing = EMU_TIMING_INSTANT;
	emu_chip_write(&e.chip, LPS22_REG_CTRL1, &one_hz, 1);
	for (unsigned i = 0; i < TRUTHS; i++) {
		emu_lps22_set(&e, truth_pa(i), truth_c(i));
		memcpy(data[i], e.chip.regs + LPS22_REG_PRESS_XL, 5);
	}
	for (unsigned rep = 0; rep < COMP_REPEATS; rep++) {
		double sum = 0.0, csum = 0.0;
		double t0 = now_s();

		for (uint32_t k = 0; k < COMP_CALLS; k++) {
			unsigned i = k % TRUTHS;

			sum += lps22_pressure_pa(data[i]);
			csum += lps22_temperature_c(data[i] + 3);
		}
		comp_timer_add(&tm, t0);
		keep(csum);
		r.mean_pa = sum / COMP_CALLS;
	}
	r.ns = tm.best * 1e9 / COMP_CALLS;
	return r;
}

/*
 * What the bench needs of each driver beyond its table and emulator:
 * the pure compensation to time and the least a sample moves on the
 * wire.  main() walks the registry, so a driver missing here (or from
 * emu-kinds.c) is a row saying so and exit status 1, never a chip left
 * out of `ninja bench`.
 */
struct family {
	const char *driver;
	struct comp_result (*comp)(const struct baro_chip *chip);
	struct minimum min[2];	/* [BARO_MODE_NORMAL], [BARO_MODE_FORCED] */
};

static const struct family families[] = {
	{ .driver = "bmp280", .comp = comp_bmp280,
	  .min = { MIN_BMP_NORMAL, MIN_BMP_FORCED } },
	{ .driver = "bmp388", .comp = comp_bmp388,
	  .min = { MIN_BMP_NORMAL, MIN_BMP_FORCED } },
	{ .driver = "ms5611", .comp = comp_ms5611,
	  .min = { MIN_MS56, MIN_MS56 } },
	{ .driver = "ms5607", .comp = comp_ms5611,
	  .min = { MIN_MS56, MIN_MS56 } },
	{ .driver = "dps310", .comp = comp_dps310,
	  .min = { MIN_DPS_NORMAL, MIN_DPS_FORCED } },
	{ .driver = "spl06", .comp = comp_dps310,
	  .min = { MIN_DPS_NORMAL, MIN_DPS_FORCED } },
	{ .driver = "lps22", .comp = comp_lps22,
	  .min = { MIN_LPS_NORMAL, MIN_LPS_FORCED } },
};

static const struct family *
family_find(const char *driver)
{
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (strcmp(families[i].driver, driver) == 0)
			return &families[i];
	return NULL;
}

/* One registered chip: its driver, its emulator on a bus of its own and
 * what the bench knows of its family. */
struct chip_case {
	const struct baro_driver *drv;
	const struct baro_chip *chip;
	const struct family *fam;
	unsigned bus;
	uint8_t addr;
	struct emu_chip *emu;
};

/* ------------------------------------------------------------------ */
/* Through the bus                                                     */

struct bus_result {
	int ret;		/* 0, or why the run stopped */
	char err[256];
	char variant[16];	/* what the driver found */
	unsigned long samples, again;
	double wall_s, cpu_s;
	struct i2c_mock_counts counts;
};

static double
cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

/* The daemon's cycle (src/daemon/sources/hardware.c): a forced-mode sensor is
 * started after open and after each sample, and a read that answers
 * -EAGAIN is simply read again at the next expiry.  Back to back here:
 * the emulated conversions are instant (EMU_TIMING_INSTANT). */
static int
run_samples(struct baro_dev *dev, unsigned n, struct bus_result *r)
{
	bool forced = dev->config.mode == BARO_MODE_FORCED;
	unsigned in_a_row = 0;

	for (unsigned done = 0; done < n;) {
		struct baro_sample s;
		int ret = dev->drv->read(dev, done, &s, r->err, sizeof(r->err));

		if (ret == -EAGAIN) {
			r->again++;
			if (++in_a_row >= STALL_READS)
				return -EAGAIN;
			continue;
		}
		if (ret == 0 && forced)
			ret = dev->drv->start(dev, r->err, sizeof(r->err));
		if (ret < 0)
			return ret;
		in_a_row = 0;
		done++;
		r->samples++;
	}
	return 0;
}

static void
bus_run(struct i2c_mock *mock, const struct chip_case *cc,
	enum baro_mode mode, struct bus_result *r)
{
	const struct baro_sensor_config cfg = { .mode = mode };
	struct baro_bus bus;
	struct baro_dev dev;
	char path[32];

	memset(r, 0, sizeof(*r));
	memset(&dev, 0, sizeof(dev));
	baro_bus_path(cc->bus, path, sizeof(path));
	r->ret = baro_bus_open(&bus, path, r->err, sizeof(r->err));
	if (r->ret < 0)
		return;
	r->ret = baro_dev_open(&dev, cc->drv, &bus, cc->addr, &cfg, r->err,
			       sizeof(r->err));
	if (r->ret < 0) {
		baro_bus_close(&bus);
		return;
	}
	snprintf(r->variant, sizeof(r->variant), "%s",
		 baro_variant_name(cc->drv, dev.variant));
	if (mode == BARO_MODE_FORCED)
		r->ret = cc->drv->start(&dev, r->err, sizeof(r->err));
	if (r->ret == 0)
		r->ret = run_samples(&dev, WARMUP_SAMPLES, r);
	if (r->ret == 0) {
		r->samples = r->again = 0;
		i2c_mock_counts_reset(mock, cc->bus);
		double c0 = cpu_s(), t0 = now_s();

		r->ret = run_samples(&dev, SAMPLES, r);
		r->wall_s = now_s() - t0;
		r->cpu_s = cpu_s() - c0;
		i2c_mock_counts(mock, cc->bus, &r->counts);
	}
	baro_dev_close(&dev);
	baro_bus_close(&bus);
}

/* ------------------------------------------------------------------ */
/* The table                                                           */

static const char *
mode_name(enum baro_mode mode)
{
	return mode == BARO_MODE_FORCED ? "forced" : "normal";
}

static void
print_header(void)
{
	printf("%-8s %-6s %-6s %7s %8s %8s %6s %7s %4s %5s %7s %4s %5s %7s  %s\n",
	       "chip", "driver", "mode", "comp", "wall", "CPU", "ioctl",
	       "bytes", "min", "ratio", "wire", "min", "ratio", "@400k",
	       "transfers per sample");
	printf("%-8s %-6s %-6s %7s %8s %8s %6s %7s %4s %5s %7s %4s %5s %7s\n",
	       "", "", "", "ns", "us/smp", "us/smp", "/smp", "/smp", "", "",
	       "/smp", "", "", "us/smp");
}

static void
print_row(const struct chip_case *cc, enum baro_mode mode,
	  const struct comp_result *comp, double truth_mean,
	  const struct bus_result *r)
{
	char comp_s[16];

	/* '!' marks a compensation that went wrong (an error, or a mean
	 * pressure off the truths'): its timing would mean nothing. */
	snprintf(comp_s, sizeof(comp_s), "%.1f%s", comp->ns,
		 comp->errors || fabs(comp->mean_pa - truth_mean) > 2.0 ?
			 "!" : "");
	printf("%-8s %-6s %-6s %7s ", r != NULL && r->variant[0] ?
	       r->variant : cc->chip->name, cc->drv->name,
	       r != NULL ? mode_name(mode) : "-", comp_s);
	if (r == NULL) {
		printf("(bus not measured: no umockdev)\n");
		return;
	}
	if (r->ret < 0) {
		printf("%s after %lu samples: %s\n",
		       r->ret == -EAGAIN ? "stalls" : "fails", r->samples,
		       r->err);
		return;
	}

	double n = (double)r->samples;
	struct i2c_mock_xfer t = i2c_mock_counts_total(&r->counts);
	const struct minimum *m = &cc->fam->min[mode];
	double bytes = (double)(t.out + t.in) / n;
	double wire = (double)(t.out + t.in + t.starts) / n;
	unsigned min_wire = m->bytes + m->starts;

	/* 9 clocks a byte (8 bits and the ACK) at 400 kHz; START, STOP
	 * and clock stretching left out, so a lower bound. */
	printf("%8.1f %8.1f %6.2f %7.2f %4u %5.2f %7.2f %4u %5.2f %7.0f ",
	       r->wall_s * 1e6 / n, r->cpu_s * 1e6 / n,
	       (double)r->counts.ioctls / n, bytes, m->bytes, bytes / m->bytes,
	       wire, min_wire, wire / min_wire, wire * 9.0 / 0.4);
	const char *sep = " ";
	for (size_t k = 0; k < I2C_MOCK_XFER_KINDS; k++) {
		const struct i2c_mock_xfer *x = &r->counts.xfer[k];

		if (x->transfers == 0)
			continue;
		printf("%s%s %.3g", sep,
		       i2c_mock_xfer_name((enum i2c_mock_xfer_kind)k),
		       (double)x->transfers / n);
		sep = ", ";
	}
	if (r->again > 0)
		printf("; -EAGAIN %.3g", (double)r->again / n);
	printf("\n");
}

static void
print_notes(bool bus)
{
	printf("\n"
"comp: ns per sample for the pure compensation (every call one sample makes,\n"
"  raw values to Pa and degC) on the emulators' calibrations, %u truths\n"
"  90-104 kPa x -10..39 degC, best of %u x %u calls; per chip, not per mode.\n",
	       TRUTHS, COMP_REPEATS, COMP_CALLS);
	if (!bus)
		return;
	printf(
"wall, CPU: per published sample over %u samples through driver + bus.c +\n"
"  libi2c + i2c-dev ioctls, in the daemon's read/start cycle.  CPU is the\n"
"  whole process (getrusage user+sys), so it includes umockdev's socket round\n"
"  trip per ioctl, its handler thread and the emulators (some search raw\n"
"  values per conversion): that round trip dominates, and is not what a real\n"
"  bus costs.  There the figure that counts is the wire time (@400k).\n"
"bytes: bytes after address bytes, register and command bytes included;\n"
"  wire adds one address byte per START and repeated START.  min: the least\n"
"  for a fresh pressure and temperature per sample: the data registers in\n"
"  one burst (register byte + data: BMP280/BME280, BMP388/390 and DPS310/\n"
"  SPL06 6 bytes, LPS22 5), in forced mode plus the trigger writes (BMP\n"
"  ctrl_meas/PWR_CTRL, LPS22 ONE_SHOT: 2 bytes; DPS310/SPL06 a pressure and\n"
"  a temperature MEAS_CFG write: 4); MS56xx two conversions, each a command\n"
"  byte and an ADC read (0x00, repeated START, 3 bytes).  The MS56xx (and\n"
"  the DPS310/SPL06 in forced mode) convert temperature in every 8th slot\n"
"  only, which is how the MS56xx come in under that minimum.\n"
"@400k: wire bytes x 9 clocks at 400 kHz, a lower bound for a real bus.\n",
	       SAMPLES);
}

/* ------------------------------------------------------------------ */

/* Every registered chip as a case, each on bus 1 + its index, its
 * emulator from emu-kinds.c.  What is missing is said on stderr and
 * counted: the bench runs what it can and fails. */
#define CASES_MAX 16

static size_t
cases_init(struct chip_case *cases, unsigned *missing)
{
	size_t n = 0;

	for (size_t d = 0; baro_drivers[d] != NULL; d++) {
		const struct baro_driver *drv = baro_drivers[d];
		const struct family *fam = family_find(drv->name);

		if (fam == NULL) {
			fprintf(stderr, "bench-drivers: driver %s has no row "
				"in bench-drivers.c's families\n", drv->name);
			++*missing;
			continue;
		}
		for (size_t c = 0; c < drv->n_chips; c++) {
			const struct emu_kind *k =
				emu_kind_find(drv->name, drv->chips[c].name);

			if (k == NULL) {
				fprintf(stderr, "bench-drivers: driver %s, chip "
					"%s: no emulator in "
					"tests/sensors/emu-kinds.c\n",
					drv->name, drv->chips[c].name);
				++*missing;
				continue;
			}
			if (n == CASES_MAX) {
				fprintf(stderr, "bench-drivers: more than %u "
					"chips: raise CASES_MAX\n", CASES_MAX);
				++*missing;
				return n;
			}
			struct emu_chip *emu = k->create(k->addr);
			if (emu == NULL) {
				fprintf(stderr, "bench-drivers: out of memory\n");
				++*missing;
				return n;
			}
			/* The cost of a sample, not the wait for it: no
			 * conversion time. */
			emu->timing = EMU_TIMING_INSTANT;
			cases[n] = (struct chip_case){
				.drv = drv,
				.chip = &drv->chips[c],
				.fam = fam,
				.bus = 1u + (unsigned)n,
				.addr = k->addr,
				.emu = emu,
			};
			n++;
		}
	}
	return n;
}

int
main(void)
{
	struct chip_case cases[CASES_MAX];
	unsigned missing = 0;
	size_t n_cases = cases_init(cases, &missing);
	double truth_mean = 0.0;

	for (unsigned i = 0; i < TRUTHS; i++)
		truth_mean += truth_pa(i) / TRUTHS;
	struct i2c_mock *mock = i2c_mock_new();
	if (mock == NULL) {
		printf("bench-drivers: not under libumockdev-preload "
		       "(LD_PRELOAD=libumockdev-preload.so.0): compensation "
		       "only\n");
	} else {
		for (size_t i = 0; i < n_cases; i++) {
			if (i2c_mock_add_bus(mock, cases[i].bus) < 0) {
				fprintf(stderr, "bench-drivers: cannot add "
						"/dev/i2c-%u\n", cases[i].bus);
				i2c_mock_free(mock);
				return 1;
			}
			i2c_mock_attach(mock, cases[i].bus, cases[i].emu);
		}
	}

	/* One untimed pass first: the first loop timed otherwise runs on a
	 * CPU still clocked down. */
	if (n_cases > 0)
		cases[0].fam->comp(cases[0].chip);
	printf("Hardware drivers: compensation, and samples through the "
	       "emulated I2C bus (umockdev)\n");
	print_header();
	for (size_t i = 0; i < n_cases; i++) {
		struct comp_result comp = cases[i].fam->comp(cases[i].chip);

		/* Without the bus one row per chip: comp has no mode. */
		int last = mock != NULL ? BARO_MODE_FORCED : BARO_MODE_NORMAL;

		for (int mode = BARO_MODE_NORMAL; mode <= last; mode++) {
			struct bus_result r;

			if (mock != NULL)
				bus_run(mock, &cases[i], (enum baro_mode)mode, &r);
			print_row(&cases[i], (enum baro_mode)mode, &comp,
				  truth_mean, mock != NULL ? &r : NULL);
		}
	}
	print_notes(mock != NULL);
	i2c_mock_free(mock);
	for (size_t i = 0; i < n_cases; i++)
		free(cases[i].emu);
	if (missing > 0) {
		fprintf(stderr, "bench-drivers: %u registered chips or drivers "
			"not measured (above)\n", missing);
		return 1;
	}
	return 0;
}
