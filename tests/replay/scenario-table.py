#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Check a baro-replay exploratory run against doc/replay-thresholds.md.

The doc's tables "The synthetic stream" and "The bundled logs" give, per
bundled scenario and built-in filter, the verdicts a case may get; its
"Built-in rules" table lists the built-in rules.  This checks, against a
run's summary.csv:
  - every judged case's verdict is one the table allows (an unchecked
    case is skipped), and every built-in filter of the run has a column;
  - every built-in filter passes at least 95 % of its judged clean cases;
  - each row's "revealed by" is the scenario file's reveal= list;
  - the rules table is the rules of thresholds_default_text().
Usage: scenario-table.py DOC THRESHOLDS_C SCENARIO_DIR SUMMARY_CSV
"""
import csv
import os
import re
import sys

RANK = {"pass": 1, "warn": 2, "fail": 3}


def tables(doc):
    """{heading: (columns, {scenario: row dict})} for the two tables."""
    out = {}
    heading = None
    cols = None
    for line in open(doc, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("### "):
            heading = line[4:].strip()
            cols = None
            continue
        if heading not in ("The synthetic stream", "The bundled logs"):
            continue
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cols is None:
            cols = cells
            out[heading] = (cols, {})
            continue
        if set(cells[0]) <= set("-"):
            continue
        out[heading][1][cells[0]] = dict(zip(cols, cells))
    return out


def default_rules(src):
    text = open(src, encoding="utf-8").read()
    body = text[text.index("default_text[] ="):]
    body = body[:body.index(";\n")]
    rules = []
    for piece in re.findall(r'"((?:[^"\\]|\\.)*)"', body):
        line = piece.replace("\\n", "").strip()
        if line and not line.startswith("#"):
            rules.append(re.sub(r"\s+", " ", line))
    return rules


def doc_rules(doc):
    text = open(doc, encoding="utf-8").read()
    sec = text[text.index("## Built-in rules"):]
    sec = sec[:sec.index("\n## ", 3)]
    rules = []
    for m in re.finditer(r"^\| `(.*?)` \|", sec, re.M):
        rules.append(m.group(1).replace("\\|", "|"))
    return rules


def reveal_of(path):
    for line in open(path, encoding="utf-8"):
        m = re.match(r"#\s*replay:(.*)", line)
        if m:
            for item in m.group(1).split():
                if item.startswith("reveal="):
                    return item[len("reveal="):].replace(",", ", ")
    return "baro"


def main():
    doc, thr, scen_dir, summary = sys.argv[1:5]
    errors = []

    want = [re.sub(r"\s+", " ", r) for r in default_rules(thr)]
    have = doc_rules(doc)
    if want != have:
        errors.append("Built-in rules table differs from "
                      "thresholds_default_text():\n  code: %s\n  doc:  %s"
                      % (want, have))

    tabs = tables(doc)
    for h in ("The synthetic stream", "The bundled logs"):
        if h not in tabs:
            errors.append("doc has no table '%s'" % h)
    if errors:
        print("\n".join(errors))
        return 1

    for h, (cols, rows) in tabs.items():
        for name, row in rows.items():
            path = os.path.join(scen_dir, name + ".scn")
            if not os.path.exists(path):
                errors.append("%s: no scenario file %s" % (h, path))
                continue
            if row["revealed by"] != reveal_of(path):
                errors.append("%s: %s: revealed by '%s' in the doc, "
                              "reveal=%s in %s" % (h, name,
                                                   row["revealed by"],
                                                   reveal_of(path), path))

    worst = {}
    unchecked = set()
    for r in csv.DictReader(open(summary, encoding="utf-8")):
        if not r["filter"]:
            continue
        key = (r["source"], r["scenario"], r["filter"])
        worst.setdefault(key, 0)
        if r["status"] == "unchecked":
            unchecked.add(key)
        worst[key] = max(worst[key], RANK.get(r["status"], 0))
    if not worst:
        errors.append("%s: no runs" % summary)

    clean = {}
    checked = 0
    for key, rank in sorted(worst.items()):
        src, scen, filt = key
        if key in unchecked or rank == 0:
            continue
        verdict = [k for k, v in RANK.items() if v == rank][0]
        h = ("The synthetic stream" if src == "synthetic"
             else "The bundled logs")
        cols, rows = tabs[h]
        if scen not in rows:
            errors.append("%s: scenario %s has no row" % (h, scen))
            continue
        if filt not in cols:
            errors.append("%s: filter %s has no column" % (h, filt))
            continue
        allowed = rows[scen][filt].split("/")
        checked += 1
        if verdict not in allowed:
            errors.append("%s / %s / %s: %s, the table allows %s"
                          % (src, scen, filt, verdict, "/".join(allowed)))
        if scen == "clean":
            p, n = clean.get(filt, (0, 0))
            clean[filt] = (p + (verdict == "pass"), n + 1)
    for filt, (p, n) in sorted(clean.items()):
        if p < 0.95 * n:
            errors.append("%s passes %d of its %d judged clean cases "
                          "(< 95 %%)" % (filt, p, n))
    print("checked %d cases; clean passes: %s" % (
        checked, ", ".join("%s %d/%d" % (f, p, n)
                           for f, (p, n) in sorted(clean.items()))))
    if errors:
        print("\n".join(errors))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
