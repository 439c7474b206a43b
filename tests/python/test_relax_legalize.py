"""Tests of ``relax.transform.LegalizeOps`` (stage 4).

Property: for every Relax operator, a one-op module run by the reference interpreter
(lownumpy) and the legalized module (``R.call_tir`` through the TIR interpreter) give the same
result on seeded random inputs. Also: symbolic shapes stay symbolic, an operator without a
legalization is reported by name, a custom legalization wins, and the printed module shows
``R.call_tir``.
"""
import numpy as np
import pytest

import minitvm as tvm
from minitvm import relax
from minitvm.script import relax as R, ir as I

RNG = np.random.default_rng(20251125)


def _arr(shape, dtype="float32", low=-2.0, high=2.0):
    if dtype == "bool":
        return RNG.uniform(-1, 1, size=shape) > 0
    if dtype.startswith("int"):
        return RNG.integers(int(low), int(high) + 1, size=shape).astype(dtype)
    return RNG.uniform(low, high, size=shape).astype(dtype)


def _module(make, *sinfos):
    bb = relax.BlockBuilder()
    params = [relax.Var(f"x{i}", relax.TensorStructInfo(s, d)) for i, (s, d) in enumerate(sinfos)]
    with bb.function("main", params):
        with bb.dataflow():
            out = bb.emit_output(make(*params))
        bb.emit_func_output(out)
    return bb.get()


def _np(value):
    if isinstance(value, (tuple, list)):
        return [_np(v) for v in value]
    return value.numpy()


def _check(make, inputs):
    mod = _module(make, *[(a.shape, str(a.dtype)) for a in inputs])
    after = relax.transform.LegalizeOps()(mod)
    text = after.script()
    assert "R.call_tir" in text
    assert relax.analysis.well_formed(after)
    args = [tvm.nd.array(a) for a in inputs]
    want = _np(relax.interpret(mod, "main", *args))
    got = _np(relax.interpret(after, "main", *args))
    if isinstance(want, list):
        for w, g in zip(want, got):
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)
    else:
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


