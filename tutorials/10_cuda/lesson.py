# Lesson 10 (Python): CUDA without a GPU — generate, compile, and check the kernels
# ===================================================================================
#
# The TensorIR course ends by binding loops to `blockIdx.x` / `threadIdx.x` and building with
# `tvm.build(sch.mod, target="cuda")`. This lesson does that, and then does what a machine
# without a GPU still can:
#
#   1. the course's bind example, built for CUDA: the lowered host/kernel split and the CUDA C
#      that CodeGenCUDA writes (NVRTC compiles it to PTX inside `tvm.build`);
#   2. the GPU-semantics checker, `minitvm.gpu_check.check`: it runs the kernels on the CPU the
#      way a GPU does — every thread of a block, `__syncthreads()` as the end of a phase — and
#      the arrays receive what the GPU would compute;
#   3. a shared-memory tiled matmul (cache_read into "shared", threads bound, barriers inserted
#      by the ThreadSync pass): the checker accepts it and its result equals NumPy;
#   4. the same kernel with one barrier removed: the checker rejects it, naming the shared
#      buffer, the element and the two threads that race.
# Where a GPU is present the lesson also runs step 1 on it (printed to stderr only).
import re

import numpy as np

import minitvm as tvm
from minitvm import gpu_check
from minitvm.script import tir as T


# ---- 1. the course's example: B = A + 1, bound to blocks and threads ----------------------
@tvm.script.ir_module
class MyModule:
    @T.prim_func
    def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in range(8):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi] + T.float32(1)


sch = tvm.tir.Schedule(MyModule)
(i,) = sch.get_loops(sch.get_block("B"))
i_0, i_1, i_2 = sch.split(i, factors=[None, 2, 2])
sch.reorder(i_0, i_2, i_1)
sch.bind(i_0, "blockIdx.x")
sch.bind(i_2, "threadIdx.x")

cuda_mod = tvm.build(sch.mod, target="cuda")
# The build returns the host module (kind "cuda_host"): it checks the arguments and launches.
# Its source is the lowered TIR: `main` calls `main_kernel` with the launch extents
# (blockIdx.x = 2, threadIdx.x = 2).
print("== host (lowered TIR) ==")
print(cuda_mod.get_source())
# The kernels are the imported module, as in TVM.
print("== imported_modules[0].get_source() ==")
src = cuda_mod.imported_modules[0].get_source()
print(src[src.index('extern "C"'):])
ptx = cuda_mod.imported_modules[0].get_source("ptx")
print("PTX for", re.search(r"\.target (\w+)", ptx).group(1), "with",
      ptx.count(".entry"), "entry")

# ---- 2. run it with GPU semantics on the CPU ------------------------------------------------
a = tvm.nd.array(np.arange(8).astype("float32"))
b = tvm.nd.array(np.zeros((8,)).astype("float32"))
launches = gpu_check.check(sch.mod, a, b)
print("checked", launches, "launch:", b.numpy())
np.testing.assert_array_equal(b.numpy(), np.arange(8) + 1)

if tvm.cuda(0).exist:  # only on a machine with a GPU; stderr keeps the golden output stable
    import sys

    dev = tvm.cuda(0)
    ga = tvm.nd.array(np.arange(8).astype("float32"), dev)
    gb = tvm.nd.array(np.zeros((8,)).astype("float32"), dev)
    cuda_mod(ga, gb)
    print("on the GPU:", gb.numpy(), file=sys.stderr)


# ---- 3. a shared-memory tiled matmul --------------------------------------------------------
@tvm.script.ir_module
class MatMul:
    @T.prim_func
    def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"),
             C: T.Buffer((64, 64), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j, k in T.grid(64, 64, 64):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


# Each block of 8x8 threads computes an 8x8 tile of C. For each step k_0 of 8 along k, the
# threads first copy an 8x8 tile of A and one of B into shared memory (one element each),
# then every thread reads a row of the A tile and a column of the B tile.
sch = tvm.tir.Schedule(MatMul)
block = sch.get_block("C")
i, j, k = sch.get_loops(block)
i0, i1 = sch.split(i, [None, 8])
j0, j1 = sch.split(j, [None, 8])
k0, k1 = sch.split(k, [None, 8])
sch.reorder(i0, j0, k0, i1, j1, k1)
A_shared = sch.cache_read(block, 0, "shared")
B_shared = sch.cache_read(block, 1, "shared")
sch.compute_at(A_shared, k0)
sch.compute_at(B_shared, k0)
sch.bind(i0, "blockIdx.y")
sch.bind(j0, "blockIdx.x")
sch.bind(i1, "threadIdx.y")
sch.bind(j1, "threadIdx.x")
for copy in (A_shared, B_shared):
    ty, tx = sch.split(sch.fuse(*sch.get_loops(copy)[-2:]), [8, 8])
    sch.bind(ty, "threadIdx.y")
    sch.bind(tx, "threadIdx.x")
init = sch.decompose_reduction(block, k0)
sch.bind(sch.get_loops(init)[-2], "threadIdx.y")
sch.bind(sch.get_loops(init)[-1], "threadIdx.x")

# The ThreadSync pass put two barriers in the k_0 loop: after the copies (no thread may read
# the tiles before all are written) and at the end (no thread may overwrite them for the next
# step while another still reads).
lib = tvm.build(sch.mod, target="cuda")
src = lib.imported_modules[0].get_source()
print("== tiled matmul kernel ==")
print(src[src.index('extern "C"'):])

rng = np.random.default_rng(0)
a_np = rng.standard_normal((64, 64)).astype("float32")
b_np = rng.standard_normal((64, 64)).astype("float32")
A = tvm.nd.array(a_np)
B = tvm.nd.array(b_np)
C = tvm.nd.array(np.zeros((64, 64), "float32"))
gpu_check.check(sch.mod, A, B, C)
np.testing.assert_allclose(C.numpy(), a_np @ b_np, rtol=1e-4, atol=1e-4)
print("the checker accepts the tiled matmul; C equals A @ B")

# ---- 4. remove the first barrier: a race --------------------------------------------------
# Lower with the CUDA pipeline, print the module, delete the first T.tvm_storage_sync line and
# parse it back: the checker runs exactly what CodeGenCUDA would have received.
lowered = sch.mod
for p in tvm.get_global_func("tir.transform.CUDATIRPipelinePasses")("cuda"):
    lowered = p(lowered)
lines = lowered.script().split("\n")
first_sync = next(n for n, line in enumerate(lines) if "T.tvm_storage_sync" in line)
print("removed:", lines[first_sync].strip())
del lines[first_sync]
racy = tvm.script.from_source("\n".join(lines))
try:
    gpu_check.check(racy, A, B, tvm.nd.array(np.zeros((64, 64), "float32")))
    raise AssertionError("the checker accepted a kernel with a race")
except tvm.error.RuntimeError as err:
    print("the checker rejects it:")
    print(" ", str(err).split("\n")[0])

print("OK: CUDA C generated and compiled to PTX; the checker's results equal NumPy; "
      "the missing barrier is found")
