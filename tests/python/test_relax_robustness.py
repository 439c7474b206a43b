"""Stage 4: an adversarial sweep of the Relax Python API (issue 16, "Hardening").

Every case is one line of a table: a call with bad input, the minitvm error class it must raise
and a piece of the message. A case that crashed the process, hung, raised a raw Python exception
(a builtin TypeError/KeyError/... from inside minitvm) or was silently accepted is a bug; the
tables keep the fixes. The tables cover the node and struct info constructors, every
``relax.op`` function, BlockBuilder misuse, ``relax.interpret`` and ``call_dps_packed`` with bad
arguments, deep nesting, ``well_formed`` on hand-built broken IR, BindParams, and a mutation
fuzz of the Relax TVMScript text cases (every mutant parses or gives a ParseError).

Everything runs in-process; run the file under ``python -X faulthandler -m pytest`` to see
where a crash happens.
"""
import glob
import os
import random
import re
import time

import numpy as np
import pytest

import minitvm as tvm
from minitvm import error, tir

pytest.importorskip("minitvm.relax")
import minitvm.relax as rx  # noqa: E402
from minitvm.relax import op as O  # noqa: E402
from minitvm.script import from_source  # noqa: E402

TSI = rx.TensorStructInfo
HERE = os.path.dirname(os.path.abspath(__file__))
TEXT_DIR = os.path.join(os.path.dirname(HERE), "stage4", "text")


def _check(fn, cls, match):
    with pytest.raises(error.TVMError) as info:
        fn()
    assert isinstance(info.value, cls), f"{type(info.value).__name__}: {info.value}"
    assert re.search(match, str(info.value)), str(info.value)


def v(shape, dtype="float32", name="v"):
    """A Relax variable of tensor struct info."""
    return rx.Var(name, TSI(shape, dtype))


a = v((2, 3), name="a")
b = v((3, 4), name="b")
i32 = v((2, 3), "int32", "i")
idx = v((2,), "int32", "idx")
s0 = v((), name="s0")
empty = v((0, 3), name="e")
img = v((1, 3, 8, 8), name="img")
ker = v((4, 3, 3, 3), name="ker")
tup = rx.Var("t", rx.TupleStructInfo([TSI((2,), "float32")]))
shp = rx.Var("s", rx.ShapeStructInfo([2, 3]))
n = tir.Var("n", "int64")
f32 = np.ones((2, 3), "float32")


def infer(call):
    """The struct info of ``call`` (normalised by a fresh BlockBuilder)."""
    return rx.BlockBuilder().normalize(call).struct_info


# ---- node constructors ------------------------------------------------------------------------

EXPR_CASES = [
    ("TupleGetItem -1", lambda: infer(rx.TupleGetItem(rx.Tuple([a]), -1)), error.TVMError, ""),
    ("TupleGetItem out of range", lambda: infer(rx.TupleGetItem(rx.Tuple([a]), 5)), error.TVMError,
     "5"),
    ("TupleGetItem huge", lambda: infer(rx.TupleGetItem(rx.Tuple([a]), 2**40)), error.TVMError, ""),
    ("TupleGetItem 2**70", lambda: rx.TupleGetItem(rx.Tuple([a]), 2**70), error.TVMError, ""),
    ("TupleGetItem of a tensor", lambda: infer(rx.TupleGetItem(a, 0)), error.TVMError, "uple"),
    ("TupleGetItem None", lambda: rx.TupleGetItem(None, 0), error.TVMError, ""),
    ("TupleGetItem str index", lambda: rx.TupleGetItem(rx.Tuple([a]), "a"), error.TypeError,
     "index"),
    ("TupleGetItem float index", lambda: rx.TupleGetItem(rx.Tuple([a]), 0.0), error.TypeError,
     "index"),
    ("TupleGetItem bool index", lambda: rx.TupleGetItem(rx.Tuple([a]), True), error.TypeError,
     "index"),
    ("ShapeExpr float", lambda: rx.ShapeExpr([1.5, 2]), error.TVMError, ""),
    ("ShapeExpr str", lambda: rx.ShapeExpr(["a"]), error.TVMError, ""),
    ("ShapeExpr None", lambda: rx.ShapeExpr(None), error.TypeError, "values"),
    ("ShapeExpr int", lambda: rx.ShapeExpr(3), error.TypeError, "values"),
    ("ShapeExpr bool", lambda: rx.ShapeExpr([True]), error.TypeError, "bool"),
    ("ShapeExpr float var", lambda: rx.ShapeExpr([tir.Var("f", "float32")]), error.TypeError,
     "integer"),
    ("ShapeExpr tensor", lambda: rx.ShapeExpr([a]), error.TVMError, ""),
    ("ShapeExpr None dim", lambda: rx.ShapeExpr([None]), error.TVMError, ""),
    ("Call PrimExpr op", lambda: rx.Call(tir.IntImm("int32", 1), [a]), error.TVMError, ""),
    ("Call None op", lambda: rx.Call(None, [a]), error.TVMError, ""),
    ("Call unknown op", lambda: rx.Call("relax.nope", [a]), error.TVMError, "nope"),
    ("Call int arg", lambda: rx.Call("relax.add", [a, 1]), error.TypeError, ""),
    ("Call None arg", lambda: rx.Call("relax.add", [a, None]), error.TVMError, ""),
    ("Call attrs list", lambda: rx.Call("relax.add", [a, a], [1]), error.TypeError, ""),
    ("Call sinfo int", lambda: rx.Call("relax.add", [a, a], None, [1]), error.TypeError,
     "StructInfo"),
    ("Call sinfo not a list", lambda: rx.Call("relax.add", [a, a], None, 5), error.TypeError,
     "sinfo_args"),
    ("Call args int", lambda: rx.Call("relax.add", 5), error.TypeError, "args"),
    ("Call args None", lambda: rx.Call("relax.add", None), error.TypeError, "args"),
    ("Function param without struct info", lambda: rx.Function([rx.Var("p")], rx.Var("p")),
     error.TVMError, "struct info"),
    ("Function param int", lambda: rx.Function([1], a), error.TypeError, ""),
    ("Function params None", lambda: rx.Function(None, a), error.TypeError, "params"),
    ("Function body None", lambda: rx.Function([a], None), error.TVMError, ""),
    ("Function body int", lambda: rx.Function([a], 3), error.TypeError, ""),
    ("Function ret int", lambda: rx.Function([a], a, 5), error.TypeError, "StructInfo"),
    ("Function attrs list", lambda: rx.Function([a], a, None, True, [1]), error.TypeError, ""),
    ("Var name None", lambda: rx.Var(None), error.TypeError, "name"),
    ("Var name int", lambda: rx.Var(5), error.TypeError, "name"),
    ("Var struct info int", lambda: rx.Var("x", 5), error.TypeError, "StructInfo"),
    ("Var struct info class", lambda: rx.Var("x", TSI), error.TypeError, "StructInfo"),
    ("DataflowVar name None", lambda: rx.DataflowVar(None), error.TypeError, "name"),
    ("Constant None", lambda: rx.Constant(None), error.TypeError, ""),
    ("Constant object", lambda: rx.Constant(object()), error.TypeError, ""),
    ("Constant str", lambda: rx.Constant("abc"), error.TypeError, ""),
    ("Constant complex", lambda: rx.Constant(np.ones(2, "complex64")), error.TypeError,
     "complex64"),
    ("const str", lambda: rx.const("abc"), error.TVMError, ""),
    ("const bad dtype", lambda: rx.const(1, "float33"), error.ValueError, "float33"),
    ("const None", lambda: rx.const(None), error.TypeError, ""),
    ("const int8 300", lambda: rx.const(300, "int8"), error.ValueError, "int8"),
    ("const uint8 -1", lambda: rx.const(-1, "uint8"), error.ValueError, "uint8"),
    ("const int32 2**40", lambda: rx.const(2**40, "int32"), error.ValueError, "int32"),
    ("const list int8", lambda: rx.const([1, 1000], "int8"), error.ValueError, "1000"),
    ("const ragged", lambda: rx.const([[1], [1, 2]]), error.TVMError, ""),
    ("Tuple None", lambda: rx.Tuple(None), error.TypeError, "fields"),
    ("Tuple int", lambda: rx.Tuple(5), error.TypeError, "fields"),
    ("Tuple int field", lambda: rx.Tuple([1]), error.TypeError, ""),
    ("Tuple None field", lambda: rx.Tuple([None]), error.TVMError, ""),
    ("Tuple PrimExpr field", lambda: rx.Tuple([tir.IntImm("int32", 1)]), error.TVMError, ""),
    ("Tuple index str", lambda: rx.Tuple([a])["x"], error.TypeError, "int"),
    ("Tuple index out of range", lambda: rx.Tuple([a])[3], error.IndexError, "3"),
    ("PrimValue str", lambda: rx.PrimValue("a"), error.TypeError, ""),
    ("PrimValue None", lambda: rx.PrimValue(None), error.TVMError, ""),
    ("PrimValue 2**70", lambda: rx.PrimValue(2**70), error.TVMError, ""),
    ("PrimValue tensor", lambda: rx.PrimValue(a), error.TypeError, ""),
    ("StringImm int", lambda: rx.StringImm(3), error.TypeError, "str"),
    ("StringImm None", lambda: rx.StringImm(None), error.TypeError, "str"),
    ("DataTypeImm bad", lambda: rx.DataTypeImm("float33"), error.ValueError, "float33"),
    ("If cond int", lambda: rx.If(1, a, a), error.TypeError, ""),
    ("If cond None", lambda: rx.If(None, a, a), error.TVMError, ""),
    ("If branch None", lambda: rx.If(a, None, a), error.TVMError, ""),
    ("SeqExpr block int", lambda: rx.SeqExpr([1], a), error.TypeError, ""),
    ("SeqExpr body None", lambda: rx.SeqExpr([], None), error.TVMError, ""),
    ("SeqExpr blocks None", lambda: rx.SeqExpr(None, a), error.TypeError, "blocks"),
    ("ExternFunc None", lambda: rx.ExternFunc(None), error.TypeError, "name"),
    ("ExternFunc int", lambda: rx.ExternFunc(3), error.TypeError, "name"),
    ("VarBinding var int", lambda: rx.VarBinding(1, a), error.TypeError, ""),
    ("VarBinding value None", lambda: rx.VarBinding(rx.Var("y"), None), error.TVMError, ""),
    ("VarBinding value int", lambda: rx.VarBinding(rx.Var("y"), 3), error.TypeError, ""),
    ("MatchCast struct info None", lambda: rx.MatchCast(rx.Var("y"), a, None), error.TVMError, ""),
    ("MatchCast var int", lambda: rx.MatchCast(1, a, TSI((2, 3), "float32")), error.TypeError, ""),
    ("BindingBlock ints", lambda: rx.BindingBlock([1]), error.TypeError, ""),
    ("BindingBlock None", lambda: rx.BindingBlock(None), error.TypeError, "bindings"),
    ("DataflowBlock None", lambda: rx.DataflowBlock(None), error.TypeError, "bindings"),
    ("expr index float", lambda: a[1.5], error.TypeError, "int"),
    ("expr + None", lambda: infer(a + None), error.TVMError, ""),
    ("expr + str", lambda: infer(a + "x"), error.TVMError, ""),
    ("expr call int", lambda: a(1), error.TypeError, ""),
    ("get_shape_of no struct info", lambda: rx.get_shape_of(rx.Var("y")), error.ValueError,
     "shape"),
    ("get_shape_of int", lambda: rx.get_shape_of(3), error.TypeError, "Relax expression"),
]


