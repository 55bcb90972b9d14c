#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# ./dev fuzz's scheduler: tests/fuzz/run.sh BUILD TOTAL_SECONDS [TARGET...]
#
# Runs every libFuzzer target built in BUILD (or the ones named) within
# TOTAL_SECONDS of wall time, FUZZ_JOBS (default 2) at a time.  Each
# target stops at FUZZ_RUNS executions (default 10 M) or when its share
# of the time is up; a share is fixed when the target starts: the time
# left times the jobs, less what the running ones still hold, shared
# among the targets still to start by what each needs for FUZZ_RUNS at
# the last run's rate (one that needs less than an equal share gets what
# it needs, the others the rest), never past the deadline.  The targets
# start slowest first, so the slow ones can have long slots.
#
# After each run the new inputs (BUILD/corpus/NAME) are merged into
# tests/fuzz/corpus/NAME with -merge=1: only those that add coverage land
# in the repository.  Crash inputs go to BUILD/fuzz-artifacts/.  Ends with
# a table: target, execs, exec/s, the CPU seconds it got and execs per
# CPU second (what the target costs, whatever else the machine runs),
# coverage (libFuzzer's cov and ft), the corpus files merged in,
# crashes; exits 1 if any target crashed.
set -u
build=$1
total=$2
shift 2
jobs=${FUZZ_JOBS:-2}
runs=${FUZZ_RUNS:-10000000}
src=tests/fuzz
out=$build/fuzz-results
last=$build/fuzz-last.tsv	# NAME EXEC_PER_S from the last run
mkdir -p "$out" "$build/fuzz-artifacts" "$build/fuzz-logs"

