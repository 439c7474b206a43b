"""minitvm.lownumpy: the stage-1 reference operators, NumPy-style, written as plain C++ loops.

Every function here is a thin wrapper over the registered C++ function of the same name
(``lownumpy.add``, ``lownumpy.conv2d``, ...): it turns NumPy arrays, lists and Python scalars
into :class:`minitvm.nd.NDArray` and NumPy-style attributes (an ``int`` axis, a ``(before,
after)`` pad) into what the C++ side takes, and returns NDArrays (call ``.numpy()``).
The shape rules, dtype rules and errors are those of the C++ library; see
``docs/stage1_lownumpy.md``. Bad input raises :class:`minitvm.error.ValueError` naming the
operator.

Example::

    import numpy as np
    from minitvm import lownumpy as lnp
    y = lnp.conv2d(np.ones((1, 3, 8, 8), "float32"), np.ones((4, 3, 3, 3), "float32"),
                   padding=1)
    y.numpy().shape  # (1, 4, 8, 8)

The reference models live in :mod:`minitvm.lownumpy.models`.
"""
import builtins
import numbers
import operator

import numpy as np

from .. import error
from ..runtime.ndarray import NDArray, array as _nd_array
from . import _ffi_api

__all__ = [
    # elementwise
    "add", "subtract", "multiply", "divide", "floor_divide", "mod", "power", "maximum",
    "minimum", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_xor", "logical_not", "negative", "abs", "exp", "log",
    "sqrt", "rsqrt", "tanh", "sigmoid", "erf", "relu", "gelu", "where", "clip", "cast",
    # reductions
    "sum", "mean", "prod", "max", "min", "argmax", "argmin",
    # linear algebra and nn
    "matmul", "linear", "conv2d", "conv2d_transpose", "max_pool2d", "avg_pool2d",
    "adaptive_avg_pool2d", "batch_norm", "layer_norm", "softmax", "log_softmax", "lstm_cell",
    # shapes
    "reshape", "permute_dims", "flatten", "concatenate", "split", "squeeze", "expand_dims",
    "broadcast_to", "take", "pad",
    # creation
    "full", "zeros", "ones", "arange", "random_uniform",
    "models",
]


# ---- argument conversion ---------------------------------------------------------------------

def _dtype_of(x):
    if isinstance(x, NDArray):
        return x.dtype
    if isinstance(x, np.ndarray):
        return x.dtype.name
    return None


def _is_scalar(x):
    return isinstance(x, (numbers.Number, np.generic)) and not isinstance(x, np.ndarray)


def _arr(x, like=None):
    """``x`` as an NDArray. A Python scalar takes the dtype of ``like`` (another operand) so
    that ``add(x_float32, 1)`` stays float32; NDArrays pass through unchanged."""
    if isinstance(x, NDArray):
        return x
    if x is None:
        return None
    try:
        if _is_scalar(x) and like is not None:
            return _nd_array(np.asarray(x, dtype=_dtype_of(like)))
        return _nd_array(np.asarray(x))
    except (builtins.ValueError, builtins.TypeError, OverflowError) as err:
        if isinstance(err, error.TVMError):
            raise
        raise error.ValueError(f"lownumpy: cannot make an array of {x!r}: {err}") from err


def _pair(a, b):
    """Two operands as NDArrays, scalars taking the other operand's dtype."""
    a_like = b if _dtype_of(b) is not None else None
    b_like = a if _dtype_of(a) is not None else None
    return _arr(a, a_like), _arr(b, b_like)


def _int(v, what="an argument"):
    """``v`` as a Python int; a float (even 2.0), a str or None is a TypeError, as in NumPy."""
    try:
        return operator.index(v)
    except builtins.TypeError as err:
        raise error.TypeError(f"lownumpy: {what} must be an integer, not {v!r}") from err


def _ints(v, what="an argument"):
    """An int or a sequence of ints as a list of Python ints."""
    if isinstance(v, (numbers.Integral, np.integer)):
        return [int(v)]
    if isinstance(v, (str, bytes)) or not hasattr(v, "__iter__"):
        raise error.TypeError(f"lownumpy: {what} must be an int or a sequence of ints, not {v!r}")
    return [_int(i, what) for i in v]


def _float(v, what):
    """``v`` as a Python float (TypeError for a str, None or a sequence)."""
    if isinstance(v, (str, bytes)) or v is None:
        raise error.TypeError(f"lownumpy: {what} must be a number, not {v!r}")
    try:
        return float(v)
    except (builtins.TypeError, builtins.ValueError) as err:
        raise error.TypeError(f"lownumpy: {what} must be a number, not {v!r}") from err


