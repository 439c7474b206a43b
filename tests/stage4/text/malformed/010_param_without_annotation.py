# error: needs a struct info annotation
# at: 6:10
from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x):
    return x
