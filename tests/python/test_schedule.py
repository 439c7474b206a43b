"""tir.Schedule from Python (stage 3): the course walkthrough, every primitive once, handles,
copies, errors and the step-by-step view.

Each scheduled function is checked against the original with the TIR interpreter
(``tvm.build(..., target="ref")``) on random inputs.
"""
import numpy as np
import pytest

import minitvm as tvm
import minitvm.tir  # noqa: F401
from minitvm.script import ir as I
from minitvm.script import tir as T

pytestmark = pytest.mark.skipif(
    tvm.get_global_func("tir.schedule.Split", allow_missing=True) is None,
    reason="minitvm was built without stage 3",
)


# ---- workloads --------------------------------------------------------------------------


@I.ir_module
class VectorAdd:
    @T.prim_func
    def main(a: T.handle, b: T.handle):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        A = T.match_buffer(a, (8,), dtype="float32")
        B = T.match_buffer(b, (8,), dtype="float32")
        for i in range(8):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi] + 1.0


@T.prim_func
def mm_relu(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"),
            C: T.Buffer((16, 16), "float32")):
    T.func_attr({"global_symbol": "mm_relu", "tir.noalias": True})
    Y = T.alloc_buffer((16, 16), dtype="float32")
    for i, j, k in T.grid(16, 16, 16):
        with T.block("Y"):
            vi = T.axis.spatial(16, i)
            vj = T.axis.spatial(16, j)
            vk = T.axis.reduce(16, k)
            with T.init():
                Y[vi, vj] = T.float32(0)
            Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            vj = T.axis.spatial(16, j)
            C[vi, vj] = T.max(Y[vi, vj], T.float32(0))


@T.prim_func
def two_stage(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2.0)
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1.0)


@T.prim_func
def rowsum(A: T.Buffer((8, 64), "float32"), B: T.Buffer((8,), "float32")):
    for i, k in T.grid(8, 64):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0.0)
            B[vi] = B[vi] + A[vi, vk]


def _func(mod_or_func):
    return mod_or_func["main"] if hasattr(mod_or_func, "functions") else mod_or_func


def assert_same_results(before, after, seeds=2):
    """Run both with the interpreter on the same random inputs and compare every buffer."""
    check = tvm.get_global_func("tir.schedule.CheckEquivalence")
    for seed in range(seeds):
        result = check(_func(before), _func(after), seed, 1e-5, 1e-5)
        assert result["checked"], result["message"]
        assert result["equal"], result["message"]


# ---- the course walkthrough ---------------------------------------------------------------


def test_course_split_reorder_bind():
    sch = tvm.tir.Schedule(VectorAdd)
    assert type(sch).__name__ == "Schedule"
    block_b = sch.get_block("B")
    (i,) = sch.get_loops(block_b)
    i_0, i_1, i_2 = sch.split(i, factors=[2, 2, 2])
    text = sch.mod.script()
    assert "for i_0, i_1, i_2 in T.grid(2, 2, 2):" in text
    assert "vi = T.axis.spatial(8, i_0 * 4 + i_1 * 2 + i_2)" in text
    sch.reorder(i_0, i_2, i_1)
    assert "for i_0, i_2, i_1 in T.grid(2, 2, 2):" in sch.mod.script()
    sch.bind(i_0, "blockIdx.x")
    sch.bind(i_2, "threadIdx.x")
    text = sch.mod.script()
    assert 'for i_0 in T.thread_binding(2, thread="blockIdx.x"):' in text
    assert 'for i_2 in T.thread_binding(2, thread="threadIdx.x"):' in text
    assert "for i_1 in range(2):" in text
    assert_same_results(VectorAdd, sch.mod)


