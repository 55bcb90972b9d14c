#!/bin/sh
# Checks of what `meson install` puts on a system for barod as a service:
#
#   check-units.sh [--only STEP] BUILDDIR
#
#  1. install      DESTDIR install: unit, sysusers.d, tmpfiles.d, udev rules
#  2. verify       systemd-analyze verify on the installed unit
#  3. security     systemd-analyze security --offline: exposure <= 1.5
#  4. users        systemd-sysusers and systemd-tmpfiles in a scratch root
#  5. udev         udevadm test against fake i2c-dev and gpio devices,
#                  judged by what udevadm reports; udevadm verify (254+)
#  6. boot         barod.service started by a real systemd (PID 1 of a new
#                  PID namespace): READY=1, STATUS=, watchdog, a MAVLink
#                  datagram, control socket, reload, clean stop
#  7. uninstall    `ninja uninstall` leaves no file behind
#
# 4 to 6 need root and mount namespaces of their own (a / that is a mount
# point); each probes for all it needs first (tests/harness/probe.sh) and
# is skipped with the reason where it cannot have it.  --only runs one
# STEP: files (1-3 and 7), udev (4 and 5) or boot (6), as the
# meson tests units, units-udev and units-boot do; a step that --only
# selects and cannot run skips the whole script (exit 77) before any
# check.  Ends with "check-units: N passed, N failed, N skipped".
set -eu

# shellcheck disable=SC2154 # work, rules, root, sbindir... come from the caller
# The parts that run inside namespaces are this script again, with the
# paths in the environment.

