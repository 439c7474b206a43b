from tvm.script import ir as I, relax as R, tir as T


@I.ir_module
class Module:
    @T.prim_func
    def shift(var_x: T.handle, var_y: T.handle, m: T.int64):
        n = T.int64()
        X = T.match_buffer(var_x, (n,))
        Y = T.match_buffer(var_y, (n,))
        for i in range(n):
            with T.block("Y"):
                vi = T.axis.spatial(n, i)
                Y[vi] = X[vi] + T.Cast("float32", m)

    @R.function
    def main(x: R.Tensor(("n",), dtype="float32"), s: R.Shape(["m"])) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        m = T.int64()
        cls = Module
        y = R.call_tir(cls.shift, (x,), out_sinfo=R.Tensor((n,), dtype="float32"), tir_vars=R.shape([m]))
        return y
