#!/bin/sh
# Runs the benchmarks the build made and prints their figures.
#   bench.sh BENCH_SIM BENCH_BAROD BAROD BENCH_MAVLINK BENCH_SITL \
#            BENCH_LOGS BENCH_FILTERS LOGS_DIR
set -eu
"$1"
echo
"$4"
echo
"$2" "$3" "${BAROD_BENCH_SECONDS:-20}"
echo
"$5" "$3" "${BAROD_BENCH_SITL_FRAMES:-20000}"
echo
"$7"
echo
# The readers on the real logs, when they are there.
set -- "$6" "$8"
if [ -d "$2" ]; then
	"$1" $(ls "$2"/*.bin "$2"/*.ulg "$2"/*.tlog 2>/dev/null)
else
	echo "bench-logs: no logs in $2 (meson configure -Dlogs_dir=DIR)"
fi
