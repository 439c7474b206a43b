"""``relax.op.nn``: the neural-network operators (stage 4), with TVM's Python signatures.

Convolution and pooling support the ``NCHW`` data layout (``OIHW`` kernels) only.
"""
from . import _ffi_api
from ._util import dtype_str, float_arg, int_arg, int_list

__all__ = [
    "relu", "gelu", "silu", "softmax", "log_softmax", "conv2d", "max_pool2d", "avg_pool2d",
    "adaptive_avg_pool2d", "batch_norm", "layer_norm", "dropout",
]


def relu(data):
    """Rectified linear unit: ``max(data, 0)``."""
    return _ffi_api.call("nn.relu", data)


def gelu(data):
    """Gaussian error linear unit: ``data * Phi(data)`` (the erf form)."""
    return _ffi_api.call("nn.gelu", data)


def silu(data):
    """Sigmoid linear unit: ``data * sigmoid(data)``."""
    return _ffi_api.call("nn.silu", data)


def softmax(data, axis=-1):
    """``exp(data) / sum(exp(data), axis)``."""
    return _ffi_api.call("nn.softmax", data, int_arg(axis, "softmax: axis"))


def log_softmax(data, axis=-1):
    """``log(softmax(data, axis))``, computed stably."""
    return _ffi_api.call("nn.log_softmax", data, int_arg(axis, "log_softmax: axis"))


def conv2d(
    data,
    weight,
    strides=(1, 1),
    padding=(0, 0),
    dilation=(1, 1),
    groups=1,
    data_layout="NCHW",
    kernel_layout="OIHW",
    out_layout=None,
    out_dtype=None,
):
    """2-D convolution of ``data`` (NCHW) with ``weight`` (OIHW).

    Parameters
    ----------
    strides, dilation : int or (int, int)
    padding : int, (pad_h, pad_w) or (top, left, bottom, right)
    groups : int
        Grouped convolution: ``weight`` has ``C / groups`` input channels.
    data_layout, kernel_layout, out_layout : str
        Only ``"NCHW"`` / ``"OIHW"`` are supported; ``out_layout=None`` is ``data_layout``.
    out_dtype : str or None
        The result dtype (None: the inputs' dtype).
    """
    return _ffi_api.call(
        "nn.conv2d", data, weight, int_list(strides, "strides"), int_list(padding, "padding"),
        int_list(dilation, "dilation"), int_arg(groups, "conv2d: groups"), data_layout,
        kernel_layout, out_layout, dtype_str(out_dtype),
    )


def _pool2d(name, doc):
    """The wrapper of the 2-D pooling op ``nn.<name>`` (max_pool2d and avg_pool2d share it)."""

    def pool2d(
        data,
        pool_size=(1, 1),
        strides=(1, 1),
        padding=(0, 0),
        dilation=(1, 1),
        ceil_mode=False,
        count_include_pad=False,
        layout="NCHW",
        out_layout=None,
    ):
        return _ffi_api.call(
            "nn." + name, data, int_list(pool_size, "pool_size"), int_list(strides, "strides"),
            int_list(padding, "padding"), int_list(dilation, "dilation"), bool(ceil_mode),
            bool(count_include_pad), str(layout), out_layout,
        )

    pool2d.__name__ = pool2d.__qualname__ = name
    pool2d.__doc__ = doc
    return pool2d


max_pool2d = _pool2d("max_pool2d", "2-D max pooling over ``pool_size`` windows (NCHW).")
avg_pool2d = _pool2d("avg_pool2d", "2-D average pooling over ``pool_size`` windows (NCHW).")


def adaptive_avg_pool2d(data, output_size=None, layout="NCHW", out_layout=None):
    """2-D average pooling to ``output_size`` (None: the input's height and width)."""
    return _ffi_api.call(
        "nn.adaptive_avg_pool2d", data, int_list(output_size, "output_size"), str(layout),
        out_layout,
    )


def batch_norm(
    data,
    gamma,
    beta,
    moving_mean,
    moving_var,
    axis=1,
    epsilon=1e-5,
    center=True,
    scale=True,
    momentum=0.1,
    training=True,
):
    """Batch normalisation along ``axis``; returns the tuple
    ``(out, new_moving_mean, new_moving_var)`` as TVM does."""
    return _ffi_api.call(
        "nn.batch_norm", data, gamma, beta, moving_mean, moving_var,
        int_arg(axis, "batch_norm: axis"), float_arg(epsilon, "batch_norm: epsilon"),
        bool(center), bool(scale), float_arg(momentum, "batch_norm: momentum"), bool(training),
    )


def layer_norm(data, gamma, beta, axes, epsilon=1e-5, center=True, scale=True):
    """Layer normalisation over ``axes`` (an int or a list); ``gamma``/``beta`` have the shape
    of those axes."""
    return _ffi_api.call(
        "nn.layer_norm", data, gamma, beta, int_list(axes, "axes"),
        float_arg(epsilon, "layer_norm: epsilon"), bool(center),
        bool(scale),
    )


def dropout(data, rate=0.5):
    """Dropout; returns the tuple ``(out, mask)`` as TVM does."""
    return _ffi_api.call("nn.dropout", data, float_arg(rate, "dropout: rate"))
