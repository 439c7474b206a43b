"""What the workloads share (stage 4): seeded parameter initialisation and exporting an
``nn.Module`` as a ``main(data, *params)`` function."""
import numpy as _np

from ... import error as _error
from ... import nd as _nd
from ..frontend import nn
from ..frontend.nn import spec as _spec


def named_modules(root, prefix=""):
    """``(path, module)`` for ``root`` and every module below it (attribute order)."""
    yield prefix.rstrip("."), root
    if isinstance(root, nn.ModuleList):
        for i, sub in enumerate(root):
            yield from named_modules(sub, f"{prefix}{i}.")
        return
    if isinstance(root, nn.ModuleDict):
        for name, sub in root.items():
            yield from named_modules(sub, f"{prefix}{name}.")
        return
    for name, item in root.__dict__.items():
        if isinstance(item, nn.Module):
            yield from named_modules(item, f"{prefix}{name}.")


def init_params(model, seed=0, dtype="float32"):
    """Seeded values for every parameter of ``model`` (name → NDArray), drawn in parameter
    order from ``numpy.random.default_rng(seed)``, uniform in ranges that keep activations
    near unit scale: convolutions ±sqrt(6 / fan_in) (He), linear layers ±1/sqrt(fan_in),
    batch norms near the identity (weight and running_var in [0.5, 1.5), bias and running_mean
    in [-0.2, 0.2)), LSTMs ±1/sqrt(hidden) (PyTorch's), embeddings standard normal."""
    rng = _np.random.default_rng(seed)
    owner = {}
    for path, mod in named_modules(model):
        for name, item in mod.__dict__.items():  # the module's own parameters
            if isinstance(item, nn.Parameter):
                owner[f"{path}.{name}" if path else name] = mod
    out = {}
    for name, p in model.named_parameters():
        mod = owner.get(name)
        shape = tuple(int(d) for d in p.shape)
        leaf = name.rsplit(".", 1)[-1]
        if isinstance(mod, nn.BatchNorm2d) or (isinstance(mod, nn.LayerNorm)):
            lo, hi = (0.5, 1.5) if leaf in ("weight", "running_var") else (-0.2, 0.2)
            value = rng.uniform(lo, hi, shape)
        elif isinstance(mod, nn.Conv2D):
            fan_in = int(_np.prod(mod.weight.shape[1:]))
            bound = _np.sqrt(6.0 / fan_in) if leaf == "weight" else 1.0 / _np.sqrt(fan_in)
            value = rng.uniform(-bound, bound, shape)
        elif isinstance(mod, nn.Linear):
            bound = 1.0 / _np.sqrt(int(mod.weight.shape[1]))
            value = rng.uniform(-bound, bound, shape)
        elif isinstance(mod, nn.LSTM):
            bound = 1.0 / _np.sqrt(mod.hidden_size)
            value = rng.uniform(-bound, bound, shape)
        else:
            value = rng.standard_normal(shape)
        out[name] = _nd.array(value.astype(dtype))
    return out


def export_main(model, data_shape, dtype, input_dtype=None):
    """``model.forward`` exported as the function ``main(data, *params)``; returns
    ``(mod, [(name, Parameter)])``."""
    if str(dtype) not in ("float32", "float64"):
        raise _error.ValueError(f"relax.testing: dtype must be float32 or float64, not {dtype}")
    model.to(str(dtype))
    spec = _spec.ModuleSpec(model, ["main"], [
        _spec.MethodSpec(model.forward, ["data"],
                         [_spec.Tensor(list(data_shape), input_dtype or str(dtype))]),
    ])
    return model.export_tvm(spec=spec)


def make_workload(model, data_shape, dtype, seed, input_dtype=None):
    """``(mod, params)``: ``main(data, *params)`` and its seeded parameters by name."""
    mod, param_spec = export_main(model, data_shape, dtype, input_dtype)
    params = init_params(model, seed, dtype)
    ordered = {name: params[name] for name, _ in param_spec}
    return mod, ordered
