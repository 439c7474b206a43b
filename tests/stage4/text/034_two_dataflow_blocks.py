from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")):
    with R.dataflow():
        a = R.exp(x)
        R.output(a)
    b = R.add(a, a)
    with R.dataflow():
        c = R.negative(b)
        R.output(c)
    return c
