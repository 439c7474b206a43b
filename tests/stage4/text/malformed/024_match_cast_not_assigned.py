# error: must be the value of an assignment
# at: 7:5
from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")):
    R.match_cast(x, R.Tensor((2, 3), "float32"))
    return x
