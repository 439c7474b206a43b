"""``minitvm.te``: tensor expressions (stage 2), as ``tvm.te``.

Describe *what* a tensor is, element by element, and let ``create_prim_func`` turn it into a
TensorIR PrimFunc::

    from minitvm import te
    A = te.placeholder((128, 128), name="A")
    B = te.placeholder((128, 128), name="B")
    k = te.reduce_axis((0, 128), name="k")
    Y = te.compute((128, 128), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="Y")
    C = te.compute((128, 128), lambda i, j: te.max(Y[i, j], 0.0), name="C")
    func = te.create_prim_func([A, B, C])

The TIR builders are re-exported (``te.exp``, ``te.if_then_else``, ``te.const``, ...).
"""
from .tensor import Tensor, Operation, PlaceholderOp, ComputeOp
from .operation import (
    placeholder, compute, reduce_axis, var, size_var, comm_reducer, sum, max, min, prod,
    create_prim_func,
)
from ..tir.op import (  # noqa: F401  (TVM re-exports these in te)
    const, exp, log, sqrt, rsqrt, tanh, sigmoid, erf, fabs, abs, floor, ceil, round, pow,
    power, if_then_else, all, any, floordiv, floormod, truncdiv, truncmod, indexdiv, indexmod,
    max_value, min_value, likely, div, cast,
)
from ..tir.expr import Var as _Var  # noqa: F401
