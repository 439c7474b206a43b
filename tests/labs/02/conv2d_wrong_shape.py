# Lab 02, wrong: the output declared as (2, 4, 10, 10), the input's size ("same" padding).
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
    def conv2d(X: T.Buffer((2, 3, 10, 10), "float32"), K: T.Buffer((4, 3, 3, 3), "float32"),
               Y: T.Buffer((2, 4, 10, 10), "float32")):
        for n, co, i, j, ci, di, dj in T.grid(2, 4, 8, 8, 3, 3, 3):
            with T.block("Y"):
                vn, vco, vi, vj, vci, vdi, vdj = T.axis.remap("SSSSRRR", [n, co, i, j, ci, di, dj])
                with T.init():
                    Y[vn, vco, vi, vj] = T.float32(0)
                Y[vn, vco, vi, vj] = (Y[vn, vco, vi, vj]
                                      + X[vn, vci, vi + vdi, vj + vdj] * K[vco, vci, vdi, vdj])


MyModule = tvm.IRModule({"mm_relu": _ref["mm_relu"], "conv2d": _Wrong["conv2d"]})
