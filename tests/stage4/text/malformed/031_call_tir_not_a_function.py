# error: calls a function of the module
# at: 16:24
from tvm.script import ir as I, relax as R, tir as T

@I.ir_module
class Module:
    @T.prim_func
    def f(X: T.Buffer((4,), "float32"), Y: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.block("Y"):
                vi = T.axis.spatial(4, i)
                Y[vi] = X[vi]

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")):
        y = R.call_tir("f", (x,), out_sinfo=R.Tensor((4,), dtype="float32"))
        return y
