"""``nn.spec`` (stage 4): how the inputs of an exported ``nn.Module`` method look.

``nn.spec.Tensor((1, "n"), "float32")`` is a tensor input (a string dimension is symbolic: a
``tir.Var(name, "int64")`` shared by every input of the method that names it), ``nn.spec.Int()``
(or ``int`` / ``"int"``) an integer input, a tuple/list of specs a tuple input. A method spec is
a dict from argument name to spec; a module spec a dict from method name to method spec::

    {"forward": {"x": nn.spec.Tensor((1, 784), "float32")}}

Specs are checked against the methods here, so a wrong spec is reported with the method and
argument it concerns: an unknown method, a missing or unknown argument, a bad dtype or shape.
"""
import inspect

from .... import error as _error

__all__ = ["Int", "Tensor", "Tuple", "MethodSpec", "ModuleSpec"]

_DTYPES = {
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64",
}


class Int:  # pylint: disable=too-few-public-methods
    """An integer input (a symbolic ``int64`` passed as a shape)."""

    def __repr__(self):
        return "int"


class Tensor:  # pylint: disable=too-few-public-methods
    """A tensor input of static rank and dtype; dimensions are ints or strings (symbolic)."""

    def __init__(self, shape, dtype):
        if isinstance(shape, (int, str)):
            raise _error.TypeError(
                f"nn.spec.Tensor: shape must be a tuple or list of dimensions, not {shape!r}")
        self.shape = list(shape)
        self.dtype = str(dtype)

    def __repr__(self):
        shape = ", ".join(str(i) for i in self.shape)
        return f"Tensor([{shape}], '{self.dtype}')"


class Tuple:  # pylint: disable=too-few-public-methods
    """A tuple (or list) input of specs."""

    def __init__(self, name, elements):
        if not isinstance(elements, (tuple, list)):
            raise _error.TypeError(f"nn.spec.Tuple: elements must be a tuple or list, "
                                   f"not {type(elements).__name__}")
        self.name = name
        self.elements = elements

    def __repr__(self):
        return repr(self.elements)


def _check_tensor_spec(spec, where):
    if spec.dtype not in _DTYPES:
        raise _error.ValueError(f"{where}: unknown dtype \"{spec.dtype}\" (expected one of "
                                f"{', '.join(sorted(_DTYPES))})")
    for dim in spec.shape:
        if isinstance(dim, bool) or not isinstance(dim, (int, str)):
            try:
                import numpy as _np  # pylint: disable=import-outside-toplevel

                if isinstance(dim, _np.integer):
                    continue
            except ImportError:  # pragma: no cover
                pass
            from ....ir.expr import PrimExpr  # pylint: disable=import-outside-toplevel

            if isinstance(dim, PrimExpr):
                continue
            raise _error.TypeError(f"{where}: dimension {dim!r} of shape {spec.shape} must be "
                                   "an int or a string (a symbolic dimension)")
        if isinstance(dim, int) and dim < 0:
            raise _error.ValueError(f"{where}: dimension {dim} of shape {spec.shape} is "
                                    "negative")
        if isinstance(dim, str) and not dim.isidentifier():
            raise _error.ValueError(f"{where}: symbolic dimension \"{dim}\" must be an "
                                    "identifier")


