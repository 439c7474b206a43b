"""Test helpers for TensorIR schedules (``tvm.tir.schedule.testing``)."""
from ... import ir as _ir
from ... import testing as _testing  # noqa: F401  (test files use tvm.testing after importing this)
from ..function import PrimFunc

__all__ = ["verify_trace_roundtrip", "assert_structural_equal_ignore_global_symbol"]


def verify_trace_roundtrip(sch, mod, *, debug_mask="all", text_format=("python", "json")):
    """Check that ``sch``'s trace, written out and read back, rebuilds the same schedule.

    The trace is written as Python (``text_format="python"``) or JSON (``"json"``), or both in
    turn (a list or tuple of formats, the default), then replayed on a fresh
    ``Schedule(mod, debug_mask=debug_mask)``. The replayed schedule must give a structurally
    equal module, and its own trace must print as the same Python. Returns the new schedule
    (for several formats, the one made from the last).
    """
    if not isinstance(text_format, str):
        new_sch = None
        for fmt in text_format:
            new_sch = verify_trace_roundtrip(sch, mod, debug_mask=debug_mask, text_format=fmt)
        return new_sch

    from .schedule import Schedule  # pylint: disable=import-outside-toplevel
    from .trace import Trace  # pylint: disable=import-outside-toplevel

    trace = sch.trace
    assert trace is not None, "the schedule has no trace"
    new_sch = Schedule(mod, debug_mask=debug_mask)
    if text_format == "json":
        Trace.apply_json_to_schedule(trace.as_json(), new_sch)
    elif text_format == "python":
        _run_python_trace(trace.as_python(), new_sch)
    else:
        raise ValueError(f'unknown text_format "{text_format}": expected "python" or "json"')

    _ir.assert_structural_equal(new_sch.mod, sch.mod)
    old_text = "\n".join(trace.as_python())
    new_text = "\n".join(new_sch.trace.as_python())
    assert old_text == new_text, (
        f"the trace changed in the {text_format} round trip:\n{old_text}\n---\n{new_text}"
    )
    return new_sch


def _run_python_trace(lines, sch):
    """Execute the trace's Python lines with ``sch`` bound (TVMScript names in scope)."""
    from ... import tir  # pylint: disable=import-outside-toplevel
    from ...script import tir as T  # pylint: disable=import-outside-toplevel,invalid-name

    namespace = dict(vars(tir))
    namespace["T"] = T
    namespace["tir"] = tir
    exec("\n".join(lines), namespace, {"sch": sch})  # pylint: disable=exec-used


def _without_global_symbol(value):
    if isinstance(value, PrimFunc) and value.attrs is not None and "global_symbol" in value.attrs:
        return value.without_attr("global_symbol")
    return value


def assert_structural_equal_ignore_global_symbol(func1, func2, *args, **kwargs):
    """``tvm.ir.assert_structural_equal`` on two functions, ignoring their ``global_symbol``.

    Functions written with ``@T.prim_func`` carry their Python name as ``global_symbol``;
    this compares, say, an expected function with the ``"main"`` of a scheduled module.
    """
    _ir.assert_structural_equal(
        _without_global_symbol(func1), _without_global_symbol(func2), *args, **kwargs
    )
