#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# baro-replay's HTML report in a real browser (issue 29 item 4): headless
# Chromium loads report/index.html (sorted by a column through its URL)
# and a log's page, takes a screenshot, and the DOM it ends up with is
# checked: the script ran without errors, one row per run with the
# summary's verdicts, the rows sorted, every link and image resolving
# inside the report, nothing fetched from a network.
# Environment (meson): BARO_REPLAY, SCENARIO_DIR, LOGS_DIR.  Without
# chromium: exit 77, unless CHROMIUM_REQUIRED=1 (CI) makes it a failure.
set -u

browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
	if [ "${CHROMIUM_REQUIRED:-0}" = 1 ]; then
		echo "FAIL: chromium is not installed and CHROMIUM_REQUIRED=1" >&2
		exit 1
	fi
	echo "SKIP: chromium is not installed (apt install chromium)"
	exit 77
fi
tmp=$(mktemp -d /tmp/replay-html-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

# A log and the synthetic stream when the bundled logs are there, the
# synthetic stream alone otherwise; PNG plots when they can be drawn.
log=
[ -d "${LOGS_DIR:-}" ] && log="$LOGS_DIR/ap_copter-3.4.4-rc1_badajoz_climb.bin"
# baro-replay draws PNGs itself (libgd; a cross build without it hands
# them to gnuplot, and without gnuplot draws none, saying so).
plots=png
# shellcheck disable=SC2086
"$BARO_REPLAY" run -q --no-timing --plots "$plots" -o "$tmp/r" -f gate \
	--synthetic -s "$SCENARIO_DIR/clean.scn" -s "$SCENARIO_DIR/spike.scn" \
	$log >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -le 1 ] || { bad "baro-replay run exited $rc"; cat "$tmp/err" >&2; exit 1; }

chrome() {	# chrome PROFILE ARGS...: one headless run, its own profile
	p=$1
	shift
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
		--disable-background-networking --disable-component-update \
		--disable-sync --no-first-run --user-data-dir="$tmp/$p" \
		--enable-logging=stderr --v=0 "$@" 2>>"$tmp/chrome.err"
}

# One row a line: sorting moves rows away from the newlines between them.
chrome p1 --dump-dom "file://$tmp/r/index.html#sort=rms_m" |
	sed 's/<tr /\n<tr /g' >"$tmp/index.dom"
