"""Global infos (stage 2), as ``tvm.ir.GlobalInfo``: objects a module keeps beside its
functions. :class:`VDevice` is a virtual device — target, device id, memory scope — that a
Relax ``TensorStructInfo`` may name (``R.Tensor((2, 3), "float32", VDevice("llvm"))``).

minitvm records, prints and compares virtual devices as TVM does; only the CPU executes.
"""
from .._ffi import register_object
from ..runtime import Object
from . import _ffi_api

__all__ = ["GlobalInfo", "VDevice", "DummyGlobalInfo"]


@register_object("ir.GlobalInfo")
class GlobalInfo(Object):
    """Base of all global infos; ``==`` is structural equality."""

    def __eq__(self, other):
        from .structural import structural_equal  # pylint: disable=import-outside-toplevel

        return isinstance(other, Object) and structural_equal(self, other)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        from .structural import structural_hash  # pylint: disable=import-outside-toplevel

        return int(structural_hash(self))

    def same_as(self, other):
        """Whether both handles are the same object."""
        return Object.same_as(self, other)


@register_object("ir.VDevice")
class VDevice(GlobalInfo):
    """``VDevice(target=None, vdevice_id=0, memory_scope="global")``: ``target`` is a
    :class:`~minitvm.target.Target`, a target string or dict, or a ``Device``."""

    def __init__(self, target=None, vdevice_id=0, memory_scope="global"):
        from .. import target as _target  # pylint: disable=import-outside-toplevel
        from ..runtime import Device  # pylint: disable=import-outside-toplevel

        if isinstance(target, dict):
            target = _target.Target(target)
        elif isinstance(target, Device):
            target = _target.Target({1: "llvm", 2: "cuda"}.get(target.device_type, "llvm"))
        if isinstance(vdevice_id, bool) or not isinstance(vdevice_id, int):
            from .. import error  # pylint: disable=import-outside-toplevel

            raise error.TypeError(
                f"VDevice: vdevice_id must be an int, not {type(vdevice_id).__name__}")
        self.__init_handle_by_constructor__(
            _ffi_api.VDevice, target, int(vdevice_id), str(memory_scope))

    def __repr__(self):
        target = "None" if self.target is None else str(self.target)
        return f'VDevice({target}, {self.vdevice_id}, "{self.memory_scope}")'


@register_object("ir.DummyGlobalInfo")
class DummyGlobalInfo(GlobalInfo):
    """A global info with no fields (for tests)."""

    def __init__(self):
        self.__init_handle_by_constructor__(_ffi_api.DummyGlobalInfo)
