from tvm.script import ir as I, relax as R, tir as T


@R.function
def main(x: R.Tensor(("n", 4), dtype="float32"), k: R.Prim(value="k")) -> R.Tensor(("n", 4), dtype="float32"):
    n = T.int64()
    k = T.int64()
    p: R.Prim(value=k) = R.prim_value(k)
    y = R.match_cast(x, R.Tensor((n, 4), dtype="float32"))
    return y
