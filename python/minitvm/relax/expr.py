"""Relax expressions, bindings and functions (stage 4), as ``tvm.relax.expr``.

The classes keep TVM's names and constructor signatures (``Var(name_hint, struct_info)``,
``Call(op, args, attrs, sinfo_args)``, ``Function(params, body, ret_struct_info, is_pure,
attrs)``, ...). Nodes are built and checked in C++ (``"relax.*"``); fields are read from the
node (``call.op``, ``call.args``, ``item.tuple_value``, ``var.name_hint``) and
``expr.struct_info`` is the struct info the node carries (None until normalised).
"""
import numpy as _np

from .. import error as _error
from .. import tir as _tir
from .._ffi import register_object
from ..ir.expr import BaseExpr
from ..ir.function import BaseFunc
from ..runtime import Object
from . import _ffi_api

__all__ = [
    "Expr",
    "ExprWithOp",
    "Var",
    "DataflowVar",
    "Constant",
    "Tuple",
    "TupleGetItem",
    "ShapeExpr",
    "PrimValue",
    "StringImm",
    "DataTypeImm",
    "Call",
    "If",
    "SeqExpr",
    "Function",
    "ExternFunc",
    "Binding",
    "VarBinding",
    "MatchCast",
    "BindingBlock",
    "DataflowBlock",
    "const",
    "extern",
    "get_shape_of",
]


class Expr(BaseExpr):
    """Base of Relax expressions; ``struct_info`` is the node's struct info (None until the
    expression is normalised)."""

    @property
    def struct_info(self):
        """The struct info of this expression, or None when it has none yet."""
        return _ffi_api.ExprStructInfo(self)


class ExprWithOp(Expr):
    """Relax expressions with Python operators: ``a + b`` is ``relax.op.add(a, b)``, ``t[0]``
    a TupleGetItem, ``f(x)`` a Call (as in TVM)."""

    def _op(self, name):
        from . import op as _op_mod  # pylint: disable=import-outside-toplevel

        fn = getattr(_op_mod, name, None)
        if fn is None:
            raise _error.AttributeError(f"relax.op.{name} is not available")
        return fn

    def __add__(self, other):
        return self._op("add")(self, other)

    def __sub__(self, other):
        return self._op("subtract")(self, other)

    def __mul__(self, other):
        return self._op("multiply")(self, other)

    def __truediv__(self, other):
        return self._op("divide")(self, other)

    def __neg__(self):
        return self._op("negative")(self)

    def astype(self, dtype):
        """``relax.op.astype(self, dtype)``."""
        return self._op("astype")(self, dtype)

    def __call__(self, *args, attrs=None):
        return Call(self, list(args), attrs)

    def __getitem__(self, index):
        if not isinstance(index, int):
            raise _error.TypeError(f"a Relax tuple is indexed by an int, not {index!r}")
        return TupleGetItem(self, index)

    # `==` stays identity (the nodes are used as dict keys), as for every Object.
    __hash__ = Object.__hash__


@register_object("relax.expr.Var")
class Var(ExprWithOp):
    """A variable: ``Var("x", R.Tensor((n, 4), "float32"))``. Names do not make two
    variables the same; identity does."""

    def __init__(self, name_hint, struct_info=None, span=None):  # pylint: disable=W0613
        struct_info = _as_struct_info(struct_info)
        self.__init_handle_by_constructor__(_ffi_api.Var, _name(name_hint, "Var"), struct_info)


@register_object("relax.expr.DataflowVar")
class DataflowVar(Var):
    """A variable local to a dataflow block."""

    def __init__(self, name_hint, struct_info=None, span=None):  # pylint: disable=W0613
        # pylint: disable=super-init-not-called
        struct_info = _as_struct_info(struct_info)
        self.__init_handle_by_constructor__(
            _ffi_api.DataflowVar, _name(name_hint, "DataflowVar"), struct_info
        )


