"""Import a ``torch.fx`` graph into Relax (stage 4): :func:`from_fx`, as TVM's
``tvm.relax.frontend.torch.from_fx``.

The importer walks the FX graph node by node inside one dataflow block of a function
``main(inp_0, inp_1, ...)`` and emits one Relax binding per tensor operation (``lv``,
``lv1``...); the graph's output is bound to ``gv``. Module parameters and buffers become
``relax.Constant``\\ s (TVM's default ``keep_params_as_input=False``), or, with
``keep_params_as_input=True``, function parameters after the inputs, named by their
``named_parameters`` path, sorted by name as TVM does (attribute ``num_input``; the values are
in the function attribute ``params``, which ``relax.frontend.detach_params`` takes off).
Shapes are static (ints in ``input_info``; a string dimension is a symbolic ``tir.Var``), so
``x.size(0)``, ``x.shape`` and arithmetic on them are folded to Python ints while importing.
Batch norm imports in inference form.

Any operator without a converter is reported before anything is emitted: a ValueError
listing the FX targets (``call_function`` targets by name, ``call_method`` by method name,
``call_module`` by module class).
"""
import operator

import numpy as _np

from .... import error as _error
from .... import tir as _tir
from ... import expr as _rx
from ... import op as _op
from ...block_builder import BlockBuilder
from ...struct_info import TensorStructInfo

__all__ = ["from_fx", "TorchFXImporter"]


def _dtype_str(dtype):
    s = str(dtype)
    if s.startswith("torch."):
        s = s[len("torch."):]
    aliases = {"float": "float32", "double": "float64", "half": "float16", "int": "int32",
               "long": "int64", "bool": "bool"}
    return aliases.get(s, s)


def _pair(v):
    return list(v) if isinstance(v, (list, tuple)) else [v, v]


