"""``minitvm.ir``: the IR shared by TensorIR and Relax (stage 2), as ``tvm.ir``.

:class:`IRModule` (functions by name), :class:`GlobalVar`, :class:`BaseFunc`,
:class:`PrimExpr` (with Python operators), :class:`Range`, the immediates :class:`IntImm`
and :class:`FloatImm`, and structural equality/hashing (:func:`structural_equal`,
:func:`structural_hash`, :func:`assert_structural_equal`).
"""
from .expr import BaseExpr, PrimExpr, ExprOp, Range, GlobalVar
from .function import BaseFunc
from .module import IRModule
from .op import Op, list_op_names, register_op_attr
from .global_info import GlobalInfo, VDevice, DummyGlobalInfo

try:  # written by the structural-equality part of stage 2
    from .structural import structural_equal, structural_hash, assert_structural_equal
except ImportError:  # pragma: no cover - only while that part is missing
    pass


def __getattr__(name):
    # IntImm / FloatImm live in minitvm.tir (their Python classes); reachable here too.
    if name in ("IntImm", "FloatImm"):
        from .. import tir  # pylint: disable=import-outside-toplevel

        return getattr(tir, name)
    # TVM's tvm.ir.transform is the pass infrastructure, minitvm.transform.
    if name == "transform":
        from .. import transform  # pylint: disable=import-outside-toplevel

        return transform
    raise AttributeError(f"module minitvm.ir has no attribute {name!r}")
