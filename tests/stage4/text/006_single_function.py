from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
    with R.dataflow():
        lv = R.add(x, y)
        gv = R.multiply(lv, y)
        R.output(gv)
    return gv
