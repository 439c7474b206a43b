"""TensorIR node classes, expression operators and IRModule from Python (stage 2)."""
import numpy as np
import pytest

import minitvm as tvm
from minitvm import tir
from minitvm.driver import build
from minitvm.ir import GlobalVar, IRModule, Range


def test_operators_build_tvm_nodes():
    x, y = tir.Var("x", "int32"), tir.Var("y", "int32")
    assert isinstance(x + y, tir.Add) and isinstance(x - 1, tir.Sub)
    assert isinstance(x * y, tir.Mul)
    assert isinstance(x // y, tir.FloorDiv) and isinstance(x % y, tir.FloorMod)
    assert isinstance(x / y, tir.Div)  # integer /: C (truncating) division, as TVM's tir.Div
    f = tir.Var("f", "float32")
    assert isinstance(f / 2.0, tir.Div) and (f / 2).dtype == "float32"
    assert isinstance(x < y, tir.LT) and isinstance(x >= 3, tir.GE)
    assert isinstance(-x, tir.Sub)
    assert (x + 1).b.value == 1 and (x + 1).b.dtype == "int32"
    wide = tir.Var("w", "int64")
    assert (wide + 1).dtype == "int64"  # immediates adapt to the other operand
    assert isinstance(2 + 3 + x, tir.Add) and (2 + tir.const(3)).value == 5  # folding
    assert isinstance(tir.floordiv(x, 4), tir.FloorDiv)
    assert isinstance(tir.truncdiv(x, 4), tir.Div) and isinstance(tir.truncmod(x, 4), tir.Mod)
    assert isinstance(tir.indexmod(x, 4), tir.FloorMod)
    assert isinstance(tir.max(x, y), tir.Max) and isinstance(tir.min(x, y), tir.Min)
    assert isinstance(tir.exp(f), tir.Call) and tir.exp(f).op == "tir.exp"
    assert tir.exp(x).dtype == "float32"  # ints convert to float32
    assert isinstance(tir.if_then_else(x < y, x, y), tir.Call)
    assert isinstance(tir.Select(x < y, x, y), tir.Select)
    assert tir.Cast("float32", x).dtype == "float32" and x.astype("int64").dtype == "int64"
    assert isinstance(tir.all(x < 1, y < 2, x < y), tir.And)
    assert str(tir.const(1.5).dtype) == "float32" and tir.const(True).dtype == "bool"
    assert tir.const(0, "int64").dtype == "int64"


def test_equality_is_identity_and_exprs_hash():
    x, y = tir.Var("x"), tir.Var("x")
    assert bool(x == x) and not bool(x == y) and bool(x != y)
    assert isinstance(x == y, tir.EQ)
    table = {x: 1, y: 2}
    assert table[x] == 1 and table[y] == 2
    assert x in [y, x] and y not in [x]
    with pytest.raises(ValueError, match="Cannot use and / or / not"):
        bool(x < 1)
    assert int(tir.IntImm("int32", 7)) == 7 and float(tir.FloatImm("float32", 0.5)) == 0.5


def test_fields_are_readable():
    A = tir.decl_buffer((4, 5), "float32", name="A")
    assert A.name == "A" and list(A.shape) == [4, 5] and A.dtype == "float32"
    i = tir.Var("i")
    load = A[i, 2]
    assert isinstance(load, tir.BufferLoad) and load.buffer.same_as(A)
    assert load.indices[0].same_as(i) and load.indices[1].value == 2
    store = tir.BufferStore(A, load + 1.0, [i, 2])
    loop = tir.For(i, 0, 4, tir.ForKind.UNROLLED, store)
    assert loop.kind == tir.ForKind.UNROLLED and loop.extent.value == 4
    assert loop.body.same_as(store) and loop.loop_var.same_as(i)
    r = Range(2, 10)
    assert r.min.value == 2 and r.extent.value == 8
    assert Range(5).extent.value == 5


def test_hand_built_prim_func_runs():
    n = 16
    a, b = tir.Var("a", "handle"), tir.Var("b", "handle")
    A = tir.decl_buffer((n,), "float32", name="A")
    B = tir.decl_buffer((n,), "float32", name="B")
    i, vi = tir.Var("i"), tir.Var("vi")
    block = tir.Block([tir.IterVar(Range(0, n), vi, tir.IterVar.DataPar)], [], [], "B",
                      tir.BufferStore(B, tir.sqrt(A[vi]) * 2.0, [vi]))
    body = tir.For(i, 0, n, tir.ForKind.PARALLEL, tir.BlockRealize([i], True, block))
    func = tir.PrimFunc([a, b], body, buffer_map={a: A, b: B})
    func = func.with_attr("global_symbol", "double_sqrt")
    assert func.attrs["global_symbol"] == "double_sqrt"
    rt = build(func, target="ref")
    assert rt.entry_name == "double_sqrt"
    x = np.arange(n, dtype="float32")
    y = tvm.nd.empty((n,), "float32")
    rt(tvm.nd.array(x), y)
    np.testing.assert_allclose(y.numpy(), np.sqrt(x) * 2, rtol=1e-6)
    assert "T.sqrt" in func.script() or "sqrt" in func.script()


def test_irmodule_dict_interface():
    from minitvm import te  # pylint: disable=import-outside-toplevel

    A = te.placeholder((4,), name="A")
    f = te.create_prim_func([A, te.compute((4,), lambda i: A[i] * 2.0, name="B")])
    g = te.create_prim_func([A, te.compute((4,), lambda i: A[i] + 2.0, name="C")])
    mod = IRModule({"main": f})
    assert mod["main"].same_as(f) and "main" in mod and len(mod) == 1
    gv = mod.get_global_var("main")
    assert isinstance(gv, GlobalVar) and gv.name_hint == "main"
    assert mod[gv].same_as(f)
    mod["other"] = g  # in place, as in TVM
    assert [v.name_hint for v in mod.get_global_vars()] == ["main", "other"]
    assert [v.name_hint for v, _ in mod.functions.items()] == ["main", "other"]
    text = mod.script()
    assert "def main" in text and "def other" in text
    mod2 = IRModule({GlobalVar("f"): f})
    assert mod2["f"].same_as(f)
    with pytest.raises(ValueError, match='no function named "nope"'):
        mod["nope"]  # pylint: disable=pointless-statement
    with pytest.raises(TypeError):
        IRModule({1: f})
