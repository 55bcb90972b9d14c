# SPDX-License-Identifier: GPL-3.0-or-later
# A complementary filter: the height integrated from the vertical
# acceleration, pulled towards each barometer sample (doc/filter-exec.md).
import math
import barod_filter as bf

class Comp:
    name, reads = "pycomp", bf.READS_ACCEL
    def __init__(self, params):
        self.kh = float(params.get("kh", 0.05))  # of each baro error, to h
        self.kv = float(params.get("kv", 0.1))   # ... to v, per second
        self.reset()
    def reset(self):
        self.h, self.v, self.t = None, 0.0, 0
    def step(self, f):
        a = f.accel.vert_accel_mss if f.accel.flags & bf.SENSOR_VALID else 0.0
        a = 0.0 if math.isnan(a) else a
        if self.h is not None:
            dt = (f.now_us - self.t) * 1e-6
            self.h += self.v * dt + 0.5 * a * dt * dt
            self.v += a * dt
        self.t = f.now_us
        b = f.baro[0]
        if b.flags & bf.SENSOR_FRESH:
            if self.h is None:
                self.h, self.v = b.alt_m, 0.0
            e = b.alt_m - self.h
            self.h += self.kh * e
            self.v += self.kv * e
        if self.h is None:
            return (math.nan, math.nan, math.nan, 0)
        return (self.h, self.v, math.nan, bf.OUT_HEALTHY)

bf.run(Comp)
