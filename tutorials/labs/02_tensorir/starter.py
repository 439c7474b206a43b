# Lab 02 — TensorIR: mm_relu and conv2d in TVMScript
# ====================================================
#
# Complete the two PrimFuncs of MyModule. Python never runs their bodies: the decorators hand
# the text to minitvm's TVMScript parser, which builds TensorIR. The grader runs each function
# on the TIR interpreter and compares it with the stage-1 reference operators.
#
#   mm_relu(A, B, C):  C = relu(A @ B), all (128, 128) float32
#   conv2d(X, K, Y):   X (2, 3, 10, 10), K (4, 3, 3, 3) -> Y (2, 4, 8, 8); stride 1, no padding:
#                      Y[n, co, i, j] = sum over ci, di, dj
#                                       of X[n, ci, i+di, j+dj] * K[co, ci, di, dj]
#
# Check your work with:   minitvm lab check 2 starter.py
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
                # [relu_gap]
                # TODO(lab 02): apply relu: the larger of Y[vi, vj] and 0 (T.max, T.float32(0)).
                C[vi, vj] = Y[vi, vj]
                # [/relu_gap]

    # [conv2d_gap]
    @T.prim_func
    def conv2d(X: T.Buffer((2, 3, 10, 10), "float32"), K: T.Buffer((4, 3, 3, 3), "float32"),
               Y: T.Buffer((2, 4, 8, 8), "float32")):
        T.func_attr({"global_symbol": "conv2d", "tir.noalias": True})
        # TODO(lab 02): a loop nest over n, co, i, j (spatial) and ci, di, dj (reduction)
        # around one block "Y" that initialises Y[n, co, i, j] with T.init() and accumulates
        # X[n, ci, i + di, j + dj] * K[co, ci, di, dj] into it.
        T.evaluate(0)
    # [/conv2d_gap]
