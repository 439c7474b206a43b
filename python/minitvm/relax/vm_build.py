"""``relax.build`` (stage 5): compile a module with Relax functions for the VM.

The work is the C++ global ``"relax.build"`` (``minitvm/relax_vm/build.h``): the Relax
pipeline, the VM lowering, the TIR build of the PrimFuncs (the kernel library) and VM code
generation; the result is an :class:`~minitvm.relax.vm.Executable`. ``minitvm.compile`` calls
:func:`build` for modules that have Relax functions.
"""
from .. import error
from .._ffi import get_global_func

__all__ = ["build"]


def build(mod, target="llvm", params=None, relax_pipeline="default", tir_pipeline="default",
          exec_mode="bytecode", system_lib=None):  # pylint: disable=unused-argument
    """Compile ``mod`` (an IRModule with Relax functions) for ``target``.

    ``params`` (a dict name → array) binds parameters of ``main`` to constants first; the
    ``"default"`` pipeline then packs those weights for the GEMM and conv2d kernels at compile
    time.
    ``relax_pipeline`` / ``tir_pipeline``: a Pass, a pipeline name (``"zero"``,
    ``"default"``: C++ asks the global ``"relax.get_pipeline"``, or runs LegalizeOps when it
    is not registered) or None to skip. Returns an :class:`~minitvm.relax.vm.Executable`."""
    from ..ir.module import IRModule  # pylint: disable=import-outside-toplevel
    from ..target import Target  # pylint: disable=import-outside-toplevel

    if not isinstance(mod, IRModule):
        raise error.TypeError(f"relax.build: expected an IRModule, got {type(mod).__name__}")
    if params:
        from .transform import BindParams  # pylint: disable=import-outside-toplevel

        mod = BindParams("main", params)(mod)
    if exec_mode not in ("bytecode", "compiled"):
        raise error.ValueError(
            f'relax.build: exec_mode must be "bytecode" or "compiled", not {exec_mode!r}'
        )
    # "compiled" runs the same bytecode (docs/tvm_compat.md, "Relax VM exec_mode").
    exec_mode = "bytecode"
    if target is None:
        target = "llvm"
    if not isinstance(target, Target):
        target = Target(target)
    return get_global_func("relax.build")(
        mod, target, relax_pipeline, tir_pipeline, exec_mode
    )
