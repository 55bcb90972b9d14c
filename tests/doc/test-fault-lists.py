#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""
test-fault-lists.py [--self-test] SOURCE_ROOT LIST_FAULTS BAROCTL

Every list of fault kinds, scenario verbs, PX4 failure types and replay
labels in the docs, the man pages, the headers and baroctl --help names
exactly what the tables define: LIST_FAULTS (tests/faults/list-faults.c,
linked with the faults and replay libraries) prints the tables, and each
list below is read out of its file and compared, both ways.  A failure
names the file, the line, the list and what is missing or extra, so a
new kind's, verb's or type's doc rows are found by running this test.
It also holds the tables to each other: every overlay kind can be
reached from a scenario (a PX4 type or a verb) and has a label.

--self-test runs the checks against tables with a row of each taken away
and one added, and fails unless every list reports both.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from doclists import (Checker as ListChecker, Page,  # noqa: E402
                      arguments, between, output_lines, self_test_verdict,
                      verdict)


class Tables:
    """What list-faults printed."""

    def __init__(self, lines):
        self.kinds = {}     # name -> (value, label)
        self.px4 = {}       # number -> (name, kind)
        self.words = []     # action words, parser order
        self.verbs = {}     # word -> (overlay kind or -, hw kind or -)
        self.aux = set()    # "gps drift"
        self.labels = {}    # bit -> name
        for line in lines:
            f = line.split()
            if not f:
                continue
            if f[0] == "kind" and len(f) == 4:
                self.kinds[f[1]] = (f[2], f[3])
            elif f[0] == "px4" and len(f) == 4:
                self.px4[int(f[1])] = (f[2], f[3])
            elif f[0] == "word" and len(f) == 2:
                self.words.append(f[1])
            elif f[0] == "verb" and len(f) == 4:
                self.verbs[f[1]] = (f[2], f[3])
            elif f[0] == "aux" and len(f) == 3:
                self.aux.add(f[1] + " " + f[2])
            elif f[0] == "label" and len(f) == 3:
                self.labels[int(f[1])] = f[2]
            else:
                raise SystemExit("list-faults: bad line: %r" % line)

    def px4_names(self):
        return [self.px4[n][0] for n in sorted(self.px4)]

    def aux_sensors(self):
        return {a.split()[0] for a in self.aux}

    def baro_words(self):
        """Action words of the baro scenario language (not the other
        sensors' first words)."""
        return set(self.words) - self.aux_sensors()

    def emulator_verbs(self):
        """Instance verbs that need the emulator: no overlay kind, no
        hardware form."""
        return {v for v, (ov, hw) in self.verbs.items()
                if ov == "-" and hw == "-"}



def code_spans(text):
    return re.findall(r"`([^`]+)`", text)



