# error: no function named "nope"
# at: 10:13
from tvm.script import ir as I, relax as R, tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")):
        cls = Module
        y = cls.nope(x)
        return y
