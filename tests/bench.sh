#!/bin/sh
# Runs the benchmarks the build made and prints their figures.
#   bench.sh BENCH_SIM BENCH_BAROD BAROD [BENCH_MAVLINK]
set -eu
"$1"
echo
[ $# -ge 4 ] && { "$4"; echo; }
"$2" "$3" "${BAROD_BENCH_SECONDS:-20}"
