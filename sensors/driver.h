/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The driver interface: one const table of function pointers per chip
 * family, one file per family (sensors/<family>.c), and one registry
 * array listing them all.  A new family is a new file and header (which
 * declares its driver) and its include and entry in driver.c; design.md's
 * "Add a driver" lists the rest
 * (emulator, tests, docs; `ninja -C build gen-docs` writes most doc
 * lists), and tests/sensors/test-sensors-umockdev.c and
 * tests/doc/test-chip-lists.py name whatever a registered driver lacks.
 *
 * Life of a sensor: probe (is this family at bus+addr, which variant?),
 * init (reset, calibration, configuration, measuring started), then per
 * sample start (trigger a conversion; a no-op in normal mode) and read,
 * every dev->period_us.  Any error leaves the device needing a new
 * init; fini frees what init took, after a failed init too.  Drivers
 * never sleep longer than a reset needs and never keep global state.
 *
 * Conversion timing: a call that starts a conversion (init for a chip
 * that then converts on its own, start, a pipelined read that sends the
 * next command) sets dev->started, and the caller must not read again
 * sooner than dev->ready_us after that call returned.  ready_us is the
 * datasheet's MAXIMUM conversion time plus baro_ready_us()'s margin; the period
 * alone cannot promise it, because a command goes out after the read that
 * precedes it, and timers wake late.
 */
#ifndef BAROD_SENSORS_DRIVER_H
#define BAROD_SENSORS_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "baro-sample.h"
#include "bus.h"

enum baro_mode {
	/* The chip converts continuously; read takes the latest result. */
	BARO_MODE_NORMAL,
	/* One conversion per start; lowest power, caller-paced. */
	BARO_MODE_FORCED,
};

/* The chip's interrupt pin as a data-ready output.  Off unless a GPIO
 * line listens to it: a pin nobody reads is left as the reset set it. */
enum baro_drdy {
	BARO_DRDY_OFF,
	BARO_DRDY_ACTIVE_HIGH,	/* the usual: push-pull, rising edge */
	BARO_DRDY_ACTIVE_LOW,	/* for lines shared or pulled up */
};

/* Per-sensor settings.  Zero means "the driver's default" for every
 * field, so a zeroed struct is a valid configuration. */
struct baro_sensor_config {
	uint8_t osr_p;		/* pressure oversampling: 1, 2, 4, ... */
	uint8_t osr_t;		/* temperature oversampling */
	uint8_t iir;		/* IIR filter coefficient, 0 = off */
	uint32_t rate_hz;	/* wanted sample rate, 0 = as fast as the
				 * oversampling allows */
	enum baro_mode mode;
	enum baro_drdy drdy;
	bool drdy_open_drain;	/* else push-pull */
};

/* What a family's interrupt pin can do (struct baro_driver.drdy_caps). */
#define BARO_DRDY_CAP_PIN 0x1u		/* data-ready, either level */
#define BARO_DRDY_CAP_OPEN_DRAIN 0x2u

struct baro_driver;

/*
 * A chip a driver is for: the facts about it that tests, benches, the
 * probe's expectations and the docs read, so they are written once, here,
 * beside the code that depends on them.  A driver's chips are every
 * variant its probe can return.
 */
struct baro_chip {
	int variant;		/* what probe returns for it */
	const char *name;	/* the chip's own name: "BME280" */
	/* Other parts that probe as this one (same id, same registers):
	 * "DPS368"; NULL: none.  Docs name them too. */
	const char *also;
	/* The id register's value (WHO_AM_I, chip id); 0 when the family
	 * has none (the MS56xx are told apart by their PROM). */
	uint8_t id;
	/* A driver chosen only by name: the chip a scan of the bus reports
	 * it as, since nothing on the bus tells it apart ("MS5611" for an
	 * MS5607).  NULL: a scan finds it as itself. */
	const char *scan_finds;
};

struct baro_dev {
	const struct baro_driver *drv;
	struct baro_bus *bus;	/* shared with other devices on the bus */
	uint8_t addr;
	uint8_t instance;	/* copied into every sample */
	int variant;		/* what probe returned */
	struct baro_sensor_config config;	/* as applied by init */
	/* Set by init: time from start to a result read can take, or
	 * between normal-mode results; the configured rate, never below
	 * the conversion time. */
	uint32_t period_us;
	/* Set by init: the least time from a call that started a
	 * conversion to a read of its result (baro_ready_us of the
	 * datasheet maximum).  Forced mode's period is never below it. */
	uint32_t ready_us;
	/* Set by a call that started a conversion; the caller notes the
	 * time and clears it. */
	bool started;
	void *priv;		/* the driver's, from init to fini */
};

