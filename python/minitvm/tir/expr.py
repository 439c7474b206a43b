"""TensorIR expression nodes (stage 2), as ``tvm.tir.expr``: variables, immediates,
arithmetic, comparisons, logic, Select, BufferLoad, vectors, Let, Call and (from tensor
expressions) Reduce.

Constructing a node class (``tir.Add(a, b)``) builds exactly that node: operands must have
the same dtype. Python operators (``a + b``) go through TVM's promotion rules and fold
constants instead; see :mod:`minitvm.ir.expr`. Fields are readable: ``add.a``, ``v.name_hint``,
``load.buffer``, ``load.indices``.
"""
import operator

from .. import error as _error
from .._ffi import register_object
from ..ir.expr import PrimExpr
from ..runtime import Object
from . import _ffi_api

__all__ = [
    "PrimExprWithOp", "Var", "SizeVar", "IterVar", "IntImm", "FloatImm", "StringImm", "Cast",
    "BinaryOpExpr", "Add", "Sub", "Mul", "Div", "Mod", "FloorDiv", "FloorMod", "Min", "Max",
    "EQ", "NE", "LT", "LE", "GT", "GE", "And", "Or", "Not", "Select", "BufferLoad", "Ramp",
    "Broadcast", "Let", "Call", "Reduce", "CommReducer",
]

#: TVM's name for the operator mixin's users.
PrimExprWithOp = PrimExpr


@register_object("tir.Var")
class Var(PrimExpr):
    """A variable: ``Var("i", "int32")``. Two Vars with the same name are different."""

    def __init__(self, name, dtype="int32"):
        self.__init_handle_by_constructor__(_ffi_api.Var, name, str(dtype))

    @property
    def name(self):
        """The variable's name (TVM's ``Var.name``, the same as ``name_hint``)."""
        return str(self.name_hint)


@register_object("tir.SizeVar")
class SizeVar(Var):
    """A variable known to be non-negative (a symbolic size)."""

    def __init__(self, name, dtype="int32"):  # pylint: disable=super-init-not-called
        self.__init_handle_by_constructor__(_ffi_api.SizeVar, name, str(dtype))


@register_object("tir.IterVar")
class IterVar(Object):
    """A block iterator or thread axis: ``dom`` (a Range), ``var``, ``iter_type`` and
    ``thread_tag``. The kinds are the class constants below (TVM's numbering)."""

    DataPar = 0
    ThreadIndex = 1
    CommReduce = 2
    Ordered = 3
    DimInfo = 3
    Opaque = 4
    # TVM's te-schedule kinds Unrolled (5) ... Tensorized (8) have no TensorIR meaning;
    # the constructor refuses any kind outside 0-4.

    def __init__(self, dom, var, iter_type, thread_tag=""):
        from ..ir.expr import Range  # pylint: disable=import-outside-toplevel

        if isinstance(dom, (list, tuple)):
            dom = Range(dom[0], dom[1])
        if isinstance(var, str):
            var = Var(var, "int32")
        self.__init_handle_by_constructor__(_ffi_api.IterVar, dom, var, int(iter_type), thread_tag)

    def _as_prim_expr(self):
        return self.var


def _delegate_to_var(name):
    def method(self, *args):
        return getattr(self.var, name)(*args)

    method.__name__ = name
    return method


# An IterVar takes part in expressions as its variable (`A[i, k]`, `k * 2`), as in TVM.
for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
              "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__",
              "__rmod__", "__neg__", "__lt__", "__le__", "__gt__", "__ge__", "astype"):
    setattr(IterVar, _name, _delegate_to_var(_name))