@pytest.mark.parametrize("name,fn,cls,match", EXPR_CASES, ids=[c[0] for c in EXPR_CASES])
def test_expr_constructors_bad_input(name, fn, cls, match):
    _check(fn, cls, match)


# ---- struct info constructors -----------------------------------------------------------------

SINFO_CASES = [
    ("Tensor bad dtype", lambda: TSI((2,), "float33"), error.ValueError, "float33"),
    ("Tensor dtype int", lambda: TSI((2,), 5), error.TVMError, ""),
    ("Tensor ndim -2", lambda: TSI(None, "float32", ndim=-2), error.ValueError, "ndim"),
    ("Tensor ndim huge", lambda: TSI(None, "float32", ndim=2**40), error.ValueError, "ndim"),
    ("Tensor ndim float", lambda: TSI(None, "float32", ndim=1.5), error.TypeError, "ndim"),
    ("Tensor ndim str", lambda: TSI(None, "float32", ndim="a"), error.TypeError, "ndim"),
    ("Tensor ndim None", lambda: TSI(None, "float32", ndim=None), error.TypeError, "ndim"),
    ("Tensor ndim disagrees", lambda: TSI((2, 3), "float32", ndim=3), error.ValueError, "ndim"),
    ("Tensor shape float", lambda: TSI((2.5,), "float32"), error.TVMError, ""),
    ("Tensor shape negative", lambda: TSI((-2,), "float32"), error.ValueError, "negative"),
    ("Tensor shape -1", lambda: TSI((4, -1), "float32"), error.ValueError, "negative"),
    ("Tensor shape str", lambda: TSI("abc", "float32"), error.TVMError, ""),
    ("Tensor shape int", lambda: TSI(5, "float32"), error.TypeError, "shape"),
    ("Tensor shape None dim", lambda: TSI((None,), "float32"), error.TVMError, ""),
    ("Tensor shape tensor var", lambda: TSI(a, "float32"), error.TypeError, "R.Shape"),
    ("Tensor shape bool", lambda: TSI((True,), "float32"), error.TVMError, ""),
    ("Tensor shape 2**70", lambda: TSI((2**70,), "float32"), error.TVMError, ""),
    ("Tensor too many elements", lambda: TSI((2**40, 2**40), "float32"), error.ValueError,
     "elements"),
    ("Tensor float dim var", lambda: TSI((tir.Var("f", "float32"),), "float32"), error.TypeError,
     "integer"),
    ("Tensor vdevice", lambda: TSI((2,), "float32", "llvm:x"), error.ValueError, "vdevice"),
    ("Tensor vector dtype", lambda: TSI((2,), "float32x4"), error.ValueError, "scalar"),
    ("Prim bad dtype", lambda: rx.PrimStructInfo("float33"), error.ValueError, "float33"),
    ("Prim value str", lambda: rx.PrimStructInfo(value="a"), error.TypeError, ""),
    ("Prim value dtype mismatch", lambda: rx.PrimStructInfo("float32", tir.IntImm("int32", 1)),
     error.ValueError, "disagrees"),
    ("Prim nothing", lambda: rx.PrimStructInfo(), error.ValueError, "dtype or a value"),
    ("Shape ndim -5", lambda: rx.ShapeStructInfo(ndim=-5), error.ValueError, "ndim"),
    ("Shape ndim float", lambda: rx.ShapeStructInfo(ndim=2.0), error.TypeError, "ndim"),
    ("Shape values float", lambda: rx.ShapeStructInfo([1.5]), error.TVMError, ""),
    ("Shape values disagree", lambda: rx.ShapeStructInfo([1, 2], ndim=3), error.ValueError,
     "ndim"),
    ("Shape values int", lambda: rx.ShapeStructInfo(3), error.TypeError, "values"),
    ("Shape values str", lambda: rx.ShapeStructInfo("ab"), error.TypeError, "values"),
    ("Tuple field int", lambda: rx.TupleStructInfo([1]), error.TypeError, ""),
    ("Tuple fields None", lambda: rx.TupleStructInfo(None), error.TypeError, "fields"),
    ("Tuple field None", lambda: rx.TupleStructInfo([None]), error.TVMError, ""),
    ("Func param int", lambda: rx.FuncStructInfo([1], rx.ObjectStructInfo()), error.TypeError, ""),
    ("Func params None", lambda: rx.FuncStructInfo(None, rx.ObjectStructInfo()), error.TypeError,
     "params"),
    ("Func ret None", lambda: rx.FuncStructInfo([], None), error.TVMError, ""),
    ("Func ret int", lambda: rx.FuncStructInfo([], 3), error.TypeError, ""),
    ("opaque_func ret int", lambda: rx.FuncStructInfo.opaque_func(3), error.TypeError, ""),
    ("opaque_func derive_func", lambda: rx.FuncStructInfo.opaque_func(derive_func="f"),
     error.ValueError, "derive_func"),
    ("is_base_of int", lambda: rx.ObjectStructInfo().is_base_of(3), error.TypeError, ""),
    ("is_base_of None", lambda: rx.ObjectStructInfo().is_base_of(None), error.TVMError, ""),
]


