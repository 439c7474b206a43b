"""minitvm.lownumpy.models: the stage-1 reference models (MLP, ResNet-18, MobileNet-v1, LSTM).

Each model is a function of an input and a parameter dict (name → array) whose names are
PyTorch's ``state_dict`` names, so ``{k: torch.from_numpy(v.numpy()) for k, v in
params.items()}`` loads straight into the equivalent torch module. Parameters come from a
seed (``*_init_params``, identical in C++ and Python) or from a ``.npz`` file
(:func:`load_params`). Inputs and parameters may be NumPy arrays or NDArrays.
"""
import numpy as np

from ..runtime.ndarray import NDArray, array as _nd_array

__all__ = [
    "load_params", "mlp_init_params", "mlp", "resnet18_init_params", "resnet18",
    "resnet18_fold_bn", "mobilenet_v1_init_params", "mobilenet_v1", "mobilenet_v1_fold_bn",
    "lstm_init_params", "lstm",
]


def _get(name):
    from .._ffi import get_global_func  # pylint: disable=import-outside-toplevel

    return get_global_func("lownumpy.models." + name)


def _arr(x):
    return x if isinstance(x, NDArray) else _nd_array(np.asarray(x))


def _params(params):
    """A dict of NDArrays (the C++ side receives it as a Map)."""
    return {str(k): _arr(v) for k, v in params.items()}


def load_params(path):
    """The arrays of a ``.npz`` file (``numpy.savez``), by name."""
    return _get("load_params")(str(path))


def mlp_init_params(in_features=784, hidden=128, out_features=10, seed=0, dtype="float32"):
    """The course MLP's parameters ``w0 (hidden, in)``, ``b0``, ``w1 (out, hidden)``, ``b1``."""
    return _get("mlp_init")(int(in_features), int(hidden), int(out_features), int(seed), dtype)


def mlp(x, params):
    """``relu(x @ w0.T + b0) @ w1.T + b1`` (linear0 → relu0 → linear1)."""
    return _get("mlp")(_arr(x), _params(params))


def resnet18_init_params(num_classes=1000, seed=0, dtype="float32"):
    """ResNet-18 parameters with torchvision's names."""
    return _get("resnet18_init")(int(num_classes), int(seed), dtype)


def resnet18(x, params):
    """ResNet-18 inference, (N, 3, H, W) → (N, num_classes); batch norm folded or not."""
    return _get("resnet18")(_arr(x), _params(params))


def resnet18_fold_bn(params):
    """The parameters with every batch norm folded into the conv before it."""
    return _get("resnet18_fold_bn")(_params(params))


def mobilenet_v1_init_params(num_classes=1000, width=1.0, seed=0, dtype="float32"):
    """MobileNet-v1 parameters; ``width`` multiplies every channel count."""
    return _get("mobilenet_v1_init")(int(num_classes), float(width), int(seed), dtype)


def mobilenet_v1(x, params):
    """MobileNet-v1 inference, (N, 3, H, W) → (N, num_classes)."""
    return _get("mobilenet_v1")(_arr(x), _params(params))


def mobilenet_v1_fold_bn(params):
    """The parameters with every batch norm folded into the conv before it."""
    return _get("mobilenet_v1_fold_bn")(_params(params))


def lstm_init_params(input_size, hidden_size, num_layers=2, seed=0, dtype="float32"):
    """torch.nn.LSTM-named parameters (``weight_ih_l0``, ...)."""
    return _get("lstm_init")(int(input_size), int(hidden_size), int(num_layers), int(seed), dtype)


def lstm(x, params):
    """A multi-layer LSTM over x (T, N, I) from zero states: ``(output, h_n, c_n)``."""
    out = _get("lstm")(_arr(x), _params(params))
    return out[0], out[1], out[2]
