#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# A version-2 filter written from the docs alone builds and runs: the
# complete example in doc/filter-abi.md (its ```c file=... block) is
# tests/filters/example-filter2.c word for word, compiles with nothing
# but `pkg-config --cflags barod-filter` against the build tree (the
# uninstalled .pc) and -Wall -Wextra -Werror, and baro-replay runs it
# over the synthetic stream and scores it.  Two copies of it from two
# files (one filter name) both run, told apart by file.
# Environment (meson): SOURCE_ROOT, BUILD_ROOT, BARO_REPLAY, SCENARIO_DIR,
# CC.
set -u

for v in SOURCE_ROOT BUILD_ROOT BARO_REPLAY SCENARIO_DIR CC; do
	eval "val=\${$v:-}"
	[ -n "$val" ] || { echo "example-filter2: $v is not set" >&2; exit 1; }
done
if ! command -v pkg-config >/dev/null 2>&1; then
	echo "SKIP: no pkg-config"
	exit 77
fi

tmp=$(mktemp -d /tmp/example-filter2-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
die() {
	echo "FAIL: $*" >&2
	exit 1
}

# The block after the fence that names the file, to the closing fence
# (doc fences may be indented under a list item: the indent goes).
awk '
	/^ *```c file=example-filter2\.c *$/ { on = 1; ind = index($0, "`") - 1; next }
	on && /^ *``` *$/ { exit }
	on { print substr($0, ind + 1) }
' "$SOURCE_ROOT/doc/filter-abi.md" >"$tmp/example-filter2.c"
[ -s "$tmp/example-filter2.c" ] ||
	die "doc/filter-abi.md has no \`\`\`c file=example-filter2.c block"
diff -u "$SOURCE_ROOT/tests/filters/example-filter2.c" \
	"$tmp/example-filter2.c" >"$tmp/diff" ||
	{ cat "$tmp/diff" >&2; die "doc/filter-abi.md's example differs from tests/filters/example-filter2.c"; }
echo "ok: the doc's example is tests/filters/example-filter2.c"

PKG_CONFIG_PATH="$BUILD_ROOT/meson-uninstalled"
export PKG_CONFIG_PATH
cflags=$(pkg-config --cflags barod-filter) ||
	die "pkg-config --cflags barod-filter (uninstalled) failed"
echo "ok: pkg-config --cflags barod-filter: $cflags"
cd "$tmp" || exit 1
# shellcheck disable=SC2086 # cflags is a list of words
"$CC" $cflags -std=c11 -Wall -Wextra -Werror -shared -fPIC \
	-o libex2.so example-filter2.c -lm 2>"$tmp/cc.err" ||
	{ cat "$tmp/cc.err" >&2; die "the example does not compile"; }
cp libex2.so libex2-copy.so
echo "ok: built with $CC"

"$BARO_REPLAY" run -o out --plots none --no-timing -q --synthetic-only \
	-s "$SCENARIO_DIR/clean.scn" -s "$SCENARIO_DIR/noise.scn" \
	-f plugin:./libex2.so -f plugin:./libex2-copy.so:tau=1 \
	-f plugin:./libex2-copy.so >out.txt 2>err.txt
rc=$?
# 0 or 1 is a verdict; 2 is an error (a plugin refused, a label clash).
[ "$rc" -le 1 ] || { cat err.txt >&2; die "baro-replay run exited $rc"; }
for f in 'plugin:complementary' 'plugin:complementary:tau=1' \
	'plugin:complementary@libex2-copy.so'; do
	for scn in clean noise; do
		# Its error against the truth was scored, with a number.
		grep -q "^synthetic,$scn,$f,rms_m,[0-9]" out/summary.csv ||
			die "no rms_m for $f on $scn in out/summary.csv"
	done
done
echo "ok: baro-replay scored the example (and its copy) on the synthetic stream"

# One file twice with the same parameters is one filter twice: an error.
"$BARO_REPLAY" run -o out2 --plots none --no-timing -q --synthetic-only \
	-s "$SCENARIO_DIR/clean.scn" -f plugin:./libex2.so \
	-f plugin:./libex2.so >out.txt 2>err.txt
rc=$?
[ "$rc" -eq 2 ] || die "the same plugin twice: exit $rc, expected 2"
grep -q "given twice" err.txt || { cat err.txt >&2; die "no 'given twice'"; }
echo "ok: the same file twice is still 'given twice'"
