"""Helpers shared by the frontends (stage 4): :func:`detach_params`, as TVM's
``relax.frontend.detach_params``."""
from ..expr import Function

__all__ = ["detach_params"]


def detach_params(mod):
    """Take the ``"params"`` attribute off every Relax function of ``mod`` (what
    ``from_fx(..., keep_params_as_input=True)`` attaches).

    Returns
    -------
    (IRModule, dict)
        The module without the attribute, and ``{function name: [NDArray, ...]}`` for the
        functions that had it (values in the order the function takes its parameters).
    """
    detached = {}
    new_mod = mod.copy()  # keeps the module attributes
    for gv in mod.get_global_vars():
        func = mod[gv]
        attrs = func.attrs
        if isinstance(func, Function) and attrs is not None and "params" in attrs:
            detached[gv.name_hint] = list(attrs["params"])
            rest = {str(k): attrs[k] for k in attrs if str(k) != "params"}
            func = Function(list(func.params), func.body, func.ret_struct_info, func.is_pure,
                            rest)
            new_mod.update_func(gv, func)
    return new_mod, detached
