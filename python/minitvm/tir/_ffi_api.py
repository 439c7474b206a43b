"""The global functions ``tir.*`` as module attributes (``_ffi_api.Var``, ``_ffi_api.For``)."""
from .._ffi import init_api

init_api("tir", __name__)
