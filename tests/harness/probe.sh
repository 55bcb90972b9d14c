# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by the shell tests that need more than an unprivileged build
# (root, mount namespaces, systemd as PID 1).  Each probes for what it
# needs, all of it, before any assertion: an environment that gives only
# part (unshare works, the remount of / does not) is one that lacks it,
# and the test skips (exit 77, meson's SKIP) with one line naming what is
# missing and how to get it.  doc/development.md lists who needs what.

# How to get a mount namespace of one's own, for the skip lines.
PROBE_MOUNT_HINT="run as root on a machine, in a container run with --privileged, or in a chroot whose / is a mount point (doc/development.md)"

# skip_needs TEST WHAT [WHY]: the one line, then exit 77.
skip_needs() {
	echo "$1: skipped: needs $2${3:+ ($3)}; $PROBE_MOUNT_HINT"
	exit 77
}

# probe_run OUT CMD...: runs CMD (bounded), its stdout and stderr in OUT;
# succeeds when CMD did.  The first line of OUT is the reason otherwise.
probe_run() {
	out=$1
	shift
	timeout 20 "$@" >"$out" 2>&1
}

# probe_why OUT: the first line CMD printed, for the skip line.
probe_why() {
	head -n 1 "$1" 2>/dev/null | tr -d '\r'
}
