# SPDX-License-Identifier: GPL-3.0-or-later
"""Write a baro-replay filter in Python.

baro-replay runs `-f exec:COMMAND` as a child process and speaks the
exec-filter protocol with it (doc/filter-exec.md) over its standard input
and output.  This module is that protocol's filter side, so a filter is a
class:

    import math
    import barod_filter as bf

    class Raw:
        name = "pyraw"
        def __init__(self, params): pass
        def reset(self): pass
        def step(self, f):
            return (f.baro[0].alt_m, math.nan, math.nan, bf.OUT_HEALTHY)

    bf.run(Raw)

Filter(params) is made once per run; params is a dict of the command's
"key=value" arguments (strings).  reset() is called before each case and
at each segment start; step(frame) once per frame, returning (alt_m,
climb_m_s, test_ratio, flags) or the same with baro_flags (three ints)
fifth.  Without baro_flags they are made as for a version-1 filter:
baro[0] SELECTED, with HEALTHY and REJECTED from flags.

A Frame has the fields of struct baro_filter_frame (baro-filter.h):
f.now_us, f.nbaro, f.baro[0..2] (time_us, flags, pressure_pa,
temperature_c, alt_m), f.accel (time_us, flags, specific_force,
roll_rad, pitch_rad, yaw_rad, vert_accel_mss), f.gps (time_us, flags,
alt_amsl_m, alt_m, vel_up_m_s, vacc_m, vel_acc_m_s), f.range (time_us,
flags, distance_m, min_m, max_m).

For speed, a filter may define step_batch(frames) instead of (or beside)
step(): frames is a numpy structured array of FRAME_DTYPE, a batch of
consecutive frames (a reset never falls inside a batch), and it returns
an array of OUTPUT_DTYPE, or a tuple of arrays (alt_m, climb_m_s,
test_ratio, flags[, baro_flags of shape (n, 3)]).  step_batch is used when
numpy is there; without numpy, step() is (a filter with step_batch alone
then says it needs numpy).

BAROD_FILTER_NUMPY=0 in the environment makes it use step() even with
numpy there (to compare the two, or time them).

Optional class attributes: name (default: the class name in lower case;
[a-z0-9_-]{1,63}) and reads (READS_* the filter uses beyond baro[0],
0: every sensor; baro-replay judges it on the faults those reveal).

Anything the filter prints goes to standard error: the protocol has
standard output to itself.
"""

import math
import os
import struct
import sys

try:
    import numpy as _np
except ImportError:  # the module works without it, one frame at a time
    _np = None
# numpy when it is installed, else None (for filters' step_batch).
numpy = _np

VERSION = 1
FRAME_SIZE = 304
OUTPUT_SIZE = 40

# Sensor blocks' flags (struct baro_filter_*.flags)
SENSOR_VALID = 1 << 0
SENSOR_FRESH = 1 << 1
BARO_HAS_TEMPERATURE = 1 << 8
ACCEL_HAS_ATTITUDE = 1 << 8
GPS_HAS_VEL = 1 << 8
GPS_3D_FIX = 1 << 9
RANGE_IN_RANGE = 1 << 8
# Output flags
OUT_HEALTHY = 1 << 0
OUT_REJECTED = 1 << 1
BARO_OUT_HEALTHY = 1 << 0
BARO_OUT_REJECTED = 1 << 1
BARO_OUT_SELECTED = 1 << 2
# What a filter reads beyond baro[0]
READS_BAROS = 1 << 0
READS_ACCEL = 1 << 1
READS_GPS = 1 << 2
READS_RANGE = 1 << 3

_HEAD = "QII"
_FRAME = struct.Struct(
    "<QII" + (_HEAD + "3d") * 3 + _HEAD + "7d" + _HEAD + "5d" + _HEAD + "3d")
_OUTPUT = struct.Struct("<dddIIII")
assert _FRAME.size == FRAME_SIZE and _OUTPUT.size == OUTPUT_SIZE

