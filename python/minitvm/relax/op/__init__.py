"""``relax.op``: the Relax operators (stage 4), with TVM's names and Python signatures.

Every function builds a :class:`~minitvm.relax.Call` of the operator ``relax.<name>`` through
the C++ constructor ``"relax.op.<name>"``; struct info is inferred when the call is
normalised (``BlockBuilder.emit``). Tensor operands are call arguments, keyword parameters are
call attributes (``call.attrs["axis"]``). ``relax.op.nn``, ``relax.op.builtin`` and
``relax.op.memory`` hold the rest.
"""
from ... import error as _error
from . import _ffi_api
from . import builtin, memory, nn  # noqa: F401
from ._util import dtype_str, int_arg, int_list, shape_arg, sinfo_arg, tensors_arg

__all__ = [
    # calls of functions
    "call_tir", "call_dps_packed", "call_pure_packed",
    # binary
    "add", "subtract", "multiply", "divide", "floor_divide", "power", "maximum", "minimum",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "where",
    # unary
    "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "erf", "negative", "abs", "astype",
    # linear algebra, manipulation
    "matmul", "permute_dims", "reshape", "flatten", "concat", "split", "expand_dims", "squeeze",
    "strided_slice", "take", "broadcast_to",
    # reductions
    "sum", "mean", "max", "min", "argmax", "argmin",
    # creation
    "zeros", "ones", "full",
]


# ---- calls of functions ----------------------------------------------------------------------


def call_tir(gvar, args, out_sinfo=None, tir_vars=None, *, out_ty=None):
    """Call the PrimFunc ``gvar`` in destination-passing style.

    Parameters
    ----------
    gvar : GlobalVar
        The PrimFunc of the module to call.
    args : Expr or list of Expr
        The inputs (a Tuple; a list becomes one, a single non-tuple Expr is wrapped).
    out_sinfo : TensorStructInfo or list of TensorStructInfo
        The outputs, which the caller allocates (several: the result is a tuple).
    tir_vars : ShapeExpr, tuple of PrimExpr or None
        Extra integer arguments passed after the outputs.
    out_ty : TensorStructInfo or list of TensorStructInfo
        TVM 0.22's name for ``out_sinfo`` (give one of the two).
    """
    if out_ty is not None:
        if out_sinfo is not None:
            raise TypeError("call_tir: give out_sinfo= or out_ty=, not both")
        out_sinfo = out_ty
    if out_sinfo is None:
        raise TypeError("call_tir needs out_sinfo= (or out_ty=): the outputs' struct info")
    if isinstance(tir_vars, tuple):
        tir_vars = list(tir_vars)
    return _ffi_api.call("call_tir", gvar, tensors_arg(args), sinfo_arg(out_sinfo), tir_vars)


def call_dps_packed(func, args, out_sinfo):
    """Call the packed function ``func`` (a name or an ExternFunc) in destination-passing
    style: ``func(*args, *outputs)`` with outputs allocated as ``out_sinfo`` describes."""
    return _ffi_api.call("call_dps_packed", func, tensors_arg(args), sinfo_arg(out_sinfo))


def call_pure_packed(func, *args, sinfo_args):
    """Call the packed function ``func`` (which returns its result), declaring the call pure;
    ``sinfo_args`` is the result's struct info."""
    return _ffi_api.call("call_pure_packed", func, list(args), sinfo_arg(sinfo_args))


# ---- binary ----------------------------------------------------------------------------------


def _operands(x1, x2):
    """Python numbers next to a tensor become constants of the tensor's dtype (as TVM)."""
    from ..expr import const  # pylint: disable=import-outside-toplevel

    def dtype_of(e):
        info = getattr(e, "struct_info", None)
        return getattr(info, "dtype", None) if info is not None else None

    if isinstance(x1, (int, float)) and not isinstance(x1, bool):
        x1 = const(x1, dtype_of(x2))
    if isinstance(x2, (int, float)) and not isinstance(x2, bool):
        x2 = const(x2, dtype_of(x1))
    return x1, x2


