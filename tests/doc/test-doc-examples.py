#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""
test-doc-examples.py SOURCE_ROOT BUILD_ROOT MESON

Every shell example in README.md and doc/*.md runs as written, in the
shell README.md sets up (meson devenv -C build: the tools and their
man pages on PATH and MANPATH), or is marked as needing what this
machine cannot give.  A fence's info string says which:

  ```sh                    runs; must exit 0 (within timeout=SECONDS, 120)
  ```sh needs=WHAT         not run: WHAT is one of NEEDS below
  ```sh name=N stop=S      runs until stopped (a daemon): still running
                           after S seconds, then SIGINT, then exit 0
  ```sh with=N             runs while block N (earlier, same page) does
  ```text file=NAME        any block: written to NAME first, so a later
                           example that reads NAME runs as written

Every fence names its language (sh, text, ini, c, ...): a bare ``` is
refused, so a shell example cannot hide from this test.  Each page's
examples run in order in a fresh directory of their own, with HOME,
TMPDIR and XDG_RUNTIME_DIR inside it.
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

# What a marked example needs, and why this test cannot give it.
NEEDS = {
    "setup": "the set-up itself (./dev installs packages as root); "
             "this test runs after it",
    "ardupilot": "an ArduPilot SITL build (its tree, sim_vehicle.py)",
    "px4": "a PX4-Autopilot build (make px4_sitl) or its simulators",
    "hardware": "a barometer on I2C, a Raspberry Pi or a flight controller",
    "service": "barod installed as a system service (root, systemd)",
    "flight-log": "a flight log of your own (flight.bin, .ulg, .tlog)",
    "dev-run": "a ./dev run in another terminal",
    "own-code": "code of your own (the filter the page builds up)",
    "root": "root on this machine (chroots, mounts, namespaces)",
    "long-run": "minutes of a developer's machine (fuzzing, soaking)",
    "cluster": "a Slurm or Kubernetes cluster with the logs on shared storage",
    "container": "a Docker or Podman engine (none runs on the CI machines)",
    "octave": "GNU Octave (octave-cli), not one of barod's dependencies",
}
SHELLS = ("sh", "bash", "shell")
DEFAULT_TIMEOUT = 120
STOP_GRACE = 15


class Block:
    def __init__(self, page, line, info, text):
        self.page, self.line, self.text = page, line, text
        words = info.split()
        self.lang = words[0] if words else ""
        self.attrs = {}
        for w in words[1:]:
            k, _, v = w.partition("=")
            self.attrs[k] = v

    def where(self):
        return "%s:%d" % (self.page, self.line)


def blocks_of(root, page):
    """The fenced blocks of a page, with their indentation removed."""
    out, errors = [], []
    path = os.path.join(root, page)
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)(```+)(.*)$", lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = len(m.group(1)), m.group(2), m.group(3)
        start = i + 1
        body = []
        i += 1
        while i < len(lines) and not re.match(
                r"^\s*" + fence + r"\s*$", lines[i]):
            # The fence's own indentation comes off; a fence at the
            # margin keeps its lines as they are (a Python file= block
            # needs its indentation).
            body.append(lines[i][indent:]
                        if indent == 0 or lines[i][:indent].isspace()
                        else lines[i].lstrip())
            i += 1
        if i == len(lines):
            errors.append("%s:%d: a fence that is never closed" %
                          (page, start))
        i += 1
        b = Block(page, start, info.strip(), "\n".join(body) + "\n")
        if not b.lang:
            errors.append("%s:%d: a fence without a language (say sh, "
                          "text, ini, c ...), so a shell example cannot "
                          "hide from this test" % (page, start))
        out.append(b)
    return out, errors


# The examples running now, each in its own process group: killed
# when this test is (meson's timeout, Ctrl-C), so no daemon outlives it.
LIVE = set()


def kill_live(signum, frame):
    for p in list(LIVE):
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    sys.exit(128 + signum)


def runtime_sockets(run_dir):
    try:
        return {n for n in os.listdir(run_dir)
                if not os.path.isfile(os.path.join(run_dir, n))}
    except OSError:
        return set()


class Runner:
    def __init__(self, devenv, scratch):
        self.devenv, self.scratch = devenv, scratch
        self.env = dict(os.environ)
        for var in ("RUNTIME_DIRECTORY", "NOTIFY_SOCKET", "WATCHDOG_USEC",
                    "MANPATH", "MESON_DEVENV"):
            self.env.pop(var, None)
        self.run_dir = os.path.join(scratch, "run")
        for d, mode in (("home", 0o755), ("tmp", 0o700), ("run", 0o700)):
            os.makedirs(os.path.join(scratch, d), mode, exist_ok=True)
        self.env.update(HOME=os.path.join(scratch, "home"),
                        TMPDIR=os.path.join(scratch, "tmp"),
                        XDG_RUNTIME_DIR=self.run_dir,
                        PAGER="cat", MANPAGER="cat", TERM="dumb")

    def start(self, b):
        log = open(os.path.join(self.scratch, "block-%d.log" % b.line), "w+")
        # The README's shell: meson devenv's environment (its --dump),
        # here in the page's directory.  bash itself, not meson, leads
        # the process group, so SIGINT reaches the example as Ctrl-C.
        p = subprocess.Popen(
            ["bash", "-e", "-c", self.devenv + b.text],
            cwd=self.scratch, stdin=subprocess.DEVNULL, stdout=log,
            stderr=subprocess.STDOUT, env=self.env, start_new_session=True)
        LIVE.add(p)
        return p, log

    @staticmethod
    def output(log):
        log.flush()
        log.seek(0)
        text = log.read()
        log.close()
        return text[-3000:]

    @staticmethod
    def kill(p):
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()
        LIVE.discard(p)

    def run(self, b):
        """None when the example did what it says, else why not."""
        timeout = float(b.attrs.get("timeout") or DEFAULT_TIMEOUT)
        p, log = self.start(b)
        try:
            rc = p.wait(timeout=timeout)
            LIVE.discard(p)
        except subprocess.TimeoutExpired:
            self.kill(p)
            return "still running after %g s:\n%s" % (timeout,
                                                      self.output(log))
        out = self.output(log)
        if rc != 0:
            return "exit status %d:\n%s" % (rc, out)
        return None

    def start_daemon(self, b):
        p, log = self.start(b)
        return p, log

    def stop_daemon(self, b, p, log, after):
        """Stop a stop= block after `after` seconds: it must still run,
        then end with status 0 on SIGINT (Ctrl-C)."""
        deadline = time.monotonic() + after
        while time.monotonic() < deadline and p.poll() is None:
            time.sleep(0.1)
        if p.poll() is not None:
            LIVE.discard(p)
            return "ended by itself (status %d) before it was stopped:\n%s" \
                % (p.returncode, self.output(log))
        os.killpg(p.pid, signal.SIGINT)
        try:
            rc = p.wait(timeout=STOP_GRACE)
            LIVE.discard(p)
        except subprocess.TimeoutExpired:
            self.kill(p)
            return "did not stop within %d s of SIGINT:\n%s" % (
                STOP_GRACE, self.output(log))
        out = self.output(log)
        if rc != 0:
            return "status %d after SIGINT:\n%s" % (rc, out)
        return None

    def wait_ready(self, before, p, limit=20.0):
        """Until the daemon has made a socket in XDG_RUNTIME_DIR (its
        control socket), or limit seconds."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline and p.poll() is None:
            if runtime_sockets(self.run_dir) - before:
                return
            time.sleep(0.1)


def own_network():
    """Run the examples in a network namespace of their own, loopback
    up, when this process may make one (root): they use the documented
    ports (9002, 4560, 14550), and two roots of ./dev fresh run this
    test at the same time on one machine.  None, or why not."""
    import ctypes
    import fcntl
    import socket
    import struct
    CLONE_NEWNET = 0x40000000
    SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
    if os.geteuid() != 0:
        return "not root"
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNET) != 0:
        return "unshare: " + os.strerror(ctypes.get_errno())
    # A namespace whose loopback stays down would fail every example
    # that talks to 127.0.0.1, naming nothing: fail here instead.
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    ifr = struct.pack("16sH14x", b"lo", 0)
    flags = struct.unpack("16sH14x", fcntl.ioctl(s, SIOCGIFFLAGS, ifr))[1]
    fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH14x", b"lo",
                                             flags | IFF_UP))
    s.close()
    return None


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: test-doc-examples.py SOURCE_ROOT BUILD_ROOT MESON")
    root, build, meson = sys.argv[1:]
    why = own_network()
    print("network namespace: %s" % ("its own, loopback only" if why is None
                                     else "the machine's (%s)" % why))
    signal.signal(signal.SIGTERM, kill_live)
    signal.signal(signal.SIGINT, kill_live)
    dump = subprocess.run([meson, "devenv", "-C", build, "--dump"],
                          stdout=subprocess.PIPE, universal_newlines=True)
    if dump.returncode != 0 or "PATH=" not in dump.stdout:
        print("FAIL meson devenv -C %s --dump: status %d" % (
            build, dump.returncode), file=sys.stderr)
        return 1
    devenv = dump.stdout + "\n"
    if shutil.which("bash") is None:
        print("SKIP no bash")
        return 77
    pages = ["README.md"] + sorted(
        "doc/" + n for n in os.listdir(os.path.join(root, "doc"))
        if n.endswith(".md"))
    failures, ran, marked = [], 0, {}
    for page in pages:
        blocks, errors = blocks_of(root, page)
        failures += errors
        named = {b.attrs["name"]: b for b in blocks if "name" in b.attrs}
        with tempfile.TemporaryDirectory(prefix="doc-examples-") as scratch:
            r = Runner(devenv, scratch)
            for b in blocks:
                if "file" in b.attrs:
                    with open(os.path.join(scratch, b.attrs["file"]),
                              "w") as f:
                        f.write(b.text)
                if b.lang not in SHELLS:
                    continue
                need = b.attrs.get("needs")
                if need is not None:
                    if need not in NEEDS:
                        failures.append("%s: needs=%s is not one of %s" % (
                            b.where(), need, ", ".join(sorted(NEEDS))))
                    marked.setdefault(need, []).append(b.where())
                    continue
                if "build/src/" in b.text:
                    failures.append("%s: calls a tool by its build path; "
                                    "the README's shell (meson devenv) has "
                                    "them on PATH" % b.where())
                    continue
                t0 = time.monotonic()
                why = None
                if "stop" in b.attrs:
                    p, log = r.start_daemon(b)
                    why = r.stop_daemon(b, p, log, float(b.attrs["stop"]))
                elif "with" in b.attrs:
                    d = named.get(b.attrs["with"])
                    if d is None or "stop" not in d.attrs:
                        why = "with=%s: no stop= block of that name" % (
                            b.attrs["with"])
                    else:
                        before = runtime_sockets(r.run_dir)
                        p, log = r.start_daemon(d)
                        r.wait_ready(before, p)
                        why = r.run(b)
                        stopped = r.stop_daemon(d, p, log, 0)
                        if why is None and stopped is not None:
                            why = "%s (with=): %s" % (d.where(), stopped)
                else:
                    why = r.run(b)
                ran += 1
                if why is None:
                    print("ok   %s (%.1f s)" % (b.where(),
                                                time.monotonic() - t0))
                else:
                    failures.append("%s: %s" % (b.where(), why))
                    print("FAIL %s" % b.where())
    n_marked = sum(len(v) for v in marked.values())
    print("\n%d shell examples run, %d marked as needing:" % (ran, n_marked))
    for need in sorted(marked):
        print("  needs=%-11s %2d  %s" % (need, len(marked[need]),
                                         NEEDS.get(need, "?")))
    for f in failures:
        print("\nFAIL " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
