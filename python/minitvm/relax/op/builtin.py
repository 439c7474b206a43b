"""``relax.op.builtin``: ``alloc_tensor``, the allocation the VM lowering starts from (stage 4)."""
from . import _ffi_api
from ._util import shape_arg

__all__ = ["alloc_tensor"]


def alloc_tensor(shape, dtype, runtime_device_index, storage_scope="global"):
    """``R.builtin.alloc_tensor(R.shape(shape), R.dtype(dtype), R.prim_value(index),
    R.str(storage_scope))``: a new tensor (a pure call, as in TVM). Plain Python values are
    wrapped into the Relax values the call holds."""
    dtype = dtype if not isinstance(dtype, str) else str(dtype)
    return _ffi_api.call("builtin.alloc_tensor", shape_arg(shape), dtype, runtime_device_index,
                         storage_scope)
