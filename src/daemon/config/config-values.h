/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The value rules of barod's configuration, each written once: the
 * option table's rows (options-values.c), the output specs (config.c)
 * and the domain code (daemon-probe.c) all parse through these.  A leaf:
 * it includes no other header of the daemon, so anything may use it.
 * 0 or -EINVAL; *out is left alone on error.
 */
#ifndef BAROD_CONFIG_VALUES_H
#define BAROD_CONFIG_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "driver.h"	/* BARO_MAX_INSTANCES, baro_bus_path */

/* An unsigned decimal in lo..hi. */
int config_parse_uint(const char *v, unsigned long lo, unsigned long hi,
		      unsigned long *out);

/* [px4] speed_factor, PX4_SIM_SPEED_FACTOR: 0 (unpaced) or MIN..MAX. */
#define CONFIG_PX4_SPEED_MIN 0.01
#define CONFIG_PX4_SPEED_MAX 1000.0
int config_parse_speed_factor(const char *text, double *out);

/* rng_N's value: a baro instance 0..2, or none (-1). */
int config_parse_rng(const char *value, int *out);

/* The highest MSP instance ArduPilot takes (AP_Baro::handle_msp). */
#define CONFIG_MSP_INSTANCE_MAX 7

/*
 * An MSP output's instances = all, or a list of B or B=M: barod instance
 * B (0..2) sent as MSP instance M (0..7, default B), map[B] = M, -1 for
 * the others.  Each B and each M at most once: ArduPilot would average
 * two baros given one MSP instance.  The reason in err.
 */
int config_parse_msp_instances(const char *value,
			       int8_t map[BARO_MAX_INSTANCES], char *err,
			       size_t errlen);

/* A bus as the configuration names it: N (for /dev/i2c-N) or a path. */
int config_parse_bus(const char *value, char *path, size_t len);

/* A 7-bit I2C address outside the reserved ranges: 0x76 or 118. */
int config_parse_i2c_address(const char *v, uint8_t *out);

/* A serial line's rate: one of 9600 ... 921600. */
int config_parse_baud(const char *v, unsigned *out);

/* HOST:PORT, with [v6]:PORT for IPv6 literals; port 1..65535. */
int config_check_address(const char *a);

/* HOST of HOST:PORT is the unspecified address (0.0.0.0, ::): a place
 * to listen on, never one to send to. */
bool config_address_unspecified(const char *a);

/* The shortest of %.15g and %.17g that reads back as v. */
void config_format_double(double v, char *buf, size_t len);

#endif
