# error: keepdim
# at: 7:9
from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")):
    y = R.sum(x, axis=[1], keepdim=True)
    return y
