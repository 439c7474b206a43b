# error: loops are not supported
# at: 7:5
from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")):
    for i in range(3):
        y = R.exp(x)
    return x
