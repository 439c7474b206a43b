from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(cond: R.Tensor((), dtype="bool"), x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
    if cond:
        a = R.add(x, x)
        y = R.multiply(a, x)
    else:
        y = R.subtract(x, x)
    return y
