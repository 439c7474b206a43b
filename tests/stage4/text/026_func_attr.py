from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")):
    R.func_attr({"global_symbol": "main", "num_input": 1})
    y = R.exp(x)
    return y
