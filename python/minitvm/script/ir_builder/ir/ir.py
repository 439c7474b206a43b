"""The ``I.`` functions of the IRBuilder (stage 2), as ``tvm.script.ir_builder.ir``."""
from .... import error as _error
from .... import ir as _ir
from ..base import IRBuilder
from .frame import IRModuleFrame

__all__ = [
    "ir_module", "decl_function", "def_function", "module_attrs", "current_ir_module",
    "module_get_attrs", "module_get_attr", "module_set_attr",
]


def ir_module():
    """``with I.ir_module():`` — an IRModule, the builder's result."""
    return IRModuleFrame()


def current_ir_module():
    """The innermost open module frame; a ValueError when there is none."""
    frame = IRBuilder.current("I.ir_module functions").find_frame(IRModuleFrame)
    if frame is None:
        raise _error.ValueError("this call must be made inside `with I.ir_module():`")
    return frame


def decl_function(func_name, func_signature):
    """Declare the function ``func_name`` (its GlobalVar, returned) before defining it, so
    that other functions can refer to it."""
    frame = current_ir_module()
    if func_name in frame.global_var_map:
        raise _error.ValueError(f"I.decl_function: function {func_name!r} already exists")
    gv = _ir.GlobalVar(func_name)
    frame.global_var_map[func_name] = gv
    frame.functions[func_name] = func_signature
    return gv


def def_function(func_name, func):
    """Define the declared function ``func_name`` as ``func``."""
    frame = current_ir_module()
    if func_name not in frame.global_var_map:
        raise _error.ValueError(f"I.def_function: function {func_name!r} is not declared "
                                "(call I.decl_function first)")
    if func_name in frame.defined:
        raise _error.ValueError(f"I.def_function: function {func_name!r} is defined twice")
    frame.functions[func_name] = func
    frame.defined.add(func_name)


def module_attrs(attrs, allow_overwrite=False):
    """Module attributes (a dict)."""
    frame = current_ir_module()
    if frame.attrs and not allow_overwrite:
        raise _error.ValueError("I.module_attrs: the module already has attributes")
    frame.attrs = dict(attrs)


def module_get_attrs():
    """The module attributes given so far."""
    return dict(current_ir_module().attrs)


def module_get_attr(attr_key):
    """One module attribute, or None."""
    return current_ir_module().attrs.get(attr_key)


def module_set_attr(attr_key, attr_value, allow_overwrite=False):
    """Set one module attribute."""
    frame = current_ir_module()
    if attr_key in frame.attrs and not allow_overwrite:
        raise _error.ValueError(f"I.module_set_attr: duplicate attribute {attr_key!r}")
    frame.attrs[attr_key] = attr_value
