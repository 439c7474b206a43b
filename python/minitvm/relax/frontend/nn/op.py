"""``nn.op`` (stage 4): the functional operators of ``relax.frontend.nn``, with TVM's names.

Each takes and returns :class:`~.core.Tensor` and emits the corresponding ``relax.op`` call
through the current BlockBuilder, bound to a variable named ``name`` (by default the op's
name, as TVM: ``matmul``, ``add``, ``relu``...; the builder makes repeats unique: ``add1``).
Calls that TVM builds from several ops (``conv2d`` with a bias, ``relu6``, ``batch_norm``)
bind their inner calls to fresh ``lv`` variables.
"""
import builtins as _builtins

import numpy as _np

from .... import error as _error
from ... import expr as _rx
from ... import op as _op
from .core import Tensor, get_default_dtype, wrap_nested

__all__ = [
    "add", "subtract", "multiply", "divide", "maximum", "minimum", "less", "less_equal",
    "greater", "greater_equal", "equal", "not_equal", "where", "matmul", "permute_dims",
    "permute", "reshape", "flatten", "concat", "split", "chunk", "squeeze", "unsqueeze", "take",
    "broadcast_to", "astype", "sum", "mean", "max", "min", "relu", "relu6", "silu", "gelu",
    "sigmoid", "tanh", "exp", "log", "sqrt", "negative", "softmax", "log_softmax", "conv2d",
    "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "batch_norm", "layer_norm", "dropout",
    "zeros", "ones", "full", "linear",
]


def _expr(x, what):
    if isinstance(x, Tensor):
        return x._expr  # pylint: disable=protected-access
    raise _error.TypeError(f"nn.op.{what}: expected an nn.Tensor, got {type(x).__name__}")


def _binary(relax_fn, default_name):
    def f(a, b, name=default_name):
        return wrap_nested(relax_fn(_expr(a, default_name), _expr(b, default_name)), name)

    f.__name__ = f.__qualname__ = relax_fn.__name__
    f.__doc__ = f"``relax.op.{relax_fn.__name__}(a, b)`` (numpy broadcasting)."
    return f


add = _binary(_op.add, "add")
subtract = _binary(_op.subtract, "subtract")
multiply = _binary(_op.multiply, "mul")
divide = _binary(_op.divide, "divide")
maximum = _binary(_op.maximum, "maximum")
minimum = _binary(_op.minimum, "minimum")
less = _binary(_op.less, "less")
less_equal = _binary(_op.less_equal, "less_equal")
greater = _binary(_op.greater, "greater")
greater_equal = _binary(_op.greater_equal, "greater_equal")
equal = _binary(_op.equal, "equal")
not_equal = _binary(_op.not_equal, "not_equal")


def where(condition, x1, x2, name="where"):
    """``x1`` where ``condition`` holds, else ``x2``."""
    return wrap_nested(_op.where(_expr(condition, name), _expr(x1, name), _expr(x2, name)), name)


def _unary(relax_fn, default_name):
    def f(x, name=default_name):
        return wrap_nested(relax_fn(_expr(x, default_name)), name)

    f.__name__ = f.__qualname__ = default_name
    f.__doc__ = f"``{relax_fn.__module__.split('.')[-1]}.{relax_fn.__name__}(x)``."
    return f


relu = _unary(_op.nn.relu, "relu")
silu = _unary(_op.nn.silu, "silu")
sigmoid = _unary(_op.sigmoid, "sigmoid")
tanh = _unary(_op.tanh, "tanh")
exp = _unary(_op.exp, "exp")
log = _unary(_op.log, "log")
sqrt = _unary(_op.sqrt, "sqrt")
negative = _unary(_op.negative, "neg")


def gelu(x, approximate=None, name="gelu"):
    """GELU (the erf form; ``approximate="tanh"`` is not supported)."""
    if approximate not in (None, "none"):
        raise _error.ValueError(f"nn.op.gelu: approximate={approximate!r} is not supported")
    return wrap_nested(_op.nn.gelu(_expr(x, name)), name)


def relu6(x, name="relu6"):
    """``min(max(x, 0), 6)`` (minitvm has no relu6 op: relu then minimum with 6)."""
    e = _expr(x, name)
    six = _rx.const(6.0, x.dtype)
    return wrap_nested(_op.minimum(_op.nn.relu(e), six), name)


def softmax(x, axis=-1, name="softmax"):
    """Softmax along ``axis``."""
    return wrap_nested(_op.nn.softmax(_expr(x, name), axis), name)