@register_object("relax.expr.Constant")
class Constant(ExprWithOp):
    """A constant tensor (an NDArray in ``data``)."""

    def __init__(self, data, span=None):  # pylint: disable=W0613
        self.__init_handle_by_constructor__(_ffi_api.Constant, _as_ndarray(data))


@register_object("relax.expr.Tuple")
class Tuple(ExprWithOp):
    """A tuple of expressions; ``len(t)`` and ``t[i]`` (a TupleGetItem) work."""

    def __init__(self, fields, span=None):  # pylint: disable=W0613
        self.__init_handle_by_constructor__(
            _ffi_api.Tuple, [_as_expr(f) for f in _seq(fields, "Tuple", "fields")]
        )

    def __len__(self):
        return len(self.fields)

    def __getitem__(self, index):
        if not isinstance(index, int):
            raise _error.TypeError(f"a Relax tuple is indexed by an int, not {index!r}")
        if index < -len(self) or index >= len(self):
            raise _error.IndexError(f"Tuple index {index} out of range for {len(self)} fields")
        return self.fields[index]


@register_object("relax.expr.TupleGetItem")
class TupleGetItem(ExprWithOp):
    """``tuple_value[index]``."""

    def __init__(self, tuple_value, index, span=None):  # pylint: disable=W0613
        self.__init_handle_by_constructor__(_ffi_api.TupleGetItem, tuple_value, _index(index))


@register_object("relax.expr.ShapeExpr")
class ShapeExpr(ExprWithOp):
    """A shape value made of integer expressions: ``ShapeExpr([n, 4])`` (ints are int64)."""

    def __init__(self, values, span=None):  # pylint: disable=W0613
        self.__init_handle_by_constructor__(
            _ffi_api.ShapeExpr, [_dim(v) for v in _seq(values, "ShapeExpr", "values")]
        )

    def __len__(self):
        return len(self.values)

    def __getitem__(self, index):
        return self.values[index]


@register_object("relax.expr.PrimValue")
class PrimValue(ExprWithOp):
    """A TIR scalar as a Relax value; a Python int is an int64 constant."""

    def __init__(self, value, span=None):  # pylint: disable=W0613
        if isinstance(value, bool):
            value = _tir.IntImm("bool", int(value))
        elif isinstance(value, int):
            value = _tir.IntImm("int64", value)
        self.__init_handle_by_constructor__(_ffi_api.PrimValue, value)


@register_object("relax.expr.StringImm")
class StringImm(Expr):
    """A string as a Relax value."""

    def __init__(self, value, span=None):  # pylint: disable=W0613
        if not isinstance(value, str):
            raise _error.TypeError(f"StringImm: value must be a str, not {value!r}")
        self.__init_handle_by_constructor__(_ffi_api.StringImm, value)


@register_object("relax.expr.DataTypeImm")
class DataTypeImm(Expr):
    """A dtype as a Relax value (``DataTypeImm("float32")``)."""

    def __init__(self, value, span=None):  # pylint: disable=W0613
        self.__init_handle_by_constructor__(_ffi_api.DataTypeImm, str(value))


@register_object("relax.expr.Call")
class Call(ExprWithOp):
    """A call: ``op`` (an Op, GlobalVar, ExternFunc or variable), ``args``, keyword ``attrs``
    (a dict) and ``sinfo_args`` (struct info arguments, e.g. ``call_tir``'s output)."""

    def __init__(self, op, args, attrs=None, sinfo_args=None, span=None):  # pylint: disable=W0613
        if isinstance(op, str):
            from ..ir.op import Op  # pylint: disable=import-outside-toplevel

            op = Op.get(op)
        if sinfo_args is not None:
            sinfo_args = [_as_struct_info(s) for s in _seq(sinfo_args, "Call", "sinfo_args")]
        self.__init_handle_by_constructor__(
            _ffi_api.Call, op, [_as_expr(a) for a in _seq(args, "Call", "args")], attrs,
            sinfo_args
        )


