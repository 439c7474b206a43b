"""Relax pipelines (stage 4), as TVM's ``relax.get_pipeline``.

``get_pipeline("zero")`` is TVM's zero pipeline — LegalizeOps, AnnotateTIROpPattern,
FoldConstant, FuseOps, FuseTIR — as one :class:`minitvm.transform.Sequential`;
``get_pipeline("default")`` adds DeadCodeElimination after FoldConstant (so dead bindings do not
block fusion) and at the end. The pipelines are built in C++
(``"relax.get_pipeline"``), which looks every pass up by its registered name, so a pass that is
not compiled in is left out. Pass instruments of the current ``PassContext`` (print before /
after, ``PrintDiff``) watch every pass of the pipeline.

``relax.build`` / ``tvm.compile`` with ``"default"`` for an ``llvm`` target then schedules the
PrimFuncs (``DefaultCPUSchedule``) between ``AttachAttrLayoutFreeBuffers`` and
``SplitLayoutRewritePreproc`` + ``FoldConstant`` + ``DeadCodeElimination``: weights bound as
constants are packed once, at compile time (``stage5_vm_codegen/src/relax_vm/build.cc``).
"""
from .._ffi import get_global_func as _get_global_func

__all__ = ["get_pipeline", "PIPELINE_NAMES"]

PIPELINE_NAMES = ("default", "zero")


def get_pipeline(name="zero", **kwargs):
    """The Relax pipeline ``name`` as a pass: ``mod = relax.get_pipeline("zero")(mod)``.

    An unknown name is a ValueError listing the known pipelines.
    """
    if kwargs:
        raise TypeError(f"get_pipeline: pipeline {name!r} takes no options, got {sorted(kwargs)}")
    return _get_global_func("relax.get_pipeline")(str(name))
