#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   tests/system/cross/run.sh [TRIPLET...]
#
# Cross-build barod for the Raspberry Pi's architectures (default: both
# cross/*.ini targets) and run the test suites that work under qemu-user.
# ./dev cross installs the toolchains, qemu-user and the multiarch -dev
# packages first, then calls this.
#
# What runs under qemu-user: every test of the build but those that start
# another of barod's programs (a test that depends on an executable
# other than its own, or hands one over in its environment), since
# without binfmt_misc, which containers and CI machines lack, the kernel
# cannot exec an arm program.  That leaves out the cli suite, the barod
# process tests (barod-process, barod-sitl, barod-udp), baro-replay-cli
# and the system units check; it keeps the code whose results depend on
# the architecture (the emulator's bit-exact tests, where arm64's FMA
# contraction would show, the MAVLink codec with its node-mavlink
# cross-check, fuzz replays, chip compensation, log parsers, filters,
# replay; 32-bit long, size_t and pointers on armhf).  The umockdev tests
# are not built at all: Debian's umockdev cannot be installed for a second
# architecture.  The list of what ran and what was left out is printed.
set -eu
cd "$(dirname "$0")/../../.."

# Emulation runs the CPU-bound fuzz mutations about ten times slower.
multiplier=10

targets=${*:-"aarch64-linux-gnu arm-linux-gnueabihf"}
for t in $targets; do
	dir=build-cross-$t
	start=$(date +%s)
	[ -f "$dir/build.ninja" ] ||
		meson setup "$dir" --cross-file "cross/$t.ini" >/dev/null
	# The build yields to tests running beside it (./dev fresh runs
	# two roots at once); the tests under qemu do not.
	nice -n 10 ninja -C "$dir" >&2
	built=$(date +%s)

	meson introspect --tests "$dir" >"$dir/tests.json"
	runnable=$(python3 - "$dir/tests.json" <<'PY'
import json, os, sys
run, skip = [], []
for t in json.load(open(sys.argv[1])):
    own = "@@" + os.path.basename(t["cmd"][0]) + "@exe"
    others = [d.split("@@")[1].split("@")[0] for d in t.get("depends", [])
              if d.endswith("@exe") and not d.endswith(own)]
    for v in list(t["env"].values()) + t["cmd"][1:]:
        if os.path.isfile(v) and os.access(v, os.X_OK) and \
                not v.endswith(".so") and open(v, "rb").read(4) == b"\x7fELF":
            others.append(os.path.basename(v))
    (skip if others else run).append((t["name"], sorted(set(others))))
for name, why in skip:
    print(f"cross: left out {name} (starts {', '.join(why)})", file=sys.stderr)
print(" ".join(name for name, _ in run))
PY
)
	[ -n "$runnable" ] || { echo "cross: $t: no test to run" >&2; exit 1; }
	echo "cross: $t: running $runnable" >&2
	meson test -C "$dir" --no-rebuild --print-errorlogs -t "$multiplier" \
		$runnable
	echo "cross: $t: build $((built - start)) s, tests $(($(date +%s) - built)) s" >&2
done