if [ $# -gt 0 ]; then
	names=("$@")
else
	names=()
	for f in "$build"/tests/fuzz/fuzz-*; do
		[ -f "$f" ] && [ -x "$f" ] && names+=("$(basename "$f")")
	done
fi
for n in "${names[@]}"; do
	[ -x "$build/tests/fuzz/$n" ] || {
		echo "fuzz: no target $n in $build/tests/fuzz" >&2
		exit 2
	}
done
# Slowest first (unknown ones first, in name order): a slow target needs
# a long slot, which only an early start can give it (one target runs on
# one core at most).  need[NAME]: the seconds it took the last run's rate
# to reach FUZZ_RUNS, plus a quarter (-runs stops it anyway).
declare -A need=()
for n in "${names[@]}"; do
	r=$(awk -v n="$n" '$1 == n { print $2 }' "$last" 2>/dev/null)
	need[$n]=$(awk -v r="${r:-0}" -v runs="$runs" \
		'BEGIN { printf "%d", (r > 0 ? runs / r * 1.25 + 5 : 1e9) }')
done
mapfile -t order < <(for n in "${names[@]}"; do
	echo "${need[$n]} $n"
done | sort -k1,1nr -k2,2 | awk '{ print $2 }')

# The longest input each target is given (tests/fuzz/max-len): enough
# for what it parses, no more (a long input costs every execution).
max_len() {
	awk -v n="$1" '$1 == n { print $2 }' "$src/max-len"
}

fuzz_one() {
	local name=$1 slot=$2 bin=$build/tests/fuzz/$1 log=$build/fuzz-logs/$1.log
	local ml before after rc execs eps cov ft crashes added cpu
	local TIMEFORMAT='%U %S'
	ml=$(max_len "$name")
	mkdir -p "$build/corpus/$name" "$src/corpus/$name"
	before=$(ls "$src/corpus/$name" | wc -l)
	{ time "$bin" -runs="$runs" -max_total_time="$slot" -timeout=10 \
		-print_final_stats=1 ${ml:+-max_len=$ml} \
		-artifact_prefix="$build/fuzz-artifacts/$name-" \
		"$build/corpus/$name" "$src/corpus/$name" >"$log" 2>&1 ; } \
		2>"$out/$name.cpu"
	rc=$?
	cpu=$(awk '{ printf "%.1f", $1 + $2 }' "$out/$name.cpu")
	crashes=0
	[ $rc -eq 0 ] || crashes=1
	# Only inputs that reach new code go into the repository's corpus:
	# edges, not hit counts (-use_counters=0), which kept 7,075 files
	# (4.4 MB) from a 22-minute run where edges kept 1,209 (288 kB).
	"$bin" -merge=1 -use_counters=0 ${ml:+-max_len=$ml} "$src/corpus/$name" \
		"$build/corpus/$name" >"$build/fuzz-logs/$name.merge.log" 2>&1 ||
		echo "fuzz: $name: merge failed, see $build/fuzz-logs/$name.merge.log" >&2
	after=$(ls "$src/corpus/$name" | wc -l)
	added=$((after - before))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	read -r cov ft < <(grep -E '^#[0-9]+' "$log" | tail -n 1 |
		sed -n 's/.*cov: \([0-9]*\) ft: \([0-9]*\).*/\1 \2/p')
	echo "$name ${execs:-0} ${eps:-0} ${cov:--} ${ft:--} $added $crashes $slot ${cpu:-0}" \
		>"$out/$name"
}

start=$SECONDS
deadline=$((start + total))
declare -A ends=()
idx=0
for name in "${order[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n || true
	done
	now=$SECONDS
	held=0
	for p in "${!ends[@]}"; do
		if kill -0 "$p" 2>/dev/null; then
			r=$((ends[$p] - now))
			[ $r -gt 0 ] && held=$((held + r))
		else
			unset "ends[$p]"
		fi
	done
	# The time left on all jobs (3 % kept for the merges), less what
	# the running targets still hold, filled like water into the
	# targets still to start: one that needs less than the level gets
	# what it needs, the rest of the level goes to the others.  No slot
	# runs past the deadline.
	cap=$(( (deadline - now) * jobs * 97 / 100 - held ))
	slot=$(for n in "${order[@]:idx}"; do echo "${need[$n]}"; done |
		sort -n | awk -v cap="$cap" -v mine="${need[$name]}" \
			-v wall=$(( (deadline - now) * 97 / 100 )) '
		{ v[NR] = $1 }
		END {
			level = cap / NR
			for (k = 1; k <= NR; k++) {
				if (v[k] * (NR - k + 1) > cap) {
					level = cap / (NR - k + 1)
					break
				}
				cap -= v[k]
				level = v[k]
			}
			s = mine < level ? mine : level
			if (s > wall) s = wall
			printf "%d", s < 5 ? 5 : s
		}')
	echo "fuzz: $name for up to ${slot}s or $runs runs" >&2
	rm -f "$out/$name"
	fuzz_one "$name" "$slot" &
	ends[$!]=$((now + slot))
	idx=$((idx + 1))
done
wait

printf '\n%-22s %11s %8s %7s %10s %6s %7s %6s %7s\n' target execs exec/s cpu-s exec/cpu-s \
	cov ft merged crashes
bad=0
: >"$last.new"
for name in "${names[@]}"; do
	if ! [ -f "$out/$name" ]; then
		printf '%-22s %12s\n' "$name" "no result"
		bad=1
		continue
	fi
	read -r n execs eps cov ft added crashes slot cpu <"$out/$name"
	epc=$(awk -v e="$execs" -v c="$cpu" 'BEGIN { printf "%.0f", (c > 0 ? e / c : 0) }')
	printf '%-22s %11s %8s %7s %10s %6s %7s %6s %7s\n' "$n" "$execs" "$eps" \
		"$cpu" "$epc" "$cov" "$ft" "$added" "$crashes"
	echo "$n $eps" >>"$last.new"
	[ "$crashes" = 0 ] || bad=1
done
mv "$last.new" "$last"
echo "fuzz: $((SECONDS - start)) s in all; logs in $build/fuzz-logs, crash inputs in $build/fuzz-artifacts" >&2
exit $bad