struct baro_driver {
	const char *name;	/* family, lower case: "bmp280" */
	/* Addresses the family can answer on, for scanning. */
	const uint8_t *addrs;
	size_t n_addrs;
	/* Which variant of the family is at addr: >= 0, or -ENODEV when
	 * nothing of this family answers; other errors are bus errors
	 * (-EBUSY: a kernel driver owns the address). */
	int (*probe)(struct baro_bus *bus, uint8_t addr, char *err,
		     size_t errlen);
	/* Every chip probe can return, by variant (baro_variant_name()). */
	const struct baro_chip *chips;
	size_t n_chips;
	/* Reset, load calibration, apply config (dev->config is filled in
	 * with the defaults actually used) and start measuring. */
	int (*init)(struct baro_dev *dev, const struct baro_sensor_config *cfg,
		    char *err, size_t errlen);
	/* Start one conversion (forced mode); normal mode: nothing. */
	int (*start)(struct baro_dev *dev, char *err, size_t errlen);
	/* The latest conversion as a sample stamped now_us.  -EAGAIN: not
	 * finished yet; -EIO and others: the chip needs init again. */
	int (*read)(struct baro_dev *dev, uint64_t now_us,
		    struct baro_sample *out, char *err, size_t errlen);
	void (*fini)(struct baro_dev *dev);
	/* BARO_DRDY_CAP_*; 0: the chips have no data-ready pin, and init
	 * is never asked for one. */
	unsigned drdy_caps;
	/* The datasheet's MAXIMUM time of a conversion as init configured
	 * dev (its config, variant and mode): forced, one start's
	 * conversion; normal, the first result after the mode write.  What
	 * ready_us adds baro_ready_us()'s margin to; the tests hold every
	 * driver's ready_us to it, so it is a fact of the chip, never the
	 * driver's scheduling. */
	uint32_t (*max_conv_us)(const struct baro_dev *dev);
};

/* The chip's own name for a variant drv's probe returned; "?" for one
 * its chips table lacks (a test fails on that: test_registry). */
const char *baro_variant_name(const struct baro_driver *drv, int variant);

/* Helpers every driver needs. */

/* A probe's verdict on the id it read at addr: the variant of drv's chip
 * with that id (its chips table), or -ENODEV with a message naming the id
 * and the chips it is not. */
int baro_chip_by_id(const struct baro_driver *drv, const struct baro_bus *bus,
		    uint8_t addr, uint8_t id, char *err, size_t errlen);

/* Sleep for a chip's reset or conversion time; EINTR does not cut it
 * short. */
void
baro_sleep_us(uint32_t us);

/* The margin on a datasheet maximum conversion time: a tenth, as
 * ArduPilot's and PX4's MS5611 drivers wait 10 ms where OSR 4096 takes at
 * most 9.04 ms, and at least 100 us for the shortest conversions.  It
 * covers what the datasheet maximum does not: the chip's oscillator at
 * the edges of its range, and the host clock. */
#define BARO_READY_MARGIN_MIN_US 100u

/* max_us plus the margin. */
uint32_t
baro_ready_us(uint32_t max_us);

/* All n bytes equal v: a bus that reads all 0x00 or 0xFF has no chip. */
bool
baro_all_bytes(const uint8_t *b, size_t n, uint8_t v);

/* Read a chip's calibration block (len bytes from reg) into raw: a
 * negative errno from the bus, or -EIO when it is blank (all 0x00 or all
 * 0xFF: a chip whose NVM did not load, or none at all). */
int
baro_read_calibration(struct baro_dev *dev, uint8_t reg, uint8_t *raw,
		      size_t len, char *err, size_t errlen);

/* Select addr and read its id register.  Nobody answering (NACK, ENXIO,
 * EIO) is -ENODEV, so a scan moves on; EBUSY and the rest pass through. */
int
baro_probe_id(struct baro_bus *bus, uint8_t addr, uint8_t reg, uint8_t *id,
	      char *err, size_t errlen);

/* fini for drivers whose state is one malloc'd priv. */
void
baro_dev_free_priv(struct baro_dev *dev);

/*
 * The common end of every driver's read: refuse a physically implausible
 * reading (outside 25..125 kPa or -45..90 degC, NaN included) with
 * -ERANGE and a message naming the bus and address, else fill out as a
 * healthy sample with temperature.  One set of limits for every chip.
 */
#define BARO_PLAUSIBLE_PA_MIN 25000.0
#define BARO_PLAUSIBLE_PA_MAX 125000.0
#define BARO_PLAUSIBLE_C_MIN -45.0
#define BARO_PLAUSIBLE_C_MAX 90.0

int
baro_dev_sample(const struct baro_dev *dev, uint64_t now_us, double pa,
		double c, struct baro_sample *out, char *err, size_t errlen);

/* Every driver, NULL-terminated (driver.c).  Each is declared in its
 * family's header, so a new family leaves this file alone. */
extern const struct baro_driver *const baro_drivers[];

const struct baro_driver *baro_driver_find(const char *name);

/* Can drv's chips give cfg's data-ready pin?  0, or -EOPNOTSUPP with a
 * message naming what (the chip's name, or the driver's when what is
 * NULL) and the setting it lacks. */
int baro_drdy_check(const struct baro_driver *drv, const char *what,
		    const struct baro_sensor_config *cfg, char *err,
		    size_t errlen);

/* probe + init: dev is ready to start/read on success.  A data-ready
 * setting the chip found cannot give is -EOPNOTSUPP, before any write. */
int baro_dev_open(struct baro_dev *dev, const struct baro_driver *drv,
		  struct baro_bus *bus, uint8_t addr,
		  const struct baro_sensor_config *cfg, char *err,
		  size_t errlen);
void baro_dev_close(struct baro_dev *dev);

/* Oversampling as a register code: 1 -> 0, 2 -> 1, 4 -> 2, ... capped at
 * max_code; 0 (default) gives def_code.  Non-powers of two round down. */
unsigned baro_osr_code(unsigned osr, unsigned def_code, unsigned max_code);

#endif
