"""The TIR passes by name: ``minitvm.tir.transform.FlattenBuffer()`` etc. (stage 5).

Every pass is the C++ global ``"tir.transform.<Name>"``; see
``stage5_vm_codegen/include/minitvm/tir/transform/transform.h`` for what each one does. The
default pipeline is a :class:`minitvm.transform.Sequential` that a
:class:`minitvm.transform.PassContext` can print or instrument::

    import minitvm as tvm
    pipeline = tvm.tir.get_default_tir_pipeline()
    print(pipeline)                     # the passes, in order
    with tvm.transform.PassContext(instruments=[tvm.transform.PrintDiff()]):
        lowered = pipeline(mod)
"""
from ..._ffi import get_global_func
from ... import transform as _transform

__all__ = [
    "LowerInitBlock",
    "PlanAndUpdateBufferAllocationLocation",
    "ConvertBlocksToOpaque",
    "CompactBufferAllocation",
    "LowerOpaqueBlock",
    "FlattenBuffer",
    "Simplify",
    "VectorizeLoop",
    "UnrollLoop",
    "RemoveNoOp",
    "LowerIntrin",
    "MakePackedAPI",
    "RemoveWeightLayoutRewriteBlock",
    "prim_func_pass",
    "get_default_tir_pipeline",
    "default_tir_pipeline_passes",
]


def _make(name):
    def create():
        return get_global_func("tir.transform." + name)()

    create.__name__ = name
    create.__qualname__ = name
    create.__doc__ = f"The ``tir.{name}`` pass (see the C++ header for what it does)."
    return create


LowerInitBlock = _make("LowerInitBlock")
PlanAndUpdateBufferAllocationLocation = _make("PlanAndUpdateBufferAllocationLocation")
ConvertBlocksToOpaque = _make("ConvertBlocksToOpaque")
CompactBufferAllocation = _make("CompactBufferAllocation")
LowerOpaqueBlock = _make("LowerOpaqueBlock")
FlattenBuffer = _make("FlattenBuffer")
Simplify = _make("Simplify")
VectorizeLoop = _make("VectorizeLoop")
UnrollLoop = _make("UnrollLoop")
RemoveNoOp = _make("RemoveNoOp")
LowerIntrin = _make("LowerIntrin")
MakePackedAPI = _make("MakePackedAPI")




def prim_func_pass(pass_func=None, opt_level=0, name=None, required=None):
    """Make a pass from ``pass_func(func, mod, ctx) -> func`` applied to every PrimFunc."""

    def create(func):
        fname = name or getattr(func, "__name__", "prim_func_pass")
        fn = func().transform_function if isinstance(func, type) else func
        return get_global_func("tir.transform.MakePrimFuncPass")(fn, int(opt_level), fname, list(required or []))

    if pass_func is not None:
        return create(pass_func)
    return create


def RemoveWeightLayoutRewriteBlock():  # noqa: N802 - TVM's name
    """TVM's ``tir.transform.RemoveWeightLayoutRewriteBlock``: in every PrimFunc, the blocks
    annotated ``meta_schedule.layout_rewrite_preproc`` (the packing of a bound weight, which
    tvm.compile runs once at compile time) are removed, and the buffers they wrote become the
    parameters in place of the weights. The meta-schedule builder times candidates this way."""
    fn = get_global_func("tir.transform.RemoveWeightLayoutRewriteBlockFunc")
    return prim_func_pass(lambda f, _mod, _ctx: fn(f), name="RemoveWeightLayoutRewriteBlock")


def default_tir_pipeline_passes():
    """The passes of the default pipeline, in order (a list)."""
    return list(get_global_func("tir.transform.DefaultTIRPipelinePasses")())


def get_default_tir_pipeline():
    """The default TIR lowering pipeline, a :class:`minitvm.transform.Sequential` named
    ``"tir.default_pipeline"``."""
    return get_global_func("tir.transform.GetDefaultTIRPipeline")()


# Make sure the Sequential class is registered before the pipeline object is returned.
_ = _transform.Sequential
