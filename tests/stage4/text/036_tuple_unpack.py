from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 4), dtype="float32")):
    a, b = R.split(x, 2, axis=1)
    return a
