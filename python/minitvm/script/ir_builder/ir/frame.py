"""The module frame of the IRBuilder (stage 2), as ``tvm.script.ir_builder.ir.frame``."""
from .... import ir as _ir
from ..base import IRBuilderFrame

__all__ = ["IRModuleFrame"]


class IRModuleFrame(IRBuilderFrame):
    """``with I.ir_module():`` collects functions (``I.decl_function`` / ``I.def_function``,
    or a ``T.prim_func()`` frame with a ``T.func_name``) and module attributes, and builds
    the IRModule."""

    describe = "I.ir_module()"

    def __init__(self):
        super().__init__()
        self.global_var_map = {}  # name -> GlobalVar, in declaration order
        self.functions = {}  # name -> function (the signature until defined)
        self.defined = set()
        self.attrs = {}

    def exit_with_scope(self):
        funcs = {self.global_var_map[name]: f for name, f in self.functions.items()}
        module = _ir.IRModule(funcs, self.attrs or None)
        builder = self._builder
        if builder._frames:  # pylint: disable=protected-access
            from .... import error as _error  # pylint: disable=import-outside-toplevel

            raise _error.ValueError(
                "I.ir_module() cannot be nested in "
                f"{builder._frames[-1].describe}")  # pylint: disable=protected-access
        builder._set_result(module)  # pylint: disable=protected-access
