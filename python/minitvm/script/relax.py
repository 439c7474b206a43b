"""``from minitvm.script import relax as R``: the ``R.`` names of TVMScript (stage 4).

``R.function`` is the decorator that parses a Relax function: alone it gives a
``relax.Function``, inside an ``@I.ir_module`` class it marks the function and the module
decorator parses the whole class (Relax functions and ``@T.prim_func``s together).

The struct-info names ``R.Tensor``, ``R.Tuple``, ``R.Shape``, ``R.Prim``, ``R.Callable`` and
``R.Object`` are also Python values, as in TVM: ``R.Tensor((n, 784), "float32")`` called in
plain Python is the ``TensorStructInfo`` (``R.Object`` is the ``ObjectStructInfo``). In a
decorated function the C++ parser reads them from the source text; Python only evaluates them
in annotations, where one it cannot make yet (a string dimension ``"n"`` that only the parser
defines) gives a harmless ``StructInfoProxy``. Every other ``R.`` name (``R.call_tir``,
``R.nn.relu``, ...) is a placeholder object for the same reason.
"""
from .. import error as _error
from .parser import _called_in_class_body, _parse_decorated

__all__ = ["function", "Tensor", "Tuple", "Shape", "Prim", "Callable", "Object"]


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
    """An ``R.`` struct-info annotation that could not be made into a StructInfo yet (TVM keeps
    these classes in ``tvm.script.parser.relax.entry``).

    ``R.Tensor((n, 784), "float32")`` called in plain Python gives the real
    ``TensorStructInfo`` when every argument is a value (ints, ``tir.Var``s, expressions).
    A dimension written as a string (``R.Tensor(("n", 784))``) names a symbolic variable that
    only the parser defines, so the call gives a proxy instead: a harmless object for the
    annotation, which ``as_struct_info(dict_globals)`` turns into the StructInfo once the names
    have values (TVM's behaviour).
    """

    def as_struct_info(self, dict_globals=None):
        """The StructInfo, with string dimensions evaluated in ``dict_globals``."""
        raise NotImplementedError()

    def get_symbolic_vars(self):
        """The names of the symbolic variables written as strings."""
        return set()

    def __call__(self, *args, **kwargs):
        return self

    def __getitem__(self, item):
        return self

    def __repr__(self):
        return f"<{type(self).__name__}>"


def _eval_dim(value, dict_globals):
    if isinstance(value, str):
        return eval(compile(value, "<string>", "eval"), dict(dict_globals or {}))  # pylint: disable=eval-used
    return value


def _names(values):
    if values is None or not isinstance(values, (list, tuple)):
        return set()
    return {v for v in values if isinstance(v, str) and v.isidentifier()}


def _as_info(value, dict_globals=None):
    """A field of ``R.Tuple`` / ``R.Callable``: a StructInfo, a proxy, or a bare ``R.Tensor``."""
    from ..relax import StructInfo as _StructInfo  # pylint: disable=import-outside-toplevel

    if isinstance(value, _StructInfo):
        return value
    if isinstance(value, StructInfoProxy):
        return value.as_struct_info(dict_globals)
    if callable(value):  # `R.Tensor` written without a call
        return _as_info(value(), dict_globals)
    raise _error.TypeError(f"expected a struct info annotation (R.Tensor, ...), got {value!r}")


def _make_or_proxy(proxy):
    """The StructInfo when it can be made now, else the proxy (see StructInfoProxy)."""
    try:
        return proxy.as_struct_info(None)
    except (_error.TVMError, NameError, SyntaxError, TypeError, ValueError, AttributeError):
        return proxy


class TensorProxy(StructInfoProxy):
    """``R.Tensor(shape, dtype, vdevice, ndim)`` not yet made."""

    def __init__(self, shape=None, dtype=None, vdevice=None, ndim=-1):
        self.shape, self.dtype, self.vdevice, self.ndim = shape, dtype, vdevice, ndim

    def get_symbolic_vars(self):
        return _names(self.shape)

    def as_struct_info(self, dict_globals=None):
        from ..relax import TensorStructInfo  # pylint: disable=import-outside-toplevel

        shape = self.shape
        if isinstance(shape, (list, tuple)):
            shape = [_eval_dim(s, dict_globals) for s in shape]
        return TensorStructInfo(shape, self.dtype, self.vdevice, self.ndim)


class TupleProxy(StructInfoProxy):
    """``R.Tuple(fields...)`` not yet made."""

    def __init__(self, *fields):
        if len(fields) == 1 and isinstance(fields[0], (list, tuple)):
            fields = fields[0]
        self.fields = [f() if callable(f) and not isinstance(f, StructInfoProxy) else f
                       for f in fields]

    def get_symbolic_vars(self):
        return set().union(*[f.get_symbolic_vars() for f in self.fields
                             if isinstance(f, StructInfoProxy)])

    def as_struct_info(self, dict_globals=None):
        from ..relax import TupleStructInfo  # pylint: disable=import-outside-toplevel

        return TupleStructInfo([_as_info(f, dict_globals) for f in self.fields])


