"""``minitvm.topi``: the TE operator library (stage 2), as ``tvm.topi``.

Each operator takes ``te.Tensor`` s and returns ``te.Tensor`` s built with ``te.compute``;
``te.create_prim_func([inputs..., output])`` turns the result into a PrimFunc. The operators
are written in C++ (``src/topi``); these are thin wrappers with TVM's names and signatures.
Neural-network operators are in :mod:`minitvm.topi.nn`.
"""
from .. import error
from .._ffi import get_global_func
from ..ir.expr import PrimExpr
from ..te.tensor import Tensor
from . import nn

__all__ = [
    "add", "subtract", "multiply", "divide", "floor_divide", "mod", "floor_mod", "power",
    "maximum", "minimum", "equal", "not_equal", "less", "less_equal", "greater",
    "greater_equal", "logical_and", "logical_or", "logical_xor", "negative", "abs", "exp", "log",
    "sqrt", "rsqrt", "tanh", "sigmoid", "erf", "floor", "ceil", "round", "sign", "logical_not",
    "identity", "cast", "clip", "full", "full_like", "zeros", "ones", "arange", "broadcast_to",
    "reshape", "transpose", "permute_dims", "flatten", "concatenate", "split", "squeeze",
    "expand_dims", "take", "where", "strided_slice", "sum", "max", "min", "prod", "mean",
    "argmax", "argmin", "matmul", "nn",
]


def _f(name):
    return get_global_func("topi." + name)


def _binary(name):
    def op(lhs, rhs):
        if not isinstance(lhs, Tensor) and not isinstance(rhs, Tensor):
            raise error.TypeError(f"topi.{name}: at least one operand must be a te.Tensor")
        return _f(name)(lhs, rhs)

    op.__name__ = name
    op.__doc__ = f"``{name}`` with NumPy broadcasting (either operand may be a scalar)."
    return op


add = _binary("add")
subtract = _binary("subtract")
multiply = _binary("multiply")
divide = _binary("divide")
floor_divide = _binary("floor_divide")
mod = _binary("mod")
floor_mod = _binary("floor_mod")
power = _binary("power")
maximum = _binary("maximum")
minimum = _binary("minimum")
equal = _binary("equal")
not_equal = _binary("not_equal")
less = _binary("less")
less_equal = _binary("less_equal")
greater = _binary("greater")
greater_equal = _binary("greater_equal")
logical_and = _binary("logical_and")
logical_or = _binary("logical_or")
logical_xor = _binary("logical_xor")


def _unary(name):
    def op(x):
        return _f(name)(x)

    op.__name__ = name
    op.__doc__ = f"Elementwise ``{name}``."
    return op


negative = _unary("negative")
abs = _unary("abs")  # pylint: disable=redefined-builtin
exp = _unary("exp")
log = _unary("log")
sqrt = _unary("sqrt")
rsqrt = _unary("rsqrt")
tanh = _unary("tanh")
sigmoid = _unary("sigmoid")
erf = _unary("erf")
floor = _unary("floor")
ceil = _unary("ceil")
round = _unary("round")  # pylint: disable=redefined-builtin
sign = _unary("sign")
logical_not = _unary("logical_not")
identity = _unary("identity")


def cast(x, dtype, span=None):
    """x converted to ``dtype``."""
    return _f("cast")(x, str(dtype))


def clip(x, a_min, a_max):
    """min(max(x, a_min), a_max)."""
    return _f("clip")(x, a_min, a_max)


def full(shape, dtype, fill_value):
    """A tensor of ``shape`` filled with ``fill_value``."""
    return _f("full")(list(shape), str(dtype), fill_value)


def full_like(x, fill_value):
    """A tensor shaped like ``x`` filled with ``fill_value``."""
    return _f("full_like")(x, fill_value)


def zeros(shape, dtype="float32"):
    """A tensor of zeros."""
    return full(shape, dtype, 0)


def ones(shape, dtype="float32"):
    """A tensor of ones."""
    return full(shape, dtype, 1)


def arange(start, stop=None, step=1, dtype="float32"):
    """start, start + step, ... below stop, like numpy.arange (``arange(n)`` is 0..n-1)."""
    if stop is None:
        start, stop = 0, start
    return _f("arange")(float(start), float(stop), float(step), str(dtype))


