"""The global function registry and the object class table, seen from Python.

Functions
    :func:`register_func` makes a Python callable a global function that C++ (and Python)
    can call by name; :func:`get_global_func` returns a callable :class:`PackedFunc` for a
    name; :func:`list_global_func_names` lists them all. :func:`init_api` fills a Python
    module with the functions of one namespace (``minitvm.runtime._ffi_api.NDArrayEmpty`` is
    the global ``"runtime.NDArrayEmpty"``).

Classes
    When C++ returns an object, the extension asks this module which Python class wraps
    it: the class registered for its type key with :func:`register_object`, else the class
    of its nearest registered ancestor (C++ decides ancestry), else
    :class:`minitvm.runtime.Object`. The answer is cached per type key.
"""
import sys
import threading

from . import core
from .. import error

__all__ = [
    "register_func",
    "get_global_func",
    "list_global_func_names",
    "remove_global_func",
    "register_object",
    "init_api",
]

_LOCK = threading.Lock()
#: Type key → class, as registered.
_REGISTERED = {}
#: Type key → class, as resolved; the extension reads this dict directly.
_CLASS_CACHE = {}
#: The class used when no registered class matches (set by minitvm.runtime).
_DEFAULT = [core.ObjectBase]


def register_object(type_key=None):
    """Class decorator: wrap C++ objects of ``type_key`` (and derived types) in this class.

    The class must derive from :class:`minitvm.runtime.Object`. Without a type key the
    class name is used. Example::

        @minitvm.register_object("tir.For")
        class For(minitvm.runtime.Object):
            ...

    Instances are created by the FFI without calling ``__init__``; an ``__init__`` that
    builds a new node calls ``self.__init_handle_by_constructor__(constructor, *args)``.
    """

    def _register(cls):
        if not (isinstance(cls, type) and issubclass(cls, core.ObjectBase)):
            raise error.TypeError(f"register_object: {cls!r} does not derive from Object")
        key = type_key if isinstance(type_key, str) else cls.__name__
        with _LOCK:
            _REGISTERED[key] = cls
            _CLASS_CACHE.clear()
        cls._type_key = key
        return cls

    if isinstance(type_key, type):  # used as @register_object without arguments
        return _register(type_key)
    return _register


def _set_default_object_class(cls):
    _DEFAULT[0] = cls
    with _LOCK:
        _CLASS_CACHE.clear()


def _is_derived(child, parent):
    return bool(core.get_global("runtime.TypeKeyIsDerivedFrom")(child, parent))


def _resolve_class(type_key):
    """The class for ``type_key``: registered, nearest registered ancestor, or the default."""
    with _LOCK:
        cls = _REGISTERED.get(type_key)
        candidates = list(_REGISTERED.items())
    if cls is None:
        best_key = None
        for key, klass in candidates:
            if key == "runtime.Object" or not _is_derived(type_key, key):
                continue
            if best_key is None or _is_derived(key, best_key):
                best_key, cls = key, klass
    if cls is None:
        cls = _DEFAULT[0]
    with _LOCK:
        _CLASS_CACHE[type_key] = cls
    return cls


core.set_hooks(class_cache=_CLASS_CACHE, class_resolver=_resolve_class)


def register_func(func_name, f=None, override=False):
    """Register a Python callable as the global function ``func_name``.

    Use it as a call, ``register_func("demo.add", add)``, or as a decorator,
    ``@register_func("demo.add")`` (``@register_func`` alone uses the function's name).
    C++ then calls it like any packed function: arguments arrive as Python values (an
    NDArray argument aliases the caller's memory), the return value is converted back, and
    an exception becomes a C++ error of the same kind. Registering an existing name raises
    :class:`minitvm.error.RuntimeError` unless ``override=True``. Returns the callable.
    """
    if callable(func_name) and f is None:
        f, func_name = func_name, func_name.__name__
    if not isinstance(func_name, str):
        raise error.TypeError(f"register_func: the name must be a str, not {type(func_name).__name__}")

    def _register(myf):
        core.register_global(func_name, myf, bool(override))
        return myf

    if f is not None:
        return _register(f)
    return _register


def get_global_func(name, allow_missing=False):
    """The global function ``name`` as a callable :class:`minitvm.runtime.PackedFunc`.

    When there is none: None if ``allow_missing``, else :class:`minitvm.error.ValueError`
    naming the function.
    """
    f = core.get_global(name)
    if f is None and not allow_missing:
        raise error.ValueError(f'no global function named "{name}"')
    _set_name(f, name)
    return f


def _set_name(f, name):
    """Remember a function's name on its wrapper, for error messages (keyword arguments)."""
    try:
        f._name = name
    except (AttributeError, TypeError):
        pass


def list_global_func_names():
    """The names of all global functions (C++ and Python), sorted."""
    return core.list_global_names()


def remove_global_func(name):
    """Remove the global function ``name``; True when it existed."""
    return core.remove_global(name)


def init_api(namespace, target_module_name):
    """Expose the global functions ``<namespace>.<Name>`` as ``<target module>.<Name>``.

    Lookups are lazy: the first access of ``module.Name`` fetches the global function
    ``"<namespace>.Name"`` and caches it on the module, so functions registered later (by a
    stage loaded afterwards, or from Python) are found too, and the returned objects get the
    Python classes registered by then. ``dir(module)`` lists the names that exist now.
    """
    module = sys.modules[target_module_name]
    prefix = namespace + "."

    def _names():
        return sorted(
            n[len(prefix) :]
            for n in list_global_func_names()
            if n.startswith(prefix) and "." not in n[len(prefix) :]
        )

    def __getattr__(attr):  # noqa: N807
        if not attr.startswith("__"):
            f = core.get_global(prefix + attr)
            if f is not None:
                setattr(module, attr, f)
                return f
        raise AttributeError(
            f"module {target_module_name} has no attribute {attr!r} "
            f'(there is no global function "{prefix}{attr}")'
        )

    def __dir__():  # noqa: N807
        return sorted(set(module.__dict__) | set(_names()))

    module.__getattr__ = __getattr__
    module.__dir__ = __dir__
