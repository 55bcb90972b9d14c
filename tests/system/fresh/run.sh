#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   tests/system/fresh/run.sh [--keep] [--release bookworm|trixie]
#                             [--plain-as root|nobody|root,nobody]
#
# The README's two commands on a fresh Debian 12 (bookworm, the default)
# or Debian 13 (trixie, today's Raspberry Pi OS base): builds a minimal
# root of that release with mmdebstrap (variant minbase: apt, dpkg and the
# essential packages, nothing of ours) from the Debian archive this
# machine's apt uses (its bookworm entries, with the suites renamed for
# trixie: the same mirror carries both), copies the clone into it (the files git knows, no
# build directories, no node_modules) and runs, as root in the chroot,
#
#   ./dev run --duration 12     (the README: extra arguments go to barod)
#   ./dev test
#
# then baroctl against a running ./dev run, and baro-replay run on a real
# log, which must write PNG plots.  Either command failing fails the
# stage.  Then the plain suite (meson test, the build ./dev test made)
# once more in the same root as a plain chroot or a container without
# mount privileges has it, its / not a mount point: as root, then as
# nobody (--plain-as picks one: ./dev fresh, running both releases at
# once, gives bookworm's root and trixie's nobody, as both would not fit
# CI's hour).  There every test must pass or skip with its reason (issue
# 28: the tests that need mount namespaces, systemd as PID 1 or root
# skip), and some must skip, or the probes were not put to the test.
# Nothing is cached: every package comes from the archive in this run.  The root is deleted afterwards (--keep leaves it for a look) and
# every mount is undone on any exit.  ./dev fresh installs mmdebstrap and
# calls this; it needs root.  Prints the stage's duration at the end.
#
# The chroot gets this machine's CA bundle (as a local CA, so that
# installing ca-certificates there keeps it) and NODE_EXTRA_CA_CERTS:
# the machines reach the npm registry through a CA only they trust.  The
# real flight logs the tests read are bind-mounted read-only from
# ../shared/data/logs beside the source tree, when it has them, to the
# same place beside the chroot's clone.
set -eu

