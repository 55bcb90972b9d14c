#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   test-control-default.sh BAROD BAROCTL
#
# Where barod puts its control socket when none is configured and neither
# systemd (RUNTIME_DIRECTORY) nor a login (XDG_RUNTIME_DIR) names a
# directory, through barod's and baroctl's command lines:
#
#  run-dir    /run/barod missing: barod (root) makes it, no warning, and
#             baroctl with no -s reaches it
#  fallback   /run/barod cannot be made: $TMPDIR/barod-UID/control, mode
#             0700, quietly; baroctl with no -s finds it there
#  refused    a $TMPDIR/barod-UID others may enter: a warning naming it
#  explicit   --control PATH (as ./dev run passes it): that path, no
#             warning, and /run/barod left alone
#
# Each case runs in a private mount namespace with its own tmpfs on /run
# (read-only where /run/barod must not be made), so the machine's /run is
# never touched: as root, or as another user in a user namespace where
# the user is root (uid 0 there, /run/barod as barod running as root
# makes it).  Where neither works (a chroot or container without mount
# privileges, user namespaces off) the test skips saying so: without its
# own /run it cannot tell barod's choice from the machine's state.
set -eu
barod=$1
baroctl=$2
. "$(dirname "$0")/../harness/probe.sh"

tmp=$(mktemp -d /tmp/barod-control-test.XXXXXX)
pid=""
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
failed=0
fail() {
	echo "FAIL: $*"
	failed=1
}

# in_ns MODE CMD...: CMD with /run a fresh tmpfs (MODE rw or ro).
if [ "$(id -u)" -eq 0 ]; then
	unshare="unshare --mount"
	need="a private /run: a mount namespace of its own, whose / is a mount point"
else
	unshare="unshare --user --map-root-user --mount"
	need="a private /run: a user namespace (sysctl kernel.unprivileged_userns_clone=1, not in a chroot) with a mount namespace, or root"
fi
in_ns() {
	mode=$1
	shift
	$unshare sh -c 'mount --make-rprivate / &&
		mount -t tmpfs -o "$0" tmpfs /run && exec "$@"' "$mode" "$@"
}

# The probe: both kinds of /run, as the cases make them.
if ! command -v unshare >/dev/null; then
	skip_needs control-default "a private /run" "no unshare: Debian package util-linux"
fi
for mode in rw ro; do
	# shellcheck disable=SC2086 # $unshare is the command and its options
	probe_run "$tmp/probe" $unshare sh -c 'mount --make-rprivate / &&
		mount -t tmpfs -o "$0" tmpfs /run &&
		if [ "$0" = rw ]; then mkdir /run/barod
		else ! mkdir /run/barod 2>/dev/null; fi' $mode ||
		skip_needs control-default "$need" "$(probe_why "$tmp/probe")"
done

# case NAME EXPECT-SOCKET [barod options]: runs in the namespace; barod
# runs until its socket appears and baroctl (without -s) got its status,
# then stops on SIGTERM.  Writes NAME.err, NAME.ctl, NAME.rc.
run_case() {
	name=$1 sock=$2
	shift 2
	# The script runs inside the namespace, so baroctl shares it.
	in_ns "$mode" env -u XDG_RUNTIME_DIR -u RUNTIME_DIRECTORY \
		TMPDIR="$tmp" sh -c '
		barod=$1 baroctl=$2 out=$3 sock=$4
		shift 4
		"$barod" --sim -o udp:127.0.0.1:9 --duration 60 -v "$@" \
			2>"$out.err" &
		pid=$!
		i=0
		while [ ! -S "$sock" ] && [ $i -lt 600 ] &&
			kill -0 $pid 2>/dev/null &&
			! grep -q "will not reach" "$out.err"; do
			sleep 0.05
			i=$((i + 1))
		done
		if [ -S "$sock" ]; then
			"$baroctl" status >"$out.ctl" 2>&1 ||
				echo "baroctl exited $?" >>"$out.ctl"
		else
			echo "no socket at $sock" >"$out.ctl"
		fi
		[ -d /run/barod ] && echo "run-dir made" >>"$out.ctl"
		kill -TERM $pid 2>/dev/null || true
		rc=0
		wait $pid || rc=$?
		echo $rc >"$out.rc"
		' sh "$barod" "$baroctl" "$tmp/$name" "$sock" "$@"
}

check_quiet() {
	name=$1 sock=$2
	[ "$(cat "$tmp/$name.rc")" = 0 ] ||
		fail "$name: barod exited $(cat "$tmp/$name.rc"): $(cat "$tmp/$name.err")"
	if grep -q 'will not reach' "$tmp/$name.err"; then
		fail "$name: warned: $(grep 'will not reach' "$tmp/$name.err")"
	fi
	grep -qx "barod: control socket $sock" "$tmp/$name.err" ||
		fail "$name: no 'control socket $sock' in: $(cat "$tmp/$name.err")"
	grep -q '^time ' "$tmp/$name.ctl" ||
		fail "$name: baroctl status: $(cat "$tmp/$name.ctl")"
}

# barod's uid: root, or root of the user namespace.
uid=0

# run-dir
mode=rw
run_case run-dir /run/barod/control
check_quiet run-dir /run/barod/control
echo "run-dir: done"

# fallback
mode=ro
run_case fallback "$tmp/barod-$uid/control"
check_quiet fallback "$tmp/barod-$uid/control"
[ "$(stat -c %a "$tmp/barod-$uid")" = 700 ] ||
	fail "fallback: $tmp/barod-$uid has mode $(stat -c %a "$tmp/barod-$uid")"
grep -q 'run-dir made' "$tmp/fallback.ctl" &&
	fail "fallback: /run/barod was made on a read-only /run"
echo "fallback: done"

# refused: the same directory, opened to everyone.
chmod 0777 "$tmp/barod-$uid"
run_case refused "$tmp/barod-$uid/control"
[ "$(cat "$tmp/refused.rc")" = 0 ] ||
	fail "refused: barod exited $(cat "$tmp/refused.rc")"
grep -q "control socket $tmp/barod-$uid: not a directory of uid $uid with mode 0700.*baroctl will not reach this barod" \
	"$tmp/refused.err" ||
	fail "refused: no warning naming $tmp/barod-$uid: $(cat "$tmp/refused.err")"
[ -e "$tmp/barod-$uid/control" ] &&
	fail "refused: a socket was made in $tmp/barod-$uid"
echo "refused: done"

# explicit
mode=rw
run_case explicit "$tmp/dev.control" --control "$tmp/dev.control"
[ "$(cat "$tmp/explicit.rc")" = 0 ] ||
	fail "explicit: barod exited $(cat "$tmp/explicit.rc")"
grep -q 'will not reach' "$tmp/explicit.err" &&
	fail "explicit: warned: $(cat "$tmp/explicit.err")"
grep -qx "barod: control socket $tmp/dev.control" "$tmp/explicit.err" ||
	fail "explicit: socket not at $tmp/dev.control: $(cat "$tmp/explicit.err")"
if grep -q 'run-dir made' "$tmp/explicit.ctl"; then
	fail "explicit: /run/barod was made although --control was given"
fi
echo "explicit: done"

exit $failed
