"""`.npy`/`.npz` files exchanged between NumPy and minitvm (stage 1).

NumPy writes, minitvm reads through the registered ``runtime.LoadNpy``/``runtime.LoadNpz``
and the reverse; malformed and compressed files raise ``ValueError`` with the file named.
"""
import numpy as np
import pytest

minitvm = pytest.importorskip("minitvm")

DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "bool"]


def _func(name):
    return minitvm.get_global_func(name)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (5,), (2, 3), (2, 3, 4)])
def test_numpy_save_minitvm_load(tmp_path, dtype, shape):
    rng = np.random.default_rng(0)
    data = (rng.standard_normal(shape) * 50).astype(dtype)
    path = str(tmp_path / "a.npy")
    np.save(path, data)
    arr = _func("runtime.LoadNpy")(path)
    assert arr.dtype == dtype
    assert tuple(arr.shape) == shape
    np.testing.assert_array_equal(arr.numpy(), data)


@pytest.mark.parametrize("dtype", DTYPES)
def test_minitvm_save_numpy_load(tmp_path, dtype):
    data = (np.arange(24) % 7).astype(dtype).reshape(2, 3, 4)
    path = str(tmp_path / "b.npy")
    _func("runtime.SaveNpy")(path, minitvm.nd.array(data))
    back = np.load(path)
    assert back.dtype == data.dtype
    np.testing.assert_array_equal(back, data)


def test_fortran_order_and_big_endian(tmp_path):
    fortran = np.asfortranarray(np.arange(12, dtype=np.float32).reshape(3, 4))
    np.save(tmp_path / "f.npy", fortran)
    np.testing.assert_array_equal(_func("runtime.LoadNpy")(str(tmp_path / "f.npy")).numpy(),
                                  fortran)
    big = np.arange(5, dtype=">i8")
    np.save(tmp_path / "be.npy", big)
    loaded = _func("runtime.LoadNpy")(str(tmp_path / "be.npy")).numpy()
    assert loaded.dtype == np.int64
    np.testing.assert_array_equal(loaded, big)


def test_npz_both_ways(tmp_path):
    arrays = {"weight": np.ones((3, 2), np.float32), "bias": np.arange(2.0), "mask": np.eye(2) > 0}
    np.savez(tmp_path / "n.npz", **arrays)
    loaded = _func("runtime.LoadNpz")(str(tmp_path / "n.npz"))
    assert sorted(loaded.keys()) == sorted(arrays)
    for name, value in arrays.items():
        np.testing.assert_array_equal(loaded[name].numpy(), value)

    out = str(tmp_path / "m.npz")
    _func("runtime.SaveNpz")(out, {k: minitvm.nd.array(v) for k, v in arrays.items()})
    with np.load(out) as z:
        assert list(z.files) == list(arrays)  # insertion order is kept
        for name, value in arrays.items():
            np.testing.assert_array_equal(z[name], value)


def test_compressed_npz_is_rejected_clearly(tmp_path):
    path = str(tmp_path / "c.npz")
    np.savez_compressed(path, a=np.zeros(10))
    with pytest.raises(ValueError, match="np.savez, not np.savez_compressed"):
        _func("runtime.LoadNpz")(path)


def test_truncated_and_garbage_files(tmp_path):
    path = tmp_path / "t.npy"
    np.save(path, np.arange(100, dtype=np.int32))
    raw = path.read_bytes()
    path.write_bytes(raw[:-10])
    with pytest.raises(ValueError, match="truncated") as info:
        _func("runtime.LoadNpy")(str(path))
    assert str(path) in str(info.value)
    path.write_bytes(b"not an npy file at all")
    with pytest.raises(ValueError, match="not a .npy file"):
        _func("runtime.LoadNpy")(str(path))
    with pytest.raises(ValueError, match="no zip end-of-central-directory"):
        _func("runtime.LoadNpz")(str(path))
    with pytest.raises(RuntimeError, match="cannot open"):
        _func("runtime.LoadNpy")(str(tmp_path / "missing.npy"))
