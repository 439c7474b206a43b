"""Tests of the Relax reference interpreter (stage 4), ``relax.interpret``.

Every operator of the Relax op set is run through the interpreter on seeded random inputs of
random shapes and compared with NumPy (PyTorch for convolution, pooling and normalisation).
The MLP of the MLC course is built three ways (call_tir to TIR PrimFuncs, call_dps_packed to
Python functions that compute with torch through DLPack, and a mix) and compared with NumPy.
Negative tests check the error kind and message.
"""
import numpy as np
import pytest

import minitvm as tvm
from minitvm import relax
from minitvm.relax.interpreter import ShapeTuple
from minitvm.script import tir as T

RNG_SEED = 20251125


def _rng(extra=0):
    return np.random.default_rng(RNG_SEED + extra)


def _sinfo(shape, dtype="float32"):
    return relax.TensorStructInfo(shape, dtype)


def build(body, *param_sinfos, name="main"):
    """A module whose ``main`` takes parameters of `param_sinfos` and returns ``body(bb, *params)``
    (an expression, emitted inside a dataflow block)."""
    bb = relax.BlockBuilder()
    params = [relax.Var(f"x{i}", s) for i, s in enumerate(param_sinfos)]
    with bb.function(name, params):
        with bb.dataflow():
            out = bb.emit_output(body(bb, *params))
        bb.emit_func_output(out)
    return bb.get()


def run_op(make, *arrays):
    """Interpret ``make(*params)`` on numpy `arrays` (one parameter per array)."""
    sinfos = [_sinfo(a.shape, str(a.dtype)) for a in arrays]
    mod = build(lambda bb, *ps: make(*ps), *sinfos)
    return relax.interpret(mod, "main", *arrays)


def _np(value):
    if isinstance(value, tuple):
        return tuple(_np(v) for v in value)
    return value.numpy()


def _rand(shape, rng, dtype="float32", low=-2.0, high=2.0):
    return rng.uniform(low, high, size=shape).astype(dtype)


def _rand_shape(rng, rank=None, low=1, high=5):
    rank = int(rng.integers(1, 4)) if rank is None else rank
    return tuple(int(d) for d in rng.integers(low, high, size=rank))


# ---- elementwise ---------------------------------------------------------------------------

BINARY = {
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
    "divide": np.divide,
    "power": np.power,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "equal": np.equal,
    "less": np.less,
    "greater": np.greater,
    "floor_divide": np.floor_divide,
    "not_equal": np.not_equal,
    "less_equal": np.less_equal,
    "greater_equal": np.greater_equal,
}


def _broadcast_pair(rng):
    shape = _rand_shape(rng)
    a = tuple(1 if rng.random() < 0.3 else d for d in shape)
    b = tuple(1 if rng.random() < 0.3 else d for d in shape)
    b = b[int(rng.integers(0, len(b))):]  # drop leading dims sometimes
    return a, b


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_ops_match_numpy(name):
    rng = _rng(hash(name) % 1000)
    for _ in range(4):
        sa, sb = _broadcast_pair(rng)
        low = 0.5 if name == "power" else -2.0
        a, b = _rand(sa, rng, low=low), _rand(sb, rng, low=low)
        if name in ("equal", "not_equal", "less_equal", "greater_equal"):
            # small integers in float32, so that some elements are equal
            a, b = np.round(a), np.round(b)
        got = run_op(getattr(relax.op, name), a, b).numpy()
        want = BINARY[name](a, b)
        assert got.shape == want.shape
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_integer_divide_truncates_in_the_input_dtype():
    a = np.array([7, -7, 9, -9], dtype="int32")
    b = np.array([2, 2, -4, -4], dtype="int32")
    got = run_op(relax.op.divide, a, b).numpy()
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, np.trunc(a / b).astype("int32"))


def test_where_matches_numpy():
    rng = _rng(1)
    c = rng.random((3, 4)) < 0.5
    x, y = _rand((3, 4), rng), _rand((4,), rng)
    got = run_op(relax.op.where, c, x, y).numpy()
    np.testing.assert_allclose(got, np.where(c, x, y))


