# Lab 03 — schedules: make matmul fast, keep it equal
# ====================================================
#
# `schedule_matmul(sch)` receives a `tir.Schedule` of C = A @ B, the plain triple loop that
# `te.compute` writes:
#
#     for i, j, k in T.grid(M, N, K):
#         with T.block("C"):
#             vi, vj, vk = T.axis.remap("SSR", [i, j, k])
#             with T.init():
#                 C[vi, vj] = T.float32(0)
#             C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
#
# Transform it in place with schedule primitives (split, reorder, decompose_reduction,
# vectorize, parallel, ...) so that, compiled with LLVM, it runs at least 5x faster than the
# unscheduled loops for 256 x 256 x 256. The grader also applies your schedule to other
# shapes — 1 x 1 x 1, 7 x 33 x 5, ... — and checks that it still computes exactly what the
# unscheduled function computes. Do not assume the sizes are multiples of your tiles.
#
# Check your work with:   minitvm lab check 3 starter.py
# (on a busy machine: MINITVM_LAB_MIN_SPEEDUP=2 minitvm lab check 3 starter.py)


def schedule_matmul(sch):
    block = sch.get_block("C")
    i, j, k = sch.get_loops(block)
    # TODO(lab 03): split i and j into tiles (sch.split(loop, factors=[None, 32])), reorder
    # so that k runs outside the tile's rows and the columns are innermost (sch.reorder),
    # vectorize the innermost loop and parallelize the outermost one, and last separate the
    # initialisation (sch.decompose_reduction(block, k)): as in TVM, parallel/vectorize refuse
    # a loop over the update block that decompose_reduction leaves.
