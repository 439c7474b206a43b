"""``minitvm.contrib``: tools beside the compiler, as TVM's ``tvm.contrib`` has them —
:mod:`minitvm.contrib.relax_viz`, the Relax graph visualizer (loaded on first use, so that
``import minitvm as tvm; tvm.contrib.relax_viz`` works)."""
import importlib

_SUBMODULES = ("relax_viz",)


def __getattr__(name):
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
