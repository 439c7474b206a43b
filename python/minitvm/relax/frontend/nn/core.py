"""The core of ``relax.frontend.nn`` (stage 4): :class:`Tensor`, :class:`Parameter`,
:class:`Module` and the module containers, as TVM's ``tvm.relax.frontend.nn.core``.

A :class:`Tensor` wraps a Relax expression whose struct info is a tensor of known shape;
operators on it (``nn.op.*``, ``a + b``) emit Relax calls through the *current* BlockBuilder
(the one of the method being exported), so shapes and dtypes are inferred as the model is
traced. A :class:`Parameter` is a tensor that becomes a parameter of every exported function;
it may also hold concrete data (``param.data = array``). A :class:`Module` holds parameters and
sub-modules as plain attributes; :meth:`Module.export_tvm` turns it into an IRModule.
Parameter names are the attribute paths (``fc1.weight``, ``layers.0.bias``), in the order the
attributes were assigned, as in TVM (and PyTorch).
"""
from collections import OrderedDict

import numpy as _np

from .... import error as _error
from .... import tir as _tir
from ... import expr as _rx
from ...block_builder import BlockBuilder
from ...struct_info import TensorStructInfo

__all__ = [
    "Tensor", "Parameter", "Module", "ModuleList", "ModuleDict", "ParameterList",
    "ParameterDict", "Sequential", "Effect", "wrap_nested", "get_default_dtype",
    "set_default_dtype",
]

_DEFAULT_DTYPE = "float32"


def get_default_dtype():
    """The dtype of parameters created without one (``"float32"`` unless changed)."""
    return _DEFAULT_DTYPE


def set_default_dtype(dtype):
    """Change the dtype of parameters created without one."""
    global _DEFAULT_DTYPE  # pylint: disable=global-statement
    _DEFAULT_DTYPE = str(dtype)


def _current_builder(what):
    bb = BlockBuilder.current()
    if bb is None:
        raise _error.ValueError(
            f"nn.{what}: no BlockBuilder is active; nn operators only run while a module is "
            "exported (model.export_tvm(spec=...)) or inside `with bb.function(...)`")
    return bb


def _dim_value(d):
    if isinstance(d, _tir.IntImm):
        return int(d.value)
    return d


def _make_shape(shape, what, symbols=None):
    """Dimensions as the struct info takes them: ints, tir.Vars for strings (shared through
    ``symbols`` when given), PrimExprs as they are."""
    out = []
    for d in shape:
        if isinstance(d, bool):
            raise _error.TypeError(f"{what}: dimension {d!r} is a bool")
        if isinstance(d, (int, _np.integer)):
            if int(d) < 0:
                raise _error.ValueError(f"{what}: negative dimension {int(d)} in shape "
                                        f"{list(shape)}")
            out.append(int(d))
        elif isinstance(d, str):
            if symbols is None:
                out.append(_tir.Var(d, "int64"))
            else:
                if d not in symbols:
                    symbols[d] = _tir.Var(d, "int64")
                out.append(symbols[d])
        elif isinstance(d, _tir.IntImm):
            out.append(int(d.value))
        else:
            out.append(d)
    return out


