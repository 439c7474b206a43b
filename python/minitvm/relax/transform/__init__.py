"""``relax.transform`` (stage 4): the Relax passes, as TVM's; each returns a
:class:`minitvm.transform.Pass` made in C++ (the global ``"relax.transform.<Name>"``).
"""
from ..._ffi import get_global_func as _get_global_func

__all__ = ["BindParams"]


def BindParams(func_name, params):  # noqa: N802  (TVM's name)
    """Bind the parameters of function ``func_name`` to constants.

    ``params`` maps parameter names (str) or the parameter ``relax.Var`` objects to arrays
    (NumPy arrays or NDArrays). Symbolic dimensions of the function take the arrays' sizes.
    """
    from ... import error as _error  # pylint: disable=import-outside-toplevel
    from ... import nd as _nd  # pylint: disable=import-outside-toplevel

    if not isinstance(func_name, str):
        raise _error.TypeError(f"BindParams: func_name must be a str, not {func_name!r}")
    if not isinstance(params, dict):
        raise _error.TypeError(
            "BindParams: params must be a dict of parameter name (or relax.Var) -> array, not "
            f"{type(params).__name__}")
    bound = {}
    for key, value in params.items():
        if not isinstance(value, _nd.NDArray):
            value = _nd.array(value)
        bound[key] = value
    return _get_global_func("relax.transform.BindParams")(str(func_name), bound)


__all__ += ["FuseOps", "FuseTIR"]


def FuseOps(fuse_opt_level=-1):  # noqa: N802  (TVM's name)
    """Group the bindings of every dataflow block by operator pattern into new Relax functions
    marked ``"Primitive": 1`` (``fused_matmul_add_relu``), called where the groups were.

    ``call_tir`` takes its pattern from the PrimFunc's ``"op_pattern"`` attribute (see
    ``AnnotateTIROpPattern``). ``fuse_opt_level`` 0 fuses nothing; -1 uses the PassContext's
    ``opt_level``.
    """
    return _get_global_func("relax.transform.FuseOps")(int(fuse_opt_level))


def FuseTIR():  # noqa: N802  (TVM's name)
    """Turn each ``"Primitive"`` Relax function made of ``call_tir``s into one PrimFunc, and
    each call of it into one ``call_tir``; callees nothing uses any more are removed."""
    return _get_global_func("relax.transform.FuseTIR")()


# ---- LegalizeOps and the other passes of issue 13 (stage 4b) -------------------------------------
__all__ += [
    "LegalizeOps",
    "AnnotateTIROpPattern",
    "FoldConstant",
    "DeadCodeElimination",
    "CanonicalizeBindings",
    "ConvertToDataflow",
    "ToNonDataflow",
    "DecomposeOpsForInference",
    "FoldBatchnormToConv2D",
    "AttachGlobalSymbol",
]


def LegalizeOps(customize_legalize_map=None, enable_warning=False):  # noqa: N802
    """Lower every Relax operator call to ``R.call_tir`` of a PrimFunc built from TE (topi).

    ``customize_legalize_map`` maps op names (``"relax.add"``) to functions ``(bb, call) ->
    Expr`` that replace the built-in legalization. An operator with no legalization is a
    ValueError listing its name. ``enable_warning`` is accepted for TVM compatibility.
    """
    del enable_warning
    custom = None
    if customize_legalize_map:
        custom = {str(k): v for k, v in dict(customize_legalize_map).items()}
    return _get_global_func("relax.transform.LegalizeOps")(custom)


def AnnotateTIROpPattern():  # noqa: N802
    """Set the ``"op_pattern"`` attribute of every PrimFunc from the shape of its body."""
    return _get_global_func("relax.transform.AnnotateTIROpPattern")()


def FoldConstant():  # noqa: N802
    """Evaluate calls whose arguments are all constants (through the reference interpreter)."""
    return _get_global_func("relax.transform.FoldConstant")()


def DeadCodeElimination(entry_functions=None):  # noqa: N802
    """Remove unused pure bindings and the functions not reachable from the entry functions
    (those with a ``global_symbol``, plus ``entry_functions``)."""
    names = [str(n) for n in entry_functions] if entry_functions else []
    return _get_global_func("relax.transform.DeadCodeElimination")(names)


def CanonicalizeBindings():  # noqa: N802
    """Remove var-to-var bindings and trivial ``match_cast`` bindings."""
    return _get_global_func("relax.transform.CanonicalizeBindings")()