# Inside the chroot: this script again, from the copied clone.
if [ "${1:-}" = --inside ]; then
	cd /root/barod
	say() { echo "fresh[${FRESH_RELEASE:-}]: $*"; }

	say "\$ ./dev run --duration 12"
	{
		st=0
		./dev run --duration 12 2>&1 || st=$?
		echo $st >/tmp/fresh-run.status
	} | tee /tmp/fresh-run.log
	st=$(cat /tmp/fresh-run.status)
	[ "$st" -eq 0 ] || { say "FAIL ./dev run exited $st"; exit 1; }
	if grep -q 'will not reach' /tmp/fresh-run.log; then
		say "FAIL ./dev run warned about its control socket"
		exit 1
	fi
	say "PASS ./dev run (exit 0, no control socket warning)"

	say "\$ ./dev test"
	# The README's set-up: its shell has the tools and their pages
	# (./dev run installed scdoc and man-db).
	say "\$ meson devenv -C build: barod --version; man barod"
	meson devenv -C build sh -c 'barod --version && man barod >/dev/null' ||
		{ say "FAIL barod or man barod in meson devenv -C build"; exit 1; }
	say "PASS barod and man barod in meson devenv -C build"

	./dev test || { say "FAIL ./dev test exited $?"; exit 1; }
	say "PASS ./dev test"

	# baroctl reaches a development barod on the socket ./dev run makes;
	# SIGTERM stops it (a background job of a script ignores SIGINT).
	./dev run --duration 60 >/tmp/fresh-run2.log 2>&1 &
	pid=$!
	i=0
	while [ ! -S build/barod.control ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if ! build/src/tools/baroctl -s build/barod.control status; then
		kill -TERM $pid 2>/dev/null || true
		wait $pid || true
		cat /tmp/fresh-run2.log
		say "FAIL baroctl status against ./dev run"
		exit 1
	fi
	kill -TERM $pid
	wait $pid || { say "FAIL ./dev run after SIGTERM exited $?"; exit 1; }
	say "PASS baroctl status against ./dev run, clean stop on SIGTERM"

	# Plots out of the box: ./dev run/test installed gnuplot-nox.
	log=../shared/data/logs/ap_copter-3.4.4-rc1_badajoz_climb.bin
	if [ -f "$log" ]; then
		rm -rf /tmp/fresh-replay
		# 1: a built-in threshold failed, as raw's detection checks do.
		rc=0
		build/src/tools/baro-replay run -q -o /tmp/fresh-replay \
			--no-synthetic -s data/scenarios/spike-burst.scn "$log" ||
			rc=$?
		[ $rc -le 1 ] || { say "FAIL baro-replay run exited $rc"; exit 1; }
		n=0
		for p in /tmp/fresh-replay/cases/*.png; do
			[ -f "$p" ] || continue
			[ "$(od -An -tx1 -N8 "$p" | tr -d ' \n')" = 89504e470d0a1a0a ] ||
				{ say "FAIL $p is not a PNG"; exit 1; }
			say "plot $p ($(wc -c <"$p") bytes)"
			n=$((n + 1))
		done
		[ $n -gt 0 ] || { say "FAIL baro-replay wrote no PNG plot"; exit 1; }
		say "PASS baro-replay run wrote $n PNG plots"
	else
		say "FAIL no bundled log at $log"
		exit 1
	fi
	exit 0
fi

# Inside a chroot whose / is not a mount point: see the top.
if [ "${1:-}" = --plain ]; then
	cd /root/barod
	say() { echo "fresh[${FRESH_RELEASE:-}]: $*"; }
	# plain USER: the plain suite as USER; passes when nothing failed,
	# every skip said why, and something skipped.
	plain() {
		say "\$ meson test -C build (as $1, / not a mount point)"
		rc=0
		if [ "$1" = root ]; then
			meson test -C build --no-rebuild --print-errorlogs || rc=$?
		else
			setpriv --reuid="$1" --regid=nogroup --clear-groups \
				env HOME=/tmp \
				meson test -C build --no-rebuild --print-errorlogs ||
				rc=$?
		fi
		[ $rc -eq 0 ] || { say "FAIL meson test as $1 exited $rc"; exit 1; }
		tests/harness/skipped.py build | tee /tmp/fresh-skipped.log ||
			{ say "FAIL a test skipped without a reason"; exit 1; }
		grep -q '^skipped: build: ' /tmp/fresh-skipped.log ||
			{ say "FAIL nothing skipped as $1 where / is no mount point"; exit 1; }
		say "PASS meson test as $1: $(grep -c '^skipped: build: ' \
			/tmp/fresh-skipped.log) skipped with their reasons, none failed"
	}
	for u in $(echo "${FRESH_PLAIN_AS:-root,nobody}" | tr ',' ' '); do
		if [ "$u" = nobody ]; then
			# nobody reaches the clone and writes the build's logs.
			chmod 0755 /root
			chown -R nobody build
		fi
		plain "$u"
	done
	exit 0
fi

keep=0
release=bookworm
plain_as=root,nobody
while [ $# -gt 0 ]; do
	case $1 in
	--keep) keep=1 ;;
	--plain-as)
		case ${2:-} in
		root | nobody | root,nobody) plain_as=$2 ;;
		*) echo "fresh: --plain-as root, nobody or root,nobody" >&2; exit 2 ;;
		esac
		shift
		;;
	--release)
		[ $# -ge 2 ] || { echo "fresh: --release needs bookworm or trixie" >&2; exit 2; }
		release=$2
		shift
		;;
	*) echo "fresh: unknown argument '$1' (--keep, --release bookworm|trixie, --plain-as USERS)" >&2; exit 2 ;;
	esac
	shift
done
case $release in
bookworm) label="Debian 12 (bookworm)" ;;
trixie) label="Debian 13 (trixie)" ;;
*) echo "fresh: release '$release' is not bookworm or trixie" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/../../.."
start=$(date +%s)
say() { echo "fresh[$release]: $*"; }
elapsed() { echo "$(($(date +%s) - start)) s"; }

[ "$(id -u)" -eq 0 ] || { say "needs root (mmdebstrap, chroot, mounts)"; exit 1; }

root=$(mktemp -d "/var/tmp/barod-fresh-$release.XXXXXX")
work=$(mktemp -d "/tmp/barod-fresh-$release-work.XXXXXX")

# Everything mounted below the root, deepest first.
mounts_under() {
	awk -v r="$root" '$2 == r || index($2, r "/") == 1 { print $2 }' \
		/proc/self/mounts |
		sort -r
}
cleanup() {
	st=$?
	trap - EXIT INT TERM HUP
	# Processes left in the chroot (a barod of a failed check) keep
	# its mounts busy.
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] &&
			kill -KILL "${p#/proc/}" 2>/dev/null
	done
	for m in $(mounts_under); do
		umount "$m" 2>/dev/null || umount -l "$m" || true
	done
	if [ -n "$(mounts_under)" ]; then
		say "still mounted under $root, not deleting it:"
		mounts_under >&2
	elif [ $keep -eq 1 ]; then
		say "kept the root at $root"
	else
		rm -rf --one-file-system "$root"
	fi
	rm -rf "$work"
	say "duration $(elapsed) (exit $st)"
	exit $st
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# The same Debian archive as this machine's apt: its bookworm entries,
# without third-party repositories, renamed to the release wanted
# (bookworm-updates and bookworm-security become trixie-updates and
# trixie-security; snapshot-style URIs are left alone, as the mirror's
# directory holds every suite).  debian-archive-keyring on Debian 12 has
# the Debian 13 keys.
for f in /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	awk 'BEGIN { RS = ""; ORS = "\n\n" }
	     /(^|\n)Suites:[^\n]*[ \t]bookworm([ \t\n-]|$)/' "$f"
done | sed "/^Suites:/s/bookworm/$release/g" >"$work/debian.sources"
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
	[ -f "$f" ] || continue
	grep -E '^[[:space:]]*deb[[:space:]]+(\[[^]]*\][[:space:]]+)?[^[:space:]]+[[:space:]]+bookworm(-[a-z]+)?[[:space:]]' "$f" || true
done | sed -E "s/([[:space:]])bookworm(-[a-z]+)?([[:space:]])/\\1$release\\2\\3/" >"$work/debian.list"
mirrors=""
for f in "$work/debian.sources" "$work/debian.list"; do
	[ -s "$f" ] && mirrors="$mirrors $f"
done
[ -n "$mirrors" ] || { say "no bookworm entry in /etc/apt/sources.list*"; exit 1; }
say "archive: $(grep -h -E '^URIs:|^deb' $mirrors | tr -s ' \n' ' ')"

say "mmdebstrap --variant=minbase $release $root"
mmdebstrap --quiet --variant=minbase --mode=root --format=directory \
	"$release" "$root" $mirrors
say "root built in $(elapsed)"

# The host's CA bundle as a local CA of the chroot: ca-certificates,
# once ./dev installs it, adds it to the bundle it builds.
mkdir -p "$root/usr/local/share/ca-certificates" "$root/etc/ssl/certs"
cp /etc/ssl/certs/ca-certificates.crt \
	"$root/usr/local/share/ca-certificates/host-bundle.crt"
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
cat /etc/resolv.conf >"$root/etc/resolv.conf"

# The clone: the files git knows (tracked, or new and not ignored), with
# a git history of their own, as `git clone` would give.
dest="$root/root/barod"
mkdir -p "$dest"
git ls-files -co --exclude-standard | while IFS= read -r f; do
	[ -e "$f" ] && printf '%s\n' "$f"
done | tar -cf - -T - | tar -C "$dest" -xf -
rev=$(git rev-parse --short HEAD)
git -C "$dest" init -q
git -C "$dest" add -A
git -C "$dest" -c user.name=fresh -c user.email=fresh@localhost \
	commit -q -m "fresh: copy of $rev"
say "copied $(git -C "$dest" ls-files | wc -l) files of $rev"

# The root a mount point of its own, as a machine's / is: unshare
# --mount (the unit and control socket tests) makes it private.
mount --bind "$root" "$root"
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --make-rslave "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
mount -t tmpfs tmpfs "$root/dev/shm"
mount -t tmpfs tmpfs "$root/run"
mount -t tmpfs tmpfs "$root/tmp"
# The flight logs beside the source tree (../shared/data/logs, where the
# build looks for them), at the same place beside the chroot's clone.
if [ -d ../shared/data/logs ]; then
	mkdir -p "$root/root/shared/data/logs"
	mount --bind ../shared/data/logs "$root/root/shared/data/logs"
	mount -o remount,bind,ro "$root/root/shared/data/logs"
fi

# A login's environment, with no XDG_RUNTIME_DIR (as root on a console).
say "running the README's commands in the chroot ($(elapsed) so far)"
chroot "$root" /usr/bin/env -i \
	HOME=/root USER=root LOGNAME=root LANG=C.UTF-8 TERM=dumb \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	NODE_EXTRA_CA_CERTS=/usr/local/share/ca-certificates/host-bundle.crt \
	FRESH_RELEASE="$release" CI="${CI:-true}" \
	/bin/sh /root/barod/tests/system/fresh/run.sh --inside
say "PASS both README commands on a clean $label root"

# The same root as a plain chroot has it: in a mount namespace of this
# script's own, the bind that made it a mount point goes (with all below
# it) and what a chroot needs is mounted on the bare directory.  /run
# stays the root's plain directory, as a chroot leaves it.
say "the plain suite where / is not a mount point ($(elapsed) so far)"
unshare --mount sh -eu -c '
	root=$1
	umount -l "$root"
	mount -t proc proc "$root/proc"
	mount --rbind /sys "$root/sys"
	mount --bind /dev "$root/dev"
	mount --bind /dev/pts "$root/dev/pts"
	mount -t tmpfs tmpfs "$root/dev/shm"
	mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
	if [ -d ../shared/data/logs ]; then
		mount --bind -o ro ../shared/data/logs "$root/root/shared/data/logs"
	fi
	exec chroot "$root" /usr/bin/env -i \
		HOME=/root USER=root LOGNAME=root LANG=C.UTF-8 TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		FRESH_RELEASE="$2" FRESH_PLAIN_AS="$3" \
		/bin/sh /root/barod/tests/system/fresh/run.sh --plain
' sh "$root" "$release" "$plain_as"
say "PASS the plain suite as $(echo "$plain_as" | sed "s/,/ and as /") in a plain chroot"
