from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((1, 784), dtype="float32"), w: R.Tensor((784, 128), dtype="float32"), b: R.Tensor((128,), dtype="float32")) -> R.Tensor((1, 128), dtype="float32"):
    with R.dataflow():
        lv = R.matmul(x, w)
        gv = R.add(lv, b)
        R.output(gv)
    return gv
