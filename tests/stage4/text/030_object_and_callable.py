from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32"), f: R.Callable((R.Tensor((2, 3), dtype="float32"),), R.Tensor((2, 3), dtype="float32")), o: R.Object):
    y = f(x)
    return o
