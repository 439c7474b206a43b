"""``IRModule`` (stage 2): the unit every pass and build works on — functions by name
(TensorIR PrimFuncs now, Relax functions from stage 4) plus module attributes.

``IRModule({"main": func})`` builds one (keys may be names or GlobalVars); ``mod["main"]``
looks a function up; ``mod["f"] = func`` adds or replaces one *in place* (as in TVM, a module
is the one mutable container of the IR); ``mod.functions`` maps GlobalVar → function;
``mod.script()`` / ``mod.show()`` print TVMScript.
"""
from .. import error
from .._ffi import get_global_func, register_object
from ..runtime import Object
from .expr import GlobalVar
from . import _ffi_api

__all__ = ["IRModule"]


def _as_script(node):
    """TVMScript text through the printer ("script.AsScript"), else the generic repr."""
    printer = get_global_func("script.AsScript", allow_missing=True)
    if printer is None:
        return repr(node)
    return printer(node)


@register_object("ir.IRModule")
class IRModule(Object):
    """A module of functions: see the module docstring."""

    def __init__(self, functions=None, attrs=None):
        functions = dict(functions or {})
        for key, value in functions.items():
            if not isinstance(key, (str, GlobalVar)):
                raise error.TypeError(
                    f"IRModule: keys must be function names or GlobalVars, not {type(key).__name__}"
                )
            if not isinstance(value, Object):
                raise error.TypeError(
                    f"IRModule: {key!r} maps to a {type(value).__name__}, not a function"
                )
        self.__init_handle_by_constructor__(_ffi_api.IRModule, functions, attrs)

    @staticmethod
    def from_expr(func, name="main"):
        """A module holding one function."""
        return IRModule({name: func})

    def __getitem__(self, key):
        if not isinstance(key, (str, GlobalVar)):
            raise error.TypeError(f"IRModule lookups take a name or a GlobalVar, not {key!r}")
        return _ffi_api.IRModuleLookup(self, key)

    def __setitem__(self, key, func):
        _ffi_api.IRModuleAddInPlace(self, key, func, True)

    def __delitem__(self, key):
        _ffi_api.IRModuleRemoveInPlace(self, key)

    def __contains__(self, key):
        return bool(_ffi_api.IRModuleContains(self, key))

    def __len__(self):
        return len(self.get_global_vars())

    def __iter__(self):
        return iter(self.get_global_vars())

    def update_func(self, gv, func):
        """Replace (or add) the function named by ``gv`` in place."""
        _ffi_api.IRModuleAddInPlace(self, gv, func, True)

    def update(self, other):
        """Add every function of ``other`` (an IRModule or a dict), replacing same names."""
        items = other.functions.items() if isinstance(other, IRModule) else dict(other).items()
        for gv, func in items:
            self[gv] = func

    def get_global_var(self, name):
        """The GlobalVar named ``name``; ValueError when there is none."""
        return _ffi_api.IRModuleGetGlobalVar(self, name)

    def get_global_vars(self):
        """All GlobalVars, in insertion order."""
        return list(_ffi_api.IRModuleGetGlobalVars(self))

    def functions_items(self):
        """(GlobalVar, function) pairs, in insertion order."""
        return list(self.functions.items())

    def with_attr(self, attr_key, attr_value):
        """A copy with a module attribute set."""
        return _ffi_api.IRModuleWithAttr(self, attr_key, attr_value)

    def copy(self):
        """A new module with the same functions and attributes."""
        return _ffi_api.IRModuleCopy(self)

    def script(self, **kwargs):
        """The module as TVMScript text (``@I.ir_module class Module: ...``)."""
        return _as_script(self)

    def show(self, style=None, black_format=None, **kwargs):
        """Print :meth:`script`, highlighted in a terminal or a notebook (see
        :func:`minitvm.script.highlight.cprint` for ``style`` and ``black_format``)."""
        from ..script.highlight import cprint  # pylint: disable=import-outside-toplevel

        cprint(self.script(**kwargs), style=style, black_format=black_format)

    def _repr_html_(self):
        """The module as highlighted TVMScript (Jupyter's rich display)."""
        from ..script.highlight import to_html  # pylint: disable=import-outside-toplevel

        return to_html(self.script())

    def astext(self, **kwargs):
        """Like :meth:`script` (an old TVM name)."""
        return self.script(**kwargs)

    def __eq__(self, other):
        return self.same_as(other)

    __hash__ = Object.__hash__
