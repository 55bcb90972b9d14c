/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * barod --probe [BUS] [--write FILE]: the chips on the I2C buses and the
 * kernel's IIO pressure devices, written as a barod.conf for the
 * hardware source (hardware-probe.c says how FILE is replaced).
 */
#ifndef BAROD_HARDWARE_PROBE_H
#define BAROD_HARDWARE_PROBE_H

#include <stdio.h>

/* 0 when chips were found (and FILE written), 1 when none were (FILE
 * left as it was) or the named bus cannot be opened or FILE written, 2
 * for a bad BUS. */
int daemon_probe(const char *bus, const char *write_path, FILE *out,
		 FILE *errs);

#endif
