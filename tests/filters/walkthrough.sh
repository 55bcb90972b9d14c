#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The version-1 walkthrough of doc/filter-abi.md ("Writing a filter")
# pastes: its ```c blocks, one after the other in one file, compile with
# `pkg-config --cflags barod-filter` against the build tree and
# -Wall -Wextra -Werror, and baro-replay runs the result (issue 35: the
# snippets pasted together did not compile, the build line needed a
# system install).
# Environment (meson): SOURCE_ROOT, BUILD_ROOT, BARO_REPLAY, CC.
set -u
for v in SOURCE_ROOT BUILD_ROOT BARO_REPLAY CC; do
	eval "val=\${$v:-}"
	[ -n "$val" ] || { echo "walkthrough: $v is not set" >&2; exit 1; }
done
if ! command -v pkg-config >/dev/null 2>&1; then
	echo "SKIP: no pkg-config"
	exit 77
fi
tmp=$(mktemp -d /tmp/walkthrough-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
die() {
	echo "FAIL: $*" >&2
	exit 1
}
# Every ```c block between "## Writing a filter" and the next "## ".
awk '
	/^## Writing a filter/ { sec = 1; next }
	sec && /^## / { exit }
	sec && /^ *```c *$/ { on = 1; ind = index($0, "`") - 1; next }
	on && /^ *``` *$/ { on = 0; print ""; next }
	on { print substr($0, ind + 1) }
' "$SOURCE_ROOT/doc/filter-abi.md" >"$tmp/deadband.c"
[ -s "$tmp/deadband.c" ] || die "no c blocks under '## Writing a filter'"
PKG_CONFIG_PATH="$BUILD_ROOT/meson-uninstalled"
export PKG_CONFIG_PATH
cflags=$(pkg-config --cflags barod-filter) ||
	die "pkg-config --cflags barod-filter (uninstalled) failed"
cd "$tmp" || exit 1
# shellcheck disable=SC2086 # cflags is a list of words
"$CC" $cflags -std=c11 -Wall -Wextra -Werror \
	-O2 -fPIC -shared -o deadband.so deadband.c -lm 2>cc.err ||
	{ cat cc.err >&2; die "the walkthrough's blocks do not compile"; }
echo "ok: the walkthrough's blocks compile"
"$BARO_REPLAY" run -o out --plots none --no-timing -q --synthetic-only \
	-s clean -f plugin:./deadband.so:band=0.5 >out.txt 2>err.txt
rc=$?
[ "$rc" -le 1 ] || { cat err.txt >&2; die "baro-replay run exited $rc"; }
grep -q '^synthetic,clean,plugin:deadband:band=0.5,rms_m,[0-9]' \
	out/summary.csv || die "no rms_m for the walkthrough's filter"
echo "ok: baro-replay scored it"
