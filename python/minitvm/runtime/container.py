"""``Array`` and ``Map``: the C++ containers, seen as a Python sequence and mapping.

They are views of the C++ object (nothing is copied until you read an element) and stay
C++ objects, so passing one back to C++ costs nothing. A Python list or tuple passed to C++
becomes an Array, a dict becomes a Map (``"runtime.Array"``, ``"runtime.Map"``).
"""
from collections.abc import Mapping, Sequence

from .. import error
from .._ffi.registry import register_object
from . import _ffi_api
from .object import Object

__all__ = ["Array", "Map"]


@register_object("runtime.Array")
class Array(Object, Sequence):
    """An immutable C++ array: ``len``, indexing (negative too), slicing, iteration.

    Comparing with a list or tuple compares the elements; comparing two Arrays compares
    identity, like every object.
    """

    def __len__(self):
        return _ffi_api.ArraySize(self)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if not isinstance(index, int):
            raise error.TypeError(f"Array indices must be integers, not {type(index).__name__}")
        return _ffi_api.ArrayGetItem(self, index)

    def __iter__(self):
        for i in range(len(self)):
            yield _ffi_api.ArrayGetItem(self, i)

    def __eq__(self, other):
        if isinstance(other, (list, tuple)):
            return list(self) == list(other)
        return self.same_as(other)

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = Object.__hash__

    def __repr__(self):
        return repr(list(self))


@register_object("runtime.Map")
class Map(Object, Mapping):
    """An immutable, insertion-ordered C++ map: ``m[key]``, ``in``, ``len``, ``items()``.

    Keys compare by value for ints and strings and by identity for other objects.
    """

    def _flat(self):
        flat = list(_ffi_api.MapItems(self))
        return list(zip(flat[0::2], flat[1::2]))

    def __getitem__(self, key):
        if not _ffi_api.MapCount(self, key):
            raise error.KeyError(f"key {key!r} is not in the map")
        return _ffi_api.MapGetItem(self, key)

    def __contains__(self, key):
        return bool(_ffi_api.MapCount(self, key))

    def __len__(self):
        return _ffi_api.MapSize(self)

    def __iter__(self):
        return iter([k for k, _ in self._flat()])

    def items(self):
        """The (key, value) pairs in insertion order."""
        return self._flat()

    def keys(self):
        return [k for k, _ in self._flat()]

    def values(self):
        return [v for _, v in self._flat()]

    def get(self, key, default=None):
        return self[key] if key in self else default

    def __eq__(self, other):
        if isinstance(other, dict):
            return dict(self._flat()) == other
        return self.same_as(other)

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = Object.__hash__

    def __repr__(self):
        return "{" + ", ".join(f"{k!r}: {v!r}" for k, v in self._flat()) + "}"
