from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor(("n", "m"), dtype="float32")) -> R.Tensor(("n", "m"), dtype="float32"):
    n = T.int64()
    m = T.int64()
    y: R.Tensor((n, m), dtype="float32") = R.exp(x)
    return y
