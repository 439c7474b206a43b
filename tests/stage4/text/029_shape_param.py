from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32"), s: R.Shape([3, 2])):
    y = R.reshape(x, s)
    return y
