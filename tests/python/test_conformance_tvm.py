"""Behaviours that make TVM's own tests run on minitvm (issue 15): TVMScript spellings TVM
accepts, opaque intrinsics, closure values, structural equality of blocks, storage scopes,
storage_align's annotation and decompose_reduction's init loops. Programs written for minitvm.
"""
import numpy as np
import pytest

import minitvm as tvm
from minitvm import tir
from minitvm.script import tir as T


def _parse(text):
    return tvm.script.from_source(text)


# ---- TVMScript: dtype= on builders ------------------------------------------------------

def test_dtype_keyword_is_accepted_and_ignored_by_expression_builders():
    with_kw = _parse(
        "@T.prim_func\n"
        "def f(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"
        "    for i in range(4):\n"
        "        B[i] = T.if_then_else(i < 2, T.sqrt(A[i], dtype=\"float32\"), T.exp(A[i], "
        "dtype=\"float32\"), dtype=\"float32\")\n")
    plain = _parse(
        "@T.prim_func\n"
        "def f(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"
        "    for i in range(4):\n"
        "        B[i] = T.if_then_else(i < 2, T.sqrt(A[i]), T.exp(A[i]))\n")
    tvm.ir.assert_structural_equal(with_kw, plain)


def test_empty_dtype_string_is_void():
    f = _parse(
        "@T.prim_func\n"
        "def f(A: T.Buffer((4,), \"float32\")):\n"
        "    T.evaluate(T.call_extern(\"touch\", A.data, dtype=\"\"))\n")
    assert "T.call_extern(\"void\", \"touch\"" in f.script()


def test_check_well_formed_is_accepted_on_decorator_and_from_source():
    text = (
        "@T.prim_func(check_well_formed=False)\n"
        "def g(A: T.Buffer((2,), \"int32\")):\n"
        "    A[0] = 7\n")
    f = tvm.script.from_source(text, check_well_formed=False)
    assert f.script().count("A[0] = 7") == 1


# ---- opaque intrinsics (GPU, lowered code) ------------------------------------------------

def test_gpu_intrinsic_parses_prints_and_round_trips():
    f = _parse(
        "@T.prim_func\n"
        "def frag(B: T.Buffer((16, 16), \"float16\")):\n"
        "    for i in range(4):\n"
        "        T.evaluate(T.tvm_fill_fragment(B.data, 16, 16, 16, i, T.float32(0), "
        "dtype=\"handle\"))\n")
    text = f.script()
    assert "T.tvm_fill_fragment(B.data, 16, 16, 16, i, T.float32(0.0))" in text
    tvm.ir.assert_structural_equal(f, tvm.script.from_source(text))


def test_struct_get_writes_its_dtype_last():
    f = _parse(
        "@T.prim_func\n"
        "def h(args: T.handle):\n"
        "    n = T.tvm_struct_get(args, 0, 4, \"int32\")\n"
        "    T.evaluate(n)\n")
    text = f.script()
    assert 'T.tvm_struct_get(args, 0, 4, "int32")' in text
    tvm.ir.assert_structural_equal(f, tvm.script.from_source(text))


def test_arity_of_an_opaque_intrinsic_is_checked():
    with pytest.raises(tvm.error.ParseError, match="T.tvm_fill_fragment expects 6 arguments"):
        _parse("@T.prim_func\ndef k(A: T.Buffer((4,), \"float32\")):\n"
               "    T.evaluate(T.tvm_fill_fragment(A.data, 1))\n")


def test_interpreter_names_where_a_gpu_intrinsic_runs():
    f = _parse(
        "@T.prim_func\n"
        "def frag(B: T.Buffer((16, 16), \"float16\")):\n"
        "    T.evaluate(T.tvm_fill_fragment(B.data, 16, 16, 16, 0, T.float32(0)))\n")
    with pytest.raises(tvm.error.TVMError, match="runs only in the CUDA back end"):
        rt = tvm.driver.build(f, target="ref")
        rt(tvm.nd.array(np.zeros((16, 16), "float16")))


# ---- closure values and Python-level T.<intrinsic> ----------------------------------------

def test_python_level_intrinsic_builds_an_expression():
    e = T.exp2(tvm.tir.const(1.5, "float32"), dtype="float32")
    assert "T.exp2" in str(e) or "exp2" in str(e)
    assert str(e.dtype) == "float32"
    assert T.exp2.__name__ == "exp2"
    c = T.popcount(tvm.tir.const(7, "int32"))
    assert str(c.dtype) == "int32"


