"""The global functions ``tir.schedule.*`` as module attributes (``_ffi_api.Split``)."""
from ..._ffi import init_api

init_api("tir.schedule", __name__)
