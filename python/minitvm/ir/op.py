"""Operators (stage 4 uses them first), as ``tvm.ir.Op``: one interned node per name
(``Op.get("relax.add")``) and per-key attribute tables (``op.get_attr("FInferStructInfo")``).

The registry lives in C++ (``"ir.GetOp"``, ``"ir.OpGetAttr"``, ...); Python only reads it and,
like TVM's ``tvm.ir.register_op_attr``, may add attributes with :meth:`Op.set_attr`.
"""
from .. import error as _error
from .._ffi import register_object
from .expr import BaseExpr
from . import _ffi_api

__all__ = ["Op", "list_op_names", "register_op_attr"]


@register_object("ir.Op")
class Op(BaseExpr):
    """A registered operator. Fields ``name`` and ``num_inputs``; see :meth:`get`."""

    def __init__(self):  # pylint: disable=super-init-not-called
        raise _error.TypeError("operators are not constructed: use Op.get(name)")

    @staticmethod
    def get(op_name):
        """The operator registered as ``op_name``; ValueError (with close names) if none."""
        return _ffi_api.GetOp(op_name)

    @property
    def description(self):
        """The operator's documentation paragraph."""
        return _ffi_api.OpGetDescription(self)

    @property
    def arguments(self):
        """The documented arguments, as ``(name, type_info, description)`` triples."""
        return [tuple(str(x) for x in a) for a in _ffi_api.OpGetArguments(self)]

    def get_attr(self, attr_name):
        """Attribute ``attr_name`` of this op, or None when it has none."""
        return _ffi_api.OpGetAttr(self, attr_name)

    def has_attr(self, attr_name):
        """Whether the op has attribute ``attr_name``."""
        return bool(_ffi_api.OpHasAttr(self, attr_name))

    def list_attr_keys(self):
        """The keys of every attribute this op has, sorted."""
        return [str(k) for k in _ffi_api.OpListAttrKeys(self)]

    def set_attr(self, attr_name, value, plevel=10):
        """Set attribute ``attr_name`` (a higher ``plevel`` overrides a lower one; the same
        level twice is an error)."""
        _ffi_api.OpSetAttr(self, attr_name, value, int(plevel))

    def __eq__(self, other):
        return self.same_as(other)

    __hash__ = BaseExpr.__hash__


def list_op_names():
    """The names of all registered operators, sorted."""
    return [str(n) for n in _ffi_api.ListOpNames()]


def register_op_attr(op_name, attr_key, value=None, level=10):
    """Set ``attr_key`` of operator ``op_name`` (TVM's ``tvm.ir.register_op_attr``); usable as
    a decorator when ``value`` is omitted."""

    def _register(v):
        Op.get(op_name).set_attr(attr_key, v, level)
        return v

    if value is None:
        return _register
    return _register(value)