BINARY = ["add", "subtract", "multiply", "divide", "floor_divide", "maximum", "minimum",
          "equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_binary(name, dtype):
    fn = getattr(relax.op, name)
    div = "divide" in name
    b = _arr((3, 1), dtype, 1 if div else -5, 5)
    if div and dtype == "int32":
        b = b * np.where(RNG.uniform(size=b.shape) > 0.5, 1, -1).astype("int32")
    _check(lambda x, y: fn(x, y), [_arr((2, 3, 4), dtype, -20, 20), b])


@pytest.mark.parametrize("name,low,high", [
    ("exp", -2, 2), ("log", 0.1, 3), ("sqrt", 0.1, 3), ("rsqrt", 0.1, 3), ("tanh", -2, 2),
    ("sigmoid", -3, 3), ("erf", -2, 2), ("negative", -2, 2), ("abs", -2, 2)])
def test_unary(name, low, high):
    fn = getattr(relax.op, name)
    _check(lambda x: fn(x), [_arr((2, 3), "float32", low, high)])


@pytest.mark.parametrize("name", ["relu", "gelu", "silu"])
def test_activation(name):
    fn = getattr(relax.op.nn, name)
    _check(lambda x: fn(x), [_arr((4, 5))])


def test_where_astype_power():
    _check(lambda c, x, y: relax.op.where(c, x, y), [_arr((2, 3), "bool"), _arr((2, 3)), _arr((3,))])
    _check(lambda x: relax.op.astype(x, "int32"), [_arr((2, 3), "float32", -5, 5)])
    _check(lambda x, y: relax.op.power(x, y), [_arr((2, 3), "float32", 0.5, 2), _arr((3,))])


@pytest.mark.parametrize("shapes", [((3, 4), (4, 5)), ((2, 1, 3, 4), (5, 4, 2)), ((4,), (4, 3))])
def test_matmul(shapes):
    _check(lambda x, y: relax.op.matmul(x, y), [_arr(shapes[0]), _arr(shapes[1])])


def test_manipulation():
    x = _arr((2, 3, 4))
    _check(lambda a: relax.op.permute_dims(a, [2, 0, 1]), [x])
    _check(lambda a: relax.op.reshape(a, (4, -1)), [x])
    _check(lambda a: relax.op.flatten(a), [x])
    _check(lambda a: relax.op.expand_dims(a, [0, 4]), [x])
    _check(lambda a: relax.op.squeeze(a), [_arr((1, 3, 1))])
    _check(lambda a: relax.op.broadcast_to(a, (2, 3, 4)), [_arr((3, 1))])
    _check(lambda a, b: relax.op.concat([a, b], axis=1), [_arr((2, 3)), _arr((2, 2))])
    _check(lambda a: relax.op.split(a, 3, axis=1), [_arr((2, 6))])
    _check(lambda a: relax.op.split(a, [1, 3], axis=0), [_arr((5, 2))])
    _check(lambda a: relax.op.strided_slice(a, [0, 2], [1, -1], [4, 0], [2, -2]), [_arr((4, 5, 6))])
    _check(lambda a, i: relax.op.take(a, i, axis=0), [_arr((5, 3)), _arr((4,), "int64", 0, 4)])


@pytest.mark.parametrize("name", ["sum", "mean", "max", "min"])
@pytest.mark.parametrize("axis,keepdims", [(None, False), ([1], False), ([0, 2], True)])
def test_reductions(name, axis, keepdims):
    fn = getattr(relax.op, name)
    _check(lambda a: fn(a, axis=axis, keepdims=keepdims), [_arr((2, 3, 4))])


def test_arg_reductions_and_creation():
    _check(lambda a: relax.op.argmax(a, axis=1), [_arr((3, 4))])
    _check(lambda a: relax.op.argmin(a), [_arr((3, 4))])
    _check(lambda a: relax.op.add(a, relax.op.zeros((2, 3), "float32")), [_arr((2, 3))])
    _check(lambda a: relax.op.add(a, relax.op.ones((2, 3), "float32")), [_arr((2, 3))])
    _check(lambda v: relax.op.full((2, 3), v), [_arr(())])


def test_nn():
    _check(lambda a: relax.op.nn.softmax(a), [_arr((2, 5))])
    _check(lambda a: relax.op.nn.log_softmax(a, axis=0), [_arr((3, 5))])
    _check(lambda x, w: relax.op.nn.conv2d(x, w, strides=2, padding=1, groups=2),
           [_arr((2, 4, 7, 7)), _arr((6, 2, 3, 3))])
    _check(lambda x: relax.op.nn.max_pool2d(x, pool_size=3, strides=2, padding=1),
           [_arr((1, 2, 7, 7))])
    _check(lambda x: relax.op.nn.avg_pool2d(x, pool_size=2, strides=2), [_arr((1, 2, 6, 6))])
    _check(lambda x: relax.op.nn.adaptive_avg_pool2d(x, (1, 1)), [_arr((2, 3, 4, 4))])
    bn = [_arr((2, 3, 4, 4)), _arr((3,)), _arr((3,)), _arr((3,)), _arr((3,), "float32", 0.5, 2)]
    _check(lambda *a: relax.op.nn.batch_norm(*a, axis=1, training=False), bn)
    _check(lambda *a: relax.op.nn.batch_norm(*a, axis=1), bn)
    _check(lambda x, g, b: relax.op.nn.layer_norm(x, g, b, axes=[-1]),
           [_arr((2, 3, 4)), _arr((4,)), _arr((4,))])
    _check(lambda x: relax.op.nn.dropout(x), [_arr((2, 3))])


def test_symbolic_shape_stays_symbolic():
    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor(("n", 4), "float32"), w: R.Tensor((4, 3), "float32")):
            with R.dataflow():
                lv = R.matmul(x, w)
                gv = R.nn.relu(lv)
                R.output(gv)
            return gv

    after = relax.transform.LegalizeOps()(Module)
    text = after.script()
    assert "R.call_tir" in text and "R.matmul" not in text
    assert 'R.Tensor((n, 3), dtype="float32")' in text
    for rows in (1, 5):
        x, w = _arr((rows, 4)), _arr((4, 3))
        want = relax.interpret(Module, "main", tvm.nd.array(x), tvm.nd.array(w)).numpy()
        got = relax.interpret(after, "main", tvm.nd.array(x), tvm.nd.array(w)).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(got, np.maximum(x @ w, 0), rtol=1e-5, atol=1e-5)


def test_custom_legalization_wins():
    from minitvm import te, topi  # pylint: disable=import-outside-toplevel

    def my_add(bb, call):
        # Legalize add as subtract, to see that the custom function is used.
        return bb.call_te(topi.subtract, call.args[0], call.args[1])

    mod = _module(lambda x, y: relax.op.add(x, y), ((2, 3), "float32"), ((2, 3), "float32"))
    after = relax.transform.LegalizeOps({"relax.add": my_add})(mod)
    x, y = _arr((2, 3)), _arr((2, 3))
    got = relax.interpret(after, "main", tvm.nd.array(x), tvm.nd.array(y)).numpy()
    np.testing.assert_allclose(got, x - y, rtol=1e-6)
    del te


def test_every_op_has_a_legalization():
    missing = []
    from minitvm.ir.op import list_op_names  # pylint: disable=import-outside-toplevel

    names = list(list_op_names())
    assert "relax.add" in names
    for name in names:
        if not name.startswith("relax.") or name.startswith(("relax.builtin.", "relax.memory.")):
            continue
        if name in ("relax.call_tir", "relax.call_dps_packed", "relax.call_pure_packed",
                    "relax.call_builtin_with_ctx"):  # calls LegalizeOps keeps as they are
            continue
        if not tvm.ir.Op.get(name).has_attr("FLegalize"):
            missing.append(name)
    assert not missing
