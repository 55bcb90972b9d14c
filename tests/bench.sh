#!/bin/sh
# Runs the benchmarks the build made and prints their figures.
#   bench.sh BENCH_SIM BENCH_BAROD BAROD BENCH_MAVLINK BENCH_SITL
set -eu
"$1"
echo
"$4"
echo
"$2" "$3" "${BAROD_BENCH_SECONDS:-20}"
echo
"$5" "$3" "${BAROD_BENCH_SITL_FRAMES:-20000}"
