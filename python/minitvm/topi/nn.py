"""``minitvm.topi.nn``: neural-network operators (stage 2), as ``tvm.topi.nn``. NCHW layout.

Window arguments take an int or a pair; padding an int, a pair (ph, pw) or four values
(top, left, bottom, right).
"""
from .. import error
from .._ffi import get_global_func

__all__ = [
    "relu", "leaky_relu", "gelu", "softmax", "log_softmax", "dense", "matmul", "batch_matmul",
    "conv2d_nchw", "group_conv2d_nchw", "conv2d_transpose_nchw", "pool2d", "adaptive_pool",
    "batch_norm", "layer_norm", "pad", "flatten", "batch_flatten",
]


def _f(name):
    return get_global_func("topi.nn." + name)


def _ints(v):
    if v is None:
        return []
    if isinstance(v, int):
        return [v]
    if isinstance(v, (str, bytes)) or not hasattr(v, "__iter__"):
        raise error.TypeError(f"topi.nn: expected an int or a sequence of ints, not {v!r}")
    return [int(x) for x in v]


def _list(v, what):
    """A sequence argument as a list (TypeError for anything else)."""
    if isinstance(v, (str, bytes)) or not hasattr(v, "__iter__"):
        raise error.TypeError(f"topi.nn.{what} must be a list or tuple, not {v!r}")
    return list(v)


def relu(x):
    """max(x, 0)."""
    return _f("relu")(x)


def leaky_relu(x, alpha):
    """x if x > 0 else alpha * x."""
    if isinstance(alpha, (str, bytes)) or alpha is None:
        raise error.TypeError(f"topi.nn.leaky_relu: alpha must be a number, not {alpha!r}")
    return _f("leaky_relu")(x, float(alpha))


def gelu(x, approximate="none"):
    """0.5 x (1 + erf(x / sqrt 2)); approximate="tanh" for the tanh form."""
    return _f("gelu")(x, approximate)


def softmax(x, axis=-1):
    """exp(x - max) / sum(exp(x - max)) along ``axis``."""
    return _f("softmax")(x, axis)


def log_softmax(x, axis=-1):
    """x - max - log(sum(exp(x - max))) along ``axis``."""
    return _f("log_softmax")(x, axis)


def dense(data, weight, bias=None, out_dtype=None):
    """data (..., K) @ weight (N, K)^T [+ bias], like torch.nn.functional.linear."""
    return _f("dense")(data, weight, bias, out_dtype)


def matmul(tensor_a, tensor_b, bias=None, out_dtype=None, transpose_a=False, transpose_b=False):
    """tensor_a @ tensor_b [+ bias]."""
    from . import matmul as _matmul  # pylint: disable=import-outside-toplevel
    from . import add as _add  # pylint: disable=import-outside-toplevel

    out = _matmul(tensor_a, tensor_b, transpose_a, transpose_b, out_dtype)
    return out if bias is None else _add(out, bias)


def batch_matmul(x, y, oshape=None, out_dtype=None, transpose_a=False, transpose_b=True):
    """Batched x @ y^T (transpose_b, TVM's default) or x @ y; a batch of 1 broadcasts."""
    return _f("batch_matmul")(x, y, transpose_a, transpose_b, out_dtype)


def conv2d_nchw(Input, Filter, stride, padding, dilation, out_dtype=None):  # noqa: N803
    """2-D convolution: Input (N, C, H, W), Filter (O, C, KH, KW) → (N, O, OH, OW)."""
    return _f("conv2d_nchw")(Input, Filter, _ints(stride), _ints(padding), _ints(dilation), 1,
                             out_dtype)


def group_conv2d_nchw(Input, Filter, stride, padding, dilation, groups, out_dtype=None):  # noqa: N803
    """Grouped 2-D convolution: Filter (O, C / groups, KH, KW)."""
    return _f("conv2d_nchw")(Input, Filter, _ints(stride), _ints(padding), _ints(dilation),
                             int(groups), out_dtype)


def conv2d_transpose_nchw(Input, Filter, strides, padding, out_dtype=None,  # noqa: N803
                          output_padding=(0, 0), dilation=1, groups=1):
    """Transposed 2-D convolution: Input (N, C, H, W), Filter (C, O / groups, KH, KW)."""
    return _f("conv2d_transpose_nchw")(Input, Filter, _ints(strides), _ints(padding),
                                       _ints(output_padding), _ints(dilation), int(groups),
                                       out_dtype)


def pool2d(data, kernel, stride, dilation, padding, pool_type, ceil_mode=False, layout="NCHW",
           count_include_pad=True):
    """Max or average pooling ("max" / "avg") over (H, W) of NCHW data."""
    if layout != "NCHW":
        raise error.ValueError(f"pool2d: only the NCHW layout is supported, got {layout}")
    return _f("pool2d")(data, _ints(kernel), _ints(stride), _ints(dilation), _ints(padding),
                        pool_type, bool(ceil_mode), bool(count_include_pad))


def adaptive_pool(data, output_size, pool_type, layout="NCHW"):
    """Adaptive pooling ("avg" / "max") to ``output_size``."""
    if layout != "NCHW":
        raise error.ValueError(f"adaptive_pool: only the NCHW layout is supported, got {layout}")
    return _f("adaptive_pool")(data, _ints(output_size), pool_type)


def batch_norm(data, gamma, beta, moving_mean, moving_var, axis=None, epsilon=1e-5, center=True,
               scale=True, training=False, momentum=0.1):
    """Batch normalisation in inference mode; returns [out, moving_mean, moving_var]."""
    if training:
        raise error.ValueError("batch_norm: only inference (training=False) is supported")
    return list(_f("batch_norm")(data, gamma, beta, moving_mean, moving_var,
                                 1 if axis is None else int(axis), float(epsilon), center, scale))


def layer_norm(data, gamma, beta, axis, epsilon=1e-5):
    """Layer normalisation over ``axis`` (an int or a list)."""
    return _f("layer_norm")(data, gamma, beta, _ints(axis), float(epsilon))


def pad(data, pad_before, pad_after=None, pad_value=0.0, name="PadInput", pad_mode="constant"):
    """Pad each axis by pad_before / pad_after elements ("constant", "edge", "reflect")."""
    return _f("pad")(data, _list(pad_before, "pad: pad_before"),
                     _list(pad_after, "pad: pad_after") if pad_after is not None else [],
                     pad_value, pad_mode)


def batch_flatten(data):
    """(N, ...) → (N, prod(...))."""
    return _f("batch_flatten")(data)


flatten = batch_flatten