@register_object("relax.expr.If")
class If(ExprWithOp):
    """``if cond: true_branch else: false_branch`` (branches become SeqExprs)."""

    def __init__(self, cond, true_branch, false_branch, span=None):  # pylint: disable=W0613
        self.__init_handle_by_constructor__(_ffi_api.If, cond, true_branch, false_branch)


@register_object("relax.expr.SeqExpr")
class SeqExpr(ExprWithOp):
    """Binding blocks followed by a result ``body``."""

    def __init__(self, blocks, body, span=None):  # pylint: disable=W0613
        self.__init_handle_by_constructor__(
            _ffi_api.SeqExpr, _seq(blocks, "SeqExpr", "blocks"), body
        )


@register_object("relax.expr.Function")
class Function(BaseFunc, Expr):
    """A Relax function: ``params`` (annotated Vars), ``body``, ``ret_struct_info`` (taken
    from the body when omitted), ``is_pure`` and ``attrs``."""

    def __init__(
        self, params, body, ret_struct_info=None, is_pure=True, attrs=None, span=None
    ):  # pylint: disable=W0613
        if ret_struct_info is not None:
            ret_struct_info = _as_struct_info(ret_struct_info)
        self.__init_handle_by_constructor__(
            _ffi_api.Function, _seq(params, "Function", "params"), body, ret_struct_info,
            bool(is_pure), attrs
        )

    def __call__(self, *args):
        return Call(self, list(args))


@register_object("relax.expr.ExternFunc")
class ExternFunc(BaseFunc, ExprWithOp):
    """A packed function outside the module, by name (``ExternFunc("env.linear")``)."""

    def __init__(self, global_symbol, span=None):  # pylint: disable=W0613
        self.__init_handle_by_constructor__(
            _ffi_api.ExternFunc, _name(global_symbol, "ExternFunc")
        )


@register_object("relax.expr.Binding")
class Binding(Object):
    """Base of the bindings; ``var`` is what it defines."""


@register_object("relax.expr.VarBinding")
class VarBinding(Binding):
    """``var = value``."""

    def __init__(self, var, value, span=None):  # pylint: disable=W0613
        self.__init_handle_by_constructor__(_ffi_api.VarBinding, var, _as_expr(value))


@register_object("relax.expr.MatchCast")
class MatchCast(Binding):
    """``var = R.match_cast(value, struct_info)``."""

    def __init__(self, var, value, struct_info, span=None):  # pylint: disable=W0613
        self.__init_handle_by_constructor__(
            _ffi_api.MatchCast, var, _as_expr(value), _as_struct_info(struct_info)
        )


@register_object("relax.expr.BindingBlock")
class BindingBlock(Object):
    """A sequence of bindings."""

    def __init__(self, bindings, span=None):  # pylint: disable=W0613
        self.__init_handle_by_constructor__(
            _ffi_api.BindingBlock, _seq(bindings, "BindingBlock", "bindings")
        )


@register_object("relax.expr.DataflowBlock")
class DataflowBlock(BindingBlock):
    """A block of pure bindings (``with R.dataflow():``)."""

    def __init__(self, bindings, span=None):  # pylint: disable=W0613
        # pylint: disable=super-init-not-called
        self.__init_handle_by_constructor__(
            _ffi_api.DataflowBlock, _seq(bindings, "DataflowBlock", "bindings")
        )


# ---- helpers --------------------------------------------------------------------------------


def _seq(values, node, what):
    """A list or tuple argument as a list; anything else is a TypeError naming it."""
    from ..runtime.container import Array  # pylint: disable=import-outside-toplevel

    if not isinstance(values, (list, tuple, Array)):
        raise _error.TypeError(
            f"{node}: {what} must be a list or tuple, not {type(values).__name__}: {values!r}"
        )
    return list(values)


def _name(name, node):
    """A name (a str; a Relax Id is not a thing here)."""
    if not isinstance(name, str):
        raise _error.TypeError(f"{node}: the name must be a str, not {type(name).__name__}")
    return name


def _index(index):
    if isinstance(index, bool) or not isinstance(index, (int, _np.integer)):
        raise _error.TypeError(f"TupleGetItem: index must be an int, not {index!r}")
    return int(index)


