"""The pass infrastructure (stage 2), TVM's ``tvm.transform`` (``tvm.ir.transform``).

A :class:`Pass` is a named ``IRModule -> IRModule`` function with an optimisation level;
:class:`Sequential` runs a list of passes; a :class:`PassContext` holds the settings they run
under (``opt_level``, required and disabled passes, ``config``) and the *instruments* that
watch every pass::

    import minitvm as tvm
    seq = tvm.transform.Sequential([tvm.tir.transform.LowerInitBlock(),
                                    tvm.tir.transform.FlattenBuffer()])
    with tvm.transform.PassContext(opt_level=3, instruments=[tvm.transform.PrintDiff()]):
        lowered = seq(mod)

Instruments may be written in Python: subclass :class:`PassInstrument` (or decorate a class
with :func:`pass_instrument`) and define any of ``enter_pass_ctx``, ``exit_pass_ctx``,
``should_run(mod, info)``, ``run_before_pass(mod, info)``, ``run_after_pass(mod, info)``.
Passes may be written in Python with :func:`module_pass`. Everything runs in C++ (the
"transform.*" globals); this file only wraps it.
"""
import functools
import inspect

from . import error
from ._ffi import get_global_func, register_object
from .runtime.object import Object

__all__ = [
    "Pass",
    "PassInfo",
    "PassContext",
    "PassInstrument",
    "ModulePass",
    "Sequential",
    "module_pass",
    "register_config_option",
    "pass_instrument",
    "PrintBeforeAfter",
    "PrintDiff",
    "PrintIR",
    "module_text",
    "line_diff",
]


def _opt_level(value, what):
    """An optimisation level: an int >= 0 (a float or a str is a TypeError, not truncated)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise error.TypeError(f"{what}: opt_level must be an int, not {value!r}")
    if not 0 <= value < 2**31:
        raise error.ValueError(f"{what}: opt_level must be >= 0, not {value}")
    return value


def _names(value, what):
    """A list of pass names; a single str is one name (not a list of letters)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if not isinstance(value, (list, tuple, set, frozenset)):
        raise error.TypeError(f"PassContext: {what} must be a list of pass names, not {value!r}")
    return list(value)


def _config(value):
    """The config dict; its keys are checked against the declared ones in C++."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise error.TypeError(f"PassContext: config must be a dict, not {type(value).__name__}")
    for key in value:
        if not isinstance(key, str):
            raise error.TypeError(f"PassContext: config keys are str, not {key!r}")
    return dict(value)


def register_config_option(name, value_type):
    """Declare the config key ``name`` with values of ``value_type`` (``bool``, ``int``,
    ``float`` or ``str``, the type or its name), for a pass written in Python that reads it.
    Declaring a key again with the same type does nothing."""
    if isinstance(value_type, type):
        value_type = value_type.__name__
    if not isinstance(name, str) or not isinstance(value_type, str):
        raise error.TypeError("register_config_option expects a name and a type name (str)")
    _api("RegisterConfigOption")(name, value_type)


def _api(name):
    return get_global_func("transform." + name)


@register_object("transform.PassInfo")
class PassInfo(Object):
    """A pass's name, ``opt_level`` and the passes it requires."""

    def __init__(self, opt_level, name, required=None):
        self.__init_handle_by_constructor__(_api("PassInfo"), _opt_level(opt_level, "PassInfo"), name,
                                            _names(required, "required"))


@register_object("transform.PassInstrument")
class PassInstrument(Object):
    """Watches passes. Subclass it and define any of the hooks ``enter_pass_ctx()``,
    ``exit_pass_ctx()``, ``should_run(mod, info) -> bool``, ``run_before_pass(mod, info)``,
    ``run_after_pass(mod, info)``; or get a built-in one (:func:`PrintBeforeAfter`,
    :func:`PrintDiff`)."""

    def __init__(self, name=None):
        hooks = []
        for hook in ("enter_pass_ctx", "exit_pass_ctx", "should_run", "run_before_pass", "run_after_pass"):
            fn = getattr(self, hook, None)
            hooks.append(fn if callable(fn) else None)
        self.__init_handle_by_constructor__(_api("PassInstrument"), name or type(self).__name__, *hooks)


