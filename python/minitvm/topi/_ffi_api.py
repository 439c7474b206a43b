"""The global functions ``topi.*`` as module attributes (``_ffi_api.add``)."""
from .._ffi import init_api

init_api("topi", __name__)
