"""The sampling primitives of tir.Schedule: seeded, recorded in the trace, replayable.

Properties checked on random inputs: every sampled tiling is perfect (the product is the
extent, the innermost factor within its limit); the same seed gives the same decisions; a
trace replays to the same module (also through JSON and Python); a changed decision replays to
a different but equivalent schedule; bad decisions are refused with a named error.
"""
import random

import numpy as np
import pytest

import minitvm as tvm
from minitvm import tir
from minitvm.script import tir as T
from minitvm.tir.schedule.testing import verify_trace_roundtrip


def matmul(n, m, k):
    @T.prim_func
    def func(a: T.handle, b: T.handle, c: T.handle):
        A = T.match_buffer(a, (n, k), "float32")
        B = T.match_buffer(b, (k, m), "float32")
        C = T.match_buffer(c, (n, m), "float32")
        for i, j, kk in T.grid(n, m, k):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, kk])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

    return tvm.IRModule({"main": func})


@T.prim_func
def two_stage(a: T.handle, c: T.handle):
    A = T.match_buffer(a, (64, 32), "float32")
    C = T.match_buffer(c, (64, 32), "float32")
    B = T.alloc_buffer((64, 32), "float32")
    for i, j in T.grid(64, 32):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(64, 32):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


def tiled(mod, seed):
    sch = tir.Schedule(mod, seed=seed)
    i, j, k = sch.get_loops(sch.get_block("C"))
    i_f = sch.sample_perfect_tile(i, n=3, max_innermost_factor=8)
    j_f = sch.sample_perfect_tile(j, n=2, max_innermost_factor=16)
    i0, i1, i2 = sch.split(i, factors=i_f)
    j0, j1 = sch.split(j, factors=j_f)
    sch.reorder(i0, j0, i1, k, i2, j1)
    return sch


@pytest.mark.parametrize("extent", [1, 2, 7, 12, 64, 97, 128, 360, 1000])
def test_perfect_tile_is_perfect(extent):
    rng = random.Random(extent)
    for trial in range(20):
        n = rng.randint(1, 4)
        limit = rng.choice([1, 4, 16, 64, -1])
        sch = tir.Schedule(matmul(extent, 4, 4), seed=trial)
        (i, _, _) = sch.get_loops(sch.get_block("C"))
        factors = [sch.get(v) for v in sch.sample_perfect_tile(i, n=n, max_innermost_factor=limit)]
        assert len(factors) == n
        assert int(np.prod(factors)) == extent
        assert all(f >= 1 for f in factors)
        if limit != -1 and n > 1:  # n = 1: the only tiling is [extent]
            assert factors[-1] <= limit


def test_same_seed_same_decisions_and_forks():
    mod = matmul(128, 96, 64)
    a, b = tiled(mod, 7), tiled(mod, 7)
    assert a.trace.as_python() == b.trace.as_python()
    tvm.ir.assert_structural_equal(a.mod, b.mod)
    assert tir.Schedule(mod, seed=3).fork_seed() == tir.Schedule(mod, seed=3).fork_seed()
    # Different seeds explore: over ten seeds at least two different tilings come out.
    shown = {"\n".join(tiled(mod, s).trace.as_python()) for s in range(10)}
    assert len(shown) >= 2


def test_trace_records_decisions_and_replays():
    mod = matmul(128, 96, 64)
    sch = tiled(mod, 11)
    lines = sch.trace.as_python()
    sample_lines = [l for l in lines if "sample_perfect_tile" in l]
    assert len(sample_lines) == 2 and all("decision=[" in l for l in sample_lines)
    assert any("factors=[v" in l for l in lines)
    decisions = list(sch.trace.decisions.values())
    assert [len(d) for d in decisions] == [3, 2]
    # Python and JSON round trips rebuild the same module and print the same trace.
    verify_trace_roundtrip(sch, mod)


