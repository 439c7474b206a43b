"""Expressions shared by TensorIR and Relax (stage 2): ``PrimExpr`` with Python operators,
``Range`` and ``GlobalVar``, as in ``tvm.ir``.

Operators on :class:`PrimExpr` build IR the way TVM's do: ``a + b``, ``a * 2``, ``-a``,
``a // b`` (floordiv), ``a % b`` (floormod), ``a / b`` (true division for floats, truncating
``Div`` for integers), comparisons ``a < b`` build ``LT`` nodes, and ``a == b`` builds an
``EQ`` node whose truth value is the *identity* of the operands (so PrimExprs work as dict
keys and in ``in`` tests). Python numbers adapt to the other operand's dtype (``x + 1`` with
an int64 ``x`` is int64). Using a general expression as a bool (``if a < b:``) is an error.
"""
from .. import error
from .._ffi import get_global_func, register_object
from ..runtime import Object
from . import _ffi_api

__all__ = ["BaseExpr", "PrimExpr", "ExprOp", "Range", "GlobalVar", "as_expr"]

_OPS = {}


def _op(name):
    """The global function ``tir.<name>`` (cached; the tir builders live in C++)."""
    f = _OPS.get(name)
    if f is None:
        f = _OPS[name] = get_global_func("tir." + name)
    return f


def _c(x):
    """An operand as an expression: IterVars stand for their variable, as in TVM."""
    conv = getattr(type(x), "_as_prim_expr", None)
    return conv(x) if conv is not None else x


as_expr = _c


def _is_expr_like(x):
    return isinstance(x, (PrimExpr, int, float, bool))


def _dtype_of(x):
    if isinstance(x, PrimExpr):
        return str(x.dtype)
    if isinstance(x, bool):
        return "bool"
    if isinstance(x, int):
        return "int32"
    return "float32"


class ExprOp:
    """The Python operators of TensorIR expressions (mixed into :class:`PrimExpr`)."""

    # arithmetic -----------------------------------------------------------------------------
    def __add__(self, other):
        return _op("_OpAdd")(self, _c(other))

    def __radd__(self, other):
        return _op("_OpAdd")(_c(other), self)

    def __sub__(self, other):
        return _op("_OpSub")(self, _c(other))

    def __rsub__(self, other):
        return _op("_OpSub")(_c(other), self)

    def __mul__(self, other):
        return _op("_OpMul")(self, _c(other))

    def __rmul__(self, other):
        return _op("_OpMul")(_c(other), self)

    def __truediv__(self, other):
        return _op("_OpDiv")(self, _c(other))

    def __rtruediv__(self, other):
        return _op("_OpDiv")(_c(other), self)

    def __floordiv__(self, other):
        return _op("_OpFloorDiv")(self, _c(other))

    def __rfloordiv__(self, other):
        return _op("_OpFloorDiv")(_c(other), self)

    def __mod__(self, other):
        return _op("_OpFloorMod")(self, _c(other))

    def __rmod__(self, other):
        return _op("_OpFloorMod")(_c(other), self)

    def __pow__(self, other):
        return _op("_OpPow")(self, _c(other))

    def __rpow__(self, other):
        return _op("_OpPow")(_c(other), self)

    def __neg__(self):
        return _op("_OpNeg")(self)

    def __abs__(self):
        return _op("op.abs")(self)

    # bitwise --------------------------------------------------------------------------------
    def __lshift__(self, other):
        return _op("_OpBitwise")("shift_left", self, _c(other))

    def __rshift__(self, other):
        return _op("_OpBitwise")("shift_right", self, _c(other))

    def __and__(self, other):
        return _op("_OpBitwise")("bitwise_and", self, _c(other))

    def __or__(self, other):
        return _op("_OpBitwise")("bitwise_or", self, _c(other))

    def __xor__(self, other):
        return _op("_OpBitwise")("bitwise_xor", self, _c(other))

    def __invert__(self):
        return _op("_OpBitwiseNot")(self)

    # comparisons ----------------------------------------------------------------------------
    def __lt__(self, other):
        return _op("_OpLT")(self, _c(other))

    def __le__(self, other):
        return _op("_OpLE")(self, _c(other))

    def __gt__(self, other):
        return _op("_OpGT")(self, _c(other))

    def __ge__(self, other):
        return _op("_OpGE")(self, _c(other))

    def __eq__(self, other):
        other = _c(other)
        if not _is_expr_like(other):
            return NotImplemented
        try:
            return _op("_OpEQ")(self, _c(other))
        except error.TVMError:
            return False  # incomparable dtypes: certainly not the same expression

    def __ne__(self, other):
        other = _c(other)
        if not _is_expr_like(other):
            return NotImplemented
        try:
            return _op("_OpNE")(self, _c(other))
        except error.TVMError:
            return True

    __hash__ = Object.__hash__

    def __bool__(self):
        raise error.ValueError(
            "Cannot use and / or / not operator to Expr, hint: use minitvm.tir.all / "
            "minitvm.tir.any instead (a PrimExpr has no truth value, except a == b / a != b, "
            "which compare identity)"
        )

    __nonzero__ = __bool__

    def equal(self, other):
        """The ``EQ`` node ``self == other`` (use this where == would compare identity)."""
        return _op("_OpEQ")(self, _c(other))

    def astype(self, dtype):
        """``self`` converted to ``dtype`` (a Cast, or a folded constant)."""
        return _op("_OpCast")(dtype, self)


@register_object("ir.BaseExpr")
class BaseExpr(Object):
    """Base class of all expressions (TensorIR and Relax)."""


@register_object("ir.PrimExpr")
class PrimExpr(BaseExpr, ExprOp):
    """A TensorIR expression with a ``dtype``; see the module docstring for its operators."""

    __hash__ = Object.__hash__
    __eq__ = ExprOp.__eq__
    __ne__ = ExprOp.__ne__


@register_object("ir.Range")
class Range(Object):
    """A half-open range of integers: ``Range(end)`` is [0, end), ``Range(begin, end)`` is
    [begin, end). Fields ``min`` and ``extent``."""

    def __init__(self, begin, end=None):
        self.__init_handle_by_constructor__(_ffi_api.Range, begin, end)

    @staticmethod
    def from_min_extent(min_value, extent):
        """The range [min_value, min_value + extent)."""
        return _ffi_api.RangeFromMinExtent(min_value, extent)

    def __eq__(self, other):
        return self.same_as(other)

    __hash__ = Object.__hash__


@register_object("ir.GlobalVar")
class GlobalVar(BaseExpr):
    """The name of a function in an :class:`~minitvm.ir.IRModule`."""

    def __init__(self, name_hint):
        self.__init_handle_by_constructor__(_ffi_api.GlobalVar, name_hint)

    def __repr__(self):
        return f'I.GlobalVar("{self.name_hint}")'
