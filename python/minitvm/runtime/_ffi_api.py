"""The global functions ``runtime.*`` as module attributes (``_ffi_api.NDArrayEmpty``)."""
from .._ffi import init_api

init_api("runtime", __name__)
