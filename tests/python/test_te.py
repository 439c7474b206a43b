"""Tensor expressions and create_prim_func from Python (stage 2): the course examples, axis
naming, reductions, multi-output computes, symbolic shapes and errors."""
import numpy as np
import pytest

import minitvm as tvm
from minitvm import te, tir
from minitvm.driver import build
from minitvm.ir import IRModule


def _blocks(func):
    """Block names in execution order (root first)."""
    out = []

    def visit(stmt):
        if isinstance(stmt, tir.BlockRealize):
            out.append(stmt.block.name_hint)
            visit(stmt.block.body)
        elif isinstance(stmt, tir.For):
            visit(stmt.body)
        elif isinstance(stmt, tir.SeqStmt):
            for s in stmt:
                visit(s)

    visit(func.body)
    return out


def test_course_vector_add():
    A = te.placeholder((8,), dtype="float32", name="A")
    B = te.compute((8,), lambda *i: A(*i) + 1.0, name="B")
    func = te.create_prim_func([A, B])
    assert [func.buffer_map[p].name for p in func.params] == ["A", "B"]
    assert dict(func.attrs) == {"tir.noalias": True}
    loop = func.body.block.body
    assert isinstance(loop, tir.For) and loop.loop_var.name_hint == "i0"
    assert loop.kind == tir.ForKind.SERIAL
    block = loop.body.block
    assert block.name_hint == "B"
    assert [iv.var.name_hint for iv in block.iter_vars] == ["v_i0"]
    assert block.reads[0].buffer.name == "A" and block.writes[0].buffer.name == "B"
    mod = IRModule({"main": func})
    text = mod.script()
    assert 'with T.block("B"):' in text and "v_i0" in text
    rt = build(mod, target="ref")
    a = tvm.nd.array(np.arange(8).astype("float32"))
    b = tvm.nd.array(np.zeros((8,)).astype("float32"))
    rt(a, b)
    np.testing.assert_array_equal(b.numpy(), np.arange(8) + 1)


def test_mm_relu_course_example():
    A = te.placeholder((128, 128), "float32", name="A")
    B = te.placeholder((128, 128), "float32", name="B")
    k = te.reduce_axis((0, 128), "k")
    Y = te.compute((128, 128), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="Y")
    C = te.compute((128, 128), lambda i, j: te.max(Y[i, j], 0), name="C")
    func = te.create_prim_func([A, B, C])
    assert _blocks(func) == ["root", "Y", "C"]
    y_block = func.body.block.body[0].body.body.body.block
    assert [iv.var.name_hint for iv in y_block.iter_vars] == ["v_i", "v_j", "v_k"]
    assert [iv.iter_type for iv in y_block.iter_vars] == [0, 0, 2]
    assert y_block.init is not None
    assert [r.buffer.name for r in y_block.reads] == ["A", "B"]
    assert func.body.block.alloc_buffers[0].name == "Y"
    rng = np.random.default_rng(0)
    a = rng.standard_normal((128, 128)).astype("float32")
    b = rng.standard_normal((128, 128)).astype("float32")
    c = tvm.nd.empty((128, 128), "float32")
    build(func, target="ref")(tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), np.maximum(a @ b, 0), rtol=1e-4, atol=1e-4)


