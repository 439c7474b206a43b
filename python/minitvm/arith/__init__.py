"""Integer arithmetic analysis (stage 2), as in ``tvm.arith``.

:class:`Analyzer` simplifies index expressions, bounds them (:meth:`Analyzer.const_int_bound`,
:meth:`Analyzer.int_set`) and proves simple facts (:meth:`Analyzer.can_prove`) under the
ranges bound to loop variables. All the work is done in C++ (``src/arith/``); see
``docs/arith.md`` for the rules.
"""
from .analyzer import Analyzer, ConstIntBound, IntervalSet, IntSet

__all__ = ["Analyzer", "ConstIntBound", "IntervalSet", "IntSet"]
