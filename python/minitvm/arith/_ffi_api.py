"""The global functions ``arith.*`` as module attributes (``_ffi_api.Simplify``)."""
from .._ffi import init_api

init_api("arith", __name__)
