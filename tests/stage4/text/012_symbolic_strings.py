from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor(("n", 784), dtype="float32"), w: R.Tensor((784, 128), dtype="float32")) -> R.Tensor(("n", 128), dtype="float32"):
    n = T.int64()
    with R.dataflow():
        lv = R.matmul(x, w)
        gv = R.add(lv, lv)
        R.output(gv)
    return gv
