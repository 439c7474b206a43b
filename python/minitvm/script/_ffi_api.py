"""The global functions ``script.*`` as module attributes (``_ffi_api.FromSource``)."""
from .._ffi import init_api

init_api("script", __name__)