if _np is not None:
    def _block(*fields):
        return _np.dtype([("time_us", "<u8"), ("flags", "<u4"),
                          ("reserved", "<u4")] + list(fields))

    BARO_DTYPE = _block(("pressure_pa", "<f8"), ("temperature_c", "<f8"),
                        ("alt_m", "<f8"))
    ACCEL_DTYPE = _block(("specific_force", "<f8", (3,)),
                         ("roll_rad", "<f8"), ("pitch_rad", "<f8"),
                         ("yaw_rad", "<f8"), ("vert_accel_mss", "<f8"))
    GPS_DTYPE = _block(("alt_amsl_m", "<f8"), ("alt_m", "<f8"),
                       ("vel_up_m_s", "<f8"), ("vacc_m", "<f8"),
                       ("vel_acc_m_s", "<f8"))
    RANGE_DTYPE = _block(("distance_m", "<f8"), ("min_m", "<f8"),
                         ("max_m", "<f8"))
    FRAME_DTYPE = _np.dtype([
        ("now_us", "<u8"), ("nbaro", "<u4"), ("reserved", "<u4"),
        ("baro", BARO_DTYPE, (3,)), ("accel", ACCEL_DTYPE),
        ("gps", GPS_DTYPE), ("range", RANGE_DTYPE)])
    OUTPUT_DTYPE = _np.dtype([
        ("alt_m", "<f8"), ("climb_m_s", "<f8"), ("test_ratio", "<f8"),
        ("flags", "<u4"), ("baro_flags", "<u4", (3,))])
    assert FRAME_DTYPE.itemsize == FRAME_SIZE
    assert OUTPUT_DTYPE.itemsize == OUTPUT_SIZE
else:
    FRAME_DTYPE = OUTPUT_DTYPE = None


class Baro:
    __slots__ = ("time_us", "flags", "pressure_pa", "temperature_c",
                 "alt_m")


class Accel:
    __slots__ = ("time_us", "flags", "specific_force", "roll_rad",
                 "pitch_rad", "yaw_rad", "vert_accel_mss")


class Gps:
    __slots__ = ("time_us", "flags", "alt_amsl_m", "alt_m", "vel_up_m_s",
                 "vacc_m", "vel_acc_m_s")


class Range:
    __slots__ = ("time_us", "flags", "distance_m", "min_m", "max_m")


class Frame:
    __slots__ = ("now_us", "nbaro", "baro", "accel", "gps", "range")


def decode_frame(v):
    """A Frame from the 54 values of one unpacked wire frame."""
    f = Frame()
    f.now_us, f.nbaro = v[0], v[1]
    f.baro = []
    for k in range(3):
        b = Baro()
        i = 3 + 6 * k
        (b.time_us, b.flags, _, b.pressure_pa, b.temperature_c,
         b.alt_m) = v[i:i + 6]
        f.baro.append(b)
    a = f.accel = Accel()
    a.time_us, a.flags = v[21], v[22]
    a.specific_force = v[24:27]
    a.roll_rad, a.pitch_rad, a.yaw_rad, a.vert_accel_mss = v[27:31]
    g = f.gps = Gps()
    (g.time_us, g.flags, _, g.alt_amsl_m, g.alt_m, g.vel_up_m_s, g.vacc_m,
     g.vel_acc_m_s) = v[31:39]
    r = f.range = Range()
    r.time_us, r.flags, _, r.distance_m, r.min_m, r.max_m = v[39:45]
    return f


def v1_baro_flags(flags):
    """baro_flags[0] as a version-1 filter's flags stand for it."""
    return (BARO_OUT_SELECTED
            | (BARO_OUT_HEALTHY if flags & OUT_HEALTHY else 0)
            | (BARO_OUT_REJECTED if flags & OUT_REJECTED else 0))


class ProtocolError(Exception):
    pass


class _Link:
    """The protocol's two ends, away from fds 0 and 1: print() and any
    library's output go to standard error instead of into the stream."""

    def __init__(self):
        rfd, wfd = os.dup(0), os.dup(1)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(2, 1)
        self.rx = open(rfd, "rb", buffering=1 << 20)
        self.wfd = wfd

    def read(self, n):
        b = self.rx.read(n)
        if b is None or len(b) != n:
            raise EOFError
        return b

    def write(self, data):
        view = memoryview(data)
        while view:
            view = view[os.write(self.wfd, view):]

    def error(self, message):
        m = message.replace("\n", " ").encode("utf-8", "replace")[:4096]
        try:
            self.write(b"E" + struct.pack("<I", len(m)) + m)
        except OSError:
            pass


def _params(argv):
    params = {}
    for a in argv:
        k, eq, v = a.partition("=")
        if not eq or not k:
            raise ValueError("argument %r is not key=value" % a)
        params[k] = v
    return params


