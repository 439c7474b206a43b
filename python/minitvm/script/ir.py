"""``from minitvm.script import ir as I``: the ``I.`` names of TVMScript (stage 2).

``I.ir_module`` is the module decorator; the other names only need to exist so that a
decorated class body can run (``I.module_attrs({...})`` executes while Python builds the
class, before the decorator hands the source to the parser).
"""
from .parser import ir_module

__all__ = ["ir_module", "module_attrs"]


def module_attrs(attrs):  # pylint: disable=unused-argument
    """Module attributes; read by the parser from the source, nothing to do at run time."""
    return None
