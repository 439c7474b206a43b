# error: no operator "relax.frobnicate" is registered
# at: 7:9
from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")):
    y = R.frobnicate(x)
    return y
