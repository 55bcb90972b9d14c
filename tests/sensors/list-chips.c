/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The registry as text, for tests/doc/test-chip-lists.py: the docs' chip
 * lists are checked against what barod is built with, not against a copy.
 * One line per registered (driver, chip):
 *
 *   DRIVER CHIP ALSO SCAN PIN
 *
 * ALSO: the other parts that probe the same ("-" for none); SCAN: "scan"
 * when a scan of the bus runs the driver, "name" when only naming it in
 * [sensor] does; PIN: "drdy" when the chips have a data-ready pin,
 * "nodrdy" when not.
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
		for (size_t c = 0; c < drv->n_chips; c++)
			printf("%s %s %s %s %s\n", drv->name, drv->chips[c].name,
			       drv->chips[c].also ? drv->chips[c].also : "-",
			       drv->n_addrs > 0 ? "scan" : "name",
			       drv->drdy_caps & BARO_DRDY_CAP_PIN ? "drdy" :
								    "nodrdy");
	}
	return 0;
}