def test_changed_decision_replays_to_an_equivalent_schedule():
    mod = matmul(24, 32, 8)
    sch = tiled(mod, 1)
    first = next(inst for inst in sch.trace.insts if str(inst.kind) == "SamplePerfectTile")
    new_trace = sch.trace.with_decision(first, [2, 3, 4])
    replay = tir.Schedule(mod, seed=0)
    new_trace.apply_to_schedule(replay)
    assert list(replay.trace.decisions.values())[0] == [2, 3, 4]
    assert "T.grid(2," in replay.mod.script() or "range(2)" in replay.mod.script()
    # A decision of None draws again on replay.
    redrawn = tir.Schedule(mod, seed=5)
    sch.trace.with_decision(first, None).apply_to_schedule(redrawn)
    got = list(redrawn.trace.decisions.values())[0]
    assert int(np.prod(got)) == 24
    # Every variant computes what the unscheduled function computes.
    a = np.random.rand(24, 8).astype("float32")
    b = np.random.rand(8, 32).astype("float32")
    for m in (replay.mod, redrawn.mod):
        f = tvm.build(m, target="llvm")
        c = tvm.nd.array(np.zeros((24, 32), "float32"))
        f(tvm.nd.array(a), tvm.nd.array(b), c)
        np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-5)


def test_wrong_decisions_are_refused():
    mod = matmul(24, 32, 8)
    sch = tir.Schedule(mod, seed=0)
    i, _, _ = sch.get_loops(sch.get_block("C"))
    before = sch.mod
    with pytest.raises(tvm.error.ScheduleError, match="WrongDecision|perfect tiling"):
        sch.sample_perfect_tile(i, n=2, decision=[5, 5])
    with pytest.raises(tvm.error.ScheduleError, match="perfect tiling"):
        sch.sample_perfect_tile(i, n=2, max_innermost_factor=4, decision=[3, 8])
    with pytest.raises(tvm.error.ScheduleError, match="not an index"):
        sch.sample_categorical([1, 2], [0.5, 0.5], decision=2)
    with pytest.raises(tvm.error.ValueError, match="probabilities"):
        sch.sample_categorical([1, 2], [0.5])
    with pytest.raises(tvm.error.TypeError):
        sch.sample_perfect_tile(i, n="two")
    tvm.ir.assert_structural_equal(sch.mod, before)
    assert sch.trace.as_python() == ["b0 = sch.get_block(name=\"C\", func_name=\"main\")",
                                     "l1, l2, l3 = sch.get_loops(block=b0)"]


def test_sample_categorical_follows_probabilities():
    sch = tir.Schedule(matmul(4, 4, 4), seed=42)
    counts = {0: 0, 16: 0, 64: 0}
    for _ in range(600):
        counts[sch.get(sch.sample_categorical([0, 16, 64], [0.2, 0.0, 0.8]))] += 1
    assert counts[16] == 0
    assert 60 < counts[0] < 180 and counts[64] > 420
    line = sch.trace.as_python()[-1]
    assert line.startswith("v") and "sample_categorical(candidates=[0, 16, 64]" in line
    assert "decision=" in line


def test_sample_compute_location_is_legal_and_equivalent():
    mod = tvm.IRModule({"main": two_stage})
    for seed in range(6):
        sch = tir.Schedule(mod, seed=seed)
        block = sch.get_block("B")
        loop = sch.sample_compute_location(block)
        sch.compute_at(block, loop)
        f = tvm.build(sch.mod, target="llvm")
        a = np.random.rand(64, 32).astype("float32")
        c = tvm.nd.array(np.zeros((64, 32), "float32"))
        f(tvm.nd.array(a), c)
        np.testing.assert_allclose(c.numpy(), a * 2 + 1, rtol=1e-6)
        verify_trace_roundtrip(sch, mod)


def test_expr_rv_in_python():
    sch = tir.Schedule(matmul(16, 16, 16), seed=0)
    i, _, _ = sch.get_loops(sch.get_block("C"))
    v0, v1 = sch.sample_perfect_tile(i, n=2)
    assert isinstance(v0, tir.schedule.ExprRV)
    assert sch.get(v0) * sch.get(v1) == 16 and int(v0) == sch.get(v0)


def test_expr_rv_as_an_attribute_records_its_value():
    sch = tir.Schedule(matmul(16, 16, 16), seed=0)
    i, _, _ = sch.get_loops(sch.get_block("C"))
    unroll = sch.sample_categorical([16, 64], [0.5, 0.5])
    # Through the C++ global directly (not the Python method, which passes the int itself).
    tir.schedule._ffi_api.Annotate(sch, i, "pragma_auto_unroll_max_step", unroll)
    value = sch.get(unroll)
    assert sch.get(i).annotations["pragma_auto_unroll_max_step"] == value
    assert f'ann_val={value})' in sch.trace.as_python()[-1]
    verify_trace_roundtrip(sch, matmul(16, 16, 16))
