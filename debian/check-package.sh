#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   debian/check-package.sh [BAROD.deb]
#
# Builds the Debian package from this tree (dpkg-buildpackage -us -uc -b,
# in a copy under build-deb/), or takes BAROD.deb, installs it on this
# machine with apt,
# checks that every file is where it belongs and the programs run, then
# purges it and checks that nothing of it is left.  Needs root (or sudo)
# for the install; ./dev deb installs the build dependencies first.
set -eu
cd "$(dirname "$0")/.."

out=build-deb
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo

fail() {
	echo "deb: FAIL $*" >&2
	failed=1
}
failed=0

# The package must not replace a barod someone installed on purpose.
if dpkg-query -W -f='${db:Status-Status}\n' barod 2>/dev/null |
	grep -qv '^not-installed$'; then
	if [ "${CI:-}" = true ]; then
		echo "deb: barod is already installed here; cannot test a clean install" >&2
		exit 1
	fi
	echo "deb: barod is installed on this machine; not building over it (skipped)" >&2
	exit 0
fi

# Build from the files git knows (tracked or new, not ignored), as a fresh
# clone would have them: no build directories, no node_modules.
start=$(date +%s)
rm -rf "$out"
mkdir -p "$out/src"
if [ $# -gt 0 ]; then
	deb=$(realpath "$1")
else
	git ls-files -co --exclude-standard | while IFS= read -r f; do
		[ -e "$f" ] && printf '%s\n' "$f"
	done | tar -cf - -T - | tar -C "$out/src" -xf -
	if ! (cd "$out/src" && dpkg-buildpackage -us -uc -b -jauto) \
		>"$out/build.log" 2>&1; then
		tail -n 60 "$out/build.log" >&2
		echo "deb: FAIL dpkg-buildpackage (whole log: $out/build.log)" >&2
		exit 1
	fi
	deb=$(realpath "$out"/barod_*.deb)
	echo "deb: built $deb in $(($(date +%s) - start)) s" >&2
fi

# Everything of ours on the file system, by name, before and after.
snapshot() {
	for d in /etc /usr /var /opt /lib /srv; do
		[ -d "$d" ] && [ ! -L "$d" ] && printf '%s\n' "$d"
	done | xargs -I{} find {} \( -path /var/cache/apt -o -path /proc \) \
		-prune -o \( -name '*barod*' -o -name 'baroctl*' \
		-o -name 'baro-sim*' -o -name 'baro-replay*' \
		-o -name 'baro-drive*' -o -name 'baro-campaign*' \) -print 2>/dev/null |
		sort
}
snapshot >"$out/before.txt"

DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
	--no-install-recommends "$deb" >"$out/install.log" 2>&1 || {
	cat "$out/install.log" >&2
	echo "deb: FAIL apt-get install" >&2
	exit 1
}

echo "deb: dpkg -L barod:" >&2
dpkg -L barod | tee "$out/files.txt" | sed 's/^/  /' >&2

# Where each file belongs.  The unit, sysusers.d and tmpfiles.d
# directories are systemd's (systemd.pc), the rules directory udev's.
for f in /usr/sbin/barod /usr/bin/baroctl /usr/bin/baro-sim \
	/usr/bin/baro-replay /usr/share/man/man1/baro-replay.1.gz \
	/usr/bin/baro-drive /usr/share/man/man1/baro-drive.1.gz \
	/usr/bin/baro-campaign /usr/share/man/man1/baro-campaign.1.gz \
	/usr/share/barod/scenarios/freeze.scn \
	/usr/include/barod/baro-filter.h \
	/etc/barod/barod.conf \
	/usr/share/man/man8/barod.8.gz /usr/share/man/man5/barod.conf.5.gz \
	/usr/share/man/man1/baroctl.1.gz /usr/share/man/man1/baro-sim.1.gz \
	/usr/lib/sysusers.d/barod.conf /usr/lib/tmpfiles.d/barod.conf \
	/usr/lib/python3/dist-packages/barod_filter.py \
	/usr/share/doc/barod/examples/exec-comp.py \
	/usr/share/doc/barod/examples/exec-comp.m; do
	grep -qx "$f" "$out/files.txt" || fail "$f is not in the package"
	[ -e "$f" ] || fail "$f is not on disk"
done
for pattern in '/lib/systemd/system/barod\.service' \
	'/lib/udev/rules\.d/60-barod\.rules'; do
	f=$(grep -E "^(/usr)?$pattern\$" "$out/files.txt" || true)
	[ -n "$f" ] && [ -e "$f" ] || fail "no $pattern in the package"
done
dpkg-query -W -f='${Conffiles}\n' barod | grep -q '^ /etc/barod/barod.conf ' ||
	fail "/etc/barod/barod.conf is not a conffile"

# What the maintainer scripts did: the user (sysusers.d), its state
# directory (tmpfiles.d), the service enabled (no systemd runs here, so
# nothing is started).
getent passwd barod >/dev/null || fail "no barod user"
[ "$(stat -c %U /var/lib/barod 2>/dev/null)" = barod ] ||
	fail "/var/lib/barod is missing or not barod's"
[ -L /etc/systemd/system/multi-user.target.wants/barod.service ] ||
	fail "barod.service is not enabled"

# The programs run, the installed configuration is valid, and barod runs
# as its user for a second (the sample configuration simulates two baros
# and sends MAVLink to 127.0.0.1:14550).
for cmd in "barod --help" "baroctl --help" "baro-sim --help" \
	"baro-drive --help" "baro-campaign --help" \
	"barod --check-config" \
	"$sudo runuser -u barod -- barod --duration 1 --control none -q"; do
	$cmd >/dev/null 2>"$out/cmd.err" || {
		fail "'$cmd' exited $?: $(cat "$out/cmd.err")"
	}
done
# The installed tool finds the installed scenarios by default; the
# default thresholds fail the raw filter, hence exit status 1.
rep=$(mktemp -d)
rc=0
baro-replay run --synthetic-only --plots none -q -f raw -o "$rep" || rc=$?
[ "$rc" -le 1 ] || fail "baro-replay run exited $rc"
grep -q '^synthetic,freeze,raw,' "$rep/summary.csv" ||
	fail "baro-replay: no freeze run from the installed scenarios"
rm -rf "$rep"
# An exec filter in Python finds the installed module by itself, with
# Debian's python3 (the package's; a python3 of one's own, pyenv's say,
# does not look in /usr/lib/python3/dist-packages).
if [ -x /usr/bin/python3 ]; then
	# dh_python3's postinst compiled it, so the prerm's py3clean must
	# remove the byte-code (the purge check below sees what is left).
	ls /usr/lib/python3/dist-packages/__pycache__/barod_filter.*.pyc \
		>/dev/null 2>&1 || fail "barod_filter.py was not byte-compiled on install"
	rep=$(mktemp -d)
	rc=0
	baro-replay run --synthetic-only --plots none -q --no-baselines \
		-f exec:"/usr/bin/python3 /usr/share/doc/barod/examples/exec-comp.py" \
		-o "$rep" 2>"$out/cmd.err" || rc=$?
	[ "$rc" -le 1 ] || fail "baro-replay with exec-comp.py exited $rc: $(cat "$out/cmd.err")"
	grep -q '^synthetic,freeze,exec:pycomp,' "$rep/summary.csv" ||
		fail "baro-replay: no exec:pycomp run"
	rm -rf "$rep"
fi
if barod --help | grep -q -- '--version'; then
	barod --version >/dev/null || fail "barod --version"
fi
if command -v man >/dev/null; then
	for page in barod barod.conf baroctl baro-sim baro-replay baro-drive baro-campaign; do
		man -w "$page" >/dev/null 2>&1 || fail "man cannot find $page"
	done
fi

# Purge, and nothing of ours is left but the system user and its groups
# (Debian keeps users: files elsewhere may still be theirs).
DEBIAN_FRONTEND=noninteractive $sudo apt-get purge -y -qq barod \
	>"$out/purge.log" 2>&1 || {
	cat "$out/purge.log" >&2
	fail "apt-get purge"
}
dpkg-query -W -f='${db:Status-Status}\n' barod 2>/dev/null |
	grep -qv '^not-installed$' && fail "barod is still known to dpkg"
while IFS= read -r f; do
	[ -d "$f" ] && continue	# shared directories stay (/lib may be a link)
	[ -e "$f" ] || [ -L "$f" ] && fail "$f is left after purge"
done <"$out/files.txt"
snapshot >"$out/after.txt"
if ! diff -u "$out/before.txt" "$out/after.txt" >"$out/left.diff"; then
	fail "files left after purge:"
	cat "$out/left.diff" >&2
fi
getent passwd barod >/dev/null &&
	echo "deb: the barod user stays after purge, as Debian keeps system users" >&2

if [ "$failed" -ne 0 ]; then
	echo "deb: the package check failed (logs in $out/)" >&2
	exit 1
fi
echo "deb: $deb installs, runs and purges cleanly" \
	"($(($(date +%s) - start)) s in all)" >&2
