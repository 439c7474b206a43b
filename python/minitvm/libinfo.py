"""Where the compiled part of minitvm lives.

The package's Python sources stay in ``<repo>/python/minitvm``; the build writes the
extension module to ``<build>/python/minitvm/_ffi_core.<abi>.so``, next to nothing else.
:func:`find_extension_dir` locates that folder so that ``minitvm/__init__.py`` can add it to
the package's ``__path__``; ``import minitvm._ffi_core`` then finds the extension.

The build folder is ``$MINITVM_BUILD_DIR`` when that is set, else ``<repo>/build``.

An installed package (``pip install .``, see docs/building.md) holds the extension in the
package folder itself, the libraries in ``minitvm/lib`` and the CLI in ``minitvm/bin``; then
no build folder and no environment variable is consulted (:func:`is_installed`).
"""
import glob
import os

#: The package folder (where an installed wheel keeps the extension too).
PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
#: The repository root (``python/minitvm/libinfo.py`` is two levels below it).
REPO_ROOT = os.path.dirname(os.path.dirname(PACKAGE_DIR))


def is_installed():
    """True when the extension sits in the package folder (an installed wheel)."""
    return bool(glob.glob(os.path.join(PACKAGE_DIR, "_ffi_core*.so")))


def build_dir():
    """The build folder: ``$MINITVM_BUILD_DIR``, else ``<repo>/build``."""
    return os.path.abspath(os.environ.get("MINITVM_BUILD_DIR") or os.path.join(REPO_ROOT, "build"))


def find_extension_dir():
    """The folder holding ``_ffi_core*.so``, or None when it is not built."""
    if is_installed():
        return PACKAGE_DIR
    folder = os.path.join(build_dir(), "python", "minitvm")
    if glob.glob(os.path.join(folder, "_ffi_core*.so")):
        return folder
    return None


def missing_extension_message():
    """The message of the ImportError raised when the extension cannot be found."""
    where = os.path.join(build_dir(), "python", "minitvm")
    return (
        f"minitvm: the extension module _ffi_core*.so is not in {where}. Build minitvm first "
        f"(cmake -S {REPO_ROOT} -B {os.path.join(REPO_ROOT, 'build')} -G Ninja && ninja -C "
        f"{os.path.join(REPO_ROOT, 'build')}), or point MINITVM_BUILD_DIR at your build folder."
    )


def find_cli():
    """The ``minitvm`` command-line program: ``minitvm/bin/minitvm`` in an installed package,
    else ``<build>/bin/minitvm``; None when it is not there (it needs stage 2)."""
    base = PACKAGE_DIR if is_installed() else build_dir()
    path = os.path.join(base, "bin", "minitvm")
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None
