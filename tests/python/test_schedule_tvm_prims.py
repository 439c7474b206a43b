"""Schedule primitives of TVM v0.20 added to minitvm's ``tir.Schedule``: ``reindex``.

Every schedule is checked against the unscheduled function in the TIR interpreter
(``target="ref"``) on random inputs, its trace is replayed, and the refusals are named
ScheduleErrors.
"""
import numpy as np
import pytest

import minitvm as tvm
from minitvm import tir
from minitvm.script import tir as T
from minitvm.tir.schedule.testing import verify_trace_roundtrip


@T.prim_func
def _transposed_scale(A: T.Buffer((8, 12), "float32"), B: T.Buffer((12, 8), "float32")):
    for i, j in T.grid(12, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vj, vi] * T.float32(3.0) + A[vj, vi]


@T.prim_func
def _matmul(A: T.Buffer((6, 5), "float32"), B: T.Buffer((5, 7), "float32"),
            C: T.Buffer((6, 7), "float32")):
    for i, j, k in T.grid(6, 7, 5):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


@T.prim_func
def _two_reads(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32")):
    for i, j in T.grid(8, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + A[vj, vi]


def _run(func, shapes, out_shape, seed=0):
    rng = np.random.default_rng(seed)
    args = [tvm.nd.array(rng.uniform(-1, 1, s).astype("float32")) for s in shapes]
    out = tvm.nd.array(np.zeros(out_shape, "float32"))
    tvm.build(func, target="ref")(*args, out)
    return out.numpy()


def _same_as_unscheduled(func, sch, shapes, out_shape):
    expected = _run(func, shapes, out_shape)
    got = _run(sch.mod["main"], shapes, out_shape)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_reindex_read_makes_identity_access_and_computes_the_same():
    sch = tir.Schedule(_transposed_scale)
    rv = sch.reindex("B", ("read", 0))
    func = sch.mod["main"]
    text = func.script()
    assert "A_reindex[vi, vj]" in text and "A_reindex[v0, v1] = A[v1, v0]" in text
    assert sch.get(rv).name_hint == "A_reindex_reindex"
    assert [int(x) for x in func.body.block.alloc_buffers[0].shape] == [12, 8]
    _same_as_unscheduled(_transposed_scale, sch, [(8, 12)], (12, 8))
    verify_trace_roundtrip(sch, _transposed_scale)
    assert 'sch.reindex(block=b0, buffer=("read", 0))' in "\n".join(sch.trace.as_python())


@pytest.mark.parametrize("buffer", [("write", 0), "C"])
def test_reindex_write_of_a_reduction_goes_after_it(buffer):
    sch = tir.Schedule(_matmul)
    sch.reindex(sch.get_block("C"), buffer)
    blocks = [str(sch.get(b).name_hint) for b in sch.get_child_blocks(sch.get_block("root"))]
    assert blocks == ["C", "C_reindex"]
    _same_as_unscheduled(_matmul, sch, [(6, 5), (5, 7)], (6, 7))
    verify_trace_roundtrip(sch, _matmul)


def test_reindex_reads_of_matmul_then_cache_chain_computes_the_same():
    sch = tir.Schedule(_matmul)
    block = sch.get_block("C")
    sch.reindex(block, ("read", 0))
    sch.reindex(block, "B")
    sch.reindex(block, ("write", 0))
    _same_as_unscheduled(_matmul, sch, [(6, 5), (5, 7)], (6, 7))
    verify_trace_roundtrip(sch, _matmul)


def test_reindex_refuses_two_different_accesses():
    sch = tir.Schedule(_two_reads)
    before = sch.mod
    with pytest.raises(tir.ScheduleError, match="different indices") as info:
        sch.reindex("B", ("read", 0))
    assert "InvalidBufferAccessError" in type(info.value).__name__ or \
        "InvalidBufferAccessError" in str(info.value)
    tvm.ir.assert_structural_equal(sch.mod, before)


def test_reindex_refuses_a_buffer_index_out_of_range_and_unknown_names():
    sch = tir.Schedule(_transposed_scale)
    with pytest.raises(tir.ScheduleError, match="IndexOutOfRange|out of range"):
        sch.reindex("B", ("read", 3))
    with pytest.raises(tvm.error.ValueError, match="does not access a buffer named Q"):
        sch.reindex("B", "Q")
