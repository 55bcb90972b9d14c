# SPDX-License-Identifier: GPL-3.0-or-later
# The trivial filter: baro[0]'s altitude as it comes, one frame at a time
# (step) or a batch at once with numpy (step_batch).
import math
import barod_filter as bf

class Raw:
    name = "pyraw"
    def __init__(self, params):
        pass
    def reset(self):
        pass
    def step(self, f):
        return (f.baro[0].alt_m, math.nan, math.nan, bf.OUT_HEALTHY)
    def step_batch(self, frames):
        n = len(frames)
        nan = bf.numpy.full(n, math.nan)
        return (frames["baro"]["alt_m"][:, 0], nan, nan,
                bf.numpy.full(n, bf.OUT_HEALTHY))

bf.run(Raw)
