"""NDArray: creation, copies in and out, printing, bad input (stage 1)."""
import numpy as np
import pytest

import minitvm
from minitvm import nd

ALL_DTYPES = [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64",
]


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_array_round_trip_every_dtype(dtype):
    rng = np.random.default_rng(0)
    src = (rng.random((3, 4)) * 100).astype(dtype)
    a = nd.array(src)
    assert a.shape == (3, 4)
    assert a.dtype == dtype
    out = a.numpy()
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out, src)


def test_array_from_list_and_scalar():
    a = nd.array([[1.0, 2.0], [3.0, 4.0]])
    assert a.dtype == "float64" and a.shape == (2, 2)
    b = nd.array(np.float32(2.5))
    assert b.shape == () and b.numpy() == np.float32(2.5)
    c = nd.array(np.zeros((0, 3), "int32"))
    assert c.shape == (0, 3) and c.numpy().shape == (0, 3)


def test_array_is_a_copy():
    src = np.arange(4, dtype="float32")
    a = nd.array(src)
    src[0] = 100
    assert a.numpy()[0] == 0
    out = a.numpy()
    out[1] = 100
    assert a.numpy()[1] == 1


def test_array_storage_is_aligned_and_compact():
    a = nd.array(np.arange(10, dtype="int64"))
    _, strides, _, _, _, address = minitvm._ffi.core.ndarray_meta(a)
    assert strides == (1,)
    assert (address % 64) == 0
    assert a.is_contiguous


@pytest.mark.parametrize(
    "make",
    [
        lambda x: x.T,  # transposed
        lambda x: x[:, ::2],  # stepped
        lambda x: x[::-1, ::-1],  # negative strides
        lambda x: np.asfortranarray(x),  # column-major
        lambda x: x.astype(x.dtype.newbyteorder(">")),  # big-endian
    ],
    ids=["transposed", "stepped", "reversed", "fortran", "big-endian"],
)
def test_array_from_non_contiguous_numpy(make):
    base = np.arange(24, dtype="float32").reshape(4, 6)
    src = make(base)
    a = nd.array(src)
    assert a.is_contiguous
    np.testing.assert_array_equal(a.numpy(), src)


def test_print_like_numpy():
    b = nd.array(np.arange(1, 9, dtype="float32"))
    assert str(b) == "[1. 2. 3. 4. 5. 6. 7. 8.]"
    assert str(b) == str(b.numpy())
    assert repr(b).startswith("<minitvm.nd.NDArray shape=(8,), cpu(0)>\narray([1., 2.")


def test_empty():
    a = nd.empty((2, 3))
    assert a.shape == (2, 3) and a.dtype == "float32" and a.device == minitvm.cpu(0)
    b = nd.empty(5, "int8", minitvm.cpu())
    assert b.shape == (5,) and b.dtype == "int8"
    c = nd.empty((np.int64(2), 2), np.float64)
    assert c.shape == (2, 2) and c.dtype == "float64"
    assert nd.empty(()).shape == ()


def test_empty_bad_shape():
    with pytest.raises(minitvm.error.ValueError, match=r"negative dimension in shape \(2, -1\)"):
        nd.empty((2, -1))
    with pytest.raises(minitvm.error.ValueError, match="more elements than an int64 can count"):
        nd.empty((1 << 40, 1 << 40))
    with pytest.raises(minitvm.error.TypeError, match="shape must be an int or a sequence"):
        nd.empty(None)
    with pytest.raises(minitvm.error.TypeError, match="expected int but got str"):
        nd.empty(("a",))


def test_empty_bad_dtype():
    with pytest.raises(minitvm.error.ValueError, match='unknown dtype "floot32"'):
        nd.empty((2,), "floot32")


def test_empty_on_missing_device():
    if minitvm.cuda(0).exist:
        pytest.skip("a CUDA device is present")
    with pytest.raises(minitvm.error.RuntimeError, match="no device API for cuda|no CUDA (driver|device)"):
        nd.empty((2,), "float32", minitvm.cuda(0))


