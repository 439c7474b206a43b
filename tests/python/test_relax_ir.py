"""The core of the Relax IR from Python (stage 4): node classes with TVM's names and
signatures, field access, struct info (construction, text, ``is_base_of``, LCA), structural
equality and hashing of functions (alpha-renaming, symbolic dims, map_free_vars), constructor
errors (kind and message), and ``tvm.ir.Op``."""
import numpy as np
import pytest

import minitvm as tvm
from minitvm import relax, tir
from minitvm.ir import Op


def T(shape, dtype="float32"):
    return relax.TensorStructInfo(shape, dtype)


# ---- nodes and fields --------------------------------------------------------------------------


def test_var_and_struct_info():
    n = tir.Var("n", "int64")
    x = relax.Var("x", T([n, 784]))
    assert x.name_hint == "x"
    assert isinstance(x.struct_info, relax.TensorStructInfo)
    assert repr(x.struct_info) == 'R.Tensor((n, 784), dtype="float32")'
    assert x.struct_info.ndim == 2
    assert x.struct_info.dtype == "float32"
    assert relax.Var("y").struct_info is None
    lv = relax.DataflowVar("lv", T([4]))
    assert isinstance(lv, relax.Var)
    assert lv.type_key == "relax.expr.DataflowVar"


def test_constant_and_const():
    c = relax.const(np.arange(6, dtype="float32").reshape(2, 3))
    assert isinstance(c, relax.Constant)
    assert repr(c.struct_info) == 'R.Tensor((2, 3), dtype="float32")'
    np.testing.assert_array_equal(c.data.numpy(), np.arange(6).reshape(2, 3))
    assert relax.const(1).struct_info.dtype == "int32"
    assert relax.const(1.5).struct_info.dtype == "float32"
    assert relax.const([1, 2], "int64").struct_info.dtype == "int64"
    assert repr(relax.const(2.0).struct_info) == 'R.Tensor((), dtype="float32")'


def test_shape_prim_string_dtype():
    n = tir.Var("n", "int64")
    s = relax.ShapeExpr([n, 4])
    assert s.values[1].dtype == "int64"
    assert repr(s.struct_info) == "R.Shape([n, 4])"
    p = relax.PrimValue(3)
    assert p.value.dtype == "int64"
    assert isinstance(p.struct_info, relax.PrimStructInfo)
    assert relax.StringImm("hi").value == "hi"
    assert relax.DataTypeImm("float16").value == "float16"
    assert isinstance(relax.StringImm("x").struct_info, relax.ObjectStructInfo)


def test_tuple_call_function_fields():
    x = relax.Var("x", T([4]))
    y = relax.Var("y", T([4]))
    t = relax.Tuple([x, y])
    assert len(t) == 2 and t[0].same_as(x)
    assert repr(t.struct_info) == 'R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32"))'
    g = relax.TupleGetItem(t, 1)
    assert g.tuple_value.same_as(t) and g.index == 1
    assert g.struct_info == T([4])
    ext = relax.ExternFunc("env.linear")
    assert ext.global_symbol == "env.linear"
    call = relax.Call(ext, [x, y], sinfo_args=[T([4])])
    assert call.op.same_as(ext)
    assert [a.same_as(b) for a, b in zip(call.args, [x, y])] == [True, True]
    assert call.sinfo_args[0] == T([4])
    lv = relax.Var("lv", T([4]))
    body = relax.SeqExpr([relax.BindingBlock([relax.VarBinding(lv, call)])], lv)
    f = relax.Function([x, y], body, T([4]))
    assert isinstance(f.struct_info, relax.FuncStructInfo)
    assert f.params[0].same_as(x)
    assert f.is_pure
    f2 = f.with_attr("global_symbol", "main")
    assert f2.attrs["global_symbol"] == "main"
    assert "global_symbol" not in f.attrs
    assert isinstance(f2, relax.Function)
    mc = relax.MatchCast(relax.Var("m"), x, T([4]))
    assert mc.struct_info == T([4])
    db = relax.DataflowBlock([mc])
    assert isinstance(db, relax.BindingBlock) and len(db.bindings) == 1


