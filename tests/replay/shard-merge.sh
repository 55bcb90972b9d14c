#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# baro-replay run --shard K/N on every shard, then merge, gives the report
# one unsharded run gives, byte for byte with --no-timing (summaries,
# pages, run.json, the cases' files); run --jobs N too; and merge refuses
# what is not the shards 1..N of one run, provenance (run.json's seed,
# thresholds, parameters, hashes) included.  Inputs: CSV logs written
# here (one without samples), two bundled logs when LOGS_DIR has them
# (one damaged), and the synthetic stream.
# Environment (meson): BARO_REPLAY, SCENARIO_DIR, LOGS_DIR.
set -u
tmp=$(mktemp -d /tmp/replay-shard-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

for i in 1 2 3 4; do
	awk -v k="$i" 'BEGIN { print "time_ms,pressure_pa";
		for (j = 0; j < 200; j++)
			printf "%d,%.2f\n", 1000 * k + 100 * j,
			       101000 + 3 * sin(j * 0.1 * k) }' >"$tmp/log$i.csv"
done
echo "time_us,pressure_pa" >"$tmp/empty.csv"
set -- "$tmp/log1.csv" "$tmp/empty.csv" "$tmp/log2.csv" "$tmp/log3.csv" \
	"$tmp/log4.csv"
if [ -d "${LOGS_DIR:-}" ]; then
	set -- "$@" "$LOGS_DIR/px4_cubeorange_bench_2baro.ulg" \
		"$LOGS_DIR/ap_copter-4.6.2_pixhawk4_truncated80k.bin"
fi
# PNG: gnuplot's SVG terminal carries a stroke attribute from one plot
# to the next in a process, so SVG files differ with how the plots were
# dealt to gnuplot processes (the same drawing, other bytes).
# baro-replay draws PNGs itself (libgd; a cross build without it hands
# them to gnuplot, and without gnuplot draws none, saying so).
plots=png
replay() {	# replay OUT ARGS...: the run every case shares
	out=$1
	shift
	"$BARO_REPLAY" run -o "$tmp/$out" --no-timing -q --plots "$plots" \
		-f gate -f median:n=7 --synthetic \
		-s "$SCENARIO_DIR/clean.scn" -s "$SCENARIO_DIR/spike.scn" \
		-s "$SCENARIO_DIR/freeze.scn" "$@"
}

replay full "$@" >"$tmp/full.out" 2>"$tmp/full.err"
full=$?
[ $full -le 1 ] || { bad "unsharded run exited $full"; cat "$tmp/full.err" >&2; exit 1; }
for k in 1 2 3; do
	replay s$k --shard $k/3 "$@" >/dev/null 2>"$tmp/s$k.err"
	rc=$?
	[ $rc -le 1 ] || bad "shard $k/3 exited $rc: $(cat "$tmp/s$k.err")"
done
# The shards each ran a third of the inputs, not all of them.
n1=$(grep -c '"filter":' "$tmp/s1/summary.json")
nf=$(grep -c '"filter":' "$tmp/full/summary.json")
[ "$n1" -gt 0 ] && [ "$n1" -lt "$nf" ] || bad "shard 1 ran $n1 of $nf runs"

# In any order of the shards.
"$BARO_REPLAY" merge -o "$tmp/merged" "$tmp/s3" "$tmp/s1" "$tmp/s2" \
	>"$tmp/merged.out" 2>"$tmp/merged.err"
rc=$?
[ $rc = $full ] || bad "merge exited $rc, the unsharded run $full"
diff -r "$tmp/full" "$tmp/merged" >"$tmp/diff" || bad "merged report differs: $(head -n 5 "$tmp/diff")"
cmp -s "$tmp/full.out" "$tmp/merged.out" || bad "merge's verdict table differs"
grep -q "merged 3 shards" "$tmp/merged.err" || bad "merge: no summary line"

