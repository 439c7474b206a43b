from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((4, 3), dtype="float32"), idx: R.Tensor((2,), dtype="int64")):
    a = R.take(x, idx, axis=0)
    b = R.strided_slice(x, axes=[1], begin=[0], end=[2])
    return (a, b)