def test_if_wraps_branches():
    c = relax.Var("c", relax.TensorStructInfo([], "bool"))
    x = relax.Var("x", T([4]))
    e = relax.If(c, x, x)
    assert isinstance(e.true_branch, relax.SeqExpr)
    assert e.true_branch.body.same_as(x)


# ---- errors ------------------------------------------------------------------------------------


def test_constructor_errors():
    x = relax.Var("x", T([4]))
    with pytest.raises(tvm.error.TypeError, match="dimension 0 must be an integer expression"):
        relax.ShapeExpr([tir.FloatImm("float32", 1.0)])
    with pytest.raises(tvm.error.ValueError, match="index must be non-negative, got -1"):
        relax.TupleGetItem(relax.Tuple([x]), -1)
    with pytest.raises(tvm.error.IndexError, match="index 3 out of range"):
        relax.TupleGetItem(relax.Tuple([x]), 3)
    with pytest.raises(tvm.error.TypeError, match="callee must be an Op"):
        relax.Call(relax.const(1.0), [x])
    with pytest.raises(tvm.error.ValueError, match=r"parameter 0 \(p\) has no struct info"):
        relax.Function([relax.Var("p")], x, T([4]))
    with pytest.raises(tvm.error.TypeError, match="condition must be a scalar"):
        relax.If(x, x, x)
    with pytest.raises(tvm.error.ValueError, match="ndim must be"):
        relax.ShapeStructInfo(ndim=-5)
    with pytest.raises(tvm.error.ValueError, match="ndim 3 disagrees with the shape"):
        relax.TensorStructInfo([1, 2], "float32", ndim=3)
    with pytest.raises(tvm.error.TypeError, match="expected a StructInfo"):
        relax.Var("x", "float32")


# ---- struct info -------------------------------------------------------------------------------


def test_struct_info_text_and_fields():
    assert repr(relax.TensorStructInfo(ndim=2, dtype="float32")) == 'R.Tensor(dtype="float32", ndim=2)'
    assert repr(relax.TensorStructInfo(dtype=None)) == "R.Tensor"
    assert repr(relax.ShapeStructInfo(ndim=2)) == "R.Shape(ndim=2)"
    assert repr(relax.ShapeStructInfo([1, 2])) == "R.Shape([1, 2])"
    assert repr(relax.ObjectStructInfo()) == "R.Object"
    assert repr(relax.PrimStructInfo("int64")) == 'R.Prim("int64")'
    assert relax.PrimStructInfo(value=3).dtype == "int64"
    tup = relax.TupleStructInfo([T([2]), relax.ObjectStructInfo()])
    assert len(tup.fields) == 2
    f = relax.FuncStructInfo([T([2])], T([2]))
    assert f.purity and f.ret == T([2])
    opaque = relax.FuncStructInfo.opaque_func()
    assert opaque.params is None and not opaque.purity
    assert relax.ShapeStructInfo(ndim=3).values is None
    assert T([2, 3]).shape.values[0] == 2


def test_struct_info_order():
    n = tir.Var("n", "int64")
    assert relax.ObjectStructInfo().is_base_of(T([4, 8]))
    assert relax.TensorStructInfo(ndim=2, dtype="float32").is_base_of(T([4, 8]))
    assert not T([4, 8]).is_base_of(relax.TensorStructInfo(ndim=2, dtype="float32"))
    assert T([n, 4]).is_base_of(T([n, 4]))
    assert not T([n, 4]).is_base_of(T([8, 4]))
    lca = relax._ffi_api.StructInfoLCA(T([4]), T([8]))
    assert repr(lca) == 'R.Tensor(dtype="float32", ndim=1)'
    # == on struct infos is structural, hash consistent.
    assert T([4]) == T([4]) and hash(T([4])) == hash(T([4]))
    assert T([4]) != T([5])


