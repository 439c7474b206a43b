# Lab 03, wrong: the reduction loop k is vectorized (its iterations depend on each other).


def schedule_matmul(sch):
    block = sch.get_block("C")
    i, j, k = sch.get_loops(block)
    k_outer, k_inner = sch.split(k, factors=[None, 8])
    sch.vectorize(k_inner)
