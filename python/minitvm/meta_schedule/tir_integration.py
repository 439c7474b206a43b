"""TVM's ``meta_schedule.tir_integration`` names: ``tune_tir`` and ``compile_tir``."""
from .tune import compile_tir, tune_tir

__all__ = ["tune_tir", "compile_tir"]
