# SPDX-License-Identifier: GPL-3.0-or-later
#
# The shell tests' checks (sourced): each says what failed and sets
# fail=1, and the test goes on to report every failure.  A test sets
# fail=0 and $tmp, whose err holds the last command's stderr.
check() {	# check WANT GOT WHAT: an exit status
	if [ "$1" != "$2" ]; then
		echo "FAIL: $3: exit status $2, expected $1" >&2
		sed 's/^/  stderr: /' "$tmp/err" | tail -n 20 >&2
		fail=1
	else
		echo "ok: $3 (status $2)"
	fi
}
expect() {	# expect FILE TEXT WHAT: TEXT in FILE
	if ! grep -qF -- "$2" "$1"; then
		echo "FAIL: $3: '$2' not in $1" >&2
		sed 's/^/  /' "$1" | head -n 20 >&2
		fail=1
	fi
}
