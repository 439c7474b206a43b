"""minitvm: an educational re-implementation of Apache TVM with TVM's Python names.

``import minitvm as tvm`` is meant to run TVM course material. This package is a thin front:
every operation is a call of a C++ function registered under a dotted name, reached through
the extension module ``minitvm._ffi_core`` (see ``docs/ffi.md``).

Stage 1 provides the runtime: devices (:func:`cpu`, :func:`cuda`, :func:`device`), arrays
(:mod:`minitvm.nd`), objects and packed functions, the global function registry
(:func:`register_func`, :func:`get_global_func`), runtime modules and errors
(:mod:`minitvm.error`).
"""
from . import libinfo as _libinfo

# The extension is built into <build>/python/minitvm; make it part of this package.
_EXT_DIR = _libinfo.find_extension_dir()
if _EXT_DIR is not None and _EXT_DIR not in __path__:
    __path__.append(_EXT_DIR)

from . import error  # noqa: E402  (the extension's error hook needs it first)
from .error import TVMError  # noqa: E402
from . import _ffi  # noqa: E402
from ._ffi import (  # noqa: E402
    register_func,
    get_global_func,
    list_global_func_names,
    register_object,
)
from . import runtime  # noqa: E402
from .runtime import (  # noqa: E402
    Object,
    PackedFunc,
    Module,
    Device,
    DataType,
    cpu,
    cuda,
    device,
)
from . import nd  # noqa: E402
from . import lownumpy  # noqa: E402  (stage-1 reference operators)

__version__ = "0.1.0"
from . import support  # noqa: E402  (libinfo(), describe(); docs/building.md)

# Stage 2 and later: present only when the build includes them (their globals are registered
# by the stage libraries the extension loads); importing them in a stage-1 build is harmless.
from . import ir, tir, te, topi, target, driver, script, arith  # noqa: E402
from .ir import IRModule  # noqa: E402
from .driver import build, compile  # noqa: E402,A004
from . import transform  # noqa: E402

# TVM 0.22's names (docs/tvm_compat.md): `tvm.tirx` is `tvm.tir` (the same modules),
# `tvm.s_tir` holds the schedule, `tvm.register_global_func` is `register_func`.
from . import _aliases  # noqa: E402

_aliases.alias_package(__name__ + ".tirx", __name__ + ".tir")
tirx = tir
register_global_func = register_func
if get_global_func("tir.schedule.Schedule", allow_missing=True) is not None:
    from . import s_tir  # noqa: E402

# Stage 4 (Relax) is present when its library registered its functions.
if get_global_func("relax.Var", allow_missing=True) is not None:
    from . import relax  # noqa: E402
    from . import contrib  # noqa: E402  (tvm.contrib.relax_viz, loaded on first use)

