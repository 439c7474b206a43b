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
        if any(isinstance(i, slice) for i in indices):
            return self._region(indices)
        return BufferLoad(self, [as_expr(i) for i in indices])

    def _region(self, indices):
        """``A[0:16, i]``: the BufferRegion (as TVM; a slice's missing ends are the
        dimension's, a plain index is an extent-1 range). Steps are not supported."""
        from ..arith import Analyzer  # pylint: disable=import-outside-toplevel
        from ..ir.expr import Range  # pylint: disable=import-outside-toplevel
        from .op import const  # pylint: disable=import-outside-toplevel

        region = []
        for dim, index in enumerate(indices):
            if isinstance(index, slice):
                if index.step not in (None, 1):
                    from .. import error  # pylint: disable=import-outside-toplevel

                    raise error.ValueError(f"Buffer {self.name}: a region slice takes no step "
                                           f"(got {index.step})")
                start = const(0) if index.start is None else index.start
                stop = self.shape[dim] if index.stop is None else index.stop
                start = const(start) if isinstance(start, int) else as_expr(start)
                stop = const(stop) if isinstance(stop, int) else as_expr(stop)
                region.append(Range.from_min_extent(start, Analyzer().simplify(stop - start)))
            else:
                index = const(index) if isinstance(index, int) else as_expr(index)
                region.append(Range.from_min_extent(index, const(1, str(index.dtype))))
        return BufferRegion(self, region)

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
