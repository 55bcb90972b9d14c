/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A chip on an emulated I2C bus: a 256-byte register file with an
 * auto-incrementing pointer, the chip's own behaviour as a write hook, and
 * the faults a real bus shows.  Plain C with no I/O, so the same chips can
 * sit behind umockdev or any other fake bus.
 */
#ifndef BAROD_TESTS_EMU_H
#define BAROD_TESTS_EMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How long a chip's conversions take.  The datasheet's maximum is the
 * default, so a driver that reads before a conversion may have finished
 * gets what the chip gives then (MS56xx: 0 and the conversion lost;
 * register chips: the previous data, ready bits clear).  Instant is for
 * tests of registers and arithmetic that call start and read back to
 * back. */
enum emu_timing {
	EMU_TIMING_MAX,
	EMU_TIMING_TYPICAL,
	EMU_TIMING_INSTANT,
};

struct emu_chip {
	uint8_t addr;
	uint8_t regs[256];
	uint8_t ptr;		/* register pointer for plain I2C reads */
	/* A register write, in the chip's terms (read-only registers,
	 * resets, conversions); NULL: plain memory. */
	void (*on_write)(struct emu_chip *chip, uint8_t reg, uint8_t val);
	/* A write of the command (register) byte alone, as command-based
	 * chips take reset and conversion commands; NULL: sets the pointer
	 * only. */
	void (*on_command)(struct emu_chip *chip, uint8_t cmd);
	/* Before len bytes are read from reg: registers whose value depends
	 * on being read (ADC results, flags cleared by reading); NULL:
	 * plain memory. */
	void (*on_read)(struct emu_chip *chip, uint8_t reg, size_t len);
	/* After len bytes were read from reg: flags cleared by reading
	 * (INT_STATUS, data-ready); NULL: nothing. */
	void (*after_read)(struct emu_chip *chip, uint8_t reg, size_t len);

	/* The INT/DRDY pin as on the wire (true = high) and who watches
	 * it: on_int runs on every change of level, which happens after_us
	 * from now (the end of a pulse; 0 for now).  Chips drive it through
	 * emu_chip_int*; a test wires it to a GPIO line. */
	bool int_level;
	void (*on_int)(struct emu_chip *chip, bool level, uint32_t after_us);
	void *user;		/* the test's, for its hooks */
	unsigned int_asserts;	/* times the pin went active */

	/* Before every transfer, faults included: a test's view of the
	 * world the chip sits in (its supply, say); NULL: none. */
	void (*on_transfer)(struct emu_chip *chip);

	/* Time: the bus host sets now_us (CLOCK_MONOTONIC, us) before each
	 * transfer, and on_time, when set, lets the chip finish what
	 * finished by then before the transfer is served.  The chip has no
	 * clock of its own, so a data-ready pin rises when the chip is next
	 * looked at after its conversion ended, not at that moment. */
	uint64_t now_us;
	enum emu_timing timing;
	void (*on_time)(struct emu_chip *chip);
	unsigned early_reads;	/* results read before they were ready */

	/* Faults.  nack_errno is what a NACK looks like to userspace:
	 * EREMOTEIO on the Pi's bcm2835, ENXIO on other adapters. */
	bool unplugged;		/* every transfer NACKs */
	bool kernel_owned;	/* I2C_SLAVE answers EBUSY */
	bool stuck_high;	/* reads return 0xff (SDA held high) */
	unsigned nack_after;	/* >0: transfer number nack_after from now
				 * NACKs, once */
	int nack_errno;

	unsigned transfers;	/* transfers served, for tests */
};

void emu_chip_init(struct emu_chip *chip, uint8_t addr);

/* The pin active or not at a polarity (the level follows; on_int sees a
 * change only).  A pulse is active now and inactive pulse_us later. */
void emu_chip_int(struct emu_chip *chip, bool active, bool active_high);
void emu_chip_int_pulse(struct emu_chip *chip, bool active_high,
			uint32_t pulse_us);

/* A conversion's duration at the chip's timing: max_us, typ_us, or 0. */
uint32_t emu_chip_duration(const struct emu_chip *chip, uint32_t max_us,
			   uint32_t typ_us);

/* Does a read of len bytes from reg include register r? */
bool emu_read_covers(uint8_t reg, size_t len, uint8_t r);

/* One transfer: 0 or a negative errno (a NACK or the chip's answer). */
int emu_chip_read(struct emu_chip *chip, uint8_t reg, uint8_t *buf,
		  size_t len);
int emu_chip_write(struct emu_chip *chip, uint8_t reg, const uint8_t *buf,
		   size_t len);

#endif
