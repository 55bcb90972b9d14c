#!/bin/sh
# Runs the benchmarks the build made and prints their figures.
#   bench.sh BENCH_SIM BENCH_BAROD BAROD BENCH_MAVLINK BENCH_SITL \
#            BENCH_LOGS BENCH_FILTERS LOGS_DIR BENCH_DRIVERS BENCH_PX4SIM
#            BENCH_MSP BENCH_PX4 BARO_REPLAY BENCH_REPLAY_SH EXAMPLE_PLUGIN BENCH_EXEC
#            SRC_DIR BENCH_CAMPAIGN_SH BARO_CAMPAIGN FAKE_AUTOPILOT BARO_DRIVE
# BENCH_DRIVERS is '-' when the build found no umockdev.
# bench-barod runs $BAROD_BENCH_ROUNDS (3) rounds of barod and its two
# floors, BAROD_BENCH_SECONDS (10) each.  bench-sitl and bench-px4 also
# run the proxies with busy_poll_us = $BAROD_BENCH_BUSY_POLL_US (20; 0
# leaves those runs out).  bench-sitl runs again for each INSTANCES:WORK_US
# of $BAROD_BENCH_SITL_LOADS (1:0 1:50 1:200 8:20): autopilots that work
# WORK_US microseconds per frame, for the share of their rate a proxy
# takes from autopilots that do something.
set -eu
"$1"
echo
"$4"
echo
"${11}"
echo
"$2" "$3" "${BAROD_BENCH_SECONDS:-10}"
echo
"$2" "$3" "${BAROD_BENCH_SECONDS:-10}" msp
echo
"$5" "$3" "${BAROD_BENCH_SITL_FRAMES:-20000}" 3 \
	"${BAROD_BENCH_BUSY_POLL_US:-20}"
echo
for load in ${BAROD_BENCH_SITL_LOADS:-1:0 1:50 1:200 8:20}; do
	echo "bench-sitl, $load (instances:autopilot work in us per frame)"
	# The medians only; every line when it fails.
	out=$("$5" "$3" 3000 3 0 "${load#*:}" "${load%%:*}") ||
		{ echo "$out"; exit 1; }
	echo "$out" | sed -n '/^medians/,$p'
	echo
done
"${10}" "$3" "${BAROD_BENCH_PX4_STEPS:-20000}"
echo
"${12}" "$3" "${BAROD_BENCH_PX4_FRAMES:-50000}" \
	"${BAROD_BENCH_BUSY_POLL_US:-20}"
echo
"$7"
echo
# The drivers against emulated chips on /dev/i2c-N, as the sensor tests
# run: umockdev's preload library first (ASan tolerates it second).
if [ "$9" = - ]; then
	echo "bench-drivers: skipped (built without umockdev)"
else
	LD_PRELOAD="libumockdev-preload.so.0${LD_PRELOAD:+:$LD_PRELOAD}" \
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		"$9"
fi
echo
# baro-replay with and without plots on the real logs.
"${14}" "${13}" "$8" "${15}"
echo
# A Python filter through the exec protocol: the first python3 with numpy
# (PATH's, else Debian's), for the batch path's figure.
py=python3
python3 -c 'import numpy' 2>/dev/null ||
	{ [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import numpy' 2>/dev/null &&
		py=/usr/bin/python3; } || true
"${16}" "$py" "${17}"
echo
# baro-campaign's own cost per job against the scripted autopilot.
"${18}" "${19}" "${20}" "${21}" "${13}"
echo
# The readers on the real logs, when they are there.
set -- "$6" "$8"
if [ -d "$2" ]; then
	"$1" $(ls "$2"/*.bin "$2"/*.ulg "$2"/*.tlog 2>/dev/null)
else
	echo "bench-logs: no logs in $2 (meson configure -Dlogs_dir=DIR)"
fi
