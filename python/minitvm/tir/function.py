"""``PrimFunc`` (stage 2): a TensorIR function, as ``tvm.tir.PrimFunc``: ``params`` (handle
and scalar Vars), ``buffer_map`` (handle → Buffer), ``body``, ``attrs``."""
from .._ffi import register_object
from ..ir.function import BaseFunc
from . import _ffi_api

__all__ = ["PrimFunc"]


@register_object("tir.PrimFunc")
class PrimFunc(BaseFunc):
    """A TensorIR function. Build one with TVMScript (``@T.prim_func``), with
    ``te.create_prim_func``, or directly: ``PrimFunc(params, body, buffer_map=...)``."""

    def __init__(self, params, body, ret_type=None, buffer_map=None, attrs=None, span=None):
        from .buffer import Buffer  # pylint: disable=import-outside-toplevel
        from .expr import Var  # pylint: disable=import-outside-toplevel

        param_list, bmap = [], dict(buffer_map or {})
        for p in params:
            if isinstance(p, Buffer):  # TVM accepts buffers as parameters
                var = Var(p.name, "handle")
                bmap[var] = p
                param_list.append(var)
            else:
                param_list.append(p)
        self.__init_handle_by_constructor__(
            _ffi_api.PrimFunc, param_list, body, bmap, dict(attrs or {}),
            None if ret_type is None else str(ret_type),
        )

    def with_attr(self, attr_key_or_dict, attr_value=None):
        """A copy with one attribute (or a dict of them) set."""
        if isinstance(attr_key_or_dict, dict):
            func = self
            for key, value in attr_key_or_dict.items():
                func = _ffi_api.PrimFuncWithAttr(func, key, value)
            return func
        return _ffi_api.PrimFuncWithAttr(self, attr_key_or_dict, attr_value)

    def without_attr(self, attr_key):
        """A copy without the attribute."""
        return _ffi_api.PrimFuncWithoutAttr(self, attr_key)

    def with_body(self, new_body, span=None):
        """A copy with another body."""
        return _ffi_api.PrimFuncWithBody(self, new_body)
