from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(t: R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="float32"))) -> R.Tensor((2, 3), dtype="float32"):
    a = t[0]
    b = t[1]
    c = R.add(a, b)
    return c
