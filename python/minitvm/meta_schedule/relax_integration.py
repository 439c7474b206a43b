"""TVM's ``meta_schedule.relax_integration`` names: ``extract_tasks``, ``tune_relax`` and
``compile_relax``."""
from .tune import MetaScheduleApplyDatabase, compile_relax, extract_tasks, tune_relax

__all__ = ["extract_tasks", "tune_relax", "compile_relax", "MetaScheduleApplyDatabase"]
