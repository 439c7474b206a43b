"""Helpers shared by the lownumpy tests (this module holds no tests itself).

- ``TOL``: the tolerances per dtype, stated once: float32 results must agree with NumPy to
  rtol 1e-5 (elementwise) and 1e-4 (anything that accumulates: reductions, matmul, conv,
  pooling, normalisation, models); float64 to 1e-12 and 1e-10; integers and bools exactly.
- ``check``: compare a minitvm result with a NumPy reference, dtype and shape included.
- ``strided``: the same values as a *non-contiguous* NDArray (a strided DLPack view of a
  larger NumPy buffer), to test that every operator honours strides.
- ``random_array`` / ``random_shape`` / ``broadcast_partner``: seeded random inputs with
  empty and size-1 dimensions.
"""
import numpy as np

import minitvm

FLOATS = ["float32", "float64"]
INTS = ["int32", "int64"]
NUMERIC = FLOATS + INTS

#: (rtol, atol) per dtype for elementwise results and for accumulated results.
TOL = {
    "float32": {"elementwise": (1e-5, 1e-6), "accumulate": (1e-4, 1e-4)},
    "float64": {"elementwise": (1e-12, 1e-12), "accumulate": (1e-10, 1e-10)},
}


def check(result, expected, kind="elementwise", dtype=None):
    """Assert that the NDArray ``result`` equals the NumPy array ``expected``: same shape and
    dtype (``dtype`` overrides the expected dtype), values within the tolerance of ``kind``
    for floats and exactly otherwise."""
    assert isinstance(result, minitvm.nd.NDArray), type(result)
    got = result.numpy()
    expected = np.asarray(expected)
    want_dtype = np.dtype(dtype) if dtype is not None else expected.dtype
    assert got.shape == expected.shape, f"shape {got.shape} != {expected.shape}"
    assert got.dtype == want_dtype, f"dtype {got.dtype} != {want_dtype}"
    if got.dtype.name in TOL:
        rtol, atol = TOL[got.dtype.name][kind]
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected)


def strided(x):
    """``x`` as a non-contiguous NDArray: a zero-copy DLPack view taking every other element
    of each axis of a twice larger NumPy buffer. (NumPy 1.24 cannot export bool arrays
    through DLPack; those come back compact.)"""
    x = np.asarray(x)
    if x.dtype == np.bool_:
        return minitvm.nd.array(x)
    big = np.zeros(tuple(2 * d + 1 for d in x.shape), dtype=x.dtype)
    view = big[tuple(slice(1, None, 2) for _ in x.shape)]
    view[...] = x
    nd = minitvm.nd.from_dlpack(view)
    if x.size > 1 and x.ndim > 0:
        assert not nd.is_contiguous
    return nd


def fortran(x):
    """``x`` as a column-major (transposed-strides) NDArray, a zero-copy DLPack view."""
    x = np.asarray(x)
    if x.dtype == np.bool_:
        return minitvm.nd.array(x)
    return minitvm.nd.from_dlpack(np.asfortranarray(x))


def random_shape(rng, ndim=None, allow_empty=True):
    """A shape of rank 0..4 with dimensions from {1, 2, 3, 5} (and 0 when allowed)."""
    if ndim is None:
        ndim = int(rng.integers(0, 5))
    dims = [1, 2, 3, 5] + ([0] if allow_empty else [])
    return tuple(int(rng.choice(dims)) for _ in range(ndim))


def broadcast_partner(rng, shape):
    """A shape that broadcasts with ``shape``: some dimensions set to 1, some leading ones
    dropped, sometimes extra leading dimensions added."""
    out = [1 if rng.random() < 0.4 else d for d in shape]
    if rng.random() < 0.5:
        out = out[int(rng.integers(0, len(out) + 1)) :]
    elif rng.random() < 0.5:
        out = [int(rng.choice([1, 2]))] + out
    return tuple(out)


def random_array(rng, shape, dtype, low=-3.0, high=3.0):
    """Random values of ``dtype``: uniform floats, integers in [low, high], random bools."""
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if dtype in INTS:
        return np.asarray(rng.integers(int(low), int(high) + 1, size=shape)).astype(dtype)
    return np.asarray(rng.uniform(low, high, size=shape)).astype(dtype)