# --jobs: the same report from two processes, no shard left behind.
replay jobs --jobs 2 "$@" >"$tmp/jobs.out" 2>"$tmp/jobs.err"
rc=$?
[ $rc = $full ] || bad "run --jobs 2 exited $rc, the unsharded run $full"
diff -r "$tmp/full" "$tmp/jobs" >"$tmp/diff" || bad "--jobs report differs: $(head -n 5 "$tmp/diff")"
cmp -s "$tmp/full.out" "$tmp/jobs.out" || bad "--jobs verdict table differs"
ls -d "$tmp"/jobs.shard* >/dev/null 2>&1 && bad "--jobs left its shards behind"
# --strict is recorded in run.json alike, and judged once.
replay strict1 --strict "$@" >/dev/null 2>"$tmp/strict1.err"
rc1=$?
replay strict2 --strict --jobs 2 "$@" >/dev/null 2>"$tmp/strict2.err"
rc2=$?
[ $rc1 = $rc2 ] || bad "--strict --jobs 2 exited $rc2, one process $rc1"
cmp -s "$tmp/strict1/run.json" "$tmp/strict2/run.json" ||
	bad "--strict --jobs 2 wrote another run.json"
grep -q '"strict":true' "$tmp/strict2/run.json" || bad "--strict not in run.json"
[ "$(grep -c -- '--strict:' "$tmp/strict2.err")" -le 1 ] ||
	bad "--strict --jobs 2 judged more than once: $(cat "$tmp/strict2.err")"

# What merge refuses, with status 2 and a reason.
refuse() {	# refuse WHAT TEXT ARGS...
	what=$1
	text=$2
	shift 2
	"$BARO_REPLAY" merge "$@" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc = 2 ] || bad "merge $what: exit $rc, expected 2"
	grep -q -- "$text" "$tmp/err" || bad "merge $what: no '$text' in: $(cat "$tmp/err")"
}
refuse "a shard missing" "2 reports given, the run had 3 shards" \
	-o "$tmp/m2" "$tmp/s1" "$tmp/s2"
refuse "a shard twice" "are both shard 1 of 3" \
	-o "$tmp/m2" "$tmp/s1" "$tmp/s1" "$tmp/s3"
replay other --shard 2/3 "$tmp/log1.csv" >/dev/null 2>&1
refuse "shards of two runs" "not shards of one run" \
	-o "$tmp/m2" "$tmp/s1" "$tmp/other" "$tmp/s3"
# Shards that agree on the inputs but not on what the results came from
# (run.json's provenance): the key that differs is named.
replay seed2 --shard 2/3 --seed 2 "$@" >/dev/null 2>&1
refuse "shards of two seeds" "not shards of one run: seed (1 in" \
	-o "$tmp/m2" "$tmp/s1" "$tmp/seed2" "$tmp/s3"
echo 'rms_m <= 0.5' >"$tmp/t.txt"
replay thr --shard 2/3 -t "$tmp/t.txt" "$@" >/dev/null 2>&1
refuse "shards under other thresholds" "not shards of one run: thresholds.file" \
	-o "$tmp/m2" "$tmp/s1" "$tmp/thr" "$tmp/s3"
replay par --shard 2/3 -p SIM_BARO_RND=0.5 "$@" >/dev/null 2>&1
refuse "shards with other parameters" "options.params.SIM_BARO_RND only in" \
	-o "$tmp/m2" "$tmp/s1" "$tmp/par" "$tmp/s3"
# A shard whose files (scenarios, its logs) hashed otherwise: changed
# between the shards' runs.
sed 's/"sha256":"[0-9a-f]*"/"sha256":"00"/' "$tmp/s1/run.json" >"$tmp/hash1.json"
rm -rf "$tmp/hash1" && cp -r "$tmp/s1" "$tmp/hash1" && cp "$tmp/hash1.json" "$tmp/hash1/run.json"
refuse "shards hashing a file differently" "not shards of one run" \
	-o "$tmp/m2" "$tmp/hash1" "$tmp/s2" "$tmp/s3"
# The merged run.json holds every log's hash, as the unsharded one.
grep -c '"sha256"' "$tmp/merged/run.json" >"$tmp/nh" &&
	[ "$(cat "$tmp/nh")" = "$(grep -c '"sha256"' "$tmp/full/run.json")" ] ||
	bad "merged run.json lacks hashes the unsharded one has"

