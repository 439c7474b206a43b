"""Stage 5: the target-derived CPU schedules from Python — the vector unit and caches a target
exposes (``Target.cpu_vector_info``), the GEMM tile derived from them
(``relax.backend.DeriveGemmPlan``) for AVX2 (znver3) and AVX-512 (znver4, skylake-avx512), and
models compiled with the "default" pipeline (which applies the GEMM rule to matmul / dense)
computing what the Relax interpreter and NumPy compute. No timings here (bench/ has them)."""
import numpy as np
import pytest

import minitvm as tvm
from minitvm import relax
from minitvm.relax import testing  # noqa: F401  (relax.testing.mlp)

derive = tvm.get_global_func("relax.backend.DeriveGemmPlan")
gemm_func = tvm.get_global_func("relax.backend.CpuGemmPrimFunc")


def _plan(target, m, n, k):
    return {str(key): (bool(v) if str(key) == "pack_b" else int(v))
            for key, v in derive(tvm.target.Target(target), 32, m, n, k).items()}


def test_cpu_vector_info_from_mcpu():
    info = tvm.target.Target("llvm -mcpu=znver3").cpu_vector_info
    assert info == {"vector_bits": 256, "vector_registers": 16, "l1d_bytes": 32768,
                    "l2_bytes": 524288}
    for cpu in ("znver4", "znver5", "skylake-avx512"):
        info = tvm.target.Target(f"llvm -mcpu={cpu}").cpu_vector_info
        assert info["vector_bits"] == 512 and info["vector_registers"] == 32
    over = tvm.target.Target("llvm -mcpu=znver3 -num-vector-registers=32 "
                             "-l2-cache-size-bytes=1048576").cpu_vector_info
    assert over["vector_registers"] == 32 and over["l2_bytes"] == 1048576


def test_cpu_vector_info_bad_attribute():
    with pytest.raises(ValueError, match="l1d-cache-size-bytes"):
        tvm.target.Target("llvm -l1d-cache-size-bytes=big")


@pytest.mark.parametrize("cpu,mr,nr", [("znver3", 6, 16), ("znver4", 8, 32),
                                       ("skylake-avx512", 8, 32)])
def test_gemm_tile_from_target(cpu, mr, nr):
    target = f"llvm -mcpu={cpu}"
    regs = tvm.target.Target(target).cpu_vector_info["vector_registers"]
    p = _plan(target, 512, 512, 512)
    assert (p["mr"], p["nr"]) == (mr, nr)
    assert p["mr"] * p["nv"] + p["nv"] + 1 <= regs
    # k blocked: the B micro-panel (kc x nr floats) in L1, kc <= 256, in blocks dividing K = 512;
    # the A block (mc x kc) and the C block (mc x nc) in a quarter of L2 each
    info = tvm.target.Target(target).cpu_vector_info
    assert p["pack_a"] and p["kc"] <= 256 and 512 % p["kc"] == 0
    assert p["kc"] * p["nr"] * 4 <= info["l1d_bytes"]
    assert p["mc"] * p["kc"] * 4 <= info["l2_bytes"] // 4 and p["mc"] % p["mr"] == 0
    assert p["mc"] * p["nc"] * 4 <= info["l2_bytes"] // 4 and p["nc"] % p["nr"] == 0
    # batch 1: one row, wider
    p1 = _plan(target, 1, 256, 784)
    assert p1["mr"] == 1 and p1["nv"] * (p1["mr"] + 1) + 1 <= regs and not p1["pack_b"]


@pytest.mark.parametrize("m,k,n,tb", [(7, 11, 13, False), (37, 29, 101, True), (64, 48, 96, False),
                                      (1, 19, 128, False), (5, 3, 41, True),
                                      (50, 257, 70, True), (40, 384, 96, False),
                                      (48, 33, 50, True), (16, 16, 17, True), (64, 784, 256, True),
                                      # several k blocks of the native plan (panels packed per k
                                      # block), N copied out in 8-, 4-float vectors and scalars
                                      (24, 600, 520, False), (19, 513, 100, True),
                                      (17, 1031, 33, False), (40, 512, 1000, True)])
def test_gemm_primfunc_matches_numpy(m, k, n, tb):
    f = gemm_func(tvm.target.Target("llvm -mcpu=native"), m, n, k, tb)
    lib = tvm.build(tvm.IRModule({"main": f}), target="llvm -mcpu=native")
    rng = np.random.default_rng(m * 1000 + n)
    a = rng.uniform(-1, 1, (m, k)).astype("float32")
    b = rng.uniform(-1, 1, (n, k) if tb else (k, n)).astype("float32")
    c = tvm.nd.empty((m, n), "float32")
    lib["main"](tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ (b.T if tb else b), rtol=1e-4, atol=1e-4)


