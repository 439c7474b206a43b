"""Stage 4: the Relax operators from Python (``relax.op.*``): the calls they build (TVM's
names, attributes with defaults in TVM's order) and their struct-info inference, called
directly through the ``FInferStructInfo`` attribute. Result shapes are compared with NumPy on
random shapes; symbolic dimensions and the kind + message of errors are checked too."""
import numpy as np
import pytest

import minitvm as tvm
from minitvm import relax, tir
from minitvm.relax import op as R


def T(shape, dtype="float32", name="x"):
    return relax.Var(name, relax.TensorStructInfo(list(shape), dtype))


def infer(call):
    return call.op.get_attr("FInferStructInfo")(call)


def static_shape(info):
    assert isinstance(info, relax.TensorStructInfo), info
    return tuple(int(d.value) for d in info.shape.values)


def rand_shape(rng, max_rank=4):
    return tuple(int(d) for d in rng.integers(1, 5, size=rng.integers(0, max_rank + 1)))


# ---- registry, attributes -------------------------------------------------------------------


def test_ops_are_registered_with_their_attributes():
    for name in ["relax.add", "relax.matmul", "relax.nn.conv2d", "relax.call_tir",
                 "relax.memory.kill_tensor", "relax.split", "relax.nn.batch_norm"]:
        op = tvm.ir.Op.get(name)
        for key in ["FInferStructInfo", "FPurity", "TOpPattern", "TAttrDefaults"]:
            assert op.get_attr(key) is not None, (name, key)
    assert tvm.ir.Op.get("relax.memory.kill_storage").get_attr("FPurity") is False
    assert tvm.ir.Op.get("relax.add").get_attr("TOpPattern") == 1  # broadcast
    assert tvm.ir.Op.get("relax.sum").get_attr("TOpPattern") == 3  # comm-reduce
    assert list(tvm.ir.Op.get("relax.nn.conv2d").get_attr("TAttrDefaults").keys()) == [
        "strides", "padding", "dilation", "groups", "data_layout", "kernel_layout",
        "out_layout", "out_dtype"]


def test_calls_hold_tvm_attributes():
    x, w = T((1, 3, 8, 8)), T((4, 3, 3, 3), name="w")
    c = R.nn.conv2d(x, w, strides=2, padding=1)
    assert c.op.name == "relax.nn.conv2d"
    assert [int(v) for v in c.attrs["strides"]] == [2, 2]
    assert [int(v) for v in c.attrs["padding"]] == [1, 1, 1, 1]
    assert c.attrs["out_layout"] == "NCHW"
    assert c.attrs["out_dtype"] is None
    s = R.sum(x, axis=1, keepdims=True)
    assert [int(v) for v in s.attrs["axis"]] == [1] and s.attrs["keepdims"] is True
    assert relax.add is R.add and relax.op.nn.relu is R.nn.relu
    # The generic route gives the same attributes.
    g = relax._ffi_api.MakeOpCall("relax.sum", [x], {"axis": 1, "keepdims": True}, [])
    assert [int(v) for v in g.attrs["axis"]] == [1]
    with pytest.raises(ValueError, match='relax.sum has no attribute "axes"'):
        relax._ffi_api.MakeOpCall("relax.sum", [x], {"axes": 1}, [])


# ---- binary ----------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(3))
def test_binary_broadcast_matches_numpy(seed):
    rng = np.random.default_rng(seed)
    names = ["add", "subtract", "multiply", "divide", "power", "maximum", "minimum",
             "floor_divide", "equal", "less", "greater_equal", "not_equal", "less_equal",
             "greater"]
    for trial in range(120):
        a, b = rand_shape(rng), rand_shape(rng)
        if trial % 3 == 0 and a:
            b = a[trial % len(a):]
        name = names[trial % len(names)]
        call = getattr(R, name)(T(a), T(b, name="y"))
        try:
            expect = np.broadcast_shapes(a, b)
        except ValueError:
            with pytest.raises(ValueError, match=f"relax.{name}: the shapes of x1 .* and x2 .* "
                                                 "cannot broadcast at dimension"):
                infer(call)
            continue
        out = infer(call)
        assert static_shape(out) == expect, (a, b)
        cmp = name in ("equal", "less", "greater_equal", "not_equal", "less_equal", "greater")
        assert out.dtype == ("bool" if cmp else "float32")


