# SPDX-License-Identifier: GPL-3.0-or-later
"""What the doc-list tests share (test-chip-lists.py, test-fault-lists.py,
test-registry-lists.py): a page read by lines, its paragraphs and
tables, and the both-ways comparison of a list with its table."""

import os
import re
import subprocess
import sys


class Page:
    def __init__(self, root, path):
        self.path = path
        with open(root + "/" + path, encoding="utf-8") as f:
            self.lines = f.read().split("\n")

    def find(self, pattern, start=0):
        """Index of the first line from start matching pattern."""
        for i in range(start, len(self.lines)):
            if re.search(pattern, self.lines[i]):
                return i
        raise LookupError("%s: no line matches %r (the list moved? %s "
                          "says where it looks)" % (
                              self.path, pattern,
                              os.path.basename(sys.argv[0])))

    def paragraph(self, i):
        """Lines i.. up to the next blank line, joined, blanks as one."""
        j = i
        while j < len(self.lines) and self.lines[j].strip():
            j += 1
        return " ".join(" ".join(self.lines[i:j]).split())

    def table(self, header):
        """(line number, cells) of each row of the table whose header
        row matches header."""
        i = self.find(header) + 2
        rows = []
        while i < len(self.lines) and self.lines[i].startswith("|"):
            cells = [c.strip() for c in self.lines[i].strip("|").split("|")]
            rows.append((i + 1, cells))
            i += 1
        return rows


def between(text, start, end=")"):
    """The text after the first start and before the next end."""
    i = text.index(start) + len(start)
    return text[i:text.index(end, i)]


class Checker:
    """Collects what differs, each naming the place and the culprits."""

    def __init__(self):
        self.errors = []

    def same(self, where, what, found, want):
        found, want = set(found), set(want)
        missing, extra = sorted(want - found), sorted(found - want)
        if missing or extra:
            self.errors.append("%s (%s):%s%s" % (
                where, what,
                " missing " + ", ".join(missing) if missing else "",
                " extra " + ", ".join(extra) if extra else ""))

    def order(self, where, what, found, want):
        if list(found) != list(want) and set(found) == set(want):
            self.errors.append("%s (%s): in the order %s, not %s" % (
                where, what, " ".join(want), " ".join(found)))


def self_test_verdict(errors, expect):
    """A self-test's exit status: 0 when, for each (list, culprit) of
    expect, the errors name that list and every one of them matches the
    culprit pattern; each miss is said."""
    bad = 0
    for what, culprit in expect:
        hits = [e for e in errors if "(" + what + ")" in e]
        if not hits or not all(re.search(culprit, e) for e in hits):
            print("self-test: list %r did not report %r" % (what, culprit))
            bad += 1
    print("self-test: %s" % ("ok" if bad == 0 else "%d failures" % bad))
    return 1 if bad else 0


def arguments(argv, n, usage):
    """A script's command line: whether --self-test came first, and its
    n arguments; the usage when they are not n."""
    self_test = argv[1:2] == ["--self-test"]
    args = argv[2:] if self_test else argv[1:]
    if len(args) != n:
        raise SystemExit(usage)
    return self_test, args


def output_lines(program, *args):
    """A program's standard output, as lines; it must succeed."""
    return subprocess.run([program, *args], check=True, capture_output=True,
                          text=True).stdout.split("\n")


def verdict(argv0, errors, counted):
    """The check's exit status: each error said, then one line with what
    was counted and whether every list agrees."""
    for e in errors:
        print(e)
    print("%s: %s; %s" % (argv0.rsplit("/", 1)[-1], counted,
                          "%d lists disagree" % len(errors) if errors else
                          "every list agrees"))
    return 1 if errors else 0
