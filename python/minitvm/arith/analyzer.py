"""The arithmetic :class:`Analyzer` and the values it returns (stage 2).

Example::

    import minitvm as tvm
    from minitvm import tir

    i, j = tir.Var("i", "int32"), tir.Var("j", "int32")
    ana = tvm.arith.Analyzer()
    ana.bind(j, tvm.ir.Range(0, 4))
    ana.simplify((i * 4 + j) // 4)          # -> i
    ana.const_int_bound(j * 2 + 1)          # -> ConstIntBound(min_value=1, max_value=7)
    ana.can_prove(i * 4 + j < i * 4 + 4)    # -> True
"""
from .._ffi import register_object
from ..runtime import Object
from . import _ffi_api

__all__ = ["Analyzer", "ConstIntBound", "IntervalSet", "IntSet"]


@register_object("arith.ConstIntBound")
class ConstIntBound(Object):
    """Constant bounds ``[min_value, max_value]`` (inclusive) of an integer expression.

    An unbounded end is :attr:`NEG_INF` / :attr:`POS_INF` (the int64 limits), as in TVM.
    """

    POS_INF = (1 << 63) - 1
    NEG_INF = -(1 << 63)

    def __repr__(self):
        def show(v):
            if v == self.POS_INF:
                return "+inf"
            if v == self.NEG_INF:
                return "-inf"
            return str(v)

        return f"ConstIntBound(min_value={show(self.min_value)}, max_value={show(self.max_value)})"


@register_object("arith.IntervalSet")
class IntervalSet(Object):
    """A symbolic interval ``[min_value, max_value]`` (inclusive); an end is None when the set
    is unbounded on that side."""

    def is_single_point(self):
        """True when both ends are the same expression."""
        from ..ir.structural import structural_equal  # pylint: disable=import-outside-toplevel

        return (
            self.min_value is not None
            and self.max_value is not None
            and structural_equal(self.min_value, self.max_value)
        )

    def __repr__(self):
        lo = "-inf" if self.min_value is None else str(self.min_value)
        hi = "+inf" if self.max_value is None else str(self.max_value)
        return f"IntervalSet[{lo}, {hi}]"


#: TVM's name for the interval set type.
IntSet = IntervalSet


class Analyzer:
    """Remembers variable ranges and answers questions about integer expressions.

    Bind loop variables to their ranges first (:meth:`bind`), then :meth:`simplify`,
    :meth:`const_int_bound`, :meth:`int_set` or :meth:`can_prove`. Each Analyzer has its own
    C++ state; creating one is cheap.
    """

    def __init__(self):
        self._handle = _ffi_api.CreateAnalyzer()

    def bind(self, var, value, allow_override=False):
        """Bind ``var`` to a :class:`minitvm.ir.Range` (``var`` lies in it) or to an expression
        (``var`` equals it and is substituted). Rebinding a variable differently raises
        ValueError unless ``allow_override``."""
        _ffi_api.AnalyzerBind(self._handle, var, value, bool(allow_override))

    def update(self, var, value, override=False):
        """TVM's other spelling of :meth:`bind` (``override`` is ``allow_override``)."""
        self.bind(var, value, allow_override=override)

    def simplify(self, expr):
        """The simplified expression: constants folded, affine sums in canonical order, the
        floordiv/floormod patterns of split and fuse resolved, comparisons decided by bounds."""
        return _ffi_api.AnalyzerSimplify(self._handle, expr)

    # TVM has separate rewrite and canonical simplifiers; minitvm has one that does both.
    canonical_simplify = simplify
    rewrite_simplify = simplify

    def const_int_bound(self, expr):
        """The :class:`ConstIntBound` of an integer expression under the bound ranges."""
        return _ffi_api.AnalyzerConstIntBound(self._handle, expr)

    def can_prove(self, cond):
        """True when ``cond`` is provably true; False means "not proven", not "false"."""
        return bool(_ffi_api.AnalyzerCanProve(self._handle, cond))

    def can_prove_equal(self, lhs, rhs):
        """True when ``lhs - rhs`` simplifies to 0."""
        return bool(_ffi_api.AnalyzerCanProveEqual(self._handle, lhs, rhs))

    def int_set(self, expr, dom_map=None):
        """The :class:`IntervalSet` of values ``expr`` takes when each variable of ``dom_map``
        ranges over its :class:`minitvm.ir.Range` or :class:`IntervalSet`; variables not in
        the map stay symbolic. Without a map, the ranges given to :meth:`bind` are used."""
        return _ffi_api.AnalyzerIntSet(self._handle, expr, dict(dom_map or {}))
