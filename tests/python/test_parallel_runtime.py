"""Stage 5: how compiled parallel loops are split among threads — every iteration runs exactly
once for any loop extent, thread count and tasks per thread (the runtime hands out several
tasks per thread, each an even share of the loop; thread_pool.h), the pool's launch trace,
and conv2d kernels (whose padding, weight packing and main loop are parallel) computing the
same result at 1, 2 and 3 threads. No timings (bench/conv2d_bench.py --threads has them)."""
import numpy as np
import pytest

import minitvm as tvm
from minitvm import relax
from minitvm.script import tir as T

from test_perf_conv import _conv_mod, _fused_prim_funcs, _ref_conv, rule

TARGET = "llvm -mcpu=native"
set_threads = tvm.get_global_func("runtime.cpu.SetNumThreads")
num_threads = tvm.get_global_func("runtime.cpu.NumThreads")
set_tasks = tvm.get_global_func("runtime.cpu.SetTasksPerThread")
task_count = tvm.get_global_func("runtime.cpu.DefaultTaskCount")
trace = tvm.get_global_func("runtime.cpu.PoolTrace")
dump = tvm.get_global_func("runtime.cpu.PoolTraceDump")


@pytest.fixture(name="pool")
def _pool():
    saved = num_threads()
    yield
    set_threads(saved)
    set_tasks(0)


def _increment_kernel(n):
    @T.prim_func
    def inc(a: T.Buffer((n,), "int32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in T.parallel(n):
            with T.block("b"):
                vi = T.axis.spatial(n, i)
                a[vi] = a[vi] + 1

    return tvm.build(inc, target=TARGET)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 9, 17, 37, 64])
def test_parallel_loop_runs_every_iteration_once(pool, n):  # pylint: disable=unused-argument
    mod = _increment_kernel(n)
    calls = 0
    a = tvm.nd.array(np.zeros(n, "int32"))
    for threads in (1, 2, 3):
        set_threads(threads)
        for k in (1, 2, 4, 5):
            set_tasks(k)
            assert task_count() == (1 if threads == 1 else threads * k)
            mod(a)
            calls += 1
    np.testing.assert_array_equal(a.numpy(), np.full(n, calls, "int32"))


def test_trace_shows_the_default_task_count(pool):  # pylint: disable=unused-argument
    mod = _increment_kernel(40)
    a = tvm.nd.array(np.zeros(40, "int32"))
    set_threads(2)
    set_tasks(3)
    trace(True)
    mod(a)
    trace(False)
    rows = [r.split() for r in str(dump()).strip().split("\n")]
    assert len(rows) == 1 and rows[0][0] == "6" and rows[0][1] == "2"
    assert sum(int(s.split(":")[1]) for s in rows[0][3:]) == 6
    trace(True)  # a new trace starts empty
    trace(False)
    assert str(dump()) == ""


# Large enough (>= 2^18 multiply-adds) for the parallel loops: C = 3 pads as (channel, row)
# tasks, O = 48 is padded to 64 (a parallel copy-out), 7x7 stride 2 as ResNet's stem, and a
# 1x1 with 3 channel blocks (parallel over its rows).
PAR_CASES = [(3, 30, 30, 40, 7, 2, 3, "bias_relu"), (16, 20, 20, 48, 3, 1, 1, "residual"),
             (24, 16, 16, 64, 3, 2, 1, "none"), (96, 16, 16, 24, 1, 1, 0, "bias_relu")]


def _parallel_extents(func):
    text = func.script()
    return [int(t.split("T.int64(")[1].split(")")[0])
            for t in text.split("T.parallel(")[1:]]


@pytest.mark.parametrize("o,cores,extent", [(24, 1, 16), (24, 16, 16), (96, 1, 12),
                                             (96, 2, 12), (96, 4, 16)])
def test_1x1_parallel_loop_follows_the_cores(o, cores, extent):
    # 1x1 stride 1 at 16x16 (the pixel-vector kernel, 8 channels per block): parallel over the
    # channel blocks when there are 4 per core, else over the 16 output rows.
    t = tvm.target.Target(f"llvm -mcpu=znver4 -num-cores={cores}")
    funcs = _fused_prim_funcs(_conv_mod((1, 96, 16, 16), (o, 96, 1, 1), 1, 0, "none"))
    scheduled = [rule(f, t) for f in funcs]
    scheduled = [f for f in scheduled if f is not None]
    assert len(scheduled) == 1
    assert _parallel_extents(scheduled[0]) == [extent]


@pytest.mark.parametrize("c,h,w,o,k,stride,pad,epi", PAR_CASES)
def test_parallel_conv_same_at_any_thread_count(pool, c, h, w, o, k, stride, pad, epi):
    # pylint: disable=unused-argument
    vm = relax.VirtualMachine(tvm.compile(_conv_mod((1, c, h, w), (o, c, k, k), stride, pad,
                                                    epi), TARGET), tvm.cpu())
    rng = np.random.default_rng(c + o)
    x = rng.uniform(-1, 1, (1, c, h, w)).astype("float32")
    wt = rng.uniform(-1, 1, (o, c, k, k)).astype("float32")
    b = rng.uniform(-1, 1, (1, o, 1, 1)).astype("float32")
    ref = _ref_conv(x, wt, stride, pad)
    if epi in ("bias_relu", "residual"):
        ref = np.maximum(ref + b, 0)
    if epi == "residual":
        ref = ref + ref
    results = []
    for threads, k_tasks in ((1, 0), (2, 1), (2, 4), (3, 3)):
        set_threads(threads)
        set_tasks(k_tasks)
        got = vm["main"](tvm.nd.array(x), tvm.nd.array(wt), tvm.nd.array(b)).numpy()
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)
        results.append(got)
    for got in results[1:]:  # the split changes no sum's order: bit-identical
        np.testing.assert_array_equal(got, results[0])
