"""The Relax virtual machine and its executable (stage 5), as ``tvm.relax.VirtualMachine``.

``ex = tvm.compile(mod, "llvm")`` (or :func:`minitvm.relax.build`) gives an :class:`Executable`:
bytecode, function table and constant pool, with the compiled kernels as its import.
``vm = relax.VirtualMachine(ex, tvm.cpu())`` runs it: ``vm["main"](*args)``. The VM itself is
a C++ runtime module (kind ``"relax.VirtualMachine"``, see ``minitvm/relax_vm/vm.h``) driven
by named functions, exactly as the C++ deploy path drives it; this class only packs arguments.
"""
import os

from .. import error
from .. import nd as _nd
from .._ffi import get_global_func
from .._ffi.registry import register_object
from ..runtime.module import BenchmarkResult, Module, _path
from .interpreter import _from_result, _to_arg

__all__ = ["VirtualMachine", "Executable"]


def _api(name):
    return get_global_func("relax_vm." + name)


@register_object("relax.Executable")
class Executable(Module):
    """A compiled Relax module: VM bytecode plus the kernel library (its import).

    ``as_text()`` prints the bytecode, ``stats()`` counts what is in it,
    ``export_library(path)`` writes one shared library (kernels + bytecode) that
    :func:`minitvm.runtime.load_module` loads back as an Executable; ``save_to_file`` /
    :meth:`load_from_file` keep the bytecode alone (no kernels).
    """

    @property
    def mod(self):
        """TVM's ``Executable.mod``: the runtime module (this executable)."""
        return self

    def as_text(self):
        """The bytecode as text, function by function."""
        return _api("ExecutableAsText")(self)

    def stats(self):
        """Counts: functions, constants (with bytes), instructions by opcode."""
        return _api("ExecutableStats")(self)

    def export_library(self, file_name, fmt="", **kwargs):  # pylint: disable=unused-argument
        """Write the kernels and the bytecode as ONE shared library ``file_name``."""
        _api("ExportLibrary")(self, _path(file_name, "export_library"))

    def save_to_bytes(self):
        """The bytecode in the binary executable format (``bytes``; no kernels)."""
        return _api("ExecutableSaveToBytes")(self).numpy().tobytes()

    def save_to_file(self, file_name):
        """Write :meth:`save_to_bytes` to ``file_name``."""
        _api("ExecutableSaveToFile")(self, _path(file_name, "save_to_file"))

    @staticmethod
    def load_from_bytes(data):
        """An executable from :meth:`save_to_bytes` output (ValueError when malformed)."""
        import numpy as np  # pylint: disable=import-outside-toplevel

        from .. import nd  # pylint: disable=import-outside-toplevel

        buf = np.frombuffer(bytes(data), dtype="uint8").copy()
        return _api("ExecutableLoadFromBytes")(nd.array(buf))

    @staticmethod
    def load_from_file(file_name):
        """An executable from :meth:`save_to_file` (ValueError when malformed)."""
        path = _path(file_name, "load_from_file")
        if not os.path.isfile(path):
            raise error.ValueError(f'load_from_file: no such file "{path}"')
        return _api("ExecutableLoadFromFile")(path)

    def __repr__(self):
        return f"Executable(functions={self['get_function_names']()!r})"


def _device_list(device):
    from ..runtime.device import Device  # pylint: disable=import-outside-toplevel

    devs = list(device) if isinstance(device, (list, tuple)) else [device]
    for d in devs:
        if not isinstance(d, Device):
            raise error.TypeError(
                f"VirtualMachine: device must be a Device (tvm.cpu()), not {type(d).__name__}"
            )
    return devs


_ALLOCATORS = {"naive": 1, "pooled": 2}