grep -q 'data-ready="1"' "$tmp/index.dom" || bad "index.html: its script did not run"
grep -q 'data-errors=' "$tmp/index.dom" && bad "index.html: script errors: $(grep -o 'data-errors="[^"]*"' "$tmp/index.dom")"
if grep -E 'CONSOLE.*(Uncaught|Error)' "$tmp/chrome.err" >/dev/null; then
	bad "console errors: $(grep -E 'CONSOLE' "$tmp/chrome.err" | head -n 3)"
fi

# One row per run, with the summary's verdicts.
runs=$(grep -c '"filter":' "$tmp/r/summary.json")
rows=$(grep -c '<tr class="run ' "$tmp/index.dom")
[ "$runs" -gt 0 ] && [ "$rows" = "$runs" ] || bad "index.html: $rows rows for $runs runs"
for v in pass warn fail unchecked; do
	want=$(grep -c "\"status\":\"$v\"" "$tmp/r/summary.json")
	got=$(grep -c "class=\"t verdict $v\"" "$tmp/index.dom")
	[ "$want" = "$got" ] || bad "index.html: $got rows '$v', summary.json has $want"
done
under=$(grep -c '"role":"under test"' "$tmp/r/summary.json")
got=$(grep -c '<tr class="run under-test"' "$tmp/index.dom")
[ "$under" = "$got" ] && [ "$under" -gt 0 ] || bad "index.html: $got rows under test, summary.json has $under"

# Sorted by rms (the 6th cell: log, scenario, filter, role, verdict,
# rms) as the URL asked, the unknown last.
grep -q 'id="runs" data-sorted="rms_m"\|data-sorted="rms_m"' "$tmp/index.dom" ||
	bad "index.html#sort=rms_m: the table says it is not sorted"
grep '<tr class="run ' "$tmp/index.dom" | awk -F'<td' '{
	v = $7; sub(/^[^"]*"/, "", v); sub(/".*/, "", v);
	if (v == "") { nan = 1; next }
	if (nan) { print "a value after an unknown"; exit 1 }
	if (NR > 1 && v + 0 < last) { print v " after " last; exit 1 }
	last = v + 0 }' >"$tmp/sort" || bad "index.html: not sorted by rms: $(cat "$tmp/sort")"

# Every link and image inside the report resolves; nothing off it.
for page in "$tmp/r/index.html" "$tmp/r/cases/"*.html; do
	dir=$(dirname "$page")
	grep -o '\(href\|src\)="[^"]*"' "$page" | sed 's/^[a-z]*="//; s/"$//; s/#.*//' |
	while read -r link; do
		[ -n "$link" ] || continue
		case $link in
		*://*) echo "$page: links off the report: $link" ;;
		*) [ -e "$dir/$link" ] || echo "$page: $link does not exist" ;;
		esac
	done >>"$tmp/links"
done
[ -s "$tmp/links" ] && bad "links: $(head -n 5 "$tmp/links")"
pages=$(ls "$tmp/r/cases/"*.html | wc -l)
[ "$pages" -ge 1 ] || bad "no page per input"
if [ "$plots" = png ]; then
	imgs=$(cat "$tmp/r/cases/"*.html | grep -c '<img src="')
	# At least each input's overview (its first case): the synthetic
	# stream's alone when the bundled logs are not there (a package
	# build), which is one plot.
	[ "$imgs" -ge "$pages" ] || bad "the pages show $imgs plots for $pages inputs"
	# Each case either shows its plot or says it was not drawn and
	# how to draw it; no plot drawn that no page shows.
	cases=$(cat "$tmp/r/cases/"*.html | grep -c '^<h2>')
	undrawn=$(cat "$tmp/r/cases/"*.html | grep -c 'class="note undrawn"')
	[ $((imgs + undrawn)) = "$cases" ] ||
		bad "$cases cases on the pages: $imgs plots, $undrawn not drawn"
	pngs=$(ls "$tmp/r/cases/" | grep -c '\.png$')
	[ "$pngs" = "$imgs" ] || bad "$pngs plots drawn, the pages show $imgs"
fi

# A log's page in the browser: its runs, its plots, no errors; and a
# screenshot of it and of the index.
page=$(ls "$tmp/r/cases/"*.html | head -n 1)
chrome p2 --dump-dom "file://$page" | sed 's/<tr /\n<tr /g' >"$tmp/page.dom"
grep -q 'data-ready="1"' "$tmp/page.dom" || bad "$page: its script did not run"
grep -q 'data-errors=' "$tmp/page.dom" && bad "$page: script errors"
src=$(sed -n 's:.*<h1>\(.*\)</h1>.*:\1:p' "$tmp/page.dom" | head -n 1)
want=$(grep -c "\"source\":\"$src\"" "$tmp/r/summary.json")
got=$(grep -c '<tr class="run ' "$tmp/page.dom")
[ "$want" = "$got" ] && [ "$got" -gt 0 ] || bad "$page: $got rows for $want runs of $src"
chrome p3 --window-size=1300,1000 --screenshot="$tmp/index.png" \
	"file://$tmp/r/index.html" >/dev/null
if ! head -c 8 "$tmp/index.png" 2>/dev/null | od -An -c | grep -q 'P   N   G'; then
	bad "no screenshot"
elif [ "$(wc -c <"$tmp/index.png")" -lt 20000 ]; then
	bad "the screenshot is nearly empty ($(wc -c <"$tmp/index.png") bytes)"
fi
[ -n "${HTML_REPORT_KEEP:-}" ] && cp -r "$tmp/r" "$tmp/index.png" "$HTML_REPORT_KEEP"

[ $fail = 0 ] && echo "ok: $rows runs in the browser, $pages pages, links resolve"
exit $fail
