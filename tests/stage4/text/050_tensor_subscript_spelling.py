from tvm.script import ir as I, relax as R, tir as T


@R.function
def main(x: R.Tensor[(2, 3), "float32"]) -> R.Tensor[(2, 3), "float32"]:
    y: R.Tensor[(2, 3), "float32"] = R.exp(x)
    return y
