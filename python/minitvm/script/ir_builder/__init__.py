"""``minitvm.script.ir_builder`` (stage 2): build TensorIR functions and IRModules by running
Python, as ``tvm.script.ir_builder``::

    from minitvm.script.ir_builder import IRBuilder
    from minitvm.script.ir_builder import ir as I, tir as T

    with IRBuilder() as ib:
        with T.prim_func():
            T.func_name("main")
            A = T.arg("A", T.Buffer((8,), "float32"))
            with T.serial(8) as i:
                T.buffer_store(A, A[i] * 2.0, [i])
    func = ib.get()

It is the programmatic twin of the TVMScript parser (``@T.prim_func``): the same IR, built
without source text. See docs/tvmscript.md.
"""
from . import ir, tir
from .base import IRBuilder, IRBuilderFrame

__all__ = ["IRBuilder", "IRBuilderFrame", "ir", "tir"]
