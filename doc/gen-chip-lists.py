#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""
gen-chip-lists.py [--check] SOURCE_ROOT LIST_CHIPS

Writes the chip and driver lists of the docs, the man pages, the sample
configuration and the package description from the driver registry:
LIST_CHIPS (tests/sensors/list-chips.c, linked with the drivers) prints
it, one line per registered chip.  Run it as `ninja -C build gen-docs`
after adding or changing a chip in a driver's chips table.

Each list sits in a region the generator owns: between marker comments
(`<!-- chips:NAME -->` ... `<!-- /chips -->` in markdown, `; chips:NAME`
... `; /chips` in scdoc) or, where a comment would show or is not
allowed (the sample barod.conf, debian/control's Description), the
comment block or paragraph that starts with a fixed phrase.  Only the
list is replaced; the paragraph holding it is re-wrapped to 72 columns,
so the prose around it stays the doc's own.

--check writes nothing: it prints each region that differs from what it
would write, and exits 1 if any does (tests/doc/test-chip-lists.py).
"""
import os
import re
import subprocess
import sys
import textwrap

WIDTH = 72
GEN_COMMAND = "ninja -C build gen-docs"


class Registry:
    """What list-chips printed: (driver, chip, also, scan, pin, finds)."""

    FIELDS = 6

    def __init__(self, lines):
        self.rows = [tuple(line.split()) for line in lines if line.strip()]
        for r in self.rows:
            if len(r) != self.FIELDS:
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

    # What the generated lists are made of, in registry order.

    def driver_order(self):
        out = []
        for r in self.rows:
            if r[0] not in out:
                out.append(r[0])
        return out

    def chip_order(self, rows=None):
        """Chip names (each followed by the parts that probe the same),
        each once, where the registry first names it."""
        out = []
        for r in self.rows if rows is None else rows:
            for name in (r[1], r[2]):
                if name != "-" and name not in out:
                    out.append(name)
        return out

    def own_chips(self, driver):
        """The chips listed under driver: those no driver before it has
        (the ms5607 driver's MS5637 is the ms5611's)."""
        before = set()
        for d in self.driver_order():
            if d == driver:
                break
            before |= self.chips(driver=d)
        return [c for c in self.chip_order([r for r in self.rows
                                            if r[0] == driver])
                if c not in before]

    def twins(self):
        """(driver, chip, the chip a scan takes it for) of each chip that
        only naming its driver finds."""
        return [(r[0], r[1], r[5]) for r in self.rows if r[5] != "-"]

    def families(self):
        """Chip names per family: a driver chosen only by name joins the
        driver whose chip a scan takes its chip for."""
        owner = {}
        for r in self.rows:
            owner.setdefault(r[1], r[0])
        family = {}
        for d in self.driver_order():
            family[d] = d
        for d, _, finds in self.twins():
            if finds in owner:
                family[d] = family[owner[finds]]
        out = []
        for head in self.driver_order():
            if family[head] != head:
                continue
            rows = [r for r in self.rows if family[r[0]] == head]
            out.append(self.chip_order(rows))
        return out


def article(word):
    """"a" or "an" as the name is read out: an MS5611, a BMP280."""
    return "an" if word[:1] in "AEFHILMNORSX" else "a"


def join(items, last=" and "):
    items = list(items)
    if len(items) < 2:
        return "".join(items)
    return ", ".join(items[:-1]) + last + items[-1]


# The lists, each from the registry alone.

def drivers_with_chips(reg):
    twins = {d: (c, f) for d, c, f in reg.twins()}
    items = []
    for d in reg.driver_order():
        chips = reg.own_chips(d)
        if d in twins:
            chip, finds = twins[d]
            rest = [c for c in chips if c != chip]
            chips = rest + ["%s: a scan takes it for %s %s" % (
                chip, article(finds), finds)]
        items.append("*%s* (%s)" % (d, ", ".join(chips)))
    return join(items, " or ")


def twin_chips(reg):
    return join(["%s %s" % (article(c), c) if i == 0 else c
                 for i, (_, c, _) in enumerate(reg.twins())], " or ")


def pin_chips(reg):
    return ", ".join(c for c in reg.chip_order()
                     if c in reg.chips(pin=True))


def nopin_chips(reg):
    return ", ".join(c for c in reg.chip_order()
                     if c in reg.chips(pin=False) - reg.chips(pin=True))


def families_slashed(reg):
    return ", ".join("/".join(f) for f in reg.families())


def families_prose(reg):
    return "; ".join(join(f) for f in reg.families())


def driver_names(reg):
    return join(reg.driver_order(), " or ")


def twins_named(reg):
    t = reg.twins()
    return "%s: a scan takes %s for %s" % (
        join([d for d, _, _ in t]), "them" if len(t) > 1 else "it",
        join(["%s %s" % (article(f), f) for _, _, f in t]))


class Sub:
    """The list in a paragraph: the text after start and before the next
    end ("" for start: from the paragraph's start), made by fn."""

    def __init__(self, start, end, fn):
        self.start, self.end, self.fn = start, end, fn


class Region:
    """A generated list's place.  marker: the NAME of its marker
    comments, or None when anchor (a pattern) finds its paragraph's
    first line.  first: the pattern of the paragraph's first line within
    the region; indent, cont: its first and following lines' indents."""

    def __init__(self, path, name, subs, first, indent, cont, marker=True,
                 what=None):
        self.path, self.name, self.subs = path, name, subs
        self.first, self.indent, self.cont = first, indent, cont
        self.marker = marker
        self.what = what or name

    def markers(self):
        if self.path.endswith(".md"):
            return ("<!-- chips:%s" % self.name, "<!-- /chips -->")
        if self.path.endswith(".scd"):
            return ("; chips:%s" % self.name, "; /chips")
        raise ValueError("%s: no marker comments in this format" % self.path)


REGIONS = [
    Region("doc/barod.conf.5.scd", "driver",
           [Sub("", ". Without it", drivers_with_chips),
            Sub("address is tried, and ", " is taken for its twin",
                twin_chips)],
           r"^\t", "\t", "\t", what="driver = NAME"),
    Region("doc/barod.conf.5.scd", "drdy",
           [Sub("interrupt pin take it (", ")", pin_chips),
            Sub("for the others (", ")", nopin_chips)],
           r"^\t", "\t", "\t", what="drdy"),
    Region("doc/barod.8.scd", "sources",
           [Sub("own drivers (", "), or chips", families_slashed)],
           r"^- \*hardware\*", "- ", "  ", what="hardware source"),
    Region("debian/control", "description",
           [Sub("barometers (", ", or chips", families_slashed)],
           r"^ barod reads I2C barometers \(", " ", " ", marker=False,
           what="Description"),
    Region("sensors/README.md", "families",
           [Sub("per barometer family (", "),", families_prose)],
           r"^The I2C bus layer", "", "", what="families"),
    Region("src/daemon/config/barod.conf", "driver",
           [Sub("driver: ", "; without", driver_names),
            Sub("(name ", ")", twins_named)],
           r"^# driver: ", "# ", "# ", marker=False,
           what="driver"),
    Region("src/daemon/config/barod.conf", "drdy",
           [Sub("interrupt pin (", ")", pin_chips)],
           r"^# drdy needs a chip with an interrupt pin", "# ", "# ",
           marker=False, what="drdy"),
]


def find_paragraph(lines, region, lo, hi):
    """[start, end) of the paragraph region.first finds in lines[lo:hi]."""
    for i in range(lo, hi):
        if re.search(region.first, lines[i]):
            j = i + 1
            while (j < hi and lines[j].startswith(region.cont) and
                   lines[j].strip() not in ("", ".")):
                j += 1
            return i, j
    raise LookupError("%s: no line matches %r in the %s region" % (
        region.path, region.first, region.name))


def region_bounds(lines, region):
    """[lo, hi) of the lines the region may hold."""
    if not region.marker:
        return 0, len(lines)
    begin, end = region.markers()
    starts = [i for i, l in enumerate(lines)
              if l == begin or l.startswith(begin + " ")]
    if len(starts) != 1 or end not in lines[starts[0]:]:
        raise LookupError("%s: no %r ... %r markers, or more than one" % (
            region.path, begin, end))
    lo = starts[0] + 1
    hi = lines.index(end, lo)
    return lo, hi


def rewrite(region, lines, reg):
    """The paragraph's lines with the lists generated: (first line's
    index, old lines, new lines)."""
    lo, hi = region_bounds(lines, region)
    i, j = find_paragraph(lines, region, lo, hi)
    words = []
    for k in range(i, j):
        pre = region.indent if k == i else region.cont
        words.append(lines[k][len(pre):] if lines[k].startswith(pre)
                     else lines[k])
    text = " ".join(" ".join(words).split())
    for sub in region.subs:
        if sub.start not in text:
            raise LookupError("%s:%d: no %r in the paragraph of the %s "
                              "list" % (region.path, i + 1, sub.start,
                                        region.what))
        a = text.index(sub.start) + len(sub.start) if sub.start else 0
        if sub.end not in text[a:]:
            raise LookupError("%s:%d: no %r after %r in the paragraph of "
                              "the %s list" % (region.path, i + 1, sub.end,
                                               sub.start, region.what))
        b = text.index(sub.end, a)
        text = text[:a] + sub.fn(reg) + text[b:]
    new = textwrap.wrap(text, WIDTH, initial_indent=region.indent,
                        subsequent_indent=region.cont,
                        break_long_words=False, break_on_hyphens=False)
    return i, lines[i:j], new


def generate(root, reg):
    """{path: (old text, new text)}, [(path, line, region)] of the
    regions that differ, and what made a region unreadable."""
    files, stale, errors = {}, [], []
    for region in REGIONS:
        if region.path not in files:
            with open(os.path.join(root, region.path),
                      encoding="utf-8") as f:
                text = f.read()
            files[region.path] = [text, text.split("\n")]
        lines = files[region.path][1]
        try:
            i, old, new = rewrite(region, lines, reg)
        except LookupError as e:
            errors.append("cannot find the %s list: %s" % (region.what, e))
            continue
        if old != new:
            stale.append((region.path, i + 1, region))
            lines[i:i + len(old)] = new
    return ({p: (t, "\n".join(l)) for p, (t, l) in files.items()}, stale,
            errors)


def registry(lister):
    out = subprocess.run([lister], check=True, capture_output=True,
                         text=True).stdout
    return Registry(out.split("\n"))


def stale_message(path, line, region):
    return ("%s:%d: the chip list (%s) is not what `%s` writes; run "
            "it" % (path, line, region.what, GEN_COMMAND))


def main(argv):
    check = argv[1:2] == ["--check"]
    if check:
        argv = argv[1:]
    if len(argv) != 3:
        raise SystemExit(__doc__)
    root, lister = argv[1], argv[2]
    files, stale, errors = generate(root, registry(lister))
    for e in errors:
        print("gen-chip-lists: %s" % e, file=sys.stderr)
    if check:
        for s in stale:
            print(stale_message(*s))
        return 1 if stale or errors else 0
    for path, (old, new) in files.items():
        if old != new:
            with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                f.write(new)
            print("gen-chip-lists: wrote %s" % path)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
