from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor(ndim=2, dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
    with R.dataflow():
        y = R.match_cast(x, R.Tensor((2, 3), "float32"))
        z = R.add(y, y)
        R.output(z)
    return z
