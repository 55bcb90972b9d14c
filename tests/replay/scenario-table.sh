#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# doc/replay-thresholds.md's tables of what each bundled scenario asks
# hold: an exploratory run of every bundled scenario over the synthetic
# stream and the bundled logs (seed 1), each case's verdict checked
# against the table, the built-in filters' clean pass rates (>= 95 %),
# the scenarios' reveal= lists and the built-in rules table
# (scenario-table.py).
# Environment (meson): BARO_REPLAY, SCENARIO_DIR, LOGS_DIR, SOURCE_ROOT.
set -u
for v in BARO_REPLAY SCENARIO_DIR SOURCE_ROOT; do
	eval "val=\${$v:-}"
	[ -n "$val" ] || { echo "scenario-table: $v is not set" >&2; exit 1; }
done
if [ ! -d "${LOGS_DIR:-}" ]; then
	echo "SKIP: no bundled logs (LOGS_DIR=${LOGS_DIR:-})"
	exit 77
fi
tmp=$(mktemp -d /tmp/replay-table-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$BARO_REPLAY" run -o "$tmp/r" --plots none --no-timing -q --seed 1 \
	--synthetic -s "$SCENARIO_DIR" \
	"$LOGS_DIR"/*.bin "$LOGS_DIR"/*.ulg "$LOGS_DIR"/*.tlog \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 0 ]; then
	echo "FAIL: the exploratory run exited $rc, expected 0" >&2
	tail -n 20 "$tmp/err" >&2
	exit 1
fi
exec python3 "$SOURCE_ROOT/tests/replay/scenario-table.py" \
	"$SOURCE_ROOT/doc/replay-thresholds.md" \
	"$SOURCE_ROOT/src/replay/thresholds.c" "$SCENARIO_DIR" \
	"$tmp/r/summary.csv"
