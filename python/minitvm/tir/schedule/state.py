"""``tir.schedule.state``: the schedule's state seen from Python, with TVM's names.

TVM keeps, beside the module, an *sref tree*: one ``StmtSRef`` per block and loop, pointing at
the node and at its parent, which primitives use to find their way. minitvm's C++ schedule has
the same index (``FuncIndex`` in ``state.h``); this module shows it read-only:

* ``sch.state`` — a :class:`ScheduleState` view: ``state.mod``, ``state.get_sref(stmt)``;
* ``sch.get_sref(block_rv or loop_rv or node)`` — a :class:`StmtSRef` (``.stmt``, ``.parent``);
* :class:`ScheduleDebugMask` — the debug flags ``Schedule(mod, debug_mask=...)`` takes.

Not offered: ``ScheduleState.replace`` (TVM's low-level in-place edit; every change goes
through a primitive here) and block scopes (``get_block_scope``).
"""
from enum import IntEnum

from .. import stmt as _stmt
from . import _ffi_api

__all__ = ["ScheduleDebugMask", "ScheduleState", "StmtSRef"]


class ScheduleDebugMask(IntEnum):
    """TVM's debug flags. minitvm has one level of checking: any nonzero mask verifies the IR
    after every primitive (a failure is an InternalError, i.e. a minitvm bug)."""

    VERIFY_SREF_TREE = 1
    VERIFY_CACHED_FLAGS = 2


class StmtSRef:
    """Where a block or loop sits: ``stmt`` (the Block or For) and ``parent`` (the StmtSRef of
    the nearest enclosing block or loop, None for the root block)."""

    def __init__(self, sch, func_name, stmt, parent_stmt):
        self._sch = sch
        self.func_name = func_name
        self.stmt = stmt
        self._parent_stmt = parent_stmt

    @property
    def parent(self):
        if self._parent_stmt is None:
            return None
        return _sref(self._sch, self._parent_stmt)

    def __eq__(self, other):
        return isinstance(other, StmtSRef) and self.stmt.same_as(other.stmt)

    def __hash__(self):
        return hash(self.stmt)

    def __repr__(self):
        kind = "block" if isinstance(self.stmt, _stmt.Block) else "loop"
        name = self.stmt.name_hint if kind == "block" else self.stmt.loop_var.name_hint
        return f"StmtSRef({kind} {name!s} in {self.func_name})"


def _sref(sch, rv_or_stmt):
    found = _ffi_api.ScheduleGetSRef(sch, rv_or_stmt)
    if found is None:
        return None
    func_name, stmt, parent = found
    return StmtSRef(sch, str(func_name), stmt, parent)


class ScheduleState:
    """A read-only view of a schedule's state (``sch.state``)."""

    def __init__(self, sch):
        self._sch = sch

    @property
    def mod(self):
        """The module as scheduled so far."""
        return self._sch.mod

    def get_sref(self, stmt):
        """The :class:`StmtSRef` of a Block or For node of ``mod``, or None."""
        return _sref(self._sch, stmt)


def _output_blocks(scope):
    """The blocks under the Block ``scope`` that write a buffer their own scope block does not
    allocate (TVM's IsOutputBlock), in program order."""
    out = []

    def visit(node, owner):
        if isinstance(node, _stmt.BlockRealize):
            visit(node.block, owner)
        elif isinstance(node, _stmt.Block):
            allocated = {b.handle for b in owner.alloc_buffers}
            if any(w.buffer.handle not in allocated for w in node.writes):
                out.append(node)
            visit(node.body, node)
        elif isinstance(node, _stmt.SeqStmt):
            for s in node.seq:
                visit(s, owner)
        elif isinstance(node, _stmt.IfThenElse):
            visit(node.then_case, owner)
            if node.else_case is not None:
                visit(node.else_case, owner)
        elif isinstance(node, _stmt.Stmt) and isinstance(getattr(node, "body", None), _stmt.Stmt):
            visit(node.body, owner)

    visit(scope.body, scope)
    return out
