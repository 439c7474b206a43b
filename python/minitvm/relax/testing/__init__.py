"""``relax.testing`` (stage 4): model workloads as Relax IRModules, as TVM's
``relay.testing`` had them: ``mlp``, ``resnet`` (18, 34, 50, ...), ``mobilenet`` (v1, v2),
``lstm``. Each ``get_workload(batch_size=1, ..., dtype="float32", seed=0)`` returns
``(mod, params)``: ``mod["main"]`` takes ``data`` followed by the parameters, and ``params``
maps each parameter name (PyTorch/torchvision names, in the order ``main`` takes them) to an
NDArray drawn from ``numpy.random.default_rng(seed)``. The networks are ``nn.Module``
models exported with :mod:`minitvm.relax.frontend.nn`; :mod:`.torch_models` builds the same
networks in PyTorch (for checking) when PyTorch is installed.

Run one with the reference interpreter::

    mod, params = relax.testing.resnet.get_workload(num_layers=18, image_shape=(3, 32, 32))
    out = relax.interpret(mod, "main", data, *params.values())
"""
from . import lstm, mlp, mobilenet, resnet  # noqa: F401
from ._common import init_params  # noqa: F401