def test_binary_messages_and_symbolic():
    with pytest.raises(ValueError, match=r"relax.add: the shapes of x1 \(2, 3\) and x2 \(4, 3\) "
                                         r"cannot broadcast at dimension 0 \(2 vs 4\)"):
        infer(R.add(T((2, 3)), T((4, 3))))
    with pytest.raises(TypeError, match=r"the dtypes of x1 \(float32\) and x2 \(int32\)"):
        infer(R.add(T((2, 3)), T((2, 3), "int32")))
    n = tir.Var("n", "int64")
    x = relax.Var("x", relax.TensorStructInfo([n, 4], "float32"))
    out = infer(R.multiply(x, T((1, 4))))
    assert out.shape.values[0].same_as(n)
    assert static_shape(infer(R.where(T((3, 1), "bool"), T((4,)), T((1, 4))))) == (3, 4)


def test_python_scalars_become_constants():
    c = R.add(T((2,)), 1.0)
    assert isinstance(c.args[1], relax.Constant)


# ---- unary, matmul ---------------------------------------------------------------------------


def test_unary():
    for f in [R.exp, R.log, R.sqrt, R.rsqrt, R.tanh, R.sigmoid, R.erf, R.negative, R.abs,
              R.nn.relu, R.nn.gelu, R.nn.silu, R.nn.softmax, R.nn.log_softmax]:
        assert static_shape(infer(f(T((2, 7))))) == (2, 7)
    with pytest.raises(TypeError, match="relax.sqrt: argument x must have a float dtype"):
        infer(R.sqrt(T((2,), "int32")))
    assert infer(R.astype(T((2,)), "float16")).dtype == "float16"


@pytest.mark.parametrize("seed", range(3))
def test_matmul_matches_numpy(seed):
    rng = np.random.default_rng(100 + seed)
    for trial in range(100):
        a, b = list(rand_shape(rng) or (3,)), list(rand_shape(rng) or (3,))
        if trial % 2 == 0:
            b[0 if len(b) == 1 else -2] = a[-1]
        call = R.matmul(T(a), T(b, name="y"))
        try:
            expect = np.matmul(np.zeros(a), np.zeros(b)).shape
        except ValueError:
            with pytest.raises(ValueError, match="relax.matmul: the"):
                infer(call)
            continue
        assert static_shape(infer(call)) == expect, (a, b)
    with pytest.raises(ValueError, match=r"reduction dimensions of x1 \(2, 3\) and x2 \(4, 5\) "
                                         r"differ \(3 vs 4\)"):
        infer(R.matmul(T((2, 3)), T((4, 5))))
    assert infer(R.matmul(T((2, 3), "int8"), T((3, 4), "int8"), out_dtype="int32")).dtype == "int32"


