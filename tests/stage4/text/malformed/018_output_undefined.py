# error: R.output: "w" is not defined
# at: 9:18
from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")):
    with R.dataflow():
        y = R.exp(x)
        R.output(w)
    return y
