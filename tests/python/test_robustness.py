"""An adversarial sweep of the public Python API: bad input raises a minitvm error.

Every case is one line of a table: a call with bad input, the minitvm error class it must
raise and a piece of the message. A case that crashed the process, raised a raw Python
exception from inside minitvm or was silently accepted is a bug; the tables keep the fixes.
Objects passed in (arrays, schedules) must be unchanged after the error.
"""
import os
import re

import numpy as np
import pytest

import minitvm as tvm
from minitvm import error, lownumpy as lnp, te, tir, topi
from minitvm.script import from_source

HAS_LLVM = tvm.get_global_func("target.build.llvm", allow_missing=True) is not None
HAS_SCHEDULE = tvm.get_global_func("tir.schedule.Split", allow_missing=True) is not None


def _check(fn, cls, match):
    with pytest.raises(error.TVMError) as info:
        fn()
    assert isinstance(info.value, cls), f"{type(info.value).__name__}: {info.value}"
    assert re.search(match, str(info.value)), str(info.value)


f32 = lambda *s: np.ones(s, "float32")  # noqa: E731
i32 = lambda *s: np.ones(s, "int32")  # noqa: E731

# ---- minitvm.nd -------------------------------------------------------------------------

ND_CASES = [
    ("array object", lambda: tvm.nd.array(np.array([object(), 1])), error.TypeError, "dtype"),
    ("array str", lambda: tvm.nd.array(np.array(["a"])), error.TypeError, "dtype"),
    ("array complex", lambda: tvm.nd.array(np.ones(3, "complex64")), error.TypeError, "complex64"),
    ("array ragged", lambda: tvm.nd.array([[1, 2], [3]]), error.ValueError, "nd.array"),
    ("array None", lambda: tvm.nd.array(None), error.TypeError, "dtype"),
    ("array device str", lambda: tvm.nd.array(np.ones(2), device="cpu"), error.TypeError, ""),
    ("empty negative", lambda: tvm.nd.empty((-1,)), error.ValueError, "negative"),
    ("empty huge", lambda: tvm.nd.empty((2**40, 2**40)), error.ValueError, "elements"),
    ("empty float shape", lambda: tvm.nd.empty((2.5,)), error.TypeError, ""),
    ("empty str shape", lambda: tvm.nd.empty("abc"), error.TypeError, ""),
    ("empty None shape", lambda: tvm.nd.empty(None), error.TypeError, "shape"),
    ("empty bad dtype", lambda: tvm.nd.empty((2,), "float33"), error.ValueError, "float33"),
    ("empty dtype int", lambda: tvm.nd.empty((2,), 5), error.TypeError, "not a dtype"),
    ("empty dtype None", lambda: tvm.nd.empty((2,), None), error.TypeError, "None"),
    ("empty complex", lambda: tvm.nd.empty((2,), "complex64"), error.ValueError, "complex64"),
    ("empty cuda", lambda: tvm.nd.empty((2,), device=tvm.cuda(0)), error.RuntimeError, "cuda"),
    ("empty device 99", lambda: tvm.nd.empty((2,), device=tvm.device(99)), error.TVMError, ""),
    ("device negative id", lambda: tvm.cpu(-1), error.ValueError, "device_id"),
    ("device huge id", lambda: tvm.cpu(2**40), error.ValueError, "device_id"),
    ("device str id", lambda: tvm.cpu("a"), error.TypeError, "device_id"),
    ("device bad name", lambda: tvm.device("foo"), error.ValueError, "foo"),
    ("from_dlpack int", lambda: tvm.nd.from_dlpack(3), error.TypeError, "__dlpack__"),
    ("from_dlpack complex", lambda: tvm.nd.from_dlpack(np.ones(3, "complex64")), error.TVMError, ""),
    ("DataType bad", lambda: tvm.DataType("float33"), error.ValueError, "float33"),
]


@pytest.mark.parametrize("name,fn,cls,match", ND_CASES, ids=[c[0] for c in ND_CASES])
def test_nd_bad_input(name, fn, cls, match):
    _check(fn, cls, match)


COPYFROM_CASES = [
    ("shape", lambda: np.zeros((3, 2), "float32"), error.ValueError, "shape"),
    ("complex", lambda: np.zeros((2, 3), "complex64"), error.ValueError, ""),
    ("str", lambda: "abc", error.ValueError, ""),
    ("None", lambda: None, error.ValueError, ""),
    ("nd dtype", lambda: tvm.nd.array(np.zeros((2, 3), "float64")), error.ValueError, "float64"),
    ("nd shape", lambda: tvm.nd.array(np.zeros((3, 2), "float32")), error.ValueError, "shape"),
]


@pytest.mark.parametrize("name,src,cls,match", COPYFROM_CASES, ids=[c[0] for c in COPYFROM_CASES])
def test_copyfrom_refuses_and_leaves_the_array_unchanged(name, src, cls, match):
    a = tvm.nd.array(np.arange(6, dtype="float32").reshape(2, 3))
    _check(lambda: a.copyfrom(src()), cls, match)
    np.testing.assert_array_equal(a.numpy(), np.arange(6, dtype="float32").reshape(2, 3))


def test_nd_odd_but_valid_numpy_arrays_are_copied():
    ro = np.arange(4, dtype="float32")
    ro.flags.writeable = False
    for src in [np.float32(3), np.arange(6.0)[::-1], ro, np.arange(12.0).reshape(3, 4)[:, ::2],
                np.arange(3, dtype=">f4")]:
        np.testing.assert_array_equal(tvm.nd.array(src).numpy(), src)


def test_dlpack_capsule_used_twice():
    cap = tvm.nd.array(np.ones(3, "float32")).to_dlpack()
    tvm.nd.from_dlpack(cap)
    _check(lambda: tvm.nd.from_dlpack(cap), error.ValueError, "")


# ---- minitvm.lownumpy, against NumPy -------------------------------------------------------