def test_reductions_and_comm_reducer():
    n = te.var("n")
    A = te.placeholder((n, 6), name="A")
    k = te.reduce_axis((0, 6), "k")
    S = te.compute((n,), lambda i: te.sum(A[i, k], axis=k, where=k > 1), name="S")
    M = te.compute((n,), lambda i: te.min(A[i, k], axis=k), name="M")
    absmax = te.comm_reducer(lambda x, y: tir.max(tir.abs(x), tir.abs(y)),
                             lambda t: tir.const(0, t), name="absmax")
    X = te.compute((n,), lambda i: absmax(A[i, k], axis=k), name="X")
    func = te.create_prim_func([A, S, M, X])
    rt = build(func, target="ref")
    rng = np.random.default_rng(1)
    for rows in (1, 4):
        a = rng.standard_normal((rows, 6)).astype("float32")
        outs = [tvm.nd.empty((rows,), "float32") for _ in range(3)]
        rt(tvm.nd.array(a), *outs)
        np.testing.assert_allclose(outs[0].numpy(), a[:, 2:].sum(axis=1), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(outs[1].numpy(), a.min(axis=1))
        np.testing.assert_allclose(outs[2].numpy(), np.abs(a).max(axis=1))
    # reducers also combine two expressions
    x = tir.Var("x", "float32")
    assert isinstance(te.max(x, 1.0), tir.Max)


def test_multi_output_compute_and_tuple_reduction():
    A = te.placeholder((5, 7), name="A")
    P, Q = te.compute((5, 7), lambda i, j: (A[i, j] + 1.0, A[i, j] * 2.0), name="pq")
    assert P.name == "pq_v0" and Q.name == "pq_v1"
    k = te.reduce_axis((0, 7), "k")
    argmax = te.comm_reducer(
        lambda i0, v0, i1, v1: (tir.Select(v0 >= v1, i0, i1), tir.max(v0, v1)),
        lambda ti, tv: (tir.const(-1, ti), tir.min_value(tv)), name="argmax")
    I, V = te.compute((5,), lambda i: argmax((k.var, A[i, k]), axis=k), name="am")
    func = te.create_prim_func([A, P, Q, I, V])
    a = np.random.default_rng(2).standard_normal((5, 7)).astype("float32")
    outs = [tvm.nd.empty((5, 7), "float32"), tvm.nd.empty((5, 7), "float32"),
            tvm.nd.empty((5,), "int32"), tvm.nd.empty((5,), "float32")]
    build(func, target="ref")(tvm.nd.array(a), *outs)
    np.testing.assert_allclose(outs[0].numpy(), a + 1)
    np.testing.assert_allclose(outs[1].numpy(), a * 2)
    np.testing.assert_array_equal(outs[2].numpy(), a.argmax(axis=1))
    np.testing.assert_allclose(outs[3].numpy(), a.max(axis=1))


def test_symbolic_shape_runs_on_any_size():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 3.0, name="B")
    rt = build(te.create_prim_func([A, B]), target="ref")
    for size in (1, 3, 17):
        a = np.arange(size, dtype="float32")
        b = tvm.nd.empty((size,), "float32")
        rt(tvm.nd.array(a), b)
        np.testing.assert_array_equal(b.numpy(), a * 3)


def test_tensor_indexing_and_arithmetic():
    A = te.placeholder((2, 3), name="A")
    i, j = te.var("i"), te.var("j")
    load = A[i, j]
    assert isinstance(load, tir.BufferLoad) and load.dtype == "float32"
    assert A(i, j).same_as(load) is False  # a new node each time, equal structurally
    assert A.shape[0] == 2 and A.ndim == 2 and A.dtype == "float32"
    C = A + A * 2.0
    func = te.create_prim_func([A, C])
    a = np.ones((2, 3), "float32")
    c = tvm.nd.empty((2, 3), "float32")
    build(func, target="ref")(tvm.nd.array(a), c)
    np.testing.assert_array_equal(c.numpy(), a * 3)


def test_errors():
    A = te.placeholder((4,), name="A")
    with pytest.raises(ValueError, match="fcompute takes 2 argument"):
        te.compute((4,), lambda i, j: A[i])
    B = te.compute((4,), lambda i: A[i] + 1.0, name="B")
    with pytest.raises(ValueError, match="placeholder A is read by the computation"):
        te.create_prim_func([B])
    k = te.reduce_axis((0, 4), "k")
    with pytest.raises(ValueError, match="must be the whole body"):
        te.compute((1,), lambda i: te.sum(A[k], axis=k) + 1.0)
    with pytest.raises(ValueError, match="has rank 1 but is indexed with 2"):
        A[0, 1]  # pylint: disable=pointless-statement
    with pytest.raises(ValueError, match="dimension 0 has the negative extent -1"):
        te.compute((-1,), lambda i: A[i])
    with pytest.raises(ValueError, match="dimension 1 has the negative extent -3"):
        te.placeholder((2, -3), name="N")


def test_te_mm_relu_equals_the_course_tvmscript():
    """create_prim_func gives exactly the course's hand-written mm_relu (up to names)."""
    script = pytest.importorskip("minitvm.script")
    T = script.tir

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

    A = te.placeholder((128, 128), "float32", name="A")
    B = te.placeholder((128, 128), "float32", name="B")
    k = te.reduce_axis((0, 128), "k")
    Y = te.compute((128, 128), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="Y")
    C = te.compute((128, 128), lambda i, j: te.max(Y[i, j], 0), name="C")
    func = te.create_prim_func([A, B, C]).with_attr("global_symbol", "mm_relu")
    tvm.ir.assert_structural_equal(func, mm_relu)
