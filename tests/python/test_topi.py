"""TOPI from Python (stage 2): TVM names and signatures, each op run by the interpreter and
compared with NumPy on random shapes."""
import numpy as np
import pytest

import minitvm as tvm
from minitvm import te, topi
from minitvm.driver import build

RNG = np.random.default_rng(42)


def run(inputs, outputs, arrays):
    """create_prim_func([inputs..., outputs...]) run by the interpreter on the arrays."""
    outputs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
    func = te.create_prim_func(list(inputs) + list(outputs))
    outs = [tvm.nd.empty([int(d) for d in o.shape], str(o.dtype)) for o in outputs]
    build(func, target="ref")(*[tvm.nd.array(a) for a in arrays], *outs)
    return [o.numpy() for o in outs]


def rand(*shape):
    return RNG.standard_normal(shape).astype("float32")


@pytest.mark.parametrize("name,ref", [
    ("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply),
    ("maximum", np.maximum), ("minimum", np.minimum),
])
def test_broadcast_binary(name, ref):
    for sa, sb in [((3, 4), (4,)), ((2, 1, 5), (3, 1)), ((1,), (2, 3))]:
        A, B = te.placeholder(sa, name="A"), te.placeholder(sb, name="B")
        a, b = rand(*sa), rand(*sb)
        (got,) = run([A, B], getattr(topi, name)(A, B), [a, b])
        np.testing.assert_allclose(got, ref(a, b), rtol=1e-6)


def test_scalar_operands_and_unary():
    A = te.placeholder((3, 4), name="A")
    a = rand(3, 4)
    outs = run([A], [topi.add(A, 1.0), topi.multiply(2.0, A), topi.exp(A), topi.sigmoid(A),
                     topi.nn.relu(A), topi.clip(A, -0.5, 0.5), topi.cast(A, "int32")], [a])
    np.testing.assert_allclose(outs[0], a + 1, rtol=1e-6)
    np.testing.assert_allclose(outs[1], 2 * a, rtol=1e-6)
    np.testing.assert_allclose(outs[2], np.exp(a), rtol=1e-5)
    np.testing.assert_allclose(outs[3], 1 / (1 + np.exp(-a)), rtol=1e-5)
    np.testing.assert_allclose(outs[4], np.maximum(a, 0))
    np.testing.assert_allclose(outs[5], np.clip(a, -0.5, 0.5))
    np.testing.assert_array_equal(outs[6], a.astype("int32"))


def test_matmul_dense_batch_matmul():
    A, B = te.placeholder((2, 3, 4), name="A"), te.placeholder((4, 5), name="B")
    a, b = rand(2, 3, 4), rand(4, 5)
    (got,) = run([A, B], topi.matmul(A, B), [a, b])
    np.testing.assert_allclose(got, a @ b, rtol=1e-5, atol=1e-5)
    X, W, bias = te.placeholder((3, 8), name="X"), te.placeholder((6, 8), name="W"), \
        te.placeholder((6,), name="b")
    x, w, bb = rand(3, 8), rand(6, 8), rand(6)
    (got,) = run([X, W, bias], topi.nn.dense(X, W, bias), [x, w, bb])
    np.testing.assert_allclose(got, x @ w.T + bb, rtol=1e-5, atol=1e-5)
    P, Q = te.placeholder((2, 3, 4), name="P"), te.placeholder((2, 5, 4), name="Q")
    p, q = rand(2, 3, 4), rand(2, 5, 4)
    (got,) = run([P, Q], topi.nn.batch_matmul(P, Q), [p, q])
    np.testing.assert_allclose(got, p @ q.transpose(0, 2, 1), rtol=1e-5, atol=1e-5)


def _conv_ref(x, w, stride, pad, dilation):
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - dilation * (kh - 1) - 1) // stride + 1
    ow = (wd + 2 * pad - dilation * (kw - 1) - 1) // stride + 1
    out = np.zeros((n, o, oh, ow), "float32")
    for y in range(oh):
        for z in range(ow):
            patch = xp[:, :, y * stride:y * stride + dilation * (kh - 1) + 1:dilation,
                       z * stride:z * stride + dilation * (kw - 1) + 1:dilation]
            out[:, :, y, z] = np.einsum("nchw,ochw->no", patch, w)
    return out


def test_conv2d_and_pooling():
    X, W = te.placeholder((1, 3, 7, 7), name="X"), te.placeholder((4, 3, 3, 3), name="W")
    x, w = rand(1, 3, 7, 7), rand(4, 3, 3, 3)
    (got,) = run([X, W], topi.nn.conv2d_nchw(X, W, 2, 1, 1), [x, w])
    np.testing.assert_allclose(got, _conv_ref(x, w, 2, 1, 1), rtol=1e-4, atol=1e-5)
    (got,) = run([X], topi.nn.pool2d(X, (2, 2), (2, 2), (1, 1), (0, 0), "max"), [x])
    np.testing.assert_allclose(got, x[:, :, :6, :6].reshape(1, 3, 3, 2, 3, 2).max(axis=(3, 5)))
    (got,) = run([X], topi.nn.adaptive_pool(X, (1, 1), "avg"), [x])
    np.testing.assert_allclose(got, x.mean(axis=(2, 3), keepdims=True), rtol=1e-5)


