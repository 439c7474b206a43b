"""Stage 5: LLVM code generation from Python — the course's vector add and mm_relu built with
``target="llvm"``, bad arguments, export/load of shared libraries, sources, targets, timing,
TOPI operators against NumPy."""
import os

import numpy as np
import pytest

import minitvm as tvm
from conftest import requires_global

pytestmark = pytest.mark.usefixtures("_needs_llvm")


@pytest.fixture(name="_needs_llvm")
def _needs_llvm_fixture():
    requires_global("target.build.llvm")
    for name in ("script.FromSource", "driver.build"):
        requires_global(name)


def _build(mod, target="llvm"):
    from minitvm import driver  # pylint: disable=import-outside-toplevel

    return driver.build(mod, target=target)


def _script():
    pytest.importorskip("minitvm.script")
    from minitvm.script import ir as I, tir as T  # pylint: disable=import-outside-toplevel

    return I, T


def _vector_add_module():
    I, T = _script()

    @I.ir_module
    class MyModule:  # pylint: disable=too-few-public-methods
        @T.prim_func
        def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
            T.func_attr({"global_symbol": "main", "tir.noalias": True})
            for i in range(8):
                with T.block("C"):
                    vi = T.axis.spatial(8, i)
                    C[vi] = A[vi] + B[vi]

    return MyModule


def _mm_relu_module():
    I, T = _script()

    @I.ir_module
    class MyModule:  # pylint: disable=too-few-public-methods
        @T.prim_func
        def mm_relu(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"),
                    C: T.Buffer((128, 128), "float32")):
            T.func_attr({"global_symbol": "mm_relu", "tir.noalias": True})
            Y = T.alloc_buffer((128, 128), dtype="float32")
            for i, j, k in T.grid(128, 128, 128):
                with T.block("Y"):
                    vi = T.axis.spatial(128, i)
                    vj = T.axis.spatial(128, j)
                    vk = T.axis.reduce(128, k)
                    with T.init():
                        Y[vi, vj] = T.float32(0)
                    Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
            for i, j in T.grid(128, 128):
                with T.block("C"):
                    vi = T.axis.spatial(128, i)
                    vj = T.axis.spatial(128, j)
                    C[vi, vj] = T.max(Y[vi, vj], T.float32(0))

    return MyModule


def _schedule(mod):
    pytest.importorskip("minitvm.tir.schedule")
    from minitvm.tir import Schedule  # pylint: disable=import-outside-toplevel

    return Schedule(mod)


def test_course_vector_add_prints_one_to_eight(capsys):
    sch = _schedule(_vector_add_module())
    (i,) = sch.get_loops(sch.get_block("C"))
    _, i1 = sch.split(i, factors=[None, 4])
    sch.vectorize(i1)
    rt_mod = _build(sch.mod, target="llvm")
    assert rt_mod.kind == "llvm"
    a = tvm.nd.array(np.arange(8, dtype="float32"))
    b = tvm.nd.array(np.ones(8, dtype="float32"))
    c = tvm.nd.empty((8,), "float32")
    rt_mod["main"](a, b, c)
    print(c.numpy())
    assert capsys.readouterr().out.strip() == "[1. 2. 3. 4. 5. 6. 7. 8.]"


def test_mm_relu_scheduled_like_the_course():
    sch = _schedule(_mm_relu_module())
    block_y = sch.get_block("Y", func_name="mm_relu")
    i, j, k = sch.get_loops(block_y)
    j0, j1 = sch.split(j, factors=[None, 8])
    sch.reorder(j0, k, j1)
    block_c = sch.get_block("C", "mm_relu")
    sch.reverse_compute_at(block_c, j0)
    sch.vectorize(j1)
    sch.parallel(i)
    sch.decompose_reduction(block_y, k)  # last, as TVM requires
    rt_mod = _build(sch.mod)
    rng = np.random.default_rng(0)
    a_np = rng.uniform(-1, 1, (128, 128)).astype("float32")
    b_np = rng.uniform(-1, 1, (128, 128)).astype("float32")
    c = tvm.nd.empty((128, 128), "float32")
    rt_mod["mm_relu"](tvm.nd.array(a_np), tvm.nd.array(b_np), c)
    np.testing.assert_allclose(c.numpy(), np.maximum(a_np @ b_np, 0), rtol=1e-4, atol=1e-4)


