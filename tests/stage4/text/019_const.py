from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")):
    c = R.const(1.0, "float32")
    a = R.add(x, c)
    d = R.const(2, "int32")
    e = R.const([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], "float32")
    f = R.multiply(a, e)
    return f