def _binary(name, doc):
    def f(x1, x2):
        a, b = _operands(x1, x2)
        return _ffi_api.call(name, a, b)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc + "\n\nNumpy broadcasting; the two dtypes must be equal."
    return f


add = _binary("add", "``x1 + x2``, elementwise.")
subtract = _binary("subtract", "``x1 - x2``, elementwise.")
multiply = _binary("multiply", "``x1 * x2``, elementwise.")
divide = _binary("divide", "``x1 / x2``, elementwise.")
floor_divide = _binary("floor_divide", "``floor(x1 / x2)``, elementwise.")
power = _binary("power", "``x1 ** x2``, elementwise.")
maximum = _binary("maximum", "The larger of ``x1`` and ``x2``, elementwise.")
minimum = _binary("minimum", "The smaller of ``x1`` and ``x2``, elementwise.")
equal = _binary("equal", "``x1 == x2`` (a bool tensor).")
not_equal = _binary("not_equal", "``x1 != x2`` (a bool tensor).")
less = _binary("less", "``x1 < x2`` (a bool tensor).")
less_equal = _binary("less_equal", "``x1 <= x2`` (a bool tensor).")
greater = _binary("greater", "``x1 > x2`` (a bool tensor).")
greater_equal = _binary("greater_equal", "``x1 >= x2`` (a bool tensor).")


def where(condition, x1, x2):
    """``x1`` where ``condition`` (a bool tensor) holds, else ``x2``; all three broadcast."""
    return _ffi_api.call("where", condition, x1, x2)


# ---- unary -----------------------------------------------------------------------------------


def _unary(name, doc):
    def f(x):
        return _ffi_api.call(name, x)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


exp = _unary("exp", "``e ** x``, elementwise (float tensors).")
log = _unary("log", "The natural logarithm, elementwise (float tensors).")
sqrt = _unary("sqrt", "The square root, elementwise (float tensors).")
rsqrt = _unary("rsqrt", "``1 / sqrt(x)``, elementwise (float tensors).")
tanh = _unary("tanh", "The hyperbolic tangent, elementwise (float tensors).")
sigmoid = _unary("sigmoid", "``1 / (1 + exp(-x))``, elementwise (float tensors).")
erf = _unary("erf", "The Gauss error function, elementwise (float tensors).")
negative = _unary("negative", "``-x``, elementwise.")
abs = _unary("abs", "``|x|``, elementwise.")  # pylint: disable=redefined-builtin


def astype(x, dtype):
    """``x`` converted to ``dtype``, elementwise."""
    return _ffi_api.call("astype", x, dtype_str(dtype))


# ---- linear algebra, manipulation ------------------------------------------------------------


def matmul(x1, x2, out_dtype=None):
    """Matrix product with numpy's rules (1-D operands, broadcast batch dimensions);
    ``out_dtype=None`` keeps the inputs' dtype."""
    return _ffi_api.call("matmul", x1, x2, dtype_str(out_dtype))


def permute_dims(x, axes=None):
    """``x`` with its axes permuted (reversed when ``axes`` is None)."""
    return _ffi_api.call("permute_dims", x, int_list(axes, "axes"))


def reshape(x, shape):
    """``x`` with a new ``shape`` (a tuple, possibly with one ``-1``, or a shape Expr)."""
    return _ffi_api.call("reshape", x, shape_arg(shape))


def flatten(x):
    """``x`` as a 1-D tensor."""
    return _ffi_api.call("flatten", x)


def concat(tensors, axis=0):
    """The ``tensors`` (a Tuple or a list of Exprs) joined along ``axis`` (None: flattened)."""
    return _ffi_api.call("concat", tensors_arg(tensors), int_arg(axis, "concat: axis"))


def split(x, indices_or_sections, axis=0):
    """``x`` cut along ``axis`` into ``indices_or_sections`` equal parts (an int) or at the
    given indices (a list); the result is a tuple."""
    return _ffi_api.call("split", x, int_list(indices_or_sections, "indices_or_sections"),
                         int_arg(axis, "split: axis"))