# Inside unshare --mount: see step 5.  The probe makes the same mounts
# and nodes (ETC: the passwd and group files to lay over /etc's).
udev_ns_mounts() {
	mount --make-rprivate /
	mount -t tmpfs tmpfs /run
	mount -t tmpfs tmpfs /dev
	mknod -m 666 /dev/null c 1 3
	mknod -m 600 /dev/i2c-1 c 89 1
	mknod -m 600 /dev/gpiochip0 c 254 0
	mount --bind "$1/group" /etc/group
	mount --bind "$1/passwd" /etc/passwd
	for d in /etc/udev/rules.d /usr/lib/udev/rules.d /lib/udev/rules.d; do
		if [ -d "$d" ]; then
			mount -t tmpfs tmpfs "$d"
		fi
	done
	mount -t tmpfs tmpfs /sys
}
# udev_ns_test NAME RULES: udevadm test of RULES alone on both devices,
# each device's output in $work/udev-NAME-DEVICE.log.  udev 252 applies
# what it reports to the nodes and 257 does not, so each run starts from
# fresh nodes and a fresh /run/udev: what one run reports is its own.
udev_ns_test() {
	rm -f /etc/udev/rules.d/* /dev/i2c-1 /dev/gpiochip0
	rm -rf /dev/barod /dev/char /run/udev
	mknod -m 600 /dev/i2c-1 c 89 1
	mknod -m 600 /dev/gpiochip0 c 254 0
	cp "$2" /etc/udev/rules.d/60-barod.rules
	udevadm test --action=add $i2c >"$work/udev-$1-i2c-1.log" 2>&1 || true
	udevadm test --action=add $gpio >"$work/udev-$1-gpiochip0.log" 2>&1 || true
}
in_udev_ns() {
	udev_ns_mounts "$work/sys/etc"
	i2c=/sys/devices/platform/soc/fe804000.i2c/i2c-1/i2c-dev/i2c-1
	gpio=/sys/devices/platform/soc/fe200000.gpio/gpiochip0
	mkdir -p $i2c $gpio /sys/class/i2c-dev /sys/bus/gpio/devices
	printf 'MAJOR=89\nMINOR=1\nDEVNAME=i2c-1\n' >$i2c/uevent
	echo 89:1 >$i2c/dev
	echo 'bcm2835 (i2c@7e804000)' >$i2c/name
	ln -s ../../../../../../../class/i2c-dev $i2c/subsystem
	ln -s ../../devices/platform/soc/fe804000.i2c/i2c-1/i2c-dev/i2c-1 \
		/sys/class/i2c-dev/i2c-1
	printf 'MAJOR=254\nMINOR=0\nDEVNAME=gpiochip0\n' >$gpio/uevent
	echo 254:0 >$gpio/dev
	ln -s ../../../../bus/gpio $gpio/subsystem
	ln -s ../../../devices/platform/soc/fe200000.gpio/gpiochip0 \
		/sys/bus/gpio/devices/gpiochip0
	# A tmpfs is not sysfs; this is systemd's switch for such tests.
	# No colour codes in what step 5 parses, whatever the caller asked.
	export SYSTEMD_DEVICE_VERIFY_SYSFS=0 SYSTEMD_COLORS=0
	udev_ns_test rules "$rules"
	udev_ns_test broken "$work/broken.rules"
	udev_ns_test invalid "$work/invalid.rules"
	# udevadm verify (systemd 254+) resolves the group names here,
	# against step 4's groups.
	if udevadm verify --help >/dev/null 2>&1; then
		rc=0
		udevadm verify "$rules" >"$work/verify-rules.log" 2>&1 || rc=$?
		echo $rc >"$work/verify-rules.rc"
		rc=0
		udevadm verify "$work/invalid.rules" \
			>"$work/verify-invalid.log" 2>&1 || rc=$?
		echo $rc >"$work/verify-invalid.rc"
	fi
}

# The namespace's PID 1 until it execs systemd: see step 6.  The probe
# makes the same mounts, its overlays' writes in DIR.
boot_ns_mounts() {
	mount --make-rprivate /
	mount -t tmpfs tmpfs /run
	for d in etc var; do
		mkdir -p "$1/$d-up" "$1/$d-wk"
		mount -t overlay overlay -o \
			"lowerdir=/$d,upperdir=$1/$d-up,workdir=$1/$d-wk" "/$d"
	done
	mount -t overlay overlay -o "lowerdir=$2$sbindir:$sbindir" "$sbindir"
	umount -l /sys/fs/cgroup 2>/dev/null || true
	mount -t cgroup2 cgroup2 /sys/fs/cgroup
}
in_boot_ns() {
	boot_ns_mounts "$work" "$root"
	systemd-sysusers "$sysusers"
	mkdir -p /etc/barod /run/systemd/system/barod.service.d
	printf '[barod]\nsource = sim\nrecord = /var/lib/barod/record.csv\n[output ci]\ntype = udp-client\naddress = 127.0.0.1:%s\n' \
		"$port" >/etc/barod/barod.conf
	cp "$unit" /run/systemd/system/barod.service
	printf '[Unit]\nDefaultDependencies=no\n' \
		>/run/systemd/system/barod.service.d/ci.conf
	printf '[Unit]\nDescription=barod CI\nDefaultDependencies=no\nWants=barod.service systemd-journald.socket systemd-journald.service\n' \
		>/run/systemd/system/barod-ci.target
	exec env -i container=barod-ci PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		/lib/systemd/systemd --unit=barod-ci.target --show-status=no \
		--log-target=null
}

case "${1:-}" in
--in-udev-ns) in_udev_ns; exit ;;
--probe-udev-ns) udev_ns_mounts /etc; exit ;;
--in-boot-ns) in_boot_ns ;;
--probe-boot-ns) boot_ns_mounts "$work" "$work/root"; exit ;;
esac
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
. "$(dirname "$self")/../harness/probe.sh"

only=""
if [ "${1:-}" = "--only" ] && [ $# -ge 2 ]; then
	only=$2
	shift 2
fi
case $only in "" | files | udev | boot) ;; *) set -- ;; esac
[ $# -eq 1 ] || {
	sed -n '2,23p' "$0" >&2
	exit 2
}
build=$(cd "$1" && pwd)
want() { [ -z "$only" ] || [ "$only" = "$1" ]; }

passed=0 failed=0 skipped=0
ok() { passed=$((passed + 1)); echo "check-units: ok: $*"; }
bad() { failed=$((failed + 1)); echo "check-units: FAIL: $*"; }
skip() { skipped=$((skipped + 1)); echo "check-units: skip: $*"; }
# cannot STEP WHAT [WHY]: STEP cannot run here.  Alone (--only), the
# whole script skips; among others, the step does.
cannot() {
	if [ -n "$only" ]; then
		skip_needs "check-units $1" "$2" "${3:-}"
	fi
	skip "$1: needs $2${3:+ ($3)}"
}

work=$(mktemp -d /tmp/barod-units-XXXXXX)
root=$work/root
ns_pid=""
cgroup=""
udp_pid=""
stop_ns() {
	if [ -n "$udp_pid" ]; then
		kill "$udp_pid" 2>/dev/null || true
		udp_pid=""
	fi
	if [ -n "$ns_pid" ]; then
		# PID 1 of the namespace: its death ends every process in it.
		kill -KILL "$ns_pid" 2>/dev/null || true
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 "$ns_pid" 2>/dev/null || break
			sleep 0.2
		done
	fi
	if [ -n "$cgroup" ] && [ -d "$cgroup" ]; then
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			find "$cgroup" -depth -type d -exec rmdir {} \; \
				2>/dev/null || true
			[ -d "$cgroup" ] || break
			sleep 0.2
		done
	fi
	ns_pid="" cgroup=""
}
cleanup() {
	stop_ns
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

option() {
	meson introspect --buildoptions "$build" |
		sed -n "s/.*{\"name\": \"$1\", \"value\": \"\([^\"]*\)\".*/\1/p"
}

