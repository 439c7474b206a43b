"""minitvm.nd: n-dimensional arrays (TVM's ``tvm.nd``).

``nd.array`` (copy in), ``nd.empty``, ``nd.from_dlpack`` (zero-copy in), :class:`NDArray`
with ``numpy()`` (copy out), ``to_dlpack()`` / ``__dlpack__`` (zero-copy out).
"""
from .runtime.ndarray import NDArray, array, empty, from_dlpack
from .runtime.device import Device, cpu, cuda, device

__all__ = ["NDArray", "array", "empty", "from_dlpack", "Device", "cpu", "cuda", "device"]
