"""``DataType``: a dtype name, validated and canonicalised by C++ (``"float32"``, ``"bool"``).

``DataType`` is a ``str``: it compares equal to the plain string and passes to C++ as one
(C++ parses strings wherever a dtype is expected). C++ dtypes come back as ``DataType``.
"""
from .._ffi import core
from . import _ffi_api

__all__ = ["DataType"]


class DataType(str):
    """An element type name; ``DataType("float32").bits == 32``."""

    __slots__ = ()

    #: Type codes, as in DLPack.
    INT, UINT, FLOAT, HANDLE, BFLOAT = 0, 1, 2, 3, 4

    def __new__(cls, value):
        if isinstance(value, DataType):
            return value
        if not isinstance(value, str):
            value = getattr(value, "name", None) or str(value)  # numpy dtypes and types
        return str.__new__(cls, _ffi_api.DataTypeToString(value))

    def _parts(self):
        return tuple(_ffi_api.DataTypeParts(str(self)))

    @property
    def type_code(self):
        """The type code (``DataType.INT``, ``UINT``, ``FLOAT``, ``HANDLE``, ``BFLOAT``)."""
        return self._parts()[0]

    @property
    def bits(self):
        """Bits of one lane."""
        return self._parts()[1]

    @property
    def lanes(self):
        """Number of lanes (1 for scalars)."""
        return self._parts()[2]

    def __repr__(self):
        return f"DataType({str.__repr__(self)})"


def _make_dtype(code, bits, lanes):
    return str.__new__(DataType, _ffi_api.DataTypeFromParts(code, bits, lanes))


core.set_hooks(dtype_factory=_make_dtype, dtype_cache={})
