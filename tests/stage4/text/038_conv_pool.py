from tvm.script import ir as I, relax as R, tir as T

@R.function
def main(x: R.Tensor((1, 3, 8, 8), dtype="float32"), w: R.Tensor((4, 3, 3, 3), dtype="float32")):
    with R.dataflow():
        a = R.nn.conv2d(x, w, strides=[1, 1], padding=[1, 1, 1, 1])
        b = R.nn.relu(a)
        c = R.nn.max_pool2d(b, pool_size=[2, 2], strides=[2, 2])
        R.output(c)
    return c
