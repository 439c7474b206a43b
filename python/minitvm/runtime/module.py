"""Runtime ``Module``: compiled functions found by name, plus the modules it imports.

Stage 1 has the machinery and one simple kind, :func:`functions_module` (a table of packed
functions); stage 2 adds the TIR interpreter module and stage 5 the LLVM/CUDA modules,
shared libraries and :func:`load_module`.
"""
import os

import numpy as np

from .. import error
from .._ffi.registry import _set_name, get_global_func, register_object
from . import _ffi_api
from .object import Object
from .packed_func import PackedFunc

__all__ = ["Module", "BenchmarkResult", "load_module", "functions_module"]


def _path(path, what):
    """``path`` as a str (TypeError for anything that is not a path)."""
    try:
        return os.fspath(path)
    except TypeError as err:
        raise error.TypeError(f"{what}: expected a file path, not {path!r}") from err


class BenchmarkResult:
    """Timings of :meth:`Module.time_evaluator`, in seconds per call: ``results`` (one per
    repeat), ``mean``, ``median``, ``std``, ``min``, ``max``."""

    def __init__(self, results):
        self.results = tuple(float(r) for r in results)
        arr = np.array(self.results) if self.results else np.zeros(1)
        self.mean = float(np.mean(arr))
        self.median = float(np.median(arr))
        self.std = float(np.std(arr))
        self.min = float(np.min(arr))
        self.max = float(np.max(arr))

    def __repr__(self):
        return (
            f"BenchmarkResult(mean={self.mean:.6g}, median={self.median:.6g}, "
            f"std={self.std:.3g}, min={self.min:.6g}, max={self.max:.6g}, "
            f"repeats={len(self.results)})"
        )


# Module kinds whose functions are compiled code that writes its outputs into its arguments.
_COMPILED_KINDS = ("llvm", "library")


class CompiledFunction(PackedFunc):
    """A function of compiled code (an ``llvm`` or ``library`` module). It writes its results
    into the NDArrays it is given, so a NumPy array argument — which a plain PackedFunc would
    convert to a temporary copy whose result nobody sees — is refused, as in TVM."""

    def __call__(self, *args, **kwargs):
        for i, a in enumerate(args):
            if isinstance(a, np.ndarray):
                name = getattr(self, "_name", None) or "the compiled function"
                raise error.TypeError(
                    f"{name}: argument #{i} is a numpy.ndarray; compiled functions take "
                    f"minitvm NDArrays (results are written into them, a converted copy would "
                    f"lose them): pass minitvm.nd.array(x) and read it back with .numpy()"
                )
        return PackedFunc.__call__(self, *args, **kwargs)


def _mark_compiled(module, f):
    """``f`` as a :class:`CompiledFunction` when ``module`` holds compiled code."""
    if type(f) is PackedFunc and module.kind in _COMPILED_KINDS:
        try:
            f.__class__ = CompiledFunction
        except TypeError:  # a layout Python will not swap: keep the plain function
            pass
    return f


