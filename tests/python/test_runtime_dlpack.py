"""Zero-copy exchange through DLPack with NumPy and PyTorch (stage 1).

Each test checks *sharing* (a write through one side is read through the other) and
*lifetime* (the side that made the memory can go first).
"""
import gc

import numpy as np
import pytest

import minitvm
from minitvm import nd


def test_numpy_to_ndarray_shares_memory():
    src = np.arange(6, dtype="float32").reshape(2, 3)
    a = nd.from_dlpack(src)
    assert a.shape == (2, 3) and a.dtype == "float32"
    src[1, 2] = 42  # write through NumPy ...
    assert a.numpy()[1, 2] == 42  # ... read through minitvm
    a.copyfrom(np.full((2, 3), 7, "float32"))  # write through minitvm ...
    assert src[0, 0] == 7  # ... read through NumPy


def test_numpy_source_can_go_first():
    src = np.arange(1000, dtype="int64")
    a = nd.from_dlpack(src)
    del src
    gc.collect()
    np.testing.assert_array_equal(a.numpy(), np.arange(1000))


def test_ndarray_to_numpy_shares_memory_and_lifetime():
    a = nd.array(np.zeros(5, "float64"))
    view = np.from_dlpack(a)  # NumPy 1.x makes DLPack imports read-only
    minitvm.get_global_func("testing.ffi.Echo")  # unrelated call in between
    a.copyfrom(np.arange(5, dtype="float64"))
    np.testing.assert_array_equal(view, np.arange(5))
    del a
    gc.collect()
    np.testing.assert_array_equal(view, np.arange(5))


def test_capsule_is_consumed_once():
    a = nd.array(np.arange(3, dtype="int32"))
    capsule = a.to_dlpack()
    b = nd.from_dlpack(capsule)
    assert "used_dltensor" in repr(capsule)
    assert b.numpy().tolist() == [0, 1, 2]
    with pytest.raises(minitvm.error.ValueError, match="DLPack capsule was already consumed"):
        nd.from_dlpack(capsule)
    with pytest.raises(ValueError):  # the builtin class catches it too
        nd.from_dlpack(capsule)


def test_unconsumed_capsule_is_freed():
    a = nd.array(np.arange(3, dtype="int32"))
    count = minitvm.get_global_func("runtime.ObjectUseCount")
    before = count(a)
    capsule = a.to_dlpack()
    assert count(a) == before + 1  # the capsule's tensor holds the array
    del capsule
    gc.collect()
    assert count(a) == before


def test_ndarray_from_ndarray_aliases():
    a = nd.array(np.zeros(3, "float32"))
    b = nd.from_dlpack(a)
    a.copyfrom(np.ones(3, "float32"))
    assert b.numpy().tolist() == [1, 1, 1]


def test_strided_numpy_gives_strided_ndarray():
    base = np.arange(24, dtype="float32").reshape(4, 6)
    src = base[:, ::2]
    a = nd.from_dlpack(src)
    assert a.shape == (4, 3)
    assert a.strides == (6, 2)
    assert not a.is_contiguous
    np.testing.assert_array_equal(a.numpy(), src)
    base[0, 2] = -1
    assert a.numpy()[0, 1] == -1
    b = nd.empty((4, 3), "float32").copyfrom(a)  # strided → compact copy
    np.testing.assert_array_equal(b.numpy(), src)
    t = nd.from_dlpack(base.T)
    assert t.strides == (1, 6)
    np.testing.assert_array_equal(t.numpy(), base.T)


def test_buffer_not_64_byte_aligned_works():
    raw = np.zeros(128, dtype="uint8")
    start = (-raw.ctypes.data) % 64 + 4  # 4 bytes past a 64-byte boundary
    src = raw[start : start + 16].view("float32")
    src[:] = [1, 2, 3, 4]
    a = nd.from_dlpack(src)
    assert a.numpy().tolist() == [1, 2, 3, 4]


def test_misaligned_elements_are_refused():
    raw = np.zeros(128, dtype="uint8")
    start = (-raw.ctypes.data) % 8 + 1  # float32 elements at an odd address
    src = raw[start : start + 16].view("float32")
    with pytest.raises(minitvm.error.ValueError,
                       match="not aligned to the 4-byte elements of float32; copy the tensor"):
        nd.from_dlpack(src)


def _producer_refuses(x):
    """Whether this NumPy/PyTorch version refuses to export `x` through DLPack."""
    try:
        x.__dlpack__()
    except Exception:  # noqa: BLE001 (each library raises its own kind)
        return True
    return False


def test_refusals_of_the_producer_become_value_errors():
    flags = np.array([True, False, True])
    if _producer_refuses(flags):  # NumPy 1.x does not export bool; NumPy 2 does
        with pytest.raises(minitvm.error.ValueError, match="ndarray cannot export this tensor"):
            nd.from_dlpack(flags)
    else:
        assert nd.from_dlpack(flags).numpy().tolist() == [True, False, True]
    ro = np.zeros(3)
    ro.flags.writeable = False
    with pytest.raises(minitvm.error.ValueError, match="readonly"):
        nd.from_dlpack(ro)


def test_from_dlpack_of_a_non_tensor():
    with pytest.raises(minitvm.error.TypeError, match="expects an object with __dlpack__"):
        nd.from_dlpack([1, 2, 3])


def test_dlpack_device():
    a = nd.empty((1,))
    assert a.__dlpack_device__() == (1, 0)


# ---- PyTorch ----------------------------------------------------------------------------


def test_torch_to_ndarray_shares_memory(torch):
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    a = nd.from_dlpack(t)
    assert a.shape == (2, 3) and a.dtype == "float32"
    t[0, 1] = 9
    assert a.numpy()[0, 1] == 9
    a.copyfrom(np.full((2, 3), 5, "float32"))
    assert float(t[1, 1]) == 5


def test_torch_source_can_go_first(torch):
    t = torch.arange(100, dtype=torch.int64)
    a = nd.from_dlpack(t)
    del t
    gc.collect()
    assert a.numpy().tolist() == list(range(100))


def test_ndarray_to_torch_shares_memory(torch):
    a = nd.array(np.zeros((2, 2), "float32"))
    t = torch.utils.dlpack.from_dlpack(a.to_dlpack())
    t += 3  # write through torch ...
    np.testing.assert_array_equal(a.numpy(), np.full((2, 2), 3))  # ... read through minitvm
    a.copyfrom(np.ones((2, 2), "float32"))
    assert t.sum().item() == 4
    t2 = torch.from_dlpack(a)  # the __dlpack__ protocol
    a[:] = 2.0
    assert t2.sum().item() == 8


def test_ndarray_outlived_by_torch(torch):
    a = nd.array(np.arange(4, dtype="float64"))
    t = torch.utils.dlpack.from_dlpack(a.to_dlpack())
    del a
    gc.collect()
    assert t.tolist() == [0, 1, 2, 3]


def test_strided_torch_tensor(torch):
    base = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    a = nd.from_dlpack(base.t())
    assert a.shape == (4, 3) and a.strides == (1, 4)
    np.testing.assert_array_equal(a.numpy(), base.t().numpy())


def test_torch_refusal_becomes_value_error(torch):
    flags = torch.tensor([True, False])
    if _producer_refuses(flags):  # older PyTorch does not export bool
        with pytest.raises(minitvm.error.ValueError, match="Tensor cannot export this tensor"):
            nd.from_dlpack(flags)
    else:
        assert nd.from_dlpack(flags).numpy().tolist() == [True, False]
