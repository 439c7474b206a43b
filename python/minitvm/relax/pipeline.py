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

``static_shape_tuning_pipeline`` (also ``get_pipeline("static_shape_tuning", ...)``) is TVM's
tuning pipeline, in Python as in TVM; with ``cpu_weight_prepack=True`` weights passed as
arguments are packed once too, by a ``main_transform_params`` function (LiftTransformParams).
"""
from .._ffi import get_global_func as _get_global_func

__all__ = ["get_pipeline", "static_shape_tuning_pipeline", "PIPELINE_NAMES"]

PIPELINE_NAMES = ("default", "static_shape_tuning", "zero")


def get_pipeline(name="zero", **kwargs):
    """The Relax pipeline ``name`` as a pass: ``mod = relax.get_pipeline("zero")(mod)``.

    ``"static_shape_tuning"`` takes the options of :func:`static_shape_tuning_pipeline`
    (``total_trials`` and ``target`` at least); the others take none. An unknown name is a
    ValueError listing the known pipelines.
    """
    if name == "static_shape_tuning":
        return static_shape_tuning_pipeline(**kwargs)
    if kwargs:
        raise TypeError(f"get_pipeline: pipeline {name!r} takes no options, got {sorted(kwargs)}")
    try:
        return _get_global_func("relax.get_pipeline")(str(name))
    except ValueError as err:
        if "unknown pipeline" in str(err):
            raise type(err)(f"{err}, \"static_shape_tuning\" (Python)") from None
        raise


_OPAQUE = 8  # OpPatternKind kOpaque


def _opaque_scheduled(mod):
    """Every scheduled kernel marked ``"op_pattern"`` = opaque: tvm.compile runs the "default"
    pipeline again, whose AnnotateTIROpPattern would otherwise classify the split and fused
    kernels anew and FuseOps group them (e.g. a weight's tuple item with its packing kernel),
    so that FuseTIR would merge already scheduled kernels into a new, unscheduled one."""
    from .. import ir as _ir  # pylint: disable=import-outside-toplevel
    from ..tir.function import PrimFunc  # pylint: disable=import-outside-toplevel

    out = {}
    for gv, f in mod.functions_items():
        if isinstance(f, PrimFunc) and f.attrs is not None and "tir.is_scheduled" in f.attrs:
            f = f.with_attr("op_pattern", _OPAQUE)
        out[gv] = f
    return _ir.IRModule(out, mod.attrs)


def static_shape_tuning_pipeline(total_trials, target, work_dir="tuning_logs",
                                 cpu_weight_prepack=False):
    """TVM's pipeline for models with static shapes: tune the kernels, apply the best schedules.

    As a module pass: the Relax passes of the ``"default"`` pipeline (TVM runs
    DecomposeOpsForInference, CanonicalizeBindings and the zero pipeline; minitvm's "default"
    does those and also fuses the weight transpose into the matmul and the inference batch norm
    into the conv), then with ``total_trials > 0`` the meta schedule search
    (``meta_schedule.tune_relax``'s, the records in ``work_dir``), the database of ``work_dir``
    applied (when it exists), and ``DefaultCPUSchedule`` for every kernel left (the CPU rules;
    ``total_trials=0`` means these alone). The kernels come out marked ``tir.is_scheduled``, so
    ``tvm.compile(mod, target)`` afterwards does not schedule them again.

    ``cpu_weight_prepack=True`` packs weights passed as arguments once, as TVM does:
    ``AttachAttrLayoutFreeBuffers`` before scheduling (the parameters after ``"num_input"`` are
    layout free, so the conv2d and GEMM rules put their packing into a block of its own), then
    ``SplitLayoutRewritePreproc``, ``LiftTransformParams`` and ``FoldConstant``. The module gets
    a function ``main_transform_params`` (``<name>_transform_params`` for each function with
    ``"num_input"``) that the caller runs once on the weights::

        mod = relax.pipeline.static_shape_tuning_pipeline(0, target, cpu_weight_prepack=True)(mod)
        vm = relax.VirtualMachine(tvm.compile(mod, target), tvm.cpu())
        params = vm["main_transform_params"](weights)   # a list of the weights, in order
        out = vm["main"](x, *params)
    """
    # pylint: disable=import-outside-toplevel
    import os

    from .. import transform as _transform
    from ..target import Target
    from . import transform

    if not isinstance(total_trials, int) or isinstance(total_trials, bool) or total_trials < 0:
        raise ValueError("static_shape_tuning_pipeline: total_trials must be an int >= 0, not "
                         f"{total_trials!r}")
    tgt = target if isinstance(target, Target) else Target(target)
    if tgt.kind.name != "llvm":
        raise ValueError("static_shape_tuning_pipeline: minitvm tunes and schedules CPU "
                         f"(llvm) targets only, not {tgt.kind.name!r}")

    def _pipeline(mod, _ctx):
        from .. import meta_schedule as ms
        from ..meta_schedule.tune import _tasks_of, _tune_tasks

        mod = get_pipeline("default")(mod)
        if cpu_weight_prepack:
            mod = transform.AttachAttrLayoutFreeBuffers()(mod)
        database = None
        if total_trials > 0:
            database = ms.JSONDatabase(work_dir=work_dir) if work_dir else ms.MemoryDatabase()
            _tune_tasks(_tasks_of(mod), tgt, database, total_trials)
        elif work_dir and os.path.isfile(os.path.join(work_dir, "database_tuning_record.json")):
            database = ms.JSONDatabase(work_dir=work_dir)  # the records of an earlier run
        if database is not None:
            mod = ms.MetaScheduleApplyDatabase(database, tgt)(mod)
        mod = _get_global_func("relax.transform.DefaultCPUSchedule")(tgt)(mod)
        if cpu_weight_prepack:
            mod = transform.SplitLayoutRewritePreproc()(mod)
            mod = transform.LiftTransformParams()(mod)
            mod = transform.FoldConstant()(mod)
        return _opaque_scheduled(mod)

    return _transform.module_pass(_pipeline, opt_level=0, name="static_shape_tuning_pipeline")