def test_copyfrom_numpy_list_and_ndarray():
    a = nd.empty((2, 2), "float32")
    assert a.copyfrom(np.ones((2, 2), "float32")) is a
    np.testing.assert_array_equal(a.numpy(), np.ones((2, 2)))
    a.copyfrom([[1, 2], [3, 4]])  # ints → float32 keeps the kind "number"
    np.testing.assert_array_equal(a.numpy(), [[1, 2], [3, 4]])
    a.copyfrom(np.full((2, 2), 7.0))  # float64 → float32
    b = nd.empty((2, 2), "float32").copyfrom(a)
    np.testing.assert_array_equal(b.numpy(), np.full((2, 2), 7.0))
    a[:] = 3.0
    np.testing.assert_array_equal(a.numpy(), np.full((2, 2), 3.0))
    a.copyfrom(np.arange(4, dtype="float32").reshape(2, 2).T)  # non-contiguous source
    np.testing.assert_array_equal(a.numpy(), [[0, 2], [1, 3]])


def test_copyfrom_shape_mismatch():
    a = nd.empty((2, 2), "float32")
    with pytest.raises(minitvm.error.ValueError,
                       match=r"copyfrom: the source has shape \(4,\) but the array has shape \(2, 2\)"):
        a.copyfrom(np.zeros(4, "float32"))
    with pytest.raises(ValueError, match=r"source has shape \(3,\) and float32 but the destination "
                                         r"has shape \(2, 2\) and float32"):
        a.copyfrom(nd.empty((3,), "float32"))


def test_copyfrom_dtype_mismatch():
    a = nd.empty((2,), "int32")
    with pytest.raises(minitvm.error.ValueError,
                       match="cannot copy float64 data into a int32 array without changing its kind"):
        a.copyfrom(np.array([1.5, 2.5]))
    with pytest.raises(minitvm.error.ValueError, match="and float32 but the destination has shape"):
        a.copyfrom(nd.empty((2,), "float32"))


def test_copyto_array_and_device():
    a = nd.array(np.arange(3, dtype="int32"))
    b = nd.empty((3,), "int32")
    assert a.copyto(b) is b
    np.testing.assert_array_equal(b.numpy(), [0, 1, 2])
    c = a.copyto(minitvm.cpu(0))
    assert not c.same_as(a)
    np.testing.assert_array_equal(c.numpy(), [0, 1, 2])
    with pytest.raises(minitvm.error.TypeError, match="copyto: expected an NDArray or a Device"):
        a.copyto("cpu")


def test_numpy_view_aliases_and_keeps_alive():
    a = nd.array(np.zeros(4, "float32"))
    view = a.numpy_view()
    view[2] = 5
    assert a.numpy()[2] == 5
    del a  # the view holds the NDArray
    view[3] = 6
    np.testing.assert_array_equal(view, [0, 0, 5, 6])


def test_asnumpy_and_array_protocol():
    a = nd.array(np.arange(3, dtype="int64"))
    np.testing.assert_array_equal(a.asnumpy(), [0, 1, 2])
    np.testing.assert_array_equal(np.asarray(a), [0, 1, 2])


def test_unsupported_numpy_dtype():
    with pytest.raises(minitvm.error.TypeError, match="NumPy dtype complex128 has no minitvm dtype"):
        nd.array(np.zeros(2, complex))


def test_vector_and_bfloat16_dtypes():
    v = nd.empty((3,), "float32x4")
    assert v.dtype == "float32x4"
    assert v.numpy_view().shape == (3, 4)
    bf = nd.empty((2,), "bfloat16")
    with pytest.raises(minitvm.error.TypeError, match="NumPy has no dtype for bfloat16"):
        bf.numpy()


def test_ndarray_identity_and_hash():
    a = nd.empty((1,))
    echo = minitvm.get_global_func("testing.ffi.Echo")
    b = echo(a)
    assert b is not a and b == a and b.same_as(a) and hash(a) == hash(b)
    assert a != nd.empty((1,))
    assert a.type_key == "runtime.NDArray"
