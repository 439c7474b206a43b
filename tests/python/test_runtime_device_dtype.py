"""Devices and dtypes (stage 1)."""
import pytest

import minitvm
from minitvm.runtime import DataType, Device


def test_cpu_and_cuda_devices():
    dev = minitvm.cpu()
    assert (dev.device_type, dev.device_id) == (1, 0)
    assert repr(dev) == "cpu(0)"
    assert dev.exist
    gpu = minitvm.cuda(1)
    assert (gpu.device_type, gpu.device_id) == (2, 1)
    assert repr(gpu) == "cuda(1)"


def test_device_by_name_and_equality():
    assert minitvm.device("cpu", 0) == minitvm.cpu(0)
    assert minitvm.device("llvm") == minitvm.cpu()
    assert minitvm.device("cuda", 2) == minitvm.cuda(2)
    assert minitvm.device("gpu") == minitvm.cuda(0)
    assert minitvm.cpu(0) != minitvm.cuda(0)
    assert len({minitvm.cpu(0), minitvm.cpu(0), minitvm.cuda(0)}) == 2
    assert isinstance(minitvm.cpu(), Device)


def test_unknown_device_name():
    with pytest.raises(minitvm.error.ValueError, match='unknown device type "tpu"'):
        minitvm.device("tpu")


def test_device_round_trips_through_cpp():
    echo = minitvm.get_global_func("testing.ffi.Echo")
    dev = echo(minitvm.cuda(3))
    assert isinstance(dev, Device) and dev == minitvm.cuda(3)


def test_cuda_exist_is_a_bool():
    # Stage 1 registers no CUDA device API: cuda(0) does not exist (no crash, no error).
    assert isinstance(minitvm.cuda(0).exist, bool)


def test_dtype_is_a_canonical_str():
    assert DataType("float32") == "float32"
    assert isinstance(DataType("int8"), str)
    assert DataType("bool").bits == 1
    assert DataType("float32x4").lanes == 4
    assert DataType("uint16").type_code == DataType.UINT
    assert repr(DataType("int64")) == "DataType('int64')"


def test_bad_dtype_names_the_dtype():
    with pytest.raises(minitvm.error.ValueError, match='unknown dtype "float31"'):
        DataType("float31")
    with pytest.raises(ValueError):  # the builtin catches it too
        DataType("intx")


def test_dtype_from_cpp_is_a_datatype():
    a = minitvm.nd.empty((2,), "int16")
    assert isinstance(a.dtype, DataType)
    assert a.dtype == "int16" and a.dtype.bits == 16
