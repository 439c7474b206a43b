"""``Trace``: the record of a schedule's primitives, printable as Python and as JSON."""
import json

from ..._ffi import register_object
from ...runtime import Object
from . import _ffi_api

__all__ = ["Instruction", "InstructionKind", "Trace"]


def _plain(value):
    """A decision as plain Python (an int or a list of ints)."""
    if value is None:
        return None
    if hasattr(value, "__len__") and not isinstance(value, str):
        return [int(v) for v in value]
    return int(value)


_PURE_KINDS = {"GetBlock", "GetLoops", "GetChildBlocks", "GetProducers", "GetConsumers",
               "SamplePerfectTile", "SampleCategorical", "SampleComputeLocation"}


class InstructionKind(str):
    """The kind of a trace instruction, e.g. ``"Split"`` (TVM's ``tir.schedule.InstructionKind``).

    It is the kind's name as a ``str`` (so ``inst.kind == "Split"`` holds), with TVM's
    ``name`` and ``is_pure`` (the instruction only reads the schedule: getters and sampling)
    and ``InstructionKind.get(name)``.
    """

    @property
    def name(self):
        return str(self)

    @property
    def is_pure(self):
        return str(self) in _PURE_KINDS

    @staticmethod
    def get(name):
        """The kind called ``name``; ValueError listing the known kinds when there is none."""
        known = [str(k) for k in _ffi_api.ListInstructionKinds()]
        if name not in known:
            from ... import error as _error  # pylint: disable=import-outside-toplevel

            raise _error.ValueError(
                f"InstructionKind.get: no instruction kind {name!r}; known: {sorted(known)}")
        return InstructionKind(name)

    def __repr__(self):
        return f"InstructionKind({str(self)!r})"


@register_object("tir.schedule.Instruction")
class Instruction(Object):
    """One recorded primitive call: ``kind``, ``inputs``, ``attrs``, ``outputs``."""

    @property
    def kind(self):
        """The :class:`InstructionKind` (a ``str`` with ``.name`` and ``.is_pure``)."""
        return InstructionKind(str(self.__getattr__("kind")))


@register_object("tir.schedule.Trace")
class Trace(Object):
    """The primitives applied by a schedule, in order (``sch.trace``)."""

    def __init__(self, insts=None, decisions=None):
        self.__init_handle_by_constructor__(_ffi_api.Trace, list(insts or []))

    @property
    def insts(self):
        """The instructions."""
        return list(self.__getattr__("insts"))

    @property
    def decisions(self):
        """The choices of the sampling instructions: a dict {Instruction: decision}."""
        insts = self.insts
        return {insts[int(i)]: _plain(d) for i, d in _ffi_api.TraceDecisions(self)}

    def get_decision(self, inst):
        """The decision recorded for a sampling instruction (None when it has none)."""
        return self.decisions.get(inst)

    def with_decision(self, inst, decision, remove_postproc=False):
        """A copy whose sampling instruction ``inst`` has ``decision`` (None: draw again when
        replayed). ``inst`` is an Instruction of this trace or its index."""
        insts = self.insts
        index = inst if isinstance(inst, int) else next(
            (i for i, x in enumerate(insts) if x.same_as(inst)), None)
        if index is None:
            raise ValueError("with_decision: the instruction is not in this trace")
        trace = _ffi_api.TraceWithDecision(self, index, decision)
        if remove_postproc:
            kept = trace.insts
            for i, x in enumerate(kept):
                if str(x.kind) == "EnterPostproc":
                    kept = kept[:i]
                    break
            trace = Trace(kept)
        return trace

    def as_python(self, remove_postproc=False):
        """One line of Python per instruction (``l2, l3 = sch.split(loop=l1, ...)``)."""
        return [str(x) for x in _ffi_api.TraceAsPython(self, bool(remove_postproc))]

    def show(self, remove_postproc=False, style=None, black_format=None):
        """Print the trace as a Python function ``apply_trace(sch)``, highlighted in a terminal
        (``style``, ``black_format``: see :func:`minitvm.script.highlight.cprint`)."""
        from ...script.highlight import cprint  # pylint: disable=import-outside-toplevel

        text = _ffi_api.TraceShow(self, bool(remove_postproc))
        cprint(text[:-1] if text.endswith("\n") else text, style, black_format)

    def __str__(self):
        return _ffi_api.TraceShow(self, False)

    def __repr__(self):
        return str(self)

    def as_json(self, remove_postproc=False):
        """The trace as a JSON-able object ``[[instructions...], [decisions...]]``."""
        return json.loads(_ffi_api.TraceAsJSON(self, bool(remove_postproc)))

    @staticmethod
    def from_json(obj):
        """A trace from ``as_json()`` output (the object or its JSON text)."""
        text = obj if isinstance(obj, str) else json.dumps(obj)
        return _ffi_api.TraceFromJSON(text)

    @staticmethod
    def from_python(text):
        """A trace from schedule calls written as Python, one per line (``show()``'s form)."""
        return _ffi_api.TraceFromPython(text)

    def apply_to_schedule(self, sch, remove_postproc=False, decision_provider=None):
        """Replay the trace on ``sch`` (a schedule of the same module)."""
        _ffi_api.TraceApplyToSchedule(self, sch, bool(remove_postproc))

    @staticmethod
    def apply_json_to_schedule(json_obj, sch):
        """Replay a trace given as JSON on ``sch``."""
        Trace.from_json(json_obj).apply_to_schedule(sch)
