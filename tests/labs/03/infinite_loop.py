# Lab 03, wrong: a search for a tile size that never ends.


def schedule_matmul(sch):
    block = sch.get_block("C")
    tile = 1
    while tile != 0:
        tile = (tile * 2) % 1023
    sch.get_loops(block)
