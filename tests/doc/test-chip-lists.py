#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""
test-chip-lists.py [--self-test] SOURCE_ROOT LIST_CHIPS

Every list of chips or drivers in the docs, the man page and the sample
configuration names exactly what sensors/driver.c registers: LIST_CHIPS
(tests/sensors/list-chips.c, linked with the drivers) prints the
registry, and each list below is read out of its file and compared, both
ways.  A failure names the file, the line, the list and what is missing
or extra, so a new chip's doc rows are found by running this test.

Chips are words such as BMP390 or SPL06-001 (a suffix after a dash is
the package's, dropped); drivers are lower-case names such as bmp388.
Write every chip name whole ("BMP388, BMP390", never "BMP388/390"): an
abbreviation is not read, and shows as a chip missing.

--self-test runs the checks against a registry with one chip taken away
and one driver added, and fails unless every list reports both.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from doclists import Checker as ListChecker, Page, between  # noqa: E402

CHIP = re.compile(r"\b[A-Z]{2,}[0-9][0-9A-Z]*(?:-[0-9]+)?\b")
DRIVER = re.compile(r"[*`]([a-z]+[0-9][a-z0-9]*)[*`]")


class Registry:
    """What list-chips printed: (driver, chip, also, scan, pin) rows."""

    def __init__(self, lines):
        self.rows = [tuple(line.split()) for line in lines if line.strip()]
        for r in self.rows:
            if len(r) != 5:
                raise SystemExit("list-chips: bad line: %r" % (r,))

    def names(self, row):
        return {row[1]} | ({row[2]} if row[2] != "-" else set())

    def drivers(self):
        return {r[0] for r in self.rows}

    def chips(self, pin=None, driver=None):
        out = set()
        for r in self.rows:
            if pin is not None and (r[4] == "drdy") != pin:
                continue
            if driver is not None and r[0] != driver:
                continue
            out |= self.names(r)
        return out

    def has_pin(self, driver):
        return any(r[4] == "drdy" for r in self.rows if r[0] == driver)


def chips_in(text):
    return {re.sub(r"-[0-9]+$", "", m) for m in CHIP.findall(text)}


def drivers_in(text):
    return set(DRIVER.findall(text))



class Checker(ListChecker):
    def __init__(self, reg):
        super().__init__()
        self.reg = reg


def check(root, reg):
    c = Checker(reg)
    all_chips, drivers = reg.chips(), reg.drivers()
    pins, nopins = reg.chips(pin=True), reg.chips(pin=False)

    def run(label, fn):
        try:
            fn()
        except (LookupError, ValueError) as e:
            c.errors.append("%s: cannot read the list: %s" % (label, e))

    man = Page(root, "doc/barod.conf.5.scd")

    def man_driver():
        i = man.find(r"^\*driver\* = ")
        text = man.paragraph(i + 1)
        where = "%s:%d" % (man.path, i + 2)
        c.same(where, "driver = NAME: drivers", drivers_in(text), drivers)
        c.same(where, "driver = NAME: chips", chips_in(text), all_chips)

    def man_drdy():
        i = man.find(r"^\*drdy\* = ")
        text = man.paragraph(i + 1)
        where = "%s:%d" % (man.path, i + 2)
        c.same(where, "drdy: chips with a pin",
               chips_in(between(text, "interrupt pin take it (")), pins)
        if "for the others (" not in text:
            raise LookupError("%s: no \"for the others (\" in the drdy "
                              "paragraph" % where)
        c.same(where, "drdy: chips without",
               chips_in(between(text, "for the others (")), nopins)

    run(man.path, man_driver)
    run(man.path, man_drdy)

    # Where barod(8) and the package's description say what it reads.
    for path, start in (("doc/barod.8.scd", "barod's own drivers"),
                        ("debian/control", "barod reads I2C barometers")):
        page = Page(root, path)

        def intro(page=page, start=start):
            i = page.find(re.escape(start))
            text = " ".join(page.lines[i:i + 4])
            c.same("%s:%d" % (page.path, i + 1), "the chips barod reads",
                   chips_in(between(text, start)), all_chips)

        run(path, intro)

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

    def readme_intro():
        i = readme.find(r"per barometer family \(")
        text = readme.paragraph(i)
        c.same("%s:%d" % (readme.path, i + 1), "the families",
               chips_in(between(text, "per barometer family (")), all_chips)

    def readme_table(header, what, want):
        rows = readme.table(header)
        found = set()
        for _, cells in rows:
            found |= chips_in(cells[0])
        c.same("%s:%d" % (readme.path, rows[0][0] if rows else 0), what,
               found, want)

    run(readme.path, readme_intro)
    run(readme.path, lambda: readme_table(
        r"^\| chip \| registers barod writes for data-ready",
        "data-ready registers table", pins))
    run(readme.path, lambda: readme_table(
        r"^\| chip \| maximum per conversion", "conversion time table",
        all_chips))

    conf = Page(root, "src/daemon/config/barod.conf")

    def conf_comment(i):
        """Comment lines i.. while they stay comments, joined."""
        j = i
        while j < len(conf.lines) and conf.lines[j].startswith("# "):
            j += 1
        return " ".join(l[2:] for l in conf.lines[i:j])

    def conf_driver():
        i = conf.find(r"^# driver: ")
        text = between(conf_comment(i), "driver: ", ";")
        c.same("%s:%d" % (conf.path, i + 1), "driver: drivers",
               set(re.findall(r"[a-z]+[0-9][a-z0-9]*", text)), drivers)

    def conf_drdy():
        i = conf.find(r"^# drdy needs a chip with an interrupt pin")
        c.same("%s:%d" % (conf.path, i + 1), "drdy: chips with a pin",
               chips_in(between(conf_comment(i), "interrupt pin (")), pins)

    run(conf.path, conf_driver)
    run(conf.path, conf_drdy)

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
    self_test = argv[1:2] == ["--self-test"]
    if self_test:
        argv = argv[1:]
    if len(argv) != 3:
        raise SystemExit(__doc__)
    root, lister = argv[1], argv[2]
    out = subprocess.run([lister], check=True, capture_output=True,
                         text=True).stdout
    reg = Registry(out.split("\n"))
    if not self_test:
        errors = check(root, reg)
        for e in errors:
            print(e)
        n = len(reg.rows)
        print("%s: %d registered chips (%d drivers); %s" % (
            argv[0].rsplit("/", 1)[-1], n, len(reg.drivers()),
            "%d lists disagree" % len(errors) if errors else
            "every list agrees"))
        return 1 if errors else 0

    # A registry with LPS22HH and BME280 gone and a new driver bmp581 (a
    # chip with a pin): every list that names chips with a pin must miss
    # BMP581, and call LPS22HH extra; lists of drivers miss bmp581; the
    # list of chips without a pin calls BME280 extra.
    rows = [r for r in reg.rows if r[1] not in ("LPS22HH", "BME280")]
    rows.append(("bmp581", "BMP581", "-", "scan", "drdy"))
    fake = Registry([" ".join(r) for r in rows])
    errors = check(root, fake)
    for e in errors:
        print("as expected: " + e)
    lists = ["driver = NAME: drivers", "driver = NAME: chips",
             "drdy: chips with a pin", "per chip table: chips",
             "per chip table: drivers", "the families",
             "data-ready registers table", "conversion time table",
             "driver: drivers", "the chips barod reads",
             "a row per family in 'Where each concern lives'"]
    bad = 0
    for what in lists:
        hits = [e for e in errors if "(" + what + ")" in e]
        if not hits or not all("missing bmp581" in e or "missing BMP581"
                               in e for e in hits):
            print("self-test: list %r did not report the new chip" % what)
            bad += 1
    for what in ["driver = NAME: chips", "drdy: chips with a pin",
                 "per chip table: chips", "the families",
                 "data-ready registers table", "conversion time table",
                 "the chips barod reads", "a row per family in 'Where each concern lives'"]:
        if not any("(" + what + ")" in e and
                   re.search(r"extra .*\bLPS22HH\b", e) for e in errors):
            print("self-test: list %r did not report LPS22HH as extra" % what)
            bad += 1
    if not any("(drdy: chips without)" in e and
               re.search(r"extra .*\bBME280\b", e) for e in errors):
        print("self-test: list 'drdy: chips without' did not report "
              "BME280 as extra")
        bad += 1
    print("self-test: %s" % ("ok" if bad == 0 else "%d failures" % bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
