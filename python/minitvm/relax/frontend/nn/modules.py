"""``nn`` layers (stage 4): TVM's (``Linear``, ``Conv2D``, ``LayerNorm``, ``Embedding``, the
activations) and the PyTorch-named ones the model workloads need (``BatchNorm2d``,
``MaxPool2d``, ``AvgPool2d``, ``AdaptiveAvgPool2d``, ``Flatten``, ``LSTM``, ``Dropout``).
Parameter shapes and names follow PyTorch (``Linear.weight`` is (out, in); ``BatchNorm2d`` has
``weight``, ``bias``, ``running_mean``, ``running_var``; ``LSTM`` has ``weight_ih_l0``...), so a
torch ``state_dict`` loads with ``load_state_dict``. Layers compute through :mod:`.op`.
"""
from .... import error as _error
from . import op
from .core import Module, Parameter, Tensor

__all__ = [
    "ReLU", "ReLU6", "GELU", "SiLU", "Sigmoid", "Tanh", "Identity", "Linear", "Conv2D",
    "BatchNorm2d", "LayerNorm", "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d", "Flatten",
    "Embedding", "LSTM", "Dropout",
]


class ReLU(Module):
    """``op.relu``."""

    def forward(self, x):
        return op.relu(x)


class ReLU6(Module):
    """``op.relu6`` (MobileNet-v2's activation)."""

    def forward(self, x):
        return op.relu6(x)


class GELU(Module):
    """``op.gelu``."""

    def forward(self, x):
        return op.gelu(x)


class SiLU(Module):
    """``op.silu``."""

    def forward(self, x):
        return op.silu(x)


class Sigmoid(Module):
    """``op.sigmoid``."""

    def forward(self, x):
        return op.sigmoid(x)


class Tanh(Module):
    """``op.tanh``."""

    def forward(self, x):
        return op.tanh(x)


class Identity(Module):
    """Returns its input."""

    def forward(self, x):
        return x


class Linear(Module):
    """``y = x W^T + b``: ``weight`` (out_features, in_features), ``bias`` (out_features,);
    emits ``permute_dims``, ``matmul`` and ``add`` as TVM does."""

    def __init__(self, in_features, out_features, bias=True, dtype=None, out_dtype=None):
        self.in_features = in_features
        self.out_features = out_features
        self.out_dtype = out_dtype
        self.weight = Parameter((out_features, in_features), dtype)
        if bias:
            self.bias = Parameter((out_features,), dtype if out_dtype is None else out_dtype)
        else:
            self.bias = None

    def forward(self, x):
        w = op.permute_dims(self.weight)
        x = op.matmul(x, w, out_dtype=self.out_dtype)
        if self.bias is not None:
            x = x + self.bias
        return x


def _pair(v):
    return list(v) if isinstance(v, (list, tuple)) else [v, v]


class Conv2D(Module):
    """2-D convolution over NCHW data: ``weight`` (out, in / groups, kh, kw), ``bias`` (out,)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, dtype=None, data_layout="NCHW"):
        if in_channels % groups or out_channels % groups:
            raise _error.ValueError(f"nn.Conv2D: in_channels ({in_channels}) and out_channels "
                                    f"({out_channels}) must be divisible by groups ({groups})")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _pair(kernel_size)
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.groups = groups
        self.data_layout = data_layout
        self.weight = Parameter([out_channels, in_channels // groups] + self.kernel_size, dtype)
        self.bias = Parameter((out_channels,), dtype) if bias else None

    def forward(self, x):
        return op.conv2d(x, self.weight, self.bias, self.stride, self.padding, self.dilation,
                         self.groups, self.data_layout)


class BatchNorm2d(Module):
    """Inference batch normalisation over the channels of NCHW data (the running statistics
    are parameters, as everything the function needs)."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, dtype=None):
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        if not affine:
            raise _error.ValueError("nn.BatchNorm2d: affine=False is not supported")
        self.weight = Parameter((num_features,), dtype)
        self.bias = Parameter((num_features,), dtype)
        self.running_mean = Parameter((num_features,), dtype)
        self.running_var = Parameter((num_features,), dtype)

    def forward(self, x):
        return op.batch_norm(x, self.weight, self.bias, self.running_mean, self.running_var,
                             eps=self.eps)


class LayerNorm(Module):
    """Layer normalisation over the last dimensions (``normalized_shape``)."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, dtype=None):
        self.normalized_shape = normalized_shape
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        shape = _pair(normalized_shape) if isinstance(normalized_shape, (list, tuple)) else [
            normalized_shape]
        if elementwise_affine:
            self.weight = Parameter(shape, dtype)
            self.bias = Parameter(shape, dtype)
        else:
            self.weight = None
            self.bias = None

    def forward(self, x):
        return op.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)


class MaxPool2d(Module):
    """2-D max pooling (PyTorch's arguments)."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.ceil_mode = ceil_mode

    def forward(self, x):
        return op.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.dilation,
                             self.ceil_mode)


