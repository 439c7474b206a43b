"""Export an ``nn.Module`` to an IRModule (stage 4): ``Module.export_tvm`` calls
:meth:`Exporter.build`.

For each method of the spec, in order: a Relax function of that name whose parameters are the
method's inputs (one ``relax.Var`` per spec, named as the argument; ``nn.spec.Int`` inputs are
``R.Shape([name])`` variables) followed by one variable per module parameter (named by its
path, ``fc1.weight``, which prints as ``fc1_weight``); attribute ``num_input`` = the number of
inputs. The method runs once on :class:`~.core.Tensor` wrappers of those variables inside one
dataflow block, and its result is bound to the block's output ``gv``. Symbolic dimensions
(strings in the spec) are one ``tir.Var`` per name and method, shared by inputs and parameters.
"""
from .... import error as _error
from .... import tir as _tir
from ... import expr as _rx
from ...block_builder import BlockBuilder
from ...struct_info import ShapeStructInfo, TensorStructInfo, TupleStructInfo
from . import core
from . import spec as _spec


class Exporter:
    """Builds the IRModule of a :class:`~.spec.ModuleSpec`."""

    def __init__(self):
        self.builder = BlockBuilder()

    def build(self, spec):
        """``(IRModule, [(name, Parameter), ...])`` for ``spec``."""
        params = list(core._attribute_finder(  # pylint: disable=protected-access
            spec.module, "", lambda x: isinstance(x, core.Parameter)))
        saved = [(p, p._expr) for _, p in params]  # pylint: disable=protected-access
        try:
            for method_name, method_spec in zip(spec.method_names, spec.method_specs):
                self._emit_method(method_name, method_spec, params)
        finally:
            # the parameters get back their free-standing variables once the export is over
            for p, e in saved:
                p._expr = e  # pylint: disable=protected-access
        mod = self.builder.get()
        from ... import analysis  # pylint: disable=import-outside-toplevel

        if not analysis.well_formed(mod):
            raise _error.InternalError("export_tvm: the exported module is not well formed")
        return mod, params

    def _emit_method(self, name, method_spec, params):
        bb = self.builder
        symbols = {}
        inputs, args = [], []
        for arg_name, arg_spec in zip(method_spec.arg_names, method_spec.arg_specs):
            var, arg = _make_input(arg_name, arg_spec, symbols, name)
            inputs.append(var)
            args.append(arg)
        param_vars = []
        if method_spec.param_mode == "plain":
            for pname, p in params:
                shape = _shape_with_symbols(p.shape, symbols)
                var = _rx.Var(pname, TensorStructInfo(shape, p.dtype))
                p._expr = var  # pylint: disable=protected-access
                param_vars.append(var)
        with bb.function(name, attrs={"num_input": len(inputs)}):
            with bb.dataflow():
                args = [_detuple(a, bb) for a in args]
                try:
                    outputs = method_spec.method(*args)
                except TypeError as err:
                    raise _error.TypeError(f"export_tvm: method \"{name}\" failed: {err}") from err
                gv = bb.emit_output(_unwrap(outputs, name))
            bb.emit_func_output(gv, inputs + param_vars)


def _shape_with_symbols(shape, symbols):
    out = []
    for d in shape:
        if isinstance(d, _tir.Var):
            out.append(symbols.setdefault(d.name_hint, d))
        else:
            out.append(d)
    return out


def _make_input(arg_name, arg_spec, symbols, method_name):
    """The function parameter of one spec, and what the method receives for it."""
    if isinstance(arg_spec, _spec.Int):
        var = symbols.setdefault(arg_name, _tir.Var(arg_name, "int64"))
        return _rx.Var(arg_name, ShapeStructInfo([var])), var
    if isinstance(arg_spec, _spec.Tensor):
        shape = core._make_shape(  # pylint: disable=protected-access
            arg_spec.shape, f"export_tvm: method \"{method_name}\", argument \"{arg_name}\"",
            symbols)
        var = _rx.Var(arg_name, TensorStructInfo(shape, arg_spec.dtype))
        return var, core.Tensor(_expr=var)
    if isinstance(arg_spec, _spec.Tuple):
        fields = [_make_input(f"{arg_name}_{i}", e, symbols, method_name)
                  for i, e in enumerate(arg_spec.elements)]
        var = _rx.Var(arg_name, TupleStructInfo([f[0].struct_info for f in fields]))
        return var, ("tuple", var, arg_spec, [f[1] for f in fields])
    raise _error.TypeError(f"export_tvm: method \"{method_name}\": invalid spec for argument "
                           f"\"{arg_name}\": {arg_spec!r}")


def _detuple(arg, bb):
    """Tuple inputs reach the method as tuples of Tensors (fields bound inside the block)."""
    if isinstance(arg, tuple) and len(arg) == 4 and arg[0] == "tuple":
        _, var, arg_spec, elems = arg
        out = []
        for i, e in enumerate(elems):
            field = bb.emit(_rx.TupleGetItem(var, i), f"{arg_spec.name}_{i}")
            if isinstance(e, core.Tensor):
                out.append(core.Tensor(_expr=field))
            else:
                out.append(_detuple(e, bb))
        return type(arg_spec.elements)(out)
    return arg


def _unwrap(value, method_name):
    if isinstance(value, core.Tensor):
        return value._expr  # pylint: disable=protected-access
    if isinstance(value, (tuple, list)):
        return _rx.Tuple([_unwrap(v, method_name) for v in value])
    if isinstance(value, _rx.Expr):
        return value
    raise _error.TypeError(f"export_tvm: method \"{method_name}\" returned "
                           f"{type(value).__name__}; it must return nn.Tensor or a tuple of them")
