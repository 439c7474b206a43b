# error: unknown dtype "floot32"
# at: 6:36
from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="floot32")):
    return x
