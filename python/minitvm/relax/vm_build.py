"""``relax.build`` (stage 5): compile a module with Relax functions for the VM.

The work is the C++ global ``"relax.build"`` (``minitvm/relax_vm/build.h``): the Relax
pipeline, the VM lowering, the TIR build of the PrimFuncs (the kernel library) and VM code
generation; the result is an :class:`~minitvm.relax.vm.Executable`. ``minitvm.compile`` calls
:func:`build` for modules that have Relax functions.
"""
from .. import error
from .._ffi import get_global_func

__all__ = ["build"]


def _relax_pipeline(pipeline):
    """A pipeline name becomes the Pass ``relax.get_pipeline(name)`` when Python has one;
    otherwise C++ resolves the name (the registered "relax.get_pipeline", or LegalizeOps)."""
    if isinstance(pipeline, str):
        from .. import relax  # pylint: disable=import-outside-toplevel

        get_pipeline = getattr(relax, "get_pipeline", None)
        if get_pipeline is not None:
            return get_pipeline(pipeline)
    return pipeline


def build(mod, target="llvm", params=None, relax_pipeline="default", tir_pipeline="default",
          exec_mode="bytecode", system_lib=None):  # pylint: disable=unused-argument
    """Compile ``mod`` (an IRModule with Relax functions) for ``target``.

    ``params`` (a dict name → array) binds parameters of ``main`` to constants first.
    ``relax_pipeline`` / ``tir_pipeline``: a Pass, a pipeline name (``"zero"``,
    ``"default"``) or None to skip. Returns an :class:`~minitvm.relax.vm.Executable`."""
    from ..ir.module import IRModule  # pylint: disable=import-outside-toplevel
    from ..target import Target  # pylint: disable=import-outside-toplevel

    if not isinstance(mod, IRModule):
        raise error.TypeError(f"relax.build: expected an IRModule, got {type(mod).__name__}")
    if params:
        from .transform import BindParams  # pylint: disable=import-outside-toplevel

        mod = BindParams("main", params)(mod)
    if target is None:
        target = "llvm"
    if not isinstance(target, Target):
        target = Target(target)
    return get_global_func("relax.build")(
        mod, target, _relax_pipeline(relax_pipeline), tir_pipeline, exec_mode
    )
