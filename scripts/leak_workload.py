#!/usr/bin/env python3
"""A small back-end workload for a valgrind leak run (docs/sanitizers.md):
    PYTHONMALLOC=malloc valgrind --leak-check=full python3 scripts/leak_workload.py
"""
# A small representative back-end workload for a valgrind leak run: build (checked and not),
# call, failed calls, export/load, damaged library, NDArray copy/assign.
import copy, os, tempfile
import numpy as np
import minitvm as tvm
from minitvm.script import tir as T

@T.prim_func
def gather(A: T.Buffer((8,), "float32"), idx: T.Buffer((4,), "int32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("b"):
            vi = T.axis.spatial(4, i)
            B[vi] = A[idx[vi]]

a = tvm.nd.array(np.arange(8, dtype="float32"))
b = tvm.nd.empty((4,), "float32")
for cfg in ({}, {"tir.instrument_bound_checkers": True}):
    with tvm.transform.PassContext(config=cfg):
        fn = tvm.compile(gather, target="llvm")
    for _ in range(3):
        fn(a, tvm.nd.array(np.array([0, 1, 2, 3], dtype="int32")), b)
        try:
            fn(a, tvm.nd.array(np.array([0, 1, 9, 3], dtype="int32")), b) if cfg else None
        except tvm.error.IndexError:
            pass
        try:
            fn(np.zeros(8, "float32"), b, b)
        except tvm.error.TypeError:
            pass
d = tempfile.mkdtemp()
p = os.path.join(d, "g.so")
fn.export_library(p)
lib = tvm.runtime.load_module(p)
lib(a, tvm.nd.array(np.array([3, 2, 1, 0], dtype="int32")), b)
data = bytearray(open(p, "rb").read())
data[len(data) // 2] ^= 1
open(p, "wb").write(bytes(data))
try:
    tvm.runtime.load_module(p)
except tvm.error.ValueError:
    pass
c = copy.copy(a)
try:
    c[:] = float("nan")
except tvm.error.ValueError:
    pass
print("done")