def ConvertToDataflow(min_size=2):  # noqa: N802
    """Group runs of at least ``min_size`` pure bindings into dataflow blocks."""
    return _get_global_func("relax.transform.ConvertToDataflow")(int(min_size))


def ToNonDataflow():  # noqa: N802
    """Turn every dataflow block into a plain binding block (DataflowVars become Vars)."""
    return _get_global_func("relax.transform.ToNonDataflow")()


def DecomposeOpsForInference(func_name=None):  # noqa: N802
    """Rewrite ``nn.batch_norm`` (and ``nn.dropout``) into arithmetic for inference."""
    return _get_global_func("relax.transform.DecomposeOpsForInference")(
        None if func_name is None else str(func_name)
    )


def FoldBatchnormToConv2D():  # noqa: N802  (TVM's name)
    """Fold ``batch_norm(conv2d(x, W))[0]`` with a constant kernel and constant batch-norm vectors
    into ``conv2d(x, W * s) + (beta - mean * s)``, ``s = gamma / sqrt(var + eps)`` (NCHW data,
    OIHW kernel). Run FoldConstant after it to compute the new kernel and bias; the "default"
    pipeline does both for the batch norms in inference mode."""
    return _get_global_func("relax.transform.FoldBatchnormToConv2D")()


def AttachGlobalSymbol():  # noqa: N802
    """Give every public function without one the attribute ``global_symbol = <its name>``."""
    return _get_global_func("relax.transform.AttachGlobalSymbol")()


# ---- weight packing at compile time (issue 18) ---------------------------------------------------
__all__ += ["AttachAttrLayoutFreeBuffers", "SplitLayoutRewritePreproc"]


def AttachAttrLayoutFreeBuffers():  # noqa: N802  (TVM's name)
    """List, in each PrimFunc's ``"layout_free_buffers"`` attribute, the parameters that receive
    constants or the weights of a Relax function (its parameters from ``"num_input"`` on, as in
    TVM): the CPU schedule rules may then pack them apart from the compute, once — at compile
    time for constants (FoldConstant), in ``<name>_transform_params`` for weights
    (:func:`LiftTransformParams`). A PrimFunc called with different such sets is copied per set.
    (tvm.compile's ``"default"`` build marks constants only.)"""
    return _get_global_func("relax.transform.AttachAttrLayoutFreeBuffers")(True)


def SplitLayoutRewritePreproc():  # noqa: N802  (TVM's name)
    """Move the blocks annotated ``"meta_schedule.layout_rewrite_preproc"`` into a PrimFunc
    ``<name>_weight_prepack`` called from Relax on the weight; ``<name>_prepacked`` takes the
    rewritten weight in its place. FoldConstant then folds the preprocessing of constants."""
    return _get_global_func("relax.transform.SplitLayoutRewritePreproc")()


__all__ += ["LiftTransformParams"]


def LiftTransformParams(shared_transform=False):  # noqa: N802  (TVM's name)
    """Move the work a function does on its weights alone into a function run once.

    For every Relax function with the attribute ``"num_input"`` (its parameters from that index
    on are weights), the dataflow bindings computed from weights (and constants) only move into
    ``<name>_transform_params(model_params)``: it takes the tuple of the weights and returns the
    tuple of (the weights still used as they are, in parameter order; then the lifted values, in
    binding order). The function then takes its inputs followed by those values::

        params = vm["main_transform_params"](weights)   # once
        out = vm["main"](x, *params)

    ``shared_transform=True`` (or a list of function names) names the function
    ``"transform_params"`` instead; minitvm supports that for one function only (TVM keeps the
    bindings common to several). ``num_input`` that is not an integer in 0..(number of
    parameters) is a ValueError naming the function and both values.
    """
    from ... import error as _error  # pylint: disable=import-outside-toplevel

    if isinstance(shared_transform, (list, tuple)):
        if not all(isinstance(n, str) for n in shared_transform):
            raise _error.TypeError("LiftTransformParams: shared_transform must be a bool or a "
                                   f"list of function names, not {shared_transform!r}")
        return _get_global_func("relax.transform.LiftTransformParams")(list(shared_transform))
    if not isinstance(shared_transform, bool):
        raise _error.TypeError("LiftTransformParams: shared_transform must be a bool or a list of "
                               f"function names, not {shared_transform!r}")
    return _get_global_func("relax.transform.LiftTransformParams")(shared_transform)

try:  # the lowering passes of the VM come with stage 5
    from ..vm_transform import *  # noqa: F401,F403,E402
except ImportError:  # pragma: no cover
    pass