def test_course_runs_on_the_reference_target():
    sch = tvm.tir.Schedule(VectorAdd)
    (i,) = sch.get_loops(sch.get_block("B"))
    sch.split(i, factors=[2, 2, 2])
    mod = tvm.build(sch.mod, target="ref")
    a = tvm.nd.array(np.arange(8).astype("float32"))
    b = tvm.nd.array(np.zeros((8,)).astype("float32"))
    mod(a, b)
    np.testing.assert_allclose(b.numpy(), np.arange(8) + 1.0)


# ---- handles, copies, getters --------------------------------------------------------------


def test_handles_follow_their_loops_and_blocks():
    sch = tvm.tir.Schedule(mm_relu)
    y = sch.get_block("Y")
    i, j, k = sch.get_loops(y)
    j0, j1 = sch.split(j, factors=[None, 4])
    sch.reorder(j0, k, j1)
    # i survived both primitives; the For it names is still the outer loop.
    assert str(sch.get(i).loop_var.name_hint) == "i"
    assert [str(sch.get(l).loop_var.name_hint) for l in sch.get_loops(y)] == ["i", "j_0", "k", "j_1"]
    with pytest.raises(tvm.error.ValueError, match="no longer exists"):
        sch.get(j)  # removed by split


def test_getters():
    sch = tvm.tir.Schedule(mm_relu)
    y, c = sch.get_block("Y"), sch.get_block("C")
    assert [str(sch.get(b).name_hint) for b in sch.get_consumers(y)] == ["C"]
    assert [str(sch.get(b).name_hint) for b in sch.get_producers(c)] == ["Y"]
    assert sch.get_producers(y) == []
    root = sch.get_child_blocks(sch.get_block("Y"))
    assert root == []


def test_copy_is_independent():
    sch = tvm.tir.Schedule(two_stage)
    b = sch.get_block("B")
    copy = sch.copy()
    sch.compute_inline(b)
    assert "B = T.alloc_buffer" not in sch.mod.script()
    assert "B = T.alloc_buffer" in copy.mod.script()
    assert len(copy.trace.insts) == 1 and len(sch.trace.insts) == 2


# ---- one test per primitive (the C++ text cases cover the printed forms) -------------------


def test_fuse_and_parallel_vectorize_unroll():
    sch = tvm.tir.Schedule(two_stage)
    b = sch.get_block("B")
    i, j = sch.get_loops(b)
    f = sch.fuse(i, j)
    assert "for i_j_fused in range(256):" in sch.mod.script()
    o, v = sch.split(f, factors=[None, 8])
    sch.parallel(o)
    sch.vectorize(v)
    c = sch.get_block("C")
    ci, cj = sch.get_loops(c)
    sch.unroll(cj)
    text = sch.mod.script()
    assert "T.parallel(32)" in text and "T.vectorized(8)" in text and "T.unroll(16)" in text
    assert_same_results(two_stage, sch.mod)


def test_compute_inline_and_reverse():
    sch = tvm.tir.Schedule(two_stage)
    sch.compute_inline(sch.get_block("B"))
    assert "A[vi, vj] * T.float32(2.0) + T.float32(1.0)" in sch.mod.script()
    assert_same_results(two_stage, sch.mod)
    sch = tvm.tir.Schedule(two_stage)
    sch.reverse_compute_inline(sch.get_block("C"))
    assert 'with T.block("C")' not in sch.mod.script()
    assert_same_results(two_stage, sch.mod)


def test_compute_at_and_reverse_compute_at():
    sch = tvm.tir.Schedule(two_stage)
    c = sch.get_block("C")
    i, j = sch.get_loops(c)
    sch.compute_at(sch.get_block("B"), i)
    assert "for ax0 in range(16):" in sch.mod.script()
    assert_same_results(two_stage, sch.mod)
    sch = tvm.tir.Schedule(mm_relu)
    y = sch.get_block("Y")
    i, j, k = sch.get_loops(y)
    j0, j1 = sch.split(j, factors=[None, 4])
    sch.reorder(j0, k, j1)
    sch.reverse_compute_at(sch.get_block("C"), j0)
    assert "vj = T.axis.spatial(16, j_0 * 4 + ax0)" in sch.mod.script()
    assert_same_results(mm_relu, sch.mod)


