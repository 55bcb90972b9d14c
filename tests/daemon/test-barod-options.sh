#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   test-barod-options.sh BAROD
#
# The option table through barod's own command line:
#  one-source   two source options are an error naming both (exit 2)
#  not-used     an option the source does not act on is refused, naming
#               the sources it acts on (exit 2); the file may give the
#               source
#  unused-keys  keys of another source's sections in the file are not
#               refused: logged at start-up and listed by --check-config
#  printout     --check-config prints a configuration that, read back
#               with -c, prints the same
set -eu
barod=$1

tmp=$(mktemp -d /tmp/barod-options-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() {
	echo "FAIL: $*"
	failed=1
}

# expect STATUS 'stderr line' ARGS...: barod exits with STATUS, and its
# standard error is exactly that line.
expect() {
	want_status=$1
	want_err=$2
	shift 2
	status=0
	"$barod" "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
	[ "$status" -eq "$want_status" ] ||
		fail "barod $*: exit $status, expected $want_status"
	[ "$(cat "$tmp/err")" = "$want_err" ] ||
		fail "barod $*: said '$(cat "$tmp/err")', expected '$want_err'"
}

# one-source
expect 2 "barod: --hardware and --sim: one source only" \
	-c /dev/null --hardware --sim
expect 2 "barod: --sitl-json-proxy and --px4-sim: one source only" \
	-c /dev/null --sitl-json-proxy 127.0.0.1:9012 --px4-sim
expect 0 "" -c /dev/null --sim --sim --check-config

# not-used
expect 2 "barod: --rng: not used by source sim (only by sitl-json, sitl-json-proxy)" \
	-c /dev/null --sim --rng 1=0
expect 2 "barod: -p: not used by source hardware (only by sim, sitl-json, sitl-json-proxy, px4-sim, px4-sim-proxy)" \
	-c /dev/null --hardware -p SIM_BARO_RND=1
printf '[barod]\nsource = px4-sim-proxy\n[px4]\nupstream = 127.0.0.1:4600\n' \
	>"$tmp/proxy.conf"
expect 2 "barod: --profile: not used by source px4-sim-proxy (only by sim, sitl-json, px4-sim)" \
	-c "$tmp/proxy.conf" --profile climb:1
# --sitl-instances is the PX4 count in the PX4 sources.
expect 0 "" -c "$tmp/proxy.conf" --sitl-instances 2 --check-config
grep -q '^instances = 2$' "$tmp/out" ||
	fail "--sitl-instances 2 with px4-sim-proxy: no 'instances = 2' in [px4]"

# unused-keys
printf '[barod]\nsource = sim\ncontrol = none\n[px4]\nport = 4600\n[sensor a]\nbus = 1\naddress = 0x76\n' \
	>"$tmp/mixed.conf"
expect 0 "" -c "$tmp/mixed.conf" --check-config
grep -qx '# not used by source sim: \[px4\] port, \[sensor a\]' "$tmp/out" ||
	fail "--check-config does not list the unused keys: $(cat "$tmp/out")"
status=0
"$barod" -c "$tmp/mixed.conf" --duration 0.05 -o udp:127.0.0.1:9 \
	>"$tmp/out" 2>"$tmp/err" || status=$?
[ "$status" -eq 0 ] || fail "mixed.conf: exit $status: $(cat "$tmp/err")"
grep -q 'not used by source sim: \[px4\] port, \[sensor a\]' "$tmp/err" ||
	fail "start-up does not log the unused keys: $(cat "$tmp/err")"

# printout
"$barod" -c /dev/null --sitl-json-proxy 127.0.0.1:9012 --sitl-instances 3 \
	--rng 2=1 --home-alt 12.5 --atmosphere simple -p SIM_BARO_COUNT=3 \
	-o msp-tcp:127.0.0.1:5763 --sysid 7 --check-config >"$tmp/one" ||
	fail "--check-config failed"
# The first line is the summary; the rest is a configuration file.
tail -n +2 "$tmp/one" | grep -v '^#' >"$tmp/printed.conf"
"$barod" -c "$tmp/printed.conf" --check-config >"$tmp/two" ||
	fail "the printout does not load: $(cat "$tmp/printed.conf")"
cmp -s "$tmp/one" "$tmp/two" ||
	fail "the printout read back prints otherwise: $(diff "$tmp/one" "$tmp/two")"
for line in 'source = sitl-json-proxy' 'upstream = 127.0.0.1:9012' \
	'instances = 3' 'rng_2 = 1' 'home_alt = 12.5' 'atmosphere = simple' \
	'SIM_BARO_COUNT = 3' 'type = msp' 'transport = tcp' 'sysid = 7'; do
	grep -qx "$line" "$tmp/one" || fail "printout has no '$line'"
done

[ $failed -eq 0 ] && echo "ok barod options"
exit $failed
