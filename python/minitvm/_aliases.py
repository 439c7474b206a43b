"""Module aliases for the names newer TVM releases use (see docs/tvm_compat.md).

``alias_package("minitvm.tirx", "minitvm.tir")`` makes ``import minitvm.tirx`` and every
``import minitvm.tirx.<sub>`` give the very same module objects as ``minitvm.tir`` /
``minitvm.tir.<sub>`` (never a second copy, which would register the node classes twice).
"""
import importlib
import importlib.abc
import importlib.util
import sys

_ALIASES = {}  # alias prefix -> real prefix


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, real_name):
        self.real_name = real_name
        self._real_spec = None

    def create_module(self, spec):
        module = importlib.import_module(self.real_name)
        self._real_spec = getattr(module, "__spec__", None)
        return module

    def exec_module(self, module):
        # The import system set module.__spec__ to the alias's spec: give the module its own.
        if self._real_spec is not None:
            module.__spec__ = self._real_spec


class _AliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):  # noqa: D401 - importlib's API
        for alias, real in _ALIASES.items():
            if fullname == alias or fullname.startswith(alias + "."):
                real_name = real + fullname[len(alias):]
                if importlib.util.find_spec(real_name) is None:
                    return None
                return importlib.util.spec_from_loader(fullname, _AliasLoader(real_name))
        return None


_FINDER = _AliasFinder()


def alias_package(alias, real):
    """Make ``alias`` (and its submodules) another name of the package ``real``."""
    _ALIASES[alias] = real
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
    # Submodules already imported get their alias names at once.
    for name, module in list(sys.modules.items()):
        if name == real or name.startswith(real + "."):
            sys.modules.setdefault(alias + name[len(real):], module)
