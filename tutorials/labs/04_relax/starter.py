# Lab 04 — Relax: the MLP with call_tir in a dataflow block
# ===========================================================
#
# MLPModule holds the model  relu(x @ w0.T + b0) @ w1.T + b1  for x (4, 64): two linear layers
# (given below as PrimFuncs) around a relu. Complete it:
#
#   1. relu0: the PrimFunc Y = max(X, 0) for (4, 32) float32;
#   2. main: call linear0, relu0 and linear1 with R.call_tir inside `with R.dataflow():`,
#      naming the result with R.output(...), and return it. R.call_tir(MLPModule.f, (args,),
#      R.Tensor(shape, dtype="float32")) allocates the output it describes and passes it to f.
#
# The grader runs main on the Relax reference interpreter and compares it with the same model
# written with Relax operators; it also checks the dataflow block and the call_tirs.
#
# Check your work with:   minitvm lab check 4 starter.py
from minitvm.script import ir as I
from minitvm.script import relax as R
from minitvm.script import tir as T


@I.ir_module
class MLPModule:
    @T.prim_func
    def linear0(X: T.Buffer((4, 64), "float32"), W: T.Buffer((32, 64), "float32"),
                B: T.Buffer((32,), "float32"), Z: T.Buffer((4, 32), "float32")):
        Y = T.alloc_buffer((4, 32), "float32")
        for i, j, k in T.grid(4, 32, 64):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid(4, 32):
            with T.block("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = Y[vi, vj] + B[vj]

    @T.prim_func
    def linear1(X: T.Buffer((4, 32), "float32"), W: T.Buffer((10, 32), "float32"),
                B: T.Buffer((10,), "float32"), Z: T.Buffer((4, 10), "float32")):
        Y = T.alloc_buffer((4, 10), "float32")
        for i, j, k in T.grid(4, 10, 32):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid(4, 10):
            with T.block("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = Y[vi, vj] + B[vj]

    @T.prim_func
    def relu0(X: T.Buffer((4, 32), "float32"), Y: T.Buffer((4, 32), "float32")):
        # TODO(lab 04): a loop nest over (4, 32) around a block "Y" computing the relu.
        T.evaluate(0)

    @R.function
    def main(x: R.Tensor((4, 64), "float32"), w0: R.Tensor((32, 64), "float32"),
             b0: R.Tensor((32,), "float32"), w1: R.Tensor((10, 32), "float32"),
             b1: R.Tensor((10,), "float32")):
        # TODO(lab 04): a dataflow block with three R.call_tir (linear0, relu0, linear1),
        # R.output(...) of the last one, and return it.
        return x
