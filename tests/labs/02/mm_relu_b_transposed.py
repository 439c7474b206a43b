# Lab 02, wrong: B read as B[j, k] (the linear layer's layout) instead of B[k, j].
import os
import runpy

import minitvm as tvm
from minitvm.script import ir as I
from minitvm.script import tir as T

# The reference solution supplies the function this file does not get wrong.
_ref = runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                   "tutorials", "labs", "02_tensorir", "solution.py"))["MyModule"]


@I.ir_module
class _Wrong:
    @T.prim_func
    def mm_relu(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"),
                C: T.Buffer((128, 128), "float32")):
        Y = T.alloc_buffer((128, 128), dtype="float32")
        for i, j, k in T.grid(128, 128, 128):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vj, vk]
        for i, j in T.grid(128, 128):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.max(Y[vi, vj], T.float32(0))


MyModule = tvm.IRModule({"mm_relu": _Wrong["mm_relu"], "conv2d": _ref["conv2d"]})
