"""Stage 5: vector math from Python — exp, log, tanh, erf and sigmoid on vectorized loops (which
the LLVM code generator turns into calls of glibc's libmvec, ``_ZGVdN8v_expf`` on AVX2) against
NumPy in float64, special values included; a vectorized softmax; export/load of such a module."""
import math
import platform

import numpy as np
import pytest

import minitvm as tvm
from conftest import requires_global

pytestmark = pytest.mark.usefixtures("_needs_llvm")

SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 88.7, 89.0, 100.0, -87.3, -95.0,
           -103.0, -104.0, -110.0, 1e-30, 1e-40, -1e-40, 1e-45, 3e38, -3e38, 0.5, -0.5, 1e-8, 20.0,
           -20.0, 9.0, -9.0]


@pytest.fixture(name="_needs_llvm")
def _needs_llvm_fixture():
    requires_global("target.build.llvm")
    requires_global("driver.build")
    pytest.importorskip("minitvm.te")
    pytest.importorskip("minitvm.tir.schedule")


def _te():
    from minitvm import te, tir  # pylint: disable=import-outside-toplevel

    return te, tir


def _vectorized(func, lanes, blocks):
    from minitvm.tir import Schedule  # pylint: disable=import-outside-toplevel

    sch = Schedule(func)
    for name in blocks:
        loops = sch.get_loops(sch.get_block(name))
        _, inner = sch.split(loops[-1], factors=[None, lanes])
        sch.vectorize(inner)
    return sch.mod


def _unary(op, n, lanes, dtype="float32"):
    te, tir = _te()
    x = te.placeholder((n,), dtype, name="x")
    y = te.compute((n,), lambda i: getattr(tir, op)(x[i]), name="y")
    return _vectorized(te.create_prim_func([x, y]), lanes, ["y"])


def _build(mod, target="llvm -mcpu=native"):
    from minitvm import driver  # pylint: disable=import-outside-toplevel

    return driver.build(mod, target=target)


def _reference(op, x):
    """``op`` in float64 (for float32 inputs: exact enough to be the correctly rounded value)."""
    x = x.astype("float64")
    with np.errstate(all="ignore"):
        if op == "erf":
            return np.vectorize(math.erf, otypes=["float64"])(x)
        if op == "sigmoid":
            # exp(-|x|) does not overflow.
            e = np.exp(-np.abs(x))
            return np.where(x < 0, e, 1.0) / (1.0 + e)
        return getattr(np, op)(x)


def _ulp_error(got, want):
    """Distance in float32 ulps between two float32 arrays (0 where both are NaN)."""
    def ordinal(a):
        i = a.astype("float32").view("int32").astype("int64")
        return np.where(i < 0, -(2**31) - i, i)

    both_nan = np.isnan(got) & np.isnan(want)
    dist = np.abs(ordinal(got) - ordinal(want))
    # -0.0 and 0.0 have the same ordinal: the sign of a zero must still be right.
    wrong_zero_sign = (got == 0) & (want == 0) & (np.signbit(got) != np.signbit(want))
    return np.where(both_nan, 0, np.where(wrong_zero_sign, 1 << 40, dist))


def _inputs(op, n, seed):
    rng = np.random.default_rng(seed)
    scale = 100.0 if op in ("exp", "sigmoid") else 10.0
    # Uniform values where the function varies; log-uniform magnitudes from the denormals to
    # the largest floats.
    half = (n - len(SPECIAL)) // 2
    rest = n - len(SPECIAL) - half
    values = np.concatenate([np.array(SPECIAL), rng.uniform(-scale, scale, half),
                             rng.choice([-1, 1], rest) * 10.0 ** rng.uniform(-45, 38, rest)])
    return values.astype("float32")


@pytest.mark.parametrize("op", ["exp", "log", "tanh", "erf", "sigmoid"])
@pytest.mark.parametrize("lanes", [8, 16, 4, 5])
def test_vectorized_math_matches_numpy_in_float64(op, lanes):
    n = 4000
    rt_mod = _build(_unary(op, n, lanes))
    x = _inputs(op, n, seed=lanes)
    y = tvm.nd.empty((n,), "float32")
    rt_mod(tvm.nd.array(x), y)
    with np.errstate(over="ignore"):
        want = _reference(op, x).astype("float32")
    err = _ulp_error(y.numpy(), want)
    worst = int(np.argmax(err))
    assert err.max() <= 4, f"{op}({x[worst]!r}) = {y.numpy()[worst]!r}, want {want[worst]!r}"


