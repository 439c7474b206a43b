"""TVMScript: TensorIR (stage 2) and Relax (stage 4, ``relax as R``) as Python-syntax text.

As in TVM::

    from minitvm.script import ir as I, tir as T

    @I.ir_module
    class MyModule:
        @T.prim_func
        def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
            ...

The decorators do not run the decorated code: they hand its source text (found with
``inspect``) to the C++ parser, together with the file name and the line it starts at, so a
``ParseError`` points at the line of your ``.py`` file. :func:`from_source` parses a string.
``mod.script()`` / ``print(mod)`` print the current format through ``"script.AsScript"``.

The ``T`` and ``I`` modules here only need to make the decorated source *importable*: the
annotations (``T.Buffer((8,), "float32")``, ``T.handle``, ``T.int32``) are evaluated by Python
when the ``def`` runs, so they are harmless placeholder objects.
"""
import sys as _sys

from . import ir, relax, tir
from .parser import from_source, ir_module, prim_func, as_script

# TVM 0.22 renamed the TensorIR script namespace to `tirx` (`from tvm.script import tirx as T`);
# both spellings name the same module here.
tirx = tir
_sys.modules[__name__ + ".tirx"] = tir

__all__ = ["ir", "relax", "tir", "tirx", "from_source", "ir_module", "prim_func", "as_script"]