def test_script_uses_an_expression_and_a_function_of_the_enclosing_scope():
    shifted = tvm.tir.const(3, "int32")

    def twice(x):
        return x * 2

    @T.prim_func
    def func(A: T.Buffer((4,), "int32")):
        for i in range(4):
            A[i] = twice(i) + shifted

    @T.prim_func
    def expected(A: T.Buffer((4,), "int32")):
        for i in range(4):
            A[i] = i * 2 + 3

    tvm.ir.assert_structural_equal(func.with_attr("global_symbol", "x"),
                                   expected.with_attr("global_symbol", "x"))


# ---- structural equality -------------------------------------------------------------------

def test_block_names_do_not_take_part_in_structural_equality():
    def make(name):
        return _parse(
            "@T.prim_func\n"
            "def f(A: T.Buffer((4,), \"float32\")):\n"
            "    for i in range(4):\n"
            f"        with T.block(\"{name}\"):\n"
            "            vi = T.axis.spatial(4, i)\n"
            "            A[vi] = T.float32(0)\n")

    tvm.ir.assert_structural_equal(make("first"), make("second"))
    assert tvm.ir.structural_hash(make("first")) == tvm.ir.structural_hash(make("second"))


# ---- schedule primitives ---------------------------------------------------------------------

_COPY = (
    "@T.prim_func\n"
    "def copy(A: T.Buffer((8, 8), \"float32\"), C: T.Buffer((8, 8), \"float32\")):\n"
    "    B = T.alloc_buffer((8, 8))\n"
    "    for i, j in T.grid(8, 8):\n"
    "        with T.block(\"B\"):\n"
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "            B[vi, vj] = A[vi, vj] + T.float32(1)\n"
    "    for i, j in T.grid(8, 8):\n"
    "        with T.block(\"C\"):\n"
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "            C[vi, vj] = B[vi, vj]\n")


def test_tagged_storage_scopes_are_accepted_and_unknown_ones_are_schedule_errors():
    sch = tir.Schedule(_parse(_COPY))
    sch.cache_read("C", 0, "global.scratch")
    assert 'scope="global.scratch"' in sch.mod.script()
    sch = tir.Schedule(_parse(_COPY))
    with pytest.raises(tir.ScheduleError, match="unknown storage scope \"nowhere\""):
        sch.cache_write("B", 0, "nowhere")


def test_storage_align_records_flat_tuples_as_tvm():
    sch = tir.Schedule(_parse(_COPY))
    sch.storage_align("B", 0, axis=0, factor=16, offset=3)
    sch.storage_align("B", 0, axis=0, factor=32, offset=1)  # replaces the same axis
    assert '"buffer_dim_align": [[0, 0, 32, 1]]' in sch.mod.script()


def test_storage_align_refuses_a_malformed_annotation():
    bad = _COPY.replace('            vi, vj = T.axis.remap("SS", [i, j])\n'
                        '            B[vi, vj]',
                        '            T.block_attr({"buffer_dim_align": [5]})\n'
                        '            vi, vj = T.axis.remap("SS", [i, j])\n'
                        '            B[vi, vj]', 1)
    sch = tir.Schedule(_parse(bad))
    with pytest.raises(tir.ScheduleError, match="StorageAlignInvalidAnnotationError"):
        sch.storage_align("B", 0, axis=0, factor=16, offset=1)


def test_decompose_reduction_keeps_the_kind_of_the_loops_it_copies():
    f = _parse(
        "@T.prim_func\n"
        "def rowsum(A: T.Buffer((8, 4), \"float32\"), B: T.Buffer((8,), \"float32\")):\n"
        "    for i, k in T.grid(8, 4):\n"
        "        with T.block(\"S\"):\n"
        "            vi, vk = T.axis.remap(\"SR\", [i, k])\n"
        "            with T.init():\n"
        "                B[vi] = T.float32(0)\n"
        "            B[vi] = B[vi] + A[vi, vk]\n")
    sch = tir.Schedule(f)
    i, _ = sch.get_loops("S")
    sch.parallel(i)
    sch.decompose_reduction("S", i)
    text = sch.mod.script()
    assert "for i_init in T.parallel(8):" in text
    assert 'T.block("S_init")' in text


def test_bind_to_threadidx_may_drive_a_reduction_but_parallel_may_not():
    text = (
        "@T.prim_func\n"
        "def rowsum(A: T.Buffer((8, 32), \"float32\"), B: T.Buffer((8,), \"float32\")):\n"
        "    for i, k in T.grid(8, 32):\n"
        "        with T.block(\"S\"):\n"
        "            vi, vk = T.axis.remap(\"SR\", [i, k])\n"
        "            with T.init():\n"
        "                B[vi] = T.float32(0)\n"
        "            B[vi] = B[vi] + A[vi, vk]\n")
    sch = tir.Schedule(_parse(text))
    _, k = sch.get_loops("S")
    sch.bind(k, "threadIdx.x")  # a cross-thread reduction, as TVM allows
    assert 'T.thread_binding(32, thread="threadIdx.x")' in sch.mod.script()
    sch = tir.Schedule(_parse(text))
    _, k = sch.get_loops("S")
    with pytest.raises(tir.ScheduleError, match="WrongBlockIterTypeError"):
        sch.bind(k, "blockIdx.x")
    with pytest.raises(tir.ScheduleError, match="WrongBlockIterTypeError"):
        sch.parallel(k)