# (name, numpy call, lownumpy call): where NumPy raises, lownumpy raises a minitvm error.
LNP_CASES = [
    ("add shapes", lambda m: m.add(f32(2, 3), f32(3, 2))),
    ("add ragged", lambda m: m.add([[1], [1, 2]], 1)),
    ("add None", lambda m: m.add(None, f32(2))),
    ("sum axis out of range", lambda m: m.sum(f32(2, 3), axis=2)),
    ("sum negative axis", lambda m: m.sum(f32(2, 3), axis=-3)),
    ("sum duplicate axes", lambda m: m.sum(f32(2, 3), axis=(1, -1))),
    ("sum float axis", lambda m: m.sum(f32(2, 3), axis=1.0)),
    ("sum str axis", lambda m: m.sum(f32(2, 3), axis="a")),
    ("sum huge axis", lambda m: m.sum(f32(2, 3), axis=2**40)),
    ("max of empty", lambda m: m.max(f32(0))),
    ("max of empty axis", lambda m: m.max(f32(0, 3), axis=0)),
    ("argmax of empty", lambda m: m.argmax(f32(0))),
    ("argmax tuple axis", lambda m: m.argmax(f32(2, 3), axis=(0, 1))),
    ("matmul shapes", lambda m: m.matmul(f32(2, 3), f32(2, 3))),
    ("matmul 1-d mismatch", lambda m: m.matmul(f32(2), f32(3))),
    ("matmul batch", lambda m: m.matmul(f32(2, 2, 3), f32(3, 3, 2))),
    ("reshape size", lambda m: m.reshape(f32(2, 3), (4, 2))),
    ("reshape two -1", lambda m: m.reshape(f32(2, 3), (-1, -1))),
    ("reshape float", lambda m: m.reshape(f32(2, 3), (2.5, 3))),
    ("reshape str", lambda m: m.reshape(f32(2, 3), "ab")),
    ("transpose repeated", lambda m: m.transpose(f32(2, 3), (0, 0))),
    ("concatenate nothing", lambda m: m.concatenate([])),
    ("concatenate shapes", lambda m: m.concatenate([f32(2, 3), f32(2, 4)])),
    ("concatenate ranks", lambda m: m.concatenate([f32(2, 3), f32(2)])),
    ("concatenate 0-d", lambda m: m.concatenate([np.array(1, "float32")] * 2)),
    ("split uneven", lambda m: m.split(f32(5), 2)),
    ("split zero", lambda m: m.split(f32(5), 0)),
    ("split axis", lambda m: m.split(f32(4), 2, axis=1)),
    ("squeeze non-1", lambda m: m.squeeze(f32(2, 3), axis=0)),
    ("expand_dims out of range", lambda m: m.expand_dims(f32(2), 3)),
    ("expand_dims repeated", lambda m: m.expand_dims(f32(2), (0, 0))),
    ("broadcast_to", lambda m: m.broadcast_to(f32(3), (2, 4))),
    ("broadcast_to negative", lambda m: m.broadcast_to(f32(3), (-1, 3))),
    ("take out of range", lambda m: m.take(f32(3), [5])),
    ("take float indices", lambda m: m.take(f32(3), np.array([1.5]))),
    ("take bad mode", lambda m: m.take(f32(3), [1], mode="foo")),
    ("take wrap of empty", lambda m: m.take(f32(0), [1], mode="wrap")),
    ("pad negative", lambda m: m.pad(f32(3), -1)),
    ("pad bad mode", lambda m: m.pad(f32(3), 1, mode="foo")),
    ("pad widths", lambda m: m.pad(f32(3), ((1, 1), (1, 1)))),
    ("pad edge of empty", lambda m: m.pad(f32(0), 1, mode="edge")),
    ("clip str bound", lambda m: m.clip(f32(3), "a", 1)),
    ("full negative", lambda m: m.full((-1,), 1.0)),
    ("full bad dtype", lambda m: m.full((2,), 1.0, "float33")),
    ("full str value", lambda m: m.full((2,), "a", "float32")),
    ("zeros int dtype", lambda m: m.zeros((2,), 5)),
    ("zeros huge", lambda m: m.zeros((2**40, 2**40))),
    ("arange step 0", lambda m: m.arange(0, 5, 0)),
    ("arange to nan", lambda m: m.arange(0, np.nan)),
    ("arange to inf", lambda m: m.arange(0, np.inf)),
    ("arange too long", lambda m: m.arange(0, 1e30)),
    ("reshape overflow beside a 0", lambda m: m.reshape(np.zeros(0, "float32"), (2**62, 2**62, 0))),
    ("reshape too many bytes beside a 0", lambda m: m.reshape(np.zeros(0, "float32"), (2**62, 0))),
]


class _NumpyFront:
    """NumPy under the names lownumpy uses."""

    def __getattr__(self, name):
        return {"transpose": np.transpose}.get(name) or getattr(np, name)


class _LnpFront:
    def __getattr__(self, name):
        return lnp.permute_dims if name == "transpose" else getattr(lnp, name)


@pytest.mark.parametrize("name,call", LNP_CASES, ids=[c[0] for c in LNP_CASES])
def test_lownumpy_raises_where_numpy_raises(name, call):
    with pytest.raises(Exception):  # noqa: B017  (NumPy's own class varies)
        call(_NumpyFront())
    with pytest.raises(error.TVMError):
        call(_LnpFront())


LNP_ONLY = [
    ("gelu approximate", lambda: lnp.gelu(f32(3), "foo")),
    ("linear shapes", lambda: lnp.linear(f32(2, 3), f32(4, 5))),
    ("conv2d rank", lambda: lnp.conv2d(f32(3, 8, 8), f32(4, 3, 3, 3))),
    ("conv2d channels", lambda: lnp.conv2d(f32(1, 2, 8, 8), f32(4, 3, 3, 3))),
    ("conv2d stride 0", lambda: lnp.conv2d(f32(1, 3, 8, 8), f32(4, 3, 3, 3), strides=0)),
    ("conv2d 3 paddings", lambda: lnp.conv2d(f32(1, 3, 8, 8), f32(4, 3, 3, 3), padding=(1, 1, 1))),
    ("conv2d groups 0", lambda: lnp.conv2d(f32(1, 3, 8, 8), f32(4, 3, 3, 3), groups=0)),
    ("conv2d float groups", lambda: lnp.conv2d(f32(1, 3, 8, 8), f32(4, 3, 3, 3), groups=1.5)),
    ("conv2d dtypes", lambda: lnp.conv2d(f32(1, 3, 8, 8), i32(4, 3, 3, 3))),
    ("conv2d_transpose output_padding", lambda: lnp.conv2d_transpose(f32(1, 3, 8, 8), f32(3, 4, 3, 3), output_padding=5)),
    ("max_pool2d window 0", lambda: lnp.max_pool2d(f32(1, 3, 8, 8), 0)),
    ("max_pool2d padding", lambda: lnp.max_pool2d(f32(1, 3, 8, 8), 2, padding=2)),
    ("avg_pool2d ints", lambda: lnp.avg_pool2d(i32(1, 3, 8, 8), 2)),
    ("adaptive_avg_pool2d 0", lambda: lnp.adaptive_avg_pool2d(f32(1, 3, 8, 8), 0)),
    ("batch_norm shapes", lambda: lnp.batch_norm(f32(1, 3, 4, 4), f32(2), f32(3), f32(3), f32(3))),
    ("layer_norm axes", lambda: lnp.layer_norm(f32(2, 3), None, None, axes=5)),
    ("softmax axis", lambda: lnp.softmax(f32(2, 3), axis=2)),
    ("softmax ints", lambda: lnp.softmax(i32(2, 3))),
    ("lstm_cell shapes", lambda: lnp.lstm_cell(f32(1, 3), f32(1, 4), f32(1, 4), f32(16, 3), f32(15, 4))),
    ("flatten order", lambda: lnp.flatten(f32(2, 3), 1, 0)),
    ("cast bad dtype", lambda: lnp.cast(f32(3), "float33")),
    ("random_uniform ints", lambda: lnp.random_uniform((2,), dtype="int32")),
]