def _linear_module(m, k, n, transpose):
    """main(x, w, b) = relu(x @ (w.T if transpose else w) + b), a BlockBuilder module."""
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((m, k), "float32"))
    w = relax.Var("w", relax.TensorStructInfo((n, k) if transpose else (k, n), "float32"))
    b = relax.Var("b", relax.TensorStructInfo((n,), "float32"))
    with bb.function("main", [x, w, b]):
        with bb.dataflow():
            wt = bb.emit(relax.op.permute_dims(w)) if transpose else w
            y = bb.emit(relax.op.matmul(x, wt))
            z = bb.emit(relax.op.nn.relu(bb.emit(relax.op.add(y, b))))
            out = bb.emit_output(z)
        bb.emit_func_output(out)
    return bb.get()


@pytest.mark.parametrize("m,k,n,tb", [(1, 784, 256, True), (64, 784, 256, True),
                                      (33, 70, 50, False), (128, 64, 96, False),
                                      (37, 301, 50, False), (40, 70, 100, True),
                                      (48, 30, 96, True)])
def test_compiled_model_matches_interpreter(m, k, n, tb):
    mod = _linear_module(m, k, n, tb)
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, (m, k)).astype("float32")
    w = rng.uniform(-1, 1, (n, k) if tb else (k, n)).astype("float32")
    b = rng.uniform(-1, 1, (n,)).astype("float32")
    ex = tvm.compile(mod, "llvm -mcpu=native")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    got = vm["main"](tvm.nd.array(x), tvm.nd.array(w), tvm.nd.array(b)).numpy()
    ref = relax.interpret(mod, "main", tvm.nd.array(x), tvm.nd.array(w), tvm.nd.array(b))
    np.testing.assert_allclose(got, ref.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got, np.maximum(x @ (w.T if tb else w) + b, 0), rtol=1e-4,
                               atol=1e-4)


def test_mlp_default_pipeline_matches_interpreter():
    mod, params = relax.testing.mlp.get_workload(batch_size=1, hidden_units=(256,))
    ex = tvm.compile(mod, "llvm -mcpu=native")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    x = np.random.default_rng(2).uniform(-1, 1, (1, 1, 28, 28)).astype("float32")
    got = vm["main"](tvm.nd.array(x), *params.values()).numpy()
    ref = relax.interpret(mod, "main", x, *params.values()).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)


def test_small_m_dense_random_shapes():
    """The small-M dense kernel (Cᵀ = B·Aᵀ, only A packed) on random shapes, tile multiples and
    ragged ones, against NumPy; the plan is the swapped one where M is at least a vector."""
    rng = np.random.default_rng(18)
    target = tvm.target.Target("llvm -mcpu=native")
    # At least 16 rows (below two register tiles, a dense takes the dot products instead).
    low = max(16, target.cpu_vector_info["vector_bits"] // 32)
    for _ in range(6):
        m = int(rng.integers(low, 3 * low))
        n = m + int(rng.integers(1, 80))
        k = int(rng.integers(1, 90))
        f = gemm_func(target, m, n, k, True)
        assert "packedA" in f.script() and "packedB" not in f.script(), (m, n, k)
        lib = tvm.build(tvm.IRModule({"main": f}), target="llvm -mcpu=native")
        a = rng.uniform(-1, 1, (m, k)).astype("float32")
        b = rng.uniform(-1, 1, (n, k)).astype("float32")
        c = tvm.nd.empty((m, n), "float32")
        lib["main"](tvm.nd.array(a), tvm.nd.array(b), c)
        np.testing.assert_allclose(c.numpy(), a @ b.T, rtol=1e-4, atol=1e-4, err_msg=str((m, n, k)))


def test_mlp_batch64_matches_interpreter_weights_passed_and_bound():
    mod, params = relax.testing.mlp.get_workload(batch_size=64, hidden_units=(256,))
    x = np.random.default_rng(3).uniform(-1, 1, (64, 1, 28, 28)).astype("float32")
    ref = relax.interpret(mod, "main", x, *params.values()).numpy()
    vm = relax.VirtualMachine(tvm.compile(mod, "llvm -mcpu=native"), tvm.cpu())
    got = vm["main"](tvm.nd.array(x), *params.values()).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)
    bound = relax.build(mod, "llvm -mcpu=native", params={k: v.numpy() for k, v in params.items()})
    got = relax.VirtualMachine(bound, tvm.cpu())["main"](tvm.nd.array(x)).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)
