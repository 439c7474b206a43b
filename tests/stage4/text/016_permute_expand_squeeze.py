from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")):
    a = R.permute_dims(x, [1, 0])
    b = R.expand_dims(a, axis=0)
    c = R.squeeze(b, axis=[0])
    return c
