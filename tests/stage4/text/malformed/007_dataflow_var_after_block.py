# error: list it in R.output
# at: 11:12
from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")):
    with R.dataflow():
        a = R.exp(x)
        b = R.log(a)
        R.output(b)
    return a
