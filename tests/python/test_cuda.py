"""CUDA (stage 5): Target("cuda"), the GPU lowering passes, CodeGenCUDA + NVRTC (PTX checked
by ptxas for sm_80 and sm_90), the runtime without a driver, the default GPU schedule, and the
GPU-semantics checker ``minitvm.gpu_check`` (results against NumPy; one negative test per
check). Nothing here needs a GPU; tests that run kernels on one skip with the driver's message.
"""
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

import minitvm as tvm
from minitvm.script import tir as T

PTXAS = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"


@pytest.fixture(autouse=True)
def _needs_cuda_build():
    if tvm.get_global_func("target.build.cuda", allow_missing=True) is None:
        pytest.skip("minitvm was built without stage 5 CUDA")
    if not tvm.get_global_func("codegen.NVRTCAvailable")():
        pytest.skip("minitvm was built without the CUDA toolkit (NVRTC)")


def gpu_check(mod, *arrays, **kw):
    from minitvm import gpu_check as gc  # pylint: disable=import-outside-toplevel

    return gc.check(mod, *arrays, **kw)


def driver_error():
    return tvm.get_global_func("runtime.cuda.DriverError")()


def assert_ptxas(lib, tmp_path):
    """Every kernel of `lib`: its PTX assembles for sm_80 and sm_90."""
    if not os.path.exists(PTXAS):
        pytest.skip("ptxas not found")
    ptx = lib.imported_modules[0].get_source("ptx")
    path = tmp_path / "kernels.ptx"
    path.write_text(ptx)
    for arch in ("sm_80", "sm_90"):
        r = subprocess.run([PTXAS, f"-arch={arch}", str(path), "-o", os.devnull],
                           capture_output=True, text=True, check=False)
        assert r.returncode == 0, f"ptxas -arch={arch}:\n{r.stderr}"


# ---- the course's bind example (seed 001) -------------------------------------------------


@tvm.script.ir_module
class AddOne:
    @T.prim_func
    def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in range(8):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi] + T.float32(1)


def bound_add_one():
    sch = tvm.tir.Schedule(AddOne)
    i_0, i_1, i_2 = sch.split(sch.get_loops(sch.get_block("B"))[0], factors=[None, 2, 2])
    sch.reorder(i_0, i_2, i_1)
    sch.bind(i_0, "blockIdx.x")
    sch.bind(i_2, "threadIdx.x")
    return sch


def test_target_cuda_attributes():
    t = tvm.target.Target("cuda")
    assert t.attrs["arch"] == "sm_80"
    assert t.attrs["max_threads_per_block"] == 1024
    assert t.attrs["max_shared_memory_per_block"] == 49152
    assert t.attrs["thread_warp_size"] == 32
    assert tvm.target.Target("cuda -arch=sm_90").attrs["arch"] == "sm_90"


def test_bind_example_source_ptx_and_check(tmp_path):
    sch = bound_add_one()
    lib = tvm.build(sch.mod, target="cuda")
    src = lib.imported_modules[0].get_source()
    assert 'extern "C" __global__ void __launch_bounds__(2) main_kernel(' in src
    assert "blockIdx.x" in src and "threadIdx.x" in src
    assert lib.imported_modules[0].get_source("ptx").lstrip().startswith("//")
    assert_ptxas(lib, tmp_path)
    a = tvm.nd.array(np.arange(8).astype("float32"))
    b = tvm.nd.array(np.zeros(8, "float32"))
    assert gpu_check(sch.mod, a, b) == 1
    np.testing.assert_array_equal(b.numpy(), np.arange(8) + 1)


def test_no_driver_message_and_device():
    err = driver_error()
    if err:
        assert not tvm.cuda(0).exist
        assert "no CUDA" in err
        with pytest.raises(tvm.error.TVMError, match="no CUDA"):
            tvm.nd.array(np.zeros(4, "float32"), tvm.cuda(0))
    else:
        assert tvm.cuda(0).exist


def test_cpu_arrays_are_rejected_with_a_hint():
    lib = tvm.build(bound_add_one().mod, target="cuda")
    a = tvm.nd.array(np.zeros(8, "float32"))
    with pytest.raises(ValueError, match="gpu_check"):
        lib(a, a)


def test_run_on_gpu_when_present():
    err = driver_error()
    if err:
        pytest.skip(err)
    dev = tvm.cuda(0)
    lib = tvm.build(bound_add_one().mod, target="cuda")
    a = tvm.nd.array(np.arange(8).astype("float32"), dev)
    b = tvm.nd.array(np.zeros(8, "float32"), dev)
    lib(a, b)
    np.testing.assert_array_equal(b.numpy(), np.arange(8) + 1)
    assert lib.time_evaluator("main", dev, number=3)(a, b).mean > 0


