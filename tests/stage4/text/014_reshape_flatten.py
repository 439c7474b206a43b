from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")):
    a = R.reshape(x, (3, 2))
    b = R.reshape(a, R.shape([6]))
    c = R.flatten(x)
    return (b, c)