def test_bad_arguments_raise_clear_errors_and_write_nothing():
    rt_mod = _build(_vector_add_module())
    f = rt_mod["main"]
    a = tvm.nd.array(np.arange(8, dtype="float32"))
    b = tvm.nd.array(np.ones(8, dtype="float32"))
    c = tvm.nd.array(np.zeros(8, dtype="float32"))
    with pytest.raises(TypeError, match="main expects 3 arguments but 2 were given"):
        f(a, b)
    with pytest.raises(ValueError, match=r"A.shape\[0\] is 7 but main expects 8"):
        f(tvm.nd.array(np.zeros(7, dtype="float32")), b, c)
    with pytest.raises(TypeError, match="C.dtype is float64 but main expects float32"):
        f(a, b, tvm.nd.array(np.zeros(8, dtype="float64")))
    with pytest.raises(ValueError, match="B.ndim is 2 but main expects 1"):
        f(a, tvm.nd.array(np.zeros((2, 4), dtype="float32")), c)
    with pytest.raises(TypeError, match="argument B .* must be an NDArray but got float"):
        f(a, 1.5, c)
    # The minitvm error classes are also Python's.
    with pytest.raises(tvm.error.ValueError):
        f(tvm.nd.array(np.zeros(9, dtype="float32")), b, c)
    np.testing.assert_array_equal(c.numpy(), np.zeros(8, dtype="float32"))


HUGE_BUFFER = """
@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    B = T.alloc_buffer((100000, 100000), "float32")
    for i in range(4):
        B[i * 30000, i * 30000] = A[i]
    for i in range(4):
        A[i] = B[i * 30000, i * 30000] + T.float32(1)
"""


def test_allocations_whose_size_overflows_are_refused():
    """10^10 elements overflow the int32 shape type: the code would allocate a wrapped size
    and write out of bounds, so both the compiler and the interpreter refuse it."""
    mod = tvm.script.from_source(HUGE_BUFFER)
    with pytest.raises(tvm.error.ValueError, match="allocation of B: .* overflows its integer type"):
        _build(mod)
    with pytest.raises(tvm.error.ValueError, match="too large for the interpreter"):
        _build(mod, target="ref")["f"](tvm.nd.array(np.zeros(4, "float32")))
    overflowing = tvm.script.from_source(HUGE_BUFFER.replace("(100000, 100000)", "(1 << 40, 1 << 40)"))
    with pytest.raises(tvm.error.ValueError, match="element count overflows int64"):
        _build(overflowing, target="ref")["f"](tvm.nd.array(np.zeros(4, "float32")))


def test_export_library_and_load_module(tmp_path):
    rt_mod = _build(_vector_add_module())
    path = tmp_path / "vector_add.so"
    rt_mod.export_library(str(path))
    loaded = tvm.runtime.load_module(str(path))
    assert loaded.kind == "library"
    a = tvm.nd.array(np.arange(8, dtype="float32"))
    b = tvm.nd.array(np.full(8, 2, dtype="float32"))
    c = tvm.nd.empty((8,), "float32")
    loaded["main"](a, b, c)
    np.testing.assert_array_equal(c.numpy(), np.arange(8) + 2)
    with pytest.raises(ValueError, match=r"A.shape\[0\] is 3 but main expects 8"):
        loaded["main"](tvm.nd.array(np.zeros(3, dtype="float32")), b, c)


def test_export_to_unwritable_path_fails():
    rt_mod = _build(_vector_add_module())
    with pytest.raises(ValueError, match="cannot write"):
        rt_mod.export_library("/nonexistent-minitvm-dir/x.so")
    assert not os.path.exists("/nonexistent-minitvm-dir/x.so")


