"""``minitvm.build`` and ``minitvm.compile`` (stage 2): from IR to a runnable module.

``build(mod_or_func, target, pipeline="default")`` works in two visible steps, as TVM's:

1. lower: run the TIR pipeline ``pipeline`` — a :class:`~minitvm.transform.Pass`, a pipeline
   name (``"default"``: the target kind's default pipeline, which is the default TIR pipeline
   for ``"llvm"`` and nothing for ``"ref"``), or ``None`` to hand the module on as it is;
2. generate: the builder of the target's kind (the global function ``"target.build.<kind>"``):
   ``"ref"`` runs the PrimFuncs with the TIR interpreter (stage 2); ``"llvm"`` compiles the
   lowered module (stage 5).

The result is a runtime :class:`~minitvm.runtime.Module`: ``mod(a, b)`` calls the entry
function, ``mod["name"]`` any other.
"""
from . import error
from ._ffi import get_global_func
from .ir.module import IRModule
from .target import Target

__all__ = ["build", "compile"]


def _target(target):
    if target is None:
        target = "llvm"
    if isinstance(target, Target):
        return target
    return Target(target)


def build(inputs, args=None, target=None, target_host=None, runtime=None, name="main",
          binds=None, pipeline="default"):
    """Build a PrimFunc or an IRModule of PrimFuncs for ``target`` (a string or Target;
    default "llvm"). A single PrimFunc is named by its "global_symbol" attribute, else by
    ``name``. ``pipeline`` lowers the module first: a Pass, a pipeline name (``"default"``) or
    ``None`` (no lowering: the module must be lowered already for "llvm"). ValueError when
    the target's kind has no builder (e.g. llvm in a build without stage 5; use
    ``target="ref"``) or for an unknown pipeline name."""
    from .tir.function import PrimFunc  # pylint: disable=import-outside-toplevel

    if isinstance(target, dict) and not isinstance(inputs, dict):
        raise error.ValueError("build: a dict of targets is not supported; pass one target")
    if isinstance(args, (str, Target, dict)) and target is None:
        # TVM v0.20's signature is build(mod, target=None, pipeline="default"): a string,
        # Target or target map in the second place is the target.
        args, target = None, args
    if args is not None:
        raise error.ValueError(
            "build: the (schedule, args) form of old TVM is not supported; build a PrimFunc "
            "with te.create_prim_func and pass it"
        )
    if not isinstance(inputs, (IRModule, PrimFunc)):
        raise error.TypeError(
            f"build: expected an IRModule or a PrimFunc, got {type(inputs).__name__}"
        )
    return get_global_func("driver.build")(inputs, _target(target), name, pipeline)


def compile(mod, target=None, relax_pipeline="default", tir_pipeline="default",
            exec_mode="bytecode", **kwargs):  # pylint: disable=redefined-builtin
    """Compile a module for ``target``. A module of PrimFuncs only is built like
    :func:`build` with ``pipeline=tir_pipeline``; a module with Relax functions goes to the
    Relax compiler (stage 5). As in TVM, each pipeline is a Pass, a name or None (skip)."""
    from .tir.function import PrimFunc  # pylint: disable=import-outside-toplevel

    if isinstance(mod, PrimFunc):
        return build(mod, target=target, pipeline=tir_pipeline)
    if isinstance(mod, IRModule):
        only_tir = all(isinstance(f, PrimFunc) for _, f in mod.functions_items())
        if only_tir:
            return build(mod, target=target, pipeline=tir_pipeline)
        if get_global_func("relax.build", allow_missing=True) is None:
            raise error.ValueError(
                "compile: the module has Relax functions; compiling them needs stage 5 "
                "(minitvm was built without it)"
            )
        from .relax.vm_build import build as relax_build  # pylint: disable=import-outside-toplevel

        return relax_build(mod, _target(target), None, relax_pipeline, tir_pipeline, exec_mode)
    raise error.TypeError(f"compile: expected an IRModule or a PrimFunc, got {type(mod).__name__}")
