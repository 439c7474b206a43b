"""``relax.frontend`` (stage 4): building Relax IRModules from models: :mod:`.nn` (a
PyTorch-like module API, TVM's ``relax.frontend.nn``) and :mod:`.torch` (import of a
``torch.fx`` graph, ``from_fx``). PyTorch itself is imported only when ``from_fx`` runs.
:func:`detach_params` takes the ``"params"`` attribute off imported functions."""
from . import nn  # noqa: F401
from .common import detach_params  # noqa: F401
from . import torch  # noqa: F401
