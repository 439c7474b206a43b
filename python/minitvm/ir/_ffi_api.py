"""The global functions ``ir.*`` as module attributes (``_ffi_api.IRModule``)."""
from .._ffi import init_api

init_api("ir", __name__)