@pytest.mark.parametrize("name,call", LNP_ONLY, ids=[c[0] for c in LNP_ONLY])
def test_lownumpy_bad_input(name, call):
    with pytest.raises(error.TVMError):
        call()


def test_lownumpy_nan_and_inf_follow_numpy():
    x = np.array([np.nan, -1.0, 0.0, np.inf], "float32")
    with np.errstate(all="ignore"):
        for op in ("log", "sqrt", "exp", "tanh"):
            np.testing.assert_allclose(getattr(lnp, op)(x).numpy(), getattr(np, op)(x), rtol=1e-6)


# ---- minitvm.te / minitvm.topi --------------------------------------------------------------

A = te.placeholder((4, 8), name="A")
B = te.placeholder((8,), name="B")
IDX = te.placeholder((4,), "int32", name="I")
K = te.reduce_axis((0, 8), name="k")


class _Callable:
    def __call__(self, i):
        return A[i, 0]


TE_CASES = [
    ("placeholder negative", lambda: te.placeholder((-1,)), error.ValueError, ""),
    ("placeholder dtype", lambda: te.placeholder((2,), "float33"), error.ValueError, "float33"),
    ("placeholder None shape", lambda: te.placeholder(None), error.TypeError, "shape"),
    ("compute arity", lambda: te.compute((4, 8), lambda i: A[i, 0]), error.ValueError, "rank 2"),
    ("compute not callable", lambda: te.compute((4,), 5), error.TypeError, "callable"),
    ("compute callable object arity", lambda: te.compute((4, 4), _Callable()), error.ValueError, "1 argument"),
    ("compute returns None", lambda: te.compute((4,), lambda i: None), error.ValueError, "undefined body"),
    ("compute returns str", lambda: te.compute((4,), lambda i: "x"), error.TVMError, ""),
    ("compute returns tensor", lambda: te.compute((4,), lambda i: A), error.TypeError, ""),
    ("compute index rank", lambda: te.compute((4,), lambda i: A[i]), error.TVMError, ""),
    ("compute negative extent", lambda: te.compute((-4,), lambda i: i), error.ValueError, ""),
    ("reduction not the body", lambda: te.compute((4,), lambda i: te.sum(A[i, K], axis=K) + 1.0), error.ValueError, ""),
    ("sum axis= a Var", lambda: te.compute((4,), lambda i: te.sum(A[i, 0], axis=i)), error.TypeError, "axis"),
    ("sum axis= a str", lambda: te.sum(A[0, 0], axis="k"), error.TypeError, "axis"),
    ("comm_reducer fcombine None", lambda: te.compute((4,), lambda i: te.comm_reducer(lambda x, y: None, lambda t: tir.const(0, t))(A[i, K], axis=K)), error.TypeError, "fcombine"),
    ("reduce_axis bad dom", lambda: te.reduce_axis((0,)), error.TypeError, "dom"),
    ("create_prim_func missing input", lambda: te.create_prim_func([te.compute((8,), lambda i: B[i] + 1.0)]), error.ValueError, ""),
    ("create_prim_func None", lambda: te.create_prim_func(None), error.TypeError, "list"),
    ("create_prim_func int", lambda: te.create_prim_func([A, 5]), error.TypeError, ""),
    ("topi add scalars", lambda: topi.add(1, 2), error.TypeError, "te.Tensor"),
    ("topi add shapes", lambda: topi.add(A, te.placeholder((3,))), error.ValueError, ""),
    ("topi sum axis", lambda: topi.sum(A, axis=5), error.TVMError, ""),
    ("topi argmax list", lambda: topi.argmax(A, axis=[0, 1]), error.TypeError, ""),
    ("topi reshape", lambda: topi.reshape(A, (3, 3)), error.ValueError, ""),
    ("topi transpose", lambda: topi.transpose(A, (0, 0)), error.ValueError, ""),
    ("topi concatenate", lambda: topi.concatenate([A, B]), error.ValueError, ""),
    ("topi split", lambda: topi.split(A, 3, axis=1), error.ValueError, ""),
    ("topi take mode", lambda: topi.take(A, IDX, axis=0, mode="foo"), error.ValueError, "foo"),
    ("topi strided_slice step 0", lambda: topi.strided_slice(A, [0, 0], [4, 8], [0, 1]), error.ValueError, ""),
    ("topi matmul", lambda: topi.matmul(A, A), error.ValueError, ""),
    ("topi conv2d channels", lambda: topi.nn.conv2d_nchw(te.placeholder((1, 3, 8, 8)), te.placeholder((4, 2, 3, 3)), 1, 0, 1), error.ValueError, ""),
    ("topi pool2d type", lambda: topi.nn.pool2d(te.placeholder((1, 3, 8, 8)), (2, 2), (2, 2), (1, 1), (0, 0, 0, 0), "foo"), error.ValueError, "foo"),
    ("topi pad int", lambda: topi.nn.pad(A, 1), error.TypeError, "pad_before"),
    ("topi pad negative", lambda: topi.nn.pad(A, (-1, 1), (1, 1)), error.ValueError, ""),
    ("topi leaky_relu alpha", lambda: topi.nn.leaky_relu(A, "x"), error.TypeError, "alpha"),
    ("compute float extent", lambda: te.compute((4.5,), lambda i: B[0]), error.ValueError, r"shape\[0\] is a float32"),
    ("reduce_axis float bound", lambda: te.reduce_axis((0, 2.5)), error.ValueError, "end must be an integer"),
    ("reduce_axis negative extent", lambda: te.reduce_axis((5, 2)), error.ValueError, "negative extent -3"),
    ("sum axis twice", lambda: te.compute((4,), lambda i: te.sum(A[i, K], axis=[K, K])), error.ValueError, "k is listed twice"),
    ("sum where float", lambda: te.compute((4,), lambda i: te.sum(A[i, K], axis=K, where=1.5)), error.ValueError, "where="),
    ("comm_reducer where int", lambda: te.compute((4,), lambda i: te.comm_reducer(lambda x, y: x + y, lambda t: tir.const(0, t))(A[i, K], axis=K, where=1)), error.ValueError, "bool"),
    ("topi expand_dims negative count", lambda: topi.expand_dims(A, 0, -1), error.ValueError, "num_newaxis"),
]