def expand_dims(x, axis):
    """``x`` with new axes of extent 1 at ``axis`` (an int or a list) of the result."""
    return _ffi_api.call("expand_dims", x, int_list(axis, "axis"))


def squeeze(x, axis=None):
    """``x`` without the axes of extent 1 listed in ``axis`` (None: all of them)."""
    return _ffi_api.call("squeeze", x, int_list(axis, "axis"))


def strided_slice(x, axes, begin, end, strides=None, assume_inbound=False):
    """``x[begin:end:strides]`` along ``axes`` (numpy slicing: negative indices count from the
    end, out-of-range ones clamp). minitvm keeps axes/begin/end/strides as int attributes."""
    return _ffi_api.call(
        "strided_slice", x, int_list(axes, "axes"), int_list(begin, "begin"),
        int_list(end, "end"), int_list(strides, "strides"), bool(assume_inbound),
    )


def take(x, indices, axis=None, mode="fast"):
    """Elements of ``x`` at ``indices`` along ``axis`` (``numpy.take``; ``axis=None`` needs a
    1-D ``x``). ``mode``: "fast", "nan", "wrap" or "clip" for out-of-range indices."""
    return _ffi_api.call("take", x, indices, int_arg(axis, "take: axis"), mode)


def broadcast_to(x, shape):
    """``x`` broadcast to ``shape`` (numpy broadcasting)."""
    return _ffi_api.call("broadcast_to", x, shape_arg(shape))


def _flag(v, op):
    if not isinstance(v, (bool, int)) or v not in (0, 1):
        raise _error.TypeError(f"{op}: keepdims must be a bool, not {v!r}")
    return bool(v)


# ---- reductions ------------------------------------------------------------------------------


def _reduce(name, doc):
    def f(x, axis=None, keepdims=False):
        return _ffi_api.call(name, x, int_list(axis, "axis"), _flag(keepdims, name))

    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


sum = _reduce("sum", "The sum over ``axis`` (an int, a list, or None: all).")  # noqa: A001
mean = _reduce("mean", "The mean over ``axis`` (an int, a list, or None: all).")
max = _reduce("max", "The maximum over ``axis`` (an int, a list, or None: all).")  # noqa: A001
min = _reduce("min", "The minimum over ``axis`` (an int, a list, or None: all).")  # noqa: A001


def argmax(x, axis=None, keepdims=False):
    """The index (int64) of the maximum along ``axis`` (None: of the flattened tensor)."""
    if isinstance(axis, (list, tuple)):
        raise _error.TypeError("argmax: axis must be an int or None")
    return _ffi_api.call("argmax", x, int_list(axis, "axis"), _flag(keepdims, "argmax"))


def argmin(x, axis=None, keepdims=False):
    """The index (int64) of the minimum along ``axis`` (None: of the flattened tensor)."""
    if isinstance(axis, (list, tuple)):
        raise _error.TypeError("argmin: axis must be an int or None")
    return _ffi_api.call("argmin", x, int_list(axis, "axis"), _flag(keepdims, "argmin"))


# ---- creation --------------------------------------------------------------------------------


def zeros(shape, dtype):
    """A tensor of zeros of ``shape`` (a tuple or a shape Expr) and ``dtype``."""
    return _ffi_api.call("zeros", shape_arg(shape), dtype_str(dtype))


def ones(shape, dtype):
    """A tensor of ones of ``shape`` (a tuple or a shape Expr) and ``dtype``."""
    return _ffi_api.call("ones", shape_arg(shape), dtype_str(dtype))


def full(shape, fill_value, dtype=None):
    """A tensor of ``shape`` filled with ``fill_value`` (a 0-d tensor, e.g. ``relax.const``);
    ``dtype=None`` is fill_value's dtype."""
    return _ffi_api.call("full", shape_arg(shape), fill_value, dtype_str(dtype))
