# error: return inside a dataflow block
# at: 9:9
from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")):
    with R.dataflow():
        y = R.exp(x)
        return y
