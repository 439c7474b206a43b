"""Automatic schedule search (``tvm.meta_schedule``): design spaces with sampled decisions,
an evolutionary search guided by a cost model, measurement in worker processes, and a tuning
database applied at compile time.

.. code-block:: python

    from minitvm import meta_schedule as ms

    database = ms.tune_tir(mod, target="llvm -mcpu=native", work_dir="tune_dir",
                           max_trials_global=64)
    sch = ms.tir_integration.compile_tir(database, mod, "llvm -mcpu=native")
    lib = tvm.build(sch.mod, target="llvm -mcpu=native")

See ``docs/autotune.md`` and ``tutorials/11_autotune``.
"""
from . import database, measure, search, space, space_generator
from .database import Database, JSONDatabase, MemoryDatabase, TuningRecord, Workload
from .measure import LocalBuilder, LocalRunner
from .search import EvolutionarySearch, RidgeCostModel
from .space import auto_inline, default_space, multi_level_tiling
from .tune import (MetaScheduleApplyDatabase, apply_database, compile_relax, compile_tir,
                   estimate_flops, extract_tasks, tune_relax, tune_tir)
from . import tir_integration, relax_integration

__all__ = [
    "Database", "JSONDatabase", "MemoryDatabase", "TuningRecord", "Workload", "LocalBuilder",
    "LocalRunner", "EvolutionarySearch", "RidgeCostModel", "auto_inline", "default_space",
    "multi_level_tiling", "apply_database", "compile_relax", "compile_tir", "estimate_flops",
    "extract_tasks", "tune_relax", "tune_tir", "tir_integration", "relax_integration",
    "space_generator", "MetaScheduleApplyDatabase",
]
