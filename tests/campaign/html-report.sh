#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# baro-campaign's report in a real browser (issue 38 item 5): a small
# campaign against the scripted flying autopilot (2 sizes x 2 seeds),
# then headless Chromium loads its index.html: no script errors, the
# heat map a cell per (size, seed) holding that job's leakage and
# coloured by its band, every link resolving inside the campaign's
# directory (each job's judge report with its plots), nothing off it;
# and a screenshot.  Environment (meson): BARO_CAMPAIGN, BARO_DRIVE,
# BARO_REPLAY, FAKE_AUTOPILOT.  Without chromium: exit 77, unless
# CHROMIUM_REQUIRED=1 (CI) makes it a failure.
set -u
. "$(dirname "$0")/../harness/chromium.sh"
chromium_init campaign-html
cat >"$tmp/g.scn.in" <<'SCN'
at 12s glitch 0 {size} for 6s
at 24s end
SCN
# A free port in a campaign's range: two CI roots run this at once.
ports=$(python3 "$(dirname "$0")/../harness/free-port.py")
cat >"$tmp/c.ini" <<INI
[campaign]
autopilot = ardupilot
command = $FAKE_AUTOPILOT --kind ardupilot --instance {instance}
    --out 127.0.0.1:{drive_port} --out 127.0.0.1:{gcs_port}
    --log {dir}/ap.csv --speed 10 --seed {seed}
log = {dir}/ap.csv
ports = $ports
[flight]
takeoff_m = 10
hold_s = 30
[matrix]
scenario = g.scn.in
size = 0.5 20
seed = 1 2
INI
"$BARO_CAMPAIGN" run -q --jobs 2 -o "$tmp/c" "$tmp/c.ini" 2>"$tmp/err"
rc=$?
[ $rc -le 1 ] || { bad "baro-campaign run exited $rc"; cat "$tmp/err" >&2; exit 1; }
chrome p1 --dump-dom "file://$tmp/c/index.html" | sed 's/<tr/\n<tr/g' >"$tmp/index.dom"
check_console
grep -q 'id="heat"' "$tmp/index.dom" || bad "no heat map"
# The heat map: two rows (sizes) of two cells (seeds); 0.5 m in the
# pass band's green, 20 m in the fail band's red, each its leakage.
row05=$(grep '<tr><th>0.5</th>' "$tmp/index.dom")
row20=$(grep '<tr><th>20</th>' "$tmp/index.dom")
[ "$(echo "$row05" | grep -o '<td' | wc -l)" = 2 ] || bad "0.5 m row: $row05"
[ "$(echo "$row05" | grep -o 'background:#9d9' | wc -l)" = 2 ] || bad "0.5 m row not green: $row05"
[ "$(echo "$row20" | grep -o 'background:#f88' | wc -l)" = 2 ] || bad "20 m row not red: $row20"
for k in 1 2 3 4; do
	leak=$(sed -n "s/^$k,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,\([^,]*\),.*/\1/p" "$tmp/c/summary.csv")
	[ -n "$leak" ] || { bad "job $k has no leakage in summary.csv"; continue; }
	cell=$(printf '%.2f' "$leak")
	grep -q "judge/index.html\">$cell</a>" "$tmp/index.dom" ||
		bad "heat map: no cell with job $k's $cell m"
done
# One row per job, each linked to its judge report.
rows=$(grep -c '<tr id="job' "$tmp/index.dom")
[ "$rows" = 4 ] || bad "$rows job rows, not 4"
# Every link inside the campaign's directory, and there.
grep -o '\(href\|src\)="[^"]*"' "$tmp/c/index.html" | sed 's/^[a-z]*="//; s/"$//; s/#.*//' |
while read -r link; do
	[ -n "$link" ] || continue
	case $link in
	*://*) echo "links off the report: $link" ;;
	*) [ -e "$tmp/c/$link" ] || echo "$link does not exist" ;;
	esac
done >"$tmp/links"
[ -s "$tmp/links" ] && bad "links: $(head -n 5 "$tmp/links")"
# Each judge report has its plot of the autopilot's estimate against the
# truth, with the fault window.
pngs=$(ls "$tmp"/c/jobs/*/judge/cases/*.png 2>/dev/null | wc -l)
[ "$pngs" -ge 4 ] || bad "$pngs plots in the judge reports, not one per job"
chrome p2 --window-size=1100,800 --screenshot="$tmp/index.png" \
	"file://$tmp/c/index.html" >/dev/null
check_screenshot "$tmp/index.png"
[ -n "${HTML_REPORT_KEEP:-}" ] && cp -r "$tmp/c" "$tmp/index.png" "$HTML_REPORT_KEEP"
[ $fail = 0 ] && echo "ok: 4 jobs in the browser, a 2x2 heat map, links resolve, $pngs plots"
exit $fail
