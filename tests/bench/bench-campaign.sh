#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   bench-campaign.sh BARO_CAMPAIGN FAKE_AUTOPILOT BARO_DRIVE BARO_REPLAY
#
# baro-campaign's own cost per job (setting up, stopping the autopilot
# and baro-drive, judging the log with baro-replay), against the scripted
# autopilot at 10x flying a one-minute flight of its own time (climb,
# 45 s hold with a glitch, land: a 600-row log, as a real one-minute
# flight's), 4 jobs one at a time.  Target: at most 5 % of a one-minute
# flight (3 s) per job.  Figures from each job's timing.json.
set -eu
# The autopilot's command runs in its job's directory.
set -- "$(realpath "$1")" "$(realpath "$2")" "$(realpath "$3")" \
	"$(realpath "$4")"
dir=$(mktemp -d /tmp/bench-campaign-XXXXXX)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/g.scn.in" <<'SCN'
at 15s glitch 0 {size} for 10s
at 40s end
SCN
# A free port in a campaign's range: two CI roots run this at once.
ports=$(python3 "$(dirname "$0")/../harness/free-port.py")
cat >"$dir/c.ini" <<INI
[campaign]
autopilot = ardupilot
command = $2 --kind ardupilot --instance {instance}
    --out 127.0.0.1:{drive_port} --out 127.0.0.1:{gcs_port}
    --log {dir}/ap.csv --speed 10
log = {dir}/ap.csv
ports = $ports
[flight]
takeoff_m = 10
hold_s = 45
[matrix]
scenario = g.scn.in
size = 1 3 8 20
INI
start=$(date +%s.%N)
BARO_DRIVE=$3 BARO_REPLAY=$4 "$1" run -q -o "$dir/out" "$dir/c.ini" || [ $? -eq 1 ]
end=$(date +%s.%N)
python3 - "$dir/out" "$start" "$end" <<'PY'
import json, glob, sys
jobs = [json.load(open(p)) for p in sorted(glob.glob(sys.argv[1] + "/jobs/*/timing.json"))]
n = len(jobs)
mean = lambda k: sum(j[k] for j in jobs) / n
own = mean("setup_s") + mean("stop_s") + mean("judge_s")
print("bench-campaign: %d jobs in %.1f s (one-minute flights at 10x)" %
      (n, float(sys.argv[3]) - float(sys.argv[2])))
print("  per job: setup %.3f s, flight %.2f s, stop %.3f s, judge %.3f s" %
      (mean("setup_s"), mean("fly_s"), mean("stop_s"), mean("judge_s")))
print("  the tool's own cost per job: %.2f s = %.1f %% of a one-minute "
      "flight (target <= 5 %%)" % (own, 100.0 * own / 60.0))
PY
