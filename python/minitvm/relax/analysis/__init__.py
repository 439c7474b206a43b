"""``relax.analysis`` (stage 4): well-formedness and variable queries, as TVM's.

``well_formed(mod_or_func)`` checks the rules listed in ``minitvm/relax/analysis.h``
(DataflowVar scoping, purity in dataflow blocks, single definition before use, struct info,
``call_tir`` signatures, GlobalVars); ``well_formed_violations`` returns the broken rules, one
line each (``[rule] function "f", variable "x": ...``).
"""
from ..._ffi import get_global_func

__all__ = ["well_formed", "well_formed_violations", "free_vars", "bound_vars", "all_vars"]


def well_formed(obj, check_struct_info=True):
    """Whether ``obj`` (an IRModule or a relax.Function) is well formed."""
    return bool(get_global_func("relax.analysis.well_formed")(obj, bool(check_struct_info)))


def well_formed_violations(obj, check_struct_info=True):
    """The well-formedness violations of ``obj`` as a list of strings (empty when none)."""
    return [str(s) for s in
            get_global_func("relax.analysis.WellFormedViolations")(obj, bool(check_struct_info))]


def free_vars(expr):
    """The variables ``expr`` uses without defining them, in order of first use."""
    return list(get_global_func("relax.analysis.free_vars")(expr))


def bound_vars(expr):
    """The variables ``expr`` defines (parameters, binding targets), in order."""
    return list(get_global_func("relax.analysis.bound_vars")(expr))


def all_vars(expr):
    """Every variable ``expr`` defines or uses, in order of first appearance."""
    return list(get_global_func("relax.analysis.all_vars")(expr))