def log_softmax(x, axis=-1, name="log_softmax"):
    """Log-softmax along ``axis``."""
    return wrap_nested(_op.nn.log_softmax(_expr(x, name), axis), name)


def matmul(a, b, out_dtype=None, name="matmul"):
    """numpy ``matmul`` (broadcast batch dimensions)."""
    return wrap_nested(_op.matmul(_expr(a, name), _expr(b, name), out_dtype=out_dtype), name)


def linear(x, weight, bias=None, name="linear"):
    """``x @ weight.T (+ bias)``, as ``nn.Linear`` computes it (permute_dims, matmul, add)."""
    w = permute_dims(weight)
    y = matmul(x, w)
    if bias is not None:
        y = add(y, bias)
    return y


def permute_dims(x, axes=None, name=None):
    """``x`` with permuted axes (reversed when ``axes`` is None)."""
    if name is None:
        name = "permute_dims"
    return wrap_nested(_op.permute_dims(_expr(x, name), None if axes is None else list(axes)),
                       name)


def permute(x, axes, name="permute"):
    """``permute_dims`` under PyTorch's name."""
    return wrap_nested(_op.permute_dims(_expr(x, name), None if axes is None else list(axes)),
                       name)


def reshape(x, shape, name="reshape"):
    """``x`` with a new shape (one ``-1`` allowed)."""
    return wrap_nested(_op.reshape(_expr(x, name), list(shape)), name)


def flatten(x, start_dim=0, end_dim=-1, name="flatten"):
    """``x`` with dimensions ``start_dim..end_dim`` merged (PyTorch's ``flatten``); a reshape,
    or ``relax.op.flatten`` when everything is merged."""
    nd = x.ndim
    s = start_dim + nd if start_dim < 0 else start_dim
    e = end_dim + nd if end_dim < 0 else end_dim
    if not 0 <= s <= e < _builtins.max(nd, 1):
        raise _error.ValueError(f"nn.op.flatten: dims ({start_dim}, {end_dim}) out of range for "
                                f"a tensor of rank {nd}")
    if s == 0 and e == nd - 1:
        return wrap_nested(_op.flatten(_expr(x, name)), name)
    shape = x.shape
    merged = 1
    for d in shape[s:e + 1]:
        merged = merged * d
    return reshape(x, list(shape[:s]) + [merged] + list(shape[e + 1:]), name=name)


def concat(x, dim, name="concat"):
    """The tensors ``x`` joined along ``dim``."""
    return wrap_nested(_op.concat([_expr(t, name) for t in x], dim), name)


def split(ary, indices_or_sections, axis=0, name="split"):
    """``ary`` cut into sections (an int) or at indices (a list): a tuple of tensors."""
    return wrap_nested(_op.split(_expr(ary, name), indices_or_sections, axis), name)


def chunk(x, chunks, dim=0, name="chunk"):
    """``x`` cut into ``chunks`` equal parts along ``dim``."""
    return wrap_nested(_op.split(_expr(x, name), chunks, dim), name)


def squeeze(x, axis=-1, name="squeeze"):
    """``x`` without the axis ``axis`` of extent 1 (None: all of them)."""
    return wrap_nested(_op.squeeze(_expr(x, name), axis), name)


def unsqueeze(x, dim, name="unsqueeze"):
    """``x`` with a new axis of extent 1 at ``dim``."""
    return wrap_nested(_op.expand_dims(_expr(x, name), dim), name)


def take(x, indices, axis=None, name="take"):
    """Elements of ``x`` at ``indices`` along ``axis``."""
    return wrap_nested(_op.take(_expr(x, name), _expr(indices, name), axis), name)


def broadcast_to(x, shape, name="broadcast_to"):
    """``x`` broadcast to ``shape``."""
    return wrap_nested(_op.broadcast_to(_expr(x, name), list(shape)), name)


def astype(x, dtype, name="astype"):
    """``x`` cast to ``dtype`` (no call when it already has it, as TVM)."""
    if x.dtype == str(dtype):
        return x
    return wrap_nested(_op.astype(_expr(x, name), str(dtype)), name)


def _reduce(relax_fn, default_name):
    def f(x, axis=None, keepdims=False, name=default_name):
        return wrap_nested(relax_fn(_expr(x, default_name), axis, keepdims), name)

    f.__name__ = f.__qualname__ = default_name
    f.__doc__ = f"``relax.op.{default_name}(x, axis, keepdims)``."
    return f


