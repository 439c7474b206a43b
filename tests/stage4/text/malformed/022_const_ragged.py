# error: ragged
# at: 7:30
from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")):
    c = R.const([[1.0, 2.0], [3.0]], "float32")
    return c