def check(root, tab, baroctl):
    c = ListChecker()
    px4 = tab.px4_names()
    kinds = set(tab.kinds) - {"none"}

    def run(label, fn):
        try:
            fn()
        except (LookupError, ValueError, IndexError) as e:
            c.errors.append("%s: cannot read the list: %s" % (label, e))

    # The tables among themselves: every overlay kind can be written in a
    # scenario (a PX4 type or a verb sets it) and has its own label.
    reached = {k for _, k in tab.px4.values()}
    reached |= {ov for ov, _ in tab.verbs.values() if ov != "-"}
    c.same("src/faults/faults.c", "kinds a scenario can set", reached - {"none"},
           kinds)
    for k in sorted(kinds):
        if tab.kinds[k][1] == "clean":
            c.errors.append("src/replay/inject.c (label of each kind): "
                            "%s labels nothing (inject_label_for())" % k)

    # faults.h: the header comment's list of kinds.
    hdr = Page(root, "src/faults/faults.h")

    def faults_h():
        i = hdr.find(r"failure-injection types")
        j = hdr.find(r"^ \* Deterministic", i)
        found = [m.group(1) for l in hdr.lines[i:j]
                 for m in [re.match(r"^ \*   ([a-z]+)  ", l)] if m]
        c.same("%s:%d" % (hdr.path, i + 1), "the overlay's kinds", found,
               kinds)

    run(hdr.path, faults_h)

    scn = Page(root, "doc/scenario.md")

    def scn_actions():
        rows = scn.table(r"^\| action \| effect \|$")
        found = [code_spans(cells[0])[0].split()[0] for _, cells in rows]
        c.same("%s:%d" % (scn.path, rows[0][0]), "Actions table: verbs",
               found, tab.baro_words())
        c.order("%s:%d" % (scn.path, rows[0][0]), "Actions table: verbs",
                found, [w for w in tab.words if w in tab.baro_words()])

    def scn_aux():
        rows = scn.table(r"^\| action \| effect on each sample")
        found = [" ".join(code_spans(cells[0])[0].split()[:2])
                 for _, cells in rows]
        c.same("%s:%d" % (scn.path, rows[0][0]),
               "other sensors table: faults", found, tab.aux)

    def scn_px4():
        rows = scn.table(r"^\| # \| type \| PX4 meaning")
        found = {}
        for line, cells in rows:
            name = code_spans(cells[1])[0]
            found[name] = int(cells[0])
            want = [n for n, (nm, _) in tab.px4.items() if nm == name]
            if want and want[0] != int(cells[0]):
                c.errors.append("%s:%d (PX4 types table): %s is number %d,"
                                " not %s" % (scn.path, line, name, want[0],
                                             cells[0]))
        c.same("%s:%d" % (scn.path, rows[0][0]), "PX4 types table: types",
               found, px4)

    def covered(page, header, what):
        """A table whose first column names every action and PX4 type:
        `px4 TYPE ...`, a bare `TYPE` after one in its cell, `VERB ...`."""
        rows = page.table(header)
        words, types = set(), set()
        for line, cells in rows:
            after_px4 = False
            for span in code_spans(cells[0]):
                w = span.split()
                if not re.fullmatch(r"[a-z0-9]+", w[0]):
                    continue    # `[sensor]`, not an action
                if w[0] == "px4" and len(w) > 1:
                    words.add("px4")
                    types.add(w[1])
                    after_px4 = True
                elif (after_px4 and len(w) == 1 and
                      w[0] not in tab.words):
                    types.add(w[0])     # `px4 garbage`, `slow`
                else:
                    words.add(w[0])
                    after_px4 = False
        where = "%s:%d" % (page.path, rows[0][0])
        c.same(where, what + ": actions", words, tab.words)
        c.same(where, what + ": PX4 types", types, px4)
        return rows

    def scn_hardware():
        rows = covered(scn, r"^\| line \| in hardware mode \|",
                       "hardware mode table")
        # The row of what needs the emulator names those verbs exactly.
        for line, cells in rows:
            if cells[1].startswith("refused: they need the emulator"):
                found = [s.split()[0] for s in code_spans(cells[0])]
                c.same("%s:%d" % (scn.path, line),
                       "hardware mode table: verbs that need the emulator",
                       set(found) - {"set", "ramp"}, tab.emulator_verbs())
                return
        raise LookupError("%s: no 'refused: they need the emulator' row"
                          % scn.path)

    def scn_errors():
        i = scn.find(r"unknown px4 failure type '")
        text = between(scn.lines[i], "(use ", ")")
        m = re.fullmatch(r"(.*) or 0-([0-9]+)", text)
        names = m.group(1).split(", ") if m else []
        where = "%s:%d" % (scn.path, i + 1)
        c.same(where, "unknown px4 type message: types", names, px4)
        c.order(where, "unknown px4 type message: types", names, px4)
        if not m or int(m.group(2)) != len(px4) - 1:
            c.errors.append("%s (unknown px4 type message): numbers 0-%d"
                            % (where, len(px4) - 1))

    def scn_labels():
        i = scn.find(r"carries its\s*$|carries its fault's label")
        text = scn.paragraph(i)
        found = code_spans(between(text, "fault's label (", ")"))
        want = {n for n in tab.labels.values()
                if n.split("-")[0] in tab.aux_sensors()}
        c.same("%s:%d" % (scn.path, i + 1),
               "the other sensors' labels", found, want)

    for fn in (scn_actions, scn_aux, scn_px4, scn_hardware, scn_errors,
               scn_labels):
        run(scn.path, fn)

    drive = Page(root, "doc/drive.md")
    run(drive.path, lambda: covered(
        drive, r"^\| line \| ArduPilot SITL", "what each line becomes"))

    man = Page(root, "doc/baroctl.1.scd")

    def man_inject():
        i = man.find(r"^\*inject\* _TYPE_")
        text = man.paragraph(i + 1)
        found = re.findall(r"\*([a-z]+)\*", between(text, "(0-based):",
                                                     " holds"))
        # The last *stuck* opens the next sentence: names, once each.
        seen = []
        for w in found:
            if w not in seen:
                seen.append(w)
        where = "%s:%d" % (man.path, i + 2)
        c.same(where, "inject TYPE: types", seen, px4)
        c.order(where, "inject TYPE: types", seen, px4)

    def emulator_verbs(page, anchor, what):
        """A page's "needs the emulator (...)" list, past SIM_ names."""
        i = page.find(anchor)
        text = page.paragraph(i + 1)
        found = between(text, "needs the emulator (", ")").split(", ")
        c.same("%s:%d" % (page.path, i + 2),
               what + ": verbs that need the emulator",
               {w for w in found if not w.startswith("SIM_")},
               tab.emulator_verbs())

    run(man.path, man_inject)
    run(man.path, lambda: emulator_verbs(man, r"^\*scenario load\* _FILE_",
                                         "scenario load"))

    barod8 = Page(root, "doc/barod.8.scd")
    run(barod8.path, lambda: emulator_verbs(barod8, r"^\*--scenario\* ",
                                            "--scenario"))

    tools = Page(root, "doc/tools.md")

    def tools_inject():
        i = tools.find(r"takes PX4's types")
        text = tools.paragraph(i)
        found = between(text, "takes PX4's types `", "`").split()
        where = "%s:%d" % (tools.path, i + 1)
        c.same(where, "inject's types", found, px4)
        c.order(where, "inject's types", found, px4)

    run(tools.path, tools_inject)

    def baroctl_help():
        out = subprocess.run([baroctl, "--help"], capture_output=True,
                             text=True).stdout
        text = " ".join(out.split())
        found = between(text, "PX4-style fault (", ")").split()
        c.same("baroctl --help", "inject's types", found, px4)
        c.order("baroctl --help", "inject's types", found, px4)

    run("baroctl --help", baroctl_help)
    return c.errors