class TorchFXImporter:
    """Converts a ``torch.fx.GraphModule`` to an IRModule (see :func:`from_fx`)."""

    def __init__(self):
        import torch  # pylint: disable=import-outside-toplevel

        self.torch = torch
        self.env = {}
        self.params = {}
        self.bb = None
        self.named_modules = {}
        self.convert_map = self._create_convert_map()

    # ---- helpers -----------------------------------------------------------------------------
    def emit(self, expr):
        """Bind ``expr`` (a fresh ``lv`` variable)."""
        return self.bb.emit(expr)

    def _const(self, tensor):
        arr = tensor.detach().cpu().numpy()
        return _rx.const(_np.ascontiguousarray(arr), _dtype_str(tensor.dtype))

    def _param(self, tensor):
        """A parameter or buffer: its Var (keep_params_as_input) or a Constant."""
        if tensor in self.params:
            return self.params[tensor]
        return self._const(tensor)

    def _value(self, arg):
        """The Relax value (or Python value) of an FX argument."""
        from torch import fx  # pylint: disable=import-outside-toplevel

        return fx.node.map_aggregate(arg, lambda a: self.env[a] if isinstance(a, fx.Node) else a)

    def _args(self, node):
        return self._value(node.args)

    def _kw(self, node, index, name, default):
        if len(node.args) > index:
            return self._value(node.args[index])
        return self._value(node.kwargs.get(name, default))

    @staticmethod
    def _shape(x):
        info = x.struct_info
        return [int(d.value) if isinstance(d, _tir.IntImm) else d for d in info.shape.values]

    @staticmethod
    def _dtype(x):
        return str(x.struct_info.dtype)

    def _as_tensor(self, v, like):
        """A Python number next to a tensor becomes a constant of the tensor's dtype."""
        if isinstance(v, _rx.Expr):
            return v
        if isinstance(v, (int, float, bool)):
            return _rx.const(v, self._dtype(like))
        if isinstance(v, self.torch.Tensor):
            return self._const(v)
        raise _error.TypeError(f"from_fx: unsupported operand {v!r}")

    # ---- converters --------------------------------------------------------------------------
    def _binary(self, relax_op, py_op):
        def convert(node):
            a, b = self._args(node)[:2]
            if not isinstance(a, _rx.Expr) and not isinstance(b, _rx.Expr):
                return py_op(a, b)  # arithmetic on sizes
            ref = a if isinstance(a, _rx.Expr) else b
            return self.emit(relax_op(self._as_tensor(a, ref), self._as_tensor(b, ref)))

        return convert

    def _unary(self, relax_op):
        def convert(node):
            return self.emit(relax_op(self._args(node)[0]))

        return convert

    def _relu6(self, x):
        return _op.minimum(_op.nn.relu(x), _rx.const(6.0, self._dtype(x)))

    def _linear_expr(self, x, weight, bias):
        y = _op.matmul(x, self.emit(_op.permute_dims(weight)))
        if bias is not None:
            y = _op.add(self.emit(y), bias)
        return self.emit(y)

    def _linear_module(self, node):
        m = self.named_modules[node.target]
        x = self._args(node)[0]
        bias = None if m.bias is None else self._param(m.bias)
        return self._linear_expr(x, self._param(m.weight), bias)

    def _linear(self, node):
        x, weight = self._args(node)[:2]
        bias = self._kw(node, 2, "bias", None)
        return self._linear_expr(x, weight, bias)

    def _conv2d_expr(self, x, weight, bias, stride, padding, dilation, groups):
        if isinstance(padding, str):
            raise _error.ValueError(f"from_fx: conv2d padding=\"{padding}\" is not supported")
        conv = self.emit(_op.nn.conv2d(x, weight, strides=_pair(stride), padding=_pair(padding),
                                       dilation=_pair(dilation), groups=int(groups)))
        if bias is None:
            return conv
        b = self.emit(_op.reshape(bias, [1, -1, 1, 1]))
        return self.emit(_op.add(conv, b))

    def _conv2d_module(self, node):
        m = self.named_modules[node.target]
        if m.padding_mode != "zeros":
            raise _error.ValueError(f"from_fx: Conv2d padding_mode=\"{m.padding_mode}\" is not "
                                    "supported")
        bias = None if m.bias is None else self._param(m.bias)
        return self._conv2d_expr(self._args(node)[0], self._param(m.weight), bias, m.stride,
                                 m.padding, m.dilation, m.groups)

    def _conv2d(self, node):
        x, weight = self._args(node)[:2]
        return self._conv2d_expr(x, weight, self._kw(node, 2, "bias", None),
                                 self._kw(node, 3, "stride", 1), self._kw(node, 4, "padding", 0),
                                 self._kw(node, 5, "dilation", 1), self._kw(node, 6, "groups", 1))

    def _batch_norm_2d_module(self, node):
        m = self.named_modules[node.target]
        x = self._args(node)[0]
        if m.running_mean is None:
            raise _error.ValueError(f"from_fx: BatchNorm2d \"{node.target}\" has no running "
                                    "statistics (track_running_stats=False)")
        c = m.num_features
        dtype = self._dtype(x)
        gamma = self._param(m.weight) if m.affine else _rx.const(_np.ones(c), dtype)
        beta = self._param(m.bias) if m.affine else _rx.const(_np.zeros(c), dtype)
        bn = self.emit(_op.nn.batch_norm(x, gamma, beta, self._param(m.running_mean),
                                         self._param(m.running_var), axis=1, epsilon=m.eps,
                                         momentum=0.1 if m.momentum is None else m.momentum,
                                         training=False))
        return self.emit(_rx.TupleGetItem(bn, 0))

    def _layer_norm_module(self, node):
        m = self.named_modules[node.target]
        x = self._args(node)[0]
        shape = list(m.normalized_shape)
        dtype = self._dtype(x)
        gamma = self._param(m.weight) if m.weight is not None else _rx.const(_np.ones(shape),
                                                                             dtype)
        beta = self._param(m.bias) if m.bias is not None else _rx.const(_np.zeros(shape), dtype)
        axes = list(range(-len(shape), 0))
        return self.emit(_op.nn.layer_norm(x, gamma, beta, axes, epsilon=m.eps))

    def _embedding_module(self, node):
        m = self.named_modules[node.target]
        x = self._args(node)[0]
        w = self._param(m.weight)
        shape = self._shape(x)
        if len(shape) == 1:
            return self.emit(_op.take(w, x, axis=0))
        flat = self.emit(_op.reshape(x, [-1]))
        taken = self.emit(_op.take(w, flat, axis=0))
        return self.emit(_op.reshape(taken, shape + [self._shape(w)[1]]))

    def _pool_expr(self, relax_op, x, kernel, stride, padding, dilation, ceil_mode,
                   count_include_pad=None):
        stride = kernel if stride is None or stride == [] else stride
        kwargs = dict(pool_size=_pair(kernel), strides=_pair(stride), padding=_pair(padding),
                      ceil_mode=bool(ceil_mode))
        if dilation is not None:
            kwargs["dilation"] = _pair(dilation)
        if count_include_pad is not None:
            kwargs["count_include_pad"] = bool(count_include_pad)
        return self.emit(relax_op(x, **kwargs))

    def _max_pool2d_module(self, node):
        m = self.named_modules[node.target]
        return self._pool_expr(_op.nn.max_pool2d, self._args(node)[0], m.kernel_size, m.stride,
                               m.padding, m.dilation, m.ceil_mode)

    def _max_pool2d(self, node):
        x = self._args(node)[0]
        return self._pool_expr(_op.nn.max_pool2d, x, self._kw(node, 1, "kernel_size", None),
                               self._kw(node, 2, "stride", None), self._kw(node, 3, "padding", 0),
                               self._kw(node, 4, "dilation", 1),
                               self._kw(node, 5, "ceil_mode", False))

    def _avg_pool2d_module(self, node):
        m = self.named_modules[node.target]
        if m.divisor_override is not None:
            raise _error.ValueError("from_fx: AvgPool2d divisor_override is not supported")
        return self._pool_expr(_op.nn.avg_pool2d, self._args(node)[0], m.kernel_size, m.stride,
                               m.padding, None, m.ceil_mode, m.count_include_pad)

    def _avg_pool2d(self, node):
        x = self._args(node)[0]
        return self._pool_expr(_op.nn.avg_pool2d, x, self._kw(node, 1, "kernel_size", None),
                               self._kw(node, 2, "stride", None), self._kw(node, 3, "padding", 0),
                               None, self._kw(node, 4, "ceil_mode", False),
                               self._kw(node, 5, "count_include_pad", True))

    def _adaptive_avg_pool2d_module(self, node):
        m = self.named_modules[node.target]
        return self.emit(_op.nn.adaptive_avg_pool2d(self._args(node)[0], _pair(m.output_size)))

    def _adaptive_avg_pool2d(self, node):
        x = self._args(node)[0]
        return self.emit(_op.nn.adaptive_avg_pool2d(x, _pair(self._kw(node, 1, "output_size",
                                                                      None))))

    def _flatten_expr(self, x, start_dim, end_dim):
        shape = self._shape(x)
        nd = len(shape)
        s = start_dim + nd if start_dim < 0 else start_dim
        e = end_dim + nd if end_dim < 0 else end_dim
        merged = 1
        for d in shape[s:e + 1]:
            merged = merged * d
        return self.emit(_op.reshape(x, shape[:s] + [merged] + shape[e + 1:]))

    def _flatten_module(self, node):
        m = self.named_modules[node.target]
        return self._flatten_expr(self._args(node)[0], m.start_dim, m.end_dim)

    def _flatten(self, node):
        x = self._args(node)[0]
        return self._flatten_expr(x, self._kw(node, 1, "start_dim", 0),
                                  self._kw(node, 2, "end_dim", -1))

    def _reshape(self, node):
        args = self._args(node)
        x = args[0]
        shape = args[1] if len(args) == 2 and isinstance(args[1], (list, tuple)) else args[1:]
        if not shape and "shape" in node.kwargs:
            shape = self._value(node.kwargs["shape"])
        return self.emit(_op.reshape(x, [int(d) if isinstance(d, int) else d for d in shape]))

    def _permute(self, node):
        args = self._args(node)
        x = args[0]
        dims = args[1] if len(args) == 2 and isinstance(args[1], (list, tuple)) else args[1:]
        if not dims:
            dims = self._value(node.kwargs.get("dims", []))
        return self.emit(_op.permute_dims(x, list(dims)))

    def _transpose(self, node):
        args = self._args(node)
        x, d0, d1 = args[0], args[1], args[2]
        nd = len(self._shape(x))
        axes = list(range(nd))
        axes[d0], axes[d1] = axes[d1], axes[d0]
        return self.emit(_op.permute_dims(x, axes))

    def _t(self, node):
        x = self._args(node)[0]
        return self.emit(_op.permute_dims(x))

    def _size(self, node):
        args = self._args(node)
        shape = self._shape(args[0])
        dim = args[1] if len(args) > 1 else node.kwargs.get("dim")
        return tuple(shape) if dim is None else shape[dim]

    def _getattr(self, node):
        obj, attr = self._args(node)[:2]
        if isinstance(obj, _rx.Expr):
            if attr == "shape":
                return tuple(self._shape(obj))
            if attr == "dtype":
                return self._dtype(obj)
        return getattr(obj, attr)

    def _getitem(self, node):
        obj, index = self._args(node)[:2]
        if isinstance(obj, (list, tuple)):
            return obj[index]
        if isinstance(obj, _rx.Expr) and obj.struct_info.type_key == "relax.TupleStructInfo":
            return self.emit(_rx.TupleGetItem(obj, int(index)))
        raise _error.ValueError(f"from_fx: tensor indexing ({index!r}) is not supported")

    def _cat(self, node):
        tensors = self._args(node)[0]
        axis = self._kw(node, 1, "dim", 0)
        return self.emit(_op.concat(list(tensors), axis))

    def _unsqueeze(self, node):
        x = self._args(node)[0]
        return self.emit(_op.expand_dims(x, self._kw(node, 1, "dim", None)))

    def _squeeze(self, node):
        x = self._args(node)[0]
        return self.emit(_op.squeeze(x, self._kw(node, 1, "dim", None)))

    def _reduce(self, relax_op):
        def convert(node):
            x = self._args(node)[0]
            dim = self._kw(node, 1, "dim", None)
            keepdim = self._kw(node, 2, "keepdim", False)
            return self.emit(relax_op(x, dim, bool(keepdim)))

        return convert

    def _softmax(self, node):
        x = self._args(node)[0]
        dim = self._kw(node, 1, "dim", None)
        if node.op == "call_module":
            dim = self.named_modules[node.target].dim
        return self.emit(_op.nn.softmax(x, -1 if dim is None else dim))

    def _lstm_module(self, node):
        """``nn.LSTM`` unrolled over its (static) sequence length by the ``nn`` frontend's
        LSTM, which emits through the current builder (matmul, split, sigmoid, tanh...)."""
        from ..nn import LSTM as _LSTM  # pylint: disable=import-outside-toplevel
        from ..nn import Tensor as _Tensor  # pylint: disable=import-outside-toplevel

        m = self.named_modules[node.target]
        if m.bidirectional or getattr(m, "proj_size", 0):
            raise _error.ValueError(f"from_fx: LSTM \"{node.target}\": bidirectional and "
                                    "proj_size are not supported")
        args = self._args(node)
        x = args[0]
        hx = args[1] if len(args) > 1 else self._value(node.kwargs.get("hx"))
        lstm = _LSTM(m.input_size, m.hidden_size, m.num_layers, m.bias, m.batch_first,
                     self._dtype(x))
        for name, p in lstm.named_parameters():
            p._expr = self._param(getattr(m, name))  # pylint: disable=protected-access
        state = None if hx is None else (_Tensor(_expr=hx[0]), _Tensor(_expr=hx[1]))
        out, (h, c) = lstm(_Tensor(_expr=x), state)
        return (out._expr, (h._expr, c._expr))  # pylint: disable=protected-access

    def _identity(self, node):
        return self._args(node)[0]

    def _create_convert_map(self):
        tnn = self.torch.nn
        return {
            # call_module
            tnn.Linear: self._linear_module,
            tnn.Conv2d: self._conv2d_module,
            tnn.BatchNorm2d: self._batch_norm_2d_module,
            tnn.LayerNorm: self._layer_norm_module,
            tnn.Embedding: self._embedding_module,
            tnn.ReLU: self._unary(_op.nn.relu),
            tnn.ReLU6: self._unary(self._relu6),
            tnn.GELU: self._unary(_op.nn.gelu),
            tnn.SiLU: self._unary(_op.nn.silu),
            tnn.Sigmoid: self._unary(_op.sigmoid),
            tnn.Tanh: self._unary(_op.tanh),
            tnn.Softmax: self._softmax,
            tnn.MaxPool2d: self._max_pool2d_module,
            tnn.AvgPool2d: self._avg_pool2d_module,
            tnn.AdaptiveAvgPool2d: self._adaptive_avg_pool2d_module,
            tnn.Flatten: self._flatten_module,
            tnn.LSTM: self._lstm_module,
            tnn.Dropout: self._identity,
            tnn.Identity: self._identity,
            # call_function (by __name__) and call_method (by name)
            "add": self._binary(_op.add, operator.add),
            "iadd": self._binary(_op.add, operator.add),
            "sub": self._binary(_op.subtract, operator.sub),
            "isub": self._binary(_op.subtract, operator.sub),
            "mul": self._binary(_op.multiply, operator.mul),
            "imul": self._binary(_op.multiply, operator.mul),
            "truediv": self._binary(_op.divide, operator.truediv),
            "div": self._binary(_op.divide, operator.truediv),
            "floordiv": self._binary(_op.floor_divide, operator.floordiv),
            "matmul": self._binary(_op.matmul, operator.matmul),
            "relu": self._unary(_op.nn.relu),
            "relu6": self._unary(self._relu6),
            "gelu": self._unary(_op.nn.gelu),
            "silu": self._unary(_op.nn.silu),
            "sigmoid": self._unary(_op.sigmoid),
            "tanh": self._unary(_op.tanh),
            "exp": self._unary(_op.exp),
            "sqrt": self._unary(_op.sqrt),
            "neg": self._unary(_op.negative),
            "softmax": self._softmax,
            "linear": self._linear,
            "conv2d": self._conv2d,
            "max_pool2d": self._max_pool2d,
            "avg_pool2d": self._avg_pool2d,
            "adaptive_avg_pool2d": self._adaptive_avg_pool2d,
            "flatten": self._flatten,
            "view": self._reshape,
            "reshape": self._reshape,
            "permute": self._permute,
            "transpose": self._transpose,
            "t": self._t,
            "contiguous": self._identity,
            "dropout": self._identity,
            "size": self._size,
            "getattr": self._getattr,
            "getitem": self._getitem,
            "cat": self._cat,
            "concat": self._cat,
            "unsqueeze": self._unsqueeze,
            "squeeze": self._squeeze,
            "mean": self._reduce(_op.mean),
            "sum": self._reduce(_op.sum),
        }

    # ---- the graph ---------------------------------------------------------------------------
    def _target_name(self, node):
        if node.op == "call_module":
            return type(self.named_modules[node.target])
        if node.op == "call_function":
            return getattr(node.target, "__name__", str(node.target))
        return node.target

    def _check_supported(self, graph):
        missing = []
        for node in graph.nodes:
            if node.op not in ("call_module", "call_function", "call_method"):
                continue
            key = self._target_name(node)
            if key not in self.convert_map:
                if node.op == "call_module":
                    label = f"{key.__module__}.{key.__name__} (module \"{node.target}\")"
                else:
                    label = f"{node.op} \"{key}\""
                if label not in missing:
                    missing.append(label)
        if missing:
            raise _error.ValueError("from_fx: unsupported operator(s): " + ", ".join(missing))

    def from_fx(self, model, input_info, keep_params_as_input, unwrap_unit_return_tuple,
                no_bind_return_tuple, custom_convert_map=None):
        """Convert ``model`` (see :func:`from_fx`)."""
        if custom_convert_map:
            for key, fn in custom_convert_map.items():
                self.convert_map[key] = (lambda f: lambda node: f(node, self))(fn)
        self.named_modules = dict(model.named_modules())
        graph = model.graph
        inputs = []
        symbols = {}
        for idx, item in enumerate(input_info):
            if not (isinstance(item, (list, tuple)) and len(item) == 2):
                raise _error.TypeError(f"from_fx: input_info[{idx}] must be (shape, dtype), "
                                       f"not {item!r}")
            shape, dtype = item
            dims = []
            for d in shape:
                if isinstance(d, str):
                    d = symbols.setdefault(d, _tir.Var(d, "int64"))
                dims.append(d)
            inputs.append(_rx.Var(f"inp_{idx}", TensorStructInfo(dims, _dtype_str(dtype))))
        placeholders = [n for n in graph.nodes if n.op == "placeholder"]
        if len(placeholders) != len(inputs):
            raise _error.ValueError(f"from_fx: the graph has {len(placeholders)} inputs "
                                    f"({', '.join(n.name for n in placeholders)}) but input_info "
                                    f"describes {len(inputs)}")
        attrs = None
        param_values = []
        if keep_params_as_input:
            attrs = {"num_input": len(inputs)}
            for name, p in sorted(model.named_parameters(), key=lambda kv: kv[0]):
                var = _rx.Var(name, TensorStructInfo(list(p.shape), _dtype_str(p.dtype)))
                self.params[p] = var
                inputs.append(var)
                param_values.append(p.detach().cpu().numpy())
        self._check_supported(graph)
        self.bb = BlockBuilder()
        pending = list(inputs)
        with self.bb.function("main", params=list(inputs), attrs=attrs):
            output = None
            with self.bb.dataflow():
                for node in graph.nodes:
                    if node.op == "placeholder":
                        self.env[node] = pending.pop(0)
                    elif node.op == "output":
                        result = self._value(node.args[0])
                        if isinstance(result, (list, tuple)):
                            if unwrap_unit_return_tuple and len(result) == 1:
                                output = self.bb.emit_output(result[0])
                            elif no_bind_return_tuple:
                                output = [self.bb.emit_output(r) for r in result]
                        if output is None:
                            output = self.bb.emit_output(result)
                        break
                    elif node.op == "get_attr":
                        self.env[node] = self._fetch_attr(model, node.target)
                    else:
                        key = self._target_name(node)
                        try:
                            self.env[node] = self.convert_map[key](node)
                        except _error.TVMError as err:
                            raise type(err)(f"from_fx: converting node \"{node.name}\" "
                                            f"({node.op} {node.target}): {err}") from err
            self.bb.emit_func_output(output)
        mod = self.bb.get()
        if keep_params_as_input:
            from .... import nd  # pylint: disable=import-outside-toplevel

            values = [nd.array(_np.ascontiguousarray(v)) for v in param_values]
            mod["main"] = mod["main"].with_attr("params", values)
        return mod

    def _fetch_attr(self, model, target):
        obj = model
        for part in target.split("."):
            if not hasattr(obj, part):
                raise _error.ValueError(f"from_fx: get_attr of a missing attribute \"{target}\"")
            obj = getattr(obj, part)
        if isinstance(obj, self.torch.Tensor):
            return self._param(obj)
        return obj


