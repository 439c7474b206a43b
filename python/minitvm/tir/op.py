"""Building TensorIR expressions (stage 2), as ``tvm.tir.op``: constants, division flavours,
min/max, math intrinsics, select/if_then_else, casts, extern calls.

All of them go through the C++ builders (TVM's dtype promotion and constant folding).
Math functions take floats; integer arguments are converted to float32, as in TVM.
"""
from .. import error
from . import _ffi_api

__all__ = [
    "const", "floordiv", "floormod", "truncdiv", "truncmod", "indexdiv", "indexmod", "div",
    "max", "min", "max_value", "min_value", "if_then_else", "likely", "all", "any", "exp",
    "exp2", "exp10", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "tanh", "sigmoid", "erf",
    "fabs", "abs", "floor", "ceil", "round", "trunc", "nearbyint", "sin", "cos", "tan", "sinh",
    "cosh", "asin", "acos", "atan", "pow", "power", "isnan", "isinf", "isfinite",
    "call_extern", "call_pure_extern", "reinterpret", "bitwise_and", "bitwise_or",
    "bitwise_xor", "bitwise_not", "shift_left", "shift_right", "cast", "vscale",
]


def const(value, dtype=None, span=None):
    """A constant: ``const(1)`` is int32, ``const(1.0)`` float32, ``const(True)`` bool,
    ``const(0, "int64")``; vector dtypes give a Broadcast."""
    if dtype is None:
        if isinstance(value, bool):
            dtype = "bool"
        elif isinstance(value, int):
            dtype = "int32" if -(2**31) <= value < 2**31 else "int64"
        elif isinstance(value, float):
            dtype = "float32"
        else:
            raise error.TypeError(f"const: cannot infer a dtype for {value!r}")
    return _ffi_api.const(value, str(dtype))


def cast(value, dtype, span=None):
    """``value`` converted to ``dtype``."""
    return _ffi_api._OpCast(str(dtype), value)


def floordiv(a, b, span=None):
    """floor(a / b) (integers) — what Python's ``//`` builds."""
    return _ffi_api._OpFloorDiv(a, b)


def floormod(a, b, span=None):
    """a - floordiv(a, b) * b (the sign of b) — what Python's ``%`` builds."""
    return _ffi_api._OpFloorMod(a, b)


def truncdiv(a, b, span=None):
    """C division (rounds toward zero)."""
    return _ffi_api._OpTruncDiv(a, b)


def truncmod(a, b, span=None):
    """C remainder (the sign of a)."""
    return _ffi_api._OpTruncMod(a, b)


def indexdiv(a, b, span=None):
    """Division of non-negative indices (floordiv)."""
    return _ffi_api._OpFloorDiv(a, b)


def indexmod(a, b, span=None):
    """Remainder of non-negative indices (floormod)."""
    return _ffi_api._OpFloorMod(a, b)


def div(a, b, span=None):
    """``a / b``: true division for floats, truncating for integers."""
    return _ffi_api._OpDiv(a, b)


def max(a, b, *rest, span=None):  # pylint: disable=redefined-builtin
    """The larger of the expressions (binary, or folded over more)."""
    out = _ffi_api._OpMax(a, b)
    for r in rest:
        out = _ffi_api._OpMax(out, r)
    return out


def min(a, b, *rest, span=None):  # pylint: disable=redefined-builtin
    """The smaller of the expressions."""
    out = _ffi_api._OpMin(a, b)
    for r in rest:
        out = _ffi_api._OpMin(out, r)
    return out


def max_value(dtype, span=None):
    """The largest value of ``dtype``."""
    return _ffi_api.max_value(str(dtype))


def min_value(dtype, span=None):
    """The smallest (most negative) value of ``dtype``."""
    return _ffi_api.min_value(str(dtype))


def if_then_else(cond, t, f, span=None):
    """``cond ? t : f``, evaluating only the chosen side (guards out-of-range loads)."""
    return _ffi_api._OpIfThenElse(cond, t, f)


def likely(cond, span=None):
    """A hint that ``cond`` is usually true."""
    return _call("likely", cond)


def all(*args, span=None):  # pylint: disable=redefined-builtin
    """The conjunction of the conditions (``a && b && ...``)."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    if not args:
        raise error.ValueError("tir.all: needs at least one condition")
    out = args[0]
    for a in args[1:]:
        out = _ffi_api._OpAnd(out, a)
    return out


def any(*args, span=None):  # pylint: disable=redefined-builtin
    """The disjunction of the conditions (``a || b || ...``)."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    if not args:
        raise error.ValueError("tir.any: needs at least one condition")
    out = args[0]
    for a in args[1:]:
        out = _ffi_api._OpOr(out, a)
    return out


