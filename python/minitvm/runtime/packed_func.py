"""``PackedFunc``: a callable C++ (or Python) function of the one calling convention."""
from .._ffi import core
from .._ffi.registry import register_object
from .object import Object

__all__ = ["PackedFunc", "convert_to_packed_func"]


@register_object("runtime.PackedFunc")
class PackedFunc(Object, core.PackedFuncBase):
    """A packed function: call it with positional arguments.

    Each argument is packed into an ``MTVMValue`` with a type code (None, bool, int, float,
    str, Device, object; lists, tuples and dicts become Arrays and Maps, callables become
    PackedFuncs, NumPy arrays become NDArray copies); C++ checks count and types and raises
    ``minitvm.error.TypeError`` naming the function and the argument when they are wrong.
    """

    def __repr__(self):
        return "<minitvm.runtime.PackedFunc>"


def convert_to_packed_func(pyfunc):
    """Wrap a Python callable as a :class:`PackedFunc` (what happens to callable arguments)."""
    return core.make_packed_func(pyfunc)
