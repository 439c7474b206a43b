# Lab 04, wrong: relu0 is never called (linear1 reads linear0's output).
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
        for i, j in T.grid(4, 32):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.max(X[vi, vj], T.float32(0))

    @R.function
    def main(x: R.Tensor((4, 64), "float32"), w0: R.Tensor((32, 64), "float32"),
             b0: R.Tensor((32,), "float32"), w1: R.Tensor((10, 32), "float32"),
             b1: R.Tensor((10,), "float32")):
        with R.dataflow():
            lv0 = R.call_tir(MLPModule.linear0, (x, w0, b0), R.Tensor((4, 32), dtype="float32"))
            lv1 = R.call_tir(MLPModule.relu0, (lv0,), R.Tensor((4, 32), dtype="float32"))
            out = R.call_tir(MLPModule.linear1, (lv0, w1, b1), R.Tensor((4, 10), dtype="float32"))
            R.output(out)
        return out