class Tensor:
    """A symbolic tensor: a Relax expression of tensor struct info with a known shape.

    Never constructed directly by users: the exporter makes the inputs, ``nn.op.*`` the rest.
    ``shape`` (ints and symbolic PrimExprs), ``ndim`` and ``dtype`` come from the struct info.
    """

    def __init__(self, *, _expr):
        info = _expr.struct_info
        if info is None or info.type_key != "relax.TensorStructInfo":
            raise _error.TypeError(f"nn.Tensor: expected an expression of tensor struct info, "
                                   f"got {info!r}")
        if int(info.ndim) == -1 or info.shape is None:
            raise _error.ValueError(f"nn.Tensor: the tensor's shape must be known, got {info!r}")
        self._expr = _expr

    @staticmethod
    def placeholder(shape, dtype, name="tensor"):
        """A tensor variable ``name`` of ``shape`` (strings: symbolic dims) and ``dtype``."""
        shape = _make_shape(shape, f"nn.Tensor.placeholder(\"{name}\")")
        return Tensor(_expr=_rx.Var(name, TensorStructInfo(shape, str(dtype))))

    @staticmethod
    def from_const(data):
        """A constant tensor from a numpy array (or anything ``relax.const`` takes)."""
        return Tensor(_expr=_rx.const(data))

    @staticmethod
    def from_scalar(data, dtype):
        """A 0-d constant tensor of ``dtype``."""
        return Tensor(_expr=_rx.const(data, dtype))

    @staticmethod
    def from_struct_info(struct_info, name="tensor"):
        """A tensor variable of the given TensorStructInfo."""
        return Tensor(_expr=_rx.Var(name, struct_info))

    @property
    def shape(self):
        """The shape: ints for static dimensions, PrimExprs for symbolic ones."""
        info = self._expr.struct_info
        return [_dim_value(d) for d in info.shape.values]

    @property
    def ndim(self):
        """The rank."""
        return int(self._expr.struct_info.ndim)

    @property
    def dtype(self):
        """The dtype, as a string."""
        return str(self._expr.struct_info.dtype)

    def __repr__(self):
        return f'Tensor({self.shape}, "{self.dtype}")'

    # ---- Python operators (TVM's _TensorOp) ----
    def _scalar(self, other):
        if isinstance(other, Tensor):
            return other
        if isinstance(other, (int, float, _np.number)) and not isinstance(other, bool):
            return Tensor.from_scalar(other, self.dtype)
        raise _error.TypeError(f"nn.Tensor: cannot combine a tensor with {type(other).__name__}")

    def __add__(self, other):
        from . import op  # pylint: disable=import-outside-toplevel

        return op.add(self, self._scalar(other))

    def __radd__(self, other):
        from . import op  # pylint: disable=import-outside-toplevel

        return op.add(self._scalar(other), self)

    def __sub__(self, other):
        from . import op  # pylint: disable=import-outside-toplevel

        return op.subtract(self, self._scalar(other))

    def __rsub__(self, other):
        from . import op  # pylint: disable=import-outside-toplevel

        return op.subtract(self._scalar(other), self)

    def __mul__(self, other):
        from . import op  # pylint: disable=import-outside-toplevel

        return op.multiply(self, self._scalar(other))

    def __rmul__(self, other):
        from . import op  # pylint: disable=import-outside-toplevel

        return op.multiply(self._scalar(other), self)

    def __truediv__(self, other):
        from . import op  # pylint: disable=import-outside-toplevel

        return op.divide(self, self._scalar(other))

    def __neg__(self):
        from . import op  # pylint: disable=import-outside-toplevel

        return op.negative(self)

    def __matmul__(self, other):
        from . import op  # pylint: disable=import-outside-toplevel

        return op.matmul(self, other)

    def astype(self, dtype):
        """``nn.op.astype(self, dtype)``."""
        from . import op  # pylint: disable=import-outside-toplevel

        return op.astype(self, dtype)

    def reshape(self, *shape):
        """``nn.op.reshape(self, shape)``."""
        from . import op  # pylint: disable=import-outside-toplevel

        if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
            shape = shape[0]
        return op.reshape(self, list(shape))

    def permute_dims(self, *axes):
        """``nn.op.permute_dims(self, axes)``."""
        from . import op  # pylint: disable=import-outside-toplevel

        if len(axes) == 1 and isinstance(axes[0], (list, tuple)):
            axes = axes[0]
        return op.permute_dims(self, list(axes) if axes else None)


class Parameter(Tensor):
    """A weight: a tensor that every exported function takes as a parameter (named by its
    attribute path). ``data`` optionally holds its value (an NDArray)."""

    def __init__(self, shape, dtype=None):  # pylint: disable=super-init-not-called
        if dtype is None:
            dtype = get_default_dtype()
        if isinstance(shape, (int, str)):
            shape = (shape,)
        self._expr = Tensor.placeholder(shape, dtype, "param")._expr
        self._data = None
        self.attrs = OrderedDict()

    @property
    def data(self):
        """The value bound to the parameter (an NDArray), or None."""
        return self._data

    @data.setter
    def data(self, data):
        from .... import nd  # pylint: disable=import-outside-toplevel
        from ....runtime.ndarray import NDArray  # pylint: disable=import-outside-toplevel

        if data is None:
            self._data = None
            return
        if isinstance(data, NDArray):
            pass
        elif isinstance(data, _np.ndarray):
            data = nd.array(_np.ascontiguousarray(data))
        elif hasattr(data, "detach") and hasattr(data, "numpy"):  # a torch tensor
            data = nd.array(_np.ascontiguousarray(data.detach().cpu().numpy()))
        else:
            raise _error.TypeError(f"nn.Parameter.data: unsupported value of type "
                                   f"{type(data).__name__}")
        if tuple(data.shape) != tuple(self.shape):
            raise _error.ValueError(f"nn.Parameter.data: shape mismatch: expected "
                                    f"{tuple(self.shape)}, got {tuple(data.shape)}")
        if str(data.dtype) != self.dtype:
            raise _error.ValueError(f"nn.Parameter.data: dtype mismatch: expected {self.dtype}, "
                                    f"got {data.dtype}")
        self._data = data

    def to(self, dtype=None):  # pylint: disable=invalid-name
        """Change the dtype of an unbound parameter."""
        if dtype is None:
            return
        if self._data is not None:
            raise _error.ValueError("nn.Parameter.to: cannot change the dtype of a parameter "
                                    "bound to data")
        self._expr = Tensor.placeholder(self.shape, dtype, "param")._expr