def _name(cls):
    name = getattr(cls, "name", cls.__name__.lower())
    ok = 0 < len(name) <= 63 and all(
        c in "abcdefghijklmnopqrstuvwxyz0123456789_-" for c in name)
    if not ok:
        raise ValueError("filter name %r is not [a-z0-9_-]{1,63}" % name)
    return name


def _outputs_stepwise(filt, data, n):
    out = bytearray(n * OUTPUT_SIZE)
    pack = _OUTPUT.pack_into
    step = filt.step
    off = 0
    for v in _FRAME.iter_unpack(data):
        r = step(decode_frame(v))
        if len(r) == 5:
            bf = r[4]
            pack(out, off, r[0], r[1], r[2], r[3], bf[0], bf[1], bf[2])
        else:
            pack(out, off, r[0], r[1], r[2], r[3], v1_baro_flags(r[3]), 0,
                 0)
        off += OUTPUT_SIZE
    return out


def _outputs_batch(filt, data, n):
    frames = _np.frombuffer(data, dtype=FRAME_DTYPE, count=n)
    r = filt.step_batch(frames)
    if isinstance(r, _np.ndarray) and r.dtype == OUTPUT_DTYPE:
        if r.shape != (n,):
            raise ProtocolError("step_batch gave %s outputs for %d frames"
                                % (r.shape, n))
        return r.tobytes()
    out = _np.empty(n, dtype=OUTPUT_DTYPE)
    out["alt_m"] = r[0]
    out["climb_m_s"] = r[1]
    out["test_ratio"] = r[2]
    flags = _np.asarray(r[3], dtype="<u4")
    out["flags"] = flags
    if len(r) == 5:
        out["baro_flags"] = r[4]
    else:
        bf = out["baro_flags"]
        bf[:] = 0
        bf[:, 0] = (BARO_OUT_SELECTED
                    | _np.where(flags & OUT_HEALTHY, BARO_OUT_HEALTHY, 0)
                    | _np.where(flags & OUT_REJECTED, BARO_OUT_REJECTED, 0))
    return out.tobytes()


def serve(filt_cls, argv=None, batch=None):
    """run() without the exit: 0 at the host's end of the stream, 1 after
    an error (said to the host with 'E')."""
    link = _Link()
    try:
        hello = link.read(16)
    except EOFError:
        return 1
    magic, version, fsize, osize = struct.unpack("<4sIII", hello)
    if magic != b"BRFX" or version != VERSION or fsize != FRAME_SIZE \
            or osize != OUTPUT_SIZE:
        link.error("host hello %r: this module speaks version %d with "
                   "%d-byte frames" % (hello, VERSION, FRAME_SIZE))
        return 1
    try:
        params = _params(sys.argv[1:] if argv is None else argv)
        name = _name(filt_cls).encode()
        filt = filt_cls(params)
    except Exception as e:  # the host shows it: the filter's own words
        link.error("%s: %s" % (type(e).__name__, e))
        return 1
    if batch is None:
        batch = os.environ.get("BAROD_FILTER_NUMPY", "1") != "0"
    use_batch = batch and _np is not None and hasattr(filt, "step_batch")
    if not use_batch and not hasattr(filt, "step"):
        link.error("the filter has step_batch() alone and numpy is not "
                   "installed (python3-numpy)")
        return 1
    outputs = _outputs_batch if use_batch else _outputs_stepwise
    link.write(b"BRFX" + struct.pack("<III", VERSION,
                                     int(getattr(filt, "reads", 0)),
                                     len(name)) + name)
    try:
        while True:
            try:
                kind = link.rx.read(1)
            except OSError:
                return 0
            if not kind:
                return 0
            if kind == b"R":
                filt.reset()
            elif kind == b"F":
                (n,) = struct.unpack("<I", link.read(4))
                data = link.read(n * FRAME_SIZE)
                out = outputs(filt, data, n)
                link.write(b"O" + struct.pack("<I", n) + bytes(out))
            else:
                raise ProtocolError("the host said %r" % kind)
    except EOFError:
        return 0
    except BrokenPipeError:
        return 1
    except Exception as e:
        import traceback
        traceback.print_exc()
        link.error("%s: %s" % (type(e).__name__, e))
        return 1


def run(filt_cls, argv=None):
    """Serve filt_cls over the protocol until baro-replay is done; exit."""
    sys.exit(serve(filt_cls, argv))
