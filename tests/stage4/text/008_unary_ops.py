from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
    with R.dataflow():
        a = R.exp(x)
        b = R.log(a)
        c = R.sqrt(b)
        d = R.rsqrt(c)
        e = R.tanh(d)
        f = R.sigmoid(e)
        g = R.negative(f)
        h = R.abs(g)
        i = R.erf(h)
        R.output(i)
    return i
