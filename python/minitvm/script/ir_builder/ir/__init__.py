"""``from minitvm.script.ir_builder import ir as I``: IRModules built by running Python
(stage 2), as ``tvm.script.ir_builder.ir``."""
from .frame import IRModuleFrame
from .ir import (
    current_ir_module, decl_function, def_function, ir_module, module_attrs, module_get_attr,
    module_get_attrs, module_set_attr,
)

__all__ = [
    "IRModuleFrame", "current_ir_module", "decl_function", "def_function", "ir_module",
    "module_attrs", "module_get_attr", "module_get_attrs", "module_set_attr",
]
