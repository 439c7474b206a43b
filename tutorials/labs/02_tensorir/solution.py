# Lab 02 — reference solution: mm_relu and conv2d in TVMScript.
from minitvm.script import ir as I
from minitvm.script import tir as T


@I.ir_module
class MyModule:
    @T.prim_func
    def mm_relu(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"),
                C: T.Buffer((128, 128), "float32")):
        T.func_attr({"global_symbol": "mm_relu", "tir.noalias": True})
        Y = T.alloc_buffer((128, 128), dtype="float32")
        for i, j, k in T.grid(128, 128, 128):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(128, 128):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                # [relu]
                C[vi, vj] = T.max(Y[vi, vj], T.float32(0))
                # [/relu]

    # [conv2d]
    @T.prim_func
    def conv2d(X: T.Buffer((2, 3, 10, 10), "float32"), K: T.Buffer((4, 3, 3, 3), "float32"),
               Y: T.Buffer((2, 4, 8, 8), "float32")):
        T.func_attr({"global_symbol": "conv2d", "tir.noalias": True})
        for n, co, i, j, ci, di, dj in T.grid(2, 4, 8, 8, 3, 3, 3):
            with T.block("Y"):
                vn, vco, vi, vj, vci, vdi, vdj = T.axis.remap("SSSSRRR", [n, co, i, j, ci, di, dj])
                with T.init():
                    Y[vn, vco, vi, vj] = T.float32(0)
                Y[vn, vco, vi, vj] = (Y[vn, vco, vi, vj]
                                      + X[vn, vci, vi + vdi, vj + vdj] * K[vco, vci, vdi, vdj])
    # [/conv2d]