def _axes(axis):
    """None stays None (all axes); an int or a sequence becomes a list."""
    return None if axis is None else _ints(axis, "axis")


# ---- elementwise -------------------------------------------------------------------------------

def _binary(name, doc):
    def op(a, b):
        a, b = _pair(a, b)
        return getattr(_ffi_api, name)(a, b)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc + " Broadcasting as NumPy; both operands of one dtype."
    return op


def _unary(name, doc):
    def op(a):
        return getattr(_ffi_api, name)(_arr(a))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


add = _binary("add", "a + b.")
subtract = _binary("subtract", "a - b.")
multiply = _binary("multiply", "a * b.")
divide = _binary("divide", "a / b (integers give float64).")
floor_divide = _binary("floor_divide", "a // b (integer division by zero gives 0).")
mod = _binary("mod", "a % b, the sign following b.")
power = _binary("power", "a ** b (integers to negative powers raise ValueError).")
maximum = _binary("maximum", "The larger of a and b; NaN propagates.")
minimum = _binary("minimum", "The smaller of a and b; NaN propagates.")
equal = _binary("equal", "a == b, as bool.")
not_equal = _binary("not_equal", "a != b, as bool.")
less = _binary("less", "a < b, as bool.")
less_equal = _binary("less_equal", "a <= b, as bool.")
greater = _binary("greater", "a > b, as bool.")
greater_equal = _binary("greater_equal", "a >= b, as bool.")
logical_and = _binary("logical_and", "a and b (nonzero is true), as bool.")
logical_or = _binary("logical_or", "a or b (nonzero is true), as bool.")
logical_xor = _binary("logical_xor", "a xor b (nonzero is true), as bool.")
logical_not = _unary("logical_not", "not a (nonzero is true), as bool.")
negative = _unary("negative", "-a.")
abs = _unary("abs", "|a|.")  # pylint: disable=redefined-builtin
exp = _unary("exp", "e ** a (floats).")
log = _unary("log", "Natural logarithm (floats).")
sqrt = _unary("sqrt", "Square root (floats).")
rsqrt = _unary("rsqrt", "1 / sqrt(a) (floats).")
tanh = _unary("tanh", "Hyperbolic tangent (floats).")
sigmoid = _unary("sigmoid", "1 / (1 + exp(-a)) (floats).")
erf = _unary("erf", "The error function (floats).")
relu = _unary("relu", "max(a, 0).")


def gelu(a, approximate="none"):
    """GELU: ``x * Phi(x)`` with ``approximate="none"``, or the tanh approximation."""
    return _ffi_api.gelu(_arr(a), approximate)


def where(condition, x, y):
    """``x`` where ``condition`` is true (nonzero), else ``y``; all three broadcast."""
    x, y = _pair(x, y)
    return _ffi_api.where(_arr(condition), x, y)


def clip(a, a_min=None, a_max=None):
    """``minimum(maximum(a, a_min), a_max)``; a bound of None is no bound."""
    lo = -np.inf if a_min is None else _float(a_min, "clip: a_min")
    hi = np.inf if a_max is None else _float(a_max, "clip: a_max")
    return _ffi_api.clip(_arr(a), lo, hi)


def cast(a, dtype):
    """Convert to ``dtype`` (bool, int8, int16, int32, int64, uint8, float32, float64)."""
    return _ffi_api.cast(_arr(a), _dtype_name(dtype))


# ---- reductions ----------------------------------------------------------------------------------

def sum(a, axis=None, keepdims=False):  # pylint: disable=redefined-builtin
    """Sum over ``axis`` (an int, a sequence, or None for all axes)."""
    return _ffi_api.sum(_arr(a), _axes(axis), bool(keepdims))


def mean(a, axis=None, keepdims=False):
    """Mean over ``axis``."""
    return _ffi_api.mean(_arr(a), _axes(axis), bool(keepdims))


def prod(a, axis=None, keepdims=False):
    """Product over ``axis``."""
    return _ffi_api.prod(_arr(a), _axes(axis), bool(keepdims))


def max(a, axis=None, keepdims=False):  # pylint: disable=redefined-builtin
    """Maximum over ``axis``; an empty reduction raises ValueError."""
    return _ffi_api.max(_arr(a), _axes(axis), bool(keepdims))


def min(a, axis=None, keepdims=False):  # pylint: disable=redefined-builtin
    """Minimum over ``axis``; an empty reduction raises ValueError."""
    return _ffi_api.min(_arr(a), _axes(axis), bool(keepdims))


