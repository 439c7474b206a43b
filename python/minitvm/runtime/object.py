"""``Object``: the Python face of every C++ node (stage 1).

A Python ``Object`` owns one reference to a C++ object (its ``handle``). It has no Python
state of its own: fields are read from C++ through the node's field list
(``"runtime.ObjectGetField"``), ``repr`` is C++'s (``"runtime.ObjectRepr"``, which later
stages teach to print TVMScript), ``dir`` lists the fields. Two Python objects are equal
when they hold the same C++ node (``same_as``); later stages may override ``__eq__``.
"""
from .._ffi import core
from .._ffi import registry as _registry
from . import _ffi_api

__all__ = ["Object"]


class Object(core.ObjectBase):
    """Base class of all minitvm objects; see the module docstring."""

    def __getattr__(self, name):
        # Only called when normal lookup fails: then the name may be a C++ field.
        if name.startswith("_"):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        if self.handle is None:
            raise AttributeError(
                f"{type(self).__name__!r} object has no attribute {name!r}: it is not "
                "initialised (it holds no C++ object, its handle is None)"
            )
        return _ffi_api.ObjectGetField(self, name)

    def __dir__(self):
        names = set(super().__dir__())
        if self.handle is not None:
            names.update(_ffi_api.ObjectListFields(self))
        return sorted(names)

    def __repr__(self):
        if self.handle is None:
            return f"<{type(self).__name__} (empty handle)>"
        return _ffi_api.ObjectRepr(self)

    def __str__(self):
        return self.__repr__()

    def same_as(self, other):
        """True when both handles point at the same C++ object."""
        return isinstance(other, core.ObjectBase) and (
            self is other or (self.handle is not None and self.handle == other.handle)
        )

    def __eq__(self, other):
        return self.same_as(other)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self.handle) if self.handle is not None else id(self)

    @property
    def type_key(self):
        """The C++ type key, e.g. ``"runtime.NDArray"`` or ``"tir.For"``."""
        return core.object_type_key(self)

    def __copy__(self):
        # Nodes are immutable: a copy may share the node.
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        raise TypeError(f"cannot pickle a minitvm {self.type_key} (no serialiser yet)")


_registry._set_default_object_class(Object)  # pylint: disable=protected-access
