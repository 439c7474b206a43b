"""The global functions ``te.*`` as module attributes (``_ffi_api.ComputeOp``)."""
from .._ffi import init_api

init_api("te", __name__)
