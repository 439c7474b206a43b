from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(flag: R.Prim("bool"), x: R.Tensor((2, 3), dtype="float32")):
    if flag:
        y = R.exp(x)
    else:
        y = R.log(x)
    z = R.add(y, y)
    return z
