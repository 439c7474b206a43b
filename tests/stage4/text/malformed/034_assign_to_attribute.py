# error: assigns a name
# at: 7:5
from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")):
    R.add = x
    return x