# ---- manipulation ----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(2))
def test_manipulation_matches_numpy(seed):
    rng = np.random.default_rng(200 + seed)
    for _ in range(60):
        s = rand_shape(rng, 4)
        z = np.zeros(s)
        x = T(s)
        if s:
            axes = list(rng.permutation(len(s)))
            assert static_shape(infer(R.permute_dims(x, axes))) == np.transpose(z, axes).shape
            axis = int(rng.integers(-len(s), len(s)))
            assert static_shape(infer(R.take(x, T((2, 3), "int64", "i"), axis=axis))) == \
                np.take(z, np.zeros((2, 3), "int64"), axis=axis).shape
            begin, end, step = int(rng.integers(-5, 5)), int(rng.integers(-5, 6)), \
                int(rng.choice([-2, -1, 1, 2, 3]))
            sl = [slice(None)] * len(s)
            sl[axis] = slice(begin, end, step)
            assert static_shape(infer(R.strided_slice(x, [axis], [begin], [end], [step]))) == \
                z[tuple(sl)].shape
        assert static_shape(infer(R.permute_dims(x))) == z.T.shape
        assert static_shape(infer(R.reshape(x, (-1,)))) == (z.size,)
        assert static_shape(infer(R.flatten(x))) == ((z.size,) if s else (1,))
        assert static_shape(infer(R.expand_dims(x, 0))) == np.expand_dims(z, 0).shape
        assert static_shape(infer(R.squeeze(x))) == np.squeeze(z).shape
        assert static_shape(infer(R.broadcast_to(x, (2,) + s))) == \
            np.broadcast_to(z, (2,) + s).shape


def test_reshape_concat_split_messages():
    c = R.reshape(T((2, 3, 4)), (-1, 8))
    assert [int(v) for v in c.args[1].values] == [3, 8]
    with pytest.raises(ValueError, match=r"relax.reshape: cannot reshape x of shape \(2, 3\) "
                                         r"\(6 elements\) to \(4, 2\) \(8 elements\)"):
        infer(R.reshape(T((2, 3)), (4, 2)))
    a, b = T((2, 3)), T((2, 5), name="b")
    tup = relax.Tuple([a, b])
    assert static_shape(infer(R.concat(tup, axis=1))) == (2, 8)
    assert static_shape(infer(R.concat([a, b], axis=None))) == (16,)
    with pytest.raises(ValueError, match=r"tensors\[0\] \(2, 3\) and tensors\[1\] \(2, 5\) "
                                         r"differ at dimension 1"):
        infer(R.concat(tup, axis=0))
    parts = infer(R.split(T((2, 9)), 3, axis=1))
    assert [static_shape(f) for f in parts.fields] == [a_.shape for a_ in
                                                        np.split(np.zeros((2, 9)), 3, axis=1)]
    parts = infer(R.split(T((10,)), [2, 5, 20]))
    assert [static_shape(f) for f in parts.fields] == [a_.shape for a_ in
                                                        np.split(np.zeros(10), [2, 5, 20])]
    with pytest.raises(ValueError, match=r"relax.squeeze: dimension 1 of x \(2, 3\) is 3"):
        infer(R.squeeze(T((2, 3)), axis=1))


# ---- reductions ------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(2))
def test_reductions_match_numpy(seed):
    rng = np.random.default_rng(300 + seed)
    for trial in range(80):
        s = rand_shape(rng)
        z = np.zeros(s)
        keep = bool(trial % 2)
        axis = None
        if s and trial % 3:
            axis = [int(a) for a in rng.choice(len(s), size=rng.integers(1, len(s) + 1),
                                               replace=False)]
        for f, npf in [(R.sum, np.sum), (R.mean, np.mean), (R.max, np.max), (R.min, np.min)]:
            ax = None if axis is None else tuple(axis)
            expect = npf(z, axis=ax, keepdims=keep).shape
            assert static_shape(infer(f(T(s), axis, keep))) == expect, (s, axis, keep)
        if s:
            a = int(rng.integers(0, len(s)))
            out = infer(R.argmax(T(s), a, keep))
            assert static_shape(out) == np.argmax(np.zeros(s), axis=a, keepdims=keep).shape
            assert out.dtype == "int64"
    with pytest.raises(ValueError,
                       match="relax.sum: axis 2 is out of range for a tensor of rank 2"):
        infer(R.sum(T((3, 4)), axis=2))


# ---- nn --------------------------------------------------------------------------------------