def _dim(v):
    """A shape dimension: Python ints are int64 constants (TVM's rule)."""
    if isinstance(v, bool):
        raise _error.TypeError(f"ShapeExpr: dimension {v!r} is a bool, not an integer")
    if isinstance(v, (int, _np.integer)):
        return _tir.IntImm("int64", int(v))
    return v


def _as_struct_info(info):
    """Struct info as given, or None; a bare struct info class is an error."""
    if info is None:
        return None
    from .struct_info import StructInfo  # pylint: disable=import-outside-toplevel

    if not isinstance(info, StructInfo):
        raise _error.TypeError(f"expected a StructInfo, got {type(info).__name__}: {info!r}")
    return info


def _as_ndarray(data):
    from .. import nd  # pylint: disable=import-outside-toplevel
    from ..runtime.ndarray import NDArray  # pylint: disable=import-outside-toplevel

    if isinstance(data, NDArray):
        return data
    return nd.array(_np.asarray(data))


def _as_expr(value):
    """Python values inside Relax: tuples/lists become Tuples, numbers stay errors."""
    if isinstance(value, (list, tuple)):
        return Tuple([_as_expr(v) for v in value])
    return value


def const(value, dtype=None):
    """A Relax constant from a NumPy array, list or scalar (TVM's ``relax.const``): Python
    ints become int32 and floats float32 unless ``dtype`` says otherwise."""
    from .. import nd  # pylint: disable=import-outside-toplevel
    from ..runtime.ndarray import NDArray  # pylint: disable=import-outside-toplevel

    if isinstance(value, NDArray):
        if dtype is not None and str(value.dtype) != str(dtype):
            value = value.numpy().astype(str(dtype))
        else:
            return Constant(value)
    if dtype is not None:
        from ..runtime import DataType  # pylint: disable=import-outside-toplevel

        dtype = str(DataType(str(dtype)))  # an unknown dtype is a minitvm ValueError
    if isinstance(value, (bool, int, float, list, tuple, _np.generic)) and not isinstance(
        value, _np.ndarray
    ):
        value = _const_array(value, dtype)
    if not isinstance(value, _np.ndarray):
        raise _error.TypeError(f"relax.const: cannot make a constant from {type(value).__name__}")
    if dtype is None:
        value = value.astype({"int64": "int32", "float64": "float32"}.get(str(value.dtype),
                                                                          value.dtype))
    else:
        value = value.astype(str(dtype))
    return Constant(nd.array(value))


def _const_array(value, dtype):
    """A Python scalar or (nested) list as a numpy array of ``dtype``; ints that do not fit
    the dtype are refused instead of wrapping."""
    try:
        if dtype is not None and _np.dtype(dtype).kind in "iu":
            info = _np.iinfo(dtype)
            for item in _np.array(value, dtype=object).ravel():
                if isinstance(item, (int, _np.integer)) and not isinstance(item, bool) and not (
                        info.min <= int(item) <= info.max):
                    raise _error.ValueError(f"relax.const: {int(item)} does not fit in {dtype} "
                                            f"([{info.min}, {info.max}])")
        return _np.array(value, dtype=dtype)
    except (OverflowError, ValueError, TypeError) as err:
        if isinstance(err, _error.TVMError):
            raise
        raise _error.ValueError(f"relax.const: cannot make a {dtype or 'constant'} from "
                                f"{value!r}: {err}") from None


def extern(name, span=None):  # pylint: disable=unused-argument
    """``ExternFunc(name)``."""
    return ExternFunc(name)


def get_shape_of(expr):
    """The shape of a tensor expression from its struct info (a ShapeExpr or shape var)."""
    if not isinstance(expr, Expr):
        raise _error.TypeError(f"get_shape_of: expected a Relax expression, got {expr!r}")
    info = expr.struct_info
    if info is None or info.type_key != "relax.TensorStructInfo" or info.shape is None:
        raise _error.ValueError(f"get_shape_of: {expr!r} has no known shape")
    return info.shape
