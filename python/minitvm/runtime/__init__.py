"""minitvm.runtime: the stage-1 runtime seen from Python.

Objects (:class:`Object`), packed functions (:class:`PackedFunc`), containers
(:class:`Array`, :class:`Map`), dtypes (:class:`DataType`), devices (:class:`Device`),
arrays (:class:`NDArray`, also as :mod:`minitvm.nd`) and runtime modules (:class:`Module`).
"""
from . import _ffi_api
from .object import Object
from .data_type import DataType
from .device import Device, cpu, cuda, device
from .packed_func import PackedFunc, convert_to_packed_func
from .container import Array, Map
from .convert import convert
from . import ndarray
from .ndarray import NDArray

# TVM 0.22 renamed NDArray to Tensor: tvm.runtime.tensor(arr) / empty(shape, dtype) / Tensor.
Tensor = NDArray
tensor = ndarray.array
empty = ndarray.empty
from .module import Module, BenchmarkResult, load_module, functions_module

__all__ = [
    "Object",
    "DataType",
    "Device",
    "cpu",
    "cuda",
    "device",
    "PackedFunc",
    "convert_to_packed_func",
    "Array",
    "Map",
    "convert",
    "ndarray",
    "NDArray",
    "Tensor",
    "tensor",
    "empty",
    "Module",
    "BenchmarkResult",
    "load_module",
    "functions_module",
]