def _call(name, x):
    from .._ffi import get_global_func  # pylint: disable=import-outside-toplevel

    return get_global_func("tir.op." + name)(x)


def _float_intrinsic(name, x):
    from .._ffi import get_global_func  # pylint: disable=import-outside-toplevel

    return get_global_func("tir.op.float_intrinsic")(name, x)


def exp(x):
    """e ** x."""
    return _call("exp", x)


def log(x):
    """Natural logarithm."""
    return _call("log", x)


def sqrt(x):
    """Square root."""
    return _call("sqrt", x)


def rsqrt(x):
    """1 / sqrt(x)."""
    return _call("rsqrt", x)


def tanh(x):
    """Hyperbolic tangent."""
    return _call("tanh", x)


def sigmoid(x):
    """1 / (1 + exp(-x))."""
    return _call("sigmoid", x)


def erf(x):
    """The error function."""
    return _call("erf", x)


def fabs(x):
    """|x| for floats."""
    return _call("fabs", x)


def abs(x, span=None):  # pylint: disable=redefined-builtin
    """|x| for ints and floats."""
    return _call("abs", x)


def floor(x):
    """Round down."""
    return _call("floor", x)


def ceil(x):
    """Round up."""
    return _call("ceil", x)


def round(x):  # pylint: disable=redefined-builtin
    """Round to the nearest integer, halves away from zero."""
    return _call("round", x)


def _make_float_intrinsic(name):
    def f(x, span=None):
        return _float_intrinsic(name, x)

    f.__name__ = name
    f.__doc__ = f"The ``{name}`` math function (float)."
    return f


exp2 = _make_float_intrinsic("exp2")
exp10 = _make_float_intrinsic("exp10")
log2 = _make_float_intrinsic("log2")
log10 = _make_float_intrinsic("log10")
log1p = _make_float_intrinsic("log1p")
trunc = _make_float_intrinsic("trunc")
nearbyint = _make_float_intrinsic("nearbyint")
sin = _make_float_intrinsic("sin")
cos = _make_float_intrinsic("cos")
tan = _make_float_intrinsic("tan")
sinh = _make_float_intrinsic("sinh")
cosh = _make_float_intrinsic("cosh")
asin = _make_float_intrinsic("asin")
acos = _make_float_intrinsic("acos")
atan = _make_float_intrinsic("atan")


def pow(x, y, span=None):  # pylint: disable=redefined-builtin
    """x ** y (float)."""
    return _ffi_api._OpPow(x, y)


power = pow


def _predicate(name):
    def f(x, span=None):
        return _ffi_api.Call("bool", "tir." + name, [x])

    f.__name__ = name
    f.__doc__ = f"``{name}(x)`` as a bool expression."
    return f


isnan = _predicate("isnan")
isinf = _predicate("isinf")
isfinite = _predicate("isfinite")


def call_extern(dtype, func_name, *args, span=None):
    """A call of the external function ``func_name`` (the interpreter calls the global
    function of that name)."""
    from .._ffi import get_global_func  # pylint: disable=import-outside-toplevel

    return get_global_func("tir.op.call_extern")(str(dtype), func_name, list(args))


call_pure_extern = call_extern


def vscale():
    """TVM's ``tir.vscale()``: the hardware's scalable-vector multiple (an int32 intrinsic
    call; minitvm has no scalable vectors to use it in)."""
    from .._ffi import get_global_func  # pylint: disable=import-outside-toplevel

    return get_global_func("tir.op.CallIntrinsic")("vscale", [], "")


def reinterpret(dtype, value, span=None):
    """The bits of ``value`` read as ``dtype`` (same size)."""
    from .._ffi import get_global_func  # pylint: disable=import-outside-toplevel

    return get_global_func("tir.op.reinterpret")(str(dtype), value)


def bitwise_and(x, y, span=None):
    """x & y (integers)."""
    return _ffi_api._OpBitwise("bitwise_and", x, y)


def bitwise_or(x, y, span=None):
    """x | y (integers)."""
    return _ffi_api._OpBitwise("bitwise_or", x, y)


def bitwise_xor(x, y, span=None):
    """x ^ y (integers)."""
    return _ffi_api._OpBitwise("bitwise_xor", x, y)


def bitwise_not(x, span=None):
    """~x (integers)."""
    return _ffi_api._OpBitwiseNot(x)


def shift_left(x, y, span=None):
    """x << y."""
    return _ffi_api._OpBitwise("shift_left", x, y)


def shift_right(x, y, span=None):
    """x >> y (arithmetic for signed ints)."""
    return _ffi_api._OpBitwise("shift_right", x, y)