def fake_tables(tab):
    """The tables with a row of each taken away and one added: PX4 type
    intermittent gone and a type 8 'faketype' added; verb noise gone and
    an overlay verb 'fakeverb' added; overlay kind 'fakekind' added (set
    by fakeverb, labelled nothing); aux 'gps lost' gone and 'gps fakejam'
    added; label gps-lost renamed gps-fakejam.  The names are ones no doc
    will use."""
    lines = []
    for k, (v, l) in tab.kinds.items():
        lines.append("kind %s %s %s" % (k, v, l))
    lines.append("kind fakekind value clean")
    for n, (name, kind) in tab.px4.items():
        if name != "intermittent":
            lines.append("px4 %d %s %s" % (n, name, kind))
    lines.append("px4 8 faketype delayed")
    for w in tab.words:
        if w == "noise":
            w = "fakeverb"
        lines.append("word " + w)
    for v, (ov, hw) in tab.verbs.items():
        if v != "noise":
            lines.append("verb %s %s %s" % (v, ov, hw))
    lines.append("verb fakeverb fakekind fakekind")
    for a in tab.aux:
        lines.append("aux " + (a if a != "gps lost" else "gps fakejam"))
    for b, n in tab.labels.items():
        lines.append("label %d %s" % (b, "gps-fakejam" if n == "gps-lost"
                                       else n))
    return Tables(lines)


def main(argv):
    self_test, (root, lister, baroctl) = arguments(argv, 3, __doc__)
    tab = Tables(output_lines(lister))
    if not self_test:
        return verdict(argv[0], check(root, tab, baroctl),
                       "%d kinds, %d PX4 types, %d action words, %d labels"
                       % (len(tab.kinds), len(tab.px4), len(tab.words),
                          len(tab.labels)))

    errors = check(root, fake_tables(tab), baroctl)
    for e in errors:
        print("as expected: " + e)
    # Each list, and the culprit it must name.
    expect = [
        ("kinds a scenario can set", r"missing intermittent"),
        ("label of each kind", r"fakekind labels nothing"),
        ("the overlay's kinds", r"missing fakekind"),
        ("Actions table: verbs", r"missing fakeverb.* extra noise"),
        ("other sensors table: faults",
         r"missing gps fakejam extra gps lost"),
        ("PX4 types table: types", r"missing faketype extra intermittent"),
        ("hardware mode table: actions", r"missing fakeverb extra noise"),
        ("hardware mode table: PX4 types",
         r"missing faketype extra intermittent"),
        ("hardware mode table: verbs that need the emulator",
         r"extra noise"),
        ("unknown px4 type message: types",
         r"missing faketype extra intermittent"),
        ("the other sensors' labels",
         r"missing gps-fakejam extra gps-lost"),
        ("what each line becomes: actions",
         r"missing fakeverb extra noise"),
        ("what each line becomes: PX4 types",
         r"missing faketype extra intermittent"),
        ("inject TYPE: types", r"missing faketype extra intermittent"),
        ("scenario load: verbs that need the emulator", r"extra noise"),
        ("--scenario: verbs that need the emulator", r"extra noise"),
        ("inject's types", r"missing faketype extra intermittent"),
    ]
    return self_test_verdict(errors, expect)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
