# Lab 04, wrong: the layers written with Relax operators instead of call_tir.
from minitvm.script import ir as I
from minitvm.script import relax as R
from minitvm.script import tir as T


@I.ir_module
class MLPModule:
    @R.function
    def main(x: R.Tensor((4, 64), "float32"), w0: R.Tensor((32, 64), "float32"),
             b0: R.Tensor((32,), "float32"), w1: R.Tensor((10, 32), "float32"),
             b1: R.Tensor((10,), "float32")):
        with R.dataflow():
            lv0 = R.add(R.matmul(x, R.permute_dims(w0)), b0)
            lv1 = R.nn.relu(lv0)
            out = R.add(R.matmul(lv1, R.permute_dims(w1)), b1)
            R.output(out)
        return out
