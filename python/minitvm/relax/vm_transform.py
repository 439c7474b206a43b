"""The lowering of Relax for the VM (stage 5), as TVM's ``relax.transform`` passes.

Each function returns a :class:`minitvm.transform.Pass` made in C++ (the global
``"relax.transform.<Name>"``); instruments print them like any other pass. The last pass of
the pipeline, ``AttachGlobalSymbol``, is stage 4's (``relax.transform.AttachGlobalSymbol``).
:func:`vm_lowering_pipeline` lists them in order. The VM builtins the lowered code calls, and
their signatures, are documented in ``stage5_vm_codegen/include/minitvm/relax_vm/transform.h``
and ``docs/stage5_vm_lowering.md``.
"""
from .._ffi import get_global_func as _get_global_func

__all__ = [
    "RewriteDataflowReshape",
    "CallTIRRewrite",
    "StaticPlanBlockMemory",
    "LowerAllocTensor",
    "KillAfterLastUse",
    "LowerRuntimeBuiltin",
    "VMShapeLower",
    "vm_lowering_pipeline",
    "planned_memory",
    "vm_codegen",
]


def RewriteDataflowReshape():  # noqa: N802  (TVM's name)
    """Inside dataflow blocks, a ``call_tir`` of a kernel that only reshapes (one copy whose two
    sides have the same row-major offset) becomes ``R.reshape``, which the VM makes a view of
    the same memory instead of a copy."""
    return _get_global_func("relax.transform.RewriteDataflowReshape")()


def CallTIRRewrite():  # noqa: N802  (TVM's name)
    """``R.call_tir`` / ``R.call_dps_packed`` → explicit output allocations and an impure call
    of the kernel (inputs, then outputs); dataflow blocks become plain blocks."""
    return _get_global_func("relax.transform.CallTIRRewrite")()


def StaticPlanBlockMemory():  # noqa: N802
    """Static-shaped intermediates share storages across disjoint lifetimes (greedy best fit);
    sets the function attribute ``"relax.memory_plan_peak_bytes"``."""
    return _get_global_func("relax.transform.StaticPlanBlockMemory")()


def LowerAllocTensor():  # noqa: N802
    """Each remaining ``R.builtin.alloc_tensor`` → its own storage + ``R.memory.alloc_tensor``."""
    return _get_global_func("relax.transform.LowerAllocTensor")()


def KillAfterLastUse():  # noqa: N802
    """``R.memory.kill_tensor`` / ``kill_storage`` right after the last use."""
    return _get_global_func("relax.transform.KillAfterLastUse")()


def LowerRuntimeBuiltin():  # noqa: N802
    """Memory, tuple and shape operations → calls of the ``"vm.builtin.*"`` functions."""
    return _get_global_func("relax.transform.LowerRuntimeBuiltin")()


def VMShapeLower():  # noqa: N802
    """Argument checks and symbolic shapes computed at run time through a shape heap."""
    return _get_global_func("relax.transform.VMShapeLower")()


def vm_lowering_pipeline():
    """The lowering passes above, in order, as one ``Sequential``."""
    return _get_global_func("relax.vm.LoweringPipeline")()


def planned_memory(mod):
    """``{function name: (planned_bytes, sum_of_intermediates, largest_live_set)}`` of the
    static memory plan of every Relax function of ``mod`` (CallTIRRewrite is applied first
    when needed). ``planned_bytes`` is what StaticPlanBlockMemory allocates; the sum is what no
    reuse at all would take; the largest live set is a lower bound of any plan."""
    figures = _get_global_func("relax.vm.PlannedMemory")(mod)
    return {str(k): tuple(int(x) for x in v) for k, v in dict(figures).items()}


def vm_codegen(mod):
    """Bytecode of a lowered module: the executable as a runtime Module (no kernels yet)."""
    return _get_global_func("relax.VMCodeGen")(mod)
