from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")):
    y = R.call_pure_packed("my.identity", x, sinfo_args=R.Tensor((2, 3), dtype="float32"))
    z = R.call_pure_packed("my.pair", x, y, sinfo_args=R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="float32")))
    return z
