/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "emu.h"

#include <errno.h>
#include <string.h>

void
emu_chip_init(struct emu_chip *chip, uint8_t addr)
{
	memset(chip, 0, sizeof(*chip));
	chip->addr = addr;
	chip->nack_errno = EREMOTEIO;
}

/* The faults common to every transfer, counted as one transfer. */
static int
transfer_fault(struct emu_chip *chip)
{
	chip->transfers++;
	if (chip->on_transfer != NULL)
		chip->on_transfer(chip);
	if (chip->unplugged)
		return -chip->nack_errno;
	if (chip->nack_after > 0 && --chip->nack_after == 0)
		return -chip->nack_errno;
	if (chip->on_time != NULL)
		chip->on_time(chip);
	return 0;
}

uint32_t
emu_chip_duration(const struct emu_chip *chip, uint32_t max_us,
		  uint32_t typ_us)
{
	switch (chip->timing) {
	case EMU_TIMING_TYPICAL:
		return typ_us;
	case EMU_TIMING_INSTANT:
		return 0;
	default:
		return max_us;
	}
}

int
emu_chip_read(struct emu_chip *chip, uint8_t reg, uint8_t *buf, size_t len)
{
	int ret = transfer_fault(chip);

	if (ret < 0)
		return ret;
	if (chip->on_read != NULL)
		chip->on_read(chip, reg, len);
	for (size_t i = 0; i < len; i++)
		buf[i] = chip->stuck_high ? 0xff : chip->regs[(reg + i) & 0xff];
	chip->ptr = (uint8_t)(reg + len);
	if (chip->after_read != NULL && !chip->stuck_high)
		chip->after_read(chip, reg, len);
	return 0;
}

static void
set_level(struct emu_chip *chip, bool level, uint32_t after_us)
{
	if (chip->int_level == level)
		return;
	chip->int_level = level;
	if (chip->on_int != NULL)
		chip->on_int(chip, level, after_us);
}

void
emu_chip_int(struct emu_chip *chip, bool active, bool active_high)
{
	if (active && chip->int_level != active_high)
		chip->int_asserts++;
	set_level(chip, active == active_high, 0);
}

void
emu_chip_int_pulse(struct emu_chip *chip, bool active_high, uint32_t pulse_us)
{
	emu_chip_int(chip, true, active_high);
	set_level(chip, !active_high, pulse_us);
}

bool
emu_read_covers(uint8_t reg, size_t len, uint8_t r)
{
	return (uint8_t)(r - reg) < len;
}

int
emu_chip_write(struct emu_chip *chip, uint8_t reg, const uint8_t *buf,
	       size_t len)
{
	int ret = transfer_fault(chip);

	if (ret < 0)
		return ret;
	if (len == 0 && chip->on_command != NULL)
		chip->on_command(chip, reg);
	for (size_t i = 0; i < len; i++) {
		uint8_t r = (uint8_t)(reg + i);

		if (chip->on_write != NULL)
			chip->on_write(chip, r, buf[i]);
		else
			chip->regs[r] = buf[i];
	}
	chip->ptr = (uint8_t)(reg + len);
	return 0;
}
