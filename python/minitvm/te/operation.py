"""Tensor expressions (stage 2), as ``tvm.te``: placeholder, compute, reductions and
``create_prim_func``.

Example (the course's vector add)::

    A = te.placeholder((8,), dtype="float32", name="A")
    B = te.compute((8,), lambda *i: A(*i) + 1.0, name="B")
    func = te.create_prim_func([A, B])

The compute's axes are named after the lambda's parameters (``lambda i, j`` gives loops
``i, j`` and block iterators ``v_i, v_j``; ``lambda *i`` gives ``i0, i1, ...``).
"""
import builtins
import inspect

from .. import error
from ..ir.expr import PrimExpr, Range
from ..tir import expr as _texpr
from ..tir import op as _top
from ..tir.expr import IterVar, Var, SizeVar
from . import _ffi_api
from .tensor import Tensor

__all__ = [
    "placeholder", "compute", "reduce_axis", "var", "size_var", "comm_reducer", "sum", "max",
    "min", "prod", "create_prim_func",
]


def _shape(shape):
    if isinstance(shape, (int, PrimExpr)):
        return [shape]
    if isinstance(shape, (str, bytes)) or not hasattr(shape, "__iter__"):
        raise error.TypeError(f"te: a shape must be an int or a sequence of them, not {shape!r}")
    return list(shape)


def _positional_params(fcompute):
    """``(names, takes_varargs)`` of a callable's positional parameters."""
    code = getattr(fcompute, "__code__", None)
    if code is not None:
        names = list(code.co_varnames[:code.co_argcount])
        return names, bool(code.co_flags & inspect.CO_VARARGS)
    try:  # builtins, callable objects, functools.partial ...
        params = inspect.signature(fcompute).parameters.values()
    except (builtins.TypeError, builtins.ValueError) as err:
        raise error.TypeError(
            f"te.compute: cannot read the parameters of fcompute {fcompute!r}") from err
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    names = [p.name for p in params if p.kind in kinds]
    return names, any(p.kind == inspect.Parameter.VAR_POSITIONAL for p in params)


def placeholder(shape, dtype="float32", name="placeholder"):
    """An input tensor of ``shape`` and ``dtype``."""
    return _ffi_api.Placeholder(_shape(shape), str(dtype), name)


def compute(shape, fcompute, name="compute", tag="", attrs=None, varargs_names=None):
    """The tensor whose element at ``i`` is ``fcompute(*i)``.

    ``fcompute`` returns one expression (or a tuple of them for a multi-output compute; the
    result is then a list of tensors). A reduction (``te.sum(...)``) must be the whole body.
    """
    shape = _shape(shape)
    if not callable(fcompute):
        raise error.TypeError("te.compute: fcompute must be callable")
    names, varargs = _positional_params(fcompute)
    nargs = len(names)
    if varargs:
        if nargs != 0:
            raise error.ValueError("te.compute: fcompute must take either named arguments or *args")
        names = list(varargs_names or [f"i{k}" for k in range(len(shape))])
    else:
        if nargs != len(shape):
            raise error.ValueError(
                f"te.compute {name}: fcompute takes {nargs} argument(s) but the shape has rank "
                f"{len(shape)}"
            )
    axes = list(_ffi_api.ComputeAxes(shape, [str(n) for n in names], name))
    body = fcompute(*[a.var for a in axes])
    bodies = list(body) if isinstance(body, (list, tuple)) else [body]
    op = _ffi_api.ComputeOp(name, tag, dict(attrs or {}), axes, bodies)
    outputs = [op.output(i) for i in range(op.num_outputs)]
    return outputs[0] if len(outputs) == 1 else outputs


def reduce_axis(dom, name="rv", thread_tag="", span=None):
    """A reduction axis over ``dom`` — ``(lo, hi)`` or a Range."""
    if isinstance(dom, Range):
        return _ffi_api.ReduceAxis(dom.min, dom.min + dom.extent, name)
    if isinstance(dom, (list, tuple)) and len(dom) == 2:
        return _ffi_api.ReduceAxis(dom[0], dom[1], name)
    raise error.TypeError(f"te.reduce_axis: dom must be (begin, end) or a Range, got {dom!r}")


def var(name="tindex", dtype="int32", span=None):
    """A scalar variable."""
    return Var(name, dtype)


def size_var(name="size", dtype="int32", span=None):
    """A variable known to be non-negative (a symbolic size)."""
    return SizeVar(name, dtype)