def _integer(value):
    """An IntImm value: an int (or bool); a float must be integral (1.0, not 1.5)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    try:
        return operator.index(value)
    except TypeError as err:
        raise _error.TypeError(f"IntImm: value must be an integer, not {value!r}") from err


class ConstExpr(PrimExpr):
    """Base of the immediates."""


@register_object("ir.IntImm")
class IntImm(ConstExpr):
    """An integer (or bool) constant: ``IntImm("int32", 3)``; ``int(imm)`` is its value."""

    def __init__(self, dtype, value):
        from ..ir import _ffi_api as _ir_api  # pylint: disable=import-outside-toplevel

        self.__init_handle_by_constructor__(_ir_api.IntImm, str(dtype), _integer(value))

    def __int__(self):
        return int(self.value)

    def __index__(self):
        return int(self.value)

    def __bool__(self):
        return self.value != 0

    def __float__(self):
        return float(self.value)

    __nonzero__ = __bool__
    __hash__ = PrimExpr.__hash__
    __eq__ = PrimExpr.__eq__
    __ne__ = PrimExpr.__ne__


@register_object("ir.FloatImm")
class FloatImm(ConstExpr):
    """A floating-point constant: ``FloatImm("float32", 1.5)``; ``float(imm)`` is its value."""

    def __init__(self, dtype, value):
        from ..ir import _ffi_api as _ir_api  # pylint: disable=import-outside-toplevel

        if isinstance(value, (str, bytes)) or value is None:
            raise _error.TypeError(f"FloatImm: value must be a number, not {value!r}")
        self.__init_handle_by_constructor__(_ir_api.FloatImm, str(dtype), float(value))

    def __float__(self):
        return float(self.value)

    __hash__ = PrimExpr.__hash__
    __eq__ = PrimExpr.__eq__
    __ne__ = PrimExpr.__ne__


@register_object("tir.StringImm")
class StringImm(ConstExpr):
    """A string constant (extern function names, assert messages)."""

    def __init__(self, value):
        self.__init_handle_by_constructor__(_ffi_api.StringImm, value)


@register_object("tir.Cast")
class Cast(PrimExpr):
    """``value`` converted to ``dtype``."""

    def __init__(self, dtype, value):
        self.__init_handle_by_constructor__(_ffi_api.Cast, str(dtype), value)


@register_object("tir.BinaryOp")
class BinaryOpExpr(PrimExpr):
    """Base of the two-operand nodes: fields ``a`` and ``b``."""


def _binary(name):
    @register_object("tir." + name)
    class _Node(BinaryOpExpr):
        def __init__(self, a, b):
            self.__init_handle_by_constructor__(getattr(_ffi_api, name), a, b)

    _Node.__name__ = _Node.__qualname__ = name
    _Node.__doc__ = f"The ``{name}`` node (operands of the same dtype)."
    return _Node


Add = _binary("Add")
Sub = _binary("Sub")
Mul = _binary("Mul")
Div = _binary("Div")
Mod = _binary("Mod")
FloorDiv = _binary("FloorDiv")
FloorMod = _binary("FloorMod")
Min = _binary("Min")
Max = _binary("Max")
LT = _binary("LT")
LE = _binary("LE")
GT = _binary("GT")
GE = _binary("GE")
And = _binary("And")
Or = _binary("Or")


@register_object("tir.EQ")
class EQ(BinaryOpExpr):
    """``a == b``. Its truth value is whether ``a`` and ``b`` are the same object (TVM's
    EqualOp), so ``x == y`` can be used in ``if`` and in containers."""

    def __init__(self, a, b):
        self.__init_handle_by_constructor__(_ffi_api.EQ, a, b)

    def __bool__(self):
        return self.a.same_as(self.b)

    __nonzero__ = __bool__
    __hash__ = PrimExpr.__hash__
    __eq__ = PrimExpr.__eq__
    __ne__ = PrimExpr.__ne__


@register_object("tir.NE")
class NE(BinaryOpExpr):
    """``a != b``; its truth value is ``not a.same_as(b)``."""

    def __init__(self, a, b):
        self.__init_handle_by_constructor__(_ffi_api.NE, a, b)

    def __bool__(self):
        return not self.a.same_as(self.b)

    __nonzero__ = __bool__
    __hash__ = PrimExpr.__hash__
    __eq__ = PrimExpr.__eq__
    __ne__ = PrimExpr.__ne__


@register_object("tir.Not")
class Not(PrimExpr):
    """Logical not of a bool."""

    def __init__(self, a):
        self.__init_handle_by_constructor__(_ffi_api.Not, a)


@register_object("tir.Select")
class Select(PrimExpr):
    """``condition ? true_value : false_value``."""

    def __init__(self, condition, true_value, false_value):
        self.__init_handle_by_constructor__(_ffi_api.Select, condition, true_value, false_value)


@register_object("tir.BufferLoad")
class BufferLoad(PrimExpr):
    """``buffer[indices]``."""

    def __init__(self, buffer, indices):
        self.__init_handle_by_constructor__(_ffi_api.BufferLoad, buffer, list(indices))


@register_object("tir.Ramp")
class Ramp(PrimExpr):
    """The vector ``[base, base + stride, ...]`` of ``lanes`` elements."""

    def __init__(self, base, stride, lanes):
        self.__init_handle_by_constructor__(_ffi_api.Ramp, base, stride, int(lanes))


@register_object("tir.Broadcast")
class Broadcast(PrimExpr):
    """A scalar repeated over ``lanes``."""

    def __init__(self, value, lanes):
        self.__init_handle_by_constructor__(_ffi_api.Broadcast, value, int(lanes))


@register_object("tir.Let")
class Let(PrimExpr):
    """``let var = value in body``."""

    def __init__(self, var, value, body):
        self.__init_handle_by_constructor__(_ffi_api.Let, var, value, body)


@register_object("tir.Call")
class Call(PrimExpr):
    """A call of an intrinsic: ``op`` is a name in the tir namespace (``"tir.exp"``); any
    other name is a ValueError, as in TVM (call an external function with
    :func:`minitvm.tir.call_extern`)."""

    def __init__(self, dtype, op, args):
        if isinstance(args, (str, bytes)) or not hasattr(args, "__iter__"):
            raise _error.TypeError(f"tir.Call: args must be a list of PrimExpr, not {args!r}")
        self.__init_handle_by_constructor__(_ffi_api.Call, str(dtype), str(op), list(args))


@register_object("tir.CommReducer")
class CommReducer(Object):
    """A commutative reducer: ``lhs``, ``rhs``, ``result``, ``identity_element``."""

    def __init__(self, lhs, rhs, result, identity_element):
        from ..te import _ffi_api as _te_api  # pylint: disable=import-outside-toplevel

        self.__init_handle_by_constructor__(
            _te_api.CommReducer, list(lhs), list(rhs), list(result), list(identity_element)
        )


@register_object("tir.Reduce")
class Reduce(PrimExpr):
    """A reduction (what ``te.sum(expr, axis)`` builds): ``combiner``, ``source``, ``axis``,
    ``condition``, ``value_index``, ``init``."""

    def __init__(self, combiner, src, rdom, condition, value_index, init=None):
        from ..te import _ffi_api as _te_api  # pylint: disable=import-outside-toplevel

        self.__init_handle_by_constructor__(
            _te_api.Reduce, combiner, list(src), list(rdom), condition, int(value_index),
            list(init or []),
        )