def test_softmax_layer_norm_reductions():
    X = te.placeholder((4, 6), name="X")
    x = rand(4, 6)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    outs = run([X], [topi.nn.softmax(X), topi.nn.log_softmax(X, axis=0),
                     topi.sum(X, axis=1, keepdims=True), topi.max(X), topi.argmax(X, axis=0)],
               [x])
    np.testing.assert_allclose(outs[0], e / e.sum(axis=1, keepdims=True), rtol=1e-5)
    lse = np.log(np.exp(x - x.max(0)).sum(0)) + x.max(0)
    np.testing.assert_allclose(outs[1], x - lse, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(outs[2], x.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(outs[3], x.max())
    np.testing.assert_array_equal(outs[4], x.argmax(axis=0))
    G, B = te.placeholder((6,), name="G"), te.placeholder((6,), name="B")
    g, b = rand(6), rand(6)
    (got,) = run([X, G, B], topi.nn.layer_norm(X, G, B, axis=[-1]), [x, g, b])
    mu, var = x.mean(1, keepdims=True), x.var(1, keepdims=True)
    np.testing.assert_allclose(got, (x - mu) / np.sqrt(var + 1e-5) * g + b, rtol=1e-4,
                               atol=1e-5)


def test_shape_ops():
    X = te.placeholder((2, 3, 4), name="X")
    x = rand(2, 3, 4)
    I = te.placeholder((5,), "int64", name="I")
    idx = RNG.integers(0, 3, 5).astype("int64")
    outs = run([X, I], [topi.reshape(X, (6, 4)), topi.transpose(X, (2, 0, 1)),
                        topi.concatenate([X, X], axis=1), topi.take(X, I, axis=1),
                        topi.expand_dims(X, 1), topi.nn.pad(X, (0, 1, 2), (1, 0, 0)),
                        topi.flatten(X, 1)] + topi.split(X, [1, 3], axis=2), [x, idx])
    np.testing.assert_array_equal(outs[0], x.reshape(6, 4))
    np.testing.assert_array_equal(outs[1], x.transpose(2, 0, 1))
    np.testing.assert_array_equal(outs[2], np.concatenate([x, x], axis=1))
    np.testing.assert_array_equal(outs[3], np.take(x, idx, axis=1))
    np.testing.assert_array_equal(outs[4], x[:, None])
    np.testing.assert_array_equal(outs[5], np.pad(x, ((0, 1), (1, 0), (2, 0))))
    np.testing.assert_array_equal(outs[6], x.reshape(2, 12))
    for got, want in zip(outs[7:], np.split(x, [1, 3], axis=2)):
        np.testing.assert_array_equal(got, want)


def test_against_lownumpy_reference():
    """The stage 1 reference and the TOPI op agree (when the reference is built)."""
    lownumpy = pytest.importorskip("minitvm.lownumpy")
    X = te.placeholder((1, 2, 6, 6), name="X")
    W = te.placeholder((4, 1, 3, 3), name="W")
    x, w = rand(1, 2, 6, 6), rand(4, 1, 3, 3)
    (got,) = run([X, W], topi.nn.group_conv2d_nchw(X, W, 1, 1, 1, groups=2), [x, w])
    want = lownumpy.conv2d(x, w, None, strides=1, padding=1, dilation=1, groups=2)
    np.testing.assert_allclose(got, np.asarray(want.numpy() if hasattr(want, "numpy") else want),
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_arg_reductions_have_tvms_two_stages_and_rfactor(name):
    """topi.argmax/argmin as TVM builds them: `<x>_red_temp` (index, value) then `<x>_red`, the
    index in the shape's dtype; rfactor recognises the reducer and keeps the result."""
    X = te.placeholder((3, 32), "int32", name="X")
    func = te.create_prim_func([X, getattr(topi, name)(X, axis=1, keepdims=True)])
    assert str(func.buffer_map[func.params[1]].dtype) == "int32"
    sch = tvm.tir.Schedule(func)
    blk = sch.get_block("X_red_temp")
    _, _, k = sch.get_loops(blk)
    _, ki = sch.split(k, [None, 8])
    sch.rfactor(ki, 2)
    sch.get_block("X_red_temp_rf")
    sch.get_block("X_red")
    x = RNG.integers(-5, 5, size=(3, 32)).astype("int32")
    out = tvm.nd.empty([3, 1], "int32")
    build(sch.mod["main"], target="ref")(tvm.nd.array(x), out)
    np.testing.assert_array_equal(out.numpy(), getattr(np, name)(x, axis=1, keepdims=True))
