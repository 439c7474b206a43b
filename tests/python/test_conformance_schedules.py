"""Stage 3: the regions compute_at / reverse_compute_at give a moved block are TVM's.

Each case is a program of our own, scheduled, and compared (structurally) with the IR TVM's
rules give: the needed range of each block iterator is intersected with the buffer's shape and
the iterator's domain, a contained bound is dropped, a constant intersection becomes the loop
range, and the binding of a new loop is `min + ax` as built (not simplified further).
"""
import numpy as np
import pytest

import minitvm as tvm
from minitvm import tir
from minitvm.script import tir as T


def _equal(expected, sch):
    tvm.ir.assert_structural_equal(expected.with_attr("global_symbol", "main"),
                                   sch.mod["main"].with_attr("global_symbol", "main"))


@T.prim_func
def _two_steps(A: T.Buffer((16, 8), "float32"), C: T.Buffer((16, 8), "float32")):
    B = T.alloc_buffer((16, 8))
    for i, j in T.grid(16, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(1)
    for i, j in T.grid(16, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] * T.float32(3)


def test_unit_loop_binding_keeps_min_plus_loop_variable():
    @T.prim_func
    def expected(A: T.Buffer((16, 8), "float32"), C: T.Buffer((16, 8), "float32")):
        B = T.alloc_buffer((16, 8))
        for i in range(16):
            for ax0, ax1 in T.grid(1, 8):
                with T.block("B"):
                    vi = T.axis.spatial(16, i + ax0)
                    vj = T.axis.spatial(8, ax1)
                    B[vi, vj] = A[vi, vj] + T.float32(1)
            for j in range(8):
                with T.block("C"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    C[vi, vj] = B[vi, vj] * T.float32(3)

    sch = tir.Schedule(_two_steps)
    i, _ = sch.get_loops(sch.get_block("C"))
    sch.compute_at(sch.get_block("B"), i, preserve_unit_loops=True)
    _equal(expected, sch)


def test_static_bound_of_the_buffer_gives_a_unit_extent():
    # C's loop j runs 4 times but only j < 1 is real: B (one column) needs extent 1, not 4.
    @T.prim_func
    def before(A: T.Buffer((8, 1), "float32"), C: T.Buffer((8, 1), "float32")):
        B = T.alloc_buffer((8, 1))
        for i, j in T.grid(8, 1):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                vj = T.axis.spatial(1, j)
                B[vi, vj] = A[vi, vj] + T.float32(1)
        for i, j in T.grid(8, 4):
            with T.block("C"):
                vi = T.axis.spatial(8, i)
                vj = T.axis.spatial(1, j)
                T.where(j < 1)
                C[vi, vj] = B[vi, vj] * T.float32(2)

    @T.prim_func
    def expected(A: T.Buffer((8, 1), "float32"), C: T.Buffer((8, 1), "float32")):
        B = T.alloc_buffer((8, 1))
        for i in range(8):
            for ax0, ax1 in T.grid(1, 1):
                with T.block("B"):
                    vi = T.axis.spatial(8, i + ax0)
                    vj = T.axis.spatial(1, ax1)
                    B[vi, vj] = A[vi, vj] + T.float32(1)
            for j in range(4):
                with T.block("C"):
                    vi = T.axis.spatial(8, i)
                    vj = T.axis.spatial(1, j)
                    T.where(j < 1)
                    C[vi, vj] = B[vi, vj] * T.float32(2)

    sch = tir.Schedule(before)
    i, _ = sch.get_loops(sch.get_block("C"))
    sch.compute_at(sch.get_block("B"), i, preserve_unit_loops=True)
    _equal(expected, sch)


def test_reverse_compute_at_of_a_flattened_consumer_covers_one_row():
    # D reads B flattened: one row of B (16 elements) is produced per iteration of i.
    @T.prim_func
    def before(A: T.Buffer((8, 16), "float32"), D: T.Buffer((128,), "float32")):
        B = T.alloc_buffer((8, 16))
        for i, j in T.grid(8, 16):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2)
        for k in range(128):
            with T.block("D"):
                vk = T.axis.spatial(128, k)
                D[vk] = B[vk // 16, vk % 16]

    @T.prim_func
    def expected(A: T.Buffer((8, 16), "float32"), D: T.Buffer((128,), "float32")):
        B = T.alloc_buffer((8, 16))
        for i in range(8):
            for j in range(16):
                with T.block("B"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    B[vi, vj] = A[vi, vj] * T.float32(2)
            for ax0 in range(16):
                with T.block("D"):
                    vk = T.axis.spatial(128, i * 16 + ax0)
                    D[vk] = B[vk // 16, vk % 16]

    sch = tir.Schedule(before)
    i, _ = sch.get_loops(sch.get_block("B"))
    sch.reverse_compute_at(sch.get_block("D"), i)
    _equal(expected, sch)


@pytest.mark.parametrize("preserve", [False, True])
def test_compute_at_results_match_numpy_on_split_loops(preserve):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((16, 8)).astype("float32")
    for factor in (2, 4, 8):
        sch = tir.Schedule(_two_steps)
        _, j = sch.get_loops(sch.get_block("C"))
        jo, _ = sch.split(j, factors=[None, factor])
        sch.compute_at(sch.get_block("B"), jo, preserve_unit_loops=preserve)
        lib = tvm.build(sch.mod, target="ref")
        c = tvm.nd.array(np.zeros((16, 8), "float32"))
        lib["main"](tvm.nd.array(a), c)
        np.testing.assert_allclose(c.numpy(), (a + 1) * 3, rtol=1e-6)