# ---- shared-memory tiled matmul ------------------------------------------------------------


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


def tiled_matmul(tile=8):
    sch = tvm.tir.Schedule(MatMul)
    block = sch.get_block("C")
    i, j, k = sch.get_loops(block)
    i0, i1 = sch.split(i, [None, tile])
    j0, j1 = sch.split(j, [None, tile])
    k0, k1 = sch.split(k, [None, tile])
    sch.reorder(i0, j0, k0, i1, j1, k1)
    a_sh = sch.cache_read(block, 0, "shared")
    b_sh = sch.cache_read(block, 1, "shared")
    sch.compute_at(a_sh, k0)
    sch.compute_at(b_sh, k0)
    sch.bind(i0, "blockIdx.y")
    sch.bind(j0, "blockIdx.x")
    sch.bind(i1, "threadIdx.y")
    sch.bind(j1, "threadIdx.x")
    for sh in (a_sh, b_sh):
        ty, tx = sch.split(sch.fuse(*sch.get_loops(sh)[-2:]), [tile, tile])
        sch.bind(ty, "threadIdx.y")
        sch.bind(tx, "threadIdx.x")
    init = sch.decompose_reduction(block, k0)
    sch.bind(sch.get_loops(init)[-2], "threadIdx.y")
    sch.bind(sch.get_loops(init)[-1], "threadIdx.x")
    return sch


def lowered_script(mod):
    passes = tvm.get_global_func("tir.transform.CUDATIRPipelinePasses")("cuda")
    for p in passes:
        mod = p(mod)
    return mod.script()


def drop_sync(text, which):
    lines = text.split("\n")
    syncs = [n for n, line in enumerate(lines) if "T.tvm_storage_sync" in line]
    del lines[syncs[which]]
    return tvm.script.from_source("\n".join(lines))


