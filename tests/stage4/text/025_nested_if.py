from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(c1: R.Tensor((), dtype="bool"), c2: R.Tensor((), dtype="bool"), x: R.Tensor((2, 3), dtype="float32")):
    if c1:
        y = R.exp(x)
    elif c2:
        y = R.log(x)
    else:
        y = R.negative(x)
    return y
