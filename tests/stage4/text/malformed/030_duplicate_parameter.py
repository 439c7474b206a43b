# error: duplicate parameter "x"
# at: 6:48
from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32"), x: R.Tensor((2, 3), dtype="float32")):
    return x
