"""Analyses of TensorIR functions (stage 2), as in ``tvm.tir.analysis``."""
from .._ffi import get_global_func

__all__ = ["verify_well_formed"]


def verify_well_formed(func, assert_mode=True):
    """Check that a PrimFunc is well formed: variables defined before use and used only in
    their scope, buffers declared, one iter_value per block iterator, one index per buffer
    dimension, stores of the buffer's dtype, and no loop variable used directly inside a
    block. Raises :class:`minitvm.error.ValueError` naming the first problem, or returns False
    when ``assert_mode`` is False; returns True when well formed."""
    return bool(get_global_func("tir.analysis.VerifyWellFormed")(func, bool(assert_mode)))
