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


@pytest.mark.parametrize("m,k,n,tb", [(1000, 300, 1000, False), (203, 517, 389, False),
                                      (131, 600, 97, True), (256, 1000, 256, False),
                                      (64, 520, 250, False), (48, 1031, 1000, True)])
def test_gemm_k_blocks_ignore_output_and_workspace_contents(m, k, n, tb):
    """Several k blocks: the first one stores (nothing zeroes C before it), and at the last one
    the tiles within M and N store into the output while the padded ones go through the padded
    C. The output starts as NaN and a call before leaves garbage in the reused workspaces."""
    f = gemm_func(tvm.target.Target("llvm -mcpu=native"), m, n, k, tb)
    lib = tvm.build(tvm.IRModule({"main": f}), target="llvm -mcpu=native")
    rng = np.random.default_rng(m + n + k)
    a = rng.uniform(-1, 1, (m, k)).astype("float32")
    b = rng.uniform(-1, 1, (n, k) if tb else (k, n)).astype("float32")
    c = tvm.nd.array(np.full((m, n), np.nan, "float32"))
    lib["main"](tvm.nd.array(a * 1e30), tvm.nd.array(b * 1e30), c)
    c = tvm.nd.array(np.full((m, n), np.nan, "float32"))
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


set_threads = tvm.get_global_func("runtime.cpu.SetNumThreads")
num_threads = tvm.get_global_func("runtime.cpu.NumThreads")


@pytest.mark.parametrize("cpu,nr", [("znver3", 32), ("znver4", 64), ("skylake-avx512", 64)])
def test_packed_gemv_plan_from_target(cpu, nr):
    """2 rows with a constant dense weight: B packed (at compile time) into panels of 4 vectors,
    2 x 4 accumulators within the registers; passed per call, and at batch 1 with K whole
    vectors, the dot products (no packing); batch 1 with a ragged K packed, 1 x 8 vectors with
    32 registers, 1 x 4 with 16."""
    target = tvm.target.Target(f"llvm -mcpu={cpu}")
    regs = target.cpu_vector_info["vector_registers"]
    p = derive(target, 32, 2, 256, 784, True, True)
    assert bool(p["pack_b"]) and not bool(p["swap_ab"]) and int(p["mr"]) == 2
    assert int(p["nr"]) == nr and int(p["nv"]) == 4
    assert int(p["mr"]) * 4 + 4 + 1 <= regs
    assert not bool(derive(target, 32, 2, 256, 784, True, False)["pack_b"])
    assert not bool(derive(target, 32, 1, 256, 784, True, True)["pack_b"])
    ragged = derive(target, 32, 1, 256, 787, True, True)
    assert bool(ragged["pack_b"]) and int(ragged["nv"]) == (8 if regs >= 32 else 4)
    assert not bool(derive(target, 32, 2, 8, 256, True, True)["pack_b"])  # one vector: dots


def _bound_linear_steps(mod, params):
    """The bound module through the default pipeline, the split and the fold (as relax.build)."""
    mod = relax.get_pipeline("default")(relax.transform.BindParams("main", params)(mod))
    mod = relax.transform.AttachAttrLayoutFreeBuffers()(mod)
    mod = tvm.get_global_func("relax.transform.DefaultCPUSchedule")(
        tvm.target.Target("llvm -mcpu=native"))(mod)
    mod = relax.transform.SplitLayoutRewritePreproc()(mod)
    return relax.transform.DeadCodeElimination()(relax.transform.FoldConstant()(mod))


def test_packed_gemv_weight_folded_into_a_constant():
    """A dense layer at batch 2 with its weight bound: the kernel is `..._prepacked` and gets a
    constant equal to NumPy's packing of W [N,K] into [N/nr][K][nr] panels (zeros beyond N)."""
    m, k, n = 2, 200, 300
    rng = np.random.default_rng(7)
    w = rng.uniform(-1, 1, (n, k)).astype("float32")
    b = rng.uniform(-1, 1, (n,)).astype("float32")
    folded = _bound_linear_steps(_linear_module(m, k, n, True), {"w": w, "b": b})
    names = [gv.name_hint for gv in folded.functions.keys()]
    assert not [s for s in names if s.endswith("_weight_prepack")], names
    calls = [bd.value for blk in folded["main"].body.blocks for bd in blk.bindings
             if hasattr(bd.value, "args") and len(bd.value.args) > 1
             and hasattr(bd.value.args[0], "name_hint")
             and bd.value.args[0].name_hint.endswith("_prepacked")]
    assert len(calls) == 1, names
    packed = calls[0].args[1].fields[1].data.numpy()
    nr = int(derive(tvm.target.Target("llvm -mcpu=native"), 32, m, n, k, True, True)["nr"])
    panels = -(-n // nr)
    assert packed.shape == (panels, k, nr)
    want = np.zeros((panels * nr, k), "float32")
    want[:n] = w
    np.testing.assert_array_equal(packed, want.reshape(panels, nr, k).transpose(0, 2, 1))


@pytest.mark.parametrize("m,k,n", [(1, 784, 256), (2, 784, 256), (1, 61, 97), (2, 29, 37),
                                   (3, 64, 131), (4, 7, 23), (1, 256, 10), (1, 500, 300),
                                   (2, 1024, 200), (4, 320, 200)])
def test_packed_gemv_bound_weights_match(m, k, n):
    """relu(x @ w.T + b) with w and b bound, 1 to 4 rows (primes, N not a multiple of the lanes
    or of the panel, K below a vector): the weight packed at compile time where the plan packs
    (the executable has the `_prepacked` kernel and no packing function), else the dot products;
    equal to NumPy and to the Relax interpreter, at 1 and 2 threads (the panels, or the dot
    products' row groups, are the parallel loop)."""
    target = tvm.target.Target("llvm -mcpu=native")
    mod = _linear_module(m, k, n, True)
    rng = np.random.default_rng(m * 7919 + n)
    x = rng.uniform(-1, 1, (m, k)).astype("float32")
    w = rng.uniform(-1, 1, (n, k)).astype("float32")
    b = rng.uniform(-1, 1, (n,)).astype("float32")
    ex = relax.build(mod, "llvm -mcpu=native", params={"w": w, "b": b})
    names = list(ex.imported_modules[0].function_names)
    packs = bool(derive(target, 32, m, n, k, True, True)["pack_b"])
    assert any(s.endswith("_prepacked") for s in names) == packs, names
    assert not [s for s in names if "weight_prepack" in s], names
    want = np.maximum(x @ w.T + b, 0)
    ref = relax.interpret(mod, "main", tvm.nd.array(x), tvm.nd.array(w), tvm.nd.array(b)).numpy()
    np.testing.assert_allclose(ref, want, rtol=1e-4, atol=1e-4)
    vm = relax.VirtualMachine(ex, tvm.cpu())
    saved = num_threads()
    try:
        for threads in (1, 2):
            set_threads(threads)
            got = vm["main"](tvm.nd.array(x)).numpy()
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4, err_msg=str(threads))
    finally:
        set_threads(saved)
