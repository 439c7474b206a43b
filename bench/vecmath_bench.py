#!/usr/bin/env python3
"""Stage-5 benchmark, Python side: vectorized float32 exp (and tanh, log) over 1M elements —
minitvm with libmvec, minitvm's old per-lane path (``MINITVM_LLVM_VECMATH=0``) and NumPy
(``np.exp(x, out=y)``) in the same process, single-threaded — and the accuracy of every vector
math function, in float32 ulps against NumPy in float64, on random and special inputs. Prints
JSON.

    MINITVM_BUILD_DIR=build python3 bench/vecmath_bench.py [--n 1048576] [--repeat 20]
                                                           [--out result.json]

The C++ side (``<build>/bin/vecmath_bench``) also times a scalar (not vectorized) loop and erf.
"""
import argparse
import json
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "python"))
os.environ.setdefault("MINITVM_BUILD_DIR", os.path.join(REPO, "build"))
os.environ.setdefault("MINITVM_NUM_THREADS", "1")

import numpy as np  # noqa: E402  pylint: disable=wrong-import-position

import minitvm as tvm  # noqa: E402  pylint: disable=wrong-import-position
from minitvm import driver, te, tir  # noqa: E402  pylint: disable=wrong-import-position
from minitvm.tir import Schedule  # noqa: E402  pylint: disable=wrong-import-position

TARGET = "llvm -mcpu=native"
SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 88.7, 89.0, 100.0, -87.3, -95.0,
           -103.0, -104.0, -110.0, 1e-30, 1e-40, -1e-40, 1e-45, 3e38, -3e38, 0.5, -0.5, 1e-8]


def lanes():
    features = tvm.get_global_func("target.llvm.HostCPUFeatures")()
    return 16 if "+avx512f" in features else 8


def build(op, n, width, per_lane=False):
    x = te.placeholder((n,), "float32", name="x")
    y = te.compute((n,), lambda i: getattr(tir, op)(x[i]), name="y")
    sch = Schedule(te.create_prim_func([x, y]))
    (loop,) = sch.get_loops(sch.get_block("y"))
    _, inner = sch.split(loop, factors=[None, width])
    sch.vectorize(inner)
    if per_lane:
        os.environ["MINITVM_LLVM_VECMATH"] = "0"
    try:
        return driver.build(sch.mod, target=TARGET)["main"]
    finally:
        os.environ.pop("MINITVM_LLVM_VECMATH", None)


def best_ms(fn, repeat):
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return min(times), float(np.median(times))


def reference(op, x):
    x = x.astype("float64")
    with np.errstate(all="ignore"):
        if op == "erf":
            return np.vectorize(math.erf, otypes=["float64"])(x)
        if op == "sigmoid":
            e = np.exp(-np.abs(x))
            return np.where(x < 0, e, 1.0) / (1.0 + e)
        return getattr(np, op)(x)


def ulp_error(got, want):
    def ordinal(a):
        i = a.view("int32").astype("int64")
        return np.where(i < 0, -(2**31) - i, i)

    dist = np.abs(ordinal(got) - ordinal(want))
    dist = np.where(np.isnan(got) & np.isnan(want), 0, dist)
    return np.where((got == 0) & (want == 0) & (np.signbit(got) != np.signbit(want)), 2**40, dist)


def accuracy(n, width):
    rng = np.random.default_rng(0)
    out = {}
    for op in ("exp", "log", "tanh", "erf", "sigmoid"):
        scale = 100.0 if op in ("exp", "sigmoid") else 10.0
        half = n // 2
        x = np.concatenate([np.array(SPECIAL), rng.uniform(-scale, scale, half),
                            rng.choice([-1, 1], half) * 10.0 ** rng.uniform(-45, 38, half)])
        x = np.resize(x, x.size + (-x.size) % width).astype("float32")
        y = tvm.nd.empty(x.shape, "float32")
        build(op, x.size, width)(tvm.nd.array(x), y)
        with np.errstate(over="ignore"):
            want = reference(op, x).astype("float32")
        err = ulp_error(y.numpy(), want)
        worst = int(np.argmax(err))
        out[op] = {"max_ulp": int(err[worst]), "at": float(x[worst])}
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1 << 20)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--out")
    args = parser.parse_args()
    width = lanes()
    rng = np.random.default_rng(0)
    x_np = rng.uniform(-10, 10, args.n).astype("float32")
    results = []
    for op, np_fn, data in (("exp", np.exp, x_np), ("tanh", np.tanh, x_np),
                            ("log", np.log, np.abs(x_np) + 0.5)):
        x, y = tvm.nd.array(data), tvm.nd.empty((args.n,), "float32")
        y_np = np.empty_like(data)
        vec, lane = build(op, args.n, width), build(op, args.n, width, per_lane=True)
        t_vec, t_lane, t_np = (1e30, 0), (1e30, 0), (1e30, 0)
        for _ in range(3):  # interleaved rounds
            t_vec = min(t_vec, best_ms(lambda f=vec: f(x, y), args.repeat))
            t_lane = min(t_lane, best_ms(lambda f=lane: f(x, y), args.repeat))
            t_np = min(t_np, best_ms(lambda f=np_fn: f(data, out=y_np), args.repeat))
        results.append({"op": op, "minitvm_vectorized_ms": t_vec[0],
                        "minitvm_per_lane_ms": t_lane[0], "numpy_ms": t_np[0],
                        "speedup_vs_per_lane": t_lane[0] / t_vec[0],
                        "speedup_vs_numpy": t_np[0] / t_vec[0]})
        print(f"{op:5s} minitvm {t_vec[0]:.3f} ms  per-lane {t_lane[0]:.3f} ms  "
              f"numpy {t_np[0]:.3f} ms", file=sys.stderr)
    report = {"benchmark": "vecmath_float32_python", "elements": args.n, "lanes": width,
              "threads": 1, "numpy": np.__version__, "results": results,
              "max_ulp_float32": accuracy(200000, width)}
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