UNARY = {
    "exp": (np.exp, -2, 2),
    "log": (np.log, 0.1, 3),
    "sqrt": (np.sqrt, 0.0, 3),
    "tanh": (np.tanh, -3, 3),
    "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), -5, 5),
    "negative": (np.negative, -2, 2),
    "abs": (np.abs, -2, 2),
    "rsqrt": (lambda x: 1 / np.sqrt(x), 0.1, 3),
    "erf": (lambda x: np.vectorize(__import__("math").erf)(x).astype(x.dtype), -2, 2),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_ops_match_numpy(name):
    fn, low, high = UNARY[name]
    rng = _rng(len(name))
    for _ in range(3):
        x = _rand(_rand_shape(rng), rng, low=low, high=high)
        got = run_op(getattr(relax.op, name), x).numpy()
        np.testing.assert_allclose(got, fn(x), rtol=1e-5, atol=1e-6)


def _gelu(x):
    import math  # pylint: disable=import-outside-toplevel

    erf = np.vectorize(math.erf)
    return (0.5 * x * (1 + erf(x / np.sqrt(2)))).astype(x.dtype)


def _softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


ACTIVATIONS = {
    "relu": (lambda x: relax.op.nn.relu(x), lambda x: np.maximum(x, 0)),
    "gelu": (lambda x: relax.op.nn.gelu(x), _gelu),
    "silu": (lambda x: relax.op.nn.silu(x), lambda x: x / (1 + np.exp(-x))),
    "softmax": (lambda x: relax.op.nn.softmax(x, axis=-1), lambda x: _softmax(x, -1)),
    "softmax0": (lambda x: relax.op.nn.softmax(x, axis=0), lambda x: _softmax(x, 0)),
    "log_softmax": (
        lambda x: relax.op.nn.log_softmax(x, axis=1),
        lambda x: np.log(_softmax(x.astype("float64"), 1)).astype("float32"),
    ),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activations_match_numpy(name):
    make, ref = ACTIVATIONS[name]
    rng = _rng(7)
    for _ in range(3):
        x = _rand(_rand_shape(rng, rank=int(rng.integers(2, 4))), rng)
        np.testing.assert_allclose(run_op(make, x).numpy(), ref(x), rtol=1e-5, atol=1e-5)


def test_astype():
    x = _rand((3, 5), _rng(2), low=-5, high=5)
    got = run_op(lambda a: relax.op.astype(a, "int32"), x).numpy()
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, x.astype("int32"))


# ---- linear algebra and manipulation -------------------------------------------------------


def test_matmul_random_batch_shapes():
    rng = _rng(3)
    for _ in range(5):
        n, k, m = (int(v) for v in rng.integers(1, 6, size=3))
        batch = _rand_shape(rng, rank=int(rng.integers(0, 3)))
        a, b = _rand(batch + (n, k), rng), _rand((k, m), rng)
        got = run_op(relax.op.matmul, a, b).numpy()
        np.testing.assert_allclose(got, a @ b, rtol=1e-5, atol=1e-5)


def test_permute_dims():
    rng = _rng(4)
    x = _rand((2, 3, 4), rng)
    np.testing.assert_allclose(run_op(relax.op.permute_dims, x).numpy(), x.T)
    got = run_op(lambda a: relax.op.permute_dims(a, [1, 2, 0]), x).numpy()
    np.testing.assert_allclose(got, np.transpose(x, (1, 2, 0)))


def test_reshape_flatten_expand_squeeze():
    rng = _rng(5)
    x = _rand((2, 1, 6), rng)
    np.testing.assert_allclose(run_op(lambda a: relax.op.reshape(a, (3, 4)), x).numpy(),
                               x.reshape(3, 4))
    np.testing.assert_allclose(run_op(relax.op.flatten, x).numpy(), x.reshape(-1))
    np.testing.assert_allclose(run_op(lambda a: relax.op.expand_dims(a, [0, 3]), x).numpy(),
                               np.expand_dims(x, (0, 3)))
    np.testing.assert_allclose(run_op(relax.op.squeeze, x).numpy(), np.squeeze(x))
    np.testing.assert_allclose(run_op(lambda a: relax.op.squeeze(a, axis=[1]), x).numpy(),
                               np.squeeze(x, 1))


def test_concat_and_split():
    rng = _rng(6)
    a, b = _rand((2, 3), rng), _rand((4, 3), rng)
    got = run_op(lambda p, q: relax.op.concat([p, q], axis=0), a, b).numpy()
    np.testing.assert_allclose(got, np.concatenate([a, b], 0))
    x = _rand((6, 4), rng)
    parts = run_op(lambda p: relax.op.split(p, 3, axis=0), x)
    assert isinstance(parts, tuple) and len(parts) == 3
    for got_part, want_part in zip(parts, np.split(x, 3, 0)):
        np.testing.assert_allclose(got_part.numpy(), want_part)
    parts = run_op(lambda p: relax.op.split(p, [1, 3], axis=1), x)
    for got_part, want_part in zip(parts, np.split(x, [1, 3], 1)):
        np.testing.assert_allclose(got_part.numpy(), want_part)


def test_strided_slice_random():
    rng = _rng(8)
    for _ in range(8):
        shape = _rand_shape(rng, rank=int(rng.integers(1, 4)), low=2, high=7)
        x = _rand(shape, rng)
        axis = int(rng.integers(0, len(shape)))
        n = shape[axis]
        stride = int(rng.choice([1, 2, -1]))
        begin = int(rng.integers(-n, n))
        end = int(rng.integers(-n - 1, n + 2))
        got = run_op(lambda p: relax.op.strided_slice(p, [axis], [begin], [end], [stride]), x)
        index = [slice(None)] * len(shape)
        index[axis] = slice(begin, end, stride)
        want = x[tuple(index)]
        if want.size == 0:
            assert got.numpy().shape == want.shape
        else:
            np.testing.assert_allclose(got.numpy(), want)


def test_take():
    rng = _rng(9)
    x = _rand((5, 4), rng)
    idx = np.array([4, 0, 2, 2], dtype="int64")
    got = run_op(lambda p, i: relax.op.take(p, i, axis=0), x, idx).numpy()
    np.testing.assert_allclose(got, np.take(x, idx, axis=0))
    got = run_op(lambda p, i: relax.op.take(p, i, axis=1), x, idx[:3] % 4).numpy()
    np.testing.assert_allclose(got, np.take(x, idx[:3] % 4, axis=1))


def test_broadcast_to():
    x = _rand((3, 1), _rng(10))
    got = run_op(lambda p: relax.op.broadcast_to(p, (2, 3, 4)), x).numpy()
    np.testing.assert_allclose(got, np.broadcast_to(x, (2, 3, 4)))


# ---- reductions ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["sum", "mean", "max", "min"])
def test_reductions(name):
    rng = _rng(11)
    for _ in range(4):
        shape = _rand_shape(rng, rank=3)
        x = _rand(shape, rng)
        axis = None if rng.random() < 0.3 else [int(rng.integers(0, 3))]
        keepdims = bool(rng.random() < 0.5)
        got = run_op(lambda p: getattr(relax.op, name)(p, axis=axis, keepdims=keepdims), x)
        want = getattr(np, name)(x, axis=None if axis is None else tuple(axis), keepdims=keepdims)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_argmax_argmin(name):
    rng = _rng(12)
    x = _rand((3, 5), rng)
    got = run_op(lambda p: getattr(relax.op, name)(p, axis=1), x).numpy()
    np.testing.assert_array_equal(got, getattr(np, name)(x, axis=1))
    assert got.dtype == np.int64
    got = run_op(lambda p: getattr(relax.op, name)(p, keepdims=True), x).numpy()
    np.testing.assert_array_equal(got, getattr(np, name)(x, keepdims=True))


# ---- creation ------------------------------------------------------------------------------


def test_zeros_ones_full():
    def body(bb, x):
        z = bb.emit(relax.op.zeros((2, 3), "float32"))
        o = bb.emit(relax.op.ones((2, 3), "float32"))
        f = bb.emit(relax.op.full((2, 3), relax.const(2.5, "float32")))
        return relax.op.add(relax.op.add(z, o), relax.op.add(f, x))

    mod = build(body, _sinfo((2, 3)))
    x = _rand((2, 3), _rng(13))
    np.testing.assert_allclose(relax.interpret(mod, "main", x).numpy(), x + 3.5, rtol=1e-6)


# ---- nn (PyTorch as the reference) ---------------------------------------------------------


def test_conv2d_matches_torch(torch):
    rng = _rng(14)
    for trial in range(4):
        groups = 1 if trial < 2 else 2
        n, c, h, w = 2, 2 * groups, int(rng.integers(5, 9)), int(rng.integers(5, 9))
        o = 2 * groups
        stride, padding, dilation = int(rng.integers(1, 3)), int(rng.integers(0, 2)), 1 + trial % 2
        x, k = _rand((n, c, h, w), rng), _rand((o, c // groups, 3, 3), rng)
        got = run_op(
            lambda p, q: relax.op.nn.conv2d(
                p, q, strides=stride, padding=padding, dilation=dilation, groups=groups
            ),
            x,
            k,
        ).numpy()
        want = torch.nn.functional.conv2d(
            torch.from_numpy(x), torch.from_numpy(k), stride=stride, padding=padding,
            dilation=dilation, groups=groups,
        ).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_pooling_matches_torch(torch):
    rng = _rng(15)
    F = torch.nn.functional
    x = _rand((2, 3, 8, 7), rng)
    tx = torch.from_numpy(x)
    got = run_op(lambda p: relax.op.nn.max_pool2d(p, pool_size=3, strides=2, padding=1), x)
    np.testing.assert_allclose(got.numpy(), F.max_pool2d(tx, 3, 2, 1).numpy())
    got = run_op(lambda p: relax.op.nn.avg_pool2d(p, pool_size=2, strides=2), x)
    np.testing.assert_allclose(got.numpy(), F.avg_pool2d(tx, 2, 2).numpy(), rtol=1e-6)
    got = run_op(
        lambda p: relax.op.nn.avg_pool2d(p, pool_size=3, strides=1, padding=1,
                                         count_include_pad=True),
        x,
    )
    np.testing.assert_allclose(
        got.numpy(), F.avg_pool2d(tx, 3, 1, 1, count_include_pad=True).numpy(), rtol=1e-5
    )
    got = run_op(lambda p: relax.op.nn.adaptive_avg_pool2d(p, output_size=(3, 2)), x)
    np.testing.assert_allclose(got.numpy(), F.adaptive_avg_pool2d(tx, (3, 2)).numpy(), rtol=1e-5)


def test_batch_norm_inference_matches_torch(torch):
    rng = _rng(16)
    x = _rand((2, 3, 4, 5), rng)
    gamma, beta, mean = _rand((3,), rng), _rand((3,), rng), _rand((3,), rng)
    var = _rand((3,), rng, low=0.5, high=2.0)
    got = run_op(
        lambda *p: relax.op.nn.batch_norm(*p, axis=1, epsilon=1e-5, training=False),
        x, gamma, beta, mean, var,
    )
    assert isinstance(got, tuple) and len(got) == 3
    want = torch.nn.functional.batch_norm(
        torch.from_numpy(x), torch.from_numpy(mean), torch.from_numpy(var),
        torch.from_numpy(gamma), torch.from_numpy(beta), training=False, eps=1e-5,
    ).numpy()
    np.testing.assert_allclose(got[0].numpy(), want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[1].numpy(), mean)


def test_batch_norm_training_uses_batch_statistics():
    rng = _rng(17)
    x = _rand((4, 3, 2, 2), rng)
    gamma, beta, mean = _rand((3,), rng), _rand((3,), rng), _rand((3,), rng)
    var = _rand((3,), rng, low=0.5, high=2.0)
    out, new_mean, new_var = run_op(
        lambda *p: relax.op.nn.batch_norm(*p, axis=1, momentum=0.1, training=True),
        x, gamma, beta, mean, var,
    )
    bm = x.mean(axis=(0, 2, 3))
    bv = x.var(axis=(0, 2, 3))
    want = (x - bm[None, :, None, None]) / np.sqrt(bv[None, :, None, None] + 1e-5)
    want = want * gamma[None, :, None, None] + beta[None, :, None, None]
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(new_mean.numpy(), 0.9 * mean + 0.1 * bm, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(new_var.numpy(), 0.9 * var + 0.1 * bv, rtol=1e-5, atol=1e-6)


def test_layer_norm_matches_torch(torch):
    rng = _rng(18)
    x = _rand((2, 3, 6), rng)
    gamma, beta = _rand((3, 6), rng), _rand((3, 6), rng)
    got = run_op(lambda *p: relax.op.nn.layer_norm(*p, axes=[-2, -1]), x, gamma, beta)
    want = torch.nn.functional.layer_norm(
        torch.from_numpy(x), (3, 6), torch.from_numpy(gamma), torch.from_numpy(beta), eps=1e-5
    ).numpy()
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-5)


def test_dropout_is_the_identity_in_inference():
    x = _rand((3, 4), _rng(19))
    got = run_op(lambda p: relax.op.nn.dropout(p, rate=0.5), x)
    out = got[0] if isinstance(got, tuple) else got
    np.testing.assert_array_equal(out.numpy(), x)


# ---- the MLP of the MLC course, three ways -------------------------------------------------


@T.prim_func
def linear0(X: T.Buffer((1, 784), "float32"), W: T.Buffer((128, 784), "float32"),
            B: T.Buffer((128,), "float32"), Z: T.Buffer((1, 128), "float32")):
    T.func_attr({"global_symbol": "linear0", "tir.noalias": True})
    Y = T.alloc_buffer((1, 128), "float32")
    for i, j, k in T.grid(1, 128, 784):
        with T.block("Y"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                Y[vi, vj] = T.float32(0)
            Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
    for i, j in T.grid(1, 128):
        with T.block("Z"):
            vi, vj = T.axis.remap("SS", [i, j])
            Z[vi, vj] = Y[vi, vj] + B[vj]


@T.prim_func
def relu0(X: T.Buffer((1, 128), "float32"), Y: T.Buffer((1, 128), "float32")):
    T.func_attr({"global_symbol": "relu0", "tir.noalias": True})
    for i, j in T.grid(1, 128):
        with T.block("Y"):
            vi, vj = T.axis.remap("SS", [i, j])
            Y[vi, vj] = T.max(X[vi, vj], T.float32(0))


@T.prim_func
def linear1(X: T.Buffer((1, 128), "float32"), W: T.Buffer((10, 128), "float32"),
            B: T.Buffer((10,), "float32"), Z: T.Buffer((1, 10), "float32")):
    T.func_attr({"global_symbol": "linear1", "tir.noalias": True})
    Y = T.alloc_buffer((1, 10), "float32")
    for i, j, k in T.grid(1, 10, 128):
        with T.block("Y"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                Y[vi, vj] = T.float32(0)
            Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
    for i, j in T.grid(1, 10):
        with T.block("Z"):
            vi, vj = T.axis.remap("SS", [i, j])
            Z[vi, vj] = Y[vi, vj] + B[vj]


def _register_torch_funcs(torch):
    @tvm.register_func("env.linear", override=True)
    def torch_linear(x, w, b, out):
        x_t, w_t, b_t = torch.from_dlpack(x), torch.from_dlpack(w), torch.from_dlpack(b)
        out_t = torch.from_dlpack(out)
        torch.mm(x_t, w_t.T, out=out_t)
        torch.add(out_t, b_t, out=out_t)

    @tvm.register_func("env.relu", override=True)
    def torch_relu(x, out):
        torch.maximum(torch.from_dlpack(x), torch.Tensor([0.0]), out=torch.from_dlpack(out))


def _mlp_module(kinds):
    """main(x, w0, b0, w1, b1) = linear1(relu(linear0(x))); kinds[i] is "tir" or "packed"."""
    bb = relax.BlockBuilder()
    x = relax.Var("x", _sinfo((1, 784)))
    w0, b0 = relax.Var("w0", _sinfo((128, 784))), relax.Var("b0", _sinfo((128,)))
    w1, b1 = relax.Var("w1", _sinfo((10, 128))), relax.Var("b1", _sinfo((10,)))
    prims = {"linear0": linear0, "relu0": relu0, "linear1": linear1}
    packed = {"linear0": "env.linear", "relu0": "env.relu", "linear1": "env.linear"}
    with bb.function("main", [x, w0, b0, w1, b1]):
        with bb.dataflow():
            def call(name, args, out_shape, kind):
                if kind == "tir":
                    gv = bb.add_func(prims[name], name)
                    return bb.emit(relax.op.call_tir(gv, args, _sinfo(out_shape)))
                return bb.emit(relax.op.call_dps_packed(packed[name], args, _sinfo(out_shape)))

            lv0 = call("linear0", [x, w0, b0], (1, 128), kinds[0])
            lv1 = call("relu0", [lv0], (1, 128), kinds[1])
            out = call("linear1", [lv1, w1, b1], (1, 10), kinds[2])
            gv = bb.emit_output(out)
        bb.emit_func_output(gv)
    return bb.get()


@pytest.mark.parametrize(
    "kinds",
    [("tir", "tir", "tir"), ("packed", "packed", "packed"), ("tir", "packed", "packed")],
    ids=["call_tir", "call_dps_packed", "mixed"],
)
def test_mlp_three_ways(torch, kinds):
    _register_torch_funcs(torch)
    rng = _rng(20)
    x = _rand((1, 784), rng, low=0, high=1)
    w0, b0 = _rand((128, 784), rng, low=-0.05, high=0.05), _rand((128,), rng, low=-0.1, high=0.1)
    w1, b1 = _rand((10, 128), rng, low=-0.1, high=0.1), _rand((10,), rng, low=-0.1, high=0.1)
    mod = _mlp_module(kinds)
    got = relax.interpret(mod, "main", x, w0, b0, w1, b1)
    assert isinstance(got, tvm.nd.NDArray)
    want = np.maximum(x @ w0.T + b0, 0) @ w1.T + b1
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-4)
    # NDArrays are accepted as well as numpy arrays
    got2 = relax.interpret(mod, "main", *[tvm.nd.array(a) for a in (x, w0, b0, w1, b1)])
    np.testing.assert_allclose(got2.numpy(), got.numpy())


def test_call_pure_packed_and_relax_ops_together():
    @tvm.register_func("test.interp.py_square", override=True)
    def py_square(x):
        return tvm.nd.array(x.numpy() ** 2)

    def body(bb, x):
        sq = bb.emit(relax.op.call_pure_packed("test.interp.py_square", x,
                                               sinfo_args=_sinfo((2, 3))))
        return relax.op.add(sq, x)

    x = _rand((2, 3), _rng(21))
    mod = build(body, _sinfo((2, 3)))
    np.testing.assert_allclose(relax.interpret(mod, "main", x).numpy(), x ** 2 + x, rtol=1e-6)


# ---- symbolic shapes, shapes and tuples ----------------------------------------------------


def test_symbolic_batch_and_shape_values():
    n = tvm.tir.Var("n", "int64")
    bb = relax.BlockBuilder()
    x = relax.Var("x", _sinfo((n, 4)))
    with bb.function("main", [x]):
        with bb.dataflow():
            lv = bb.emit(relax.op.nn.relu(x))
            gv = bb.emit_output(relax.Tuple([lv, relax.ShapeExpr([n * 2, 4])]))
        bb.emit_func_output(gv)
    mod = bb.get()
    for rows in (1, 3, 6):
        x_np = _rand((rows, 4), _rng(rows))
        out, shape = relax.interpret(mod, "main", x_np)
        np.testing.assert_allclose(out.numpy(), np.maximum(x_np, 0))
        assert isinstance(shape, ShapeTuple)
        assert shape == (rows * 2, 4)


def test_match_cast_binds_and_fails_with_both_shapes():
    m = tvm.tir.Var("m", "int64")
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo(dtype="float32", ndim=2))
    with bb.function("main", [x]):
        y = bb.emit_match_cast(x, _sinfo((m, 3)), "y")
        bb.emit_func_output(y)
    mod = bb.get()
    x_np = _rand((5, 3), _rng(22))
    np.testing.assert_allclose(relax.interpret(mod, "main", x_np).numpy(), x_np)
    with pytest.raises(tvm.error.ValueError, match=r"match_cast of binding y: the value has "
                       r"shape \(5, 4\) but R.Tensor\(\(m, 3\), dtype=\"float32\"\) expects "
                       r"dim 1 == 3"):
        relax.interpret(mod, "main", _rand((5, 4), _rng(23)))


# ---- negative tests ------------------------------------------------------------------------


def _relu_module():
    return build(lambda bb, x: relax.op.nn.relu(x), _sinfo((1, 784)))


def test_wrong_argument_count():
    with pytest.raises(tvm.error.TypeError, match=r"main: expects 1 argument \(x0\) but 2 were"):
        relax.interpret(_relu_module(), "main", np.zeros((1, 784), "float32"),
                        np.zeros((1, 784), "float32"))


def test_wrong_shape():
    with pytest.raises(
        tvm.error.ValueError,
        match=r"main: argument x0 has shape \(2, 784\) but parameter x0: "
        r"R.Tensor\(\(1, 784\), dtype=\"float32\"\) expects dim 0 == 1",
    ):
        relax.interpret(_relu_module(), "main", np.zeros((2, 784), "float32"))


def test_wrong_dtype():
    with pytest.raises(tvm.error.ValueError, match=r"argument x0 has dtype float64 but .* "
                       r"expects dtype float32"):
        relax.interpret(_relu_module(), "main", np.zeros((1, 784), "float64"))


def test_unknown_packed_function():
    mod = build(
        lambda bb, x: relax.op.call_dps_packed("test.interp.no_such_func", [x], _sinfo((3,))),
        _sinfo((3,)),
    )
    with pytest.raises(tvm.error.ValueError,
                       match=r"no global function named \"test.interp.no_such_func\""):
        relax.interpret(mod, "main", np.zeros((3,), "float32"))


def test_unknown_function_name():
    with pytest.raises(tvm.error.ValueError, match=r"no function \"nope\""):
        relax.interpret(_relu_module(), "nope")


def test_interpret_a_function_directly():
    mod = _relu_module()
    func = mod["main"]
    x = _rand((1, 784), _rng(24))
    np.testing.assert_allclose(relax.interpret(None, func, x).numpy(), np.maximum(x, 0))
    np.testing.assert_allclose(relax.interpret(func, x).numpy(), np.maximum(x, 0))


# ---- modules written in TVMScript ----------------------------------------------------------


def _script_module():
    from minitvm.script import ir as I, relax as R  # pylint: disable=import-outside-toplevel

    @I.ir_module
    class Module:  # pylint: disable=too-few-public-methods
        @T.prim_func
        def add_scalar(a: T.handle, b: T.handle, m: T.int64):
            n = T.int64()
            A = T.match_buffer(a, (n,), "float32")
            B = T.match_buffer(b, (n,), "float32")
            for i in range(n):
                with T.block("B"):
                    vi = T.axis.spatial(n, i)
                    B[vi] = A[vi] + T.Cast("float32", m)

        @R.function
        def helper(x: R.Tensor(("n",), "float32")) -> R.Tuple(
            R.Tensor(("n",), "float32"), R.Tensor(("n",), "float32")
        ):
            n = T.int64()
            e = R.exp(x)
            return (e, x)

        @R.function
        def main(x: R.Tensor(("n",), "float32"), flag: R.Tensor((), "bool")):
            n = T.int64()
            cls = Module
            with R.dataflow():
                lv = R.call_tir(cls.add_scalar, (x,), out_sinfo=R.Tensor((n,), "float32"),
                                tir_vars=R.shape([n * 2]))
                R.output(lv)
            if flag:
                t = cls.helper(lv)
                r = t[0]
            else:
                r = R.negative(lv)
            return (r, R.shape([n]))

    return Module


def test_tvmscript_module_with_tir_vars_if_and_function_calls():
    mod = _script_module()
    x = _rand((4,), _rng(30))
    yes, no = np.array(True), np.array(False)
    r, shape = relax.interpret(mod, "main", x, yes)
    np.testing.assert_allclose(r.numpy(), np.exp(x + 8), rtol=1e-5)
    assert shape == (4,)
    r, _ = relax.interpret(mod, "main", x, no)
    np.testing.assert_allclose(r.numpy(), -(x + 8), rtol=1e-6)
    # helper called directly returns a Python tuple
    e, same = relax.interpret(mod, "helper", x)
    np.testing.assert_allclose(e.numpy(), np.exp(x), rtol=1e-6)
    np.testing.assert_array_equal(same.numpy(), x)


def test_tvmscript_course_mlp_with_call_dps_packed(torch):
    from minitvm.script import ir as I, relax as R  # pylint: disable=import-outside-toplevel

    _register_torch_funcs(torch)

    @I.ir_module
    class MyModuleWithExternCall:  # pylint: disable=too-few-public-methods
        @R.function
        def main(x: R.Tensor((1, 784), "float32"), w0: R.Tensor((128, 784), "float32"),
                 b0: R.Tensor((128,), "float32"), w1: R.Tensor((10, 128), "float32"),
                 b1: R.Tensor((10,), "float32")):
            with R.dataflow():
                lv0 = R.call_dps_packed("env.linear", (x, w0, b0),
                                        out_sinfo=R.Tensor((1, 128), dtype="float32"))
                lv1 = R.call_dps_packed("env.relu", (lv0,),
                                        out_sinfo=R.Tensor((1, 128), dtype="float32"))
                out = R.call_dps_packed("env.linear", (lv1, w1, b1),
                                        out_sinfo=R.Tensor((1, 10), dtype="float32"))
                R.output(out)
            return out

    rng = _rng(31)
    x = _rand((1, 784), rng, low=0, high=1)
    w0, b0 = _rand((128, 784), rng, low=-0.05, high=0.05), _rand((128,), rng)
    w1, b1 = _rand((10, 128), rng, low=-0.1, high=0.1), _rand((10,), rng)
    # torch tensors go in through DLPack too
    got = relax.interpret(MyModuleWithExternCall, "main", torch.from_numpy(x), w0, b0, w1, b1)
    want = np.maximum(x @ w0.T + b0, 0) @ w1.T + b1
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-4)


def test_shape_and_prim_value_parameters():
    from minitvm.script import ir as I, relax as R  # pylint: disable=import-outside-toplevel

    @I.ir_module
    class Module:  # pylint: disable=too-few-public-methods
        @R.function
        def main(s: R.Shape(["a", "b"]), k: R.Prim("int64"), x: R.Tensor(("a", "b"), "float32")):
            a = T.int64()
            b = T.int64()
            y = R.reshape(x, R.shape([b, a]))
            z = R.zeros(s, "float32")
            return (y, z, k, R.prim_value(a * b))

    x = _rand((2, 3), _rng(32))
    y, z, k, ab = relax.interpret(Module, "main", (2, 3), 7, x)
    np.testing.assert_array_equal(y.numpy(), x.reshape(3, 2))
    np.testing.assert_array_equal(z.numpy(), np.zeros((2, 3), "float32"))
    assert (k, ab) == (7, 6)
    y2, *_ = relax.interpret(Module, "main", ShapeTuple([2, 3]), 7, x)
    np.testing.assert_array_equal(y2.numpy(), y.numpy())
    with pytest.raises(tvm.error.ValueError, match=r"argument x has shape \(3, 3\) but parameter "
                       r"x: R.Tensor\(\(a, b\), dtype=\"float32\"\) expects dim 0 == a \(a = 2\)"):
        relax.interpret(Module, "main", (2, 3), 7, np.ones((3, 3), "float32"))
    with pytest.raises(tvm.error.ValueError, match=r"argument k is the float 1.5 but parameter k: "
                       r"R.Prim\(\"int64\"\) expects dtype int64"):
        relax.interpret(Module, "main", (2, 3), 1.5, x)
    with pytest.raises(tvm.error.TypeError, match=r"argument s is .* expects a shape"):
        relax.interpret(Module, "main", x, 7, x)