prefix=$(option prefix)
sbindir=$(option sbindir)
case $sbindir in /*) ;; *) sbindir=$prefix/$sbindir ;; esac

cgroup2_root() {
	for d in /sys/fs/cgroup /sys/fs/cgroup/unified; do
		if [ "$(stat -fc %T "$d" 2>/dev/null)" = cgroup2fs ]; then
			echo "$d"
			return
		fi
	done
}

# ------------------------------------------------------------------ probes
# What steps 5 and 6 need, all of it, before any check: each namespace is
# set up as the step sets it up, then left.

# probe_udev: sets why and returns 1 when step 5 cannot run here.
probe_udev() {
	why=""
	if [ "$(id -u)" -ne 0 ]; then
		why="not root"
	elif ! command -v unshare >/dev/null; then
		why="no unshare (Debian package util-linux)"
	elif ! command -v udevadm >/dev/null; then
		why="no udevadm (Debian package udev)"
	elif ! probe_run "$work/probe-udev.log" \
		unshare --mount "$self" --probe-udev-ns; then
		why=$(probe_why "$work/probe-udev.log")
	fi
	[ -z "$why" ]
}

# probe_boot: the same for step 6, in a child cgroup of its own.
probe_boot() {
	why=""
	if [ "$(id -u)" -ne 0 ]; then
		why="not root"
	elif [ ! -x /lib/systemd/systemd ] || ! command -v nsenter >/dev/null ||
		! command -v unshare >/dev/null; then
		why="no /lib/systemd/systemd, nsenter or unshare (Debian packages systemd, util-linux)"
	elif [ -z "$(cgroup2_root)" ]; then
		why="no cgroup2 hierarchy at /sys/fs/cgroup"
	elif ! grep -qw overlay /proc/filesystems; then
		why="no overlayfs for a throw-away /etc and /var"
	elif [ ! -d "$sbindir" ]; then
		why="$sbindir does not exist to lay the DESTDIR's binary over"
	elif ! mkdir "$(cgroup2_root)/barod-probe-$$" 2>"$work/probe-boot.log"; then
		why="cannot make a child cgroup: $(probe_why "$work/probe-boot.log")"
	else
		mkdir -p "$work/probe/root$sbindir"
		probe_run "$work/probe-boot.log" sh -c '
			echo 0 >"$1/cgroup.procs" &&
			work=$2 sbindir=$3 exec unshare --pid --fork --mount \
				--cgroup --mount-proc "$4" --probe-boot-ns
			' sh "$(cgroup2_root)/barod-probe-$$" "$work/probe" \
			"$sbindir" "$self" ||
			why=$(probe_why "$work/probe-boot.log")
		rmdir "$(cgroup2_root)/barod-probe-$$" 2>/dev/null || true
	fi
	[ -z "$why" ]
}

udev_need="root (tmpfiles gives /var/lib/barod to barod) and a mount namespace with its own /dev, /run and /sys"
boot_need="root, systemd, and PID, mount and cgroup namespaces for systemd as PID 1"
run_udev=no run_boot=no
# systemd-analyze as a user makes /run/systemd if a booted system has not.
run_files=no
if ! want files; then
	:
elif [ "$(id -u)" -ne 0 ] && [ ! -d /run/systemd ]; then
	cannot files "root, or a booted system's /run/systemd" \
		"systemd-analyze makes /run/systemd otherwise"
else
	run_files=yes
fi
if want udev; then
	if probe_udev; then run_udev=yes; else cannot udev "$udev_need" "$why"; fi
fi
if want boot; then
	if probe_boot; then run_boot=yes; else cannot boot "$boot_need" "$why"; fi
fi

# ------------------------------------------------------------------ 1
meson install -C "$build" --no-rebuild --quiet --destdir "$root" \
	>"$work/install.log" 2>&1 || {
	cat "$work/install.log"
	bad "meson install --destdir failed"
	echo "check-units: $passed passed, $failed failed, $skipped skipped"
	exit 1
}
find_one() { find "$root" -path "*/$1" \( -type f -o -type l \) | head -n 1; }
unit=$(find_one systemd/system/barod.service)
sysusers=$(find_one sysusers.d/barod.conf)
tmpfiles=$(find_one tmpfiles.d/barod.conf)
rules=$(find_one rules.d/60-barod.rules)
barod=$(find_one sbin/barod)
baroctl=$(find_one bin/baroctl)
missing=""
[ -n "$unit" ] || missing="$missing barod.service"
[ -n "$sysusers" ] || missing="$missing sysusers.d"
[ -n "$tmpfiles" ] || missing="$missing tmpfiles.d"
[ -n "$rules" ] || missing="$missing 60-barod.rules"
[ -n "$barod" ] || missing="$missing barod"
[ -n "$baroctl" ] || missing="$missing baroctl"
if [ -n "$missing" ]; then
	bad "not installed:$missing (configured with -Dsystemd=disabled?)"
	echo "check-units: $passed passed, $failed failed, $skipped skipped"
	exit 1
