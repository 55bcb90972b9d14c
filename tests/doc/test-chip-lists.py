#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""
test-chip-lists.py [--self-test] SOURCE_ROOT LIST_CHIPS

Every list of chips or drivers in the docs, the man pages, the sample
configuration and the package description follows what
sensors/driver.c registers: LIST_CHIPS (tests/sensors/list-chips.c,
linked with the drivers) prints the registry.

Most lists are generated (doc/gen-chip-lists.py, run as `ninja -C
build gen-docs`): a region that differs from what the generator writes
fails, named by file and line.  The lists whose rows hold facts the
registry has not (doc/hardware.md's per-chip table: addresses, pins,
example settings; sensors/README.md's data-ready registers and
conversion-time formulas; doc/design.md's row per family) are written by
hand, read out of their files and compared with the registry both ways;
a failure names the file, the line, the list and what is missing or
extra, so a new chip's rows are found by running this test.

Chips are words such as BMP390 or SPL06-001 (a suffix after a dash is
the package's, dropped); drivers are lower-case names such as bmp388.
Write every chip name whole ("BMP388, BMP390", never "BMP388/390"): an
abbreviation is not read, and shows as a chip missing.

--self-test runs the checks against a registry with one chip taken away
and one driver added, and fails unless every generated region is stale
and every hand-written list reports both.
"""
import importlib.util
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from doclists import (Checker as ListChecker, Page,  # noqa: E402
                      arguments, verdict)


def generator(root):
    """doc/gen-chip-lists.py as a module: its registry and regions."""
    spec = importlib.util.spec_from_file_location(
        "gen_chip_lists", os.path.join(root, "doc", "gen-chip-lists.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


CHIP = re.compile(r"\b[A-Z]{2,}[0-9][0-9A-Z]*(?:-[0-9]+)?\b")
DRIVER = re.compile(r"[*`]([a-z]+[0-9][a-z0-9]*)[*`]")


def chips_in(text):
    return {re.sub(r"-[0-9]+$", "", m) for m in CHIP.findall(text)}


class Checker(ListChecker):
    def __init__(self, reg):
        super().__init__()
        self.reg = reg


def check(root, reg, gen):
    c = Checker(reg)
    all_chips, drivers = reg.chips(), reg.drivers()
    pins = reg.chips(pin=True)

    def run(label, fn):
        try:
            fn()
        except (LookupError, ValueError) as e:
            c.errors.append("%s: cannot read the list: %s" % (label, e))

    # The generated lists: each region as the generator would write it.
    _, stale, unread = gen.generate(root, reg)
    c.errors += unread + [gen.stale_message(*s) for s in stale]

    hw = Page(root, "doc/hardware.md")

    def hw_table():
        rows = hw.table(r"^\| chip \| driver \|")
        seen_chips, seen_drivers = set(), set()
        for line, cells in rows:
            where = "%s:%d" % (hw.path, line)
            chips = chips_in(cells[0])
            named = re.findall(r"`([a-z]+[0-9][a-z0-9]*)`", cells[1])
            seen_chips |= chips
            if not named:
                c.errors.append("%s (per chip table): no driver" % where)
                continue
            seen_drivers.add(named[0])
            if named[0] not in drivers:
                continue    # reported as extra below
            strangers = sorted(chips - reg.chips(driver=named[0]))
            if strangers:
                c.errors.append("%s (per chip table): %s not a chip of "
                                "the %s driver" % (where,
                                                   ", ".join(strangers),
                                                   named[0]))
            if (cells[3] != "none") != reg.has_pin(named[0]):
                c.errors.append("%s (per chip table): data-ready %r, but "
                                "the %s driver %s" % (
                                    where, cells[3], named[0],
                                    "has a pin" if reg.has_pin(named[0])
                                    else "has none"))
        where = "%s:%d" % (hw.path, rows[0][0] if rows else 0)
        c.same(where, "per chip table: chips", seen_chips, all_chips)
        c.same(where, "per chip table: drivers", seen_drivers, drivers)

    run(hw.path, hw_table)

    readme = Page(root, "sensors/README.md")

    def readme_table(header, what, want):
        rows = readme.table(header)
        found = set()
        for _, cells in rows:
            found |= chips_in(cells[0])
        c.same("%s:%d" % (readme.path, rows[0][0] if rows else 0), what,
               found, want)

    run(readme.path, lambda: readme_table(
        r"^\| chip \| registers barod writes for data-ready",
        "data-ready registers table", pins))
    run(readme.path, lambda: readme_table(
        r"^\| chip \| maximum per conversion", "conversion time table",
        all_chips))

    design = Page(root, "doc/design.md")

    def design_rows():
        rows = design.table(r"^\| concern \| place \| why there \|")
        found, first = set(), 0
        for line, cells in rows:
            # A chip family's row: its driver file and header.
            if re.fullmatch(r"`sensors/([a-z0-9]+)\.c`, `\1\.h`", cells[1]):
                found |= chips_in(cells[0])
                first = first or line
        c.same("%s:%d" % (design.path, first),
               "a row per family in 'Where each concern lives'", found,
               all_chips)

    run(design.path, design_rows)
    return c.errors


def main(argv):
    self_test, (root, lister) = arguments(argv, 2, __doc__)
    gen = generator(root)
    reg = gen.registry(lister)
    if not self_test:
        return verdict(argv[0], check(root, reg, gen),
                       "%d registered chips (%d drivers)"
                       % (len(reg.rows), len(reg.drivers())))

    # A registry with LPS22HH and BME280 gone and a new driver bmp581 (a
    # chip with a pin): every generated region must be stale; every
    # hand-written list must miss BMP581 (or bmp581) and call LPS22HH
    # extra.
    rows = [r for r in reg.rows if r[1] not in ("LPS22HH", "BME280")]
    rows.append(("bmp581", "BMP581", "-", "scan", "drdy", "-"))
    fake = gen.Registry([" ".join(r) for r in rows])
    errors = check(root, fake, gen)
    for e in errors:
        print("as expected: " + e)
    bad = 0
    for region in gen.REGIONS:
        if not any(e.startswith(region.path + ":") and
                   "the chip list (%s) is not what" % region.what in e
                   for e in errors):
            print("self-test: the generated %s (%s) did not differ" % (
                region.what, region.path))
            bad += 1
    lists = ["per chip table: chips", "per chip table: drivers",
             "data-ready registers table", "conversion time table",
             "a row per family in 'Where each concern lives'"]
    for what in lists:
        hits = [e for e in errors if "(" + what + ")" in e]
        if not hits or not all("missing bmp581" in e or "missing BMP581"
                               in e for e in hits):
            print("self-test: list %r did not report the new chip" % what)
            bad += 1
    for what in [w for w in lists if w != "per chip table: drivers"]:
        if not any("(" + what + ")" in e and
                   re.search(r"extra .*\bLPS22HH\b", e) for e in errors):
            print("self-test: list %r did not report LPS22HH as extra" % what)
            bad += 1
    print("self-test: %s" % ("ok" if bad == 0 else "%d failures" % bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
