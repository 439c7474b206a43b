from tvm.script import ir as I, relax as R, tir as T

@I.ir_module
class Module:
    @R.function(private=True)
    def helper(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        y = R.exp(x)
        return y

    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")):
        cls = Module
        y = cls.helper(x)
        return y
