"""The global functions ``lownumpy.*`` as module attributes (``_ffi_api.conv2d``)."""
from .._ffi import init_api

init_api("lownumpy", __name__)
