"""``minitvm.support``: facts about the build in use, as ``tvm.support`` gives them.

:func:`libinfo` returns the build options as a dict of strings (TVM's keys where they exist:
``USE_LLVM``, ``LLVM_VERSION``, ``USE_CUDA``, ``CUDA_VERSION``, ``GIT_COMMIT_HASH``, ...);
:func:`describe` prints them with the Python and system versions.

The options come from ``_build_info.py``, which CMake writes next to the extension module at
configure time (``cmake/build_info.py.in``); ``USE_CUDA`` is read from the running library
(whether a CUDA code generator is registered), so it always tells what this build can do.
"""
import json
import os
import platform
import sys
import textwrap

from . import libinfo as _libinfo

__all__ = ["libinfo", "describe"]


def _cuda_registered():
    from ._ffi import list_global_func_names  # pylint: disable=import-outside-toplevel

    return any(
        name.startswith("target.build.") and ("cuda" in name or "nvptx" in name)
        for name in list_global_func_names()
    )


def libinfo():
    """The build options of this minitvm as a dict of strings.

    Keys: ``VERSION``, ``GIT_COMMIT_HASH``, ``CMAKE_BUILD_TYPE``, ``CXX_COMPILER``,
    ``CXX_COMPILER_VERSION``, ``MAX_STAGE``, ``STAGES`` (comma-separated library names),
    ``USE_LLVM`` ("ON"/"OFF"), ``LLVM_VERSION`` (e.g. "19.1.7", "NOT-FOUND" without stage 5),
    ``USE_CUDA`` ("ON"/"OFF"), ``CUDA_VERSION``, ``USE_SANITIZER``, ``BUILD_TESTS``, and
    ``INSTALLED`` ("ON" for an installed package, "OFF" in the source
    tree) with ``LIBRARY_DIR``, the folder of the extension.
    """
    try:
        from ._build_info import BUILD_INFO  # pylint: disable=import-outside-toplevel
    except ImportError:  # a build folder configured before the file existed
        BUILD_INFO = {"VERSION": "unknown"}  # pylint: disable=invalid-name
    info = {key: str(value) for key, value in BUILD_INFO.items()}
    use_cuda = _cuda_registered()
    info["USE_CUDA"] = "ON" if use_cuda else "OFF"
    cuda_toolkit = info.pop("CUDA_TOOLKIT_VERSION", "NOT-FOUND")
    info["CUDA_VERSION"] = cuda_toolkit if use_cuda else "NOT-FOUND"
    info["INSTALLED"] = "ON" if _libinfo.is_installed() else "OFF"
    info["LIBRARY_DIR"] = str(_libinfo.find_extension_dir())
    return info


def describe():
    """Prints the minitvm, Python and system versions and :func:`libinfo`."""
    from . import __version__  # pylint: disable=import-outside-toplevel

    uname = platform.uname()
    lines = [
        f"minitvm version = {__version__}",
        f"Python version  = {sys.version.splitlines()[0]} ({sys.maxsize.bit_length() + 1} bit)",
        f"uname           = {uname.system} {uname.release} {uname.machine}",
        f"package         = {os.path.dirname(os.path.abspath(__file__))}",
    ]
    print("Python Environment")
    print(textwrap.indent("\n".join(lines), "  "))
    print("CMake Options:")
    print(textwrap.indent(json.dumps(dict(sorted(libinfo().items())), indent=2), "  "))
