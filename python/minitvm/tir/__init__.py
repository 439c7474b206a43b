"""``minitvm.tir``: TensorIR (stage 2), as ``tvm.tir``.

Node classes with readable fields — expressions (:class:`Var`, :class:`IntImm`,
:class:`Add`, ..., :class:`BufferLoad`, :class:`Call`), statements (:class:`BufferStore`,
:class:`For`, :class:`Block`, :class:`BlockRealize`, ...), :class:`Buffer` and
:class:`PrimFunc` — and the expression builders (:func:`const`, :func:`floordiv`,
:func:`exp`, :func:`if_then_else`, ...). ``Schedule`` (stage 3), ``analysis`` and
``transform`` are reached from here too.
"""
from .expr import (
    PrimExprWithOp, Var, SizeVar, IterVar, IntImm, FloatImm, StringImm, Cast, BinaryOpExpr,
    Add, Sub, Mul, Div, Mod, FloorDiv, FloorMod, Min, Max, EQ, NE, LT, LE, GT, GE, And, Or,
    Not, Select, BufferLoad, Ramp, Broadcast, Let, Call, Reduce, CommReducer,
)
from .buffer import Buffer, decl_buffer, BufferRegion, MatchBufferRegion
from .stmt import (
    Stmt, BufferStore, ForKind, For, While, IfThenElse, SeqStmt, Evaluate, LetStmt,
    AssertStmt, Allocate, DeclBuffer, AttrStmt, Block, BlockRealize,
)
from .function import PrimFunc
from .op import (
    const, cast, floordiv, floormod, truncdiv, truncmod, indexdiv, indexmod, div, max, min,
    max_value, min_value, if_then_else, likely, all, any, exp, exp2, exp10, log, log2, log10,
    log1p, sqrt, rsqrt, tanh, sigmoid, erf, fabs, abs, floor, ceil, round, trunc, nearbyint,
    sin, cos, tan, sinh, cosh, asin, acos, atan, pow, power, isnan, isinf, isfinite,
    call_extern, call_pure_extern, reinterpret, bitwise_and, bitwise_or, bitwise_xor,
    bitwise_not, shift_left, shift_right, vscale,
)
from ..ir.expr import PrimExpr, Range  # noqa: F401  (TVM re-exports them here too)

try:  # the analyses (written by the verifier part of stage 2)
    from . import analysis
except ImportError:  # pragma: no cover - only while that part is missing
    pass

try:  # the schedule (stage 3)
    from .schedule import Schedule, ScheduleError, TensorIntrin  # noqa: F401 (tvm.tir.TensorIntrin)
except ImportError:  # built without stage 3, or while it is missing
    pass

try:  # the lowering passes (stage 5)
    from . import transform
    from .transform import get_default_tir_pipeline  # noqa: F401
except ImportError:  # pragma: no cover
    pass