class Effect:
    """A side effect carried through exported functions (TVM's base class; minitvm exports
    none: ``effect_mode`` is always "none")."""


class Module:
    """Base class of models: parameters and sub-modules are plain attributes; ``forward`` (or
    any method named in the export spec) builds the computation with ``nn.op``."""

    def named_parameters(self, prefix=""):
        """``(name, Parameter)`` pairs, names being attribute paths (``fc1.weight``)."""
        yield from _attribute_finder(self, prefix, lambda x: isinstance(x, Parameter))

    def parameters(self):
        """The parameters, in :meth:`named_parameters` order."""
        for _, p in self.named_parameters():
            yield p

    def state_dict(self, *, prefix="", destination=None):
        """An ordered dict name → Parameter."""
        if destination is None:
            destination = OrderedDict()
        for name, p in self.named_parameters(prefix):
            destination[name] = p
        return destination

    def load_state_dict(self, state_dict, strict=True):
        """Bind parameter values from ``state_dict`` (name → array/NDArray/torch tensor or a
        bound Parameter); returns ``(missing_keys, unexpected_keys)``; with ``strict`` a
        KeyError lists them."""
        own = self.state_dict()
        unexpected = []
        for key, value in state_dict.items():
            if key not in own:
                unexpected.append(key)
                continue
            if isinstance(value, Parameter):
                if value.data is None:
                    raise _error.ValueError(f"load_state_dict: parameter {key} is not bound to "
                                            "any data")
                value = value.data
            own.pop(key).data = value
        missing = list(own.keys())
        if strict and (missing or unexpected):
            raise _error.KeyError(f"load_state_dict: missing keys: {missing}, unexpected keys: "
                                  f"{unexpected}")
        return missing, unexpected

    def __call__(self, *args, **kwargs):
        forward = getattr(self, "forward", None)
        if forward is None:
            raise _error.TypeError(f"{type(self).__name__} has no `forward` method")
        return forward(*args, **kwargs)

    def to(self, dtype=None):  # pylint: disable=invalid-name
        """Change the dtype of every (unbound) parameter, recursively."""
        for item in list(self.__dict__.values()):
            if isinstance(item, (Module, Parameter)):
                item.to(dtype=dtype)

    def export_tvm(self, spec, debug=False, allow_extern=False):
        """Export the methods named in ``spec`` as Relax functions of an IRModule.

        Parameters
        ----------
        spec : dict
            ``{method_name: {arg_name: nn.spec.Tensor(shape, dtype) | nn.spec.Int(), ...}}``.
        debug, allow_extern : bool
            TVM's flags; minitvm supports neither effects nor extern modules (``debug`` must be
            False; ``allow_extern`` adds an empty list to the result).

        Returns
        -------
        mod : IRModule
            One Relax function per method, taking the method's inputs followed by every
            parameter (attribute ``num_input`` = the number of inputs); the body is one
            dataflow block whose output is ``gv``.
        params : list of (str, Parameter)
            The parameters, in the order the functions take them.
        """
        from . import exporter  # pylint: disable=import-outside-toplevel
        from . import spec as _spec  # pylint: disable=import-outside-toplevel

        if debug:
            raise _error.ValueError("export_tvm: debug=True (IO effects) is not supported by "
                                    "minitvm")
        module_spec = _spec.ModuleSpec.from_raw(spec, self)
        mod, params = exporter.Exporter().build(module_spec)
        if allow_extern:
            return mod, params, []
        return mod, params


class ModuleList(Module):
    """Sub-modules in a list; parameter names use the index (``layers.0.weight``)."""

    def __init__(self, modules=None):
        self.modules = list(modules) if modules is not None else []

    def __iter__(self):
        return iter(self.modules)

    def __getitem__(self, idx):
        return self.modules[idx]

    def __setitem__(self, idx, module):
        self.modules[idx] = module

    def __len__(self):
        return len(self.modules)

    def append(self, module):
        """Add ``module`` at the end."""
        self.modules.append(module)

    def to(self, dtype=None):  # pylint: disable=invalid-name
        for m in self.modules:
            m.to(dtype=dtype)

    def forward(self, x):
        """Apply the modules in turn."""
        for m in self.modules:
            x = m(x)
        return x