class VirtualMachine:
    """Run an executable: ``vm = VirtualMachine(ex, tvm.cpu())``, ``vm["main"](*args)``.

    ``memory_cfg`` is None (pooled), ``"naive"``, ``"pooled"`` or a dict device → one of
    them. ``profile`` is accepted for TVM compatibility; :meth:`profile` works either way.
    """

    NAIVE_ALLOCATOR = 1
    POOLED_ALLOCATOR = 2

    def __init__(self, rt_mod, device, memory_cfg=None, profile=False):
        if not isinstance(rt_mod, Module):
            raise error.TypeError(
                "VirtualMachine: expected the executable (tvm.compile / relax.build / "
                f"load_module result), not {type(rt_mod).__name__}"
            )
        if not rt_mod.implements_function("vm_load_executable"):
            raise error.ValueError(
                f"VirtualMachine: a module of kind {rt_mod.kind!r} holds no VM executable "
                "(compile a Relax module with tvm.compile or relax.build)"
            )
        load = "vm_profiler_load_executable" if profile else "vm_load_executable"
        self.module = rt_mod[load]()
        self._exec = rt_mod
        self._setup_device(device, memory_cfg)

    def _setup_device(self, device, memory_cfg):
        from .. import runtime  # pylint: disable=import-outside-toplevel

        devs = _device_list(device)
        if not any(d.device_type == 1 for d in devs):
            devs.append(runtime.device.Device(1, 0))  # the host, as TVM adds it
        args = []
        for d in devs:
            cfg = memory_cfg
            if isinstance(memory_cfg, dict):
                cfg = memory_cfg.get(d, None)
            if cfg is None:
                cfg = "pooled"
            if cfg not in _ALLOCATORS:
                raise error.ValueError(
                    f"VirtualMachine: memory_cfg {cfg!r} is not 'naive' or 'pooled'"
                )
            args += [d.device_type, d.device_id, _ALLOCATORS[cfg]]
        self.devices = devs
        self.module["vm_initialization"](*args)

    def _function(self, name):
        if not isinstance(name, str):
            raise error.TypeError(f"VirtualMachine: functions are named by str, not {name!r}")
        return self.module[name]

    def __getitem__(self, name):
        f = self._function(name)
        # The hot path (NDArray arguments, a tensor result) costs one type check per argument
        # and one for the result (`type(...) is`: an isinstance test of the ABC-derived Array
        # alone costs more than the rest); anything else is converted as before. The function's
        # index and its argument checks were resolved in C++ when `f` was made (vm.h).
        ndarray = _nd.NDArray

        def call(*args):
            for a in args:
                if type(a) is not ndarray:  # pylint: disable=unidiomatic-typecheck
                    args = [_to_arg(v) for v in args]
                    break
            out = f(*args)
            if type(out) is ndarray:  # pylint: disable=unidiomatic-typecheck
                return out
            return _from_result(out)

        call.__name__ = name
        return call

    def invoke_stateful(self, func_name):
        """Run ``func_name`` on the inputs given by :meth:`set_input`; see :meth:`get_outputs`."""
        self.module["invoke_stateful"](func_name)

    def set_input(self, func_name, *args, **kwargs):
        """Store the arguments of ``func_name`` (positional, or by parameter name)."""
        args = list(args)
        if kwargs:
            arity = self.module["get_function_arity"](func_name)
            names = [self.module["get_function_param_name"](func_name, i) for i in range(arity)]
            for key in kwargs:
                if key not in names:
                    raise error.TypeError(
                        f"set_input: {func_name} has no parameter {key!r} (parameters: "
                        f"{', '.join(names)})"
                    )
            for name in names[len(args):]:
                if name not in kwargs:
                    raise error.TypeError(f"set_input: {func_name}: parameter {name!r} is missing")
                args.append(kwargs[name])
        self.module["set_input"](func_name, *[_to_arg(a) for a in args])

    def get_outputs(self, func_name):
        """The result of the last :meth:`invoke_stateful` of ``func_name`` (tuples as tuples)."""
        return _from_result(self.module["get_output"](func_name))

    def save_function(self, func_name, saved_name, *args, include_return=True, **kwargs):
        # pylint: disable=unused-argument
        """Make ``saved_name`` a function of no arguments that runs ``func_name`` on ``args``
        (TVM's way to time a function without converting its arguments on every call)."""
        if kwargs:
            raise error.TypeError("save_function: keyword arguments are not supported")
        self.module["save_function"](func_name, saved_name, *[_to_arg(a) for a in args])

    def time_evaluator(self, func_name, dev, number=10, repeat=1, min_repeat_ms=0,
                       cooldown_interval_ms=0, repeats_to_cooldown=1, f_preproc=""):
        # pylint: disable=unused-argument
        """A callable that times ``func_name`` on the arguments it is given, as TVM's: each of
        ``repeat`` measurements runs it ``number`` times (more until ``min_repeat_ms``) and
        returns a :class:`~minitvm.runtime.module.BenchmarkResult` (seconds per call).
        To leave argument conversion out: ``vm.set_input("main", *args)`` then
        ``vm.time_evaluator("invoke_stateful", dev)("main")``, or time a function made by
        :meth:`save_function`."""
        from ..runtime import _ffi_api as _rt  # pylint: disable=import-outside-toplevel

        feval = _rt.TimeEvaluator(self.module, func_name, dev, number, repeat, min_repeat_ms)

        def evaluator(*args):
            return BenchmarkResult(list(feval(*[_to_arg(a) for a in args])))

        return evaluator

    def profile(self, func_name, *args):
        """Run ``func_name`` once, timing every kernel and builtin call: a text table (name,
        calls, total microseconds, percent of the run)."""
        return _ProfileReport(self.module["profile"](func_name, *[_to_arg(a) for a in args]))


class _ProfileReport(str):
    """The profile table (a str); ``table()`` returns it, as TVM's report does."""

    def table(self):
        return str(self)
