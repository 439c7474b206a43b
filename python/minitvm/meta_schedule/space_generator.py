"""TVM's ``meta_schedule.space_generator`` names used by the course: ``ScheduleFn`` wraps a
design-space function ``f(sch)`` so that it can be passed as ``tune_tir(..., space=...)``.
A plain function works as well."""

__all__ = ["ScheduleFn"]


class ScheduleFn:
    """A design space given by a Python function that transforms a ``tir.Schedule`` in place
    (with sampling primitives where it has a choice)."""

    def __init__(self, sch_fn):
        if not callable(sch_fn):
            raise TypeError(f"ScheduleFn needs a function taking a Schedule, got {sch_fn!r}")
        self.sch_fn = sch_fn

    def __call__(self, sch):
        result = self.sch_fn(sch)
        if result is not None and result is not sch:
            raise ValueError("a ScheduleFn design space transforms the schedule it is given "
                             "and returns None (or that schedule); it returned "
                             f"{type(result).__name__}")
