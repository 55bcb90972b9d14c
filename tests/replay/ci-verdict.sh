#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# baro-replay as a CI step gates a deploy: the exit status is the verdict
# on the filters under test (-f), whatever the baselines beside them do.
# Over the bundled logs and the synthetic stream:
#   a good plugin (the deadband of doc/filter-abi.md) passes: 0
#   a broken one (bad-plugin.c kind 6: 3 m off) fails: 1
#   both: 1; no -f: exploratory, 0; a warning: 0, 1 with --strict;
#   a plugin that does not load: 2
# Environment (meson): BARO_REPLAY, SCENARIO_DIR, LOGS_DIR, EXAMPLE_FILTER,
# BAD_OFFSET.
set -u

for v in BARO_REPLAY SCENARIO_DIR EXAMPLE_FILTER BAD_OFFSET; do
	eval "val=\${$v:-}"
	[ -n "$val" ] || { echo "ci-verdict: $v is not set" >&2; exit 1; }
done
if [ ! -d "${LOGS_DIR:-}" ]; then
	echo "SKIP: no bundled logs (LOGS_DIR=${LOGS_DIR:-})"
	exit 77
fi

tmp=$(mktemp -d /tmp/replay-ci-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
# check, expect
. "$(dirname "$0")/../harness/sh-checks.sh"

# What a user writes for a smoother: judge accuracy, smoothing and lag
# (the built-in rules), not fault detection or keeping spikes out, which
# it does not claim; the baselines stay under the built-in rules.
cat >"$tmp/th.txt" <<'TH'
plugin:deadband*/*: recall off
plugin:deadband*/*: precision off
plugin:deadband*/*: leakage_m off
TH
good="plugin:$EXAMPLE_FILTER:band=0.3"
bad="plugin:$BAD_OFFSET"
# The smoother's scenarios: clean data, extra noise, a truth step, and a
# spike the baselines without a gate let through.
run() {	# run OUT ARGS...: over every bundled log and the synthetic stream
	out=$1
	shift
	"$BARO_REPLAY" run -o "$tmp/$out" --plots none --no-timing -q \
		--synthetic -s "$SCENARIO_DIR/clean.scn" \
		-s "$SCENARIO_DIR/noise.scn" -s "$SCENARIO_DIR/truth-step.scn" \
		-s "$SCENARIO_DIR/spike.scn" \
		"$@" "$LOGS_DIR"/*.bin "$LOGS_DIR"/*.ulg "$LOGS_DIR"/*.tlog \
		>"$tmp/out" 2>"$tmp/err"
}

run good -t "$tmp/th.txt" -f "$good"
check 0 $? "good plugin"
expect "$tmp/good/summary.txt" "judged (under test, -f): plugin:deadband:band=0.3" "good plugin"
expect "$tmp/good/summary.txt" "baselines (shown, not judged): raw range health lowpass median gate" "good plugin"
expect "$tmp/out" "plugin:deadband:band=0.3       under test" "good plugin"
# The baselines fail beside it (raw, range, lowpass, health let the spike
# through), and that changes nothing.
if ! grep -E '^  (raw|range|lowpass|median|gate|health) +baseline +[0-9]+ +[0-9]+ +[0-9]+ +[1-9]' \
	"$tmp/out" >/dev/null; then
	echo "FAIL: good plugin: no baseline failed, the test proves nothing" >&2
	cat "$tmp/out" >&2
	fail=1
fi
expect "$tmp/good/summary.csv" "synthetic,truth-step,plugin:deadband:band=0.3," "good plugin"

run bad -t "$tmp/th.txt" -f "$bad"
check 1 $? "broken plugin"
expect "$tmp/err" "plugin:bad failed" "broken plugin"

run both -t "$tmp/th.txt" -f "$good" -f "$bad"
check 1 $? "good and broken plugins together"

# The same good filter without its thresholds file: the built-in rules
# want the spike kept out, which a deadband does not do.
run builtin -f "$good"
check 1 $? "good plugin under the built-in rules"

run explore -t "$tmp/th.txt"
check 0 $? "no -f: exploratory"
expect "$tmp/out" "exploratory run: no filter under test" "no -f"

# A warning passes, unless --strict.
printf 'recall off\nprecision off\nleakage_m off\nplugin:deadband*/*: rms_m <= 0.0001 warn\n' \
	>"$tmp/warn.txt"
run warn -t "$tmp/warn.txt" -f "$good"
check 0 $? "warning"
run strict -t "$tmp/warn.txt" -f "$good" --strict
check 1 $? "warning with --strict"

run noload -f "plugin:$tmp/nonexistent.so"
check 2 $? "a plugin that does not exist"

exit $fail
