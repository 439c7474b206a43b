"""``tvm.s_tir`` ("schedulable TensorIR"): where TVM 0.22 moved the schedule.

In TVM 0.22 the TensorIR core became ``tvm.tirx`` and the schedule, its state and traces,
tensor intrinsics and meta_schedule moved here; blocks are called *sblocks*
(``sch.get_sblock``, ``T.sblock``). In minitvm both spellings name the same objects:

* ``tvm.s_tir.Schedule`` is ``tvm.tir.Schedule`` (with ``get_sblock``), ``SBlockRV`` is
  ``BlockRV``; ``ScheduleState``, ``StmtSRef``, ``Trace``, ``TensorIntrin``, ``ScheduleError``;
* ``tvm.s_tir.schedule`` is ``tvm.tir.schedule``, ``tvm.s_tir.meta_schedule`` is
  ``tvm.meta_schedule``, ``tvm.s_tir.transform`` is ``tvm.tir.transform`` (when built).

See docs/tvm_compat.md for the full table of names and the versions they come from.
"""
from .. import _aliases
from ..tir.schedule import (  # noqa: F401
    BlockRV as SBlockRV,
    BlockRV,
    LoopRV,
    ExprRV,
    Schedule,
    ScheduleError,
    ScheduleState,
    StmtSRef,
    TensorIntrin,
    Trace,
)
from ..tir import schedule  # noqa: F401

_aliases.alias_package(__name__ + ".schedule", "minitvm.tir.schedule")
_aliases.alias_package(__name__ + ".meta_schedule", "minitvm.meta_schedule")
_aliases.alias_package(__name__ + ".transform", "minitvm.tir.transform")


def __getattr__(name):
    # meta_schedule and transform load on first use (meta_schedule imports NumPy).
    if name in ("meta_schedule", "transform"):
        import importlib  # pylint: disable=import-outside-toplevel

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Schedule", "SBlockRV", "BlockRV", "LoopRV", "ExprRV", "ScheduleError",
           "ScheduleState", "StmtSRef", "TensorIntrin", "Trace", "schedule"]
