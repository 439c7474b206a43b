# Lab 03 — reference solution: a fast schedule of C = A @ B that works for every shape.


def schedule_matmul(sch):
    block = sch.get_block("C")
    i, j, k = sch.get_loops(block)
    # 32x32 tiles of C so the rows of B that a tile reads stay in cache; k outside the tile's
    # rows so that the innermost loop walks B and C contiguously.
    i_outer, i_inner = sch.split(i, factors=[None, 32])
    j_outer, j_inner = sch.split(j, factors=[None, 32])
    sch.reorder(i_outer, j_outer, k, i_inner, j_inner)
    sch.vectorize(j_inner)
    sch.parallel(i_outer)
    # Initialise C apart from the accumulation, so that the inner loops are plain loops. Last:
    # parallel/vectorize over the update block it leaves would be refused (as in TVM); the
    # init's loops copy the kinds, so its columns are vectorized too.
    sch.decompose_reduction(block, k)