fi
case $unit in
"$root$prefix"/* | "$root"/lib/* | "$root"/usr/lib/*)
	ok "install: unit ${unit#"$root"}, rules ${rules#"$root"}" ;;
*) bad "install: unit outside the prefix: ${unit#"$root"}" ;;
esac
grep -q "^ExecStart=$sbindir/barod\$" "$unit" ||
	bad "install: ExecStart is not $sbindir/barod"

# ------------------------------------------------------------------ 2
# verify checks that ExecStart's binary exists: a copy of the unit points
# into DESTDIR.  Documentation= man pages are not installed there.
if [ $run_files = yes ]; then
	mkdir -p "$work/verify"
	sed "s|^ExecStart=|ExecStart=$root|" "$unit" >"$work/verify/barod.service"
	if out=$(systemd-analyze verify --man=no "$work/verify/barod.service" 2>&1) &&
		[ -z "$out" ]; then
		ok "verify: systemd-analyze verify is silent"
	else
		printf '%s\n' "$out"
		bad "verify: systemd-analyze verify complained"
	fi
fi

# ------------------------------------------------------------------ 3
# --threshold counts tenths: 15 is an exposure of 1.5 ("OK").  The points
# left are what barod needs (its devices, groups and sockets) or would
# cost its users (an IP allow list: see doc/hardware.md).
if [ $run_files = yes ]; then
	sec=$(systemd-analyze security --offline=true --threshold=15 "$unit" 2>&1) &&
		rc=0 || rc=$?
	level=$(printf '%s\n' "$sec" | sed -n 's/.*Overall exposure level for [^:]*: //p')
	if [ "$rc" -eq 0 ] && [ -n "$level" ]; then
		ok "security: exposure $level"
	else
		printf '%s\n' "$sec" | grep '✗' || true
		bad "security: exposure ${level:-unknown} (want <= 1.5)"
	fi
fi

# ------------------------------------------------------------------ 4
# Step 5 takes its groups from here too.
mkdir -p "$work/sys/etc"
cp /etc/passwd /etc/group "$work/sys/etc/"
sysusers_ok=no
systemd-sysusers --root="$work/sys" "$sysusers" >"$work/sysusers.log" 2>&1 &&
	systemd-tmpfiles --create --root="$work/sys" "$tmpfiles" \
		>>"$work/sysusers.log" 2>&1 &&
	sysusers_ok=yes
if [ $run_udev = no ]; then
	:
elif [ $sysusers_ok = yes ] &&
	grep -q '^barod:[^:]*:[0-9]*:[0-9]*:[^:]*:/var/lib/barod:' \
		"$work/sys/etc/passwd" &&
	grep -q '^i2c:' "$work/sys/etc/group" &&
	grep -q '^gpio:' "$work/sys/etc/group" &&
	[ "$(stat -c %a "$work/sys/var/lib/barod")" = 750 ] &&
	[ "$(stat -c %u "$work/sys/var/lib/barod")" = \
		"$(sed -n 's/^barod:[^:]*:\([0-9]*\):.*/\1/p' "$work/sys/etc/passwd")" ]; then
	ok "users: barod user, i2c and gpio groups, /var/lib/barod 0750 barod"
