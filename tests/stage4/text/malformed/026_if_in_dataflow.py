# error: not allowed inside a dataflow block
# at: 8:9
from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(c: R.Tensor((), dtype="bool"), x: R.Tensor((2, 3), dtype="float32")):
    with R.dataflow():
        if c:
            y = R.exp(x)
        else:
            y = R.log(x)
        R.output(y)
    return y
