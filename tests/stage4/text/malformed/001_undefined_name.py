# error: undefined variable "zz"
# at: 7:18
from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")):
    y = R.add(x, zz)
    return y
