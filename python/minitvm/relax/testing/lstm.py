"""An LSTM workload (stage 4): ``nn.LSTM`` (PyTorch's gates and parameter names
``weight_ih_l0``...) unrolled over ``iterations`` time steps."""
from ..frontend import nn
from ._common import make_workload

__all__ = ["LSTMNet", "get_workload"]


class LSTMNet(nn.Module):
    """An ``nn.LSTM`` whose ``forward`` returns the flat tuple ``(output, h_n, c_n)``."""

    def __init__(self, input_size, hidden_size, num_layers):
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers)

    def forward(self, x):
        out, (h, c) = self.lstm(x)
        return out, h, c


def get_workload(iterations=4, num_hidden=32, batch_size=1, input_size=None, num_layers=2,
                 dtype="float32", seed=0):
    """``(mod, params)``: ``main(data (iterations, batch_size, input_size), *params)`` →
    ``(output (iterations, batch_size, num_hidden), h_n, c_n (num_layers, batch_size,
    num_hidden))``; ``input_size`` defaults to ``num_hidden``; params named
    ``lstm.weight_ih_l0``..., seeded."""
    input_size = num_hidden if input_size is None else input_size
    model = LSTMNet(input_size, num_hidden, num_layers)
    return make_workload(model, (iterations, batch_size, input_size), dtype, seed)
