b0 = sch.get_block("Y")
l1, l2, l3 = sch.get_loops(b0)
sch.parallel(l3)
