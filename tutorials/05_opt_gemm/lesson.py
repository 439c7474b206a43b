# Lesson 5 (Python): optimising a GEMM on the CPU, one schedule step at a time
# =============================================================================
#
# C = A @ B for 1024×1024 float32 matrices is 2·1024³ ≈ 2.1 GFLOP. NumPy hands it to
# OpenBLAS, whose hand-written assembly kernels run near the peak of the CPU. This lesson
# starts from the plain triple loop and applies one schedule primitive at a time — the path
# of TVM's classic "opt_gemm" tutorial, plus the register-tile kernel of the last step —
# compiling each version with LLVM (`minitvm.build(..., target="llvm -mcpu=native")`),
# checking it against NumPy and printing its speed:
#
#   0. baseline            the loops as te.create_prim_func writes them
#   1. blocking            32×32 tiles of C, so the tiles of A and B stay in cache
#   2. vectorization       the innermost loop as SIMD lanes
#   3. loop permutation    make the innermost accesses contiguous
#   4. array packing       copy B into [N/32][K][32] panels: unit-stride reads
#   5. write cache         accumulate a tile in a local buffer, write it out once
#   6. parallel            spread the row blocks over the thread pool
#   7. register tile       a small tile (4×16 for AVX2, 8×32 for AVX-512) that stays in
#                          vector registers for the whole k loop: the OpenBLAS kernel's idea
#
# With MINITVM_TUTORIAL_FAST=1 (what the test sets) the matrices are 256×256 and the speeds
# go to stderr: the expected output holds results, not timings, which depend on the machine.
import os
import sys
import time

import numpy as np

import minitvm as tvm
from minitvm import te, tir
from minitvm.driver import build
from minitvm.ir import IRModule

FAST = os.environ.get("MINITVM_TUTORIAL_FAST") == "1"
M = N = K = 256 if FAST else 1024
TARGET = "llvm -mcpu=native"
# Timings go to stdout when you run the lesson, to stderr under the test.
TIMING = sys.stderr if FAST else sys.stdout

rng = np.random.default_rng(0)
a_np = rng.uniform(-1, 1, (M, K)).astype("float32")
b_np = rng.uniform(-1, 1, (K, N)).astype("float32")
c_ref = a_np @ b_np
a, b = tvm.nd.array(a_np), tvm.nd.array(b_np)
GFLOP = 2.0 * M * N * K / 1e9

# -----------------------------------------------------------------------------------------
# NumPy (OpenBLAS) first: the speed to aim for, measured in this run.
# -----------------------------------------------------------------------------------------
np.matmul(a_np, b_np)
numpy_times = []
for _ in range(5):
    t0 = time.perf_counter()
    np.matmul(a_np, b_np)
    numpy_times.append(time.perf_counter() - t0)
numpy_gflops = GFLOP / min(numpy_times)
print(f"GEMM {M}x{N}x{K} float32, target {TARGET}")
print(f"NumPy (OpenBLAS): {numpy_gflops:.1f} GFLOP/s", file=TIMING)


def evaluate(step, mod):
    """Compile, check against NumPy, time; prints one line (speed to TIMING)."""
    t0 = time.perf_counter()
    rt_mod = build(mod, target=TARGET)
    build_seconds = time.perf_counter() - t0
    c = tvm.nd.array(np.zeros((M, N), "float32"))
    rt_mod["main"](a, b, c)
    ok = np.allclose(c.numpy(), c_ref, rtol=1e-4, atol=1e-3)
    print(f"{step:<22} matches NumPy: {ok}")
    assert ok, f"{step}: wrong result"
    slow = step.startswith("0.")  # the baseline takes seconds at 1024: time it once
    timer = rt_mod.time_evaluator("main", tvm.cpu(), number=1 if slow else 3, repeat=1 if slow else 3)
    seconds = min(timer(a, b, c).results)
    gflops = GFLOP / seconds
    print(f"{step:<22} {gflops:8.1f} GFLOP/s  ({100 * gflops / numpy_gflops:5.1f}% of NumPy)  "
          f"build {build_seconds:.2f} s", file=TIMING)
    return rt_mod


# -----------------------------------------------------------------------------------------
# 0. Baseline: the matmul as tensor expressions
# -----------------------------------------------------------------------------------------
A = te.placeholder((M, K), name="A")
B = te.placeholder((K, N), name="B")
k = te.reduce_axis((0, K), name="k")
C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
base = IRModule({"main": te.create_prim_func([A, B, C]).with_attr("global_symbol", "main")})
evaluate("0. baseline", base)

# -----------------------------------------------------------------------------------------
# 1. Blocking: split i and j by 32 and walk C tile by tile (k split by 4).
# -----------------------------------------------------------------------------------------
BN, KF = 32, 4


def blocked(sch):
    block = sch.get_block("C")
    i, j, kk = sch.get_loops(block)
    io, ii = sch.split(i, factors=[None, BN])
    jo, ji = sch.split(j, factors=[None, BN])
    ko, ki = sch.split(kk, factors=[None, KF])
    return block, (io, jo, ko, ki, ii, ji)


sch = tir.Schedule(base)
_, (io, jo, ko, ki, ii, ji) = blocked(sch)
sch.reorder(io, jo, ko, ki, ii, ji)
evaluate("1. blocking", sch.mod)

# -----------------------------------------------------------------------------------------
# 2. Vectorization: the innermost loop (ji, 32 columns) becomes vector lanes.
# -----------------------------------------------------------------------------------------
sch.vectorize(ji)
evaluate("2. vectorization", sch.mod)