# ---- structural equality -----------------------------------------------------------------------


def _make_func(xname="x", swap=False):
    n, m = tir.Var("n", "int64"), tir.Var("m", "int64")
    x = relax.Var(xname, T([n, 4]))
    y = relax.Var("y", T([m, 4] if swap else [4, m]))
    lv = relax.DataflowVar("lv", T([n, 4]))
    out = relax.Var("out", T([n, 4]))
    blocks = [
        relax.DataflowBlock([relax.VarBinding(lv, relax.Call(relax.ExternFunc("f"), [x, y]))]),
        relax.BindingBlock([relax.VarBinding(out, lv)]),
    ]
    return relax.Function([x, y], relax.SeqExpr(blocks, out), T([n, 4]))


def test_structural_equal_alpha():
    a, b = _make_func("x"), _make_func("other")
    tvm.ir.assert_structural_equal(a, b)
    assert tvm.ir.structural_hash(a) == tvm.ir.structural_hash(b)
    c = _make_func(swap=True)
    assert not tvm.ir.structural_equal(a, c)
    with pytest.raises(tvm.error.ValueError, match="StructuralEqual check failed"):
        tvm.ir.assert_structural_equal(a, c)


def test_structural_equal_free_vars():
    x, y = relax.Var("x", T([4])), relax.Var("y", T([4]))
    ext = relax.ExternFunc("f")
    assert not tvm.ir.structural_equal(relax.Call(ext, [x]), relax.Call(ext, [y]))
    assert tvm.ir.structural_equal(relax.Call(ext, [x]), relax.Call(ext, [y]), map_free_vars=True)


# ---- operators ---------------------------------------------------------------------------------


def test_op_registry():
    names = tvm.ir.list_op_names()
    assert names == sorted(names)
    if not names:
        pytest.skip("no operator is registered in this build")
    op = Op.get(names[0])
    assert op.name == names[0]
    assert op.same_as(Op.get(names[0]))
    assert repr(op) == f"Op({names[0]})"
    assert isinstance(op.list_attr_keys(), list)
    assert op.get_attr("NoSuchAttr") is None
    assert not op.has_attr("NoSuchAttr")
    op.set_attr("test_relax_ir.Mark", 7, plevel=50)
    assert op.get_attr("test_relax_ir.Mark") == 7
    assert op.has_attr("test_relax_ir.Mark")
    with pytest.raises(tvm.error.ValueError, match="already set at plevel 50"):
        op.set_attr("test_relax_ir.Mark", 8, plevel=50)
    op.set_attr("test_relax_ir.Mark", 9, plevel=60)
    assert op.get_attr("test_relax_ir.Mark") == 9
    assert isinstance(op.description, str)
    assert isinstance(op.arguments, list)


def test_op_get_unknown():
    with pytest.raises(tvm.error.ValueError, match='no operator named "relax.no_such_op"'):
        Op.get("relax.no_such_op")


_SYMBOLIC_SRC = '''
@R.function
def f(x: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n", 4), "float32"):
    n = T.int64()
    with R.dataflow():
        lv = R.add(x, x)
        R.output(lv)
    return lv
'''


def test_two_parses_with_symbolic_dims_are_equal():
    from minitvm import script  # pylint: disable=import-outside-toplevel

    try:
        a, b = script.from_source(_SYMBOLIC_SRC), script.from_source(_SYMBOLIC_SRC)
    except Exception as err:  # pylint: disable=broad-except
        pytest.skip(f"the Relax parser cannot read the case in this build: {err}")
    na = a.params[0].struct_info.shape.values[0]
    nb = b.params[0].struct_info.shape.values[0]
    assert not na.same_as(nb)  # each parse has its own n
    tvm.ir.assert_structural_equal(a, b)  # without map_free_vars
    assert tvm.ir.structural_hash(a) == tvm.ir.structural_hash(b)