sum = _reduce(_op.sum, "sum")  # noqa: A001  pylint: disable=redefined-builtin
mean = _reduce(_op.mean, "mean")
max = _reduce(_op.max, "max")  # noqa: A001  pylint: disable=redefined-builtin
min = _reduce(_op.min, "min")  # noqa: A001  pylint: disable=redefined-builtin


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_layout="NCHW", name="conv2d"):
    """2-D convolution (NCHW data, OIHW weight); ``bias`` (O,) is reshaped to (1, O, 1, 1) and
    added, as TVM does."""
    out = _op.nn.conv2d(_expr(x, name), _expr(weight, name), strides=stride, padding=padding,
                        dilation=dilation, groups=groups, data_layout=data_layout)
    if bias is not None:
        if data_layout != "NCHW":
            raise _error.ValueError(f"nn.op.conv2d: layout {data_layout} is not supported")
        out = _op.add(out, _op.reshape(_expr(bias, name), [1, -1, 1, 1]))
    return wrap_nested(out, name)


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               name="max_pool2d"):
    """2-D max pooling (NCHW); ``stride`` None is ``kernel_size`` (PyTorch's default)."""
    if stride is None:
        stride = kernel_size
    return wrap_nested(
        _op.nn.max_pool2d(_expr(x, name), pool_size=kernel_size, strides=stride,
                          padding=padding, dilation=dilation, ceil_mode=ceil_mode), name)


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               name="avg_pool2d"):
    """2-D average pooling (NCHW); PyTorch's defaults (``count_include_pad=True``)."""
    if stride is None:
        stride = kernel_size
    return wrap_nested(
        _op.nn.avg_pool2d(_expr(x, name), pool_size=kernel_size, strides=stride,
                          padding=padding, ceil_mode=ceil_mode,
                          count_include_pad=count_include_pad), name)


def adaptive_avg_pool2d(x, output_size, name="adaptive_avg_pool2d"):
    """Average pooling to ``output_size`` (an int or a pair)."""
    return wrap_nested(_op.nn.adaptive_avg_pool2d(_expr(x, name), output_size), name)


def batch_norm(x, weight, bias, running_mean, running_var, eps=1e-5, axis=1,
               name="batch_norm"):
    """Inference batch norm: ``relax.op.nn.batch_norm(..., training=False)`` and its first
    output."""
    bn = _op.nn.batch_norm(_expr(x, name), _expr(weight, name), _expr(bias, name),
                           _expr(running_mean, name), _expr(running_var, name), axis=axis,
                           epsilon=eps, training=False)
    return wrap_nested(_rx.TupleGetItem(bn, 0), name)


def layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5, name="layer_norm"):
    """Layer norm over the last ``len(normalized_shape)`` axes; a missing weight/bias is a
    constant one/zero."""
    if isinstance(normalized_shape, int):
        normalized_shape = [normalized_shape]
    normalized_shape = list(normalized_shape)
    axes = list(range(-len(normalized_shape), 0))
    gamma = (_expr(weight, name) if weight is not None
             else _rx.const(_np.ones(normalized_shape), x.dtype))
    beta = (_expr(bias, name) if bias is not None
            else _rx.const(_np.zeros(normalized_shape), x.dtype))
    return wrap_nested(_op.nn.layer_norm(_expr(x, name), gamma, beta, axes, epsilon=eps), name)


def dropout(x, p=0.5, name="dropout"):
    """Dropout at inference is the identity; minitvm emits nothing (``p`` is checked)."""
    if not 0.0 <= float(p) <= 1.0:
        raise _error.ValueError(f"nn.op.dropout: p must be in [0, 1], got {p}")
    return x


def zeros(shape, dtype=None, name="zeros"):
    """A tensor of zeros."""
    return wrap_nested(_op.zeros(list(shape), dtype or get_default_dtype()), name)


def ones(shape, dtype=None, name="ones"):
    """A tensor of ones."""
    return wrap_nested(_op.ones(list(shape), dtype or get_default_dtype()), name)


def full(shape, fill_value, dtype=None, name="full"):
    """A tensor of ``shape`` filled with ``fill_value`` (a number or a 0-d Tensor)."""
    dtype = dtype or get_default_dtype()
    if isinstance(fill_value, Tensor):
        value = fill_value._expr  # pylint: disable=protected-access
    else:
        value = _rx.const(fill_value, dtype)
    return wrap_nested(_op.full(list(shape), value, dtype), name)
