"""``TensorIntrin``: a description/implementation pair of PrimFuncs for ``tensorize``."""
from ..._ffi import get_global_func, register_object
from ...runtime import Object

__all__ = ["TensorIntrin"]


@register_object("tir.TensorIntrin")
class TensorIntrin(Object):
    """A tensor intrinsic: ``desc`` describes the computation, ``impl`` implements it.

    Both PrimFuncs take the same buffers in the same order. Register one under a name and
    use it with ``sch.tensorize(loop, name)``.
    """

    def __init__(self, desc, impl):
        self.__init_handle_by_constructor__(get_global_func("tir.TensorIntrin"), desc, impl)

    @staticmethod
    def register(name, desc, impl, override=False):
        """Register ``TensorIntrin(desc, impl)`` as ``name``."""
        get_global_func("tir.TensorIntrinRegister")(name, TensorIntrin(desc, impl), bool(override))

    @staticmethod
    def get(name, allow_missing=False):
        """The intrinsic registered as ``name`` (None when missing and allowed)."""
        return get_global_func("tir.TensorIntrinGet")(name, bool(allow_missing))

    @staticmethod
    def list_names():
        """Names of the registered intrinsics."""
        return [str(n) for n in get_global_func("tir.TensorIntrinListNames")()]

    @staticmethod
    def builtin_scripts():
        """The TVMScript text of the shipped intrinsics ("dot_16_f32_desc", ...)."""
        return {str(k): str(v) for k, v in get_global_func("tir.TensorIntrinBuiltinScripts")().items()}