def matmul_arrays(seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((64, 64)).astype("float32")
    b = rng.standard_normal((64, 64)).astype("float32")
    return a, b, [tvm.nd.array(a), tvm.nd.array(b), tvm.nd.array(np.zeros((64, 64), "float32"))]


def test_tiled_matmul_source_ptx_and_check(tmp_path):
    sch = tiled_matmul()
    lib = tvm.build(sch.mod, target="cuda")
    src = lib.imported_modules[0].get_source()
    assert "__shared__ float A_shared[64];" in src
    assert src.count("__syncthreads();") == 2
    assert "__launch_bounds__(64)" in src
    assert_ptxas(lib, tmp_path)
    a, b, nds = matmul_arrays()
    gpu_check(sch.mod, *nds)
    np.testing.assert_allclose(nds[2].numpy(), a @ b, rtol=1e-4, atol=1e-4)


def test_checker_reports_missing_sync_before_read():
    a, b, nds = matmul_arrays()
    racy = drop_sync(lowered_script(tiled_matmul().mod), 0)
    with pytest.raises(RuntimeError, match=r"data race on shared buffer A_shared\[0\].*reads it "
                       r"after thread \(0, 0, 0\) wrote it.*missing __syncthreads"):
        gpu_check(racy, *nds)


def test_checker_reports_missing_sync_after_read():
    a, b, nds = matmul_arrays()
    racy = drop_sync(lowered_script(tiled_matmul().mod), 1)
    with pytest.raises(RuntimeError, match=r"data race on shared buffer .*writes it while .* reads "
                       r"it between the same barriers"):
        gpu_check(racy, *nds)


# ---- negative tests, one per check -----------------------------------------------------------


@T.prim_func
def oob(A: T.Buffer((100,), "float32"), B: T.Buffer((100,), "float32")):
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        for tx in T.thread_binding(64, thread="threadIdx.x"):
            B[bx * 64 + tx] = A[bx * 64 + tx]


@T.prim_func
def all_write_one(A: T.Buffer((32,), "float32"), B: T.Buffer((1,), "float32")):
    for tx in T.thread_binding(32, thread="threadIdx.x"):
        B[0] = A[tx]


@T.prim_func
def divergent_sync(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32")):
    for tx in T.thread_binding(32, thread="threadIdx.x"):
        if tx < 4:
            T.tvm_storage_sync("shared")
        B[tx] = A[tx]


@T.prim_func
def big_block(A: T.Buffer((2048,), "float32"), B: T.Buffer((2048,), "float32")):
    for tx in T.thread_binding(2048, thread="threadIdx.x"):
        B[tx] = A[tx]


@T.prim_func
def block_128(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for tx in T.thread_binding(128, thread="threadIdx.x"):
        B[tx] = A[tx] * T.float32(2)


@T.prim_func
def mismatched(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        for tx in T.thread_binding(8, thread="threadIdx.x"):
            B[tx] = A[tx]
        for tx in T.thread_binding(16, thread="threadIdx.x"):
            B[tx] = A[tx]


@T.prim_func
def unbound(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        B[i] = A[i]


@T.prim_func
def too_much_shared(A: T.Buffer((16384,), "float32"), B: T.Buffer((16384,), "float32")):
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        with T.block("root_inner"):
            S = T.alloc_buffer((16384,), "float32", scope="shared")
            for tx in T.thread_binding(128, thread="threadIdx.x"):
                for k in range(128):
                    with T.block("S"):
                        v = T.axis.spatial(16384, k * 128 + tx)
                        S[v] = A[v]
            for tx in T.thread_binding(128, thread="threadIdx.x"):
                for k in range(128):
                    with T.block("B"):
                        v = T.axis.spatial(16384, k * 128 + tx)
                        B[v] = S[v]


def arr(n, value=None):
    x = np.arange(n, dtype="float32") if value is None else np.full(n, value, "float32")
    return tvm.nd.array(x)


def test_checker_out_of_bounds():
    with pytest.raises(RuntimeError, match=r"out-of-bounds read of A\[100\] \(the buffer has 100 "
                       r"elements\) by thread \(36, 0, 0\) of block \(1, 0, 0\)"):
        gpu_check(oob, arr(100), arr(100, 0))


def test_checker_global_write_race():
    with pytest.raises(RuntimeError, match=r"data race on global buffer B\[0\]: thread \(1, 0, 0\)"
                       r".* both write it"):
        gpu_check(all_write_one, arr(32), arr(1, 0))


def test_checker_divergent_sync():
    with pytest.raises(RuntimeError, match=r"__syncthreads\(\) in divergent code: thread "
                       r"\(0, 0, 0\) .* reaches it but thread \(4, 0, 0\) does not"):
        gpu_check(divergent_sync, arr(32), arr(32, 0))


def test_checker_launch_too_large_for_target():
    b = arr(128, 0)
    assert gpu_check(block_128, arr(128), b) == 1
    np.testing.assert_array_equal(b.numpy(), np.arange(128) * 2)
    with pytest.raises(RuntimeError, match=r"128 threads per block .* more than the target allows "
                       r"\(max_threads_per_block = 64\)"):
        gpu_check(block_128, arr(128), b, target="cuda -max_threads_per_block=64")


def test_checker_shared_memory_and_uninitialized_read():
    # 64 KiB of shared memory: over the 48 KiB of the default target.
    with pytest.raises(ValueError, match=r"65536 bytes of shared memory .*max_shared_memory_per_"
                       r"block = 49152"):
        tvm.build(too_much_shared, target="cuda")


def test_verify_gpu_code_threads_per_block():
    with pytest.raises(ValueError, match=r"2048 threads per block .*max_threads_per_block = 1024"):
        tvm.build(big_block, target="cuda")


def test_verify_gpu_code_mismatched_extents():
    with pytest.raises(ValueError, match=r"threadIdx.x is bound to loops of different extents: "
                       r"tx \(8\) and tx \(16\)"):
        tvm.build(mismatched, target="cuda")


def test_unbound_function_is_rejected():
    with pytest.raises(ValueError, match=r"store to B is outside every thread-bound loop.*forget "
                       r"to bind"):
        tvm.build(unbound, target="cuda")


# ---- the quick start's MLP with the default GPU schedule ------------------------------------


def test_mlp_compiles_for_cuda_and_kernels_pass_checker(tmp_path):
    from minitvm import relax  # pylint: disable=import-outside-toplevel
    from minitvm.relax.frontend import nn  # pylint: disable=import-outside-toplevel

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(784, 128)
            self.relu1 = nn.ReLU()
            self.fc2 = nn.Linear(128, 10)

        def forward(self, x):
            return self.fc2(self.relu1(self.fc1(x)))

    mod, _ = MLP().export_tvm(spec={"forward": {"x": nn.spec.Tensor((2, 784), "float32")}})
    ex = tvm.compile(mod, "cuda")
    kernels = ex.imported_modules[0]
    assert_ptxas(kernels, tmp_path)
    # Every PrimFunc after LegalizeOps + the default GPU schedule: checker == interpreter.
    legal = relax.transform.LegalizeOps()(mod)
    scheduled = tvm.get_global_func("relax.transform.DefaultGPUSchedule")("cuda")(legal)
    rng = np.random.default_rng(1)
    checked = 0
    for gv, func in scheduled.functions.items():
        if not isinstance(func, tvm.tir.PrimFunc):
            continue
        args = []
        for p in func.params:
            buf = func.buffer_map[p]
            shape = [int(s) for s in buf.shape]
            args.append(rng.standard_normal(shape).astype(buf.dtype))
        ref = [tvm.nd.array(a) for a in args]
        got = [tvm.nd.array(a) for a in args]
        tvm.build(legal[gv.name_hint].with_attr("global_symbol", "main"), target="ref")(*ref)
        assert gpu_check(func.with_attr("global_symbol", "main"), *got) >= 1
        for r, g in zip(ref, got):
            np.testing.assert_allclose(g.numpy(), r.numpy(), rtol=1e-4, atol=1e-4)
        checked += 1
    assert checked >= 3


# ---- vector types, fast math, uninitialized shared memory ----------------------------------


@T.prim_func
def exp_plus_one(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i in range(1024):
        with T.block("B"):
            vi = T.axis.spatial(1024, i)
            B[vi] = T.exp(A[vi]) + T.float32(1)


def test_vectorized_fast_math_kernel(tmp_path):
    sch = tvm.tir.Schedule(exp_plus_one)
    (i,) = sch.get_loops(sch.get_block("B"))
    bx, tx, v = sch.split(i, [None, 64, 4])
    sch.bind(bx, "blockIdx.x")
    sch.bind(tx, "threadIdx.x")
    sch.vectorize(v)
    lib = tvm.build(sch.mod, target="cuda")
    src = lib.imported_modules[0].get_source()
    assert "*(float4*)(B + i_0 * 256 + i_1 * 4) = make_float4(__expf(" in src
    assert_ptxas(lib, tmp_path)
    a = np.random.default_rng(2).random(1024).astype("float32")
    b = tvm.nd.array(np.zeros(1024, "float32"))
    gpu_check(sch.mod, tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), np.exp(a) + 1, rtol=1e-6)


def test_checker_misaligned_vector_store():
    sch = tvm.tir.Schedule(exp_plus_one)
    (i,) = sch.get_loops(sch.get_block("B"))
    bx, tx, v = sch.split(i, [None, 64, 4])
    sch.bind(bx, "blockIdx.x")
    sch.bind(tx, "threadIdx.x")
    sch.vectorize(v)
    text = lowered_script(sch.mod).replace("i_0 * 256 + i_1 * 4", "i_0 * 256 + i_1 * 3")
    with pytest.raises(RuntimeError, match=r"misaligned float4 store to B\[3\] by thread "
                       r"\(1, 0, 0\)"):
        gpu_check(tvm.script.from_source(text), arr(1024), arr(1024, 0))


@T.prim_func
def uninit(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32")):
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        S = T.decl_buffer((64,), scope="shared")
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            S[tx] = A[tx]
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            B[tx] = S[tx + 32]


def test_checker_uninitialized_shared_read():
    with pytest.raises(RuntimeError, match=r"thread \(0, 0, 0\) of block \(0, 0, 0\) reads shared "
                       r"buffer S\[32\] before any thread wrote it"):
        gpu_check(uninit, arr(32), arr(32, 0))


# ---- intermediates in global memory ---------------------------------------------------------


@T.prim_func
def via_global_temp(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    tmp = T.alloc_buffer((64,), "float32")
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        for tx in T.thread_binding(64, thread="threadIdx.x"):
            with T.block("t"):
                v = T.axis.spatial(64, tx)
                tmp[v] = A[v] * T.float32(2)
        for tx in T.thread_binding(64, thread="threadIdx.x"):
            with T.block("b"):
                v = T.axis.spatial(64, tx)
                B[v] = tmp[63 - v] + T.float32(1)


def test_global_intermediate_is_allocated_by_the_host_and_raced_on(tmp_path):
    lowered = lowered_script(tvm.IRModule({"main": via_global_temp}))
    # The planner put `tmp` inside the kernel; SplitHostDevice moved it to the host.
    host = lowered[:lowered.index("def main_kernel")]
    assert "tmp = T.decl_buffer((64,))" in host or "T.allocate" in host, host
    assert_ptxas(tvm.build(via_global_temp, target="cuda"), tmp_path)
    # Thread 0 reads tmp[63], which thread 63 wrote with no barrier between.
    with pytest.raises(RuntimeError, match=r"data race on global buffer tmp\[63\]: thread "
                       r"\(0, 0, 0\) of block \(0, 0, 0\) reads it after thread \(63, 0, 0\)"):
        gpu_check(via_global_temp, arr(64), arr(64, 0))


def test_resnet18_compiles_for_cuda(tmp_path):
    from minitvm.relax.testing import resnet  # pylint: disable=import-outside-toplevel

    mod, _ = resnet.get_workload(batch_size=1, num_layers=18)
    ex = tvm.compile(mod, "cuda")
    kernels = ex.imported_modules[0]
    assert kernels.imported_modules[0].get_source().count("__global__") > 50
    assert_ptxas(kernels, tmp_path)

