"""cache_read / cache_write / cache_inplace from Python (stage 3), placed as TVM places them.

Buffers given by index, name or Buffer object, consumers by handle or name, the copy's place
(inside the loop holding the writer and its first reader, or at the scope's top level with a
region-shaped cache), cache_inplace, and a random differential check: any sequence of cache
primitives on random programs keeps the interpreter's results.
"""
import random

import pytest

import minitvm as tvm
import minitvm.tir  # noqa: F401
from minitvm import error
from minitvm.script import tir as T
from minitvm.tir.schedule.testing import verify_trace_roundtrip

pytestmark = pytest.mark.skipif(
    tvm.get_global_func("tir.schedule.CacheRead", allow_missing=True) is None,
    reason="minitvm was built without stage 3",
)


@T.prim_func
def two_stage(A: T.Buffer((32, 32), "float32"), C: T.Buffer((32, 32), "float32")):
    B = T.alloc_buffer((32, 32))
    for i, j in T.grid(32, 32):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2.0)
    for i, j in T.grid(32, 32):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1.0)


@T.prim_func
def in_loop(B: T.Buffer((32,), "float32"), C: T.Buffer((32,), "float32")):
    A = T.alloc_buffer((32,))
    for i in range(4):
        for j in range(8):
            with T.block("A"):
                vi = T.axis.spatial(32, i * 8 + j)
                A[vi] = T.Cast("float32", vi)
        for j in range(8):
            with T.block("B"):
                vi = T.axis.spatial(32, i * 8 + j)
                B[vi] = A[vi] + T.float32(1.0)
    for i in range(32):
        with T.block("C"):
            vi = T.axis.spatial(32, i)
            C[vi] = A[vi] * T.float32(3.0)


@T.prim_func
def in_place(D: T.Buffer((16,), "float32"), E: T.Buffer((16,), "float32")):
    for i in range(1):
        with T.block("update"):
            T.reads(D[0:16])
            T.writes(D[0:16])
            for k in range(16):
                D[k] = D[k] * T.float32(2.0)
    for i in range(16):
        with T.block("E"):
            vi = T.axis.spatial(16, i)
            E[vi] = D[vi]


def _same_results(before, after, seeds=2):
    check = tvm.get_global_func("tir.schedule.CheckEquivalence")
    for seed in range(seeds):
        result = check(before, after["main"], seed, 1e-5, 1e-5)
        assert result["checked"], result["message"]
        assert result["equal"], result["message"]


# ---- arguments ------------------------------------------------------------------------------


@pytest.mark.parametrize("buffer", [0, "A", "buffer"])
def test_cache_read_takes_an_index_a_name_or_a_buffer(buffer):
    sch = tvm.tir.Schedule(two_stage)
    if buffer == "buffer":
        buffer = sch.get(sch.get_block("B")).reads[0].buffer
    copy = sch.cache_read("B", buffer, "shared")
    assert str(sch.get(copy).name_hint) == "A_shared"
    assert "read_buffer_index=0, storage_scope=\"shared\")" in "\n".join(sch.trace.as_python())
    verify_trace_roundtrip(sch, two_stage)


def test_cache_write_takes_a_name_and_consumers_by_name():
    sch = tvm.tir.Schedule(in_loop)
    copy = sch.cache_write("A", "A", "global", consumer_blocks=["C"])
    assert str(sch.get(copy).name_hint) == "A_global"
    # C reads the cache; B still reads A, which the copy back fills before it.
    assert "C[vi] = A_global[vi] * T.float32(3.0)" in sch.mod.script()
    assert "B[vi] = A[vi] + T.float32(1.0)" in sch.mod.script()
    _same_results(in_loop, sch.mod)
    verify_trace_roundtrip(sch, in_loop)


def test_a_buffer_the_block_does_not_access_is_a_value_error():
    sch = tvm.tir.Schedule(two_stage)
    with pytest.raises(error.ValueError, match="does not read a buffer 'C'"):
        sch.cache_read("B", "C", "shared")
    with pytest.raises(error.ValueError, match="does not write a buffer 'A'"):
        sch.cache_write("B", "A", "local")
    with pytest.raises(error.TypeError, match="read_buffer_index must be an integer"):
        sch.cache_read("B", 1.5, "shared")


# ---- where the copy goes -------------------------------------------------------------------


def test_copy_goes_between_writer_and_first_reader_inside_their_loop():
    sch = tvm.tir.Schedule(in_loop)
    sch.cache_read("B", 0, "global")
    text = sch.mod.script()
    # Inside loop i: 8 elements per iteration into a whole-shape cache that C also reads.
    assert "for ax0 in range(8):" in text
    assert "v0 = T.axis.spatial(32, i * 8 + ax0)" in text
    assert "C[vi] = A_global[vi] * T.float32(3.0)" in text
    _same_results(in_loop, sch.mod)


