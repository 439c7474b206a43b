from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")):
    with R.dataflow():
        a = R.exp(x)
        b = R.log(a)
        c = R.add(a, b)
        R.output(a, c)
    d = R.multiply(a, c)
    return d
