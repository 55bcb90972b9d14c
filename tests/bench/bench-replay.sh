#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-replay BARO_REPLAY LOGS_DIR [PLUGIN]: baro-replay run's wall and CPU time
# per bundled log, with and without plots, and their ratio (issue 29's targets: PNG <= 1.5
# x --plots none, and <= 2 s for the 2.7 MB tlog), best of
# $REPLAY_BENCH_ROUNDS (3).
# Figures only, never a verdict: a shared machine's load moves them.
set -eu
tool=$1
logs=$2
rounds=${REPLAY_BENCH_ROUNDS:-3}
# More run options, as a user's run has them: REPLAY_BENCH_ARGS='-f gate'
# puts gate under test, and the cases where it warns or fails are drawn
# too (without -f only each log's overview is).
extra=${REPLAY_BENCH_ARGS:-}
if [ ! -d "$logs" ]; then
	echo "bench-replay: no logs in $logs (meson configure -Dlogs_dir=DIR)"
	exit 0
fi
tmp=$(mktemp -d /tmp/bench-replay-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# CPU seconds (user + sys, of the run and any gnuplot it starts) beside the wall time,
# when /usr/bin/time is there: on a loaded machine they move less.
timer=
[ -x /usr/bin/time ] && timer=/usr/bin/time
# best PLOTS LOG...: "WALL CPU", the best of the rounds, in s (CPU 0:
# not measured)
best() {
	plots=$1
	shift
	b=
	i=0
	while [ $i -lt "$rounds" ]; do
		t0=$(date +%s.%N)
		if [ -n "$timer" ]; then
			# shellcheck disable=SC2086
			$timer -f '%U %S' -o "$tmp/cpu" "$tool" run -q \
				--no-timing --plots "$plots" -o "$tmp/r" $extra \
				"$@" >/dev/null 2>&1 || [ $? -eq 1 ]
		else
			echo "0 0" >"$tmp/cpu"
			# shellcheck disable=SC2086
			"$tool" run -q --no-timing --plots "$plots" -o "$tmp/r" \
				$extra "$@" >/dev/null 2>&1 || [ $? -eq 1 ]
		fi
		t1=$(date +%s.%N)
		b=$(echo "$t0 $t1 $(tail -n 1 "$tmp/cpu") ${b:-}" | awk '{
			d = $2 - $1; c = $3 + $4;
			if ($5 != "" && $5 < d) d = $5;
			if ($6 != "" && $6 < c) c = $6;
			printf "%.3f %.3f", d, c}')
		i=$((i + 1))
	done
	echo "$b"
}
# "all" (every case's plot) when this baro-replay knows it: the full
# content's cost beside the default one, an overview per log.
all=
"$tool" run --plots all --help >/dev/null 2>&1 && all=all
# drawn: the plots in the last report
drawn() {
	n=0
	for p in "$tmp/r/cases/"*.png; do
		[ -e "$p" ] && n=$((n + 1))
	done
	echo "$n"
}
row() {	# row LABEL LOG...
	label=$1
	shift
	none=$(best none "$@")
	png=$(best png "$@")
	pngs=$(drawn)
	size=$(du -sk "$tmp/r" | cut -f1)
	every="0 0"
	nall=0
	if [ -n "$all" ]; then
		every=$(best all "$@")
		nall=$(drawn)
	fi
	# Both ratios: wall time is what a user waits for (the issue's
	# figures were wall times), CPU time (when measured) what a loaded
	# machine disturbs less.
	echo "$label $none $png $size $pngs $every $nall" | awk '{
		c = $3 > 0 ? sprintf(" %.2fx cpu", $5 / $3) : ""
		printf "  %-42s none %5.2f s (cpu %5.2f)  png %5.2f s " \
		       "(cpu %5.2f, %2d plots, %.1f MB)  png/none %.2fx wall " \
		       "(%+.0f ms)%s", $1, $2, $3, $4, $5, $7, $6 / 1024, \
		       $4 / $2, 1000 * ($4 - $2), c
		if ($10 > 0)
			printf "  |  all %5.2f s (cpu %5.2f, %d plots) " \
			       "%.2fx wall %.2fx cpu", $8, $9, $10, $8 / $2, \
			       ($3 > 0 ? $9 / $3 : 0)
		printf "\n" }'
	last_png=$png
}