class ShapeProxy(StructInfoProxy):
    """``R.Shape(values, ndim)`` not yet made."""

    def __init__(self, values=None, ndim=-1):
        self.values, self.ndim = values, ndim

    def get_symbolic_vars(self):
        return _names(self.values)

    def as_struct_info(self, dict_globals=None):
        from ..relax import ShapeStructInfo  # pylint: disable=import-outside-toplevel

        values = self.values
        if values is not None:
            values = [_eval_dim(v, dict_globals) for v in values]
        return ShapeStructInfo(values, self.ndim)


class PrimProxy(StructInfoProxy):
    """``R.Prim(dtype, value)`` not yet made."""

    def __init__(self, dtype=None, value=None):
        self.dtype, self.value = dtype, value

    def get_symbolic_vars(self):
        return _names([self.value])

    def as_struct_info(self, dict_globals=None):
        from ..relax import PrimStructInfo  # pylint: disable=import-outside-toplevel

        if self.value is None:
            return PrimStructInfo(dtype=self.dtype)
        return PrimStructInfo(dtype=self.dtype, value=_eval_dim(self.value, dict_globals))


class CallableProxy(StructInfoProxy):
    """``R.Callable(params, ret, purity)`` not yet made."""

    def __init__(self, params=None, ret=None, purity=None, derive_func=None):
        if params is not None and not isinstance(params, (list, tuple)):
            params = [params]
        # An opaque function is impure by default, one with a signature pure (TVM's defaults).
        self.purity = (params is not None) if purity is None else bool(purity)
        self.params = None if params is None else list(params)
        self.ret = ret
        self.derive_func = derive_func

    def get_symbolic_vars(self):
        return set().union(*[p.get_symbolic_vars() for p in (self.params or [])
                             if isinstance(p, StructInfoProxy)])

    def as_struct_info(self, dict_globals=None):
        from ..relax import FuncStructInfo  # pylint: disable=import-outside-toplevel

        ret = None if self.ret is None else _as_info(self.ret, dict_globals)
        if self.params is None:
            return FuncStructInfo.opaque_func(ret=ret, derive_func=self.derive_func,
                                              purity=self.purity)
        params = [_as_info(p, dict_globals) for p in self.params]
        if ret is None:
            from ..relax import ObjectStructInfo  # pylint: disable=import-outside-toplevel

            ret = ObjectStructInfo()
        return FuncStructInfo(params, ret, purity=self.purity)


def Tensor(shape=None, dtype=None, vdevice=None, ndim=-1):  # pylint: disable=invalid-name
    """``R.Tensor((n, 784), "float32")``: a ``TensorStructInfo`` (``R.Tensor("float32")`` and
    ``R.Tensor(ndim=2)`` leave the shape unknown; ``R.Tensor()`` knows nothing)."""
    from ..relax import Expr  # pylint: disable=import-outside-toplevel

    if isinstance(shape, str) and dtype is None:
        shape, dtype = None, shape
    if shape is not None and not isinstance(shape, (tuple, list, Expr)):
        try:
            shape = list(shape)
        except TypeError:
            raise _error.ValueError(
                f"R.Tensor: shape must be a list/tuple or an Expr, but got: {shape!r}") from None
    return _make_or_proxy(TensorProxy(shape, dtype, vdevice, ndim))


def Tuple(*fields):  # pylint: disable=invalid-name
    """``R.Tuple(R.Tensor(...), R.Shape(...))``: a ``TupleStructInfo``."""
    return _make_or_proxy(TupleProxy(*fields))


def Shape(values=None, ndim=-1):  # pylint: disable=invalid-name
    """``R.Shape([n, 4])`` or ``R.Shape(ndim=2)``: a ``ShapeStructInfo``."""
    return _make_or_proxy(ShapeProxy(values, ndim))


def Prim(dtype=None, value=None):  # pylint: disable=invalid-name
    """``R.Prim("int64")`` or ``R.Prim(value=n)``: a ``PrimStructInfo``."""
    if dtype is None and value is None:
        raise _error.TypeError(
            "R.Prim missing required argument.  Must provide either 'dtype' or 'value'")
    return _make_or_proxy(PrimProxy(dtype, value))


def Callable(params=None, ret=None, purity=None, derive_func=None):  # pylint: disable=invalid-name
    """``R.Callable([R.Tensor(...)], R.Tensor(...))``: a ``FuncStructInfo`` (no params: an
    opaque function)."""
    return _make_or_proxy(CallableProxy(params, ret, purity, derive_func))


def _make_object_value():
    from ..relax import ObjectStructInfo  # pylint: disable=import-outside-toplevel

    class _Object(ObjectStructInfo):
        """``R.Object``: the ``ObjectStructInfo`` itself; calling it (``R.Object()``) gives a
        fresh one, as TVM's ``R.Object`` is also called."""

        def __call__(self):
            return ObjectStructInfo()

    return _Object()


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
    """``R.call_tir``, ``R.nn``, ...: placeholders (the parser reads the text); ``R.Object``."""
    if name == "Object":
        obj = _make_object_value()
        globals()["Object"] = obj
        return obj
    if name.startswith("__"):
        raise AttributeError(f"module 'minitvm.script.relax' has no attribute {name!r}")
    return _ScriptName(name)