def test_copy_at_the_scope_top_level_holds_the_region_only():
    @T.prim_func
    def sub_scope(A: T.Buffer((64, 8), "float32"), B: T.Buffer((64, 8), "float32")):
        for i0 in range(4):
            with T.block("outer"):
                vo = T.axis.spatial(4, i0)
                T.reads(A[vo * 16:vo * 16 + 16, 0:8])
                T.writes(B[vo * 16:vo * 16 + 16, 0:8])
                for x, y in T.grid(16, 8):
                    with T.block("B"):
                        vi = T.axis.spatial(64, vo * 16 + x)
                        vj = T.axis.spatial(8, y)
                        B[vi, vj] = A[vi, vj] + T.float32(1.0)

    sch = tvm.tir.Schedule(sub_scope)
    sch.cache_read("B", 0, "shared")
    sch.cache_write("B", 0, "local")
    text = sch.mod.script()
    assert 'A_shared = T.alloc_buffer((16, 8), scope="shared")' in text
    assert 'B_local = T.alloc_buffer((16, 8), scope="local")' in text
    assert "A_shared[v0, v1] = A[vo * 16 + v0, v1]" in text
    assert "B_local[vi - vo * 16, vj] = A_shared[vi - vo * 16, vj] + T.float32(1.0)" in text
    _same_results(sub_scope, sch.mod)
    verify_trace_roundtrip(sch, sub_scope)


def test_cache_write_of_an_in_place_update_is_refused():
    sch = tvm.tir.Schedule(in_place)
    with pytest.raises(tvm.tir.schedule.NotCompleteOrReductionBlockError, match="in place"):
        sch.cache_write("update", 0, "local")


def test_cache_inplace_copies_in_and_back_around_the_block():
    mask = tvm.tir.schedule.state.ScheduleDebugMask.VERIFY_SREF_TREE
    sch = tvm.tir.Schedule(in_place, debug_mask=mask)
    copy_in, copy_out = sch.cache_inplace("update", "D", "local")
    assert str(sch.get(copy_in).name_hint) == "D_local"
    assert str(sch.get(copy_out).name_hint) == "D_local_1"
    text = sch.mod.script()
    assert "D_local[k] = D_local[k] * T.float32(2.0)" in text
    assert "b1, b2 = sch.cache_inplace(" in "\n".join(sch.trace.as_python())
    _same_results(in_place, sch.mod)
    verify_trace_roundtrip(sch, in_place, debug_mask=mask)
    with pytest.raises(tvm.tir.schedule.ScheduleError):
        sch.cache_inplace("E", 0, "local")  # E only reads D


# ---- random differential check -------------------------------------------------------------


def _chain(n_stages, extent, split):
    """A chain of elementwise stages, each split into an outer and an inner loop."""
    import minitvm.te as te  # pylint: disable=import-outside-toplevel

    A = te.placeholder((extent,), name="A")
    def stage(prev, s):
        return te.compute((extent,), lambda i: prev[i] * float(s + 2) + 1.0, name=f"S{s}")

    stages = [A]
    for s in range(n_stages):
        stages.append(stage(stages[-1], s))
    func = te.create_prim_func([A, stages[-1]])
    sch = tvm.tir.Schedule(func)
    for s in range(n_stages):
        (i,) = sch.get_loops(sch.get_block(f"S{s}"))
        sch.split(i, factors=[None, split])
    return sch.mod["main"]


@pytest.mark.parametrize("seed", range(6))
def test_random_cache_sequences_keep_results(seed):
    rng = random.Random(seed)
    n_stages = rng.randint(2, 4)
    func = _chain(n_stages, 16, rng.choice([2, 4, 8]))
    sch = tvm.tir.Schedule(func)
    if rng.random() < 0.5:
        # Bring one stage into its consumer's loop so that copies go inside loops.
        s = rng.randrange(n_stages - 1)
        outer = sch.get_loops(sch.get_block(f"S{s + 1}"))[0]
        sch.compute_at(sch.get_block(f"S{s}"), outer)
    for _ in range(rng.randint(1, 4)):
        s = rng.randrange(n_stages)
        block = f"S{s}"
        scope = rng.choice(["global", "shared", "local"])
        try:
            if rng.random() < 0.5:
                sch.cache_read(block, 0, scope)
            else:
                consumers = [f"S{s + 1}"] if s + 1 < n_stages and rng.random() < 0.5 else None
                sch.cache_write(block, 0, scope, consumer_blocks=consumers)
        except tvm.tir.schedule.ScheduleError:
            continue
    _same_results(func, sch.mod)
    verify_trace_roundtrip(sch, func)