@pytest.mark.parametrize("name,fn,cls,match", SINFO_CASES, ids=[c[0] for c in SINFO_CASES])
def test_struct_info_bad_input(name, fn, cls, match):
    _check(fn, cls, match)


# ---- every relax.op function ------------------------------------------------------------------

BINARY = ["add", "subtract", "multiply", "divide", "floor_divide", "power", "maximum", "minimum",
          "equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]
UNARY = ["exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "erf", "negative", "abs"]
NN_UNARY = ["relu", "gelu", "silu"]
REDUCE = ["sum", "mean", "max", "min"]


def _op_cases():
    cases = []
    for name in BINARY:
        f = getattr(O, name)
        cases += [
            (f"{name} shapes", lambda f=f: infer(f(a, b)), error.ValueError, ""),
            (f"{name} dtypes", lambda f=f: infer(f(a, i32)), error.TVMError, "int32"),
            (f"{name} None", lambda f=f: infer(f(a, None)), error.TVMError, ""),
            (f"{name} str", lambda f=f: infer(f(a, "x")), error.TVMError, ""),
            (f"{name} tuple", lambda f=f: infer(f(a, tup)), error.TVMError, ""),
            (f"{name} shape value", lambda f=f: infer(f(a, shp)), error.TVMError, ""),
            (f"{name} int overflow", lambda f=f: infer(f(i32, 2**40)), error.ValueError, "int32"),
        ]
    for name in UNARY:
        f = getattr(O, name)
        cases += [
            (f"{name} None", lambda f=f: infer(f(None)), error.TVMError, ""),
            (f"{name} tuple", lambda f=f: infer(f(tup)), error.TVMError, ""),
            (f"{name} int", lambda f=f: infer(f(3)), error.TVMError, ""),
            (f"{name} shape", lambda f=f: infer(f(shp)), error.TVMError, ""),
        ]
    for name in NN_UNARY:
        f = getattr(O.nn, name)
        cases += [
            (f"nn.{name} None", lambda f=f: infer(f(None)), error.TVMError, ""),
            (f"nn.{name} tuple", lambda f=f: infer(f(tup)), error.TVMError, ""),
        ]
    for name in REDUCE:
        f = getattr(O, name)
        cases += [
            (f"{name} axis out of range", lambda f=f: infer(f(a, 2)), error.TVMError, "2"),
            (f"{name} negative axis", lambda f=f: infer(f(a, -3)), error.TVMError, ""),
            (f"{name} duplicate axes", lambda f=f: infer(f(a, [1, -1])), error.TVMError, ""),
            (f"{name} float axis", lambda f=f: infer(f(a, 1.0)), error.TypeError, ""),
            (f"{name} str axis", lambda f=f: infer(f(a, "a")), error.TypeError, ""),
            (f"{name} huge axis", lambda f=f: infer(f(a, 2**40)), error.TVMError, ""),
            (f"{name} tuple input", lambda f=f: infer(f(tup)), error.TVMError, ""),
            (f"{name} keepdims str", lambda f=f: infer(f(a, 0, "yes")), error.TypeError,
             "keepdims"),
        ]
    for name in ["argmax", "argmin"]:
        f = getattr(O, name)
        cases += [
            (f"{name} list axis", lambda f=f: infer(f(a, [0])), error.TypeError, "axis"),
            (f"{name} axis out of range", lambda f=f: infer(f(a, 3)), error.TVMError, ""),
            (f"{name} float axis", lambda f=f: infer(f(a, 0.5)), error.TypeError, ""),
        ]
    for name in ["zeros", "ones"]:
        f = getattr(O, name)
        cases += [
            (f"{name} negative", lambda f=f: infer(f((-1,), "float32")), error.ValueError,
             "negative"),
            (f"{name} bad dtype", lambda f=f: infer(f((2,), "float33")), error.ValueError,
             "float33"),
            (f"{name} None dtype", lambda f=f: infer(f((2,), None)), error.TVMError, ""),
            (f"{name} float shape", lambda f=f: infer(f((2.5,), "float32")), error.TypeError, ""),
            (f"{name} str shape", lambda f=f: infer(f("ab", "float32")), error.TypeError, ""),
            (f"{name} too many elements", lambda f=f: infer(f((2**40, 2**40), "float32")),
             error.ValueError, "elements"),
            (f"{name} tensor as shape", lambda f=f: infer(f(a, "float32")), error.TVMError, ""),
        ]
    return cases


i3 = v((3,), "int32", "i3")
OP_CASES = _op_cases() + [
    ("where float condition", lambda: infer(O.where(a, a, a)), error.TVMError, "bool"),
    ("where shapes", lambda: infer(O.where(v((2, 3), "bool"), a, b)), error.ValueError, ""),
    ("astype bad dtype", lambda: infer(O.astype(a, "float33")), error.ValueError, "float33"),
    ("astype None", lambda: infer(O.astype(a, None)), error.TVMError, ""),
    ("exp int tensor", lambda: infer(O.exp(i32)), error.TVMError, "int32"),
    ("matmul shapes", lambda: infer(O.matmul(a, a)), error.ValueError, ""),
    ("matmul scalar", lambda: infer(O.matmul(s0, a)), error.TVMError, ""),
    ("matmul dtypes", lambda: infer(O.matmul(a, v((3, 4), "int32"))), error.TVMError, "int32"),
    ("matmul out_dtype", lambda: infer(O.matmul(a, b, "float33")), error.ValueError, "float33"),
    ("permute_dims short", lambda: infer(O.permute_dims(a, [0])), error.TVMError, ""),
    ("permute_dims duplicate", lambda: infer(O.permute_dims(a, [0, 0])), error.TVMError, ""),
    ("permute_dims out of range", lambda: infer(O.permute_dims(a, [0, 5])), error.TVMError, "5"),
    ("permute_dims float", lambda: infer(O.permute_dims(a, [0.5, 1])), error.TypeError, ""),
    ("permute_dims str", lambda: infer(O.permute_dims(a, "ab")), error.TypeError, ""),
    ("permute_dims huge", lambda: infer(O.permute_dims(a, [2**40, 0])), error.TVMError, ""),
    ("reshape size", lambda: infer(O.reshape(a, (4, 2))), error.ValueError, "reshape"),
    ("reshape two -1", lambda: infer(O.reshape(a, (-1, -1))), error.ValueError, "-1"),
    ("reshape -2", lambda: infer(O.reshape(a, (-2, 3))), error.ValueError, "negative"),
    ("reshape float", lambda: infer(O.reshape(a, (2.5, 3))), error.TypeError, ""),
    ("reshape None", lambda: infer(O.reshape(a, None)), error.TypeError, "shape"),
    ("reshape str", lambda: infer(O.reshape(a, "ab")), error.TypeError, ""),
    ("reshape int", lambda: infer(O.reshape(a, 6)), error.TypeError, "shape"),
    ("reshape overflowing", lambda: infer(O.reshape(a, (2**62, 2**62))), error.ValueError, ""),
    ("reshape -1 with zero", lambda: infer(O.reshape(empty, (-1, 0))), error.ValueError, ""),
    ("flatten tuple", lambda: infer(O.flatten(tup)), error.TVMError, ""),
    ("concat axis", lambda: infer(O.concat([a, a], 5)), error.TVMError, "5"),
    ("concat shapes", lambda: infer(O.concat([a, b], 0)), error.ValueError, ""),
    ("concat dtypes", lambda: infer(O.concat([a, i32], 0)), error.TVMError, ""),
    ("concat nothing", lambda: infer(O.concat([], 0)), error.TVMError, ""),
    ("concat None", lambda: infer(O.concat(None)), error.TVMError, ""),
    ("concat a tensor", lambda: infer(O.concat(a)), error.TVMError, ""),
    ("concat float axis", lambda: infer(O.concat([a, a], 0.5)), error.TypeError, "axis"),
    ("concat ints", lambda: infer(O.concat([1, 2])), error.TypeError, ""),
    ("split 0", lambda: infer(O.split(a, 0)), error.ValueError, ""),
    ("split negative", lambda: infer(O.split(a, -1)), error.ValueError, ""),
    ("split axis", lambda: infer(O.split(a, 2, axis=7)), error.TVMError, "7"),
    ("split float index", lambda: infer(O.split(a, [1.5], axis=1)), error.TypeError, ""),
    ("split None", lambda: infer(O.split(a, None)), error.TVMError, ""),
    ("split float axis", lambda: infer(O.split(a, 2, axis=1.0)), error.TypeError, "axis"),
    ("expand_dims axis", lambda: infer(O.expand_dims(a, 5)), error.TVMError, ""),
    ("expand_dims duplicate", lambda: infer(O.expand_dims(a, [0, 0])), error.TVMError, ""),
    ("expand_dims None", lambda: infer(O.expand_dims(a, None)), error.TVMError, ""),
    ("expand_dims -5", lambda: infer(O.expand_dims(a, -5)), error.TVMError, ""),
    ("squeeze not 1", lambda: infer(O.squeeze(a, 0)), error.ValueError, ""),
    ("squeeze axis", lambda: infer(O.squeeze(a, 4)), error.TVMError, ""),
    ("squeeze str", lambda: infer(O.squeeze(a, "a")), error.TypeError, ""),
    ("strided_slice lengths", lambda: infer(O.strided_slice(a, [0], [0, 1], [1])), error.TVMError,
     ""),
    ("strided_slice axis", lambda: infer(O.strided_slice(a, [5], [0], [1])), error.TVMError, ""),
    ("strided_slice stride 0", lambda: infer(O.strided_slice(a, [0], [0], [2], [0])),
     error.ValueError, ""),
    ("strided_slice float", lambda: infer(O.strided_slice(a, [0], [0.5], [1])), error.TypeError,
     ""),
    ("strided_slice None axes", lambda: infer(O.strided_slice(a, None, [0], [1])), error.TVMError,
     ""),
    ("strided_slice duplicate axes", lambda: infer(O.strided_slice(a, [0, 0], [0, 0], [1, 1])),
     error.TVMError, ""),
    ("take float indices", lambda: infer(O.take(a, a, 0)), error.TVMError, ""),
    ("take axis", lambda: infer(O.take(a, idx, 4)), error.TVMError, ""),
    ("take mode", lambda: infer(O.take(a, idx, 0, "bad")), error.ValueError, "bad"),
    ("take mode int", lambda: infer(O.take(a, idx, 0, 3)), error.TypeError, ""),
    ("take None", lambda: infer(O.take(a, None, 0)), error.TVMError, ""),
    ("take float axis", lambda: infer(O.take(a, idx, 0.0)), error.TypeError, "axis"),
    ("broadcast_to", lambda: infer(O.broadcast_to(a, (3, 3))), error.ValueError, ""),
    ("broadcast_to fewer dims", lambda: infer(O.broadcast_to(a, (3,))), error.ValueError, ""),
    ("broadcast_to negative", lambda: infer(O.broadcast_to(a, (-2, 3))), error.ValueError, ""),
    ("broadcast_to None", lambda: infer(O.broadcast_to(a, None)), error.TypeError, ""),
    ("full not 0-d", lambda: infer(O.full((2,), a)), error.TVMError, ""),
    ("full int", lambda: infer(O.full((2,), 1)), error.TVMError, ""),
    ("full None", lambda: infer(O.full((2,), None)), error.TVMError, ""),
    ("softmax axis", lambda: infer(O.nn.softmax(a, 5)), error.TVMError, "5"),
    ("softmax int tensor", lambda: infer(O.nn.softmax(i32)), error.TVMError, ""),
    ("softmax float axis", lambda: infer(O.nn.softmax(a, 1.5)), error.TypeError, "axis"),
    ("softmax str axis", lambda: infer(O.nn.softmax(a, "a")), error.TypeError, "axis"),
    ("log_softmax str axis", lambda: infer(O.nn.log_softmax(a, "a")), error.TypeError, "axis"),
    ("conv2d 2-d data", lambda: infer(O.nn.conv2d(a, a)), error.TVMError, ""),
    ("conv2d channels", lambda: infer(O.nn.conv2d(img, v((4, 2, 3, 3)))), error.ValueError, ""),
    ("conv2d kernel too big", lambda: infer(O.nn.conv2d(v((1, 3, 2, 2)), ker)), error.ValueError,
     ""),
    ("conv2d stride 0", lambda: infer(O.nn.conv2d(img, ker, strides=0)), error.ValueError, ""),
    ("conv2d negative padding", lambda: infer(O.nn.conv2d(img, ker, padding=-1)),
     error.ValueError, ""),
    ("conv2d groups 0", lambda: infer(O.nn.conv2d(img, ker, groups=0)), error.ValueError, ""),
    ("conv2d groups float", lambda: infer(O.nn.conv2d(img, ker, groups=1.5)), error.TypeError,
     "groups"),
    ("conv2d groups 2", lambda: infer(O.nn.conv2d(img, ker, groups=2)), error.ValueError, ""),
    ("conv2d layout", lambda: infer(O.nn.conv2d(img, ker, data_layout="NHWC")), error.ValueError,
     "NHWC"),
    ("conv2d layout int", lambda: infer(O.nn.conv2d(img, ker, data_layout=1)), error.TypeError,
     ""),
    ("conv2d 3 paddings", lambda: infer(O.nn.conv2d(img, ker, padding=(1, 1, 1))),
     error.ValueError, ""),
    ("conv2d dilation 0", lambda: infer(O.nn.conv2d(img, ker, dilation=0)), error.ValueError, ""),
    ("conv2d out_dtype", lambda: infer(O.nn.conv2d(img, ker, out_dtype="float33")),
     error.ValueError, "float33"),
    ("max_pool2d 0", lambda: infer(O.nn.max_pool2d(img, 0)), error.ValueError, ""),
    ("max_pool2d too big", lambda: infer(O.nn.max_pool2d(v((1, 3, 2, 2)), 3)), error.ValueError,
     ""),
    ("max_pool2d 2-d", lambda: infer(O.nn.max_pool2d(a, 2)), error.TVMError, ""),
    ("max_pool2d stride 0", lambda: infer(O.nn.max_pool2d(img, 2, 0)), error.ValueError, ""),
    ("avg_pool2d negative padding", lambda: infer(O.nn.avg_pool2d(img, 2, 1, -1)),
     error.ValueError, ""),
    ("adaptive_avg_pool2d 0", lambda: infer(O.nn.adaptive_avg_pool2d(img, 0)), error.ValueError,
     ""),
    ("adaptive_avg_pool2d 3-d", lambda: infer(O.nn.adaptive_avg_pool2d(v((3, 8, 8)), 2)),
     error.TVMError, ""),
    ("batch_norm shapes", lambda: infer(O.nn.batch_norm(v((2, 3, 4, 4)), v((4,)), v((3,)),
                                                        v((3,)), v((3,)))), error.ValueError, ""),
    ("batch_norm axis", lambda: infer(O.nn.batch_norm(a, v((3,)), v((3,)), v((3,)), v((3,)),
                                                      axis=5)), error.TVMError, ""),
    ("batch_norm epsilon NaN", lambda: infer(O.nn.batch_norm(a, v((3,)), v((3,)), v((3,)),
                                                             v((3,)), 1, float("nan"))),
     error.ValueError, "NaN"),
    ("batch_norm epsilon negative", lambda: infer(O.nn.batch_norm(a, v((3,)), v((3,)), v((3,)),
                                                                  v((3,)), 1, -1.0)),
     error.ValueError, "epsilon"),
    ("layer_norm axes", lambda: infer(O.nn.layer_norm(a, v((3,)), v((3,)), 5)), error.TVMError,
     ""),
    ("layer_norm gamma", lambda: infer(O.nn.layer_norm(a, v((4,)), v((3,)), 1)), error.ValueError,
     ""),
    ("layer_norm epsilon NaN", lambda: infer(O.nn.layer_norm(a, v((3,)), v((3,)), 1,
                                                             float("nan"))), error.ValueError,
     "NaN"),
    ("layer_norm epsilon negative", lambda: infer(O.nn.layer_norm(a, v((3,)), v((3,)), 1, -1.0)),
     error.ValueError, "epsilon"),
    ("layer_norm epsilon inf", lambda: infer(O.nn.layer_norm(a, v((3,)), v((3,)), 1,
                                                             float("inf"))), error.ValueError,
     "epsilon"),
    ("dropout rate 1.5", lambda: infer(O.nn.dropout(a, 1.5)), error.ValueError, "rate"),
    ("dropout rate negative", lambda: infer(O.nn.dropout(a, -0.1)), error.ValueError, "rate"),
    ("dropout rate str", lambda: infer(O.nn.dropout(a, "a")), error.TypeError, "rate"),
    ("dropout rate NaN", lambda: infer(O.nn.dropout(a, float("nan"))), error.ValueError, "NaN"),
    ("call_tir not a GlobalVar", lambda: infer(O.call_tir(a, [a], TSI((2, 3), "float32"))),
     error.TVMError, ""),
    ("call_tir struct info int", lambda: infer(O.call_tir(rx.ExternFunc("f"), [a], 5)),
     error.TVMError, ""),
    ("call_tir None", lambda: infer(O.call_tir(None, [a], TSI((2, 3), "float32"))),
     error.TVMError, ""),
    ("call_dps_packed int func", lambda: infer(O.call_dps_packed(5, [a], TSI((2, 3), "float32"))),
     error.TVMError, ""),
    ("call_dps_packed no out", lambda: infer(O.call_dps_packed("f", [a], None)), error.TVMError,
     ""),
    ("call_dps_packed object out", lambda: infer(O.call_dps_packed("f", [a],
                                                                   rx.ObjectStructInfo())),
     error.TVMError, ""),
    ("call_dps_packed args None", lambda: infer(O.call_dps_packed("f", None,
                                                                  TSI((2, 3), "float32"))),
     error.TVMError, ""),
    ("call_pure_packed no sinfo", lambda: infer(O.call_pure_packed("f", a, sinfo_args=None)),
     error.TVMError, ""),
    ("call_pure_packed int func", lambda: infer(O.call_pure_packed(3, a,
                                                                   sinfo_args=TSI((2, 3)))),
     error.TVMError, ""),
]


@pytest.mark.parametrize("name,fn,cls,match", OP_CASES, ids=[c[0] for c in OP_CASES])
def test_op_bad_input(name, fn, cls, match):
    _check(fn, cls, match)


# ---- BlockBuilder misuse ----------------------------------------------------------------------


def _in_function(body):
    bb = rx.BlockBuilder()
    with bb.function("main", [a]):
        body(bb)
        bb.emit_func_output(a)
    return bb


def _nested_function():
    bb = rx.BlockBuilder()
    with bb.function("f", [a]):
        with bb.function("g", [a]):
            bb.emit_func_output(a)
        bb.emit_func_output(a)


def _emit_output_outside_dataflow():
    bb = rx.BlockBuilder()
    with bb.function("f", [a]):
        bb.emit_output(a)


def _func_output_in_dataflow():
    bb = rx.BlockBuilder()
    with bb.function("f", [a]):
        with bb.dataflow():
            bb.emit_func_output(a)


def _func_output_twice():
    bb = rx.BlockBuilder()
    with bb.function("f", [a]):
        bb.emit_func_output(a)
        bb.emit_func_output(a)


def _nested_dataflow():
    bb = rx.BlockBuilder()
    with bb.function("f", [a]):
        with bb.dataflow():
            with bb.dataflow():
                pass


def _dataflow_var_escapes():
    bb = rx.BlockBuilder()
    with bb.function("f", [a]):
        with bb.dataflow():
            lv = bb.emit(O.add(a, a))
            bb.emit_output(lv)
        bb.emit_func_output(lv)


def _dataflow_var_after_block():
    bb = rx.BlockBuilder()
    with bb.function("f", [a]):
        with bb.dataflow():
            lv = bb.emit(O.add(a, a))
        gv = bb.emit(O.add(lv, a))
        bb.emit_func_output(gv)


def _no_params():
    bb = rx.BlockBuilder()
    with bb.function("f"):
        bb.emit_func_output(a)


def _params_twice():
    bb = rx.BlockBuilder()
    with bb.function("f", [a]):
        bb.emit_func_output(a, [a])


def _no_func_output():
    bb = rx.BlockBuilder()
    with bb.function("f", [a]):
        bb.emit(O.add(a, a))


def _impure_in_dataflow():
    bb = rx.BlockBuilder()
    with bb.function("f", [a]):
        with bb.dataflow():
            bb.emit(rx.Call(rx.ExternFunc("foo"), [a], None, [TSI((2, 3), "float32")]))


def _param_not_var():
    rx.BlockBuilder().function("f", [a, 3])


BB_CASES = [
    ("nested functions", _nested_function, error.ValueError, "nest"),
    ("emit outside a function", lambda: rx.BlockBuilder().emit(O.add(a, a)), error.ValueError,
     "no function"),
    ("emit_output outside", lambda: rx.BlockBuilder().emit_output(a), error.ValueError,
     "dataflow"),
    ("emit_func_output outside", lambda: rx.BlockBuilder().emit_func_output(a), error.ValueError,
     "no function"),
    ("emit_match_cast outside", lambda: rx.BlockBuilder().emit_match_cast(a, TSI((2, 3))),
     error.ValueError, "no function"),
    ("emit_output outside dataflow", _emit_output_outside_dataflow, error.ValueError, "dataflow"),
    ("emit_func_output twice", _func_output_twice, error.ValueError, "twice"),
    ("nested dataflow", _nested_dataflow, error.ValueError, "dataflow"),
    ("DataflowVar escapes", _dataflow_var_escapes, error.ValueError, "DataflowVar"),
    ("DataflowVar after its block", _dataflow_var_after_block, error.ValueError, "DataflowVar"),
    ("no parameters", _no_params, error.ValueError, "no parameters"),
    ("parameters twice", _params_twice, error.ValueError, "already"),
    ("no emit_func_output", _no_func_output, error.ValueError, "emit_func_output"),
    ("impure call in dataflow", _impure_in_dataflow, error.ValueError, ""),
    ("parameter not a Var", _param_not_var, error.TypeError, "relax.Var"),
    ("params an int", lambda: rx.BlockBuilder().function("f", 3), error.TypeError, "params"),
    ("function name int", lambda: rx.BlockBuilder().function(5, [a]).__enter__(),
     error.TypeError, ""),
    ("emit None", lambda: _in_function(lambda bb: bb.emit(None)), error.ValueError, ""),
    ("emit int", lambda: _in_function(lambda bb: bb.emit(3)), error.TypeError, ""),
    ("emit PrimExpr", lambda: _in_function(lambda bb: bb.emit(tir.IntImm("int32", 3))),
     error.TypeError, "TIR"),
    ("emit name int", lambda: _in_function(lambda bb: bb.emit(a, 5)), error.TypeError, ""),
    ("emit var without struct info", lambda: _in_function(lambda bb: bb.emit(rx.Var("q"))),
     error.ValueError, "struct info"),
    ("match_cast struct info int", lambda: _in_function(lambda bb: bb.emit_match_cast(a, 5)),
     error.TypeError, ""),
    ("match_cast None", lambda: _in_function(lambda bb: bb.emit_match_cast(None, TSI((2, 3)))),
     error.ValueError, "value"),
    ("emit_te not callable", lambda: _in_function(lambda bb: bb.emit_te(5, a)), error.TypeError,
     "callable"),
    ("emit_te returns int", lambda: _in_function(lambda bb: bb.emit_te(lambda x: 3, a)),
     error.TypeError, "te.Tensor"),
    ("emit_te tuple argument", lambda: _in_function(lambda bb: bb.emit_te(lambda x: x, tup)),
     error.ValueError, "tensor"),
    ("BlockBuilder(5)", lambda: rx.BlockBuilder(5), error.TypeError, "IRModule"),
    ("add_func None", lambda: rx.BlockBuilder().add_func(None, "f"), error.ValueError,
     "no function"),
    ("add_func name int", lambda: rx.BlockBuilder().add_func(rx.Function([a], a), 5),
     error.TypeError, ""),
    ("lookup_func None", lambda: rx.BlockBuilder().lookup_func(None), error.ValueError,
     "GlobalVar"),
    ("update_func unknown", lambda: rx.BlockBuilder().update_func(tvm.ir.GlobalVar("zz"),
                                                                  rx.Function([a], a)),
     error.ValueError, "zz"),
    ("update_func None", lambda: rx.BlockBuilder().update_func(None, None), error.ValueError, ""),
    ("normalize None", lambda: rx.BlockBuilder().normalize(None), error.ValueError, ""),
    ("normalize int", lambda: rx.BlockBuilder().normalize(5), error.TypeError, ""),
    ("normalize PrimExpr", lambda: rx.BlockBuilder().normalize(tir.IntImm("int32", 1)),
     error.TypeError, "TIR"),
    ("emit_normalized None", lambda: _in_function(lambda bb: bb.emit_normalized(None)),
     error.ValueError, "binding"),
    ("get_unique_name None", lambda: rx.BlockBuilder().get_unique_name(None), error.TypeError, ""),
]


@pytest.mark.parametrize("name,fn,cls,match", BB_CASES, ids=[c[0] for c in BB_CASES])
def test_block_builder_misuse(name, fn, cls, match):
    _check(fn, cls, match)
    assert rx.BlockBuilder.current() is None  # no scope left open behind


def _build_add(bb, x):
    with bb.function("main", [x]):
        with bb.dataflow():
            gv = bb.emit_output(O.add(x, x))
        bb.emit_func_output(gv)


@pytest.mark.parametrize("exc", [RuntimeError("boom"), KeyError("k"), "tvm"])
@pytest.mark.parametrize("where", ["function", "dataflow"])
def test_block_builder_usable_after_an_exception(exc, where):
    bb = rx.BlockBuilder()

    def fail():
        if exc == "tvm":
            bb.emit(O.add(a, b))  # a minitvm error from inside the builder
        raise exc

    with pytest.raises(Exception):
        with bb.function("broken", [a]):
            if where == "dataflow":
                with bb.dataflow():
                    bb.emit(O.add(a, a))
                    fail()
            fail()
    assert rx.BlockBuilder.current() is None
    _build_add(bb, a)
    mod = bb.get()
    assert [gv.name_hint for gv in mod.get_global_vars()] == ["main"]
    assert rx.analysis.well_formed(mod)
    np.testing.assert_allclose(rx.interpret(mod, "main", f32).numpy(), 2 * f32)


# ---- relax.interpret --------------------------------------------------------------------------


def _module(params, build):
    bb = rx.BlockBuilder()
    with bb.function("main", params):
        out = build(bb)
        bb.emit_func_output(out)
    return bb.get()


ADD = _module([a], lambda bb: bb.emit(O.add(a, a)))


def _int_module(op_name, divisor):
    return _module([idx], lambda bb: bb.emit(getattr(O, op_name)(
        idx, rx.const(np.array(divisor, "int32")))))


def _on_empty(op):
    return _module([empty], lambda bb: bb.emit(op(empty)))


INTERP_CASES = [
    ("no arguments", lambda: rx.interpret(ADD, "main"), error.TypeError, "1 argument"),
    ("two arguments", lambda: rx.interpret(ADD, "main", f32, f32), error.TypeError, "2 were"),
    ("dtype", lambda: rx.interpret(ADD, "main", f32.astype("float64")), error.ValueError,
     "float64"),
    ("shape", lambda: rx.interpret(ADD, "main", np.ones((3, 2), "float32")), error.ValueError,
     "shape"),
    ("numpy scalar", lambda: rx.interpret(ADD, "main", np.float32(1)), error.TypeError, "tensor"),
    ("0-d array", lambda: rx.interpret(ADD, "main", np.array(1, "float32")), error.ValueError,
     "rank"),
    ("empty array", lambda: rx.interpret(ADD, "main", np.ones((0, 3), "float32")),
     error.ValueError, "shape"),
    ("None", lambda: rx.interpret(ADD, "main", None), error.TypeError, "None"),
    ("str", lambda: rx.interpret(ADD, "main", "abc"), error.TypeError, "string"),
    ("nested list", lambda: rx.interpret(ADD, "main", [[1, 2, 3], [4, 5, 6]]), error.TypeError,
     "tuple"),
    ("int", lambda: rx.interpret(ADD, "main", 3), error.TypeError, "int"),
    ("object", lambda: rx.interpret(ADD, "main", object()), error.TypeError, "object"),
    ("complex", lambda: rx.interpret(ADD, "main", np.ones((2, 3), "complex64")),
     error.TypeError, "complex64"),
    ("object array", lambda: rx.interpret(ADD, "main", np.array([[object()] * 3] * 2)),
     error.TypeError, "object"),
    ("bool array", lambda: rx.interpret(ADD, "main", np.ones((2, 3), bool)), error.ValueError,
     "bool"),
    ("int64 array", lambda: rx.interpret(ADD, "main", np.ones((2, 3), "int64")), error.ValueError,
     "int64"),
    ("keyword argument", lambda: rx.interpret(ADD, "main", x=f32), error.TypeError, "keyword"),
    ("unknown function", lambda: rx.interpret(ADD, "nope", f32), error.ValueError, "nope"),
    ("function int", lambda: rx.interpret(ADD, 5, f32), error.TypeError, "function"),
    ("module None", lambda: rx.interpret(None, "main", f32), error.TypeError, "IRModule"),
    ("module int", lambda: rx.interpret(5, "main", f32), error.TypeError, "IRModule"),
    ("deeply nested argument", lambda: rx.interpret(ADD, "main", _deep_list(5000)),
     error.ValueError, "nested"),
    ("int divide by zero", lambda: rx.interpret(_int_module("divide", [1, 0]), "main",
                                                np.ones(2, "int32")), error.ValueError, "zero"),
    ("int floor_divide by zero", lambda: rx.interpret(_int_module("floor_divide", 0), "main",
                                                      np.ones(2, "int32")), error.ValueError,
     "zero"),
    ("int min / -1", lambda: rx.interpret(_int_module("divide", -1), "main",
                                          np.full(2, -2**31, "int32")), error.ValueError,
     "overflow"),
    ("int min // -1", lambda: rx.interpret(_int_module("floor_divide", [-1, -1]), "main",
                                           np.full(2, -2**31, "int32")), error.ValueError,
     "overflow"),
    ("power negative int exponent", lambda: rx.interpret(_int_module("power", -1), "main",
                                                         np.full(2, 2, "int32")),
     error.ValueError, "negative"),
    ("max of empty", lambda: rx.interpret(_on_empty(O.max), "main", np.ones((0, 3), "float32")),
     error.ValueError, "identity"),
    ("argmax of empty", lambda: rx.interpret(_on_empty(O.argmax), "main",
                                             np.ones((0, 3), "float32")), error.ValueError,
     "empty"),
    ("take out of bounds", lambda: rx.interpret(
        _module([a, idx], lambda bb: bb.emit(O.take(a, idx, 1))), "main", f32,
        np.array([0, 7], "int32")), error.ValueError, "out of bounds"),
    ("take negative out of bounds", lambda: rx.interpret(
        _module([a, idx], lambda bb: bb.emit(O.take(a, idx, 1))), "main", f32,
        np.array([0, -7], "int32")), error.ValueError, "out of bounds"),
    ("huge allocation", lambda: rx.interpret(
        _module([a], lambda bb: bb.emit(O.zeros((2**20, 2**20), "float32"))), "main", f32),
     error.RuntimeError, "memory"),
]


def _deep_list(depth):
    value = f32
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("name,fn,cls,match", INTERP_CASES, ids=[c[0] for c in INTERP_CASES])
def test_interpret_bad_input(name, fn, cls, match):
    _check(fn, cls, match)


def test_interpret_odd_but_valid_arrays():
    x = np.arange(6, dtype="float32").reshape(3, 2).T  # not contiguous
    np.testing.assert_array_equal(rx.interpret(ADD, "main", x).numpy(), 2 * x)
    x = np.arange(12, dtype="float32").reshape(2, 6)[:, ::2]  # strided
    np.testing.assert_array_equal(rx.interpret(ADD, "main", x).numpy(), 2 * x)
    x = np.arange(6, dtype=">f4").reshape(2, 3)  # big-endian
    np.testing.assert_array_equal(rx.interpret(ADD, "main", x).numpy(), 2 * x.astype("float32"))
    ro = np.ones((2, 3), "float32")
    ro.flags.writeable = False
    np.testing.assert_array_equal(rx.interpret(ADD, "main", ro).numpy(), 2 * ro)
    special = np.array([[np.nan, np.inf, -np.inf], [0.0, -0.0, 3e38]], "float32")
    before = special.copy()
    with np.errstate(over="ignore", invalid="ignore"):
        np.testing.assert_array_equal(rx.interpret(ADD, "main", special).numpy(), special * 2)
    np.testing.assert_array_equal(special, before)  # the caller's array is unchanged


# ---- call_dps_packed / call_pure_packed to Python functions ------------------------------------


def _register(name, fn):
    tvm.register_func(name, fn, override=True)
    return name


def _raises_key(x, out):
    raise KeyError("nope")


def _raises_tvm(x, out):
    raise error.ValueError("mine")


def _one_arg(x):
    return None


def _returns_str(x):
    return "abc"


def _returns_wrong_shape(x):
    return tvm.nd.array(np.ones((5,), "float32"))


def _dps(name):
    return _module([a], lambda bb: bb.emit(O.call_dps_packed(name, [a], TSI((2, 3), "float32"))))


def _pure(name):
    return _module([a], lambda bb: bb.emit(O.call_pure_packed(name, a,
                                                              sinfo_args=TSI((2, 3), "float32"))))


PACKED_CASES = [
    ("dps raises KeyError", lambda: rx.interpret(
        _dps(_register("harden.raises_key", _raises_key)), "main", f32), error.KeyError, "nope"),
    ("dps raises minitvm error", lambda: rx.interpret(
        _dps(_register("harden.raises_tvm", _raises_tvm)), "main", f32), error.ValueError, "mine"),
    ("dps wrong arity", lambda: rx.interpret(
        _dps(_register("harden.one_arg", _one_arg)), "main", f32), error.TypeError, "positional"),
    ("dps missing", lambda: rx.interpret(_dps("harden.not_registered"), "main", f32),
     error.ValueError, "not_registered"),
    ("pure returns str", lambda: rx.interpret(
        _pure(_register("harden.returns_str", _returns_str)), "main", f32), error.ValueError,
     "string"),
    ("pure returns wrong shape", lambda: rx.interpret(
        _pure(_register("harden.wrong_shape", _returns_wrong_shape)), "main", f32),
     error.ValueError, ""),
    ("pure returns nothing", lambda: rx.interpret(
        _pure(_register("harden.one_arg", _one_arg)), "main", f32), error.TVMError, ""),
    ("pure wrong arity", lambda: rx.interpret(
        _pure(_register("harden.raises_key", _raises_key)), "main", f32), error.TypeError, ""),
]


@pytest.mark.parametrize("name,fn,cls,match", PACKED_CASES, ids=[c[0] for c in PACKED_CASES])
def test_packed_calls_to_bad_python_functions(name, fn, cls, match):
    _check(fn, cls, match)


# ---- deep nesting: a clear error or the right answer, never a crash ---------------------------


def test_long_chain_of_bindings():
    bb = rx.BlockBuilder()
    with bb.function("main", [a]):
        x = a
        for _ in range(5000):
            x = bb.emit(O.add(x, a))
        bb.emit_func_output(x)
    mod = bb.get()
    assert rx.analysis.well_formed(mod)
    np.testing.assert_array_equal(rx.interpret(mod, "main", f32).numpy(), 5001 * f32)
    text = mod.script()
    assert tvm.ir.structural_equal(from_source(text), mod)
    tvm.ir.structural_hash(mod)


def _nested_tuple(depth):
    t = a
    for _ in range(depth):
        t = rx.Tuple([t])
    return t


def _nested_call(depth):
    t = a
    for _ in range(depth):
        t = O.add(t, a)
    return t


def test_deeply_nested_expressions_give_a_clear_error():
    for build in (_nested_tuple, _nested_call):
        deep = build(10000)
        # structural hash keeps the one depth policy (docs/hardening.md): a clear error
        _check(lambda d=deep: tvm.ir.structural_hash(d), error.ValueError, "nested")
        str(deep)  # (the printer refuses the depth; str falls back to a short generic form)
        _check(lambda d=deep: rx.BlockBuilder().normalize(d), error.ValueError, "nested")
        _check(lambda d=deep: _module([a], lambda bb: bb.emit(d)), error.ValueError, "nested")
    # a moderately deep tuple normalises; a value nested past the interpreter's limit is refused
    assert rx.BlockBuilder().normalize(_nested_tuple(1500)).struct_info is not None
    mod = _module([a], lambda bb: bb.emit(_nested_tuple(1500)))
    _check(lambda: rx.interpret(mod, "main", f32), error.RuntimeError, "nested")
    out = rx.interpret(_module([a], lambda bb: bb.emit(_nested_tuple(400))), "main", f32)
    for _ in range(400):
        assert isinstance(out, tuple) and len(out) == 1
        out = out[0]
    np.testing.assert_array_equal(out.numpy(), f32)


def test_deep_chain_of_calls_normalises():
    mod = _module([a], lambda bb: bb.emit(_nested_call(1000)))
    np.testing.assert_array_equal(rx.interpret(mod, "main", f32).numpy(), 1001 * f32)


# ---- well_formed on hand-built broken IR ------------------------------------------------------

y = rx.Var("y", TSI((2, 3), "float32"))
dv = rx.DataflowVar("dv", TSI((2, 3), "float32"))
RET = TSI((2, 3), "float32")


def _fn(params, blocks, body, ret=RET):
    return rx.Function(params, rx.SeqExpr(blocks, body), ret)


def _call_extern():
    return rx.Call(rx.ExternFunc("f"), [a], None, [RET])


BROKEN = [
    ("dataflow var parameter", lambda: _fn([rx.DataflowVar("d", RET)], [], a)),
    ("duplicate parameter", lambda: _fn([a, a], [], a)),
    ("free variable", lambda: _fn([a], [], y)),
    ("variable bound twice", lambda: _fn([a], [rx.BindingBlock([rx.VarBinding(y, a),
                                                                rx.VarBinding(y, a)])], y)),
    ("DataflowVar outside a dataflow block",
     lambda: _fn([a], [rx.BindingBlock([rx.VarBinding(dv, a)])], a)),
    ("DataflowVar escapes", lambda: _fn([a], [rx.DataflowBlock([rx.VarBinding(dv, a)])], dv)),
    ("binding without struct info",
     lambda: _fn([a], [rx.BindingBlock([rx.VarBinding(rx.Var("q"), a)])], a)),
    ("impure call in dataflow",
     lambda: _fn([a], [rx.DataflowBlock([rx.VarBinding(y, _call_extern())])], y)),
    ("struct info disagrees",
     lambda: _fn([a], [rx.BindingBlock([rx.VarBinding(rx.Var("q", TSI((5,), "int32")), a)])],
                 a)),
    ("return struct info disagrees", lambda: _fn([a], [], a, TSI((7,), "int8"))),
    ("unknown GlobalVar", lambda: tvm.IRModule({"main": _fn(
        [a], [rx.BindingBlock([rx.VarBinding(y, rx.Call(tvm.ir.GlobalVar("nope"), [a]))])], y)})),
    ("use before definition", lambda: _fn([a], [rx.BindingBlock([
        rx.VarBinding(rx.Var("z", RET), y), rx.VarBinding(y, a)])], y)),
]


@pytest.mark.parametrize("name,make", BROKEN, ids=[c[0] for c in BROKEN])
def test_well_formed_finds_broken_ir(name, make):
    try:
        obj = make()
    except error.TVMError:
        return  # refused when built: as good
    assert not rx.analysis.well_formed(obj)
    assert rx.analysis.well_formed_violations(obj)


WF_CASES = [
    ("None", lambda: rx.analysis.well_formed(None), error.TypeError, "IRModule"),
    ("int", lambda: rx.analysis.well_formed(3), error.TypeError, ""),
    ("a Var", lambda: rx.analysis.well_formed(a), error.TypeError, "IRModule"),
    ("free_vars None", lambda: rx.analysis.free_vars(None), error.ValueError, "None"),
    ("bound_vars None", lambda: rx.analysis.bound_vars(None), error.ValueError, "None"),
    ("all_vars int", lambda: rx.analysis.all_vars(3), error.TypeError, ""),
]


@pytest.mark.parametrize("name,fn,cls,match", WF_CASES, ids=[c[0] for c in WF_CASES])
def test_analysis_bad_input(name, fn, cls, match):
    _check(fn, cls, match)


# ---- BindParams -------------------------------------------------------------------------------

w = rx.Var("w", TSI((n, 3), "float32"))
BP_MOD = _module([a, w], lambda bb: bb.emit(O.add(a, w)))


def _bind(params, mod=None, func="main"):
    return rx.transform.BindParams(func, params)(BP_MOD if mod is None else mod)


BP_CASES = [
    ("unknown name", lambda: _bind({"zz": f32}), error.ValueError, "zz"),
    ("unknown function", lambda: _bind({"a": f32}, func="nope"), error.ValueError, "nope"),
    ("shape", lambda: _bind({"a": np.ones((3, 3), "float32")}), error.ValueError, "dimension 0"),
    ("dtype", lambda: _bind({"a": np.ones((2, 3), "float64")}), error.ValueError, "dtype"),
    ("rank", lambda: _bind({"a": np.float32(1)}), error.ValueError, "rank"),
    ("None value", lambda: _bind({"a": None}), error.TypeError, ""),
    ("str value", lambda: _bind({"a": "abc"}), error.TypeError, ""),
    ("complex value", lambda: _bind({"a": np.ones((2, 3), "complex64")}), error.TypeError,
     "complex64"),
    ("ragged value", lambda: _bind({"a": [[1], [1, 2]]}), error.ValueError, ""),
    ("int key", lambda: _bind({5: f32}), error.TypeError, "key"),
    ("symbolic dim", lambda: _bind({"w": np.ones((4, 4), "float32")}), error.ValueError,
     "dimension 1"),
    ("foreign Var", lambda: _bind({rx.Var("q", TSI((2, 3), "float32")): f32}), error.ValueError,
     "not a parameter"),
    ("module None", lambda: rx.transform.BindParams("main", {"a": f32})(None), error.TypeError,
     "IRModule"),
    ("duplicate parameter names", lambda: _bind(
        {"a": f32}, _module([a, rx.Var("a", TSI((2, 3), "float32"))], lambda bb: a)),
     error.ValueError, "several"),
]


@pytest.mark.parametrize("name,fn,cls,match", BP_CASES, ids=[c[0] for c in BP_CASES])
def test_bind_params_bad_input(name, fn, cls, match):
    _check(fn, cls, match)
    assert [p.name_hint for p in BP_MOD["main"].params] == ["a", "w"]  # the module is unchanged


# ---- the Relax parser: malformed text and a mutation fuzz --------------------------------------

MALFORMED_TEXT = [
    ("empty", ""),
    ("only a decorator", "@R.function\n"),
    ("NUL-free garbage", "@R.function\ndef f(x: R.Tensor((2,), \"float32\")):\n    return x +\n"),
    ("negative dim", "@R.function\ndef f(x: R.Tensor((-2,), \"float32\")):\n    return x\n"),
    ("bad dtype", "@R.function\ndef f(x: R.Tensor((2,), \"float33\")):\n    return x\n"),
    ("huge dim", "@R.function\ndef f(x: R.Tensor((2**70,), \"float32\")):\n    return x\n"),
    ("lone surrogate", "@R.function\ndef f(x: R.Tensor((2,), \"float32\")):\n    return \udcff\n"),
    ("deep parentheses", "@R.function\ndef f(x: R.Tensor((2,), \"float32\")):\n    return "
     + "(" * 5000 + "x" + ")" * 5000 + "\n"),
    ("deep tuple annotation", "@R.function\ndef f(x: " + "R.Tuple(" * 3000 + "R.Object"
     + ")" * 3000 + "):\n    return x\n"),
    ("long chain", "@R.function\ndef f(x: R.Tensor((2,), \"float32\")):\n    return x"
     + " + x" * 5000 + "\n"),
]


@pytest.mark.parametrize("name,text", MALFORMED_TEXT, ids=[c[0] for c in MALFORMED_TEXT])
def test_malformed_relax_text(name, text):
    with pytest.raises(error.ParseError):
        from_source(text)


def test_bare_cr_line_ends_are_line_ends():
    text = '@R.function\ndef f(x: R.Tensor((2,), "float32")):\n    return x\n'
    assert tvm.ir.structural_equal(from_source(text.replace("\n", "\r")), from_source(text))


def test_nul_in_text_is_a_clear_error():
    _check(lambda: from_source("@R.function\ndef f():\n    return\x00\n"), error.ParseError,
           "NUL")


_NUMS = ["-1", "0", "2**40", "1.5", "99999999999999999999", "-2", "True", "None", "1e400", "()"]
_STRS = ['"float33"', '""', '"int64"', '"bool"', '"x"', '"handle"', '"float32x4"', "0", "None"]
_TOKENS = ["(", ")", "[", "]", ":", ",", "=", "R.", "T.", "with", "def", "return", "\n", "    ",
           "\t", "-1", "2**40", "nan", '"', "'", "#", "\\", "@R.function", "None", "lambda",
           "R.Tensor", "R.Tuple", "x", "...", "if", "else:", "\udcff", "\r"]


def _mutate(text, rng):
    """One random edit: most keep the text well-tokenised (a number, string or name replaced, a
    line dropped or repeated), the rest cut, delete, insert or swap raw characters and lines."""
    kind = rng.randrange(10)
    if kind < 5:
        pattern = [r"(?<![\w.])\d+(\.\d+)?", r'"[^"\n]*"', r"\b[A-Za-z_]\w*\b"][kind % 3]
        found = list(re.finditer(pattern, text))
        if found:
            m = rng.choice(found)
            repl = [_NUMS, _STRS, [f.group(0) for f in found]][kind % 3]
            return text[:m.start()] + rng.choice(repl) + text[m.end():]
    lines = text.split("\n")
    if kind == 5:
        del lines[rng.randrange(len(lines))]
        return "\n".join(lines)
    if kind == 6:
        lines.insert(rng.randrange(len(lines) + 1), rng.choice(lines))
        return "\n".join(lines)
    i = rng.randrange(len(text) + 1)
    if kind == 7:
        return text[:i]
    if kind == 8:
        return text[:i] + rng.choice(_TOKENS) + text[i + rng.randrange(3):]
    j, k = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[j], lines[k] = lines[k], lines[j]
    return "\n".join(lines)


def test_mutated_relax_scripts_parse_or_give_a_parse_error():
    texts = [open(f, encoding="utf-8").read()
             for f in sorted(glob.glob(os.path.join(TEXT_DIR, "*.py")))]
    assert texts
    rng = random.Random(16)
    deadline = time.time() + 15  # a time budget: stop early on a slow machine
    parsed = refused = 0
    for count in range(2000):
        if time.time() > deadline:
            break
        text = rng.choice(texts)
        for _ in range(rng.randrange(1, 4)):
            text = _mutate(text, rng)
        start = time.time()
        try:
            result = from_source(text)
        except error.ParseError:
            refused += 1
        except Exception as err:  # pylint: disable=broad-except
            raise AssertionError(f"mutant {count}: {type(err).__name__}: {err}\n{text!r}") from err
        else:
            parsed += 1
            if isinstance(result, tvm.IRModule):
                rx.analysis.well_formed(result)
            try:
                str(result)
            except error.TVMError as err:
                raise AssertionError(f"mutant {count} parsed but does not print: {err}") from err
        assert time.time() - start < 2, f"mutant {count} took {time.time() - start:.1f}s"
    assert refused > parsed > 0
