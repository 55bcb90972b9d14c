# SPDX-License-Identifier: GPL-3.0-or-later
"""A misbehaving exec filter, for tests/replay/test-exec-filter.c.

exec-peer.py MODE: speaks the protocol (doc/filter-exec.md) on its own,
without barod_filter, correctly up to what MODE breaks:
  garbage    prints a line of text instead of its hello
  badname    a hello whose name has a space
  silent     never says its hello (sleeps)
  short      answers a batch with one output fewer than it had frames
  truncated  starts its answer, then exits 0 halfway through it
  error      says 'E' "bad sensor" at the first batch, then exits 3
  exit       exits 5 at the first batch without a word
  signal     kills itself with SIGKILL at the first batch
  sleep      sleeps 30 s at the first batch (past any test's limit)
  twice      answers every batch twice
  ok         the raw altitude, correctly (the control)
  eager      the same, its hello said before it reads the host's
"""
import os
import signal
import struct
import sys
import time

mode = sys.argv[1]
rx = os.fdopen(0, "rb", buffering=0)


def read(n):
    b = b""
    while len(b) < n:
        c = rx.read(n - len(b))
        if not c:
            sys.exit(0)
        b += c
    return b


def write(b):
    os.write(1, b)


if mode == "eager":
    # its hello before it reads the host's, as the protocol allows
    write(b"BRFX" + struct.pack("<III", 1, 0, 10) + b"peer-eager")
    time.sleep(0.2)
read(16)
if mode == "garbage":
    write(b"hello, I am no filter\n")
    time.sleep(30)
if mode == "silent":
    time.sleep(30)
name = b"bad name" if mode == "badname" else b"peer-" + mode.encode()
if mode != "eager":
    write(b"BRFX" + struct.pack("<III", 1, 0, len(name)) + name)
while True:
    kind = rx.read(1)
    if not kind:
        sys.exit(0)
    if kind == b"R":
        continue
    (n,) = struct.unpack("<I", read(4))
    frames = read(n * 304)
    if mode == "error":
        msg = b"bad sensor"
        write(b"E" + struct.pack("<I", len(msg)) + msg)
        sys.exit(3)
    if mode == "exit":
        sys.exit(5)
    if mode == "signal":
        os.kill(os.getpid(), signal.SIGKILL)
    if mode == "sleep":
        time.sleep(30)
    out = b""
    for k in range(n):
        # baro[0].alt_m is at byte 16 + 32 of each frame
        (alt,) = struct.unpack_from("<d", frames, k * 304 + 48)
        out += struct.pack("<dddIIII", alt, float("nan"), float("nan"),
                           1, 5, 0, 0)
    if mode == "short":
        write(b"O" + struct.pack("<I", n - 1) + out[:-40])
        continue
    if mode == "truncated":
        write(b"O" + struct.pack("<I", n) + out[:len(out) // 2])
        sys.exit(0)
    if mode == "twice":
        # Both copies in one write, so the copy is there when the host
        # reads the answer: one sent later could pass for the next
        # batch's (doc/filter-exec.md), and the test would race.
        write((b"O" + struct.pack("<I", n) + out) * 2)
        continue
    write(b"O" + struct.pack("<I", n) + out)
