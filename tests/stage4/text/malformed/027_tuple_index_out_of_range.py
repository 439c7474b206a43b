# error: out of range
# at: 8:11
from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")):
    t = (x, x)
    a = t[2]
    return a
