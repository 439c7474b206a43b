#!/usr/bin/env python3
"""Stage-5 benchmark, Python side: the minitvm GEMM (tile derived from the host target,
relax_vm/cpu_gemm.h) against NumPy (and, through the C++ benchmark, OpenBLAS ``cblas_sgemm``).
Prints JSON. A size is N (M = N = K) or MxKxN.

    MINITVM_BUILD_DIR=build python3 bench/gemm_bench.py [--sizes 128,256,...,1x784x256]
                                                        [--threads 1,2] [--repeat 10]
                                                        [--out result.json] [--wait-free S]
                                                        [--target "llvm -mcpu=native ..."]
(default sizes: 128,256,512,1000,1024,2048,4096,784x784x256,1x784x256)

How it works:
 1. ``<build>/bin/gemm_bench`` builds the GEMM for each size (relax_vm/cpu_gemm.h),
    measures it against OpenBLAS in its own process, and exports each module as a shared
    library (``--export-dir``).
 2. For each thread count, a child Python process (with ``MINITVM_NUM_THREADS`` and
    ``OPENBLAS_NUM_THREADS`` set, because OpenBLAS reads its thread count when it loads) loads
    those libraries with ``minitvm.runtime.load_module`` and times them interleaved with
    ``numpy.matmul`` on the same arrays — minitvm and NumPy in the same process.
The result merges both: minitvm vs OpenBLAS (C++) and minitvm vs NumPy (Python).

``OPENBLAS_THREAD_TIMEOUT`` is set to 4 unless already set: after a call, OpenBLAS's idle
threads otherwise spin for 2^28 cycles (~0.1 s) before they sleep. The calls are interleaved,
so that spinning took a core from the minitvm call that came next. At 2048³ on 2 threads the
minitvm median then jumped between 0.66× and 1.07× OpenBLAS from run to run; with the timeout it
was 1.05–1.07× in three runs. OpenBLAS's own times were the same either way (191–194 GFLOP/s).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def build_dir():
    return os.environ.get("MINITVM_BUILD_DIR", os.path.join(REPO, "build"))


def shape_of(size):
    """(m, k, n) of "N" or "MxKxN"."""
    parts = [int(x) for x in size.split("x")]
    return tuple(parts) if len(parts) == 3 else (parts[0],) * 3


def child(args):
    """Time the exported modules against numpy.matmul in this process."""
    sys.path.insert(0, os.path.join(REPO, "python"))
    import numpy as np  # pylint: disable=import-outside-toplevel

    import minitvm as tvm  # pylint: disable=import-outside-toplevel

    results = []
    for size in args.sizes:
        m, k, n = shape_of(size)
        lib = os.path.join(args.child_dir, f"gemm_{m}x{k}x{n}.so")
        if not os.path.exists(lib):
            continue
        mod = tvm.runtime.load_module(lib)
        rng = np.random.default_rng(0)
        a_np = rng.uniform(-1, 1, (m, k)).astype("float32")
        b_np = rng.uniform(-1, 1, (k, n)).astype("float32")
        a, b = tvm.nd.array(a_np), tvm.nd.array(b_np)
        c = tvm.nd.empty((m, n), "float32")
        f = mod["main"]
        f(a, b, c)
        np.matmul(a_np, b_np)
        err = float(np.max(np.abs(c.numpy() - a_np @ b_np)))
        mine, numpy_times = [], []
        flops = 2.0 * m * n * k
        for _ in range(max(3, min(args.repeat, int(20e9 / flops)))):
            t0 = time.perf_counter()
            f(a, b, c)
            mine.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            np.matmul(a_np, b_np)
            numpy_times.append(time.perf_counter() - t0)
        mine.sort()
        numpy_times.sort()
        results.append(
            {
                "size": f"{m}x{k}x{n}",
                "threads": args.child_threads,
                "minitvm_gflops": flops / mine[0] / 1e9,
                "minitvm_gflops_median": flops / mine[len(mine) // 2] / 1e9,
                "numpy_gflops": flops / numpy_times[0] / 1e9,
                "numpy_gflops_median": flops / numpy_times[len(numpy_times) // 2] / 1e9,
                "ratio_best": numpy_times[0] / mine[0],
                "max_abs_error_vs_numpy": err,
            }
        )
    print(json.dumps(results))


def main():
    # Before any OpenBLAS loads (the C++ benchmark and the children inherit it): see above.
    os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes",
                        default="128,256,512,1000,1024,2048,4096,784x784x256,1x784x256")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--out", default="")
    parser.add_argument("--wait-free", type=float, default=0,
                        help="seconds to wait for two free cores before each 2-thread row")
    parser.add_argument("--target", default="llvm -mcpu=native",
                        help="target the plan is derived from (cache attributes override)")
    parser.add_argument("--child-dir", default="", help=argparse.SUPPRESS)
    parser.add_argument("--child-threads", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.sizes = args.sizes.split(",")
    if args.child_dir:
        child(args)
        return 0

    exe = os.path.join(build_dir(), "bin", "gemm_bench")
    if not os.path.exists(exe):
        print(f"{exe} not found: build the gemm_bench target first", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="minitvm-gemm-") as tmp:
        cpp = subprocess.run(
            [exe, "--sizes", ",".join(args.sizes), "--threads", args.threads,
             "--repeat", str(args.repeat), "--export-dir", tmp,
             "--wait-free", str(args.wait_free), "--target", args.target],
            check=True, stdout=subprocess.PIPE, text=True,
        )
        report = json.loads(cpp.stdout)
        numpy_results = []
        for t in [int(x) for x in args.threads.split(",")]:
            env = dict(os.environ, MINITVM_NUM_THREADS=str(t), OPENBLAS_NUM_THREADS=str(t))
            out = subprocess.run(
                [sys.executable, __file__, "--sizes", ",".join(args.sizes),
                 "--repeat", str(args.repeat), "--child-dir", tmp, "--child-threads", str(t)],
                check=True, stdout=subprocess.PIPE, text=True, env=env,
            )
            numpy_results.extend(json.loads(out.stdout))
        report["numpy"] = numpy_results
        report["OPENBLAS_THREAD_TIMEOUT"] = os.environ["OPENBLAS_THREAD_TIMEOUT"]
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
