# error: assigning the same name
# at: 10:9
from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(c: R.Tensor((), dtype="bool"), x: R.Tensor((2, 3), dtype="float32")):
    if c:
        y = R.exp(x)
    else:
        z = R.log(x)
    return y
