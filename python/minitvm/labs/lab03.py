"""Grader of lab 03 (stage 3): schedule a matmul so that it runs fast and computes the same.

The learner's file defines ``schedule_matmul(sch)``: it receives a ``tir.Schedule`` of
``C = A @ B`` (``te.compute`` with block ``"C"``, loops ``i, j, k``; A (M, K), B (K, N)) and
transforms it in place with schedule primitives (its return value is ignored).

Cases:

* ``speed``: for M = N = K = 256 the scheduled function, compiled with LLVM, must run at least
  5x faster than the unscheduled one (median of 7 timings each). On a slow or busy shared
  machine set ``MINITVM_LAB_MIN_SPEEDUP`` (e.g. ``2``) to relax the bar; ``0`` skips it.
  Without LLVM (a build below stage 5) the case is skipped with a note.
* ``M x N x K``: edge and random shapes (1 x 1 x 1, sizes that are not multiples of any tile):
  the schedule must apply, keep the block ``"C"``, and the scheduled function (compiled with
  LLVM when available, else on the TIR interpreter) must equal the *unscheduled* function run
  by the TIR interpreter, on random values.
"""
import os
import statistics

import numpy as np

from ._common import CaseFailure, call_learner, compare, empty_output, get_attr

DEFAULT_CASES = 6
TIMEOUT = 60.0
SPEED_SHAPE = (256, 256, 256)
EDGE_SHAPES = [(256, 256, 256), (1, 1, 1), (7, 33, 5), (64, 48, 96), (1, 128, 64), (130, 3, 31)]
TARGET = "llvm -mcpu=native"


def min_speedup():
    """The speed-up the ``speed`` case asks for: ``$MINITVM_LAB_MIN_SPEEDUP`` or 5."""
    return float(os.environ.get("MINITVM_LAB_MIN_SPEEDUP") or 5.0)


def plan(rng, n):
    """The speed case, then ``n`` shapes (edges first)."""
    cases = [{"name": "speed", "kind": "speed", "timeout": 180}]
    for i in range(n):
        if i < len(EDGE_SHAPES):
            shape = EDGE_SHAPES[i]
        else:
            shape = tuple(rng.randint(1, 140) for _ in range(3))
        m, nn, k = shape
        cases.append({"name": f"{m} x {nn} x {k}", "kind": "values", "shape": list(shape),
                      "seed": rng.randrange(2**31)})
    return cases


def matmul_module(m, n, k):
    """The unscheduled ``main``: C (m, n) = A (m, k) @ B (k, n), block "C"."""
    from minitvm import te  # pylint: disable=import-outside-toplevel
    from minitvm.ir import IRModule  # pylint: disable=import-outside-toplevel

    a = te.placeholder((m, k), name="A")
    b = te.placeholder((k, n), name="B")
    r = te.reduce_axis((0, k), name="k")
    c = te.compute((m, n), lambda i, j: te.sum(a[i, r] * b[r, j], axis=r), name="C")
    return IRModule({"main": te.create_prim_func([a, b, c]).with_attr("global_symbol", "main")})


def _have_llvm():
    import minitvm as tvm  # pylint: disable=import-outside-toplevel

    return bool(tvm.get_global_func("target.build.llvm", allow_missing=True))


def _scheduled(module, path, base):
    from minitvm import tir  # pylint: disable=import-outside-toplevel

    func = get_attr(module, "schedule_matmul", "the function that schedules the matmul")
    sch = tir.Schedule(base)
    call_learner(path, func, sch)
    mod = sch.mod
    text = mod.script()
    if '"C"' not in text and '"C_update"' not in text:
        raise CaseFailure("after your schedule there is no block \"C\" any more: keep the "
                          "block that computes C (schedule its loops, do not replace it)")
    return mod


def _median_time(rt_mod, args):
    import minitvm as tvm  # pylint: disable=import-outside-toplevel

    timer = rt_mod.time_evaluator("main", tvm.cpu(), number=1, repeat=7)
    return statistics.median(timer(*args).results)


def run(module, path, case):
    """Run one case in the child process."""
    import minitvm as tvm  # pylint: disable=import-outside-toplevel

    if case["kind"] == "speed":
        base = matmul_module(*SPEED_SHAPE)
        mod = _scheduled(module, path, base)
        if not _have_llvm():
            return "skipped: this build has no LLVM code generation (stage 5)"
        bar = min_speedup()
        if bar <= 0:
            return "skipped: MINITVM_LAB_MIN_SPEEDUP=0"
        m, n, k = SPEED_SHAPE
        rng = np.random.default_rng(0)
        args = [tvm.nd.array(rng.uniform(-1, 1, (m, k)).astype("float32")),
                tvm.nd.array(rng.uniform(-1, 1, (k, n)).astype("float32")),
                tvm.nd.array(np.zeros((m, n), "float32"))]
        before = _median_time(tvm.build(base, target=TARGET), args)
        after = _median_time(call_learner(path, tvm.build, mod, target=TARGET), args)
        speedup = before / after
        note = (f"{speedup:.1f}x: {before * 1e3:.2f} ms unscheduled, {after * 1e3:.2f} ms "
                f"scheduled, median of 7")
        if speedup < bar:
            raise CaseFailure(f"the scheduled matmul is {note}; it must be at least {bar:g}x "
                              f"faster (tile i and j, move k outside the tile's rows, vectorize "
                              f"the innermost loop, parallelize the outermost)\n    on a busy "
                              f"machine: MINITVM_LAB_MIN_SPEEDUP=2 relaxes the bar")
        return note
    m, n, k = case["shape"]
    base = matmul_module(m, n, k)
    mod = _scheduled(module, path, base)
    rng = np.random.default_rng(case["seed"])
    a = rng.uniform(-1, 1, (m, k)).astype("float32")
    b = rng.uniform(-1, 1, (k, n)).astype("float32")
    expected = tvm.nd.array(empty_output((m, n)))
    tvm.build(base, target="ref")["main"](tvm.nd.array(a), tvm.nd.array(b), expected)
    got = tvm.nd.array(empty_output((m, n)))
    target = TARGET if _have_llvm() else "ref"
    rt_mod = call_learner(path, tvm.build, mod, target=target)
    call_learner(path, rt_mod["main"], tvm.nd.array(a), tvm.nd.array(b), got)
    compare(f"C ({m} x {n} x {k}, scheduled vs unscheduled)", expected.numpy(), got.numpy(),
            rtol=1e-4, atol=1e-4, unwritten_hint="the scheduled function never writes this "
            "element: a loop of your schedule does not cover all of C")
    return None