def broadcast_to(data, shape):
    """``data`` repeated to ``shape``."""
    return _f("broadcast_to")(data, list(shape))


def reshape(a, newshape):
    """The same elements under ``newshape`` (one entry may be -1)."""
    if isinstance(newshape, (int, PrimExpr)):
        newshape = [newshape]
    return _f("reshape")(a, list(newshape))


def transpose(a, axes=None):
    """Permute the axes (reverse them when ``axes`` is None)."""
    return _f("transpose")(a, None if axes is None else list(axes))


permute_dims = transpose


def flatten(a, start_axis=0, end_axis=-1):
    """Merge axes start_axis..end_axis into one, like torch.flatten."""
    return _f("flatten")(a, start_axis, end_axis)


def concatenate(a_tuple, axis=0):
    """Join tensors along ``axis``."""
    return _f("concatenate")(list(a_tuple), axis)


def split(ary, indices_or_sections, axis=0):
    """Split into equal sections (an int) or before each index (a list); a list of tensors."""
    if not isinstance(indices_or_sections, int):
        indices_or_sections = list(indices_or_sections)
    return list(_f("split")(ary, indices_or_sections, axis))


def squeeze(a, axis=None):
    """Remove size-1 axes (the given ones, or all)."""
    if isinstance(axis, int):
        axis = [axis]
    return _f("squeeze")(a, None if axis is None else list(axis))


def expand_dims(a, axis, num_newaxis=1):
    """Insert ``num_newaxis`` size-1 axes at ``axis`` (TVM's form); a list of axes inserts
    at those positions of the result (NumPy's form)."""
    if isinstance(axis, (list, tuple)):
        return _f("expand_dims_axes")(a, list(axis))
    return _f("expand_dims")(a, axis, num_newaxis)


def take(a, indices, axis=None, batch_dims=0, mode="clip"):
    """Gather along ``axis`` (the flattened tensor when None). ``mode``: clip, wrap, raise
    (negative indices count from the end, out of range is an error when run) or fast."""
    if batch_dims:
        raise error.ValueError("topi.take: batch_dims is not supported")
    return _f("take")(a, indices, axis, mode)


def where(condition, x, y):
    """condition ? x : y with broadcasting."""
    return _f("where")(condition, x, y)


def strided_slice(a, begin, end, strides=None, axes=None, slice_mode="end"):
    """a[begin:end:strides] per axis (constant bounds)."""
    if axes is not None:
        raise error.ValueError("topi.strided_slice: axes is not supported")
    return _f("strided_slice")(a, list(begin), list(end), None if strides is None else list(strides))


def _axes(axis):
    if axis is None:
        return None
    if isinstance(axis, int):
        return [axis]
    return list(axis)


def sum(data, axis=None, keepdims=False):  # pylint: disable=redefined-builtin
    """Sum over ``axis`` (all axes when None)."""
    return _f("sum")(data, _axes(axis), keepdims)


def max(data, axis=None, keepdims=False):  # pylint: disable=redefined-builtin
    """Maximum over ``axis``."""
    return _f("max")(data, _axes(axis), keepdims)


def min(data, axis=None, keepdims=False):  # pylint: disable=redefined-builtin
    """Minimum over ``axis``."""
    return _f("min")(data, _axes(axis), keepdims)


def prod(data, axis=None, keepdims=False):
    """Product over ``axis``."""
    return _f("prod")(data, _axes(axis), keepdims)


def mean(data, axis=None, keepdims=False):
    """Mean over ``axis``."""
    return _f("mean")(data, _axes(axis), keepdims)


def argmax(data, axis=None, keepdims=False, select_last_index=False):
    """Index of the maximum along ``axis`` (int64; the first on ties)."""
    return _f("argmax")(data, axis, keepdims)


def argmin(data, axis=None, keepdims=False, select_last_index=False):
    """Index of the minimum along ``axis`` (int64; the first on ties)."""
    return _f("argmin")(data, axis, keepdims)


def matmul(a, b, transp_a=False, transp_b=False, out_dtype=None):
    """a @ b with NumPy semantics (1-D, 2-D, batched with broadcasting)."""
    return _f("matmul")(a, b, transp_a, transp_b, out_dtype)
