"""``relax.BlockBuilder`` (stage 4): build Relax functions binding by binding, as TVM's.

Example (the course's two-layer MLP, with TOPI through ``emit_te``)::

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((1, 784), "float32"))
    w = relax.Var("w", relax.TensorStructInfo((128, 784), "float32"))
    with bb.function("main", [x, w]):
        with bb.dataflow():
            lv0 = bb.emit_te(topi.nn.dense, x, w)      # R.call_tir(cls.dense, (x, w), ...)
            gv = bb.emit_output(bb.emit_te(topi.nn.relu, lv0))
        bb.emit_func_output(gv)
    mod = bb.get()

Everything runs in C++ (``"relax.BlockBuilder*"``): normalisation (struct info inferred through
each operator's ``FInferStructInfo``; nested calls bound to fresh variables ``lv``, ``lv1``...),
the misuse checks (``emit_output`` outside a dataflow block, a DataflowVar used after its block,
an impure call inside a dataflow block, ...) and turning a TE computation into a PrimFunc. The
only Python logic is calling the TE function on placeholders, since it is Python code.
"""
from .. import error as _error
from ..ir.expr import PrimExpr
from ..runtime import Object
from .._ffi import register_object
from . import _ffi_api
from .expr import DataflowVar, Expr, ShapeExpr, Tuple, Var

__all__ = ["BlockBuilder"]


class FunctionScope:
    """``with bb.function(name, params):``: the function being built."""

    def __init__(self, bb, name, params, attrs, pure):
        self._bb = bb
        self._name = name
        self._params = params
        self._attrs = attrs
        self._pure = pure

    def __enter__(self):
        _ffi_api.BlockBuilderBeginFunction(self._bb, self._name, self._params, self._attrs,
                                           self._pure)
        self._bb._func_stack.append(self)
        self._bb._output_emitted = False
        BlockBuilder._stack.append(self._bb)
        return self

    def __exit__(self, exc_type, exc, tb):
        self._bb._func_stack.pop()
        BlockBuilder._stack.pop()
        emitted = self._bb._output_emitted
        self._bb._output_emitted = False
        if exc_type is not None:
            # Leave the builder usable: forget the half-built function.
            _ffi_api.BlockBuilderAbortFunction(self._bb)
            return False
        if not emitted:
            _ffi_api.BlockBuilderAbortFunction(self._bb)
            raise _error.ValueError(
                f"BlockBuilder: function \"{self._name}\" ended without emit_func_output; call "
                "bb.emit_func_output(output) inside the `with bb.function(...)` scope")
        return False


class DataflowScope:
    """``with bb.dataflow():``: a dataflow block (its outputs via ``emit_output``)."""

    def __init__(self, bb):
        self._bb = bb

    def __enter__(self):
        _ffi_api.BlockBuilderBeginDataflowBlock(self._bb)
        return self

    def __exit__(self, exc_type, exc, tb):
        if getattr(self._bb, "_dataflow_closed_by_output", False):  # emit_func_output inside the scope ended it
            self._bb._dataflow_closed_by_output = False
            return False
        if exc_type is None:
            _ffi_api.BlockBuilderEndBlock(self._bb)
        elif _ffi_api.BlockBuilderCurrentBlockIsDataFlow(self._bb):
            _ffi_api.BlockBuilderEndBlock(self._bb)
        return False


def _params_list(params, what):
    if params is None:
        return None
    if isinstance(params, Var):
        return [params]
    if isinstance(params, Tuple):
        params = list(params.fields)
    if not isinstance(params, (list, tuple)):
        raise _error.TypeError(f"{what}: params must be a relax.Var or a list of them, "
                               f"not {type(params).__name__}")
    for p in params:
        if not isinstance(p, Var):
            raise _error.TypeError(f"{what}: each parameter must be a relax.Var, "
                                   f"not {type(p).__name__}")
    return list(params)


def _to_expr(value):
    """Python lists and tuples of expressions become relax.Tuple (as TVM's builder does)."""
    if isinstance(value, (list, tuple)):
        return Tuple([_to_expr(v) for v in value])
    return value