def pass_instrument(cls):
    """Class decorator: make a plain class with instrument hooks a :class:`PassInstrument`
    (TVM's ``@tvm.instrument.pass_instrument``)."""

    class _Instrument(cls, PassInstrument):  # pylint: disable=too-few-public-methods
        def __init__(self, *args, **kwargs):
            cls.__init__(self, *args, **kwargs)
            PassInstrument.__init__(self, cls.__name__)

    functools.update_wrapper(_Instrument, cls, updated=())
    return _Instrument


@register_object("transform.PassContext")
class PassContext(Object):
    """The settings passes run under; use it as a context manager::

        with PassContext(opt_level=3, config={"tir.disable_vectorize": True}):
            ...
    """

    def __init__(self, opt_level=2, required_pass=None, disabled_pass=None, instruments=None, config=None):
        self.__init_handle_by_constructor__(
            _api("PassContext"),
            _opt_level(opt_level, "PassContext"),
            _names(required_pass, "required_pass"),
            _names(disabled_pass, "disabled_pass"),
            _config(config),
            list(instruments or []),
        )

    def __enter__(self):
        _api("EnterPassContext")(self)
        return self

    def __exit__(self, exc_type, exc, tb):
        _api("ExitPassContext")(self)

    @staticmethod
    def list_configs():
        """The declared config keys and the type of each (``{"tir.disable_vectorize": "bool"}``).
        A context refuses any other key: a pass declares the keys it reads."""
        return {str(k): str(v) for k, v in _api("ListConfigOptions")().items()}

    @staticmethod
    def current():
        """The innermost entered context (a default one outside any ``with``)."""
        return _api("GetCurrentPassContext")()

    def override_instruments(self, instruments):
        """Replace the instruments of this context."""
        _api("PassContextSetInstruments")(self, list(instruments))


@register_object("transform.Pass")
class Pass(Object):
    """A pass; call it on an IRModule."""

    @property
    def info(self):
        """The :class:`PassInfo` (name, opt_level, required)."""
        return _api("Info")(self)

    @property
    def name(self):
        return self.info.name

    def __call__(self, mod):
        return _api("RunPass")(self, mod)

    def __repr__(self):
        info = self.info
        return f"{type(self).__name__}({info.name!r}, opt_level={info.opt_level})"


@register_object("transform.ModulePass")
class ModulePass(Pass):
    """A pass over the whole module."""


@register_object("transform.Sequential")
class Sequential(Pass):
    """Runs passes in order; each one is checked against the PassContext (level, required,
    disabled) and reported to its instruments."""

    def __init__(self, passes=None, opt_level=0, name="sequential", required=None):
        del required  # accepted for TVM compatibility; required passes run inside each pass
        self.__init_handle_by_constructor__(_api("Sequential"), list(passes or []),
                                            _opt_level(opt_level, "Sequential"), name)

    @property
    def passes(self):
        """The passes, in order."""
        return list(_api("SequentialPasses")(self))

    def __iter__(self):
        return iter(self.passes)

    def __len__(self):
        return len(self.passes)

    def __repr__(self):
        names = ", ".join(str(p.info.name) for p in self.passes)
        return f"Sequential({self.info.name!r}: [{names}])"


def module_pass(pass_func=None, opt_level=0, name=None, required=None):
    """Make a module pass from ``pass_func(mod, ctx) -> mod`` (decorator or call)."""

    def create(func):
        fname = name or getattr(func, "__name__", "module_pass")
        if inspect.isclass(func):
            instance = func()
            fn = instance.transform_module
        else:
            fn = func
        return _api("MakeModulePass")(fn, _opt_level(opt_level, "module_pass"), fname,
                                      _names(required, "required"))

    if pass_func is not None:
        return create(pass_func)
    return create


def PrintBeforeAfter():  # noqa: N802 - TVM-style constructor name
    """An instrument that prints the module before and after every pass."""
    return _api("PrintBeforeAfter")()


def PrintDiff():  # noqa: N802
    """An instrument that prints what each pass changed, as a line diff."""
    return _api("PrintDiff")()


def PrintIR(header="", show_meta_data=False):  # noqa: N802
    """A pass that prints the module and returns it unchanged (TVM's ``PrintIR``)."""
    del show_meta_data

    def _print(mod, ctx):
        print(f"# PrintIR {header}".rstrip())
        print(module_text(mod))
        return mod

    return module_pass(_print, opt_level=0, name="PrintIR")


def module_text(mod):
    """The text instruments print for a module (TVMScript)."""
    return _api("ModuleText")(mod)


def line_diff(before, after):
    """A unified line diff of two texts (empty when equal)."""
    return _api("LineDiff")(before, after)
