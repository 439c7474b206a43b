# error: only a tuple can be unpacked
# at: 7:12
from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")):
    a, b = R.exp(x)
    return a
