from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((2, 3), dtype="float32")):
    a: R.Tensor((2, 3), dtype="float32") = R.add(x, y)
    b: R.Tensor((2, 3), dtype="float32") = R.subtract(a, y)
    c: R.Tensor((2, 3), dtype="float32") = R.multiply(b, x)
    d: R.Tensor((2, 3), dtype="float32") = R.divide(c, y)
    e = R.floor_divide(d, y)
    f = R.power(e, x)
    return f