def test_conv2d_pool_norms():
    assert static_shape(infer(R.nn.conv2d(T((1, 3, 32, 32)), T((8, 3, 3, 3), name="w"),
                                          padding=1))) == (1, 8, 32, 32)
    assert static_shape(infer(R.nn.conv2d(T((2, 4, 9, 9)), T((6, 2, 3, 3), name="w"),
                                          strides=2, groups=2))) == (2, 6, 4, 4)
    with pytest.raises(ValueError, match='only data_layout="NCHW" is supported'):
        infer(R.nn.conv2d(T((1, 8, 8, 3)), T((4, 3, 3, 3)), data_layout="NHWC"))
    assert static_shape(infer(R.nn.max_pool2d(T((1, 2, 7, 7)), 2, 2))) == (1, 2, 3, 3)
    assert static_shape(infer(R.nn.max_pool2d(T((1, 2, 7, 7)), 2, 2, ceil_mode=True))) == \
        (1, 2, 4, 4)
    assert static_shape(infer(R.nn.avg_pool2d(T((1, 2, 8, 8)), (3, 3), 1, 1))) == (1, 2, 8, 8)
    assert static_shape(infer(R.nn.adaptive_avg_pool2d(T((1, 2, 7, 7)), 1))) == (1, 2, 1, 1)
    g = T((3,), name="g")
    bn = infer(R.nn.batch_norm(T((4, 3, 5, 5)), g, g, g, g, axis=1))
    assert [static_shape(f) for f in bn.fields] == [(4, 3, 5, 5), (3,), (3,)]
    assert static_shape(infer(R.nn.layer_norm(T((2, 7, 16)), T((16,)), T((16,)), -1))) == \
        (2, 7, 16)
    assert len(infer(R.nn.dropout(T((3, 3)), 0.1)).fields) == 2


# ---- creation, calls, memory -----------------------------------------------------------------


def test_creation_calls_memory():
    z = infer(R.zeros((2, 3), "int32"))
    assert static_shape(z) == (2, 3) and z.dtype == "int32"
    assert infer(R.full((2,), relax.const(1.5, "float16"))).dtype == "float16"
    gv = tvm.ir.GlobalVar("linear")
    out = relax.TensorStructInfo((1, 128), "float32")
    c = R.call_tir(gv, (T((1, 784)), T((784, 128), name="w")), out_sinfo=out)
    assert c.op.name == "relax.call_tir" and isinstance(c.args[1], relax.Tuple)
    assert static_shape(infer(c)) == (1, 128)
    d = R.call_dps_packed("env.linear", [T((1, 784))], out)
    assert isinstance(d.args[0], relax.ExternFunc)
    p = R.call_pure_packed("env.f", T((2,)), sinfo_args=out)
    assert static_shape(infer(p)) == (1, 128)
    assert static_shape(infer(relax.op.builtin.alloc_tensor((2, 3), "float32", 0))) == (2, 3)
    st = relax.op.memory.alloc_storage((24,), 0, "global", "float32")
    assert isinstance(infer(st), relax.ObjectStructInfo)
    s = relax.Var("s", relax.ObjectStructInfo())
    assert static_shape(infer(relax.op.memory.alloc_tensor(s, 0, (2, 3), "float32"))) == (2, 3)
    assert len(infer(relax.op.memory.kill_tensor(T((2,)))).fields) == 0


def test_symbolic_dims_through_ops():
    n = tir.Var("n", "int64")
    x = relax.Var("x", relax.TensorStructInfo([n, 784], "float32"))
    w = T((784, 128), name="w")
    out = infer(R.matmul(x, w))
    assert out.shape.values[0].same_as(n) and int(out.shape.values[1].value) == 128
    flat = infer(R.reshape(x, (-1,)))
    assert len(flat.shape.values) == 1
    red = infer(R.sum(x, axis=0))
    assert static_shape(red) == (784,)
    with pytest.raises(ValueError, match=r"relax.matmul: the reduction dimensions of x1 "
                                         r"\(n, 784\) and x2 \(10, 4\) differ \(784 vs 10\)"):
        infer(R.matmul(x, T((10, 4))))
