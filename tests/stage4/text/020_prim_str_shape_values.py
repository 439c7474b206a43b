from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")):
    p = R.prim_value(1)
    q = R.prim_value(T.float32(2.5))
    s = R.str("hello")
    d = R.dtype("float16")
    sh = R.shape([2, 3])
    return (p, q, s, d, sh)
