# error: only allowed inside R.dataflow()
# at: 8:5
from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")):
    y = R.exp(x)
    R.output(y)
    return y