# A shard drawing every case beside shards drawing some: their pages
# would disagree on which plots exist.
if [ "$plots" = png ]; then
	replay allplots --plots png,all --shard 2/3 "$@" >/dev/null 2>&1
	refuse "shards drawing different cases" "not shards of one run" \
		-o "$tmp/m2" "$tmp/s1" "$tmp/allplots" "$tmp/s3"
fi
refuse "into a shard" "is one of the reports to merge" \
	-o "$tmp/s1" "$tmp/s1" "$tmp/s2" "$tmp/s3"
mkdir "$tmp/notreport" && echo x >"$tmp/notreport/x"
refuse "a directory that is no report" "no readable run.json" \
	-o "$tmp/m2" "$tmp/notreport"
refuse "into a directory of something else" "holds no baro-replay report" \
	-o "$tmp/notreport" "$tmp/s1" "$tmp/s2" "$tmp/s3"
refuse "without -o" "-o DIR" "$tmp/s1"
# Malformed shard reports: a clear refusal or, for odd values inside an
# otherwise sound summary, a merge that reads them as unknown; never a
# crash.
broken() {	# broken NAME FILE TEXT: s1 with FILE replaced by TEXT
	rm -rf "$tmp/$1" && cp -r "$tmp/s1" "$tmp/$1" && printf '%s' "$3" >"$tmp/$1/$2"
}
for text in '' '[' 'null' '[]' '{"inputs":"x","shard":1,"of":3,"plots":"png"}' \
	'{"inputs":[1,2],"shard":1,"of":3,"plots":"png"}' \
	'{"inputs":[],"shard":4,"of":3,"plots":"png"}' \
	'{"inputs":[],"shard":"1","of":3,"plots":"png"}' \
	'{"inputs":[],"shard":1,"of":0,"plots":"png"}'; do
	broken bad run.json "$text"
	refuse "with run.json '$text'" "run.json" -o "$tmp/m2" "$tmp/bad" "$tmp/s2" "$tmp/s3"
done
# (merge reads the array an entry at a time: its own framing of them
# must refuse what json-c would)
for text in '' '{' '{}' '"x"' '[{"a":"]"}' '[{}' '[{},]' '[{} {}]' '[]x' \
	'[1 2]' '[{"a":"\"]' '[,]'; do
	broken bad summary.json "$text"
	refuse "with summary.json '$text'" "summary.json" -o "$tmp/m2" "$tmp/bad" "$tmp/s2" "$tmp/s3"
done
for text in '[1,"x",null,[]]' ' [ {} ,
 1.5e3 , "a,]" ]
' \
	'[{"source":1,"filter":2,"metrics":"x","checks":[],"rules":3}]' \
	'[{"source":"log1.csv","scenario":"clean","filter":"gate","metrics":{"rms_m":"x","lag_s":null,"n":[1]}}]' \
	'[{"input":"log1.csv","status":7,"segments":-3,"outcome":[]}]'; do
	broken odd summary.json "$text"
	rm -rf "$tmp/m2"
	"$BARO_REPLAY" merge -o "$tmp/m2" "$tmp/odd" "$tmp/s2" "$tmp/s3" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -le 1 ] || bad "merge of an odd summary.json '$text' exited $rc: $(cat "$tmp/err")"
done
for bad_shard in 0/3 4/3 1/0 x/2 1/2/3 "1/2 "; do
	"$BARO_REPLAY" run -o "$tmp/b" --shard "$bad_shard" "$tmp/log1.csv" \
		>/dev/null 2>"$tmp/err"
	[ $? = 2 ] && grep -q -- "--shard" "$tmp/err" || bad "--shard '$bad_shard' not refused"
done
"$BARO_REPLAY" run -o "$tmp/b" --jobs 2 --shard 1/2 "$tmp/log1.csv" \
	>/dev/null 2>&1
[ $? = 2 ] || bad "--jobs with --shard not refused"

[ $fail = 0 ] && echo "ok: $nf runs; 3 shards merged and --jobs 2 equal the unsharded report"
exit $fail