def test_ir_calls_libmvec_on_x86_64():
    if platform.machine() != "x86_64":
        pytest.skip("libmvec's vector variants are x86-64 functions")
    ll = _build(_unary("tanh", 64, 8)).get_source("ll")
    assert "@_ZGV" in ll and "v_tanhf(" in ll
    assert "@tanhf(" not in ll


@pytest.mark.parametrize("lanes", [8, 5])
def test_vectorized_pow_calls_the_two_argument_variant(lanes):
    """pow of two vectors: libmvec's ``vv`` variants, within 4 ulps of the float64 result."""
    te, tir = _te()
    n = 2000
    a = te.placeholder((n,), "float32", name="a")
    b = te.placeholder((n,), "float32", name="b")
    y = te.compute((n,), lambda i: tir.pow(a[i], b[i]), name="y")
    rt_mod = _build(_vectorized(te.create_prim_func([a, b, y]), lanes, ["y"]))
    if platform.machine() == "x86_64":
        assert "vv_powf(" in rt_mod.get_source("ll")
    rng = np.random.default_rng(lanes)
    base = rng.uniform(0, 10, n).astype("float32")
    base[:6] = [0.0, 1.0, -2.0, np.inf, np.nan, 2.0]
    expo = rng.uniform(-8, 8, n).astype("float32")
    expo[:6] = [2.0, np.nan, 3.0, -1.0, 0.0, 0.5]
    out = tvm.nd.empty((n,), "float32")
    rt_mod(tvm.nd.array(base), tvm.nd.array(expo), out)
    with np.errstate(all="ignore"):
        want = np.power(base.astype("float64"), expo.astype("float64")).astype("float32")
    err = _ulp_error(out.numpy(), want)
    worst = int(np.argmax(err))
    assert err.max() <= 4, f"pow({base[worst]!r}, {expo[worst]!r}) = {out.numpy()[worst]!r}"


def _softmax(rows, cols, lanes):
    """softmax over the last axis (inputs are small: no max subtraction), exp and the division
    vectorized."""
    te, tir = _te()
    x = te.placeholder((rows, cols), "float32", name="x")
    e = te.compute((rows, cols), lambda i, j: tir.exp(x[i, j]), name="e")
    k = te.reduce_axis((0, cols), name="k")
    s = te.compute((rows,), lambda i: te.sum(e[i, k], axis=k), name="s")
    y = te.compute((rows, cols), lambda i, j: e[i, j] / s[i], name="y")
    return _vectorized(te.create_prim_func([x, y]), lanes, ["e", "y"])


def test_vectorized_softmax_matches_numpy():
    rt_mod = _build(_softmax(32, 200, 8))
    x_np = np.random.default_rng(3).uniform(-10, 10, (32, 200)).astype("float32")
    out = tvm.nd.empty((32, 200), "float32")
    rt_mod(tvm.nd.array(x_np), out)
    e = np.exp(x_np.astype("float64"))
    np.testing.assert_allclose(out.numpy(), e / e.sum(axis=-1, keepdims=True), rtol=2e-6,
                               atol=1e-12)


def test_export_library_and_load_module_with_vector_math(tmp_path):
    te, tir = _te()
    n = 1024
    x = te.placeholder((n,), "float32", name="x")
    y = te.compute((n,), lambda i: tir.tanh(x[i]) + tir.erf(x[i]) * tir.exp(x[i]), name="y")
    rt_mod = _build(_vectorized(te.create_prim_func([x, y]), 8, ["y"]))
    path = tmp_path / "vecmath.so"
    rt_mod.export_library(str(path))
    loaded = tvm.runtime.load_module(str(path))
    assert loaded.kind == "library"
    x_np = np.random.default_rng(4).uniform(-5, 5, n).astype("float32")
    want = tvm.nd.empty((n,), "float32")
    got = tvm.nd.empty((n,), "float32")
    rt_mod(tvm.nd.array(x_np), want)
    loaded["main"](tvm.nd.array(x_np), got)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    ref = np.tanh(x_np.astype("float64")) + _reference("erf", x_np) * np.exp(x_np.astype("float64"))
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-5, atol=1e-6)
