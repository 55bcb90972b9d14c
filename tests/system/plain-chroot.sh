#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   tests/system/plain-chroot.sh [--user] DIR CMD [ARG...]
#
# Runs CMD in a plain chroot, as a user would get from `chroot` or a
# container without mount privileges: its / is a directory, not a mount
# point, so `unshare --mount` works but changing the propagation of /
# (what a private /run or /dev needs) fails.  The root is made of this
# machine's /usr and /etc (read-only bind mounts), /proc, /dev, /sys, a
# fresh /tmp, a plain /run directory and DIR (read-write, at the same
# path, e.g. the source tree with its build directory), in a mount
# namespace of its own, so nothing outlives the command.  It starts in
# DIR.  --user runs CMD as nobody (DIR must be writable by it).  Needs
# root; the quick way to see what tests do there without ./dev fresh:
#
#   tests/system/plain-chroot.sh "$PWD" meson test -C build --no-rebuild
set -eu
user=root
if [ "${1:-}" = --user ]; then
	user=nobody
	shift
fi
[ $# -ge 2 ] || {
	sed -n '4,17p' "$0" >&2
	exit 2
}
[ "$(id -u)" -eq 0 ] || {
	echo "plain-chroot: needs root (mounts, chroot)" >&2
	exit 1
}
dir=$(cd "$1" && pwd)
shift

# On disk, not on a tmpfs of its own: a mount point is what it must not be.
root=$(mktemp -d /var/tmp/barod-plain.XXXXXX)
chmod 0755 "$root"
trap 'rm -rf --one-file-system "$root"' EXIT
# unshare's default propagation is private: the binds below stay in the
# namespace and go with it.
unshare --mount sh -eu -c '
	root=$1 dir=$2 user=$3
	shift 3
	cd "$root"
	mkdir -p usr etc proc dev sys tmp run var/tmp root "./$dir"
	chmod 1777 tmp var/tmp
	for l in bin sbin lib lib32 lib64 libx32; do
		[ -L "/$l" ] && ln -s "$(readlink "/$l")" "$l"
	done
	mount --bind -o ro /usr usr
	mount --bind -o ro /etc etc
	mount -t proc proc proc
	mount --rbind /dev dev
	mount --rbind /sys sys
	mount -t tmpfs -o mode=1777 tmpfs tmp
	mount --bind "$dir" "./$dir"
	if [ "$user" = root ]; then
		run=""
	else
		run="setpriv --reuid=nobody --regid=nogroup --clear-groups"
	fi
	exec chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		${CI:+CI=$CI} /bin/sh -c "cd \"\$0\" && exec $run \"\$@\"" \
		"$dir" "$@"
' sh "$root" "$dir" "$user" "$@"
