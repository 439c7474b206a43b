"""TVMScript constructs and schedule primitives that TVM's own tests use (issue 15):
``T.allocate_const`` (parse, print, structural equality, interpreter, compiled code) and
``reindex_cache_read`` / ``reindex_cache_write``. Programs written for minitvm.
"""
import numpy as np
import pytest

import minitvm as tvm
from minitvm import tir
from minitvm.script import tir as T
from minitvm.tir.schedule.testing import assert_structural_equal_ignore_global_symbol


def _parse(text):
    return tvm.script.from_source(text)


# ---- T.allocate_const -------------------------------------------------------------------

_CONST_SRC = '''
@T.prim_func
def f(A: T.Buffer((6,), "{dtype}"), C: T.Buffer((6,), "{dtype}")):
    K = T.allocate_const({values}, "{dtype}", [2, 3])
    K_buf = T.decl_buffer((2, 3), "{dtype}", data=K)
    for i in range(6):
        with T.block("C"):
            vi = T.axis.spatial(6, i)
            C[vi] = A[vi] + K_buf[vi // 3, vi % 3]
'''


def _const_func(values, dtype):
    return _parse(_CONST_SRC.format(values=list(values), dtype=dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int8", "int64"])
def test_allocate_const_round_trips_and_prints_its_values(dtype):
    rng = np.random.default_rng(7)
    if dtype.startswith("float"):
        values = [float(np.dtype(dtype).type(x)) for x in rng.uniform(-4, 4, 6)]
    else:
        values = [int(x) for x in rng.integers(-100, 100, 6)]
    f = _const_func(values, dtype)
    text = f.script()
    assert "T.allocate_const([" in text and f'"{dtype}", [2, 3])' in text
    g = _parse(text)
    tvm.ir.assert_structural_equal(f, g)
    assert g.script() == text  # printing is a fixed point


def test_allocate_const_values_take_part_in_structural_equality():
    a = _const_func([1, 2, 3, 4, 5, 6], "int32")
    b = _const_func([1, 2, 3, 4, 5, 7], "int32")
    assert tvm.ir.structural_equal(a, _const_func([1, 2, 3, 4, 5, 6], "int32"))
    assert not tvm.ir.structural_equal(a, b)


def test_allocate_const_rejects_wrong_value_counts_and_kinds():
    with pytest.raises(tvm.error.ParseError, match="5 values for extents of 6 elements"):
        _const_func([1, 2, 3, 4, 5], "int32")
    with pytest.raises(tvm.error.ParseError, match="a float value for the integer dtype int32"):
        _const_func([1, 2, 3, 4, 5, 6.5], "int32")
    with pytest.raises(tvm.error.ParseError, match="data must be a list of numbers"):
        _parse(_CONST_SRC.replace("{values}", '"abc"').format(dtype="int32"))


@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_allocate_const_values_reach_the_interpreter_and_compiled_code(dtype):
    rng = np.random.default_rng(3)
    if dtype == "float32":
        values = [float(np.float32(x)) for x in rng.uniform(-2, 2, 6)]
    else:
        values = [int(x) for x in rng.integers(-50, 50, 6)]
    f = _const_func(values, dtype)
    a = (rng.uniform(-3, 3, 6) * 10).astype(dtype)
    expected = a + np.array(values, dtype=dtype)
    for target in ["ref", "llvm"]:
        try:
            lib = tvm.build(f, target=target)
        except tvm.error.TVMError as err:  # a build without stage 5
            if target == "llvm" and "stage 5" in str(err):
                continue
            raise
        c = tvm.nd.array(np.zeros(6, dtype))
        lib(tvm.nd.array(a), c)
        np.testing.assert_array_equal(c.numpy(), expected)


def test_allocate_const_survives_schedule_primitives():
    f = _const_func([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "float32")
    sch = tir.Schedule(f)
    sch.cache_read("C", 1, "global")
    text = sch.mod["main"].script()
    assert "T.allocate_const([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]" in text
    assert 'with T.block("K_buf_global")' in text


# ---- reindex_cache_read / reindex_cache_write -------------------------------------------

@T.prim_func
def _elementwise(A: T.Buffer((16, 8), "float32"), C: T.Buffer((16, 8), "float32")):
    B = T.alloc_buffer((16, 8))
    for i, j in T.grid(16, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * 2.0
    for i, j in T.grid(16, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + 1.0


@T.prim_func
def _elementwise_reindex_read(A: T.Buffer((16, 8), "float32"), C: T.Buffer((16, 8), "float32")):
    B = T.alloc_buffer((16, 8))
    B_shared = T.alloc_buffer((8, 8, 2), scope="shared")
    for i, j in T.grid(16, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * 2.0
    for i, j in T.grid(16, 8):
        with T.block("B_shared"):
            vi, vj = T.axis.remap("SS", [i, j])
            B_shared[vj, vi // 2, vi % 2] = B[vi, vj]
    for i, j in T.grid(16, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B_shared[vj, vi // 2, vi % 2] + 1.0


@T.prim_func
def _elementwise_reindex_write(A: T.Buffer((16, 8), "float32"), C: T.Buffer((16, 8), "float32")):
    B = T.alloc_buffer((16, 8))
    B_local = T.alloc_buffer((8, 16), scope="local")
    for i, j in T.grid(16, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B_local[vj, vi] = A[vi, vj] * 2.0
    for i, j in T.grid(16, 8):
        with T.block("B_local"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = B_local[vj, vi]
    for i, j in T.grid(16, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + 1.0


def _run(func, a):
    lib = tvm.build(func, target="ref")
    c = tvm.nd.array(np.zeros(a.shape, "float32"))
    lib(tvm.nd.array(a), c)
    return c.numpy()


def test_reindex_cache_read_makes_the_mapped_cache():
    sch = tir.Schedule(_elementwise)
    copy = sch.reindex_cache_read("C", 0, "shared", lambda i, j: (j, i // 2, i % 2))
    assert sch.get(copy).name_hint == "B_shared"
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], _elementwise_reindex_read)
    a = np.random.default_rng(1).uniform(-1, 1, (16, 8)).astype("float32")
    np.testing.assert_allclose(_run(sch.mod["main"], a), a * 2 + 1, rtol=1e-6)


def test_reindex_cache_write_makes_the_mapped_cache():
    sch = tir.Schedule(_elementwise)
    sch.reindex_cache_write("B", 0, "local", lambda i, j: (j, i))
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], _elementwise_reindex_write)
    a = np.random.default_rng(2).uniform(-1, 1, (16, 8)).astype("float32")
    np.testing.assert_allclose(_run(sch.mod["main"], a), a * 2 + 1, rtol=1e-6)


def test_reindex_cache_trace_replays():
    sch = tir.Schedule(_elementwise)
    sch.reindex_cache_read("C", 0, "shared", lambda i, j: (j, i // 2, i % 2))
    sch.reindex_cache_write("B", 0, "local", lambda i, j: (j, i))
    text = str(sch.trace)
    assert "sch.reindex_cache_read(" in text and "index_map=lambda" in text
    replay = tir.Schedule(_elementwise)
    sch.trace.apply_to_schedule(replay, remove_postproc=False)
    tvm.ir.assert_structural_equal(replay.mod["main"], sch.mod["main"])


@pytest.mark.parametrize("primitive", ["reindex_cache_read", "reindex_cache_write"])
def test_reindex_cache_refuses_a_map_that_is_not_injective(primitive):
    sch = tir.Schedule(_elementwise)
    block = "C" if primitive == "reindex_cache_read" else "B"
    with pytest.raises(tir.ScheduleError, match="into a cache of 8 elements"):
        getattr(sch, primitive)(block, 0, "shared", lambda i, j: j)


def test_reindex_cache_refuses_a_region_access():
    @T.prim_func
    def region(A: T.Buffer((16, 8), "float32"), C: T.Buffer((16,), "float32")):
        for i in range(16):
            with T.block("C"):
                vi = T.axis.spatial(16, i)
                T.reads(A[vi, 0:8])
                C[vi] = A[vi, 0] + A[vi, 7]
    sch = tir.Schedule(region)
    with pytest.raises(tir.ScheduleError, match="not a single point"):
        sch.reindex_cache_read("C", 0, "shared", lambda i: i)


# ---- Python helpers that return T. calls ------------------------------------------------

def _declare(*args, **kwargs):
    return T.decl_buffer(*args, **kwargs)


def _view(*args, **kwargs):
    return T.Buffer(*args, **kwargs)


def test_a_python_helper_returning_a_t_call_runs_it_with_keywords():
    @T.prim_func
    def with_helper(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
        K = T.allocate_const([1.0, 2.0, 3.0, 4.0], dtype="float32", extents=[4])
        K_buf = _declare([4], data=K)
        for i in range(4):
            C[i] = A[i] + K_buf[i]

    @T.prim_func
    def written_out(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
        K = T.allocate_const([1.0, 2.0, 3.0, 4.0], dtype="float32", extents=[4])
        K_buf = T.decl_buffer([4], data=K)
        for i in range(4):
            C[i] = A[i] + K_buf[i]

    assert_structural_equal_ignore_global_symbol(with_helper, written_out)
    assert "T.decl_buffer((4,), data=K)" in with_helper.script()


def test_a_python_helper_may_return_a_buffer_view_and_plain_values():
    def extent(n, scale=1):
        return n * scale

    @T.prim_func
    def f(A: T.Buffer((8,), "float32")):
        V = _view([2, 4], "float32", data=A.data)
        for i in range(extent(2, scale=1)):
            V[i, 0] = T.float32(extent(1, scale=3))

    text = f.script()
    assert "T.Buffer((2, 4), data=A.data)" in text or "data=A.data" in text
    assert "for i in range(2)" in text and "T.float32(3.0)" in text


def test_compiled_code_refuses_a_store_into_allocate_const():
    f = _parse(_CONST_SRC.format(values=[1, 2, 3, 4, 5, 6], dtype="int32").replace(
        "C[vi] = A[vi] + K_buf[vi // 3, vi % 3]", "K_buf[vi // 3, vi % 3] = A[vi]"))
    try:
        tvm.build(f, target="llvm")
    except tvm.error.ValueError as err:
        assert "allocate_const K is read-only, but buffer K_buf stores into it" in str(err)
    except tvm.error.TVMError as err:  # a build without stage 5
        assert "stage 5" in str(err)
    else:
        raise AssertionError("a store into a constant allocation was compiled")
