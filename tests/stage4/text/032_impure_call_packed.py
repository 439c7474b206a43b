from tvm.script import ir as I, relax as R, tir as T

@R.function(pure=False)
def main(x: R.Tensor((2, 3), dtype="float32")):
    y = R.call_packed("my.print", x, sinfo_args=R.Object)
    return x
