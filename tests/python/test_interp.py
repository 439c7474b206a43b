"""The TIR interpreter and the "ref" build from Python (stage 2): argument checks, bounds
errors, speed of a small call, targets and the driver."""
import time

import numpy as np
import pytest

import minitvm as tvm
from minitvm import te, tir
from minitvm.driver import build
from minitvm.target import Target


def _vector_add(n):
    A = te.placeholder((n,), name="A")
    B = te.placeholder((n,), name="B")
    C = te.compute((n,), lambda i: A[i] + B[i], name="C")
    return te.create_prim_func([A, B, C])


def test_argument_checks_name_the_argument_and_write_nothing():
    rt = build(_vector_add(8), target="ref")
    a = tvm.nd.array(np.ones(8, "float32"))
    c = tvm.nd.array(np.full(8, -1.0, "float32"))
    with pytest.raises(TypeError, match=r"main: expects 3 arguments \(A, B, C\) but 2 were given"):
        rt(a, c)
    with pytest.raises(ValueError, match=r"main: argument B: expected shape \(8,\) but got \(7,\)"):
        rt(a, tvm.nd.array(np.ones(7, "float32")), c)
    with pytest.raises(ValueError, match="argument B: expected dtype float32 but got int32"):
        rt(a, tvm.nd.array(np.ones(8, "int32")), c)
    with pytest.raises(TypeError, match="argument B: expected an NDArray"):
        rt(a, 3, c)
    np.testing.assert_array_equal(c.numpy(), -1.0)


def test_out_of_bounds_is_an_index_error_with_context():
    n = 8
    a = tir.Var("a", "handle")
    A = tir.decl_buffer((n,), "float32", name="A")
    i = tir.Var("i")
    body = tir.For(i, 0, n + 1, tir.ForKind.SERIAL, tir.BufferStore(A, 1.0, [i]))
    rt = build(tir.PrimFunc([a], body, buffer_map={a: A}), target="ref")
    arr = tvm.nd.empty((n,), "float32")
    with pytest.raises(IndexError, match=r"buffer A: index \(8,\) is out of bounds for shape "
                                         r"\(8,\) \(i = 8\)"):
        rt(arr)


def test_vector_add_from_python_is_fast():
    rt = build(_vector_add(1024), target="ref")
    a = tvm.nd.array(np.random.rand(1024).astype("float32"))
    b = tvm.nd.array(np.random.rand(1024).astype("float32"))
    c = tvm.nd.empty((1024,), "float32")
    rt(a, b, c)
    np.testing.assert_allclose(c.numpy(), a.numpy() + b.numpy())
    best = min(_time(lambda: rt(a, b, c)) for _ in range(30))
    assert best < 1e-3, f"a 1024-element vector add took {best * 1e6:.0f} us"


def _time(f):
    t0 = time.perf_counter()
    f()
    return time.perf_counter() - t0


def test_module_functions_and_source():
    mod = tvm.ir.IRModule({"main": _vector_add(4), "add8": _vector_add(8)})
    rt = build(mod, target="ref")
    assert rt.kind == "ref" and sorted(rt.function_names) == ["add8", "main"]
    a = tvm.nd.array(np.arange(8, dtype="float32"))
    c = tvm.nd.empty((8,), "float32")
    rt["add8"](a, a, c)
    np.testing.assert_array_equal(c.numpy(), 2 * np.arange(8))
    assert "def add8" in rt.get_source("tir") or "add8" in rt.get_source("tir")


def test_target_parsing():
    t = Target("llvm -mcpu=znver5 -mattr=+avx512f,-fma -num-cores=4")
    assert t.kind.name == "llvm" and list(t.keys) == ["cpu"]
    assert t.attrs["mcpu"] == "znver5" and list(t.attrs["mattr"]) == ["+avx512f", "-fma"]
    assert t.attrs["num-cores"] == 4 and t.vector_width_bits == 512
    assert str(t).startswith("llvm -keys=cpu -mcpu=znver5")
    cuda = Target("cuda -max_num_threads=512")
    assert cuda.kind.name == "cuda" and cuda.max_num_threads == 512
    assert "gpu" in list(cuda.keys)
    assert Target({"kind": "cuda", "arch": "sm_90"}).attrs["arch"] == "sm_90"
    assert Target("ref").kind.name == "ref"
    with pytest.raises(ValueError, match='unknown target kind "tpu"'):
        Target("tpu")
    with pytest.raises(ValueError, match="target llvm has no attribute -frobnicate"):
        Target("llvm -frobnicate=1")
    with pytest.raises(ValueError, match="-num-cores expects an integer"):
        Target("llvm -num-cores=many")


def test_build_for_an_unavailable_target_is_a_clear_error():
    if tvm.get_global_func("target.build.llvm", allow_missing=True) is not None:
        pytest.skip("this build has stage 5")
    with pytest.raises(ValueError, match="target llvm is not available: minitvm was built "
                                         "without stage 5"):
        build(_vector_add(4), target="llvm")


def test_check_uninitialized_through_the_target():
    a = tir.Var("a", "handle")
    A = tir.decl_buffer((2,), "float32", name="A")
    L = tir.decl_buffer((2,), "float32", name="L", scope="local")
    i = tir.Var("i")
    body = tir.For(i, 0, 2, tir.ForKind.SERIAL, tir.BufferStore(A, L[i], [i]))
    root = tir.Block([], [], [], "root", body, alloc_buffers=[L])
    func = tir.PrimFunc([a], tir.BlockRealize([], True, root), buffer_map={a: A})
    arr = tvm.nd.empty((2,), "float32")
    build(func, target="ref")(arr)
    with pytest.raises(RuntimeError, match=r"buffer L: element \(0,\) is read before it is "
                                           r"written"):
        build(func, target="ref -check-uninitialized")(arr)


@pytest.mark.parametrize("target", ["ref", "llvm"])
def test_assume_is_a_hint_that_both_targets_run(target):
    """T.assume (from TVM's scripts) runs: the interpreter evaluates it, LLVM gets llvm.assume."""
    if target == "llvm" and not tvm.get_global_func("target.build.llvm", allow_missing=True):
        pytest.skip("this build has no LLVM code generator")
    mod = tvm.script.from_source(
        "@T.prim_func\n"
        'def f(A: T.Buffer((4,), "int32")):\n'
        "    T.assume(A[0] == 5)\n"
        "    for i in range(4):\n"
        "        A[i] = A[i] + 1\n"
    )
    a = tvm.nd.array(np.array([5, 1, 2, 3], "int32"))
    build(mod, target=target)["f"](a)
    assert a.numpy().tolist() == [6, 2, 3, 4]
