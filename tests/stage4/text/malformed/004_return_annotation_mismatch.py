# error: return annotation
# at: 6:51
from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((4, 4), dtype="float32"):
    y = R.exp(x)
    return y