class Sequential(ModuleList):
    """``Sequential(m0, m1, ...)``: the modules applied in turn; parameter names use the
    position (``0.weight``), as PyTorch's ``nn.Sequential``."""

    def __init__(self, *modules):  # pylint: disable=super-init-not-called
        if len(modules) == 1 and isinstance(modules[0], (list, tuple)):
            modules = modules[0]
        self.modules = list(modules)


class ModuleDict(Module):
    """Sub-modules by name (``blocks.name.weight``)."""

    def __init__(self, modules=None):
        self.modules = OrderedDict(modules or {})

    def __iter__(self):
        return iter(self.modules.values())

    def __getitem__(self, key):
        return self.modules[key]

    def __setitem__(self, key, module):
        self.modules[key] = module

    def __len__(self):
        return len(self.modules)

    def __contains__(self, key):
        return key in self.modules

    def keys(self):
        """The names."""
        return self.modules.keys()

    def values(self):
        """The modules."""
        return self.modules.values()

    def items(self):
        """``(name, module)`` pairs."""
        return self.modules.items()

    def to(self, dtype=None):  # pylint: disable=invalid-name
        for m in self.modules.values():
            m.to(dtype=dtype)


class ParameterList(Module):
    """Parameters in a list (``name.0``, ``name.1``...)."""

    def __init__(self, params=None):
        self.params = []
        for p in params or []:
            self.append(p)

    def __iter__(self):
        return iter(self.params)

    def __getitem__(self, idx):
        return self.params[idx]

    def __len__(self):
        return len(self.params)

    def append(self, param):
        """Add a parameter at the end."""
        if not isinstance(param, Parameter):
            raise _error.TypeError(f"ParameterList elements must be nn.Parameter, not "
                                   f"{type(param).__name__}")
        self.params.append(param)

    def to(self, dtype=None):  # pylint: disable=invalid-name
        for p in self.params:
            p.to(dtype=dtype)


class ParameterDict(Module):
    """Parameters by name (``name.key``)."""

    def __init__(self, params=None):
        self.params = OrderedDict()
        for k, v in (params or {}).items():
            self[k] = v

    def __getitem__(self, key):
        return self.params[key]

    def __setitem__(self, key, param):
        if not isinstance(param, Parameter):
            raise _error.TypeError(f"ParameterDict values must be nn.Parameter, not "
                                   f"{type(param).__name__}")
        self.params[str(key)] = param

    def __len__(self):
        return len(self.params)

    def items(self):
        """``(name, Parameter)`` pairs."""
        return self.params.items()

    def to(self, dtype=None):  # pylint: disable=invalid-name
        for p in self.params.values():
            p.to(dtype=dtype)


def _attribute_finder(root, prefix, condition_yield):
    """Yield ``(path, item)`` for the items below ``root`` satisfying ``condition_yield``, in
    attribute assignment order (containers contribute their index or key)."""
    if isinstance(root, ParameterList):
        for i, p in enumerate(root):
            if condition_yield(p):
                yield prefix + str(i), p
        return
    if isinstance(root, ParameterDict):
        for name, p in root.items():
            if condition_yield(p):
                yield prefix + name, p
        return
    if isinstance(root, ModuleList):
        for i, sub in enumerate(root):
            yield from _attribute_finder(sub, f"{prefix}{i}.", condition_yield)
        return
    if isinstance(root, ModuleDict):
        for name, sub in root.items():
            yield from _attribute_finder(sub, f"{prefix}{name}.", condition_yield)
        return
    for name, item in root.__dict__.items():
        if condition_yield(item):
            yield prefix + name, item
        elif isinstance(item, Module):
            yield from _attribute_finder(item, prefix + name + ".", condition_yield)


def wrap_nested(expr, name):
    """Emit ``expr`` (bound to a variable named ``name``) through the current BlockBuilder and
    wrap the result: a :class:`Tensor`, or a tuple of them for a tuple result (fields bound as
    ``name.0``, ``name.1``...)."""
    if not isinstance(expr, _rx.DataflowVar):
        expr = _current_builder(name).emit(expr, name)
    info = expr.struct_info
    if info.type_key == "relax.TensorStructInfo":
        return Tensor(_expr=expr)
    if info.type_key == "relax.TupleStructInfo":
        return tuple(
            wrap_nested(_rx.TupleGetItem(expr, i), f"{name}.{i}")
            for i in range(len(info.fields)))
    raise _error.TypeError(f"nn: unsupported result {info!r} of \"{name}\"")
