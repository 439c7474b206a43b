"""lownumpy reductions, shape manipulation and creation against NumPy (stage 1): random
shapes with empty and size-1 dimensions, random axes with and without keepdims, strided
inputs, NumPy's dtype rules, and the errors for bad input."""
import zlib

import numpy as np
import pytest

import minitvm
from minitvm import lownumpy as lnp

from test_lownumpy_util import FLOATS, NUMERIC, check, fortran, random_array, random_shape
from test_lownumpy_util import strided

ALL = NUMERIC + ["bool"]


def _rng(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def _random_axes(rng, ndim):
    """None (all axes), an int, or a subset of axes in random order and sign."""
    r = rng.random()
    if r < 0.2 or ndim == 0:
        return None
    if r < 0.5:
        return int(rng.integers(-ndim, ndim))
    k = int(rng.integers(0, ndim + 1))
    axes = [int(a) for a in rng.permutation(ndim)[:k]]
    return tuple(a - ndim if rng.random() < 0.3 else a for a in axes)


@pytest.mark.filterwarnings("ignore:Mean of empty slice", "ignore:invalid value encountered")
@pytest.mark.parametrize("name", ["sum", "mean", "prod", "max", "min"])
def test_reductions(name):
    rng = _rng(name)
    op, ref = getattr(lnp, name), getattr(np, name)
    for dtype in ALL:
        if name == "mean" and dtype == "bool":
            continue
        trials = 0
        while trials < 8:
            shape = random_shape(rng)
            axes = _random_axes(rng, len(shape))
            keepdims = bool(rng.random() < 0.5)
            a = random_array(rng, shape, dtype, -2, 2)
            if name == "prod" and dtype in FLOATS:
                a = (np.abs(a) * 0.5 + 0.5).astype(dtype)
            try:
                want = np.asarray(ref(a, axis=axes, keepdims=keepdims))
            except ValueError:  # max/min of an empty reduction: we must raise too
                with pytest.raises(minitvm.error.ValueError, match=f"{name}: zero-size reduction"):
                    op(a, axes, keepdims)
                continue
            if want.dtype == np.float64 and dtype == "float32":
                want = want.astype("float32")  # NumPy's 0-d results may come back as float64
            check(op(a, axes, keepdims), want, kind="accumulate")
            trials += 1
        a = random_array(rng, (3, 4, 5), dtype, -2, 2)
        check(op(strided(a), (0, 2), True), ref(a, axis=(0, 2), keepdims=True), "accumulate")
        check(op(fortran(a), 1), ref(a, axis=1), "accumulate")


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_arg_reductions(name):
    rng = _rng(name)
    op, ref = getattr(lnp, name), getattr(np, name)
    for dtype in ALL:
        for _ in range(8):
            shape = random_shape(rng, allow_empty=False)
            axis = None if len(shape) == 0 or rng.random() < 0.3 else int(
                rng.integers(-len(shape), len(shape)))
            keepdims = bool(rng.random() < 0.5)
            a = random_array(rng, shape, dtype, -2, 2)  # few values: many ties
            check(op(a, axis, keepdims), np.asarray(ref(a, axis=axis, keepdims=keepdims)))
        a = random_array(rng, (4, 6), dtype, -2, 2)
        check(op(strided(a), 1), ref(a, axis=1))
    nan = np.array([[1.0, np.nan, 5.0, np.nan], [2.0, 1.0, 1.0, 0.0]])
    check(op(nan, 1), ref(nan, axis=1))


def test_reduction_errors():
    a = np.ones((2, 3), "float32")
    with pytest.raises(ValueError, match="sum: axis 2 is out of range for an array of 2 dim"):
        lnp.sum(a, 2)
    with pytest.raises(ValueError, match=r"mean: axis -1 is repeated in axes \(1, -1\)"):
        lnp.mean(a, (1, -1))
    with pytest.raises(ValueError, match="argmax: attempt to get argmax of an empty sequence"):
        lnp.argmax(np.zeros((2, 0)), 1)


def test_reshape_flatten_squeeze_expand():
    rng = _rng("reshape")
    a = random_array(rng, (2, 3, 4), "float32")
    for shape in [(4, 6), (-1,), (2, -1, 2), (1, 24, 1), (24,)]:
        check(lnp.reshape(strided(a), shape), a.reshape(shape))
    check(lnp.reshape(np.zeros((0, 3)), (3, 0, 5)), np.zeros((0, 3)).reshape(3, 0, 5))
    check(lnp.flatten(a), a.reshape(-1))
    check(lnp.flatten(fortran(a), 1), a.reshape(2, 12))
    check(lnp.flatten(a, 0, 1), a.reshape(6, 4))
    b = a.reshape(1, 2, 1, 3, 4, 1)
    check(lnp.squeeze(b), np.squeeze(b))
    check(lnp.squeeze(b, (0, -1)), np.squeeze(b, (0, -1)))
    check(lnp.expand_dims(a, 0), np.expand_dims(a, 0))
    check(lnp.expand_dims(strided(a), (-1, 1)), np.expand_dims(a, (-1, 1)))
    with pytest.raises(ValueError, match=r"reshape: cannot reshape an array of shape \(2, 3, 4\)"):
        lnp.reshape(a, (5, 5))
    with pytest.raises(ValueError, match=r"cannot reshape an array of shape \(0, 3\)"):
        lnp.reshape(np.zeros((0, 3)), (3, 0, -1))  # -1 next to a 0 is ambiguous, as in NumPy
    with pytest.raises(ValueError, match="only one dimension"):
        lnp.reshape(a, (-1, -1))
    with pytest.raises(ValueError, match="squeeze: cannot remove axis 1 of size 2"):
        lnp.squeeze(b, 1)


@pytest.mark.parametrize("dtype", ALL + ["int8", "uint8"])
def test_permute_dims(dtype):
    rng = _rng("permute" + dtype)
    for _ in range(5):
        shape = random_shape(rng)
        a = random_array(rng, shape, dtype if dtype in ALL else "int32").astype(dtype)
        axes = tuple(int(i) for i in rng.permutation(len(shape)))
        check(lnp.permute_dims(a, axes), np.transpose(a, axes))
        check(lnp.permute_dims(a), np.transpose(a))
    a = random_array(rng, (2, 3, 4), "float32")
    check(lnp.permute_dims(strided(a), (2, 0, 1)), np.transpose(a, (2, 0, 1)))
    with pytest.raises(ValueError, match=r"permute_dims: axes \(0, 0, 1\)|repeated"):
        lnp.permute_dims(a, (0, 0, 1))


def test_concatenate_and_split():
    rng = _rng("concat")
    for _ in range(6):
        shape = random_shape(rng, ndim=int(rng.integers(1, 4)))
        axis = int(rng.integers(-len(shape), len(shape)))
        parts = []
        for _ in range(int(rng.integers(1, 4))):
            s = list(shape)
            s[axis] = int(rng.integers(0, 4))
            parts.append(random_array(rng, tuple(s), "float64"))
        want = np.concatenate(parts, axis)
        check(lnp.concatenate([strided(p) for p in parts], axis), want)
        for sections in [1, [1], [0, 2], [2, 1], [-1], [1, 10]]:
            got = lnp.split(want, sections, axis)
            exp = np.split(want, sections, axis)
            assert len(got) == len(exp)
            for g, e in zip(got, exp):
                check(g, e)
    a = np.arange(12).reshape(3, 4)
    for g, e in zip(lnp.split(fortran(a), 2, 1), np.split(a, 2, 1)):
        check(g, e)
    with pytest.raises(ValueError, match="split: axis 0 of size 3 does not split into 2 equal"):
        lnp.split(a, 2, 0)
    with pytest.raises(ValueError, match=r"concatenate: array 1 has shape \(4, 3\)"):
        lnp.concatenate([a, a.T], 0)
    with pytest.raises(ValueError, match="operands have different dtypes"):
        lnp.concatenate([a, a.astype("float32")], 0)


def test_broadcast_to():
    rng = _rng("broadcast_to")
    a = random_array(rng, (3, 1), "int32")
    for shape in [(3, 1), (3, 4), (2, 3, 5), (0, 3, 2)]:
        check(lnp.broadcast_to(strided(a), shape), np.broadcast_to(a, shape))
    with pytest.raises(ValueError, match=r"broadcast_to: an operand of shape \(3, 1\) cannot be"):
        lnp.broadcast_to(a, (4, 4))


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_take(mode):
    rng = _rng("take" + mode)
    a = random_array(rng, (3, 4, 5), "float32")
    for axis in [None, 0, 1, -1]:
        n = a.size if axis is None else a.shape[axis]
        lo, hi = (-n, n) if mode == "raise" else (-2 * n, 2 * n)
        for idx_shape in [(), (4,), (2, 3), (0,)]:
            idx = rng.integers(lo, hi, size=idx_shape).astype("int64")
            check(lnp.take(strided(a), idx, axis, mode), np.take(a, idx, axis, mode=mode))
            check(lnp.take(a, idx.astype("int32"), axis, mode),
                  np.take(a, idx, axis, mode=mode))
    if mode == "raise":
        with pytest.raises(ValueError, match="take: index 5 is out of bounds for axis 2 of size 5"):
            lnp.take(a, [5], 2)


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect"])
def test_pad(mode):
    rng = _rng("pad" + mode)
    for dtype in ALL:
        a = random_array(rng, (3, 4, 2), dtype)
        for width in [1, (0, 2), ((1, 0), (2, 1), (0, 1)), 0, ((7, 2), (0, 9), (3, 3))]:
            kw = {"constant_values": 7} if mode == "constant" else {}
            got = lnp.pad(strided(a), width, mode=mode, **kw)
            check(got, np.pad(a, width, mode=mode, **kw))
    with pytest.raises(ValueError, match="pad: mode must be"):
        lnp.pad(np.ones(2), 1, mode="wrap")
    check(lnp.pad(np.ones(1), 3, mode=mode), np.pad(np.ones(1), 3, mode=mode))
    check(lnp.pad(np.zeros((0, 2)), ((0, 0), (1, 1)), mode=mode),
          np.pad(np.zeros((0, 2)), ((0, 0), (1, 1)), mode=mode))
    if mode != "constant":
        with pytest.raises(ValueError, match="pad: cannot pad the empty axis 0"):
            lnp.pad(np.zeros((0, 2)), 1, mode=mode)


def test_creation():
    check(lnp.zeros((2, 3)), np.zeros((2, 3), "float32"))
    check(lnp.ones((0, 2), "int64"), np.ones((0, 2), "int64"))
    check(lnp.full((2,), 2.5, "float64"), np.full((2,), 2.5))
    check(lnp.full((3,), 1, "bool"), np.ones(3, bool))
    for args in [(5,), (1, 7, 2), (0, 1, 0.1), (5, 0, -1.5), (3, 1)]:
        check(lnp.arange(*args, dtype="float64"), np.arange(*args, dtype="float64"))
    check(lnp.arange(-3, 9, 4, dtype="int32"), np.arange(-3, 9, 4, dtype="int32"))
    r = lnp.random_uniform((1000,), -2, 3, seed=11).numpy()
    assert r.dtype == np.float32 and r.min() >= -2 and r.max() < 3 and abs(r.mean() - 0.5) < 0.2
    np.testing.assert_array_equal(r, lnp.random_uniform((1000,), -2, 3, seed=11).numpy())
    assert not np.array_equal(r, lnp.random_uniform((1000,), -2, 3, seed=12).numpy())
    with pytest.raises(ValueError, match="arange"):
        lnp.arange(0, 1, 0)
    with pytest.raises(ValueError, match=r"full: negative dimension in \(2, -1\)"):
        lnp.full((2, -1), 0)