def test_cache_read_write_set_scope_storage_align():
    sch = tvm.tir.Schedule(mm_relu)
    y = sch.get_block("Y")
    shared = sch.cache_read(y, 0, "shared")
    local = sch.cache_write(y, 0, "local")
    assert str(sch.get(shared).name_hint) == "A_shared"
    assert str(sch.get(local).name_hint) == "Y_local"
    assert_same_results(mm_relu, sch.mod)
    sch = tvm.tir.Schedule(two_stage)
    b = sch.get_block("B")
    sch.set_scope(b, 0, "shared")
    sch.storage_align(b, 0, axis=0, factor=8, offset=1)
    text = sch.mod.script()
    assert 'scope="shared"' in text and "buffer_dim_align" in text
    assert_same_results(two_stage, sch.mod)


def test_decompose_reduction_returns_the_init_block():
    sch = tvm.tir.Schedule(mm_relu)
    y = sch.get_block("Y")
    i, j, k = sch.get_loops(y)
    init = sch.decompose_reduction(y, k)
    assert str(sch.get(init).name_hint) == "Y_init"
    assert str(sch.get(y).name_hint) == "Y_update"
    assert_same_results(mm_relu, sch.mod)


def test_rfactor():
    sch = tvm.tir.Schedule(rowsum)
    i, k = sch.get_loops(sch.get_block("B"))
    k0, k1 = sch.split(k, factors=[None, 4])
    rf = sch.rfactor(k1, 0)
    assert str(sch.get(rf).name_hint) == "B_rf"
    assert "B_rf = T.alloc_buffer((4, 8))" in sch.mod.script()
    assert_same_results(rowsum, sch.mod)


def test_annotate_unannotate_add_unit_loop_blockize():
    sch = tvm.tir.Schedule(two_stage)
    b = sch.get_block("B")
    i, j = sch.get_loops(b)
    sch.annotate(b, "meta", "x")
    sch.annotate(i, "pragma_unroll", 4)
    assert '"meta": "x"' in sch.mod.script()
    sch.unannotate(b, "meta")
    assert '"meta"' not in sch.mod.script()
    u = sch.add_unit_loop(sch.get_block("C"))
    assert str(sch.get(u).loop_var.name_hint) == "u"
    outer = sch.blockize(j)
    assert str(sch.get(outer).name_hint) == "B_o"
    assert_same_results(two_stage, sch.mod)


