"""lownumpy elementwise operators against NumPy (stage 1): every operator, every dtype it
takes, random broadcasting shapes with empty and size-1 dimensions, strided inputs, and
the errors for bad input. Tolerances: see test_lownumpy_util.TOL."""
import math
import zlib

import numpy as np
import pytest

import minitvm
from minitvm import lownumpy as lnp

from test_lownumpy_util import FLOATS, INTS, NUMERIC, broadcast_partner, check, random_array
from test_lownumpy_util import fortran, random_shape, strided

_erf = np.vectorize(math.erf, otypes=[np.float64])

# name → (NumPy reference, dtypes, (low, high) of the second operand or None)
BINARY = {
    "add": (np.add, NUMERIC + ["bool"], None),
    "subtract": (np.subtract, NUMERIC, None),
    "multiply": (np.multiply, NUMERIC + ["bool"], None),
    "divide": (np.divide, FLOATS, (0.5, 3.0)),
    "floor_divide": (np.floor_divide, NUMERIC, (1, 4)),
    "mod": (np.mod, NUMERIC, (1, 4)),
    "power": (np.power, NUMERIC, (0, 3)),
    "maximum": (np.maximum, NUMERIC + ["bool"], None),
    "minimum": (np.minimum, NUMERIC + ["bool"], None),
    "equal": (np.equal, NUMERIC + ["bool"], None),
    "not_equal": (np.not_equal, NUMERIC + ["bool"], None),
    "less": (np.less, NUMERIC + ["bool"], None),
    "less_equal": (np.less_equal, NUMERIC + ["bool"], None),
    "greater": (np.greater, NUMERIC + ["bool"], None),
    "greater_equal": (np.greater_equal, NUMERIC + ["bool"], None),
    "logical_and": (np.logical_and, NUMERIC + ["bool"], None),
    "logical_or": (np.logical_or, NUMERIC + ["bool"], None),
    "logical_xor": (np.logical_xor, NUMERIC + ["bool"], None),
}


def _operands(rng, name, dtype, shape_a, shape_b):
    a = random_array(rng, shape_a, dtype)
    rng_b = BINARY[name][2]
    if rng_b is None:
        b = random_array(rng, shape_b, dtype)
    else:
        b = random_array(rng, shape_b, dtype, *rng_b)
        if dtype in INTS and name in ("floor_divide", "mod"):
            b = b * np.where(rng.random(shape_b) < 0.5, -1, 1).astype(dtype)  # both signs
    if name == "power" and dtype in FLOATS:
        a = (np.abs(a) + 0.1).astype(dtype)
    return a, b


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_random_broadcasting(name):
    ref, dtypes, _ = BINARY[name]
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    op = getattr(lnp, name)
    predicate = name.startswith(("equal", "not_", "less", "greater", "logical"))
    for dtype in dtypes:
        out_dtype = "bool" if predicate else dtype
        for trial in range(6):
            shape_a = random_shape(rng)
            shape_b = broadcast_partner(rng, shape_a)
            if trial % 2:
                shape_a, shape_b = shape_b, shape_a
            a, b = _operands(rng, name, dtype, shape_a, shape_b)
            check(op(a, b), ref(a, b), dtype=out_dtype)
        # Strided operands give the same result.
        a, b = _operands(rng, name, dtype, (3, 4), (4,))
        check(op(strided(a), strided(b)), ref(a, b))
        check(op(fortran(a), b), ref(a, b))


@pytest.mark.parametrize("dtype", FLOATS)
def test_float_floor_divide_and_mod_signs(dtype):
    rng = np.random.default_rng(0)
    a = rng.uniform(-10, 10, 200).astype(dtype)
    b = rng.uniform(-3, 3, 200).astype(dtype)
    b[np.abs(b) < 0.1] = 0.5
    check(lnp.floor_divide(a, b), np.floor_divide(a, b))
    check(lnp.mod(a, b), np.mod(a, b))
    # Exact multiples give a zero with the divisor's sign.
    m = lnp.mod(np.array([4.0, -4.0], dtype), np.array([-2.0, 2.0], dtype)).numpy()
    assert list(np.signbit(m)) == [True, False]


def test_integer_division_by_zero_and_overflow():
    a = np.array([7, -7, 0], "int32")
    z = np.zeros(3, "int32")
    with np.errstate(divide="ignore"):
        check(lnp.floor_divide(a, z), np.floor_divide(a, z))
        check(lnp.mod(a, z), np.mod(a, z))
    big = np.array([2**31 - 1], "int32")
    check(lnp.add(big, np.array([1], "int32")), np.array([-(2**31)], "int32"))
    check(lnp.multiply(big, big), big * big)
    check(lnp.divide(a, np.array([2, 2, 2], "int32")), a / 2)


def test_scalars_take_the_array_dtype():
    x = np.arange(4, dtype="float32")
    check(lnp.add(x, 1), x + np.float32(1))
    check(lnp.multiply(2, x), 2 * x)
    check(lnp.power(np.arange(4, dtype="int64"), 2), np.arange(4) ** 2)


