"""Errors raised by minitvm (stage 1).

Every failure reported by C++ carries a *kind*: a dotted name whose first component is the
base kind (``ValueError``, ``TypeError``, ``IndexError``, ``AttributeError``,
``RuntimeError``, ``InternalError``, ``ParseError``, ``ScheduleError``) and whose further
components name a more specific rule (``ScheduleError.LoopsNotAChainError``).

Across the FFI a kind becomes a Python class that derives from :class:`TVMError` *and*
from the Python builtin of the same meaning, so both of these work::

    try:
        minitvm.nd.empty((-1,))
    except ValueError:            # the builtin
        ...
    except minitvm.TVMError:      # every minitvm error
        ...

Dotted kinds create (and cache) subclasses on demand: the kind
``"ScheduleError.LoopsNotAChainError"`` becomes a class ``LoopsNotAChainError`` deriving
from :class:`ScheduleError`. Later stages may define their own class for a kind with
:func:`register_error`.

Each class has an ``error_kind`` attribute with its dotted kind; when a Python callback
called from C++ raises, that attribute (or, for other exceptions, the class name) is the
kind C++ sees, so an error keeps its class on a round trip through C++.
"""
import builtins
import threading

__all__ = [
    "TVMError",
    "ValueError",
    "TypeError",
    "IndexError",
    "AttributeError",
    "KeyError",
    "RuntimeError",
    "InternalError",
    "ParseError",
    "ScheduleError",
    "register_error",
    "get_error_class",
    "create_error",
]


class TVMError(builtins.Exception):
    """Base class of every error raised by minitvm."""

    error_kind = "TVMError"


class ValueError(TVMError, builtins.ValueError):  # pylint: disable=redefined-builtin
    """A value is not acceptable (bad shape, unknown dtype, missing global function ...)."""

    error_kind = "ValueError"


class TypeError(TVMError, builtins.TypeError):  # pylint: disable=redefined-builtin
    """A value has the wrong type, or a function got the wrong number of arguments."""

    error_kind = "TypeError"


class IndexError(TVMError, builtins.IndexError):  # pylint: disable=redefined-builtin
    """An index is out of range."""

    error_kind = "IndexError"


class AttributeError(TVMError, builtins.AttributeError):  # pylint: disable=redefined-builtin
    """A node has no such field, or a module no such function."""

    error_kind = "AttributeError"


class KeyError(TVMError, builtins.KeyError):  # pylint: disable=redefined-builtin
    """A key is missing from a map."""

    error_kind = "KeyError"

    def __str__(self):
        # builtins.KeyError quotes its message; minitvm messages are sentences.
        return builtins.Exception.__str__(self)


class RuntimeError(TVMError, builtins.RuntimeError):  # pylint: disable=redefined-builtin
    """Something failed while running (no device, out of memory, duplicate registration)."""

    error_kind = "RuntimeError"


class InternalError(TVMError, builtins.RuntimeError):
    """A check inside minitvm failed: a bug in minitvm, not in its input."""

    error_kind = "InternalError"


class ParseError(TVMError, builtins.ValueError):
    """TVMScript (or another text format) could not be parsed."""

    error_kind = "ParseError"


class ScheduleError(TVMError, builtins.ValueError):
    """A schedule primitive was applied where it is not legal."""

    error_kind = "ScheduleError"


_LOCK = threading.Lock()
_CLASSES = {
    cls.error_kind: cls
    for cls in (
        TVMError,
        ValueError,
        TypeError,
        IndexError,
        AttributeError,
        KeyError,
        RuntimeError,
        InternalError,
        ParseError,
        ScheduleError,
    )
}


def register_error(kind, cls=None):
    """Use ``cls`` for errors of ``kind`` (decorator or call).

    ``cls`` must derive from :class:`TVMError`; its ``error_kind`` is set to ``kind``.

    Example::

        @minitvm.error.register_error("ScheduleError.LoopsNotAChainError")
        class LoopsNotAChainError(minitvm.error.ScheduleError):
            pass
    """

    def _register(klass):
        if not (isinstance(klass, type) and issubclass(klass, TVMError)):
            raise TypeError(f"register_error: {klass!r} is not a subclass of TVMError")
        klass.error_kind = kind
        with _LOCK:
            _CLASSES[kind] = klass
        return klass

    if cls is None:
        return _register
    return _register(cls)


def _make_class(name, bases, kind):
    attrs = {"error_kind": kind, "__module__": __name__, "__doc__": f"minitvm error {kind}."}
    try:
        return type(name, bases, attrs)
    except builtins.TypeError:  # an instance layout conflict with an exotic builtin
        return type(name, (bases[0],), attrs)


def get_error_class(kind):
    """The exception class for an error kind, created and cached on first use.

    An unknown base kind that names a Python exception (``"KeyError"``,
    ``"ZeroDivisionError"``) gives a class deriving from TVMError and that builtin; any other
    unknown kind gives a direct subclass of TVMError.
    """
    with _LOCK:
        cls = _CLASSES.get(kind)
    if cls is not None:
        return cls
    parts = kind.split(".") if kind else ["TVMError"]
    prefix = parts[0]
    with _LOCK:
        cls = _CLASSES.get(prefix)
    if cls is None:
        builtin = getattr(builtins, prefix, None)
        if isinstance(builtin, type) and issubclass(builtin, builtins.BaseException):
            bases = (TVMError, builtin)
        else:
            bases = (TVMError,)
        cls = _make_class(prefix or "TVMError", bases, prefix)
        with _LOCK:
            cls = _CLASSES.setdefault(prefix, cls)
    for part in parts[1:]:
        prefix = prefix + "." + part
        with _LOCK:
            sub = _CLASSES.get(prefix)
        if sub is None:
            sub = _make_class(part, (cls,), prefix)
            with _LOCK:
                sub = _CLASSES.setdefault(prefix, sub)
        cls = sub
    return cls


def create_error(kind, message):
    """The exception instance for a C++ error: ``get_error_class(kind)(message)``."""
    return get_error_class(kind)(message)