def argmax(a, axis=None, keepdims=False):
    """Index (int64) of the first maximum along ``axis``, or in the flattened array."""
    axis = None if axis is None else _int(axis, "argmax: axis")
    return _ffi_api.argmax(_arr(a), axis, bool(keepdims))


def argmin(a, axis=None, keepdims=False):
    """Index (int64) of the first minimum along ``axis``, or in the flattened array."""
    axis = None if axis is None else _int(axis, "argmin: axis")
    return _ffi_api.argmin(_arr(a), axis, bool(keepdims))


# ---- linear algebra and neural networks ----------------------------------------------------------

def matmul(a, b):
    """NumPy's matmul: (..., n, k) @ (..., k, m), batch dimensions broadcast, 1-D promoted."""
    a, b = _pair(a, b)
    return _ffi_api.matmul(a, b)


def linear(x, weight, bias=None):
    """``x @ weight.T + bias``: x (..., in), weight (out, in), bias (out,) or None."""
    return _ffi_api.linear(_arr(x), _arr(weight), _arr(bias))


def conv2d(x, weight, bias=None, strides=1, padding=0, dilation=1, groups=1):
    """2-D convolution, NCHW input and OIHW weight. ``strides`` and ``dilation`` take 1 or 2
    ints; ``padding`` 1, 2 or 4 ints (top, left, bottom, right)."""
    return _ffi_api.conv2d(_arr(x), _arr(weight), _arr(bias), _ints(strides), _ints(padding),
                           _ints(dilation), _int(groups, "groups"))


def conv2d_transpose(x, weight, bias=None, strides=1, padding=0, output_padding=0, dilation=1,
                     groups=1):
    """Transposed 2-D convolution, NCHW input and IOHW weight (PyTorch's layout)."""
    return _ffi_api.conv2d_transpose(_arr(x), _arr(weight), _arr(bias), _ints(strides),
                                     _ints(padding), _ints(output_padding), _ints(dilation),
                                     _int(groups, "groups"))


def max_pool2d(x, pool_size, strides=None, padding=0, dilation=1, ceil_mode=False):
    """Max pooling over the last two axes of NCHW; ``strides`` defaults to ``pool_size``."""
    return _ffi_api.max_pool2d(_arr(x), _ints(pool_size), [] if strides is None else _ints(strides),
                               _ints(padding), _ints(dilation), bool(ceil_mode))


def avg_pool2d(x, pool_size, strides=None, padding=0, ceil_mode=False, count_include_pad=True):
    """Average pooling over the last two axes of NCHW, with PyTorch's divisor rules."""
    return _ffi_api.avg_pool2d(_arr(x), _ints(pool_size), [] if strides is None else _ints(strides),
                               _ints(padding), bool(ceil_mode), bool(count_include_pad))


def adaptive_avg_pool2d(x, output_size):
    """Average pooling of NCHW to ``output_size`` (1 or 2 ints), PyTorch's bins."""
    return _ffi_api.adaptive_avg_pool2d(_arr(x), _ints(output_size))


def batch_norm(x, gamma, beta, moving_mean, moving_var, axis=1, epsilon=1e-5):
    """Inference batch norm along ``axis``: ``(x - mean) / sqrt(var + eps) * gamma + beta``."""
    return _ffi_api.batch_norm(_arr(x), _arr(gamma), _arr(beta), _arr(moving_mean),
                               _arr(moving_var), _int(axis, "axis"), float(epsilon))


def layer_norm(x, gamma=None, beta=None, axes=-1, epsilon=1e-5):
    """Layer norm over ``axes``; gamma and beta have the shape of those axes (or are None)."""
    return _ffi_api.layer_norm(_arr(x), _arr(gamma), _arr(beta), _ints(axes), float(epsilon))


def softmax(x, axis=-1):
    """Softmax along ``axis``."""
    return _ffi_api.softmax(_arr(x), _int(axis, "axis"))


def log_softmax(x, axis=-1):
    """Log-softmax along ``axis``."""
    return _ffi_api.log_softmax(_arr(x), _int(axis, "axis"))


def lstm_cell(x, h, c, w_ih, w_hh, b_ih=None, b_hh=None):
    """One LSTM step (gate order i, f, g, o, as PyTorch); returns ``(h_next, c_next)``."""
    out = _ffi_api.lstm_cell(_arr(x), _arr(h), _arr(c), _arr(w_ih), _arr(w_hh), _arr(b_ih),
                             _arr(b_hh))
    return out[0], out[1]


# ---- shapes ----------------------------------------------------------------------------------------