else
	cat "$work/sysusers.log"
	bad "users: sysusers.d/tmpfiles.d snippets"
fi

# ------------------------------------------------------------------ 5
# udevadm test runs the rules against a fake sysfs, in a mount namespace
# whose /dev, /run, /sys and rules directories are scratch ones, so the
# host's nodes are not touched; the groups come from step 4's passwd and
# group files.  The check reads what udevadm says the device gets, not
# the node: udev 252 applies it to the node, 257 only reports it ("for
# debugging only") and leaves the node root 0600.

# udev_result LOG: "OWNER:GROUP MODE LINKS" for the device whose udevadm
# test output LOG is, or "no result" when LOG has neither release's
# report.  Names come from step 4's files, so both releases print alike.
udev_result() {
	# 252: the line where it sets them, uid, gid and mode always given.
	perm=$(sed -n 's/^[^ ]*: \(Setting permissions\|Preserve permissions of\) [^ ]*, uid=\([0-9]*\), gid=\([0-9]*\), mode=\(0[0-7]*\)$/\2 \3 \4/p' \
		"$1" | tail -n 1)
	if [ -n "$perm" ]; then
		u=${perm%% *} g=${perm#* } m=${perm##* }
		g=${g%% *}
	elif grep -q '^Inotify watch:$' "$1"; then
		# 257: a heading, then the value on an indented line, after
		# the properties of every device with a node; a heading only
		# for what the rules set.  What they leave is udev's default:
		# root, no group, 0660 with a group and 0600 without.
		u=$(sed -n '/^Device node owner:$/{n;s/.*(uid=\([0-9]*\))$/\1/p;}' "$1")
		g=$(sed -n '/^Device node group:$/{n;s/.*(gid=\([0-9]*\))$/\1/p;}' "$1")
		m=$(sed -n '/^Device node permission:$/{n;s/^ *\(0[0-7]*\)$/\1/p;}' "$1")
		[ -n "$m" ] || { [ -n "$g" ] && m=0660; } || m=0600
		u=${u:-0} g=${g:-0}
	else
		echo "no result"
		return
	fi
	user=$(awk -F: -v id="$u" '$3 == id { print $1; exit }' "$work/sys/etc/passwd")
	group=$(awk -F: -v id="$g" '$3 == id { print $1; exit }' "$work/sys/etc/group")
	# Both list the links as a property, 257 indented.
	links=$(sed -n 's/^ *DEVLINKS=//p' "$1" | tr ' ' '\n' | sort | tr '\n' ' ')
	echo "${user:-$u}:${group:-$g} $m $links" | sed 's/ *$//'
}

# udev_expect NAME DEVICE WANT: WANT is what the NAME run gave DEVICE;
# otherwise prints what it gave and udevadm's lines about the rules.
udev_expect() {
	got=$(udev_result "$work/udev-$1-$2.log")
	[ "$got" = "$3" ] && return
	grep -v '^Reading rules\|^Trying to open\|^Parsed conf' \
		"$work/udev-$1-$2.log" | tail -n 30
	echo "check-units: $1: $2 got '$got', want '$3'"
	return 1
}

# udev_complains NAME: udevadm test said something is wrong with the
# NAME run's rules file.
udev_complains() {
	cat "$work/udev-$1-i2c-1.log" "$work/udev-$1-gpiochip0.log" |
		grep -i '60-barod.rules.*\(invalid\|ignor\|unknown\|error\)'
}

if [ $run_udev = yes ]; then
	# Two copies show that the check reads udevadm and can fail:
	# broken.rules has another group, mode and link name, which the
	# parse must report as such; invalid.rules has an operator udev
	# rejects, so udevadm says so and ignores the line: /dev/i2c-1 keeps
	# udev's default, root 0600.
	sed -e 's/GROUP="[a-z0-9]*"/GROUP="barod"/' -e 's/MODE="0660"/MODE="0640"/' \
		-e 's|SYMLINK+="barod/i2c-|SYMLINK+="barod/bus-|' "$rules" \
		>"$work/broken.rules"
	sed 's/GROUP="i2c"/GROUP=="i2c"/' "$rules" >"$work/invalid.rules"
	link=/dev/barod/i2c-bcm2835__i2c@7e804000_
	work=$work rules=$rules unshare --mount "$self" --in-udev-ns \
		>"$work/udev.log" 2>&1 || cat "$work/udev.log"
	if udev_expect rules i2c-1 "root:i2c 0660 $link" &&
		udev_expect rules gpiochip0 "root:gpio 0660" &&
		! udev_complains rules; then
		ok "udev: udevadm test gives /dev/i2c-1 root:i2c 0660 and $link, /dev/gpiochip0 root:gpio 0660"
	else
		bad "udev: rules do not give the expected owner, group, mode or link"
	fi
	if udev_expect broken i2c-1 \
		"root:barod 0640 /dev/barod/bus-bcm2835__i2c@7e804000_" &&
		udev_expect broken gpiochip0 "root:barod 0640" &&
		udev_expect invalid i2c-1 "root:root 0600 $link" &&
		udev_complains invalid >/dev/null; then
		ok "udev: a copy with other values is read as such, an invalid one refused"
	else
		bad "udev: a broken or invalid copy of the rules was not read as such"
	fi
	if [ -f "$work/verify-rules.rc" ]; then
		if [ "$(cat "$work/verify-rules.rc")" = 0 ] &&
			[ "$(cat "$work/verify-invalid.rc")" != 0 ]; then
			ok "udev: udevadm verify passes the rules, refuses an invalid copy"
		else
			cat "$work/verify-rules.log" "$work/verify-invalid.log"
			bad "udev: udevadm verify"
		fi
	else
		skip "udev: udevadm verify needs systemd 254 (this is $(udevadm --version))"
	fi
fi

# ------------------------------------------------------------------ 6
# PID 1 on this machine (and in CI) is not systemd, so systemd runs as PID
# 1 of a new PID, mount and cgroup namespace: /run is a tmpfs, /etc and
# /var are overlays whose writes land in $work, the cgroup2 hierarchy is
# a fresh child cgroup, and the DESTDIR's binary is laid over $sbindir.
# The unit is the installed one; a drop-in only removes the default
# dependencies (sysinit.target would start the whole OS: udev, getty...).

# Bounded: a wedged manager fails the check instead of hanging CI.
# -r -w: joining a mount namespace resets the root to the namespace's;
# in a chroot (./dev fresh) that would be the host's, not systemd's.
in_ns() { timeout 30 nsenter -t "$ns_pid" -m -p -r -w "$@"; }

boot_check() {
	udp_wait=$build/tests/system/udp-wait
	"$udp_wait" 20000 >"$work/udp.out" &
	udp_pid=$!
	for _ in $(seq 50); do
		port=$(sed -n 's/^port //p' "$work/udp.out")
		[ -n "$port" ] && break
		sleep 0.1
	done
	cgroup=$(cgroup2_root)/barod-ci-$$
	mkdir "$cgroup"
	# The subshell moves itself ("0") into the cgroup and becomes
	# unshare, whose child is the namespace's PID 1.
	(
		echo 0 >"$cgroup/cgroup.procs"
		export work root sbindir sysusers unit port
		exec unshare --pid --fork --mount --cgroup --mount-proc \
			"$self" --in-boot-ns
	) >"$work/boot.log" 2>&1 &
	unshare_pid=$!
	for _ in $(seq 100); do
		ns_pid=$(pgrep -P "$unshare_pid" || true)
		[ -n "$ns_pid" ] && break
		sleep 0.1
	done
	if [ -z "$ns_pid" ]; then
		cat "$work/boot.log"
		bad "boot: systemd did not start"
		return
	fi
	# Type=notify: "active" only after barod's READY=1.
	state=""
	for _ in $(seq 100); do
		state=$(in_ns systemctl is-active barod.service 2>/dev/null || true)
		[ "$state" = active ] || [ "$state" = failed ] && break
		sleep 0.2
	done
	if [ "$state" != active ]; then
		in_ns systemctl status barod.service --no-pager 2>&1 || true
		in_ns journalctl -u barod --no-pager 2>&1 | tail -n 20 || true
		bad "boot: barod.service is '$state', not active"
		return
	fi
	ok "boot: barod.service active under systemd $(in_ns systemctl --version | sed -n '1s/systemd \([0-9]*\).*/\1/p') (READY=1)"

	if wait "$udp_pid"; then
		udp_pid=""
		ok "boot: $(tail -n 1 "$work/udp.out") on 127.0.0.1:$port"
	else
		udp_pid=""
		bad "boot: $(tail -n 1 "$work/udp.out")"
	fi
	wd1=$(in_ns systemctl show -p WatchdogTimestampMonotonic --value barod)
	sleep 2.2
	show=$(in_ns systemctl show -p StatusText -p WatchdogUSec \
		-p WatchdogTimestampMonotonic -p User -p NRestarts barod)
	wd2=$(printf '%s\n' "$show" | sed -n 's/^WatchdogTimestampMonotonic=//p')
	status=$(printf '%s\n' "$show" | sed -n 's/^StatusText=//p')
	n=$(printf '%s\n' "$status" |
		sed -n 's/^sim: 2\/2 sensors healthy, \([0-9]*\) samples published, 0 dropped$/\1/p')
	if [ -n "$n" ] && [ "$n" -gt 0 ]; then
		ok "boot: STATUS=$status"
	else
		bad "boot: STATUS='$status'"
	fi
	if [ "$wd1" != "$wd2" ] && [ "$wd2" -gt 0 ] &&
		printf '%s\n' "$show" | grep -qx 'WatchdogUSec=10s'; then
		ok "boot: WATCHDOG=1 pings (WatchdogSec=10s)"
	else
		bad "boot: no watchdog pings ($wd1 then $wd2)"
	fi
	# stderr is the journal: "<5>" became PRIORITY=5 (notice), not text.
	if in_ns journalctl -u barod -p notice..notice -o cat --no-pager |
		grep -q '^running: 2 simulated baro' &&
		! in_ns journalctl -u barod -o cat --no-pager | grep -q '^<[0-9]>'; then
		ok "boot: journal priorities from the <N> prefixes"
	else
		in_ns journalctl -u barod -o verbose --no-pager | tail -n 30
		bad "boot: journal priorities"
	fi
	user=$(in_ns ps -o user= -C barod | head -n 1 | tr -d ' ')
	if [ "$user" = barod ] &&
		in_ns "$baroctl" -s /run/barod/control status |
		grep -q '^baro 0 healthy'; then
		ok "boot: runs as barod; baroctl reaches /run/barod/control"
	else
		bad "boot: user '$user' or control socket"
	fi
	in_ns systemctl reload barod || true
	sleep 0.5
	if in_ns journalctl -u barod -o cat --no-pager | grep -q 'configuration reloaded'; then
		ok "boot: systemctl reload (SIGHUP)"
	else
		bad "boot: reload not logged"
	fi
	in_ns systemctl stop barod || true
	show=$(in_ns systemctl show -p ActiveState -p Result -p ExecMainStatus barod)
	if printf '%s\n' "$show" | grep -qx 'ActiveState=inactive' &&
		printf '%s\n' "$show" | grep -qx 'Result=success' &&
		printf '%s\n' "$show" | grep -qx 'ExecMainStatus=0' &&
		in_ns test -s /var/lib/barod/record.csv &&
		[ "$(in_ns stat -c %U /var/lib/barod/record.csv)" = barod ]; then
		ok "boot: clean stop; recorded to /var/lib/barod (StateDirectory)"
	else
		printf '%s\n' "$show"
		in_ns journalctl -u barod -o cat --no-pager | tail -n 20
		bad "boot: stop or recording"
	fi
}

if [ $run_boot = yes ]; then
	boot_check
	stop_ns
fi

# ------------------------------------------------------------------ 7
if [ $run_files = yes ]; then
	DESTDIR=$root ninja -C "$build" uninstall >"$work/uninstall.log" 2>&1 || true
	left=""
	if [ -d "$root" ]; then
		left=$(find "$root" ! -type d)
	fi
	if [ -z "$left" ]; then
		ok "uninstall: nothing left in DESTDIR"
	else
		printf '%s\n' "$left"
		bad "uninstall left files behind"
	fi
fi

echo "check-units: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
