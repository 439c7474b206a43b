"""``tir.Schedule`` and its trace (stage 3), with TVM's names.

    sch = tvm.tir.Schedule(mod)
    block = sch.get_block("B")
    (i,) = sch.get_loops(block)
    i_0, i_1, i_2 = sch.split(i, factors=[2, 2, 2])
    print(sch.mod.script())
    sch.trace.show()

Every method calls the C++ primitive of the same name (``"tir.schedule.Split"``, ...); a
primitive whose preconditions fail raises a subclass of :class:`ScheduleError` named after
the broken rule (``LoopsNotAChainError``, ...) and leaves the schedule unchanged.
"""
from .schedule import BlockRV, ExprRV, LoopRV, Schedule, ScheduleError
from .trace import Instruction, InstructionKind, Trace
from . import state
from .state import ScheduleDebugMask, ScheduleState, StmtSRef
from .index_map import IndexMap
from .tensor_intrin import TensorIntrin
from . import errors
from .errors import *  # noqa: F401,F403  (the ScheduleError subclasses)

__all__ = [
    "BlockRV",
    "ExprRV",
    "LoopRV",
    "Schedule",
    "ScheduleError",
    "Trace",
    "Instruction",
    "InstructionKind",
    "ScheduleDebugMask",
    "ScheduleState",
    "StmtSRef",
    "IndexMap",
    "TensorIntrin",
] + errors.__all__
