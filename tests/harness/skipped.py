#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The tests a meson test run skipped, each with its reason.

    tests/harness/skipped.py [--ci] BUILDDIR...
    tests/harness/skipped.py --self-test

Reads BUILDDIR/meson-logs/testlog.json (the last `meson test` there) and
prints one line per skipped test: the build directory, the test and the
line it printed saying why (the last one that mentions "skip").  Fails
(exit 1) when a skipped test printed no such line, since a skip must say
what is missing; with --ci (./dev test when CI=true) also on any skip of
a test CI is expected to run, so coverage cannot silently drop there.
Exit 0 otherwise, with "no test skipped" when there were none.

A CMocka case skipped inside a test counts as a skipped test, named
"suite / test / case", although meson counts its test as passed: cmocka
prints "[  SKIPPED ] case" on stdout, after the case's own "SKIP:" line
(skip_because() in tests/harness/test-util.h) between it and the case's
"[ RUN      ]".  cmocka's closing count of skipped cases is checked
against the cases found, so none goes unlisted.
"""
import contextlib
import io
import json
import os
import re
import sys
import tempfile

# Tests CI need not run (the clean-root stage gives every other test
# what it needs).  A name here is "suite / test" as meson prints it, or
# "suite / test / case" for a CMocka case skipped inside a test.
CI_MAY_SKIP = {
    # doc/examples/exec-comp.m against the Python example: GNU Octave is
    # not one of barod's dependencies (issue 35 ships the example, runs
    # it where octave-cli happens to be installed).
    "replay / baro-replay-exec-octave",
}

RUN = re.compile(r"^\[ RUN      \] (\S+)$")
CASE_SKIPPED = re.compile(r"^\[  SKIPPED \] (\S+)$")
# cmocka 1.1.7 (Debian 13) names the group: "[  SKIPPED ] tests: 3 ...".
COUNT_SKIPPED = re.compile(
    r"^\[  SKIPPED \] (?:\S+: )?(\d+) test\(s\), listed below:$")


def reason(test):
    """The last line of the test's output that says it skipped."""
    for stream in ("stdout", "stderr"):
        lines = [l.strip() for l in (test.get(stream) or "").splitlines()]
        said = [l for l in lines if "skip" in l.lower()]
        if said:
            return said[-1]
    return None


def skipped_cases(test):
    """(case, reason or None) for each CMocka case the test skipped, and
    how many cmocka's summary counted (None without one)."""
    cases, counted, case, since = [], None, None, 0
    lines = [l.strip() for l in (test.get("stdout") or "").splitlines()]
    for i, line in enumerate(lines):
        m = RUN.match(line)
        if m:
            case, since = m.group(1), i + 1
            continue
        m = COUNT_SKIPPED.match(line)
        if m:
            counted = int(m.group(1))
            case = None
            continue
        m = CASE_SKIPPED.match(line)
        if m and m.group(1) == case:
            said = [l for l in lines[since:i]
                    if "skip" in l.lower() and not l.startswith("[")]
            cases.append((case, said[-1] if said else None))
            case = None
    return cases, counted


def main(argv):
    ci = "--ci" in argv
    dirs = [a for a in argv if a != "--ci"]
    if not dirs:
        print("usage: tests/harness/skipped.py [--ci] BUILDDIR...", file=sys.stderr)
        return 2
    bad = 0
    shown = 0
    for d in dirs:
        log = os.path.join(d, "meson-logs", "testlog.json")
        try:
            with open(log, encoding="utf-8") as f:
                tests = [json.loads(l) for l in f if l.strip()]
        except OSError as e:
            print(f"skipped: {log}: {e.strerror}", file=sys.stderr)
            bad += 1
            continue
        for t in tests:
            # "barod:system / units-udev": the project's name off.
            name = t["name"].split(":", 1)[-1]
            if t.get("result") == "SKIP":
                skips = [(name, reason(t))]
            else:
                cases, counted = skipped_cases(t)
                skips = [(f"{name} / {c}", why) for c, why in cases]
                if counted is not None and counted != len(cases):
                    bad += 1
                    print(f"skipped: {d}: {name}: FAIL: cmocka counted "
                          f"{counted} skipped case(s), {len(cases)} found")
            for what, why in skips:
                shown += 1
                if why is None:
                    bad += 1
                    print(f"skipped: {d}: {what}: FAIL: printed no reason")
                elif ci and what not in CI_MAY_SKIP:
                    bad += 1
                    print(f"skipped: {d}: {what}: FAIL in CI: {why}")
                else:
                    print(f"skipped: {d}: {what}: {why}")
    if shown == 0 and bad == 0:
        print(f"skipped: no test skipped in {' '.join(dirs)}")
    return 1 if bad else 0


