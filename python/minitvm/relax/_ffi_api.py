"""The global functions ``relax.*`` as module attributes (``_ffi_api.Var``, ``_ffi_api.Call``)."""
from .._ffi import init_api

init_api("relax", __name__)