def test_transform_layout_with_a_lambda():
    sch = tvm.tir.Schedule(two_stage)
    b = sch.get_block("B")
    sch.transform_layout(b, ("write", 0), lambda i, j: (j // 4, i, j % 4))
    assert "B = T.alloc_buffer((4, 16, 4))" in sch.mod.script()
    assert "lambda i, j: (j // 4, i, j % 4)" in str(sch.trace)
    assert_same_results(two_stage, sch.mod)



@T.prim_func
def double14(A: T.Buffer((14,), "float32"), B: T.Buffer((14,), "float32")):
    for i in range(14):
        with T.block("B"):
            vi = T.axis.spatial(14, i)
            B[vi] = A[vi] * T.float32(2.0)


@pytest.mark.parametrize("target", ["ref", "llvm"])
def test_transform_layout_pads_an_output_with_pad_value(target):
    if target == "llvm" and not tvm.get_global_func("target.build.llvm", allow_missing=True):
        pytest.skip("this build has no LLVM code generator")
    sch = tvm.tir.Schedule(double14)
    # A block name works where a BlockRV does, as in TVM.
    sch.transform_layout("B", ("write", 0), lambda i: (i % 8, i // 8), pad_value=-1)
    script = sch.mod.script()
    assert 'B: T.Buffer((8, 2), "float32")' in script and 'T.block("B_pad")' in script
    assert "pad_value=-1" in str(sch.trace)
    lib = tvm.build(sch.mod, target=target)
    a = np.arange(14, dtype="float32")
    b = tvm.nd.array(np.full((8, 2), 99, dtype="float32"))
    lib["double14"](tvm.nd.array(a), b)
    expected = np.concatenate([a * 2, [-1, -1]]).reshape(2, 8).T  # element i sits at (i % 8, i // 8)
    np.testing.assert_array_equal(b.numpy(), expected)
    # The trace replays to the same IR.
    again = tvm.tir.Schedule(double14)
    sch.trace.apply_to_schedule(again, remove_postproc=False)
    assert tvm.ir.structural_equal(again.mod, sch.mod)


def test_transform_layout_pad_value_errors_change_nothing():
    sch = tvm.tir.Schedule(double14)
    before = sch.mod.script()
    with pytest.raises(tvm.tir.ScheduleError, match="give pad_value"):
        sch.transform_layout("B", ("write", 0), lambda i: (i // 4, i % 4))
    with pytest.raises(tvm.error.TypeError, match="pad_value must be a number"):
        sch.transform_layout("B", ("write", 0), lambda i: (i // 4, i % 4), pad_value="zero")
    assert sch.mod.script() == before and "transform_layout" not in str(sch.trace)


@T.prim_func
def matmul(A: T.Buffer((16, 32), "float32"), B: T.Buffer((32, 16), "float32"),
           C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 32):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


@T.prim_func
def dot4_desc(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32"),
              C: T.Buffer((1,), "float32")):
    with T.block("root"):
        T.reads(C[0], A[0:4], B[0:4])
        T.writes(C[0])
        for k in range(4):
            with T.block("update"):
                vk = T.axis.reduce(4, k)
                C[0] = C[0] + A[vk] * B[vk]


@T.prim_func
def dot4_impl(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32"),
              C: T.Buffer((1,), "float32")):
    with T.block("root"):
        T.reads(C[0], A[0:4], B[0:4])
        T.writes(C[0])
        C[0] = C[0] + A[0] * B[0] + A[1] * B[1] + A[2] * B[2] + A[3] * B[3]


def test_tensorize_with_a_registered_intrinsic():
    tvm.tir.schedule.TensorIntrin.register("test_dot4", dot4_desc, dot4_impl, override=True)
    sch = tvm.tir.Schedule(matmul)
    c = sch.get_block("C")
    i, j, k = sch.get_loops(c)
    k0, k1 = sch.split(k, factors=[None, 4])
    sch.decompose_reduction(c, i)
    sch.tensorize(k1, "test_dot4")
    assert "A[vi_o, vk_o * 4 + 3] * B[vk_o * 4 + 3, vj_o]" in sch.mod.script()
    assert_same_results(matmul, sch.mod)


def test_tensorize_with_the_shipped_dot16():
    sch = tvm.tir.Schedule(matmul)
    c = sch.get_block("C")
    i, j, k = sch.get_loops(c)
    k0, k1 = sch.split(k, factors=[None, 16])
    sch.decompose_reduction(c, i)
    sch.tensorize(k1, "dot_16_f32")
    assert "for k in T.unroll(16):" in sch.mod.script()
    assert_same_results(matmul, sch.mod)


# ---- errors --------------------------------------------------------------------------------


def test_errors_are_named_and_leave_the_schedule_unchanged():
    sch = tvm.tir.Schedule(two_stage)
    bi, bj = sch.get_loops(sch.get_block("B"))
    ci, cj = sch.get_loops(sch.get_block("C"))
    before = sch.mod
    with pytest.raises(tvm.tir.schedule.LoopsNotAChainError) as info:
        sch.reorder(ci, bj)
    message = str(info.value)
    assert "[not met] the loops lie on one path" in message
    assert "# <- error here" in message
    assert isinstance(info.value, tvm.tir.ScheduleError)
    assert isinstance(info.value, tvm.error.TVMError)
    assert sch.mod.same_as(before)
    assert len(sch.trace.insts) == 4  # the getters, not the failed reorder


def test_error_render_levels():
    for level, has_ir, has_conditions in [("detail", True, True), ("fast", False, True),
                                          ("none", False, False)]:
        sch = tvm.tir.Schedule(mm_relu, error_render_level=level)
        i, j, k = sch.get_loops(sch.get_block("Y"))
        with pytest.raises(tvm.tir.schedule.WrongBlockIterTypeError) as info:
            sch.parallel(k)
        text = str(info.value)
        assert ("# <- error here" in text) == has_ir
        assert ("[not met]" in text) == has_conditions


def test_split_errors():
    sch = tvm.tir.Schedule(VectorAdd)
    (i,) = sch.get_loops(sch.get_block("B"))
    with pytest.raises(tvm.tir.schedule.WrongFactorProductError):
        sch.split(i, factors=[2, 3])
    with pytest.raises(tvm.tir.schedule.WrongFactorError):
        sch.split(i, factors=[None, None])
    with pytest.raises(tvm.tir.schedule.NonPositiveFactorError):
        sch.split(i, factors=[0, 8])
    for bad in ("a", 2.0, True):
        with pytest.raises(tvm.error.TypeError, match="split factors must be integers or None"):
            sch.split(i, factors=[bad, None])


# ---- the trace -----------------------------------------------------------------------------


def _mm_relu_schedule():
    sch = tvm.tir.Schedule(mm_relu)
    y = sch.get_block("Y")
    i, j, k = sch.get_loops(y)
    j0, j1 = sch.split(j, factors=[None, 4])
    sch.reorder(j0, k, j1)
    sch.reverse_compute_at(sch.get_block("C"), j0)
    sch.parallel(i)  # before decompose_reduction, as TVM requires
    sch.decompose_reduction(y, k)
    return sch


def test_trace_show_and_replay():
    sch = _mm_relu_schedule()
    lines = sch.trace.as_python()
    assert lines[0] == 'b0 = sch.get_block(name="Y", func_name="main")'
    assert lines[1] == "l1, l2, l3 = sch.get_loops(block=b0)"
    assert lines[2].startswith("l4, l5 = sch.split(loop=l2, factors=[None, 4]")
    assert "sch.reorder(l4, l3, l5)" in lines
    fresh = tvm.tir.Schedule(mm_relu)
    sch.trace.apply_to_schedule(fresh, remove_postproc=False)
    tvm.ir.assert_structural_equal(fresh.mod, sch.mod)


def test_trace_json_round_trip():
    sch = _mm_relu_schedule()
    obj = sch.trace.as_json()
    assert obj[0][0] == ["GetBlock", [], ["Y", "main"], ["b0"]]
    fresh = tvm.tir.Schedule(mm_relu)
    tvm.tir.schedule.Trace.apply_json_to_schedule(obj, fresh)
    tvm.ir.assert_structural_equal(fresh.mod, sch.mod)
    assert str(tvm.tir.schedule.Trace.from_json(obj)) == str(sch.trace)


def test_trace_from_python_text():
    text = str(_mm_relu_schedule().trace)
    fresh = tvm.tir.Schedule(mm_relu)
    tvm.tir.schedule.Trace.from_python(text).apply_to_schedule(fresh)
    tvm.ir.assert_structural_equal(fresh.mod, _mm_relu_schedule().mod)


# ---- the step-by-step view -----------------------------------------------------------------


def test_show_steps(capsys):
    sch = _mm_relu_schedule()
    text = sch.show_steps()
    assert capsys.readouterr().out == text
    assert "step 3: l4, l5 = sch.split(" in text
    assert "--- before step 3" in text and "+++ after step 3" in text
    assert "check: OK" in text
    assert text.rstrip().endswith("every step kept the results of the original function")