# ---- the self-test: cmocka's output as Debian 12 and 13 print it ----

def cmocka_out(cases, summary="[  SKIPPED ] tests: {n} test(s), listed below:"):
    """A cmocka run's stdout: cases is [(name, None | "skip" | "bare")]."""
    out, skipped = ["[==========] tests: Running %d test(s)." % len(cases)], []
    for name, how in cases:
        out.append(f"[ RUN      ] {name}")
        if how is None:
            out.append(f"[       OK ] {name}")
            continue
        if how == "skip":
            out.append("SKIP: LOGS_DIR unset or missing: x.bin not tested")
        out.append(f"[  SKIPPED ] {name}")
        skipped.append(name)
    if skipped:
        out.append(summary.format(n=len(skipped)))
        out += [f"[  SKIPPED ] {n}" for n in skipped]
    return "\n".join(out) + "\n"


def self_test():
    skip_test = {"name": "barod:replay / exec-octave", "result": "SKIP",
                 "stdout": "SKIP: octave-cli is not installed\n"}
    checks = [
        # (what, tests, --ci, exit status, lines the output must hold)
        ("a whole-test skip with its reason", [skip_test], False, 0,
         ["replay / exec-octave: SKIP: octave-cli"]),
        ("a case skipped with its reason",
         [{"name": "barod:logs / log-tlog", "result": "OK",
           "stdout": cmocka_out([("test_a", None), ("test_b", "skip")])}],
         False, 0, ["logs / log-tlog / test_b: SKIP: LOGS_DIR"]),
        ("the same under --ci",
         [{"name": "barod:logs / log-tlog", "result": "OK",
           "stdout": cmocka_out([("test_b", "skip")])}],
         True, 1, ["logs / log-tlog / test_b: FAIL in CI: SKIP: LOGS_DIR"]),
        ("a bare skip()",
         [{"name": "barod:logs / log-tlog", "result": "OK",
           "stdout": cmocka_out([("test_a", "bare"), ("test_b", None)])}],
         False, 1, ["logs / log-tlog / test_a: FAIL: printed no reason"]),
        ("cmocka 1.1.5's summary, without the group's name",
         [{"name": "barod:logs / log-tlog", "result": "OK",
           "stdout": cmocka_out([("test_b", "skip")], "[  SKIPPED ] "
                                "{n} test(s), listed below:")}],
         False, 0, ["logs / log-tlog / test_b: SKIP: LOGS_DIR"]),
        ("a skip the pairing missed",
         [{"name": "barod:logs / log-tlog", "result": "OK",
           "stdout": cmocka_out([("test_b", "skip")]).replace(
               "[ RUN      ] test_b\n", "")}],
         False, 1, ["log-tlog: FAIL: cmocka counted 1 skipped case(s), "
                    "0 found"]),
        ("none", [{"name": "barod:logs / log-tlog", "result": "OK",
                   "stdout": cmocka_out([("test_a", None)])}],
         True, 0, ["skipped: no test skipped"]),
    ]
    failed = 0
    for what, tests, ci, want_rc, want in checks:
        with tempfile.TemporaryDirectory() as d:
            os.mkdir(os.path.join(d, "meson-logs"))
            with open(os.path.join(d, "meson-logs", "testlog.json"), "w",
                      encoding="utf-8") as f:
                f.writelines(json.dumps(t) + "\n" for t in tests)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                rc = main(["--ci", d] if ci else [d])
        missing = [w for w in want if w not in out.getvalue()]
        if rc != want_rc or missing:
            failed += 1
            print(f"self-test: {what}: exit {rc} (want {want_rc}), "
                  f"missing {missing} in:\n{out.getvalue()}")
        else:
            print(f"self-test: {what}: ok")
    return 1 if failed else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    sys.exit(main(sys.argv[1:]))