@register_object("relax.BlockBuilder")
class BlockBuilder(Object):
    """Builds Relax functions into an IRModule (``mod``, or an empty one)."""

    _stack = []  # the builders whose `with bb.function(...)` scopes are open, innermost last

    @staticmethod
    def current():
        """The builder of the innermost open function scope, or None."""
        return BlockBuilder._stack[-1] if BlockBuilder._stack else None

    def __init__(self, mod=None):  # pylint: disable=super-init-not-called
        self._func_stack = []
        self._output_emitted = False
        self._dataflow_closed_by_output = False
        self.__init_handle_by_constructor__(_ffi_api.BlockBuilderCreate, mod)

    def _state(self):
        # Objects returned from C++ (not made by __init__) lack the Python-side fields.
        if "_func_stack" not in self.__dict__:
            self.__dict__["_func_stack"] = []
            self.__dict__["_output_emitted"] = False

    # ---- scopes ----
    def function(self, name, params=None, attrs=None, pure=True, private=False):
        """A function scope. ``params`` may be left out here and given to
        :meth:`emit_func_output` instead. Unless ``private``, the function gets the attribute
        ``global_symbol`` = ``name``."""
        self._state()
        params = _params_list(params, f"BlockBuilder.function(\"{name}\")")
        attrs = dict(attrs) if attrs else {}
        if not private:
            attrs["global_symbol"] = name
        return FunctionScope(self, name, params, attrs, bool(pure))

    def dataflow(self):
        """A dataflow block scope: ``emit`` binds DataflowVars, ``emit_output`` the block's
        outputs (plain Vars, visible after the block)."""
        return DataflowScope(self)

    # ---- bindings ----
    def emit(self, expr, name_hint=""):
        """Normalise ``expr`` and bind it to a fresh variable (``lv``, ``lv1``... in a dataflow
        block, ``gv``... elsewhere, or ``name_hint``)."""
        return _ffi_api.BlockBuilderEmit(self, _to_expr(expr), name_hint)

    def emit_output(self, output, name_hint=""):
        """Bind an output of the current dataflow block (a Var visible after it)."""
        return _ffi_api.BlockBuilderEmitOutput(self, _to_expr(output), name_hint)

    def emit_match_cast(self, value, struct_info, name_hint=""):
        """``var = R.match_cast(value, struct_info)``."""
        return _ffi_api.BlockBuilderEmitMatchCast(self, value, struct_info, name_hint)

    match_cast = emit_match_cast

    def emit_normalized(self, binding):
        """Emit an already normalised binding."""
        _ffi_api.BlockBuilderEmitNormalized(self, binding)

    def emit_func_output(self, output, params=None):
        """Finish the current function with ``output`` (parameters here when
        ``bb.function`` had none); returns its GlobalVar."""
        self._state()
        if not self._func_stack:
            raise _error.ValueError("BlockBuilder.emit_func_output: no function is being built; "
                                    "call it inside `with bb.function(...)`")
        if self._output_emitted:
            raise _error.ValueError("BlockBuilder.emit_func_output: called twice in one function")
        params = _params_list(params, "BlockBuilder.emit_func_output")
        output = _to_expr(output)
        if _ffi_api.BlockBuilderCurrentBlockIsDataFlow(self):
            # Called inside `with bb.dataflow()`, as TVM allows: the block ends here. A
            # DataflowVar of the block that the function returns becomes one of the block's
            # outputs (TVM would return the DataflowVar itself, which is not well formed).
            output = self._promote_dataflow_outputs(output)
            _ffi_api.BlockBuilderEndBlock(self)
            self._dataflow_closed_by_output = True
        gv = _ffi_api.BlockBuilderEmitFuncOutput(self, output, params)
        self._output_emitted = True
        return gv

    def _promote_dataflow_outputs(self, output):
        if isinstance(output, DataflowVar):
            return self.emit_output(output)
        if isinstance(output, Tuple) and any(isinstance(f, DataflowVar) for f in output.fields):
            return Tuple([self._promote_dataflow_outputs(f) for f in output.fields])
        return output

    # ---- TE ----
    def call_te(self, func, *args, **kwargs):
        """``R.call_tir`` of the PrimFunc made from the TE function ``func`` called on
        placeholders for the tensor arguments (other arguments and ``kwargs`` pass through).
        ``primfunc_name_hint`` names the PrimFunc (default: ``func.__name__``)."""
        if not callable(func):
            raise _error.TypeError(
                f"BlockBuilder.call_te: func must be a TE function (callable), not {func!r}")
        name = kwargs.pop("primfunc_name_hint", None)
        kwargs.pop("name_hint", None)
        if not name:
            name = getattr(func, "__name__", "") or "te_func"
            if not name.isidentifier():
                name = "te_func"
        relax_args = []
        extra_prims = []

        def collect(arg):
            if isinstance(arg, ShapeExpr):
                for v in arg.values:
                    collect(v)
            elif isinstance(arg, Expr):
                relax_args.append(arg)
            elif isinstance(arg, PrimExpr):
                extra_prims.append(arg)
            elif isinstance(arg, (list, tuple)):
                for a in arg:
                    collect(a)
            elif isinstance(arg, dict):
                for a in arg.values():
                    collect(a)

        collect(list(args))
        collect(dict(kwargs))
        normalized, tensors = _ffi_api.BlockBuilderTEPlaceholders(self, relax_args)
        normalized, tensors = list(normalized), list(tensors)
        it = iter(range(len(tensors)))

        def convert(arg):
            if isinstance(arg, ShapeExpr):
                return [convert(v) for v in arg.values]
            if isinstance(arg, Expr):
                return tensors[next(it)]
            if isinstance(arg, list):
                return [convert(a) for a in arg]
            if isinstance(arg, tuple):
                return tuple(convert(a) for a in arg)
            if isinstance(arg, dict):
                return {k: convert(v) for k, v in arg.items()}
            return arg

        te_args = [convert(a) for a in args]
        te_kwargs = {k: convert(v) for k, v in kwargs.items()}
        out = func(*te_args, **te_kwargs)
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        from ..te.tensor import Tensor as _TETensor  # pylint: disable=import-outside-toplevel

        for o in outs:
            if not isinstance(o, _TETensor):
                raise _error.TypeError(
                    f"BlockBuilder.emit_te: {name} must return a te.Tensor or a list of them, "
                    f"not {type(o).__name__}")
        return _ffi_api.BlockBuilderEmitTEResult(self, normalized, tensors, outs, extra_prims,
                                                 name)

    def emit_te(self, func, *args, **kwargs):
        """:meth:`call_te`, then :meth:`emit` (``name_hint`` names the bound variable)."""
        name_hint = kwargs.pop("name_hint", "")
        return self.emit(self.call_te(func, *args, **kwargs), name_hint=name_hint)

    # ---- module and queries ----
    def normalize(self, expr):
        """``expr`` with struct info filled in everywhere."""
        return _ffi_api.BlockBuilderNormalize(self, _to_expr(expr))

    def get(self):
        """The IRModule built so far."""
        return _ffi_api.BlockBuilderGetContextIRModule(self)

    finalize = get

    def add_func(self, func, func_name):
        """Add a function (Relax or PrimFunc) under a unique name; returns its GlobalVar."""
        return _ffi_api.BlockBuilderAddFunction(self, func, func_name)

    def update_func(self, gv, updated_func):
        """Replace the function of ``gv``."""
        _ffi_api.BlockBuilderUpdateFunction(self, gv, updated_func)

    def lookup_func(self, gv):
        """The function of ``gv`` in the module being built, or None."""
        return _ffi_api.BlockBuilderLookupFunction(self, gv)

    def current_block_is_dataflow(self):
        """Whether the innermost open block is a dataflow block."""
        return bool(_ffi_api.BlockBuilderCurrentBlockIsDataFlow(self))

    def get_unique_name(self, name_prefix):
        """A fresh name from the builder's name supply."""
        return _ffi_api.BlockBuilderGetUniqueName(self, name_prefix)