# -----------------------------------------------------------------------------------------
# 3. Loop permutation: with ii outside ki, A[ii, k] is one broadcast per row and the
#    B and C accesses along ji are contiguous.
# -----------------------------------------------------------------------------------------
sch = tir.Schedule(base)
_, (io, jo, ko, ki, ii, ji) = blocked(sch)
sch.reorder(io, jo, ko, ii, ki, ji)
sch.vectorize(ji)
evaluate("3. loop permutation", sch.mod)

# -----------------------------------------------------------------------------------------
# 4. Array packing: B's column tile is strided in memory (rows are N floats apart). Packing
#    B into panels packedB[N/32][K][32] makes the inner loop read one contiguous stream.
# -----------------------------------------------------------------------------------------
packedB = te.compute((N // BN, K, BN), lambda x, y, z: B[y, x * BN + z], name="packedB")
C2 = te.compute(
    (M, N),
    lambda i, j: te.sum(A[i, k] * packedB[j // BN, k, tvm.tir.indexmod(j, BN)], axis=k),
    name="C",
)
packed = IRModule({"main": te.create_prim_func([A, B, C2]).with_attr("global_symbol", "main")})


def packed_schedule():
    sch = tir.Schedule(packed)
    block, (io, jo, ko, ki, ii, ji) = blocked(sch)
    sch.reorder(io, jo, ko, ii, ki, ji)
    sch.vectorize(ji)
    x, _, z = sch.get_loops(sch.get_block("packedB"))
    sch.vectorize(z)
    sch.parallel(x)
    return sch, block, (io, jo, ko, ki, ii, ji)


sch, _, _ = packed_schedule()
evaluate("4. array packing", sch.mod)

# -----------------------------------------------------------------------------------------
# 5. Write cache: accumulate the 32×32 tile of C in a local buffer (cache_write), zero it
#    before the k loops (decompose_reduction) and write it out after them.
# -----------------------------------------------------------------------------------------
sch, block, (io, jo, ko, ki, ii, ji) = packed_schedule()
local = sch.cache_write(block, 0, "local")
sch.reverse_compute_at(local, jo)
sch.decompose_reduction(block, ko)
evaluate("5. write cache", sch.mod)

# -----------------------------------------------------------------------------------------
# 6. Parallel: the row blocks (io) run on the thread pool (MINITVM_NUM_THREADS threads).
#    As in TVM, parallel/vectorize/bind need every block under the loop to be complete or a
#    reduction with its init: the update block decompose_reduction leaves is neither, so the
#    loop kinds come first and decompose_reduction last (the init's loops copy the kinds).
# -----------------------------------------------------------------------------------------
sch, block, (io, jo, ko, ki, ii, ji) = packed_schedule()
local = sch.cache_write(block, 0, "local")
sch.reverse_compute_at(local, jo)
sch.parallel(io)
sch.decompose_reduction(block, ko)
evaluate("6. parallel", sch.mod)

# TVM's tutorial stops here, at ~60% of MKL. The 32×32 accumulator tile is too big for the
# registers, so every k step loads and stores it.

# -----------------------------------------------------------------------------------------
# 7. Register tile: ti rows × tj columns of C stay in vector registers for the whole k loop.
#    Each k step then loads tj/lanes vectors of packed B, broadcasts ti values of A and does
#    ti·tj/lanes fused multiply-adds — nothing else touches memory. `unroll` makes every
#    index of the local tile a constant, so LLVM promotes it to registers.
# -----------------------------------------------------------------------------------------
vector_bits = 512 if "+avx512f" in tvm.get_global_func("target.llvm.HostCPUFeatures")() else 256
TI, TJ = (8, 32) if vector_bits == 512 else (4, 16)
II = 16 if vector_bits == 512 else 32
II = min(II, M // TI)
packedB = te.compute((N // TJ, K, TJ), lambda x, y, z: B[y, x * TJ + z], name="packedB")
C3 = te.compute(
    (M, N),
    lambda i, j: te.sum(A[i, k] * packedB[j // TJ, k, tvm.tir.indexmod(j, TJ)], axis=k),
    name="C",
)
tiled = IRModule({"main": te.create_prim_func([A, B, C3]).with_attr("global_symbol", "main")})
sch = tir.Schedule(tiled)
block = sch.get_block("C")
i, j, kk = sch.get_loops(block)
i0, i1, i2 = sch.split(i, factors=[None, II, TI])
j0, j1 = sch.split(j, factors=[None, TJ])
sch.reorder(i0, j0, i1, kk, i2, j1)
local = sch.cache_write(block, 0, "local")
sch.reverse_compute_at(local, i1)
sch.unroll(i2)
sch.vectorize(j1)
sch.parallel(i0)
init = sch.decompose_reduction(block, kk)  # last: see step 6
for blk in (init, local):
    *_, row, col = sch.get_loops(blk)
    sch.unroll(row)
    sch.vectorize(col)
x, _, z = sch.get_loops(sch.get_block("packedB"))
sch.parallel(x)
sch.vectorize(z)
print(f"register tile: {TI}x{TJ} for {vector_bits}-bit vectors", file=TIMING)
rt_mod = evaluate("7. register tile", sch.mod)

# The inner k loop of the final kernel, in LLVM's assembly: broadcasts, FMAs, no stores.
asm = rt_mod.get_source("asm")
print("fused multiply-adds in the kernel:", "vfmadd" in asm)

print("OK: every schedule step computes A @ B like NumPy")
