"""``minitvm.target``: compilation targets (stage 2), as ``tvm.target``.

``Target("llvm -mcpu=native -num-cores=4")``, ``Target("cuda")``, ``Target("ref")`` or a
dict ``Target({"kind": "cuda", "arch": "sm_90"})``. ``t.kind.name``, ``t.keys``, ``t.attrs``
(a map, e.g. ``t.attrs["mcpu"]``), ``t.host``, ``str(t)``.
"""
from .._ffi import register_object
from ..runtime import Object
from . import _ffi_api

__all__ = ["Target", "TargetKind", "list_tags", "register_tag"]


@register_object("target.TargetKind")
class TargetKind(Object):
    """A kind of target: ``name``, ``device_type``, ``default_keys``."""

    def __repr__(self):
        return f"TargetKind({self.name})"

    @staticmethod
    def list_kinds():
        """The names of all target kinds."""
        return list(_ffi_api.ListTargetKinds())


_TARGET_STACK = []


@register_object("target.Target")
class Target(Object):
    """A compilation target; see the module docstring."""

    def __init__(self, target, host=None):
        if isinstance(target, Target) and host is None:
            self.__init_handle_by_constructor__(_ffi_api.Target, target)
            return
        self.__init_handle_by_constructor__(_ffi_api.Target, target, host)

    def __str__(self):
        return _ffi_api.TargetStr(self)

    def __repr__(self):
        return f'Target("{_ffi_api.TargetStr(self)}")'

    @property
    def mcpu(self):
        """The -mcpu attribute, or "" when not set."""
        return self.attrs["mcpu"] if "mcpu" in self.attrs else ""

    @property
    def vector_width_bits(self):
        """The SIMD width for CPU targets (512 for AVX-512 CPUs, 256 for AVX2, else 128)."""
        return int(_ffi_api.TargetVectorWidthBits(self))

    @property
    def cpu_vector_info(self):
        """The vector unit and caches the CPU schedules derive their tiles from (stage 5):
        ``{"vector_bits", "vector_registers", "l1d_bytes", "l2_bytes"}``, from -mcpu or the
        attributes -num-vector-registers, -l1d-cache-size-bytes, -l2-cache-size-bytes."""
        from .._ffi import get_global_func  # pylint: disable=import-outside-toplevel

        info = get_global_func("relax.backend.CpuVectorInfo")(self)
        return {str(k): int(v) for k, v in info.items()}

    @property
    def max_num_threads(self):
        """Threads per block (GPU targets)."""
        return int(self.attrs["max_num_threads"])

    @staticmethod
    def current(allow_none=True):
        """The target of the innermost enclosing ``with Target(...)`` block, or None (a
        ValueError when ``allow_none`` is False and there is none)."""
        if _TARGET_STACK:
            return _TARGET_STACK[-1]
        if not allow_none:
            raise ValueError("Target.current: no target is in scope (use `with Target(...)`)")
        return None

    def __enter__(self):
        _TARGET_STACK.append(self)
        return self

    def __exit__(self, *exc):
        _TARGET_STACK.pop()

    def __eq__(self, other):
        return isinstance(other, Target) and str(self) == str(other)

    __hash__ = Object.__hash__


def list_tags():
    """Every target tag (``"nvidia/tesla-p100"``, ``"apple/m2-gpu"``, ...) with its Target."""
    return {str(k): v for k, v in _ffi_api.TargetTagListTags().items()}


def register_tag(name, config, override=False):
    """Register the tag ``name`` for the target map ``config`` (``{"kind": "cuda", ...}``);
    ``Target(name)`` then gives that target. ValueError when it exists and not ``override``."""
    return _ffi_api.TargetTagAddTag(name, config, bool(override))


class _TagModule:  # ``tvm.target.tag.list_tags()`` / ``register_tag`` as in TVM
    list_tags = staticmethod(list_tags)
    register_tag = staticmethod(register_tag)


tag = _TagModule()
