# error: cannot read the dimension "n +"
# at: 6:23
from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor(("n +", 4), dtype="float32")):
    return x
