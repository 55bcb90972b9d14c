#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# baro-replay with exec:COMMAND filters, as a user runs them (issue 35):
#   the Python example runs under test, labelled exec:pycomp, beside
#   comp; a command that does not start ends the run with status 2, one
#   that says 'E' mid-run fails its cases from then on (as a crashing
#   plugin does) while the others go on, and the run's status is the
#   verdict, 1.
# With OCTAVE=1 (exec-octave in meson: skipped without octave-cli), the
# Octave example instead, whose outputs must equal the Python one's.
# Environment (meson): BARO_REPLAY, SCENARIO_DIR, SRC_DIR, PYTHON.
set -u
for v in BARO_REPLAY SCENARIO_DIR SRC_DIR PYTHON; do
	eval "val=\${$v:-}"
	[ -n "$val" ] || { echo "exec-cli: $v is not set" >&2; exit 1; }
done
export PYTHONPATH="$SRC_DIR/python"
ex=$SRC_DIR/doc/examples
tmp=$(mktemp -d /tmp/replay-exec-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
run() {	# run OUT ARGS...: the synthetic stream, clean and with a spike
	out=$1
	shift
	"$BARO_REPLAY" run -o "$tmp/$out" --plots none --no-timing -q \
		--synthetic-only -s "$SCENARIO_DIR/clean.scn" \
		-s "$SCENARIO_DIR/spike.scn" --no-baselines "$@" \
		>"$tmp/out" 2>"$tmp/err"
}
# check, expect
. "$(dirname "$0")/../harness/sh-checks.sh"
# A case file's column by its header name.
column() {	# column CSV NAME
	awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++)
		if ($i == name) c = i; next } { print $c }' "$1"
}

if [ "${OCTAVE:-0}" = 1 ]; then
	if ! command -v octave-cli >/dev/null 2>&1; then
		echo "SKIP: octave-cli is not installed (Octave is not one of" \
			"barod's dependencies; doc/examples/exec-comp.m is" \
			"shipped, not run)"
		exit 77
	fi
	run oct -f exec:"'$PYTHON' '$ex/exec-comp.py'" \
		-f exec:"octave-cli -q --no-init-file '$ex/exec-comp.m'"
	st=$?
	[ $st -le 1 ] || check 1 $st "the Octave example"
	for c in "$tmp"/oct/cases/*.csv; do
		column "$c" exec:pycomp_alt_m >"$tmp/py"
		column "$c" exec:mcomp_alt_m >"$tmp/m"
		if ! cmp -s "$tmp/py" "$tmp/m" || [ ! -s "$tmp/m" ]; then
			echo "FAIL: exec-comp.m and exec-comp.py differ in $c" >&2
			fail=1
		fi
	done
	[ $fail = 0 ] && echo "ok: exec-comp.m equals exec-comp.py"
	exit $fail
fi

# The example under test, comp beside it; a verdict either way (0 or 1).
run py -f exec:"'$PYTHON' '$ex/exec-comp.py' kh=0.05" -f comp
st=$?
[ $st -le 1 ] || check "0 or 1" $st "the Python example"
expect "$tmp/py/summary.txt" "judged (under test, -f): exec:pycomp comp" \
	"the Python example"
expect "$tmp/py/cases/synthetic--spike.csv" "exec:pycomp_alt_m" \
	"the Python example"
# Its outputs are there, not NaN: the first sample row's estimate is the
# sample.
column "$tmp/py/cases/synthetic--clean.csv" exec:pycomp_alt_m | sed -n 1p \
	>"$tmp/a"
column "$tmp/py/cases/synthetic--clean.csv" input_alt_m | sed -n 1p >"$tmp/b"
if ! cmp -s "$tmp/a" "$tmp/b" || [ ! -s "$tmp/a" ]; then
	echo "FAIL: exec:pycomp's first estimate $(cat "$tmp/a") is not the" \
		"first sample's $(cat "$tmp/b")" >&2
	fail=1
fi
[ $fail = 0 ] && echo "ok: the Python example, exec:pycomp beside comp"

run nostart -f exec:"/nonexistent/filter --x"
check 2 $? "a command that does not start"
expect "$tmp/err" "filter 'exec:/nonexistent/filter --x': exec:/nonexistent/filter --x: did not start" \
	"a command that does not start"

# The run goes on for the others; its cases fail, saying why.
run dies -f exec:"'$PYTHON' '$SRC_DIR/tests/replay/exec-peer.py' error" \
	-f comp
check 1 $? "a filter that says 'E' mid-run"
expect "$tmp/err" "exec:peer-error stopped: exec:peer-error: said 'E': bad sensor; exited with status 3" \
	"a filter that says 'E' mid-run"
expect "$tmp/err" "exec:peer-error failed 2 of its 2 runs" \
	"a filter that says 'E' mid-run"
expect "$tmp/dies/summary.csv" "synthetic,spike,comp,rms_m," \
	"the other filter goes on"
expect "$tmp/dies/summary.csv" "synthetic,spike,exec:peer-error,crashed,1,fail,stopped in an earlier case: exec:peer-error: said 'E': bad sensor" \
	"the failed filter's cases fail"

exit $fail
