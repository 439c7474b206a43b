"""``relax.op.memory``: explicit storage and tensors for the VM lowering (stage 4).

Allocations are pure calls; ``kill_storage`` / ``kill_tensor`` are impure (as in TVM).
"""
from . import _ffi_api
from ._util import shape_arg

__all__ = ["alloc_storage", "alloc_tensor", "kill_storage", "kill_tensor"]


def alloc_storage(size, virtual_device_index, storage_scope, dtype):
    """A storage of ``size`` bytes (a shape ``[nbytes]``) on a device; returns an R.Object."""
    return _ffi_api.call("memory.alloc_storage", shape_arg(size), virtual_device_index,
                         storage_scope, dtype if not isinstance(dtype, str) else str(dtype))


def alloc_tensor(storage, offset, shape, dtype):
    """A tensor of ``shape`` and ``dtype`` placed in ``storage`` at byte ``offset``."""
    return _ffi_api.call("memory.alloc_tensor", storage, offset, shape_arg(shape),
                         dtype if not isinstance(dtype, str) else str(dtype))


def kill_storage(storage):
    """Release a storage (impure)."""
    return _ffi_api.call("memory.kill_storage", storage)


def kill_tensor(tensor):
    """Release a tensor (impure)."""
    return _ffi_api.call("memory.kill_tensor", tensor)
