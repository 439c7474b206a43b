from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")):
    with R.dataflow():
        a = R.nn.relu(x)
        b = R.nn.softmax(a, axis=-1)
        c = R.nn.gelu(b)
        R.output(c)
    return c
