from tvm.script import ir as I, relax as R, tir as T

@I.ir_module
class Module:
    @T.prim_func
    def two(X: T.Buffer((4,), "float32"), A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.block("AB"):
                vi = T.axis.spatial(4, i)
                A[vi] = X[vi]
                B[vi] = X[vi] * T.float32(2)

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")):
        cls = Module
        t = R.call_tir(cls.two, (x,), out_sinfo=[R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")])
        a = t[0]
        return a
