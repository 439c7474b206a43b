# error: does not match the struct info of its value
# at: 7:8
from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")):
    y: R.Tensor((3, 3), dtype="float32") = R.add(x, x)
    return y
