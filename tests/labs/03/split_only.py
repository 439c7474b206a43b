# Lab 03, wrong: the loops are tiled but nothing else (no reorder, no vector lanes, one
# core): equal, but nowhere near 5x.


def schedule_matmul(sch):
    block = sch.get_block("C")
    i, j, k = sch.get_loops(block)
    sch.split(i, factors=[None, 32])
    sch.split(j, factors=[None, 32])
