/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The registry as text, for doc/gen-chip-lists.py (which writes the
 * docs' chip lists from it) and tests/doc/test-chip-lists.py (which
 * checks them): the lists follow what barod is built with, not a copy.
 * One line per registered (driver, chip):
 *
 *   DRIVER CHIP ALSO SCAN PIN FINDS
 *
 * ALSO: the other parts that probe the same ("-" for none); SCAN: "scan"
 * when a scan of the bus runs the driver, "name" when only naming it in
 * [sensor] does; PIN: "drdy" when the chips have a data-ready pin,
 * "nodrdy" when not; FINDS: for a chip only naming its driver finds, the
 * chip a scan of the bus takes it for ("-" for the others).
 */
#include <stdio.h>

#include "driver.h"

int
main(void)
{
	for (size_t d = 0; baro_drivers[d] != NULL; d++) {
		const struct baro_driver *drv = baro_drivers[d];

		if (drv->n_chips == 0) {
			fprintf(stderr, "list-chips: driver %s has no chips "
				"table\n", drv->name);
			return 1;
		}
		for (size_t c = 0; c < drv->n_chips; c++) {
			const struct baro_chip *chip = &drv->chips[c];

			printf("%s %s %s %s %s %s\n", drv->name, chip->name,
			       chip->also ? chip->also : "-",
			       drv->n_addrs > 0 ? "scan" : "name",
			       drv->drdy_caps & BARO_DRDY_CAP_PIN ? "drdy" :
								    "nodrdy",
			       chip->scan_finds ? chip->scan_finds : "-");
		}
	}
	return 0;
}
