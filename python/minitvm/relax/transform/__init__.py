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
    constants: the CPU schedule rules may then pack them once, at compile time, instead of on
    every call. A PrimFunc called with different such sets is copied per set. (TVM also marks
    the parameters after a function's ``"num_input"``; without LiftTransformParams that would
    only move the packing into a kernel of its own, so minitvm does not.)"""
    return _get_global_func("relax.transform.AttachAttrLayoutFreeBuffers")()


def SplitLayoutRewritePreproc():  # noqa: N802  (TVM's name)
    """Move the blocks annotated ``"meta_schedule.layout_rewrite_preproc"`` into a PrimFunc
    ``<name>_weight_prepack`` called from Relax on the weight; ``<name>_prepacked`` takes the
    rewritten weight in its place. FoldConstant then folds the preprocessing of constants."""
    return _get_global_func("relax.transform.SplitLayoutRewritePreproc")()

try:  # the lowering passes of the VM come with stage 5
    from ..vm_transform import *  # noqa: F401,F403,E402
except ImportError:  # pragma: no cover
    pass
