from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((4, 3), dtype="float32"), y: R.Tensor((3,), dtype="float32")) -> R.Tensor((4, 3), dtype="float32"):
    z: R.Tensor((4, 3), dtype="float32") = R.add(x, y)
    return z