def comm_reducer(fcombine, fidentity, name="reduce"):
    """A reducer from ``fcombine(x, y)`` and ``fidentity(dtype)``, like ``te.comm_reducer``.

    The result ``r`` is used as ``r(expr, axis, where=None, init=None)`` for a reduction
    over ``axis`` (an IterVar or a list of them), or as ``r(a, b)`` to combine two
    expressions. Tuple reducers take and return tuples (argmax-style).
    """

    def reducer(expr, axis, where=None, init=None, *args):
        if not isinstance(axis, (IterVar, list, tuple)):
            return fcombine(expr, axis)
        axes = [axis] if isinstance(axis, IterVar) else list(axis)
        exprs = list(expr) if isinstance(expr, (list, tuple)) else [expr]
        dtypes = [str(e.dtype) if isinstance(e, PrimExpr) else _top.const(e).dtype for e in exprs]
        lhs = [Var(f"x{k}" if len(exprs) > 1 else "x", str(t)) for k, t in enumerate(dtypes)]
        rhs = [Var(f"y{k}" if len(exprs) > 1 else "y", str(t)) for k, t in enumerate(dtypes)]
        result = fcombine(*lhs, *rhs) if len(exprs) > 1 else fcombine(lhs[0], rhs[0])
        result = list(result) if isinstance(result, (list, tuple)) else [result]
        ident = fidentity(*dtypes) if len(exprs) > 1 else fidentity(dtypes[0])
        ident = list(ident) if isinstance(ident, (list, tuple)) else [ident]
        combiner = _texpr.CommReducer(lhs, rhs, result, ident)
        inits = [] if init is None else (list(init) if isinstance(init, (list, tuple)) else [init])
        outs = [
            _ffi_api.Reduce(combiner, exprs, axes, where, k, inits) for k in range(len(exprs))
        ]
        return outs[0] if len(outs) == 1 else outs

    reducer.__name__ = name
    reducer.__doc__ = f"The {name} reducer: {name}(expr, axis, where=None, init=None)."
    return reducer


def _reduction(name, cxx_name, binary):
    def reducer(expr, *args, **kwargs):
        # (expr, axis, where=None, init=None); the keyword form te.sum(x, axis=v) is always a
        # reduction, so a non-axis there is an error rather than the binary te.sum(x, v).
        unknown = set(kwargs) - {"axis", "where", "init"}
        if unknown or len(args) > 3:
            raise error.TypeError(
                f"te.{name}(expr, axis, where=None, init=None): unexpected arguments "
                f"{sorted(unknown) or list(args[3:])}"
            )
        params = dict(zip(("axis", "where", "init"), args))
        for key, value in kwargs.items():
            if key in params:
                raise error.TypeError(f"te.{name}: {key} given twice")
            params[key] = value
        if "axis" not in params:
            raise error.TypeError(f"te.{name}: missing the reduction axis")
        axis, where, init = params["axis"], params.get("where"), params.get("init")
        if not isinstance(axis, (IterVar, list, tuple)):
            if "axis" in kwargs or len(params) > 1:
                raise error.TypeError(
                    f"te.{name}: axis must be a reduction axis (te.reduce_axis) or a list of "
                    f"them, not {type(axis).__name__} {axis!r}"
                )
            return binary(expr, axis)
        axes = [axis] if isinstance(axis, IterVar) else list(axis)
        return getattr(_ffi_api, cxx_name)(expr, axes, where, init)

    reducer.__name__ = name
    reducer.__doc__ = (
        f"``{name}(expr, axis, where=None, init=None)``: the {name} of ``expr`` over the "
        f"reduction axes ``axis``; ``{name}(a, b)`` combines two expressions."
    )
    return reducer


sum = _reduction("sum", "Sum", lambda a, b: a + b)  # pylint: disable=redefined-builtin
max = _reduction("max", "Max", _top.max)  # pylint: disable=redefined-builtin
min = _reduction("min", "Min", _top.min)  # pylint: disable=redefined-builtin
prod = _reduction("prod", "Prod", lambda a, b: a * b)


def create_prim_func(ops, index_dtype_override=None):
    """A block-based PrimFunc computing the given tensors (inputs first, then outputs; scalar
    Vars become scalar parameters). See :mod:`minitvm.te` for the form of the result."""
    if isinstance(ops, Tensor):
        ops = [ops]
    if not isinstance(ops, (list, tuple)):
        raise error.TypeError(
            f"te.create_prim_func: expected a list of te.Tensor, not {type(ops).__name__}")
    return _ffi_api.CreatePrimFunc(list(ops))