class MethodSpec:
    """The spec of one exported method: its argument names and their specs, and how the
    parameters are passed (``param_mode`` "plain": one function parameter each; "none": not at
    all)."""

    def __init__(self, method, arg_names, arg_specs, param_mode="plain", effect_mode="none"):
        if param_mode not in ("plain", "none"):
            raise _error.ValueError(f"MethodSpec: param_mode must be \"plain\" or \"none\", "
                                    f"not {param_mode!r}")
        if effect_mode not in ("plain", "none", "packed"):
            raise _error.ValueError(f"MethodSpec: invalid effect_mode {effect_mode!r}")
        self.method = method
        self.arg_names = list(arg_names)
        self.arg_specs = list(arg_specs)
        self.param_mode = param_mode
        self.effect_mode = effect_mode

    def _repr(self, name):
        args = ", ".join(f"{n}: {s}" for n, s in zip(self.arg_names, self.arg_specs))
        return f"{name}({args})"

    def __repr__(self):
        return self._repr("MethodSpec")

    @staticmethod
    def from_raw(spec, method, method_name="<method>"):
        """A MethodSpec from a dict ``{arg_name: spec}`` for ``method``; every argument of the
        method without a default needs a spec, and every spec must name an argument."""
        if isinstance(spec, MethodSpec):
            return spec
        if not isinstance(spec, dict):
            raise _error.TypeError(f"export_tvm: the spec of method \"{method_name}\" must be a "
                                   f"dict from argument name to spec, not {type(spec).__name__}")
        spec = dict(spec)
        config = spec.pop("$", {})
        param_mode = config.get("param_mode", "plain")
        effect_mode = config.get("effect_mode", "none")
        signature = inspect.signature(method)
        params = [
            p for p in signature.parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        ]
        names = [p.name for p in params]
        unknown = [n for n in spec if n not in names]
        if unknown:
            raise _error.ValueError(
                f"export_tvm: method \"{method_name}\" has no argument \"{unknown[0]}\" (its "
                f"arguments are: {', '.join(names) if names else 'none'})")
        arg_names, arg_specs = [], []
        for p in params:
            if p.name not in spec:
                if p.default is inspect.Parameter.empty:
                    raise _error.ValueError(
                        f"export_tvm: method \"{method_name}\": argument \"{p.name}\" has no "
                        f"spec (give it one, e.g. \"{p.name}\": nn.spec.Tensor(shape, dtype))")
                continue
            arg_names.append(p.name)
            arg_specs.append(_convert(spec[p.name], p.name, method_name))
        return MethodSpec(method, arg_names, arg_specs, param_mode, effect_mode)


def _convert(arg_spec, arg_name, method_name):
    where = f"export_tvm: method \"{method_name}\", argument \"{arg_name}\""
    if arg_spec is Int or arg_spec is int or (isinstance(arg_spec, str) and arg_spec == "int"):
        return Int()
    if isinstance(arg_spec, Int):
        return arg_spec
    if isinstance(arg_spec, Tensor):
        _check_tensor_spec(arg_spec, where)
        return arg_spec
    if isinstance(arg_spec, Tuple):
        return Tuple(arg_name, type(arg_spec.elements)(
            _convert(e, f"{arg_name}_{i}", method_name) for i, e in enumerate(arg_spec.elements)))
    if isinstance(arg_spec, (tuple, list)):
        return Tuple(arg_name, type(arg_spec)(
            _convert(e, f"{arg_name}_{i}", method_name) for i, e in enumerate(arg_spec)))
    raise _error.TypeError(f"{where}: invalid spec {arg_spec!r} (expected nn.spec.Tensor, "
                           "nn.spec.Int or a tuple of specs)")


class ModuleSpec:
    """The spec of an exported module: the methods to export, in order, with their specs."""

    def __init__(self, module, method_names, method_specs):
        self.module = module
        self.method_names = list(method_names)
        self.method_specs = list(method_specs)

    @staticmethod
    def from_raw(spec, module):
        """A ModuleSpec from ``{method_name: {arg_name: spec}}``."""
        if isinstance(spec, ModuleSpec):
            return spec
        if not isinstance(spec, dict) or not spec:
            raise _error.TypeError("export_tvm: spec must be a non-empty dict from method name to "
                                   "method spec, e.g. {\"forward\": {\"x\": nn.spec.Tensor((1, "
                                   f"784), \"float32\")}}}}, not {spec!r}")
        names, specs = [], []
        for name, method_spec in spec.items():
            method = getattr(module, name, None)
            if method is None or not callable(method):
                raise _error.ValueError(f"export_tvm: {type(module).__name__} has no method "
                                        f"\"{name}\"")
            names.append(name)
            specs.append(MethodSpec.from_raw(method_spec, method, name))
        return ModuleSpec(module, names, specs)

    def __repr__(self):
        return "ModuleSpec:\n" + "\n".join(
            "  " + s._repr(n) for n, s in zip(self.method_names, self.method_specs))
