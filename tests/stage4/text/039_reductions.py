from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")):
    a = R.sum(x, axis=[1])
    b = R.mean(x, axis=[0], keepdims=True)
    c = R.max(x)
    return (a, b, c)