class AvgPool2d(Module):
    """2-D average pooling (PyTorch's arguments and defaults)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, x):
        return op.avg_pool2d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                             self.count_include_pad)


class AdaptiveAvgPool2d(Module):
    """Average pooling to a fixed ``output_size``."""

    def __init__(self, output_size):
        self.output_size = output_size

    def forward(self, x):
        return op.adaptive_avg_pool2d(x, self.output_size)


class Flatten(Module):
    """Merge dimensions ``start_dim..end_dim`` (PyTorch's defaults: all but the batch)."""

    def __init__(self, start_dim=1, end_dim=-1):
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, x):
        return op.flatten(x, self.start_dim, self.end_dim)


class Dropout(Module):
    """Dropout; the identity at inference (what exported functions compute)."""

    def __init__(self, p=0.5):
        if not 0.0 <= float(p) <= 1.0:
            raise _error.ValueError(f"nn.Dropout: p must be in [0, 1], got {p}")
        self.p = p

    def forward(self, x):
        return op.dropout(x, self.p)


class Embedding(Module):
    """A lookup table: ``weight`` (num, dim); indices of any rank."""

    def __init__(self, num, dim, dtype=None):
        self.num = num
        self.dim = dim
        self.weight = Parameter((num, dim), dtype)

    def forward(self, x):
        if x.ndim == 1:
            return op.take(self.weight, x, axis=0)
        flat = op.reshape(x, [-1])
        return op.reshape(op.take(self.weight, flat, axis=0), [*x.shape, self.weight.shape[1]])


class LSTM(Module):
    """A multi-layer LSTM (PyTorch's gates i, f, g, o and parameter names), unrolled over the
    static sequence length of its input (T, N, input_size) (``batch_first``: (N, T, ...)).

    ``forward(x, hx=None)`` returns ``(output, (h_n, c_n))`` as PyTorch: output (T, N, H), h_n
    and c_n (num_layers, N, H); ``hx`` is an optional ``(h_0, c_0)`` pair (zeros when None).
    Each step is ``matmul``/``add`` for the gates, ``split`` into four, ``sigmoid``/``tanh``.
    """

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dtype=None):
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        h4 = 4 * hidden_size
        for k in range(num_layers):
            in_size = input_size if k == 0 else hidden_size
            setattr(self, f"weight_ih_l{k}", Parameter((h4, in_size), dtype))
            setattr(self, f"weight_hh_l{k}", Parameter((h4, hidden_size), dtype))
            if bias:
                setattr(self, f"bias_ih_l{k}", Parameter((h4,), dtype))
                setattr(self, f"bias_hh_l{k}", Parameter((h4,), dtype))

    def forward(self, x, hx=None):
        if x.ndim != 3:
            raise _error.ValueError(f"nn.LSTM: the input must be 3-D (T, N, input_size), got "
                                    f"shape {x.shape}")
        if self.batch_first:
            x = op.permute_dims(x, [1, 0, 2])
        seq_len, batch = x.shape[0], x.shape[1]
        if not isinstance(seq_len, int):
            raise _error.ValueError("nn.LSTM: the sequence length must be static to unroll, got "
                                    f"{seq_len}")
        if x.shape[2] != self.input_size:
            raise _error.ValueError(f"nn.LSTM: input has {x.shape[2]} features, expected "
                                    f"{self.input_size}")
        hidden = self.hidden_size
        if hx is not None:
            h0_all, c0_all = hx
            h0s = op.split(h0_all, self.num_layers, axis=0) if self.num_layers > 1 else (h0_all,)
            c0s = op.split(c0_all, self.num_layers, axis=0) if self.num_layers > 1 else (c0_all,)
        steps = op.split(x, seq_len, axis=0) if seq_len > 1 else (x,)
        steps = [op.squeeze(s, axis=0) for s in steps]
        h_n, c_n = [], []
        for k in range(self.num_layers):
            w_ih = op.permute_dims(getattr(self, f"weight_ih_l{k}"))
            w_hh = op.permute_dims(getattr(self, f"weight_hh_l{k}"))
            b = None
            if self.bias:
                b = getattr(self, f"bias_ih_l{k}") + getattr(self, f"bias_hh_l{k}")
            if hx is not None:
                h = op.squeeze(h0s[k], axis=0)
                c = op.squeeze(c0s[k], axis=0)
            else:
                h = op.zeros((batch, hidden), x.dtype)
                c = h
            outs = []
            for x_t in steps:
                gates = op.matmul(x_t, w_ih) + op.matmul(h, w_hh)
                if b is not None:
                    gates = gates + b
                i, f, g, o = op.split(gates, 4, axis=1)
                c = op.sigmoid(f) * c + op.sigmoid(i) * op.tanh(g)
                h = op.sigmoid(o) * op.tanh(c)
                outs.append(h)
            steps = outs
            h_n.append(op.unsqueeze(h, 0))
            c_n.append(op.unsqueeze(c, 0))
        output = op.concat([op.unsqueeze(s, 0) for s in steps], 0)
        if self.batch_first:
            output = op.permute_dims(output, [1, 0, 2])
        h_n = op.concat(h_n, 0) if len(h_n) > 1 else h_n[0]
        c_n = op.concat(c_n, 0) if len(c_n) > 1 else c_n[0]
        return output, (h_n, c_n)


# keep the Tensor name importable from this module as TVM's modules.py does
_ = Tensor