UNARY = {
    "negative": (np.negative, NUMERIC, (-3, 3)),
    "abs": (np.abs, NUMERIC, (-3, 3)),
    "exp": (np.exp, FLOATS, (-5, 5)),
    "log": (np.log, FLOATS, (0.01, 5)),
    "sqrt": (np.sqrt, FLOATS, (0, 5)),
    "rsqrt": (lambda v: 1 / np.sqrt(v), FLOATS, (0.01, 5)),
    "tanh": (np.tanh, FLOATS, (-5, 5)),
    "sigmoid": (lambda v: 1 / (1 + np.exp(-v)), FLOATS, (-20, 20)),
    "erf": (lambda v: _erf(v).astype(v.dtype), FLOATS, (-3, 3)),
    "relu": (lambda v: np.maximum(v, 0), NUMERIC, (-3, 3)),
    "logical_not": (np.logical_not, NUMERIC + ["bool"], (-2, 2)),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name):
    ref, dtypes, (low, high) = UNARY[name]
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    op = getattr(lnp, name)
    for dtype in dtypes:
        # NumPy turns 0-d results into scalars that Python constants may promote; the
        # result dtype is the input's (bool for logical_not).
        out_dtype = "bool" if name == "logical_not" else dtype
        for _ in range(4):
            a = random_array(rng, random_shape(rng), dtype, low, high)
            check(op(a), ref(a), dtype=out_dtype)
        a = random_array(rng, (2, 3, 4), dtype, low, high)
        check(op(strided(a)), ref(a), dtype=out_dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_gelu(dtype):
    x = np.linspace(-5, 5, 101).astype(dtype)
    exact = (0.5 * x * (1 + _erf(x / np.sqrt(2)))).astype(dtype)
    check(lnp.gelu(x), exact)
    tanh = (0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))).astype(dtype)
    check(lnp.gelu(strided(x), approximate="tanh"), tanh)


def test_gelu_against_torch(torch):
    x = np.linspace(-4, 4, 33).astype("float32")
    for approx in ("none", "tanh"):
        want = torch.nn.functional.gelu(torch.from_numpy(x), approximate=approx).numpy()
        check(lnp.gelu(x, approx), want)


def test_nan_propagation():
    a = np.array([1.0, np.nan, 3.0, np.nan])
    b = np.array([np.nan, 2.0, 1.0, np.nan])
    check(lnp.maximum(a, b), np.maximum(a, b))
    check(lnp.minimum(a, b), np.minimum(a, b))
    check(lnp.relu(a), np.array([1.0, np.nan, 3.0, np.nan]))
    check(lnp.clip(a, 0, 2), np.clip(a, 0, 2))


@pytest.mark.parametrize("dtype", NUMERIC + ["bool"])
def test_where(dtype):
    rng = np.random.default_rng(5)
    for _ in range(6):
        shape = random_shape(rng)
        c = rng.random(broadcast_partner(rng, shape)) < 0.5
        x = random_array(rng, shape, dtype)
        y = random_array(rng, broadcast_partner(rng, shape), dtype)
        check(lnp.where(c, x, y), np.where(c, x, y))
    # A numeric condition: nonzero is true.
    c = np.array([0, 2, -1], "int32")
    check(lnp.where(strided(c), np.ones(3, "float32"), 0), np.where(c, 1, 0).astype("float32"))


@pytest.mark.parametrize("dtype", NUMERIC)
def test_clip(dtype):
    rng = np.random.default_rng(6)
    a = random_array(rng, (4, 5), dtype, -10, 10)
    check(lnp.clip(a, -2, 3), np.clip(a, -2, 3))
    check(lnp.clip(strided(a), None, 0), np.clip(a, None, 0))
    check(lnp.clip(a, 5, 1), np.clip(a, 5, 1))  # a_min > a_max: everything a_max


CAST_TYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "float32", "float64"]


@pytest.mark.parametrize("src", CAST_TYPES)
def test_cast(src):
    rng = np.random.default_rng(7)
    if src in ("float32", "float64"):
        a = rng.uniform(-100, 100, (3, 4)).astype(src)
    elif src == "bool":
        a = rng.random((3, 4)) < 0.5
    else:
        a = rng.integers(0 if src == "uint8" else -100, 100, (3, 4)).astype(src)
    for dst in CAST_TYPES:
        values = a
        if dst == "uint8" and src in ("float32", "float64"):
            values = np.abs(a)  # negative float → unsigned is undefined in NumPy
        check(lnp.cast(values, dst), values.astype(dst))
    check(lnp.cast(strided(a), "float64"), a.astype("float64"))
    if src != "bool":
        check(lnp.cast(fortran(a), "bool"), a.astype("bool"))


def test_empty_arrays():
    e = np.zeros((0, 3), "float32")
    check(lnp.add(e, np.ones(3, "float32")), e + 1)
    check(lnp.exp(e), np.exp(e))
    check(lnp.less(e, np.zeros((1, 3), "float32")), e < 0)


def test_errors_name_the_operator():
    a = np.ones((2, 3), "float32")
    with pytest.raises(minitvm.error.ValueError, match=r"add: shapes \(2, 3\) and \(4,\) do not"):
        lnp.add(a, np.ones(4, "float32"))
    with pytest.raises(ValueError, match="subtract: operands have different dtypes float32 and"):
        lnp.subtract(a, np.ones(3, "float64"))
    with pytest.raises(ValueError, match="exp: unsupported dtype int64"):
        lnp.exp(np.ones(3, "int64"))
    with pytest.raises(ValueError, match="subtract: unsupported dtype bool"):
        lnp.subtract(np.ones(2, bool), np.ones(2, bool))
    with pytest.raises(ValueError, match="power: integers to negative integer powers"):
        lnp.power(np.array([2], "int32"), np.array([-1], "int32"))
    with pytest.raises(ValueError, match="cast: unsupported dtype float16"):
        lnp.cast(a, "float16")
    with pytest.raises(ValueError, match='gelu: approximate must be "none" or "tanh"'):
        lnp.gelu(a, "fast")