def reshape(a, shape):
    """The same elements under ``shape`` (one entry may be -1)."""
    return _ffi_api.reshape(_arr(a), _ints(shape))


def permute_dims(a, axes=None):
    """Reorder the axes (reverse them when ``axes`` is None)."""
    return _ffi_api.permute_dims(_arr(a), _axes(axes))


def flatten(a, start_axis=0, end_axis=-1):
    """Merge axes ``start_axis..end_axis`` into one (torch.flatten)."""
    return _ffi_api.flatten(_arr(a), _int(start_axis, "start_axis"), _int(end_axis, "end_axis"))


def concatenate(arrays, axis=0):
    """Join arrays along an existing axis."""
    return _ffi_api.concatenate([_arr(a) for a in arrays], _int(axis, "axis"))


def split(a, indices_or_sections, axis=0):
    """numpy.split: a number of equal sections, or the indices to split before; a list."""
    if isinstance(indices_or_sections, (numbers.Integral, np.integer)):
        arg = int(indices_or_sections)
    else:
        arg = _ints(indices_or_sections)
    return list(_ffi_api.split(_arr(a), arg, _int(axis, "axis")))


def squeeze(a, axis=None):
    """Remove size-1 axes (those given, or all)."""
    return _ffi_api.squeeze(_arr(a), _axes(axis))


def expand_dims(a, axis):
    """Insert size-1 axes at the positions ``axis`` of the result."""
    return _ffi_api.expand_dims(_arr(a), _ints(axis))


def broadcast_to(a, shape):
    """Repeat ``a`` to ``shape`` by broadcasting."""
    return _ffi_api.broadcast_to(_arr(a), _ints(shape))


def take(a, indices, axis=None, mode="raise"):
    """Gather along ``axis`` (the flattened array when None); mode raise, wrap or clip."""
    if not isinstance(indices, NDArray):
        idx_np = np.asarray(indices)
        if idx_np.size and idx_np.dtype.kind not in "iub":
            raise error.TypeError(f"take: indices must be integers, not {idx_np.dtype}")
        indices = idx_np.astype("int64")
    idx = indices if isinstance(indices, NDArray) else _nd_array(indices)
    return _ffi_api.take(_arr(a), idx, None if axis is None else _int(axis, "axis"), mode)


def pad(a, pad_width, constant_values=0, mode="constant"):
    """numpy.pad: ``pad_width`` is an int, a ``(before, after)`` pair or one pair per axis;
    ``mode`` is "constant", "edge" or "reflect"."""
    a = _arr(a)
    try:
        width = np.broadcast_to(np.asarray(pad_width, dtype="int64"), (len(a.shape), 2))
    except (builtins.ValueError, builtins.TypeError) as err:
        raise error.ValueError(
            f"pad: pad_width {pad_width!r} is not an int, a (before, after) pair or one pair per "
            f"axis of a {len(a.shape)}-d array"
        ) from err
    return _ffi_api.pad(a, [int(w) for w in width[:, 0]], [int(w) for w in width[:, 1]],
                        float(constant_values), mode)


# ---- creation ----------------------------------------------------------------------------------------

def _dtype_name(dtype):
    if isinstance(dtype, str):
        return dtype
    try:
        return np.dtype(dtype).name
    except builtins.TypeError as err:
        raise error.TypeError(f"lownumpy: {dtype!r} is not a dtype") from err


def full(shape, fill_value, dtype="float32"):
    """An array of ``shape`` filled with ``fill_value``."""
    return _ffi_api.full(_ints(shape, "full: shape"), _float(fill_value, "full: fill_value"),
                         _dtype_name(dtype))


def zeros(shape, dtype="float32"):
    """An array of zeros."""
    return _ffi_api.zeros(_ints(shape), _dtype_name(dtype))


def ones(shape, dtype="float32"):
    """An array of ones."""
    return _ffi_api.ones(_ints(shape), _dtype_name(dtype))


def arange(start, stop=None, step=1, dtype="float32"):
    """numpy.arange: ``arange(stop)`` or ``arange(start, stop, step)``."""
    if stop is None:
        start, stop = 0, start
    return _ffi_api.arange(float(start), float(stop), float(step), _dtype_name(dtype))


def random_uniform(shape, low=0.0, high=1.0, seed=0, dtype="float32"):
    """Deterministic uniform numbers in [low, high) from ``seed`` (same in C++ and Python)."""
    return _ffi_api.random_uniform(_ints(shape), float(low), float(high), _int(seed, "seed"),
                                   _dtype_name(dtype))


from . import models  # noqa: E402  pylint: disable=wrong-import-position
