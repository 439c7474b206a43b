"""``relax.frontend.nn`` (stage 4): a PyTorch-like API that builds Relax IRModules, with the
names of TVM's ``tvm.relax.frontend.nn``.

Example (the quick start's MLP)::

    from minitvm.relax.frontend import nn

    class MLPModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(784, 256)
            self.relu1 = nn.ReLU()
            self.fc2 = nn.Linear(256, 10)

        def forward(self, x):
            return self.fc2(self.relu1(self.fc1(x)))

    mod, param_spec = MLPModel().export_tvm(
        spec={"forward": {"x": nn.spec.Tensor((1, 784), "float32")}})

The layers and ``nn.op`` are Python over :class:`~minitvm.relax.BlockBuilder` (as in TVM);
shape and dtype inference is the C++ operators' own.
"""
from . import op, spec  # noqa: F401
from .core import (  # noqa: F401
    Effect, Module, ModuleDict, ModuleList, Parameter, ParameterDict, ParameterList, Sequential,
    Tensor, get_default_dtype, set_default_dtype,
)
from .modules import (  # noqa: F401
    GELU, LSTM, AdaptiveAvgPool2d, AvgPool2d, BatchNorm2d, Conv2D, Dropout, Embedding, Flatten,
    Identity, LayerNorm, Linear, MaxPool2d, ReLU, ReLU6, SiLU, Sigmoid, Tanh,
)
from .op import *  # noqa: F401,F403