def from_fx(model, input_info, *, keep_params_as_input=False, unwrap_unit_return_tuple=False,
            no_bind_return_tuple=False, custom_convert_map=None):
    """Convert a PyTorch FX GraphModule to a Relax IRModule.

    Parameters
    ----------
    model : torch.fx.GraphModule
        The traced model (``torch.fx.symbolic_trace(module)``), in eval mode.
    input_info : list of (shape, dtype)
        One entry per graph input: ``[((1, 784), "float32")]``.
    keep_params_as_input : bool
        Parameters as function parameters after the inputs (sorted by name; attribute
        ``num_input``) instead of constants; their values are attached as the function
        attribute ``"params"`` (take them off with ``relax.frontend.detach_params``).
    unwrap_unit_return_tuple, no_bind_return_tuple : bool
        TVM's output options (a one-element tuple returned bare; a tuple's fields bound one by
        one).
    custom_convert_map : dict
        Extra converters: key (a module class or a function/method name) →
        ``f(node, importer)`` returning the Relax value.

    Returns
    -------
    IRModule
        With the function ``main``.
    """
    importer = TorchFXImporter()
    return importer.from_fx(model, input_info, keep_params_as_input, unwrap_unit_return_tuple,
                            no_bind_return_tuple, custom_convert_map)
