"""The TIR lowering passes (stage 5), TVM's ``tvm.tir.transform``.

Each function returns a :class:`minitvm.transform.Pass`; the default pipeline that
``minitvm.build(mod, target="llvm")`` runs is :func:`get_default_tir_pipeline`.
"""
from .transform import *  # noqa: F401,F403
from .transform import __all__  # noqa: F401
