#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Independent derivations of the vectors in test-baro-sitl-versions.c,
# test-atmosphere.c (density layers), test-sitl-json.c / test-px4-throttle.c
# (throttle) and test-baro-sim-cli.c (ground effect through a trace): the
# formulas transcribed from ArduPilot's description, every float32 step
# rounded through struct, glibc powf/expf through ctypes.  Not run by meson;
# python3 tests/sim/derive-versions-vectors.py prints them.
import struct, ctypes, math
libm = ctypes.CDLL("libm.so.6")
libm.powf.restype = ctypes.c_float; libm.powf.argtypes = [ctypes.c_float, ctypes.c_float]
libm.expf.restype = ctypes.c_float; libm.expf.argtypes = [ctypes.c_float]
def f(x): return struct.unpack('f', struct.pack('f', x))[0]
def hexf(x): return float.hex(f(x))

print("== GEFF scale (float32 steps) ==")
for geff in (1.5,):
    for h in (0.0, 0.5, 1.999, 2.0, 3.0):
        hf = f(h); hf = hf if hf > 0 else 0.0
        scale = f(1.0 - f(hf / 2.0)); scale = scale if scale > 0 else 0.0
        d = f(f(geff) * scale)
        out = f(f(100.0) - d)
        print(h, "drop", repr(d), hexf(d), "alt", repr(out), hexf(out))

print("== CLI: home 100 m, heights quantised to cm ==")
home_cm = round(100.0 * 100)
first = None
for h in (0.0, 0.5, 1.999, 2.0, 3.0):
    cm = math.trunc(home_cm + h * 100.0)
    st = cm * 0.01          # double
    if first is None and st > 0: first = f(st)
    agl = st - first
    hf = f(agl); hf = hf if hf > 0 else 0.0
    scale = f(1.0 - f(hf / 2.0)); scale = scale if scale > 0 else 0.0
    d = f(f(1.5) * scale)
    alt = f(st)
    print(h, cm, "agl", repr(agl), "alt", repr(alt), "out(thr>0)", "%.9g" % f(alt - d), hexf(f(alt - d)))

print("== AGL tracker ==")
home = -1.0
for a in (0.0, -5.0, 584.01, 585.5, 0.0):
    if abs(f(home - -1.0)) < 1.1920929e-07 and a > 0: home = f(a)
    print(a, repr(a - home))

print("== 1976 density: double reference ==")
R = 6356.766e3; Rs = 287.053072; g = 9.80665
L = [(-5000, 320.650, 1.930467, -6.5e-3), (11000, 216.650, 0.363918, 0.0),
     (20000, 216.650, 8.80349e-2, 1e-3), (32000, 228.650, 1.32250e-2, 2.8e-3),
     (47000, 270.650, 1.42753e-3, 0.0), (51000, 270.650, 8.61606e-4, -2.8e-3),
     (71000, 214.650, 6.42110e-5, -2.0e-3), (84852, 186.946, 6.95788e-6, 0.0)]
def rho_d(z):
    h = R * z / (R + z)
    i = 0
    while i + 1 < len(L) and h >= L[i + 1][0]: i += 1
    b, T0, r0, lap = L[i]
    if lap == 0.0:
        T = T0
        return i, r0 * math.exp(-g / (T * Rs) * (h - b))
    T = T0 + lap * (h - b)
    return i, r0 * (T / T0) ** (-(g / (lap * Rs) + 1))
def rho_f(z):
    z = f(z); Rf = f(R); Rsf = f(Rs); gf = f(g)
    h = f(f(Rf * z) / f(Rf + z))
    i = 0
    while i + 1 < len(L) and h >= f(L[i + 1][0]): i += 1
    b, T0, r0, lap = [f(v) for v in L[i]]
    if abs(lap) < 1.1920929e-07:
        T = T0
        return f(r0 * libm.expf(f(f(-gf / f(T * Rsf)) * f(h - b))))
    T = f(T0 + f(lap * f(h - b)))
    e = f(-f(f(gf / f(lap * Rsf)) + 1.0))
    return f(r0 * libm.powf(f(T / T0), e))
for z in (-4000, 0, 584, 5000, 11000, 15000, 25000, 40000, 49000, 60000, 75000, 86000):
    i, rd = rho_d(z)
    rf = rho_f(z)
    print(z, i, "%.9g" % rd, "%.9g" % rf, hexf(rf), "rel %.2e" % ((rf - rd) / rd))

print("== master wind correction ==")
for err, z in ((16.6, 584), (80.0, 1000), (-40.0, 0), (7.15, 25000)):
    rf = rho_f(z)
    w = f(f(err) * 0.5 * rf)
    print(err, z, "%.9g" % w, hexf(w))

print("== throttle ==")
def frac(p):
    v = f(float(p - 1000) / 1000.0)
    return min(max(v, 0.0), 1.0)
s = 0.0; n = 0
for p in (1000, 1500, 2000, 1250):
    v = frac(p)
    if abs(v) >= 1.1920929e-07: s = f(s + v); n += 1
print("copter", repr(f(s / n)), hexf(f(s / n)))
print("pwm1010", repr(frac(1010)), hexf(frac(1010)), "pwm1600", repr(frac(1600)))
print("rover 1250", repr(f(abs(f((1250 - 1500) / 500.0)))))
s = f(f(0.25 + 0.7) ); print("px4 (0.25+0.7+1)/3", repr(f(f(f(f(0.25)+f(0.7))+1.0)/3.0)), hexf(f(f(f(f(0.25)+f(0.7))+1.0)/3.0)))
