#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""
test-design-places.py [--self-test] SOURCE_ROOT

doc/design.md's "Where each concern lives" points at files and leaves
the detail to them: every file a row's place names exists, and its
header (the first comment after the SPDX line) says what the file is
for, so the table's one-line cells and the headers cannot disagree by
the table growing a second copy.  A why-there cell is one line: at most
MAX_WHY characters.  A failure names the row and the file.

A name without a slash is beside the previous path in the same cell
(`src/daemon/barod.c`, `daemon.h`); a folder must exist; a glob must
match.  --self-test checks a table with a file that does not exist, a
file without a header and an over-long cell, and fails unless each is
reported.
"""
import glob
import os
import re
import sys

MAX_WHY = 160
HEADER_MIN_WORDS = 4
FILE = re.compile(r"\.(c|h|py|sh|mjs|scd|md|conf)$")
# Files whose header is a comment (a man page's source is its text).
CODE = re.compile(r"\.(c|h|py|sh|mjs)$")


def header(path):
    """The words of the file's first comment after its SPDX line."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")[:40]
    text, inside = [], False
    for line in lines:
        s = line.strip()
        if "SPDX-License-Identifier" in s:
            continue
        if s.startswith("#!"):
            continue
        if not inside and (s.startswith("/*") or s.startswith("//") or
                           s.startswith("#") or s.startswith('"""')):
            inside = True
        if inside:
            if not (s.startswith("/*") or s.startswith("*") or
                    s.startswith("//") or s.startswith("#") or
                    s.startswith('"""') or text):
                break
            text.append(re.sub(r"^(/\*+|\*+/?|//|#|\"\"\")", "", s))
            if s.endswith("*/") or (s.startswith('"""') and
                                    len(text) > 1 and s.endswith('"""')):
                break
            if not (s.startswith("/*") or s.startswith("*") or
                    s.startswith("//") or s.startswith("#") or
                    s.startswith('"""')) and not text[-1]:
                break
        elif s:
            break
    return " ".join(text).split()


def resolve(span, base):
    """span as it is (from the root), or beside base, or beside one of
    base's parents: `transports/tcp.c` after `src/daemon/sources/...` is
    src/daemon/transports/tcp.c."""
    d = base
    while True:
        path = (d + "/" if d else "") + span
        if os.path.exists(ROOT + "/" + path.rstrip("/")) or \
                ("*" in path and glob.glob(ROOT + "/" + path)):
            return path
        if not d:
            return (base + "/" if base else "") + span
        d = os.path.dirname(d)


def places(cell):
    """(name, resolved path) for each file or folder a place names; a
    relative name resolves against the cell's first path."""
    out, base = [], None
    for span in re.findall(r"`([^`]+)`", cell):
        if " " in span or "(" in span or "=" in span:
            continue
        if not (span.endswith("/") or FILE.search(span) or
                ("/" in span and "*" in span)):
            continue
        if base is None:
            path = span
            base = span.rstrip("/") if span.endswith("/") else \
                os.path.dirname(span)
        else:
            path = resolve(span, base)
        out.append((span, path))
    return out


def own_header(path):
    """A .c's job may be said in its module's header, foo.h."""
    words = header(path)
    if len(words) < HEADER_MIN_WORDS and path.endswith(".c") and \
            os.path.exists(path[:-2] + ".h"):
        words = header(path[:-2] + ".h")
    return words


def check(lines):
    errors = []
    try:
        i = lines.index("## Where each concern lives")
    except ValueError:
        return ["doc/design.md: no 'Where each concern lives' section"]
    i += 1
    while i < len(lines) and not lines[i].startswith("| concern |"):
        i += 1
    i += 2
    while i < len(lines) and lines[i].startswith("|"):
        cells = [c.strip() for c in lines[i].strip("|").split("|")]
        where = "doc/design.md:%d (%s)" % (i + 1, cells[0])
        if len(cells) != 3:
            errors.append("%s: %d cells, not 3" % (where, len(cells)))
        else:
            if len(cells[2]) > MAX_WHY:
                errors.append("%s: why-there cell of %d characters, more "
                              "than a line (%d): the file's header carries "
                              "the detail" % (where, len(cells[2]),
                                              MAX_WHY))
            for name, path in places(cells[1]):
                full = ROOT + "/" + path
                matches = glob.glob(full) if "*" in path else [full]
                if not matches or not all(os.path.exists(m.rstrip("/"))
                                          for m in matches):
                    errors.append("%s: %s (%s) does not exist" %
                                  (where, name, path))
                    continue
                for m in matches:
                    if os.path.isdir(m) or not CODE.search(m):
                        continue
                    if len(own_header(m)) < HEADER_MIN_WORDS:
                        errors.append("%s: %s has no header comment "
                                      "saying its job" %
                                      (where, os.path.relpath(m, ROOT)))
        i += 1
    return errors


def main(argv):
    global ROOT
    self_test = argv[1:2] == ["--self-test"]
    if self_test:
        argv = argv[1:]
    if len(argv) != 2:
        raise SystemExit(__doc__)
    ROOT = argv[1]
    with open(ROOT + "/doc/design.md", encoding="utf-8") as f:
        lines = f.read().split("\n")
    if not self_test:
        errors = check(lines)
        for e in errors:
            print(e)
        print("test-design-places.py: %s" % (
            "%d problems" % len(errors) if errors else
            "every place exists and says its job"))
        return 1 if errors else 0
    # In a scratch root: a row for a file that is not there, one for a
    # file without a header, one for a file with one, a long cell.
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        ROOT = tmp
        os.makedirs(tmp + "/src/x")
        with open(tmp + "/src/x/bare.c", "w") as f:
            f.write("/* SPDX-License-Identifier: GPL-3.0-or-later */\n"
                    "#include <stdio.h>\n")
        with open(tmp + "/src/x/said.c", "w") as f:
            f.write("/* SPDX-License-Identifier: GPL-3.0-or-later */\n"
                    "/* Says what this file is for. */\n")
        fake = ["## Where each concern lives", "",
                "| concern | place | why there |", "|---|---|---|",
                "| gone | `src/x/gone.c` | short |",
                "| bare | `src/x/said.c`, `bare.c` | short |",
                "| long | `src/x/said.c` | " + "x" * (MAX_WHY + 1) + " |"]
        errors = check(fake)
    for e in errors:
        print("as expected: " + e)
    if any("said.c" in e for e in errors):
        print("self-test: said.c, which has a header, reported")
        return 1
    bad = 0
    for want in ["gone.c (src/x/gone.c) does not exist",
                 "src/x/bare.c has no header comment",
                 "(long): why-there cell of"]:
        if not any(want in e for e in errors):
            print("self-test: not reported: %s" % want)
            bad += 1
    print("self-test: %s" % ("ok" if bad == 0 else "%d failures" % bad))
    return 1 if bad else 0


ROOT = "."
if __name__ == "__main__":
    sys.exit(main(sys.argv))
