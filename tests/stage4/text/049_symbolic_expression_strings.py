from tvm.script import ir as I, relax as R, tir as T


@R.function
def main(x: R.Tensor(("n", "w"), dtype="float32"), s: R.Shape(["w - 1"])) -> R.Tensor(("n", "w * 2"), dtype="float32"):
    n = T.int64()
    w = T.int64()
    y = R.concat((x, x), axis=1)
    return y
