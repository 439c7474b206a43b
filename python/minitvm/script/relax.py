"""``from minitvm.script import relax as R``: the ``R.`` names of TVMScript (stage 4).

``R.function`` is the decorator that parses a Relax function: alone it gives a
``relax.Function``, inside an ``@I.ir_module`` class it marks the function and the module
decorator parses the whole class (Relax functions and ``@T.prim_func``s together). Every other
``R.`` name (``R.Tensor``, ``R.call_tir``, ``R.nn.relu``, ...) is read by the C++ parser from
the source text; here it only has to be a harmless Python object, because annotations such as
``x: R.Tensor((1, 784), "float32")`` are evaluated when Python runs the ``def``.
"""
from .. import error as _error
from .parser import _called_in_class_body, _parse_decorated

__all__ = ["function"]


class _ScriptName:
    """A placeholder for an ``R.`` name: callable, subscriptable, with sub-names."""

    def __init__(self, name):
        self._name = name

    def __call__(self, *args, **kwargs):
        return self

    def __getitem__(self, item):
        return self

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _ScriptName(f"{self._name}.{name}")

    def __repr__(self):
        return f"R.{self._name}"


class StructInfoProxy:
    """The annotation classes behind ``R.Object``, ``R.Tensor``, ... (TVM keeps them in
    ``tvm.script.parser.relax.entry``); scripts are parsed from text, so these only name them."""


class ObjectProxy(StructInfoProxy):
    """``R.Object``."""


class TensorProxy(StructInfoProxy):
    """``R.Tensor``."""


class CallableProxy(StructInfoProxy):
    """``R.Callable``."""


class TupleProxy(StructInfoProxy):
    """``R.Tuple``."""


class ShapeProxy(StructInfoProxy):
    """``R.Shape``."""


def function(func=None, pure=True, private=False, check_well_formed=True):  # pylint: disable=unused-argument
    """Decorator: the decorated function's TVMScript source becomes a ``relax.Function``.

    Inside an ``@I.ir_module`` class the function is left alone (the module decorator parses
    the whole class). ``pure=False`` marks a function with side effects, ``private=True`` one
    without a global symbol; both are read by the parser from the source.
    """

    def decorate(f):
        if _called_in_class_body(1):
            f.__minitvm_relax_function__ = True
            return f
        return _parse_decorated(f, 1)

    if func is None:
        return decorate
    if not callable(func):
        raise _error.TypeError(f"R.function decorates a function, not {func!r}")
    if _called_in_class_body(1):
        func.__minitvm_relax_function__ = True
        return func
    return _parse_decorated(func, 1)


def __getattr__(name):
    """``R.Tensor``, ``R.call_tir``, ``R.nn``, ...: placeholders (the parser reads the text)."""
    if name.startswith("__"):
        raise AttributeError(f"module 'minitvm.script.relax' has no attribute {name!r}")
    return _ScriptName(name)