@register_object("runtime.Module")
class Module(Object):
    """A runtime module. ``mod(*args)`` calls its entry function, ``mod["f"]`` returns
    function ``f`` (AttributeError when it has none)."""

    @property
    def kind(self):
        """The kind of module: ``"functions"``, ``"ref"``, ``"llvm"``, ``"library"``, ``"cuda"``."""
        return _ffi_api.ModuleKind(self)

    @property
    def type_key(self):
        """As in TVM, a module's type key is its kind."""
        return self.kind

    @property
    def mod(self):
        """TVM's ``Executable.mod`` (``tvm.compile`` returns an Executable wrapping the runtime
        module): minitvm's compile returns the runtime module itself, so this is ``self``."""
        return self

    def jit(self, **kwargs):  # pylint: disable=unused-argument
        """TVM's ``Executable.jit()``: the module is already linked and runnable."""
        return self

    @property
    def entry_name(self):
        """The name of the function ``mod(...)`` calls."""
        return _ffi_api.ModuleEntryName(self)

    @property
    def function_names(self):
        """The functions this module defines itself."""
        return list(_ffi_api.ModuleFunctionNames(self))

    @property
    def imported_modules(self):
        """The modules this module imports (searched after its own functions)."""
        return list(_ffi_api.ModuleImports(self))

    def import_module(self, module):
        """Make ``module``'s functions reachable from this module."""
        _ffi_api.ModuleImport(self, module)

    def __getitem__(self, name):
        if not isinstance(name, str):
            raise error.TypeError(f"module functions are looked up by str, not {type(name).__name__}")
        f = _ffi_api.ModuleGetFunctionChecked(self, name)
        _set_name(f, name)
        return _mark_compiled(self, f)

    def get_function(self, name, query_imports=False):
        """Function ``name``; AttributeError when neither this module (nor, with
        ``query_imports``, an import) defines it."""
        f = _ffi_api.ModuleGetFunction(self, name, query_imports)
        if f is None:
            raise error.AttributeError(f'module of kind {self.kind} has no function "{name}"')
        _set_name(f, name)
        return _mark_compiled(self, f)

    def implements_function(self, name, query_imports=False):
        """True when the module (or an import) defines ``name``."""
        return _ffi_api.ModuleGetFunction(self, name, query_imports) is not None

    def __call__(self, *args, **kwargs):
        if kwargs:
            raise error.TypeError(
                f'function "{self.entry_name}" of this module takes positional arguments only, '
                f"got keyword argument(s) {', '.join(kwargs)}"
            )
        return self[self.entry_name](*args)

    def get_source(self, fmt=""):
        """Source text in a format (``"tir"``, ``"ll"``, ``"asm"``, ``"cu"``; ``""`` = the
        module's own); ValueError when the module has none."""
        return _ffi_api.ModuleGetSource(self, fmt)

    def inspect_source(self, fmt=""):
        """TVM 0.22's name for :meth:`get_source`."""
        return self.get_source(fmt)

    def export_library(self, file_name, fmt=""):
        """Write the module to ``file_name`` (a shared library for compiled modules);
        ValueError when this kind of module cannot be saved."""
        _ffi_api.ModuleSaveToFile(self, _path(file_name, "export_library"), fmt)

    def save(self, file_name, fmt=""):
        """Like :meth:`export_library`."""
        self.export_library(file_name, fmt)

    def time_evaluator(self, func_name, dev, number=10, repeat=1, min_repeat_ms=0):
        """A callable that times function ``func_name`` called with its arguments.

        Each of ``repeat`` measurements runs the function ``number`` times (more, until a
        measurement lasts ``min_repeat_ms``) and records seconds per call; the callable
        returns a :class:`BenchmarkResult`.
        """
        feval = _ffi_api.TimeEvaluator(self, func_name, dev, number, repeat, min_repeat_ms)

        def evaluator(*args):
            return BenchmarkResult(list(feval(*args)))

        return evaluator

    def __repr__(self):
        return f"Module(kind={self.kind!r}, entry_name={self.entry_name!r}, functions={self.function_names!r})"


def functions_module(funcs, entry_name="main"):
    """A module whose functions are ``funcs`` (a dict name → callable or PackedFunc)."""
    return _ffi_api.ModuleFromFunctions(dict(funcs), entry_name)


def load_module(path, fmt=""):
    """Load a module saved with :meth:`Module.export_library`.

    Needs the loader ``"runtime.ModuleLoadFromFile"(path, fmt)`` that code generation
    (stage 5) registers; without it this raises :class:`minitvm.error.RuntimeError`.
    """
    path = _path(path, "load_module")
    if not os.path.exists(path):
        raise error.ValueError(f'load_module: no such file "{path}"')
    if os.path.isdir(path):
        raise error.ValueError(f'load_module: "{path}" is a directory, not a module file')
    loader = get_global_func("runtime.ModuleLoadFromFile", allow_missing=True)
    if loader is None:
        raise error.RuntimeError(
            f'load_module: cannot load "{path}": no module loader is registered '
            '("runtime.ModuleLoadFromFile" comes with stage 5, code generation)'
        )
    return loader(path, fmt)
