"""TVM's newer names (0.22: tirx, s_tir, sblock, Tensor, ...) and the schedule-state API
(get_sref, state, work_on, remove_rv, get_output_blocks, InstructionKind): issue 15."""
import importlib

import numpy as np
import pytest

import minitvm as tvm
from minitvm import tir
from minitvm.script import tir as T


def _requires(name):
    if tvm.get_global_func(name, allow_missing=True) is None:
        pytest.skip(f"{name} is not built")


@T.prim_func
def two_stage(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    B = T.alloc_buffer((8, 8))
    for i, j in T.grid(8, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(8, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


# ---- module aliases ------------------------------------------------------------------------------

def test_tirx_is_tir_and_its_submodules_are_the_same_objects():
    import minitvm.tirx as tirx  # pylint: disable=import-outside-toplevel

    assert tirx is tvm.tir and tvm.tirx is tvm.tir
    assert importlib.import_module("minitvm.tirx.stmt") is importlib.import_module(
        "minitvm.tir.stmt")
    from minitvm.tirx import PrimFunc  # pylint: disable=import-outside-toplevel

    assert PrimFunc is tvm.tir.PrimFunc
    # The real module keeps its own spec (the alias did not overwrite it).
    assert importlib.import_module("minitvm.tirx.expr").__spec__.name == "minitvm.tir.expr"


def test_s_tir_holds_the_schedule():
    _requires("tir.schedule.Schedule")
    from minitvm import s_tir  # pylint: disable=import-outside-toplevel

    assert s_tir.Schedule is tir.Schedule and s_tir.SBlockRV is tir.schedule.BlockRV
    assert importlib.import_module("minitvm.s_tir.schedule") is tir.schedule
    assert s_tir.TensorIntrin is tir.TensorIntrin is tir.schedule.TensorIntrin
    sch = s_tir.Schedule(two_stage)
    assert sch.get(sch.get_sblock("C")).name_hint == "C"


def test_runtime_tensor_names_and_register_global_func():
    x = tvm.runtime.tensor(np.arange(6, dtype="float32"))
    assert isinstance(x, tvm.runtime.Tensor) and isinstance(x, tvm.nd.NDArray)
    e = tvm.runtime.empty((2, 3), "int32")
    assert e.shape == (2, 3) and str(e.dtype) == "int32"

    @tvm.register_global_func("testing.names_add_one", override=True)
    def add_one(v):
        return v + 1

    assert tvm.get_global_func("testing.names_add_one")(41) == 42


def test_var_name():
    v = tir.Var("n", "int64")
    assert v.name == "n" == v.name_hint


def test_sblock_names_and_s_tir_flag_parse_as_block():
    @T.prim_func(s_tir=True)
    def newer(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
        B = T.sblock_alloc_buffer((8, 8))
        for i, j in T.grid(8, 8):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2)
        for i, j in T.grid(8, 8):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.sblock_attr({"k": 1})
                C[vi, vj] = B[vi, vj] + T.float32(1)

    annotated = two_stage.body.block.body[1].body.body.block
    annotated = tir.Block(annotated.iter_vars, annotated.reads, annotated.writes, "C",
                          annotated.body, annotations={"k": 1})
    tvm.ir.assert_structural_equal(newer.body.block.body[0], two_stage.body.block.body[0])
    tvm.ir.assert_structural_equal(newer.body.block.body[1].body.body.block, annotated)
    assert "T.block(\"C\")" in newer.script() and "sblock" not in newer.script()


def test_call_tir_out_ty():
    _requires("relax.Var")
    from minitvm import relax  # pylint: disable=import-outside-toplevel

    gv = tvm.ir.GlobalVar("f")
    x = relax.Var("x", relax.TensorStructInfo((4,), "float32"))
    a = relax.call_tir(gv, [x], out_ty=relax.TensorStructInfo((4,), "float32"))
    b = relax.call_tir(gv, [x], out_sinfo=relax.TensorStructInfo((4,), "float32"))
    assert tvm.ir.structural_equal(a, b)
    with pytest.raises(TypeError, match="not both"):
        relax.call_tir(gv, [x], relax.TensorStructInfo((4,), "float32"),
                       out_ty=relax.TensorStructInfo((4,), "float32"))
    text = '''
@I.ir_module
class Mod:
    @T.prim_func
    def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.block("B"):
                vi = T.axis.spatial(4, i)
                B[vi] = A[vi]

    @R.function
    def main(x: R.Tensor((4,), "float32")):
        cls = Mod
        y = R.call_tir(cls.f, (x,), out_ty=R.Tensor((4,), dtype="float32"))
        return y
'''
    mod = tvm.script.from_source(text)
    assert "out_sinfo=R.Tensor((4,)" in mod.script()


# ---- schedule state --------------------------------------------------------------------------

def test_get_sref_and_state():
    _requires("tir.schedule.Schedule")
    sch = tir.Schedule(two_stage)
    b = sch.get_block("B")
    i, j = sch.get_loops(b)
    sref = sch.get_sref(b)
    assert sref.stmt.same_as(sch.get(b))
    assert sref.parent.stmt.same_as(sch.get(j))
    assert sref.parent.parent.stmt.same_as(sch.get(i))
    assert sch.state.get_sref(sch.get(i)) == sch.get_sref(i)
    assert tvm.ir.structural_equal(sch.state.mod, sch.mod)
    assert int(tir.schedule.state.ScheduleDebugMask.VERIFY_SREF_TREE) == 1
    # A node that is not in the module has no sref.
    other = tir.Schedule(two_stage)
    other.split(other.get_loops(other.get_block("B"))[0], [2, 4])
    assert sch.get_sref(other.get(other.get_loops(other.get_block("B"))[0])) is None
    with pytest.raises(TypeError, match="get_sref expects"):
        sch.get_sref(tir.Var("x"))


def test_work_on_chooses_the_function_of_get_block():
    _requires("tir.schedule.Schedule")
    mod = tvm.IRModule({"first": two_stage, "second": two_stage})
    sch = tir.Schedule(mod)
    assert sch.func_working_on is None  # no "main", two functions
    sch.work_on("second")
    assert sch.func_working_on.name_hint == "second"
    sch.split(sch.get_loops(sch.get_block("B"))[0], [2, 4])
    assert len(sch.mod["second"].body.block.body.seq[0].body.body.body.iter_values) == 2
    assert sch.mod["first"].same_as(mod["first"])
    with pytest.raises(ValueError, match="has no function 'third'"):
        sch.work_on("third")
    single = tir.Schedule(two_stage)
    assert single.func_working_on.name_hint == "main"


def test_remove_rv():
    _requires("tir.schedule.Schedule")
    sch = tir.Schedule(two_stage)
    b = sch.get_block("B")
    sch.remove_rv(b)
    with pytest.raises(ValueError, match="removed from the schedule"):
        sch.get(b)
    with pytest.raises(ValueError, match="removed"):
        sch.get_loops(b)
    assert sch.get(sch.get_block("B")).name_hint == "B"  # a new handle works
    copy = sch.copy()
    with pytest.raises(ValueError, match="removed"):
        copy.get(b)
    with pytest.raises(TypeError, match="remove_rv expects"):
        sch.remove_rv("B")


def test_get_output_blocks():
    _requires("tir.schedule.Schedule")
    sch = tir.Schedule(two_stage)
    root = sch.get_block("root")
    outs = sch.get_output_blocks(root)
    assert [sch.get(b).name_hint for b in outs] == ["C"]


def test_instruction_kind():
    _requires("tir.schedule.Schedule")
    sch = tir.Schedule(two_stage)
    sch.split(sch.get_loops(sch.get_block("B"))[0], [2, 4])
    kinds = [inst.kind for inst in sch.trace.insts]
    assert kinds == ["GetBlock", "GetLoops", "Split"]
    assert kinds[2].name == "Split" and not kinds[2].is_pure and kinds[0].is_pure
    assert tir.schedule.InstructionKind.get("Split") == "Split"
    with pytest.raises(ValueError, match="no instruction kind 'Nope'"):
        tir.schedule.InstructionKind.get("Nope")


def test_module_inspect_source():
    _requires("target.build.llvm")
    lib = tvm.build(tvm.IRModule({"main": two_stage}), target="llvm")
    assert lib.inspect_source("ll") == lib.get_source("ll")


# ---- transform_block_layout --------------------------------------------------------------------

@T.prim_func
def scale16(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)


@T.prim_func
def row_sum(A: T.Buffer((8, 32), "float32"), B: T.Buffer((8,), "float32")):
    for i, k in T.grid(8, 32):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]


@pytest.mark.parametrize("index_map,extents", [
    (lambda i, j: (i * 16 + j,), [256]),
    (lambda i, j: (j, i), [16, 16]),
    (lambda i, j: (i // 4, j, i % 4), [4, 16, 4]),
    (lambda i, j: (j // 8, i, j % 8), [2, 16, 8]),
])
def test_transform_block_layout_keeps_the_result(index_map, extents):
    _requires("tir.schedule.Schedule")
    sch = tir.Schedule(scale16)
    sch.transform_block_layout("B", index_map)
    loops = sch.get_loops(sch.get_block("B"))
    assert [int(sch.get(l).extent) for l in loops] == extents
    assert [str(sch.get(l).loop_var.name_hint) for l in loops] == [
        f"ax{k}" for k in range(len(extents))]
    # The trace replays to the same module.
    again = tir.Schedule(scale16)
    sch.trace.apply_to_schedule(again)
    assert tvm.ir.structural_equal(again.mod, sch.mod)
    a = np.random.default_rng(0).random((16, 16), dtype="float32")
    if tvm.get_global_func("target.build.llvm", allow_missing=True) is not None:
        b = tvm.nd.array(np.zeros((16, 16), "float32"))
        tvm.build(sch.mod, target="llvm")(tvm.nd.array(a), b)
        np.testing.assert_allclose(b.numpy(), a * 2)


def test_transform_block_layout_reduction_and_refusals():
    _requires("tir.schedule.Schedule")
    sch = tir.Schedule(row_sum)
    sch.transform_block_layout("B", lambda i, k: (k // 8, i, k % 8))
    kinds = [int(iv.iter_type) for iv in sch.get(sch.get_block("B")).iter_vars]
    assert kinds == [2, 0, 2]  # reduce, spatial, reduce
    # A new iterator that mixes a spatial and a reduction iterator is refused.
    bad = tir.Schedule(row_sum)
    with pytest.raises(tir.schedule.ScheduleError, match="OpaqueNewIterTypeError"):
        bad.transform_block_layout("B", lambda i, k: (i * 32 + k,))
    # Not a bijection minitvm can invert.
    bad = tir.Schedule(scale16)
    with pytest.raises(tir.schedule.ScheduleError, match="NotBijectiveAffineIndexMapError"):
        bad.transform_block_layout("B", lambda i, j: (i + j, j))
    before = bad.mod
    # Not bound one to one: after a split the block's binding is no longer trivial.
    bad.split(bad.get_loops(bad.get_block("B"))[0], [4, 4])
    before = bad.mod
    with pytest.raises(tir.schedule.ScheduleError, match="NotTrivialBindingError"):
        bad.transform_block_layout("B", lambda i, j: (j, i))
    assert bad.mod.same_as(before)  # unchanged after the error


# ---- Buffer methods in TVMScript ------------------------------------------------------------

_VLOAD = '''
@T.prim_func
def f(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    B[0:4] = A.vload([4], "float32x4")
    A.vstore([8], B.vload([0], "float32x4"))
    B[4] = A.vload([1])
    T.evaluate(A.access_ptr("r"))
    T.evaluate(A.access_ptr("rw", offset=4, extent=8))
'''


def test_buffer_vload_vstore_access_ptr():
    f = tvm.script.from_source(_VLOAD)
    text = f.script()
    assert "B[T.Ramp(0, 1, 4)] = A[T.Ramp(4, 1, 4)]" in text
    assert "A[T.Ramp(8, 1, 4)] = B[T.Ramp(0, 1, 4)]" in text
    assert 'T.tvm_access_ptr(T.type_annotation("float32"), A.data, 0, 16, 1)' in text
    assert 'T.tvm_access_ptr(T.type_annotation("float32"), A.data, 4, 8, 3)' in text
    assert tvm.ir.structural_equal(tvm.script.from_source(text), f)
    # The vector copies run like the element-wise ones (interpreter).
    g = tvm.script.from_source(_VLOAD.replace("    T.evaluate(A.access_ptr(\"r\"))\n", "")
                               .replace("    T.evaluate(A.access_ptr(\"rw\", offset=4, "
                                        "extent=8))\n", ""))
    an = tvm.nd.array(np.arange(16, dtype="float32"))
    bn = tvm.nd.array(np.zeros(16, "float32"))
    tvm.build(tvm.IRModule({"main": g}), target="ref")["main"](an, bn)
    np.testing.assert_array_equal(bn.numpy()[:5], [4, 5, 6, 7, 1])
    np.testing.assert_array_equal(an.numpy()[8:12], [4, 5, 6, 7])


@pytest.mark.parametrize("call,message", [
    ('A.vload([4], "float32x4", predicate=T.Broadcast(T.bool(True), 4))', "have no predicate"),
    ("A.vload([4, 1])", "1 dimensions but begin has 2 indices"),
    ('A.vload([4], "int32x4")', "cannot load int32x4"),
    ('A.access_ptr("x")', "made of 'r' and 'w'"),
    ("A.vload([1], colour=3)", 'no parameter "colour"'),
])
def test_buffer_method_errors(call, message):
    src = _VLOAD.replace("A.vload([1])", call)
    with pytest.raises(tvm.error.ParseError, match=message):
        tvm.script.from_source(src)
