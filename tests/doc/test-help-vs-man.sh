#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   test-help-vs-man.sh PROGRAM PAGE.scd
#
# The options PROGRAM --help prints and the options PAGE.scd's OPTIONS
# section documents must be the same set, so neither can drift from the
# other unnoticed.  An option is a "-x" or "--word" token that starts a
# word; in the page only the item lines of OPTIONS count (the lines that
# start with *-), so examples and prose may mention options freely.
set -eu

[ $# -eq 2 ] || { echo "usage: $0 PROGRAM PAGE.scd" >&2; exit 2; }
prog=$1
page=$2
name=$(basename "$prog")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! "$prog" --help >"$tmp/help" 2>"$tmp/err"; then
	echo "FAIL $name --help exited non-zero:" >&2
	cat "$tmp/err" >&2
	exit 1
fi

grep -oE '(^|[][[:space:],(|])--?[A-Za-z][A-Za-z0-9-]*' "$tmp/help" |
	sed 's/^[^-]*//' | sort -u >"$tmp/help.opts"

sed -n '/^# OPTIONS/,/^# /p' "$page" | grep -E '^\*-' |
	grep -oE '\*--?[A-Za-z][A-Za-z0-9-]*' | sed 's/^\*//' |
	sort -u >"$tmp/man.opts"

status=0
for f in help man; do
	if [ ! -s "$tmp/$f.opts" ]; then
		echo "FAIL no options found in the $f text of $name" >&2
		status=1
	fi
done

comm -23 "$tmp/help.opts" "$tmp/man.opts" >"$tmp/only-help"
comm -13 "$tmp/help.opts" "$tmp/man.opts" >"$tmp/only-man"
if [ -s "$tmp/only-help" ]; then
	echo "FAIL $name --help has options $page does not document:" >&2
	sed 's/^/  /' "$tmp/only-help" >&2
	status=1
fi
if [ -s "$tmp/only-man" ]; then
	echo "FAIL $page documents options $name --help does not print:" >&2
	sed 's/^/  /' "$tmp/only-man" >&2
	status=1
fi
[ $status -ne 0 ] ||
	echo "ok $name: $(wc -l <"$tmp/help.opts") options in --help and $(basename "$page")"
exit $status
