/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * One I2C device as seen through Linux i2c-dev and libi2c.
 *
 * Every call returns 0 (or a byte count) or a negative errno, and on error
 * writes a message naming the bus node and the 7-bit address into the
 * caller's buffer, so a log line says which sensor failed without the
 * caller repeating it.
 */
#ifndef BAROD_SENSORS_BUS_H
#define BAROD_SENSORS_BUS_H

#include <stddef.h>
#include <stdint.h>

#define BARO_BUS_PATH_MAX 64

struct baro_bus {
	int fd;			/* -1 when closed */
	uint8_t addr;		/* selected 7-bit address, 0 = none yet */
	char path[BARO_BUS_PATH_MAX];
};

/* "/dev/i2c-N" for bus number n. */
void baro_bus_path(unsigned n, char *path, size_t len);

/* Opens the i2c-dev node (any path, so tests can point elsewhere). */
int baro_bus_open(struct baro_bus *bus, const char *path, char *err,
		  size_t errlen);
void baro_bus_close(struct baro_bus *bus);

/* Addresses the following transfers to addr.  -EBUSY when a kernel
 * driver owns that address. */
int baro_bus_select(struct baro_bus *bus, uint8_t addr, char *err,
		    size_t errlen);

int baro_bus_read_reg(struct baro_bus *bus, uint8_t reg, uint8_t *val,
		      char *err, size_t errlen);
int baro_bus_write_reg(struct baro_bus *bus, uint8_t reg, uint8_t val,
		       char *err, size_t errlen);

/* Sends one command byte (SMBus "send byte"), for command-based chips
 * (MS56xx reset and conversions). */
int baro_bus_command(struct baro_bus *bus, uint8_t cmd, char *err,
		     size_t errlen);

/* Reads len bytes from consecutive registers starting at reg (the chip
 * auto-increments); transfers of more than 32 bytes are split. */
int baro_bus_read_block(struct baro_bus *bus, uint8_t reg, uint8_t *buf,
			size_t len, char *err, size_t errlen);

#endif
