# Lab 03, wrong: the reduction loop k made parallel (threads would race on C).


def schedule_matmul(sch):
    block = sch.get_block("C")
    i, j, k = sch.get_loops(block)
    sch.reorder(k, i, j)
    sch.parallel(k)