def test_an_opaque_block_may_use_the_loop_variables_around_it():
    f = _parse(
        "@T.prim_func\n"
        "def shift(A: T.Buffer((16,), \"float32\")):\n"
        "    for i in range(15):\n"
        "        with T.block(\"opaque\"):\n"
        "            A[i + 1] = A[i]\n")
    sch = tir.Schedule(f, debug_mask="all")
    (i,) = sch.get_loops("opaque")
    sch.unroll(i)  # the well-formedness check after the step accepts the block
    assert "T.unroll(15)" in sch.mod.script()


def test_lower_case_spellings_and_typed_pointer_annotations_parse():
    f = _parse(
        "@T.prim_func\n"
        "def g(flag: T.boolean, x: T.handle(\"int32\"), A: T.Buffer((8,), \"float32\")):\n"
        "    p: T.handle(\"float32\") = T.address_of(A[0], dtype=\"handle\")\n"
        "    A[T.ramp(0, 2, 4)] = T.broadcast(T.float32(1), 4)\n"
        "    T.evaluate(T.isnan(A[1]))\n"
        "    T.evaluate(p)\n")
    text = f.script()
    assert "flag: T.bool" in text and "T.isnan(A[1])" in text
    assert "T.address_of(A[0])" in text
    tvm.ir.assert_structural_equal(f, tvm.script.from_source(text))


def test_llvm_intrinsic_is_named_by_its_string():
    f = _parse(
        "@T.prim_func\n"
        "def c(A: T.Buffer((4,), \"uint8\"), B: T.Buffer((4,), \"uint8\")):\n"
        "    for i in range(4):\n"
        "        B[i] = T.call_llvm_pure_intrin(T.llvm_lookup_intrinsic_id(\"llvm.ctpop.i8\"),"
        " T.uint32(1), A[i], dtype=\"uint8\")\n")
    text = f.script()
    assert 'T.call_llvm_pure_intrin("uint8", "llvm.ctpop.i8", T.uint32(1), A[i])' in text
    tvm.ir.assert_structural_equal(f, tvm.script.from_source(text))


def test_nested_sequences_are_flattened_when_built_from_python():
    s = tvm.tir.SeqStmt([tvm.tir.SeqStmt([tvm.tir.Evaluate(0), tvm.tir.Evaluate(1)]),
                         tvm.tir.Evaluate(2)])
    assert len(s.seq) == 3


def test_compute_at_refuses_an_output_block_and_a_loop_around_the_block():
    sch = tir.Schedule(_parse(_COPY))
    i, _ = sch.get_loops("B")
    with pytest.raises(tir.ScheduleError, match="OutputBlockError.*output block"):
        sch.compute_at("C", i)
    with pytest.raises(tir.ScheduleError, match="LoopPositionError.*ancestor of block"):
        sch.compute_at("B", i)


def test_compute_at_names_the_consumer_outside_the_loop():
    text = _COPY.replace(
        "            C[vi, vj] = B[vi, vj]\n",
        "            C[vi, vj] = B[vi, vj]\n"
        "    for i, j in T.grid(8, 8):\n"
        "        with T.block(\"D\"):\n"
        "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
        "            E[vi, vj] = B[vi, vj] * T.float32(2)\n").replace(
        "    B = T.alloc_buffer((8, 8))\n", "    B = T.alloc_buffer((8, 8))\n    E = T.alloc_buffer((8, 8))\n")
    sch = tir.Schedule(_parse(text))
    i, _ = sch.get_loops("C")
    with pytest.raises(tir.ScheduleError, match="requires all the consumers of block"):
        sch.compute_at("B", i)


def test_target_is_a_context_manager():
    assert tvm.target.Target.current() is None
    with tvm.target.Target("llvm") as outer:
        assert tvm.target.Target.current() is outer
        with tvm.target.Target("cuda") as inner:
            assert tvm.target.Target.current() is inner
        assert tvm.target.Target.current() is outer
    assert tvm.target.Target.current() is None
    with pytest.raises(ValueError, match="no target"):
        tvm.target.Target.current(allow_none=False)
