"""The FFI layer of minitvm: Python on one side, the C ABI of ``c_api.h`` on the other.

``core`` is the extension module ``minitvm._ffi_core`` (written in C++, see
``python/src/ffi_module.cc``); :mod:`minitvm._ffi.registry` is the Python side of the
global function registry and of the type-key → class table.
"""
from .. import libinfo as _libinfo

try:
    from .. import _ffi_core as core
except ImportError as _err:  # pragma: no cover - depends on the build
    if _libinfo.find_extension_dir() is None:
        raise ImportError(_libinfo.missing_extension_message()) from _err
    raise

from .. import error as _error

# First hook: from now on C++ errors arrive as minitvm.error classes.
core.set_hooks(error_factory=_error.create_error)

from . import registry  # noqa: E402
from .registry import (  # noqa: E402
    register_func,
    get_global_func,
    list_global_func_names,
    remove_global_func,
    register_object,
    init_api,
)

__all__ = [
    "core",
    "registry",
    "register_func",
    "get_global_func",
    "list_global_func_names",
    "remove_global_func",
    "register_object",
    "init_api",
]