echo "bench-replay: baro-replay run ${extra:+$extra }(bundled scenarios," \
     "every built-in filter, no synthetic stream), best of $rounds," \
     "$(nproc) CPUs; target png/none <= 1.5x per log"
for f in "$logs"/*.bin "$logs"/*.ulg "$logs"/*.tlog; do
	row "$(basename "$f")" "$f"
	case $f in
	*/mav_arducopter_cmac_2015.tlog)
		echo "$last_png" | awk '{ printf "  the 2.7 MB tlog with png " \
			"plots: %.2f s wall, %.2f s cpu (target <= 2 s)\n", \
			$1, $2 }' ;;
	esac
done
# shellcheck disable=SC2046
row all-bundled-logs $(ls "$logs"/*.bin "$logs"/*.ulg "$logs"/*.tlog)

# A fleet's archive, when asked (minutes, not seconds): REPLAY_BENCH_FLEET=N
# links the bundled logs under new names until there are N, and runs them
# with --jobs 2 --plots none (plots are the figures above): wall, CPU
# and the peak resident size of the largest process (the merge or a
# shard).
fleet=${REPLAY_BENCH_FLEET:-0}
if [ "$fleet" -gt 0 ] && [ -x /usr/bin/time ]; then
	mkdir "$tmp/fleet"
	i=0
	while [ "$i" -lt "$fleet" ]; do
		for f in "$logs"/*.bin "$logs"/*.ulg "$logs"/*.tlog; do
			[ "$i" -lt "$fleet" ] || break
			ln -s "$(cd "$(dirname "$f")" && pwd)/$(basename "$f")" \
				"$tmp/fleet/$(printf 'f%05d' "$i")-$(basename "$f")"
			i=$((i + 1))
		done
	done
	/usr/bin/time -f '%e %U %S %M' -o "$tmp/fleet.time" "$tool" run -q \
		--no-timing --plots none --jobs 2 -o "$tmp/fleet-r" \
		"$tmp"/fleet/* >/dev/null 2>&1 || [ $? -eq 1 ]
	runs=$(grep -c '"filter":' "$tmp/fleet-r/summary.json")
	echo "$fleet $runs $(tail -n 1 "$tmp/fleet.time")" | awk '{
		printf "  %d logs, --jobs 2 --plots none: %d runs, %.1f s " \
		       "wall, %.1f s cpu, peak RSS %.0f MB\n", $1, $2, $3, \
		       $4 + $5, $6 / 1024 }'
fi

# Issue 35: a plugin under test runs each case in its child process
# (filter-server.c); against --case-timeout 0 (in the process, as before)
# over every bundled log and the synthetic stream, CPU best of the rounds.
# Target: at most 10 % more.
plugin=${3:-}
if [ -n "$plugin" ] && [ -f "$plugin" ] && [ -n "$timer" ]; then
	contain() {	# contain TIMEOUT: best CPU s
		b=
		i=0
		while [ $i -lt "$rounds" ]; do
			$timer -f '%U %S' -o "$tmp/cpu" "$tool" run -q \
				--no-timing --plots none -o "$tmp/c" \
				--case-timeout "$1" -f "plugin:$plugin" \
				--synthetic "$logs"/*.bin "$logs"/*.ulg \
				"$logs"/*.tlog >/dev/null 2>&1 || [ $? -eq 1 ]
			b=$(echo "$(tail -n 1 "$tmp/cpu") ${b:-}" | awk '{
				c = $1 + $2; if ($3 != "" && $3 < c) c = $3;
				printf "%.3f", c }')
			i=$((i + 1))
		done
		echo "$b"
	}
	inproc=$(contain 0)
	child=$(contain 60)
	echo "$inproc $child" | awk '{
		printf "  plugin contained in its child process: cpu %.2f s " \
		       "against %.2f s in the process: %+.1f %% (target " \
		       "<= 10 %%)\n", $2, $1, 100 * ($2 / $1 - 1) }'
fi