@pytest.mark.parametrize("name,fn,cls,match", TE_CASES, ids=[c[0] for c in TE_CASES])
def test_te_topi_bad_input(name, fn, cls, match):
    _check(fn, cls, match)


# ---- minitvm.tir nodes and ops --------------------------------------------------------------

X = tir.Var("x", "int32")
F = tir.Var("f", "float32")
TIR_CASES = [
    ("Var dtype", lambda: tir.Var("x", "float33"), error.ValueError, "float33"),
    ("IntImm out of range", lambda: tir.IntImm("int8", 300), error.ValueError, ""),
    ("IntImm int32 overflow", lambda: tir.IntImm("int32", 2**31), error.ValueError, ""),
    ("IntImm uint negative", lambda: tir.IntImm("uint8", -1), error.ValueError, ""),
    ("IntImm float dtype", lambda: tir.IntImm("float32", 1), error.TVMError, ""),
    ("IntImm str value", lambda: tir.IntImm("int32", "a"), error.TypeError, "integer"),
    ("IntImm fractional value", lambda: tir.IntImm("int32", 1.5), error.TypeError, "integer"),
    ("FloatImm int dtype", lambda: tir.FloatImm("int32", 1.5), error.TVMError, ""),
    ("FloatImm str value", lambda: tir.FloatImm("float32", "a"), error.TypeError, "number"),
    ("const str", lambda: tir.const("abc"), error.TypeError, ""),
    ("const out of range", lambda: tir.const(300, "int8"), error.ValueError, ""),
    ("floordiv by 0", lambda: X // 0, error.TVMError, "zero"),
    ("floormod by 0", lambda: X % 0, error.TVMError, "zero"),
    ("truncdiv by 0", lambda: tir.truncdiv(X, 0), error.TVMError, "zero"),
    ("Add mixed dtypes", lambda: tir.Add(X, F), error.TVMError, ""),
    ("add a str", lambda: X + "a", error.TypeError, ""),
    ("add None", lambda: X + None, error.ValueError, "undefined operand"),
    ("Cast bad dtype", lambda: tir.Cast("float33", X), error.ValueError, ""),
    ("Select float condition", lambda: tir.Select(F, X, X), error.TVMError, ""),
    ("Not of int", lambda: tir.Not(X), error.TVMError, ""),
    ("Ramp 0 lanes", lambda: tir.Ramp(X, 1, 0), error.ValueError, ""),
    ("Broadcast 0 lanes", lambda: tir.Broadcast(X, 0), error.ValueError, ""),
    ("Call args int", lambda: tir.Call("float32", "tir.exp", 5), error.TypeError, "args"),
    ("exp of str", lambda: tir.exp("x"), error.TypeError, ""),
    ("max_value bad dtype", lambda: tir.max_value("float33"), error.ValueError, ""),
    ("BufferLoad rank", lambda: tir.BufferLoad(tir.decl_buffer((4, 4)), [X]), error.TVMError, ""),
    ("bool of a Var", lambda: bool(X), error.TVMError, ""),
    ("IRModule of int", lambda: tvm.IRModule({"main": 5}), error.TypeError, ""),
    ("IRModule missing function", lambda: tvm.IRModule({})["main"], error.TVMError, "main"),
    ("Range float min", lambda: tvm.ir.Range(0.5, 4), error.ValueError, "min must be an integer"),
    ("Range float extent", lambda: tvm.ir.Range.from_min_extent(0, 2.5), error.ValueError, "extent must be an integer"),
    ("For float loop var", lambda: tir.For(F, 0, 4, tir.ForKind.SERIAL, tir.Evaluate(0)), error.ValueError, "loop variable must be an integer"),
    ("For float extent", lambda: tir.For(X, 0, 4.5, tir.ForKind.SERIAL, tir.Evaluate(0)), error.ValueError, "extent must be an integer"),
    ("For extent dtype", lambda: tir.For(X, 0, tir.Var("n", "int64"), tir.ForKind.SERIAL, tir.Evaluate(0)), error.ValueError, "extent has dtype int64"),
    ("For kind 99", lambda: tir.For(X, 0, 4, 99, tir.Evaluate(0)), error.ValueError, "not a ForKind"),
    ("IterVar kind 99", lambda: tir.IterVar((0, 4), X, 99), error.ValueError, "iter_type 99"),
    ("IterVar float var", lambda: tir.IterVar((0, 4), F, tir.IterVar.DataPar), error.ValueError, "integer"),
    ("Let value dtype", lambda: tir.Let(X, tir.const(1.5, "float32"), X), error.ValueError, "value has dtype float32"),
    ("LetStmt value dtype", lambda: tir.LetStmt(X, tir.const(1.5, "float32"), tir.Evaluate(0)), error.ValueError, "value has dtype float32"),
    ("SeqStmt of an expression", lambda: tir.SeqStmt([tir.Evaluate(0), X + 1]), error.TypeError, r"seq\[1\] is tir.Add.*Evaluate"),
    ("SeqStmt of None", lambda: tir.SeqStmt([None]), error.TypeError, "None"),
    ("decl_buffer negative", lambda: tir.decl_buffer((-1,)), error.ValueError, "negative"),
    ("FloatImm float16 overflow", lambda: tir.FloatImm("float16", 1e10), error.ValueError, "does not fit float16"),
    ("FloatImm float32 overflow", lambda: tir.FloatImm("float32", 1e39), error.ValueError, "does not fit float32"),
    ("const float16 overflow", lambda: tir.const(70000.0, "float16"), error.ValueError, "does not fit float16"),
    ("Call outside tir", lambda: tir.Call("float32", "no.such.op", [F]), error.ValueError, "no.such.op"),
    ("Call bare name", lambda: tir.Call("float32", "exp", [F]), error.ValueError, "tir.call_extern"),
]


@pytest.mark.parametrize("name,fn,cls,match", TIR_CASES, ids=[c[0] for c in TIR_CASES])
def test_tir_bad_input(name, fn, cls, match):
    _check(fn, cls, match)


# ---- minitvm.tir.Schedule -------------------------------------------------------------------


def _mm_relu():
    a = te.placeholder((16, 16), name="A")
    b = te.placeholder((16, 16), name="B")
    k = te.reduce_axis((0, 16), name="k")
    y = te.compute((16, 16), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="Y")
    c = te.compute((16, 16), lambda i, j: te.max(y[i, j], tir.const(0.0)), name="C")
    return tvm.IRModule({"main": te.create_prim_func([a, b, c])})


class _Handles:
    """A schedule of mm_relu, its handles, a stale loop and handles of another schedule."""

    def __init__(self, mod, other):
        self.sch = tir.Schedule(mod)
        self.Y, self.C = self.sch.get_block("Y"), self.sch.get_block("C")
        self.i, self.j, self.k = self.sch.get_loops(self.Y)
        ci, cj = self.sch.get_loops(self.C)
        self.sch.split(cj, [4, 4])
        self.stale_loop = cj
        self.ci = ci
        self.other_block = other.get_block("Y")
        self.other_loop = other.get_loops(self.other_block)[0]


BAD_LOOPS = {
    "stale loop": (lambda h: h.stale_loop, error.ValueError, "no longer exists"),
    "loop of another schedule": (lambda h: h.other_loop, error.ValueError, "does not belong"),
    "a block": (lambda h: h.Y, error.TypeError, "expected a loop"),
    "None": (lambda h: None, error.TypeError, "None"),
    "a str": (lambda h: "i", error.TypeError, "String"),
    "a Var": (lambda h: tir.Var("v", "int32"), error.TypeError, "tir.Var"),
    "an int": (lambda h: 3, error.TypeError, ""),
}
BAD_BLOCKS = {
    "block of another schedule": (lambda h: h.other_block, error.ValueError, "does not belong"),
    "a loop": (lambda h: h.i, error.TypeError, "expected a block"),
    "None": (lambda h: None, error.TypeError, "None"),
    "a Var": (lambda h: tir.Var("v", "int32"), error.TypeError, "Var"),
    "an int": (lambda h: 3, error.TypeError, ""),
}
LOOP_PRIMITIVES = {
    "split": lambda h, x: h.sch.split(x, [4, None]),
    "fuse": lambda h, x: h.sch.fuse(h.i, x),
    "reorder": lambda h, x: h.sch.reorder(h.i, x),
    "parallel": lambda h, x: h.sch.parallel(x),
    "vectorize": lambda h, x: h.sch.vectorize(x),
    "unroll": lambda h, x: h.sch.unroll(x),
    "bind": lambda h, x: h.sch.bind(x, "threadIdx.x"),
    "rfactor": lambda h, x: h.sch.rfactor(x, 0),
    "blockize": lambda h, x: h.sch.blockize(x),
    "compute_at": lambda h, x: h.sch.compute_at(h.Y, x),
    "reverse_compute_at": lambda h, x: h.sch.reverse_compute_at(h.C, x),
    "decompose_reduction": lambda h, x: h.sch.decompose_reduction(h.Y, x),
    "get": lambda h, x: h.sch.get(x),
}
BLOCK_PRIMITIVES = {
    "get_loops": lambda h, x: h.sch.get_loops(x),
    "get_producers": lambda h, x: h.sch.get_producers(x),
    "compute_inline": lambda h, x: h.sch.compute_inline(x),
    "reverse_compute_inline": lambda h, x: h.sch.reverse_compute_inline(x),
    "cache_read": lambda h, x: h.sch.cache_read(x, 0, "global"),
    "cache_write": lambda h, x: h.sch.cache_write(x, 0, "global"),
    "set_scope": lambda h, x: h.sch.set_scope(x, 0, "shared"),
    "storage_align": lambda h, x: h.sch.storage_align(x, 0, 0, 4, 0),
    "transform_layout": lambda h, x: h.sch.transform_layout(x, ("write", 0), lambda i, j: (j, i)),
    "compute_at": lambda h, x: h.sch.compute_at(x, h.ci),
}
SCHEDULE_CASES = (
    [(f"{p}[{b}]", lambda h, p=p, b=b: LOOP_PRIMITIVES[p](h, BAD_LOOPS[b][0](h)),
      BAD_LOOPS[b][1], BAD_LOOPS[b][2])
     for p in LOOP_PRIMITIVES for b in BAD_LOOPS
     if not (p == "get" and b in ("a block", "an int"))]
    + [(f"{p}[{b}]", lambda h, p=p, b=b: BLOCK_PRIMITIVES[p](h, BAD_BLOCKS[b][0](h)),
        BAD_BLOCKS[b][1], BAD_BLOCKS[b][2])
       for p in BLOCK_PRIMITIVES for b in BAD_BLOCKS if not (p == "get" and b == "a loop")]
    + [
        ("get_block missing", lambda h: h.sch.get_block("nope"), error.TVMError, "nope"),
        ("split factors not a list", lambda h: h.sch.split(h.i, 4), error.TypeError, "factors"),
        ("split factors mismatch", lambda h: h.sch.split(h.i, [3, 3]), error.ScheduleError, ""),
        ("split two None", lambda h: h.sch.split(h.i, [None, None]), error.TVMError, ""),
        ("split zero", lambda h: h.sch.split(h.i, [0, None]), error.TVMError, ""),
        ("split float", lambda h: h.sch.split(h.i, [4.0, None]), error.TypeError, ""),
        ("fuse not a chain", lambda h: h.sch.fuse(h.i, h.ci), error.ScheduleError, ""),
        ("reorder repeated", lambda h: h.sch.reorder(h.i, h.i), error.ScheduleError, ""),
        ("bind bad thread", lambda h: h.sch.bind(h.i, "fooIdx.x"), error.TVMError, "fooIdx"),
        ("vectorize reduction", lambda h: h.sch.vectorize(h.k), error.ScheduleError, ""),
        ("cache_read index", lambda h: h.sch.cache_read(h.Y, 5, "global"), error.TVMError, ""),
        ("cache_read negative", lambda h: h.sch.cache_read(h.Y, -1, "global"), error.TVMError, ""),
        ("cache_read unknown buffer name", lambda h: h.sch.cache_read(h.Y, "a", "global"), error.ValueError, "read_buffer_index: .*does not read a buffer 'a'"),
        ("cache_read float index", lambda h: h.sch.cache_read(h.Y, 0.5, "global"), error.TypeError, "read_buffer_index"),
        ("cache_read scope", lambda h: h.sch.cache_read(h.Y, 0, "nope"), error.TVMError, "nope"),
        ("cache_write index", lambda h: h.sch.cache_write(h.Y, 3, "global"), error.TVMError, ""),
        ("set_scope bad scope", lambda h: h.sch.set_scope(h.Y, 0, "nope"), error.TVMError, ""),
        ("storage_align axis", lambda h: h.sch.storage_align(h.Y, 0, 5, 4, 0), error.TVMError, ""),
        ("storage_align factor 0", lambda h: h.sch.storage_align(h.Y, 0, 0, 0, 0), error.TVMError, ""),
        ("transform_layout kind", lambda h: h.sch.transform_layout(h.Y, ("foo", 0), lambda i, j: (j, i)), error.ValueError, "read"),
        ("transform_layout short tuple", lambda h: h.sch.transform_layout(h.Y, ("write",), lambda i, j: (j, i)), error.ValueError, "read"),
        ("transform_layout index", lambda h: h.sch.transform_layout(h.Y, ("read", 9), lambda i, j: (j, i)), error.IndexError, "out of range"),
        ("transform_layout int buffer", lambda h: h.sch.transform_layout(h.Y, 5, lambda i, j: (j, i)), error.TypeError, "buffer"),
        ("transform_layout unknown buffer", lambda h: h.sch.transform_layout(h.Y, "nope", lambda i, j: (j, i)), error.ValueError, "nope"),
        ("transform_layout arity", lambda h: h.sch.transform_layout(h.Y, ("write", 0), lambda i: (i,)), error.TVMError, ""),
        ("transform_layout not injective", lambda h: h.sch.transform_layout(h.Y, ("write", 0), lambda i, j: (i, i)), error.ScheduleError, r"NotInjectiveIndexMapError: .*\(0, 0\) and \(0, 1\)"),
        ("compute_at index", lambda h: h.sch.compute_at(h.Y, h.ci, index=7), error.ScheduleError, r"InsertionPositionError: index 7 .*-1 \(the last valid position\), -2 \(the first\)"),
        ("reverse_compute_at index", lambda h: h.sch.reverse_compute_at(h.C, h.i, index=-99), error.ScheduleError, r"InsertionPositionError: index -99 .*an index in \["),
        ("rfactor spatial loop", lambda h: h.sch.rfactor(h.i, 0), error.ScheduleError, ""),
        ("compute_inline reduction", lambda h: h.sch.compute_inline(h.Y), error.ScheduleError, ""),
        ("decompose spatial", lambda h: h.sch.decompose_reduction(h.C, h.ci), error.TVMError, ""),
        ("tensorize unknown", lambda h: h.sch.tensorize(h.i, "nope"), error.ValueError, "nope"),
        ("Schedule of int", lambda h: tir.Schedule(5), error.TypeError, ""),
        ("Schedule debug_mask", lambda h: tir.Schedule(h.sch.mod, debug_mask=[1]), error.TypeError, "debug_mask"),
        ("show_steps seed", lambda h: h.sch.show_steps(seed="a", print_output=False), error.TypeError, "seed"),
    ]
)


@pytest.fixture(scope="module")
def mm_relu():
    return _mm_relu()


@pytest.mark.skipif(not HAS_SCHEDULE, reason="minitvm was built without stage 3")
@pytest.mark.parametrize("name,fn,cls,match", SCHEDULE_CASES, ids=[c[0] for c in SCHEDULE_CASES])
def test_schedule_errors_leave_the_schedule_unchanged(mm_relu, name, fn, cls, match):
    h = _Handles(mm_relu, tir.Schedule(mm_relu))
    before, trace = h.sch.mod.script(), str(h.sch.trace)
    _check(lambda: fn(h), cls, match)
    assert h.sch.mod.script() == before
    assert str(h.sch.trace) == trace


# ---- minitvm.script -------------------------------------------------------------------------

_HDR = '@T.prim_func\ndef main(A: T.Buffer((8,), "float32")):\n'
BROKEN_SCRIPTS = [
    ("garbage", "%%%"),
    ("unclosed paren", _HDR + "    A[0] = (1.0\n"),
    ("bad indentation", _HDR + "  for i in range(8):\n      A[i] = 1.0\n    A[0] = 2.0\n"),
    ("unknown T name", _HDR + "    A[0] = T.nonexistent(1.0)\n"),
    ("undefined variable", _HDR + "    A[0] = B[0]\n"),
    ("unknown dtype", '@T.prim_func\ndef main(A: T.Buffer((8,), "float33")):\n    A[0] = 1.0\n'),
    ("str shape", '@T.prim_func\ndef main(A: T.Buffer(("x",), "float32")):\n    A[0] = 1.0\n'),
    ("store rank", _HDR + "    A[0, 0] = 1.0\n"),
    ("store a str", _HDR + '    A[0] = "s"\n'),
    ("remap kind", _HDR + '    for i in range(8):\n        with T.block("B"):\n            vi = T.axis.remap("X", [i])\n            A[vi] = 1.0\n'),
    ("range of 4", _HDR + "    for i in range(1, 2, 3, 4):\n        A[i] = 1.0\n"),
    ("lambda", _HDR + "    A[0] = (lambda x: x)(1.0)\n"),
    ("duplicate function", "@I.ir_module\nclass M:\n    @T.prim_func\n    def f():\n        T.evaluate(0)\n    @T.prim_func\n    def f():\n        T.evaluate(0)\n"),
    ("return", _HDR + "    return 1\n"),
    ("huge literal", _HDR + "    A[99999999999999999999] = 1.0\n"),
    ("unterminated string", _HDR + '    T.func_attr({"a: 1})\n'),
    ("deep brackets", _HDR + "    A[0] = " + "(" * 5000 + "1.0" + ")" * 5000 + "\n"),
    ("deep unary", _HDR + "    A[0] = " + "-" * 100000 + "1.0\n"),
    ("empty", ""),
    ("no decorator", "def main():\n    pass\n"),
    ("class without decorator", "class M:\n    pass\n"),
    ("function in a module without decorator", "@I.ir_module\nclass M:\n    def f():\n        T.evaluate(0)\n"),
]


@pytest.mark.parametrize("name,text", BROKEN_SCRIPTS, ids=[c[0] for c in BROKEN_SCRIPTS])
def test_broken_scripts_give_a_parse_error_with_line_and_column(name, text):
    with pytest.raises(error.ParseError) as info:
        from_source(text)
    assert re.search(r":\d+:\d+", str(info.value)), str(info.value)


SCRIPT_API_CASES = [
    ("from_source bytes", lambda: from_source(b"x"), error.TypeError, "str"),
    ("from_source line_offset", lambda: from_source(_HDR + "    A[0] = 1.0\n", line_offset="a"), error.TypeError, "line_offset"),
    ("from_source file_name", lambda: from_source(_HDR + "    A[0] = 1.0\n", file_name=5), error.TypeError, "file_name"),
    ("prim_func of int", lambda: tvm.script.tir.prim_func(5), error.TypeError, "function"),
    ("prim_func of builtin", lambda: tvm.script.tir.prim_func(len), OSError, "source"),
    ("ir_module of a function", lambda: tvm.script.ir.ir_module(len), error.TypeError, "class"),
]


@pytest.mark.parametrize("name,fn,cls,match", SCRIPT_API_CASES, ids=[c[0] for c in SCRIPT_API_CASES])
def test_script_api_bad_input(name, fn, cls, match):
    _check(fn, cls, match)


# ---- build, calling built functions, export and load ---------------------------------------

_TA = te.placeholder((8,), name="A")
_FUNC = te.create_prim_func([_TA, te.compute((8,), lambda i: _TA[i] + 1.0, name="B")])

BUILD_CASES = [
    ("unknown target", lambda: tvm.build(_FUNC, target="nope"), error.ValueError, "nope"),
    ("target int", lambda: tvm.build(_FUNC, target=5), error.TypeError, "int"),
    ("empty target", lambda: tvm.build(_FUNC, target=""), error.ValueError, "empty"),
    ("unknown target option", lambda: tvm.build(_FUNC, target="llvm -foo"), error.ValueError, "-foo"),
    ("dict of targets", lambda: tvm.build(_FUNC, target={"llvm": "llvm"}), error.ValueError, "dict"),
    ("build None", lambda: tvm.build(None, target="ref"), error.TypeError, "NoneType"),
    ("build a Var", lambda: tvm.build(tir.Var("x"), target="ref"), error.TypeError, "Var"),
    ("compile int", lambda: tvm.compile(5, target="ref"), error.TypeError, "int"),
    ("driver.build name", lambda: tvm.driver.build(_FUNC, target="ref", name=5), error.TypeError, ""),
]
if HAS_LLVM:
    BUILD_CASES += [
        ("unknown -mcpu", lambda: tvm.build(_FUNC, target="llvm -mcpu=nonexistentcpu"), error.ValueError, "nonexistentcpu"),
        ("unknown -mattr", lambda: tvm.build(_FUNC, target="llvm -mattr=+nofeature"), error.ValueError, "nofeature"),
        ("bad -opt-level", lambda: tvm.build(_FUNC, target="llvm -opt-level=x"), error.ValueError, "opt-level"),
    ]


@pytest.mark.parametrize("name,fn,cls,match", BUILD_CASES, ids=[c[0] for c in BUILD_CASES])
def test_build_bad_input(name, fn, cls, match):
    _check(fn, cls, match)


_a = lambda: tvm.nd.array(np.ones(8, "float32"))  # noqa: E731
_b = lambda: tvm.nd.empty((8,), "float32")  # noqa: E731
CALL_CASES = [
    ("no arguments", lambda m: m(), error.TypeError, "2 arguments"),
    ("one argument", lambda m: m(_a()), error.TypeError, "2 arguments"),
    ("three arguments", lambda m: m(_a(), _b(), _b()), error.TypeError, "2 arguments"),
    ("int", lambda m: m(1, _b()), error.TypeError, "NDArray"),
    ("None", lambda m: m(None, _b()), error.TypeError, "NDArray"),
    ("shape", lambda m: m(tvm.nd.array(np.ones(4, "float32")), _b()), error.ValueError, "8"),
    ("rank", lambda m: m(tvm.nd.array(np.ones((8, 1), "float32")), _b()), error.ValueError, ""),
    ("dtype", lambda m: m(tvm.nd.array(np.ones(8, "float64")), _b()), error.TVMError, "float64"),
    ("non-contiguous", lambda m: m(tvm.nd.from_dlpack(np.ones(16, "float32")[::2]), _b()), error.ValueError, "compact"),
    ("cuda array", lambda m: m(tvm.nd.empty((8,), "float32", tvm.cuda(0)), _b()), error.RuntimeError, "cuda"),
    ("missing function", lambda m: m["nope"], error.AttributeError, "nope"),
    ("function by int", lambda m: m[0], error.TypeError, "str"),
    ("source format", lambda m: m.get_source("nope"), error.ValueError, "nope"),
    ("import itself", lambda m: m.import_module(m), error.ValueError, "cycle"),
    ("export to a missing dir", lambda m: m.export_library("/nonexistent/dir/x.so"), error.ValueError, ""),
    ("export to an int", lambda m: m.export_library(5), error.TypeError, "path"),
    ("time_evaluator number 0", lambda m: m.time_evaluator(m.entry_name, tvm.cpu(), number=0)(_a(), _b()), error.ValueError, "number"),
    ("one argument: was", lambda m: m(_a()), error.TypeError, "but 1 was given"),
    ("no arguments: were", lambda m: m(), error.TypeError, "but 0 were given"),
]
TARGETS = ["ref"] + (["llvm"] if HAS_LLVM else [])


@pytest.fixture(scope="module", params=TARGETS)
def built(request):
    return tvm.build(_FUNC, target=request.param)


@pytest.mark.parametrize("name,fn,cls,match", CALL_CASES, ids=[c[0] for c in CALL_CASES])
def test_calling_built_functions_with_bad_arguments(built, name, fn, cls, match):
    _check(lambda: fn(built), cls, match)


def test_import_cycles_are_refused():
    a, b = tvm.build(_FUNC, target="ref"), tvm.build(_FUNC, target="ref")
    a.import_module(b)
    _check(lambda: b.import_module(a), error.ValueError, "cycle")
    assert not b.implements_function("nope", True)


@pytest.mark.parametrize("name,content,cls,match", [
    ("missing", None, error.ValueError, "no such file"),
    ("empty", b"", error.ValueError, "truncated"),
    ("junk ELF", b"\x7fELF" + bytes(range(200)), error.ValueError, ""),
    ("text", b"hello", error.ValueError, ""),
    ("directory", "dir", error.ValueError, "directory"),
])
def test_load_module_bad_files(tmp_path, name, content, cls, match):
    if tvm.get_global_func("runtime.ModuleLoadFromFile", allow_missing=True) is None:
        pytest.skip("no module loader in this build")
    path = tmp_path / "m.so"
    if content == "dir":
        path = tmp_path
    elif content is not None:
        path.write_bytes(content)
    _check(lambda: tvm.runtime.load_module(str(path)), cls, match)


def test_load_module_bad_path_types():
    _check(lambda: tvm.runtime.load_module(5), error.TypeError, "path")
    _check(lambda: tvm.runtime.load_module(None), error.TypeError, "path")


# ---- minitvm.transform ------------------------------------------------------------------------

PT = tvm.transform


class _RaisesBefore(PT.PassInstrument):
    def run_before_pass(self, mod, info):
        raise KeyError("boom")


class _RaisesOnEnter(PT.PassInstrument):
    def enter_pass_ctx(self):
        raise ValueError("boom-enter")


class _ShouldRunStr(PT.PassInstrument):
    def should_run(self, mod, info):
        return "yes"


def _run_with(instrument):
    with PT.PassContext(instruments=[instrument]):
        PT.module_pass(lambda m, ctx: m, opt_level=0, name="Identity")(tvm.IRModule({"main": _FUNC}))


def _exit_not_current():
    outer, inner = PT.PassContext(), PT.PassContext()
    with outer:
        with inner:
            outer.__exit__(None, None, None)


TRANSFORM_CASES = [
    ("opt_level str", lambda: PT.PassContext(opt_level="a"), error.TypeError, "opt_level"),
    ("opt_level float", lambda: PT.PassContext(opt_level=2.5), error.TypeError, "opt_level"),
    ("opt_level None", lambda: PT.PassContext(opt_level=None), error.TypeError, "opt_level"),
    ("opt_level negative", lambda: PT.PassContext(opt_level=-1), error.ValueError, "opt_level"),
    ("required_pass int", lambda: PT.PassContext(required_pass=[5]), error.TypeError, ""),
    ("required_pass dict", lambda: PT.PassContext(required_pass={1: 2}), error.TypeError, "required_pass"),
    ("instrument int", lambda: PT.PassContext(instruments=[5]), error.TypeError, "PassInstrument"),
    ("exit a context that is not current", _exit_not_current, error.RuntimeError, "not the current"),
    ("exit a context never entered", lambda: PT.PassContext().__exit__(None, None, None), error.RuntimeError, "not the current"),
    ("instrument raises KeyError", lambda: _run_with(_RaisesBefore()), error.KeyError, "boom"),
    ("instrument raises on enter", lambda: _run_with(_RaisesOnEnter()), error.ValueError, "boom-enter"),
    ("should_run returns str", lambda: _run_with(_ShouldRunStr()), error.TypeError, "bool"),
    ("pass on int", lambda: tvm.tir.transform.FlattenBuffer()(5), error.TypeError, "IRModule"),
    ("pass on None", lambda: tvm.tir.transform.FlattenBuffer()(None), error.TypeError, "None"),
    ("module_pass returns int", lambda: PT.module_pass(lambda m, ctx: 5)(tvm.IRModule({})), error.TypeError, "IRModule"),
    ("Sequential of int", lambda: PT.Sequential([5]), error.TypeError, "Pass"),
    ("Sequential of None", lambda: PT.Sequential([None]), error.TypeError, "None"),
    ("PassInfo opt_level", lambda: PT.PassInfo("a", "x"), error.TypeError, "opt_level"),
    ("unknown config key", lambda: PT.PassContext(config={"unknown.key": 1}), error.ValueError, r"unknown\.key.*tir\.disable_vectorize \(bool\)"),
    ("config value type", lambda: PT.PassContext(config={"tir.disable_vectorize": "yes"}), error.TypeError, "bool"),
    ("config not a dict", lambda: PT.PassContext(config=[("a", 1)]), error.TypeError, "dict"),
    ("config key type", lambda: PT.PassContext(config={1: 1}), error.TypeError, "str"),
    ("register_config_option type", lambda: PT.register_config_option("demo.x", list), error.ValueError, "list"),
    ("pass out of order", lambda: tvm.tir.transform.FlattenBuffer()(tvm.IRModule({"main": _FUNC})), error.ValueError, "run LowerOpaqueBlock"),
]


@pytest.mark.parametrize("name,fn,cls,match", TRANSFORM_CASES, ids=[c[0] for c in TRANSFORM_CASES])
def test_transform_misuse(name, fn, cls, match):
    _check(fn, cls, match)
    # Whatever failed, no context is left entered.
    assert PT.PassContext.current().opt_level == PT.PassContext().opt_level


def test_required_pass_is_one_name_not_letters():
    ctx = PT.PassContext(required_pass="tir.FlattenBuffer")
    assert list(ctx.required_pass) == ["tir.FlattenBuffer"]


def test_unknown_required_pass_is_named():
    identity = PT.module_pass(lambda m, ctx: m, name="Identity", required=["NoSuchPass"])
    _check(lambda: PT.Sequential([identity])(tvm.IRModule({"main": _FUNC})), error.ValueError,
           "Identity requires the pass NoSuchPass")


def test_env_is_clean():
    assert os.environ.get("MINITVM_BUILD_DIR") is not None
