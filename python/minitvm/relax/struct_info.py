"""Struct info (stage 4), as ``tvm.relax.struct_info``: the structural type of a Relax value.

``TensorStructInfo([n, 784], "float32")`` is ``R.Tensor((n, 784), dtype="float32")``; the
other kinds are shapes, tuples, functions, TIR scalars and opaque objects. Two struct infos
compare with ``==`` by structure (TVM's behaviour); ``base.is_base_of(derived)`` is the
precision order the type checks use. Everything is computed in C++ (``"relax.*"``).
"""
from .. import error as _error
from .. import tir as _tir
from .._ffi import register_object
from ..runtime import Object
from . import _ffi_api

__all__ = [
    "StructInfo",
    "ObjectStructInfo",
    "PrimStructInfo",
    "ShapeStructInfo",
    "TensorStructInfo",
    "TupleStructInfo",
    "FuncStructInfo",
]


def _seq(values, node, what):
    from ..runtime.container import Array  # pylint: disable=import-outside-toplevel

    if not isinstance(values, (list, tuple, Array)):
        raise _error.TypeError(
            f"{node}: {what} must be a list or tuple, not {type(values).__name__}: {values!r}")
    return list(values)


def _ndim(ndim, node):
    """``ndim``: an int >= -1 (-1: unknown); floats are not truncated."""
    import numpy as _np  # pylint: disable=import-outside-toplevel

    if isinstance(ndim, bool) or not isinstance(ndim, (int, _np.integer)):
        raise _error.TypeError(f"{node}: ndim must be an int, not {ndim!r}")
    if not -1 <= int(ndim) < 2**31:
        raise _error.ValueError(
            f"{node}: ndim must be >= -1 (-1: unknown) and < 2**31, got {ndim}")
    return int(ndim)


@register_object("StructInfo")
class StructInfo(Object):
    """Base of all struct infos. ``==`` is structural equality."""

    def is_base_of(self, derived):
        """Whether every value described by ``derived`` is also described by ``self``."""
        return bool(_ffi_api.StructInfoIsBaseOf(self, derived))

    def __eq__(self, other):
        if not isinstance(other, StructInfo):
            return False
        from ..ir import structural_equal  # pylint: disable=import-outside-toplevel

        return bool(structural_equal(self, other))

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        from ..ir import structural_hash  # pylint: disable=import-outside-toplevel

        return structural_hash(self)

    def __repr__(self):
        if self.handle is None:
            return super().__repr__()
        return _ffi_api.StructInfoToString(self)


@register_object("relax.ObjectStructInfo")
class ObjectStructInfo(StructInfo):
    """Any value (``R.Object``)."""

    def __init__(self, span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(_ffi_api.ObjectStructInfo)


def _prim_value(value, dtype):
    if isinstance(value, bool):
        return _tir.IntImm(dtype or "bool", int(value))
    if isinstance(value, int):
        return _tir.IntImm(dtype or "int64", value)
    if isinstance(value, float):
        return _tir.FloatImm(dtype or "float64", value)
    return value


@register_object("relax.PrimStructInfo")
class PrimStructInfo(StructInfo):
    """A TIR scalar: ``PrimStructInfo("int64")``, or with a known value
    ``PrimStructInfo(value=n)`` (Python ints are int64)."""

    def __init__(self, dtype=None, value=None, span=None):  # pylint: disable=unused-argument
        if value is not None:
            value = _prim_value(value, None if dtype is None else str(dtype))
        self.__init_handle_by_constructor__(
            _ffi_api.PrimStructInfo, None if dtype is None else str(dtype), value
        )


@register_object("relax.ShapeStructInfo")
class ShapeStructInfo(StructInfo):
    """A shape value: ``ShapeStructInfo([n, 4])`` or ``ShapeStructInfo(ndim=2)``."""

    def __init__(self, values=None, ndim=-1, span=None):  # pylint: disable=unused-argument
        if values is not None:
            values = _seq(values, "ShapeStructInfo", "values")
        self.__init_handle_by_constructor__(
            _ffi_api.ShapeStructInfo, values, _ndim(ndim, "ShapeStructInfo")
        )


def _vdevice(vdevice):
    """A TensorStructInfo's vdevice: a VDevice, None, or a string — "llvm" or "llvm:1" (kind
    and device id; TVM looks the index up in the module's global infos, which minitvm modules
    do not keep)."""
    from ..ir import VDevice  # pylint: disable=import-outside-toplevel

    if vdevice is None or isinstance(vdevice, VDevice):
        return vdevice
    if isinstance(vdevice, str):
        kind, _, index = vdevice.partition(":")
        if index and not index.isdigit():
            raise _error.ValueError(
                f'TensorStructInfo: vdevice "{vdevice}" must be "<target>" or "<target>:<id>"')
        return VDevice(kind, int(index) if index else 0)
    raise _error.TypeError(
        f"TensorStructInfo: vdevice must be a VDevice, a string or None, not "
        f"{type(vdevice).__name__}")


@register_object("relax.TensorStructInfo")
class TensorStructInfo(StructInfo):
    """A tensor: ``TensorStructInfo([n, 784], "float32")``, ``TensorStructInfo(ndim=2,
    dtype="float32")``; ``dtype=None`` is unknown. ``shape`` may be a list of dimensions, a
    ``ShapeExpr`` or a variable of shape struct info."""

    def __init__(
        self, shape=None, dtype="float32", vdevice=None, ndim=-1, span=None
    ):  # pylint: disable=unused-argument
        if isinstance(vdevice, int) and not isinstance(vdevice, bool) and ndim == -1:
            ndim, vdevice = vdevice, None  # TensorStructInfo(None, "float32", 2)
        vdevice = _vdevice(vdevice)
        if isinstance(shape, tuple):
            shape = list(shape)
        from .expr import Expr  # pylint: disable=import-outside-toplevel
        from ..runtime.container import Array  # pylint: disable=import-outside-toplevel

        if shape is not None and not isinstance(shape, (list, Array, Expr)):
            raise _error.TypeError(
                "TensorStructInfo: shape must be a list or tuple of dimensions, a ShapeExpr or a "
                f"shape variable, not {type(shape).__name__}: {shape!r}")
        self.__init_handle_by_constructor__(
            _ffi_api.TensorStructInfo, shape, None if dtype is None else str(dtype),
            _ndim(ndim, "TensorStructInfo"), vdevice,
        )


@register_object("relax.TupleStructInfo")
class TupleStructInfo(StructInfo):
    """A tuple of struct infos (``R.Tuple(...)``)."""

    def __init__(self, fields, span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(
            _ffi_api.TupleStructInfo, _seq(fields, "TupleStructInfo", "fields")
        )


@register_object("relax.FuncStructInfo")
class FuncStructInfo(StructInfo):
    """A function signature: parameter struct infos, result, purity."""

    def __init__(self, params, ret, purity=True, span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(
            _ffi_api.FuncStructInfo, _seq(params, "FuncStructInfo", "params"), ret, bool(purity)
        )

    @staticmethod
    def opaque_func(ret=None, derive_func=None, purity=False, span=None):  # pylint: disable=W0613
        """A function whose parameters are unknown, returning ``ret`` (default ``R.Object``)."""
        if derive_func is not None:
            raise _error.ValueError("FuncStructInfo.opaque_func: derive_func is not supported")
        return _ffi_api.FuncStructInfoOpaqueFunc(ret, bool(purity))