def test_truncated_and_corrupted_libraries_fail_cleanly(tmp_path):
    rt_mod = _build(_vector_add_module())
    good = tmp_path / "good.so"
    rt_mod.export_library(str(good))
    data = good.read_bytes()
    truncated = tmp_path / "truncated.so"
    truncated.write_bytes(data[: len(data) // 3])
    with pytest.raises(ValueError, match="truncated"):
        tvm.runtime.load_module(str(truncated))
    corrupted = tmp_path / "corrupted.so"
    corrupted.write_bytes(b"\0" * 64 + data[64:])
    with pytest.raises(ValueError, match="not an ELF file"):
        tvm.runtime.load_module(str(corrupted))
    with pytest.raises(ValueError):
        tvm.runtime.load_module(str(tmp_path / "missing.so"))


def test_sources_for_learners():
    rt_mod = _build(_vector_add_module())
    assert "define" in rt_mod.get_source("ll")
    assert "main" in rt_mod.get_source("asm")
    assert "compute_scope" in rt_mod.get_source("tir")
    with pytest.raises(ValueError):
        rt_mod.get_source("cu")


def test_time_evaluator():
    rt_mod = _build(_vector_add_module())
    a = tvm.nd.array(np.arange(8, dtype="float32"))
    b = tvm.nd.array(np.ones(8, dtype="float32"))
    c = tvm.nd.empty((8,), "float32")
    timer = rt_mod.time_evaluator("main", tvm.cpu(), number=5, repeat=3)
    result = timer(a, b, c)
    assert len(result.results) == 3
    assert result.mean > 0


def test_native_target_resolves_the_host_cpu():
    cpu = tvm.get_global_func("target.llvm.ResolveHostCPU")()
    assert cpu and cpu != "native"
    parsed = tvm.get_global_func("target.llvm.ParseTarget")("llvm -mcpu=native")
    assert parsed["mcpu"] == cpu
    rt_mod = _build(_vector_add_module(), target="llvm -mcpu=native")
    assert rt_mod.kind == "llvm"


def test_compile_of_a_tir_only_module():
    from minitvm import driver  # pylint: disable=import-outside-toplevel

    rt_mod = driver.compile(_vector_add_module(), target="llvm")
    c = tvm.nd.empty((8,), "float32")
    rt_mod["main"](tvm.nd.array(np.ones(8, "float32")), tvm.nd.array(np.ones(8, "float32")), c)
    np.testing.assert_array_equal(c.numpy(), np.full(8, 2.0))


def test_topi_softmax_and_conv2d_against_numpy():
    te = pytest.importorskip("minitvm.te")
    topi = pytest.importorskip("minitvm.topi")
    x = te.placeholder((4, 10), "float32", name="x")
    y = topi.nn.softmax(x, axis=-1)
    rt_mod = _build(te.create_prim_func([x, y]))
    x_np = np.random.default_rng(1).uniform(-3, 3, (4, 10)).astype("float32")
    out = tvm.nd.empty((4, 10), "float32")
    rt_mod(tvm.nd.array(x_np), out)
    e = np.exp(x_np - x_np.max(axis=-1, keepdims=True))
    np.testing.assert_allclose(out.numpy(), e / e.sum(axis=-1, keepdims=True), rtol=1e-5, atol=1e-6)

    data = te.placeholder((1, 3, 8, 8), "float32", name="data")
    kernel = te.placeholder((2, 3, 3, 3), "float32", name="kernel")
    conv = topi.nn.conv2d_nchw(data, kernel, 1, 1, 1)
    rt_mod = _build(te.create_prim_func([data, kernel, conv]))
    d_np = np.random.default_rng(2).uniform(-1, 1, (1, 3, 8, 8)).astype("float32")
    k_np = np.random.default_rng(3).uniform(-1, 1, (2, 3, 3, 3)).astype("float32")
    out = tvm.nd.empty((1, 2, 8, 8), "float32")
    rt_mod(tvm.nd.array(d_np), tvm.nd.array(k_np), out)
    padded = np.pad(d_np, ((0, 0), (0, 0), (1, 1), (1, 1)))
    ref = np.zeros((1, 2, 8, 8), "float32")
    for o in range(2):
        for h in range(8):
            for w in range(8):
                ref[0, o, h, w] = np.sum(padded[0, :, h:h + 3, w:w + 3] * k_np[o])
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-4, atol=1e-5)
