from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")):
    a = R.astype(x, "float16")
    b = R.astype(a, dtype="int32")
    d = R.dtype("float32")
    return b
