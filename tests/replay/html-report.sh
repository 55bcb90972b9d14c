#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# baro-replay's HTML report in a real browser (issue 29 item 4, issue 35
# item 5): headless Chromium loads report/index.html (sorted by a column
# through its URL) and a log's page, takes a screenshot, and the DOM it
# ends up with is checked: the script ran without errors, one row per
# run with the summary's verdicts, the rows sorted, the filter x
# scenario matrix with a cell per pair holding every run, every link,
# anchor and image resolving inside the report, nothing fetched from a
# network.  A log's page is then loaded in a frame of a test page that
# wheels, shift-wheels and drags its first plot and reads the visible
# time range back after each.
# Environment (meson): BARO_REPLAY, SCENARIO_DIR, LOGS_DIR.  Without
# chromium: exit 77, unless CHROMIUM_REQUIRED=1 (CI) makes it a failure.
set -u

. "$(dirname "$0")/../harness/chromium.sh"
chromium_init replay-html

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


# One row a line: sorting moves rows away from the newlines between them.
chrome p1 --dump-dom "file://$tmp/r/index.html#sort=rms_m" |
	sed 's/<tr /\n<tr /g' >"$tmp/index.dom"
grep -q 'data-ready="1"' "$tmp/index.dom" || bad "index.html: its script did not run"
grep -q 'data-errors=' "$tmp/index.dom" && bad "index.html: script errors: $(grep -o 'data-errors="[^"]*"' "$tmp/index.dom")"
check_console

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

# Every anchor a link names exists in the page it names.
for page in "$tmp/r/index.html" "$tmp/r/cases/"*.html; do
	dir=$(dirname "$page")
	grep -o 'href="[^"]*#[^"]*"' "$page" | sed 's/^href="//; s/"$//' | sort -u |
	while read -r link; do
		file=${link%%#*}
		id=${link#*#}
		target=$page
		[ -n "$file" ] && target="$dir/$file"
		grep -q "id=\"$id\"" "$target" 2>/dev/null ||
			echo "$page: $link: no id \"$id\" there"
	done >>"$tmp/anchors"
done
[ -s "$tmp/anchors" ] && bad "anchors: $(head -n 5 "$tmp/anchors")"

# The matrix: a cell per (filter, scenario), its runs adding up to every
# run, a failing cell (spike fails baselines), and each cell's link to
# a list of its runs.
grep -q '<table id="mtable">' "$tmp/index.dom" || bad "index.html: no filter x scenario matrix"
mruns=$(grep -o 'data-runs="[0-9]*"' "$tmp/index.dom" | tr -dc '0-9\n' | awk '{ s += $1 } END { print s + 0 }')
[ "$mruns" = "$runs" ] || bad "index.html: the matrix holds $mruns runs, summary.json $runs"
nfilters=$(grep -o '"filter":"[^"]*"' "$tmp/r/summary.json" | sort -u | wc -l)
nscen=$(grep -o '"scenario":"[^"]*"' "$tmp/r/summary.json" | sort -u | wc -l)
cells=$(grep -o '<td class="t cell ' "$tmp/index.dom" | wc -l)
[ "$cells" = $((nfilters * nscen)) ] || bad "index.html: $cells matrix cells for $nfilters filters x $nscen scenarios"
grep -q '<td class="t cell fail' "$tmp/index.dom" || bad "index.html: no failing cell (spike fails the baselines)"
for id in $(grep -o 'href="#m-[0-9]*-[0-9]*"' "$tmp/r/index.html" | sed 's/href="#//; s/"//'); do
	n=$(awk -v id="$id" 'index($0, "id=\"" id "\"") { on = 1 } on && /<li>/ { n++ } on && /<\/section>/ { print n + 0; exit }' "$tmp/r/index.html")
	[ -n "$n" ] && [ "$n" -ge 1 ] || bad "index.html: cell $id lists no runs"
done
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
	cases=$(cat "$tmp/r/cases/"*.html | grep -c '^<h2 id="case-')
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
check_screenshot "$tmp/index.png" 20000

# Zoom and pan in the page: a test page frames the log's page (file://
# frames need --allow-file-access-from-files to be scripted) and sends
# its first plot a wheel (zoom in at the middle), a shift+wheel (pan)
# and a drag over its second quarter, reading the visible range back
# after each from the plot's data-x-min/data-x-max.
logpage=$(ls "$tmp/r/cases/"*.html | grep -v synthetic | head -n 1)
[ -n "$logpage" ] || logpage=$(ls "$tmp/r/cases/"*.html | head -n 1)
cat >"$tmp/zoom.html" <<EOF
<!DOCTYPE html><html><body><iframe id="f" src="file://$logpage"
style="width:1280px;height:900px"></iframe><script>
function say(k,v){document.body.setAttribute('data-'+k,v);}
window.onerror=function(m){say('errors',String(m));};
function rng(el){return el.getAttribute('data-x-min')+' '+el.getAttribute('data-x-max');}
document.getElementById('f').addEventListener('load',function(){try{
var d=this.contentDocument,w=this.contentWindow;
say('inner-errors',d.body.getAttribute('data-errors')||'');
say('plots',d.body.getAttribute('data-plots')||'');
say('zplots',String(d.querySelectorAll('.zplot').length));
var el=d.querySelector('.zplot'),o=el.querySelector('.u-over');
say('legend',String(el.querySelectorAll('.u-legend .u-series').length));
say('x0',rng(el));
var r=o.getBoundingClientRect(),cx=r.left+r.width/2,cy=r.top+r.height/2;
o.dispatchEvent(new w.WheelEvent('wheel',{deltaY:-300,clientX:cx,clientY:cy,bubbles:true,cancelable:true}));
setTimeout(function(){say('wheel',rng(el));
o.dispatchEvent(new w.WheelEvent('wheel',{deltaY:100,shiftKey:true,clientX:cx,clientY:cy,bubbles:true,cancelable:true}));
setTimeout(function(){say('pan',rng(el));
o.dispatchEvent(new w.MouseEvent('mousedown',{clientX:r.left+r.width*0.25,clientY:cy,bubbles:true,button:0,buttons:1}));
var m={clientX:r.left+r.width*0.5,clientY:cy,movementX:r.width*0.25,bubbles:true,button:0,buttons:1};
o.dispatchEvent(new w.MouseEvent('mousemove',m));
d.dispatchEvent(new w.MouseEvent('mouseup',m));
setTimeout(function(){say('drag',rng(el));say('done','1');},50);},50);},50);
}catch(e){say('errors',String(e));}});
</script></body></html>
EOF
chrome p4 --allow-file-access-from-files --window-size=1300,1000 \
	--virtual-time-budget=5000 --dump-dom "file://$tmp/zoom.html" |
	grep -o '<body[^>]*>' >"$tmp/zoom.dom"
attr() { sed -n "s/.* data-$1=\"\([^\"]*\)\".*/\1/p" "$tmp/zoom.dom"; }
[ "$(attr done)" = 1 ] || bad "zoom: the test page did not finish: $(cat "$tmp/zoom.dom")"
[ -z "$(attr errors)" ] && [ -z "$(attr inner-errors)" ] ||
	bad "zoom: script errors: $(attr errors) $(attr inner-errors)"
[ "$(attr plots)" = "$(attr zplots)" ] && [ "$(attr plots)" -ge 1 ] ||
	bad "zoom: $(attr plots) of $(attr zplots) plots drawn"
# Time, input, truth, (reference,) each filter and what each flagged.
[ "$(attr legend)" -ge 5 ] || bad "zoom: a key of $(attr legend) entries"
echo "$(attr x0) $(attr wheel) $(attr pan) $(attr drag)" | awk '{
	w0 = $2 - $1; w1 = $4 - $3; w2 = $6 - $5; w3 = $8 - $7
	if (!(w0 > 0)) { print "no initial range"; exit 1 }
	# The wheel zooms in about the middle, to 0.8 of the span.
	if (w1 > 0.85 * w0 || w1 < 0.75 * w0 || $3 <= $1 || $4 >= $2) {
		print "wheel: " $1 " " $2 " -> " $3 " " $4; exit 1 }
	# shift+wheel pans: the span kept, moved later.
	if (w2 - w1 > 1e-6 * w0 || w1 - w2 > 1e-6 * w0 || $5 <= $3) {
		print "pan: " $3 " " $4 " -> " $5 " " $6; exit 1 }
	# The drag over the second quarter shows about that quarter.
	if (w3 > 0.3 * w2 || w3 < 0.2 * w2 || $7 < $5 + 0.2 * w2 || $7 > $5 + 0.3 * w2) {
		print "drag: " $5 " " $6 " -> " $7 " " $8; exit 1 }
}' >"$tmp/zoom.chk" || bad "zoom: $(cat "$tmp/zoom.chk")"
check_console
chrome p5 --window-size=1300,1600 --virtual-time-budget=3000 \
	--screenshot="$tmp/page.png" "file://$logpage" >/dev/null

[ -n "${HTML_REPORT_KEEP:-}" ] && cp -r "$tmp/r" "$tmp/index.png" "$tmp/page.png" "$HTML_REPORT_KEEP"

[ $fail = 0 ] && echo "ok: $rows runs in the browser, $pages pages, links and anchors resolve, a $cells-cell matrix, zoom $(attr x0) -> $(attr wheel) -> pan $(attr pan) -> drag $(attr drag)"
exit $fail
