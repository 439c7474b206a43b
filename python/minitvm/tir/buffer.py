"""``Buffer`` (stage 2): a typed, shaped view of memory, as ``tvm.tir.Buffer``, and
:func:`decl_buffer`. ``A[i, j]`` builds the load ``BufferLoad(A, [i, j])``."""
from .._ffi import register_object
from ..ir.expr import as_expr
from ..runtime import Object
from . import _ffi_api

__all__ = ["Buffer", "decl_buffer", "BufferRegion", "MatchBufferRegion"]


@register_object("tir.Buffer")
class Buffer(Object):
    """A buffer: ``data`` (its handle variable), ``dtype``, ``shape``, ``strides`` (empty:
    compact), ``elem_offset``, ``name``, ``scope``."""

    def __getitem__(self, indices):
        from .expr import BufferLoad  # pylint: disable=import-outside-toplevel

        if not isinstance(indices, tuple):
            indices = (indices,)
        return BufferLoad(self, [as_expr(i) for i in indices])

    def vload(self, begin, dtype=None):
        """The load of element ``begin`` (a tuple of indices)."""
        return self[tuple(begin)]

    def vstore(self, begin, value):
        """The store of ``value`` at ``begin``."""
        from .stmt import BufferStore  # pylint: disable=import-outside-toplevel

        return BufferStore(self, value, list(begin))

    def scope(self):  # pylint: disable=method-hidden
        """The storage scope ("global", "shared", "local")."""
        return _ffi_api_field(self, "scope")


def _ffi_api_field(node, name):
    from ..runtime import _ffi_api as _rt  # pylint: disable=import-outside-toplevel

    return _rt.ObjectGetField(node, name)


def decl_buffer(shape, dtype="float32", name="buffer", data=None, strides=None,
                elem_offset=None, scope="", data_alignment=-1, offset_factor=0,
                buffer_type="", axis_separators=None, span=None):
    """A new buffer, like ``tvm.tir.decl_buffer``: compact unless ``strides`` are given,
    with a fresh handle variable unless ``data`` is given."""
    if isinstance(shape, int) or hasattr(shape, "dtype"):
        shape = (shape,)
    return _ffi_api.decl_buffer(list(shape), str(dtype), name, data,
                                None if strides is None else list(strides), elem_offset,
                                scope or "global")


@register_object("tir.BufferRegion")
class BufferRegion(Object):
    """A region of a buffer: ``buffer`` and one Range per dimension in ``region``."""

    def __init__(self, buffer, region):
        self.__init_handle_by_constructor__(_ffi_api.BufferRegion, buffer, list(region))

    @staticmethod
    def full_region(buffer):
        """The whole buffer."""
        return _ffi_api.BufferRegionFull(buffer)


@register_object("tir.MatchBufferRegion")
class MatchBufferRegion(Object):
    """``buffer`` viewing the region ``source`` (T.match_buffer inside a block)."""

    def __init__(self, buffer, source):
        self.__init_handle_by_constructor__(_ffi_api.MatchBufferRegion, buffer, source)
