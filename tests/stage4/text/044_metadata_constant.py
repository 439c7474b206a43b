from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")):
    c = metadata["relax.expr.Constant"][0]
    y = R.add(x, c)
    return y
