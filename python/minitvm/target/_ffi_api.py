"""The global functions ``target.*`` as module attributes."""
from .._ffi import init_api

init_api("target", __name__)
