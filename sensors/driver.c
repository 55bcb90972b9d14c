/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The registry and the steps every driver shares. */
#include <stdlib.h>
#include <time.h>
#include <stdio.h>

#include "driver.h"

/* Each family's header declares its drivers. */
#include "bmp280.h"
#include "bmp388.h"
#include "dps310.h"
#include "lps22.h"
#include "ms5611.h"

#include <errno.h>
#include <string.h>

const struct baro_driver *const baro_drivers[] = {
	&baro_driver_bmp280,
	&baro_driver_bmp388,
	&baro_driver_ms5611,
	&baro_driver_ms5607,
	&baro_driver_dps310,
	&baro_driver_spl06,
	&baro_driver_lps22,
	NULL,
};

const struct baro_driver *
baro_driver_find(const char *name)
{
	for (size_t i = 0; baro_drivers[i] != NULL; i++)
		if (strcmp(baro_drivers[i]->name, name) == 0)
			return baro_drivers[i];
	return NULL;
}

const char *
baro_variant_name(const struct baro_driver *drv, int variant)
{
	for (size_t i = 0; i < drv->n_chips; i++)
		if (drv->chips[i].variant == variant)
			return drv->chips[i].name;
	return "?";
}

int
baro_chip_by_id(const struct baro_driver *drv, const struct baro_bus *bus,
		uint8_t addr, uint8_t id, char *err, size_t errlen)
{
	char names[64] = "";

	for (size_t i = 0; i < drv->n_chips; i++) {
		if (drv->chips[i].id == id)
			return drv->chips[i].variant;
		size_t n = strlen(names);
		snprintf(names + n, sizeof(names) - n, "%s%s", n ? "/" : "",
			 drv->chips[i].name);
	}
	snprintf(err, errlen, "%s 0x%02x: chip id 0x%02x, none of %s's",
		 bus->path, addr, id, names);
	return -ENODEV;
}

int
baro_dev_open(struct baro_dev *dev, const struct baro_driver *drv,
	      struct baro_bus *bus, uint8_t addr,
	      const struct baro_sensor_config *cfg, char *err, size_t errlen)
{
	uint8_t instance = dev->instance;

	memset(dev, 0, sizeof(*dev));
	dev->drv = drv;
	dev->bus = bus;
	dev->addr = addr;
	dev->instance = instance;

	int ret = drv->probe(bus, addr, err, errlen);
	if (ret < 0)
		return ret;
	dev->variant = ret;
	char what[BARO_BUS_PATH_MAX + 48];
	snprintf(what, sizeof(what), "%s %s 0x%02x", baro_variant_name(drv, ret),
		 bus->path, addr);
	if ((ret = baro_drdy_check(drv, what, cfg, err, errlen)) < 0)
		return ret;
	ret = drv->init(dev, cfg, err, errlen);
	if (ret < 0)
		baro_dev_close(dev);
	return ret;
}

int
baro_drdy_check(const struct baro_driver *drv, const char *what,
		const struct baro_sensor_config *cfg, char *err, size_t errlen)
{
	char name[64];

	if (what == NULL) {
		snprintf(name, sizeof(name), "the %s driver's chips", drv->name);
		what = name;
	}
	if (cfg->drdy == BARO_DRDY_OFF)
		return 0;
	if (!(drv->drdy_caps & BARO_DRDY_CAP_PIN)) {
		snprintf(err, errlen, "%s: no data-ready pin, so drdy cannot "
			 "work (leave it out: barod then reads on a timer)",
			 what);
		return -EOPNOTSUPP;
	}
	if (cfg->drdy_open_drain && !(drv->drdy_caps & BARO_DRDY_CAP_OPEN_DRAIN)) {
		snprintf(err, errlen, "%s: the interrupt pin is push-pull only "
			 "(drdy_drive = open-drain cannot be set)", what);
		return -EOPNOTSUPP;
	}
	return 0;
}

void
baro_dev_close(struct baro_dev *dev)
{
	if (dev->drv != NULL && dev->drv->fini != NULL)
		dev->drv->fini(dev);
	dev->priv = NULL;
}

unsigned
baro_osr_code(unsigned osr, unsigned def_code, unsigned max_code)
{
	unsigned code = 0;

	if (osr == 0)
		return def_code;
	while (osr > 1 && code < max_code) {
		osr >>= 1;
		code++;
	}
	return code;
}

int
baro_dev_sample(const struct baro_dev *dev, uint64_t now_us, double pa,
		double c, struct baro_sample *out, char *err, size_t errlen)
{
	/* Written so that NaN fails too. */
	if (!(pa >= BARO_PLAUSIBLE_PA_MIN && pa <= BARO_PLAUSIBLE_PA_MAX &&
	      c >= BARO_PLAUSIBLE_C_MIN && c <= BARO_PLAUSIBLE_C_MAX)) {
		snprintf(err, errlen, "%s 0x%02x: implausible %.2f Pa %.2f degC",
			 dev->bus->path, dev->addr, pa, c);
		return -ERANGE;
	}
	*out = (struct baro_sample){
		.time_us = now_us,
		.instance = dev->instance,
		.flags = BARO_SAMPLE_HEALTHY | BARO_SAMPLE_HAS_TEMPERATURE,
		.pressure_pa = (float)pa,
		.temperature_c = (float)c,
	};
	return 0;
}

void
baro_sleep_us(uint32_t us)
{
	struct timespec ts = {
		.tv_sec = us / 1000000,
		.tv_nsec = (long)(us % 1000000) * 1000,
	};

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

uint32_t
baro_ready_us(uint32_t max_us)
{
	uint32_t margin = max_us / 10;

	if (margin < BARO_READY_MARGIN_MIN_US)
		margin = BARO_READY_MARGIN_MIN_US;
	return max_us + margin;
}

bool
baro_all_bytes(const uint8_t *b, size_t n, uint8_t v)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != v)
			return false;
	return true;
}

int
baro_read_calibration(struct baro_dev *dev, uint8_t reg, uint8_t *raw,
		      size_t len, char *err, size_t errlen)
{
	int ret = baro_bus_read_block(dev->bus, reg, raw, len, err, errlen);

	if (ret < 0)
		return ret;
	if (baro_all_bytes(raw, len, 0x00) || baro_all_bytes(raw, len, 0xff)) {
		snprintf(err, errlen, "%s 0x%02x: calibration data is blank",
			 dev->bus->path, dev->addr);
		return -EIO;
	}
	return 0;
}

int
baro_probe_id(struct baro_bus *bus, uint8_t addr, uint8_t reg, uint8_t *id,
	      char *err, size_t errlen)
{
	int ret = baro_bus_select(bus, addr, err, errlen);

	if (ret < 0)
		return ret;
	ret = baro_bus_read_reg(bus, reg, id, err, errlen);
	if (ret == -EREMOTEIO || ret == -ENXIO || ret == -EIO)
		return -ENODEV;
	return ret < 0 ? ret : 0;
}

void
baro_dev_free_priv(struct baro_dev *dev)
{
	free(dev->priv);
	dev->priv = NULL;
}
